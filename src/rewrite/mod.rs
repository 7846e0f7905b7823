//! Graph rewriting: RDF streamed through the adapters, so that every spelling of one identifier
//! becomes one node. Nothing else in the graph changes and nothing is lost.
//!
//! ```
//! use pidcanon::rewrite::{RdfFormat, Rewriter};
//! use pidcanon::Registry;
//!
//! let input = "<info:fedora/demo%3a1> <http://purl.org/dc/terms/relation> <hdl://10013/x> .\n";
//! let mut output = Vec::new();
//! let rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::NTriples);
//! let mut session = rewriter.session(&mut output);
//! session.rewrite(input.as_bytes())?;
//! let report = session.finish()?;
//! assert_eq!(
//!     String::from_utf8(output)?,
//!     "<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/x> .\n"
//! );
//! assert_eq!(report.statements_written, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The public surface: a [`Rewriter`] (the options, in the builder style of `oxttl`'s parsers)
//! starts a [`Session`] on an output, which takes one or more inputs and gives a [`Report`]; an
//! [`Observer`] hears of each finding as it is made; a rewrite stops with a [`RewriteError`].
//!
//! Two pipelines do the work:
//! - `line`: N-Triples and N-Quads to the same are rewritten line by line, in chunks on as many
//!   threads as asked: a line with nothing to change is written as its original bytes, a changed
//!   one differs only in the rewritten IRIs, and every output line stands for one input line, in
//!   order.
//! - `graph`: any other pair of formats is parsed, mapped and serialized; a Turtle or TriG
//!   output keeps the prefixes the input declared before its first statement.
//!
//! Statements already parsed ([`rewrite_located_quads`](Session::rewrite_located_quads): an
//! application's, or the command line's FOXML objects) are mapped and written by `graph`
//! whatever the formats: serialized, or as lines into a line-based output.
//!
//! Both find rewrites, invalid identifiers and syntax errors on their workers and leave every
//! decision about them to the session. Memory stays constant, except for
//! [`drop_duplicates`](Rewriter::drop_duplicates) (16 bytes of fingerprint per distinct
//! statement, plus the set's overhead) and for links and maps (each distinct rewritten IRI once).

mod blank_nodes;
mod builder;
mod cache;
mod error;
mod events;
mod findings;
mod fingerprint;
mod graph;
mod line;
mod line_iris;
mod nanopub;
mod reader_quads;
mod report;
mod session;
mod terms;

pub use crate::position::Location;
pub use crate::read::{FormatError, RdfFormat, SyntaxError, WORKER_STACK, parse_format};
pub use builder::{QuadRewriter, Rewriter};
pub use error::RewriteError;
pub use reader_quads::ReaderQuadRewriter;
pub use report::{Observer, Recovery, Report};
pub use session::Session;

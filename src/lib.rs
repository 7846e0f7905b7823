//! Canonical persistent identifiers in RDF: Fedora PIDs and `info:fedora` URIs, OAI
//! identifiers, PURL-based Object Identifiers, Handles and DOIs, and Persistent Document
//! Identifiers, each written one way, so that the spellings of one identifier become one node.
//!
//! Identifiers one at a time — a [`Registry`] of scheme adapters under a [`Policy`]:
//!
//! ```
//! use pidcanon::{Kind, Registry};
//! let registry = Registry::default();
//! let canonical = registry.canonicalize("http://dx.doi.org/10.1371/JOURNAL.PONE.0042793")?;
//! assert_eq!(canonical.iri, "https://doi.org/10.1371/journal.pone.0042793");
//! assert_eq!(canonical.kind, Kind::Doi);
//! // Invalid: the error names the rule broken and where.
//! assert!(registry.canonicalize("info:fedora/demo:a b").is_err());
//! # Ok::<(), pidcanon::IdError>(())
//! ```
//!
//! Graphs streamed through the adapters — a [`rewrite::Rewriter`] (formats, base IRI, threads,
//! strict or lenient, a mapping of renames and equivalence classes), one
//! [`rewrite::Session`] per output:
//!
//! ```
//! use pidcanon::rewrite::{RdfFormat, Rewriter};
//! use pidcanon::Registry;
//! let rewriter = Rewriter::new(Registry::default()).with_input_format(RdfFormat::NTriples);
//! let mut output = Vec::new();
//! let mut session = rewriter.session(&mut output);
//! session.rewrite(&b"<info:fedora/demo%3a1> <http://purl.org/dc/terms/relation> <hdl://10013/x> .\n"[..])?;
//! let report = session.finish()?;
//! assert_eq!(
//!     String::from_utf8(output)?,
//!     "<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/x> .\n"
//! );
//! assert_eq!(report.statements_read, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Where to go next:
//! - [`rewrite::Rewriter::for_quads`] rewrites statements an application already holds,
//!   [`rewrite::Rewriter::for_reader`] those of a text it reads (an iterator, as `oxttl`'s
//!   parsers are), and [`rewrite::Observer`] hears each rewrite, invalid identifier and syntax error.
//! - [`collapse`] gathers classes of equivalent identifiers ([`collapse::CollapseOptions`],
//!   [`collapse::Collector`]), [`equivalence::rename::RenameTable`] renames,
//!   [`equivalence::literals::LiteralRewriter`] rewrites identifiers written as literals; all
//!   apply through [`rewrite::Rewriter::with_mapping`] and [`rewrite::Rewriter::with_literals`].
//! - `store` (feature `store`) normalizes a live SPARQL store in place.
//!
//! Features: `rdf-12` (RDF 1.2 triple terms and directional language tags; it turns on
//! `oxrdf`'s own `rdf-12` for the whole application), `rdfxml` (RDF/XML and FOXML),
//! `policy-file` (policies read from TOML), `store`, `compression` (gzip, bzip2 and zstd dumps,
//! [`compression`]), and `cli` (the command line and all of the above, on by default: depend on
//! the library with `default-features = false` for N-Triples, N-Quads, Turtle and TriG alone). The command line, the
//! specifications each adapter follows and the design choices are in the README and `docs/`.
#![doc(test(attr(deny(warnings))))]

#[cfg(any(feature = "compression", feature = "rdfxml"))]
mod buffered;
pub mod collapse;
#[cfg(feature = "compression")]
pub mod compression;
pub mod equivalence;
mod error;
#[cfg(feature = "rdfxml")]
pub mod foxml;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod iri;
mod kind;
mod language_tag;
pub mod pct;
mod policy;
mod position;
#[cfg(feature = "rdfxml")]
pub mod rdfxml;
mod read;
pub mod rewrite;
pub mod scheme;
#[cfg(feature = "store")]
pub mod store;
mod url_prefix;

pub use error::{IdError, Rule};
pub use kind::{Kind, UnknownKind};
pub use policy::{DoiForm, HandleForm, PoiOai, Policy, PolicyError};
pub use scheme::{Canonical, CanonicalNamedNode, Registry, SchemeAdapter};

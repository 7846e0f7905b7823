//! Reading RDF: statements and notices (syntax errors recovered from, warnings), each with the
//! text of the lines it spans or where it is, and nothing canonicalized. The text formats are
//! read line by line through `oxttl`'s low-level parsers ([`lines`], [`line_parser`]), Turtle
//! in its common shape through a fast path of its own ([`turtle`]) and on several threads in
//! pieces ([`parallel`]); N-Triples and N-Quads lines are also checked by a scanner of their
//! own ([`line_scan`]), in chunks of whole lines ([`chunk`]); RDF/XML is read through
//! `oxrdfxml` with the input location of the XML event that completes each statement
//! ([`rdfxml`], with `crate::rdfxml`'s legacy pre-pass).
//!
//! Every consumer reads through here: the rewrite's two pipelines, the first pass of
//! `--collapse`, `check`, and through them the store, Python and Spark.

mod chunk;
mod error;
mod format;
mod graph_blocks;
mod line_parser;
mod line_scan;
mod lines;
mod parallel;
mod pending;
#[cfg(feature = "rdfxml")]
mod rdfxml;
mod scan;
mod statements;
mod threads;
mod turtle;

pub(crate) use chunk::read_chunk;
pub(crate) use error::ReadError;
pub use error::SyntaxError;
pub use format::{FormatError, RdfFormat, parse_format};
pub(crate) use line_parser::{LineParser, error_location, with_prefixes};
pub(crate) use line_scan::{Checked, KnownIris, check, iri_hash};
pub(crate) use statements::Statements;
pub use threads::WORKER_STACK;
pub(crate) use threads::spawn_worker;

use crate::position::Location;
use lines::{Resume, read_lines};

/// The files under each of `fixtures/`'s `dirs` whose extension is one of `extensions` (for the
/// tests that read the W3C suites and the real corpus).
#[cfg(test)]
pub(crate) fn fixture_files(dirs: &[&str], extensions: &[&str]) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, extensions: &[&str], out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, extensions, out);
            } else if path
                .extension()
                .is_some_and(|e| extensions.iter().any(|x| e == *x))
            {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files = Vec::new();
    for dir in dirs {
        walk(&root.join(dir), extensions, &mut files);
    }
    files
}

use oxrdf::Quad;
use std::io::BufRead;

#[cfg(test)]
thread_local! {
    /// Work that once grew with the square of the input — prefixes the fast path compares and
    /// takes again, bytes `Pending` moves, `oxttl` asked again for a statement still open, the
    /// declarations a piece is sent with — for the tests to check that it grows linearly.
    pub(crate) static REPEATED_WORK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `units` of [`REPEATED_WORK`] (in the tests only).
#[cfg_attr(not(test), allow(unused_variables))]
pub(crate) fn repeated_work(units: usize) {
    #[cfg(test)]
    REPEATED_WORK.with(|work| work.set(work.get() + units));
}

/// What reading yields: a statement, a piece of statements worked on where they were parsed
/// ([`PieceWork`]), or a notice.
pub(crate) enum Item<D = NoWork> {
    Statement(Quad),
    /// A piece of Turtle read on a thread of its own and worked on there (with the
    /// declarations before its first statement, if it has one, as the item's).
    Piece(Box<D>),
    Notice(Notice),
}

/// What reading tells beside the statements: a syntax error recovered from, or a warning
/// (legacy RDF/XML read in its compatibility mode).
pub(crate) enum Notice {
    SyntaxError(SyntaxError),
    #[cfg_attr(not(feature = "rdfxml"), allow(dead_code))]
    Warning(Location, String),
}

/// The lines an item spans (for a statement, from the line the previous one ended on), with
/// the number of the first; for an item read without its lines (RDF/XML), no text and where it
/// is.
#[derive(Clone, Copy)]
pub(crate) struct Span<'a> {
    /// The first line (0: unknown).
    pub(crate) first_line: u64,
    /// The column on `first_line`, known for an item read without its lines: the start of the
    /// XML event that completes it.
    pub(crate) column: Option<u64>,
    pub(crate) text: &'a [u8],
}

impl Span<'_> {
    /// An item read without its lines, at `location`.
    pub(crate) fn at(location: Location) -> Self {
        Span {
            first_line: location.line().unwrap_or(0),
            column: location.column(),
            text: b"",
        }
    }

    /// Where the item starts, as far as known without searching its text.
    pub(crate) fn start(&self) -> Location {
        match (self.first_line, self.column) {
            (0, _) => Location::unknown(),
            (line, Some(column)) => Location::new(line, column),
            (line, None) => Location::at_line(line),
        }
    }
}

/// Prefixes and base IRI, as declared by the input when its first statement is read.
pub(crate) type Declarations = (Vec<(String, String)>, Option<String>);

/// Work done on a piece of Turtle on the thread that parsed it, beside the parsing (the rewrite
/// canonicalizes there): each parsing thread has its own ([`Reader::with_piece_work`]).
pub(crate) trait PieceWork: Send {
    /// What a piece becomes, handed on whole as an [`Item::Piece`].
    type Done: Send;

    /// Starts a piece of `len` bytes; `first` is the declarations before the input's first
    /// statement, if that is before the piece.
    fn start(&mut self, len: usize, first: Option<Declarations>) -> Self::Done;

    /// Takes one statement of the piece, with the lines it spans and the declarations before
    /// it.
    fn statement(
        &mut self,
        done: &mut Self::Done,
        quad: Quad,
        span: Span<'_>,
        declarations: &dyn Fn() -> Declarations,
    );

    /// Ends the piece, `read` statements parsed: false when what was done depends on the
    /// pieces before it, and the piece is to be read again in order.
    fn end(&mut self, done: &mut Self::Done, read: u64) -> bool;
}

/// No work on pieces: they are handed on statement by statement.
pub(crate) enum NoWork {}

impl PieceWork for NoWork {
    type Done = NoWork;

    fn start(&mut self, _: usize, _: Option<Declarations>) -> NoWork {
        match *self {}
    }

    fn statement(&mut self, _: &mut NoWork, _: Quad, _: Span<'_>, _: &dyn Fn() -> Declarations) {
        match *self {}
    }

    fn end(&mut self, _: &mut NoWork, _: u64) -> bool {
        match *self {}
    }
}

/// Reads a whole input in one format, item by item.
pub(crate) struct Reader<'p, W = NoWork> {
    format: RdfFormat,
    base: Option<&'p str>,
    /// RDF/XML without the legacy pre-pass (`crate::rdfxml`).
    #[cfg_attr(not(feature = "rdfxml"), allow(dead_code))]
    strict_rdfxml: bool,
    /// More than one: Turtle is parsed in pieces on as many threads ([`parallel`]).
    threads: usize,
    /// What each of those threads works on its pieces with, if they are worked on there.
    piece_work: Option<&'p (dyn Fn() -> W + Sync)>,
    /// The declarations the work takes for those before the input's first statement, if it
    /// knows them already (else those the input makes).
    first: Option<Declarations>,
}

impl<'p, W: PieceWork> Reader<'p, W> {
    pub(crate) fn new(
        format: RdfFormat,
        base: Option<&'p str>,
        strict_rdfxml: bool,
        threads: usize,
    ) -> Self {
        Self {
            format,
            base,
            strict_rdfxml,
            threads,
            piece_work: None,
            first: None,
        }
    }

    /// Works on the pieces of Turtle parsed on several threads where they are parsed, each
    /// thread with what `work` makes; `first`, if given, is taken for the declarations before
    /// the input's first statement (the work knows them already).
    pub(crate) fn with_piece_work(
        self,
        work: &'p (dyn Fn() -> W + Sync),
        first: Option<Declarations>,
    ) -> Self {
        Self {
            piece_work: Some(work),
            first,
            ..self
        }
    }

    /// Reads every item of `input`. `on_item` gets each item, the lines it spans (for RDF/XML,
    /// where it is) and, to call before the first statement, the input's declarations.
    pub(crate) fn read<E: From<ReadError>>(
        &self,
        input: impl BufRead,
        mut on_item: impl FnMut(Item<W::Done>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
    ) -> Result<(), E> {
        match LineParser::declared(self.format, self.base, &[])? {
            Some(parser) if self.format == RdfFormat::Turtle && self.threads > 1 => {
                let (work, first) = (self.piece_work, self.first.clone());
                parallel::read(input, parser, self.threads, work, first, &mut on_item)
            }
            Some(parser) => read_lines(input, parser, Resume::default(), &mut on_item).map(drop),
            #[cfg(feature = "rdfxml")]
            None => rdfxml::read(input, self.base, self.strict_rdfxml, &mut on_item),
            #[cfg(not(feature = "rdfxml"))]
            None => unreachable!("every format but RDF/XML has a line parser"),
        }
    }
}

/// Every statement of `input` with the line it starts on (0: unknown), read as the graph
/// pipeline reads it on one thread — the legacy RDF/XML pre-pass, recovery after syntax errors
/// — with no notice told: for the first pass of `--collapse`
/// (`crate::collapse::Collector::read_graph`).
pub(crate) fn read_statements<E: From<ReadError>>(
    input: impl BufRead,
    format: RdfFormat,
    base: Option<&str>,
    mut on_statement: impl FnMut(Quad, u64) -> Result<(), E>,
) -> Result<(), E> {
    Reader::<NoWork>::new(format, base, false, 1).read(input, |item, span, _| match item {
        Item::Statement(quad) => on_statement(quad, span.first_line),
        Item::Notice(_) => Ok(()),
        Item::Piece(never) => match *never {},
    })
}

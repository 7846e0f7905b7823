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
//! N-Triples and N-Quads are rewritten line by line: a line with nothing to change is written as
//! its original bytes, a changed one differs only in the rewritten IRIs, and every output line
//! stands for one input line, in order. Turtle, TriG and RDF/XML are parsed and serialized; a
//! Turtle or TriG output keeps the prefixes and base the input declared before its first
//! statement. Memory stays constant, except for `--dedup` (16 bytes of fingerprint per distinct
//! statement, plus the set's overhead) and for `--links`/`--map` (each distinct rewritten IRI
//! once).

mod cache;
mod chunk;
mod lines;
mod ntriples;
mod sink;
mod source;

pub use oxrdfio::RdfFormat;

use crate::{Canonical, IdError, Kind, Registry};
use oxrdf::{GraphName, NamedNode, NamedOrBlankNode, Quad, Term};
use source::{Declarations, Item, Reader};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io::{self, BufRead, BufWriter, Write};

/// Where something is in the input: 1-based line and column; 0 where unknown (RDF/XML has no
/// line numbers; a Turtle statement's IRI that is not written out in full has no column).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// 1-based line, 0 if unknown.
    pub line: u64,
    /// 1-based column in characters, 0 if unknown.
    pub column: u64,
}

impl Location {
    /// A location at `line` and `column`.
    #[must_use]
    pub const fn new(line: u64, column: u64) -> Self {
        Self { line, column }
    }

    /// An unknown location.
    #[must_use]
    pub const fn unknown() -> Self {
        Self { line: 0, column: 0 }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => f.write_str("?"),
            (line, 0) => write!(f, "{line}"),
            (line, column) => write!(f, "{line}:{column}"),
        }
    }
}

/// Why a rewrite stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RewriteError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The input is not valid in its format (not in lenient mode).
    #[error("{location}: syntax error: {message}")]
    Syntax {
        /// Where.
        location: Location,
        /// The parser's message.
        message: String,
    },
    /// An identifier an adapter claims is invalid (in strict mode).
    #[error("{location}: invalid identifier <{iri}>: {error}")]
    InvalidIdentifier {
        /// Where.
        location: Location,
        /// The IRI.
        iri: String,
        /// What is wrong with it.
        #[source]
        error: IdError,
    },
    /// The options cannot be used together (a bad base IRI, named graphs into a triple format).
    #[error("{0}")]
    Usage(String),
}

/// Told about what a rewrite finds, as it goes (the CLI prints these on stderr).
pub trait Observer {
    /// Whether [`rewritten`](Observer::rewritten) wants to hear of every rewrite; when it does
    /// not, the rewriter saves locating each one (the default hears them).
    fn hears_rewrites(&self) -> bool {
        true
    }

    /// An IRI was rewritten.
    fn rewritten(&mut self, location: Location, original: &str, canonical: &str, kind: Kind) {
        let _ = (location, original, canonical, kind);
    }

    /// An IRI that an adapter claims is invalid; it is left unchanged.
    fn invalid(&mut self, location: Location, iri: &str, error: &IdError) {
        let _ = (location, iri, error);
    }

    /// A syntax error was skipped (lenient mode).
    fn syntax_error(&mut self, location: Location, message: &str) {
        let _ = (location, message);
    }
}

/// An observer that ignores everything.
impl Observer for () {
    fn hears_rewrites(&self) -> bool {
        false
    }
}

/// What a rewrite did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Statements read.
    pub statements_read: u64,
    /// Statements written.
    pub statements_written: u64,
    /// IRI occurrences rewritten, per kind of identifier.
    pub rewritten: BTreeMap<Kind, u64>,
    /// Occurrences of claimed but invalid identifiers (left unchanged).
    pub invalid_identifiers: u64,
    /// Statements dropped as exact duplicates (`with_dedup`).
    pub duplicates_dropped: u64,
    /// Syntax errors skipped (lenient mode).
    pub syntax_errors: u64,
    /// Bytes of input read.
    pub bytes_read: u64,
}

impl Report {
    /// IRI occurrences rewritten, all kinds together.
    #[must_use]
    pub fn rewritten_total(&self) -> u64 {
        self.rewritten.values().sum()
    }
}

/// How to rewrite: formats, base IRI, the adapters, and what to do with bad input.
#[derive(Debug)]
pub struct Rewriter {
    registry: Registry,
    input_format: RdfFormat,
    output_format: RdfFormat,
    base_iri: Option<String>,
    strict: bool,
    lenient: bool,
    dedup: bool,
    threads: usize,
}

impl Rewriter {
    /// A rewriter with `registry`'s adapters, N-Triples in and out.
    #[must_use]
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            input_format: RdfFormat::NTriples,
            output_format: RdfFormat::NTriples,
            base_iri: None,
            strict: false,
            lenient: false,
            dedup: false,
            threads: 1,
        }
    }

    /// Reads and writes `format`.
    #[must_use]
    pub fn with_format(mut self, format: RdfFormat) -> Self {
        self.input_format = format;
        self.output_format = format;
        self
    }

    /// Reads `format` (the output format stays as it was).
    #[must_use]
    pub fn with_input_format(mut self, format: RdfFormat) -> Self {
        self.input_format = format;
        self
    }

    /// Writes `format`.
    #[must_use]
    pub fn with_output_format(mut self, format: RdfFormat) -> Self {
        self.output_format = format;
        self
    }

    /// Resolves relative IRIs of Turtle, TriG and RDF/XML input against `base_iri`.
    pub fn with_base_iri(mut self, base_iri: impl Into<String>) -> Result<Self, RewriteError> {
        let base_iri = base_iri.into();
        crate::iri::validate(&base_iri)
            .map_err(|e| RewriteError::Usage(format!("invalid base IRI: {e}")))?;
        self.base_iri = Some(base_iri);
        Ok(self)
    }

    /// Makes an invalid identifier an error, instead of leaving it unchanged and reporting it.
    #[must_use]
    pub fn strict(mut self) -> Self {
        self.strict = true;
        self
    }

    /// Goes on after a syntax error: an N-Triples/N-Quads line is passed through unchanged (or
    /// written to the rejects), a Turtle/TriG statement skipped; each is reported.
    #[must_use]
    pub fn lenient(mut self) -> Self {
        self.lenient = true;
        self
    }

    /// Drops statements that are exact duplicates of one written before (after rewriting).
    #[must_use]
    pub fn with_dedup(mut self) -> Self {
        self.dedup = true;
        self
    }

    /// Rewrites N-Triples / N-Quads on `threads` threads (1 by default), chunk by chunk, written
    /// in the input's order: the output is the same as with one thread.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The adapters.
    #[must_use]
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Whether output lines are input lines with IRIs spliced in.
    fn line_based(&self) -> bool {
        matches!(
            (self.input_format, self.output_format),
            (RdfFormat::NTriples, RdfFormat::NTriples | RdfFormat::NQuads)
                | (RdfFormat::NQuads, RdfFormat::NQuads)
        )
    }

    /// A session writing to `writer`: feed it one input or several, then [`finish`](Session::finish).
    pub fn session<'s, W: Write + 's>(&'s self, writer: W) -> Session<'s, W> {
        let output = if self.line_based() {
            Output::Lines(BufWriter::with_capacity(1 << 16, writer))
        } else {
            let shared = sink::SharedBuffer::default();
            Output::Graph {
                writer: BufWriter::with_capacity(1 << 16, writer),
                sink: Some(sink::GraphSink::new(shared.clone())),
                shared,
            }
        };
        Session {
            rewriter: self,
            output,
            observer: Box::new(()),
            links: None,
            map: None,
            rejects: None,
            recorded: HashSet::new(),
            fingerprints: HashSet::new(),
            report: Report::default(),
            declared: false,
        }
    }

    /// The statement with every IRI canonicalized; invalid identifiers are left as they are.
    ///
    /// ```
    /// use oxrdf::{NamedNode, Quad, GraphName};
    /// use pidcanon::{rewrite::Rewriter, Registry};
    /// let rewriter = Rewriter::new(Registry::default());
    /// let quad = Quad::new(
    ///     NamedNode::new("info:fedora/demo%3a1")?,
    ///     NamedNode::new("http://purl.org/dc/terms/relation")?,
    ///     NamedNode::new("doi:10.1000/ABC")?,
    ///     GraphName::DefaultGraph,
    /// );
    /// let canonical = rewriter.canonical_quad(quad);
    /// assert_eq!(canonical.subject.to_string(), "<info:fedora/demo:1>");
    /// assert_eq!(canonical.object.to_string(), "<https://doi.org/10.1000/abc>");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn canonical_quad(&self, quad: Quad) -> Quad {
        let mut silent = |iri: &str| -> Result<Option<String>, std::convert::Infallible> {
            Ok(match self.registry.canonicalize_claimed(iri) {
                Some(Ok(Canonical {
                    iri: Cow::Owned(canonical),
                    ..
                })) if canonical != iri => Some(canonical),
                _ => None,
            })
        };
        match map_quad(quad, &mut silent) {
            Ok(quad) => quad,
            Err(never) => match never {},
        }
    }
}

/// Every IRI of `quad` (in triple terms too) through `f`; literals and blank nodes untouched.
fn map_quad<E>(
    quad: Quad,
    f: &mut impl FnMut(&str) -> Result<Option<String>, E>,
) -> Result<Quad, E> {
    Ok(Quad {
        subject: map_subject(quad.subject, f)?,
        predicate: map_named_node(quad.predicate, f)?,
        object: map_term(quad.object, f)?,
        graph_name: match quad.graph_name {
            GraphName::NamedNode(n) => GraphName::NamedNode(map_named_node(n, f)?),
            other => other,
        },
    })
}

fn map_named_node<E>(
    node: NamedNode,
    f: &mut impl FnMut(&str) -> Result<Option<String>, E>,
) -> Result<NamedNode, E> {
    Ok(match f(node.as_str())? {
        Some(canonical) => NamedNode::new_unchecked(canonical),
        None => node,
    })
}

fn map_subject<E>(
    subject: NamedOrBlankNode,
    f: &mut impl FnMut(&str) -> Result<Option<String>, E>,
) -> Result<NamedOrBlankNode, E> {
    Ok(match subject {
        NamedOrBlankNode::NamedNode(n) => NamedOrBlankNode::NamedNode(map_named_node(n, f)?),
        other => other,
    })
}

fn map_term<E>(
    term: Term,
    f: &mut impl FnMut(&str) -> Result<Option<String>, E>,
) -> Result<Term, E> {
    Ok(match term {
        Term::NamedNode(n) => Term::NamedNode(map_named_node(n, f)?),
        Term::Triple(t) => {
            let t = *t;
            Term::Triple(Box::new(oxrdf::Triple {
                subject: map_subject(t.subject, f)?,
                predicate: map_named_node(t.predicate, f)?,
                object: map_term(t.object, f)?,
            }))
        }
        other => other,
    })
}

enum Output<W: Write> {
    /// Line-based output: the input's lines, with IRIs spliced in.
    Lines(BufWriter<W>),
    /// Serialized output: the sink serializes into `shared`, which is drained into `writer`.
    Graph {
        writer: BufWriter<W>,
        shared: sink::SharedBuffer,
        /// Away on the worker thread during a rewrite.
        sink: Option<sink::GraphSink>,
    },
}

/// One rewrite in progress: one output, one or more inputs.
pub struct Session<'s, W: Write> {
    rewriter: &'s Rewriter,
    output: Output<W>,
    observer: Box<dyn Observer + 's>,
    links: Option<Box<dyn Write + 's>>,
    map: Option<Box<dyn Write + 's>>,
    rejects: Option<Box<dyn Write + 's>>,
    /// Originals already written to the links and map.
    recorded: HashSet<Box<str>>,
    /// Fingerprints of the statements written, for `with_dedup`.
    fingerprints: HashSet<u128>,
    report: Report,
    /// Whether the input's declarations went to the serializer.
    declared: bool,
}

impl<W: Write> fmt::Debug for Session<'_, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

impl<'s, W: Write> Session<'s, W> {
    /// Tells `observer` about rewrites, invalid identifiers and skipped syntax errors.
    #[must_use]
    pub fn with_observer(mut self, observer: impl Observer + 's) -> Self {
        self.observer = Box::new(observer);
        self
    }

    /// Writes `<original> owl:sameAs <canonical> .` once per rewritten IRI.
    #[must_use]
    pub fn with_links(mut self, links: impl Write + 's) -> Self {
        self.links = Some(Box::new(BufWriter::new(links)));
        self
    }

    /// Writes `original<TAB>canonical<TAB>kind` once per rewritten IRI.
    #[must_use]
    pub fn with_map(mut self, map: impl Write + 's) -> Self {
        self.map = Some(Box::new(BufWriter::new(map)));
        self
    }

    /// In lenient mode, writes the N-Triples/N-Quads lines that do not parse here instead of
    /// passing them through.
    #[must_use]
    pub fn with_rejects(mut self, rejects: impl Write + 's) -> Self {
        self.rejects = Some(Box::new(BufWriter::new(rejects)));
        self
    }

    /// What the session has done so far.
    #[must_use]
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Rewrites one input into the session's output.
    pub fn rewrite(&mut self, input: impl BufRead) -> Result<(), RewriteError> {
        let mut input = CountingReader {
            inner: input,
            count: 0,
        };
        let result = match self.output {
            Output::Lines(_) => self.rewrite_lines(&mut input),
            Output::Graph { .. } => self.rewrite_graph(&mut input),
        };
        self.report.bytes_read += input.count;
        result
    }

    /// Ends the output (serializers close their last statement) and flushes every writer.
    pub fn finish(mut self) -> Result<Report, RewriteError> {
        match self.output {
            Output::Lines(mut out) => out.flush()?,
            Output::Graph {
                mut writer,
                shared,
                sink,
            } => {
                if let Some(sink) = sink {
                    sink.finish(self.rewriter)?;
                }
                shared.drain_into(&mut writer)?;
                writer.flush()?;
            }
        }
        for sink in [&mut self.links, &mut self.map, &mut self.rejects]
            .into_iter()
            .flatten()
        {
            sink.flush()?;
        }
        Ok(self.report)
    }

    /// N-Triples / N-Quads to the same: chunks of lines with IRIs spliced in, on as many threads as
    /// the rewriter has, applied in order.
    fn rewrite_lines(&mut self, input: &mut impl BufRead) -> Result<(), RewriteError> {
        let rewriter = self.rewriter;
        let needs = self.needs();
        let mut workers: Vec<_> = (0..rewriter.threads)
            .map(|_| chunk::LineWorker::new(rewriter, needs))
            .collect();
        let mut chunks = vec![Vec::new(); rewriter.threads];
        let mut next = vec![Vec::new(); rewriter.threads];
        let mut results: Vec<chunk::ChunkResult> =
            (0..rewriter.threads).map(|_| Default::default()).collect();
        let mut first_line = 1;
        let mut filled = fill(input, &mut chunks)?;
        while filled > 0 {
            let jobs = workers
                .iter_mut()
                .zip(&chunks[..filled])
                .zip(&mut results[..filled]);
            // While the workers rewrite these chunks, the next ones are read.
            let next_filled = if rewriter.threads == 1 {
                jobs.for_each(|((worker, buffer), result)| worker.process(buffer, result));
                fill(input, &mut next)
            } else {
                std::thread::scope(|scope| {
                    for ((worker, buffer), result) in jobs {
                        spawn_worker(scope, move || worker.process(buffer, result))?;
                    }
                    fill(input, &mut next)
                })
            };
            for result in &mut results[..filled] {
                self.apply(result, first_line)?;
                first_line += result.lines;
            }
            std::mem::swap(&mut chunks, &mut next);
            filled = next_filled?;
        }
        Ok(())
    }

    /// Applies a rewritten chunk whose first line is `first_line`: its events in order, then its
    /// output, less the duplicates.
    fn apply(
        &mut self,
        result: &mut chunk::ChunkResult,
        first_line: u64,
    ) -> Result<(), RewriteError> {
        self.report.statements_read += result.statements;
        self.count(&result.rewritten);
        let mut written = 0;
        let mut duplicates = 0;
        for event in result.events.drain(..) {
            let Some((fingerprint, output)) = self.apply_event(event, first_line)? else {
                continue;
            };
            if !self.fingerprints.insert(fingerprint) {
                self.raw_output()
                    .write_all(&result.output[written..output.start])?;
                written = output.end;
                duplicates += 1;
            }
        }
        self.raw_output().write_all(&result.output[written..])?;
        self.report.duplicates_dropped += duplicates;
        self.report.statements_written += result.statements - duplicates;
        Ok(())
    }

    fn count(&mut self, rewritten: &BTreeMap<Kind, u64>) {
        for (kind, n) in rewritten {
            *self.report.rewritten.entry(*kind).or_default() += n;
        }
    }

    /// Tells the observer, links and map of one event (lines counted from `first_line`); gives
    /// back a statement's fingerprint for the caller to judge.
    fn apply_event(
        &mut self,
        event: chunk::Event,
        first_line: u64,
    ) -> Result<Option<(u128, std::ops::Range<usize>)>, RewriteError> {
        let at = |line: u64, column: u64| Location::new(first_line + line - 1, column);
        match event {
            chunk::Event::Rewritten {
                line,
                column,
                original,
                canonical,
                kind,
            } => {
                let sinks = (&mut self.recorded, &mut self.links, &mut self.map);
                notify_rewrite(
                    &mut *self.observer,
                    sinks,
                    at(line, column),
                    &original,
                    &canonical,
                    kind,
                )?;
            }
            chunk::Event::Invalid {
                line,
                column,
                iri,
                error,
            } => {
                self.report.invalid_identifiers += 1;
                if self.rewriter.strict {
                    return Err(RewriteError::InvalidIdentifier {
                        location: at(line, column),
                        iri: iri.into(),
                        error,
                    });
                }
                self.observer.invalid(at(line, column), &iri, &error);
            }
            chunk::Event::Syntax {
                line,
                column,
                message,
                rejected,
            } => {
                self.report.syntax_errors += 1;
                if !self.rewriter.lenient {
                    return Err(RewriteError::Syntax {
                        location: at(line, column),
                        message,
                    });
                }
                self.observer.syntax_error(at(line, column), &message);
                if let Some(rejects) = &mut self.rejects {
                    rejects.write_all(&rejected)?;
                }
            }
            chunk::Event::Statement {
                fingerprint,
                output,
            } => return Ok(Some((fingerprint, output))),
        }
        Ok(None)
    }

    /// The buffered writer under the output.
    fn raw_output(&mut self) -> &mut BufWriter<W> {
        match &mut self.output {
            Output::Lines(out) => out,
            Output::Graph { .. } => unreachable_output(),
        }
    }

    /// A statement that does not parse: an error, or (lenient) reported and skipped; an
    /// N-Triples/N-Quads line goes to the rejects.
    fn skip_bad_line(
        &mut self,
        location: Location,
        message: String,
        line: &[u8],
    ) -> Result<(), RewriteError> {
        self.report.syntax_errors += 1;
        if !self.rewriter.lenient {
            return Err(RewriteError::Syntax { location, message });
        }
        self.observer.syntax_error(location, &message);
        let line_based = matches!(
            self.rewriter.input_format,
            RdfFormat::NTriples | RdfFormat::NQuads
        );
        if let (Some(rejects), true) = (&mut self.rejects, line_based) {
            rejects.write_all(line)?;
        }
        Ok(())
    }

    /// Any input to any output: parse, canonicalize and serialize batches of statements (on a
    /// second thread when the rewriter has more than one), written in order.
    fn rewrite_graph(&mut self, input: &mut impl BufRead) -> Result<(), RewriteError> {
        let rewriter = self.rewriter;
        let reader = Reader::new(rewriter.input_format, rewriter.base_iri.as_deref());
        let mut worker = chunk::GraphWorker::new(rewriter, self.needs());
        let mut batch = chunk::GraphBatch::default();
        let Output::Graph { sink, .. } = &mut self.output else {
            unreachable_output()
        };
        let mut sink = sink
            .take()
            .ok_or_else(|| RewriteError::Usage("the output is gone".into()))?;
        if rewriter.threads < 2 {
            let mut result = chunk::ChunkResult::default();
            let mut flush =
                |session: &mut Self, batch: &mut chunk::GraphBatch, sink: &mut sink::GraphSink| {
                    worker.map(batch, &mut result);
                    let written = sink.write(rewriter, batch)?;
                    session.apply_graph_batch(&mut result, written)
                };
            let read = reader.read(input, |item, line, declarations| {
                if self.take(item, line, declarations, &mut batch)? {
                    flush(self, &mut batch, &mut sink)?;
                }
                Ok(())
            });
            let done = read.and_then(|()| flush(self, &mut batch, &mut sink));
            self.put_back(sink);
            return done;
        }
        let (done, sink) = std::thread::scope(|scope| {
            let (to_worker, batches) = std::sync::mpsc::sync_channel::<chunk::GraphBatch>(2);
            let (to_session, mapped) = std::sync::mpsc::channel();
            let spawned = spawn_worker(scope, move || {
                for mut batch in batches {
                    let mut result = chunk::ChunkResult::default();
                    worker.map(&mut batch, &mut result);
                    let written = sink
                        .write(rewriter, &mut batch)
                        .map(|written| (result, written));
                    let failed = written.is_err();
                    if to_session.send(written).is_err() || failed {
                        break;
                    }
                }
                sink
            });
            let stopped = || RewriteError::Io(io::Error::other("the rewriting thread stopped"));
            let mapper = match spawned {
                Ok(mapper) => mapper,
                Err(e) => return (Err(RewriteError::Io(e)), Err(stopped())),
            };
            let read = reader.read(input, |item, line, declarations| {
                if self.take(item, line, declarations, &mut batch)? {
                    while let Ok(written) = mapped.try_recv() {
                        let (mut result, written) = written?;
                        self.apply_graph_batch(&mut result, written)?;
                    }
                    to_worker
                        .send(std::mem::take(&mut batch))
                        .map_err(|_| stopped())?;
                }
                Ok(())
            });
            let sent = read.and_then(|()| to_worker.send(batch).map_err(|_| stopped()));
            drop(to_worker);
            let mut done = sent;
            for written in mapped {
                let applied = written
                    .and_then(|(mut result, written)| self.apply_graph_batch(&mut result, written));
                done = done.and(applied);
            }
            (done, mapper.join().map_err(|_| stopped()))
        });
        self.put_back(sink?);
        done
    }

    /// Gives the graph sink back to the output after a rewrite.
    fn put_back(&mut self, graph_sink: sink::GraphSink) {
        if let Output::Graph { sink, .. } = &mut self.output {
            *sink = Some(graph_sink);
        }
    }

    /// Takes one parsed item: a statement goes into `batch` (true when the batch is full), a
    /// syntax error stops the rewrite or is skipped.
    fn take(
        &mut self,
        item: Item,
        line: &[u8],
        declarations: &dyn Fn() -> Declarations,
        batch: &mut chunk::GraphBatch,
    ) -> Result<bool, RewriteError> {
        match item {
            Item::Statement(quad, location) => {
                self.report.statements_read += 1;
                if !std::mem::replace(&mut self.declared, true) {
                    batch.declarations = Some(declarations());
                }
                batch.push(quad, location.line, line);
                Ok(batch.quads.len() >= chunk::GraphBatch::SIZE)
            }
            Item::SyntaxError(location, message) => {
                self.skip_bad_line(location, message, line).map(|()| false)
            }
        }
    }

    /// Applies a mapped and serialized batch: its events and counts, then the bytes serialized.
    fn apply_graph_batch(
        &mut self,
        result: &mut chunk::ChunkResult,
        (written, duplicates): (u64, u64),
    ) -> Result<(), RewriteError> {
        self.count(&result.rewritten);
        for event in result.events.drain(..) {
            self.apply_event(event, 1)?;
        }
        self.report.statements_written += written;
        self.report.duplicates_dropped += duplicates;
        if let Output::Graph { writer, shared, .. } = &mut self.output {
            shared.drain_into(writer)?;
        }
        Ok(())
    }

    /// What the workers must record for this session.
    fn needs(&self) -> chunk::Needs {
        chunk::Needs {
            rewrite_events: self.observer.hears_rewrites()
                || self.links.is_some()
                || self.map.is_some(),
            rejects: self.rejects.is_some(),
        }
    }
}

/// The stack of a worker thread: RDF 1.2 triple terms nest, and the terms built from them are
/// dropped and formatted recursively; a thread's default 2 MB stack would end a run on 100 000
/// levels. The memory is only reserved, not used, until needed.
pub const WORKER_STACK: usize = 1 << 28;

/// Spawns a scoped worker thread with [`WORKER_STACK`].
fn spawn_worker<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    work: impl FnOnce() -> T + Send + 'scope,
) -> io::Result<std::thread::ScopedJoinHandle<'scope, T>> {
    std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn_scoped(scope, work)
}

/// Reads as many chunks as there are buffers (fewer at the end); returns how many.
fn fill(input: &mut impl BufRead, buffers: &mut [Vec<u8>]) -> io::Result<usize> {
    for (filled, buffer) in buffers.iter_mut().enumerate() {
        if chunk::read_chunk(input, buffer)? == 0 {
            return Ok(filled);
        }
    }
    Ok(buffers.len())
}

/// Where rewrites are written down: the originals seen, the links, the map.
type Sinks<'a, 's> = (
    &'a mut HashSet<Box<str>>,
    &'a mut Option<Box<dyn Write + 's>>,
    &'a mut Option<Box<dyn Write + 's>>,
);

/// Tells the observer of a rewrite, and writes it to the links and map the first time.
fn notify_rewrite(
    observer: &mut dyn Observer,
    (recorded, links, map): Sinks<'_, '_>,
    location: Location,
    original: &str,
    canonical: &str,
    kind: Kind,
) -> io::Result<()> {
    observer.rewritten(location, original, canonical, kind);
    if (links.is_some() || map.is_some()) && recorded.insert(original.into()) {
        if let Some(links) = links {
            writeln!(
                links,
                "<{original}> <http://www.w3.org/2002/07/owl#sameAs> <{canonical}> ."
            )?;
        }
        if let Some(map) = map {
            writeln!(map, "{original}\t{canonical}\t{kind}")?;
        }
    }
    Ok(())
}

fn unreachable_output() -> ! {
    unreachable!("a session's output kind is fixed when it is made")
}

/// The location of `iri` written out in full (`<iri>`) on the line a statement ends on.
fn locate_in_line(line: &[u8], iri: &str, statement: Location) -> Location {
    let column = memchr::memmem::find(line, iri.as_bytes())
        .filter(|&at| at > 0 && line[at - 1] == b'<')
        .map_or(0, |at| lines::column(line, at - 1));
    Location::new(statement.line, column)
}

/// A reader that counts the bytes consumed.
struct CountingReader<R> {
    inner: R,
    count: u64,
}

impl<R: BufRead> io::Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for CountingReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.count += amount as u64;
        self.inner.consume(amount);
    }
}

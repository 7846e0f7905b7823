//! [`Session`]: one rewrite in progress — one output, one or more inputs — and the one place
//! that decides what each finding does: a rewrite is told and recorded, an invalid identifier
//! fails the rewrite or is reported, a syntax error fails it or is recovered from.

use super::blank_nodes::DocumentScope;
use super::events::{Event, Found, Needs};
use super::fingerprint::Fingerprint;
use super::{Location, Observer, Recovery, Report, RewriteError, Rewriter, SyntaxError, graph};
use crate::Kind;
use crate::mapping::EquivalenceLinks;
use oxrdf::Quad;
use std::collections::HashSet;
use std::fmt;
use std::io::{self, BufRead, BufWriter, Write};
use std::ops::Range;

/// The UTF-8 byte-order mark, which some editors put at the start of a file.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// One rewrite in progress: one output, one or more inputs.
pub struct Session<'s, W: Write> {
    pub(crate) rewriter: &'s Rewriter,
    /// Where the statements go: serialized, or for a line-based rewriter
    /// ([`Rewriter::line_based`]) the input's lines with IRIs spliced in (and the statements of
    /// [`Self::rewrite_located_quads`] written as lines).
    pub(crate) output: graph::GraphOutput<W>,
    observer: Box<dyn Observer + 's>,
    links: Option<Box<dyn Write + 's>>,
    map: Option<Box<dyn Write + 's>>,
    rejects: Option<Box<dyn Write + 's>>,
    /// Originals already written to the links and map.
    recorded: HashSet<Box<str>>,
    /// Warnings already given (each is given once).
    warned: HashSet<String>,
    pub(crate) report: Report,
    /// The number of the input being rewritten, from 1 (0 before the first; a byte-order mark
    /// is kept only in input 1).
    pub(crate) inputs: u64,
    /// The single-threaded line worker, kept from one input to the next.
    pub(crate) serial: Option<Box<super::line::SerialWorker<'s>>>,
    /// The graph pipeline's worker, kept from one input to the next.
    pub(crate) graph_worker: Option<Box<graph::GraphWorker<'s>>>,
    /// The links of `--collapse`, gathered from every worker, written at the end.
    equivalence_links: EquivalenceLinks,
}

impl<W: Write> fmt::Debug for Session<'_, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

/// What the line pipeline must do with its output at an event.
pub(crate) enum Placement {
    /// A statement's bytes, to write unless they repeat an earlier statement.
    Statement(Fingerprint, Range<usize>),
    /// A line that does not parse, to write as it is at this offset of the output.
    PassThrough(Vec<u8>, usize),
}

impl Rewriter {
    /// A session writing to `writer`: feed it one input or several, then [`finish`](Session::finish).
    pub fn session<'s, W: Write + 's>(&'s self, writer: W) -> Session<'s, W> {
        Session::new(self, writer)
    }
}

impl<'s, W: Write> Session<'s, W> {
    fn new(rewriter: &'s Rewriter, writer: W) -> Self {
        let writer = BufWriter::with_capacity(1 << 16, writer);
        Self {
            rewriter,
            output: graph::GraphOutput::new(rewriter, writer),
            observer: Box::new(()),
            links: None,
            map: None,
            rejects: None,
            recorded: HashSet::new(),
            warned: HashSet::new(),
            report: Report::default(),
            inputs: 0,
            serial: None,
            graph_worker: None,
            equivalence_links: EquivalenceLinks::default(),
        }
    }

    /// Tells `observer` about rewrites, invalid identifiers and syntax errors.
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

    /// When syntax errors are skipped, writes what does not parse here instead (an N-Triples /
    /// N-Quads line, the lines of a Turtle / TriG statement).
    #[must_use]
    pub fn with_rejects(mut self, rejects: impl Write + 's) -> Self {
        self.rejects = Some(Box::new(BufWriter::new(rejects)));
        self
    }

    /// Numbers the inputs from `first` instead of 1, for a run whose output is concatenated
    /// after that of others (a shell loop over files, a Spark job): the blank node labels
    /// written in input 1 are kept, those of any later input are made its own, so that
    /// `_:b1` of two inputs stays two nodes. Made-up labels derive from the number too.
    ///
    /// # Panics
    ///
    /// When an input was already rewritten, or `first` is 0.
    #[must_use]
    pub fn numbering_inputs_from(mut self, first: u64) -> Self {
        assert!(first > 0, "inputs are numbered from 1");
        assert_eq!(self.inputs, 0, "number the inputs before the first");
        self.inputs = first - 1;
        self
    }

    /// What the session has done so far.
    #[must_use]
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Rewrites one input into the session's output. A UTF-8 byte-order mark at its start is
    /// skipped (and kept in line-based output, if it is the first input).
    pub fn rewrite(&mut self, input: impl BufRead) -> Result<(), RewriteError> {
        self.rewrite_input(input, None)
    }

    /// Rewrites one input whose relative IRIs resolve against `base_iri` (instead of the
    /// rewriter's base): each file of several against its own URL, as `riot` and `rapper` do.
    ///
    /// ```
    /// use pidcanon::rewrite::{RdfFormat, Rewriter};
    /// use pidcanon::Registry;
    /// let rewriter = Rewriter::new(Registry::default())
    ///     .with_input_format(RdfFormat::Turtle)
    ///     .with_output_format(RdfFormat::NTriples);
    /// let mut output = Vec::new();
    /// let mut session = rewriter.session(&mut output);
    /// session.rewrite_with_base_iri(&b"<a> <b> <c> ."[..], "file:///data/one.ttl")?;
    /// session.rewrite_with_base_iri(&b"<a> <b> <c> ."[..], "file:///data/two/")?;
    /// session.finish()?;
    /// assert_eq!(
    ///     String::from_utf8(output)?,
    ///     "<file:///data/a> <file:///data/b> <file:///data/c> .\n\
    ///      <file:///data/two/a> <file:///data/two/b> <file:///data/two/c> .\n"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rewrite_with_base_iri(
        &mut self,
        input: impl BufRead,
        base_iri: &str,
    ) -> Result<(), RewriteError> {
        crate::iri::validate(base_iri).map_err(|error| RewriteError::InvalidBaseIri {
            iri: base_iri.into(),
            error: error.into(),
        })?;
        self.rewrite_input(input, Some(base_iri))
    }

    /// Rewrites statements already parsed, each with where it is in its document, as one
    /// input: what is found in a statement is told to the observer at its location. Blank
    /// nodes are the input's own, as in a text input: their labels are kept in the first input
    /// and made this input's in the others; a label a parser made up (a random 128-bit number,
    /// as `oxrdf` draws them) gets one that is the same on every run, as RDF/XML's nodes do.
    ///
    /// ```
    /// use oxrdf::{GraphName, NamedNode, Quad};
    /// use pidcanon::rewrite::{Location, Observer, RdfFormat, Rewriter};
    /// use pidcanon::{Kind, Registry};
    ///
    /// struct Heard(Vec<String>);
    /// impl Observer for &mut Heard {
    ///     fn rewritten(&mut self, at: Location, original: &str, _: &str, _: Kind) {
    ///         self.0.push(format!("{at} {original}"));
    ///     }
    /// }
    ///
    /// let quad = Quad::new(
    ///     NamedNode::new("info:fedora/demo%3a1")?,
    ///     NamedNode::new("http://p")?,
    ///     NamedNode::new("hdl://10013/x")?,
    ///     GraphName::DefaultGraph,
    /// );
    /// let rewriter = Rewriter::new(Registry::default()).with_output_format(RdfFormat::NTriples);
    /// let mut heard = Heard(Vec::new());
    /// let mut output = Vec::new();
    /// let mut session = rewriter.session(&mut output).with_observer(&mut heard);
    /// session.rewrite_located_quads([(quad, Location::new(37, 25))])?;
    /// session.finish()?;
    /// assert_eq!(output, b"<info:fedora/demo:1> <http://p> <hdl:10013/x> .\n");
    /// assert_eq!(heard.0, ["37:25 info:fedora/demo%3a1", "37:25 hdl://10013/x"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rewrite_located_quads(
        &mut self,
        quads: impl IntoIterator<Item = (Quad, Location)>,
    ) -> Result<(), RewriteError> {
        self.inputs += 1;
        let document = DocumentScope::new(self.inputs, self.rewriter.base_iri.as_deref());
        graph::rewrite_located_quads(self, &mut quads.into_iter(), document)
    }

    fn rewrite_input(
        &mut self,
        input: impl BufRead,
        base_iri: Option<&str>,
    ) -> Result<(), RewriteError> {
        let mut input = CountingReader {
            inner: input,
            count: 0,
        };
        if input.fill_buf()?.starts_with(BYTE_ORDER_MARK) {
            input.consume(BYTE_ORDER_MARK.len());
            if self.rewriter.line_based()
                && self.inputs == 0
                && !self.rewriter.fingerprint_statements
            {
                self.output.writer().write_all(BYTE_ORDER_MARK)?;
            }
        }
        self.inputs += 1;
        let document =
            DocumentScope::new(self.inputs, base_iri.or(self.rewriter.base_iri.as_deref()));
        let result = if self.rewriter.line_based() {
            super::line::rewrite(self, &mut input, document)
        } else {
            graph::rewrite(self, &mut input, base_iri, document)
        };
        self.report.bytes_read += input.count;
        result
    }

    /// Writes the links of `--collapse` (after every input: `<representative> P <member>` once
    /// for each class member that an equivalence statement named, in a fixed order), ends the
    /// output (serializers close their last statement) and flushes every writer.
    pub fn finish(mut self) -> Result<Report, RewriteError> {
        let links = std::mem::take(&mut self.equivalence_links);
        self.report.equivalence_statements_linked = links.statements;
        let mapping = self.rewriter.mapping.as_deref();
        let (written, duplicates) = if self.rewriter.line_based() {
            let writer = self.output.writer();
            let written = match mapping {
                Some(mapping) => super::line::write_links(
                    writer,
                    links,
                    mapping,
                    self.rewriter.fingerprint_statements,
                )?,
                None => 0,
            };
            writer.flush()?;
            (written, 0)
        } else {
            self.output.finish(self.rewriter, mapping, links)?
        };
        self.report.equivalence_links_written = written;
        self.report.statements_written += written;
        self.report.duplicates_dropped += duplicates;
        for sink in [&mut self.links, &mut self.map, &mut self.rejects]
            .into_iter()
            .flatten()
        {
            sink.flush()?;
        }
        Ok(self.report)
    }

    /// What the workers must record for this session.
    pub(crate) fn needs(&self) -> Needs {
        Needs {
            rewrite_events: self.observer.hears_rewrites()
                || self.links.is_some()
                || self.map.is_some(),
        }
    }

    /// Applies what a worker found, its locations counted after `lines_before` lines; gives back
    /// what the output must do, in order.
    pub(crate) fn apply(
        &mut self,
        found: &mut Found,
        lines_before: u64,
        mut place: impl FnMut(&mut Self, Placement) -> Result<(), RewriteError>,
    ) -> Result<(), RewriteError> {
        self.report.count_rewritten(&found.rewritten);
        self.report.count_literals(&found.literals);
        self.report.reflexive_dropped += found.dropped;
        self.report.signed_statements_kept += found.signed_statements_kept;
        self.equivalence_links.merge(&mut found.links);
        for event in found.events.drain(..) {
            match event {
                Event::Rewritten {
                    location,
                    original,
                    canonical,
                    kind,
                } => {
                    let location = location.after(lines_before);
                    self.rewritten(location, &original, &canonical, kind)?;
                }
                Event::Invalid {
                    location,
                    iri,
                    error,
                } => {
                    let location = location.after(lines_before);
                    self.report.invalid_identifiers += 1;
                    if self.rewriter.fail_on_invalid {
                        return Err(RewriteError::InvalidIdentifier {
                            location,
                            iri: iri.into(),
                            error,
                        });
                    }
                    self.observer.invalid(location, &iri, &error);
                }
                Event::Syntax { error, line, at } => {
                    let error =
                        SyntaxError::new(error.location().after(lines_before), error.message());
                    if self.syntax_error(error, &line)? == Recovery::PassedThrough {
                        place(self, Placement::PassThrough(line, at))?;
                    }
                }
                Event::Warning { location, message } => {
                    if !self.warned.contains(&message) {
                        let location = location.after(lines_before);
                        self.observer.warning(location, &message);
                        self.warned.insert(message);
                    }
                }
                Event::Statement {
                    fingerprint,
                    output,
                } => place(self, Placement::Statement(fingerprint, output))?,
            }
        }
        Ok(())
    }

    /// Input that does not parse: an error, or recovered from — written to the rejects if there
    /// are any, else passed through to line-based output, else skipped — and reported.
    pub(crate) fn syntax_error(
        &mut self,
        error: SyntaxError,
        text: &[u8],
    ) -> Result<Recovery, RewriteError> {
        self.report.syntax_errors += 1;
        if !self.rewriter.skip_syntax_errors {
            return Err(error.into());
        }
        let recovery = if let Some(rejects) = &mut self.rejects {
            rejects.write_all(text)?;
            Recovery::Rejected
        } else if self.rewriter.line_based() {
            self.report.lines_passed_through += 1;
            Recovery::PassedThrough
        } else {
            Recovery::Skipped
        };
        self.observer.syntax_error(&error, recovery);
        Ok(recovery)
    }

    /// Something worth a word that is not an error (legacy RDF/XML read in its compatibility
    /// mode): counted and told to the observer.
    pub(crate) fn warning(&mut self, location: Location, message: &str) {
        self.report.warnings += 1;
        self.observer.warning(location, message);
    }

    /// Tells the observer of a rewrite, and writes it to the links and map the first time.
    fn rewritten(
        &mut self,
        location: Location,
        original: &str,
        canonical: &str,
        kind: Kind,
    ) -> io::Result<()> {
        self.observer.rewritten(location, original, canonical, kind);
        if (self.links.is_some() || self.map.is_some()) && self.recorded.insert(original.into()) {
            if let Some(links) = &mut self.links {
                writeln!(
                    links,
                    "<{original}> <http://www.w3.org/2002/07/owl#sameAs> <{canonical}> ."
                )?;
            }
            if let Some(map) = &mut self.map {
                writeln!(map, "{original}\t{canonical}\t{kind}")?;
            }
        }
        Ok(())
    }
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

//! [`Session`]: one rewrite in progress — one output, one or more inputs. It hands each input
//! to a pipeline (`line` for line-based rewriters, `graph` for the others), which reports what
//! it finds to the session's [`Findings`] and writes to its output.

use super::blank_nodes::DocumentScope;
use super::findings::Findings;
use super::{Location, Observer, Report, RewriteError, Rewriter, graph, line};
use oxrdf::Quad;
use std::fmt;
use std::io::{self, BufRead, BufWriter, Write};

/// The UTF-8 byte-order mark, which some editors put at the start of a file.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// One rewrite in progress: one output, one or more inputs.
pub struct Session<'s, W: Write> {
    /// What the pipelines found, told and recorded.
    findings: Findings<'s>,
    /// Where the statements go: serialized, or for a line-based rewriter
    /// ([`Rewriter::line_based`]) the input's lines with IRIs spliced in (and the statements of
    /// [`Self::rewrite_located_quads`] written as lines).
    output: graph::GraphOutput<W>,
    /// The number of the input being rewritten, from 1 (0 before the first; a byte-order mark
    /// is kept only in input 1).
    inputs: u64,
    /// The single-threaded line worker, kept from one input to the next.
    serial: Option<Box<line::SerialWorker<'s>>>,
    /// The graph pipeline's worker, kept from one input to the next.
    graph_worker: Option<Box<graph::GraphWorker<'s>>>,
}

impl<W: Write> fmt::Debug for Session<'_, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("report", &self.findings.report)
            .finish_non_exhaustive()
    }
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
            findings: Findings::new(rewriter),
            output: graph::GraphOutput::new(rewriter, writer),
            inputs: 0,
            serial: None,
            graph_worker: None,
        }
    }

    /// Tells `observer` about rewrites, invalid identifiers and syntax errors.
    #[must_use]
    pub fn with_observer(mut self, observer: impl Observer + 's) -> Self {
        self.findings.observer = Box::new(observer);
        self
    }

    /// Writes `<original> owl:sameAs <canonical> .` once per rewritten IRI.
    #[must_use]
    pub fn with_links(mut self, links: impl Write + 's) -> Self {
        self.findings.links = Some(Box::new(BufWriter::new(links)));
        self
    }

    /// Writes `original<TAB>canonical<TAB>kind` once per rewritten IRI.
    #[must_use]
    pub fn with_map(mut self, map: impl Write + 's) -> Self {
        self.findings.map = Some(Box::new(BufWriter::new(map)));
        self
    }

    /// When syntax errors are skipped, writes what does not parse here instead (an N-Triples /
    /// N-Quads line, the lines of a Turtle / TriG statement).
    #[must_use]
    pub fn with_rejects(mut self, rejects: impl Write + 's) -> Self {
        self.findings.rejects = Some(Box::new(BufWriter::new(rejects)));
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
        &self.findings.report
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
        let rewriter = self.findings.rewriter;
        let document = DocumentScope::new(self.inputs, rewriter.base_iri.as_deref());
        graph::rewrite_located_quads(
            &mut self.findings,
            &mut self.output,
            &mut self.graph_worker,
            &mut quads.into_iter(),
            document,
        )
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
        let rewriter = self.findings.rewriter;
        if input.fill_buf()?.starts_with(BYTE_ORDER_MARK) {
            input.consume(BYTE_ORDER_MARK.len());
            if rewriter.line_based() && self.inputs == 0 && !rewriter.fingerprint_statements {
                self.output.writer().write_all(BYTE_ORDER_MARK)?;
            }
        }
        self.inputs += 1;
        let document = DocumentScope::new(self.inputs, base_iri.or(rewriter.base_iri.as_deref()));
        let findings = &mut self.findings;
        let result = if rewriter.line_based() {
            line::rewrite(
                findings,
                &mut self.output,
                &mut self.serial,
                &mut input,
                document,
            )
        } else {
            let worker = &mut self.graph_worker;
            graph::rewrite(
                findings,
                &mut self.output,
                worker,
                &mut input,
                base_iri,
                document,
            )
        };
        self.findings.report.bytes_read += input.count;
        result
    }

    /// Writes the links of `--collapse` (after every input: `<representative> P <member>` once
    /// for each class member that an equivalence statement named, in a fixed order), ends the
    /// output (serializers close their last statement) and flushes every writer.
    pub fn finish(self) -> Result<Report, RewriteError> {
        let Self {
            mut findings,
            mut output,
            ..
        } = self;
        let rewriter = findings.rewriter;
        let links = std::mem::take(&mut findings.equivalence_links);
        let report = &mut findings.report;
        report.equivalence_statements_linked = links.statements;
        let mapping = rewriter.mapping.as_deref();
        let (written, duplicates) = if rewriter.line_based() {
            let writer = output.writer();
            let written = match mapping {
                Some(mapping) => {
                    line::write_links(writer, links, mapping, rewriter.fingerprint_statements)?
                }
                None => 0,
            };
            writer.flush()?;
            (written, 0)
        } else {
            output.finish(rewriter, mapping, links)?
        };
        report.equivalence_links_written = written;
        report.statements_written += written;
        report.duplicates_dropped += duplicates;
        for sink in [
            &mut findings.links,
            &mut findings.map,
            &mut findings.rejects,
        ]
        .into_iter()
        .flatten()
        {
            sink.flush()?;
        }
        Ok(findings.report)
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

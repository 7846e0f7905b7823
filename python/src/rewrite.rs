//! `pidcanon.rewrite`: RDF streamed from a path, bytes or a file object through the library's
//! rewriter into a path or a file object, as `pidcanon rewrite` does. Every call into
//! `pidcanon::rewrite` is in this file.

use crate::equivalence::{Equivalence, EquivalenceError};
use crate::errors::{Place, invalid_identifier, syntax_error, value_error};
use crate::policy::{PyPolicy, policy_of};
use crate::streams::{PyReader, PyWriter};
use pidcanon::compression::{self, without_compression_extension};
use pidcanon::rewrite::{
    Location, Observer, RdfFormat, Recovery, Report, RewriteError, Rewriter, SyntaxError,
};
use pidcanon::{IdError, Registry};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyMemoryView};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a rewrite did; ``pidcanon rewrite --report json`` prints the same numbers.
#[pyclass(frozen, eq, hash, module = "pidcanon", name = "Report")]
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct PyReport {
    /// Statements read.
    #[pyo3(get)]
    statements_read: u64,
    /// Statements written (for the graph helpers: in the result).
    #[pyo3(get)]
    statements_written: u64,
    rewritten: BTreeMap<String, u64>,
    /// Occurrences of identifiers a scheme claims but that break its rules (left unchanged).
    #[pyo3(get)]
    invalid_identifiers: u64,
    /// Statements dropped as duplicates (``dedup=True``; for the graph helpers, the statements
    /// that merged with others).
    #[pyo3(get)]
    duplicates_dropped: u64,
    /// Syntax errors gone past (``skip_syntax_errors=True``).
    #[pyo3(get)]
    syntax_errors: u64,
    /// N-Triples / N-Quads lines that do not parse, written to the output unchanged.
    #[pyo3(get)]
    lines_passed_through: u64,
    /// Statements of trusty nanopublications left as they are (``keep_signed=True``).
    #[pyo3(get)]
    signed_statements_kept: u64,
    /// Bytes of input read.
    #[pyo3(get)]
    bytes_read: u64,
}

#[pymethods]
impl PyReport {
    #[new]
    #[pyo3(signature = (*, statements_read = 0, statements_written = 0, rewritten = BTreeMap::new(), invalid_identifiers = 0, duplicates_dropped = 0, syntax_errors = 0, lines_passed_through = 0, signed_statements_kept = 0, bytes_read = 0))]
    // Written out: the generated one shows the `BTreeMap::new()` default as `...` (`Ellipsis`).
    #[pyo3(
        text_signature = "(*, statements_read=0, statements_written=0, rewritten={}, invalid_identifiers=0, duplicates_dropped=0, syntax_errors=0, lines_passed_through=0, signed_statements_kept=0, bytes_read=0)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        statements_read: u64,
        statements_written: u64,
        rewritten: BTreeMap<String, u64>,
        invalid_identifiers: u64,
        duplicates_dropped: u64,
        syntax_errors: u64,
        lines_passed_through: u64,
        signed_statements_kept: u64,
        bytes_read: u64,
    ) -> Self {
        Self {
            statements_read,
            statements_written,
            rewritten,
            invalid_identifiers,
            duplicates_dropped,
            syntax_errors,
            lines_passed_through,
            signed_statements_kept,
            bytes_read,
        }
    }

    /// IRI occurrences rewritten, per kind (a new dict each time).
    #[getter]
    fn rewritten<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (kind, n) in &self.rewritten {
            dict.set_item(kind, n)?;
        }
        Ok(dict)
    }

    /// IRI occurrences rewritten, all kinds together.
    #[getter]
    fn rewritten_total(&self) -> u64 {
        self.rewritten.values().sum()
    }

    fn __repr__(&self) -> String {
        let rewritten: Vec<String> = self
            .rewritten
            .iter()
            .map(|(kind, n)| format!("'{kind}': {n}"))
            .collect();
        format!(
            "Report(statements_read={}, statements_written={}, rewritten={{{}}}, invalid_identifiers={}, duplicates_dropped={}, syntax_errors={}, lines_passed_through={}, signed_statements_kept={}, bytes_read={})",
            self.statements_read,
            self.statements_written,
            rewritten.join(", "),
            self.invalid_identifiers,
            self.duplicates_dropped,
            self.syntax_errors,
            self.lines_passed_through,
            self.signed_statements_kept,
            self.bytes_read
        )
    }
}

impl From<Report> for PyReport {
    fn from(report: Report) -> Self {
        Self {
            statements_read: report.statements_read,
            statements_written: report.statements_written,
            rewritten: report
                .rewritten
                .iter()
                .map(|(kind, n)| (kind.to_string(), *n))
                .collect(),
            invalid_identifiers: report.invalid_identifiers,
            duplicates_dropped: report.duplicates_dropped,
            syntax_errors: report.syntax_errors,
            lines_passed_through: report.lines_passed_through,
            signed_statements_kept: report.signed_statements_kept,
            bytes_read: report.bytes_read,
        }
    }
}

/// A format by name (as the CLI's `-i`/`--to` read it).
fn parse_format(name: &str) -> PyResult<RdfFormat> {
    pidcanon::rewrite::parse_format(name).map_err(value_error)
}

/// The format of a file, from its extension, looking through a compression extension
/// (`dump.nt.gz` is N-Triples), as the command line tells it.
fn format_of(path: &Path) -> Option<RdfFormat> {
    let extension = without_compression_extension(path).extension()?.to_str()?;
    parse_format(extension).ok()
}

/// Where the RDF comes from.
enum Source {
    Path(PathBuf),
    Bytes(Arc<PyBackedBytes>),
    Stream(Py<PyAny>),
}

impl Source {
    /// A path (`str` or `os.PathLike`), `bytes`-like, or an object with `read`; and its name in
    /// messages.
    fn new(source: &Bound<'_, PyAny>) -> PyResult<(Self, String, Option<PathBuf>)> {
        if source.is_instance_of::<PyBytes>() || source.is_instance_of::<PyByteArray>() {
            return Ok((
                Self::Bytes(Arc::new(source.extract()?)),
                "<bytes>".into(),
                None,
            ));
        }
        if source.is_instance_of::<PyMemoryView>() {
            let bytes = source.call_method0("tobytes")?;
            return Ok((
                Self::Bytes(Arc::new(bytes.extract()?)),
                "<bytes>".into(),
                None,
            ));
        }
        if source.hasattr("read")? {
            let name = source
                .getattr("name")
                .ok()
                .and_then(|n| n.extract::<String>().ok());
            let path = name.as_ref().map(PathBuf::from);
            let name = name.unwrap_or_else(|| "<stream>".into());
            return Ok((Self::Stream(source.clone().unbind()), name, path));
        }
        let path: PathBuf = source.extract()?;
        let name = path.display().to_string();
        Ok((Self::Path(path.clone()), name, Some(path)))
    }

    /// Opens the source as the command line opens an input: decompressed when its extension
    /// or its first bytes say it is compressed (gzip, bzip2, zstd).
    fn open(&self, name: &str) -> io::Result<Box<dyn BufRead + Send>> {
        match self {
            Self::Path(path) => {
                let file = File::open(path)
                    .map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
                compression::open(file, Some(path))
            }
            Self::Bytes(bytes) => {
                compression::open(io::Cursor::new(Shared(Arc::clone(bytes))), None)
            }
            // (An error of the stream's own `read` stays the Python exception it is.)
            Self::Stream(file) => {
                compression::open(PyReader::new(Python::attach(|py| file.clone_ref(py))), None)
            }
        }
    }
}

/// Bytes from Python, shared with the thread that reads them.
struct Shared(Arc<PyBackedBytes>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Where output goes: a file written atomically, or an object with `write`.
enum Sink {
    File {
        temp: tempfile::NamedTempFile,
        target: PathBuf,
    },
    Stream(PyWriter),
}

impl Sink {
    fn new(destination: &Bound<'_, PyAny>) -> PyResult<(Self, Option<PathBuf>)> {
        if destination.hasattr("write")? {
            return Ok((Self::Stream(PyWriter::new(destination)?), None));
        }
        let target: PathBuf = destination.extract()?;
        if compression::Compression::from_extension(&target).is_some() {
            return Err(value_error(format!(
                "{}: compressed output is not written here: pass a compressing file object \
                 (gzip.open(path, \"wb\"), bz2.open(path, \"wb\")) as the destination",
                target.display()
            )));
        }
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temp = tempfile::NamedTempFile::new_in(dir)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", target.display())))?;
        Ok((
            Self::File {
                temp,
                target: target.clone(),
            },
            Some(target),
        ))
    }

    fn writer(&mut self) -> io::Result<Box<dyn Write + Send + '_>> {
        Ok(match self {
            Self::File { temp, .. } => Box::new(temp.as_file().try_clone()?),
            Self::Stream(writer) => Box::new(writer),
        })
    }

    /// Renames a file over its target, once everything is written.
    fn commit(self) -> io::Result<()> {
        match self {
            Self::File { temp, target } => {
                temp.as_file().sync_all()?;
                temp.persist(&target).map(drop).map_err(|e| e.error)
            }
            Self::Stream(_) => Ok(()),
        }
    }
}

/// Tells the `pidcanon` logger of every invalid identifier and skipped syntax error, in the
/// command line's words.
struct Logger {
    logger: Py<PyAny>,
    source: String,
}

impl Logger {
    fn warn(&self, message: String) {
        Python::attach(|py| {
            if let Err(e) = self.logger.bind(py).call_method1("warning", (message,)) {
                e.write_unraisable(py, None);
            }
        });
    }
}

impl Observer for Logger {
    fn hears_rewrites(&self) -> bool {
        false
    }

    fn invalid(&mut self, location: Location, iri: &str, error: &IdError) {
        let source = &self.source;
        self.warn(format!(
            "{source}:{location}: invalid identifier <{iri}> left unchanged: {error}"
        ));
    }

    fn syntax_error(&mut self, error: &SyntaxError, recovery: Recovery) {
        let (source, location) = (&self.source, error.location());
        let message = error.message();
        self.warn(format!(
            "{source}:{location}: syntax error, {recovery}: {message}"
        ));
    }

    fn warning(&mut self, location: Location, message: &str) {
        let source = &self.source;
        self.warn(format!("{source}:{location}: warning: {message}"));
    }
}

/// The options of one rewrite, as the command line's flags.
struct Options {
    input_format: RdfFormat,
    output_format: RdfFormat,
    base: Option<String>,
    dedup: bool,
    fail_on_invalid: bool,
    skip_syntax_errors: bool,
    keep_signed: bool,
    threads: usize,
}

impl Options {
    fn rewriter(&self, registry: Registry) -> Result<Rewriter, RewriteError> {
        let mut rewriter = Rewriter::new(registry)
            .with_input_format(self.input_format)
            .with_output_format(self.output_format)
            .with_threads(self.threads);
        if let Some(base) = &self.base {
            rewriter = rewriter.with_base_iri(base.as_str())?;
        }
        if self.fail_on_invalid {
            rewriter = rewriter.fail_on_invalid();
        }
        if self.skip_syntax_errors {
            rewriter = rewriter.skip_syntax_errors();
        }
        if self.dedup {
            rewriter = rewriter.drop_duplicates();
        }
        if self.keep_signed {
            rewriter = rewriter.keep_signed();
        }
        Ok(rewriter)
    }
}

/// Why a rewrite failed.
enum Failed {
    Rewrite(RewriteError),
    /// The rename table or the classes.
    Mapping(EquivalenceError),
}

/// `rewriter` with the rename table and the classes of `equivalence`: the first pass reads
/// `source` as `rewriter` reads it.
fn mapped(
    rewriter: Rewriter,
    equivalence: &Equivalence,
    source: &Source,
    name: &str,
) -> Result<Rewriter, EquivalenceError> {
    let mapping = equivalence.mapping(rewriter.registry(), |collector| {
        collector.read_as(&rewriter, source.open(name)?, 0)
    })?;
    Ok(match mapping {
        Some(mapping) => rewriter.with_mapping(mapping),
        None => rewriter,
    })
}

/// The sidecar outputs: `links`, `map`, `rejects`.
type Sidecars = [Option<Sink>; 3];

fn run(
    rewriter: &Rewriter,
    source: &Source,
    name: &str,
    output: &mut Sink,
    sidecars: &mut Sidecars,
    logger: Logger,
) -> Result<Report, RewriteError> {
    let input = source.open(name)?;
    let mut session = rewriter.session(output.writer()?).with_observer(logger);
    let [links, map, rejects] = sidecars;
    if let Some(sink) = links {
        session = session.with_links(sink.writer()?);
    }
    if let Some(sink) = map {
        session = session.with_map(sink.writer()?);
    }
    if let Some(sink) = rejects {
        session = session.with_rejects(sink.writer()?);
    }
    session.rewrite(input)?;
    session.finish()
}

/// The Python exception for a rewrite error in `source`, with the command line's message.
fn rewrite_error(py: Python<'_>, source: &str, error: RewriteError) -> PyErr {
    let message = match &error {
        // (An identifier without a place reads `invalid identifier …`, not `LINE:COLUMN: …`.)
        RewriteError::InvalidIdentifier { location, .. } if location.line().is_none() => {
            format!("{source}: {error}")
        }
        _ => format!("{source}:{error}"),
    };
    match error {
        RewriteError::Io(e) => e.into(),
        RewriteError::Syntax(error) => syntax_error(
            py,
            message,
            error.message(),
            place(source, error.location()),
        ),
        RewriteError::InvalidIdentifier {
            location,
            iri,
            error,
        } => invalid_identifier(py, message, &iri, &error, Some(place(source, location))),
        other => value_error(other),
    }
}

fn place(source: &str, location: Location) -> Place<'_> {
    Place {
        source,
        line: location.line(),
        column: location.column(),
    }
}

/// Streams RDF from ``source`` into ``destination`` with every identifier canonicalized, as
/// ``pidcanon rewrite`` does (the same output, byte for byte), with the GIL released.
///
/// >>> import io
/// >>> out = io.BytesIO()
/// >>> rewrite(b"<info:fedora/demo%3a1> <http://purl.org/dc/terms/relation> <hdl://10013/x> .\n", out).rewritten
/// {'fedora-object': 1, 'handle': 1}
/// >>> out.getvalue()
/// b'<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/x> .\n'
///
/// :param source: a path (``str`` or ``os.PathLike``), ``bytes``-like data, or a file object
///     opened in binary or text mode, read in 64 KiB chunks; decompressed (gzip, bzip2, zstd)
///     when its name's extension or its first bytes say it is compressed.
/// :param destination: a path, written through a temporary file in the same directory renamed
///     at the end (a failed rewrite leaves no partial file and an existing one untouched), or a
///     file object opened in binary or text mode (not closed). A path with a compression
///     extension is refused: pass ``gzip.open(path, "wb")`` instead.
/// :param format: the input format: ``nt``, ``nq``, ``ttl``, ``trig``, ``rdfxml``, an extension
///     or a media type. Default: from the path's (or the file object's ``name``) extension;
///     ``bytes`` and nameless streams are read as N-Quads, which includes N-Triples.
/// :param to: the output format; default: from the destination path's extension, else the input
///     format.
/// :param base: the base IRI of relative IRIs in Turtle, TriG and RDF/XML.
/// :param dedup: drop statements that became exact duplicates (``--dedup``).
/// :param fail_on_invalid: raise :class:`InvalidIdentifier` at the first invalid identifier
///     instead of leaving it unchanged (``--strict``).
/// :param skip_syntax_errors: go on after syntax errors (``--lenient``).
/// :param keep_signed: leave trusty nanopublications as they are (``--keep-signed``).
/// :param threads: threads for N-Triples/N-Quads (default: the number of cores).
/// :param links: where to write ``<original> owl:sameAs <canonical> .`` once per rewritten IRI.
/// :param map: where to write ``original<TAB>canonical<TAB>kind`` once per rewritten IRI.
/// :param rejects: with ``skip_syntax_errors``, where N-Triples/N-Quads lines that do not parse go.
/// :param collapse: collapse equivalent IRIs onto one representative per class (``--collapse``):
///     a first pass reads ``source`` as the rewrite reads it and gathers the classes of its
///     ``owl:sameAs`` statements (and of ``equivalence_predicates``); a file object is first
///     copied to a temporary file, so that it can be read twice. See docs/equivalence.md.
/// :param equivalence_predicates: other predicates (full IRIs) whose statements assert
///     equivalence, such as ``skos:exactMatch``'s.
/// :param max_class: classes of more identifiers are refused (``ValueError``, nothing written)
///     unless ``allow_large_classes``.
/// :param allow_large_classes: collapse classes larger than ``max_class`` too.
/// :param drop_reflexive: drop equivalence statements whose two sides become one IRI.
/// :param equivalences: with ``collapse``, files of equivalent IRIs (``--equivalences``), a
///     pair ``iri<TAB>iri`` a line (as ``map`` writes them), joined to the classes.
/// :param rename: a file of renames (``--rename``), ``old<TAB>new`` a line (any spelling of
///     ``old``): every occurrence of ``old`` becomes ``new``, before the classes are gathered.
/// :raises RdfSyntaxError: when the input is not valid in its format.
/// :raises InvalidIdentifier: with ``fail_on_invalid``.
/// :raises OSError: when a file cannot be read or written; an exception raised by a file
///     object's ``read`` or ``write`` comes through as it is.
/// :raises ValueError: for an unknown format, a bad base IRI, named graphs into a triple format,
///     classes larger than ``max_class``, a ``rename`` or ``equivalences`` file with bad lines
///     (``path:line: problem`` each).
///
/// Invalid identifiers left unchanged, syntax errors skipped and warnings are logged on the
/// ``pidcanon`` logger (``logging.getLogger("pidcanon")``) with the command line's messages.
#[pyfunction]
#[pyo3(signature = (source, destination, *, format = None, to = None, base = None, dedup = false, policy = None, fail_on_invalid = false, skip_syntax_errors = false, keep_signed = false, threads = None, links = None, map = None, rejects = None, collapse = false, equivalence_predicates = None, max_class = 1000, allow_large_classes = false, drop_reflexive = false, equivalences = None, rename = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn rewrite(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    destination: &Bound<'_, PyAny>,
    format: Option<&str>,
    to: Option<&str>,
    base: Option<String>,
    dedup: bool,
    policy: Option<&Bound<'_, PyPolicy>>,
    fail_on_invalid: bool,
    skip_syntax_errors: bool,
    keep_signed: bool,
    threads: Option<usize>,
    links: Option<&Bound<'_, PyAny>>,
    map: Option<&Bound<'_, PyAny>>,
    rejects: Option<&Bound<'_, PyAny>>,
    collapse: bool,
    equivalence_predicates: Option<Vec<String>>,
    max_class: usize,
    allow_large_classes: bool,
    drop_reflexive: bool,
    equivalences: Option<Vec<PathBuf>>,
    rename: Option<PathBuf>,
) -> PyResult<PyReport> {
    let (mut source, name, source_path) = Source::new(source)?;
    let policy = policy_of(policy);
    let equivalence = Equivalence::new(
        &policy,
        rename,
        collapse,
        equivalence_predicates,
        equivalences,
        (max_class, allow_large_classes, drop_reflexive),
    )?;
    // Read twice: a stream is copied to a temporary file first.
    let _spooled = match (collapse, &source) {
        (true, Source::Stream(_)) => {
            let mut temp = tempfile::NamedTempFile::new()?;
            io::copy(&mut source.open(&name)?, &mut temp)?;
            temp.flush()?;
            source = Source::Path(temp.path().to_owned());
            Some(temp)
        }
        _ => None,
    };
    let input_format = match (format, source_path.as_deref().and_then(format_of)) {
        (Some(format), _) => parse_format(format)?,
        (None, Some(format)) => format,
        // Bytes and streams without a known name are N-Quads, which includes N-Triples (as stdin).
        (None, None) if !matches!(source, Source::Path(_)) => RdfFormat::NQuads,
        (None, None) => {
            return Err(value_error(format!(
                "{name}: cannot tell the RDF format from the name; pass format="
            )));
        }
    };
    let (mut output, output_path) = Sink::new(destination)?;
    let output_format = match (to, output_path.as_deref().and_then(format_of)) {
        (Some(to), _) => parse_format(to)?,
        (None, Some(format)) => format,
        (None, None) => input_format,
    };
    let mut sidecars: Sidecars = [
        links.map(Sink::new).transpose()?.map(|(s, _)| s),
        map.map(Sink::new).transpose()?.map(|(s, _)| s),
        rejects.map(Sink::new).transpose()?.map(|(s, _)| s),
    ];
    let options = Options {
        input_format,
        output_format,
        base,
        dedup,
        fail_on_invalid,
        skip_syntax_errors,
        keep_signed,
        threads: threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
    };
    let registry = Registry::from_policy(&policy).map_err(value_error)?;
    let logger = Logger {
        logger: py
            .import("logging")?
            .call_method1("getLogger", ("pidcanon",))?
            .unbind(),
        source: name.clone(),
    };
    let result = py.detach(|| {
        let mut rewriter = options.rewriter(registry).map_err(Failed::Rewrite)?;
        if !equivalence.is_empty() {
            rewriter = mapped(rewriter, &equivalence, &source, &name).map_err(Failed::Mapping)?;
        }
        run(
            &rewriter,
            &source,
            &name,
            &mut output,
            &mut sidecars,
            logger,
        )
        .map_err(Failed::Rewrite)
    });
    let report = result.map_err(|e| match e {
        Failed::Rewrite(e) => rewrite_error(py, &name, e),
        Failed::Mapping(e) => e.into_py(Some(&name), "written"),
    })?;
    output.commit()?;
    for sink in sidecars.into_iter().flatten() {
        sink.commit()?;
    }
    Ok(report.into())
}

//! Inputs and outputs of the graph commands: formats from names and extensions, files written
//! atomically, a progress bar.

use indicatif::{ProgressBar, ProgressStyle};
use pidcanon::rewrite::RdfFormat;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// A format named by a short name (`nt`, `nq`, `ttl`, `trig`, `rdfxml`), an extension or a media
/// type, as riot, rapper and oxigraph accept them.
pub(crate) fn parse_format(name: &str) -> Result<RdfFormat, String> {
    let lower = name.to_ascii_lowercase();
    let format = match lower.as_str() {
        "nt" | "ntriples" | "n-triples" => Some(RdfFormat::NTriples),
        "nq" | "nquads" | "n-quads" => Some(RdfFormat::NQuads),
        "ttl" | "turtle" => Some(RdfFormat::Turtle),
        "trig" => Some(RdfFormat::TriG),
        "rdfxml" | "rdf/xml" | "rdf" | "xml" | "owl" => Some(RdfFormat::RdfXml),
        _ => RdfFormat::from_media_type(&lower).or_else(|| RdfFormat::from_extension(&lower)),
    };
    match format {
        Some(
            f @ (RdfFormat::NTriples
            | RdfFormat::NQuads
            | RdfFormat::Turtle
            | RdfFormat::TriG
            | RdfFormat::RdfXml),
        ) => Ok(f),
        Some(other) => Err(format!(
            "{} is not supported (N-Triples, N-Quads, Turtle, TriG, RDF/XML are)",
            other.name()
        )),
        None => Err(format!(
            "unknown RDF format {name:?} (use nt, nq, ttl, trig, rdfxml or a media type)"
        )),
    }
}

/// The format of a file, from its extension.
pub(crate) fn format_of(path: &Path) -> Option<RdfFormat> {
    let extension = path.extension()?.to_str()?;
    parse_format(extension).ok()
}

/// An input: a file or stdin (`-`).
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) path: Option<PathBuf>,
}

impl Input {
    pub(crate) fn new(arg: &str) -> Self {
        if arg == "-" {
            Self {
                name: "<stdin>".into(),
                path: None,
            }
        } else {
            Self {
                name: arg.into(),
                path: Some(PathBuf::from(arg)),
            }
        }
    }

    /// Opens the input; a file gets a progress bar on a terminal unless `quiet`.
    pub(crate) fn open(&self, quiet: bool) -> io::Result<(Box<dyn BufRead>, Option<ProgressBar>)> {
        let Some(path) = &self.path else {
            return Ok((
                Box::new(BufReader::with_capacity(1 << 16, io::stdin())),
                None,
            ));
        };
        let file = File::open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.name)))?;
        if quiet || !io::stderr().is_terminal() {
            return Ok((Box::new(BufReader::with_capacity(1 << 16, file)), None));
        }
        let bar = ProgressBar::new(file.metadata()?.len());
        if let Ok(style) =
            ProgressStyle::with_template("{bytes}/{total_bytes} {wide_bar} {bytes_per_sec} {eta}")
        {
            bar.set_style(style);
        }
        let reader: Box<dyn Read> = Box::new(bar.wrap_read(file));
        Ok((
            Box::new(BufReader::with_capacity(1 << 16, reader)),
            Some(bar),
        ))
    }
}

/// A file written through a temporary file in the same directory and renamed over its target at
/// the end: a failed run leaves neither a partial file nor a changed one.
pub(crate) struct AtomicFile {
    temp: NamedTempFile,
    target: PathBuf,
}

impl AtomicFile {
    pub(crate) fn create(target: &Path) -> io::Result<Self> {
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temp = NamedTempFile::new_in(dir)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", target.display())))?;
        Ok(Self {
            temp,
            target: target.to_owned(),
        })
    }

    pub(crate) fn writer(&self) -> io::Result<File> {
        self.temp.as_file().try_clone()
    }

    /// Renames the file over its target.
    pub(crate) fn commit(self) -> io::Result<()> {
        self.temp.as_file().sync_all()?;
        self.temp
            .persist(&self.target)
            .map(drop)
            .map_err(|e| e.error)
    }
}

/// Where the data goes: stdout or an atomic file.
pub(crate) enum Output {
    Stdout,
    File(AtomicFile),
}

impl Output {
    pub(crate) fn new(path: Option<&Path>) -> io::Result<Self> {
        Ok(match path {
            Some(path) if path != Path::new("-") => Output::File(AtomicFile::create(path)?),
            _ => Output::Stdout,
        })
    }

    pub(crate) fn writer(&self) -> io::Result<Box<dyn Write>> {
        Ok(match self {
            Output::Stdout => Box::new(io::stdout().lock()),
            Output::File(file) => Box::new(file.writer()?),
        })
    }

    pub(crate) fn commit(self) -> io::Result<()> {
        match self {
            Output::Stdout => Ok(()),
            Output::File(file) => file.commit(),
        }
    }
}

//! Inputs of the graph commands: formats from names and extensions, files and stdin, a progress
//! bar; [`Named`], which puts a file's name in its I/O errors.

use super::compress::{Compression, decompress, without_compression_extension};
use indicatif::{ProgressBar, ProgressStyle};
use pidcanon::rewrite::{RdfFormat, parse_format};
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

/// The format of a file, from its extension, looking through a compression extension
/// (`dump.nt.gz` is N-Triples).
pub(crate) fn format_of(path: &Path) -> Option<RdfFormat> {
    let extension = without_compression_extension(path).extension()?.to_str()?;
    parse_format(extension).ok()
}

/// An input: a file or stdin (`-`).
pub(crate) struct Input {
    pub(crate) name: String,
    pub(crate) path: Option<PathBuf>,
}

/// What an input is read through.
type Source = Box<dyn Read + Send>;

impl Input {
    pub(crate) fn new(arg: &str) -> Self {
        if arg == "-" {
            Self {
                name: super::graph::STDIN.into(),
                path: None,
            }
        } else {
            Self {
                name: arg.into(),
                path: Some(PathBuf::from(arg)),
            }
        }
    }

    /// The `file://` URL of the input, to resolve its relative IRIs against (as riot and rapper
    /// do); stdin has none.
    pub(crate) fn base_iri(&self) -> Option<String> {
        let path = std::fs::canonicalize(self.path.as_ref()?).ok()?;
        url::Url::from_file_path(path).ok().map(String::from)
    }

    /// Opens the input, decompressed if its extension or its first bytes say it is compressed;
    /// a file gets a progress bar (of the bytes read from the file) on a terminal unless `quiet`.
    /// Every error names the input.
    pub(crate) fn open(&self, quiet: bool) -> io::Result<(Box<dyn BufRead>, Option<ProgressBar>)> {
        let named = |e| with_name(&self.name, e);
        let (source, bar): (Source, _) = match &self.path {
            None => (Box::new(io::stdin()), None),
            Some(path) => {
                let file = File::open(path).map_err(named)?;
                if quiet || !io::stderr().is_terminal() {
                    (Box::new(file), None)
                } else {
                    let bar = progress_bar(file.metadata().map_err(named)?.len());
                    (Box::new(bar.wrap_read(file)), Some(bar))
                }
            }
        };
        let (start, source) = peek(source, Compression::MAGIC_LEN).map_err(named)?;
        let compression = self
            .path
            .as_deref()
            .and_then(Compression::from_extension)
            .or_else(|| Compression::from_magic(&start));
        let source = BufReader::with_capacity(1 << 16, io::Cursor::new(start).chain(source));
        let reader: Box<dyn BufRead> = match compression {
            None => Box::new(Named::new(source, self.name.clone())),
            Some(compression) => Box::new(decompress(source, compression, self.name.clone())?),
        };
        Ok((reader, bar))
    }
}

/// The first `len` bytes of `source` (fewer at its end) and the rest of it.
fn peek(mut source: Source, len: usize) -> io::Result<(Vec<u8>, Source)> {
    let mut start = Vec::with_capacity(len);
    (&mut source).take(len as u64).read_to_end(&mut start)?;
    Ok((start, source))
}

fn progress_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    if let Ok(style) =
        ProgressStyle::with_template("{bytes}/{total_bytes} {wide_bar} {bytes_per_sec} {eta}")
    {
        bar.set_style(style);
    }
    bar
}

/// `error` with `name` in front, of the same kind (a broken pipe stays one).
pub(crate) fn with_name(name: &str, error: io::Error) -> io::Error {
    let message = format!("{name}: {error}");
    io::Error::new(
        error.kind(),
        NamedError {
            name: name.to_owned(),
            message,
        },
    )
}

/// Whether `error` already names its file (it came through [`with_name`]).
pub(crate) fn names_its_file(error: &io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.is::<NamedError>())
}

/// Whether `error` is stdout's reader gone away (`| head`): a quiet end of the run.
pub(crate) fn stdout_reader_gone(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
        && error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<NamedError>())
            .is_some_and(|named| named.name == STDOUT)
}

/// How stdout is named in messages.
pub(crate) const STDOUT: &str = "<stdout>";

/// An I/O error's message with the file's name in front.
#[derive(Debug)]
struct NamedError {
    name: String,
    message: String,
}

impl std::fmt::Display for NamedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NamedError {}

/// A reader or writer whose errors name its file: `data.nt: Is a directory (os error 21)`.
pub(crate) struct Named<T> {
    inner: T,
    name: String,
}

impl<T> Named<T> {
    pub(crate) fn new(inner: T, name: String) -> Self {
        Self { inner, name }
    }

    pub(crate) fn into_inner(self) -> T {
        self.inner
    }

    fn wrap<U>(&self, result: io::Result<U>) -> io::Result<U> {
        result.map_err(|e| with_name(&self.name, e))
    }
}

impl<R: Read> Read for Named<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let result = self.inner.read(buf);
        self.wrap(result)
    }
}

impl<R: BufRead> BufRead for Named<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let name = &self.name;
        self.inner.fill_buf().map_err(|e| with_name(name, e))
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
    }
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.wrap(result)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let result = self.inner.write_all(buf);
        self.wrap(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.wrap(result)
    }
}

//! Files named in I/O errors: [`Named`] puts a file's name in the errors of a reader or writer,
//! [`with_name`] in one error; and how stdin and stdout are named.

use std::io::{self, BufRead, Read, Write};

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

/// How stdin is named in messages.
pub(crate) const STDIN: &str = "<stdin>";

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

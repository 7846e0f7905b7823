//! Python file objects as Rust readers and writers. They run with the GIL released and take it
//! back for each chunk they read or write, so other Python threads run meanwhile.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::io::{self, BufRead, Read, Write};

/// How much a reader asks its file object for at a time.
const CHUNK: usize = 1 << 16;

/// A Python object with a `read(n)` method returning `bytes` (binary files) or `str` (text files,
/// encoded as UTF-8).
pub(crate) struct PyReader {
    file: Py<PyAny>,
    buffer: Vec<u8>,
    position: usize,
}

impl PyReader {
    pub(crate) fn new(file: Py<PyAny>) -> Self {
        Self {
            file,
            buffer: Vec::new(),
            position: 0,
        }
    }
}

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for PyReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.position == self.buffer.len() {
            self.buffer.clear();
            self.position = 0;
            Python::attach(|py| -> PyResult<()> {
                let chunk = self.file.bind(py).call_method1("read", (CHUNK,))?;
                if let Ok(bytes) = chunk.cast::<PyBytes>() {
                    self.buffer.extend_from_slice(bytes.as_bytes());
                } else if let Ok(text) = chunk.cast::<PyString>() {
                    self.buffer.extend_from_slice(text.to_cow()?.as_bytes());
                } else {
                    let kind = chunk.get_type().name()?;
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "read() returned {kind}, not bytes or str"
                    )));
                }
                Ok(())
            })?;
        }
        Ok(&self.buffer[self.position..])
    }

    fn consume(&mut self, amount: usize) {
        self.position = (self.position + amount).min(self.buffer.len());
    }
}

/// A Python object with a `write` method: given `bytes`, or `str` for a text file
/// (`io.TextIOBase`), in which case a character cut between two writes waits for the next.
pub(crate) struct PyWriter {
    file: Py<PyAny>,
    text: bool,
    /// The start of a UTF-8 character that the last write cut off (text files).
    pending: Vec<u8>,
}

impl PyWriter {
    pub(crate) fn new(file: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text_base = file.py().import("io")?.getattr("TextIOBase")?;
        Ok(Self {
            text: file.is_instance(&text_base)?,
            file: file.clone().unbind(),
            pending: Vec::new(),
        })
    }
}

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::attach(|py| -> PyResult<()> {
            let file = self.file.bind(py);
            if !self.text {
                file.call_method1("write", (PyBytes::new(py, buf),))?;
                return Ok(());
            }
            self.pending.extend_from_slice(buf);
            let complete = match std::str::from_utf8(&self.pending) {
                Ok(_) => self.pending.len(),
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                Err(e) => return Err(PyErr::from(io::Error::new(io::ErrorKind::InvalidData, e))),
            };
            let text = String::from_utf8_lossy(&self.pending[..complete]).into_owned();
            file.call_method1("write", (text,))?;
            self.pending.drain(..complete);
            Ok(())
        })?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

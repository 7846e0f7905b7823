//! The Python exceptions, and every library error mapped onto one, with the command line's
//! message.

use pidcanon::IdError;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    pidcanon,
    InvalidIdentifier,
    PyValueError,
    concat!(
        "An identifier that its scheme claims but that breaks one of its rules.\n",
        "\n",
        "``str(e)`` is the command line's message: ``fedora-object: character ' ' is not allowed in\n",
        "object-id (byte 18)`` from ``canonicalize``, prefixed with ``file:line:column: invalid\n",
        "identifier <iri>:`` from ``rewrite(..., fail_on_invalid=True)``.",
    )
);
create_exception!(
    pidcanon,
    RdfSyntaxError,
    PyValueError,
    concat!(
        "RDF input that is not valid in its format.\n",
        "\n",
        "``str(e)`` is the command line's message, ``file:line:column: syntax error: message``. It is\n",
        "a ``ValueError``, not Python's ``SyntaxError`` (which is about Python source and would add\n",
        "``(line N)`` to the message).",
    )
);

/// Where in a file something was found: its name, and the 1-based line and column if known.
pub(crate) struct Place<'a> {
    pub(crate) source: &'a str,
    pub(crate) line: Option<u64>,
    pub(crate) column: Option<u64>,
}

/// `InvalidIdentifier(message)` for `input`, with `.input`, `.kind`, `.rule`, `.offset` and, when
/// found in a file, `.source`, `.line` and `.column`.
pub(crate) fn invalid_identifier(
    py: Python<'_>,
    message: String,
    input: &str,
    error: &IdError,
    place: Option<Place<'_>>,
) -> PyErr {
    let err = InvalidIdentifier::new_err(message);
    let set = || -> PyResult<()> {
        let value = err.value(py);
        value.setattr("input", input)?;
        value.setattr("kind", error.kind().as_str())?;
        value.setattr("rule", error.rule().to_string())?;
        value.setattr("offset", error.offset())?;
        set_place(value.as_any(), place)
    };
    match set() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

/// `InvalidIdentifier` for `input`, whose message is the error's (as `pidcanon canon --tsv`).
pub(crate) fn id_error(py: Python<'_>, input: &str, error: &IdError) -> PyErr {
    invalid_identifier(py, error.to_string(), input, error, None)
}

/// `RdfSyntaxError(message)` with `.source`, `.line`, `.column` and the parser's `.message`.
pub(crate) fn syntax_error(
    py: Python<'_>,
    message: String,
    parser_message: &str,
    place: Place<'_>,
) -> PyErr {
    let err = RdfSyntaxError::new_err(message);
    let set = || -> PyResult<()> {
        let value = err.value(py);
        value.setattr("message", parser_message)?;
        set_place(value.as_any(), Some(place))
    };
    match set() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

fn set_place(value: &Bound<'_, PyAny>, place: Option<Place<'_>>) -> PyResult<()> {
    let (source, line, column) = match place {
        Some(p) => (Some(p.source), p.line, p.column),
        None => (None, None, None),
    };
    value.setattr("source", source)?;
    value.setattr("line", line)?;
    value.setattr("column", column)
}

/// A `ValueError` with the library's message (a bad policy, an unknown format or scheme).
pub(crate) fn value_error(message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(message.to_string())
}

//! Why reading stops: the input cannot be read, or is not valid in its format.

use crate::position::Location;
use std::{fmt, io};

/// Input that is not valid in its format, with where it is.
///
/// ```
/// use pidcanon::rewrite::{RdfFormat, RewriteError, Rewriter};
/// use pidcanon::Registry;
///
/// let rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::NTriples);
/// let mut session = rewriter.session(Vec::new());
/// let Err(RewriteError::Syntax(error)) = session.rewrite(&b"<http://ex/s> <p> .\n"[..]) else {
///     panic!("a relative IRI is not N-Triples");
/// };
/// assert_eq!(error.location().line(), Some(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    location: Location,
    message: String,
}

impl SyntaxError {
    pub(crate) fn new(location: Location, message: impl Into<String>) -> Self {
        Self {
            location,
            message: message.into(),
        }
    }

    /// Where the error is.
    #[must_use]
    pub fn location(&self) -> Location {
        self.location
    }

    /// What is wrong (the parser's words).
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: syntax error: {}", self.location, self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// Why reading an input stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The input is not valid in its format.
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    /// The base IRI given or declared is not an absolute IRI.
    #[error("invalid base IRI <{iri}>: {error}")]
    InvalidBaseIri {
        iri: String,
        #[source]
        error: oxiri::IriParseError,
    },
    /// A prefix's IRI is not an absolute IRI.
    #[error("invalid prefix {name}: <{iri}>: {error}")]
    InvalidPrefix {
        name: String,
        iri: String,
        #[source]
        error: oxiri::IriParseError,
    },
}

//! Why a rewrite stops.

use super::{Location, SyntaxError};
use crate::IdError;
use crate::read::ReadError;
use std::io;

/// Why a rewrite stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RewriteError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The input is not valid in its format (and syntax errors are not skipped).
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    /// An identifier an adapter claims is invalid (with
    /// [`fail_on_invalid`](super::Rewriter::fail_on_invalid)).
    #[error("{}invalid identifier <{iri}>: {error}", at(.location))]
    InvalidIdentifier {
        /// Where.
        location: Location,
        /// The IRI.
        iri: String,
        /// What is wrong with it.
        #[source]
        error: IdError,
    },
    /// A base IRI given (or declared by the input) is not an absolute IRI.
    #[error("invalid base IRI <{iri}>: {error}")]
    InvalidBaseIri {
        /// The base IRI.
        iri: String,
        /// What is wrong with it.
        #[source]
        error: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A prefix cannot be declared: its IRI is not an absolute IRI.
    #[error("invalid prefix {name}: <{iri}>: {error}")]
    InvalidPrefix {
        /// The prefix name.
        name: String,
        /// Its IRI.
        iri: String,
        /// What is wrong with it.
        #[source]
        error: oxiri::IriParseError,
    },
    /// A statement in a named graph, to be written in a format that has none.
    #[error(
        "a statement in the graph {graph} cannot be written as {} (it has no named graphs): \
         write N-Quads or TriG",
        .format.name()
    )]
    NoNamedGraphs {
        /// The graph's name, as N-Triples writes it.
        graph: String,
        /// The output format.
        format: super::RdfFormat,
    },
    /// Fingerprints (see [`fingerprint_statements`](super::Rewriter::fingerprint_statements)) are written
    /// before N-Triples or N-Quads lines only.
    #[error("fingerprints are written before N-Triples or N-Quads lines, not in {}", .format.name())]
    FingerprintsNeedLines {
        /// The output format asked for.
        format: super::RdfFormat,
    },
}

impl From<ReadError> for RewriteError {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::Io(error) => Self::Io(error),
            ReadError::Syntax(error) => Self::Syntax(error),
            ReadError::InvalidBaseIri { iri, error } => Self::InvalidBaseIri {
                iri,
                error: Box::new(error),
            },
            ReadError::InvalidPrefix { name, iri, error } => {
                Self::InvalidPrefix { name, iri, error }
            }
        }
    }
}

/// `location` and a colon before a message, if it is known (a statement given alone, to
/// [`Rewriter::try_canonical_quad`](super::Rewriter::try_canonical_quad), has none).
fn at(location: &Location) -> String {
    if location.line().is_some() {
        format!("{location}: ")
    } else {
        String::new()
    }
}

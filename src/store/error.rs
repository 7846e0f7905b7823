//! What can go wrong while normalizing a store.

use std::io;

/// An error of [`Normalizer::run`](super::Normalizer::run) or of the [`Client`](super::Client).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The endpoint answered with an HTTP status that retrying does not change (400, 401, 403,
    /// 404, …).
    #[error("{endpoint}: HTTP {status}{}", excerpt(body))]
    Status {
        /// The URL of the endpoint.
        endpoint: String,
        /// The HTTP status.
        status: u16,
        /// The start of the response body, which usually says why.
        body: String,
    },
    /// The endpoint stayed unreachable or kept failing (connection refused, timeout, HTTP 5xx)
    /// through every retry.
    #[error("{endpoint}: {reason} (gave up after {attempts} attempts)")]
    Unavailable {
        /// The URL of the endpoint.
        endpoint: String,
        /// Requests sent, the first one included.
        attempts: u32,
        /// The last failure.
        reason: String,
    },
    /// The endpoint answered a query with something other than SPARQL JSON results.
    #[error("{endpoint}: not a SPARQL endpoint: {reason}")]
    NotSparql {
        /// The URL of the endpoint.
        endpoint: String,
        /// What it answered.
        reason: String,
    },
    /// The endpoint cut the results of a candidate query at a row cap (Virtuoso's
    /// `ResultSetMaxRows`, announced by `X-SPARQL-MaxRows`); nothing was changed.
    #[error(
        "{endpoint}: the store cut the candidate query's results at {rows} rows \
         (X-SPARQL-MaxRows); nothing was changed: rerun with --page {rows}"
    )]
    Truncated {
        /// The URL of the endpoint.
        endpoint: String,
        /// The cap, as the endpoint gave it.
        rows: String,
    },
    /// A setting that cannot work (a URL, credentials, a graph IRI).
    #[error("{0}")]
    Config(String),
    /// Writing the `--map` file or printing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// `: ` and the first line of `body`, at most 200 characters; nothing for an empty body.
fn excerpt(body: &str) -> String {
    let line = body.trim().lines().next().unwrap_or_default();
    if line.is_empty() {
        return String::new();
    }
    let mut excerpt: String = line.chars().take(200).collect();
    if excerpt.len() < line.len() {
        excerpt.push('…');
    }
    format!(": {excerpt}")
}

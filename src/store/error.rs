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
    /// An update timed out (see [`Client::update_or_time_out`](super::Client::update_or_time_out));
    /// [`Normalizer::run`](super::Normalizer::run) sends it again in two halves, and returns this
    /// only for an update it cannot cut.
    #[error("{endpoint}: the update timed out: {reason}")]
    TimedOut {
        /// The URL of the endpoint.
        endpoint: String,
        /// How it timed out.
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
    /// The endpoint cut the results of the snapshot's query (all the statements in scope) at a
    /// row cap; nothing was changed by the snapshot.
    #[error(
        "{endpoint}: the store cut the results of the snapshot (every statement in scope) at \
         {rows} rows (X-SPARQL-MaxRows); no statement was replaced: raise the store's cap \
         (Virtuoso: ResultSetMaxRows), or read it in pages with --page {rows}"
    )]
    SnapshotTruncated {
        /// The URL of the endpoint.
        endpoint: String,
        /// The cap, as the endpoint gave it.
        rows: String,
    },
    /// The pages of the snapshot did not hold the statements counted: the store changed while
    /// they were read, or does not give them in the same order each time; nothing was changed
    /// by the snapshot.
    #[error(
        "{endpoint}: the pages of the snapshot held {read} statements where {counted} were \
         counted: the store changed while they were read (or gives them in another order each \
         time); no statement was replaced: rerun, or run without --page if the store answers in \
         one response"
    )]
    SnapshotMoved {
        /// The URL of the endpoint.
        endpoint: String,
        /// Statements read.
        read: u64,
        /// Statements counted before.
        counted: u64,
    },
    /// The endpoint cut the results of the literal query (`--literals`, which is not paged) at
    /// a row cap; the IRIs were rewritten, the literals not.
    #[error(
        "{endpoint}: the store cut the results of the identifier literals' query at {rows} rows \
         (X-SPARQL-MaxRows): the literals were not rewritten; raise the store's cap (Virtuoso: \
         ResultSetMaxRows) or name fewer predicates with --literals=LIST"
    )]
    LiteralsTruncated {
        /// The URL of the endpoint.
        endpoint: String,
        /// The cap, as the endpoint gave it.
        rows: String,
    },
    /// The endpoint refused a request for a reason retrying does not change, and what to do
    /// about it (a 401 that asks for digest authentication, a query endpoint sent an update,
    /// Virtuoso's anonymous `/sparql` refusing updates with SR186).
    #[error("{endpoint}: HTTP {status}{}: {advice}", excerpt(body))]
    Refused {
        /// The URL of the endpoint.
        endpoint: String,
        /// The HTTP status.
        status: u16,
        /// The start of the response body.
        body: String,
        /// What to change.
        advice: String,
    },
    /// An `https://` endpoint whose server does not answer a TLS handshake (a plain HTTP port).
    #[error(
        "{endpoint}: {reason}: the server does not speak TLS on this port; if it serves plain \
         HTTP, write the endpoint with http://"
    )]
    NotTls {
        /// The URL of the endpoint.
        endpoint: String,
        /// What the server did instead.
        reason: String,
    },
    /// The update endpoint answered an update with success, but the store still holds old
    /// spellings the update rewrote: it was not applied (or not all of it).
    #[error(
        "{endpoint}: the update was answered with success but not applied: {} of the {checked} \
         rewritten IRIs checked are still in the store ({}); the map and links of this batch \
         record rewrites that did not happen",
        remaining.len(),
        list(remaining)
    )]
    NotApplied {
        /// The URL of the update endpoint.
        endpoint: String,
        /// Old IRIs of the batch asked about.
        checked: usize,
        /// Those still in the store.
        remaining: Vec<String>,
    },
    /// The update endpoint answered an update of the snapshot with success, but the store still
    /// holds statements it deleted: it was not applied (or not all of it).
    #[error(
        "{endpoint}: the update was answered with success but not applied: {} of the {checked} \
         replaced statements checked are still in the store ({}); the map and links of this \
         update record rewrites that did not happen",
        remaining.len(),
        list(remaining)
    )]
    StatementsStillThere {
        /// The URL of the update endpoint.
        endpoint: String,
        /// Statements of the update asked about.
        checked: usize,
        /// Those still in the store.
        remaining: Vec<String>,
    },
    /// The update endpoint answered an update of equivalence statements (the links of a
    /// collapse, or the statements they replace) with success, but the store does not show it.
    #[error(
        "{endpoint}: the update was answered with success but not applied: the {statements} \
         equivalence statements it was to {operation} are not so in the store"
    )]
    StatementsNotApplied {
        /// The URL of the update endpoint.
        endpoint: String,
        /// `insert` or `delete`.
        operation: String,
        /// Statements in the update.
        statements: usize,
    },
    /// A failure after updates were sent: the store holds part of the rewrite, and running the
    /// same command again finishes it.
    #[error("{error}; partly done ({}): rerun the same command to finish", applied_text(*applied))]
    PartlyDone {
        /// Updates applied before the failure.
        applied: u64,
        /// The failure.
        error: Box<StoreError>,
    },
    /// Equivalence classes gathered for a collapse are larger than the limit, and large classes
    /// may not be collapsed: nothing was changed (see
    /// [`LargeClass`](crate::equivalence::LargeClass), given to
    /// [`Observer::classes`](super::Observer::classes)).
    #[error(
        "{classes} equivalence {} larger than {max_class} members: nothing was changed",
        if *classes == 1 { "class" } else { "classes" }
    )]
    LargeClasses {
        /// Classes over the limit.
        classes: usize,
        /// The limit.
        max_class: usize,
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

/// `<a>, <b>, <c>, …` (at most three).
fn list(iris: &[String]) -> String {
    let mut text = iris
        .iter()
        .take(3)
        .map(|iri| format!("<{iri}>"))
        .collect::<Vec<_>>()
        .join(", ");
    if iris.len() > 3 {
        text.push_str(", …");
    }
    text
}

/// How many updates were applied before a failure.
fn applied_text(applied: u64) -> String {
    match applied {
        0 => "the failed update may have been applied in part".to_owned(),
        1 => "1 update applied".to_owned(),
        n => format!("{n} updates applied"),
    }
}

//! Normalizing a live triple store over the SPARQL 1.1 protocol (feature `store`).
//!
//! A [`Normalizer`] finds the IRIs that an adapter may claim with paged `SELECT`s (filtered by the
//! [routes](crate::Registry::routes) of the registry), canonicalizes them, and rewrites the ones
//! whose canonical form differs with batches of `DELETE`/`INSERT` updates, in every position and
//! in every graph in scope; statements that become duplicates collapse, as the store holds a set.
//! Every update moves only the statements that still hold an old IRI, so an interrupted run is
//! finished by running again, and a further run changes nothing. See docs/store.md.
//!
//! ```no_run
//! use pidcanon::Registry;
//! use pidcanon::store::{Client, ClientOptions, Graphs, Normalizer, NoObserver};
//! let client = Client::new("http://127.0.0.1:7878/query", ClientOptions {
//!     update_endpoint: Some("http://127.0.0.1:7878/update".into()),
//!     ..ClientOptions::default()
//! });
//! let normalizer = Normalizer::new(Registry::default()).with_graphs(Graphs::All)?;
//! let report = normalizer.run(&client, &mut NoObserver)?;
//! println!("{} statements, {} after", report.statements_before, report.statements_after);
//! # Ok::<_, pidcanon::store::StoreError>(())
//! ```

mod client;
mod error;
mod sparql;

pub use client::{AuthScheme, Client, ClientOptions, Credentials, Row, Value};
pub use error::StoreError;
pub use sparql::Graphs;

use crate::{Canonical, Kind, Registry};
use sparql::{Sparql, iri};
use std::collections::BTreeMap;
use std::fmt::Display;
use std::io;
use std::time::Instant;

/// The most `VALUES` text (old and new IRIs) in one update, whatever `--batch` says: each update
/// repeats it once per position and scope, so an update stays well under a megabyte.
const MAX_BATCH_BYTES: usize = 64 * 1024;

/// What a run found and did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct StoreReport {
    /// Candidate IRIs examined (distinct per pass: graph names, then terms).
    pub iris_examined: u64,
    /// IRIs rewritten (or, in a dry run, to rewrite), by the kind of identifier.
    pub rewritten: BTreeMap<Kind, u64>,
    /// Of those, names of named graphs.
    pub graph_names_rewritten: u64,
    /// Claimed IRIs that are invalid (or cannot be written in SPARQL), left unchanged.
    pub invalid: u64,
    /// Statements in scope before the run.
    pub statements_before: u64,
    /// Statements in scope after the run (in a dry run, before).
    pub statements_after: u64,
    /// Update requests applied (in a dry run, printed).
    pub updates: u64,
    /// HTTP requests sent, retries included.
    pub requests: u64,
    /// Retries after transient failures.
    pub retries: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl StoreReport {
    /// IRIs rewritten, all kinds.
    #[must_use]
    pub fn rewritten_total(&self) -> u64 {
        self.rewritten.values().sum()
    }

    /// Statements that became duplicates of others and collapsed (before − after).
    #[must_use]
    pub fn duplicates_collapsed(&self) -> u64 {
        self.statements_before.saturating_sub(self.statements_after)
    }
}

/// Hears what a run does, as it does it. Every method has a default that does nothing.
pub trait Observer {
    /// A claimed IRI is invalid (or cannot be written in SPARQL) and stays as it is.
    fn invalid(&mut self, iri: &str, reason: &dyn Display) {
        let _ = (iri, reason);
    }

    /// `old` is about to be rewritten to `canonical` (called before the update is sent, so a
    /// record of it survives an interruption).
    fn rewriting(&mut self, old: &str, canonical: &Canonical<'_>) -> io::Result<()> {
        let _ = (old, canonical);
        Ok(())
    }

    /// A dry run's update, which is not sent.
    fn would_send(&mut self, update: &str) -> io::Result<()> {
        let _ = update;
        Ok(())
    }

    /// After each page of candidates and each update.
    fn progress(&mut self, report: &StoreReport) {
        let _ = report;
    }
}

/// An [`Observer`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl Observer for NoObserver {}

/// Normalizes the identifiers of a store; see the [module documentation](self).
#[derive(Debug)]
pub struct Normalizer {
    registry: Registry,
    graphs: Graphs,
    links: Option<String>,
    batch: usize,
    page: usize,
    dry_run: bool,
}

/// The two passes: names of named graphs first, then subjects, predicates and objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    GraphNames,
    Terms,
}

impl Normalizer {
    /// A normalizer of the default graph, in batches of 1 000 IRIs and pages of 100 000.
    #[must_use]
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            graphs: Graphs::Default,
            links: None,
            batch: 1000,
            page: 100_000,
            dry_run: false,
        }
    }

    /// Which graphs to normalize.
    pub fn with_graphs(mut self, graphs: Graphs) -> Result<Self, StoreError> {
        self.graphs = match graphs {
            Graphs::Named(names) if names.is_empty() => {
                return Err(StoreError::Config("no graph named".to_owned()));
            }
            Graphs::Named(names) => Graphs::Named(
                names
                    .iter()
                    .map(|n| graph_iri(n))
                    .collect::<Result<_, _>>()?,
            ),
            graphs => graphs,
        };
        self.check_links()?;
        Ok(self)
    }

    /// Records each rewrite as `<old> owl:sameAs <new>` in the named graph `graph`, which is left
    /// out of the normalization.
    pub fn with_links(mut self, graph: &str) -> Result<Self, StoreError> {
        self.links = Some(graph_iri(graph)?);
        self.check_links()?;
        Ok(self)
    }

    /// Old IRIs per update (at most 64 KiB of them, whatever `n`).
    #[must_use]
    pub fn with_batch(mut self, n: usize) -> Self {
        self.batch = n.max(1);
        self
    }

    /// Candidate IRIs per query.
    #[must_use]
    pub fn with_page(mut self, n: usize) -> Self {
        self.page = n.max(1);
        self
    }

    /// Send no update: give them to [`Observer::would_send`] instead.
    #[must_use]
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    fn check_links(&self) -> Result<(), StoreError> {
        match (&self.graphs, &self.links) {
            (Graphs::Named(names), Some(links)) if names.contains(links) => {
                Err(StoreError::Config(format!(
                    "the links graph {links} is one of the graphs to normalize"
                )))
            }
            _ => Ok(()),
        }
    }

    /// Normalizes the store behind `client`.
    pub fn run(
        &self,
        client: &Client,
        observer: &mut dyn Observer,
    ) -> Result<StoreReport, StoreError> {
        let started = Instant::now();
        let sparql = Sparql::new(
            self.graphs.clone(),
            self.registry.routes(),
            self.links.clone(),
        );
        let mut run = Run {
            normalizer: self,
            client,
            sparql: &sparql,
            observer,
            report: StoreReport::default(),
            started,
        };
        run.report.statements_before = run.count()?;
        if self.graphs == Graphs::All {
            run.pass(Pass::GraphNames)?;
        }
        run.pass(Pass::Terms)?;
        run.report.statements_after = if self.dry_run {
            run.report.statements_before
        } else {
            run.count()?
        };
        run.tally();
        Ok(run.report)
    }
}

/// `<graph>`, checked.
fn graph_iri(graph: &str) -> Result<String, StoreError> {
    crate::iri::validate(graph)
        .ok()
        .and_then(|()| iri(graph))
        .ok_or_else(|| StoreError::Config(format!("{graph}: not an IRI")))
}

/// One run of a [`Normalizer`].
struct Run<'a> {
    normalizer: &'a Normalizer,
    client: &'a Client,
    sparql: &'a Sparql,
    observer: &'a mut dyn Observer,
    report: StoreReport,
    started: Instant,
}

/// The rewrites of one update: `<old>`, `<new>`, and the kind.
type Batch = Vec<(String, String, Kind)>;

impl Run<'_> {
    fn count(&mut self) -> Result<u64, StoreError> {
        let rows = self.client.select(&self.sparql.count())?;
        rows.first()
            .and_then(|row| row.get("n"))
            .and_then(|n| n.value.parse().ok())
            .ok_or_else(|| StoreError::NotSparql {
                endpoint: self.client.query_endpoint().to_owned(),
                reason: "a COUNT query was answered without a count".to_owned(),
            })
    }

    /// Pages through the candidates of `pass`, rewriting the non-canonical ones in batches.
    fn pass(&mut self, pass: Pass) -> Result<(), StoreError> {
        let page = self.normalizer.page;
        let mut after: Option<String> = None;
        let mut previous = None;
        let mut batch = Batch::new();
        let mut batch_bytes = 0;
        loop {
            let query = match pass {
                Pass::GraphNames => self.sparql.graph_candidates(after.as_deref(), page),
                Pass::Terms => self.sparql.term_candidates(after.as_deref(), page),
            };
            let rows = self.client.select(&query)?;
            let full = rows.len() >= page;
            for value in rows.into_iter().filter_map(|mut row| row.remove("x")) {
                self.report.iris_examined += 1;
                if let Some((old, new, kind)) = self.examine(&value.value)? {
                    batch_bytes += old.len() + new.len();
                    batch.push((old, new, kind));
                    if batch.len() >= self.normalizer.batch || batch_bytes >= MAX_BATCH_BYTES {
                        self.apply(pass, &mut batch)?;
                        batch_bytes = 0;
                    }
                }
                after = Some(value.value);
            }
            self.tally();
            self.observer.progress(&self.report);
            if !full {
                break;
            }
            if after == previous {
                return Err(StoreError::NotSparql {
                    endpoint: self.client.query_endpoint().to_owned(),
                    reason: "the same page of results came back twice (LIMIT or FILTER ignored)"
                        .to_owned(),
                });
            }
            previous.clone_from(&after);
        }
        self.apply(pass, &mut batch)
    }

    /// The rewrite of one candidate, if it needs one: `<old>`, `<new>` and the kind.
    fn examine(&mut self, candidate: &str) -> Result<Option<(String, String, Kind)>, StoreError> {
        let canonical = match self.normalizer.registry.canonicalize_claimed(candidate) {
            Some(Ok(canonical)) if canonical.iri != candidate => canonical,
            Some(Err(e)) => {
                self.report.invalid += 1;
                self.observer.invalid(candidate, &e);
                return Ok(None);
            }
            _ => return Ok(None),
        };
        match (iri(candidate), iri(&canonical.iri)) {
            (Some(old), Some(new)) => {
                self.observer.rewriting(candidate, &canonical)?;
                Ok(Some((old, new, canonical.kind)))
            }
            _ => {
                self.report.invalid += 1;
                self.observer
                    .invalid(candidate, &"cannot be written in a SPARQL query");
                Ok(None)
            }
        }
    }

    /// Sends (or, in a dry run, shows) the update of `batch`, and empties it.
    fn apply(&mut self, pass: Pass, batch: &mut Batch) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        let pairs: Vec<(String, String)> = batch
            .iter()
            .map(|(old, new, _)| (old.clone(), new.clone()))
            .collect();
        let update = match pass {
            Pass::GraphNames => self.sparql.rewrite_graph_names(&pairs),
            Pass::Terms => self.sparql.rewrite_terms(&pairs),
        };
        if self.normalizer.dry_run {
            self.observer.would_send(&update)?;
        } else {
            self.client.update(&update)?;
        }
        self.report.updates += 1;
        for (_, _, kind) in batch.drain(..) {
            *self.report.rewritten.entry(kind).or_default() += 1;
            if pass == Pass::GraphNames {
                self.report.graph_names_rewritten += 1;
            }
        }
        self.tally();
        self.observer.progress(&self.report);
        Ok(())
    }

    /// Brings the request counters and the time up to date.
    fn tally(&mut self) {
        self.report.requests = self.client.requests();
        self.report.retries = self.client.retries();
        self.report.seconds = self.started.elapsed().as_secs_f64();
    }
}

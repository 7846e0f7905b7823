//! Normalizing a live triple store over the SPARQL 1.1 protocol (feature `store`).
//!
//! A [`Normalizer`] finds the IRIs that an adapter may claim with one `SELECT` per pass (filtered
//! by the [routes](crate::Registry::routes) of the registry, its results read as they arrive;
//! or paged, for stores that cap their results), canonicalizes them, and rewrites the ones whose
//! canonical form differs with batches of `DELETE`/`INSERT` updates, in every position and in
//! every graph in scope; statements that become duplicates collapse, as the store holds a set.
//! After each update, an `ASK` on a sample of its old IRIs checks that the store applied it.
//! Links graphs (`with_links`) are marked in the store (`<urn:pidcanon:graphs>`), and every run
//! leaves every marked graph alone: they record the old spellings.
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
mod collapse;
mod error;
mod literals;
mod snapshot;
mod sparql;
mod terms;

pub use client::{AuthScheme, Client, ClientOptions, Credentials, Row, Value};
pub use error::StoreError;
pub use sparql::Graphs;

use crate::collapse::CollapseOptions;
use crate::equivalence::Equivalences;
use crate::equivalence::literals::LiteralRewriter;
use crate::equivalence::mapping::IriMapping;
use crate::equivalence::pairs::Pair;
use crate::equivalence::rename::RenameTable;
use crate::{Canonical, Kind, Registry};
use sparql::{Page, Replacement, Sparql, iri};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Display;
use std::io;
use std::time::{Duration, Instant};

/// The most `VALUES` text (old and new IRIs) in one update, whatever `--batch` says: each update
/// repeats it once per position and scope, so an update stays well under a megabyte.
const MAX_BATCH_BYTES: usize = 64 * 1024;

/// Old IRIs per update without `--batch` (on a store not known to need fewer).
const DEFAULT_BATCH: usize = 1000;

/// Old IRIs per update without `--batch` on Virtuoso, whose time to compile an update grows with
/// the square of the operations in it (see docs/store.md, "Sizing the updates").
const VIRTUOSO_BATCH: usize = 20;

/// An update that takes longer than this halves the next ones.
const SLOW_UPDATE: Duration = Duration::from_secs(5);

/// After an update was made smaller, this many updates in a row each faster than an eighth of
/// [`SLOW_UPDATE`] double the next ones (back to at most the size before the slow update).
const GROW_AFTER: u32 = 4;

/// The most old IRIs of a batch asked about after its update, to check that it was applied.
const CHECK_SAMPLE: usize = 16;

/// The most renamed IRIs asked about in one query of the pass that finds the renamed IRIs no
/// adapter's route leads to.
const LISTED_BATCH: usize = 200;

/// What a run found and did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct StoreReport {
    /// Candidate IRIs examined: distinct per query (graph names; then terms, one query per
    /// position, or all positions in one query per page with `with_page`); with a snapshot,
    /// every IRI of every statement read.
    pub iris_examined: u64,
    /// IRIs rewritten (or, in a dry run, to rewrite), by the kind of identifier.
    pub rewritten: BTreeMap<Kind, u64>,
    /// Of those, names of named graphs.
    pub graph_names_rewritten: u64,
    /// Claimed IRIs that are invalid (or cannot be written in SPARQL), left unchanged; with
    /// literals, identifier literals too.
    pub invalid: u64,
    /// Statements whose identifier literal was rewritten (or, in a dry run, is to be).
    pub literals_rewritten: u64,
    /// Statements in scope before the run.
    pub statements_before: u64,
    /// Whether `statements_before` and `triple_terms` were counted: false only in the report
    /// of a run that failed before counting them (see [`Normalizer::run_with_report`]).
    pub statements_counted: bool,
    /// Statements in scope whose object is an RDF 1.2 triple term: the IRIs inside it are not
    /// rewritten (0 on a store without RDF 1.2).
    pub triple_terms: u64,
    /// Statements in scope after the run (in a dry run, before; in the report of a failed run,
    /// 0: not counted).
    pub statements_after: u64,
    /// Statements that the run's updates made duplicates of others, which collapsed (the store
    /// holds a set): for each applied update, the distinct statements in scope holding one of
    /// its old or new IRIs before it, less those holding one of its new IRIs after it. Counted
    /// from what the run did, not from the size of the store, which other clients may change
    /// meanwhile; only a client writing statements with the same IRIs while the update runs
    /// changes it. 0 in a dry run (not known without applying the updates); `None` when the
    /// store could not answer the counting query (HTTP 400: Virtuoso 7.2's SPARQL compiler
    /// fails on it), then not counted at all.
    pub duplicates_collapsed: Option<u64>,
    /// With a collapse: the equivalence classes gathered (of the store's equivalence statements
    /// and the pairs given), and their members.
    pub classes: u64,
    /// With a collapse: the members of the classes.
    pub class_members: u64,
    /// With a collapse: links from a class's representative to a member inserted (in a dry run,
    /// to insert); 0 on a store already collapsed.
    pub equivalence_links_inserted: u64,
    /// With a collapse: equivalence statements within a class removed, their members linked
    /// from the representative instead (in a dry run, to remove).
    pub equivalence_statements_removed: u64,
    /// Of those, reflexive statements dropped (`drop_reflexive`).
    pub reflexive_dropped: u64,
    /// With a snapshot: the statements replaced as read, rewritten (in a dry run, to replace);
    /// those with a blank node are rewritten by per-IRI updates, and not counted here.
    pub statements_replaced: u64,
    /// Update requests applied (in a dry run, printed).
    pub updates: u64,
    /// Old IRIs per update at the end of the run (or of the run so far): `--batch`, or the
    /// starting size for the store, made smaller after slow updates and timeouts.
    pub batch: u64,
    /// Updates that timed out and were sent again as two halves.
    pub updates_split: u64,
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
}

/// Hears what a run does, as it does it. Every method has a default that does nothing.
pub trait Observer {
    /// A claimed IRI is invalid (or cannot be written in SPARQL) and stays as it is.
    fn invalid(&mut self, iri: &str, reason: &dyn Display) {
        let _ = (iri, reason);
    }

    /// `old` is about to be rewritten to `canonical` (called just before the update of its
    /// batch is sent, so a record of it survives an interruption).
    fn rewriting(&mut self, old: &str, canonical: &Canonical<'_>) -> io::Result<()> {
        let _ = (old, canonical);
        Ok(())
    }

    /// `n` statements in scope hold an RDF 1.2 triple term, inside which nothing is rewritten.
    fn triple_terms(&mut self, n: u64) {
        let _ = n;
    }

    /// A dry run's update, which is not sent.
    fn would_send(&mut self, update: &str) -> io::Result<()> {
        let _ = update;
        Ok(())
    }

    /// How the run proceeds, for whoever watches it: the size of the updates changed, and why.
    fn notice(&mut self, message: &dyn Display) {
        let _ = message;
    }

    /// Every 10 000 candidates, and after each update.
    fn progress(&mut self, report: &StoreReport) {
        let _ = report;
    }

    /// A collapse gathered `classes`, before it changes anything (its classes over the limit
    /// are [`Equivalences::large_classes`]).
    fn classes(&mut self, classes: &Equivalences) {
        let _ = classes;
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
    /// What becomes of a canonical IRI (renamed), as in the file rewrite.
    mapping: IriMapping,
    /// The old IRIs of the rename table that no adapter's route leads to (`<…>`): the routed
    /// scan does not find them, so they are looked for by name.
    unrouted: Vec<String>,
    /// Identifier literals, rewritten as by `pidcanon rewrite --literals`.
    literals: Option<LiteralRewriter>,
    /// A collapse of equivalent IRIs, with the pairs given beforehand (one list per file).
    collapse: Option<(CollapseOptions, Vec<Vec<Pair>>)>,
    graphs: Graphs,
    links: Option<String>,
    /// `--batch`: old IRIs per update, at most; `None`: [`DEFAULT_BATCH`], or [`VIRTUOSO_BATCH`]
    /// on Virtuoso.
    batch: Option<usize>,
    page: Option<usize>,
    snapshot: bool,
    dry_run: bool,
}

/// The two passes: names of named graphs first, then subjects, predicates and objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    GraphNames,
    Terms,
}

impl Normalizer {
    /// A normalizer of the default graph, in batches of 1 000 IRIs (20 on Virtuoso), with one
    /// candidate query per pass.
    #[must_use]
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            mapping: IriMapping::new(),
            unrouted: Vec::new(),
            literals: None,
            collapse: None,
            graphs: Graphs::Default,
            links: None,
            batch: None,
            page: None,
            snapshot: false,
            dry_run: false,
        }
    }

    /// The registry whose adapters canonicalize the store's IRIs.
    #[must_use]
    pub fn registry(&self) -> &Registry {
        &self.registry
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
        let links = graph_iri(graph)?;
        if links == sparql::REGISTRY {
            return Err(StoreError::Config(format!(
                "{links} is where pidcanon marks the links graphs: record the links elsewhere"
            )));
        }
        self.links = Some(links);
        self.check_links()?;
        Ok(self)
    }

    /// Renames IRIs by `table` (read from a file by [`RenameTable::read`], as `pidcanon rewrite
    /// --rename` reads it, or made by [`RenameTable::from_iris`]): every IRI is canonicalized,
    /// then renamed, as in the file rewrite ([`IriMapping::with_rename`]). Old IRIs that no
    /// adapter claims are looked for by name (the scan for candidates finds only the IRIs an
    /// adapter may claim).
    pub fn with_rename(mut self, table: RenameTable) -> Self {
        let sparql = Sparql::new(Graphs::Default, self.registry.routes(), None);
        let mut unrouted: Vec<String> = table
            .olds()
            .filter(|old| !sparql.routed(old))
            .filter_map(iri)
            .collect();
        unrouted.sort_unstable();
        self.unrouted = unrouted;
        self.mapping = std::mem::take(&mut self.mapping).with_rename(table);
        self
    }

    /// Rewrites identifiers written as literals with `literals`, as `pidcanon rewrite
    /// --literals` does, after the IRIs (each subject's statements are one window of the
    /// rewriter); refuses links of literals (`--literal-links`), which `store` does not write.
    pub fn with_literals(mut self, literals: LiteralRewriter) -> Result<Self, StoreError> {
        if literals.options().link.is_some() {
            return Err(StoreError::Config(
                "links of identifier literals are not written by `store`".to_owned(),
            ));
        }
        self.literals = Some(literals);
        Ok(self)
    }

    /// Collapses the classes of equivalent IRIs onto one representative each, as `pidcanon
    /// rewrite --collapse` does: the classes of the equivalence statements in scope (of
    /// `options.predicates`) and of `pairs` (pairs given beforehand, one list per file, as
    /// [`read_pairs`](crate::equivalence::pairs::read_pairs) reads them), after canonicalizing and renaming.
    /// Each equivalence statement within a class becomes the links from the representative to
    /// the members it names (see docs/equivalence.md), and every member is rewritten to the
    /// representative elsewhere. A run whose classes are larger than `options.max_class` fails
    /// before changing anything ([`StoreError::LargeClasses`]) unless `options.collapse_large`.
    #[must_use]
    pub fn with_collapse(mut self, options: CollapseOptions, pairs: Vec<Vec<Pair>>) -> Self {
        self.collapse = Some((options, pairs));
        self
    }

    /// Old IRIs per update (at most 64 KiB of them, whatever `n`), on every store: without it,
    /// 1 000, or 20 on a store that says it is Virtuoso (its `Server` header). Either way, an
    /// update slower than 5 s makes the next ones half as big, and an update that times out is
    /// sent again as two halves (see docs/store.md).
    #[must_use]
    pub fn with_batch(mut self, n: usize) -> Self {
        self.batch = Some(n.max(1));
        self
    }

    /// Pages of `n` candidate IRIs, for stores that cap the rows of a response (Virtuoso's
    /// `ResultSetMaxRows`), instead of one query per pass: each page costs a scan and a sort of
    /// the candidates on the server.
    #[must_use]
    pub fn with_page(mut self, n: usize) -> Self {
        self.page = Some(n.max(1));
        self
    }

    /// Rewrites the subjects, predicates and objects from a snapshot of the statements in scope
    /// instead of a scan for candidate IRIs: one read of every statement, and each changed one
    /// replaced if the store still holds it, up to 2 000 an update (500 on Virtuoso; `n` of
    /// [`with_batch`](Self::with_batch)); statements with a blank node get the per-IRI updates
    /// of the scan. Faster on a large store (see docs/store.md, "The snapshot"). The graph names
    /// are still found by their scan. With [`with_page`](Self::with_page), the statements are
    /// read in pages too (unsorted: a store that caps its rows caps its sorts too), and a read
    /// whose pages do not hold the statements counted fails before any statement is replaced.
    #[must_use]
    pub fn with_snapshot(mut self) -> Self {
        self.snapshot = true;
        self
    }

    /// Send no update: give them to [`Observer::would_send`] instead.
    #[must_use]
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// The IRIs `mapping` changes that the scan for candidates does not find: the old IRIs of
    /// the rename table and the collapsed members that no adapter's route leads to (`<…>`).
    fn unrouted_of(&self, mapping: &IriMapping, sparql: &Sparql) -> Vec<String> {
        let mut unrouted = self.unrouted.clone();
        if let Some(classes) = mapping.equivalences() {
            unrouted.extend(
                classes
                    .collapsed()
                    .map(|(member, _)| member)
                    .filter(|member| !sparql.routed(member))
                    .filter_map(iri),
            );
            unrouted.sort_unstable();
            unrouted.dedup();
        }
        unrouted
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
        let (report, result) = self.run_with_report(client, observer);
        result.map(|()| report)
    }

    /// Normalizes the store behind `client`; the report of what was done, also when the run
    /// fails (then with the updates applied before the failure, and `statements_after` not
    /// counted), and how the run ended.
    pub fn run_with_report(
        &self,
        client: &Client,
        observer: &mut dyn Observer,
    ) -> (StoreReport, Result<(), StoreError>) {
        let started = Instant::now();
        let mut sparql = Sparql::new(
            self.graphs.clone(),
            self.registry.routes(),
            self.links.clone(),
        );
        // The report of a run that failed before its first update.
        let nothing_done = |client: &Client| StoreReport {
            duplicates_collapsed: Some(0),
            requests: client.requests(),
            retries: client.retries(),
            seconds: started.elapsed().as_secs_f64(),
            ..StoreReport::default()
        };
        let marked = match self.links_graphs(client) {
            Ok(marked) => marked,
            Err(e) => return (nothing_done(client), Err(e)),
        };
        sparql.exclude(marked.iter().cloned());
        let virtuoso = is_virtuoso(client);
        let start = match self.batch {
            Some(n) => n,
            None if virtuoso => VIRTUOSO_BATCH,
            None => DEFAULT_BATCH,
        };
        if virtuoso && self.batch.is_none() && !self.dry_run && self.snapshot {
            observer.notice(&format!(
                "the store is Virtuoso ({}): updates of at most {} statements (it compiles an \
                 update into at most 10 000 lines of SQL; --batch N to choose), and of {VIRTUOSO_BATCH} \
                 IRIs for the statements with a blank node",
                client.server().unwrap_or_default(),
                snapshot::SNAPSHOT_VIRTUOSO_BATCH
            ));
        } else if virtuoso && self.batch.is_none() && !self.dry_run {
            observer.notice(&format!(
                "the store is Virtuoso ({}): updates of at most {VIRTUOSO_BATCH} IRIs (its time \
                 to compile an update grows with the square of the operations in it; --batch N \
                 to choose)",
                client.server().unwrap_or_default()
            ));
        }
        if let Err(e) = self.graph_names_on(client, virtuoso, &mut sparql, observer) {
            return (nothing_done(client), Err(e));
        }
        let gathered = match &self.collapse {
            Some((options, pairs)) => {
                sparql.collapse(
                    &options
                        .predicates
                        .iter()
                        .filter_map(|p| iri(p))
                        .collect::<Vec<_>>(),
                );
                match self.gather((options, pairs), client, &sparql, observer) {
                    Ok(gathered) => Some(gathered),
                    Err(e) => return (nothing_done(client), Err(e)),
                }
            }
            None => None,
        };
        let (mapping, statements) = match &gathered {
            Some(gathered) => (&gathered.mapping, &gathered.statements[..]),
            None => (&self.mapping, &[][..]),
        };
        let mut run = Run {
            normalizer: self,
            mapping,
            unrouted: self.unrouted_of(mapping, &sparql),
            client,
            sparql: &sparql,
            observer,
            report: StoreReport {
                duplicates_collapsed: Some(0),
                ..StoreReport::default()
            },
            started,
            unsure: false,
            sizer: Sizer::new(start),
            by_predicate: None,
        };
        let result = run.all(&marked, statements);
        run.tally();
        let result = result.map_err(|e| run.partly_done(e));
        if result.is_err() {
            run.report.statements_after = 0;
        }
        (run.report, result)
    }

    /// With [`Graphs::All`], how the store's named graphs are read: on Virtuoso, whose default
    /// graph is the union of the named graphs, the named graphs only (but Virtuoso's own
    /// [`sparql::VIRTRDF`]); on a store that answers `GRAPH ?x { }` with an unbound `?x`
    /// (Virtuoso), the graph names from the graphs' statements. Says so to `observer`.
    fn graph_names_on(
        &self,
        client: &Client,
        virtuoso: bool,
        sparql: &mut Sparql,
        observer: &mut dyn Observer,
    ) -> Result<(), StoreError> {
        if self.graphs != Graphs::All {
            return Ok(());
        }
        if virtuoso {
            sparql.default_graph_is_union();
            sparql.exclude([sparql::VIRTRDF.to_owned()]);
            observer.notice(&format!(
                "the store is Virtuoso, whose default graph is the union of the named graphs: \
                 --all-graphs reads and rewrites every named graph but {} (Virtuoso's own), \
                 and so the default graph",
                sparql::VIRTRDF
            ));
        }
        let unbound = client
            .select(Sparql::empty_graph_probe())?
            .iter()
            .any(|row| !row.contains_key("x"));
        if unbound {
            sparql.find_graphs_by_statements();
            observer.notice(
                &"the store answers `GRAPH ?x { }` with an unbound ?x (as Virtuoso does): the \
                  names of the named graphs are found from their statements (`GRAPH ?x { ?s ?p \
                  ?o }`), which costs a scan of them; a named graph without statements is not \
                  found, and its name not normalized",
            );
        }
        Ok(())
    }

    /// The links graphs that earlier runs marked (`<…>`), refusing to run where they would not
    /// be left alone: one of them named with `--graph`, or a default graph that shows their
    /// statements (the union of the named graphs).
    fn links_graphs(&self, client: &Client) -> Result<Vec<String>, StoreError> {
        let graphs = |query: &str| -> Result<Vec<String>, StoreError> {
            Ok(client
                .select(query)?
                .into_iter()
                .filter_map(|mut row| row.remove("g"))
                .filter(|g| g.kind == "uri")
                .filter_map(|g| iri(&g.value))
                .collect())
        };
        let marked = graphs(&Sparql::marked_links_graphs())?;
        match &self.graphs {
            Graphs::Named(names) => {
                if let Some(name) = names.iter().find(|name| marked.contains(name)) {
                    return Err(StoreError::Config(format!(
                        "{name} is a links graph (marked by a run with --links: {name} {} true \
                         in the graph {}): it records the old spellings and is never \
                         rewritten; leave it out of --graph",
                        sparql::LINKS_MARK,
                        sparql::REGISTRY
                    )));
                }
                if names.iter().any(|name| name == sparql::REGISTRY) {
                    return Err(StoreError::Config(format!(
                        "{} is where pidcanon marks the links graphs, and is never rewritten; \
                         leave it out of --graph",
                        sparql::REGISTRY
                    )));
                }
            }
            // The default graph is not rewritten (see `graph_names_on`).
            Graphs::All if is_virtuoso(client) => {}
            Graphs::Default | Graphs::All => {
                let shown = graphs(&Sparql::marks_in_default_graph())?;
                if let Some(name) = shown.iter().find(|name| marked.contains(name)) {
                    return Err(StoreError::Config(format!(
                        "the default graph shows the statements of the links graph {name}: it \
                         is the union of the named graphs (as on Virtuoso), where rewriting it \
                         would rewrite the links; name the graphs to normalize with --graph"
                    )));
                }
            }
        }
        Ok(marked)
    }
}

impl Run<'_> {
    /// Everything a run does after finding the links graphs.
    fn all(
        &mut self,
        marked: &[String],
        statements: &[collapse::Statement],
    ) -> Result<(), StoreError> {
        let (normalizer, sparql) = (self.normalizer, self.sparql);
        if let Some(links) = &normalizer.links {
            // A links graph written before links graphs were marked: mark it now.
            if !normalizer.dry_run
                && !marked.contains(links)
                && self.client.ask(&Sparql::graph_holds_statements(links))?
            {
                self.client.update(&Sparql::mark_links(links))?;
            }
        }
        let run = self;
        // With a snapshot, from the counts by predicate that split its read.
        let by_predicate = match normalizer.snapshot {
            true => run.count_by_predicate()?,
            false => None,
        };
        run.report.statements_before = match by_predicate {
            Some(n) => n,
            None => run.count(&sparql.count())?,
        };
        // With a snapshot, counted as the statements are read.
        if !normalizer.snapshot {
            run.report.triple_terms = run.triple_terms()?;
            if run.report.triple_terms > 0 {
                run.observer.triple_terms(run.report.triple_terms);
            }
        }
        run.report.statements_counted = true;
        run.link_classes(statements)?;
        if normalizer.graphs == Graphs::All {
            run.pass(Pass::GraphNames)?;
        }
        if normalizer.snapshot {
            run.snapshot_terms()?;
        } else {
            run.pass(Pass::Terms)?;
        }
        run.literals()?;
        run.report.statements_after = if normalizer.dry_run {
            run.report.statements_before
        } else {
            run.count(&sparql.count())?
        };
        Ok(())
    }
}

/// The old IRIs of `batch` and its distinct new ones (several old spellings may have one), as
/// `<…>`.
fn iris_of(batch: &Batch) -> (Vec<String>, Vec<String>) {
    let olds = batch.iter().map(|r| format!("<{}>", r.old)).collect();
    let news: std::collections::BTreeSet<String> =
        batch.iter().map(|r| format!("<{}>", r.new)).collect();
    (olds, news.into_iter().collect())
}

/// Whether the store says it is Virtuoso (its `Server` header), once it answered a request.
fn is_virtuoso(client: &Client) -> bool {
    client
        .server()
        .is_some_and(|server| server.to_ascii_lowercase().starts_with("virtuoso"))
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
    /// What a canonical IRI becomes: renamed, then collapsed.
    mapping: &'a IriMapping,
    /// The IRIs to rewrite that no adapter's route leads to: the scan for candidates does not
    /// find them, so they are looked for by name (`<…>`).
    unrouted: Vec<String>,
    client: &'a Client,
    sparql: &'a Sparql,
    observer: &'a mut dyn Observer,
    report: StoreReport,
    started: Instant,
    /// An update was sent that may have been applied in part (it failed without a refusal).
    unsure: bool,
    /// How many old IRIs go in one update.
    sizer: Sizer,
    /// With a snapshot: the statements in scope counted by predicate (`<…>`), and the updates
    /// sent when they were counted.
    by_predicate: Option<(u64, Vec<(u64, String)>)>,
}

/// The size of the updates (old IRIs in one), as the store can take them: halved after an update
/// slower than [`SLOW_UPDATE`], or one that timed out (which also lowers the ceiling: a size that
/// timed out is never tried again); doubled, up to the ceiling, after [`GROW_AFTER`] fast ones.
#[derive(Debug)]
struct Sizer {
    size: usize,
    ceiling: usize,
    /// Full updates in a row faster than an eighth of [`SLOW_UPDATE`].
    fast: u32,
}

impl Sizer {
    fn new(start: usize) -> Self {
        let start = start.max(1);
        Self {
            size: start,
            ceiling: start,
            fast: 0,
        }
    }

    /// An update of `n` IRIs timed out: the halves, and every later update, hold at most `n / 2`.
    fn timed_out(&mut self, n: usize) {
        self.size = self.size.min(n / 2).max(1);
        self.ceiling = self.ceiling.min(self.size);
        self.fast = 0;
    }

    /// An update of `n` IRIs was applied in `took`; what changed, if the size did.
    fn applied(&mut self, n: usize, things: &str, took: Duration) -> Option<String> {
        if took > SLOW_UPDATE && n > 1 {
            self.fast = 0;
            let to = self.size.min(n / 2).max(1);
            if to == self.size {
                return None;
            }
            self.size = to;
            return Some(format!(
                "an update of {n} {things} took {:.1} s: updates of at most {to} {things} from \
                 now on",
                took.as_secs_f64()
            ));
        }
        if n < self.size || took * 8 >= SLOW_UPDATE || self.size >= self.ceiling {
            if took * 8 >= SLOW_UPDATE {
                self.fast = 0;
            }
            return None;
        }
        self.fast += 1;
        if self.fast < GROW_AFTER {
            return None;
        }
        self.fast = 0;
        let from = self.size;
        self.size = (from * 2).min(self.ceiling);
        Some(format!(
            "{GROW_AFTER} updates of {from} {things} took less than {:.3} s each: updates of at \
             most {} {things} from now on",
            (SLOW_UPDATE / 8).as_secs_f64(),
            self.size
        ))
    }
}

/// One IRI to rewrite.
#[derive(Debug)]
struct Rewrite {
    old: String,
    new: String,
    kind: Kind,
    /// `new` is the representative of the class `old` is collapsed into (not only its
    /// canonical or renamed form).
    collapsed: bool,
}

impl Rewrite {
    /// The rewrite as an update writes it.
    fn replacement(&self) -> Replacement {
        // Both IRIs were found writable by `examine`.
        Replacement {
            old: format!("<{}>", self.old),
            new: format!("<{}>", self.new),
            collapsed: self.collapsed,
        }
    }
}

/// Rewrites, found or to send in one update.
type Batch = Vec<Rewrite>;

/// What one thread of [`Run::scan_positions`] found.
#[derive(Debug, Default)]
struct Scanned {
    examined: u64,
    rewrites: Batch,
    invalid: Vec<(String, String)>,
}

/// What becomes of a candidate IRI.
enum Examined {
    Canonical,
    Rewrite(Rewrite),
    /// An invalid identifier, or one SPARQL cannot write, and why.
    Invalid(String),
}

/// The candidates of `query` read by `client`, each examined as it arrives.
fn scan(
    client: &Client,
    query: &str,
    normalizer: &Normalizer,
    mapping: &IriMapping,
) -> Result<Scanned, StoreError> {
    let mut scanned = Scanned::default();
    let cut = client.select_each(query, &mut |mut row| {
        if let Some(x) = row.remove("x") {
            scanned.examined += 1;
            match rewrite_of(normalizer, mapping, &x.value) {
                Examined::Canonical => {}
                Examined::Rewrite(rewrite) => scanned.rewrites.push(rewrite),
                Examined::Invalid(reason) => scanned.invalid.push((x.value, reason)),
            }
        }
        Ok(())
    })?;
    match cut {
        Some(rows) => Err(StoreError::Truncated {
            endpoint: client.query_endpoint().to_owned(),
            rows,
        }),
        None => Ok(scanned),
    }
}

/// The rewrite of one candidate, if it needs one: `<old>`, `<new>` and the kind. The candidate
/// is canonicalized by the adapter that claims it, then renamed and collapsed by `mapping`, as
/// the file rewrite does.
fn rewrite_of(normalizer: &Normalizer, mapping: &IriMapping, candidate: &str) -> Examined {
    let (canonical, kind) = match normalizer.registry.canonicalize_claimed(candidate) {
        Some(Ok(canonical)) => (canonical.iri, canonical.kind),
        Some(Err(e)) => return Examined::Invalid(e.to_string()),
        None => (Cow::Borrowed(candidate), Kind::Iri),
    };
    let renamed = mapping.renamed(&canonical).unwrap_or(&canonical);
    let new = mapping.target(&canonical).unwrap_or(renamed);
    if new == candidate {
        return Examined::Canonical;
    }
    if iri(candidate).is_none() || iri(new).is_none() {
        return Examined::Invalid("cannot be written in a SPARQL query".to_owned());
    }
    Examined::Rewrite(Rewrite {
        old: candidate.to_owned(),
        new: new.to_owned(),
        kind,
        collapsed: new != renamed,
    })
}

impl Run<'_> {
    fn count(&mut self, query: &str) -> Result<u64, StoreError> {
        let rows = self.client.select(query)?;
        rows.first()
            .and_then(|row| row.get("n"))
            .and_then(|n| n.value.parse().ok())
            .ok_or_else(|| StoreError::NotSparql {
                endpoint: self.client.query_endpoint().to_owned(),
                reason: "a COUNT query was answered without a count".to_owned(),
            })
    }

    /// Statements in scope whose object is a triple term; 0 if the store does not know
    /// `isTRIPLE` (answers 400: no RDF 1.2, so no triple terms).
    fn triple_terms(&mut self) -> Result<u64, StoreError> {
        match self.count(&self.sparql.count_triple_terms()) {
            Err(StoreError::Status { status: 400, .. }) => Ok(0),
            result => result,
        }
    }

    /// Finds the candidates of `pass` (in one query, or page by page) and rewrites the
    /// non-canonical ones in batches, after each query: no update is sent while a query's
    /// results are being read, so the store never has to write under an open read.
    fn pass(&mut self, pass: Pass) -> Result<(), StoreError> {
        let (client, sparql) = (self.client, self.sparql);
        let query = |page: Option<Page<'_>>| match pass {
            Pass::GraphNames => sparql.graph_candidates(page),
            Pass::Terms => sparql.term_candidates(page),
        };
        let mut found = Batch::new();
        let Some(limit) = self.normalizer.page else {
            match pass {
                Pass::Terms => self.scan_positions(&mut found)?,
                Pass::GraphNames => self.select_all(&query(None), &mut found)?,
            }
            self.apply_all(pass, found)?;
            return self.listed(pass);
        };
        let mut after: Option<String> = None;
        loop {
            let text = query(Some(Page {
                after: after.as_deref(),
                limit,
            }));
            let mut rows = 0;
            let mut last = None;
            let cut = client.select_each(&text, &mut |mut row| {
                rows += 1;
                last = row.get("x").map(|x| x.value.clone());
                self.candidate(row.remove("x"), &mut found)
            })?;
            if let Some(rows) = cut.filter(|_| rows < limit) {
                return Err(StoreError::Truncated {
                    endpoint: client.query_endpoint().to_owned(),
                    rows,
                });
            }
            self.apply_all(pass, std::mem::take(&mut found))?;
            if rows < limit {
                return self.listed(pass);
            }
            if last.is_none() || last == after {
                return Err(StoreError::NotSparql {
                    endpoint: client.query_endpoint().to_owned(),
                    reason: "the same page of results came back twice (LIMIT or FILTER ignored)"
                        .to_owned(),
                });
            }
            after = last;
        }
    }

    /// Finds the renamed IRIs that no adapter's route leads to (which the scan of `pass` does
    /// not find), by name, [`LISTED_BATCH`] at a time, and rewrites those the store holds.
    fn listed(&mut self, pass: Pass) -> Result<(), StoreError> {
        let sparql = self.sparql;
        let unrouted = std::mem::take(&mut self.unrouted);
        for olds in unrouted.chunks(LISTED_BATCH) {
            let olds: Vec<&str> = olds.iter().map(String::as_str).collect();
            let query = match pass {
                Pass::GraphNames => sparql.graph_names_among(&olds),
                Pass::Terms => sparql.terms_among(&olds),
            };
            let mut found = Batch::new();
            let applied = self
                .select_all(&query, &mut found)
                .and_then(|()| self.apply_all(pass, found));
            if let Err(e) = applied {
                self.unrouted = unrouted;
                return Err(e);
            }
        }
        self.unrouted = unrouted;
        Ok(())
    }

    /// The candidates of the three positions, asked at once on three connections (the store
    /// scans its statements for each, on as many cores as it has): each thread examines the
    /// candidates as they arrive and keeps only the rewrites and the invalid identifiers; an
    /// IRI found in several positions is rewritten once.
    fn scan_positions(&mut self, found: &mut Batch) -> Result<(), StoreError> {
        let (client, normalizer, mapping) = (self.client, self.normalizer, self.mapping);
        let queries = self.sparql.term_candidates_by_position();
        let scans: Vec<(Client, Result<Scanned, StoreError>)> = std::thread::scope(|scope| {
            let threads: Vec<_> = queries
                .iter()
                .map(|query| {
                    let fork = client.fork();
                    scope.spawn(move || {
                        let scanned = scan(&fork, query, normalizer, mapping);
                        (fork, scanned)
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|thread| thread.join().expect("a scan thread does not panic"))
                .collect()
        });
        let mut seen = std::collections::HashSet::new();
        let mut failed = None;
        for (fork, scanned) in scans {
            client.absorb(&fork);
            let scanned = match scanned {
                Ok(scanned) => scanned,
                Err(e) => {
                    failed.get_or_insert(e);
                    continue;
                }
            };
            self.report.iris_examined += scanned.examined;
            for (iri, reason) in scanned.invalid {
                if seen.insert(iri.clone()) {
                    self.report.invalid += 1;
                    self.observer.invalid(&iri, &reason);
                }
            }
            for rewrite in scanned.rewrites {
                if seen.insert(rewrite.old.clone()) {
                    found.push(rewrite);
                }
            }
        }
        self.tally();
        self.observer.progress(&self.report);
        failed.map_or(Ok(()), Err)
    }

    /// The candidates `?x` of every row of `query` into `found`; a result the store cut short
    /// is an error.
    fn select_all(&mut self, query: &str, found: &mut Batch) -> Result<(), StoreError> {
        let client = self.client;
        let cut =
            client.select_each(query, &mut |mut row| self.candidate(row.remove("x"), found))?;
        match cut {
            Some(rows) => Err(StoreError::Truncated {
                endpoint: client.query_endpoint().to_owned(),
                rows,
            }),
            None => Ok(()),
        }
    }

    /// Examines the candidate IRI of one row of results, and adds its rewrite to `found` if it
    /// needs one.
    fn candidate(&mut self, value: Option<Value>, found: &mut Batch) -> Result<(), StoreError> {
        let Some(value) = value else {
            return Ok(());
        };
        self.report.iris_examined += 1;
        if let Some(rewrite) = self.examine(&value.value) {
            found.push(rewrite);
        }
        if self.report.iris_examined % 10_000 == 0 {
            self.tally();
            self.observer.progress(&self.report);
        }
        Ok(())
    }

    /// The rewrite of one candidate, if it needs one (see [`rewrite_of`]); an invalid one is
    /// told to the observer.
    fn examine(&mut self, candidate: &str) -> Option<Rewrite> {
        match rewrite_of(self.normalizer, self.mapping, candidate) {
            Examined::Canonical => None,
            Examined::Rewrite(rewrite) => Some(rewrite),
            Examined::Invalid(reason) => {
                self.report.invalid += 1;
                self.observer.invalid(candidate, &reason);
                None
            }
        }
    }

    /// Applies `found` in batches of at most `--batch` IRIs and [`MAX_BATCH_BYTES`].
    fn apply_all(&mut self, pass: Pass, mut found: Batch) -> Result<(), StoreError> {
        if pass == Pass::Terms && found.iter().any(|r| r.collapsed) {
            found = self.held_apart_from_links(found)?;
        }
        let mut batch = Batch::new();
        let mut bytes = 0;
        for rewrite in found {
            bytes += rewrite.old.len() + rewrite.new.len();
            batch.push(rewrite);
            if batch.len() >= self.sizer.size || bytes >= MAX_BATCH_BYTES {
                self.apply(pass, &mut batch)?;
                bytes = 0;
            }
        }
        self.apply(pass, &mut batch)
    }

    /// `found` without the collapsed IRIs that the store holds only as the members of links from
    /// their representative, which stay (a store already collapsed holds nothing else of them).
    fn held_apart_from_links(&mut self, found: Batch) -> Result<Batch, StoreError> {
        let (collapsed, mut kept): (Batch, Batch) = found.into_iter().partition(|r| r.collapsed);
        let mut held = std::collections::HashSet::new();
        for chunk in collapsed.chunks(LISTED_BATCH) {
            let pairs: Vec<Replacement> = chunk.iter().map(Rewrite::replacement).collect();
            let cut = self.client.select_each(
                &self.sparql.held_apart_from_links(&pairs),
                &mut |mut row| {
                    if let Some(x) = row.remove("x") {
                        held.insert(x.value);
                    }
                    Ok(())
                },
            )?;
            if let Some(rows) = cut {
                return Err(StoreError::Truncated {
                    endpoint: self.client.query_endpoint().to_owned(),
                    rows,
                });
            }
        }
        kept.extend(collapsed.into_iter().filter(|r| held.contains(&r.old)));
        Ok(kept)
    }

    /// Sends (or, in a dry run, shows) the update of `batch`, and empties it.
    fn apply(&mut self, pass: Pass, batch: &mut Batch) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        for rewrite in batch.iter() {
            let canonical = Canonical::new(Cow::Borrowed(&rewrite.new), rewrite.kind);
            self.observer.rewriting(&rewrite.old, &canonical)?;
        }
        if self.normalizer.dry_run {
            let update = self.update_text(pass, batch);
            self.observer.would_send(&update)?;
            self.applied(pass, batch);
            return Ok(());
        }
        self.send(pass, std::mem::take(batch))
    }

    /// The update that rewrites `batch`.
    fn update_text(&self, pass: Pass, batch: &Batch) -> String {
        let pairs: Vec<Replacement> = batch.iter().map(Rewrite::replacement).collect();
        match pass {
            Pass::GraphNames => self.sparql.rewrite_graph_names(&pairs),
            Pass::Terms => self.sparql.rewrite_terms(&pairs),
        }
    }

    /// Sends the update of `batch`, checks it, and counts it; an update of more than one IRI
    /// that times out is not sent again as it was (it would time out again): it is sent in
    /// halves, and the later updates are made as small.
    fn send(&mut self, pass: Pass, mut batch: Batch) -> Result<(), StoreError> {
        let update = self.update_text(pass, &batch);
        let graph_names = pass == Pass::GraphNames;
        let (olds, news) = iris_of(&batch);
        let all: Vec<&str> = olds.iter().chain(&news).map(String::as_str).collect();
        let news: Vec<&str> = news.iter().map(String::as_str).collect();
        let held = match self.report.duplicates_collapsed {
            Some(_) => match self.count(&self.sparql.count_holding(&all, graph_names)) {
                Ok(held) => Some(held),
                // A store that cannot compile the query: duplicates are not counted.
                Err(StoreError::Status { status: 400, .. }) => {
                    self.report.duplicates_collapsed = None;
                    None
                }
                Err(e) => return Err(e),
            },
            None => None,
        };
        let started = Instant::now();
        let sent = self.send_update(&update, batch.len() > 1);
        match sent {
            Ok(()) => {}
            Err(StoreError::TimedOut { reason, .. }) if batch.len() > 1 => {
                self.split(batch.len(), "IRIs", started, &reason);
                // In pieces of the size of the moment, which a piece that times out makes
                // smaller again.
                while !batch.is_empty() {
                    let rest = batch.split_off(self.sizer.size.min(batch.len()));
                    self.send(pass, batch)?;
                    batch = rest;
                }
                return Ok(());
            }
            Err(e) => {
                self.unsure = !matches!(e, StoreError::Status { .. } | StoreError::Refused { .. });
                return Err(e);
            }
        }
        let took = started.elapsed();
        let after = self.check_applied(pass, &batch).and_then(|()| match held {
            Some(_) => self
                .count(&self.sparql.count_holding(&news, graph_names))
                .map(Some),
            None => Ok(None),
        });
        match after {
            Ok(after) => {
                if let (Some(collapsed), Some(held), Some(after)) =
                    (&mut self.report.duplicates_collapsed, held, after)
                {
                    *collapsed += held.saturating_sub(after);
                }
            }
            Err(e) => {
                // The update was answered with success: unless the check found it not
                // applied, the store holds it.
                self.unsure |= !matches!(e, StoreError::NotApplied { .. });
                return Err(e);
            }
        }
        if let Some(change) = self.sizer.applied(batch.len(), "IRIs", took) {
            self.observer.notice(&change);
        }
        self.applied(pass, &mut batch);
        Ok(())
    }

    /// Sends `update`; one that can be split in two (`splittable`) and times out is
    /// [`StoreError::TimedOut`] at once, to be sent again in halves rather than as it was.
    fn send_update(&self, update: &str, splittable: bool) -> Result<(), StoreError> {
        if splittable {
            self.client.update_or_time_out(update)
        } else {
            self.client.update(update)
        }
    }

    /// An update of `n` `things` (IRIs, literal statements), sent at `started`, timed out or was
    /// refused as too large (`reason`): the later ones, its pieces first, are made smaller, and
    /// the observer told.
    fn split(&mut self, n: usize, things: &str, started: Instant, reason: &str) {
        // The store may still apply it: the smaller updates sent instead are idempotent.
        self.unsure = true;
        self.sizer.timed_out(n);
        self.report.updates_split += 1;
        self.report.batch = self.sizer.size as u64;
        self.observer.notice(&format!(
            "an update of {n} {things} was too large for the store ({reason}, after {:.1} s): \
             sending it again in updates of at most {} {things}, as all the next ones",
            started.elapsed().as_secs_f64(),
            self.sizer.size
        ));
    }

    /// Counts the update of `batch` as applied (in a dry run, printed), and empties it.
    fn applied(&mut self, pass: Pass, batch: &mut Batch) {
        self.report.updates += 1;
        for Rewrite { kind, .. } in batch.drain(..) {
            *self.report.rewritten.entry(kind).or_default() += 1;
            if pass == Pass::GraphNames {
                self.report.graph_names_rewritten += 1;
            }
        }
        self.tally();
        self.observer.progress(&self.report);
    }

    /// Asks the store whether a sample of the batch's old IRIs is gone, as its update must have
    /// done: an endpoint may answer 200 without applying anything.
    fn check_applied(&mut self, pass: Pass, batch: &Batch) -> Result<(), StoreError> {
        let step = batch.len().div_ceil(CHECK_SAMPLE).max(1);
        let sample: Vec<Replacement> = batch
            .iter()
            .step_by(step)
            .map(Rewrite::replacement)
            .collect();
        let olds: Vec<&Replacement> = sample.iter().collect();
        let graph_names = pass == Pass::GraphNames;
        if !self
            .client
            .ask(&self.sparql.still_there(&olds, graph_names))?
        {
            return Ok(());
        }
        // Name them: one question each.
        let mut remaining = Vec::new();
        for old in &olds {
            if self
                .client
                .ask(&self.sparql.still_there(&[old], graph_names))?
            {
                remaining.push(
                    old.old
                        .trim_start_matches('<')
                        .trim_end_matches('>')
                        .to_owned(),
                );
            }
        }
        Err(StoreError::NotApplied {
            endpoint: self.client.update_endpoint().to_owned(),
            checked: olds.len(),
            remaining,
        })
    }

    /// `error`, saying that the store holds part of the rewrite when it may.
    fn partly_done(&self, error: StoreError) -> StoreError {
        if self.normalizer.dry_run
            || matches!(error, StoreError::Config(_))
            || (self.report.updates == 0 && !self.unsure)
        {
            return error;
        }
        StoreError::PartlyDone {
            applied: self.report.updates,
            error: Box::new(error),
        }
    }

    /// Brings the request counters and the time up to date.
    fn tally(&mut self) {
        self.report.batch = self.sizer.size as u64;
        self.report.requests = self.client.requests();
        self.report.retries = self.client.retries();
        self.report.seconds = self.started.elapsed().as_secs_f64();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAST: Duration = Duration::from_millis(100);

    #[test]
    fn a_timeout_halves_the_updates_and_lowers_the_ceiling() {
        let mut sizer = Sizer::new(100);
        sizer.timed_out(100);
        assert_eq!((sizer.size, sizer.ceiling), (50, 50));
        // A smaller piece of an update that timed out.
        sizer.timed_out(30);
        assert_eq!((sizer.size, sizer.ceiling), (15, 15));
        sizer.timed_out(1);
        assert_eq!(sizer.size, 1);
        // Fast updates do not grow past the ceiling.
        for _ in 0..10 {
            assert_eq!(sizer.applied(1, "IRIs", FAST), None);
        }
        assert_eq!(sizer.size, 1);
    }

    #[test]
    fn a_slow_update_halves_the_updates_and_fast_ones_grow_them_back() {
        let mut sizer = Sizer::new(1000);
        assert_eq!(sizer.applied(1000, "IRIs", SLOW_UPDATE / 2), None);
        let change = sizer
            .applied(1000, "IRIs", SLOW_UPDATE * 2)
            .expect("halved");
        assert!(
            change.starts_with("an update of 1000 IRIs took 10.0 s: updates of at most 500 IRIs"),
            "{change}"
        );
        // A smaller batch (the end of a pass) that was fast does not count.
        assert_eq!(sizer.applied(100, "IRIs", FAST), None);
        for _ in 1..GROW_AFTER {
            assert_eq!(sizer.applied(500, "IRIs", FAST), None);
        }
        // A middling one breaks the run of fast ones.
        assert_eq!(sizer.applied(500, "IRIs", SLOW_UPDATE / 2), None);
        for _ in 1..GROW_AFTER {
            assert_eq!(sizer.applied(500, "IRIs", FAST), None);
        }
        let grown = sizer.applied(500, "IRIs", FAST).expect("grown");
        assert!(
            grown.ends_with("updates of at most 1000 IRIs from now on"),
            "{grown}"
        );
        for _ in 0..GROW_AFTER {
            assert_eq!(sizer.applied(1000, "IRIs", FAST), None);
        }
        assert_eq!(sizer.size, 1000);
        // An update of one IRI cannot be made smaller.
        let mut one = Sizer::new(1);
        assert_eq!(one.applied(1, "IRIs", SLOW_UPDATE * 2), None);
    }
}

//! The terms pass of a [`Normalizer`](super::Normalizer) with
//! [`with_snapshot`](super::Normalizer::with_snapshot): the statements in scope are read once
//! (in two parts at once, their results read as they arrive), every IRI of every statement is
//! canonicalized, renamed and collapsed as the file rewrite does, and the changed statements are
//! replaced, many to an update, each only if the store still holds it. A statement that cannot be
//! written out in an update (a blank node, a triple term, an IRI SPARQL cannot write) has its
//! IRIs rewritten by the per-IRI updates of the scan instead.
//!
//! Where the scan costs a scan of the store per position on the server and one update operation
//! per old IRI, position and scope, the snapshot costs one read of the statements and one
//! operation per graph and update (see docs/store.md, "The snapshot").

use super::sparql::{Sparql, iri};
use super::terms::Term;
use super::{Batch, Examined, Normalizer, Rewrite, Run, Sizer, StoreError, rewrite_of};
use crate::equivalence::mapping::IriMapping;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Statements per update without `--batch` (about 250 bytes each, old and new: half a megabyte).
pub(super) const SNAPSHOT_BATCH: usize = 2000;

/// Statements per update without `--batch` on Virtuoso, which compiles an update into SQL of at
/// most 10 000 lines (`DELETE DATA` and `INSERT DATA` of 2 000 statements are more).
pub(super) const SNAPSHOT_VIRTUOSO_BATCH: usize = 500;

/// The most statements of an update asked about after it, to check that it was applied.
const CHECK_SAMPLE: usize = 16;

/// The statements are read in this many parts at once, on as many connections, each part the
/// statements of some of the predicates (the store looks them up in its predicate index and
/// writes the parts on as many cores as it has).
const PARTS: usize = 2;

/// With more distinct predicates than this, the statements are read in one query.
const MAX_PARTITIONED_PREDICATES: usize = 5000;

/// A statement the snapshot replaces: its graph (`<…>`, or the default graph), and the
/// statement as read and as rewritten (`s p o`, SPARQL text).
#[derive(Debug)]
struct Change {
    graph: Option<String>,
    old: String,
    new: String,
    /// The rewrites of its IRIs (indexes into [`Snapshot::rewrites`]): told, counted and linked
    /// with the first update that sends one of them.
    rewrites: Vec<usize>,
}

/// What the read of (a part of) the statements found.
#[derive(Debug, Default)]
struct Snapshot {
    changes: Vec<Change>,
    /// Every distinct rewrite, in the order found.
    rewrites: Vec<Rewrite>,
    /// Old IRI → its index in `rewrites`.
    index: HashMap<String, usize>,
    /// Old IRIs held by a changed statement that cannot be written out (a blank node, a triple
    /// term, an IRI SPARQL cannot write): rewritten by per-IRI updates.
    by_iri: BTreeSet<String>,
    /// Invalid identifiers, each once, and why.
    invalid: Vec<(String, String)>,
    invalid_seen: HashSet<String>,
}

/// What a reader found in its part of the statements, and how many it read.
type Part = (Snapshot, u64);

/// Some predicates (`<…>`) and the statements that have them.
type Predicates = (u64, Vec<String>);

/// What a reader of the statements needs: how IRIs are rewritten, and which links stay.
#[derive(Clone, Copy)]
struct Examiner<'a> {
    normalizer: &'a Normalizer,
    mapping: &'a IriMapping,
    sparql: &'a Sparql,
    /// IRIs examined, by every reader.
    examined: &'a AtomicU64,
    /// Statements whose object is a triple term, by every reader.
    triple_terms: &'a AtomicU64,
}

impl Run<'_> {
    /// Reads the statements in scope, and replaces those that change.
    pub(super) fn snapshot_terms(&mut self) -> Result<(), StoreError> {
        let Snapshot {
            changes,
            rewrites,
            by_iri,
            ..
        } = self.read_snapshot()?;
        // The IRIs rewritten by per-IRI updates are told, counted and linked there.
        let mut told: Vec<bool> = rewrites.iter().map(|r| by_iri.contains(&r.old)).collect();
        let start = match self.normalizer.batch {
            Some(n) => n,
            None if super::is_virtuoso(self.client) => SNAPSHOT_VIRTUOSO_BATCH,
            None => SNAPSHOT_BATCH,
        };
        let iris = std::mem::replace(&mut self.sizer, Sizer::new(start));
        let sent = self.send_changes(&changes, &rewrites, &mut told);
        self.sizer = iris;
        sent?;
        let per_iri: Batch = rewrites
            .into_iter()
            .filter(|r| by_iri.contains(&r.old))
            .collect();
        self.apply_all(super::Pass::Terms, per_iri)
    }

    /// The statements in scope, read in [`PARTS`] parts at once (each on a connection of its
    /// own, read by a thread of its own as they arrive); keeps those that change.
    fn read_snapshot(&mut self) -> Result<Snapshot, StoreError> {
        let (client, sparql) = (self.client, self.sparql);
        let (queries, counted) = match self.predicate_parts()? {
            Some(parts) => (
                parts
                    .iter()
                    .map(|(_, predicates)| sparql.statements(Some(predicates)))
                    .collect(),
                parts.iter().map(|(n, _)| n).sum(),
            ),
            // Counted again only for the check of pages.
            None if self.normalizer.page.is_some() => {
                (vec![sparql.statements(None)], self.count(&sparql.count())?)
            }
            None => (vec![sparql.statements(None)], 0),
        };
        let page = self.normalizer.page;
        // Virtuoso 7.2 writes a tab in a literal as it is in TSV results, which then cannot be
        // read: JSON results there.
        let tsv = !super::is_virtuoso(client);
        let (examined, triple_terms) = (AtomicU64::new(0), AtomicU64::new(0));
        let examiner = Examiner {
            normalizer: self.normalizer,
            mapping: self.mapping,
            sparql,
            examined: &examined,
            triple_terms: &triple_terms,
        };
        let parts: Vec<(super::Client, Result<Part, StoreError>)> = std::thread::scope(|scope| {
            let threads: Vec<_> = queries
                .iter()
                .map(|query| {
                    let fork = client.fork();
                    scope.spawn(move || {
                        let part = read_part(&fork, query, page, tsv, examiner);
                        (fork, part)
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|thread| thread.join().expect("a reading thread does not panic"))
                .collect()
        });
        self.report.iris_examined += examined.load(Ordering::Relaxed);
        // Counted here rather than by a query of their own (which costs another scan).
        self.report.triple_terms = triple_terms.load(Ordering::Relaxed);
        if self.report.triple_terms > 0 {
            self.observer.triple_terms(self.report.triple_terms);
        }
        let mut snapshot = Snapshot::default();
        let mut failed = None;
        let mut read = 0;
        for (fork, part) in parts {
            client.absorb(&fork);
            match part {
                Ok((part, rows)) => {
                    snapshot.merge(part);
                    read += rows;
                }
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
        // Pages are not sorted (a store that caps its rows also caps what it sorts): they hold
        // every statement once only if the store gives them in the same order each time and
        // nothing changed meanwhile.
        if page.is_some() && read != counted {
            return Err(StoreError::SnapshotMoved {
                endpoint: client.query_endpoint().to_owned(),
                read,
                counted,
            });
        }
        for (value, reason) in std::mem::take(&mut snapshot.invalid) {
            self.report.invalid += 1;
            self.observer.invalid(&value, &reason);
        }
        self.tally();
        self.observer.progress(&self.report);
        Ok(snapshot)
    }

    /// Counts the statements in scope by predicate (kept for the parts of the read, unless an
    /// update is sent before it); the total, or `None` if the store cannot say (a cut answer, a
    /// store that cannot group).
    pub(super) fn count_by_predicate(&mut self) -> Result<Option<u64>, StoreError> {
        let mut counted: Vec<(u64, String)> = Vec::new();
        let (mut writable, mut total) = (true, 0);
        let answer =
            self.client
                .select_each(&self.sparql.statements_by_predicate(), &mut |mut row| {
                    let (Some(p), Some(n)) = (row.remove("p"), row.remove("n")) else {
                        return Ok(());
                    };
                    let n = n.value.parse().unwrap_or(0);
                    total += n;
                    match iri(&p.value) {
                        Some(p) => counted.push((n, p)),
                        None => writable = false,
                    }
                    Ok(())
                });
        self.by_predicate = None;
        match answer {
            Ok(None) => {}
            Ok(Some(_)) | Err(StoreError::Status { status: 400, .. }) => return Ok(None),
            Err(e) => return Err(e),
        }
        if writable {
            self.by_predicate = Some((self.report.updates, counted));
        }
        Ok(Some(total))
    }

    /// The predicates in scope in [`PARTS`] parts of about as many statements (`<…>`), and the
    /// statements of each part; `None` when the statements are better read in one query: a store
    /// that cannot count them by predicate, too many predicates, or one SPARQL cannot write.
    fn predicate_parts(&mut self) -> Result<Option<Vec<Predicates>>, StoreError> {
        // Counted again if an update was sent since (the graph names, a collapse's links).
        if !matches!(&self.by_predicate, Some((updates, _)) if *updates == self.report.updates) {
            self.count_by_predicate()?;
        }
        let Some((_, counted)) = &self.by_predicate else {
            return Ok(None);
        };
        if counted.len() < PARTS || counted.len() > MAX_PARTITIONED_PREDICATES {
            return Ok(None);
        }
        // The largest first, each to the part with the fewest statements so far.
        let mut counted = counted.clone();
        counted.sort_unstable_by(|a, b| b.cmp(a));
        let mut parts: Vec<Predicates> = vec![(0, Vec::new()); PARTS];
        for (n, predicate) in counted {
            let part = parts
                .iter_mut()
                .min_by_key(|(total, _)| *total)
                .expect("PARTS > 0");
            part.0 += n;
            part.1.push(predicate);
        }
        Ok(Some(parts))
    }
}

/// `term` as an update writes it, or `None` if it cannot be written out (a blank node, a
/// triple term, an IRI SPARQL cannot write).
fn text(term: &Term<'_>) -> Option<String> {
    match term {
        Term::Iri(value) => iri(value),
        Term::Literal(text) => Some(text.to_string()),
        Term::Blank | Term::Triple | Term::Other => None,
    }
}

/// The statements of `query`, read by `client` as they arrive (in pages of `page`, if given;
/// as TSV results if `tsv`); keeps those that change. How many statements were read.
fn read_part(
    client: &super::Client,
    query: &str,
    page: Option<usize>,
    tsv: bool,
    examiner: Examiner<'_>,
) -> Result<Part, StoreError> {
    let mut snapshot = Snapshot::default();
    let mut read: u64 = 0;
    loop {
        let text = match page {
            Some(limit) => format!("{query} LIMIT {limit} OFFSET {read}"),
            None => query.to_owned(),
        };
        let mut rows = 0;
        let cut = client.select_terms_each(&text, &["s", "p", "o", "g"], tsv, &mut |terms| {
            rows += 1;
            if let [Some(s), Some(p), Some(o), g] = terms {
                if *o == Term::Triple {
                    examiner.triple_terms.fetch_add(1, Ordering::Relaxed);
                }
                snapshot.statement(examiner, [s, p, o], g.as_ref());
            }
            Ok(())
        })?;
        read += rows;
        match (cut, page) {
            // Cut at a cap below the page (or without pages).
            (Some(cap), Some(limit)) if rows < limit as u64 => {
                return Err(StoreError::SnapshotTruncated {
                    endpoint: client.query_endpoint().to_owned(),
                    rows: cap,
                });
            }
            (Some(cap), None) => {
                return Err(StoreError::SnapshotTruncated {
                    endpoint: client.query_endpoint().to_owned(),
                    rows: cap,
                });
            }
            (_, Some(limit)) if rows == limit as u64 => {}
            _ => return Ok((snapshot, read)),
        }
    }
}

impl Snapshot {
    /// Examines one statement: keeps it if it changes.
    fn statement(
        &mut self,
        examiner: Examiner<'_>,
        [s, p, o]: [&Term<'_>; 3],
        graph: Option<&Term<'_>>,
    ) {
        let subject = self.rewrite(examiner, s);
        let predicate = self.rewrite(examiner, p);
        let mut object = self.rewrite(examiner, o);
        if let Some(index) = object {
            // A link from a class's representative to a member stays as it is.
            let rewrite = &self.rewrites[index];
            fn rewritten<'a>(
                rewrites: &'a [Rewrite],
                term: &'a Term<'_>,
                rewrite: Option<usize>,
            ) -> Option<&'a str> {
                match (rewrite, term) {
                    (Some(index), _) => Some(rewrites[index].new.as_str()),
                    (None, Term::Iri(iri)) => Some(iri.as_ref()),
                    (None, _) => None,
                }
            }
            if rewrite.collapsed
                && rewritten(&self.rewrites, s, subject) == Some(rewrite.new.as_str())
                && rewritten(&self.rewrites, p, predicate)
                    .is_some_and(|p| examiner.sparql.is_equivalence(&format!("<{p}>")))
            {
                object = None;
            }
        }
        let rewrites: Vec<usize> = [subject, predicate, object].into_iter().flatten().collect();
        if rewrites.is_empty() {
            return;
        }
        let graph = match graph {
            None => Some(None),
            Some(Term::Iri(g)) => iri(g).map(Some),
            Some(_) => None,
        };
        let (Some(graph), Some(s_old), Some(p_old), Some(o_old)) =
            (graph, text(s), text(p), text(o))
        else {
            for index in rewrites {
                self.by_iri.insert(self.rewrites[index].old.clone());
            }
            return;
        };
        let new = |rewrite: Option<usize>, old: &str| match rewrite {
            Some(index) => format!("<{}>", self.rewrites[index].new),
            None => old.to_owned(),
        };
        let change = Change {
            graph,
            new: format!(
                "{} {} {}",
                new(subject, &s_old),
                new(predicate, &p_old),
                new(object, &o_old)
            ),
            old: format!("{s_old} {p_old} {o_old}"),
            rewrites,
        };
        self.changes.push(change);
    }

    /// The rewrite of `term` if it is an IRI that changes (recorded; an invalid one is
    /// recorded once): an index into `rewrites`.
    fn rewrite(&mut self, examiner: Examiner<'_>, term: &Term<'_>) -> Option<usize> {
        let Term::Iri(value) = term else {
            return None;
        };
        examiner.examined.fetch_add(1, Ordering::Relaxed);
        if let Some(&index) = self.index.get(value.as_ref()) {
            return Some(index);
        }
        match rewrite_of(examiner.normalizer, examiner.mapping, value) {
            Examined::Canonical => None,
            Examined::Rewrite(rewrite) => Some(self.push(rewrite)),
            Examined::Invalid(reason) => {
                if self.invalid_seen.insert(value.to_string()) {
                    self.invalid.push((value.to_string(), reason));
                }
                None
            }
        }
    }

    /// Records `rewrite`; its index.
    fn push(&mut self, rewrite: Rewrite) -> usize {
        let index = self.rewrites.len();
        self.index.insert(rewrite.old.clone(), index);
        self.rewrites.push(rewrite);
        index
    }

    /// Adds what another part found.
    fn merge(&mut self, part: Snapshot) {
        let moved: Vec<usize> = part
            .rewrites
            .into_iter()
            .map(|rewrite| match self.index.get(&rewrite.old) {
                Some(&index) => index,
                None => self.push(rewrite),
            })
            .collect();
        self.changes
            .extend(part.changes.into_iter().map(|mut change| {
                for index in &mut change.rewrites {
                    *index = moved[*index];
                }
                change
            }));
        self.by_iri.extend(part.by_iri);
        for (value, reason) in part.invalid {
            if self.invalid_seen.insert(value.clone()) {
                self.invalid.push((value, reason));
            }
        }
    }
}

impl Run<'_> {
    /// Sends `changes` in updates of the size of the moment (statements per update, see
    /// [`Sizer`]), each checked; the rewrites an update is the first to send (`told` false) are
    /// told to the observer, counted and linked with it.
    fn send_changes(
        &mut self,
        changes: &[Change],
        rewrites: &[Rewrite],
        told: &mut [bool],
    ) -> Result<(), StoreError> {
        let mut rest = changes;
        while !rest.is_empty() {
            let chunk = &rest[..self.sizer.size.min(rest.len())];
            let mut fresh: Vec<usize> = chunk
                .iter()
                .flat_map(|change| change.rewrites.iter().copied())
                .filter(|&index| !told[index])
                .collect();
            fresh.sort_unstable();
            fresh.dedup();
            let links: Vec<_> = fresh.iter().map(|&i| rewrites[i].replacement()).collect();
            let olds: Vec<(Option<&str>, String)> = chunk
                .iter()
                .map(|c| (c.graph.as_deref(), c.old.clone()))
                .collect();
            let mut news: Vec<(Option<&str>, String)> = chunk
                .iter()
                .map(|c| (c.graph.as_deref(), c.new.clone()))
                .collect();
            news.sort_unstable();
            news.dedup();
            let pairs: Vec<(Option<&str>, &str, &str)> = chunk
                .iter()
                .map(|c| (c.graph.as_deref(), c.old.as_str(), c.new.as_str()))
                .collect();
            let update = self.sparql.replace_statements(&links, &pairs);
            if self.normalizer.dry_run {
                self.observer.would_send(&update)?;
            } else {
                let started = Instant::now();
                let present = self.present(&news)?;
                match self.send_update(&update, chunk.len() > 1) {
                    Ok(()) => {}
                    Err(StoreError::TimedOut { reason, .. }) if chunk.len() > 1 => {
                        self.split(chunk.len(), "statements", started, &reason);
                        continue;
                    }
                    // Virtuoso: "SP031: … The length of generated SQL text has exceeded 10000
                    // lines of code".
                    Err(StoreError::Status {
                        status: 400, body, ..
                    }) if chunk.len() > 1 && body.contains("has exceeded") => {
                        self.split(chunk.len(), "statements", started, &body);
                        continue;
                    }
                    Err(e) => {
                        self.unsure |=
                            !matches!(e, StoreError::Status { .. } | StoreError::Refused { .. });
                        return Err(e);
                    }
                }
                let took = started.elapsed();
                if let Err(e) = self.check_replaced(&olds) {
                    self.unsure |= !matches!(e, StoreError::StatementsStillThere { .. });
                    return Err(e);
                }
                if let (Some(collapsed), Some(present)) =
                    (&mut self.report.duplicates_collapsed, present)
                {
                    // The statements deleted, less the new ones the update added.
                    let added = news.len() as u64 - present;
                    *collapsed += (olds.len() as u64).saturating_sub(added);
                }
                if let Some(change) = self.sizer.applied(chunk.len(), "statements", took) {
                    self.observer.notice(&change);
                }
            }
            for &index in &fresh {
                told[index] = true;
                let rewrite = &rewrites[index];
                let canonical =
                    crate::Canonical::new(std::borrow::Cow::Borrowed(&rewrite.new), rewrite.kind);
                self.observer.rewriting(&rewrite.old, &canonical)?;
                *self.report.rewritten.entry(rewrite.kind).or_default() += 1;
            }
            self.report.updates += 1;
            self.report.statements_replaced += chunk.len() as u64;
            self.tally();
            self.observer.progress(&self.report);
            rest = &rest[chunk.len()..];
        }
        Ok(())
    }

    /// How many of `statements` the store holds (`None` once a store could not answer it: the
    /// duplicates are then not counted).
    fn present(
        &mut self,
        statements: &[(Option<&str>, String)],
    ) -> Result<Option<u64>, StoreError> {
        if self.report.duplicates_collapsed.is_none() {
            return Ok(None);
        }
        match self.count(&Sparql::count_statements(statements)) {
            Ok(n) => Ok(Some(n)),
            // A store that cannot compile the query: duplicates are not counted.
            Err(StoreError::Status { status: 400, .. }) => {
                self.report.duplicates_collapsed = None;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Asks the store whether a sample of the statements an update deleted is still there: an
    /// endpoint may answer 200 without applying anything.
    fn check_replaced(&mut self, olds: &[(Option<&str>, String)]) -> Result<(), StoreError> {
        let step = olds.len().div_ceil(CHECK_SAMPLE).max(1);
        let sample: Vec<(Option<&str>, String)> = olds.iter().step_by(step).cloned().collect();
        if !self.client.ask(&Sparql::any_statement(&sample))? {
            return Ok(());
        }
        let mut remaining = Vec::new();
        for statement in &sample {
            if self
                .client
                .ask(&Sparql::any_statement(std::slice::from_ref(statement)))?
            {
                remaining.push(match statement.0 {
                    Some(graph) => format!("{} in {graph}", statement.1),
                    None => statement.1.clone(),
                });
            }
        }
        Err(StoreError::StatementsStillThere {
            endpoint: self.client.update_endpoint().to_owned(),
            checked: sample.len(),
            remaining,
        })
    }
}

//! The terms pass of a [`Normalizer`](super::Normalizer) with
//! [`with_snapshot`](super::Normalizer::with_snapshot): the statements in scope are read once
//! (one `SELECT`, its results read as they arrive), every IRI of every statement is
//! canonicalized, renamed and collapsed as the file rewrite does, and each changed statement is
//! replaced as it was read with `DELETE DATA` / `INSERT DATA`, many to an update. A statement
//! that cannot be written out in an update (a blank node, a triple term, an IRI SPARQL cannot
//! write) has its IRIs rewritten by the per-IRI updates of the scan instead.
//!
//! Where the scan costs a scan of the store per position on the server and one update operation
//! per old IRI, position and scope, the snapshot costs one read of the statements and one
//! operation per update; but an update replaces a statement as it was when read: a statement
//! that another client deletes between the read and the update comes back in its canonical
//! spelling (see docs/store.md, "The snapshot").

use super::client::Value;
use super::sparql::{Sparql, iri};
use super::{Batch, Examined, Rewrite, Run, Sizer, StoreError, rewrite_of};
use oxrdf::{Literal, NamedNode};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Instant;

/// Statements per update without `--batch` (about 250 bytes each, old and new: half a megabyte).
pub(super) const SNAPSHOT_BATCH: usize = 2000;

/// The most statements of an update asked about after it, to check that it was applied.
const CHECK_SAMPLE: usize = 16;

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

/// What the read of the statements found.
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
    /// Invalid identifiers already told.
    invalid: HashSet<String>,
}

/// A term of a row as an update writes it, and what it becomes.
struct Term {
    /// SPARQL text, or `None` if it cannot be written out (blank node, triple term, IRI with a
    /// character SPARQL cannot write).
    text: Option<String>,
    /// The rewrite of an IRI that changes (index into [`Snapshot::rewrites`]).
    rewrite: Option<usize>,
}

impl Run<'_> {
    /// Reads the statements in scope, and replaces those that change.
    pub(super) fn snapshot_terms(&mut self) -> Result<(), StoreError> {
        let snapshot = self.read_snapshot()?;
        let Snapshot {
            changes,
            rewrites,
            by_iri,
            ..
        } = snapshot;
        // The IRIs rewritten by per-IRI updates are told, counted and linked there.
        let mut told: Vec<bool> = rewrites.iter().map(|r| by_iri.contains(&r.old)).collect();
        let start = self.normalizer.batch.unwrap_or(SNAPSHOT_BATCH);
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

    /// The statements in scope, read as they arrive; keeps those that change.
    fn read_snapshot(&mut self) -> Result<Snapshot, StoreError> {
        let (client, sparql) = (self.client, self.sparql);
        let mut snapshot = Snapshot::default();
        let mut statements: u64 = 0;
        let cut = client.select_each(&sparql.statements(), &mut |mut row| {
            let (Some(s), Some(p), Some(o)) = (row.remove("s"), row.remove("p"), row.remove("o"))
            else {
                return Ok(());
            };
            let graph = row.remove("g");
            self.statement(&mut snapshot, &s, &p, &o, graph.as_ref());
            statements += 1;
            if statements % 100_000 == 0 {
                self.tally();
                self.observer.progress(&self.report);
            }
            Ok(())
        })?;
        if let Some(rows) = cut {
            return Err(StoreError::SnapshotTruncated {
                endpoint: client.query_endpoint().to_owned(),
                rows,
            });
        }
        self.tally();
        self.observer.progress(&self.report);
        Ok(snapshot)
    }

    /// Examines one statement of the snapshot: keeps it if it changes.
    fn statement(
        &mut self,
        snapshot: &mut Snapshot,
        s: &Value,
        p: &Value,
        o: &Value,
        graph: Option<&Value>,
    ) {
        let subject = self.term(snapshot, s);
        let predicate = self.term(snapshot, p);
        let mut object = self.term(snapshot, o);
        let rewritten = |term: &Term, value: &Value| match term.rewrite {
            Some(index) => snapshot.rewrites[index].new.clone(),
            None => value.value.clone(),
        };
        if let Some(index) = object.rewrite {
            // A link from a class's representative to a member stays as it is.
            let rewrite = &snapshot.rewrites[index];
            if rewrite.collapsed
                && s.kind == "uri"
                && rewritten(&subject, s) == rewrite.new
                && self
                    .sparql
                    .is_equivalence(&format!("<{}>", rewritten(&predicate, p)))
            {
                object.rewrite = None;
            }
        }
        let terms = [&subject, &predicate, &object];
        let rewrites: Vec<usize> = terms.iter().filter_map(|t| t.rewrite).collect();
        if rewrites.is_empty() {
            return;
        }
        let graph = match graph {
            None => Some(None),
            Some(g) if g.kind == "uri" => iri(&g.value).map(Some),
            Some(_) => None,
        };
        let (Some(graph), Some(s_old), Some(p_old), Some(o_old)) =
            (graph, &subject.text, &predicate.text, &object.text)
        else {
            for index in rewrites {
                snapshot.by_iri.insert(snapshot.rewrites[index].old.clone());
            }
            return;
        };
        let new = |term: &Term, old: &str| match term.rewrite {
            Some(index) => format!("<{}>", snapshot.rewrites[index].new),
            None => old.to_owned(),
        };
        let change = Change {
            graph,
            old: format!("{s_old} {p_old} {o_old}"),
            new: format!(
                "{} {} {}",
                new(&subject, s_old),
                new(&predicate, p_old),
                new(&object, o_old)
            ),
            rewrites,
        };
        snapshot.changes.push(change);
    }

    /// One term of a statement: how an update writes it, and its rewrite if it is an IRI that
    /// changes (recorded in `snapshot`; an invalid one is told once).
    fn term(&mut self, snapshot: &mut Snapshot, value: &Value) -> Term {
        match value.kind.as_str() {
            "uri" => {
                self.report.iris_examined += 1;
                if let Some(&index) = snapshot.index.get(&value.value) {
                    return Term {
                        text: iri(&value.value),
                        rewrite: Some(index),
                    };
                }
                let rewrite = match rewrite_of(self.normalizer, self.mapping, &value.value) {
                    Examined::Canonical => None,
                    Examined::Rewrite(rewrite) => {
                        let index = snapshot.rewrites.len();
                        snapshot.index.insert(rewrite.old.clone(), index);
                        snapshot.rewrites.push(rewrite);
                        Some(index)
                    }
                    Examined::Invalid(reason) => {
                        if snapshot.invalid.insert(value.value.clone()) {
                            self.report.invalid += 1;
                            self.observer.invalid(&value.value, &reason);
                        }
                        None
                    }
                };
                Term {
                    text: iri(&value.value),
                    rewrite,
                }
            }
            "literal" | "typed-literal" => {
                let literal = match (&value.lang, &value.datatype) {
                    (Some(lang), _) => {
                        Literal::new_language_tagged_literal_unchecked(&value.value, lang)
                    }
                    (None, Some(datatype)) => Literal::new_typed_literal(
                        &value.value,
                        NamedNode::new_unchecked(datatype.as_str()),
                    ),
                    (None, None) => Literal::new_simple_literal(&value.value),
                };
                let writable = match &value.datatype {
                    Some(datatype) => iri(datatype).is_some(),
                    None => true,
                };
                Term {
                    text: writable.then(|| literal.to_string()),
                    rewrite: None,
                }
            }
            // A blank node, a triple term.
            _ => Term {
                text: None,
                rewrite: None,
            },
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
            let update = self.sparql.replace_statements(&links, &olds, &news);
            if self.normalizer.dry_run {
                self.observer.would_send(&update)?;
            } else {
                let started = Instant::now();
                let present = self.present(&news)?;
                let sent = if chunk.len() > 1 {
                    self.client.update_or_time_out(&update)
                } else {
                    self.client.update(&update)
                };
                match sent {
                    Ok(()) => {}
                    Err(StoreError::TimedOut { reason, .. }) if chunk.len() > 1 => {
                        self.split(chunk.len(), "statements", started, &reason);
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

//! The collapse of a [`Normalizer`] with [`with_collapse`](Normalizer::with_collapse): the
//! equivalence classes of the store's own equivalence statements (and of pairs given
//! beforehand), gathered with the [`Collector`](crate::collapse::Collector) of `pidcanon rewrite
//! --collapse`, and the equivalence statements written as that rewrite writes them.
//!
//! Before the IRI passes, every equivalence statement in scope between two members of one
//! collapsed class is replaced by the links from the class's representative, `<rep> P
//! <member>`, in the statement's graph: the links are inserted first, then the statements that
//! are not links are deleted, so that the classes gathered again after an interruption are the
//! same. The IRI passes then rewrite every member to its representative, leaving the links'
//! members as they are (see [`Sparql::held_apart_from_links`]). A second run gathers the same
//! classes from the links, finds every link in place, and changes nothing.

use super::sparql::{Sparql, iri};
use super::{Normalizer, Observer, Run, StoreError};
use crate::collapse::CollapseOptions;
use crate::equivalence::mapping::{EquivalenceStatement, IriMapping};
use crate::equivalence::pairs::Pair;
use oxrdf::{GraphName, NamedNode, Quad};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// One equivalence statement between two IRIs in scope, as the store holds it.
#[derive(Debug)]
pub(super) struct Statement {
    /// `<…>`, or `None` for the default graph.
    graph: Option<String>,
    subject: String,
    predicate: String,
    object: String,
}

/// What the collapse gathered before the run changes anything.
#[derive(Debug)]
pub(super) struct Gathered {
    /// The rename table, then the classes.
    pub(super) mapping: IriMapping,
    /// The equivalence statements in scope.
    pub(super) statements: Vec<Statement>,
}

/// A statement to insert or delete: its graph (`<…>`) and `<s> <p> <o>`.
type Data = (Option<String>, String);

impl Normalizer {
    /// Gathers the classes of the equivalence statements in scope and of `pairs` (numbered
    /// from 1 in the origins of the joins; the store is 0), tells `observer`, and refuses
    /// classes over the limit unless `options` collapses them.
    pub(super) fn gather(
        &self,
        (options, pairs): (&CollapseOptions, &[Vec<Pair>]),
        client: &super::Client,
        sparql: &Sparql,
        observer: &mut dyn Observer,
    ) -> Result<Gathered, StoreError> {
        let rename = self.mapping.rename_table();
        let mut collector = options.collector(&self.registry, rename);
        let mut statements = Vec::new();
        let mut failed = None;
        let cut = client.select_each(&sparql.equivalence_statements(), &mut |mut row| {
            let (Some(s), Some(p), Some(o)) = (row.remove("s"), row.remove("p"), row.remove("o"))
            else {
                return Ok(());
            };
            let graph = row.remove("g").map(|g| g.value);
            let quad = Quad::new(
                NamedNode::new_unchecked(s.value.clone()),
                NamedNode::new_unchecked(p.value.clone()),
                NamedNode::new_unchecked(o.value.clone()),
                graph.clone().map_or(GraphName::DefaultGraph, |g| {
                    NamedNode::new_unchecked(g).into()
                }),
            );
            if failed.is_none()
                && let Err(e) = collector.add_statement(quad, 0)
            {
                failed = Some(e);
            }
            statements.push(Statement {
                graph,
                subject: s.value,
                predicate: p.value,
                object: o.value,
            });
            Ok(())
        })?;
        if let Some(rows) = cut {
            return Err(StoreError::Truncated {
                endpoint: client.query_endpoint().to_owned(),
                rows,
            });
        }
        let too_many = |e: &dyn std::fmt::Display| StoreError::Config(e.to_string());
        if let Some(e) = failed {
            return Err(too_many(&e));
        }
        for (i, file) in pairs.iter().enumerate() {
            collector
                .add_pairs(file, i as u32 + 1)
                .map_err(|e| too_many(&e))?;
        }
        collector.end_input(0).map_err(|e| too_many(&e))?;
        let equivalences = options.finish(collector);
        observer.classes(&equivalences);
        let large = equivalences.large_classes().len();
        if large > 0 && !options.collapse_large {
            return Err(StoreError::LargeClasses {
                classes: large,
                max_class: options.max_class,
            });
        }
        Ok(Gathered {
            mapping: options.mapping(rename.cloned(), equivalences),
            statements,
        })
    }
}

impl Run<'_> {
    /// Replaces the equivalence statements within a collapsed class by the links from its
    /// representative: inserts the links that are not there yet, then deletes the statements
    /// that are not links.
    pub(super) fn link_classes(&mut self, statements: &[Statement]) -> Result<(), StoreError> {
        let mapping = self.mapping;
        let Some(classes) = mapping.equivalences() else {
            return Ok(());
        };
        self.report.classes = classes.classes() as u64;
        self.report.class_members = classes.members() as u64;
        let mut links: BTreeSet<Data> = BTreeSet::new();
        let mut replaced: Vec<Data> = Vec::new();
        for statement in statements {
            let graph = match statement.graph.as_deref().map(iri) {
                Some(None) => continue,
                Some(Some(graph)) => Some(graph),
                None => None,
            };
            let (Some(subject), Some(object)) = (
                self.mapped_side(&statement.subject),
                self.mapped_side(&statement.object),
            ) else {
                // An invalid identifier: not an equivalence; the IRI passes report it.
                continue;
            };
            let Some(predicate) = iri(&statement.predicate) else {
                continue;
            };
            let what = mapping.equivalence_statement(&subject, &object);
            for member in what.linked() {
                let representative = classes.iri(classes.representative_of(member));
                if let (Some(rep), Some(member)) = (iri(representative), iri(classes.iri(member))) {
                    links.insert((graph.clone(), format!("{rep} {predicate} {member}")));
                }
            }
            if what.is_written() {
                continue;
            }
            if let (Some(s), Some(o)) = (iri(&statement.subject), iri(&statement.object)) {
                if matches!(what, EquivalenceStatement::Dropped) {
                    self.report.reflexive_dropped += 1;
                }
                replaced.push((graph, format!("{s} {predicate} {o}")));
            }
        }
        let held: BTreeSet<&Data> = replaced.iter().collect();
        let insert: Vec<&Data> = links.iter().filter(|link| !held.contains(link)).collect();
        let delete: Vec<&Data> = replaced.iter().filter(|s| !links.contains(*s)).collect();
        self.report.equivalence_links_inserted = insert.len() as u64;
        self.report.equivalence_statements_removed = delete.len() as u64;
        for batch in insert.chunks(self.sizer.size.max(1)) {
            self.send_data("INSERT", batch)?;
        }
        for batch in delete.chunks(self.sizer.size.max(1)) {
            self.send_data("DELETE", batch)?;
        }
        Ok(())
    }

    /// `iri` canonicalized, renamed, and not collapsed (the side of an equivalence statement);
    /// `None` if it is an invalid identifier.
    fn mapped_side<'i>(&self, iri: &'i str) -> Option<Cow<'i, str>> {
        self.mapping
            .equivalence_side(&self.normalizer.registry, iri)
    }

    /// Sends one `INSERT DATA` or `DELETE DATA` of `batch` (in a dry run, shows it); checks
    /// that the statements deleted are gone.
    fn send_data(&mut self, operation: &str, batch: &[&Data]) -> Result<(), StoreError> {
        let statements: Vec<(Option<&str>, String)> = batch
            .iter()
            .map(|(graph, statement)| (graph.as_deref(), statement.clone()))
            .collect();
        let update = Sparql::data(operation, &statements);
        if self.normalizer.dry_run {
            self.observer.would_send(&update)?;
        } else {
            if let Err(e) = self.client.update(&update) {
                self.unsure = !matches!(e, StoreError::Status { .. } | StoreError::Refused { .. });
                return Err(e);
            }
            // Deleted: none is left. Inserted: the first is there.
            let deleted = operation == "DELETE";
            let sample = if deleted {
                &statements[..]
            } else {
                &statements[..1]
            };
            if self.client.ask(&Sparql::any_statement(sample))? == deleted {
                return Err(StoreError::StatementsNotApplied {
                    endpoint: self.client.update_endpoint().to_owned(),
                    operation: operation.to_ascii_lowercase(),
                    statements: statements.len(),
                });
            }
        }
        self.report.updates += 1;
        self.tally();
        self.observer.progress(&self.report);
        Ok(())
    }
}

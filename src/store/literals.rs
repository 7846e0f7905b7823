//! The literal pass of a [`Normalizer`](super::Normalizer) with
//! [`with_literals`](super::Normalizer::with_literals): identifiers written as literals, rewritten
//! by the [`LiteralRewriter`] of `pidcanon rewrite --literals`.
//!
//! One `SELECT` finds the literal statements in scope of the chosen predicates and the statements
//! that say which scheme a node's identifier is of (`schema:propertyID`,
//! `datacite:usesIdentifierScheme`); each subject's statements are one window of the rewriter
//! (where the file rewrite reads a window of neighbouring statements). A rewritten statement
//! whose subject is an IRI is replaced with `DELETE DATA` / `INSERT DATA`; one whose subject is a
//! blank node cannot be named in an update, so the literal is replaced under its predicate for
//! every blank node of its graph — only where every blank node holding it is rewritten alike,
//! else it is left unchanged and reported.

use super::sparql::{Sparql, iri};
use super::{Run, StoreError};
use crate::equivalence::literals::{LiteralEvent, LiteralStats, Predicates, SCHEME_PREDICATES};
use oxrdf::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

/// The predicates whose bare literals are read by the scheme another statement of their node
/// names (as [`crate::equivalence::literals`] reads them).
const NODE_HINTED: [&str; 3] = [
    "http://schema.org/value",
    "https://schema.org/value",
    "http://www.essepuntato.it/2010/06/literalreification/hasLiteralValue",
];

/// The statements that name the scheme of their node's identifier.
const HINTS: [&str; 3] = [
    "<http://schema.org/propertyID>",
    "<https://schema.org/propertyID>",
    "<http://purl.org/spar/datacite/usesIdentifierScheme>",
];

/// A blank node literal: its graph (`<…>`), predicate (`<…>`) and literal (SPARQL text).
type BlankKey = (Option<String>, String, String);

impl Run<'_> {
    /// Finds and rewrites the identifier literals in scope.
    pub(super) fn literals(&mut self) -> Result<(), StoreError> {
        let Some(rewriter) = &self.normalizer.literals else {
            return Ok(());
        };
        let registry = &self.normalizer.registry;
        let predicates: Option<Vec<String>> = match &rewriter.options().predicates {
            Predicates::All => None,
            Predicates::Only(list) => {
                let mut list: Vec<String> = list.iter().filter_map(|p| iri(p)).collect();
                list.sort_unstable();
                Some(list)
            }
        };
        let query = self
            .sparql
            .literal_statements(predicates.as_deref(), &HINTS);
        // Each subject's statements, in the order their subjects come.
        let mut windows: HashMap<NamedOrBlankNode, Vec<Quad>> = HashMap::new();
        let mut order: Vec<NamedOrBlankNode> = Vec::new();
        let cut = self.client.select_each(&query, &mut |mut row| {
            let (Some(s), Some(p), Some(o)) = (row.remove("s"), row.remove("p"), row.remove("o"))
            else {
                return Ok(());
            };
            let subject: NamedOrBlankNode = match s.kind.as_str() {
                "uri" => NamedNode::new_unchecked(s.value).into(),
                "bnode" => BlankNode::new_unchecked(s.value).into(),
                _ => return Ok(()),
            };
            let predicate = NamedNode::new_unchecked(p.value);
            let hint = HINTS.contains(&format!("<{}>", predicate.as_str()).as_str());
            let object: Term = match o.kind.as_str() {
                "uri" => NamedNode::new_unchecked(o.value).into(),
                "literal" | "typed-literal" => match (o.lang, o.datatype) {
                    (Some(lang), _) => {
                        Literal::new_language_tagged_literal_unchecked(o.value, lang).into()
                    }
                    (None, Some(datatype)) => {
                        Literal::new_typed_literal(o.value, NamedNode::new_unchecked(datatype))
                            .into()
                    }
                    (None, None) => Literal::new_simple_literal(o.value).into(),
                },
                _ => return Ok(()),
            };
            // Only what the rewriter may change, or needs to know: an adapter's full form, a
            // predicate or node that names the scheme of a bare one.
            let wanted = hint
                || matches!(&object, Term::Literal(l) if registry.adapter_for(l.value()).is_some())
                || SCHEME_PREDICATES
                    .iter()
                    .any(|(p, _)| *p == predicate.as_str())
                || NODE_HINTED.contains(&predicate.as_str());
            if !wanted {
                return Ok(());
            }
            let graph = match row.remove("g") {
                Some(g) if g.kind == "uri" => NamedNode::new_unchecked(g.value).into(),
                _ => GraphName::DefaultGraph,
            };
            let window = windows.entry(subject.clone()).or_insert_with(|| {
                order.push(subject.clone());
                Vec::new()
            });
            window.push(Quad::new(subject, predicate, object, graph));
            Ok(())
        })?;
        if let Some(rows) = cut {
            return Err(StoreError::LiteralsTruncated {
                endpoint: self.client.query_endpoint().to_owned(),
                rows,
            });
        }
        let mut stats = LiteralStats::new();
        // Statements whose subject is an IRI: (graph, old, new).
        let mut named: Vec<(Option<String>, String, String)> = Vec::new();
        // Blank node literals: what each of their statements becomes, and how many.
        let mut blank: BTreeMap<BlankKey, (BTreeSet<String>, u64)> = BTreeMap::new();
        for subject in order {
            let Some(mut quads) = windows.remove(&subject) else {
                continue;
            };
            let before = quads.clone();
            let mut invalid: Vec<(String, String)> = Vec::new();
            rewriter.rewrite_window(registry, &mut quads, &mut stats, |event| {
                if let LiteralEvent::Invalid { value, error, .. } = event {
                    invalid.push((value.to_owned(), error.to_string()));
                }
            });
            for (value, error) in invalid {
                self.report.invalid += 1;
                self.observer.invalid(&value, &error);
            }
            for (old, new) in before.iter().zip(&quads) {
                let Term::Literal(literal) = &old.object else {
                    continue;
                };
                if HINTS.contains(&format!("<{}>", old.predicate.as_str()).as_str()) {
                    continue;
                }
                let graph = match &old.graph_name {
                    GraphName::NamedNode(g) => Some(format!("<{}>", g.as_str())),
                    _ => None,
                };
                let predicate = format!("<{}>", old.predicate.as_str());
                match &old.subject {
                    NamedOrBlankNode::NamedNode(s) => {
                        if old.object == new.object {
                            continue;
                        }
                        let Some(s) = iri(s.as_str()) else {
                            self.report.invalid += 1;
                            self.observer.invalid(
                                literal.value(),
                                &"its subject cannot be written in a SPARQL update",
                            );
                            continue;
                        };
                        named.push((
                            graph,
                            format!("{s} {predicate} {}", old.object),
                            format!("{s} {predicate} {}", new.object),
                        ));
                    }
                    NamedOrBlankNode::BlankNode(_) => {
                        let (news, n) = blank
                            .entry((graph, predicate, old.object.to_string()))
                            .or_default();
                        news.insert(new.object.to_string());
                        *n += 1;
                    }
                }
            }
        }
        let mut groups = Vec::new();
        for ((graph, predicate, old), (news, n)) in blank {
            let mut news = news.into_iter();
            match (news.next(), news.next()) {
                (Some(new), None) if new != old => {
                    groups.push((graph, predicate, old, new, n));
                }
                (Some(_), Some(_)) => {
                    self.report.invalid += 1;
                    self.observer.invalid(
                        &old,
                        &format!(
                            "the blank nodes holding this literal under {predicate} are rewritten \
                             differently (their nodes name different schemes): left unchanged \
                             (dump, `pidcanon rewrite --literals`, reload for those)"
                        ),
                    );
                }
                _ => {}
            }
        }
        self.send_sized(
            &named,
            |sparql, chunk| sparql.rewrite_statements(chunk),
            |chunk| chunk.len() as u64,
        )?;
        self.send_sized(
            &groups,
            |sparql, chunk| {
                let pairs: Vec<(Option<String>, String, String, String)> = chunk
                    .iter()
                    .map(|(g, p, old, new, _)| (g.clone(), p.clone(), old.clone(), new.clone()))
                    .collect();
                sparql.rewrite_blank_literals(&pairs)
            },
            |chunk| chunk.iter().map(|g| g.4).sum(),
        )
    }

    /// Sends `items` in updates of the size of the moment (see [`super::Sizer`]), each made by
    /// `update` and rewriting `count` literal statements: an update of several items that
    /// times out is not sent again as it was, but in halves, as the IRIs' updates are.
    fn send_sized<T>(
        &mut self,
        items: &[T],
        update: impl Fn(&Sparql, &[T]) -> String,
        count: impl Fn(&[T]) -> u64,
    ) -> Result<(), StoreError> {
        let mut rest = items;
        while !rest.is_empty() {
            let chunk = &rest[..self.sizer.size.min(rest.len())];
            let text = update(self.sparql, chunk);
            let started = Instant::now();
            match self.send_literals(&text, count(chunk), chunk.len() > 1) {
                Err(StoreError::TimedOut { reason, .. }) if chunk.len() > 1 => {
                    self.split(chunk.len(), "literal statements", started, &reason);
                    continue;
                }
                result => result?,
            }
            if !self.normalizer.dry_run {
                if let Some(change) =
                    self.sizer
                        .applied(chunk.len(), "literal statements", started.elapsed())
                {
                    self.observer.notice(&change);
                }
            }
            rest = &rest[chunk.len()..];
        }
        Ok(())
    }

    /// Sends (or, in a dry run, shows) an update that rewrites `n` literal statements; one that
    /// times out is [`StoreError::TimedOut`] if it can be `split`.
    fn send_literals(&mut self, update: &str, n: u64, split: bool) -> Result<(), StoreError> {
        let sent = if self.normalizer.dry_run {
            self.observer.would_send(update)?;
            Ok(())
        } else {
            self.send_update(update, split)
        };
        if let Err(e) = sent {
            self.unsure =
                !matches!(e, StoreError::Status { .. } | StoreError::Refused { .. }) || self.unsure;
            return Err(e);
        }
        self.report.updates += 1;
        self.report.literals_rewritten += n;
        self.tally();
        self.observer.progress(&self.report);
        Ok(())
    }
}

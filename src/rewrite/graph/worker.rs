//! The graph worker: canonicalizes the IRIs of a batch of parsed statements, finding where each
//! rewritten or invalid IRI is written, and gives anonymous blank nodes labels that are the same
//! on every run.

use super::reader::{Declarations, Span};
use crate::rewrite::cache::Cache;
use crate::rewrite::events::{Event, Found, Needs, look_up};
use crate::rewrite::line::column;
use crate::rewrite::nanopub::{is_protected, rewrite_warning};
use crate::rewrite::terms::map_quad;
use crate::rewrite::{Location, Rewriter};
use oxrdf::{BlankNode, GraphName, NamedOrBlankNode, Quad, Term};
use std::collections::HashMap;
use std::ops::Range;

/// Statements parsed from a graph format, on their way to the worker, each with the lines it
/// spans (kept once for the statements that share them).
#[derive(Debug, Default)]
pub(crate) struct GraphBatch {
    /// The input's prefixes and base, with the first batch.
    pub(crate) declarations: Option<Declarations>,
    pub(crate) quads: Vec<Quad>,
    /// Per statement: the number of the first line it spans and their range in `text`.
    spans: Vec<(u64, Range<usize>)>,
    text: Vec<u8>,
}

impl GraphBatch {
    /// The number of statements a batch holds before it is mapped.
    pub(crate) const SIZE: usize = 4096;

    pub(crate) fn push(&mut self, quad: Quad, span: Span<'_>) {
        let same = self.spans.last().is_some_and(|(first, range)| {
            *first == span.first_line && self.text[range.clone()] == *span.text
        });
        let range = match self.spans.last() {
            Some((_, range)) if same => range.clone(),
            _ => {
                let start = self.text.len();
                self.text.extend_from_slice(span.text);
                start..self.text.len()
            }
        };
        self.quads.push(quad);
        self.spans.push((span.first_line, range));
    }

    pub(crate) fn clear(&mut self) {
        self.quads.clear();
        self.spans.clear();
        self.text.clear();
    }
}

/// Canonicalizes the statements of graph batches; one per input, with its own cache.
pub(crate) struct GraphWorker<'r> {
    rewriter: &'r Rewriter,
    needs: Needs,
    cache: Cache,
    labels: BlankNodeLabels,
}

impl<'r> GraphWorker<'r> {
    /// The worker of the session's input number `input`.
    pub(crate) fn new(rewriter: &'r Rewriter, needs: Needs, input: u64) -> Self {
        Self {
            rewriter,
            needs,
            cache: Cache::new(),
            labels: BlankNodeLabels::for_input(input),
        }
    }

    /// Canonicalizes the statements of `batch`; what is found goes to `found`.
    pub(crate) fn map(&mut self, batch: &mut GraphBatch, found: &mut Found) {
        found.clear();
        let (rewriter, needs, cache) = (self.rewriter, self.needs, &mut self.cache);
        let (spans, text) = (&batch.spans, &batch.text);
        let mut finder = IriFinder::default();
        let quads = std::mem::take(&mut batch.quads);
        batch.quads = quads
            .into_iter()
            .zip(spans)
            .map(|(quad, (first_line, range))| {
                let span = Span {
                    first_line: *first_line,
                    text: &text[range.clone()],
                };
                let quad = self.labels.relabel(quad);
                let protected = is_protected(&quad.graph_name);
                if protected && rewriter.keep_signed {
                    found.signed_statements_kept += 1;
                    return quad;
                }
                let mut changed = false;
                let quad = map_quad(quad, &mut |iri| {
                    let location = || finder.find(span, iri);
                    let canonical = look_up(cache, &rewriter.registry, needs, iri, location, found);
                    changed |= canonical.is_some();
                    canonical.map(str::to_owned)
                });
                if protected && changed {
                    found.events.push(Event::Warning {
                        location: Location::at_line(*first_line),
                        message: rewrite_warning(&quad.graph_name),
                    });
                }
                quad
            })
            .collect();
    }
}

/// Finds where IRIs are written out in full (`<iri>`) in the lines of a statement, in order: a
/// repeated IRI is found at its next occurrence. An IRI written otherwise (a prefixed name, a
/// relative IRI) gets the statement's last line and no column.
#[derive(Default)]
struct IriFinder {
    span_start: usize,
    from: usize,
}

impl IriFinder {
    fn find(&mut self, span: Span<'_>, iri: &str) -> Location {
        let start = span.text.as_ptr() as usize;
        if start != self.span_start {
            (self.span_start, self.from) = (start, 0);
        }
        let text = span.text;
        let written = |from: usize| {
            let mut at = from;
            while let Some(found) = memchr::memmem::find(&text[at..], iri.as_bytes()) {
                let i = at + found;
                if i > 0 && text[i - 1] == b'<' && text.get(i + iri.len()) == Some(&b'>') {
                    return Some(i - 1);
                }
                at = i + 1;
            }
            None
        };
        let Some(at) = written(self.from).or_else(|| written(0)) else {
            let lines = text.iter().filter(|&&b| b == b'\n').count() as u64;
            let last = span.first_line + lines.saturating_sub(u64::from(text.ends_with(b"\n")));
            return Location::at_line(last.max(1));
        };
        self.from = at + iri.len() + 2;
        let line_start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1);
        let line =
            span.first_line + text[..line_start].iter().filter(|&&b| b == b'\n').count() as u64;
        Location::new(line, column(&text[line_start..], at - line_start))
    }
}

/// Labels for the blank nodes a parser made up (for `[]`, collections, RDF/XML nodes without
/// `rdf:nodeID`), which `oxrdf` draws at random: each gets one derived from a counter per input,
/// so the output is the same on every run. Labels written in the input are kept. Made-up nodes
/// are used in statements close together, so only the most recent ones are remembered (two
/// generations of [`GENERATION`] each): memory stays constant.
#[derive(Default)]
struct BlankNodeLabels {
    input: u64,
    counter: u64,
    recent: HashMap<u128, BlankNode>,
    older: HashMap<u128, BlankNode>,
}

/// How many made-up blank nodes one generation remembers.
const GENERATION: usize = 1 << 16;

impl BlankNodeLabels {
    fn for_input(input: u64) -> Self {
        Self {
            input,
            ..Self::default()
        }
    }

    fn relabel(&mut self, quad: Quad) -> Quad {
        Quad {
            subject: match quad.subject {
                NamedOrBlankNode::BlankNode(b) => self.label(b).into(),
                other => other,
            },
            predicate: quad.predicate,
            object: self.term(quad.object),
            graph_name: match quad.graph_name {
                GraphName::BlankNode(b) => self.label(b).into(),
                other => other,
            },
        }
    }

    fn term(&mut self, term: Term) -> Term {
        match term {
            Term::BlankNode(b) => self.label(b).into(),
            Term::Triple(t) => {
                let t = *t;
                oxrdf::Triple {
                    subject: match t.subject {
                        NamedOrBlankNode::BlankNode(b) => self.label(b).into(),
                        other => other,
                    },
                    predicate: t.predicate,
                    object: self.term(t.object),
                }
                .into()
            }
            other => other,
        }
    }

    /// A made-up node's id is a random 128-bit number: its top half is never all zero in
    /// practice, while a label from the input that reads as a number is short.
    fn label(&mut self, node: BlankNode) -> BlankNode {
        let Some(id) = node.as_ref().unique_id().filter(|id| id >> 64 != 0) else {
            return node;
        };
        if let Some(label) = self.recent.get(&id).or_else(|| self.older.get(&id)) {
            return label.clone();
        }
        if self.recent.len() >= GENERATION {
            self.older = std::mem::take(&mut self.recent);
        }
        self.counter += 1;
        let seed = (u128::from(self.input) << 64) | u128::from(self.counter);
        // The first hex digit is a letter, as in `oxrdf`'s own ids: RDF/XML's rdf:nodeID must
        // not start with a digit.
        let hash = xxhash_rust::xxh3::xxh3_128(&seed.to_le_bytes());
        let label = BlankNode::new_from_unique_id((hash >> 4) | (0xA << 124));
        self.recent.insert(id, label.clone());
        label
    }
}

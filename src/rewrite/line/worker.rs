//! A line worker: turns a chunk of N-Triples / N-Quads lines into its output bytes and what it
//! found, in line order. Lines are counted from 1 in the chunk.

use super::iris::{column, term_iris, unescape_iri};
use super::scan::{Checked, check};
use crate::mapping::EquivalenceStatement;
use crate::rewrite::cache::Cache;
use crate::rewrite::cache::Outcome;
use crate::rewrite::events::{Event, Found, Needs, look_up};
use crate::rewrite::fingerprint::Fingerprint;
use crate::rewrite::graph::{LineParser, error_location};
use crate::rewrite::nanopub::{is_protected, rewrite_warning};
use crate::rewrite::terms::map_quad;
use crate::rewrite::{Location, Rewriter, SyntaxError};
use memchr::memmem::Finder;
use oxrdf::NamedNode;
use oxrdfio::RdfFormat;
use std::ops::Range;

/// The subject and object an equivalence statement is written with (`--collapse`), at the
/// ranges of its subject and object IRIs.
type Sides = [(Range<usize>, String); 2];

/// A rewritten chunk.
#[derive(Debug, Default)]
pub(crate) struct ChunkResult {
    pub(crate) output: Vec<u8>,
    pub(crate) found: Found,
    pub(crate) lines: u64,
    pub(crate) statements: u64,
}

/// Rewrites chunks; one per thread, each with its own cache.
pub(crate) struct LineWorker<'r> {
    rewriter: &'r Rewriter,
    needs: Needs,
    cache: Cache,
    scratch: String,
    /// Canonicalizes and renames without collapsing: the other side of an equivalence
    /// statement.
    uncollapsed: Cache,
    /// `<P>` for each equivalence predicate P: the lines that may be equivalence statements.
    equivalence: Vec<Finder<'static>>,
}

impl<'r> LineWorker<'r> {
    pub(crate) fn new(rewriter: &'r Rewriter, needs: Needs) -> Self {
        Self {
            rewriter,
            needs,
            cache: Cache::with_mapping(rewriter.mapping.as_ref(), true),
            scratch: String::new(),
            uncollapsed: Cache::with_mapping(rewriter.mapping.as_ref(), false),
            equivalence: rewriter.mapping.as_ref().map_or(Vec::new(), |m| {
                m.equivalence_predicates()
                    .iter()
                    .map(|p| Finder::new(format!("<{p}>").as_bytes()).into_owned())
                    .collect()
            }),
        }
    }

    /// What the worker records for its session.
    pub(crate) fn needs(&self) -> Needs {
        self.needs
    }

    /// Rewrites `chunk` into `result` (cleared first). A line that does not parse is left out
    /// of the output and found as a syntax error, for the session to decide on.
    pub(crate) fn process(&mut self, chunk: &[u8], result: &mut ChunkResult) {
        result.output.clear();
        result.found.clear();
        result.lines = 0;
        result.statements = 0;
        result.output.reserve(chunk.len() + chunk.len() / 8);
        let quads = self.rewriter.input_format == RdfFormat::NQuads;
        let dedup = self.rewriter.drop_duplicates;
        // One UTF-8 check for the whole chunk: a line of a valid chunk is valid (a line ends
        // at an ASCII byte). Only a chunk with invalid bytes is checked line by line.
        let text = simdutf8::basic::from_utf8(chunk).ok();
        let mut start = 0;
        while start < chunk.len() {
            let end = memchr::memchr(b'\n', &chunk[start..]).map_or(chunk.len(), |i| start + i + 1);
            let line = &chunk[start..end];
            let line_text = match text {
                Some(text) => text.get(start..end),
                None => std::str::from_utf8(line).ok(),
            };
            start = end;
            result.lines += 1;
            let checked = match line_text {
                Some(text) if !dedup => check(text, quads),
                _ => Checked::Unsure,
            };
            match checked {
                Checked::Nothing => result.output.extend_from_slice(line),
                Checked::Statement(spans) => {
                    result.statements += 1;
                    let sides = self.equivalence_sides(line);
                    self.splice_statement(line, line_text, spans.iter(), sides, result);
                }
                Checked::Unsure => self.parse_line(line, result),
            }
        }
    }

    /// A line `oxttl` decides on.
    fn parse_line(&mut self, line: &[u8], result: &mut ChunkResult) {
        let rewriter = self.rewriter;
        let mut parser = LineParser::for_lines(rewriter.input_format == RdfFormat::NQuads);
        parser.extend(line);
        parser.end();
        let mut written = None;
        let mut statements = 0;
        while let Some(parsed) = parser.next() {
            match parsed {
                Ok(mut quad) if rewriter.drop_duplicates => {
                    statements += 1;
                    // The statement as written: its IRIs through the same cache the splice
                    // below uses, so nothing is canonicalized twice.
                    let cache = &mut self.cache;
                    map_quad(
                        &mut quad,
                        &mut |iri| match cache.lookup(&rewriter.registry, iri) {
                            Outcome::Changed(canonical, _) => Some(canonical.to_string()),
                            Outcome::Unchanged | Outcome::Invalid(_) => None,
                        },
                    );
                    written = Some(quad);
                }
                Ok(_) => statements += 1,
                Err(e) => {
                    let at = error_location(&e);
                    result.found.events.push(Event::Syntax {
                        error: SyntaxError::new(
                            Location::new(result.lines, at.column().unwrap_or(1)),
                            e.message(),
                        ),
                        line: line.to_vec(),
                        at: result.output.len(),
                    });
                    return;
                }
            }
        }
        result.statements += statements;
        let start = result.output.len();
        let sides = self.equivalence_sides(line);
        if let (Some(quad), Some(Some([(_, subject), (_, object)]))) = (&mut written, &sides) {
            quad.subject = NamedNode::new_unchecked(subject.clone()).into();
            quad.object = NamedNode::new_unchecked(object.clone()).into();
        }
        let kept = sides.as_ref().is_none_or(Option::is_some);
        self.splice_statement(line, None, term_iris(line), sides, result);
        let fingerprint = written
            .filter(|_| kept)
            .map(|quad| Fingerprint::of(&quad, &mut self.scratch));
        if let Some(fingerprint) = fingerprint {
            result.found.events.push(Event::Statement {
                fingerprint,
                output: start..result.output.len(),
            });
        }
    }

    /// Splices a statement's line; an equivalence statement is written with its `sides`, or,
    /// dropped as reflexive, only has its IRIs told and recorded.
    fn splice_statement(
        &mut self,
        line: &[u8],
        text: Option<&str>,
        spans: impl Iterator<Item = Range<usize>>,
        sides: Option<Option<Sides>>,
        result: &mut ChunkResult,
    ) {
        match sides {
            None => self.splice(line, text, spans, &[], result),
            Some(Some(sides)) => self.splice(line, text, spans, &sides, result),
            Some(None) => {
                let start = result.output.len();
                self.splice(line, text, spans, &[], result);
                result.output.truncate(start);
                result.found.dropped += 1;
            }
        }
    }

    /// For a line `<s> <P> <o> …` whose predicate P asserts an equivalence (`--collapse`): the
    /// subject and object it is written with, or `Some(None)` when it is dropped as reflexive;
    /// `None` for any other line. The line must be a valid statement.
    fn equivalence_sides(&mut self, line: &[u8]) -> Option<Option<Sides>> {
        if !self.equivalence.iter().any(|f| f.find(line).is_some()) {
            return None;
        }
        let mapping = self.rewriter.mapping.as_deref()?;
        let mut spans = term_iris(line);
        let (s, p, o) = (spans.next()?, spans.next()?, spans.next()?);
        // The first three IRIs are the subject, predicate and object only when nothing else
        // stands between them.
        let between = |from: usize, to: usize| {
            line.get(from..to)
                .is_some_and(|gap| gap.iter().all(|b| b" \t<>".contains(b)))
        };
        let starts = line.iter().position(|b| !b" \t".contains(b)) == Some(s.start - 1);
        if !starts || !between(s.end, p.start) || !between(p.end, o.start) {
            return None;
        }
        let text = |span: &Range<usize>| std::str::from_utf8(&line[span.clone()]).ok();
        if !mapping.is_equivalence_predicate(&unescape_iri(text(&p)?)) {
            return None;
        }
        let registry = &self.rewriter.registry;
        let mut side = |span: &Range<usize>| {
            let iri = unescape_iri(text(span)?);
            match self.uncollapsed.lookup(registry, &iri) {
                Outcome::Changed(target, _) => Some(target.to_string()),
                Outcome::Unchanged => Some(iri.into_owned()),
                // An invalid identifier is left as it is, and the statement with it.
                Outcome::Invalid(_) => None,
            }
        };
        let (subject, object) = (side(&s)?, side(&o)?);
        Some(match mapping.equivalence_statement(&subject, &object) {
            EquivalenceStatement::Keep(a, b) => Some([(s, a.to_owned()), (o, b.to_owned())]),
            EquivalenceStatement::Drop => None,
        })
    }

    /// Writes `line` (which is `text`, if known to be UTF-8) with the canonical forms of its
    /// term IRIs (at `spans`) spliced in, or what `sides` says for the spans it names; every
    /// other byte, valid UTF-8 or not, as it is.
    fn splice(
        &mut self,
        line: &[u8],
        text: Option<&str>,
        spans: impl Iterator<Item = Range<usize>>,
        sides: &[(Range<usize>, String)],
        result: &mut ChunkResult,
    ) {
        let mut written = 0;
        for span in spans {
            // The parser or the scanner has checked the IRI: it is UTF-8.
            let raw = match text {
                Some(text) => text.get(span.clone()),
                None => std::str::from_utf8(&line[span.clone()]).ok(),
            };
            let Some(raw) = raw else {
                continue;
            };
            let iri = unescape_iri(raw);
            let location = || Location::new(result.lines, column(line, span.start - 1));
            let canonical = look_up(
                &mut self.cache,
                &self.rewriter.registry,
                self.needs,
                &iri,
                location,
                &mut result.found,
            );
            let side = sides.iter().find(|(at, _)| *at == span).map(|(_, iri)| iri);
            let canonical = match side {
                Some(iri) if iri.as_str() != raw => Some(iri.as_str()),
                Some(_) => None,
                None => canonical,
            };
            if let Some(canonical) = canonical {
                result.output.extend_from_slice(&line[written..span.start]);
                result.output.extend_from_slice(canonical.as_bytes());
                written = span.end;
            }
        }
        result.output.extend_from_slice(&line[written..]);
        if written > 0 && memchr::memmem::find(line, b"/RA").is_some() {
            warn_if_signed(line, result);
        }
    }
}

/// Warns when `line`, whose IRIs were rewritten (into the output from `start`), is a statement
/// of a trusty nanopublication.
fn warn_if_signed(line: &[u8], result: &mut ChunkResult) {
    let mut parser = LineParser::for_lines(true);
    parser.extend(line);
    parser.end();
    if let Some(Ok(quad)) = parser.next() {
        if is_protected(&quad.graph_name) {
            result.found.events.push(Event::Warning {
                location: Location::at_line(result.lines),
                message: rewrite_warning(&quad.graph_name),
            });
        }
    }
}

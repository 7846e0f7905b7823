//! A line worker: turns a chunk of N-Triples / N-Quads lines into its output bytes and what it
//! found, in line order. Lines are counted from 1 in the chunk.

use super::iris::{column, term_iris, unescape_iri};
use super::scan::{Checked, check};
use crate::rewrite::cache::Cache;
use crate::rewrite::cache::Outcome;
use crate::rewrite::events::{Event, Found, Needs, look_up};
use crate::rewrite::fingerprint::Fingerprint;
use crate::rewrite::graph::{LineParser, error_location};
use crate::rewrite::nanopub::{is_protected, rewrite_warning};
use crate::rewrite::terms::map_quad;
use crate::rewrite::{Location, Rewriter, SyntaxError};
use oxrdfio::RdfFormat;
use std::ops::Range;

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
}

impl<'r> LineWorker<'r> {
    pub(crate) fn new(rewriter: &'r Rewriter, needs: Needs) -> Self {
        Self {
            rewriter,
            needs,
            cache: Cache::new(),
            scratch: String::new(),
        }
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
        for line in chunk.split_inclusive(|&b| b == b'\n') {
            result.lines += 1;
            let checked = match std::str::from_utf8(line) {
                Ok(text) if !dedup => check(text, quads),
                _ => Checked::Unsure,
            };
            match checked {
                Checked::Nothing => result.output.extend_from_slice(line),
                Checked::Statement(spans) => {
                    result.statements += 1;
                    self.splice(line, spans.iter(), result);
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
        let mut fingerprint = None;
        let mut statements = 0;
        while let Some(parsed) = parser.next() {
            match parsed {
                Ok(quad) if rewriter.drop_duplicates => {
                    statements += 1;
                    // The fingerprint of the statement as written: its IRIs through the same
                    // cache the splice below uses, so nothing is canonicalized twice.
                    let cache = &mut self.cache;
                    let quad = map_quad(
                        quad,
                        &mut |iri| match cache.lookup(&rewriter.registry, iri) {
                            Outcome::Changed(canonical, _) => Some(canonical.to_string()),
                            Outcome::Unchanged | Outcome::Invalid(_) => None,
                        },
                    );
                    fingerprint = Some(Fingerprint::of(&quad, &mut self.scratch));
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
        self.splice(line, term_iris(line), result);
        if let Some(fingerprint) = fingerprint {
            result.found.events.push(Event::Statement {
                fingerprint,
                output: start..result.output.len(),
            });
        }
    }

    /// Writes `line` with the canonical forms of its term IRIs (at `spans`) spliced in; every
    /// other byte, valid UTF-8 or not, as it is.
    fn splice(
        &mut self,
        line: &[u8],
        spans: impl Iterator<Item = Range<usize>>,
        result: &mut ChunkResult,
    ) {
        let mut written = 0;
        for span in spans {
            // The parser or the scanner has checked the IRI: it is UTF-8.
            let Ok(raw) = std::str::from_utf8(&line[span.clone()]) else {
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

//! N-Triples / N-Quads rewritten a chunk of whole lines at a time, so that chunks can be
//! rewritten on several threads and put back in order. A worker turns a chunk into its output
//! bytes and a list of events (rewrites, invalid identifiers, syntax errors, fingerprints), which
//! the session then applies in order.

use super::Rewriter;
use super::cache::{Cache, Outcome};
use super::lines::{column, term_iris, unescape_iri};
use super::ntriples::{Checked, check};
use super::source::{LineParser, error_location};
use crate::{IdError, Kind};
use oxrdf::Quad;
use oxrdfio::RdfFormat;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, Read};
use std::ops::Range;

/// The size a chunk is read to before it is completed to the end of its last line.
pub(crate) const CHUNK: u64 = 1 << 22;

/// Reads the next chunk of whole lines into `chunk`; returns its length (0 at the end).
pub(crate) fn read_chunk(input: &mut impl BufRead, chunk: &mut Vec<u8>) -> std::io::Result<usize> {
    chunk.clear();
    input.by_ref().take(CHUNK).read_to_end(chunk)?;
    if !chunk.is_empty() && !chunk.ends_with(b"\n") {
        input.read_until(b'\n', chunk)?;
    }
    Ok(chunk.len())
}

/// What happened in a chunk, in line order. Lines are counted from 1 in the chunk.
#[derive(Debug)]
pub(crate) enum Event {
    Rewritten {
        line: u64,
        column: u64,
        original: Box<str>,
        canonical: Box<str>,
        kind: Kind,
    },
    Invalid {
        line: u64,
        column: u64,
        iri: Box<str>,
        error: IdError,
    },
    /// A line that does not parse; `rejected` holds it when it goes to the rejects.
    Syntax {
        line: u64,
        column: u64,
        message: String,
        rejected: Vec<u8>,
    },
    /// A statement's fingerprint and its bytes in the output, for `--dedup`.
    Statement {
        fingerprint: u128,
        output: Range<usize>,
    },
}

/// A rewritten chunk.
#[derive(Debug, Default)]
pub(crate) struct ChunkResult {
    pub(crate) output: Vec<u8>,
    pub(crate) events: Vec<Event>,
    pub(crate) lines: u64,
    pub(crate) statements: u64,
    pub(crate) rewritten: BTreeMap<Kind, u64>,
    /// Whether the chunk stopped at a syntax error (not lenient).
    pub(crate) stopped: bool,
}

/// What a worker needs to know of the session.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Needs {
    /// Rewrites are told to an observer, links or map.
    pub(crate) rewrite_events: bool,
    /// Bad lines go to the rejects, not to the output.
    pub(crate) rejects: bool,
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

    /// Rewrites `chunk` into `result` (cleared first).
    pub(crate) fn process(&mut self, chunk: &[u8], result: &mut ChunkResult) {
        result.output.clear();
        result.events.clear();
        result.rewritten.clear();
        result.lines = 0;
        result.statements = 0;
        result.stopped = false;
        result.output.reserve(chunk.len() + chunk.len() / 8);
        let quads = self.rewriter.input_format == RdfFormat::NQuads;
        let dedup = self.rewriter.dedup;
        for line in chunk.split_inclusive(|&b| b == b'\n') {
            result.lines += 1;
            let text = std::str::from_utf8(line).ok();
            let checked = match text {
                Some(text) if !dedup => check(text, quads),
                _ => Checked::Unsure,
            };
            match (checked, text) {
                (Checked::Nothing, _) => result.output.extend_from_slice(line),
                (Checked::Statement(spans), Some(text)) => {
                    result.statements += 1;
                    self.splice(text, spans.iter(), result);
                }
                _ => {
                    if !self.parse_line(line, result) {
                        result.stopped = true;
                        return;
                    }
                }
            }
        }
    }

    /// A line `oxttl` decides on; returns false when the chunk must stop here.
    fn parse_line(&mut self, line: &[u8], result: &mut ChunkResult) -> bool {
        let rewriter = self.rewriter;
        let mut parser = LineParser::for_lines(rewriter.input_format == RdfFormat::NQuads);
        parser.extend(line);
        parser.end();
        let mut fingerprint = None;
        let mut statements = 0;
        while let Some(parsed) = parser.next() {
            match parsed {
                Ok(quad) => {
                    statements += 1;
                    if rewriter.dedup {
                        // The fingerprint of the statement as written: its IRIs through the same
                        // cache the splice below uses, so nothing is canonicalized twice.
                        let cache = &mut self.cache;
                        let mut canonical =
                            |iri: &str| -> Result<Option<String>, std::convert::Infallible> {
                                Ok(match cache.lookup(&rewriter.registry, iri) {
                                    Outcome::Changed(canonical, _) => Some(canonical.to_string()),
                                    Outcome::Unchanged | Outcome::Invalid(_) => None,
                                })
                            };
                        let quad = match super::map_quad(quad, &mut canonical) {
                            Ok(quad) => quad,
                            Err(never) => match never {},
                        };
                        self.scratch.clear();
                        let _ = write!(self.scratch, "{quad}");
                        fingerprint = Some(xxhash_rust::xxh3::xxh3_128(self.scratch.as_bytes()));
                    }
                }
                Err(e) => {
                    let at = error_location(&e);
                    let rejected = if rewriter.lenient && self.needs.rejects {
                        line.to_vec()
                    } else {
                        Vec::new()
                    };
                    if rewriter.lenient && !self.needs.rejects {
                        result.output.extend_from_slice(line);
                    }
                    result.events.push(Event::Syntax {
                        line: result.lines,
                        column: at.column,
                        message: e.message().to_owned(),
                        rejected,
                    });
                    return rewriter.lenient;
                }
            }
        }
        result.statements += statements;
        let start = result.output.len();
        // oxttl has accepted the line: it is UTF-8.
        let text = String::from_utf8_lossy(line);
        self.splice(&text, term_iris(line), result);
        if let Some(fingerprint) = fingerprint {
            result.events.push(Event::Statement {
                fingerprint,
                output: start..result.output.len(),
            });
        }
        true
    }

    /// Writes `line` with the canonical forms of its term IRIs spliced in.
    fn splice(
        &mut self,
        text: &str,
        spans: impl Iterator<Item = Range<usize>>,
        result: &mut ChunkResult,
    ) {
        let line = text.as_bytes();
        let mut written = 0;
        for span in spans {
            let iri = unescape_iri(&text[span.clone()]);
            let at = result.lines;
            let column = || column(line, span.start - 1);
            if let Some(canonical) = lookup(
                &mut self.cache,
                self.rewriter,
                self.needs,
                &iri,
                at,
                column,
                result,
            ) {
                result.output.extend_from_slice(&line[written..span.start]);
                result.output.extend_from_slice(canonical.as_bytes());
                written = span.end;
            }
        }
        result.output.extend_from_slice(&line[written..]);
    }
}

/// Looks `iri` up; counts a rewrite in `result` and records it (when `needs` says so), or records
/// an invalid identifier, at `line` and the column `column` gives. Returns the canonical form
/// when it differs.
fn lookup<'c>(
    cache: &'c mut Cache,
    rewriter: &Rewriter,
    needs: Needs,
    iri: &str,
    line: u64,
    column: impl Fn() -> u64,
    result: &mut ChunkResult,
) -> Option<&'c str> {
    match cache.lookup(&rewriter.registry, iri) {
        Outcome::Unchanged => None,
        Outcome::Changed(canonical, kind) => {
            *result.rewritten.entry(*kind).or_default() += 1;
            if needs.rewrite_events {
                result.events.push(Event::Rewritten {
                    line,
                    column: column(),
                    original: iri.into(),
                    canonical: canonical.clone(),
                    kind: *kind,
                });
            }
            Some(canonical)
        }
        Outcome::Invalid(error) => {
            result.events.push(Event::Invalid {
                line,
                column: column(),
                iri: iri.into(),
                error: error.clone(),
            });
            None
        }
    }
}

/// Statements parsed from a graph format, on their way to the mapping worker: each with the
/// line it ends on, whose text is kept for locating diagnostics.
#[derive(Debug, Default)]
pub(crate) struct GraphBatch {
    /// The input's prefixes and base, with the first batch.
    pub(crate) declarations: Option<super::source::Declarations>,
    pub(crate) quads: Vec<Quad>,
    /// Per statement: its line number and the range of that line's text in `text`.
    pub(crate) lines: Vec<(u64, Range<usize>)>,
    pub(crate) text: Vec<u8>,
}

impl GraphBatch {
    /// The number of statements a batch holds before it is mapped.
    pub(crate) const SIZE: usize = 4096;

    pub(crate) fn push(&mut self, quad: Quad, line_no: u64, line: &[u8]) {
        let same_line = self.lines.last().is_some_and(|(n, _)| *n == line_no);
        let range = match self.lines.last() {
            Some((_, range)) if same_line => range.clone(),
            _ => {
                let start = self.text.len();
                self.text.extend_from_slice(line);
                start..self.text.len()
            }
        };
        self.quads.push(quad);
        self.lines.push((line_no, range));
    }

    pub(crate) fn clear(&mut self) {
        self.quads.clear();
        self.lines.clear();
        self.text.clear();
    }
}

/// Maps the IRIs of graph statements; one per thread, with its own cache.
pub(crate) struct GraphWorker<'r> {
    rewriter: &'r Rewriter,
    needs: Needs,
    cache: Cache,
}

impl<'r> GraphWorker<'r> {
    pub(crate) fn new(rewriter: &'r Rewriter, needs: Needs) -> Self {
        Self {
            rewriter,
            needs,
            cache: Cache::new(),
        }
    }

    /// Canonicalizes the statements of `batch`; events and counts go to `result`.
    pub(crate) fn map(&mut self, batch: &mut GraphBatch, result: &mut ChunkResult) {
        result.events.clear();
        result.rewritten.clear();
        let (rewriter, needs, cache) = (self.rewriter, self.needs, &mut self.cache);
        let (lines, text) = (&batch.lines, &batch.text);
        let quads = std::mem::take(&mut batch.quads);
        batch.quads = quads
            .into_iter()
            .zip(lines)
            .map(|(quad, (line_no, range))| {
                let line = &text[range.clone()];
                let mut f = |iri: &str| -> Result<Option<String>, std::convert::Infallible> {
                    let column = || {
                        super::locate_in_line(line, iri, super::Location::new(*line_no, 0)).column
                    };
                    Ok(
                        lookup(cache, rewriter, needs, iri, *line_no, column, result)
                            .map(str::to_owned),
                    )
                };
                match super::map_quad(quad, &mut f) {
                    Ok(mapped) => mapped,
                    Err(never) => match never {},
                }
            })
            .collect();
    }
}

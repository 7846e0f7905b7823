//! A line worker: turns a chunk of N-Triples / N-Quads lines into its output bytes and what it
//! found, in line order. Lines are counted from 1 in the chunk.

use crate::equivalence::mapping::{EquivalenceLinks, EquivalenceStatement};
use crate::position::lines;
use crate::read::{Checked, KnownIris, check};
use crate::read::{LineParser, error_location};
use crate::rewrite::RdfFormat;
use crate::rewrite::blank_nodes::DocumentScope;
use crate::rewrite::cache::Cache;
use crate::rewrite::cache::Outcome;
use crate::rewrite::events::{Event, Found, Needs, look_up};
use crate::rewrite::fingerprint::{Fingerprint, insert_prefix};
use crate::rewrite::line_iris::{column, iri_statement, term_iris, unescape_iri};
use crate::rewrite::nanopub::{is_protected, rewrite_warning};
use crate::rewrite::{Location, Rewriter, SyntaxError};
use memchr::memmem::Finder;
use std::borrow::Cow;
use std::ops::Range;

/// What becomes of a statement whose predicate asserts an equivalence (`--collapse`); the
/// class members it names are recorded to be linked at the end in every case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Equivalence {
    /// Written where it stands, as any statement is.
    Written,
    /// Not written: its sides are one class's, linked from the representative at the end.
    Linked,
    /// Dropped as reflexive.
    Dropped,
}

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
    /// The IRIs the line checker found valid last.
    known: KnownIris,
    scratch: String,
    /// The sides of an equivalence statement, canonical and renamed.
    sides: [String; 2],
    /// Each equivalence predicate P: a statement with an IRI written as P may be an
    /// equivalence statement.
    equivalence: Vec<Box<[u8]>>,
    /// The graph name of an equivalence statement, as N-Quads writes it.
    graph: String,
    /// The blank node labels of the input being rewritten.
    pub(super) document: DocumentScope,
    /// A line with its blank nodes relabelled ([`DocumentScope::relabel_line`]).
    relabelled: Vec<u8>,
}

impl<'r> LineWorker<'r> {
    pub(crate) fn new(rewriter: &'r Rewriter, needs: Needs) -> Self {
        Self {
            rewriter,
            needs,
            cache: Cache::with_mapping(rewriter.mapping.as_ref(), true),
            known: KnownIris::new(),
            scratch: String::new(),
            sides: Default::default(),
            equivalence: rewriter.mapping.as_ref().map_or(Vec::new(), |m| {
                let predicates = m.equivalence_predicates().iter();
                predicates.map(|p| p.as_bytes().into()).collect()
            }),
            graph: String::new(),
            document: DocumentScope::default(),
            relabelled: Vec::new(),
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
        // One UTF-8 check for the whole chunk: a line of a valid chunk is valid (a line ends
        // at an ASCII byte). Only a chunk with invalid bytes is checked line by line.
        let text = simdutf8::basic::from_utf8(chunk).ok();
        // A CR alone ends a line too (`position`): looked for only in a chunk that has a CR.
        let crs = memchr::memchr(b'\r', chunk).is_some();
        let mut start = 0;
        while start < chunk.len() {
            let end = memchr::memchr(b'\n', &chunk[start..]).map_or(chunk.len(), |i| start + i + 1);
            let line = &chunk[start..end];
            let line_text = match text {
                Some(text) => text.get(start..end),
                None => std::str::from_utf8(line).ok(),
            };
            start = end;
            if crs && lines(line).nth(1).is_some() {
                for line in lines(line) {
                    self.process_line(line, std::str::from_utf8(line).ok(), result);
                }
            } else {
                self.process_line(line, line_text, result);
            }
        }
    }

    /// Rewrites one line into `result`; in an input after the run's first, a valid statement
    /// with blank nodes with their labels made the input's own.
    fn process_line(&mut self, line: &[u8], line_text: Option<&str>, result: &mut ChunkResult) {
        if self.document.relabels_written()
            && memchr::memmem::find(line, b"_:").is_some()
            && self.is_statement(line, line_text)
        {
            let mut relabelled = std::mem::take(&mut self.relabelled);
            relabelled.clear();
            self.document.relabel_line(line, &mut relabelled);
            let text = std::str::from_utf8(&relabelled).ok();
            self.rewrite_line(&relabelled, text, result);
            self.relabelled = relabelled;
        } else {
            self.rewrite_line(line, line_text, result);
        }
    }

    /// Whether `line` is one valid statement.
    fn is_statement(&mut self, line: &[u8], line_text: Option<&str>) -> bool {
        let quads = self.rewriter.input_format == RdfFormat::NQuads;
        match line_text.map(|text| check(text, quads, &mut self.known)) {
            Some(Checked::Statement(_)) => true,
            Some(Checked::Nothing) => false,
            _ => {
                let mut parser = LineParser::for_lines(quads);
                parser.extend(line);
                parser.end();
                let mut statements = 0;
                while let Some(parsed) = parser.next() {
                    match parsed {
                        Ok(_) => statements += 1,
                        Err(_) => return false,
                    }
                }
                statements == 1
            }
        }
    }

    /// Rewrites one line, as it is, into `result`.
    fn rewrite_line(&mut self, line: &[u8], line_text: Option<&str>, result: &mut ChunkResult) {
        let quads = self.rewriter.input_format == RdfFormat::NQuads;
        result.lines += 1;
        let checked = match line_text {
            Some(text) => check(text, quads, &mut self.known),
            None => Checked::Unsure,
        };
        match checked {
            Checked::Nothing => {
                if self.rewriter.fingerprint_statements {
                    result.output.push(b'\t');
                }
                result.output.extend_from_slice(line);
            }
            Checked::Statement(spans) => {
                result.statements += 1;
                let start = result.output.len();
                // The checker takes no IRI with an escape: the predicate is as written.
                let equivalence = spans
                    .iri_statement()
                    .filter(|[_, p, _]| self.names_equivalence(&line[p.clone()]))
                    .and_then(|spo| {
                        self.equivalence(line, spo, spans.graph(), &mut result.found.links)
                    });
                let hashed = spans.hashed().map(|(span, hash)| (span, Some(hash)));
                self.splice_statement(line, line_text, hashed, equivalence, result);
                self.note_statement(start, result);
            }
            Checked::Unsure => self.parse_line(line, result),
        }
    }

    /// For `--dedup`: notes the fingerprint of the statement written into the output from
    /// `start` (nothing, when the statement was not written there); with
    /// [`fingerprint_statements`](Rewriter::fingerprint_statements), writes it before the line.
    fn note_statement(&mut self, start: usize, result: &mut ChunkResult) {
        let rewriter = self.rewriter;
        let written = &result.output[start..];
        if !(rewriter.drop_duplicates || rewriter.fingerprint_statements) || written.is_empty() {
            return;
        }
        let quads = rewriter.input_format == RdfFormat::NQuads;
        let fingerprint = fingerprint_line(written, quads, &mut self.scratch);
        if rewriter.fingerprint_statements {
            insert_prefix(&mut result.output, start, fingerprint);
        }
        if let (Some(fingerprint), true) = (fingerprint, rewriter.drop_duplicates) {
            result.found.events.push(Event::Statement {
                fingerprint,
                output: start..result.output.len(),
            });
        }
    }

    /// A line `oxttl` decides on.
    fn parse_line(&mut self, line: &[u8], result: &mut ChunkResult) {
        let rewriter = self.rewriter;
        let mut parser = LineParser::for_lines(rewriter.input_format == RdfFormat::NQuads);
        parser.extend(line);
        parser.end();
        let mut statements = 0;
        while let Some(parsed) = parser.next() {
            match parsed {
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
        // Without equivalence predicates (no `--collapse`), the line's IRIs are not looked at.
        let names_equivalence = !self.equivalence.is_empty()
            && term_iris(line).any(|iri| self.names_equivalence_written(&line[iri]));
        let equivalence = if names_equivalence {
            iri_statement(line).and_then(|spo| {
                let graph = term_iris(line).nth(3);
                self.equivalence(line, spo, graph, &mut result.found.links)
            })
        } else {
            None
        };
        let spans = term_iris(line).map(|span| (span, None));
        self.splice_statement(line, None, spans, equivalence, result);
        self.note_statement(start, result);
    }

    /// Splices a statement's line; an equivalence statement that is not written where it
    /// stands only has its IRIs told and recorded.
    fn splice_statement(
        &mut self,
        line: &[u8],
        text: Option<&str>,
        spans: impl Iterator<Item = (Range<usize>, Option<u64>)>,
        equivalence: Option<Equivalence>,
        result: &mut ChunkResult,
    ) {
        let start = result.output.len();
        self.splice(line, text, spans, result);
        match equivalence {
            None | Some(Equivalence::Written) => {}
            Some(Equivalence::Linked) => {
                result.output.truncate(start);
                result.found.links.statements += 1;
            }
            Some(Equivalence::Dropped) => {
                result.output.truncate(start);
                result.found.dropped += 1;
            }
        }
    }

    /// Whether `iri`, as written, is an equivalence predicate (`--collapse`): most statements
    /// are not equivalences, and are told by this comparison before anything else is looked at.
    fn names_equivalence(&self, iri: &[u8]) -> bool {
        self.equivalence.iter().any(|p| **p == *iri)
    }

    /// [`Self::names_equivalence`] for an IRI as written in a line the parser read, maybe with
    /// escapes (`owl\u0023sameAs`): the IRI it stands for.
    fn names_equivalence_written(&self, iri: &[u8]) -> bool {
        if !iri.contains(&b'\\') {
            return self.names_equivalence(iri);
        }
        std::str::from_utf8(iri)
            .is_ok_and(|raw| self.names_equivalence(unescape_iri(raw).as_bytes()))
    }

    /// For a line `<s> <P> <o> …` whose predicate P asserts an equivalence (`--collapse`): what
    /// becomes of it, its class members recorded in `links`; `None` for any other line. The
    /// line must be a valid statement, with its subject, predicate and object IRIs at `spo` and
    /// `graph` the IRI after them, if any.
    fn equivalence(
        &mut self,
        line: &[u8],
        [s, p, o]: [Range<usize>; 3],
        graph: Option<Range<usize>>,
        links: &mut EquivalenceLinks,
    ) -> Option<Equivalence> {
        let mapping = self.rewriter.mapping.as_deref()?;
        let text = |span: &Range<usize>| std::str::from_utf8(&line[span.clone()]).ok();
        let predicate = mapping.equivalence_predicate(&unescape_iri(text(&p)?))?;
        // Each side is looked up in the cache the line is then written through (where it is
        // found again): its collapsed form, and the class member it is.
        let registry = &self.rewriter.registry;
        let mut sides = std::mem::take(&mut self.sides);
        let mut side = |span: &Range<usize>, copy: &mut String| {
            let iri = unescape_iri(text(span)?);
            let (outcome, member) = self.cache.lookup_member(registry, &iri);
            copy.clear();
            copy.push_str(match outcome {
                // Collapsed; which is the canonical form if it is no member.
                Outcome::Changed(target, _) => target,
                Outcome::Unchanged => &iri,
                // An invalid identifier is left as it is, and the statement with it.
                Outcome::Invalid(_) => return None,
            });
            Some(member)
        };
        let [subject, object] = &mut sides;
        let members = side(&s, subject).zip(side(&o, object));
        let equivalence = members.map(|(s_member, o_member)| {
            let statement =
                mapping.equivalence_statement_of((s_member, subject), (o_member, object));
            let mut linked = statement.linked().peekable();
            if linked.peek().is_some() {
                self.graph_name(line, o.end + 1, graph);
                for member in linked {
                    links.insert(&self.graph, predicate, member);
                }
            }
            match statement {
                EquivalenceStatement::Kept { .. } => Equivalence::Written,
                EquivalenceStatement::Linked(_) => Equivalence::Linked,
                EquivalenceStatement::Dropped => Equivalence::Dropped,
            }
        });
        self.sides = sides;
        equivalence
    }

    /// Sets `self.graph` to the graph name of a statement whose object ends before `at`, as
    /// N-Quads writes it (`<iri>` as the statement's output has it, `_:label`; empty for the
    /// default graph); `next` is the line's next IRI after the object, if any.
    fn graph_name(&mut self, line: &[u8], at: usize, next: Option<Range<usize>>) {
        self.graph.clear();
        if self.rewriter.input_format != RdfFormat::NQuads {
            return;
        }
        let rest = line.get(at..).unwrap_or_default();
        let Some(start) = rest.iter().position(|b| !b" \t".contains(b)) else {
            return;
        };
        let rest = &rest[start..];
        if let Some(span) =
            next.filter(|span| rest.starts_with(b"<") && span.start == at + start + 1)
        {
            let Ok(raw) = std::str::from_utf8(&line[span]) else {
                return;
            };
            let iri = unescape_iri(raw);
            let mapped = match self.cache.lookup(&self.rewriter.registry, &iri) {
                Outcome::Changed(target, _) => target,
                Outcome::Unchanged | Outcome::Invalid(_) => &*iri,
            };
            self.graph.push('<');
            self.graph.push_str(mapped);
            self.graph.push('>');
        } else if rest.starts_with(b"_:") {
            // A label ends at a space, a comment or the final `.` (a `.` inside a label is
            // followed by more of the label).
            let end = rest
                .iter()
                .position(|b| b" \t\r\n#".contains(b))
                .unwrap_or(rest.len());
            let label = rest[..end].trim_ascii_end();
            let label =
                &label[..label.len() - label.iter().rev().take_while(|&&b| b == b'.').count()];
            if let Ok(label) = std::str::from_utf8(label) {
                self.graph.push_str(label);
            }
        }
    }

    /// Writes `line` (which is `text`, if known to be UTF-8) with the canonical forms of its
    /// term IRIs (at `spans`) spliced in; every other byte, valid UTF-8 or not, as it is.
    fn splice(
        &mut self,
        line: &[u8],
        text: Option<&str>,
        spans: impl Iterator<Item = (Range<usize>, Option<u64>)>,
        result: &mut ChunkResult,
    ) {
        let mut written = 0;
        for (span, hash) in spans {
            // The parser or the scanner has checked the IRI: it is UTF-8.
            let raw = match text {
                Some(text) => text.get(span.clone()),
                None => std::str::from_utf8(&line[span.clone()]).ok(),
            };
            let Some(raw) = raw else {
                continue;
            };
            // An IRI the scanner took (hashed) has no escape: its text is its value.
            let iri = match hash {
                Some(_) => Cow::Borrowed(raw),
                None => unescape_iri(raw),
            };
            let location = || Location::new(result.lines, column(line, span.start - 1));
            let canonical = look_up(
                &mut self.cache,
                &self.rewriter.registry,
                self.needs,
                (&iri, hash),
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
        if written > 0 && SIGNED.find(line).is_some() {
            warn_if_signed(line, result);
        }
    }
}

/// The fingerprint of the statement `line` (N-Quads if `quads`) writes: a line in the shape most
/// lines have is hashed as it stands; any other is parsed. `None` if it holds no statement.
pub(super) fn fingerprint_line(
    line: &[u8],
    quads: bool,
    scratch: &mut String,
) -> Option<Fingerprint> {
    Fingerprint::of_written(line).or_else(|| {
        let mut parser = LineParser::for_lines(quads);
        parser.extend(line);
        parser.end();
        let mut last = None;
        while let Some(parsed) = parser.next() {
            last = parsed.ok();
        }
        Some(Fingerprint::of(&last?, scratch))
    })
}

/// What every trusty URI's hash starts with (`…/RA…`): a line without it is no nanopublication's.
static SIGNED: std::sync::LazyLock<Finder<'static>> =
    std::sync::LazyLock::new(|| Finder::new(b"/RA"));

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

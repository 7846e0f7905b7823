//! Reading RDF statement by statement, with the text of the lines each statement spans: the
//! text formats through `oxttl`'s low-level parsers fed one line at a time, RDF/XML through
//! `oxrdfxml` with the input location of the XML event that completes each statement
//! (`crate::rdfxml`).
//!
//! After a syntax error, reading starts again with a new parser (knowing the prefixes and base
//! declared so far) at the line after the one where the error was found — not where the lexer
//! gave up, which for an unterminated string is the end of the file — so a bad statement costs
//! only itself. The lines since the last statement are kept for that (up to [`MAX_PENDING`]
//! bytes). In TriG, the new parser is put back into the graph block the error was in.

mod parallel;
#[cfg(feature = "rdfxml")]
mod rdfxml;
mod scan;
mod turtle;

use super::{Declarations, Item, Notice, Span, repeated_work};
use crate::position::{is_line_end, line_breaks, lines, read_line};
use crate::rewrite::RdfFormat;
use crate::rewrite::line_parser::{LineParser, error_location};
use crate::rewrite::{Location, RewriteError, SyntaxError};
use oxrdf::{Literal, Quad, Term};
use scan::{StatementEnds, ends_one_statement};
use std::collections::VecDeque;
use std::io::BufRead;
use std::rc::Rc;
use turtle::{FastRead, Groups};

/// The most text kept after the last statement to start again from after an error.
pub(crate) const MAX_PENDING: usize = 1 << 26;

/// Reads a whole input in one format, item by item.
pub(crate) struct Reader<'p> {
    format: RdfFormat,
    base: Option<&'p str>,
    /// RDF/XML without the legacy pre-pass (`crate::rdfxml`).
    #[cfg_attr(not(feature = "rdfxml"), allow(dead_code))]
    strict_rdfxml: bool,
    /// More than one: Turtle is parsed in pieces on as many threads (`super::parallel`).
    threads: usize,
    /// Whether those pieces are canonicalized where they are parsed, and how.
    premap: Option<Premap<'p>>,
}

/// How pieces of Turtle parsed on several threads are canonicalized there.
#[derive(Clone)]
pub(crate) struct Premap<'p> {
    pub(crate) rewriter: &'p crate::rewrite::Rewriter,
    pub(crate) needs: crate::rewrite::events::Needs,
    /// The document's blank node scope.
    pub(crate) input: crate::rewrite::blank_nodes::DocumentScope,
    /// The declarations IRIs are searched with, if already known: for an input after the
    /// first, none (the session took the first input's).
    pub(crate) declared: Option<Declarations>,
}

impl<'p> Reader<'p> {
    pub(crate) fn new(
        format: RdfFormat,
        base: Option<&'p str>,
        strict_rdfxml: bool,
        threads: usize,
    ) -> Self {
        Self {
            format,
            base,
            strict_rdfxml,
            threads,
            premap: None,
        }
    }

    /// Canonicalizes pieces of Turtle parsed on several threads where they are parsed.
    pub(crate) fn premapped(self, premap: Premap<'p>) -> Self {
        Self {
            premap: Some(premap),
            ..self
        }
    }

    /// Reads every item of `input`. `on_item` gets each item, the lines it spans (for RDF/XML,
    /// where it is) and, to call before the first statement, the input's declarations.
    pub(crate) fn read(
        &self,
        input: impl BufRead,
        mut on_item: impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
    ) -> Result<(), RewriteError> {
        match LineParser::declared(self.format, self.base, &[])? {
            Some(parser) if self.format == RdfFormat::Turtle && self.threads > 1 => parallel::read(
                input,
                parser,
                self.threads,
                self.premap.clone(),
                &mut on_item,
            ),
            Some(parser) => read_lines(input, parser, Resume::default(), &mut on_item).map(drop),
            #[cfg(feature = "rdfxml")]
            None => rdfxml::read(input, self.base, self.strict_rdfxml, &mut on_item),
            #[cfg(not(feature = "rdfxml"))]
            None => unreachable!("every format but RDF/XML has a line parser"),
        }
    }
}

/// The lines read since the last statement: what a statement spans, and where reading starts
/// again after an error. Forgetting lines costs nothing per line: the text before the first
/// line kept is dropped only once it is as long as the text kept.
#[derive(Default)]
struct Pending {
    /// The lines, from `dead` on; the bytes before `dead` are forgotten.
    text: Vec<u8>,
    dead: usize,
    /// The start of each line in `text`, its number, and the TriG graph block open at its end.
    lines: VecDeque<(usize, u64, Option<Rc<str>>)>,
}

impl Pending {
    fn push(&mut self, line: &[u8], line_no: u64, block: Option<Rc<str>>) {
        while self.len() + line.len() > MAX_PENDING && self.lines.len() > 1 {
            self.drop_first();
        }
        self.lines.push_back((self.text.len(), line_no, block));
        self.text.extend_from_slice(line);
    }

    /// The bytes of the lines kept.
    fn len(&self) -> usize {
        self.text.len() - self.dead
    }

    fn drop_first(&mut self) {
        self.lines.pop_front();
        self.dead = self
            .lines
            .front()
            .map_or(self.text.len(), |&(start, ..)| start);
        if self.dead >= self.len() {
            repeated_work(self.len());
            self.text.drain(..self.dead);
            for (at, ..) in &mut self.lines {
                *at -= self.dead;
            }
            self.dead = 0;
        }
    }

    /// Forgets the lines before `line_no`.
    fn keep_from(&mut self, line_no: u64) {
        while self.lines.front().is_some_and(|&(_, n, _)| n < line_no) {
            self.drop_first();
        }
    }

    /// The text of the lines kept.
    fn text(&self) -> &[u8] {
        &self.text[self.dead..]
    }

    fn span(&self, up_to: Option<u64>) -> Span<'_> {
        let end = up_to
            .and_then(|last| self.lines.iter().find(|&&(_, n, _)| n > last))
            .map_or(self.text.len(), |&(start, ..)| start);
        Span {
            first_line: self.lines.front().map_or(0, |&(_, n, _)| n),
            column: None,
            text: &self.text[self.dead..end],
        }
    }

    /// The text of a syntax error found on line `error_line`: the lines since the last statement,
    /// less a first line before the error's that holds only the end of that statement (which
    /// was written, so the rejects do not hold it twice).
    fn error_span(&self, error_line: u64) -> Span<'_> {
        let (first_line, range) = self.error_range(error_line);
        Span {
            first_line,
            column: None,
            text: &self.text()[range],
        }
    }

    /// [`Pending::error_span`]'s first line, and where its text is in the text kept.
    fn error_range(&self, error_line: u64) -> (u64, std::ops::Range<usize>) {
        let span = self.span(Some(error_line));
        let mut first_line = span.first_line;
        let mut range = 0..span.text.len();
        if let (Some(&(_, first, _)), Some(&(next_start, next, _))) =
            (self.lines.front(), self.lines.get(1))
        {
            let next_start = next_start - self.dead;
            if first < error_line
                && next <= error_line
                && ends_one_statement(&self.text()[..next_start])
            {
                first_line = next;
                range.start = next_start;
            }
        }
        (first_line, range)
    }

    /// The text of a bad statement found on line `error_line`, when it is known where it starts
    /// within a line (`start`: the line's number and the offset) or where it ends within the
    /// line `error_line` (`end`): from its start to its end, with a line break where it ends
    /// before its line does; `None` when only its lines are known ([`Pending::error_span`]).
    fn bad_statement(
        &self,
        error_line: u64,
        start: Option<(u64, usize)>,
        end: Option<usize>,
    ) -> Option<(u64, Vec<u8>)> {
        let (first_line, range) = self.error_range(error_line);
        let start = start.filter(|&(line, _)| line == first_line);
        if start.is_none() && end.is_none() {
            return None;
        }
        let error_line_at = self
            .lines
            .iter()
            .find(|&&(_, n, _)| n == error_line)
            .map_or(range.start, |&(at, ..)| at - self.dead);
        let from = range.start + start.map_or(0, |(_, offset)| offset);
        let to = end.map_or(range.end, |end| (error_line_at + end).min(range.end));
        let from = from.min(to);
        let mut text = self.text()[from..to].to_vec();
        if to < range.end && !text.last().copied().is_some_and(is_line_end) {
            // Cut before the end of its line (a statement follows it there): a line of its
            // own in the rejects. At the end of the input, the input's bytes as they are.
            text.push(b'\n');
        }
        Some((
            first_line + line_breaks(&self.text()[range.start..from]),
            text,
        ))
    }

    /// The TriG graph block open at the end of line `line_no`.
    fn block_after(&self, line_no: u64) -> Option<Rc<str>> {
        self.lines
            .iter()
            .find(|&&(_, n, _)| n == line_no)
            .and_then(|(_, _, block)| block.clone())
    }

    /// Takes the lines after `line_no` out, to be read again.
    fn take_after(&mut self, line_no: u64) -> VecDeque<(u64, Vec<u8>)> {
        let mut taken = VecDeque::new();
        let mut ends = self.lines.iter().skip(1).map(|&(start, ..)| start);
        for &(start, n, _) in &self.lines {
            let end = ends.next().unwrap_or(self.text.len());
            if n > line_no {
                taken.push_back((n, self.text[start..end].to_vec()));
            }
        }
        self.text.clear();
        self.dead = 0;
        self.lines.clear();
        taken
    }

    /// The lines kept, with the number of the first.
    fn into_leftover(mut self) -> (u64, Vec<u8>) {
        let first = self.lines.front().map_or(0, |&(_, n, _)| n);
        self.text.drain(..self.dead);
        (first, self.text)
    }
}

/// Gives the language tags of `quad`'s literals the case they are written with in `text` (its
/// lines): `oxttl` and the fast path lower-case them, and literals are left as they are.
fn keep_written_case(quad: &mut Quad, text: &[u8]) {
    let Term::Literal(literal) = &quad.object else {
        return;
    };
    let Some(tag) = literal.language() else {
        return;
    };
    let written = memchr::memchr_iter(b'@', text).find_map(|at| {
        let candidate = text.get(at + 1..at + 1 + tag.len())?;
        let ends = !text
            .get(at + 1 + tag.len())
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'-');
        (ends && candidate.eq_ignore_ascii_case(tag.as_bytes()) && candidate != tag.as_bytes())
            .then_some(candidate)
    });
    if let Some(written) = written.and_then(|w| std::str::from_utf8(w).ok()) {
        let literal = Literal::new_language_tagged_literal_unchecked(literal.value(), written);
        quad.object = literal.into();
    }
}

/// The most triples of one statement held before they go on anyway (a statement longer than
/// that, found bad, is written in part).
const MAX_HELD: usize = 1 << 16;

/// A line of `len` bytes in segments, cut at `cuts` (each the end of a statement): each
/// segment with whether it ends a statement. Without cuts, the whole line (maybe empty: the
/// end of the input).
fn segments(
    len: usize,
    cuts: Option<&[usize]>,
) -> impl Iterator<Item = (std::ops::Range<usize>, bool)> + '_ {
    let cuts = cuts.unwrap_or_default();
    let starts = std::iter::once(0).chain(cuts.iter().copied());
    let ends = cuts.iter().map(|&end| (end, true));
    let last = (cuts.last() != Some(&len) || cuts.is_empty()).then_some((len, false));
    starts
        .zip(ends.chain(last))
        .map(|(start, (end, ends_statement))| (start..end, ends_statement))
}

/// Where reading a piece of a document starts: after `lines_before` lines, the last of them
/// ending with `context`, the lines read since the last statement (which a statement's span
/// starts with, as if they had been read).
#[derive(Default)]
pub(crate) struct Resume<'a> {
    pub(crate) lines_before: u64,
    pub(crate) context: &'a [u8],
}

/// Where reading ended: the parser (with the prefixes and base declared) and the lines read
/// since the last statement, with the number of the first.
pub(crate) struct Ended {
    pub(crate) parser: LineParser,
    pub(crate) leftover: (u64, Vec<u8>),
}

/// Reads a text format line by line from `resume` on, through to the end of `input`; Turtle
/// in the common shape through [`super::turtle`], the rest through `oxttl`. `on_item` may stop
/// the reading with an error of its own (`E`), which the reader's own errors convert to.
pub(crate) fn read_lines<E: From<RewriteError>>(
    input: impl BufRead,
    parser: LineParser,
    resume: Resume<'_>,
    on_item: &mut impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<Ended, E> {
    read_lines_with(input, parser, resume, true, on_item)
}

/// [`read_lines`], all through `oxttl` unless `fast_turtle`.
fn read_lines_with<E: From<RewriteError>>(
    mut input: impl BufRead,
    mut parser: LineParser,
    resume: Resume<'_>,
    fast_turtle: bool,
    on_item: &mut impl FnMut(Item, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<Ended, E> {
    let mut pending = Pending::default();
    let context_lines = lines(resume.context);
    let first_context_line = resume.lines_before + 1 - context_lines.clone().count() as u64;
    for (n, text) in (first_context_line..).zip(context_lines) {
        pending.push(text, n, None);
    }
    let mut replay: VecDeque<(u64, Vec<u8>)> = VecDeque::new();
    let mut graphs = GraphTracker::default();
    let mut line = Vec::new();
    let mut line_no = resume.lines_before;
    // Lines before the current parser's first (it starts again after an error) and the lines
    // it did not read (read by the fast path).
    let mut lines_before = resume.lines_before;
    let mut groups = Groups::new(&parser).filter(|_| fast_turtle);
    // Turtle's triples are held until their statement ends: a statement is written whole or,
    // when it turns out bad, not at all.
    let hold = matches!(parser, LineParser::Turtle(_));
    let mut ends = StatementEnds::default();
    let mut held: Vec<(Quad, u64)> = Vec::new();
    // Where the statement being read starts, when it starts within a line: the line's number
    // and the offset in it.
    let mut statement_start: Option<(u64, usize)> = None;
    // A syntax error in a Turtle statement that goes on past its line: the statement's lines
    // are passed over, up to its end as the light scan finds it, and reported then, whole.
    let mut passing_over: Option<SyntaxError> = None;
    let mut input_ended = false;
    loop {
        let (ended, from_input) = match replay.pop_front() {
            Some((n, text)) => {
                line_no = n;
                line = text;
                (false, false)
            }
            None => {
                line.clear();
                if input_ended || read_line(&mut input, &mut line).map_err(RewriteError::from)? == 0
                {
                    input_ended = true;
                    (true, true)
                } else {
                    line_no += 1;
                    (false, true)
                }
            }
        };
        if let Some(groups) = groups.as_mut().filter(|g| from_input && g.takes_lines()) {
            if !ended && !groups.push(&line, line_no) {
                continue;
            }
            if !(ended && groups.is_empty()) {
                let read = groups.read(ended, &parser);
                if read == FastRead::Unsure {
                    replay.extend(groups.hand_to_oxttl());
                    continue;
                }
                // The statements read, all of them or those before one that needs more lines.
                let (lines, breaks) = groups.complete();
                for (n, text) in groups.lines().take(lines) {
                    pending.push(text, n, None);
                }
                lines_before += breaks;
                let declarations = || (parser.prefixes(), parser.base_iri());
                for (mut quad, n) in groups.triples() {
                    let span = pending.span(Some(n));
                    keep_written_case(&mut quad, span.text);
                    on_item(Item::Statement(quad), span, &declarations)?;
                    pending.keep_from(n);
                }
                if lines > 0 {
                    // `oxttl` goes on between statements. What follows the last statement read
                    // starts where it ends, as when `oxttl` reads it (a syntax error after it
                    // gives the rejects the same text); after only comments, where the last
                    // statement before them ends.
                    ends = StatementEnds::default();
                    if let Some(end) = groups.last_statement_end() {
                        statement_start = end;
                    }
                }
                groups.consume(lines);
                if read == FastRead::NeedsMore {
                    groups.needs_more();
                    continue;
                }
                if !ended {
                    continue;
                }
            }
        }
        // The line in segments, each ending a statement but the last: `oxttl` reads them one
        // at a time, and the triples of a statement go on once it ends (at once, where the
        // statements' ends are not known).
        let cuts = match (ended, hold) {
            (false, true) => ends.line(&line),
            _ => None,
        };
        if !ended {
            if matches!(parser, LineParser::TriG(_)) {
                graphs.scan(&line);
            }
            pending.push(&line, line_no, graphs.open_block());
        }
        let mut failed = None;
        let resumed = passing_over.is_some();
        if let Some(error) = passing_over.take() {
            match cuts.as_deref() {
                Some([]) if !ended => {
                    // Still in the bad statement.
                    passing_over = Some(error);
                    continue;
                }
                Some([end, ..]) => failed = Some((error, line_no, *end, true)),
                _ => failed = Some((error, line_no, line.len(), false)),
            }
        }
        let segments = segments(line.len(), cuts.as_deref()).filter(|_| !resumed);
        let waits = !ended
            && groups
                .as_ref()
                .is_some_and(|g| g.stays_in_long_string(&line));
        let mut asked = !waits && !resumed;
        for (segment, ends_statement) in segments {
            if ended {
                parser.end();
            } else {
                parser.extend(&line[segment.clone()]);
            }
            while let Some(result) = if waits { None } else { parser.next() } {
                asked = false;
                match result {
                    Ok(quad) => held.push((quad, line_no)),
                    Err(e) => {
                        let at = error_location(&e);
                        let error_line = lines_before + at.line().unwrap_or(1);
                        let location = Location::new(error_line, at.column().unwrap_or(1));
                        let error = SyntaxError::new(location, e.message());
                        failed = Some((error, error_line, segment.end, ends_statement));
                        break;
                    }
                }
            }
            if failed.is_some() {
                // The bad statement's triples read so far: never written.
                held.clear();
                break;
            }
            if ends_statement || cuts.is_none() || ended || held.len() > MAX_HELD {
                let declarations = || (parser.prefixes(), parser.base_iri());
                for (mut quad, n) in held.drain(..) {
                    let span = pending.span(Some(n));
                    keep_written_case(&mut quad, span.text);
                    on_item(Item::Statement(quad), span, &declarations)?;
                    pending.keep_from(n);
                }
                statement_start = ends_statement.then_some((line_no, segment.end));
            }
        }
        if asked {
            // Asked, and nothing came: `oxttl` read an open statement again, maybe.
            repeated_work(1);
        }
        if let Some((error, error_line, end, ends_statement)) = failed {
            if !resumed && !ends_statement && !ended && error_line == line_no && cuts.is_some() {
                passing_over = Some(error);
                continue;
            }
            let declarations = || (parser.prefixes(), parser.base_iri());
            let bad = ends_statement && error_line == line_no;
            let rejected = pending.bad_statement(error_line, statement_start, bad.then_some(end));
            let span = match &rejected {
                Some((first_line, text)) => Span {
                    first_line: *first_line,
                    column: None,
                    text,
                },
                None => pending.error_span(error_line),
            };
            on_item(
                Item::Notice(Notice::SyntaxError(error)),
                span,
                &declarations,
            )?;
            let graph_block = pending.block_after(error_line);
            parser = parser.restarted().map_err(E::from)?;
            graphs = GraphTracker::default();
            if let Some(label) = graph_block {
                parser.extend(label.as_bytes());
                parser.extend(b" { ");
                graphs.open = Some(label);
            }
            lines_before = error_line;
            let mut again = pending.take_after(error_line);
            statement_start = None;
            if bad && end < line.len() {
                // The statements after the bad one on its line are read again, after spaces
                // in place of what was read (so that their columns stay).
                let read = line[..end].iter().filter(|&&b| b & 0xC0 != 0x80).count();
                let mut rest = vec![b' '; read];
                rest.extend_from_slice(&line[end..]);
                again.push_front((line_no, rest));
                lines_before = line_no - 1;
                statement_start = Some((line_no, end));
            }
            again.extend(replay);
            replay = again;
            ends = StatementEnds::default();
            if let Some(groups) = &mut groups {
                groups.oxttl_read(&line, true, !replay.is_empty());
            }
            continue;
        }
        if let Some(groups) = groups.as_mut().filter(|_| !ended) {
            groups.oxttl_read(&line, false, !replay.is_empty());
        }
        if ended {
            let leftover = pending.into_leftover();
            return Ok(Ended { parser, leftover });
        }
    }
}

/// Which TriG graph block the text read so far is in, from a light scan of its tokens (IRIs,
/// strings and comments are skipped; the term before a `{` is its label). A block labelled
/// `[]` or a default-graph block `{ … }` has no label to open again.
#[derive(Default)]
struct GraphTracker {
    /// The label of the open block, if one is open.
    open: Option<Rc<str>>,
    /// The last term read since the last `.`, `{` or `}` (a candidate label).
    last_term: String,
}

impl GraphTracker {
    /// The named graph block open at the end of what has been scanned.
    fn open_block(&self) -> Option<Rc<str>> {
        self.open
            .clone()
            .filter(|label| !label.is_empty() && !label.starts_with('['))
    }

    fn scan(&mut self, line: &[u8]) {
        let mut at = 0;
        while let Some(&byte) = line.get(at) {
            match byte {
                b'#' => return,
                b'<' => {
                    let end = memchr::memchr(b'>', &line[at..]).map_or(line.len(), |e| at + e + 1);
                    self.last_term = String::from_utf8_lossy(&line[at..end]).into_owned();
                    at = end;
                }
                b'"' | b'\'' => {
                    at += 1;
                    while let Some(&b) = line.get(at) {
                        at += if b == b'\\' { 2 } else { 1 };
                        if b == byte {
                            break;
                        }
                    }
                    self.last_term.clear();
                }
                b'{' => {
                    if self.open.is_none() {
                        self.open = Some(std::mem::take(&mut self.last_term).into());
                    }
                    at += 1;
                }
                b'}' | b'.' => {
                    if byte == b'}' {
                        self.open = None;
                    }
                    self.last_term.clear();
                    at += 1;
                }
                b if b.is_ascii_whitespace() => at += 1,
                _ => {
                    let end = line[at..]
                        .iter()
                        .position(|b| b.is_ascii_whitespace() || b"{}<\"'#".contains(b))
                        .map_or(line.len(), |e| at + e);
                    let term = String::from_utf8_lossy(&line[at..end]);
                    if !term.eq_ignore_ascii_case("graph") {
                        self.last_term = term.into_owned();
                    }
                    at = end.max(at + 1);
                }
            }
        }
    }
}

/// Turtle read with and without the fast path, for the fuzz targets
/// (`crate::fuzzing::turtle_items`) and the tests below.
#[cfg(feature = "fuzzing")]
impl crate::fuzzing::Internals {
    pub(crate) fn turtle_items(text: &[u8], base: &str, fast: bool) -> Vec<String> {
        let parser = LineParser::declared(RdfFormat::Turtle, Some(base), &[])
            .expect("a valid base")
            .expect("Turtle has a line parser");
        let mut made_up = crate::fuzzing::MadeUp::default();
        let mut items = Vec::new();
        let ended = read_lines_with(
            text,
            parser,
            Resume::default(),
            fast,
            &mut |item, span, declarations| {
                let item = match item {
                    Item::Statement(quad) => made_up.quad(&quad),
                    Item::Notice(Notice::SyntaxError(e)) => format!("error {e}"),
                    Item::Notice(Notice::Warning(at, w)) => format!("warning {at} {w}"),
                    Item::Mapped(_) => unreachable!("only pieces are mapped"),
                };
                let lines = String::from_utf8_lossy(span.text);
                items.push(format!(
                    "{item} | {} {lines:?} | {:?}",
                    span.first_line,
                    declarations()
                ));
                Ok::<(), RewriteError>(())
            },
        )
        .expect("reads");
        items.push(format!(
            "left {:?} {:?} {:?}",
            ended.leftover,
            ended.parser.prefixes(),
            ended.parser.base_iri()
        ));
        items
    }
}

#[cfg(test)]
mod fast_turtle {
    //! Turtle read through the fast path gives what `oxttl` alone gives: the same statements,
    //! errors, lines and declarations, item by item — on every Turtle file of the W3C suites
    //! and the real corpus, and on each with bad lines put in.

    use std::path::Path;

    /// Every item of `text` with its lines and the declarations at it, then what is left.
    fn items(text: &[u8], base: &str, fast: bool) -> Vec<String> {
        crate::fuzzing::turtle_items(text, base, fast)
    }

    /// Compares both ways: panics at the first item that differs; gives how many statements.
    fn agree(path: &str, text: &[u8], base: &str) -> usize {
        let expected = items(text, base, false);
        let fast = items(text, base, true);
        if let Some(at) =
            (0..expected.len().max(fast.len())).find(|&i| expected.get(i) != fast.get(i))
        {
            panic!(
                "{path}: {:?}\nitem {at}\noxttl: {:?}\nfast:  {:?}",
                String::from_utf8_lossy(text),
                expected.get(at),
                fast.get(at)
            );
        }
        fast.iter().filter(|i| !i.starts_with("error")).count()
    }

    /// Lines that break a statement in different ways, to put in.
    const BAD: [&str; 4] = [
        "this is not turtle .\n",
        "<http://a b> <http://p> \"x\" .\n",
        "<http://s> <http://p> \"open\n",
        "@prefix : <http://changed/> .\n",
    ];

    #[test]
    fn gives_what_oxttl_gives() {
        let paths = crate::rewrite::fixture_files(&["w3c", "real", "examples", "turtle"], &["ttl"]);
        assert!(paths.len() > 400, "{} Turtle files", paths.len());
        let mut statements = 0;
        for path in &paths {
            let text = std::fs::read(path).expect("readable");
            let base = format!("http://example.org/tests/{}", path.display());
            // As it is, with a comment after each statement's end, and with bad lines put in.
            let commented = String::from_utf8_lossy(&text).replace(" .\n", " . # end.\n");
            // Lines ended by a CR alone and by CRLF: Turtle's line breaks as well as LF.
            let ended = |end: &str| String::from_utf8_lossy(&text).replace('\n', end);
            let mut variants = vec![
                text.clone(),
                commented.clone().into_bytes(),
                ended("\r").into_bytes(),
                commented.replace('\n', "\r").into_bytes(),
                ended("\r\n").into_bytes(),
            ];
            let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
            for (i, bad) in BAD.iter().enumerate() {
                let at = lines.len() * (i + 1) / (BAD.len() + 1);
                let mut variant = lines[..at].concat();
                variant.extend_from_slice(bad.as_bytes());
                variant.extend_from_slice(&lines[at..].concat());
                variants.push(variant);
            }
            for variant in &variants {
                statements += agree(&path.display().to_string(), variant, &base);
            }
        }
        let fast = super::turtle::READ_FAST.get();
        assert!(
            statements > 10_000 && fast * 2 > statements,
            "{statements} statements compared, {fast} read by the fast path"
        );
        eprintln!("{statements} statements compared, {fast} read by the fast path");
    }

    /// The edges of the common shape, each as a statement of its own, without and with an
    /// end of line.
    #[test]
    fn agrees_at_the_edges_of_the_common_shape() {
        let header = "@prefix ex: <http://example/> .\n@prefix : <http://e/> .\n\
                      @prefix e.x: <http://x/> .\n";
        let bodies = [
            r#"ex:a ex:b ex:c.d ."#,
            r#"ex:a ex:b ex:c. "#,
            r#"ex:a ex:b ex:c.."#,
            r#"ex:a ex:b ex:.c ."#,
            r#"ex:a ex:b ex:-c ."#,
            r#"ex:a ex:b ex:c-d ."#,
            r#"ex:a ex:b ex:1 ."#,
            r#"ex:a ex:b ex:c:d ."#,
            r#"ex:a ex:b ex:%41%zz ."#,
            r#"ex:a ex:b ex:%41 ."#,
            r#"ex:a ex:b ex:c\-d ."#,
            r#"ex:a ex:b ex:é ."#,
            r#"ex:a ex:b :c ."#,
            r#"ex:a ex:b : ."#,
            r#"ex:a ex:b e.x:c ."#,
            r#"ex:a ex:b ex.:c ."#,
            r#"ex:a ex:b undeclared:c ."#,
            r#"ex:a a ex:c ."#,
            r#"ex:a ex:b a ."#,
            r#"a ex:b ex:c ."#,
            r#"ex:a ex:b true ."#,
            r#"ex:a ex:b true."#,
            r#"ex:a ex:b false,true ."#,
            r#"ex:a ex:b true:x ."#,
            r#"ex:a ex:b truex ."#,
            r#"ex:a ex:b 1 ."#,
            r#"ex:a ex:b 1."#,
            r#"ex:a ex:b 1.5."#,
            r#"ex:a ex:b -1 ."#,
            r#"ex:a ex:b +1.0 ."#,
            r#"ex:a ex:b 1e5 ."#,
            r#"ex:a ex:b .5 ."#,
            r#"ex:a ex:b 1.e ."#,
            r#"ex:a ex:b - ."#,
            r#"ex:a ex:b 01 ."#,
            r#"ex:a ex:b 1ex:c ."#,
            r#"ex:a ex:b "" ."#,
            r#"ex:a ex:b '' ."#,
            r#"ex:a ex:b """""" ."#,
            r#"ex:a ex:b """a"b""c""" ."#,
            r#"ex:a ex:b """a"""" ."#,
            "ex:a ex:b '''x\ny''' .",
            "ex:a ex:b \"\"\"x\r\ny\"\"\"@en .",
            r#"ex:a ex:b "a\tb\u00e9\U0001F600" ."#,
            r#"ex:a ex:b "\uD800" ."#,
            r#"ex:a ex:b "\q" ."#,
            "ex:a ex:b \"a\rb\" .",
            r#"ex:a ex:b "x"@en-GB ."#,
            r#"ex:a ex:b "x"@EN ."#,
            r#"ex:a ex:b "x" @en ."#,
            "ex:a ex:b \"x\"\n@en .",
            r#"ex:a ex:b "x"@en--ltr ."#,
            r#"ex:a ex:b "x"@en- ."#,
            r#"ex:a ex:b "x"@1 ."#,
            r#"ex:a ex:b "x"@en_GB ."#,
            r#"ex:a ex:b "x"@abcdefghi ."#,
            r#"ex:a ex:b "x"^^ex:t ."#,
            r#"ex:a ex:b "x" ^^ <http://t> ."#,
            r#"ex:a ex:b "x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> ."#,
            r#"ex:a ex:b "x"^^<http://www.w3.org/2001/XMLSchema#string> ."#,
            r#"ex:a ex:b "x"^ex:t ."#,
            r#"ex:a ex:b ex:c ; ."#,
            r#"ex:a ex:b ex:c ;; ex:d ex:e ."#,
            r#"ex:a ex:b ex:c ; ex:d ex:e ; ."#,
            r#"ex:a ex:b ex:c , ."#,
            r#"ex:a ex:b [] ."#,
            r#"ex:a ex:b [ ] ."#,
            r#"ex:a ex:b [ ex:c "x" ] ."#,
            r#"ex:a ex:b [ ex:c [ ex:d "y" ] ; ex:e ex:f ] , [] ."#,
            r#"ex:a ex:b [ ex:c ex:d ; ] ."#,
            r#"[ ex:c ex:d ] ex:b ex:c ."#,
            r#"[] ex:b ex:c ."#,
            r#"ex:a ex:b ( ex:c ) ."#,
            r#"_:b ex:b _:c.d ."#,
            r#"_:b ex:b _:c. "#,
            r#"_:1 ex:b _:-c ."#,
            r#"_:b.c ex:b ex:c ."#,
            r#"_: ex:b ex:c ."#,
            r#"<s> <p> <o> ."#,
            r#"<http://a/b/../c> <p> <./o> ."#,
            r#"<http://a b> <p> <o> ."#,
            r#"<http://a/\u0041> <p> <o> ."#,
            r#"<http://a> <http://p> <http://o>."#,
            r#"<http://a><http://p><http://o>."#,
            r#"ex:a<http://p>ex:c."#,
            r#"ex:a ex:b ex:c .5"#,
            r#"ex:a ex:b ex:c . ex:d ex:e ex:f ."#,
            "ex:a ex:b ex:c # comment\n .",
            r#"ex:a ex:b ex:c . # comment"#,
            "ex:a ex:b ex:c . # comment\rex:d ex:e ex:f .",
            "ex:a ex:b \"x\" # c\n , \"y\" .",
            r#"ex:a ex:b ex:c {| ex:d ex:e |} ."#,
            r#"ex:a ex:b ex:c ~ ex:r ."#,
            r#"<< ex:a ex:b ex:c >> ex:d ex:e ."#,
            "PREFIX ex: <http://other/>\nex:a ex:b ex:c .",
            "@base <http://base/> .\n<a> <b> <c> .",
            "BASE <http://b2/>\n<a> <b> <c> .",
            "ex:a ex:b ex:c",
            "ex:a ex:b",
            "ex:a",
            "ex:a\tex:b\tex:c\t.",
            "ex:a ex:b ex:c .\r\n ex:d ex:e ex:f .",
            "ex:a ex:b \"\"\"one.\ntwo.\nthree.\"\"\" .\nex:c ex:d ex:e .",
            "ex:a ex:b ex:c . ex:d ex:e \"\"\"x.\ny.\"\"\" .\n  ex:f ex:g \"\"\"z.\n\"\"\" .",
            "ex:a ex:b ex:c . # one.\n ex:d ex:e ex:f ; # two.\n ex:g ex:h . # three",
        ];
        // `[` nested within the fast path's depth and past it.
        let nested = [10, 40].map(|depth| {
            let open = "[ ex:p ".repeat(depth);
            format!("ex:a ex:b {open}ex:c{} .", " ]".repeat(depth))
        });
        let mut statements = 0;
        for body in bodies
            .iter()
            .copied()
            .chain(nested.iter().map(String::as_str))
        {
            for end in ["", "\n", "\n\nex:z ex:y ex:x .\n"] {
                let text = format!("{header}{body}{end}");
                statements += agree(body, text.as_bytes(), "http://base.example/dir/doc");
            }
        }
        assert!(statements > 300, "{statements}");
    }

    /// The work done again and again reading `text`, and its bound if that work grows linearly:
    /// twice its bytes, and 16 per line.
    fn repeated_work_reading(text: &str) -> (usize, usize) {
        crate::rewrite::graph::REPEATED_WORK.with(|work| work.set(0));
        items(text.as_bytes(), "http://base.example/", true);
        let work = crate::rewrite::graph::REPEATED_WORK.with(std::cell::Cell::get);
        (work, 2 * text.len() + 16 * text.lines().count())
    }

    #[test]
    fn declarations_cost_the_same_whatever_came_before() {
        let n = 4_000;
        let pairs: String = (0..n)
            .map(|i| format!("@prefix p{i}: <http://e/{i}/> .\np{i}:a p{i}:b p{i}:c .\n"))
            .collect();
        let declarations: String = (0..n)
            .map(|i| format!("@prefix p{i}: <http://e/{i}/> .\n"))
            .chain(["p1:a p2:b p3:c .\n".to_owned()])
            .collect();
        for text in [pairs, declarations] {
            let (work, linear) = repeated_work_reading(&text);
            assert!(work <= linear, "{work} > {linear}");
        }
    }

    #[test]
    fn a_statement_over_many_lines_is_read_once() {
        // Longer than a group of the fast path: `oxttl` reads it line by line.
        let text = format!(
            "<http://a> <http://b> \"\"\"{}\"\"\" .\n",
            "line\n".repeat(300_000)
        );
        let (work, _) = repeated_work_reading(&text);
        // The lines, forgotten once, moved at most once in all; `oxttl` not asked again for
        // each line (each time, it scanned the string from its start).
        assert!(work <= text.len() + 1_000, "{work} > {}", text.len());
    }

    /// Random changes of one to three bytes to Turtle in the common shape, compared both ways.
    #[test]
    fn agrees_on_changed_text() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        changed(&root.join("examples/repository.ttl"), 2_000);
        changed(&root.join("turtle/generated.ttl"), 200);
    }

    fn changed(path: &Path, variants: usize) {
        let text = std::fs::read(path).expect("readable");
        let name = format!("{}, changed", path.display());
        let bytes = "_-.;,[]()\"'\\#@^<>:0e\n\r aé\t{}|~".as_bytes();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..variants {
            let mut variant = text.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % variant.len() as u64) as usize;
                variant[at] = bytes[(next() % bytes.len() as u64) as usize];
            }
            agree(&name, &variant, "http://base.example/");
        }
    }
}

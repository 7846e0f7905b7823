//! Reading a text format line by line, through `oxttl`'s low-level parsers and, for Turtle in
//! its common shape, the fast path ([`super::turtle`]), with the text of the lines each
//! statement spans.
//!
//! After a syntax error, reading starts again with a new parser (knowing the prefixes and base
//! declared so far) at the line after the one where the error was found — not where the lexer
//! gave up, which for an unterminated string is the end of the file — so a bad statement costs
//! only itself. The lines since the last statement are kept for that ([`Pending`]). In TriG, the new parser is put back into the graph block the error was in.

use super::graph_blocks::GraphTracker;
use super::line_parser::{LineParser, error_location};
use super::pending::Pending;
use super::scan::{StatementEnds, starts_with_directive};
use super::turtle::{FastRead, Groups};
use super::{Declarations, Item, Notice, ReadError, Span, SyntaxError, repeated_work};
use crate::language_tag::with_written_tag;
use crate::position::{Location, lines, read_line};
use oxrdf::{Quad, Term};
use std::collections::VecDeque;
use std::io::BufRead;
use std::rc::Rc;

/// Where the last language tag given its written case ends: a line's number and the offset
/// in it. The next literal's tag is looked for after it, so that two literals of one value
/// tagged in two cases take each its own.
#[derive(Clone, Copy, Default)]
struct TagCursor {
    line: u64,
    offset: usize,
}

/// Gives the language tag of `quad`'s literal the case it is written with in the lines kept up
/// to line `line_no`: `oxttl` and the fast path lower-case tags, and literals are left as they
/// are. The tag is the first after `cursor` (literals come in the order they are written) that
/// follows a string holding the literal's value as written; where none does (an escape in the
/// value), the first after `cursor` of that name written in another case. A base direction
/// after the tag (`@en--ltr`) is kept.
fn keep_written_case(quad: &mut Quad, pending: &Pending, line_no: u64, cursor: &mut TagCursor) {
    let Term::Literal(literal) = &quad.object else {
        return;
    };
    let Some(tag) = literal.language() else {
        return;
    };
    let text = pending.span(Some(line_no)).text;
    let from = pending
        .offset_of(cursor.line, cursor.offset)
        .unwrap_or(0)
        .min(text.len());
    let mut other_case = None;
    let mut own = None;
    for at in memchr::memchr_iter(b'@', &text[from..]).map(|at| from + at) {
        let end = at + 1 + tag.len();
        let Some(candidate) = text.get(at + 1..end) else {
            continue;
        };
        let ends = text[end..].starts_with(b"--")
            || !text
                .get(end)
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'-');
        if !ends || !candidate.eq_ignore_ascii_case(tag.as_bytes()) {
            continue;
        }
        if after_string_of(&text[..at], literal.value()) {
            own = Some((candidate, end));
            break;
        }
        if other_case.is_none() && candidate != tag.as_bytes() {
            other_case = Some((candidate, end));
        }
    }
    let Some((written, end)) = own.or(other_case) else {
        return;
    };
    (cursor.line, cursor.offset) = pending.position_of(end);
    match std::str::from_utf8(written) {
        Ok(written) if written != tag => quad.object = with_written_tag(literal, written).into(),
        _ => {}
    }
}

/// Hands on statements, each with the number of the line it was read on, its language tag in
/// the case written, and the lines it spans; the lines before each are then forgotten. The
/// statements of `oxttl` have their tags lower-cased (given back their written case here); those
/// of the fast path, `tags_as_written`, have them as written already.
fn hand_on<D, E>(
    statements: impl IntoIterator<Item = (Quad, u64)>,
    tags_as_written: bool,
    pending: &mut Pending,
    tag_cursor: &mut TagCursor,
    declarations: &dyn Fn() -> Declarations,
    on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<(), E> {
    for (mut quad, n) in statements {
        if !tags_as_written {
            keep_written_case(&mut quad, pending, n, tag_cursor);
        }
        on_item(Item::Statement(quad), pending.span(Some(n)), declarations)?;
        pending.keep_from(n);
    }
    if tags_as_written {
        // The tags of the fast path's lines are theirs: the next one to give its written case
        // (of a statement `oxttl` reads next) is looked for after them.
        (tag_cursor.line, tag_cursor.offset) = pending.position_of(pending.len());
    }
    Ok(())
}

/// [`hand_on`] for the statements `oxttl` parsed and `held` (their tags lower-cased), with the
/// declarations `parser` knows.
fn hand_on_parsed<D, E>(
    held: &mut Vec<(Quad, u64)>,
    pending: &mut Pending,
    tag_cursor: &mut TagCursor,
    parser: &LineParser,
    on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<(), E> {
    let declarations = || (parser.prefixes(), parser.base_iri());
    hand_on(
        held.drain(..),
        false,
        pending,
        tag_cursor,
        &declarations,
        on_item,
    )
}

/// Whether `before` ends with a string (short or long, either quote) that holds `value` as it
/// is written, then maybe spaces.
fn after_string_of(before: &[u8], value: &str) -> bool {
    let before = before.trim_ascii_end();
    let Some(&quote) = before.last().filter(|&&q| q == b'"' || q == b'\'') else {
        return false;
    };
    let delimiter: &[u8] = if before.ends_with(&[quote; 3]) && before.len() >= 6 + value.len() {
        &[quote; 3]
    } else {
        &[quote]
    };
    before
        .strip_suffix(delimiter)
        .and_then(|body| body.strip_suffix(value.as_bytes()))
        .is_some_and(|start| start.ends_with(delimiter))
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
pub(crate) fn read_lines<D, E: From<ReadError>>(
    input: impl BufRead,
    parser: LineParser,
    resume: Resume<'_>,
    on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<Ended, E> {
    read_lines_with(input, parser, resume, true, on_item)
}

/// [`read_lines`], all through `oxttl` unless `fast_turtle`.
fn read_lines_with<D, E: From<ReadError>>(
    mut input: impl BufRead,
    mut parser: LineParser,
    resume: Resume<'_>,
    fast_turtle: bool,
    on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<Ended, E> {
    let mut pending = Pending::default();
    let mut tag_cursor = TagCursor::default();
    let context_lines = lines(resume.context);
    let first_context_line = resume.lines_before + 1 - context_lines.clone().count() as u64;
    for (n, text) in (first_context_line..).zip(context_lines) {
        pending.push(text, n, None);
        // The context's tags are the statements' before it, taken already.
        tag_cursor = TagCursor {
            line: n,
            offset: text.len(),
        };
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
    // The last line read again from its start because a statement was found unfinished at the
    // directive starting it: found so again, it is an error of the directive's own.
    let mut directive_restart: Option<u64> = None;
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
                if input_ended || read_line(&mut input, &mut line).map_err(ReadError::from)? == 0 {
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
                    if let Some(block) = groups.block_to_enter() {
                        let opening_line;
                        (parser, graphs, opening_line) = restarted_in(&parser, block)?;
                        let first = replay.front().map_or(line_no, |&(n, _)| n);
                        lines_before = first - 1 - opening_line;
                    }
                    continue;
                }
                // The statements read, all of them or those before one that needs more lines.
                let (lines, breaks) = groups.complete();
                for (n, text, block) in groups.lines_read(lines) {
                    pending.push(text, n, block);
                }
                lines_before += breaks;
                let declarations = || (parser.prefixes(), parser.base_iri());
                let triples = groups.triples();
                hand_on(
                    triples,
                    true,
                    &mut pending,
                    &mut tag_cursor,
                    &declarations,
                    on_item,
                )?;
                if lines > 0 && hold {
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
            if let Some(block) = groups.block_to_enter() {
                // `oxttl` ends the input in the TriG graph block the fast path ended it in (in
                // one, the last line ends with a line break: the block is not closed at the
                // start of the line after it, where `oxttl` alone finds it).
                let opening_line;
                (parser, graphs, opening_line) = restarted_in(&parser, block)?;
                lines_before = line_no - opening_line;
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
                // A statement never holds a directive: one that starts the line ends the bad
                // statement before it (skipped, a prefix redefinition would give every later
                // name the wrong namespace).
                _ if !ended && starts_with_directive(&line) => {
                    failed = Some((error, line_no, 0, true));
                }
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
            // After a `.` glued to the next token, `oxttl` hands on the ended statement's last
            // triple once it has read the byte after the `.`: that byte is given alone first,
            // and what it brings is the ended statement's.
            let glued = segment.start > 0 && line[segment.start - 1] == b'.' && segment.len() > 1;
            let parts = match glued {
                true => [
                    segment.start..segment.start + 1,
                    segment.start + 1..segment.end,
                ],
                false => [segment.clone(), segment.end..segment.end],
            };
            for (part, range) in parts.into_iter().enumerate() {
                if ended {
                    parser.end();
                } else if part == 0 || !range.is_empty() {
                    parser.extend(&line[range]);
                } else {
                    break;
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
                            failed = Some(
                                if matches!(parser, LineParser::Turtle(_) | LineParser::TriG(_))
                                    && error_line == line_no
                                    && directive_ends_statement(
                                        &line,
                                        at.column(),
                                        &mut directive_restart,
                                        line_no,
                                    )
                                {
                                    // An unfinished statement, then a directive: the statement
                                    // ends before the directive's line, which is read again.
                                    (error, error_line, 0, true)
                                } else if error_line < line_no && cuts.is_some() {
                                    // A token that starts on an earlier line and ends on this
                                    // one (a long string), followed by the scan: the bad
                                    // statement is passed over from here, not read again
                                    // from the line after the token's start.
                                    (error, line_no, segment.end, ends_statement)
                                } else {
                                    (error, error_line, segment.end, ends_statement)
                                },
                            );
                            break;
                        }
                    }
                }
                if glued && part == 0 {
                    hand_on_parsed(&mut held, &mut pending, &mut tag_cursor, &parser, on_item)?;
                }
                if failed.is_some() || ended {
                    break;
                }
            }
            if failed.is_some() {
                // The bad statement's triples read so far: never written.
                held.clear();
                break;
            }
            if ends_statement || cuts.is_none() || ended || held.len() > MAX_HELD {
                hand_on_parsed(&mut held, &mut pending, &mut tag_cursor, &parser, on_item)?;
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
            // Read again from the start of a line (a directive's), the block open before it.
            let graph_block = pending.block_after(if bad && end == 0 {
                error_line - 1
            } else {
                error_line
            });
            let opening_line;
            (parser, graphs, opening_line) = restarted_in(&parser, graph_block)?;
            lines_before = error_line - opening_line;
            let mut again = pending.take_after(error_line);
            statement_start = None;
            if bad && end < line.len() {
                // The statements after the bad one on its line are read again, after spaces
                // in place of what was read (so that their columns stay).
                let mut rest = in_spaces(&line[..end]);
                rest.extend_from_slice(&line[end..]);
                again.push_front((line_no, rest));
                lines_before = line_no - 1 - opening_line;
                statement_start = Some((line_no, end));
            }
            again.extend(replay);
            replay = again;
            ends = StatementEnds::default();
            if let Some(groups) = &mut groups {
                groups.oxttl_read(&line, true, !replay.is_empty(), graphs.label());
            }
            continue;
        }
        if let Some(groups) = groups.as_mut().filter(|_| !ended) {
            groups.oxttl_read(&line, false, !replay.is_empty(), graphs.label());
        }
        if ended {
            let leftover = pending.into_leftover();
            return Ok(Ended { parser, leftover });
        }
    }
}

/// A new parser knowing the declarations `parser` knows, in the TriG graph block labelled
/// `block` if any, with a tracker in it; and how many lines it was given to open the block
/// (one of its own, so that the lines read next keep their columns).
fn restarted_in(
    parser: &LineParser,
    block: Option<Rc<str>>,
) -> Result<(LineParser, GraphTracker, u64), ReadError> {
    // A new parser is given every prefix again.
    super::repeated_work(parser.prefix_count());
    let mut parser = parser.restarted()?;
    let Some(label) = block else {
        return Ok((parser, GraphTracker::default(), 0));
    };
    parser.extend(label.as_bytes());
    parser.extend(b" {\n");
    Ok((parser, GraphTracker::in_block(label), 1))
}

/// A space for each character of `text` (`oxttl` counts columns in characters).
fn in_spaces(text: &[u8]) -> Vec<u8> {
    vec![b' '; text.iter().filter(|&&b| b & 0xC0 != 0x80).count()]
}

/// Whether an error at `column` of `line` (line number `line_no`) is an unfinished statement
/// met by the directive that starts the line, so that the statement ends before the line (and
/// the line is read again, at most once: `restarted` remembers it).
fn directive_ends_statement(
    line: &[u8],
    column: Option<u64>,
    restarted: &mut Option<u64>,
    line_no: u64,
) -> bool {
    let indent = line
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count() as u64;
    let found =
        column == Some(indent + 1) && *restarted != Some(line_no) && starts_with_directive(line);
    if found {
        *restarted = Some(line_no);
    }
    found
}

/// Turtle or TriG read with and without the fast path, for the fuzz targets
/// (`crate::fuzzing::turtle_items`, `crate::fuzzing::trig_items`) and the tests below.
#[cfg(feature = "fuzzing")]
impl crate::fuzzing::Internals {
    pub(crate) fn turtle_items(text: &[u8], base: &str, fast: bool) -> Vec<String> {
        Self::items(super::RdfFormat::Turtle, text, base, fast)
    }

    pub(crate) fn trig_items(text: &[u8], base: &str, fast: bool) -> Vec<String> {
        Self::items(super::RdfFormat::TriG, text, base, fast)
    }

    pub(crate) fn items(
        format: super::RdfFormat,
        text: &[u8],
        base: &str,
        fast: bool,
    ) -> Vec<String> {
        let parser = LineParser::declared(format, Some(base), &[])
            .expect("a valid base")
            .expect("a text format has a line parser");
        let mut made_up = crate::fuzzing::MadeUp::default();
        let mut items = Vec::new();
        let ended = read_lines_with::<super::NoWork, _>(
            text,
            parser,
            Resume::default(),
            fast,
            &mut |item, span, declarations| {
                let item = match item {
                    Item::Statement(quad) => made_up.quad(&quad),
                    Item::Notice(Notice::SyntaxError(e)) => format!("error {e}"),
                    Item::Notice(Notice::Warning(at, w)) => format!("warning {at} {w}"),
                    Item::Piece(never) => match *never {},
                };
                let lines = String::from_utf8_lossy(span.text);
                items.push(format!(
                    "{item} | {} {lines:?} | {:?}",
                    span.first_line,
                    declarations()
                ));
                Ok::<(), ReadError>(())
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

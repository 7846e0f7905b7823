//! Where Turtle statements end, found by a light lexical scan that follows strings, IRIs,
//! comments, escapes and brackets without parsing: where a text read on several threads is cut
//! into pieces ([`super::parallel`]), which lines of the fast path's input end a statement
//! ([`Boundaries`]), and where a bad statement ends for `--lenient` to start again after it
//! ([`StatementEnds`], [`ends_one_statement`]); and what is an IRI, a string or a comment, for
//! the TriG graph blocks a text read line by line is in ([`Scanner::lex`],
//! [`super::graph_blocks`]). A line break is what `crate::position` says it
//! is (`\n`, `\r\n`, or a `\r` alone).
//!
//! The scan only guesses: every reader that uses it checks its guesses against what the parsers
//! find, and where the text cannot be Turtle the scan loses track and finds no more ends.

use crate::position::{is_line_end, line_start};

/// The most text a scan holds without finding a statement end: past it, a text read on several
/// threads is read on one from there, and the fast path hands the text to `oxttl`.
pub(super) const MAX_PIECE: usize = 1 << 26;

/// Where a piece can end: after the line break that follows a statement's final `.`.
pub(super) struct Cut {
    pub(super) end: usize,
    /// Where the lines since the last statement start: at the line of its final `.`.
    pub(super) leftover: usize,
    /// Whether the piece holds a directive.
    pub(super) declares: bool,
}

/// The bytes the scan stops at within a statement: line breaks (where a piece may end), and
/// what starts or ends a comment, an IRI, a string, an escape, brackets or a statement.
static SPECIAL: [bool; 256] = {
    let mut special = [false; 256];
    let mut i = 0;
    let bytes = b"\n#<>\"'\\[](){}.";
    while i < bytes.len() {
        special[bytes[i] as usize] = true;
        i += 1;
    }
    special
};

/// The lexical state of the scan.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum State {
    /// Between tokens, or in a token without quotes or brackets.
    #[default]
    Code,
    /// After a statement's final `.`: spaces, a comment and a line break may follow.
    AfterDot,
    /// In a comment after a statement's final `.`.
    AfterDotComment,
    Comment,
    Iri,
    /// In a string quoted by the byte; `long` for `"""` / `'''`.
    String {
        quote: u8,
        long: bool,
    },
}

/// Finds where statements end in Turtle text, following strings, IRIs, comments, escapes and
/// brackets; and whether a statement is a directive (as [`starts_with_directive`] tells it:
/// `@prefix`, `@base`, `@version`, `PREFIX`, `BASE`, `VERSION`). It loses track (and finds no
/// more ends) where the text cannot be Turtle.
pub(super) struct Scanner {
    state: State,
    /// How far the buffer has been scanned.
    at: usize,
    /// The brackets open: `[`, `(`, `{` and `<<`; `braces` of them are `{`.
    depth: usize,
    braces: usize,
    /// At the start of a statement (only spaces and comments since the last one).
    statement_start: bool,
    /// A directive was seen since the last cut.
    declares: bool,
    /// The start of the line of the last statement's final `.`.
    dot_line: usize,
    /// The text cannot be Turtle here: no more cuts.
    pub(super) lost: bool,
    /// Whether every statement's end is looked for, as a reader that holds a statement's
    /// triples until it ends, and passes over bad statements, needs ([`StatementEnds`]): a
    /// `.` that a token follows without a space can end one ([`dot_ends_statement`]), so can a
    /// `.` and a space within `[`, `(` or `<<`; a closing bracket never opened is passed over.
    every_end: bool,
    /// Where such a `.` was just found: the offset after it.
    glued_end: Option<usize>,
    /// TriG: statements also end at the top of a graph block (`{` brackets only), which
    /// its `{` and `}` end as well; a `}` never opened closes a block read from within.
    blocks: bool,
}

impl Default for Scanner {
    fn default() -> Self {
        Self {
            state: State::Code,
            at: 0,
            depth: 0,
            braces: 0,
            statement_start: true,
            declares: false,
            dot_line: 0,
            lost: false,
            every_end: false,
            glued_end: None,
            blocks: false,
        }
    }
}

impl Scanner {
    /// Where a piece of at least `min` bytes of `buffer` can end, scanning on from where the
    /// last call stopped; at the end of the input, the rest of it; `whole_lines` when `buffer`
    /// ends with a whole line (a `\r` at its end is a line break of its own, not the start of
    /// a `\r\n`).
    pub(super) fn cut_after(
        &mut self,
        buffer: &[u8],
        ended: bool,
        min: usize,
        whole_lines: bool,
    ) -> Option<Cut> {
        if self.at == 0 && buffer.is_empty() {
            return None;
        }
        if self.lost {
            return None;
        }
        while self.at < buffer.len() {
            let Some(step) = self.step(buffer, ended) else {
                // Needs more input to decide.
                break;
            };
            self.at += step;
            if self.lost {
                return None;
            }
            // A piece ends at a line break, never between the `\r` and the `\n` of a `\r\n`.
            let line_end = match buffer[self.at - 1] {
                b'\n' => true,
                b'\r' => buffer
                    .get(self.at)
                    .map_or(whole_lines || ended, |&next| next != b'\n'),
                _ => false,
            };
            if self.state == State::Code
                && self.at_top()
                && line_end
                && self.statement_start
                && self.at >= min
            {
                return Some(Cut {
                    end: self.at,
                    declares: std::mem::take(&mut self.declares),
                    leftover: self.dot_line,
                });
            }
        }
        (ended && !buffer.is_empty() && self.at >= buffer.len()).then(|| Cut {
            end: buffer.len(),
            declares: std::mem::take(&mut self.declares),
            leftover: self.dot_line,
        })
    }

    /// Whether the scan is between tokens of statements, not within brackets (but those of
    /// TriG's graph blocks).
    fn at_top(&self) -> bool {
        self.depth == if self.blocks { self.braces } else { 0 }
    }

    /// The buffer lost its first `end` bytes (a piece cut there).
    pub(super) fn cut_at(&mut self, end: usize) {
        self.at -= end;
        self.dot_line = self.dot_line.saturating_sub(end);
    }

    /// Scans the token at `self.at`; gives how many bytes it took, or `None` when more input
    /// is needed to tell.
    fn step(&mut self, buffer: &[u8], ended: bool) -> Option<usize> {
        // At the end of the input, a token may look past it (a `\` that ends a string, whose
        // escaped byte would be there): the step ends with the input.
        let left = buffer.len() - self.at;
        self.token(buffer, ended).map(|step| step.min(left))
    }

    /// [`Scanner::step`], the step maybe past the end of an ended input.
    fn token(&mut self, buffer: &[u8], ended: bool) -> Option<usize> {
        let rest = &buffer[self.at..];
        let byte = rest[0];
        let peek = |n: usize| peek(rest, n, ended);
        match self.state {
            State::Comment | State::AfterDotComment => {
                if is_line_end(byte) {
                    self.state = if self.state == State::Comment {
                        State::Code
                    } else {
                        self.statement_start = true;
                        State::Code
                    };
                    return Some(1);
                }
                Some(memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len()))
            }
            State::Iri => {
                let end = memchr::memchr3(b'>', b'\n', b'"', rest);
                // An escape before it takes its bytes, as in a string (`<a\U>.\n…`: the `>`
                // is one of them for `oxttl`).
                if let Some(at) = memchr::memchr(b'\\', &rest[..end.unwrap_or(rest.len())]) {
                    let len = escape_len(peek(at + 1)?);
                    peek(at + len - 1)?;
                    return Some(at + len);
                }
                match end {
                    // (A `\r` in an IRI is refused by `oxttl`, which then has the last word.)
                    Some(at) if rest[at] == b'>' => {
                        self.state = State::Code;
                        self.statement_start = false;
                        Some(at + 1)
                    }
                    Some(_) => {
                        self.lost = true;
                        Some(1)
                    }
                    None => Some(rest.len()),
                }
            }
            State::String { quote, long } => {
                let Some(at) = memchr::memchr3(quote, b'\\', b'\n', rest) else {
                    if !long && memchr::memchr(b'\r', rest).is_some() {
                        self.lost = true;
                        return Some(1);
                    }
                    return Some(rest.len());
                };
                if !long && memchr::memchr(b'\r', &rest[..at]).is_some() {
                    // A line break in a short string: not Turtle.
                    self.lost = true;
                    return Some(1);
                }
                match rest[at] {
                    b'\\' => {
                        // As `oxttl` reads it: `\u` and `\U` take 4 and 8 bytes more, hex digits
                        // or not (a quote among them does not end the string).
                        let len = escape_len(peek(at + 1)?);
                        peek(at + len - 1)?;
                        Some(at + len)
                    }
                    b'\n' if !long => {
                        self.lost = true;
                        Some(1)
                    }
                    b'\n' => Some(at + 1),
                    _ if !long => {
                        self.state = State::Code;
                        Some(at + 1)
                    }
                    _ => {
                        let closes = (1..3).all(|n| peek(at + n) == Some(quote));
                        if (1..3).any(|n| peek(at + n).is_none()) {
                            return if at > 0 { Some(at) } else { None };
                        }
                        if closes {
                            self.state = State::Code;
                            Some(at + 3)
                        } else {
                            Some(at + 1)
                        }
                    }
                }
            }
            State::AfterDot => match byte {
                b' ' | b'\t' => Some(1),
                b'\r' | b'\n' => {
                    self.state = State::Code;
                    self.statement_start = true;
                    Some(1)
                }
                b'#' => {
                    self.state = State::AfterDotComment;
                    Some(1)
                }
                _ => {
                    self.state = State::Code;
                    self.statement_start = true;
                    self.code(buffer, ended)
                }
            },
            State::Code => self.code(buffer, ended),
        }
    }

    /// A step in [`State::Code`].
    fn code(&mut self, buffer: &[u8], ended: bool) -> Option<usize> {
        let rest = &buffer[self.at..];
        if !self.statement_start {
            // Within a statement, a run of plain bytes (names, numbers, spaces) at once.
            let plain = rest
                .iter()
                .take_while(|&&b| !SPECIAL[usize::from(b)])
                .count();
            if plain > 0 {
                return Some(plain);
            }
        }
        let byte = rest[0];
        let peek = |n: usize| peek(rest, n, ended);
        if byte.is_ascii_whitespace() {
            return Some(1);
        }
        if byte == b'#' {
            self.state = State::Comment;
            return Some(1);
        }
        if std::mem::take(&mut self.statement_start) && self.at_top() {
            // Enough to tell the longest keyword (`@version`) and the byte after it: the bytes
            // up to the first that no keyword holds (a line break, say).
            let mut word = [b' '; 9];
            for (n, byte) in word.iter_mut().enumerate() {
                let Some(next) = peek(n) else {
                    self.statement_start = true;
                    return None;
                };
                *byte = next;
                if n > 0 && !(next.is_ascii_alphanumeric() || next == b'-') {
                    break;
                }
            }
            self.declares |= starts_with_keyword(&word);
        }
        match byte {
            b'<' => match peek(1)? {
                b'<' => {
                    self.depth += 1;
                    Some(2)
                }
                _ => {
                    self.state = State::Iri;
                    Some(1)
                }
            },
            b'>' => {
                // Only `>>` ends a quoted triple here: IRIs take their own `>`.
                if peek(1)? != b'>' || self.depth == 0 {
                    self.lost = !self.every_end;
                    return Some(1);
                }
                self.depth -= 1;
                Some(2)
            }
            b'"' | b'\'' => {
                let long = peek(1)? == byte && peek(2)? == byte;
                self.state = State::String { quote: byte, long };
                Some(if long { 3 } else { 1 })
            }
            b'\\' => {
                peek(1)?;
                Some(2)
            }
            b'{' if self.blocks && self.at_top() && peek(1)? != b'|' => {
                self.depth += 1;
                self.braces += 1;
                self.state = State::AfterDot;
                Some(1)
            }
            b'}' if self.blocks && self.at_top() && !buffer[..self.at].ends_with(b"|") => {
                self.depth = self.depth.saturating_sub(1);
                self.braces = self.braces.saturating_sub(1);
                self.state = State::AfterDot;
                Some(1)
            }
            b'[' | b'(' | b'{' => {
                self.depth += 1;
                self.braces += usize::from(byte == b'{');
                Some(1)
            }
            b']' | b')' | b'}' => {
                if self.depth == 0 {
                    self.lost = !self.every_end;
                } else {
                    self.depth -= 1;
                    if byte == b'}' {
                        self.braces = self.braces.saturating_sub(1);
                    }
                }
                Some(1)
            }
            b'.' if self.at_top() || self.every_end && self.depth > self.braces => {
                let next = peek(1)?;
                let ends = next.is_ascii_whitespace() || next == b'#';
                if !self.at_top() {
                    // A `.` and a space within `[`, `(` or `<<`, where no valid statement has
                    // one: the statement is bad, and ends here (or its bracket was never closed
                    // and everything after it would be passed over with it).
                    if ends {
                        self.depth = self.braces;
                    }
                    if !self.at_top() || !ends {
                        return Some(1);
                    }
                }
                if ends {
                    self.state = State::AfterDot;
                    self.dot_line = line_start(buffer, self.at);
                } else if self.every_end && dot_ends_statement(&buffer[..self.at], next) {
                    self.glued_end = Some(self.at + 1);
                    self.statement_start = true;
                }
                Some(1)
            }
            _ => Some(1),
        }
    }
}

/// What a step of the scan took ([`Scanner::lex`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Lexeme {
    /// Text outside IRIs, strings and comments: names, keywords, numbers, punctuation, spaces.
    Code,
    /// Bytes of an IRI, its `<` and `>` included.
    Iri,
    /// Bytes of a string, its quotes included.
    String,
    /// Bytes of a comment, its `#` and the line break that ends it included.
    Comment,
}

impl Scanner {
    /// A scanner that tells what each step of a text took ([`Scanner::lex`]), and keeps track
    /// past a closing bracket it never saw opened (a text read from within a TriG graph block).
    pub(super) fn lexer() -> Self {
        Self {
            every_end: true,
            ..Self::default()
        }
    }

    /// Scans the next step of `buffer` (text fed so far; the whole input when `ended`): the
    /// bytes it took and what they are; `None` when the buffer is scanned, more of it is needed
    /// to tell, or the scan lost track (the text cannot be Turtle here).
    ///
    /// ```text
    /// <g> { "a{" # b{↵    <g>: Iri, " { ": Code, "a{": String, " ": Code, # b{↵: Comment
    /// ```
    pub(super) fn lex(
        &mut self,
        buffer: &[u8],
        ended: bool,
    ) -> Option<(std::ops::Range<usize>, Lexeme)> {
        if self.lost || self.at >= buffer.len() {
            return None;
        }
        let before = self.state;
        let start = self.at;
        self.at += self.step(buffer, ended)?;
        let lexeme = match (before, self.state) {
            (State::Iri, _) | (_, State::Iri) => Lexeme::Iri,
            (State::String { .. }, _) | (_, State::String { .. }) => Lexeme::String,
            (State::Comment | State::AfterDotComment, _)
            | (_, State::Comment | State::AfterDotComment) => Lexeme::Comment,
            _ => Lexeme::Code,
        };
        Some((start..self.at, lexeme))
    }

    /// How far the text has been scanned.
    pub(super) fn scanned(&self) -> usize {
        self.at
    }

    /// Whether the scan is within an IRI (the last step took its start, or bytes of it, but
    /// not its `>`).
    pub(super) fn in_iri(&self) -> bool {
        self.state == State::Iri
    }
}

/// Follows Turtle text fed line by line from a statement boundary, and tells when it is at
/// one again (as far as the light scan can tell: `oxttl` has the last word on the statements).
#[derive(Default)]
pub(super) struct Boundaries {
    scanner: Scanner,
    /// The text since the last boundary.
    text: Vec<u8>,
}

impl Boundaries {
    /// Boundaries of TriG text, within graph blocks too.
    pub(crate) fn trig() -> Self {
        Self {
            scanner: Scanner {
                blocks: true,
                ..Scanner::default()
            },
            text: Vec::new(),
        }
    }

    /// Feeds a line: `Some(true)` when the text fed so far ends at a statement boundary,
    /// `None` when the scan lost track (or a statement grew past [`MAX_PIECE`]).
    pub(crate) fn line(&mut self, line: &[u8]) -> Option<bool> {
        self.text.extend_from_slice(line);
        while let Some(cut) = self.scanner.cut_after(&self.text, false, 0, true) {
            self.text.drain(..cut.end);
            self.scanner.cut_at(cut.end);
            if self.text.is_empty() {
                return Some(true);
            }
        }
        (!self.scanner.lost && self.text.len() <= MAX_PIECE).then_some(false)
    }

    /// Whether the text fed so far ends inside a long string that `line` cannot close (it
    /// holds neither the quote nor a backslash): no statement ends in `line`.
    pub(crate) fn stays_in_long_string(&self, line: &[u8]) -> bool {
        match self.scanner.state {
            State::String { quote, long: true } => {
                !self.scanner.lost
                    && self.scanner.at == self.text.len()
                    && memchr::memchr2(quote, b'\\', line).is_none()
            }
            _ => false,
        }
    }
}

/// Whether a `.` after the text `before` and before the byte `after` (a token, not a space)
/// ends a statement: after an IRI, a string, a language tag, a bracket or a space it cannot
/// belong to a token but a decimal's start (`.5`); after a name's or a number's byte, it
/// belongs to the name or the number (`ex:a.b`, `1.5`) unless neither can go on with `after`.
///
/// ```text
/// <rel> .ex:a   <rel>.ex:a   "x".<b>   "x"@en.ex:a   ex:a.<b>    end
/// ex:a.b   1.5   ex:p .5   ex:a..b                               no end
/// ```
fn dot_ends_statement(before: &[u8], after: u8) -> bool {
    let in_name = |b: u8| {
        b.is_ascii_alphanumeric()
            || matches!(b, b'_' | b'-' | b':' | b'%' | b'\\' | b'.')
            || b >= 0x80
    };
    match before.last().copied() {
        Some(b'>' | b'"' | b'\'' | b']' | b')') => true,
        None => !after.is_ascii_digit(),
        Some(b) if b.is_ascii_whitespace() => !after.is_ascii_digit(),
        Some(_) if ends_language_tag(before) => true,
        Some(b) if in_name(b) => !in_name(after),
        Some(_) => false,
    }
}

/// Whether `text` (scanned, outside strings) ends with a string's language tag: `"x"@en-GB`.
fn ends_language_tag(text: &[u8]) -> bool {
    let tag = text
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
        .count();
    let at = text.len() - tag;
    tag > 0 && at >= 2 && text[at - 1] == b'@' && matches!(text[at - 2], b'"' | b'\'')
}

/// Finds where statements end in Turtle text fed line by line from a statement boundary, so
/// that a statement's triples can be held until it ends (and dropped whole when it turns out
/// bad). Unlike the scans that cut text, it also finds the end of a statement that another
/// follows without a space (`<a> <b> <c> .<d> <e> <f> .`).
pub(super) struct StatementEnds {
    scanner: Scanner,
    /// The text since the last statement end.
    text: Vec<u8>,
}

impl Default for StatementEnds {
    fn default() -> Self {
        Self {
            scanner: Scanner {
                every_end: true,
                ..Scanner::default()
            },
            text: Vec::new(),
        }
    }
}

impl StatementEnds {
    /// Feeds a line: the offsets in it just after each statement's final `.` and the byte after
    /// it; `None` when the scan lost track (from then on it tells nothing).
    pub(crate) fn line(&mut self, line: &[u8]) -> Option<Vec<usize>> {
        if self.scanner.lost {
            return None;
        }
        let offset = self.text.len();
        self.text.extend_from_slice(line);
        let mut ends = Vec::new();
        while self.scanner.at < self.text.len() {
            let was_after_dot = self.scanner.state == State::AfterDot;
            let Some(step) = self.scanner.step(&self.text, false) else {
                break;
            };
            self.scanner.at += step;
            if self.scanner.lost {
                return None;
            }
            if let Some(end) = self.scanner.glued_end.take() {
                // Just after the `.`: the token after it starts the next statement.
                ends.push(end.saturating_sub(offset));
            }
            if !was_after_dot && self.scanner.state == State::AfterDot && self.scanner.depth == 0 {
                // The `.` and the byte after it (read to tell the `.` from a name's or a
                // number's); at the line's start if that byte ended the line before.
                ends.push((self.scanner.at + 1).saturating_sub(offset));
            }
        }
        if let Some(&last) = ends.last() {
            // A `.` in an earlier line, found once this one came (the scan waited for more
            // text after it): the end is told at this line's start, and the text is dropped
            // only as far as it was scanned.
            let end = (offset + last).min(self.scanner.at);
            self.text.drain(..end);
            self.scanner.cut_at(end);
        }
        Some(ends)
    }
}

/// Whether `line` holds the end of exactly one statement and nothing after it but spaces and a
/// comment, as far as the light scan can tell from the line alone (false where it cannot tell:
/// a line that starts within a long string, say).
///
/// ```text
/// "  ex:d .  # done\n"        true
/// "ex:a ex:p ex:b . ex:c ex:p" false (a statement starts after the end)
/// "ex:a ex:p ex:b ;"          false (no end)
/// ```
pub(super) fn ends_one_statement(line: &[u8]) -> bool {
    let mut scanner = Scanner::default();
    let mut ends = 0;
    while scanner.at < line.len() {
        let was_after_dot = scanner.state == State::AfterDot;
        let Some(step) = scanner.step(line, true) else {
            return false;
        };
        scanner.at += step;
        if scanner.lost {
            return false;
        }
        ends += usize::from(!was_after_dot && scanner.state == State::AfterDot);
    }
    ends == 1 && scanner.depth == 0 && scanner.statement_start
        || ends == 1 && matches!(scanner.state, State::AfterDot | State::AfterDotComment)
}

/// Whether `text` starts (after white space and comments) with a directive: `@prefix`,
/// `@base` or `@version`, or `PREFIX`, `BASE` or `VERSION` in any case, each a word of its own
/// (`@prefixes` is a language tag, `prefix:x` a name).
///
/// ```text
/// "@prefix ex: <http://e/> ."  yes      "PREFIX ex: <http://e/>"  yes
/// "  # note\n@base<http://e/>."  yes     "prefix:x a ex:C ."  no
/// ```
pub(super) fn starts_with_directive(mut text: &[u8]) -> bool {
    loop {
        text = text.trim_ascii_start();
        match text.first() {
            Some(b'#') => {
                text = memchr::memchr2(b'\n', b'\r', text).map_or(&[][..], |end| &text[end + 1..]);
            }
            _ => break,
        }
    }
    starts_with_keyword(text)
}

/// Whether `text` starts with a directive's keyword ([`starts_with_directive`] after white
/// space and comments).
fn starts_with_keyword(text: &[u8]) -> bool {
    if let Some(text) = text.strip_prefix(b"@") {
        return [&b"prefix"[..], b"base", b"version"].iter().any(|keyword| {
            text.strip_prefix(*keyword).is_some_and(|after| {
                after
                    .first()
                    .is_none_or(|&next| !next.is_ascii_alphanumeric() && next != b'-')
            })
        });
    }
    [&b"PREFIX"[..], b"BASE", b"VERSION"].iter().any(|keyword| {
        text.get(..keyword.len())
            .is_some_and(|word| word.eq_ignore_ascii_case(keyword))
            && text
                .get(keyword.len())
                .is_none_or(|&next| next.is_ascii_whitespace() || matches!(next, b'#' | b'<'))
    })
}

/// How many bytes an escape takes whose second byte is `kind`: `\u` and `\U` four and eight
/// more, hex digits or not, as `oxttl` reads them.
fn escape_len(kind: u8) -> usize {
    match kind {
        b'u' => 6,
        b'U' => 10,
        _ => 2,
    }
}

/// The byte `n` of `rest`: `None` when it is not read yet; at the end of the input, a space.
fn peek(rest: &[u8], n: usize, ended: bool) -> Option<u8> {
    match rest.get(n) {
        Some(&b) => Some(b),
        None if ended => Some(b' '),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{Lexeme, Scanner, ends_one_statement, starts_with_directive};

    const DIRECTIVES: [&str; 10] = [
        "@prefix ex: <http://e/> .",
        "  @base<http://e/>.",
        "# note\n@version \"1.2\" .",
        "@prefix: <http://e/> .",
        "PREFIX ex: <http://e/>",
        "prefix ex: <http://e/>",
        "\tBASE <http://e/>",
        "BASE<http://e/>",
        "Version \"1.2\"",
        "@base",
    ];

    const NOT_DIRECTIVES: [&str; 10] = [
        "@prefixes ex:a ex:b .",
        "@base-x",
        "@PREFIX ex: <http://e/> .",
        "@ prefix ex: <http://e/> .",
        "prefix:x a ex:C .",
        "PREFIXED a ex:C .",
        "basement:x a ex:C .",
        "# @prefix ex: <http://e/> .",
        "ex:a ex:p ex:b .",
        "",
    ];

    #[test]
    fn a_directive_is_a_keyword_of_its_own_after_spaces_and_comments() {
        for text in DIRECTIVES {
            assert!(starts_with_directive(text.as_bytes()), "{text:?}");
        }
        for text in NOT_DIRECTIVES {
            assert!(!starts_with_directive(text.as_bytes()), "{text:?}");
        }
    }

    /// The pieces cut for several threads say whether they hold a directive as the reader
    /// tells one (the scan knew no `VERSION`, and took any `@` for one).
    #[test]
    fn a_piece_holds_a_directive_as_the_reader_tells_one() {
        for (texts, directive) in [(DIRECTIVES, true), (NOT_DIRECTIVES, false)] {
            for text in texts {
                for whole in [format!("{text}\n"), format!("ex:a ex:p ex:b .\n{text}\n")] {
                    let (mut scanner, mut declares, mut from) = (Scanner::default(), false, 0);
                    while let Some(cut) =
                        scanner.cut_after(&whole.as_bytes()[from..], true, 0, true)
                    {
                        declares |= cut.declares;
                        scanner.cut_at(cut.end);
                        from += cut.end;
                    }
                    assert_eq!(declares, directive, "{whole:?}");
                }
            }
        }
    }

    #[test]
    fn lexemes_tell_iris_strings_and_comments_from_code() {
        let text = "<g> { \"a{\" # b{\n'''{\n}''' ex:a.b <h\\u0020> .\n";
        let mut scanner = Scanner::lexer();
        let mut lexemes: Vec<(String, Lexeme)> = Vec::new();
        while let Some((range, lexeme)) = scanner.lex(text.as_bytes(), false) {
            match lexemes.last_mut() {
                Some((run, last)) if *last == lexeme => run.push_str(&text[range]),
                _ => lexemes.push((text[range].to_owned(), lexeme)),
            }
        }
        use Lexeme::{Code, Comment, Iri};
        let expected = [
            ("<g>", Iri),
            (" { ", Code),
            ("\"a{\"", Lexeme::String),
            (" ", Code),
            ("# b{\n", Comment),
            ("'''{\n}'''", Lexeme::String),
            (" ex:a.b ", Code),
            ("<h\\u0020>", Iri),
            (" .\n", Code),
        ];
        let expected: Vec<_> = expected.map(|(t, l)| (t.to_owned(), l)).into();
        assert_eq!(lexemes, expected);
    }

    #[test]
    fn a_line_ends_one_statement_when_only_spaces_and_a_comment_follow_its_end() {
        for line in [
            "  ex:d .\n",
            "  ex:d .  # done\n",
            "ex:a ex:p ex:b .",
            "ex:a ex:p \"x . y\" .\n",
        ] {
            assert!(ends_one_statement(line.as_bytes()), "{line:?}");
        }
        for line in [
            "ex:a ex:p ex:b . ex:c ex:p\n",
            "ex:a ex:p ex:b ;\n",
            "ex:a ex:p ex:b . ex:c ex:p ex:d .\n",
            "lines\"\"\" .\n",
            "ex:a ex:p ex:b . \"\"\"open\n",
            "}\n",
            "\n",
        ] {
            assert!(!ends_one_statement(line.as_bytes()), "{line:?}");
        }
    }
}

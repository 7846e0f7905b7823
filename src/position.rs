//! Where a reader is in a text: a [`Location`] (line and column), counted as the text goes by;
//! and the one definition of a line break that every reader, scanner and counter of pidcanon
//! uses.
//!
//! Turtle, TriG, N-Triples and N-Quads end a line at LF, CRLF or a CR alone (their `EOL` is
//! `[#xD#xA]+`, and `oxttl` counts a lone CR as a line break), and XML reads a CR alone as a
//! line break too (XML 1.0 §2.11). So a line here ends at `\n`, at `\r\n`, or at a `\r`
//! that no `\n` follows.
//!
//! ```text
//! "a\nb\r\nc\rd"   four lines: "a\n", "b\r\n", "c\r", "d"
//! ```

use std::fmt;
use std::io::{self, BufRead};

/// Where something is in the input: a 1-based line and a 1-based column in characters, each
/// `None` where it is not known (a Turtle IRI written as a prefixed name has a line and no
/// column; a statement read from RDF/XML has neither).
///
/// ```
/// use pidcanon::rewrite::Location;
/// assert_eq!(Location::new(3, 7).to_string(), "3:7");
/// assert_eq!(Location::at_line(3).to_string(), "3");
/// assert_eq!(Location::unknown().to_string(), "?");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    line: Option<u64>,
    column: Option<u64>,
}

impl Location {
    /// A location at `line` and `column` (both 1-based).
    #[must_use]
    pub const fn new(line: u64, column: u64) -> Self {
        Self {
            line: Some(line),
            column: Some(column),
        }
    }

    /// A location of which only the line is known.
    #[must_use]
    pub const fn at_line(line: u64) -> Self {
        Self {
            line: Some(line),
            column: None,
        }
    }

    /// An unknown location.
    #[must_use]
    pub const fn unknown() -> Self {
        Self {
            line: None,
            column: None,
        }
    }

    /// The 1-based line, if known.
    #[must_use]
    pub const fn line(&self) -> Option<u64> {
        self.line
    }

    /// The 1-based column in characters, if known.
    #[must_use]
    pub const fn column(&self) -> Option<u64> {
        self.column
    }

    /// This location in a text that starts after `lines` lines.
    pub(crate) fn after(self, lines: u64) -> Self {
        Self {
            line: self.line.map(|line| line + lines),
            column: self.column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (None, _) => f.write_str("?"),
            (Some(line), None) => write!(f, "{line}"),
            (Some(line), Some(column)) => write!(f, "{line}:{column}"),
        }
    }
}

/// Whether `byte` ends a line (`\n`, or `\r` alone or before `\n`).
pub(crate) fn is_line_end(byte: u8) -> bool {
    matches!(byte, b'\n' | b'\r')
}

/// The line breaks in `text`: `\n`, `\r\n` and a `\r` alone each count once. `text` holds whole
/// lines (a `\r` at its end is counted as a line break, as [`read_line`] ends a line there only
/// when no `\n` follows).
pub(crate) fn line_breaks(text: &[u8]) -> u64 {
    if memchr::memchr(b'\r', text).is_none() {
        // Only `\n`s: counted in blocks whose count fits a byte, a loop the compiler turns into
        // vector instructions (a fraction of an instruction a byte, where finding each line
        // break takes a hundred a line).
        let count = |block: &[u8]| block.iter().fold(0u8, |n, &b| n + u8::from(b == b'\n'));
        return text.chunks(255).map(|block| u64::from(count(block))).sum();
    }
    memchr::memchr2_iter(b'\n', b'\r', text)
        .filter(|&at| text[at] == b'\r' || at == 0 || text[at - 1] != b'\r')
        .count() as u64
}

/// Where the line holding byte `at` of `text` starts: just after the last line break before it
/// (the `\n` of a `\r\n` is on the line its `\r` ends).
pub(crate) fn line_start(text: &[u8], at: usize) -> usize {
    let crlf = at > 0 && text.get(at) == Some(&b'\n') && text[at - 1] == b'\r';
    memchr::memrchr2(b'\n', b'\r', &text[..at - usize::from(crlf)]).map_or(0, |end| end + 1)
}

/// The lines of `text`, each with its line break.
pub(crate) fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> + Clone {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr2(b'\n', b'\r', rest).map_or(rest.len(), |at| {
            at + 1 + usize::from(rest[at] == b'\r' && rest.get(at + 1) == Some(&b'\n'))
        });
        let (line, after) = rest.split_at(end);
        rest = after;
        Some(line)
    })
}

/// Reads one line of `input` into `line` (appended), with its line break; gives how many bytes
/// were read (0 at the end of the input). A `\r` ends the line, and takes the `\n` after it.
pub(crate) fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<usize> {
    let start = line.len();
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            break;
        }
        match memchr::memchr2(b'\n', b'\r', buffer) {
            Some(at) => {
                let cr = buffer[at] == b'\r';
                line.extend_from_slice(&buffer[..=at]);
                input.consume(at + 1);
                if cr && next_byte(input)? == Some(b'\n') {
                    line.push(b'\n');
                    input.consume(1);
                }
                break;
            }
            None => {
                let read = buffer.len();
                line.extend_from_slice(buffer);
                input.consume(read);
            }
        }
    }
    Ok(line.len() - start)
}

/// The next byte of `input`, not consumed.
fn next_byte(input: &mut impl BufRead) -> io::Result<Option<u8>> {
    loop {
        match input.fill_buf() {
            Ok(buffer) => return Ok(buffer.first().copied()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The line and column (both 1-based; the column in characters) of the next byte of a text
/// read from its start. Every reader that locates what it reads (the RDF/XML readers, FOXML)
/// counts with it, so they all count alike.
#[cfg(feature = "rdfxml")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextPosition {
    line: u64,
    column: u64,
    /// The last byte passed was a `\r`: a `\n` next ends no other line.
    after_cr: bool,
}

#[cfg(feature = "rdfxml")]
impl Default for TextPosition {
    fn default() -> Self {
        Self {
            line: 1,
            column: 1,
            after_cr: false,
        }
    }
}

#[cfg(feature = "rdfxml")]
impl TextPosition {
    /// Moves past `bytes`: a line break (see the module's docs) starts a line; each byte that
    /// starts a UTF-8 character is one column (continuation bytes are not).
    pub(crate) fn advance(&mut self, bytes: &[u8]) {
        let Some(&last_byte) = bytes.last() else {
            return;
        };
        let crlf_split = self.after_cr && bytes[0] == b'\n';
        let rest = match memchr::memrchr2(b'\n', b'\r', bytes) {
            Some(last) => {
                self.line += line_breaks(bytes) - u64::from(crlf_split);
                self.column = 1;
                &bytes[last + 1..]
            }
            None => bytes,
        };
        self.column += rest.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
        self.after_cr = last_byte == b'\r';
    }

    /// This position, `back` characters earlier on the same line.
    pub(crate) fn location_before(self, back: u64) -> Location {
        Location::new(self.line, self.column.saturating_sub(back).max(1))
    }

    pub(crate) fn location(self) -> Location {
        Location::new(self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "rdfxml")]
    fn after(pieces: &[&str]) -> Location {
        let mut position = TextPosition::default();
        for piece in pieces {
            position.advance(piece.as_bytes());
        }
        position.location()
    }

    #[test]
    #[cfg(feature = "rdfxml")]
    fn lines_and_character_columns_whatever_the_pieces() {
        assert_eq!(after(&[]), Location::new(1, 1));
        assert_eq!(after(&["ab"]), Location::new(1, 3));
        assert_eq!(after(&["a\nbc"]), Location::new(2, 3));
        assert_eq!(after(&["a\n", "\n", "é"]), Location::new(3, 2));
        let text = "x\n€é\ny z";
        for cut in 0..=text.len() {
            let (a, b) = text.as_bytes().split_at(cut);
            let mut position = TextPosition::default();
            position.advance(a);
            position.advance(b);
            assert_eq!(position.location(), Location::new(3, 4), "cut at {cut}");
        }
    }

    #[test]
    #[cfg(feature = "rdfxml")]
    fn a_line_ends_at_lf_crlf_or_a_lone_cr_whatever_the_pieces() {
        assert_eq!(after(&["a\rb"]), Location::new(2, 2));
        assert_eq!(after(&["a\r\nb"]), Location::new(2, 2));
        assert_eq!(after(&["a\r", "\nb"]), Location::new(2, 2));
        assert_eq!(after(&["a\r", "\r\n", "\n"]), Location::new(4, 1));
        let text = "a\r\nb\rc\n\r\rd";
        for cut in 0..=text.len() {
            let (a, b) = text.as_bytes().split_at(cut);
            let mut position = TextPosition::default();
            position.advance(a);
            position.advance(b);
            assert_eq!(position.location(), Location::new(6, 2), "cut at {cut}");
        }
    }

    #[test]
    fn line_breaks_are_counted_in_long_texts() {
        // Lines of every length up to 300 bytes, then 1 000 line breaks in a row (blocks of
        // nothing else): counted as one by one, without a CR and with one.
        let mut text = Vec::new();
        let mut expected = 0;
        for len in 0..300 {
            text.extend(std::iter::repeat_n(b'x', len));
            text.push(b'\n');
            expected += 1;
            assert_eq!(line_breaks(&text), expected, "{len}");
        }
        text.extend([b'\n'; 1000]);
        assert_eq!(line_breaks(&text), expected + 1000);
        text.extend(b"\r\n\r");
        assert_eq!(line_breaks(&text), expected + 1002);
    }

    #[test]
    fn lines_are_split_counted_and_read_alike() {
        let cases: [(&str, &[&str]); 6] = [
            ("", &[]),
            ("a", &["a"]),
            ("a\nb\r\nc\rd", &["a\n", "b\r\n", "c\r", "d"]),
            ("\r\r\n\n\r", &["\r", "\r\n", "\n", "\r"]),
            ("x\r", &["x\r"]),
            ("# c\r<a> .\n", &["# c\r", "<a> .\n"]),
        ];
        for (text, expected) in cases {
            let split: Vec<&[u8]> = lines(text.as_bytes()).collect();
            let expected: Vec<&[u8]> = expected.iter().map(|l| l.as_bytes()).collect();
            assert_eq!(split, expected, "{text:?}");
            let breaks = expected
                .iter()
                .filter(|l| l.ends_with(b"\n") || l.ends_with(b"\r"));
            assert_eq!(
                line_breaks(text.as_bytes()),
                breaks.count() as u64,
                "{text:?}"
            );
            // Read through a buffer of every size: the same lines.
            for capacity in 1..=4 {
                let mut input = std::io::BufReader::with_capacity(capacity, text.as_bytes());
                let mut read = Vec::new();
                let mut line = Vec::new();
                while read_line(&mut input, &mut line).expect("in memory") > 0 {
                    read.push(std::mem::take(&mut line));
                }
                assert_eq!(read, expected, "{text:?}, capacity {capacity}");
            }
            for (n, line) in expected.iter().enumerate() {
                let at: usize = expected[..n].iter().map(|l| l.len()).sum();
                if !line.is_empty() {
                    assert_eq!(line_start(text.as_bytes(), at + line.len() - 1), at);
                }
            }
        }
    }
}

//! The IRIs of an N-Triples / N-Quads line, found without parsing it again, so that a rewritten
//! line differs from its input only in the IRIs that changed.

use std::borrow::Cow;
use std::ops::Range;

/// The byte ranges (inside `<` and `>`) of the IRIs of a line that are subjects, predicates,
/// objects or graph names — in triple terms too; datatype IRIs of literals are part of the
/// literal and left out. Stops at a comment.
///
/// The line must be valid N-Triples / N-Quads (the parser has checked it).
pub(crate) fn term_iris(line: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    terms(line).filter_map(|(term, range)| (term == Term::Iri).then_some(range))
}

/// The byte ranges of the subject, predicate and object IRIs of a statement line whose three
/// first terms are IRIs (`<s> <p> <o> …`); `None` for any other line. The line must be valid
/// N-Triples / N-Quads.
///
/// ```text
/// <http://s> <http://p> <http://o> .        the three
/// _:b <http://p> <http://o> .               none: the subject is no IRI
/// <http://s> <http://p> "o"^^<http://d> .   none: the object is no IRI
/// ```
pub(crate) fn iri_statement(line: &[u8]) -> Option<[Range<usize>; 3]> {
    let mut spans = term_iris(line);
    let (s, p, o) = (spans.next()?, spans.next()?, spans.next()?);
    // The first three IRIs are the subject, predicate and object only when nothing else
    // stands between them.
    let between = |from: usize, to: usize| {
        line.get(from..to)
            .is_some_and(|gap| gap.iter().all(|b| b" \t<>".contains(b)))
    };
    let starts = line.iter().position(|b| !b" \t".contains(b)) == Some(s.start - 1);
    (starts && between(s.end, p.start) && between(p.end, o.start)).then_some([s, p, o])
}

/// The byte ranges (after `_:`) of the blank node labels of a line, in triple terms too.
/// Stops at a comment.
///
/// The line must be valid N-Triples / N-Quads (the parser has checked it).
///
/// ```text
/// _:b1 <http://p> "_:x" _:b.2. # _:c     b1, b.2
/// ```
pub(crate) fn blank_labels(line: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    terms(line).filter_map(|(term, range)| (term == Term::BlankNode).then_some(range))
}

/// What [`Terms`] finds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Term {
    Iri,
    BlankNode,
}

fn terms(line: &[u8]) -> Terms<'_> {
    Terms { line, at: 0 }
}

/// The IRIs and blank node labels of a valid line, in order, literals and comments skipped.
struct Terms<'l> {
    line: &'l [u8],
    at: usize,
}

impl Iterator for Terms<'_> {
    type Item = (Term, Range<usize>);

    fn next(&mut self) -> Option<(Term, Range<usize>)> {
        let line = self.line;
        let mut datatype = false;
        while let Some(&byte) = line.get(self.at) {
            match byte {
                b'<' if line.get(self.at + 1) == Some(&b'<') => self.at += 2,
                b'<' => {
                    let start = self.at + 1;
                    let end = start + memchr::memchr(b'>', &line[start..])?;
                    self.at = end + 1;
                    if !std::mem::take(&mut datatype) {
                        return Some((Term::Iri, start..end));
                    }
                }
                b'"' => {
                    self.at += 1;
                    while let Some(&b) = line.get(self.at) {
                        self.at += if b == b'\\' { 2 } else { 1 };
                        if b == b'"' {
                            break;
                        }
                    }
                    datatype = line[self.at.min(line.len())..].starts_with(b"^^");
                }
                b'_' if line.get(self.at + 1) == Some(&b':') => {
                    // A label's characters: ASCII name characters, `.` and (in a valid line)
                    // any non-ASCII one; it does not end with `.`.
                    let start = self.at + 2;
                    let mut end = start;
                    while line.get(end).is_some_and(|&b| {
                        b.is_ascii_alphanumeric()
                            || matches!(b, b'_' | b'-' | b'.')
                            || !b.is_ascii()
                    }) {
                        end += 1;
                    }
                    while end > start && line[end - 1] == b'.' {
                        end -= 1;
                    }
                    self.at = end;
                    return Some((Term::BlankNode, start..end));
                }
                b'#' => return None,
                _ => self.at += 1,
            }
        }
        None
    }
}

/// The IRI an `IRIREF`'s content stands for: `\uXXXX` and `\UXXXXXXXX` escapes decoded.
pub(crate) fn unescape_iri(raw: &str) -> Cow<'_, str> {
    if memchr::memchr(b'\\', raw.as_bytes()).is_none() {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let digits = match rest.as_bytes().get(i + 1) {
            Some(b'u') => 4,
            Some(b'U') => 8,
            _ => 0,
        };
        let decoded = rest
            .get(i + 2..i + 2 + digits)
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .and_then(char::from_u32);
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[i + 2 + digits..];
            }
            None => {
                out.push('\\');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The 1-based column (in characters) of byte `at` of a line.
pub(crate) fn column(line: &[u8], at: usize) -> u64 {
    let before = &line[..at.min(line.len())];
    String::from_utf8_lossy(before).chars().count() as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iris(line: &str) -> Vec<&str> {
        term_iris(line.as_bytes()).map(|r| &line[r]).collect()
    }

    #[test]
    fn finds_term_iris_and_skips_literals_datatypes_and_comments() {
        assert_eq!(iris("<a> <b> <c> ."), ["a", "b", "c"]);
        assert_eq!(iris("<a> <b> \"x<y>\\\"<z>\"^^<dt> <g> ."), ["a", "b", "g"]);
        assert_eq!(iris("<a> <b> \"x\"@en . # <not-me>"), ["a", "b"]);
        assert_eq!(
            iris("_:b <b> <<( <s> <p> \"o\"^^<dt> )>> ."),
            ["b", "s", "p"]
        );
        assert_eq!(iris("# <comment>"), Vec::<&str>::new());
        assert_eq!(iris("<a#frag> <b> <c> ."), ["a#frag", "b", "c"]);
    }

    #[test]
    fn unescapes_uchars() {
        assert_eq!(unescape_iri("http://a/\\u00E9\\U0001F600"), "http://a/é😀");
        assert!(matches!(unescape_iri("http://a/"), Cow::Borrowed(_)));
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(column("é <a>".as_bytes(), 4), 4);
    }
}

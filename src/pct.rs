//! Percent-escape work for scheme adapters: decode escapes of a chosen set of characters, set the
//! case of hex digits, escape the characters a component may not hold, and assemble a canonical
//! form that borrows its input when nothing changed.
//!
//! The public part is what a [`SchemeAdapter`](crate::SchemeAdapter) of your own needs to keep
//! the crate's guarantee that canonical input is returned without allocating: [`normalize`],
//! [`decode`], [`encode`] and [`join_or_borrow`]. Each returns [`Cow::Borrowed`] when nothing
//! changes and allocates only from the first byte that does (the approach of
//! `percent_encoding`'s `if_any`).
//!
//! ```
//! use pidcanon::pct::{self, Escaping, HexCase};
//! use pidcanon::Kind;
//! // A component in which escapes of letters and digits are decoded and every other escape
//! // keeps upper-case hex digits.
//! const PART: Escaping = Escaping { decode: |c| c.is_ascii_alphanumeric(), keep: |c| c.is_ascii_graphic(), hex: HexCase::Upper };
//! let part = pct::normalize("a%41%2f", &PART).map_err(|e| e.at(Kind::Iri, 4))?;
//! let iri = pct::join_or_borrow("ex:/aA%2F", || ["ex:/", part.as_ref()].into_iter());
//! assert_eq!(iri, "ex:/aA%2F");
//! assert!(matches!(iri, std::borrow::Cow::Borrowed(_)));
//! # Ok::<(), pidcanon::IdError>(())
//! ```

use percent_encoding::percent_decode_str;
use std::borrow::Cow;
use std::cmp::Ordering;

/// The case of hex digits in percent-escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HexCase {
    /// `%C3%A9`: Fedora, OAI, POI, Handles, DOIs.
    Upper,
    /// `%c3%a9`: PDIs (draft §3.6.4).
    Lower,
}

/// How to normalize the escapes of one component.
#[derive(Debug, Clone, Copy)]
pub struct Escaping {
    /// An escape of an ASCII character for which this returns `true` is replaced by the character.
    pub decode: fn(char) -> bool,
    /// Characters written as they are; every other character is escaped as UTF-8 octets.
    /// `%` is always the start of an escape and never passed to this function.
    pub keep: fn(char) -> bool,
    /// The case of the hex digits of the escapes that remain.
    pub hex: HexCase,
}

/// A malformed percent-escape, or escapes that decode to bytes that are not UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PctError {
    /// A `%` at this byte offset is not followed by two hex digits.
    BadEscape(usize),
    /// The escapes starting at this byte offset do not decode to UTF-8.
    NotUtf8(usize),
}

impl PctError {
    /// The error as an [`IdError`](crate::IdError) of `kind`, for a component that starts `base`
    /// bytes into the identifier.
    #[must_use]
    pub fn at(self, kind: crate::Kind, base: usize) -> crate::IdError {
        let (rule, offset) = match self {
            PctError::BadEscape(offset) => (crate::Rule::BadEscape, offset),
            PctError::NotUtf8(offset) => (crate::Rule::NotUtf8, offset),
        };
        crate::IdError::new(kind, rule, base + offset)
    }
}

/// The byte that the escape starting at `i` (a `%`) encodes, if it is a well-formed escape.
#[must_use]
pub(crate) fn escape_at(s: &str, i: usize) -> Option<u8> {
    let hex = s.as_bytes().get(i + 1..i + 3)?;
    let digit = |b: u8| (b as char).to_digit(16);
    Some((digit(hex[0])? * 16 + digit(hex[1])?) as u8)
}

/// Normalizes the escapes of `s` by `rules`.
///
/// ```
/// use pidcanon::pct::{normalize, Escaping, HexCase};
/// let rules = Escaping { decode: |c| c.is_ascii_alphanumeric(), keep: |c| c.is_ascii_graphic(), hex: HexCase::Upper };
/// assert_eq!(normalize("DS%41%c3%a9", &rules).unwrap(), "DSA%C3%A9");
/// assert_eq!(normalize("Données", &rules).unwrap(), "Donn%C3%A9es");
/// assert!(matches!(normalize("DS%C3%A9", &rules).unwrap(), std::borrow::Cow::Borrowed(_)));
/// assert!(normalize("a%4", &rules).is_err());
/// ```
pub fn normalize<'a>(s: &'a str, rules: &Escaping) -> Result<Cow<'a, str>, PctError> {
    // Most components have no escape and only characters they keep: nothing to splice.
    if !s.as_bytes().contains(&b'%') && s.chars().all(rules.keep) {
        return Ok(Cow::Borrowed(s));
    }
    let mut out = Splice::new(s);
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '%' {
            let byte = escape_at(s, i).ok_or(PctError::BadEscape(i))?;
            chars.nth(1);
            if byte.is_ascii() && (rules.decode)(byte as char) {
                out.replace(i..i + 3, |o| o.push(byte as char));
            } else if !has_hex_case(&s[i + 1..i + 3], rules.hex) {
                out.replace(i..i + 3, |o| push_escape(o, byte, rules.hex));
            } else {
                out.keep(i..i + 3);
            }
        } else if (rules.keep)(c) {
            out.keep(i..i + c.len_utf8());
        } else {
            out.replace(i..i + c.len_utf8(), |o| push_char_escaped(o, c, rules.hex));
        }
    }
    Ok(out.finish())
}

/// Escapes every character of `s` for which `keep` is false, `%` included: for text that is
/// already decoded.
///
/// ```
/// use pidcanon::pct::{encode, HexCase};
/// assert_eq!(encode("a/b%c", |c| c.is_ascii_alphanumeric(), HexCase::Upper), "a%2Fb%25c");
/// ```
pub fn encode(s: &str, keep: fn(char) -> bool, hex: HexCase) -> Cow<'_, str> {
    let mut out = Splice::new(s);
    for (i, c) in s.char_indices() {
        let range = i..i + c.len_utf8();
        if c != '%' && keep(c) {
            out.keep(range);
        } else {
            out.replace(range, |o| push_char_escaped(o, c, hex));
        }
    }
    out.finish()
}

/// Decodes every escape of `s` once, as a server decodes a URL path; the result must be UTF-8.
///
/// ```
/// assert_eq!(pidcanon::pct::decode("demo%3A1%2541").unwrap(), "demo:1%41");
/// assert!(pidcanon::pct::decode("%C3").is_err());
/// ```
pub fn decode(s: &str) -> Result<Cow<'_, str>, PctError> {
    if let Some(bad) = first_bad_escape(s) {
        return Err(PctError::BadEscape(bad));
    }
    percent_decode_str(s)
        .decode_utf8()
        .map_err(|_| PctError::NotUtf8(s.find('%').unwrap_or(0)))
}

/// `s` with every escape decoded once, when `s` and what it decodes to are printable ASCII
/// (`' '` to `'~'`); `None` otherwise, or for a malformed escape. Borrowed when `s` has no escape.
///
/// ```text
/// decode_printable("10013%2Fx") == Some("10013/x"); decode_printable("a%0A") == None
/// ```
pub(crate) fn decode_printable(s: &str) -> Option<Cow<'_, str>> {
    let printable = |b: u8| matches!(b, b' '..=b'~');
    if !s.as_bytes().contains(&b'%') {
        return s.bytes().all(printable).then_some(Cow::Borrowed(s));
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(&b) = s.as_bytes().get(i) {
        let byte = if b == b'%' {
            i += 3;
            escape_at(s, i - 3)?
        } else {
            i += 1;
            b
        };
        if !printable(byte) {
            return None;
        }
        out.push(char::from(byte));
    }
    Some(Cow::Owned(out))
}

/// The characters `s` decodes to (every escape decoded once), each with the offset in `s` where
/// its first octet is written; allocates nothing. After an error it ends.
pub(crate) fn decoded_chars(s: &str) -> impl Iterator<Item = Result<(usize, char), PctError>> {
    let bytes = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        let start = i;
        let mut octets = [0u8; 4];
        for n in 0..4 {
            let octet = match bytes.get(i)? {
                &ascii if ascii.is_ascii() && ascii != b'%' && n == 0 => {
                    i += 1;
                    return Some(Ok((start, char::from(ascii))));
                }
                b'%' => match escape_at(s, i) {
                    Some(octet) => {
                        i += 3;
                        octet
                    }
                    None => {
                        i = bytes.len();
                        return Some(Err(PctError::BadEscape(start)));
                    }
                },
                &octet => {
                    i += 1;
                    octet
                }
            };
            octets[n] = octet;
            match std::str::from_utf8(&octets[..=n]) {
                Ok(c) => return c.chars().next().map(|c| Ok((start, c))),
                Err(e) if e.error_len().is_none() && i < bytes.len() => {}
                Err(_) => break,
            }
        }
        i = bytes.len();
        Some(Err(PctError::NotUtf8(start)))
    })
}

/// The offset of the first `%` that is not followed by two hex digits.
#[must_use]
pub(crate) fn first_bad_escape(s: &str) -> Option<usize> {
    s.match_indices('%')
        .map(|(i, _)| i)
        .find(|&i| escape_at(s, i).is_none())
}

/// Compares two strings by the bytes they decode to (escapes decoded once).
#[must_use]
pub(crate) fn cmp_decoded(a: &str, b: &str) -> Ordering {
    percent_decode_str(a).cmp(percent_decode_str(b))
}

fn has_hex_case(hex: &str, case: HexCase) -> bool {
    match case {
        HexCase::Upper => !hex.bytes().any(|b| b.is_ascii_lowercase()),
        HexCase::Lower => !hex.bytes().any(|b| b.is_ascii_uppercase()),
    }
}

/// Appends the escapes of the UTF-8 octets of `c`.
fn push_char_escaped(out: &mut String, c: char, case: HexCase) {
    c.encode_utf8(&mut [0; 4])
        .bytes()
        .for_each(|b| push_escape(out, b, case));
}

/// Appends `%` and the two hex digits of `byte` in `case`.
pub(crate) fn push_escape(out: &mut String, byte: u8, case: HexCase) {
    let [percent, high, low] = escape(byte, case);
    out.push(char::from(percent));
    out.push(char::from(high));
    out.push(char::from(low));
}

/// `%` and the two hex digits of `byte` in `case`, as bytes.
pub(crate) fn escape(byte: u8, case: HexCase) -> [u8; 3] {
    const UPPER: &[u8; 16] = b"0123456789ABCDEF";
    const LOWER: &[u8; 16] = b"0123456789abcdef";
    let digits = match case {
        HexCase::Upper => UPPER,
        HexCase::Lower => LOWER,
    };
    [
        b'%',
        digits[usize::from(byte >> 4)],
        digits[usize::from(byte & 15)],
    ]
}

/// The concatenation of `pieces`, borrowed from `input` when it equals `input` (checked without
/// allocating), so that an adapter can describe its canonical form as a list of pieces.
///
/// ```
/// use std::borrow::Cow;
/// let pieces = || ["hdl:", "10013", "/", "x"].into_iter();
/// assert!(matches!(pidcanon::pct::join_or_borrow("hdl:10013/x", pieces), Cow::Borrowed(_)));
/// assert_eq!(pidcanon::pct::join_or_borrow("HDL:10013/x", pieces), "hdl:10013/x");
/// ```
pub fn join_or_borrow<'a, 'p, I>(input: &'a str, pieces: impl Fn() -> I) -> Cow<'a, str>
where
    I: Iterator<Item = &'p str>,
{
    let mut rest = input;
    let equal = pieces().all(|piece| {
        // A piece that is a slice of the input at this very place needs no comparison.
        let here = std::ptr::eq(piece.as_ptr(), rest.as_ptr()) && piece.len() <= rest.len();
        match rest.get(piece.len()..) {
            Some(after)
                if here || same_bytes(&rest.as_bytes()[..piece.len()], piece.as_bytes()) =>
            {
                rest = after;
                true
            }
            _ => false,
        }
    }) && rest.is_empty();
    if equal {
        Cow::Borrowed(input)
    } else {
        Cow::Owned(pieces().collect())
    }
}

/// Applies a fallible `Cow`-returning step to a `Cow`, keeping the result borrowed from the
/// original input when neither the input nor the step changed anything.
pub(crate) fn then<'a, E>(
    text: Cow<'a, str>,
    step: impl FnOnce(&str) -> Result<Cow<'_, str>, E>,
) -> Result<Cow<'a, str>, E> {
    Ok(match text {
        Cow::Borrowed(s) => step(s)?,
        Cow::Owned(s) => Cow::Owned(step(&s)?.into_owned()),
    })
}

/// `a == b` for slices of equal length, without a `memcmp` call for the short pieces that
/// canonical forms are made of.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() <= 16 {
        a.iter().zip(b).all(|(x, y)| x == y)
    } else {
        a == b
    }
}

/// `s` with ASCII letters in lower case; borrowed when it has no upper-case ASCII letter.
#[must_use]
pub(crate) fn ascii_lowercase(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// `s` with ASCII letters in upper case; borrowed when it has no lower-case ASCII letter.
#[must_use]
pub(crate) fn ascii_uppercase(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_lowercase()) {
        Cow::Owned(s.to_ascii_uppercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// Builds a string from a source string piece by piece and allocates only once a piece differs:
/// the building block of every `Cow`-returning normalizer in this crate.
///
/// Pieces must be given in order and cover the source without gaps.
#[derive(Debug)]
pub(crate) struct Splice<'a> {
    src: &'a str,
    out: Option<String>,
}

impl<'a> Splice<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Self { src, out: None }
    }

    /// The source range `range` is copied unchanged.
    pub(crate) fn keep(&mut self, range: std::ops::Range<usize>) {
        if let Some(out) = &mut self.out {
            out.push_str(&self.src[range]);
        }
    }

    /// The source range `range` is replaced by what `write` appends.
    pub(crate) fn replace(
        &mut self,
        range: std::ops::Range<usize>,
        write: impl FnOnce(&mut String),
    ) {
        let src = self.src;
        let out = self.out.get_or_insert_with(|| {
            let mut out = String::with_capacity(src.len() + 8);
            out.push_str(&src[..range.start]);
            out
        });
        write(out);
    }

    /// The source range `range` becomes `piece`; nothing is allocated when they are equal.
    pub(crate) fn put(&mut self, range: std::ops::Range<usize>, piece: &str) {
        if self.out.is_none() && &self.src[range.clone()] == piece {
            return;
        }
        self.replace(range, |o| o.push_str(piece));
    }

    pub(crate) fn finish(self) -> Cow<'a, str> {
        self.out.map_or(Cow::Borrowed(self.src), Cow::Owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UPPER_UNRESERVED: Escaping = Escaping {
        decode: crate::iri::is_unreserved,
        keep: crate::iri::is_pchar,
        hex: HexCase::Upper,
    };

    #[test]
    fn borrows_when_nothing_changes() {
        for s in ["", "abc", "a%2Fb", "%C3%A9", "a:b@c"] {
            assert!(
                matches!(normalize(s, &UPPER_UNRESERVED), Ok(Cow::Borrowed(_))),
                "{s}"
            );
        }
    }

    #[test]
    fn decodes_only_the_given_set_and_fixes_hex_case() {
        for (input, expected) in [
            ("%41%2f%7E", "A%2F~"),
            ("a b", "a%20b"),
            ("é", "%C3%A9"),
            ("%c3%a9x", "%C3%A9x"),
            ("%25", "%25"),
        ] {
            assert_eq!(normalize(input, &UPPER_UNRESERVED).unwrap(), expected);
        }
        let lower = Escaping {
            hex: HexCase::Lower,
            ..UPPER_UNRESERVED
        };
        assert_eq!(normalize("%2F%C3%A9", &lower).unwrap(), "%2f%c3%a9");
    }

    #[test]
    fn reports_malformed_escapes_where_they_start() {
        for (input, offset) in [
            ("%", 0),
            ("ab%4", 2),
            ("a%zz", 1),
            ("%41%g1", 3),
            ("%é1", 0),
        ] {
            assert_eq!(
                normalize(input, &UPPER_UNRESERVED),
                Err(PctError::BadEscape(offset))
            );
            assert_eq!(decode(input), Err(PctError::BadEscape(offset)));
        }
        assert_eq!(decode("a%FF"), Err(PctError::NotUtf8(1)));
    }

    #[test]
    fn compares_and_inspects_escapes() {
        assert_eq!(cmp_decoded("%20", "!"), Ordering::Less);
        assert_eq!(cmp_decoded("%41", "A"), Ordering::Equal);
        assert_eq!(escape_at("a%4a", 1), Some(b'J'));
        assert_eq!(escape_at("a%4", 1), None);
        assert_eq!(first_bad_escape("%41%g1"), Some(3));
        assert!(matches!(ascii_lowercase("abc"), Cow::Borrowed("abc")));
        assert_eq!(ascii_uppercase("aB%2f"), "AB%2F");
    }

    #[test]
    fn decodes_characters_in_place() {
        let chars: Vec<_> = decoded_chars("a%C3%A9\u{e9}%41").collect();
        assert_eq!(
            chars,
            [
                Ok((0, 'a')),
                Ok((1, '\u{e9}')),
                Ok((7, '\u{e9}')),
                Ok((9, 'A'))
            ]
        );
        let last = |s| decoded_chars(s).last();
        assert_eq!(last("ab%4"), Some(Err(PctError::BadEscape(2))));
        assert_eq!(last("a%C3"), Some(Err(PctError::NotUtf8(1))));
        assert_eq!(last("a%C3b"), Some(Err(PctError::NotUtf8(1))));
        assert_eq!(last("%FF"), Some(Err(PctError::NotUtf8(0))));
        assert_eq!(decoded_chars("").count(), 0);
    }

    #[test]
    fn splice_allocates_only_on_change() {
        let mut s = Splice::new("abc");
        s.put(0..1, "a");
        s.keep(1..3);
        assert!(matches!(s.finish(), Cow::Borrowed("abc")));
        let mut s = Splice::new("abc");
        s.keep(0..1);
        s.put(1..2, "XY");
        s.keep(2..3);
        assert_eq!(s.finish(), "aXYc");
    }
}

//! The IRI validation layer: every IRI passes through [`validate`] (RFC 3987, on `iri-string`),
//! and the character classes of RFC 3986/3987 that the adapters share.

use crate::{IdError, Kind, Rule};
use iri_string::spec::IriSpec;

/// Checks that `iri` is an absolute IRI with an optional fragment (RFC 3987 `IRI`).
///
/// The error names the broken rule and points at the first offending byte.
///
/// ```
/// use pidcanon::iri::validate;
/// assert!(validate("http://example.org/a#b").is_ok());
/// let err = validate("http://example.org/a b").unwrap_err();
/// assert_eq!(err.offset(), 20);
/// assert_eq!(err.to_string(), "iri: not a valid IRI (invalid path) (byte 20)");
/// ```
pub fn validate(iri: &str) -> Result<(), IdError> {
    iri_string::validate::iri::<IriSpec>(iri).map_err(|e| {
        let offset = locate_error(iri);
        let rule = if iri[offset..].starts_with('%') {
            Rule::BadEscape
        } else {
            let message = e.to_string();
            Rule::Iri(
                message
                    .strip_prefix("invalid IRI: ")
                    .unwrap_or(&message)
                    .to_owned(),
            )
        };
        IdError::new(Kind::Iri, rule, offset)
    })
}

/// The byte offset of the first character that cannot appear in an IRI, of the first
/// malformed percent-escape or of a second `#`; the start of the input when the error lies
/// in the structure (a missing or bad scheme, say) rather than in one character.
fn locate_error(iri: &str) -> usize {
    let bytes = iri.as_bytes();
    let mut seen_hash = false;
    for (i, c) in iri.char_indices() {
        let bad = match c {
            '%' => {
                !(bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            }
            '#' => std::mem::replace(&mut seen_hash, true),
            '/' | '?' | '[' | ']' => false,
            c => !(is_ipchar(c) || is_iprivate(c)),
        };
        if bad {
            return i;
        }
    }
    if iri.contains(':') { 0 } else { iri.len() }
}

/// Bytes of ASCII `ipchar` without `%`: unreserved, sub-delims, `:` and `@`.
pub(crate) const PCHAR: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            );
        b += 1;
    }
    table
};

/// [`PCHAR`], `/` and `?`: the bytes a path and a query are mostly made of.
const PATH: [bool; 256] = {
    let mut table = PCHAR;
    table[b'/' as usize] = true;
    table[b'?' as usize] = true;
    table
};

/// Whether `iri` is certainly an absolute IRI, by a table-driven check of the common ASCII
/// shape: `scheme ":" ["//" host [":" port]] path ["?" query] ["#" fragment]`, with no userinfo,
/// no IP literal, no non-ASCII. `false` means "not sure": ask [`validate`] (or `oxiri`). Never
/// allocates; several times faster than a full parse.
///
/// ```
/// use pidcanon::iri::is_plain_absolute_iri;
/// assert!(is_plain_absolute_iri("http://example.org:8080/a/b%2F?q=1#f"));
/// assert!(is_plain_absolute_iri("info:fedora/demo:1"));
/// assert!(!is_plain_absolute_iri("http://example.org/a b"));
/// assert!(!is_plain_absolute_iri("http://[::1]/")); // valid, but not plain: not sure
/// ```
#[must_use]
pub fn is_plain_absolute_iri(iri: &str) -> bool {
    let bytes = iri.as_bytes();
    let escape_at = |i: usize| {
        bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    };
    // scheme ":"
    if !bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let mut i = 1;
    loop {
        match bytes.get(i) {
            Some(b':') => break,
            Some(&b) if b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.') => i += 1,
            _ => return false,
        }
    }
    i += 1;
    // ["//" host [":" port]]
    if bytes[i..].starts_with(b"//") {
        i += 2;
        let mut in_port = false;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'/' | b'?' | b'#' => break,
                b':' if !in_port => in_port = true,
                b'0'..=b'9' => {}
                _ if in_port => return false,
                b'%' if escape_at(i) => i += 2,
                b':' | b'@' | b'%' => return false,
                _ if PCHAR[usize::from(b)] => {}
                _ => return false,
            }
            i += 1;
        }
    } else if bytes[i..].starts_with(b"/") && bytes.get(i + 1) == Some(&b'/') {
        return false;
    }
    // path ["?" query] ["#" fragment]
    let mut seen_hash = false;
    while let Some(&b) = bytes.get(i) {
        if PATH[usize::from(b)] {
            i += 1;
            continue;
        }
        match b {
            b'#' if !seen_hash => seen_hash = true,
            b'%' if escape_at(i) => i += 2,
            _ => return false,
        }
        i += 1;
    }
    true
}

/// Whether `tail` — empty, or an IRI's `"?" iquery` and/or `"#" ifragment` — is valid there
/// (RFC 3987). Table-driven for ASCII; allocates nothing.
pub(crate) fn is_query_and_fragment(tail: &str) -> bool {
    if tail.is_empty() {
        return true;
    }
    let (query, fragment) = match tail.find('#') {
        Some(hash) => (&tail[..hash], &tail[hash + 1..]),
        None => (tail, ""),
    };
    let Some(query) = query.strip_prefix('?').or(query.is_empty().then_some("")) else {
        return false;
    };
    let ascii_valid = |part: &str| {
        part.bytes().enumerate().all(|(i, b)| match b {
            b'/' | b'?' => true,
            b'%' => crate::pct::escape_at(part, i).is_some(),
            _ => PCHAR[usize::from(b)],
        })
    };
    if tail.is_ascii() {
        ascii_valid(query) && ascii_valid(fragment)
    } else {
        iri_string::types::IriQueryStr::new(query).is_ok()
            && iri_string::types::IriFragmentStr::new(fragment).is_ok()
    }
}

/// Whether the ASCII byte `b` is a `pchar` other than `%` (RFC 3986); `false` for other bytes.
pub(crate) fn is_ascii_pchar(b: u8) -> bool {
    PCHAR[usize::from(b)]
}

/// RFC 3986 `unreserved`: ASCII letters, digits and `- . _ ~`.
#[must_use]
pub fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

/// RFC 3986 `sub-delims`: `! $ & ' ( ) * + , ; =`.
#[must_use]
pub fn is_sub_delim(c: char) -> bool {
    matches!(
        c,
        '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '='
    )
}

/// RFC 3986 `pchar` without `pct-encoded`: what may appear unescaped in a URI path segment.
#[must_use]
pub fn is_pchar(c: char) -> bool {
    c.is_ascii() && PCHAR[c as usize]
}

/// RFC 3987 `ucschar`: the non-ASCII characters an IRI may hold outside its query.
#[must_use]
pub fn is_ucschar(c: char) -> bool {
    matches!(c as u32,
        0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF
        | 0x10000..=0x1FFFD | 0x20000..=0x2FFFD | 0x30000..=0x3FFFD
        | 0x40000..=0x4FFFD | 0x50000..=0x5FFFD | 0x60000..=0x6FFFD
        | 0x70000..=0x7FFFD | 0x80000..=0x8FFFD | 0x90000..=0x9FFFD
        | 0xA0000..=0xAFFFD | 0xB0000..=0xBFFFD | 0xC0000..=0xCFFFD
        | 0xD0000..=0xDFFFD | 0xE1000..=0xEFFFD)
}

/// RFC 3987 `iprivate`: private-use characters, allowed in an IRI's query only.
#[must_use]
pub fn is_iprivate(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// RFC 3987 `ipchar` without `pct-encoded`: what may appear unescaped in an IRI path segment.
#[must_use]
pub fn is_ipchar(c: char) -> bool {
    is_pchar(c) || is_ucschar(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_the_first_bad_character() {
        for (iri, offset) in [
            ("http://a/b c", 10),
            ("http://a/b%zz", 10),
            ("http://a/b%4", 10),
            ("http://a/#b#c", 11),
            ("http://a/<", 9),
            ("no-scheme", 9),
            ("1http://a", 0),
            (" info:fedora/demo:1", 0),
        ] {
            let err = validate(iri).unwrap_err();
            assert_eq!(err.offset(), offset, "{iri}");
            assert_eq!(err.kind(), Kind::Iri);
        }
    }

    #[test]
    fn the_plain_check_never_accepts_what_oxiri_rejects() {
        let samples = [
            "http://example.org/",
            "http://a",
            "http://a:",
            "http://a:80/",
            "http://a:8x/",
            "http://a:80:90/",
            "http://a b/",
            "http://a/%",
            "http://a/%4",
            "http://a/%4g",
            "http://a/%41",
            "http:",
            "http:/",
            "http:///a",
            "http://a/b#c#d",
            "http://a/?#",
            "urn:isbn:1",
            "a:b",
            "1a:b",
            "a+b-c.d:e",
            ":a",
            "a",
            "",
            "http://u@a/",
            "http://[::1]/",
            "http://a/b?c=d&e=f;g",
            "info:fedora/demo%3A1/DC",
            "hdl:10013/a%2Fb",
            "mailto:x@y",
            "http://a/b|c",
            "http://a/b\\c",
            "http://a/b^c",
            "http://a/b`c",
            "http://a/{b}",
            "x://%41%42/",
            "x://%4/",
            "x:%zz",
            "x:a/./../b",
            "http://a/é",
            "HTTP://A/",
            "x:#",
            "x:?",
            "x://",
            "x://a//b",
            "x:/a//b",
            "x://@/",
            "x://a%20b/",
        ];
        for iri in samples {
            if is_plain_absolute_iri(iri) {
                assert!(
                    oxiri::Iri::parse(iri).is_ok(),
                    "{iri:?} accepted but oxiri rejects it"
                );
                assert!(
                    validate(iri).is_ok(),
                    "{iri:?} accepted but iri-string rejects it"
                );
            }
        }
        let accepted = samples.iter().filter(|i| is_plain_absolute_iri(i)).count();
        assert!(accepted > 20, "only {accepted} accepted");
    }

    #[test]
    fn checks_query_and_fragment_without_a_full_parse() {
        for tail in [
            "",
            "?",
            "#",
            "?a=b/c?d",
            "#f",
            "?q#f",
            "?%41#%7e/?",
            "?\u{E000}",
            "#M\u{fc}ller",
        ] {
            assert!(is_query_and_fragment(tail), "{tail:?}");
            assert!(validate(&format!("x:{tail}")).is_ok(), "{tail:?}");
        }
        assert!(!is_query_and_fragment("x"), "not a query or fragment");
        for tail in ["? ", "#a#b", "?%4", "#%zz", "#\u{E000}", "?<", "#\u{7f}"] {
            assert!(!is_query_and_fragment(tail), "{tail:?}");
            assert!(validate(&format!("x:{tail}")).is_err(), "{tail:?}");
        }
    }

    #[test]
    fn the_pchar_table_is_the_grammar() {
        for b in 0..=255u8 {
            let c = char::from(b);
            let grammar = is_unreserved(c) || is_sub_delim(c) || matches!(c, ':' | '@');
            assert_eq!(is_pchar(c), grammar, "{c:?}");
            assert_eq!(is_ascii_pchar(b), grammar, "{c:?}");
        }
    }

    #[test]
    fn accepts_iris_and_rejects_relative_references() {
        assert!(validate("http://example.org/Müller?q=\u{E000}#f").is_ok());
        assert!(validate("urn:isbn:0451450523").is_ok());
        assert!(validate("//example.org/a").is_err());
        assert!(validate("").is_err());
    }
}

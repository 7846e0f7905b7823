//! A fast checker for the common N-Triples / N-Quads line: IRIs, ASCII blank node labels and
//! literals without `\u` escapes, validated as `oxttl` validates them (IRIs with `oxiri`,
//! language tags with `oxilangtag`, as `oxttl` does). A line it is not sure about goes to
//! `oxttl` itself, which has the last word on every error.

use std::ops::Range;

pub(crate) const RDF_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";
pub(crate) const RDF_DIR_LANG_STRING: &str =
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString";

/// What the fast checker says of a line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Checked {
    /// One valid statement; the byte ranges of its term IRIs (subject, predicate, object, graph;
    /// not datatypes).
    Statement(TermSpans),
    /// Only white space and a comment.
    Nothing,
    /// Something else: `oxttl` decides.
    Unsure,
}

/// Up to four IRI ranges.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct TermSpans {
    spans: [Range<usize>; 4],
    len: usize,
}

impl TermSpans {
    fn push(&mut self, span: Range<usize>) {
        self.spans[self.len] = span;
        self.len += 1;
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.spans[..self.len].iter().cloned()
    }
}

/// Checks one line (with its end of line, if any). `quads` allows a graph name.
pub(crate) fn check(text: &str, quads: bool) -> Checked {
    let mut c = Cursor {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    c.skip_ws();
    if c.at_end_of_line() {
        return Checked::Nothing;
    }
    statement(&mut c, quads).map_or(Checked::Unsure, Checked::Statement)
}

fn statement(c: &mut Cursor<'_>, quads: bool) -> Option<TermSpans> {
    let mut spans = TermSpans::default();
    match c.peek()? {
        b'<' => spans.push(c.iri()?),
        b'_' => c.blank_node()?,
        _ => return None,
    }
    c.skip_ws();
    spans.push(c.iri()?);
    c.skip_ws();
    match c.peek()? {
        b'<' => spans.push(c.iri()?),
        b'_' => c.blank_node()?,
        b'"' => c.literal()?,
        _ => return None,
    }
    c.skip_ws();
    if quads {
        match c.peek()? {
            b'<' => spans.push(c.iri()?),
            b'_' => c.blank_node()?,
            _ => {}
        }
        c.skip_ws();
    }
    c.expect(b'.')?;
    c.skip_ws();
    c.at_end_of_line().then_some(spans)
}

struct Cursor<'l> {
    text: &'l str,
    bytes: &'l [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// The end of the line, or a comment up to it.
    fn at_end_of_line(&self) -> bool {
        match &self.bytes[self.at..] {
            [] | [b'\n'] | [b'\r', b'\n'] => true,
            [b'#', rest @ ..] => {
                let body = rest.strip_suffix(b"\n").unwrap_or(rest);
                let body = body.strip_suffix(b"\r").unwrap_or(body);
                !body.contains(&b'\r')
            }
            _ => false,
        }
    }

    /// `IRIREF` without escapes, an absolute IRI; its range inside `<` and `>`.
    fn iri(&mut self) -> Option<Range<usize>> {
        self.expect(b'<')?;
        let start = self.at;
        let end = start + memchr::memchr(b'>', &self.bytes[start..])?;
        if !is_valid_absolute_iri(&self.text[start..end]) {
            return None;
        }
        self.at = end + 1;
        Some(start..end)
    }

    /// `BLANK_NODE_LABEL` with an ASCII label.
    fn blank_node(&mut self) -> Option<()> {
        self.expect(b'_')?;
        self.expect(b':')?;
        let first = self.peek()?;
        if !(first.is_ascii_alphanumeric() || first == b'_') {
            return None;
        }
        let mut end = self.at + 1;
        while self
            .bytes
            .get(end)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        {
            end += 1;
        }
        while self.bytes[end - 1] == b'.' {
            end -= 1;
        }
        if self.bytes.get(end).is_some_and(|b| !b.is_ascii()) {
            return None;
        }
        self.at = end;
        Some(())
    }

    /// `STRING_LITERAL_QUOTE` without `\u` escapes, then a datatype or a language tag.
    fn literal(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' => {
                    self.at += 1;
                    if !matches!(
                        self.peek()?,
                        b't' | b'b' | b'n' | b'r' | b'f' | b'"' | b'\'' | b'\\'
                    ) {
                        return None;
                    }
                }
                b'\n' | b'\r' => return None,
                _ => {}
            }
            self.at += 1;
        }
        self.at += 1;
        match self.peek() {
            Some(b'^') => {
                self.at += 1;
                self.expect(b'^')?;
                let datatype = self.iri()?;
                let datatype = &self.text[datatype];
                (datatype != RDF_LANG_STRING && datatype != RDF_DIR_LANG_STRING).then_some(())
            }
            Some(b'@') => self.language_tag(),
            _ => Some(()),
        }
    }

    /// `'@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*`, a well-formed BCP 47 tag; a direction is left to oxttl.
    fn language_tag(&mut self) -> Option<()> {
        self.expect(b'@')?;
        self.at += language_tag_len(&self.text[self.at..])?;
        Some(())
    }
}

/// Whether `iri` (the content of an `IRIREF` without escapes) is an absolute IRI `oxttl` takes:
/// a plain one by the table check, anything else without the bytes `IRIREF` excludes and
/// parsed in full.
pub(crate) fn is_valid_absolute_iri(iri: &str) -> bool {
    if crate::iri::is_plain_absolute_iri(iri) {
        return true;
    }
    let excluded =
        |b: u8| b <= b' ' || matches!(b, b'<' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' | b'\\');
    !iri.bytes().any(excluded) && oxiri::Iri::parse(iri).is_ok()
}

/// The length of the language tag `text` starts with (after its `@`): `[a-zA-Z]+ ('-'
/// [a-zA-Z0-9]+)*`, well-formed BCP 47; `None` when there is none, or a direction (`--`) or
/// another `-` follows (left to `oxttl`).
///
/// ```text
/// "en-GB ;"  Some(5)
/// "en--ltr"  None
/// ```
pub(crate) fn language_tag_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let letters = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    if letters == 0 {
        return None;
    }
    let mut end = letters;
    while bytes.get(end) == Some(&b'-') {
        let block = bytes[end + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if block == 0 {
            return None;
        }
        end += 1 + block;
    }
    oxilangtag::LanguageTag::parse(&text[..end]).ok()?;
    Some(end)
}

/// The scanner for the fuzz targets (`crate::fuzzing::ntriples_line`).
#[cfg(feature = "fuzzing")]
impl crate::fuzzing::Internals {
    pub(crate) fn scan_line(line: &str, quads: bool) -> crate::fuzzing::Scanned {
        use crate::fuzzing::Scanned;
        match check(line, quads) {
            Checked::Statement(spans) => {
                Scanned::Statement(spans.iter().map(|r| line[r].to_owned()).collect())
            }
            Checked::Nothing => Scanned::Nothing,
            Checked::Unsure => Scanned::Unsure,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(line: &str) -> Vec<&str> {
        match check(line, true) {
            Checked::Statement(s) => s.iter().map(|r| &line[r]).collect(),
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn accepts_the_common_lines() {
        assert_eq!(
            spans("<http://a/s> <http://a/p> <http://a/o> .\n"),
            ["http://a/s", "http://a/p", "http://a/o"]
        );
        assert_eq!(
            spans("_:b1 <http://a/p> \"x\\\"y\"@en-GB . # c\n"),
            ["http://a/p"]
        );
        assert_eq!(
            spans(
                "<http://a/s><http://a/p>\"1\"^^<http://www.w3.org/2001/XMLSchema#integer><http://g/>.\r\n"
            ),
            ["http://a/s", "http://a/p", "http://g/"]
        );
        assert_eq!(spans("_:a.b <http://a/p> _:c. "), ["http://a/p"]);
        assert_eq!(check("   # only a comment\n", false), Checked::Nothing);
        assert_eq!(check("\n", false), Checked::Nothing);
    }

    #[test]
    fn is_unsure_about_everything_else() {
        for line in [
            "<http://a/s> <http://a/p> <http://a/o> <http://g/> .\n",
            "<a> <http://a/p> <http://a/o> .\n",
            "<http://a/\\u0073> <http://a/p> <http://a/o> .\n",
            "<http://a/s> <http://a/p> \"\\u00E9\" .\n",
            "<http://a/s> <http://a/p> \"x\"@en--ltr .\n",
            "<http://a/s> <http://a/p> \"x\"@123 .\n",
            "<http://a/s> <http://a/p> \"x\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString> .\n",
            "<http://a/s> <http://a/p> <<( <http://a/s> <http://a/p> <http://a/o> )>> .\n",
            "_:é <http://a/p> <http://a/o> .\n",
            "<http://a/s> <http://a/p> <http://a/o>\n",
            "<http://a/s> <http://a/p> <http://a/o> . x\n",
            "<http://a/s> <http://a/p> \"open .\n",
            "<http://a/#x#y> <http://a/p> <http://a/o> .\n",
        ] {
            assert_eq!(check(line, false), Checked::Unsure, "{line:?}");
        }
    }
}

#[cfg(test)]
mod agreement {
    //! The fast checker never accepts what `oxttl` rejects: every line of the W3C N-Triples and
    //! N-Quads tests (positive and negative) and of the real corpus, checked both ways.

    use super::{Checked, check};

    /// What `oxttl` makes of one line: `Some(statements)` or `None` for an error.
    fn oxttl(line: &[u8], quads: bool) -> Option<usize> {
        let results: Vec<_> = if quads {
            oxttl::NQuadsParser::new()
                .for_slice(line)
                .map(|r| r.map(drop))
                .collect()
        } else {
            oxttl::NTriplesParser::new()
                .for_slice(line)
                .map(|r| r.map(drop))
                .collect()
        };
        results.iter().all(Result::is_ok).then_some(results.len())
    }

    #[test]
    fn never_accepts_what_oxttl_rejects() {
        let paths = crate::read::fixture_files(&["w3c", "real"], &["nt", "nq"]);
        let (mut fast, mut statements, mut lines) = (0, 0, 0);
        for path in &paths {
            let quads = path.extension().is_some_and(|e| e == "nq");
            let bytes = std::fs::read(path).expect("readable");
            for line in bytes.split_inclusive(|&b| b == b'\n') {
                lines += 1;
                let Ok(text) = std::str::from_utf8(line) else {
                    continue;
                };
                let expected = match check(text, quads) {
                    Checked::Statement(_) => {
                        statements += 1;
                        Some(1)
                    }
                    Checked::Nothing => Some(0),
                    Checked::Unsure => continue,
                };
                fast += 1;
                assert_eq!(
                    oxttl(line, quads),
                    expected,
                    "{}: {:?}",
                    path.display(),
                    String::from_utf8_lossy(line)
                );
            }
        }
        assert!(
            fast * 2 > lines,
            "the fast path took only {fast} of {lines} lines"
        );
        // Most of those are statements, not blank lines and comments: the agreement above is
        // checked on what the fast path is for.
        assert!(
            statements > 2_000 && statements * 3 > lines,
            "the fast path accepted only {statements} statements of {lines} lines"
        );
    }
}

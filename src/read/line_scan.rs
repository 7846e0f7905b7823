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

/// Up to four IRI ranges, each with the hash of its IRI ([`iri_hash`]): an IRI the checker
/// took has no escape, so its text is its value. Which terms they are is known too: the
/// subject, predicate, object and graph name that are IRIs, in that order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct TermSpans {
    spans: [(Range<usize>, u64); 4],
    len: usize,
    /// Bit `i` set: term `i` (subject, predicate, object, graph name) is an IRI.
    terms: u8,
}

impl TermSpans {
    /// Term number `term` (0: the subject … 3: the graph name) is the IRI `span`.
    fn push(&mut self, term: u8, span: (Range<usize>, u64)) {
        self.spans[self.len] = span;
        self.len += 1;
        self.terms |= 1 << term;
    }

    /// The subject, predicate and object, if all three are IRIs.
    pub(crate) fn iri_statement(&self) -> Option<[Range<usize>; 3]> {
        (self.terms & 0b111 == 0b111).then(|| {
            let [s, p, o, _] = &self.spans;
            [s.0.clone(), p.0.clone(), o.0.clone()]
        })
    }

    /// The graph name, if it is an IRI.
    pub(crate) fn graph(&self) -> Option<Range<usize>> {
        (self.terms & 0b1000 != 0).then(|| self.spans[self.len - 1].0.clone())
    }

    /// The ranges with the hashes of their IRIs.
    pub(crate) fn hashed(&self) -> impl Iterator<Item = (Range<usize>, u64)> + '_ {
        self.spans[..self.len].iter().cloned()
    }
}

/// The hash of an IRI by which [`KnownIris`] and the rewrite's cache of canonical forms find it.
pub(crate) fn iri_hash(iri: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(iri.as_bytes())
}

/// The IRIs a checker found valid last, so that an IRI written again (a predicate, a type, the
/// subject of the lines before) is not validated again: a direct-mapped table of fixed size
/// whose slots hold only IRIs that passed [`is_valid_absolute_iri`], each slot one cache line
/// with the IRI in it. A hit costs one hash, one load and one comparison; a validation about
/// five instructions a byte.
pub(crate) struct KnownIris {
    slots: Vec<KnownIri>,
}

/// One cache line: the IRI's hash, its length (0: the slot holds nothing; no valid IRI is
/// empty) and its bytes.
#[derive(Clone)]
#[repr(align(64))]
struct KnownIri {
    hash: u64,
    len: u8,
    bytes: [u8; KnownIris::MAX_LEN],
}

impl KnownIris {
    /// Slots in the table (a power of two).
    const SLOTS: usize = 1 << 11;
    /// IRIs longer than this are validated each time.
    const MAX_LEN: usize = 64 - 9;

    pub(crate) fn new() -> Self {
        let empty = KnownIri {
            hash: 0,
            len: 0,
            bytes: [0; Self::MAX_LEN],
        };
        Self {
            slots: vec![empty; Self::SLOTS],
        }
    }

    /// The hash of `iri` ([`iri_hash`]) if it is an absolute IRI `oxttl` takes
    /// ([`is_valid_absolute_iri`]).
    fn is_valid(&mut self, iri: &str) -> Option<u64> {
        let (bytes, hash) = (iri.as_bytes(), iri_hash(iri));
        if bytes.len() > Self::MAX_LEN || bytes.is_empty() {
            return is_valid_absolute_iri(iri).then_some(hash);
        }
        let slot = &mut self.slots[(hash as usize) & (Self::SLOTS - 1)];
        if slot.hash == hash
            && usize::from(slot.len) == bytes.len()
            && slot.bytes[..bytes.len()] == *bytes
        {
            return Some(hash);
        }
        let valid = is_valid_absolute_iri(iri);
        if valid {
            slot.hash = hash;
            slot.len = bytes.len() as u8;
            slot.bytes[..bytes.len()].copy_from_slice(bytes);
        }
        valid.then_some(hash)
    }
}

/// Checks one line (with its end of line, if any). `quads` allows a graph name; `known` are the
/// IRIs found valid on the lines before.
pub(crate) fn check(text: &str, quads: bool, known: &mut KnownIris) -> Checked {
    let mut c = Cursor {
        text,
        bytes: text.as_bytes(),
        at: 0,
        known,
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
        b'<' => spans.push(0, c.iri()?),
        b'_' => c.blank_node()?,
        _ => return None,
    }
    c.skip_ws();
    spans.push(1, c.iri()?);
    c.skip_ws();
    match c.peek()? {
        b'<' => spans.push(2, c.iri()?),
        b'_' => c.blank_node()?,
        b'"' => c.literal()?,
        _ => return None,
    }
    c.skip_ws();
    if quads {
        match c.peek()? {
            b'<' => spans.push(3, c.iri()?),
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
    known: &'l mut KnownIris,
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

    /// `IRIREF` without escapes, an absolute IRI; its range inside `<` and `>`, and its hash.
    fn iri(&mut self) -> Option<(Range<usize>, u64)> {
        self.expect(b'<')?;
        let start = self.at;
        let end = start + memchr::memchr(b'>', &self.bytes[start..])?;
        let hash = self.known.is_valid(&self.text[start..end])?;
        self.at = end + 1;
        Some((start..end, hash))
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
                let (datatype, _) = self.iri()?;
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
        match check(line, quads, &mut KnownIris::new()) {
            Checked::Statement(spans) => {
                Scanned::Statement(spans.hashed().map(|(r, _)| line[r].to_owned()).collect())
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
        match check(line, true, &mut KnownIris::new()) {
            Checked::Statement(s) => s.hashed().map(|(r, _)| &line[r]).collect(),
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
        assert_eq!(
            check("   # only a comment\n", false, &mut KnownIris::new()),
            Checked::Nothing
        );
        assert_eq!(check("\n", false, &mut KnownIris::new()), Checked::Nothing);
    }

    #[test]
    fn says_which_terms_are_iris() {
        let terms = |line: &'static str| match check(line, true, &mut KnownIris::new()) {
            Checked::Statement(s) => (
                s.iri_statement().map(|spo| spo.map(|r| &line[r])),
                s.graph().map(|r| &line[r]),
            ),
            other => panic!("{line:?}: {other:?}"),
        };
        let spo = Some(["http://a/s", "http://a/p", "http://a/o"]);
        assert_eq!(
            terms("<http://a/s> <http://a/p> <http://a/o> <http://g/> .\n"),
            (spo, Some("http://g/"))
        );
        assert_eq!(
            terms("<http://a/s> <http://a/p> <http://a/o> _:g .\n"),
            (spo, None)
        );
        assert_eq!(
            terms("_:s <http://a/p> <http://a/o> <http://g/> .\n"),
            (None, Some("http://g/"))
        );
        assert_eq!(
            terms("<http://a/s> <http://a/p> \"o\"^^<http://a/o> <http://g/> .\n"),
            (None, Some("http://g/"))
        );
        assert_eq!(terms("<http://a/s> <http://a/p> _:o .\n"), (None, None));
    }

    #[test]
    fn known_iris_answer_as_the_validation_does() {
        // Valid and invalid IRIs of every length around the slots' limit, many more than the
        // slots (so that slots are taken over), each asked several times: a remembered IRI
        // answers as validating it again would, and an invalid one is never remembered.
        let mut iris = Vec::new();
        for n in 0..12_000 {
            let path = "x".repeat(n % 70);
            iris.push(format!("http://a/{path}{n}"));
            iris.push(format!("http://a/{path}{n} "));
            iris.push(format!("http://a/{path}{n}>"));
            iris.push(format!("a/{path}{n}"));
        }
        iris.push(String::new());
        let mut known = KnownIris::new();
        for round in 0..3 {
            for iri in iris.iter().skip(round) {
                assert_eq!(
                    known.is_valid(iri),
                    is_valid_absolute_iri(iri).then(|| iri_hash(iri)),
                    "{iri:?}, round {round}"
                );
            }
        }
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
            assert_eq!(
                check(line, false, &mut KnownIris::new()),
                Checked::Unsure,
                "{line:?}"
            );
        }
    }
}

#[cfg(test)]
mod agreement {
    //! The fast checker never accepts what `oxttl` rejects: every line of the W3C N-Triples and
    //! N-Quads tests (positive and negative) and of the real corpus, checked both ways.

    use super::{Checked, KnownIris, check};

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
        // One table of known IRIs for every line, as in a rewrite: an IRI found valid on one
        // line is taken on the next without being validated again.
        let mut known = KnownIris::new();
        for path in &paths {
            let quads = path.extension().is_some_and(|e| e == "nq");
            let bytes = std::fs::read(path).expect("readable");
            for line in bytes.split_inclusive(|&b| b == b'\n') {
                lines += 1;
                let Ok(text) = std::str::from_utf8(line) else {
                    continue;
                };
                let expected = match check(text, quads, &mut known) {
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

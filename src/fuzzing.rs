//! The fuzz targets' way into pidcanon's own readers (`fuzz/`, `docs/fuzzing.md`): each
//! function reads a text with one of them and gives what it read as plain values, to compare
//! with what `oxttl` or `oxrdfxml` give. Built with the `fuzzing` feature only (on in the
//! crate's own tests); not an API.
//!
//! The internals are reached through [`Internals`], whose methods are written next to what
//! they reach (in `read`): the modules stay private.

use oxrdf::Quad;
#[cfg(feature = "rdfxml")]
use oxrdf::Triple;
use std::cell::Cell;
use std::collections::HashMap;

/// What the readers' modules give the fuzz targets, as inherent methods defined next to the
/// internals they use.
pub(crate) struct Internals;

/// Made-up blank nodes (random 128-bit ids, written with more than 16 hexadecimal digits)
/// numbered in order of appearance: two reads of one text give the same names.
#[derive(Default)]
pub(crate) struct MadeUp(HashMap<String, usize>);

impl MadeUp {
    /// `quad` as text, its made-up blank nodes numbered.
    pub(crate) fn quad(&mut self, quad: &Quad) -> String {
        self.text(&quad.to_string())
    }

    /// `text` with its made-up blank nodes numbered.
    fn text(&mut self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("_:") {
            out.push_str(&rest[..at + 2]);
            rest = &rest[at + 2..];
            let len = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
            if len > 16 && !rest[len..].starts_with(|c: char| c.is_alphanumeric()) {
                let next = self.0.len();
                let number = *self.0.entry(rest[..len].to_owned()).or_insert(next);
                out.push_str(&format!("made{number}"));
                rest = &rest[len..];
            }
        }
        out.push_str(rest);
        out
    }
}

/// Every item of the Turtle document `text` (resolved against `base`) as the reader hands it
/// on — statement, syntax error with its location, warning — each with the lines it spans and
/// the declarations at it, then what is left (lines, prefixes, base): through the fast path
/// and `oxttl` when `fast`, through `oxttl` alone when not. Both must give the same.
#[must_use]
pub fn turtle_items(text: &[u8], base: &str, fast: bool) -> Vec<String> {
    Internals::turtle_items(text, base, fast)
}

/// [`turtle_items`] for a TriG document.
#[must_use]
pub fn trig_items(text: &[u8], base: &str, fast: bool) -> Vec<String> {
    Internals::trig_items(text, base, fast)
}

/// What the N-Triples / N-Quads line scanner says of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scanned {
    /// One valid statement, with the IRIs of its subject, predicate, object and graph (those
    /// that are IRIs; not datatypes), in order.
    Statement(Vec<String>),
    /// Only white space and a comment.
    Nothing,
    /// Left to `oxttl`.
    Unsure,
}

/// What the scanner of the line pipeline says of `line` (with its end of line, if any), an
/// N-Quads line when `quads`.
#[must_use]
pub fn ntriples_line(line: &str, quads: bool) -> Scanned {
    Internals::scan_line(line, quads)
}

thread_local! {
    /// The piece size Turtle on several threads cuts at on this thread, if set.
    static PIECE_SIZE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Runs `f` with Turtle on several threads cut into pieces of `size` bytes (at the first
/// statement end after that many; 256 KiB otherwise) by the pipelines it starts on this
/// thread: small pieces cut at nearly every statement end.
pub fn with_piece_size<T>(size: usize, f: impl FnOnce() -> T) -> T {
    let before = PIECE_SIZE.replace(Some(size));
    let result = f();
    PIECE_SIZE.set(before);
    result
}

/// The piece size set by [`with_piece_size`], if any.
pub(crate) fn piece_size() -> Option<usize> {
    PIECE_SIZE.get()
}

/// The triples of an RDF/XML document as `oxrdfxml` reads it (`legacy`: after the legacy
/// pre-pass, [`crate::rdfxml::LegacyRdfXml`]), blank nodes numbered in order of appearance;
/// the first error instead, if there is one.
#[cfg(feature = "rdfxml")]
pub fn rdfxml_triples(xml: &[u8], base: &str, legacy: bool) -> Result<Vec<String>, String> {
    let parser = oxrdfxml::RdfXmlParser::new()
        .with_base_iri(base)
        .map_err(|e| e.to_string())?;
    let triples: Box<dyn Iterator<Item = Result<Triple, oxrdfxml::RdfXmlParseError>>> = if legacy {
        let prepass = crate::rdfxml::LegacyRdfXml::new(xml, |_, _| {});
        Box::new(parser.for_reader(prepass))
    } else {
        Box::new(parser.for_slice(xml).map(|r| r.map_err(Into::into)))
    };
    let mut names = BlankNames::default();
    triples
        .map(|triple| match triple {
            Ok(triple) => Ok(names.triple(&triple)),
            Err(e) => Err(e.to_string()),
        })
        .collect()
}

/// Every blank node numbered in order of appearance.
#[cfg(feature = "rdfxml")]
#[derive(Default)]
struct BlankNames(HashMap<String, usize>);

#[cfg(feature = "rdfxml")]
impl BlankNames {
    fn triple(&mut self, triple: &Triple) -> String {
        let mut name = |term: String| {
            let Some(id) = term.strip_prefix("_:") else {
                return term;
            };
            let next = self.0.len();
            format!("_:b{}", self.0.entry(id.to_owned()).or_insert(next))
        };
        format!(
            "{} {} {}",
            name(triple.subject.to_string()),
            triple.predicate,
            name(triple.object.to_string())
        )
    }
}

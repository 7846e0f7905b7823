//! Legacy RDF/XML, read as the RDF/XML specification's backwards-compatibility rules (RDF/XML
//! Syntax §6.1.4) and the common parsers (rapper, rdflib, Jena) read it: a streaming pre-pass
//! over the XML events that hands `oxrdfxml` the document it would have accepted.
//!
//! - An unqualified `about`, `resource`, `ID`, `parseType`, `type`, `nodeID`, `datatype`,
//!   `bagID` or `aboutEach` attribute becomes its `rdf:` form, with a prefix in scope for the
//!   RDF namespace; where there is none, the element gets a declaration of its own
//!   (`xmlns:legacy-rdf`), which an XML literal inside it then carries (that is reported).
//! - An unqualified `base` on `rdf:RDF` becomes `xml:base`.
//! - Text made only of whitespace and character or entity references (`&#160;`, `&nbsp;`)
//!   where RDF/XML has no place for text (between node elements, between property elements,
//!   before a property's object node) is dropped; the statements around it are kept.
//!
//! Each kind of legacy use is reported once per document, with the line and column where it
//! first appears. `parseType="Literal"` content is left untouched (it is the literal's value).
//!
//! ```
//! use pidcanon::rdfxml::LegacyRdfXml;
//! use std::io::Read;
//!
//! let legacy = r#"<RDF xmlns="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
//!   <Description about="info:fedora/demo:1"/>
//! </RDF>"#;
//! let mut warnings = Vec::new();
//! let mut fixed = String::new();
//! LegacyRdfXml::new(legacy.as_bytes(), |at, w| warnings.push(format!("{at}: {w}")))
//!     .read_to_string(&mut fixed)?;
//! assert!(fixed.contains(r#"legacy-rdf:about="info:fedora/demo:1""#));
//! assert_eq!(
//!     warnings,
//!     ["2:3: unqualified attribute `about` read as rdf:about (RDF/XML Syntax §6.1.4)"]
//! );
//! # Ok::<(), std::io::Error>(())
//! ```

use super::EventMarks;
use crate::position::TextPosition;
use crate::rewrite::Location;
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesStart, BytesText, Event};
use quick_xml::name::{Namespace, PrefixDeclaration, QName, ResolveResult};
use quick_xml::{NsReader, Writer};
use std::borrow::Cow;
use std::cell::RefCell;
use std::io::{self, BufRead, Read};
use std::rc::Rc;

const RDF_NS: &[u8] = b"http://www.w3.org/1999/02/22-rdf-syntax-ns#";

/// The prefix the pre-pass declares for the attributes it qualifies.
const PREFIX: &str = "legacy-rdf";

/// The attributes RDF/XML reads in the RDF namespace when they come unqualified.
const LEGACY_ATTRIBUTES: [&str; 9] = [
    "about",
    "resource",
    "ID",
    "parseType",
    "type",
    "nodeID",
    "datatype",
    "bagID",
    "aboutEach",
];

/// A malformed XML document met by the pre-pass (carried inside an [`io::Error`] of kind
/// `InvalidData`: the pre-pass is a reader).
#[derive(Debug, thiserror::Error)]
#[error("{location}: {message}")]
pub struct XmlError {
    /// Where the XML went wrong.
    pub location: Location,
    /// What is wrong.
    pub message: String,
}

/// What an element's children are, in RDF/XML's grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Children {
    /// Node elements (inside `rdf:RDF` or a `parseType="Collection"` property).
    Nodes,
    /// Property elements (inside a node element or a `parseType="Resource"` property).
    Properties,
    /// Text or one node element (inside a plain property element).
    Object,
    /// Verbatim XML (inside a `parseType="Literal"` property).
    Literal,
}

/// Counts lines and columns of the bytes the XML reader consumes.
struct Counted<R> {
    inner: R,
    position: TextPosition,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        crate::buffered::read_from_buffer(self, buf)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if let Ok(buf) = self.inner.fill_buf() {
            self.position.advance(&buf[..amount.min(buf.len())]);
        }
        self.inner.consume(amount);
    }
}

/// The legacy pre-pass: a reader of the corrected document. See the [module docs](self).
pub struct LegacyRdfXml<R, W> {
    reader: NsReader<Counted<R>>,
    warn: W,
    /// What the children of each open element are, and whether the pre-pass declared its
    /// prefix on it.
    stack: Vec<(Children, bool)>,
    /// Text held back until the next event tells whether it has a place.
    pending: Option<(BytesText<'static>, Location)>,
    /// Kinds of legacy use already reported.
    reported: Vec<String>,
    buf: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    /// The offset in the corrected document where `out` starts.
    out_offset: u64,
    /// Where each written tag was in the input, when asked for ([`Self::marking`]).
    marks: Option<Rc<RefCell<EventMarks>>>,
    done: bool,
}

impl<R: BufRead, W: FnMut(Location, String)> LegacyRdfXml<R, W> {
    /// Reads `input`, telling `warn` of each kind of legacy use once.
    pub fn new(input: R, warn: W) -> Self {
        let reader = NsReader::from_reader(Counted {
            inner: input,
            position: TextPosition::default(),
        });
        Self {
            reader,
            warn,
            stack: Vec::new(),
            pending: None,
            reported: Vec::new(),
            buf: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            out_offset: 0,
            marks: None,
            done: false,
        }
    }

    /// Records in `marks` where each tag of the corrected document was in the input, so that
    /// what is parsed from it can be located in the input.
    #[must_use]
    pub fn marking(mut self, marks: Rc<RefCell<EventMarks>>) -> Self {
        self.marks = Some(marks);
        self
    }

    /// Where the next event starts: the XML reader consumes the `<` that ends a text.
    fn position(&self) -> Location {
        let lt_consumed = u64::from(self.pending.is_some());
        self.reader.get_ref().position.location_before(lt_consumed)
    }

    fn report(&mut self, location: Location, kind: &str, message: String) {
        if !self.reported.iter().any(|k| k == kind) {
            self.reported.push(kind.to_owned());
            (self.warn)(location, message);
        }
    }

    /// Reads the next XML event and writes its corrected form to `out`.
    fn step(&mut self) -> io::Result<()> {
        let at = self.position();
        self.buf.clear();
        let event = match self.reader.read_resolved_event_into(&mut self.buf) {
            Ok((_, event)) => event.into_owned(),
            Err(e) => {
                let error = XmlError {
                    location: at,
                    message: format!("malformed XML: {e}"),
                };
                return Err(io::Error::new(io::ErrorKind::InvalidData, error));
            }
        };
        match event {
            Event::Text(text) if self.children() != Some(Children::Literal) => {
                self.flush_pending(true);
                self.pending = Some((text, at));
            }
            Event::Start(start) => {
                self.flush_pending(false);
                let (start, children, declared) = self.element(start, at);
                self.stack.push((children, declared));
                self.write(Event::Start(start), at)?;
            }
            Event::Empty(start) => {
                self.flush_pending(false);
                let (start, ..) = self.element(start, at);
                self.write(Event::Empty(start), at)?;
            }
            Event::End(end) => {
                let closes_object = self.stack.pop().map(|(c, _)| c) == Some(Children::Object);
                self.flush_pending(closes_object);
                self.write(Event::End(end), at)?;
            }
            Event::Eof => {
                self.flush_pending(false);
                self.done = true;
            }
            other => {
                self.flush_pending(true);
                self.write(other, at)?;
            }
        }
        Ok(())
    }

    /// Writes the held-back text, unless `placed` is false and it is whitespace-and-references
    /// text that RDF/XML cannot place (other text is written: the parser reports it).
    fn flush_pending(&mut self, placed: bool) {
        let Some((text, at)) = self.pending.take() else {
            return;
        };
        if !placed && is_references_only(&text) {
            let shown = String::from_utf8_lossy(&text).trim().to_owned();
            self.report(
                at,
                "text",
                format!("text {shown:?} where RDF/XML allows no text skipped"),
            );
            return;
        }
        // Writing to a Vec cannot fail.
        let _ = Writer::new(&mut self.out).write_event(Event::Text(text));
    }

    /// Writes `event`, which was at `at` in the input.
    fn write(&mut self, event: Event<'_>, at: Location) -> io::Result<()> {
        if let Some(marks) = &self.marks {
            let offset = self.out_offset + self.out.len() as u64;
            marks.borrow_mut().mark(offset, at);
        }
        Writer::new(&mut self.out).write_event(event)
    }

    /// What the children of the innermost open element are.
    fn children(&self) -> Option<Children> {
        self.stack.last().map(|&(children, _)| children)
    }

    /// A prefix in scope bound to the RDF namespace, if any.
    fn rdf_prefix(&self) -> Option<String> {
        self.reader
            .prefixes()
            .find_map(|(prefix, namespace)| match prefix {
                PrefixDeclaration::Named(name) if namespace == Namespace(RDF_NS) => {
                    Some(String::from_utf8_lossy(name).into_owned())
                }
                _ => None,
            })
    }

    /// The element with its legacy attributes qualified, what its children are, and whether the
    /// pre-pass declared its own prefix on it (no prefix for the RDF namespace was in scope).
    fn element(
        &mut self,
        start: BytesStart<'static>,
        at: Location,
    ) -> (BytesStart<'static>, Children, bool) {
        let parent = self.children();
        if parent == Some(Children::Literal) {
            return (start, Children::Literal, false);
        }
        let (namespace, local) = self.reader.resolve_element(start.name());
        let is_rdf_root = parent.is_none()
            && namespace == ResolveResult::Bound(Namespace(RDF_NS))
            && local.as_ref() == b"RDF";
        let rdf_prefix = self.rdf_prefix();
        let prefix = rdf_prefix.as_deref().unwrap_or(PREFIX);
        let mut changes = Vec::new();
        let mut parse_type = None;
        for attribute in start.attributes().flatten() {
            let key = attribute.key.as_ref();
            let (attribute_namespace, _) = self.reader.resolve_attribute(attribute.key);
            let unqualified = attribute_namespace == ResolveResult::Unbound && key != b"xmlns";
            let name = String::from_utf8_lossy(key).into_owned();
            if unqualified && is_rdf_root && name == "base" {
                changes.push((name, "xml:base".to_owned()));
            } else if unqualified && LEGACY_ATTRIBUTES.contains(&name.as_str()) {
                changes.push((name.clone(), format!("{prefix}:{name}")));
            }
            let is_parse_type = attribute.key.local_name().as_ref() == b"parseType"
                && (unqualified || attribute_namespace == ResolveResult::Bound(Namespace(RDF_NS)));
            if is_parse_type {
                parse_type = Some(attribute.value.into_owned());
            }
        }
        let children = match parent {
            None if is_rdf_root => Children::Nodes,
            None | Some(Children::Nodes | Children::Object) => Children::Properties,
            Some(Children::Properties) => match parse_type.as_deref() {
                Some(b"Literal") => Children::Literal,
                Some(b"Resource") => Children::Properties,
                Some(b"Collection") => Children::Nodes,
                _ => Children::Object,
            },
            Some(Children::Literal) => Children::Literal,
        };
        if children == Children::Literal && self.stack.iter().any(|&(_, declared)| declared) {
            self.report(
                at,
                "literal",
                format!(
                    "the XML literal here carries the declaration xmlns:{PREFIX}=\"{}\" the \
                     pre-pass added to read legacy attributes",
                    String::from_utf8_lossy(RDF_NS)
                ),
            );
        }
        if changes.is_empty() {
            return (start, children, false);
        }
        for (from, to) in &changes {
            let rule = if to == "xml:base" {
                "(as xml:base)"
            } else {
                "(RDF/XML Syntax §6.1.4)"
            };
            let what = if to == "xml:base" {
                format!("unqualified attribute `base` on rdf:RDF read as xml:base {rule}")
            } else {
                format!("unqualified attribute `{from}` read as rdf:{from} {rule}")
            };
            self.report(at, from, what);
        }
        let declare = rdf_prefix.is_none() && changes.iter().any(|(_, to)| to != "xml:base");
        (qualified(&start, &changes, declare), children, declare)
    }
}

/// `start` with the attributes named in `changes` renamed, and when `declare`, the RDF
/// namespace declared for the prefix of the pre-pass.
fn qualified(
    start: &BytesStart<'_>,
    changes: &[(String, String)],
    declare: bool,
) -> BytesStart<'static> {
    let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
    let mut fixed = BytesStart::new(name);
    for attribute in start.attributes().flatten() {
        let key = String::from_utf8_lossy(attribute.key.as_ref()).into_owned();
        let key = changes
            .iter()
            .find(|(from, _)| *from == key)
            .map_or(key, |(_, to)| to.clone());
        fixed.push_attribute(Attribute {
            key: QName(key.as_bytes()),
            value: Cow::Borrowed(&attribute.value),
        });
    }
    if declare {
        let declaration = format!("xmlns:{PREFIX}");
        fixed.push_attribute(Attribute {
            key: QName(declaration.as_bytes()),
            value: Cow::Borrowed(RDF_NS),
        });
    }
    fixed
}

/// Whether the pre-pass may change anything in the document `xml`: it holds a reference (`&`,
/// which text it drops must hold) or what may be an unqualified attribute it qualifies
/// (`about=`, `base=`, …). When not, reading `xml` strictly gives the same statements, for less
/// work.
///
/// ```
/// use pidcanon::rdfxml::may_need_legacy_reading;
/// assert!(may_need_legacy_reading(br#"<Description about="info:fedora/demo:1"/>"#));
/// assert!(may_need_legacy_reading(b"<rdf:RDF>&#160;</rdf:RDF>"));
/// assert!(!may_need_legacy_reading(br#"<rdf:Description rdf:about="info:fedora/demo:1"/>"#));
/// ```
#[must_use]
pub fn may_need_legacy_reading(xml: &[u8]) -> bool {
    let unqualified = |name: &str| {
        memchr::memmem::find_iter(xml, name.as_bytes()).any(|at| {
            // An attribute name follows whitespace; `=` may have whitespace around it.
            at > 0
                && xml[at - 1].is_ascii_whitespace()
                && xml[at + name.len()..].trim_ascii_start().starts_with(b"=")
        })
    };
    memchr::memchr(b'&', xml).is_some()
        || LEGACY_ATTRIBUTES
            .into_iter()
            .chain(["base"])
            .any(unqualified)
}

/// Whether `text` holds at least one reference and nothing else but whitespace.
fn is_references_only(text: &[u8]) -> bool {
    let mut rest = text;
    let mut references = 0;
    loop {
        rest = rest.trim_ascii_start();
        match rest.first() {
            None => return references > 0,
            Some(b'&') => match memchr::memchr(b';', rest) {
                Some(end) => {
                    references += 1;
                    rest = &rest[end + 1..];
                }
                None => return false,
            },
            Some(_) => return false,
        }
    }
}

impl<R: BufRead, W: FnMut(Location, String)> Read for LegacyRdfXml<R, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        crate::buffered::read_from_buffer(self, buf)
    }
}

impl<R: BufRead, W: FnMut(Location, String)> BufRead for LegacyRdfXml<R, W> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.out_pos == self.out.len() && !self.done {
            self.out_offset += self.out.len() as u64;
            self.out.clear();
            self.out_pos = 0;
            // Events are small: gather a few kilobytes before handing them on.
            while self.out.len() < 1 << 13 && !self.done {
                self.step()?;
            }
        }
        Ok(&self.out[self.out_pos..])
    }

    fn consume(&mut self, amount: usize) {
        self.out_pos = (self.out_pos + amount).min(self.out.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(input: &str) -> (String, Vec<String>) {
        let mut warnings = Vec::new();
        let mut out = String::new();
        LegacyRdfXml::new(input.as_bytes(), |at, w| {
            warnings.push(format!("{at}: {w}"))
        })
        .read_to_string(&mut out)
        .expect("well-formed");
        (out, warnings)
    }

    #[test]
    fn references_only() {
        assert!(is_references_only(b" &#160;\n &nbsp; "));
        assert!(!is_references_only(b"  \n"));
        assert!(!is_references_only(b"&#160; x"));
        assert!(!is_references_only(b"&#160"));
    }

    #[test]
    fn literal_content_is_untouched() {
        let input = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/"><rdf:Description rdf:about="http://s"><e:p rdf:parseType="Literal"><b about="x">&#160;</b></e:p></rdf:Description></rdf:RDF>"#;
        let (out, warnings) = fixed(input);
        assert_eq!(out, input);
        assert!(warnings.is_empty());
    }

    #[test]
    fn text_of_a_property_is_kept() {
        let input = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/"><rdf:Description rdf:about="http://s"><e:p>&#160;</e:p></rdf:Description></rdf:RDF>"#;
        let (out, warnings) = fixed(input);
        assert_eq!(out, input);
        assert!(warnings.is_empty());
    }

    #[test]
    fn stray_references_are_dropped_once_reported() {
        let input = "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">&#160;<rdf:Description/>\n&#160;<rdf:Description/></rdf:RDF>";
        let (out, warnings) = fixed(input);
        assert!(!out.contains("&#160;"), "{out}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("1:66: text \"&#160;\""),
            "{warnings:?}"
        );
    }
}

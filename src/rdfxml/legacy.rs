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
//! first appears. The content of a `parseType="Literal"` property — or of any `parseType` RDF/XML
//! does not name, which it reads as `Literal` (§7.2.20) — is left untouched (it is the literal's
//! value).
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
use super::marks::Note;
use crate::position::{Location, TextPosition};
use oxiri::Iri;
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesStart, Event};
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
    /// Node elements (inside `rdf:RDF`, a `parseType="Collection"` property or RDF 1.2's
    /// `parseType="Triple"`).
    Nodes,
    /// Property elements (inside a node element or a `parseType="Resource"` property).
    Properties,
    /// Text or one node element (inside a plain property element).
    Object,
    /// Verbatim XML (inside a `parseType="Literal"` property, or one of a `parseType` RDF/XML
    /// does not name).
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

/// An open element: what its children are, and the `xml:lang` (as written) and base IRI in
/// its scope.
#[derive(Debug, Clone)]
struct Open {
    children: Children,
    language: Option<Rc<str>>,
    base: Option<Rc<str>>,
}

/// Text held back until the next event tells whether it has a place: the text (escaped as
/// XML text) of the text events and CDATA sections met since the last tag, comments between
/// them left out, and where it starts.
struct Pending {
    text: Vec<u8>,
    at: Location,
    /// Whether a CDATA section is part of it (then it is not "only references").
    cdata: bool,
}

/// The legacy pre-pass: a reader of the corrected document. See the module's documentation.
pub struct LegacyRdfXml<R, W> {
    reader: NsReader<Counted<R>>,
    warn: W,
    /// Whether the legacy uses are read (not with [`Self::strictly`]).
    legacy: bool,
    /// The document's base IRI, if any.
    base: Option<Rc<str>>,
    /// The open elements.
    stack: Vec<Open>,
    /// Text held back until the next event tells whether it has a place.
    pending: Option<Pending>,
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
            legacy: true,
            base: None,
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

    /// Resolves a relative `xml:base` against `base` (the document's base IRI) where no other
    /// base is in scope.
    #[must_use]
    pub fn with_base(mut self, base: Option<&str>) -> Self {
        self.base = base.map(Rc::from);
        self
    }

    /// Leaves the legacy uses as they are (for a strict reading, where they are errors): only
    /// what standard RDF/XML needs and `oxrdfxml` does not do is done — a relative `xml:base`
    /// resolved, a property's text split by comments or CDATA sections joined.
    #[must_use]
    pub fn strictly(mut self) -> Self {
        self.legacy = false;
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
        let in_literal = self.children() == Some(Children::Literal);
        match event {
            Event::Text(text) if !in_literal => self.hold(&text, at, false),
            Event::CData(cdata) if !in_literal => {
                // One text with the text around it, as rapper reads it.
                let text = cdata.escape().map_err(|e| {
                    let message = format!("malformed XML: {e}");
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        XmlError {
                            location: at,
                            message,
                        },
                    )
                })?;
                self.hold(&text, at, true);
            }
            // A comment (or processing instruction) between two texts does not split them.
            Event::Comment(_) | Event::PI(_) if !in_literal && self.pending.is_some() => {}
            Event::Start(start) => {
                self.flush_pending(false);
                let (start, open, note) = self.element(start, at);
                self.stack.push(open);
                self.write(Event::Start(start), at, note)?;
            }
            Event::Empty(start) => {
                self.flush_pending(false);
                let (start, _, note) = self.element(start, at);
                self.write(Event::Empty(start), at, note)?;
            }
            Event::End(end) => {
                let open = self.stack.pop();
                let children = open.as_ref().map(|o| o.children);
                self.flush_pending(children == Some(Children::Object));
                let note = open.and_then(|open| {
                    let closes_literal = open.children == Children::Literal
                        && self.children() != Some(Children::Literal);
                    noted(closes_literal, open.language, None, None)
                });
                self.write(Event::End(end), at, note)?;
            }
            Event::Eof => {
                self.flush_pending(false);
                self.done = true;
            }
            other => {
                self.flush_pending(true);
                self.write(other, at, None)?;
            }
        }
        Ok(())
    }

    /// Holds `text` back, after the text held back already.
    fn hold(&mut self, text: &[u8], at: Location, cdata: bool) {
        match &mut self.pending {
            Some(pending) => {
                pending.text.extend_from_slice(text);
                pending.cdata |= cdata;
            }
            None => {
                self.pending = Some(Pending {
                    text: text.to_vec(),
                    at,
                    cdata,
                });
            }
        }
    }

    /// Writes the held-back text, unless `placed` is false and it is whitespace-and-references
    /// text that RDF/XML cannot place (other text is written: the parser reports it).
    fn flush_pending(&mut self, placed: bool) {
        let Some(Pending { text, at, cdata }) = self.pending.take() else {
            return;
        };
        if !placed && self.legacy && !cdata && is_references_only(&text) {
            let shown = String::from_utf8_lossy(&text).trim().to_owned();
            self.report(
                at,
                "text",
                format!("text {shown:?} where RDF/XML allows no text skipped"),
            );
            return;
        }
        // Text events are written as they were read (escaped).
        self.out.extend_from_slice(&text);
    }

    /// Writes `event`, which was at `at` in the input.
    fn write(&mut self, event: Event<'_>, at: Location, note: Option<Rc<Note>>) -> io::Result<()> {
        if let Some(marks) = &self.marks {
            let offset = self.out_offset + self.out.len() as u64;
            marks.borrow_mut().mark_noted(offset, at, note);
        }
        Writer::new(&mut self.out).write_event(event)
    }

    /// What the children of the innermost open element are.
    fn children(&self) -> Option<Children> {
        self.stack.last().map(|open| open.children)
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

    /// The element as `oxrdfxml` is to read it — its legacy attributes qualified, a relative
    /// `xml:base` resolved — with what it opens (its children, its language and base) and what
    /// is noted about its tag.
    fn element(
        &mut self,
        start: BytesStart<'static>,
        at: Location,
    ) -> (BytesStart<'static>, Open, Option<Rc<Note>>) {
        let parent = self.stack.last().cloned();
        if let Some(parent) = parent.filter(|p| p.children == Children::Literal) {
            // Literal content: the literal's value, untouched.
            return (start, parent, None);
        }
        let parent = self.stack.last();
        let parent_children = parent.map(|p| p.children);
        let mut language = parent.and_then(|p| p.language.clone());
        let in_scope_base = parent.map_or(self.base.clone(), |p| p.base.clone());
        let mut base = in_scope_base.clone();
        let (namespace, local) = self.reader.resolve_element(start.name());
        let is_rdf_root = parent_children.is_none()
            && namespace == ResolveResult::Bound(Namespace(RDF_NS))
            && local.as_ref() == b"RDF";
        let rdf_prefix = self.rdf_prefix();
        let prefix = rdf_prefix.as_deref().unwrap_or(PREFIX);
        let mut changes = Vec::new();
        let mut values = Vec::new();
        let mut unresolved_base = None;
        let mut legacy_attribute = None;
        let mut parse_type = None;
        for attribute in start.attributes().flatten() {
            let key = attribute.key.as_ref();
            if key == b"xml:lang" || key == b"xml:base" {
                let value = attribute_value(&attribute);
                if key == b"xml:lang" {
                    language = (!value.is_empty()).then(|| Rc::from(value.as_str()));
                    continue;
                }
                match read_base(value, in_scope_base.as_deref()) {
                    Ok((set, resolved)) => {
                        base = Some(set);
                        values.extend(resolved.map(|r| ("xml:base".to_owned(), r)));
                    }
                    Err(value) => unresolved_base = Some(value),
                }
                continue;
            }
            let (attribute_namespace, _) = self.reader.resolve_attribute(attribute.key);
            let unqualified = attribute_namespace == ResolveResult::Unbound && key != b"xmlns";
            let name = String::from_utf8_lossy(key).into_owned();
            let legacy = unqualified
                && ((is_rdf_root && name == "base") || LEGACY_ATTRIBUTES.contains(&name.as_str()));
            if !legacy {
                continue;
            }
            if !self.legacy {
                // Read strictly: the error `oxrdfxml` gives on this element names it.
                legacy_attribute.get_or_insert(name);
            } else if name == "base" && is_rdf_root {
                changes.push((name, "xml:base".to_owned()));
            } else {
                changes.push((name.clone(), format!("{prefix}:{name}")));
            }
        }
        for attribute in start.attributes().flatten() {
            let (attribute_namespace, _) = self.reader.resolve_attribute(attribute.key);
            let unqualified =
                attribute_namespace == ResolveResult::Unbound && attribute.key.as_ref() != b"xmlns";
            let is_parse_type = attribute.key.local_name().as_ref() == b"parseType"
                && ((self.legacy && unqualified)
                    || attribute_namespace == ResolveResult::Bound(Namespace(RDF_NS)));
            if is_parse_type {
                parse_type = Some(attribute.value.into_owned());
            }
        }
        let children = match parent_children {
            None if is_rdf_root => Children::Nodes,
            None | Some(Children::Nodes | Children::Object) => Children::Properties,
            Some(Children::Properties) => match parse_type.as_deref() {
                None => Children::Object,
                Some(b"Resource") => Children::Properties,
                Some(b"Collection") => Children::Nodes,
                #[cfg(feature = "rdf-12")]
                Some(b"Triple") => Children::Nodes,
                // `Literal`, and any other value: an XML literal (RDF/XML Syntax §7.2.20,
                // parseTypeOtherPropertyElt), as `oxrdfxml` reads it.
                Some(_) => Children::Literal,
            },
            Some(Children::Literal) => Children::Literal,
        };
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
        // A legacy `base` on rdf:RDF is the document's base, resolved like xml:base.
        if let Some(legacy_base) = changes
            .iter()
            .any(|(_, to)| to == "xml:base")
            .then(|| {
                start
                    .attributes()
                    .flatten()
                    .find(|a| a.key.as_ref() == b"base")
            })
            .flatten()
        {
            match read_base(attribute_value(&legacy_base), in_scope_base.as_deref()) {
                Ok((set, resolved)) => {
                    base = Some(set);
                    values.extend(resolved.map(|r| ("base".to_owned(), r)));
                }
                Err(value) => unresolved_base = Some(value),
            }
        }
        let declare = rdf_prefix.is_none() && changes.iter().any(|(_, to)| to != "xml:base");
        let note = noted(false, language.clone(), unresolved_base, legacy_attribute);
        let open = Open {
            children,
            language,
            base,
        };
        if changes.is_empty() && values.is_empty() {
            return (start, open, note);
        }
        (rebuilt(&start, &changes, &values, declare), open, note)
    }
}

/// The note about a tag, if there is anything to note.
fn noted(
    closes_literal: bool,
    language: Option<Rc<str>>,
    unresolved_base: Option<String>,
    legacy_attribute: Option<String>,
) -> Option<Rc<Note>> {
    let noteworthy = closes_literal
        || language.is_some()
        || unresolved_base.is_some()
        || legacy_attribute.is_some();
    noteworthy.then(|| {
        Rc::new(Note {
            closes_literal,
            language,
            unresolved_base,
            legacy_attribute,
        })
    })
}

/// `start` with the attributes named in `changes` renamed, the values of those named in
/// `values` replaced, and when `declare`, the RDF namespace declared for the prefix of the
/// pre-pass.
fn rebuilt(
    start: &BytesStart<'_>,
    changes: &[(String, String)],
    values: &[(String, String)],
    declare: bool,
) -> BytesStart<'static> {
    let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
    let mut fixed = BytesStart::new(name);
    for attribute in start.attributes().flatten() {
        let written = String::from_utf8_lossy(attribute.key.as_ref()).into_owned();
        let value = values.iter().find(|(name, _)| *name == written);
        let key = changes
            .iter()
            .find(|(from, _)| *from == written)
            .map_or(written, |(_, to)| to.clone());
        match value {
            // Escaped as an attribute value.
            Some((_, value)) => fixed.push_attribute((key.as_str(), value.as_str())),
            None => fixed.push_attribute(Attribute {
                key: QName(key.as_bytes()),
                value: Cow::Borrowed(&attribute.value),
            }),
        }
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

/// Whether the pre-pass may change anything in the document `xml`, or note anything its
/// statements need: it holds a reference (`&`, which text it drops must hold), what may be an
/// unqualified attribute it qualifies (`about=`, `base=`, …), a comment or CDATA section (`<!`,
/// which may split a text), an `xml:` attribute (a base to resolve, a language whose case to
/// keep) or a `parseType` (an XML literal). When not, reading `xml` as it is gives the same
/// statements, for less work.
///
/// ```
/// use pidcanon::rdfxml::may_need_legacy_reading;
/// assert!(may_need_legacy_reading(br#"<Description about="info:fedora/demo:1"/>"#));
/// assert!(may_need_legacy_reading(b"<rdf:RDF>&#160;</rdf:RDF>"));
/// assert!(may_need_legacy_reading(br#"<rdf:Description xml:base="a/"/>"#));
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
    let holds = |text: &str| memchr::memmem::find(xml, text.as_bytes()).is_some();
    memchr::memchr(b'&', xml).is_some()
        || holds("<!")
        || holds("xml:")
        || holds("parseType")
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

/// An attribute's value, unescaped (as written where it does not unescape).
fn attribute_value(attribute: &Attribute<'_>) -> String {
    attribute.unescape_value().map_or_else(
        |_| String::from_utf8_lossy(&attribute.value).into_owned(),
        Cow::into_owned,
    )
}

/// An `xml:base` value read against the base in scope: the base it sets, and the absolute IRI
/// to write in its place when it was relative; or the value, when it cannot be resolved.
fn read_base(value: String, in_scope: Option<&str>) -> Result<(Rc<str>, Option<String>), String> {
    if Iri::parse(value.as_str()).is_ok() {
        return Ok((Rc::from(value.as_str()), None));
    }
    match in_scope
        .and_then(|b| Iri::parse(b).ok())
        .and_then(|b| b.resolve(&value).ok())
    {
        Some(resolved) => Ok((Rc::from(resolved.as_str()), Some(resolved.into_inner()))),
        None => Err(value),
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

//! RDF/XML parsed by `oxrdfxml`, each triple and error with where it is in the input.

use super::{EventMarks, LegacyRdfXml, TagMarks};
use crate::rewrite::Location;
use oxrdf::Triple;
use oxrdfxml::{RdfXmlParseError, RdfXmlParser, RdfXmlPrefixesIter, ReaderRdfXmlParser};
use std::cell::RefCell;
use std::io::{BufRead, Read};
use std::rc::Rc;

/// The triples of an RDF/XML document, each (or the error met instead) with the location in
/// the input of the XML event that completes it: an empty property element's start tag, the
/// end tag of a property with content, a typed node's start tag (see [`EventMarks`]).
///
/// ```
/// use oxrdfxml::RdfXmlParser;
/// use pidcanon::rdfxml::LocatedRdfXml;
///
/// let xml = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
///   <rdf:Description rdf:about="info:fedora/demo:1">
///     <rdf:value rdf:resource="hdl:10013/x"/>
///   </rdf:Description>
/// </rdf:RDF>"#;
/// let located: Vec<String> = LocatedRdfXml::strict(RdfXmlParser::new(), xml.as_bytes())
///     .map(|(triple, at)| format!("{at} {}", triple.unwrap()))
///     .collect();
/// assert_eq!(
///     located,
///     ["3:5 <info:fedora/demo:1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#value> <hdl:10013/x>"]
/// );
/// ```
pub struct LocatedRdfXml<'a> {
    triples: ReaderRdfXmlParser<Box<dyn Read + 'a>>,
    marks: Rc<RefCell<EventMarks>>,
}

impl<'a> LocatedRdfXml<'a> {
    /// Reads `input` as it is.
    pub fn strict(parser: RdfXmlParser, input: impl Read + 'a) -> Self {
        let marks = Rc::new(RefCell::new(EventMarks::default()));
        let input = TagMarks::new(input, Rc::clone(&marks));
        Self {
            triples: parser.for_reader(Box::new(input)),
            marks,
        }
    }

    /// Reads `input` through the legacy pre-pass ([`LegacyRdfXml`]), telling `warn` of each
    /// kind of legacy use once.
    pub fn legacy(
        parser: RdfXmlParser,
        input: impl BufRead + 'a,
        warn: impl FnMut(Location, String) + 'a,
    ) -> Self {
        let marks = Rc::new(RefCell::new(EventMarks::default()));
        let input = LegacyRdfXml::new(input, warn).marking(Rc::clone(&marks));
        Self {
            triples: parser.for_reader(Box::new(input)),
            marks,
        }
    }

    /// Reads the document `xml` through the legacy pre-pass where it may need it
    /// ([`may_need_legacy_reading`](super::may_need_legacy_reading)), else as it is: the same
    /// statements and warnings as [`Self::legacy`].
    pub fn from_slice(
        parser: RdfXmlParser,
        xml: &'a [u8],
        warn: impl FnMut(Location, String) + 'a,
    ) -> Self {
        if super::may_need_legacy_reading(xml) {
            Self::legacy(parser, xml, warn)
        } else {
            Self::strict(parser, xml)
        }
    }

    /// The prefixes declared so far.
    pub fn prefixes(&self) -> RdfXmlPrefixesIter<'_> {
        self.triples.prefixes()
    }

    /// The base IRI in scope.
    pub fn base_iri(&self) -> Option<&str> {
        self.triples.base_iri()
    }
}

impl Iterator for LocatedRdfXml<'_> {
    type Item = (Result<Triple, RdfXmlParseError>, Location);

    fn next(&mut self) -> Option<Self::Item> {
        let result = self.triples.next()?;
        let at = self
            .marks
            .borrow_mut()
            .event_ending_at(self.triples.buffer_position());
        Some((result, at))
    }
}

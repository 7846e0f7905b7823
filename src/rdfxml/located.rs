//! RDF/XML parsed by `oxrdfxml`, each triple and error with where it is in the input.

use super::marks::Note;
use super::{EventMarks, LegacyRdfXml, TagMarks, XmlError};
use crate::position::Location;
use oxrdf::vocab::rdf;
use oxrdf::{Literal, Term, Triple};
use oxrdfxml::{RdfXmlParseError, RdfXmlParser, RdfXmlPrefixesIter, ReaderRdfXmlParser};
use std::cell::RefCell;
use std::io::{self, BufRead, BufReader, Read};
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
    /// Reads `input` strictly: legacy uses are errors. What standard RDF/XML needs and
    /// `oxrdfxml` does not do is done (through [`LegacyRdfXml::strictly`]): a relative
    /// `xml:base` resolved against the base in scope, a property's text split by comments or
    /// CDATA sections read as one, an XML literal with its namespaces declared once where used,
    /// language tags as written.
    pub fn strict(parser: RdfXmlParser, input: impl Read + 'a) -> Self {
        let marks = Rc::new(RefCell::new(EventMarks::default()));
        let base = base_of(&parser);
        let input = LegacyRdfXml::new(BufReader::new(input), |_, _| {})
            .strictly()
            .with_base(base.as_deref())
            .marking(Rc::clone(&marks));
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
        let base = base_of(&parser);
        let input = LegacyRdfXml::new(input, warn)
            .with_base(base.as_deref())
            .marking(Rc::clone(&marks));
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
            let marks = Rc::new(RefCell::new(EventMarks::default()));
            let input = TagMarks::new(xml, Rc::clone(&marks));
            Self {
                triples: parser.for_reader(Box::new(input)),
                marks,
            }
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
        let mut marks = self.marks.borrow_mut();
        let at = marks.event_ending_at(self.triples.buffer_position());
        let Some(note) = marks.last_note() else {
            return Some((result, at));
        };
        let result = match result {
            Ok(mut triple) => {
                if let Term::Literal(literal) = &triple.object
                    && let Some(literal) = as_written(literal, &note)
                {
                    triple.object = literal.into();
                }
                Ok(triple)
            }
            Err(RdfXmlParseError::Syntax(e)) if note.unresolved_base.is_some() => {
                let base = note.unresolved_base.as_deref().unwrap_or_default();
                Err(explained(
                    at,
                    format!(
                        "xml:base {base:?} is a relative IRI, and there is no base IRI to \
                         resolve it against (give one with --base): {e}"
                    ),
                ))
            }
            Err(RdfXmlParseError::Syntax(e)) if note.legacy_attribute.is_some() => {
                let name = note.legacy_attribute.as_deref().unwrap_or_default();
                let qualified = match name {
                    "base" => "xml:base".to_owned(),
                    _ => format!("rdf:{name}"),
                };
                Err(explained(
                    at,
                    format!(
                        "the attribute `{name}` is in no namespace (strict RDF/XML needs \
                         `{qualified}`; without --strict-rdfxml it is read as such, with a \
                         warning): {e}"
                    ),
                ))
            }
            other => other,
        };
        Some((result, at))
    }
}

/// A syntax error of `oxrdfxml` at `at`, told with what caused it.
fn explained(at: Location, message: String) -> RdfXmlParseError {
    let error = XmlError {
        location: at,
        message,
    };
    RdfXmlParseError::Io(io::Error::new(io::ErrorKind::InvalidData, error))
}

/// `literal` as the input wrote it, where `oxrdfxml` gave it otherwise (`None` where it did
/// not): an XML literal completed at the end of a `parseType="Literal"` property with its
/// namespaces declared once where used; a language tag in the case it was written in.
fn as_written(literal: &Literal, note: &Note) -> Option<Literal> {
    if note.closes_literal && literal.datatype() == rdf::XML_LITERAL {
        let value = super::literal::declare_used(literal.value())?;
        return Some(Literal::new_typed_literal(value, rdf::XML_LITERAL));
    }
    let (Some(language), Some(written)) = (literal.language(), note.language.as_deref()) else {
        return None;
    };
    // `oxrdfxml` lower-cases the tag it read (and checked): the same tag, in the case written.
    (language != written && written.to_ascii_lowercase() == language)
        .then(|| crate::language_tag::with_written_tag(literal, written))
}

/// The base IRI `parser` was given.
fn base_of(parser: &RdfXmlParser) -> Option<String> {
    parser.clone().for_slice(&[]).base_iri().map(str::to_owned)
}

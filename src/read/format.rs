//! [`RdfFormat`]: the formats pidcanon reads and writes, and [`parse_format`], which names them
//! as riot, rapper and oxigraph users do.

use std::fmt;

/// An RDF serialization pidcanon reads and writes.
///
/// ```
/// use pidcanon::rewrite::RdfFormat;
/// assert_eq!(RdfFormat::TriG.name(), "TriG");
/// assert!(RdfFormat::NQuads.supports_datasets());
/// assert_eq!(RdfFormat::from_media_type("text/turtle; charset=utf-8"), Some(RdfFormat::Turtle));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RdfFormat {
    /// [N-Triples](https://www.w3.org/TR/n-triples/).
    NTriples,
    /// [N-Quads](https://www.w3.org/TR/n-quads/).
    NQuads,
    /// [Turtle](https://www.w3.org/TR/turtle/).
    Turtle,
    /// [TriG](https://www.w3.org/TR/trig/).
    TriG,
    /// [RDF/XML](https://www.w3.org/TR/rdf-syntax-grammar/), with the feature `rdfxml`.
    #[cfg(feature = "rdfxml")]
    RdfXml,
}

impl RdfFormat {
    /// The format's name, as its specification writes it (`N-Triples`, `RDF/XML`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::NTriples => "N-Triples",
            Self::NQuads => "N-Quads",
            Self::Turtle => "Turtle",
            Self::TriG => "TriG",
            #[cfg(feature = "rdfxml")]
            Self::RdfXml => "RDF/XML",
        }
    }

    /// The format's registered media type.
    pub const fn media_type(self) -> &'static str {
        match self {
            Self::NTriples => "application/n-triples",
            Self::NQuads => "application/n-quads",
            Self::Turtle => "text/turtle",
            Self::TriG => "application/trig",
            #[cfg(feature = "rdfxml")]
            Self::RdfXml => "application/rdf+xml",
        }
    }

    /// The usual extension of a file in the format, without the dot.
    pub const fn file_extension(self) -> &'static str {
        match self {
            Self::NTriples => "nt",
            Self::NQuads => "nq",
            Self::Turtle => "ttl",
            Self::TriG => "trig",
            #[cfg(feature = "rdfxml")]
            Self::RdfXml => "rdf",
        }
    }

    /// Whether the format has named graphs (N-Quads, TriG).
    pub const fn supports_datasets(self) -> bool {
        matches!(self, Self::NQuads | Self::TriG)
    }

    /// The format of a media type (parameters allowed; a charset other than UTF-8 is not), as
    /// `oxrdfio` reads them: `text/plain` is N-Triples, `x-` prefixes are dropped.
    pub fn from_media_type(media_type: &str) -> Option<Self> {
        media_named(media_type)?.format()
    }

    /// The format of a file extension (`nt`, `ttl`, `rdf`…), in any case.
    pub fn from_extension(extension: &str) -> Option<Self> {
        lookup(&extension.to_ascii_lowercase(), EXTENSIONS)?.format()
    }
}

impl fmt::Display for RdfFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a name, extension or media subtype stands for: a format pidcanon reads, or one it
/// knows only by name (to say that it is not supported rather than unknown).
#[derive(Clone, Copy)]
enum Named {
    Format(RdfFormat),
    Other(&'static str),
}

impl Named {
    fn format(self) -> Option<RdfFormat> {
        match self {
            Self::Format(format) => Some(format),
            Self::Other(_) => None,
        }
    }
}

/// The entry of `table` for `name` (already in lower case).
fn lookup(name: &str, table: &[(&str, Named)]) -> Option<Named> {
    Some(table.iter().find(|(candidate, _)| *candidate == name)?.1)
}

/// What a media type stands for: its subtype, less an `x-` prefix, among [`MEDIA_SUBTYPES`],
/// for the `text` and `application` types, with no charset but UTF-8's.
fn media_named(media_type: &str) -> Option<Named> {
    let (type_subtype, parameters) = media_type.split_once(';').unwrap_or((media_type, ""));
    let (kind, subtype) = type_subtype.split_once('/')?;
    let kind = kind.trim();
    if !kind.eq_ignore_ascii_case("application") && !kind.eq_ignore_ascii_case("text") {
        return None;
    }
    let utf8 = parameters
        .split(';')
        .all(|parameter| match parameter.split_once('=') {
            Some((key, value)) if key.trim().eq_ignore_ascii_case("charset") => {
                ["ascii", "utf8", "utf-8"]
                    .iter()
                    .any(|charset| charset.eq_ignore_ascii_case(value.trim()))
            }
            _ => true,
        });
    let subtype = subtype.trim().to_ascii_lowercase();
    let subtype = subtype.strip_prefix("x-").unwrap_or(&subtype);
    lookup(subtype, MEDIA_SUBTYPES).filter(|_| utf8)
}

/// RDF/XML's entries, or, without the feature, its name.
#[cfg(feature = "rdfxml")]
const RDF_XML: Named = Named::Format(RdfFormat::RdfXml);
#[cfg(not(feature = "rdfxml"))]
const RDF_XML: Named = Named::Other("RDF/XML (the feature rdfxml)");

const JSON_LD: Named = Named::Other("JSON-LD");
const N3: Named = Named::Other("N3");

/// Media subtypes, as `oxrdfio` knows them.
const MEDIA_SUBTYPES: &[(&str, Named)] = &[
    ("activity+json", JSON_LD),
    ("json", JSON_LD),
    ("ld+json", JSON_LD),
    ("jsonld", JSON_LD),
    ("n-quads", Named::Format(RdfFormat::NQuads)),
    ("n-triples", Named::Format(RdfFormat::NTriples)),
    ("n3", N3),
    ("nquads", Named::Format(RdfFormat::NQuads)),
    ("ntriples", Named::Format(RdfFormat::NTriples)),
    ("plain", Named::Format(RdfFormat::NTriples)),
    ("rdf+xml", RDF_XML),
    ("trig", Named::Format(RdfFormat::TriG)),
    ("turtle", Named::Format(RdfFormat::Turtle)),
    ("xml", RDF_XML),
];

/// File extensions, as `oxrdfio` knows them.
const EXTENSIONS: &[(&str, Named)] = &[
    ("json", JSON_LD),
    ("jsonld", JSON_LD),
    ("n3", N3),
    ("nq", Named::Format(RdfFormat::NQuads)),
    ("nt", Named::Format(RdfFormat::NTriples)),
    ("rdf", RDF_XML),
    ("trig", Named::Format(RdfFormat::TriG)),
    ("ttl", Named::Format(RdfFormat::Turtle)),
    ("txt", Named::Format(RdfFormat::NTriples)),
    ("xml", RDF_XML),
];

/// Short names, as riot, rapper and oxigraph accept them, besides the extensions.
const SHORT_NAMES: &[(&str, Named)] = &[
    ("ntriples", Named::Format(RdfFormat::NTriples)),
    ("n-triples", Named::Format(RdfFormat::NTriples)),
    ("nquads", Named::Format(RdfFormat::NQuads)),
    ("n-quads", Named::Format(RdfFormat::NQuads)),
    ("turtle", Named::Format(RdfFormat::Turtle)),
    ("rdfxml", RDF_XML),
    ("rdf/xml", RDF_XML),
    ("owl", RDF_XML),
];

/// Why [`parse_format`] refuses a name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// An RDF format pidcanon does not read or write (JSON-LD, N3; RDF/XML without the feature
    /// `rdfxml`), by its name.
    #[error("{0} is not supported ({SUPPORTED} are)")]
    Unsupported(&'static str),
    /// No RDF format has this name, extension or media type.
    #[error("unknown RDF format {0:?} (use {NAMES} or a media type)")]
    Unknown(String),
}

#[cfg(feature = "rdfxml")]
const SUPPORTED: &str = "N-Triples, N-Quads, Turtle, TriG, RDF/XML";
#[cfg(not(feature = "rdfxml"))]
const SUPPORTED: &str = "N-Triples, N-Quads, Turtle, TriG";
#[cfg(feature = "rdfxml")]
const NAMES: &str = "nt, nq, ttl, trig, rdfxml";
#[cfg(not(feature = "rdfxml"))]
const NAMES: &str = "nt, nq, ttl, trig";

/// A format named by a short name (`nt`, `nq`, `ttl`, `trig`, `rdfxml`), an extension or a media
/// type, as riot, rapper and oxigraph accept them; the error says what is accepted.
///
/// ```
/// use pidcanon::rewrite::{FormatError, RdfFormat, parse_format};
/// assert_eq!(parse_format("ttl"), Ok(RdfFormat::Turtle));
/// assert_eq!(parse_format("application/n-quads"), Ok(RdfFormat::NQuads));
/// assert_eq!(parse_format("jsonld"), Err(FormatError::Unsupported("JSON-LD")));
/// assert_eq!(parse_format("json-ld"), Err(FormatError::Unknown("json-ld".into())));
/// ```
pub fn parse_format(name: &str) -> Result<RdfFormat, FormatError> {
    let lower = name.to_ascii_lowercase();
    let named = lookup(&lower, SHORT_NAMES)
        .or_else(|| lookup(&lower, EXTENSIONS))
        .or_else(|| media_named(&lower));
    match named {
        Some(Named::Format(format)) => Ok(format),
        Some(Named::Other(name)) => Err(FormatError::Unsupported(name)),
        None => Err(FormatError::Unknown(name.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_named_back_by_its_extension_media_type_and_name() {
        let formats = [
            RdfFormat::NTriples,
            RdfFormat::NQuads,
            RdfFormat::Turtle,
            RdfFormat::TriG,
            #[cfg(feature = "rdfxml")]
            RdfFormat::RdfXml,
        ];
        for format in formats {
            assert_eq!(
                RdfFormat::from_extension(format.file_extension()),
                Some(format)
            );
            assert_eq!(
                RdfFormat::from_media_type(format.media_type()),
                Some(format)
            );
            assert_eq!(parse_format(format.media_type()), Ok(format));
            assert_eq!(parse_format(format.file_extension()), Ok(format));
            assert_eq!(format.to_string(), format.name());
        }
    }

    #[test]
    fn media_types_take_parameters_and_refuse_other_charsets() {
        let turtle = Some(RdfFormat::Turtle);
        assert_eq!(
            RdfFormat::from_media_type("Text/Turtle ; charset=UTF-8"),
            turtle
        );
        assert_eq!(RdfFormat::from_media_type("application/x-turtle"), turtle);
        assert_eq!(
            RdfFormat::from_media_type("text/turtle;charset=latin1"),
            None
        );
        assert_eq!(RdfFormat::from_media_type("image/turtle"), None);
        assert_eq!(
            RdfFormat::from_media_type("text/plain"),
            Some(RdfFormat::NTriples)
        );
        assert_eq!(
            parse_format("TEXT/TURTLE;charset=utf-8"),
            Ok(RdfFormat::Turtle)
        );
        assert_eq!(
            parse_format("text/turtle;charset=latin1"),
            Err(FormatError::Unknown("text/turtle;charset=latin1".into()))
        );
    }

    #[test]
    fn formats_known_by_name_only_are_unsupported_not_unknown() {
        assert_eq!(
            parse_format("application/ld+json"),
            Err(FormatError::Unsupported("JSON-LD"))
        );
        assert_eq!(parse_format("N3"), Err(FormatError::Unsupported("N3")));
        assert_eq!(RdfFormat::from_extension("jsonld"), None);
        #[cfg(not(feature = "rdfxml"))]
        assert_eq!(
            parse_format("rdfxml"),
            Err(FormatError::Unsupported("RDF/XML (the feature rdfxml)"))
        );
        #[cfg(feature = "rdfxml")]
        assert_eq!(parse_format("owl"), Ok(RdfFormat::RdfXml));
        assert!(matches!(
            parse_format("json-ld"),
            Err(FormatError::Unknown(_))
        ));
    }
}

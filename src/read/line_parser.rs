//! `oxttl`'s low-level parsers of the four text formats behind one type, fed a line at a time
//! by both pipelines: the line pipeline for the lines its scanner is unsure of, the graph
//! pipeline for every statement.

use super::{RdfFormat, ReadError};
use crate::position::Location;
use oxrdf::{GraphName, Quad, Triple};
use oxttl::nquads::LowLevelNQuadsParser;
use oxttl::ntriples::LowLevelNTriplesParser;
use oxttl::trig::LowLevelTriGParser;
use oxttl::turtle::LowLevelTurtleParser;
use oxttl::{NQuadsParser, NTriplesParser, TriGParser, TurtleParser, TurtleSyntaxError};

/// `$builder` (an `oxttl` parser or serializer of Turtle or TriG: they have the same builder
/// methods, but no common trait) with each of `$prefixes`, `(name, IRI)` pairs of `String`s;
/// returns a [`ReadError::InvalidPrefix`] from the enclosing function for a bad one.
macro_rules! with_prefixes {
    ($builder:expr, $prefixes:expr) => {{
        let mut builder = $builder;
        for (name, iri) in $prefixes {
            builder = builder
                .with_prefix(name.as_str(), iri.as_str())
                .map_err(|error| crate::read::ReadError::InvalidPrefix {
                    name: name.clone(),
                    iri: iri.clone(),
                    error,
                })?;
        }
        builder
    }};
}
pub(crate) use with_prefixes;

/// One of `oxttl`'s low-level parsers.
pub(crate) enum LineParser {
    NTriples(LowLevelNTriplesParser),
    NQuads(LowLevelNQuadsParser),
    Turtle(LowLevelTurtleParser),
    TriG(LowLevelTriGParser),
}

impl LineParser {
    /// The parser of a text format that knows `base` and `prefixes` from the start, or `None`
    /// for RDF/XML and other formats.
    pub(crate) fn declared(
        format: RdfFormat,
        base: Option<&str>,
        prefixes: &[(String, String)],
    ) -> Result<Option<Self>, ReadError> {
        /// Turtle's and TriG's parsers have the same builder methods, but no common trait.
        macro_rules! declare {
            ($parser:expr) => {{
                let mut parser = $parser;
                if let Some(base) = base {
                    parser = parser.with_base_iri(base).map_err(|e| bad_base(base, e))?;
                }
                with_prefixes!(parser, prefixes).low_level()
            }};
        }
        Ok(Some(match format {
            RdfFormat::NTriples => Self::for_lines(false),
            RdfFormat::NQuads => Self::for_lines(true),
            RdfFormat::Turtle => Self::Turtle(declare!(TurtleParser::new())),
            RdfFormat::TriG => Self::TriG(declare!(TriGParser::new())),
            #[cfg(feature = "rdfxml")]
            RdfFormat::RdfXml => return Ok(None),
        }))
    }

    /// A new parser of the same format that knows the prefixes and base declared so far.
    pub(crate) fn restarted(&self) -> Result<Self, ReadError> {
        let format = match self {
            Self::NTriples(_) => RdfFormat::NTriples,
            Self::NQuads(_) => RdfFormat::NQuads,
            Self::Turtle(_) => RdfFormat::Turtle,
            Self::TriG(_) => RdfFormat::TriG,
        };
        let prefixes = self.prefixes();
        let restarted = Self::declared(format, self.base_iri().as_deref(), &prefixes)?;
        Ok(restarted.unwrap_or_else(|| unreachable!("a text format has a line parser")))
    }

    /// The parser of a line-based format: N-Quads when `quads`, else N-Triples.
    pub(crate) fn for_lines(quads: bool) -> Self {
        if quads {
            Self::NQuads(NQuadsParser::new().low_level())
        } else {
            Self::NTriples(NTriplesParser::new().low_level())
        }
    }

    pub(crate) fn extend(&mut self, data: &[u8]) {
        match self {
            Self::NTriples(p) => p.extend_from_slice(data),
            Self::NQuads(p) => p.extend_from_slice(data),
            Self::Turtle(p) => p.extend_from_slice(data),
            Self::TriG(p) => p.extend_from_slice(data),
        }
    }

    pub(crate) fn end(&mut self) {
        match self {
            Self::NTriples(p) => p.end(),
            Self::NQuads(p) => p.end(),
            Self::Turtle(p) => p.end(),
            Self::TriG(p) => p.end(),
        }
    }

    /// The next statement from what has been fed, if a whole one is there.
    pub(crate) fn next(&mut self) -> Option<Result<Quad, TurtleSyntaxError>> {
        let in_default_graph = |t: Triple| t.in_graph(GraphName::DefaultGraph);
        match self {
            Self::NTriples(p) => p.parse_next().map(|r| r.map(in_default_graph)),
            Self::NQuads(p) => p.parse_next(),
            Self::Turtle(p) => p.parse_next().map(|r| r.map(in_default_graph)),
            Self::TriG(p) => p.parse_next(),
        }
    }

    /// The prefixes declared so far, sorted by name (the parser keeps no order): a rewrite's
    /// output is the same on every run.
    pub(crate) fn prefixes(&self) -> Vec<(String, String)> {
        let own = |(name, iri): (&str, &str)| (name.to_owned(), iri.to_owned());
        let mut prefixes: Vec<_> = match self {
            Self::Turtle(p) => p.prefixes().map(own).collect(),
            Self::TriG(p) => p.prefixes().map(own).collect(),
            Self::NTriples(_) | Self::NQuads(_) => Vec::new(),
        };
        prefixes.sort();
        prefixes
    }

    /// How many prefixes are declared so far (without taking them).
    pub(crate) fn prefix_count(&self) -> usize {
        match self {
            Self::Turtle(p) => p.prefixes().size_hint().0,
            Self::TriG(p) => p.prefixes().size_hint().0,
            Self::NTriples(_) | Self::NQuads(_) => 0,
        }
    }

    /// The prefixes declared so far, in no order, without taking them.
    pub(crate) fn declared_prefixes(&self) -> Box<dyn Iterator<Item = (&str, &str)> + '_> {
        match self {
            Self::Turtle(p) => Box::new(p.prefixes()),
            Self::TriG(p) => Box::new(p.prefixes()),
            Self::NTriples(_) | Self::NQuads(_) => Box::new(std::iter::empty()),
        }
    }

    /// The base IRI declared so far, without taking it.
    pub(crate) fn declared_base(&self) -> Option<&str> {
        match self {
            Self::Turtle(p) => p.base_iri(),
            Self::TriG(p) => p.base_iri(),
            Self::NTriples(_) | Self::NQuads(_) => None,
        }
    }

    /// The base IRI declared so far.
    pub(crate) fn base_iri(&self) -> Option<String> {
        self.declared_base().map(str::to_owned)
    }
}

/// A base IRI the parsers refuse.
pub(crate) fn bad_base(base: &str, error: oxiri::IriParseError) -> ReadError {
    ReadError::InvalidBaseIri {
        iri: base.into(),
        error,
    }
}

/// The location of a syntax error (1-based line and column).
pub(crate) fn error_location(e: &TurtleSyntaxError) -> Location {
    let start = e.location().start;
    Location::new(start.line + 1, start.column + 1)
}

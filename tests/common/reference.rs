//! The reference parsers the tests compare pidcanon's reading with (`oxttl`, `oxrdfxml`), behind
//! one builder in the shape of `oxrdfio`'s: the library names its formats with its own
//! [`RdfFormat`] and does not depend on `oxrdfio`.

use oxrdf::{GraphName, NamedNode, Quad};
use pidcanon::rewrite::RdfFormat;

/// A reference parser of one format, with an optional base IRI.
pub struct RdfParser {
    format: RdfFormat,
    base: Option<String>,
}

impl RdfParser {
    pub fn from_format(format: RdfFormat) -> Self {
        Self { format, base: None }
    }

    /// With `base`, which must be an absolute IRI.
    pub fn with_base_iri(self, base: &str) -> Result<Self, oxrdf::IriParseError> {
        NamedNode::new(base)?;
        Ok(Self {
            base: Some(base.to_owned()),
            ..self
        })
    }

    /// The statements of `bytes`, and each syntax error as its message.
    pub fn for_slice<'a>(
        self,
        bytes: &'a [u8],
    ) -> Box<dyn Iterator<Item = Result<Quad, String>> + 'a> {
        /// Turtle's, TriG's and RDF/XML's builders have the same methods but no common trait.
        macro_rules! based {
            ($parser:expr) => {{
                let parser = $parser;
                match &self.base {
                    Some(base) => parser
                        .with_base_iri(base.as_str())
                        .expect("checked by with_base_iri"),
                    None => parser,
                }
            }};
        }
        let in_default_graph = |triple: oxrdf::Triple| triple.in_graph(GraphName::DefaultGraph);
        match self.format {
            RdfFormat::NTriples => Box::new(
                oxttl::NTriplesParser::new()
                    .for_slice(bytes)
                    .map(move |r| r.map(in_default_graph).map_err(|e| e.to_string())),
            ),
            RdfFormat::NQuads => Box::new(
                oxttl::NQuadsParser::new()
                    .for_slice(bytes)
                    .map(|r| r.map_err(|e| e.to_string())),
            ),
            RdfFormat::Turtle => Box::new(
                based!(oxttl::TurtleParser::new())
                    .for_slice(bytes)
                    .map(move |r| r.map(in_default_graph).map_err(|e| e.to_string())),
            ),
            RdfFormat::TriG => Box::new(
                based!(oxttl::TriGParser::new())
                    .for_slice(bytes)
                    .map(|r| r.map_err(|e| e.to_string())),
            ),
            RdfFormat::RdfXml => Box::new(
                based!(oxrdfxml::RdfXmlParser::new())
                    .for_slice(bytes)
                    .map(move |r| r.map(in_default_graph).map_err(|e| e.to_string())),
            ),
        }
    }
}

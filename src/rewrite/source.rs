//! Reading RDF statement by statement, with the line each statement ends on: the text formats
//! through `oxttl`'s low-level parsers fed one line at a time, RDF/XML through `oxrdfio`.

use super::{Location, RewriteError};
use oxrdf::{GraphName, Quad, Triple};
use oxrdfio::{RdfFormat, RdfParser};
use oxttl::nquads::LowLevelNQuadsParser;
use oxttl::ntriples::LowLevelNTriplesParser;
use oxttl::trig::LowLevelTriGParser;
use oxttl::turtle::LowLevelTurtleParser;
use oxttl::{NQuadsParser, NTriplesParser, TriGParser, TurtleParser, TurtleSyntaxError};
use std::io::{BufRead, Read};

/// What reading yields: a statement, or a syntax error the parser has recovered from.
pub(crate) enum Item {
    Statement(Quad, Location),
    SyntaxError(Location, String),
}

/// One of `oxttl`'s low-level parsers.
pub(crate) enum LineParser {
    NTriples(LowLevelNTriplesParser),
    NQuads(LowLevelNQuadsParser),
    Turtle(LowLevelTurtleParser),
    TriG(LowLevelTriGParser),
}

impl LineParser {
    /// The parser of a text format, or `None` for RDF/XML and other formats.
    pub(crate) fn new(format: RdfFormat, base: Option<&str>) -> Result<Option<Self>, RewriteError> {
        Self::declared(format, base, &[])
    }

    /// A parser that knows `base` and `prefixes` from the start.
    fn declared(
        format: RdfFormat,
        base: Option<&str>,
        prefixes: &[(String, String)],
    ) -> Result<Option<Self>, RewriteError> {
        /// Turtle's and TriG's parsers have the same builder methods, but no common trait.
        macro_rules! declare {
            ($parser:expr) => {{
                let mut parser = $parser;
                if let Some(base) = base {
                    parser = parser.with_base_iri(base).map_err(bad_base)?;
                }
                for (name, iri) in prefixes {
                    parser = parser
                        .with_prefix(name.as_str(), iri.as_str())
                        .map_err(bad_base)?;
                }
                parser.low_level()
            }};
        }
        Ok(Some(match format {
            RdfFormat::NTriples => Self::for_lines(false),
            RdfFormat::NQuads => Self::for_lines(true),
            RdfFormat::Turtle => Self::Turtle(declare!(TurtleParser::new())),
            RdfFormat::TriG => Self::TriG(declare!(TriGParser::new())),
            _ => return Ok(None),
        }))
    }

    /// A new parser that knows the prefixes and base declared so far, to start again at the next
    /// line after a syntax error: a bad statement costs only itself, never what follows it.
    pub(crate) fn restarted(&self) -> Result<Self, RewriteError> {
        let format = match self {
            Self::NTriples(_) => RdfFormat::NTriples,
            Self::NQuads(_) => RdfFormat::NQuads,
            Self::Turtle(_) => RdfFormat::Turtle,
            Self::TriG(_) => RdfFormat::TriG,
        };
        let restarted = Self::declared(format, self.base_iri().as_deref(), &self.prefixes())?;
        restarted.ok_or_else(|| RewriteError::Usage("not a text format".into()))
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

    /// The base IRI declared so far.
    pub(crate) fn base_iri(&self) -> Option<String> {
        match self {
            Self::Turtle(p) => p.base_iri().map(str::to_owned),
            Self::TriG(p) => p.base_iri().map(str::to_owned),
            Self::NTriples(_) | Self::NQuads(_) => None,
        }
    }
}

fn bad_base(e: impl std::fmt::Display) -> RewriteError {
    RewriteError::Usage(format!("invalid base IRI: {e}"))
}

/// The location of a syntax error (1-based line and column).
pub(crate) fn error_location(e: &TurtleSyntaxError) -> Location {
    let start = e.location().start;
    Location::new(start.line + 1, start.column + 1)
}

/// Reads a whole input in one format, item by item.
pub(crate) struct Reader<'p> {
    format: RdfFormat,
    base: Option<&'p str>,
}

/// Prefixes and base IRI, as declared by the input when its first statement is read.
pub(crate) type Declarations = (Vec<(String, String)>, Option<String>);

impl<'p> Reader<'p> {
    pub(crate) fn new(format: RdfFormat, base: Option<&'p str>) -> Self {
        Self { format, base }
    }

    /// Reads every item of `input`. `on_item` gets each item, the raw line it ends on (empty for
    /// RDF/XML) and, before the first statement, the input's declarations.
    pub(crate) fn read(
        &self,
        input: impl BufRead,
        mut on_item: impl FnMut(Item, &[u8], &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
    ) -> Result<(), RewriteError> {
        match LineParser::new(self.format, self.base)? {
            Some(parser) => read_lines(input, parser, &mut on_item),
            None => self.read_other(input, &mut on_item),
        }
    }

    /// RDF/XML (and any other format `oxrdfio` reads): locations are statement numbers only.
    fn read_other(
        &self,
        input: impl Read,
        on_item: &mut impl FnMut(Item, &[u8], &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
    ) -> Result<(), RewriteError> {
        let mut parser = RdfParser::from_format(self.format);
        if let Some(base) = self.base {
            parser = parser.with_base_iri(base).map_err(bad_base)?;
        }
        let mut quads = parser.for_reader(input);
        while let Some(result) = quads.next() {
            let item = match result {
                Ok(quad) => Item::Statement(quad, Location::unknown()),
                Err(oxrdfio::RdfParseError::Io(e)) => return Err(RewriteError::Io(e)),
                Err(oxrdfio::RdfParseError::Syntax(e)) => {
                    let location = e.location().map_or(Location::unknown(), |l| {
                        Location::new(l.start.line + 1, l.start.column + 1)
                    });
                    Item::SyntaxError(location, e.to_string())
                }
            };
            let declarations = || {
                let mut prefixes: Vec<_> = quads
                    .prefixes()
                    .map(|(n, i)| (n.to_owned(), i.to_owned()))
                    .collect();
                prefixes.sort();
                (prefixes, quads.base_iri().map(str::to_owned))
            };
            on_item(item, b"", &declarations)?;
        }
        Ok(())
    }
}

fn read_lines(
    mut input: impl BufRead,
    mut parser: LineParser,
    on_item: &mut impl FnMut(Item, &[u8], &dyn Fn() -> Declarations) -> Result<(), RewriteError>,
) -> Result<(), RewriteError> {
    let mut line = Vec::new();
    let mut line_no = 0;
    // Lines fed to the parsers before the current one (which starts again after an error).
    let mut lines_before = 0;
    loop {
        line.clear();
        let read = input.read_until(b'\n', &mut line)?;
        if read == 0 {
            parser.end();
        } else {
            line_no += 1;
            parser.extend(&line);
        }
        let mut failed = false;
        while let Some(result) = parser.next() {
            let item = match result {
                Ok(quad) => Item::Statement(quad, Location::new(line_no, 0)),
                Err(e) => {
                    failed = true;
                    let at = error_location(&e);
                    Item::SyntaxError(
                        Location::new(lines_before + at.line, at.column),
                        e.message().to_owned(),
                    )
                }
            };
            let declarations = || (parser.prefixes(), parser.base_iri());
            on_item(item, &line, &declarations)?;
        }
        if read == 0 {
            return Ok(());
        }
        if failed {
            parser = parser.restarted()?;
            lines_before = line_no;
        }
    }
}

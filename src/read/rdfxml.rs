//! RDF/XML, read through `oxrdfxml` with the legacy pre-pass (`crate::rdfxml`) unless strict,
//! each statement and error located at the XML event that completes it.

use super::line_parser::bad_base;
use super::{Declarations, Item, Notice, ReadError, Span, SyntaxError};
use crate::position::Location;
use crate::rdfxml::{LocatedRdfXml, XmlError};
use oxrdf::GraphName;
use oxrdfxml::{RdfXmlParseError, RdfXmlParser};
use std::cell::RefCell;
use std::io::BufRead;

/// Reads RDF/XML through the legacy pre-pass unless `strict`, with the input location of each
/// statement and error.
pub(super) fn read<D, E: From<ReadError>>(
    input: impl BufRead,
    base: Option<&str>,
    strict: bool,
    on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<(), E> {
    let warnings: RefCell<Vec<(Location, String)>> = RefCell::default();
    let mut parser = RdfXmlParser::new();
    if let Some(base) = base {
        parser = parser.with_base_iri(base).map_err(|e| bad_base(base, e))?;
    }
    if strict {
        let triples = LocatedRdfXml::strict(parser, input);
        return parse_rdfxml(triples, &warnings, on_item);
    }
    let triples = LocatedRdfXml::legacy(parser, input, |at, message| {
        warnings.borrow_mut().push((at, message));
    });
    parse_rdfxml(triples, &warnings, on_item)
}

/// Hands on the statements and errors of RDF/XML, each located at the XML event that completes
/// it, and `warnings` (filled by the legacy pre-pass as it reads) as they come.
fn parse_rdfxml<D, E: From<ReadError>>(
    mut triples: LocatedRdfXml<'_>,
    warnings: &RefCell<Vec<(Location, String)>>,
    on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<(), E> {
    while let Some((result, at)) = triples.next() {
        tell_warnings(warnings, on_item)?;
        let item = match result {
            Ok(triple) => Item::Statement(triple.in_graph(GraphName::DefaultGraph)),
            Err(RdfXmlParseError::Io(e)) => match malformed_xml(&e) {
                Some(error) => Item::Notice(Notice::SyntaxError(error)),
                None => return Err(ReadError::Io(e).into()),
            },
            Err(RdfXmlParseError::Syntax(e)) => {
                Item::Notice(Notice::SyntaxError(SyntaxError::new(at, e.to_string())))
            }
        };
        let declarations = || declared(triples.prefixes(), triples.base_iri());
        on_item(item, Span::at(at), &declarations)?;
    }
    tell_warnings(warnings, on_item)
}

/// `prefixes` (sorted by name: a rewrite's output is the same on every run) and `base`.
fn declared<'a>(
    prefixes: impl Iterator<Item = (&'a str, &'a str)>,
    base: Option<&str>,
) -> Declarations {
    let mut prefixes: Vec<_> = prefixes
        .map(|(n, i)| (n.to_owned(), i.to_owned()))
        .collect();
    prefixes.sort();
    (prefixes, base.map(str::to_owned))
}

/// Hands the warnings gathered so far to `on_item`.
fn tell_warnings<D, E: From<ReadError>>(
    warnings: &RefCell<Vec<(Location, String)>>,
    on_item: &mut impl FnMut(Item<D>, Span<'_>, &dyn Fn() -> Declarations) -> Result<(), E>,
) -> Result<(), E> {
    let told: Vec<_> = warnings.borrow_mut().drain(..).collect();
    told.into_iter().try_for_each(|(at, message)| {
        on_item(
            Item::Notice(Notice::Warning(at, message)),
            Span::at(at),
            &Declarations::default,
        )
    })
}

/// The error of the legacy pre-pass inside `e`, if it is one (malformed XML), as a syntax error.
fn malformed_xml(e: &std::io::Error) -> Option<SyntaxError> {
    let mut inner: &(dyn std::error::Error + 'static) = e.get_ref()?;
    loop {
        if let Some(xml) = inner.downcast_ref::<XmlError>() {
            return Some(SyntaxError::new(xml.location, xml.message.clone()));
        }
        inner = match inner.downcast_ref::<std::io::Error>() {
            Some(io) => io.get_ref()?,
            None => inner.source()?,
        };
    }
}

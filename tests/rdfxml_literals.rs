//! RDF/XML literals and bases read as rapper reads them: an XML literal
//! (`rdf:parseType="Literal"`) is well-formed XML with each namespace it uses declared once, on
//! the outermost element that uses it; a property's text split by comments or mixing text and
//! CDATA is one literal; a relative `xml:base` resolves against the base in scope (the
//! document's, from `--base` or the file's URL).

mod common;

use common::reference::RdfParser;
use oxrdf::{Literal, Term};
use pidcanon::Registry;
use pidcanon::rewrite::RdfFormat;
use pidcanon::rewrite::{RewriteError, Rewriter};

const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const XHTML: &str = "http://www.w3.org/1999/xhtml";

/// The statements of RDF/XML `input` (read with `base`, strictly or not) as
/// (subject, predicate, object) strings, the object a literal's value where it is one.
fn read(
    input: &str,
    base: Option<&str>,
    strict: bool,
) -> Result<Vec<(String, String, Term)>, RewriteError> {
    let mut rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::RdfXml)
        .with_output_format(RdfFormat::NTriples);
    if let Some(base) = base {
        rewriter = rewriter.with_base_iri(base)?;
    }
    if strict {
        rewriter = rewriter.strict_rdfxml();
    }
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    session.rewrite(input.as_bytes())?;
    session.finish()?;
    Ok(RdfParser::from_format(RdfFormat::NTriples)
        .for_slice(&out)
        .map(|q| {
            let q = q.expect("N-Triples");
            (q.subject.to_string(), q.predicate.to_string(), q.object)
        })
        .collect())
}

fn literal(term: &Term) -> &Literal {
    match term {
        Term::Literal(literal) => literal,
        other => panic!("not a literal: {other}"),
    }
}

/// Whether `value` (an XML literal) is well-formed: balanced, no attribute twice.
fn well_formed(value: &str) {
    let wrapped = format!("<w>{value}</w>");
    let mut reader = quick_xml::Reader::from_str(&wrapped);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => return,
            Ok(quick_xml::events::Event::Start(start) | quick_xml::events::Event::Empty(start)) => {
                for attribute in start.attributes() {
                    attribute.unwrap_or_else(|e| panic!("{value}: {e}"));
                }
            }
            Ok(_) => {}
            Err(e) => panic!("{value}: {e}"),
        }
    }
}

fn xml_literals(input: &str) -> Vec<String> {
    let mut values = Vec::new();
    for strict in [false, true] {
        let found = read(input, None, strict).expect("read");
        let these: Vec<String> = found
            .iter()
            .map(|(_, _, o)| {
                let literal = literal(o);
                assert_eq!(literal.datatype().as_str(), format!("{RDF}XMLLiteral"));
                well_formed(literal.value());
                literal.value().to_owned()
            })
            .collect();
        if strict {
            assert_eq!(these, values, "strictly read the same");
        } else {
            values = these;
        }
    }
    values
}

#[test]
fn an_xml_literal_declares_each_namespace_it_uses_once() {
    // `h` is in scope and declared again on the literal's element: rapper keeps one
    // declaration, there.
    let input = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:e="http://e/" xmlns:h="{XHTML}">
  <rdf:Description rdf:about="http://e/s">
    <e:p rdf:parseType="Literal"><h:b xmlns:h="{XHTML}">x</h:b></e:p>
  </rdf:Description>
</rdf:RDF>"#
    );
    assert_eq!(
        xml_literals(&input),
        [format!(r#"<h:b xmlns:h="{XHTML}">x</h:b>"#)]
    );
}

#[test]
fn an_xml_literal_carries_only_the_namespaces_it_uses() {
    // rdf, e and the unused z are in scope; the literal uses h (inside too: declared once, on
    // the outer element) and the default namespace, and a prefixed attribute.
    let input = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:e="http://e/" xmlns:h="{XHTML}" xmlns:z="http://z/" xmlns="http://d/">
  <rdf:Description rdf:about="http://e/s">
    <e:p rdf:parseType="Literal">a <h:b><h:i z:n="1">x</h:i></h:b> and <c>y</c><c xmlns="">z</c></e:p>
  </rdf:Description>
</rdf:RDF>"#
    );
    assert_eq!(
        xml_literals(&input),
        [format!(
            r#"a <h:b xmlns:h="{XHTML}"><h:i xmlns:z="http://z/" z:n="1">x</h:i></h:b> and <c xmlns="http://d/">y</c><c>z</c>"#
        )]
    );
}

#[test]
fn a_literal_typed_as_xml_is_left_as_written() {
    // Only parseType="Literal" content is XML read by the parser; a literal with the
    // XMLLiteral datatype is text, kept as it is.
    let input = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:e="http://e/">
  <rdf:Description rdf:about="http://e/s">
    <e:p rdf:datatype="{RDF}XMLLiteral">&lt;h:b xmlns:h="x" xmlns:z="y"&gt;x&lt;/h:b&gt;</e:p>
  </rdf:Description>
</rdf:RDF>"#
    );
    let found = read(&input, None, false).expect("read");
    assert_eq!(
        literal(&found[0].2).value(),
        r#"<h:b xmlns:h="x" xmlns:z="y">x</h:b>"#
    );
}

#[test]
fn text_split_by_comments_or_cdata_is_one_literal() {
    let input = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:e="http://e/">
  <rdf:Description rdf:about="http://e/s">
    <e:p>a<!-- a comment --> b</e:p>
    <e:q>a <![CDATA[b]]></e:q>
    <e:r><![CDATA[<x> & ]]>y<!-- c --><![CDATA[z]]></e:r>
  </rdf:Description>
</rdf:RDF>"#
    );
    for strict in [false, true] {
        let found = read(&input, None, strict).expect("read");
        let values: Vec<(String, String)> = found
            .iter()
            .map(|(_, p, o)| (p.clone(), literal(o).value().to_owned()))
            .collect();
        assert_eq!(
            values,
            [
                ("<http://e/p>".to_owned(), "a b".to_owned()),
                ("<http://e/q>".to_owned(), "a b".to_owned()),
                ("<http://e/r>".to_owned(), "<x> & yz".to_owned()),
            ],
            "strict: {strict}"
        );
    }
}

#[test]
fn a_relative_xml_base_resolves_against_the_base_in_scope() {
    let input = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:e="http://e/" xml:base="dir/">
  <rdf:Description rdf:about="a">
    <e:p xml:base="sub/" rdf:resource="b"/>
  </rdf:Description>
  <rdf:Description xml:base="http://other/x/" rdf:about="c"><e:p xml:base="../y/" rdf:resource="d"/></rdf:Description>
</rdf:RDF>"#
    );
    for strict in [false, true] {
        let found = read(&input, Some("http://example.org/doc/base.rdf"), strict).expect("read");
        let found: Vec<(String, String)> = found
            .into_iter()
            .map(|(s, _, o)| (s, o.to_string()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "<http://example.org/doc/dir/a>".to_owned(),
                    "<http://example.org/doc/dir/sub/b>".to_owned()
                ),
                (
                    "<http://other/x/c>".to_owned(),
                    "<http://other/y/d>".to_owned()
                ),
            ],
            "strict: {strict}"
        );
    }
    // With no base to resolve it against, a relative xml:base is an error that says so.
    let error = read(&input, None, false).expect_err("no base");
    let message = error.to_string();
    assert!(
        message.contains("xml:base") && message.contains("dir/"),
        "{message}"
    );
}

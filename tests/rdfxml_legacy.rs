//! Legacy RDF/XML (RDF/XML Syntax §6.1.4: unqualified RDF attributes; `base` on `rdf:RDF`;
//! stray references between elements) is read as rapper reads it, with one warning per kind of
//! legacy use; `strict_rdfxml` keeps the strict reading.

mod common;

use common::reference::RdfParser;
use pidcanon::Registry;
use pidcanon::rewrite::RdfFormat;
use pidcanon::rewrite::{Location, Observer, Report, RewriteError, Rewriter};
use std::collections::BTreeSet;
use std::path::Path;

#[derive(Default)]
struct Warnings(Vec<String>);

impl Observer for &mut Warnings {
    fn warning(&mut self, location: Location, message: &str) {
        self.0.push(format!("{location}: {message}"));
    }
}

/// Rewrites RDF/XML into N-Triples: the statements, the warnings and the report.
fn rewrite(
    input: &str,
    strict: bool,
) -> Result<(BTreeSet<String>, Vec<String>, Report), RewriteError> {
    let mut rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::RdfXml)
        .with_output_format(RdfFormat::NTriples);
    if strict {
        rewriter = rewriter.strict_rdfxml();
    }
    let mut warnings = Warnings::default();
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out).with_observer(&mut warnings);
    session.rewrite(input.as_bytes())?;
    let report = session.finish()?;
    let statements = String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect();
    Ok((statements, warnings.0, report))
}

const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

#[test]
fn fedoras_relations_ontology_equals_rappers_reading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/fcrepo3/rdfs");
    let ontology =
        std::fs::read_to_string(root.join("fedora_relsext_ontology.rdfs")).expect("fixture");
    let (found, warnings, report) = rewrite(&ontology, false).expect("legacy RDF/XML is read");
    // rapper was given the RELS-EXT namespace as base (index.tsv); `base` read as xml:base
    // gives the same IRIs.
    let rapper = std::fs::read(root.join("fedora_relsext_ontology.nt")).expect("conversion");
    let expected: BTreeSet<String> = RdfParser::from_format(RdfFormat::NTriples)
        .for_slice(&rapper)
        .map(|q| format!("{} .", q.expect("N-Triples")))
        .collect();
    // rapper lower-cases language tags (`en-US` becomes `en-us`); pidcanon keeps literals as
    // they are written (the tags are case-insensitive: the same statements).
    assert!(found.iter().any(|s| s.ends_with("@en-US .")));
    let found: BTreeSet<String> = found
        .iter()
        .map(|s| s.replace("@en-US .", "@en-us ."))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(
        warnings,
        ["2:1: unqualified attribute `base` on rdf:RDF read as xml:base (as xml:base)"]
    );
    assert_eq!(report.warnings, 1);
    let strict = rewrite(&ontology, true).expect_err("strict RDF/XML rejects it");
    assert!(
        strict.to_string().contains("XML namespaces are required"),
        "{strict}"
    );
    // The error names the attribute and what strict RDF/XML needs instead.
    assert!(
        strict
            .to_string()
            .contains("the attribute `base` is in no namespace (strict RDF/XML needs `xml:base`"),
        "{strict}"
    );
}

#[test]
fn a_strict_reading_names_the_unqualified_attribute_it_refuses() {
    let xml = format!(
        "<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"{RDF}\" xmlns:ex=\"http://e/\">\n\
         <rdf:Description about=\"http://e/s\"><ex:p>x</ex:p></rdf:Description>\n</rdf:RDF>\n"
    );
    let strict = rewrite(&xml, true).expect_err("strict RDF/XML rejects it");
    let said = strict.to_string();
    assert!(said.contains("3:1"), "{said}");
    assert!(
        said.contains("the attribute `about` is in no namespace (strict RDF/XML needs `rdf:about`"),
        "{said}"
    );
    assert!(rewrite(&xml, false).is_ok());
}

#[test]
fn unqualified_attributes_read_as_their_rdf_forms() {
    let legacy = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:e="http://example.org/">
  <rdf:Description about="http://example.org/a" type="http://example.org/T">
    <e:p resource="http://example.org/b"/>
    <e:q datatype="http://www.w3.org/2001/XMLSchema#integer">1</e:q>
    <e:r parseType="Resource"><e:s nodeID="n"/></e:r>
  </rdf:Description>
  <rdf:Description ID="c"><e:p parseType="Literal"><x about="not RDF"/></e:p></rdf:Description>
</rdf:RDF>"#
    );
    let qualified = legacy
        .replace(" about=\"http", " rdf:about=\"http")
        .replace(" type=", " rdf:type=")
        .replace(" resource=", " rdf:resource=")
        .replace(" datatype=", " rdf:datatype=")
        .replace(" parseType=", " rdf:parseType=")
        .replace(" nodeID=", " rdf:nodeID=")
        .replace(" ID=", " rdf:ID=")
        .replace(
            "<rdf:RDF ",
            "<rdf:RDF xml:base=\"http://example.org/base\" ",
        );
    let legacy = legacy.replace(
        "<rdf:RDF ",
        "<rdf:RDF xml:base=\"http://example.org/base\" ",
    );
    let (found, warnings, _) = rewrite(&legacy, false).expect("legacy");
    let (expected, none, _) = rewrite(&qualified, true).expect("qualified");
    assert!(none.is_empty());
    assert_eq!(found, expected);
    assert_eq!(found.len(), 6, "{found:#?}");
    // Once per kind, at its first use; nothing from the XML literal's `about`.
    assert_eq!(
        warnings,
        [
            "2:3: unqualified attribute `about` read as rdf:about (RDF/XML Syntax §6.1.4)",
            "2:3: unqualified attribute `type` read as rdf:type (RDF/XML Syntax §6.1.4)",
            "3:5: unqualified attribute `resource` read as rdf:resource (RDF/XML Syntax §6.1.4)",
            "4:5: unqualified attribute `datatype` read as rdf:datatype (RDF/XML Syntax §6.1.4)",
            "5:5: unqualified attribute `parseType` read as rdf:parseType (RDF/XML Syntax §6.1.4)",
            "5:31: unqualified attribute `nodeID` read as rdf:nodeID (RDF/XML Syntax §6.1.4)",
            "7:3: unqualified attribute `ID` read as rdf:ID (RDF/XML Syntax §6.1.4)",
        ]
    );
    assert!(
        found.iter().any(|s| s.contains("<x about=\\\"not RDF\\\"")),
        "{found:#?}"
    );
}

#[test]
fn a_literal_inside_an_added_declaration_does_not_carry_it() {
    // With no prefix bound to the RDF namespace, the pre-pass declares one; an XML literal
    // inside declares only the namespaces it uses, so it does not carry that one.
    let input = format!(
        r#"<RDF xmlns="{RDF}"><Description about="http://example.org/a"><e:p xmlns:e="http://example.org/" parseType="Literal"><b/></e:p></Description></RDF>"#
    );
    let (found, warnings, _) = rewrite(&input, false).expect("read");
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        [format!(
            "<http://example.org/a> <http://example.org/p> \"<b xmlns=\\\"{RDF}\\\"></b>\"^^<{RDF}XMLLiteral> ."
        )]
    );
    assert!(
        !warnings.iter().any(|w| w.contains("XML literal")),
        "{warnings:?}"
    );
}

#[test]
fn stray_references_between_elements_are_skipped_not_the_statements() {
    let input = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:e="http://example.org/">&#160;
  <rdf:Description rdf:about="http://example.org/a">&#xA0;<e:p rdf:resource="http://example.org/b"/></rdf:Description>
  &nbsp;<rdf:Description rdf:about="http://example.org/c"><e:p>&#160;</e:p></rdf:Description>
</rdf:RDF>"#
    )
    .replace("&nbsp;", "&#160;");
    let (found, warnings, report) = rewrite(&input, false).expect("read");
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found.contains("<http://example.org/c> <http://example.org/p> \"\u{a0}\" ."),
        "{found:#?}"
    );
    assert_eq!(
        warnings,
        ["1:96: text \"&#160;\" where RDF/XML allows no text skipped"]
    );
    assert_eq!(report.statements_read, 2);
    assert!(
        rewrite(&input, true).is_err(),
        "strictly, the stray text is an error"
    );
}

#[test]
fn malformed_xml_is_a_syntax_error_with_its_place() {
    let input = format!(
        "<rdf:RDF xmlns:rdf=\"{RDF}\">\n  <rdf:Description about=\"http://example.org/a\"></rdf:Descriptio>\n</rdf:RDF>"
    );
    let Err(RewriteError::Syntax(error)) = rewrite(&input, false) else {
        panic!("malformed XML is a syntax error");
    };
    assert_eq!(error.location().line(), Some(2), "{error}");
    assert!(error.message().contains("malformed XML"), "{error}");
}

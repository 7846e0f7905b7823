//! Literals are written as they were read: a language tag keeps its case in every output
//! format, as N-Triples lines copied through always did; and RDF/XML output declares only the
//! namespaces it uses.

use pidcanon::Registry;
use pidcanon::rewrite::RdfFormat;
use pidcanon::rewrite::Rewriter;

const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

fn rewrite(input: &str, from: RdfFormat, to: RdfFormat) -> String {
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(from)
        .with_output_format(to);
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    session.rewrite(input.as_bytes()).expect("rewritten");
    session.finish().expect("finished");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn rdfxml_language_tags_keep_their_case() {
    // On a property element, inherited from a node element, on a property attribute.
    let input = format!(
        r#"<rdf:RDF xmlns:rdf="{RDF}" xmlns:e="http://e/">
  <rdf:Description rdf:about="http://e/s" xml:lang="De-CH" e:a="attribute">
    <e:p xml:lang="EN-us">x</e:p>
    <e:q>y</e:q>
    <e:r xml:lang="fr">z</e:r>
  </rdf:Description>
</rdf:RDF>"#
    );
    let expected = [
        "\"attribute\"@De-CH",
        "\"x\"@EN-us",
        "\"y\"@De-CH",
        "\"z\"@fr",
    ];
    for strict in [false, true] {
        let mut rewriter = Rewriter::new(Registry::default())
            .with_input_format(RdfFormat::RdfXml)
            .with_output_format(RdfFormat::NTriples);
        if strict {
            rewriter = rewriter.strict_rdfxml();
        }
        let mut out = Vec::new();
        let mut session = rewriter.session(&mut out);
        session.rewrite(input.as_bytes()).expect("rewritten");
        session.finish().expect("finished");
        let out = String::from_utf8(out).expect("UTF-8");
        for literal in expected {
            assert!(out.contains(literal), "{literal}: {out}");
        }
    }
    let turtle = rewrite(&input, RdfFormat::RdfXml, RdfFormat::Turtle);
    assert!(turtle.contains("\"x\"@EN-us"), "{turtle}");
    let rdfxml = rewrite(&input, RdfFormat::RdfXml, RdfFormat::RdfXml);
    assert!(rdfxml.contains("xml:lang=\"EN-us\""), "{rdfxml}");
    assert!(rdfxml.contains("xml:lang=\"De-CH\""), "{rdfxml}");
}

#[test]
fn rdfxml_output_declares_only_the_namespaces_it_uses() {
    let nt = "<http://e/s> <http://e/p> \"x\"@en .\n";
    let rdfxml = rewrite(nt, RdfFormat::NTriples, RdfFormat::RdfXml);
    assert!(!rdfxml.contains("xmlns:its"), "{rdfxml}");
    assert!(rdfxml.contains(&format!("xmlns:rdf=\"{RDF}\"")), "{rdfxml}");
    // An empty output too.
    let empty = rewrite("", RdfFormat::NTriples, RdfFormat::RdfXml);
    assert!(!empty.contains("xmlns:its"), "{empty}");
    assert!(empty.contains("<rdf:RDF"), "{empty}");
    // A literal with a direction (RDF 1.2) uses the ITS namespace: declared where it is used.
    let directional =
        "<http://e/s> <http://e/p> \"x\"@ar--rtl .\n<http://e/s> <http://e/q> \"y\"@en--ltr .\n";
    let rdfxml = rewrite(directional, RdfFormat::NTriples, RdfFormat::RdfXml);
    assert_eq!(
        rdfxml
            .matches("xmlns:its=\"http://www.w3.org/2005/11/its\" its:version=\"2.0\"")
            .count(),
        2,
        "{rdfxml}"
    );
    let back = rewrite(&rdfxml, RdfFormat::RdfXml, RdfFormat::NTriples);
    assert_eq!(
        back.lines().collect::<Vec<_>>(),
        directional.lines().collect::<Vec<_>>()
    );
}

#[test]
fn text_format_language_tags_keep_their_case() {
    let nt = "<http://e/s> <http://e/p> \"x\"@EN-us .\n";
    for to in [RdfFormat::Turtle, RdfFormat::RdfXml, RdfFormat::TriG] {
        let out = rewrite(nt, RdfFormat::NTriples, to);
        assert!(out.contains("EN-us"), "{to:?}: {out}");
    }
    let ttl = "@prefix e: <http://e/> .\ne:s e:p \"x\"@EN-us .\n";
    for to in [RdfFormat::NTriples, RdfFormat::Turtle, RdfFormat::RdfXml] {
        let out = rewrite(ttl, RdfFormat::Turtle, to);
        assert!(out.contains("EN-us"), "{to:?}: {out}");
    }
}

#[test]
fn each_turtle_tag_keeps_its_own_case_whichever_parser_reads_it() {
    // The first line is read by pidcanon's fast path (which reads tags as written), the second
    // by oxttl (a base direction; oxttl lower-cases tags, and the reader gives them their case
    // from the text), the third and fourth by the fast path again: the same value tagged in
    // four ways, each kept. The second must not take the case of the tag on the line before.
    let ttl = "@prefix e: <http://e/> .\n\
               e:s e:a \"v\"@EN .\n\
               e:s e:a \"v\"@eN--ltr .\n\
               e:s e:a \"v\"@En .\n\
               e:s e:a \"v\"@en-GB .\n";
    let out = rewrite(ttl, RdfFormat::Turtle, RdfFormat::NTriples);
    let tags: Vec<&str> = out
        .lines()
        .filter_map(|line| line.split('@').nth(1)?.strip_suffix(" ."))
        .collect();
    assert_eq!(tags, ["EN", "eN--ltr", "En", "en-GB"], "{out}");
}

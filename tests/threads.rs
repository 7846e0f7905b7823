//! Rewriting on several threads gives the same output as on one: N-Triples byte for byte over
//! several chunks, Turtle statement for statement (blank node labels aside, which the parser
//! makes up); and one session over several inputs writes one document.

use oxrdfio::{RdfFormat, RdfParser};
use pidcanon::Registry;
use pidcanon::rewrite::Rewriter;

fn rewrite(input: &[u8], from: RdfFormat, to: RdfFormat, threads: usize) -> (Vec<u8>, u64) {
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(from)
        .with_output_format(to)
        .with_threads(threads);
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    session.rewrite(input).expect("rewrites");
    let report = session.finish().expect("finishes");
    (out, report.rewritten_total())
}

/// About 13 MB of N-Triples (several 4 MB chunks), with identifiers to rewrite and an invalid one.
fn big_ntriples() -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..100_000 {
        out.extend_from_slice(
            format!(
                "<info:fedora/demo%3a{i}> <http://purl.org/dc/terms/relation> <hdl://10013/X{i}> .\n\
                 <http://example.org/{i}> <http://example.org/p> \"caf\\u00E9 {i}\"@en . # note\n\
                 _:b{i} <http://example.org/q> <http://dx.doi.org/10.1000/ABC{i}> .\n\
                 <info:fedora/de_mo:{i}> <http://example.org/p> <urn:pdi://oma.eop.gov.us/1997/09/01/{i}.TEXT.1> .\n"
            )
            .as_bytes(),
        );
    }
    out
}

#[test]
fn ntriples_output_is_the_same_on_any_number_of_threads() {
    let input = big_ntriples();
    let (one, rewritten) = rewrite(&input, RdfFormat::NTriples, RdfFormat::NTriples, 1);
    assert_eq!(rewritten, 400_000);
    for threads in [2, 3, 8] {
        let (many, _) = rewrite(&input, RdfFormat::NTriples, RdfFormat::NTriples, threads);
        assert!(one == many, "{threads} threads differ");
    }
}

fn statements(bytes: &[u8], format: RdfFormat) -> Vec<String> {
    let mut all: Vec<String> = RdfParser::from_format(format)
        .for_slice(bytes)
        .map(|q| {
            let q = q.expect("parses").to_string();
            q.split(' ')
                .map(|t| if t.starts_with("_:") { "_:b" } else { t })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    all.sort();
    all
}

#[test]
fn turtle_output_is_the_same_on_two_threads() {
    let input = big_ntriples();
    let end = input[..2_000_000]
        .iter()
        .rposition(|&b| b == b'\n')
        .expect("a line end")
        + 1;
    let (ttl, _) = rewrite(&input[..end], RdfFormat::NTriples, RdfFormat::Turtle, 1);
    let (one, rewritten_one) = rewrite(&ttl, RdfFormat::Turtle, RdfFormat::NTriples, 1);
    let (two, rewritten_two) = rewrite(&ttl, RdfFormat::Turtle, RdfFormat::NTriples, 2);
    assert_eq!(rewritten_one, rewritten_two);
    assert_eq!(
        statements(&one, RdfFormat::NTriples),
        statements(&two, RdfFormat::NTriples)
    );
}

#[test]
fn one_session_over_several_inputs_writes_one_document() {
    for threads in [1, 2] {
        let rewriter = Rewriter::new(Registry::default())
            .with_input_format(RdfFormat::NTriples)
            .with_output_format(RdfFormat::RdfXml)
            .with_threads(threads);
        let mut out = Vec::new();
        let mut session = rewriter.session(&mut out);
        session
            .rewrite(
                &b"<info:fedora/demo%3a1> <http://example.org/p> <http://example.org/o> .\n"[..],
            )
            .expect("first");
        session
            .rewrite(
                &b"<info:fedora/demo%3a2> <http://example.org/p> <http://example.org/o> .\n"[..],
            )
            .expect("second");
        let report = session.finish().expect("finishes");
        assert_eq!(report.statements_written, 2);
        let text = String::from_utf8(out).expect("UTF-8");
        assert_eq!(text.matches("<rdf:RDF").count(), 1, "{text}");
        assert_eq!(
            statements(text.as_bytes(), RdfFormat::RdfXml).len(),
            2,
            "{text}"
        );
    }
}

//! Rewriting on several threads gives the same output as on one: N-Triples byte for byte over
//! several chunks, Turtle byte for byte over several pieces parsed in parallel (with
//! declarations along the way, strings that look like statements, and syntax errors); and one
//! session over several inputs writes one document.

mod common;

use common::reference::RdfParser;
use common::{Heard, same_findings};
use pidcanon::Registry;
use pidcanon::rewrite::RdfFormat;
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

/// About 4 MB of Turtle (several pieces for the parallel parser) with what a scan for statement
/// ends could trip on: declarations on the way (a prefix declared again with another IRI, a
/// SPARQL `PREFIX`, a new `@base`), long strings holding ` .` line ends and `@prefix`, made-up
/// blank nodes and lists, comments, escaped local names; and `broken` lines with syntax errors.
fn big_turtle(broken: &[usize]) -> String {
    let mut out = String::from(
        "# a big file\n@prefix dc: <http://purl.org/dc/terms/> .\n@base <http://example.org/> .\n",
    );
    for i in 0..24_000 {
        if broken.contains(&i) {
            out.push_str(&format!("<bad{i}> dc:title \"no end .\n"));
        }
        match i {
            8_000 => out.push_str("@prefix dc: <http://purl.org/dc/elements/1.1/> .\n"),
            12_000 => out.push_str("PREFIX ex: <http://example.com/ns#>\n"),
            16_000 => out.push_str("@base <http://example.net/other/> .\n"),
            _ => {}
        }
        out.push_str(&format!(
            "<info:fedora/demo%3a{i}> dc:relation <hdl://10013/X{i}> , <rel{i}> ;\n    \
             dc:description \"\"\"a long one .\n@prefix dc: <http://wrong/> .\n<x> <y> <z> .\n\"\"\" ;\n    \
             dc:creator [ dc:name 'Name {i}' ; dc:alias \"a \\\" quote .\" ] ;\n    \
             dc:subject ( <http://dx.doi.org/10.1000/ABC{i}> \"two\" 3.5 ) . # done {i}.\n\
             _:b{i} dc:identifier \"{i}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
        ));
        if i >= 12_000 {
            out.push_str(&format!("ex:a\\.b{i} ex:p ex:o{i}. ex:c ex:p ex:d .\n"));
        }
    }
    out
}

/// Turtle to N-Triples on `threads` threads: the output, and what was heard.
fn rewrite_turtle(input: &str, threads: usize) -> (Vec<u8>, Vec<String>) {
    rewrite_turtle_to(input, threads, RdfFormat::NTriples, false)
}

/// Turtle to `to` on `threads` threads, without duplicates if `dedup`: the output, and what
/// was heard.
fn rewrite_turtle_to(
    input: &str,
    threads: usize,
    to: RdfFormat,
    dedup: bool,
) -> (Vec<u8>, Vec<String>) {
    let mut rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::Turtle)
        .with_output_format(to)
        .skip_syntax_errors()
        .with_threads(threads);
    if dedup {
        rewriter = rewriter.drop_duplicates();
    }
    let heard = Heard::default();
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out).with_observer(heard.clone());
    session.rewrite(input.as_bytes()).expect("rewrites");
    session.finish().expect("finishes");
    let heard = heard.0.take();
    (out, heard)
}

#[test]
fn turtle_output_is_the_same_byte_for_byte_on_any_number_of_threads() {
    let input = big_turtle(&[]);
    let (one, heard_one) = rewrite_turtle(&input, 1);
    let text = String::from_utf8_lossy(&one);
    assert!(text.contains("<info:fedora/demo:7999> <http://purl.org/dc/terms/relation>"));
    assert!(text.contains("<info:fedora/demo:8000> <http://purl.org/dc/elements/1.1/relation>"));
    assert!(text.contains("<http://example.net/other/rel16000>"));
    assert!(text.contains("<http://example.com/ns#a.b12000>"));
    assert_eq!(text.matches("a long one .\\n@prefix").count(), 24_000);
    // Per block: the subject (at four statements, one without a column after the lines it
    // spans), the handle, the DOI.
    assert_eq!(heard_one.len(), 24_000 * 7);
    for threads in [2, 3] {
        let (many, heard_many) = rewrite_turtle(&input, threads);
        assert!(one == many, "{threads} threads differ");
        same(&heard_one, &heard_many);
    }
}

/// On several threads, Turtle pieces reach the writing thread as lines (N-Triples and N-Quads
/// output) or as statements (with `--dedup`, or another output format): both give what one
/// thread gives, made-up blank nodes labelled alike.
#[test]
fn turtle_pieces_written_as_lines_or_statements_are_the_same_as_on_one_thread() {
    let input = big_turtle(&[]);
    for (to, dedup) in [
        (RdfFormat::NQuads, false),
        (RdfFormat::NTriples, true),
        (RdfFormat::NQuads, true),
        (RdfFormat::Turtle, false),
    ] {
        let (one, heard_one) = rewrite_turtle_to(&input, 1, to, dedup);
        // Made-up nodes in object position, labelled `_:a…`: per block `[ … ]` and the list's
        // first cell, and the next cells from the cells before them.
        let labelled = String::from_utf8_lossy(&one).matches(" _:a").count();
        assert!(labelled >= 24_000 * 3, "{labelled} made-up nodes written");
        let (two, heard_two) = rewrite_turtle_to(&input, 2, to, dedup);
        assert!(one == two, "{to:?} (dedup: {dedup}) differs on two threads");
        same(&heard_one, &heard_two);
    }
}

#[test]
fn turtle_with_syntax_errors_is_recovered_from_the_same_on_two_threads() {
    let input = big_turtle(&[9_000, 23_000]);
    let (one, heard_one) = rewrite_turtle(&input, 1);
    assert!(heard_one.iter().any(|h| h.contains("Skipped")));
    let (two, heard_two) = rewrite_turtle(&input, 2);
    assert!(one == two, "two threads differ");
    same(&heard_one, &heard_two);
}

/// The same findings on one thread and on several.
fn same(one: &[String], many: &[String]) {
    same_findings(one, many, "several threads");
}

/// Turtle whose rewritten IRIs are prefixed names with an escape, each subject written by two
/// statements in a row (pieces cut between them), with `;` carrying it over: on two threads
/// every finding is reported where one thread reports it. (This input does not reach the check
/// that sends a piece back to one thread when its findings depend on the piece before: the
/// finder locates these IRIs within each statement.)
#[test]
fn turtle_findings_of_escaped_prefixed_names_are_the_same_on_two_threads() {
    let mut input = String::from(
        "@prefix fedora: <info:fedora/> .\n@prefix dc: <http://purl.org/dc/terms/> .\n",
    );
    for i in 0..60_000 {
        input.push_str(&format!(
            "fedora:demo\\%3a{} dc:title \"title {i}, long enough to make pieces\" ;\n    dc:creator \"someone\" .\n",
            i / 2
        ));
    }
    let (one, heard_one) = rewrite_turtle(&input, 1);
    assert_eq!(heard_one.len(), 120_000);
    let (two, heard_two) = rewrite_turtle(&input, 2);
    assert!(one == two, "two threads differ");
    same(&heard_one, &heard_two);
}

/// A base declaration that the light scan does not see (`BASE` followed by a comment, not by
/// white space), in a piece of its own: the next piece is sent with the base the scan guessed,
/// its parse disagrees with what the piece before it left, and the rest is read on one thread —
/// the relative IRIs after it are resolved against the new base, as on one thread.
#[test]
fn a_declaration_the_scan_misses_sends_the_rest_to_one_thread() {
    let mut input = String::from("@base <http://a.example/> .\n");
    for i in 0..60_000 {
        input += &format!("<s{i}> <p> <o{i}> .\n");
    }
    input += "BASE#a comment, where the scan looks for white space\n<http://b.example/>\n";
    for i in 0..60_000 {
        input += &format!("<t{i}> <p> <o{i}> .\n");
    }
    let (one, _) = rewrite(input.as_bytes(), RdfFormat::Turtle, RdfFormat::NTriples, 1);
    let text = String::from_utf8_lossy(&one);
    assert!(text.contains("<http://a.example/s59999> <http://a.example/p>"));
    assert!(text.contains("<http://b.example/t0> <http://b.example/p>"));
    assert!(text.contains("<http://b.example/t59999> <http://b.example/p>"));
    for threads in [2, 3] {
        let (many, _) = rewrite(
            input.as_bytes(),
            RdfFormat::Turtle,
            RdfFormat::NTriples,
            threads,
        );
        assert!(one == many, "{threads} threads differ");
    }
}

/// A syntax error that stops the rewrite (not `--lenient`), after pieces canonicalized on the
/// parsing threads: two threads tell the rewrites before it as one thread does, in the same
/// order (docs/fuzzing.md, finding 3: two threads told none), and write the same bytes — every
/// statement before the error, as N-Triples; as Turtle, what the serializer let out.
#[test]
fn the_rewrites_before_a_syntax_error_that_stops_are_told_on_two_threads() {
    let mut input = big_turtle(&[]);
    let at = input
        .find("<info:fedora/demo%3a15000> ")
        .expect("block 15000");
    input.insert_str(at, "<http://a\0> <http://p> <http://o> .\n");
    let rewrite = |threads: usize, to: RdfFormat| {
        let rewriter = Rewriter::new(Registry::default())
            .with_input_format(RdfFormat::Turtle)
            .with_output_format(to)
            .with_threads(threads);
        let heard = Heard::default();
        let mut out = Vec::new();
        let mut session = rewriter.session(&mut out).with_observer(heard.clone());
        let error = session
            .rewrite(input.as_bytes())
            .expect_err("stops at the error");
        drop(session);
        let heard = heard.0.take();
        (out, heard, error.to_string())
    };
    for to in [RdfFormat::NTriples, RdfFormat::Turtle] {
        let (one, heard_one, error_one) = rewrite(1, to);
        assert!(
            heard_one.len() >= 15_000 * 7,
            "{} findings",
            heard_one.len()
        );
        let (two, heard_two, error_two) = rewrite(2, to);
        assert_eq!(error_one, error_two);
        assert!(
            one == two,
            "{to:?}: two threads write other bytes: {} != {}",
            one.len(),
            two.len(),
        );
        if to == RdfFormat::NTriples {
            let text = String::from_utf8_lossy(&one);
            assert!(
                text.ends_with("<http://example.com/ns#d> .\n"),
                "{:?}",
                &text[text.len() - 200..]
            );
            assert!(text.contains("<info:fedora/demo:14999> "));
        }
        assert_eq!(heard_one.len(), heard_two.len());
        if let Some(at) = (0..heard_one.len()).find(|&i| heard_one[i] != heard_two[i]) {
            panic!("finding {at}: {:?} != {:?}", heard_one[at], heard_two[at]);
        }
    }
}

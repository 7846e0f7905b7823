//! Going on after syntax errors loses only the bad statement and never moves one; diagnostics
//! say where each IRI is; output is the same on every run.

use oxrdf::{Dataset, Quad};
use pidcanon::Registry;
use pidcanon::rewrite::{Location, Observer, RdfFormat, Recovery, Rewriter, SyntaxError};
use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

/// What an observer heard.
#[derive(Default, Debug)]
struct Heard {
    rewrites: Vec<(Location, String)>,
    invalid: Vec<(Location, String)>,
    syntax: Vec<(Location, Recovery)>,
}

#[derive(Clone, Default)]
struct Listener(Rc<RefCell<Heard>>);

impl Observer for Listener {
    fn rewritten(&mut self, location: Location, original: &str, _: &str, _: pidcanon::Kind) {
        self.0
            .borrow_mut()
            .rewrites
            .push((location, original.into()));
    }
    fn invalid(&mut self, location: Location, iri: &str, _: &pidcanon::IdError) {
        self.0.borrow_mut().invalid.push((location, iri.into()));
    }
    fn syntax_error(&mut self, error: &SyntaxError, recovery: Recovery) {
        self.0
            .borrow_mut()
            .syntax
            .push((error.location(), recovery));
    }
}

fn rewrite(input: &str, from: RdfFormat, to: RdfFormat, threads: usize) -> (String, Heard) {
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(from)
        .with_output_format(to)
        .skip_syntax_errors()
        .with_threads(threads);
    let listener = Listener::default();
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out).with_observer(listener.clone());
    session
        .rewrite(input.as_bytes())
        .expect("lenient rewrites go on");
    session.finish().expect("finishes");
    let heard = listener.0.take();
    (String::from_utf8(out).expect("UTF-8"), heard)
}

fn quads(nquads: &str) -> Vec<Quad> {
    let mut quads: Vec<Quad> = oxttl::NQuadsParser::new()
        .for_slice(nquads.as_bytes())
        .collect::<Result<_, _>>()
        .expect("the output parses");
    quads.sort_by_key(ToString::to_string);
    quads
}

#[test]
fn an_unterminated_string_costs_only_its_statement() {
    let mut input = String::from("@prefix dc: <http://purl.org/dc/terms/> .\n");
    input.push_str("<info:fedora/demo:0> dc:title \"missing close quote .\n");
    for i in 1..=1000 {
        input.push_str(&format!(
            "<info:fedora/demo%3a{i}> dc:relation <doi:10.1000/X{i}> .\n"
        ));
    }
    let (out, heard) = rewrite(&input, RdfFormat::Turtle, RdfFormat::NTriples, 1);
    assert_eq!(out.lines().count(), 1000, "every valid statement survives");
    assert!(out.contains("<info:fedora/demo:1000> <http://purl.org/dc/terms/relation> <https://doi.org/10.1000/x1000> ."));
    assert_eq!(heard.syntax.len(), 1, "{:?}", heard.syntax);
    assert_eq!(heard.syntax[0].0.line(), Some(2));
    assert_eq!(heard.syntax[0].1, Recovery::Skipped);
}

/// A bracket the bad statement opens and never closes does not take the rest of the input
/// with it: a `.` and a space within `(`, `[` or `<<`, where no valid statement has one, ends
/// the bad statement (before, every statement after it was passed over as its part).
#[test]
fn an_unclosed_bracket_costs_only_its_statement() {
    for bad in [
        "<http://e/s> <http://e/p> ( <http://e/o> .",
        "<http://e/s> <http://e/p> <http://e/o> ; <http://e/q> [ <http://e/r> .",
        "<http://e/s> <http://e/p> [ <http://e/q> ( << <http://e/a> .",
    ] {
        let input = format!(
            "{bad}\n<info:fedora/demo%3a1> <http://e/p> <http://e/o> .\n<http://e/s> <http://e/p> ( <http://e/o> ) .\n"
        );
        for threads in [1, 2] {
            let (out, heard) = rewrite(&input, RdfFormat::Turtle, RdfFormat::NTriples, threads);
            let kept: Vec<&str> = out.lines().filter(|l| !l.starts_with("_:")).collect();
            assert_eq!(kept.len(), 2, "{input:?} on {threads} threads gave {out:?}");
            assert!(out.starts_with("<info:fedora/demo:1> <http://e/p> <http://e/o> .\n"));
            assert_eq!(out.lines().count(), 4, "{out:?}");
            assert_eq!(heard.syntax.len(), 1, "{:?}", heard.syntax);
            assert_eq!(heard.syntax[0].0.line(), Some(1));
        }
    }
}

#[test]
fn trig_recovery_keeps_the_graph_block() {
    let input = "<http://g/1> {\n<http://ex/s> <http://ex/p> <http://ex/a b> .\n<http://ex/s> <http://ex/p> <http://ex/o> .\n}\n<http://ex/d> <http://ex/p> <http://ex/o> .\n";
    let (out, heard) = rewrite(input, RdfFormat::TriG, RdfFormat::NQuads, 1);
    assert_eq!(
        out,
        "<http://ex/s> <http://ex/p> <http://ex/o> <http://g/1> .\n<http://ex/d> <http://ex/p> <http://ex/o> .\n"
    );
    assert_eq!(
        heard.syntax.len(),
        1,
        "no spurious error after the block: {:?}",
        heard.syntax
    );
}

#[test]
fn trig_recovery_after_a_closed_block_stays_in_the_default_graph() {
    let input = "<http://g/1> { <http://ex/s> <http://ex/p> <http://ex/o> . }\n<http://ex/s> <http://ex/p> <http://ex/a b> .\n<http://ex/d> <http://ex/p> <http://ex/o> .\n";
    let (out, heard) = rewrite(input, RdfFormat::TriG, RdfFormat::NQuads, 1);
    assert_eq!(
        out,
        "<http://ex/s> <http://ex/p> <http://ex/o> <http://g/1> .\n<http://ex/d> <http://ex/p> <http://ex/o> .\n"
    );
    assert_eq!(heard.syntax.len(), 1, "{:?}", heard.syntax);
}

/// Read again inside its graph block after an error, the next line keeps its columns: the
/// block is opened again on a line of its own (it was put in front of the line, so that an
/// error there was told 13 columns off).
#[test]
fn trig_errors_after_a_restart_in_a_block_keep_their_columns() {
    let input = "<http://g> {\n  <http://a> !! .\n!! .\n  <http://c> <http://d> <http://e> .\n}\n";
    let (out, heard) = rewrite(input, RdfFormat::TriG, RdfFormat::NQuads, 1);
    assert_eq!(out, "<http://c> <http://d> <http://e> <http://g> .\n");
    let found: Vec<_> = heard
        .syntax
        .iter()
        .map(|(at, _)| (at.line(), at.column()))
        .collect();
    assert_eq!(found, [(Some(2), Some(14)), (Some(3), Some(1))]);
}

/// An unfinished statement, then a directive starting a line: the directive is read (Turtle
/// and TriG), so the names after it take its namespace.
#[test]
fn a_directive_after_an_unfinished_statement_is_read() {
    for directive in ["@prefix ex: <http://two/> .", "PREFIX ex: <http://two/>"] {
        let input =
            format!("@prefix ex: <http://one/> .\nex:a ex:b\n{directive}\nex:d ex:e ex:f .\n");
        for (from, to) in [
            (RdfFormat::Turtle, RdfFormat::NTriples),
            (RdfFormat::TriG, RdfFormat::NQuads),
        ] {
            let (out, heard) = rewrite(&input, from, to, 1);
            assert_eq!(
                out, "<http://two/d> <http://two/e> <http://two/f> .\n",
                "{directive} in {from}"
            );
            let found: Vec<_> = heard.syntax.iter().map(|(at, _)| at.line()).collect();
            assert_eq!(found, [Some(3)], "{directive} in {from}");
        }
    }
}

/// Where each rewrite was heard, as `line:column`, with its IRI.
fn rewrites_at(heard: &Heard) -> Vec<(String, String)> {
    heard
        .rewrites
        .iter()
        .map(|(location, iri)| (location.to_string(), iri.clone()))
        .collect()
}

#[test]
fn diagnostics_find_each_iri_where_it_is_written() {
    // `<…/demo%3a1>` is a prefix of `<…/demo%3a1/DC>`: each is found at its own place, and the
    // IRIs of a statement continued with `;` on its own line.
    let input = "@prefix dc: <http://purl.org/dc/terms/> .\n\
        <http://ex/s> dc:relation <info:fedora/demo%3a1/DC> , <info:fedora/demo%3a1> ;\n\
        \x20 dc:source <info:fedora/demo%3a2> .\n\
        <info:fedora/demo%3a1> dc:relation <info:fedora/demo%3a1> .\n";
    let (_, heard) = rewrite(input, RdfFormat::Turtle, RdfFormat::NTriples, 1);
    let at = rewrites_at(&heard);
    let expected = [
        ("2:27", "info:fedora/demo%3a1/DC"),
        ("2:55", "info:fedora/demo%3a1"),
        ("3:13", "info:fedora/demo%3a2"),
        ("4:1", "info:fedora/demo%3a1"),
        ("4:36", "info:fedora/demo%3a1"),
    ];
    assert_eq!(
        at,
        expected.map(|(l, i)| (l.to_owned(), i.to_owned())),
        "{:?}",
        heard.rewrites
    );
}

#[test]
fn prefixed_names_relative_iris_and_continued_subjects_have_line_and_column() {
    // `info:demo%3a1` is a prefixed name; `f:demo%3a10` is not found inside `f:demo%3a100`;
    // the subject of the statement after `;` is where it was written, on line 3; `<demo%3a3>`
    // is relative to the base.
    let input = "@base <info:fedora/> .\n@prefix info: <info:fedora/> .\n\
        info:demo%3a1 <http://ex/p>\n  info:demo%3a100, info:demo%3a10 ;\n\
        \x20 <http://ex/q> <demo%3a3>.\n";
    let (_, heard) = rewrite(input, RdfFormat::Turtle, RdfFormat::NTriples, 1);
    let at = rewrites_at(&heard);
    let expected = [
        ("3:1", "info:fedora/demo%3a1"),
        ("4:3", "info:fedora/demo%3a100"),
        ("3:1", "info:fedora/demo%3a1"),
        ("4:20", "info:fedora/demo%3a10"),
        ("3:1", "info:fedora/demo%3a1"),
        ("5:17", "info:fedora/demo%3a3"),
    ];
    assert_eq!(at, expected.map(|(l, i)| (l.to_owned(), i.to_owned())));
}

#[test]
fn output_is_the_same_on_every_run() {
    let input = "@base <http://example.org/> .\n@prefix dc: <http://purl.org/dc/terms/> .\n\
        <a> dc:relation [ dc:title \"x\" ; dc:source ( <b> <c> ) ] .\n_:kept dc:title \"y\" .\n";
    for to in [
        RdfFormat::Turtle,
        RdfFormat::NTriples,
        RdfFormat::RdfXml,
        RdfFormat::TriG,
    ] {
        let runs: Vec<String> = (0..3)
            .map(|_| rewrite(input, RdfFormat::Turtle, to, 1).0)
            .collect();
        assert_eq!(runs[0], runs[1], "{to}");
        assert_eq!(runs[1], runs[2], "{to}");
        assert!(
            runs[0].contains("kept"),
            "input labels are kept: {}",
            runs[0]
        );
    }
    let (turtle, _) = rewrite(input, RdfFormat::Turtle, RdfFormat::Turtle, 1);
    assert!(
        turtle.contains("@prefix dc: <http://purl.org/dc/terms/> ."),
        "prefixes are written absolute: {turtle}"
    );
    let (xml, _) = rewrite(
        "@prefix unused: <http://unused.example/> .\n<http://ex/s> <http://purl.org/dc/terms/title> \"t\" .\n",
        RdfFormat::Turtle,
        RdfFormat::RdfXml,
        1,
    );
    assert!(!xml.contains("unused"), "no unused namespace: {xml}");
}

#[test]
fn two_inputs_keep_their_made_up_blank_nodes_apart() {
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::Turtle)
        .with_output_format(RdfFormat::NTriples);
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    for _ in 0..2 {
        session
            .rewrite(&b"<http://ex/s> <http://ex/p> [ <http://ex/q> 1 ] .\n"[..])
            .expect("rewrites");
    }
    session.finish().expect("finishes");
    let dataset: Dataset = quads(&String::from_utf8(out).expect("UTF-8"))
        .into_iter()
        .collect();
    assert_eq!(dataset.len(), 4, "two inputs, two distinct blank nodes");
}

#[test]
fn a_byte_order_mark_is_skipped_and_kept_in_line_output() {
    let input = "\u{FEFF}<info:fedora/demo%3a1> <http://ex/p> <http://ex/o> .\n";
    let (out, heard) = rewrite(input, RdfFormat::NTriples, RdfFormat::NTriples, 1);
    assert!(heard.syntax.is_empty(), "{:?}", heard.syntax);
    assert_eq!(
        out,
        "\u{FEFF}<info:fedora/demo:1> <http://ex/p> <http://ex/o> .\n"
    );
    let (out, heard) = rewrite(
        &input.replace("<http", "\n<http").replacen('\n', "", 1),
        RdfFormat::Turtle,
        RdfFormat::NTriples,
        1,
    );
    assert!(heard.syntax.is_empty(), "{:?}", heard.syntax);
    assert_eq!(out, "<info:fedora/demo:1> <http://ex/p> <http://ex/o> .\n");
}

#[test]
fn unchanged_lines_stay_byte_for_byte_even_when_not_utf8() {
    let input = b"<http://ex/s> <http://ex/p> <http://ex/o> . # caf\xe9\n<info:fedora/demo%3a1> <http://ex/p> <http://ex/o> . # caf\xe9\n";
    let rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::NTriples);
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    session
        .rewrite(&input[..])
        .expect("a comment may hold any bytes");
    session.finish().expect("finishes");
    assert_eq!(
        out,
        b"<http://ex/s> <http://ex/p> <http://ex/o> . # caf\xe9\n<info:fedora/demo:1> <http://ex/p> <http://ex/o> . # caf\xe9\n"
    );
}

#[test]
fn named_graphs_into_a_triple_format_say_what_to_do() {
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::TriG)
        .with_output_format(RdfFormat::NTriples);
    let mut session = rewriter.session(Vec::new());
    let error = session
        .rewrite(&b"<http://g/> { <http://ex/s> <http://ex/p> <http://ex/o> . }\n"[..])
        .and_then(|()| session.finish().map(drop))
        .expect_err("N-Triples has no graphs");
    let message = error.to_string();
    // The library's message speaks of formats, not of the command line's options.
    assert!(
        message.contains("<http://g/>") && message.contains("write N-Quads or TriG"),
        "{message}"
    );
    assert!(!message.contains("--"), "{message}");
}

/// A Turtle file of `n` valid statements, one of which (`bad`) is broken in one of several ways.
fn corrupted(n: usize, bad: usize, how: usize) -> (String, usize) {
    let mut text = String::from("@prefix dc: <http://purl.org/dc/terms/> .\n");
    for i in 0..n {
        if i == bad {
            text.push_str(match how % 5 {
                0 => "<http://ex/bad> dc:title \"no end .\n",
                1 => "<http://ex/bad> dc:title <http://ex/a b> .\n",
                2 => "<http://ex/bad> nope:title \"x\" .\n",
                3 => "<http://ex/bad> dc:title \"x\" \n",
                _ => "<http://ex/bad> dc:title ] .\n",
            });
        } else {
            text.push_str(&format!(
                "<info:fedora/demo%3a{i}> dc:relation <hdl://10013/x{i}> .\n"
            ));
        }
    }
    // A statement without its final `.` runs into the next line: that one is lost too.
    let lost = if how % 5 == 3 && bad + 1 < n { 2 } else { 1 };
    (text, n - lost)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_valid_statement_after_a_single_line_error_survives(
        n in 2usize..60, bad in 0usize..60, how in 0usize..5, threads in 1usize..3,
    ) {
        let bad = bad % n;
        let (input, kept) = corrupted(n, bad, how);
        let (out, heard) = rewrite(&input, RdfFormat::Turtle, RdfFormat::NTriples, threads);
        prop_assert!(!heard.syntax.is_empty());
        prop_assert_eq!(out.lines().count(), kept, "{}\n---\n{}", input, out);
        for i in (0..n).filter(|&i| i != bad && !(how % 5 == 3 && i == bad + 1)) {
            let expected = format!("<info:fedora/demo:{i}> <http://purl.org/dc/terms/relation> <hdl:10013/x{i}> .");
            prop_assert!(out.contains(&expected), "{} lost", i);
        }
    }
}

#[test]
fn trusty_nanopublications_are_left_alone_when_asked() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/real/nanopub/signed/simple1-signed-rsa.trig"
    );
    let np = "<http://example.org/nanopub-validator-example/RAsfLND-jtohcyohjKmXL7H4KYEDMLr0g4Yc6-8ATwb10>";
    // A DOI written in a variant spelling inside the nanopublication's assertion.
    let input = std::fs::read_to_string(path).expect("fixture").replace(
        "ex:mosquito ex:transmits ex:malaria .",
        "ex:mosquito ex:transmits <doi:10.1000/ABC> .",
    );
    let run = |keep: bool| {
        let mut rewriter = Rewriter::new(Registry::default())
            .with_input_format(RdfFormat::TriG)
            .with_output_format(RdfFormat::NQuads);
        if keep {
            rewriter = rewriter.keep_signed();
        }
        let warnings = Rc::new(RefCell::new(Vec::new()));
        struct Warnings(Rc<RefCell<Vec<String>>>);
        impl Observer for Warnings {
            fn warning(&mut self, _: Location, message: &str) {
                self.0.borrow_mut().push(message.to_owned());
            }
        }
        let mut out = Vec::new();
        let mut session = rewriter
            .session(&mut out)
            .with_observer(Warnings(warnings.clone()));
        session.rewrite(input.as_bytes()).expect("rewrites");
        let report = session.finish().expect("finishes");
        (
            String::from_utf8(out).expect("UTF-8"),
            report,
            warnings.take(),
        )
    };
    let (out, report, warnings) = run(false);
    assert!(out.contains("<https://doi.org/10.1000/abc>"));
    // One warning per graph changed (the provenance names a DOI too), not per statement.
    let assertion = format!("{}#assertion>", &np[..np.len() - 1]);
    assert!(
        warnings.iter().any(|w| w.contains(&assertion)),
        "{warnings:?}"
    );
    assert!(warnings.len() <= 4, "{warnings:?}");
    let (out, report_kept, warnings) = run(true);
    let mut original: Vec<Quad> = oxttl::TriGParser::new()
        .for_slice(input.as_bytes())
        .collect::<Result<_, _>>()
        .expect("the fixture parses");
    original.sort_by_key(ToString::to_string);
    assert_eq!(quads(&out), original, "every statement as it was");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        report_kept.signed_statements_kept,
        report.statements_written
    );
}

/// Rewrites RDF/XML leniently, strictly read (`strict_rdfxml`) or through the legacy pre-pass.
fn rewrite_rdfxml(input: &str, strict_rdfxml: bool) -> Heard {
    let mut rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::RdfXml)
        .with_output_format(RdfFormat::NTriples)
        .skip_syntax_errors();
    if strict_rdfxml {
        rewriter = rewriter.strict_rdfxml();
    }
    let listener = Listener::default();
    let mut session = rewriter.session(Vec::new()).with_observer(listener.clone());
    session
        .rewrite(input.as_bytes())
        .expect("lenient rewrites go on");
    session.finish().expect("finishes");
    listener.0.take()
}

#[test]
fn rdfxml_findings_are_located_at_the_xml_event_that_completes_the_statement() {
    // The statement of an empty property element is at its start tag; one of a property with
    // text content is completed by its end tag; columns count characters (the `é`).
    let input = r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/terms/">
  <rdf:Description rdf:about="info:fedora/demo%3a1">
    <dc:relation rdf:resource="hdl://10013/x"/>
    <dc:title>Été</dc:title> <dc:relation rdf:resource="hdl:bad name"/>
  </rdf:Description>
</rdf:RDF>
"#;
    for strict in [true, false] {
        let heard = rewrite_rdfxml(input, strict);
        let at = |line, column| Location::new(line, column);
        assert_eq!(
            heard.rewrites,
            [
                (at(4, 5), "info:fedora/demo%3a1".to_owned()),
                (at(4, 5), "hdl://10013/x".to_owned()),
                (at(5, 18), "info:fedora/demo%3a1".to_owned()),
            ],
            "strict: {strict}"
        );
        // The IRI with a space is a syntax error at its element.
        assert_eq!(
            heard.syntax.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
            [at(5, 30)],
            "strict: {strict}"
        );
    }
}

#[test]
fn legacy_rdfxml_is_located_in_the_input_not_in_the_corrected_document() {
    // The pre-pass rewrites `about` into a longer qualified attribute and declares a prefix:
    // offsets in what `oxrdfxml` reads differ from the input's, locations do not.
    let input = "<RDF xmlns=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n  <Description about=\"info:fedora/demo%3a1\"><isMemberOf resource=\"info:fedora/demo%3a2\"/></Description>\n  <Description about=\"info:fedora/demo%3a3\">\n    <isMemberOf resource=\"hdl://10013/x\"/>\n  </Description>\n</RDF>\n";
    let heard = rewrite_rdfxml(input, false);
    let expected = [
        ("2:45", "info:fedora/demo%3a1"),
        ("2:45", "info:fedora/demo%3a2"),
        ("4:5", "info:fedora/demo%3a3"),
        ("4:5", "hdl://10013/x"),
    ];
    assert_eq!(
        rewrites_at(&heard),
        expected.map(|(l, i)| (l.to_owned(), i.to_owned()))
    );
}

/// A brace in a string over several lines opens no graph block: read again after an error,
/// the statements stay in the graph they are in (a scan of its own, line by line, took the
/// string's `<http://g/1> {` for a block and moved the statement after the error into it).
#[test]
fn trig_recovery_is_not_misled_by_a_brace_in_a_long_string() {
    let input = "<http://ex/s> <http://ex/p> \"\"\"x\n<http://g/1> { y\n\"\"\" .\n<http://ex/s> <http://ex/p> <http://ex/a b> .\n<http://ex/d> <http://ex/p> <http://ex/o> .\n";
    let (out, heard) = rewrite(input, RdfFormat::TriG, RdfFormat::NQuads, 1);
    assert_eq!(
        out,
        "<http://ex/s> <http://ex/p> \"x\\n<http://g/1> { y\\n\" .\n<http://ex/d> <http://ex/p> <http://ex/o> .\n"
    );
    assert_eq!(heard.syntax.len(), 1, "{:?}", heard.syntax);
}

/// The statements of N-Quads text as a dataset with its blank nodes canonicalized (the labels
/// a rewrite writes depend on where the blank nodes are).
fn canonical_dataset(nquads: &str) -> Dataset {
    let mut dataset: Dataset = quads(nquads).into_iter().collect();
    dataset.canonicalize(oxrdf::dataset::CanonicalizationAlgorithm::Unstable);
    dataset
}

/// Over every fixture of `format` that `oxttl` reads without error: a bad statement put on a
/// line of its own, wherever a statement can start a line (in a TriG graph block or not, as
/// `oxttl` tells by reading a good statement there), is all that lenient reading loses, on
/// `threads` threads: every other statement stays, in its graph. Gives how many files and
/// places were tried (about 40 places at most in a file).
fn lenient_reading_loses_only_a_bad_line(format: RdfFormat, threads: usize) -> (usize, usize) {
    const BASE: &str = "http://example.org/base/";
    let read = |text: &str| -> Option<usize> {
        let parser = oxttl::TriGParser::new().with_base_iri(BASE).expect("base");
        let parsed: Result<Vec<Quad>, _> = match format {
            RdfFormat::TriG => parser.for_slice(text.as_bytes()).collect(),
            _ => oxttl::TurtleParser::new()
                .with_base_iri(BASE)
                .expect("base")
                .for_slice(text.as_bytes())
                .map(|t| t.map(|t| t.in_graph(oxrdf::GraphName::DefaultGraph)))
                .collect(),
        };
        parsed.ok().map(|quads| quads.len())
    };
    let rewrite = |text: &str| -> (String, usize) {
        let rewriter = Rewriter::new(Registry::default())
            .with_input_format(format)
            .with_output_format(RdfFormat::NQuads)
            .with_base_iri(BASE)
            .expect("base")
            .with_threads(threads)
            .skip_syntax_errors();
        let mut out = Vec::new();
        let mut session = rewriter.session(&mut out);
        session.rewrite(text.as_bytes()).expect("lenient");
        let errors = session.finish().expect("finishes").syntax_errors;
        (String::from_utf8(out).expect("UTF-8"), errors as usize)
    };
    let extension = match format {
        RdfFormat::TriG => "trig",
        _ => "ttl",
    };
    let (mut files, mut tried) = (0, 0);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for path in std::fs::read_dir(&dir)
            .expect("fixtures")
            .flatten()
            .map(|e| e.path())
        {
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != extension) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Some(count) = read(&text) else {
                continue;
            };
            files += 1;
            let (clean, errors) = rewrite(&text);
            assert_eq!(errors, 0, "{}", path.display());
            let clean = canonical_dataset(&clean);
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            // At most about 40 places a file (the real corpus has files of thousands of lines).
            for k in (1..lines.len()).step_by(lines.len().div_ceil(40).max(1)) {
                let (before, after) = (lines[..k].concat(), lines[k..].concat());
                let good = format!("{before}<http://x/s> <http://x/p> <http://x/o> .\n{after}");
                if read(&good) != Some(count + 1) {
                    continue;
                }
                let bad =
                    format!("{before}<http://x/s> <http://x/p> <http://x/bad iri> .\n{after}");
                let (out, errors) = rewrite(&bad);
                let at = format!("{}: bad statement before line {}", path.display(), k + 1);
                assert_eq!(errors, 1, "{at}");
                assert!(canonical_dataset(&out) == clean, "{at}:\n{out}");
                tried += 1;
            }
        }
    }
    (files, tried)
}

#[test]
fn trig_recovery_keeps_every_graph_over_the_fixtures() {
    let (files, tried) = lenient_reading_loses_only_a_bad_line(RdfFormat::TriG, 1);
    assert!(files > 100 && tried > 500, "{files} files, {tried} places");
}

#[test]
fn turtle_recovery_loses_only_the_bad_line_over_the_fixtures() {
    for threads in [1, 2] {
        let (files, tried) = lenient_reading_loses_only_a_bad_line(RdfFormat::Turtle, threads);
        assert!(files > 100 && tried > 500, "{files} files, {tried} places");
    }
}

//! What the differential fuzz targets found (docs/fuzzing.md), each input minimized, run
//! through the same check the target runs (`fuzz/src/differential.rs`, compiled in here); and
//! every input of their corpora, so that a change that breaks an agreement the fuzzer once
//! checked fails here without cargo-fuzz.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)] // the identifier checks belong to tests/fuzz_corpora.rs
mod fuzz;

use fuzz::differential;
use std::path::Path;

/// The check a fuzz target runs on one input.
type Check = fn(&[u8]);

/// Each differential target: its corpus and the check it runs.
const TARGETS: [(&str, Check); 8] = [
    ("turtle_fast_vs_oxttl", differential::turtle_fast_vs_oxttl),
    ("trig_fast_vs_oxttl", differential::trig_fast_vs_oxttl),
    (
        "turtle_fast_vs_oxttl_structured",
        differential::turtle_fast_vs_oxttl_structured,
    ),
    ("turtle_threads", differential::turtle_threads_bytes),
    (
        "ntriples_scanner_vs_oxttl",
        differential::ntriples_scanner_vs_oxttl,
    ),
    ("turtle_lenient", differential::turtle_lenient),
    (
        "rdfxml_legacy_vs_oxrdfxml",
        differential::rdfxml_legacy_vs_oxrdfxml,
    ),
    ("collapse", differential::collapse),
];

#[test]
fn every_corpus_input_agrees() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    for (target, check) in TARGETS {
        let dir = root.join(target);
        let mut inputs = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            check(&std::fs::read(&path).expect("a corpus file"));
            inputs += 1;
        }
        assert!(inputs >= 50, "{target}: only {inputs} inputs");
    }
}

// What the fuzz targets found, minimized (docs/fuzzing.md, "Findings").

/// The fast Turtle path handed on a syntax error with the line `] .` that ends the statement
/// before it (oxttl alone: from the error's line), so `--rejects` got that line too.
#[test]
fn fast_path_error_lines_after_a_statement_ending_with_a_bracket() {
    differential::turtle_fast_vs_oxttl(b"<http://a> <http://b> [\n] .\nbad .\n");
}

/// The fast Turtle path handed on a syntax error with the directive and the comment before it
/// (oxttl alone: from the comment); `oxttl` alone added a line break the input does not have
/// at its end. Both give the input's bytes from the comment on now.
#[test]
fn fast_path_error_lines_after_a_directive() {
    differential::turtle_fast_vs_oxttl(b"<><><>.\n@base<>.\n#.\n(");
}

/// Turtle on two threads (lenient, Turtle out) reported the findings of one thread in another
/// order: an invalid identifier in a bad statement after the statement's syntax error (fixed
/// by 93805ee: nothing of the bad statement is canonicalized).
/// A graph block opened after a SPARQL-style `PREFIX` (no `.` after its IRI): the graph
/// tracker took the IRI for the block's label, and the fast path gave its statements that
/// graph (trig_fast_vs_oxttl, finding 1).
#[test]
fn trig_block_after_a_sparql_prefix_is_the_default_graphs() {
    differential::trig_fast_vs_oxttl(b"PREFIX : <http://example/>\n{\n:a :b 1.0 .\n}\n");
    differential::trig_fast_vs_oxttl(
        b"BASE <http://b/>\n{\n<a> <b> <c> .\nbad .\n<d> <e> <f> .\n}\n",
    );
}

#[test]
fn two_threads_report_what_one_thread_reports() {
    differential::turtle_threads(
        b" a >\n<h//e/p> <hs>\n<http://hdl.handle.net/10> ;# x . \"\r\n<\n",
        true,
        pidcanon::rewrite::RdfFormat::Turtle,
        249,
    );
}

/// `--lenient` Turtle starts again at the line after a syntax error, also inside the bad
/// statement: a line of it that reads as a statement of its own is written (a bad statement
/// that goes on past the line of its error is written whole or not at all).
#[test]
fn lenient_writes_nothing_of_a_bad_statement_over_several_lines() {
    differential::lenient_drops_only_the_bad_statement(
        "<http://a> !! <http://b> <http://c> ,\n[ <http://d> \"\" ] .\n<http://e> <http://f> <http://g> .\n",
        "<http://e> <http://f> <http://g> .\n",
        "the first statement has `!!` in it",
    );
}

/// `--lenient` passed over a bad statement up to its end, a directive on a later line
/// included: the prefix it redefines kept its old namespace for every name after it
/// (turtle_lenient, finding 9: `<http://a b>` put after a statement's `.`, then a line break
/// — a lone CR — and `@prefix ex: <http://example.org/> .`). A directive that starts a line
/// ends the bad statement before it; on two threads too.
#[test]
fn a_bad_statement_ends_before_a_directive_starting_a_line() {
    let clean_tail = "@prefix ex: <http://two/> .\nex:d ex:e ex:f .\n";
    for (bad, line_break) in [
        ("<http://a b> ", "\n"),
        ("<http://a b> ", "\r"),
        ("ex:a ex:b", "\n"),
    ] {
        let head = "@prefix ex: <http://one/> .\nex:a ex:b ex:c .\n";
        let text = format!("{head}{bad}{line_break}{clean_tail}");
        differential::lenient_drops_only_the_bad_statement(
            &text,
            &format!("{head}{clean_tail}"),
            &format!("{bad:?} before a directive"),
        );
        differential::turtle_threads(
            text.as_bytes(),
            true,
            pidcanon::rewrite::RdfFormat::NTriples,
            1,
        );
    }
    // A SPARQL-style directive has no `.`: without the fix the bad statement ran to the end.
    let text =
        "@prefix ex: <http://one/> .\nex:a ex:b\nPREFIX ex: <http://two/>\nex:d ex:e ex:f .\n";
    differential::lenient_drops_only_the_bad_statement(
        text,
        "@prefix ex: <http://one/> .\nPREFIX ex: <http://two/>\nex:d ex:e ex:f .\n",
        "an unfinished statement before PREFIX",
    );
    differential::turtle_threads(
        text.as_bytes(),
        true,
        pidcanon::rewrite::RdfFormat::NTriples,
        1,
    );
}

/// A statement that the next one follows without a space after its `.` (`<rel> .ex:a`) was not
/// known to end there, so under `--lenient` an error in the next one dropped it too
/// (turtle_lenient, finding 10). On two threads too. Where `oxttl` hands on the statement's
/// last triple only once it has read the byte after the `.` (after a literal: `"c".ex:a^^`),
/// that triple came with the error and was dropped with the bad statement.
#[test]
fn a_statement_glued_to_a_bad_one_is_kept() {
    let head = "@prefix ex: <http://one/> .\n";
    let tail = "ex:d ex:e ex:f .\n";
    for (good, bad) in [
        ("ex:a ex:b ex:c .", "ex:x !! ex:y .\n"),
        ("ex:a ex:b <http://c>.", "<http://x y> ex:p ex:o .\n"),
        ("ex:a ex:b [ ex:p ex:o ].", "ex:a^^ ex:p ex:o .\n"),
        ("ex:a ex:b ( 1 ).", "!! ex:p ex:o .\n"),
        ("ex:a ex:b \"c\".", "ex:a^^ ex:p ex:o .\n"),
        ("ex:a ex:b 'c'@en.", "ex:a^^ ex:p ex:o .\n"),
        ("ex:a ex:b \"\"\"c\"\"\"^^ex:t.", ")( .\n"),
        ("ex:a ex:b ex:c, 'd'.", "\"\\q\" .\n"),
    ] {
        let text = format!("{head}{good}{bad}{tail}");
        differential::lenient_drops_only_the_bad_statement(
            &text,
            &format!("{head}{good}\n{tail}"),
            &format!("{bad:?} right after {good:?}"),
        );
        differential::turtle_threads(
            text.as_bytes(),
            true,
            pidcanon::rewrite::RdfFormat::NTriples,
            1,
        );
    }
}

/// On several threads, a piece is read with the lines since the last statement of the piece
/// before it; the tags there were taken already, but the search for a literal's written tag
/// started at the piece's start, so `";;"@en--ltr` took the `@EN` of the statement before it
/// (turtle_threads, finding 17). The search starts after that context now.
#[test]
fn a_piece_takes_no_tag_of_the_piece_before_it() {
    let text = "@prefix ex: <http://example.org/> .\n\
        <http://example.org/s> ex:a \";;\"@EN . # end\n\
        <http://example.org/s> ex:a \";;\"@en--ltr .\n\
        <http://example.org/s> ex:a \";;\"@En .\n";
    for piece in [1, 9, 41, 73] {
        for output in [
            pidcanon::rewrite::RdfFormat::Turtle,
            pidcanon::rewrite::RdfFormat::NTriples,
        ] {
            differential::turtle_threads(text.as_bytes(), false, output, piece);
            differential::turtle_threads(text.as_bytes(), true, output, piece);
        }
    }
}

/// A bad statement whose bad token is a long string spanning lines: `oxttl` reports the error
/// at the token's start, on the line before the one it was read on, and the reader started
/// again at the line after that start — inside the bad statement, whose rest then read as a
/// long string opened, swallowing the statements after it (turtle_lenient, finding 16).
#[test]
fn a_bad_token_over_two_lines_is_passed_over_from_its_end() {
    let head = "PREFIX ex: <http://example.org/>\rex:a ex:b ex:c .\r";
    let tail = "_:b.c ex:a\\.b \"x\" . # end\rex:1 ex:p \"\"\"\u{e9}\n\"\"\" . # end\r";
    for (bad, clean) in [
        (
            "ex:s <> [ \"\"\"\n\"\"\"^^<http://example.org/s> . # end\r",
            "",
        ),
        ("ex:s <> !! \"\"\"a\r\nb\"\"\" ; ex:p ( 1 ) . # end\r", ""),
        ("ex:s <> \"\"\"a\nb\"\"\" ex:q . # end\n", ""),
    ] {
        let text = format!("{head}{bad}{tail}");
        differential::lenient_drops_only_the_bad_statement(
            &text,
            &format!("{head}{clean}{tail}"),
            &format!("{bad:?}"),
        );
        differential::turtle_threads(
            text.as_bytes(),
            true,
            pidcanon::rewrite::RdfFormat::NTriples,
            1,
        );
    }
}

/// A `\U` escape with a quote among the eight bytes after it (`"a\U000ct" ;`): `oxttl` takes
/// the eight bytes (an error, and the string goes on), the light scan took the quote for the
/// string's end, so the fast path read the next line as a statement of its own while `oxttl`
/// was still in the string (turtle_fast_vs_oxttl, finding 11).
#[test]
fn an_escape_takes_its_bytes_as_oxttl_reads_them() {
    differential::turtle_fast_vs_oxttl(
        b"<http://s> <http://p> \"a\\U000ct\" ;\n   <http://q> <http://o> .\n<http://s2> <http://p> <http://o> .\n",
    );
    differential::turtle_fast_vs_oxttl(
        b"<http://s> <http://p> \"a\\u0t\" .\n<http://s2> <http://p> <http://o> .\n",
    );
    // In an IRI too (finding 13): `oxttl` takes `>.\n<urn:` after `\U`, and the IRI goes on.
    differential::turtle_fast_vs_oxttl(
        b"<http://s> <http://p> <http://a\\U>.\n<urn:s> <urn:p> <g>.\n",
    );
    differential::turtle_fast_vs_oxttl(
        b"<http://s> <http://p> <http://a\\u>.\n<urn:s> <urn:p> <g>.\n",
    );
}

/// A literal's language tag takes the case it is written with; the reader took it from the
/// first tag of that name in the statement's lines, so `"y"@en` after `"x"@EN` on the same
/// line (or in the same statement) was written `"y"@EN` (turtle_lenient, finding 12: in the
/// lines read again after an error, but the strict reading did it too). The tag after the
/// literal's own string is taken, the first after the last tag taken: two literals of one
/// value tagged in two cases keep each its own.
#[test]
fn a_language_tag_keeps_its_own_case() {
    for (text, tags) in [
        (
            "<http://a> <http://b> \"x\"@EN . <http://c> <http://d> \"y\"@en .\n",
            &["\"x\"@EN", "\"y\"@en"][..],
        ),
        (
            "<http://a> <http://b> \"x\"@EN ;\n <http://d> \"y\"@en .\n",
            &["\"x\"@EN", "\"y\"@en"],
        ),
        (
            "<http://a> <http://b> \"\"\"x\"\"\"@EN, 'y' @en .\n",
            &["\"x\"@EN", "\"y\"@en"],
        ),
        (
            "<http://a> <http://b> \"x\"@EN, \"x\"@en, 'x'@En .\n",
            &["\"x\"@EN", "\"x\"@en", "\"x\"@En"],
        ),
        (
            "<http://a> <http://b> \"x\"@en ;\n <http://c> [ <http://d> \"x\"@EN ] .\n",
            &["\"x\"@en", "\"x\"@EN"],
        ),
        (
            "<http://a> <http://b> ( \"x\"@en-GB \"x\"@EN-gb ) .\n",
            &["\"x\"@en-GB", "\"x\"@EN-gb"],
        ),
        // A base direction (RDF 1.2) after the tag: kept, and the tag is the literal's own, not
        // an earlier statement's of that name in another case (finding 15).
        (
            "<http://a> <http://b> \";;\"@EN .\n@prefix ex: <http://e/> .\n<http://a> <http://b> \"\"@en--ltr, \"y\"@En--rtl .\n",
            &["\";;\"@EN", "\"\"@en--ltr", "\"y\"@En--rtl"],
        ),
        (
            "<http://a> <http://b> \"x\"@EN .\n<http://a> <http://b> \"\\u0078\"@en .\n",
            &["\"x\"@EN", "\"x\"@en"],
        ),
    ] {
        let rewriter = pidcanon::rewrite::Rewriter::new(pidcanon::Registry::default())
            .with_input_format(pidcanon::rewrite::RdfFormat::Turtle)
            .with_output_format(pidcanon::rewrite::RdfFormat::NTriples);
        let mut out = Vec::new();
        let mut session = rewriter.session(&mut out);
        session.rewrite(text.as_bytes()).expect("Turtle");
        session.finish().expect("finishes");
        let out = String::from_utf8(out).expect("UTF-8");
        let written: Vec<&str> = out
            .lines()
            .filter_map(|line| line.find(" \"").map(|at| &line[at + 1..line.len() - 2]))
            .collect();
        assert_eq!(written, tags, "{text:?} gave {out:?}");
    }
}

/// Turtle on two threads told none of the rewrites of the statements before a syntax error
/// that stops the rewrite; one thread tells them.
#[test]
fn two_threads_tell_the_rewrites_before_a_syntax_error_that_stops() {
    differential::turtle_threads(
        b"<info:fedora/demo%3a1> <http://p> <http://o> .\n<http://a\0> <http://p> <http://o> .\n",
        false,
        pidcanon::rewrite::RdfFormat::NTriples,
        1,
    );
}

/// A statement's `.` found only once the next lines came (the scan waits for six bytes after a
/// statement's start to tell a keyword) was told at a place past what had been scanned: an
/// overflow (CI's fuzz run, turtle_fast_vs_oxttl_structured).
#[test]
fn a_statement_end_found_lines_after_its_dot() {
    differential::turtle_fast_vs_oxttl(
        b"PREFIX ex: <http://example.org/>\r<info:fedora/demo%3a1> <info:fedora/demo:1> \"\n\"\r  .\r(\r\"\n\" \"\n\" ) undeclared:a \"\n\" . # end\r",
    );
}

/// A Turtle input that ends with a `\` in a string, read on two threads: the scan that cuts it
/// into pieces stepped past its end (CI's fuzz run, turtle_threads).
#[test]
fn an_input_ending_with_a_backslash_in_a_string_is_cut_without_stepping_past_its_end() {
    differential::turtle_threads_bytes(b"\x02PREFIX : <http://example/>\n:s :p \"\\uD83C\\");
}

/// A property with a `parseType` other than `Literal`, `Resource`, `Collection` (and RDF 1.2's
/// `Triple`) holds an XML literal (RDF/XML Syntax §7.2.20, parseTypeOtherPropertyElt), as
/// `oxrdfxml` reads it; the legacy pre-pass read its content as RDF and qualified an unqualified
/// `resource` there, beside an `rdf:resource`: a duplicated attribute where `oxrdfxml` read the
/// document (rdfxml_legacy_vs_oxrdfxml, after 3 million executions).
#[test]
fn content_of_an_unknown_parse_type_is_a_literal_to_the_legacy_pre_pass() {
    differential::rdfxml_legacy_vs_oxrdfxml(
        b"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:dams=\"p:\"> <dams:><dams: rdf:parseType=\"\"> < rdf:resource=\"i\"resource=\"\">\n M",
    );
    differential::rdfxml_legacy_vs_oxrdfxml(
        b"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:e=\"http://e/\"><rdf:Description rdf:about=\"http://e/s\"><e:p rdf:parseType=\"Other\"><e:q resource=\"http://e/o\" about=\"x\"/></e:p></rdf:Description></rdf:RDF>",
    );
}

/// Finding 19 (docs/fuzzing.md): a term glued to the `.` ending its statement (`5.`) was taken
/// for the label of the `{` block after it by the graph tracker, so that after an unterminated
/// string at the end of the block `oxttl` was started again in a graph named `5.` ("5 is not a
/// valid subject or graph name"), the fast path in the default graph's block.
#[test]
fn an_unterminated_string_ending_a_trig_block_reports_the_errors_oxttl_reports() {
    differential::trig_fast_vs_oxttl(b"prefix :<>: : 5.\n{\n: : \".");
}

/// Finding 20: a `}` ending the input, without a line break, after a bad token at the start of
/// its line (`\x0c}`): the graph tracker started again in the block waited for bytes after the
/// `}` that never came and kept the block open, so that `oxttl`, started again in it, reported
/// an "Unexpected end" that `oxttl` alone does not.
#[test]
fn a_brace_ending_the_input_after_a_bad_token_closes_the_block() {
    differential::trig_fast_vs_oxttl(b"PREFIX :<e>.\n{: :p : .\n\x0c}");
    differential::trig_fast_vs_oxttl(b"PREFIX : <http://e/>\n{\n:s :p :o .\n\x0c}");
}

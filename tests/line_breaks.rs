//! One definition of a line break for every reader and counter: LF, CRLF, or a CR alone (as
//! Turtle's `EOL` and `oxttl` have it). A document gives the same statements, and its findings
//! the same lines, whichever of the three ends its lines — on one thread and on several.

mod common;

use common::{Heard, same_findings as same};
use pidcanon::Registry;
use pidcanon::rewrite::{RdfFormat, Rewriter};

/// Turtle to N-Triples on `threads` threads, bad statements skipped: the output, and what was
/// heard.
fn rewrite(input: &[u8], threads: usize) -> (String, Vec<String>) {
    rewrite_from(RdfFormat::Turtle, input, threads)
}

/// [`rewrite`] from `format`.
fn rewrite_from(format: RdfFormat, input: &[u8], threads: usize) -> (String, Vec<String>) {
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(format)
        .with_output_format(RdfFormat::NTriples)
        .skip_syntax_errors()
        .with_threads(threads);
    let heard = Heard::default();
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out).with_observer(heard.clone());
    session.rewrite(input).expect("rewrites");
    session.finish().expect("finishes");
    let heard = heard.0.take();
    (String::from_utf8(out).expect("UTF-8"), heard)
}

/// About 2 MB of Turtle (several pieces for the parallel parser): comments ending lines, long
/// strings over several lines holding what looks like statements, `@prefix` redefined after
/// a bad statement, and bad statements.
fn document() -> String {
    let mut out = String::from("# a document\n@prefix dc: <http://purl.org/dc/terms/> .\n");
    for i in 0..8_000 {
        if i % 1_000 == 500 {
            out.push_str(&format!("<bad{i}> dc:title <a b> .\n"));
            out.push_str(&format!("@prefix dc: <http://example.org/v{i}/> .\n"));
        }
        out.push_str(&format!(
            "# record {i}\n<info:fedora/demo%3a{i}> dc:relation <hdl://10013/X{i}> ; # a comment\n    \
             dc:description \"\"\"x\nend .\n<http://e/c> <http://e/d> <http://e/e> .\n\"\"\" ;\n    \
             dc:creator [ dc:name 'Name {i}' ] .\n"
        ));
    }
    out
}

/// An N-Triples output's escaped line breaks, all as `\n`: a literal keeps the line breaks
/// its lines were written with.
fn same_breaks(output: &str) -> String {
    output.replace("\\r\\n", "\\n").replace("\\r", "\\n")
}

#[test]
fn each_line_end_gives_the_same_statements_and_lines_on_any_number_of_threads() {
    let document = document();
    let (expected, heard) = rewrite(document.as_bytes(), 1);
    let errors: Vec<&String> = heard.iter().filter(|h| h.contains("Skipped")).collect();
    assert_eq!(errors.len(), 8, "{errors:?}");
    assert!(expected.contains("<info:fedora/demo:7999> <http://example.org/v7500/relation>"));
    assert_eq!(
        expected
            .matches("<http://e/c> <http://e/d> <http://e/e>")
            .count(),
        8_000
    );
    for end in ["\n", "\r", "\r\n"] {
        let text = document.replace('\n', end);
        for threads in [1, 2] {
            let (out, heard_here) = rewrite(text.as_bytes(), threads);
            assert!(
                same_breaks(&out) == expected,
                "line ends {end:?}, {threads} threads: the statements differ"
            );
            same(
                &heard,
                &heard_here,
                &format!("line ends {end:?}, {threads} threads"),
            );
        }
    }
}

/// A lone CR ending a comment ends it: the long string opened after it is one literal.
#[test]
fn a_lone_cr_ending_a_comment_does_not_hide_a_long_string() {
    let input = "# c\r<http://e/a> <http://e/b> \"\"\"x\nend .\n<http://e/c> <http://e/d> <http://e/e> .\n\"\"\" .\n";
    for threads in [1, 2] {
        let (out, heard) = rewrite(input.as_bytes(), threads);
        assert_eq!(
            out,
            "<http://e/a> <http://e/b> \"x\\nend .\\n<http://e/c> <http://e/d> <http://e/e> .\\n\" .\n",
            "{threads} threads"
        );
        assert!(heard.is_empty(), "{heard:?}");
    }
}

/// Lone CRs before a bad statement: the error is on its line, and reading starts again on the
/// line after it — a `@prefix` declared again there applies.
#[test]
fn lone_crs_before_a_bad_statement_do_not_shift_the_restart() {
    let input = "@prefix ex: <http://e/> .\r\r\rex:a ex:b <bad iri> .\n@prefix ex: <http://f/> .\nex:x ex:y ex:z .\n";
    for threads in [1, 2] {
        let (out, heard) = rewrite(input.as_bytes(), threads);
        assert_eq!(out, "<http://f/x> <http://f/y> <http://f/z> .\n");
        assert_eq!(heard.len(), 1, "{heard:?}");
        assert!(heard[0].starts_with("4:"), "{heard:?}");
    }
}

/// N-Triples to N-Triples line by line: a line ended by a CR alone is a line of its own (its
/// identifiers rewritten, its errors on its line), and every line keeps its bytes.
#[test]
fn n_triples_lines_ended_by_a_lone_cr_are_lines_of_their_own() {
    let document: String = (0..2_000)
        .map(|i| {
            if i % 100 == 50 {
                format!("<bad{i}> <http://e/p> <http://e/o> .\n")
            } else {
                format!("<info:fedora/demo%3a{i}> <http://e/p> \"x{i}\" .\n")
            }
        })
        .collect();
    let rewrite =
        |input: &str, threads| rewrite_from(RdfFormat::NTriples, input.as_bytes(), threads);
    let (expected, heard) = rewrite(&document, 1);
    assert_eq!(
        heard.iter().filter(|h| h.contains("syntax error")).count(),
        20
    );
    assert!(expected.contains("<info:fedora/demo:1999> <http://e/p> \"x1999\" .\n"));
    for end in ["\r", "\r\n"] {
        for threads in [1, 2] {
            let (out, heard_here) = rewrite(&document.replace('\n', end), threads);
            assert!(
                out == expected.replace('\n', end),
                "line ends {end:?}, {threads} threads: the lines differ"
            );
            same(
                &heard,
                &heard_here,
                &format!("line ends {end:?}, {threads} threads"),
            );
        }
    }
}

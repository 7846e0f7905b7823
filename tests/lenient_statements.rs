//! `--lenient` Turtle writes a statement whole or not at all: nothing of a bad statement reaches
//! the output (no triple of a `[ … ]` or a collection read before the error), the rejects get
//! the bad statement from its start, and the statements after it on its line are kept — on one
//! thread and on several.

mod common;

/// `pidcanon rewrite --lenient --reject REJECTS --to nt` of `input` (Turtle) on `threads`
/// threads: the output, and the rejects.
fn lenient(input: &str, threads: usize) -> (String, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rejects = dir.path().join("rejects.ttl");
    let threads = threads.to_string();
    let rejects_arg = rejects.to_str().expect("UTF-8");
    let out = common::run_pidcanon(
        &[
            "rewrite",
            "-q",
            "--lenient",
            "-i",
            "ttl",
            "--to",
            "nt",
            "--threads",
            &threads,
            "--reject",
            rejects_arg,
        ],
        input.as_bytes(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rejected = std::fs::read_to_string(&rejects).expect("the rejects");
    (String::from_utf8(out.stdout).expect("UTF-8"), rejected)
}

const PREFIX: &str = "@prefix ex: <http://e/> .\n";

#[test]
fn nothing_of_a_bad_blank_node_or_collection_is_written() {
    for threads in [1, 2] {
        let (out, rejected) = lenient(
            &format!(
                "{PREFIX}ex:a ex:p [ ex:q \"x\" ; ex:r <bad iri> ] .\n\
                 ex:b ex:p ( ex:c ex:d <bad iri> ) .\nex:z ex:p ex:o .\n"
            ),
            threads,
        );
        assert_eq!(
            out, "<http://e/z> <http://e/p> <http://e/o> .\n",
            "{threads}"
        );
        assert_eq!(
            rejected,
            "ex:a ex:p [ ex:q \"x\" ; ex:r <bad iri> ] .\nex:b ex:p ( ex:c ex:d <bad iri> ) .\n"
        );
    }
}

#[test]
fn the_rejects_get_a_bad_statement_from_its_first_line_and_nothing_of_it_is_written() {
    for threads in [1, 2] {
        let (out, rejected) = lenient(
            &format!(
                "{PREFIX}ex:y ex:p ex:o .\nex:s ex:p ex:o1 ;\n  ex:q ex:o2 ;\n  ex:r <bad iri> .\n\
                 ex:z ex:p ex:o .\n"
            ),
            threads,
        );
        assert_eq!(
            out,
            "<http://e/y> <http://e/p> <http://e/o> .\n<http://e/z> <http://e/p> <http://e/o> .\n"
        );
        assert_eq!(
            rejected,
            "ex:s ex:p ex:o1 ;\n  ex:q ex:o2 ;\n  ex:r <bad iri> .\n"
        );
    }
}

#[test]
fn statements_after_a_bad_one_on_its_line_are_kept() {
    for threads in [1, 2] {
        let (out, rejected) = lenient(
            &format!(
                "{PREFIX}ex:e ex:p ex:o . ex:f ex:p <bad iri> . ex:g ex:p ex:o .\n\
                 ex:h ex:p ex:o . ex:i ex:p ex:x . ex:j ex:p ex:o . ex:k ex:p <b d> .\n"
            ),
            threads,
        );
        assert_eq!(
            out,
            "<http://e/e> <http://e/p> <http://e/o> .\n<http://e/g> <http://e/p> <http://e/o> .\n\
             <http://e/h> <http://e/p> <http://e/o> .\n<http://e/i> <http://e/p> <http://e/x> .\n\
             <http://e/j> <http://e/p> <http://e/o> .\n"
        );
        assert_eq!(rejected, "ex:f ex:p <bad iri> . \nex:k ex:p <b d> .\n");
    }
}

#[test]
fn nothing_of_a_bad_statement_going_on_past_its_error_line_is_written() {
    for threads in [1, 2] {
        let (out, rejected) = lenient(
            "<http://a> !! <http://b> <http://c> ,\n[ <http://d> \"\" ] .\n\
             <http://e> <http://f> <http://g> .\n",
            threads,
        );
        assert_eq!(out, "<http://e> <http://f> <http://g> .\n", "{threads}");
        assert_eq!(
            rejected,
            "<http://a> !! <http://b> <http://c> ,\n[ <http://d> \"\" ] .\n"
        );
    }
}

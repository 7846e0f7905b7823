//! Blank nodes are scoped to their document: a label written in a run's first input is kept as
//! written, always, and one written in a later input is made that input's own; the labels made
//! up for `[]` and collections differ from one document to the next (each document's base IRI —
//! a file's own URL — and number in the run seed them). Every label is the same on every run of
//! the same inputs, and on every path (one thread or two, lines or a serializer).

mod common;

use common::Dir;
use std::path::Path;

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8")
}

/// `pidcanon rewrite -q ARGS --to nt`: its output.
fn rewrite(args: &[&str]) -> String {
    let mut all = vec!["rewrite", "-q", "--to", "nt"];
    all.extend_from_slice(args);
    let out = common::run_pidcanon(&all, b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The blank-node labels of N-Triples `text`, in order of appearance, each once.
fn labels(text: &str) -> Vec<&str> {
    let mut labels: Vec<&str> = Vec::new();
    for word in text.split_whitespace() {
        if let Some(label) = word.strip_prefix("_:")
            && !labels.contains(&label)
        {
            labels.push(label);
        }
    }
    labels
}

#[test]
fn a_written_label_that_looks_made_up_is_kept_after_any_number_of_made_up_nodes() {
    let dir = Dir::new("blank-written");
    let mut text = String::from("@prefix ex: <http://e/> .\n_:abcdef0123456789a ex:p ex:first .\n");
    for _ in 0..131_100 {
        text.push_str("ex:s ex:q [] .\n");
    }
    text.push_str("_:abcdef0123456789a ex:p ex:last .\n");
    let input = dir.file("big.ttl", &text);
    for threads in ["1", "2"] {
        let out = rewrite(&["--threads", threads, p(&input)]);
        assert_eq!(
            out.matches("_:abcdef0123456789a <http://e/p>").count(),
            2,
            "{threads} threads"
        );
    }
}

#[test]
fn made_up_labels_differ_between_documents_and_not_between_runs() {
    let dir = Dir::new("blank-made-up");
    let text = "@prefix ex: <http://e/> .\nex:a ex:p [ ex:q ( ex:r ) ] .\n";
    let a = dir.file("a.ttl", text);
    let b = dir.file("b.ttl", text);
    let (a, b) = (p(&a), p(&b));
    let one = rewrite(&[a]);
    assert_eq!(one, rewrite(&[a]), "the same input gives the same bytes");
    let other = rewrite(&[b]);
    assert_eq!(labels(&one).len(), 2);
    for label in labels(&one) {
        assert!(
            !labels(&other).contains(&label),
            "{label} in both documents"
        );
    }
    // Both in one run: the second document's nodes are its own.
    let both = rewrite(&[a, b]);
    assert_eq!(labels(&both).len(), 4, "{both}");
    // A document on stdin takes its made-up labels from --base.
    let stdin = |base: &str| {
        let out = common::run_pidcanon(
            &["rewrite", "-q", "-i", "ttl", "--to", "nt", "--base", base],
            text.as_bytes(),
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    assert_ne!(
        labels(&stdin("http://e/1"))[0],
        labels(&stdin("http://e/2"))[0]
    );
}

/// The lines of `text` that hold `needle`.
fn lines_with<'t>(text: &'t str, needle: &str) -> Vec<&'t str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn labels_written_in_two_inputs_stay_two_nodes_on_every_path() {
    let dir = Dir::new("blank-written-two");
    let a = "_:b1 <http://e/p> \"a\" .\n_:b1 <http://e/q> _:b2 .\n";
    let b = "_:b1 <http://e/p> \"b\" .\n<http://e/s> <http://e/q> _:b1 .\n_:b.1 <http://e/p> \"_:b1\" . # _:b1\n";
    let (a_nt, b_nt) = (dir.file("a.nt", a), dir.file("b.nt", b));
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        for format in ["nt", "ttl"] {
            let out = rewrite(&["--threads", threads, "-i", format, p(&a_nt), p(&b_nt)]);
            // (Comments are written by the N-Triples path only.)
            outputs.push(out.replace(" # _:b1", ""));
        }
    }
    let out = &outputs[0];
    // The first input as written, byte for byte.
    assert!(out.starts_with(a), "{out}");
    // The second input's `_:b1`: one node of its own, in both its statements.
    let second = &rewrite(&[p(&a_nt), p(&b_nt)])[a.len()..];
    let without_comment = second.replace(" # _:b1", "");
    let own = labels(&without_comment);
    assert_eq!(own.len(), 2, "{second}");
    assert!(!own.contains(&"b1") && !own.contains(&"b2") && !own.contains(&"b.1"));
    assert_eq!(lines_with(second, own[0]).len(), 2, "{second}");
    // Literals and comments are not labels.
    assert!(second.contains("\"_:b1\" . # _:b1"), "{second}");
    for (n, other) in outputs.iter().enumerate() {
        assert_eq!(
            labels(other)[2..],
            own[..],
            "path {n}: the same labels as N-Triples on one thread"
        );
    }
    // A serializer writes the same labels.
    let ttl = common::run_pidcanon(&["rewrite", "-q", "--to", "ttl", p(&a_nt), p(&b_nt)], b"");
    let ttl = String::from_utf8(ttl.stdout).expect("UTF-8");
    assert!(ttl.contains(&format!("_:{}", own[0])), "{ttl}");
}

#[test]
fn a_loop_over_files_numbered_with_first_input_gives_what_one_run_gives() {
    let dir = Dir::new("blank-first-input");
    let text = "@prefix ex: <http://e/> .\n_:b1 ex:p [ ex:q ( ex:r ) ] .\n";
    let (a, b) = (dir.file("a.ttl", text), dir.file("b.ttl", text));
    let one_run = rewrite(&[p(&a), p(&b)]);
    let looped = rewrite(&[p(&a)]) + &rewrite(&["--first-input", "2", p(&b)]);
    assert_eq!(looped, one_run);
    assert_eq!(labels(&one_run).len(), 6, "{one_run}");
    let refused = common::run_pidcanon(&["rewrite", "--first-input", "0", p(&a)], b"");
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn a_bad_line_of_a_later_input_is_passed_through_as_written() {
    let dir = Dir::new("blank-bad-line");
    let a = dir.file("a.nt", "_:b1 <http://e/p> \"a\" .\n");
    let bad = "_:b1 <http://e/p> \"b\n";
    let b = dir.file("b.nt", &format!("{bad}_:b1 <http://e/p> \"c\" .\n"));
    for threads in ["1", "2"] {
        let out = rewrite(&["--lenient", "--threads", threads, p(&a), p(&b)]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "_:b1 <http://e/p> \"a\" .");
        assert_eq!(format!("{}\n", lines[1]), bad, "{threads} threads");
        assert!(!lines[2].starts_with("_:b1 "), "{threads} threads: {out}");
    }
}

#[test]
fn a_later_turtle_input_read_in_pieces_on_two_threads_gets_the_same_labels_as_on_one() {
    let dir = Dir::new("blank-pieces");
    let a = dir.file("a.ttl", "<http://e/a> <http://e/p> _:b1 .\n");
    let mut text = String::from("@prefix ex: <http://e/> .\n");
    for n in 0..40_000 {
        text.push_str(&format!(
            "_:b{n} ex:p \"{n}\" ; ex:q [ ex:r _:b{} ] .\n",
            n / 2
        ));
    }
    let b = dir.file("b.ttl", &text);
    let one = rewrite(&["--threads", "1", p(&a), p(&b)]);
    let two = rewrite(&["--threads", "2", p(&a), p(&b)]);
    assert_eq!(one, two);
    assert_eq!(one.matches("_:b").count(), 1, "only the first input's _:b1");
}

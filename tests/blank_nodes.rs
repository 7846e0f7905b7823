//! Blank nodes are scoped to their document: a label written in the input is kept as written,
//! always; the labels made up for `[]` and collections differ from one document to the next
//! (each document's base IRI — a file's own URL — and number in the run seed them) and are the
//! same on every run of the same input.

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
    for word in text.split(' ') {
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

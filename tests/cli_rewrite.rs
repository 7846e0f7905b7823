//! `pidcanon rewrite` and `pidcanon check` end to end: stdin and stdout, files, every format
//! pair, links, map, dedup, lenient and strict, exit statuses, no partial output on failure.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const NT: &str = "\
# a comment stays
<info:fedora/demo%3a1> <http://purl.org/dc/terms/relation> <hdl://10013/x> .
<info:fedora/demo:1> <http://purl.org/dc/terms/title> \"Caf\\u00E9\"@EN .

<http://dx.doi.org/10.1000/ABC> <http://example.org/p> \"x\"^^<http://dx.doi.org/10.1/X> . # <hdl:1/2>
<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/x> .
";

const NT_REWRITTEN: &str = "\
# a comment stays
<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/x> .
<info:fedora/demo:1> <http://purl.org/dc/terms/title> \"Caf\\u00E9\"@EN .

<https://doi.org/10.1000/abc> <http://example.org/p> \"x\"^^<http://dx.doi.org/10.1/X> . # <hdl:1/2>
<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/x> .
";

use common::Dir;

fn run(args: &[&str], stdin: &str) -> Output {
    common::run_pidcanon(args, stdin.as_bytes())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

#[test]
fn ntriples_lines_change_only_in_rewritten_iris() {
    let out = run(&["rewrite", "-q", "-i", "nt"], NT);
    assert_eq!(text(&out.stdout), NT_REWRITTEN);
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "-q prints nothing: {}",
        text(&out.stderr)
    );
}

#[test]
fn stdin_defaults_to_nquads_and_the_summary_goes_to_stderr() {
    let out = run(&["rewrite"], NT);
    assert_eq!(text(&out.stdout), NT_REWRITTEN);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "4 statements read, 4 written; 3 IRIs rewritten (fedora-object 1, handle 1, doi 1)"
        ),
        "{stderr}"
    );

    let out = run(&["rewrite", "--report", "json"], NT);
    let report: serde_json::Value = serde_json::from_slice(&out.stderr).expect("JSON on stderr");
    assert_eq!(report["statements_read"], 4);
    assert_eq!(report["rewritten"]["doi"], 1);
    assert_eq!(report["bytes_read"], NT.len());
}

#[test]
fn files_in_and_out_with_links_map_and_dedup() {
    let dir = Dir::new("files");
    let input = dir.file("in.nt", NT);
    let (output, links, map) = (
        dir.path("out.nt"),
        dir.path("links.nt"),
        dir.path("map.tsv"),
    );
    let out = run(
        &[
            "rewrite",
            "-q",
            "--dedup",
            "-o",
            p(&output),
            "--links",
            p(&links),
            "--map",
            p(&map),
            p(&input),
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let expected: String = NT_REWRITTEN
        .lines()
        .take(5)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        std::fs::read_to_string(&output).expect("output"),
        expected,
        "the duplicate last line is dropped"
    );
    assert_eq!(
        std::fs::read_to_string(&links).expect("links"),
        "<info:fedora/demo%3a1> <http://www.w3.org/2002/07/owl#sameAs> <info:fedora/demo:1> .\n\
         <hdl://10013/x> <http://www.w3.org/2002/07/owl#sameAs> <hdl:10013/x> .\n\
         <http://dx.doi.org/10.1000/ABC> <http://www.w3.org/2002/07/owl#sameAs> <https://doi.org/10.1000/abc> .\n"
    );
    assert_eq!(
        std::fs::read_to_string(&map).expect("map"),
        "info:fedora/demo%3a1\tinfo:fedora/demo:1\tfedora-object\nhdl://10013/x\thdl:10013/x\thandle\n\
         http://dx.doi.org/10.1000/ABC\thttps://doi.org/10.1000/abc\tdoi\n"
    );
    assert_eq!(dir.entries(), 4, "no temporary file is left");
}

/// `--dedup` knows a statement, not its spelling: the same statement written in the shape most
/// lines have (hashed as it stands) and in others (escapes, spaces, `^^xsd:string`, a comment:
/// parsed) is written once, on the line path and on the serializer path alike.
#[test]
fn dedup_drops_the_same_statement_whatever_its_spelling() {
    let input = "\
<info:fedora/demo:1> <http://p> \"Café\" .
<info:fedora/demo%3a1> <http://p> \"Caf\\u00E9\" .
<info:fedora/demo:1>\t<http://p>   \"Café\"^^<http://www.w3.org/2001/XMLSchema#string>.
<info:fedora/demo:1> <http://p> \"Café\" . # again
<info:fedora/demo:1> <http://p> \"Café\"@fr .
<info:fedora/demo:1> <http://p> \"Café\" <http://g> .
<info:fedora/demo%3A1> <http://p> \"Caf\\u00E9\" <http://g> .
";
    for to in ["nq", "trig"] {
        let out = run(&["rewrite", "-q", "--dedup", "-i", "nq", "--to", to], input);
        assert!(out.status.success(), "{}", text(&out.stderr));
        // Read back as N-Quads, one statement a line.
        let back = run(
            &["rewrite", "-q", "-i", to, "--to", "nq"],
            &text(&out.stdout),
        );
        assert!(back.status.success(), "{}", text(&back.stderr));
        let mut statements: Vec<_> = text(&back.stdout).lines().map(str::to_owned).collect();
        statements.sort();
        assert_eq!(
            statements,
            [
                "<info:fedora/demo:1> <http://p> \"Café\" .",
                "<info:fedora/demo:1> <http://p> \"Café\" <http://g> .",
                "<info:fedora/demo:1> <http://p> \"Café\"@fr .",
            ],
            "--to {to}"
        );
    }
}

/// `--fingerprints`: every output line after the fingerprint of its statement and a tab (a tab
/// alone for a line with no statement), the same fingerprint exactly for the lines `--dedup` of
/// one run drops as repeats — spellings of one statement, but not one blank node label in two
/// inputs — on the line path (N-Triples in) and on the serializer path (Turtle in) alike.
#[test]
fn fingerprints_are_equal_exactly_for_the_statements_dedup_drops() {
    let dir = Dir::new("fingerprints");
    let one = "\
# a comment
<info:fedora/demo:1> <http://p> \"Café\" .
<info:fedora/demo%3a1> <http://p> \"Caf\\u00E9\" .

<info:fedora/demo:1>\t<http://p>   \"Café\"^^<http://www.w3.org/2001/XMLSchema#string>.
<http://s> <http://p> \"x\"@EN .
<http://s> <http://p> \"x\"@en .
<http://s> <http://p> \"x\"@fr .
_:b1 <http://p> <http://o> .
<http://s> <http://p> .
";
    let two = "_:b1 <http://p> <http://o> .\n<http://s> <http://p> \"x\"@en .\n";
    let inputs = [dir.file("one.nt", one), dir.file("two.nt", two)];
    let turtle = dir.file("three.ttl", "<http://s> <http://p> \"x\"@EN, \"y\", \"y\"^^<http://www.w3.org/2001/XMLSchema#string> .\n");
    for (inputs, to) in [
        (vec![p(&inputs[0]), p(&inputs[1])], "nt"),
        (vec![p(&turtle)], "nq"),
    ] {
        let args = |extra: &[&'static str]| {
            [
                vec!["rewrite", "-q", "--lenient", "--to", to],
                extra.to_vec(),
                inputs.clone(),
            ]
            .concat()
        };
        let keyed = run(&args(&["--fingerprints"]), "");
        assert!(keyed.status.success(), "{}", text(&keyed.stderr));
        let plain = run(&args(&[]), "");
        let deduplicated = run(&args(&["--dedup"]), "");
        let mut seen = std::collections::HashSet::new();
        let mut kept = Vec::new();
        let keyed = text(&keyed.stdout);
        for (line, written) in keyed.lines().zip(text(&plain.stdout).lines()) {
            let (fingerprint, rest) = line.split_once('\t').expect("a tab after the fingerprint");
            assert_eq!(rest, written, "the line as written without --fingerprints");
            assert!(
                fingerprint.is_empty()
                    || fingerprint.len() == 32
                        && fingerprint
                            .bytes()
                            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
                "{line:?}"
            );
            if fingerprint.is_empty() || seen.insert(fingerprint) {
                kept.push(rest);
            }
        }
        assert_eq!(keyed.lines().count(), text(&plain.stdout).lines().count());
        assert_eq!(
            kept.join("\n") + "\n",
            text(&deduplicated.stdout),
            "--to {to}"
        );
    }
    let keyed = run(
        &[
            "rewrite",
            "-q",
            "--lenient",
            "--fingerprints",
            p(&inputs[0]),
            p(&inputs[1]),
        ],
        "",
    );
    let keyed = text(&keyed.stdout);
    let lines: Vec<&str> = keyed.lines().collect();
    let fingerprint = |n: usize| lines[n].split_once('\t').unwrap().0;
    assert_eq!(lines[0], "\t# a comment");
    assert_eq!(lines[3], "\t");
    assert_eq!(
        lines[9], "\t<http://s> <http://p> .",
        "a syntax error passed through"
    );
    assert_eq!(fingerprint(1), fingerprint(2));
    assert_eq!(fingerprint(1), fingerprint(4));
    assert_eq!(fingerprint(5), fingerprint(6));
    assert_ne!(fingerprint(5), fingerprint(7));
    assert_ne!(
        fingerprint(8),
        fingerprint(10),
        "_:b1 of two inputs: two nodes"
    );
    assert_eq!(fingerprint(6), fingerprint(11));
}

/// With `--collapse`, the links written at the end carry their fingerprints too: those of the
/// same lines read again.
#[test]
fn fingerprints_of_the_links_of_collapse_are_theirs() {
    let input = "\
<http://a> <http://www.w3.org/2002/07/owl#sameAs> <http://b> .
<http://b> <http://www.w3.org/2002/07/owl#sameAs> <http://c> .
<http://c> <http://p> \"x\" .
";
    let keyed = run(
        &["rewrite", "-q", "-i", "nt", "--collapse", "--fingerprints"],
        input,
    );
    assert!(keyed.status.success(), "{}", text(&keyed.stderr));
    let keyed = text(&keyed.stdout);
    let lines: Vec<(&str, &str)> = keyed.lines().map(|l| l.split_once('\t').unwrap()).collect();
    assert!(
        lines.len() > 1 && lines.iter().all(|(key, _)| key.len() == 32),
        "{keyed}"
    );
    let plain: String = lines.iter().map(|(_, line)| format!("{line}\n")).collect();
    let again = run(&["rewrite", "-q", "-i", "nt", "--fingerprints"], &plain);
    assert_eq!(text(&again.stdout), keyed);
}

#[test]
fn fingerprints_are_written_before_lines_only() {
    let out = run(
        &["rewrite", "-q", "--fingerprints", "--to", "ttl"],
        "<http://s> <http://p> <http://o> .\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--fingerprints writes N-Triples or N-Quads lines"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn every_format_pair_round_trips() {
    let dir = Dir::new("formats");
    let input = dir.file("in.nt", NT);
    let formats = ["nt", "nq", "ttl", "trig", "rdfxml"];
    for from in formats {
        let source = dir.path(&format!("source.{from}"));
        let made = run(
            &["rewrite", "-q", "--to", from, "-o", p(&source), p(&input)],
            "",
        );
        assert!(made.status.success(), "to {from}: {}", text(&made.stderr));
        for to in formats {
            let out = run(&["rewrite", "-q", "-i", from, "--to", to, p(&source)], "");
            assert!(
                out.status.success(),
                "{from} -> {to}: {}",
                text(&out.stderr)
            );
            let back = run(
                &["rewrite", "-q", "-i", to, "--to", "nt"],
                &text(&out.stdout),
            );
            let statement = |l: &str| l.split_once(" .").map(|(s, _)| s.to_owned());
            let mut lines: Vec<String> = text(&back.stdout).lines().filter_map(statement).collect();
            lines.sort();
            lines.dedup();
            assert_eq!(lines.len(), 3, "{from} -> {to}: {lines:?}");
            assert!(
                lines
                    .iter()
                    .all(|l| !l.contains("%3a") && !l.contains("dx.doi.org/10.1000")),
                "{from} -> {to}: {lines:?}"
            );
        }
    }
}

#[test]
fn turtle_output_keeps_the_prefixes() {
    let ttl = "@prefix dc: <http://purl.org/dc/terms/> .\n@prefix fed: <info:fedora/> .\n<info:fedora/demo%3a1> dc:relation fed:demo%3a2 .\n";
    let out = run(&["rewrite", "-q", "-i", "ttl"], ttl);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("@prefix dc: <http://purl.org/dc/terms/> ."),
        "{stdout}"
    );
    assert!(stdout.contains("dc:relation"), "{stdout}");
    assert!(
        stdout.contains("fed:demo:1") && stdout.contains("fed:demo:2"),
        "{stdout}"
    );
}

#[test]
fn syntax_errors_exit_2_naming_the_line_and_leave_no_output() {
    let dir = Dir::new("syntax");
    let bad = dir.file(
        "bad.nt",
        "<http://a/> <http://b/> <http://c/> .\n<http://a/#x#y> <http://b/> <http://c/> .\n",
    );
    let existing = dir.file("out.nt", "keep me\n");
    let out = run(&["rewrite", "-o", p(&existing), p(&bad)], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("{}:2:", p(&bad))),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&existing).expect("kept"),
        "keep me\n",
        "an existing file is untouched"
    );
    assert_eq!(dir.entries(), 2, "no temporary file is left");

    let fresh = dir.path("fresh.nt");
    let out = run(&["rewrite", "-q", "-o", p(&fresh), p(&bad)], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(!fresh.exists(), "no partial output");
}

/// `rewrite -q --lenient --reject REJECTS ARGS…` of `input`.
fn lenient_with_rejects(rejects: &Path, args: &[&str], input: &str) -> Output {
    let mut all = vec!["rewrite", "-q", "--lenient", "--reject", p(rejects)];
    all.extend_from_slice(args);
    run(&all, input)
}

#[test]
fn lenient_passes_bad_lines_through_or_to_the_rejects() {
    let dir = Dir::new("lenient");
    let input = "<info:fedora/demo%3a1> <http://b/> <http://c/> .\n<http://a/#x#y> <http://b/> <http://c/> .\n";
    let out = run(&["rewrite", "--lenient", "-i", "nt"], input);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        "<info:fedora/demo:1> <http://b/> <http://c/> .\n<http://a/#x#y> <http://b/> <http://c/> .\n",
        "nothing is lost"
    );
    assert!(
        text(&out.stderr).contains("<stdin>:2:"),
        "{}",
        text(&out.stderr)
    );
    // The message and the counts say what happened: the bad line was passed through, not
    // skipped, and is not counted as a statement written.
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("<stdin>:2:1: syntax error, passed through unchanged:"),
        "{stderr}"
    );
    assert!(!stderr.contains("skipped"), "{stderr}");
    assert!(
        stderr.contains("1 statement read, 1 written")
            && stderr.contains("1 syntax error (1 unparsable line passed through unchanged)"),
        "{stderr}"
    );

    let rejects = dir.path("rejects.nt");
    let out = lenient_with_rejects(&rejects, &["-i", "nt"], input);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        "<info:fedora/demo:1> <http://b/> <http://c/> .\n"
    );
    assert_eq!(
        std::fs::read_to_string(&rejects).expect("rejects"),
        "<http://a/#x#y> <http://b/> <http://c/> .\n"
    );

    let ttl = "<http://a/> <http://b/> <info:fedora/demo%3a1> .\n<http://a/> <http://b/> .\n<http://a/> <http://b/> <hdl:1/x> .\n";
    let out = run(&["rewrite", "--lenient", "-i", "ttl", "--to", "nt"], ttl);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "<http://a/> <http://b/> <info:fedora/demo:1> .\n<http://a/> <http://b/> <hdl:1/x> .\n"
    );
    assert!(
        text(&out.stderr).contains("<stdin>:2:"),
        "{}",
        text(&out.stderr)
    );
}

/// A Turtle statement that does not parse goes to the rejects with its own lines: not with the
/// last line of the statement before it, which was written — unless that line holds more than
/// the end of a statement (then it is kept whole: some of it may belong to the bad one).
#[test]
fn turtle_rejects_hold_the_bad_statement_and_not_the_end_of_the_one_before() {
    let dir = Dir::new("turtle-rejects");
    let rejects = dir.path("rejects.ttl");
    let rewrite = |ttl: &str| {
        let out = lenient_with_rejects(&rejects, &["-i", "ttl", "--to", "nt"], ttl);
        assert!(out.status.success(), "{}", text(&out.stderr));
        (
            text(&out.stdout),
            std::fs::read_to_string(&rejects).expect("rejects"),
        )
    };
    let prefix = "@prefix ex: <http://example.org/> .\n";
    let (out, rejected) = rewrite(&format!(
        "{prefix}ex:a ex:p ex:b .\nex:c ex:p\n  ex:d .  # done\nex:e ex:p \"unterminated .\nex:f ex:p ex:g .\n"
    ));
    assert_eq!(
        out,
        "<http://example.org/a> <http://example.org/p> <http://example.org/b> .\n\
         <http://example.org/c> <http://example.org/p> <http://example.org/d> .\n\
         <http://example.org/f> <http://example.org/p> <http://example.org/g> .\n"
    );
    assert_eq!(rejected, "ex:e ex:p \"unterminated .\n");

    // The bad statement starts on the line the good one ends on: that line is kept whole.
    let (_, rejected) = rewrite(&format!(
        "{prefix}ex:c ex:p\n  ex:d . ex:e ex:p\n \"unterminated .\nex:f ex:p ex:g .\n"
    ));
    assert_eq!(rejected, "  ex:d . ex:e ex:p\n \"unterminated .\n");

    // A long string the line starts within: the scan cannot tell, the line is kept whole.
    let (_, rejected) = rewrite(&format!(
        "{prefix}ex:c ex:p \"\"\"two\nlines\"\"\" .\nex:e ex:p \"unterminated .\n"
    ));
    assert_eq!(rejected, "lines\"\"\" .\nex:e ex:p \"unterminated .\n");
}

#[test]
fn invalid_identifiers_are_kept_and_reported_or_fatal_under_strict() {
    let input = "<info:fedora/de_mo:1> <http://b/> <http://c/> .\n";
    let out = run(&["rewrite", "-i", "nt"], input);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), input);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("<stdin>:1:1: invalid identifier <info:fedora/de_mo:1>"),
        "{stderr}"
    );
    assert!(stderr.contains("1 invalid identifier;"), "{stderr}");

    let out = run(&["rewrite", "--strict", "-i", "nt"], input);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn check_lists_what_is_not_canonical() {
    let dir = Dir::new("check");
    let input = dir.file("in.nt", NT);
    let out = run(&["check", p(&input)], "");
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "{}:2:1: non-canonical fedora-object <info:fedora/demo%3a1>: canonical <info:fedora/demo:1>",
            p(&input)
        )),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 3, "{stdout}");

    let clean = dir.file("clean.nt", NT_REWRITTEN);
    let out = run(&["check", p(&clean)], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(out.stdout.is_empty());
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["rewrite", "-i", "json-ld-ish"],
        vec!["rewrite", "--to", "n3"],
        vec!["rewrite", "no-such-file.nt"],
        vec!["rewrite", "--base", "not an iri", "-i", "ttl"],
        vec!["rewrite", "--fedora-base", "ftp://x/"],
        vec!["rewrite", "--strict", "--lenient"],
    ] {
        let out = run(&args, "");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let out = run(
        &["rewrite", "-q", "-i", "nq", "--to", "nt"],
        "<http://a/> <http://b/> <http://c/> <http://g/> .\n",
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "named graphs cannot go to N-Triples"
    );
}

#[test]
fn a_closed_stdout_is_a_quiet_stop() {
    let big: String = (0..200_000)
        .map(|i| format!("<info:fedora/demo%3a{i}> <http://b/> <http://c/> .\n"))
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pidcanon"))
        .args(["rewrite", "-q", "-i", "nt"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(big.as_bytes());
    });
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("ends");
    let _ = writer.join();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

//! `pidcanon check` as a lister: every finding with file:line:column, a summary per kind of
//! finding and per distinct IRI, JSON Lines, exit 1 if anything was found.

mod common;

use common::Dir;
use std::path::Path;
use std::process::Output;

const INPUT: &str = "\
<info:fedora/demo%3a1> <http://p> <info:fedora/de_mo:1> .
this line is not N-Triples
<info:fedora/demo%3a1> <http://p> <hdl:10013/x> .
<info:fedora/demo:2> <http://p> <http://dx.doi.org/10.1000/ABC> .
";

fn run(args: &[&str]) -> Output {
    common::run_pidcanon(args, b"")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

#[test]
fn help_lists_only_what_check_does() {
    let out = run(&["check", "--help"]);
    let help = text(&out.stdout);
    assert!(!help.contains("--reject"), "{help}");
    // `--strict-rdfxml` (how RDF/XML is read) is a reading option, not `--strict`.
    assert!(
        !help.split_whitespace().any(|word| word == "--strict"),
        "{help}"
    );
    assert!(!help.contains("unchanged"), "{help}");
    assert!(
        help.contains("--lenient") && help.contains("--report"),
        "{help}"
    );
    let out = run(&["check", "--strict", "x.nt"]);
    assert_eq!(out.status.code(), Some(2), "--strict is rewrite's");
}

#[test]
fn every_finding_is_listed_then_summarized() {
    let dir = Dir::new("check-list");
    let input = dir.file("in.nt", INPUT);
    let out = run(&["check", "--lenient", p(&input)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let f = p(&input);
    let expected = [
        format!(
            "{f}:1:1: non-canonical fedora-object <info:fedora/demo%3a1>: canonical <info:fedora/demo:1>"
        ),
        format!("{f}:1:35: invalid fedora-object <info:fedora/de_mo:1>: "),
        format!("{f}:2:1: syntax-error: "),
        format!(
            "{f}:3:1: non-canonical fedora-object <info:fedora/demo%3a1>: canonical <info:fedora/demo:1>"
        ),
        format!(
            "{f}:4:33: non-canonical doi <http://dx.doi.org/10.1000/ABC>: canonical <https://doi.org/10.1000/abc>"
        ),
    ];
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{stdout}");
    for (line, expected) in lines.iter().zip(&expected) {
        assert!(
            line.starts_with(expected.as_str()),
            "{line}\nexpected {expected}"
        );
    }
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "5 findings in 1 file: 3 non-canonical, 1 invalid, 1 syntax-error; 3 distinct IRIs"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("       2  non-canonical fedora-object <info:fedora/demo%3a1>: canonical <info:fedora/demo:1>"),
        "most frequent first: {stderr}"
    );
}

#[test]
fn without_lenient_a_syntax_error_stops_after_listing_what_came_before() {
    let dir = Dir::new("check-stop");
    let input = dir.file("in.nt", INPUT);
    let out = run(&["check", p(&input)]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    let listed: Vec<&str> = stdout.lines().collect();
    assert_eq!(listed.len(), 3, "{stdout}");
    assert!(listed[2].contains(":2:1: syntax-error: "), "{stdout}");
    assert!(
        text(&out.stderr).contains(":2:1: stopped at this syntax error"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_file_of_only_a_syntax_error_is_a_finding() {
    let dir = Dir::new("check-syntax-only");
    let input = dir.file(
        "bad.ttl",
        "<info:fedora/demo:1> dc:title \"unterminated .\n",
    );
    let out = run(&["check", "--lenient", p(&input)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("syntax-error"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn clean_input_exits_0_and_quiet_lists_nothing() {
    let dir = Dir::new("check-clean");
    let clean = dir.file(
        "clean.nt",
        "<info:fedora/demo:1> <http://p> <hdl:10013/x> .\n",
    );
    let out = run(&["check", p(&clean)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let input = dir.file("in.nt", INPUT);
    let out = run(&["check", "-q", "--lenient", p(&input)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty() && out.stderr.is_empty(),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn json_report_is_one_object_per_finding_and_the_summary_last() {
    let dir = Dir::new("check-json");
    let input = dir.file("in.nt", INPUT);
    let out = run(&["check", "--lenient", "--report", "json", p(&input)]);
    assert_eq!(out.status.code(), Some(1));
    let values: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(values.len(), 6);
    assert_eq!(values[0]["finding"], "non-canonical");
    assert_eq!(values[0]["iri"], "info:fedora/demo%3a1");
    assert_eq!(values[0]["canonical"], "info:fedora/demo:1");
    assert_eq!(values[0]["line"], 1);
    assert_eq!(values[0]["column"], 1);
    assert_eq!(values[1]["finding"], "invalid");
    assert_eq!(values[1]["kind"], "fedora-object");
    assert_eq!(values[2]["finding"], "syntax-error");
    assert_eq!(values[2]["line"], 2);
    let summary = &values[5]["summary"];
    assert_eq!(summary["findings"], 5);
    assert_eq!(summary["by_finding"]["non-canonical"], 3);
    assert_eq!(summary["by_iri"][0]["iri"], "info:fedora/demo%3a1");
    assert_eq!(summary["by_iri"][0]["count"], 2);
}

#[test]
fn a_closed_stdout_is_an_error() {
    let dir = Dir::new("check-closed");
    let input = dir.file("in.nt", INPUT);
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#""$0" check "$1" >&-"#)
        .arg(env!("CARGO_BIN_EXE_pidcanon"))
        .arg(p(&input))
        .output()
        .expect("bash runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("Bad file descriptor"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn every_format_gives_line_and_column() {
    let dir = Dir::new("check-positions");
    let rdfxml = dir.file(
        "in.rdf",
        "<?xml version=\"1.0\"?>\n\
         <RDF xmlns=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:dc=\"http://purl.org/dc/terms/\">\n\
         \x20 <Description about=\"info:fedora/demo%3a1\">\n\
         \x20   <dc:relation resource=\"hdl://10013/x\"/>\n\
         \x20 </Description>\n\
         </RDF>\n",
    );
    let turtle = dir.file(
        "in.ttl",
        "@prefix f: <info:fedora/> .\n@prefix dc: <http://purl.org/dc/terms/> .\n\
         f:demo%3a1 dc:relation\n    <hdl://10013/x> ;\n  dc:source f:demo%3a2 .\n",
    );
    for (input, expected) in [
        (
            &rdfxml,
            [
                "4:5: non-canonical fedora-object",
                "4:5: non-canonical handle",
            ],
        ),
        (
            &turtle,
            [
                "3:1: non-canonical fedora-object",
                "4:5: non-canonical handle",
            ],
        ),
    ] {
        let out = run(&["check", p(input)]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        for (line, expected) in lines.iter().zip(expected) {
            assert!(
                line.starts_with(&format!("{}:{expected}", p(input))),
                "{line}\nexpected {expected}"
            );
        }
    }
    // The Turtle statement continued after `;` is located at its subject, on line 3.
    let out = run(&["check", p(&turtle)]);
    let stdout = text(&out.stdout);
    let f = p(&turtle);
    assert!(
        stdout.contains(&format!(
            "{f}:3:1: non-canonical fedora-object <info:fedora/demo%3a1>"
        )) && stdout.contains(&format!(
            "{f}:5:13: non-canonical fedora-object <info:fedora/demo%3a2>"
        )),
        "{stdout}"
    );
    assert!(!stdout.contains(":?:"), "{stdout}");
}

//! `pidcanon canon` end to end: the `--tsv` contract over every vector, human output, exit codes.

mod common;

use common::{expected_failures, run_pidcanon, vectors};
use std::collections::BTreeMap;
use std::process::Output;

fn pidcanon(args: &[&str], stdin: &str) -> Output {
    run_pidcanon(args, stdin.as_bytes())
}

#[test]
fn tsv_contract_holds_for_every_vector() {
    let known = expected_failures();
    let mut groups: BTreeMap<String, Vec<_>> = BTreeMap::new();
    for v in vectors() {
        groups.entry(v.options.clone()).or_default().push(v);
    }
    let mut failures = Vec::new();
    for (options, group) in &groups {
        let mut args = vec!["canon", "--tsv"];
        args.extend(options.split_whitespace());
        let stdin: String = group.iter().map(|v| format!("{}\n", v.input)).collect();
        let out = pidcanon(&args, &stdin);
        let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
        let lines: Vec<&str> = stdout.lines().collect();
        if lines.len() != group.len() {
            failures.push(format!(
                "[{options}] {} inputs, {} lines; exit {:?}",
                group.len(),
                lines.len(),
                out.status
            ));
            continue;
        }
        let invalid = stdout
            .lines()
            .any(|l| l.split('\t').nth(1) == Some("INVALID"));
        assert_eq!(
            out.status.code(),
            Some(i32::from(invalid)),
            "--tsv exits 1 when an input is invalid [{options}]"
        );
        for (v, line) in group.iter().zip(lines) {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 4, "four columns: {line:?}");
            assert_eq!(
                unescape(cols[0]),
                v.input.as_bytes(),
                "first column is the input"
            );
            let ok = cols[1] == v.expected
                && cols[2] == v.kind
                && (cols[1] == "INVALID") != cols[3].is_empty();
            if !ok && !known.contains(&v.key()) {
                failures.push(format!(
                    "{} [{options}] {:?}: {line:?}",
                    v.location, v.input
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn human_output_prints_canonical_iris_and_reports_errors() {
    let out = pidcanon(&["canon", "info:fedora/demo%3a1", "oai:foo.org:x"], "");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "info:fedora/demo:1\noai:foo.org:x\n"
    );
    assert!(out.status.success());

    let out = pidcanon(&["canon", "--scheme", "fedora"], "demo:1\ndemo:a b\n");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "info:fedora/demo:1\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"demo:a b\"") && stderr.contains("byte 6"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn lines_are_taken_as_they_are() {
    let out = pidcanon(
        &["canon", "--tsv"],
        "info:fedora/demo:1\r\n\ninfo:fedora/demo:1",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    assert_eq!(
        rows[0][1], "info:fedora/demo:1",
        "a carriage return before the newline ends the line"
    );
    assert_eq!(rows[1][1], "INVALID", "an empty line is an empty input");
    assert_eq!(
        rows[2][1], "info:fedora/demo:1",
        "the last line needs no newline"
    );
}

/// A `--tsv` field with its escapes (`\\ \t \n \r \xHH`) decoded.
fn unescape(field: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut bytes = field.bytes();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b't') => out.push(b'\t'),
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            Some(b'\\') => out.push(b'\\'),
            Some(b'x') => {
                let hex: Vec<u8> = bytes.by_ref().take(2).collect();
                let hex = std::str::from_utf8(&hex).expect("ASCII hex digits");
                out.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
            }
            other => panic!("unknown escape \\{other:?} in {field:?}"),
        }
    }
    out
}

#[test]
fn tsv_escapes_the_echoed_input_so_every_input_is_one_line_of_four_fields() {
    let args = [
        "hdl:10013/a\tb",
        "info:fedora/demo:1\ninfo:fedora/demo:2",
        "doi:10.1000/a\\b",
        "info:fedora/demo:1\r",
        "info:fedora/demo%3a1",
    ];
    let mut command = vec!["canon", "--tsv"];
    command.extend(args);
    let out = pidcanon(&command, "");
    assert_eq!(out.status.code(), Some(1), "some inputs are invalid");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), args.len(), "{stdout}");
    for (row, arg) in rows.iter().zip(args) {
        assert_eq!(row.len(), 4, "{row:?}");
        assert_eq!(unescape(row[0]), arg.as_bytes(), "{row:?}");
    }
    assert_eq!(rows[0][..2], ["hdl:10013/a\\tb", "INVALID"]);
    assert_eq!(
        rows[1][..2],
        ["info:fedora/demo:1\\ninfo:fedora/demo:2", "INVALID"]
    );
    assert_eq!(
        rows[2][..2],
        ["doi:10.1000/a\\\\b", "https://doi.org/10.1000/a%5Cb"]
    );
    assert_eq!(rows[3][..2], ["info:fedora/demo:1\\r", "INVALID"]);
    assert_eq!(rows[4][..2], ["info:fedora/demo%3a1", "info:fedora/demo:1"]);

    // From stdin, with a byte that is not UTF-8: still one row, the input recoverable.
    let out = run_pidcanon(&["canon", "--tsv"], b"oai:a.b:\t\xff\\\n");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    let row: Vec<&str> = stdout.trim_end_matches('\n').split('\t').collect();
    assert_eq!(row.len(), 4, "{stdout:?}");
    assert_eq!(row[0], "oai:a.b:\\t\\xFF\\\\");
    assert_eq!(unescape(row[0]), b"oai:a.b:\t\xff\\");
}

#[test]
fn non_utf8_input_is_one_invalid_row() {
    let out = run_pidcanon(&["canon", "--tsv"], b"oai:a.b:\xff\noai:a.b:c\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].contains("INVALID\tiri\tiri: the input is not UTF-8 (byte 8)"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("oai:a.b:c\toai:a.b:c\toai\t"));
}

#[test]
fn policy_file_and_flags() {
    let dir = std::env::temp_dir().join(format!("pidcanon-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("policy.toml");
    std::fs::write(
        &file,
        "poi_oai = \"poi\"\nfedora_bases = [\"http://localhost:8080/fedora\"]\n",
    )
    .expect("written");
    let policy = file.to_str().expect("UTF-8 path");
    let out = pidcanon(
        &[
            "canon",
            "--policy",
            policy,
            "oai:foo.org:x",
            "http://localhost:8080/fedora/get/demo:1",
        ],
        "",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "http://purl.org/poi/foo.org/x\ninfo:fedora/demo:1\n"
    );
    let out = pidcanon(
        &[
            "canon",
            "--policy",
            policy,
            "--poi-oai",
            "keep",
            "oai:foo.org:x",
        ],
        "",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "oai:foo.org:x\n",
        "a flag overrides the file"
    );

    std::fs::write(&file, "poi_oai = \"sometimes\"\n").expect("written");
    let out = pidcanon(&["canon", "--policy", policy, "oai:foo.org:x"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid policy"));

    let out = pidcanon(&["canon", "--fedora-base", "ftp://x/", "oai:foo.org:x"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Fedora base"));
    std::fs::remove_dir_all(&dir).expect("cleaned up");
}

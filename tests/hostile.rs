//! Hostile input: each ends in a clear error or a correct result — never a panic, a hang or
//! unbounded memory.

mod common;

use pidcanon::Registry;
use pidcanon::rewrite::{RdfFormat, RewriteError, Rewriter};
use std::io::{Read, Write};
use std::process::{Command, Stdio};

fn rewrite(input: &[u8], format: RdfFormat, lenient: bool) -> Result<(Vec<u8>, u64), RewriteError> {
    let mut rewriter = Rewriter::new(Registry::default())
        .with_input_format(format)
        .with_output_format(RdfFormat::NQuads);
    if lenient {
        rewriter = rewriter.skip_syntax_errors();
    }
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    session.rewrite(input)?;
    let report = session.finish()?;
    Ok((out, report.statements_written))
}

fn syntax_line(result: Result<(Vec<u8>, u64), RewriteError>) -> u64 {
    match result {
        Err(RewriteError::Syntax(error)) => error.location().line().unwrap_or(0),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn invalid_utf8_is_an_error_naming_the_line_or_passes_through_when_lenient() {
    let input =
        b"<http://a/s> <http://a/p> <http://a/o> .\n<http://a/s> <http://a/p> \"\xff\xfe\" .\n";
    assert_eq!(syntax_line(rewrite(input, RdfFormat::NTriples, false)), 2);
    let (out, statements) = rewrite(input, RdfFormat::NTriples, true).expect("lenient");
    assert_eq!(
        (out.as_slice(), statements),
        (&input[..], 1),
        "the bad line passes through unchanged"
    );
    let turtle = b"<http://a/s> <http://a/p> \"ok\" .\n<http://a/s> <http://a/p> \"\xc3\x28\" .\n";
    assert_eq!(syntax_line(rewrite(turtle, RdfFormat::Turtle, false)), 2);
}

#[test]
fn nul_bytes_are_data_in_literals_and_errors_in_iris() {
    let literal = b"<info:fedora/demo%3a1> <http://a/p> \"a\x00b\" .\n";
    let (out, _) =
        rewrite(literal, RdfFormat::NTriples, false).expect("a NUL is allowed in a literal");
    assert_eq!(out, b"<info:fedora/demo:1> <http://a/p> \"a\x00b\" .\n");
    let iri = b"<http://a/\x00> <http://a/p> <http://a/o> .\n";
    assert_eq!(syntax_line(rewrite(iri, RdfFormat::NTriples, false)), 1);
}

#[test]
fn a_50_mb_line_is_rewritten() {
    let mut line = b"<info:fedora/demo%3a1> <http://a/p> \"".to_vec();
    line.resize(line.len() + 50 * 1024 * 1024, b'x');
    line.extend_from_slice(b"\" .\n");
    let (out, statements) = rewrite(&line, RdfFormat::NTriples, false).expect("rewrites");
    assert_eq!(statements, 1);
    assert_eq!(out.len(), line.len() - 2);
    assert!(out.starts_with(b"<info:fedora/demo:1> <http://a/p> \"xxx"));
}

#[test]
fn turtle_nested_100_000_levels() {
    let depth = 100_000;
    let blank = format!(
        "<http://a/s> <http://a/p> {}[]{} .\n",
        "[ <http://a/p> ".repeat(depth),
        "]".repeat(depth)
    );
    let (_, statements) =
        rewrite(blank.as_bytes(), RdfFormat::Turtle, false).expect("nested blank nodes");
    assert_eq!(statements, depth as u64 + 1);
    let list = format!(
        "<http://a/s> <http://a/p> {}<info:fedora/demo%3a1>{} .\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let (out, statements) =
        rewrite(list.as_bytes(), RdfFormat::Turtle, false).expect("nested lists");
    assert_eq!(statements, 2 * depth as u64 + 1);
    assert!(String::from_utf8_lossy(&out).contains("<info:fedora/demo:1>"));
}

#[test]
fn a_hundred_thousand_prefixes() {
    let mut doc: String = (0..100_000)
        .map(|i| format!("@prefix p{i}: <http://example.org/{i}/> .\n"))
        .collect();
    doc.push_str("p7:s p8:p <info:fedora/demo%3a1> .\n");
    for to in [RdfFormat::NTriples, RdfFormat::Turtle] {
        let rewriter = Rewriter::new(Registry::default())
            .with_input_format(RdfFormat::Turtle)
            .with_output_format(to);
        let mut out = Vec::new();
        let mut session = rewriter.session(&mut out);
        session.rewrite(doc.as_bytes()).expect("rewrites");
        assert_eq!(session.finish().expect("finishes").statements_written, 1);
        assert!(String::from_utf8_lossy(&out).contains("<info:fedora/demo:1>"));
    }
}

#[test]
fn escapes_cut_off_at_the_end_of_input() {
    for input in [
        "hdl:10013/a%",
        "info:fedora/demo:1%4",
        "urn:pdi://oma.us/1997/09/01/a%2",
        "doi:10.1000/%",
    ] {
        let _ = Registry::default().canonicalize(input);
    }
    assert!(Registry::default().canonicalize("hdl:10013/a%").is_err());
    assert!(
        Registry::default()
            .canonicalize("info:fedora/demo:1%4")
            .is_err()
    );
    let truncated = b"<http://a/s> <http://a/p> <info:fedora/demo:1%4";
    assert_eq!(
        syntax_line(rewrite(truncated, RdfFormat::NTriples, false)),
        1
    );
}

#[test]
fn files_truncated_in_the_middle_of_a_statement() {
    let nt = b"<http://a/s> <http://a/p> <http://a/o> .\n<http://a/s> <http://a/p> \"unfinis";
    assert_eq!(syntax_line(rewrite(nt, RdfFormat::NTriples, false)), 2);
    let ttl = b"@prefix ex: <http://example.org/> .\nex:s ex:p ex:o ;\n  ex:q [ ex:r";
    assert!(matches!(
        rewrite(ttl, RdfFormat::Turtle, false),
        Err(RewriteError::Syntax(_))
    ));
    let trig = b"<http://g/> { <http://a/s> <http://a/p> <http://a/o> .";
    assert!(matches!(
        rewrite(trig, RdfFormat::TriG, false),
        Err(RewriteError::Syntax(_))
    ));
}

#[test]
fn a_full_disk_is_reported() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("this test writes to /dev/full, which every Linux system has");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pidcanon"))
        .args(["rewrite", "-q", "-i", "nt"])
        .stdin(Stdio::piped())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let input: String = (0..100_000)
        .map(|i| format!("<info:fedora/demo%3a{i}> <http://a/p> <http://a/o> .\n"))
        .collect();
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("ends");
    let _ = writer.join();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("No space left on device"), "{stderr}");
}

/// Ten million statements from a generator through a pipe, while the resident memory stays flat.
/// Slow (a minute or so): `cargo test --release --test hostile -- --ignored`.
#[test]
#[ignore = "streams ten million statements; run with --ignored"]
fn ten_million_statements_in_flat_memory() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pidcanon"))
        .args(["rewrite", "-q", "-i", "nt"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("runs");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("piped");
    let generator = std::thread::spawn(move || {
        let mut batch = String::new();
        for block in 0..10_000u64 {
            batch.clear();
            for i in 0..1_000 {
                let n = block * 1_000 + i;
                batch.push_str(&format!(
                    "<info:fedora/demo%3a{n}> <http://purl.org/dc/terms/relation> <hdl://10013/x{n}> .\n"
                ));
            }
            if stdin.write_all(batch.as_bytes()).is_err() {
                return;
            }
        }
    });
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0; 1 << 16];
        let mut lines = 0u64;
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        }
        lines
    });
    let mut peak_kb = 0u64;
    while !generator.is_finished() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let rss = status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
                .unwrap_or(0);
            peak_kb = peak_kb.max(rss);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    generator.join().expect("generator");
    assert!(child.wait().expect("ends").success());
    assert_eq!(reader.join().expect("reader"), 10_000_000);
    eprintln!("peak resident memory: {peak_kb} kB");
    assert!(peak_kb < 100 * 1024, "peak resident memory {peak_kb} kB");
}

#[test]
fn triple_terms_nested_100_000_levels() {
    let depth = 100_000;
    let nested = format!(
        "<http://a/s> <http://a/p> {}<info:fedora/demo%3a1>{} .\n",
        "<<( <http://a/s> <http://a/p> ".repeat(depth),
        " )>>".repeat(depth)
    );
    let expected = nested.replace("demo%3a1", "demo:1").into_bytes();
    for threads in ["1", "2"] {
        let output = common::run_pidcanon(
            &["rewrite", "-q", "-i", "nt", "--threads", threads],
            nested.as_bytes(),
        );
        assert!(output.status.success(), "{:?}", output.status);
        assert_eq!(output.stdout, expected);
        let turtle = common::run_pidcanon(
            &[
                "rewrite",
                "-q",
                "-i",
                "ttl",
                "--to",
                "nt",
                "--threads",
                threads,
            ],
            nested.as_bytes(),
        );
        assert!(
            turtle.status.success(),
            "Turtle on {threads} threads: {:?}",
            turtle.status
        );
        assert!(String::from_utf8_lossy(&turtle.stdout).contains("<info:fedora/demo:1>"));
    }
}

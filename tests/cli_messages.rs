//! What the commands say and how they end: interrupted runs, closed pipes, summaries, messages
//! that name the input, the rule and where.

mod common;

use common::{Dir, run_pidcanon};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// The names of the entries of `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("readable")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Waits (up to 20 s) until `dir` holds an entry, and gives its names.
fn wait_for_entry(dir: &Path, child: &mut Child) -> Vec<String> {
    let started = Instant::now();
    loop {
        let names = names(dir);
        if !names.is_empty() {
            return names;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the run ended before writing anything: {status}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts `pidcanon args` with a pipe on stdin that the test holds open (a slow producer),
/// `TMPDIR` set to `tmp`, writes `first` into it, then waits for a file in `watched`, sends
/// `signal` and gives the names seen, the exit status and the stderr.
fn interrupt(
    args: &[&str],
    tmp: &Path,
    watched: &Path,
    signal: &str,
) -> (Vec<String>, std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pidcanon"))
        .args(args)
        .env("TMPDIR", tmp)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("piped");
    stdin
        .write_all(b"<info:fedora/demo%3a1> <http://x/p> <http://x/o> .\n")
        .expect("written");
    stdin.flush().expect("flushed");
    let seen = wait_for_entry(watched, &mut child);
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let output = child.wait_with_output().expect("the run ends");
    drop(stdin);
    (seen, output.status, text(&output.stderr))
}

#[test]
fn an_interrupted_rewrite_leaves_no_temporary_file() {
    for signal in ["-TERM", "-INT"] {
        let dir = Dir::new(&format!("messages-signal{signal}"));
        let out = dir.path("out");
        let tmp = dir.path("tmp");
        fs::create_dir(&out).expect("mkdir");
        fs::create_dir(&tmp).expect("mkdir");
        let target = out.join("data.nt");
        let (seen, status, stderr) =
            interrupt(&["rewrite", "-", "-o", p(&target)], &tmp, &out, signal);
        // Named after its target, so that a person can tell what it is.
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(
            seen[0].starts_with(".data.nt.pidcanon-") && seen[0].ends_with(".tmp"),
            "{seen:?}"
        );
        assert!(!status.success(), "{signal}: {status} {stderr}");
        assert_eq!(names(&out), Vec::<String>::new(), "{signal}: {stderr}");

        // --collapse copies stdin to a temporary file first: removed too.
        let (seen, status, stderr) = interrupt(
            &["rewrite", "--collapse", "-", "-o", p(&target)],
            &tmp,
            &tmp,
            signal,
        );
        assert!(
            seen[0].starts_with("pidcanon-stdin-") && seen[0].ends_with(".tmp"),
            "{seen:?}"
        );
        assert!(!status.success(), "{signal}: {status} {stderr}");
        assert_eq!(names(&tmp), Vec::<String>::new(), "{signal}: {stderr}");
        assert_eq!(names(&out), Vec::<String>::new(), "{signal}: {stderr}");
    }
}

#[test]
fn an_output_in_a_missing_directory_is_named_not_its_temporary_file() {
    let dir = Dir::new("messages-nodir");
    let target = dir.path("nodir/x.nt");
    let out = run_pidcanon(&["rewrite", "-", "-o", p(&target)], b"");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "pidcanon: {}: No such file or directory (os error 2)\n",
            target.display()
        )
    );
}

/// Runs `script` in bash with `$0` the binary and `$1`… `args`; gives the exit status (of the
/// script), stdout and stderr.
fn bash(script: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_pidcanon"))
        .args(args)
        .output()
        .expect("bash runs");
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn canon_reads_crlf_lists() {
    let out = run_pidcanon(&["canon"], b"info:fedora/demo%3a1\r\ndoi:10.1000/182\r\n");
    assert_eq!(
        text(&out.stdout),
        "info:fedora/demo:1\nhttps://doi.org/10.1000/182\n",
        "{}",
        text(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0));
    // A carriage return anywhere else is part of the input, and the last line needs no newline.
    let out = run_pidcanon(&["canon", "--tsv"], b"demo:1\r\rx\r\ninfo:fedora/demo:2\r");
    let stdout = text(&out.stdout);
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0][..2], ["demo:1\\r\\rx", "INVALID"], "{stdout}");
    assert_eq!(
        rows[1][..2],
        ["info:fedora/demo:2\\r", "INVALID"],
        "{stdout}"
    );
}

#[test]
fn canon_exits_1_on_an_invalid_input_with_or_without_tsv() {
    for args in [&["canon"][..], &["canon", "--tsv"]] {
        let out = run_pidcanon(args, b"info:fedora/demo:1\nnot an id\n");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let out = run_pidcanon(args, b"info:fedora/demo:1\n");
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}

#[test]
fn canon_tsv_escapes_control_characters() {
    let out = run_pidcanon(&["canon", "--tsv"], b"bad\0x\x1b[2J\x7f\n");
    let stdout = text(&out.stdout);
    let row: Vec<&str> = stdout.trim_end_matches('\n').split('\t').collect();
    assert_eq!(row[0], "bad\\x00x\\x1B[2J\\x7F", "{stdout:?}");
    assert!(
        !stdout.bytes().any(|b| b < 0x20 && b != b'\t' && b != b'\n'),
        "{stdout:?}"
    );
    // Without --tsv the input is quoted with its control characters escaped.
    let out = run_pidcanon(&["canon"], b"bad\0x\n");
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr,
        "pidcanon: invalid \"bad\\0x\": iri: not a valid IRI (expected an absolute IRI but got a relative IRI) (byte 3)\n"
    );
}

/// Every command that writes to stdout, and what it is given.
const WRITERS: [(&str, &str); 4] = [
    ("canon", r#""$0" canon < "$1""#),
    ("canon --tsv", r#""$0" canon --tsv < "$1""#),
    ("check", r#""$0" check "$2""#),
    ("rewrite", r#""$0" rewrite "$2""#),
];

/// A list of identifiers and an N-Triples file, each giving far more output than a pipe holds.
fn big_inputs(dir: &Dir) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut ids = String::new();
    let mut nt = String::new();
    for i in 0..20_000 {
        ids.push_str(&format!("info:fedora/demo%3a{i}\n"));
        nt.push_str(&format!(
            "<info:fedora/demo%3a{i}> <http://x/p> <info:fedora/demo%3a{i}> .\n"
        ));
    }
    (dir.file("ids.txt", &ids), dir.file("data.nt", &nt))
}

#[test]
fn a_closed_stdout_is_an_error_for_every_command() {
    let dir = Dir::new("messages-closed");
    let (ids, nt) = big_inputs(&dir);
    for (command, script) in WRITERS {
        let (status, _, stderr) = bash(&format!("{script} >&-"), &[p(&ids), p(&nt)]);
        assert_eq!(status, Some(2), "{command}: {stderr}");
        assert_eq!(
            stderr, "pidcanon: <stdout>: Bad file descriptor (os error 9)\n",
            "{command}"
        );
    }
    // `store --dry-run` prints its updates: refused before any request is sent.
    let (status, _, stderr) = bash(
        r#""$0" store --endpoint http://127.0.0.1:9/sparql --dry-run --retries 0 >&-"#,
        &[],
    );
    assert_eq!(
        (status, stderr.as_str()),
        (
            Some(2),
            "pidcanon: <stdout>: Bad file descriptor (os error 9)\n"
        )
    );
}

#[test]
fn a_reader_that_goes_away_ends_the_run_quietly_with_its_usual_status() {
    let dir = Dir::new("messages-pipe");
    let (ids, nt) = big_inputs(&dir);
    // check found something (1); canon and rewrite had nothing wrong (0).
    for ((command, script), expected) in WRITERS.iter().zip([0, 0, 1, 0]) {
        let (status, stdout, stderr) = bash(
            &format!(r#"{script} | head -c 10 >/dev/null; echo "${{PIPESTATUS[0]}}""#),
            &[p(&ids), p(&nt)],
        );
        assert_eq!(stderr, "", "{command}: nothing said");
        assert_eq!(stdout, format!("{expected}\n"), "{command}");
        assert_eq!(status, Some(0));
    }
    let bad = dir.file("bad.txt", &"not an id\n".repeat(20_000));
    let (_, stdout, stderr) = bash(
        r#""$0" canon --tsv < "$1" | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}""#,
        &[p(&bad)],
    );
    assert_eq!((stdout.as_str(), stderr.as_str()), ("1\n", ""));
}

#[test]
fn check_stops_reading_when_its_reader_goes_away() {
    let dir = Dir::new("messages-pipe-stop");
    let (_, nt) = big_inputs(&dir);
    // Stdin stays open for 60 s after the data: the check ends sooner only by stopping at the
    // closed pipe.
    let started = Instant::now();
    let (status, stdout, stderr) = bash(
        r#"exec 3< <(cat "$1"; exec sleep 60 2>/dev/null); slow=$!
        "$0" check - <&3 | head -c 10 >/dev/null; status=${PIPESTATUS[0]}
        kill "$slow"; echo "$status""#,
        &[p(&nt)],
    );
    assert_eq!(
        (status, stdout.as_str(), stderr.as_str()),
        (Some(0), "1\n", "")
    );
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn n_triples_and_n_quads_inputs_are_read_together_as_n_quads() {
    let dir = Dir::new("messages-nt-nq");
    let nt = dir.file(
        "a.nt",
        "<info:fedora/demo%3a1> <http://x/p> <http://x/o> .\n",
    );
    let nq = dir.file(
        "b.nq",
        "<info:fedora/demo%3a2> <http://x/p> <http://x/o> .\n",
    );
    let out = run_pidcanon(&["rewrite", "-q", p(&nt), p(&nq), "--to", "nt"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "<info:fedora/demo:1> <http://x/p> <http://x/o> .\n\
         <info:fedora/demo:2> <http://x/p> <http://x/o> .\n"
    );
    // And an N-Triples file with stdin, which is read as N-Quads.
    let out = run_pidcanon(
        &["check", "-q", p(&nt), "-"],
        b"<info:fedora/demo:3> <http://x/p> <http://x/o> .\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
}

#[test]
fn inputs_in_different_formats_are_named_with_the_command() {
    let dir = Dir::new("messages-formats");
    let ttl = dir.file("a.ttl", "<http://x/s> <http://x/p> <http://x/o> .\n");
    let nt = dir.file("b.nt", "<http://x/s> <http://x/p> <http://x/o> .\n");
    let store = dir.path("store");
    fs::create_dir(&store).expect("mkdir");
    for command in ["rewrite", "check"] {
        let out = run_pidcanon(&[command, p(&ttl), p(&nt)], b"");
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!(
                "pidcanon: {} is Turtle and {} is N-Triples: {command} them separately, or give \
                 one format for all with -i\n",
                ttl.display(),
                nt.display()
            )
        );
        let out = run_pidcanon(&[command, p(&store), p(&nt)], b"");
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!(
                "pidcanon: {} is FOXML (a Fedora object store) and {} is RDF: {command} them \
                 separately\n",
                store.display(),
                nt.display()
            )
        );
    }
}

#[test]
fn stdin_that_is_not_n_quads_gets_a_hint_to_use_i() {
    let turtle = b"@prefix ex: <http://x/> .\nex:a ex:b ex:c .\n";
    let rdfxml = b"<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>\n";
    let hint = "pidcanon: hint: <stdin> is read as N-Quads (or N-Triples) when -i is not given; \
                for Turtle, TriG or RDF/XML give -i ttl, -i trig or -i rdfxml\n";
    for (command, input) in [
        (&["rewrite"][..], &turtle[..]),
        (&["check"], rdfxml),
        (&["rewrite", "--lenient"], turtle),
        (&["check", "--lenient"], turtle),
    ] {
        let out = run_pidcanon(command, input);
        let stderr = text(&out.stderr);
        assert_eq!(stderr.matches(hint).count(), 1, "{command:?}: {stderr}");
        // After the first error (which `check --lenient` lists on stdout).
        let listed = format!("{}{stderr}", text(&out.stdout));
        assert!(listed.contains("<stdin>:1:1: "), "{listed}");
        assert!(listed.find("<stdin>:1:1: ") < listed.find(hint), "{listed}");
    }
    // Not when -i was given, nor for a file.
    let out = run_pidcanon(&["rewrite", "-i", "nt"], turtle);
    assert!(!text(&out.stderr).contains("hint"), "{}", text(&out.stderr));
}

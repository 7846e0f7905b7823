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

#[test]
fn check_stopped_by_a_syntax_error_counts_and_lists_it() {
    let dir = Dir::new("messages-check-stop");
    let nt = dir.file(
        "bad.nt",
        "<info:fedora/demo%3a1> <http://x/p> \"a\" .\n<http://x/s> <http://x/p> .\n<info:fedora/demo%3a2> <http://x/p> \"a\" .\n",
    );
    let out = run_pidcanon(&["check", p(&nt)], b"");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let name = nt.display();
    assert_eq!(
        stdout,
        format!(
            "{name}:1:1: non-canonical fedora-object <info:fedora/demo%3a1>: canonical <info:fedora/demo:1>\n\
             {name}:2:27: syntax-error: The object of a triple must be an IRI, a blank node or a literal\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.starts_with(&format!(
            "pidcanon: {name}:2:27: stopped at this syntax error (--lenient lists every one and goes on)\n\
             pidcanon: 2 findings in 1 file: 1 non-canonical, 0 invalid, 1 syntax-error; 1 distinct IRI\n"
        )),
        "{stderr}"
    );
    let out = run_pidcanon(&["check", "--report", "json", p(&nt)], b"");
    let summary = text(&out.stdout);
    let summary = summary.lines().last().expect("a summary");
    assert!(
        summary.contains(r#""by_finding":{"invalid":0,"non-canonical":1,"syntax-error":1}"#)
            && summary.contains(r#""stopped":true"#),
        "{summary}"
    );
}

#[test]
fn summaries_say_1_file_and_2_files() {
    let dir = Dir::new("messages-plural");
    let nt = dir.file(
        "a.nt",
        "<info:fedora/demo%3a1> <http://x/p> \"a\" .\n<info:fedora/demo:1> <http://x/p> \"a\" .\n",
    );
    let out = run_pidcanon(&["check", p(&nt)], b"");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("pidcanon: 1 finding in 1 file: 1 non-canonical, 0 invalid, 0 syntax-error; 1 distinct IRI\n"),
        "{stderr}"
    );
    let out = run_pidcanon(&["check", p(&nt), p(&nt)], b"");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("pidcanon: 2 findings in 2 files: 2 non-canonical, 0 invalid, 0 syntax-error; 1 distinct IRI\n"),
        "{stderr}"
    );
    let out = run_pidcanon(&["rewrite", "--dedup", p(&nt)], b"");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(
            "pidcanon: 2 statements read, 1 written; 1 IRI rewritten (fedora-object 1); \
             0 invalid identifiers; 1 duplicate dropped; 0 syntax errors; "
        ),
        "{stderr}"
    );
    let same_as = dir.file(
        "same.nt",
        "<http://x/a> <http://www.w3.org/2002/07/owl#sameAs> <http://x/b> .\n",
    );
    let out = run_pidcanon(&["rewrite", "--collapse", p(&same_as)], b"");
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(
            "pidcanon: --collapse: 1 equivalence pair, 1 class of 2 identifiers (gathered in "
        ),
        "{stderr}"
    );
}

#[test]
fn check_lists_a_finding_once_per_place_it_is_written() {
    let dir = Dir::new("messages-check-turtle");
    let ttl = dir.file(
        "a.ttl",
        "@prefix ex: <http://x/> .\n<info:fedora/demo%3a1> ex:p 1 ; ex:q 2 ;\n  ex:r <info:fedora/demo%3a1> .\n",
    );
    let out = run_pidcanon(&["check", p(&ttl)], b"");
    let name = ttl.display();
    assert_eq!(
        text(&out.stdout),
        format!(
            "{name}:2:1: non-canonical fedora-object <info:fedora/demo%3a1>: canonical <info:fedora/demo:1>\n\
             {name}:3:8: non-canonical fedora-object <info:fedora/demo%3a1>: canonical <info:fedora/demo:1>\n"
        )
    );
    assert!(
        text(&out.stderr).starts_with("pidcanon: 2 findings in 1 file:"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_policy_file_error_names_the_file_and_where() {
    let dir = Dir::new("messages-policy");
    let policy = dir.file("policy.toml", "# a policy\npoi_oai = \"sometimes\"\n");
    let out = run_pidcanon(&["canon", "--policy", p(&policy), "doi:10.1/x"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "pidcanon: {}:2:11: invalid policy: unknown variant `sometimes`, expected one of \
             `keep`, `poi`, `oai`\n",
            policy.display()
        )
    );
    let bad_url = dir.file("url.toml", "fedora_bases = [\"ftp://x/\"]\n");
    let out = run_pidcanon(&["check", "--policy", p(&bad_url), "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "pidcanon: {}: invalid Fedora base \"ftp://x/\"",
            bad_url.display()
        )),
        "{stderr}"
    );
    let missing = dir.path("missing.toml");
    let out = run_pidcanon(&["rewrite", "--policy", p(&missing), "-"], b"");
    assert_eq!(
        text(&out.stderr),
        format!(
            "pidcanon: {}: cannot read the policy file: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
}

#[test]
fn a_rename_cycle_is_reported_as_a_cycle() {
    let dir = Dir::new("messages-rename");
    let table = dir.file(
        "rename.tsv",
        "http://x/a\thttp://x/b\nhttp://x/b\thttp://x/a\n",
    );
    let out = run_pidcanon(&["rewrite", "--rename", p(&table), "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("final target on both lines"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}:1: <http://x/a> is renamed to <http://x/b>, which is renamed back to \
             <http://x/a> on line 2: a cycle",
            table.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.starts_with("pidcanon: 2 problems, nothing written:\n"),
        "{stderr}"
    );
    let table = dir.file(
        "three.tsv",
        "http://x/a\thttp://x/b\nhttp://x/b\thttp://x/c\nhttp://x/c\thttp://x/a\n",
    );
    let out = run_pidcanon(&["rewrite", "--rename", p(&table), "-"], b"");
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr
            .matches(": a cycle, which has no final target")
            .count(),
        3,
        "{stderr}"
    );
    assert!(!stderr.contains("final target on both lines"), "{stderr}");
}

/// A FOXML object with `datastreams` inside.
fn foxml(datastreams: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <foxml:digitalObject PID=\"demo:1\" xmlns:foxml=\"info:fedora/fedora-system:def/foxml#\">\n\
         {datastreams}\n</foxml:digitalObject>\n"
    )
}

#[test]
fn foxml_files_skipped_under_lenient_are_counted_and_listed() {
    let dir = Dir::new("messages-foxml");
    let store = dir.path("store");
    fs::create_dir(&store).expect("mkdir");
    fs::write(store.join("a.xml"), foxml("")).expect("written");
    fs::write(
        store.join("b.xml"),
        foxml("<foxml:datastream ID=\"DC\"></foxml:datastreamX>"),
    )
    .expect("written");
    fs::write(store.join("c.xml"), "<other/>\n").expect("written");
    let name = store.display();

    let out = run_pidcanon(&["rewrite", "--lenient", p(&store)], b"");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines[0].starts_with(&format!("pidcanon: {name}/b.xml:3:")),
        "{stderr}"
    );
    assert!(lines[0].contains(": skipped: malformed XML: "), "{stderr}");
    assert!(
        lines[1].starts_with(&format!(
            "pidcanon: {name}/c.xml: skipped: not a FOXML object"
        )),
        "{stderr}"
    );
    assert!(
        lines[2].contains("; 2 syntax errors (2 FOXML files skipped); "),
        "{stderr}"
    );
    assert_eq!(lines.len(), 3, "{stderr}");
    let out = run_pidcanon(
        &["rewrite", "--lenient", "--report", "json", p(&store)],
        b"",
    );
    let json = text(&out.stderr);
    assert!(
        json.contains(r#""files_skipped":2"#) && json.contains(r#""syntax_errors":2"#),
        "{json}"
    );

    let out = run_pidcanon(&["check", "--lenient", p(&store)], b"");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let listed: Vec<&str> = stdout.lines().collect();
    assert_eq!(listed.len(), 2, "{stdout}");
    assert!(
        listed[0].starts_with(&format!("{name}/b.xml:3:"))
            && listed[0].contains(": syntax-error: malformed XML: "),
        "{stdout}"
    );
    assert!(
        listed[1].starts_with(&format!("{name}/c.xml: syntax-error: not a FOXML object")),
        "{stdout}"
    );
    assert!(
        text(&out.stderr).starts_with(
            "pidcanon: 2 findings in 1 file: 0 non-canonical, 0 invalid, 2 syntax-error;"
        ),
        "{}",
        text(&out.stderr)
    );

    // Without --lenient: the first broken file stops the run, with line and column.
    let out = run_pidcanon(&["rewrite", p(&store)], b"");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("pidcanon: {name}/b.xml:3:"))
            && stderr.contains(": malformed XML: "),
        "{stderr}"
    );
}

#[test]
fn a_path_in_an_object_store_that_cannot_be_read_is_named() {
    let dir = Dir::new("messages-foxml-link");
    let store = dir.path("store");
    fs::create_dir(&store).expect("mkdir");
    fs::write(store.join("a.xml"), foxml("")).expect("written");
    std::os::unix::fs::symlink("nowhere", store.join("b")).expect("symlink");
    for args in [
        &["rewrite", "--lenient"][..],
        &["check", "--lenient"],
        &["rewrite"],
        &["check"],
    ] {
        let mut args = args.to_vec();
        args.push(p(&store));
        let out = run_pidcanon(&args, b"");
        let stderr = text(&out.stderr);
        let said = stderr
            .lines()
            .find(|l| l.contains("store/b"))
            .unwrap_or_else(|| panic!("{args:?}: {stderr}"));
        assert!(!said.contains(": : "), "{args:?}: {stderr}");
        assert!(!said.contains("a.xml"), "{args:?}: {stderr}");
    }
}

#[test]
fn strict_accepts_links_to_fedora_api_resources_and_leaves_them_as_they_are() {
    let base = "http://localhost:8080/fedora";
    let input = format!(
        "<{base}/objects/demo%3A1> <http://x/profile> <{base}/objects/demo:1/datastreams/DC> .\n\
         <{base}/objects/demo:1> <http://x/export> <{base}/objects/demo:1/objectXML> .\n"
    );
    let out = run_pidcanon(
        &[
            "rewrite",
            "--strict",
            "-q",
            "-i",
            "nt",
            "--fedora-base",
            base,
        ],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!(
            "<info:fedora/demo:1> <http://x/profile> <{base}/objects/demo:1/datastreams/DC> .\n\
             <info:fedora/demo:1> <http://x/export> <{base}/objects/demo:1/objectXML> .\n"
        )
    );
}

/// The paragraph of `--help` that describes `option`.
fn help_of(command: &str, option: &str) -> String {
    let out = run_pidcanon(&[command, "--help"], b"");
    let help = text(&out.stdout);
    let start = help
        .find(&format!("      {option} "))
        .or_else(|| help.find(&format!("      {option}\n")))
        .unwrap_or_else(|| panic!("{option} in {help}"));
    let rest = &help[start..];
    rest[..rest.find("\n\n").unwrap_or(rest.len())].to_owned()
}

#[test]
fn help_says_what_the_options_apply_to() {
    let threads = help_of("rewrite", "--threads");
    assert!(
        threads.contains("Turtle") && threads.contains("FOXML"),
        "{threads}"
    );
    let reject = help_of("rewrite", "--reject");
    assert!(reject.contains("Turtle/TriG statement"), "{reject}");
    for command in ["rewrite", "check"] {
        let base = help_of(command, "--base");
        assert!(
            base.contains("each input file's own file:// URL") && !base.contains("several"),
            "{base}"
        );
    }
}

#[test]
fn every_command_has_a_section_in_the_readme() {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let out = run_pidcanon(&["--help"], b"");
    let help = text(&out.stdout);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert_eq!(commands, ["canon", "rewrite", "check", "store"], "{help}");
    for command in commands {
        assert!(
            readme.contains(&format!("\n### `pidcanon {command}`")),
            "no README section for {command}"
        );
    }
    // Several inputs: each resolves against its own URL, as the README says.
    assert!(
        !readme.contains("several inputs have no default base"),
        "the README says several inputs have no base"
    );
}

#[test]
fn each_input_file_resolves_against_its_own_url() {
    let dir = Dir::new("messages-bases");
    fs::create_dir(dir.path("a")).expect("mkdir");
    fs::create_dir(dir.path("b")).expect("mkdir");
    let a = dir.file("a/x.ttl", "<s> <http://x/p> <o> .\n");
    let b = dir.file("b/y.ttl", "<s> <http://x/p> <o> .\n");
    let out = run_pidcanon(&["rewrite", "-q", p(&a), p(&b), "--to", "nt"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let root = fs::canonicalize(&dir.0).expect("canonical");
    let root = root.display();
    assert_eq!(
        text(&out.stdout),
        format!(
            "<file://{root}/a/s> <http://x/p> <file://{root}/a/o> .\n\
             <file://{root}/b/s> <http://x/p> <file://{root}/b/o> .\n"
        )
    );
}

#[test]
fn an_identifier_written_with_escapes_is_placed_at_its_column_on_every_path() {
    let dir = Dir::new("escaped-column");
    let input = dir.file(
        "esc.nt",
        "<http://e/s> <http://e/p> <info:fedora/demo\\u0025\\u00333a1> .\n",
    );
    for to in ["nt", "ttl"] {
        let out = run_pidcanon(&["rewrite", "--to", to, p(&input)], b"");
        let said = text(&out.stderr);
        assert!(
            said.contains("esc.nt:1:27: invalid identifier <info:fedora/demo%33a1>"),
            "--to {to}: {said}"
        );
    }
}

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

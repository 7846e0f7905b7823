//! Shared by the tests: the vector files and their options, running the binary, temporary
//! directories, and an observer that records what a rewrite tells.

#![allow(dead_code)]

pub mod reference;

use pidcanon::{DoiForm, HandleForm, PoiOai, Policy};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One row of a vectors file: input, expected, kind, options, note.
#[derive(Debug, Clone)]
pub struct Vector {
    pub location: String,
    pub input: String,
    pub expected: String,
    pub kind: String,
    pub options: String,
    pub note: String,
}

pub const FILES: [&str; 3] = [
    "fixtures/conformance/seed-vectors.tsv",
    "fixtures/conformance/decision-vectors.tsv",
    "fixtures/conformance/pidcanon-vectors.tsv",
];

/// Every vector of every file.
pub fn vectors() -> Vec<Vector> {
    FILES.iter().flat_map(|f| load(f)).collect()
}

pub fn load(path: &str) -> Vec<Vector> {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(n, line)| {
            let mut cols = line.split('\t').map(str::to_owned);
            let mut next = || cols.next().unwrap_or_default();
            Vector {
                location: format!("{path}:{}", n + 1),
                input: next(),
                expected: next(),
                kind: next(),
                options: next(),
                note: next(),
            }
        })
        .collect()
}

impl Vector {
    /// What names a vector in `expected-failures.txt`: its input and options (not its place in a
    /// file, which shifts when a row is added), as rust-url names WPT cases.
    pub fn key(&self) -> (String, String) {
        (self.input.clone(), self.options.clone())
    }
}

/// The vectors known not to pass yet (`expected-failures.txt`): one `input<TAB>options` per
/// line, the options possibly empty; lines starting with `#` are comments.
pub fn expected_failures() -> BTreeSet<(String, String)> {
    let full =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/conformance/expected-failures.txt");
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full:?}: {e}"));
    parse_expected_failures(&text)
}

pub fn parse_expected_failures(text: &str) -> BTreeSet<(String, String)> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (input, options) = l.split_once('\t').unwrap_or((l, ""));
            (input.to_owned(), options.trim().to_owned())
        })
        .collect()
}

/// The `--scheme` and the policy that a vector's options column selects.
pub fn options(options: &str) -> (Option<String>, Policy) {
    let mut policy = Policy::default();
    let mut scheme = None;
    let words: Vec<&str> = options.split_whitespace().collect();
    for pair in words.chunks(2) {
        let [flag, value] = pair else {
            panic!("options {options:?}: a flag without a value")
        };
        match *flag {
            "--scheme" => scheme = Some((*value).to_owned()),
            "--poi-oai" => {
                policy.poi_oai = match *value {
                    "keep" => PoiOai::Keep,
                    "poi" => PoiOai::Poi,
                    "oai" => PoiOai::Oai,
                    v => panic!("--poi-oai {v}"),
                }
            }
            "--handle-form" => {
                policy.handle_form = match *value {
                    "hdl" => HandleForm::Hdl,
                    "https" => HandleForm::Https,
                    v => panic!("--handle-form {v}"),
                }
            }
            "--doi-form" => {
                policy.doi_form = match *value {
                    "hdl" => DoiForm::Hdl,
                    "https" => DoiForm::Https,
                    v => panic!("--doi-form {v}"),
                }
            }
            "--fedora-base" => policy.fedora_bases.push((*value).to_owned()),
            "--handle-resolver" => policy.handle_resolvers.push((*value).to_owned()),
            f => panic!("unknown option {f} in vectors"),
        }
    }
    (scheme, policy)
}

/// Runs the `pidcanon` binary with `args`, `stdin` written from a thread (so that a large input
/// cannot block on a full pipe), and collects its output.
pub fn run_pidcanon(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_pidcanon"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&stdin));
    let output = child.wait_with_output().expect("the binary ends");
    let _ = writer.join();
    output
}

/// A temporary directory for one test, removed at the end.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("pidcanon-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        Self(dir)
    }

    pub fn file(&self, name: &str, content: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, content).expect("written");
        path
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub fn entries(&self) -> usize {
        std::fs::read_dir(&self.0).expect("readable").count()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What an observer heard, as text: the locations of rewrites and syntax errors.
#[derive(Clone, Default)]
pub struct Heard(pub std::rc::Rc<std::cell::RefCell<Vec<String>>>);

impl pidcanon::rewrite::Observer for Heard {
    fn rewritten(
        &mut self,
        location: pidcanon::rewrite::Location,
        original: &str,
        _: &str,
        _: pidcanon::Kind,
    ) {
        self.0.borrow_mut().push(format!("{location} {original}"));
    }
    fn syntax_error(
        &mut self,
        error: &pidcanon::rewrite::SyntaxError,
        recovery: pidcanon::rewrite::Recovery,
    ) {
        self.0.borrow_mut().push(format!("{error} {recovery:?}"));
    }
}

/// Asserts that two runs' findings are the same, showing the first that differs: the rewrites
/// in order, the syntax errors in order (syntax errors are told as they are read, rewrites as
/// batches are mapped: with a second thread mapping, how the two interleave depends on timing).
pub fn same_findings(expected: &[String], heard: &[String], case: &str) {
    for errors in [true, false] {
        let part = |all: &[String]| -> Vec<String> {
            let all = all.iter().filter(|h| h.contains("syntax error") == errors);
            all.cloned().collect()
        };
        let (expected, heard) = (part(expected), part(heard));
        if let Some(at) = expected.iter().zip(&heard).position(|(a, b)| a != b) {
            panic!(
                "{case}: finding {at} differs: {:?} != {:?}",
                expected[at], heard[at]
            );
        }
        assert_eq!(expected.len(), heard.len(), "{case}");
    }
}

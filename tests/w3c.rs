//! The W3C RDF 1.1 and 1.2 syntax test suites (`fixtures/w3c/`), driven by their manifests:
//! every positive test (syntax, evaluation, C14N) of N-Triples, N-Quads, Turtle and TriG is
//! rewritten without error into a graph isomorphic to the input's; every negative test makes
//! the rewrite fail — through the library, and through `pidcanon rewrite -o FILE`, which must
//! exit non-zero, name the line, and leave no output file. Failures are collected, then asserted
//! once; `fixtures/w3c-expected-failures.txt` lists the known ones (and an unexpected success
//! fails too).

mod common;

use common::reference::RdfParser;
use oxrdf::Dataset;
use oxrdf::dataset::CanonicalizationAlgorithm;
use oxttl::TurtleParser;
use pidcanon::Registry;
use pidcanon::rewrite::RdfFormat;
use pidcanon::rewrite::Rewriter;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const RDFT: &str = "http://www.w3.org/ns/rdftest#";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const MF_ACTION: &str = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#action";

#[derive(Debug)]
struct Test {
    id: String,
    positive: bool,
    format: RdfFormat,
    action: PathBuf,
    base: String,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn manifests(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            manifests(&path, found);
        } else if path.file_name().is_some_and(|n| n == "manifest.ttl") {
            found.push(path);
        }
    }
}

/// The tests of every manifest: `(type, action)` of each entry, mapped to a `Test`.
fn tests() -> Vec<Test> {
    let mut files = Vec::new();
    manifests(&root().join("w3c"), &mut files);
    let mut tests = Vec::new();
    for manifest in files {
        let base = format!("file://{}", manifest.display());
        let text = std::fs::read(&manifest).expect("readable manifest");
        let mut types = BTreeMap::new();
        let mut actions = BTreeMap::new();
        for triple in TurtleParser::new()
            .with_base_iri(&base)
            .expect("base")
            .for_slice(&text)
        {
            let triple = triple.unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
            let subject = triple.subject.to_string();
            match (triple.predicate.as_str(), triple.object) {
                (RDF_TYPE, oxrdf::Term::NamedNode(t)) => {
                    types.insert(subject, t.as_str().to_owned());
                }
                (MF_ACTION, oxrdf::Term::NamedNode(a)) => {
                    actions.insert(subject, a.as_str().to_owned());
                }
                _ => {}
            }
        }
        for (subject, test_type) in types {
            let Some(name) = test_type.strip_prefix(RDFT) else {
                continue;
            };
            let Some(action) = actions.get(&subject) else {
                continue;
            };
            let format = if name.starts_with("TestNTriples") {
                RdfFormat::NTriples
            } else if name.starts_with("TestNQuads") {
                RdfFormat::NQuads
            } else if name.starts_with("TestTurtle") {
                RdfFormat::Turtle
            } else if name.starts_with("TestTrig") || name.starts_with("TestTriG") {
                RdfFormat::TriG
            } else {
                continue;
            };
            let positive = !name.contains("Negative");
            let action = PathBuf::from(action.strip_prefix("file://").expect("a file action"));
            let id = action
                .strip_prefix(root())
                .expect("under fixtures")
                .display()
                .to_string();
            let file = action
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let base = format!(
                "https://w3c.github.io/rdf-tests/{}",
                id.trim_start_matches("w3c/").replace(file, "")
            ) + file;
            tests.push(Test {
                id,
                positive,
                format,
                action,
                base,
            });
        }
    }
    tests
}

fn expected_failures() -> BTreeSet<String> {
    std::fs::read_to_string(root().join("w3c-expected-failures.txt"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

fn dataset(bytes: &[u8], format: RdfFormat, base: &str) -> Result<Dataset, String> {
    let parser = RdfParser::from_format(format)
        .with_base_iri(base)
        .map_err(|e| e.to_string())?;
    let mut dataset: Dataset = parser
        .for_slice(bytes)
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    dataset.canonicalize(CanonicalizationAlgorithm::Unstable);
    Ok(dataset)
}

fn rewrite(test: &Test) -> Result<Vec<u8>, String> {
    rewrite_on(test, 1)
}

fn rewrite_on(test: &Test, threads: usize) -> Result<Vec<u8>, String> {
    let rewriter = Rewriter::new(Registry::default())
        .with_format(test.format)
        .with_threads(threads)
        .with_base_iri(test.base.as_str())
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    let input = std::fs::read(&test.action).map_err(|e| e.to_string())?;
    session
        .rewrite(input.as_slice())
        .map_err(|e| e.to_string())?;
    session.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// What is wrong with the library's handling of `test`, if anything.
fn check(test: &Test) -> Option<String> {
    let input = std::fs::read(&test.action).expect("readable action");
    match (test.positive, rewrite(test)) {
        (true, Err(e)) => Some(format!("positive test failed: {e}")),
        (true, Ok(output)) => {
            let expected = dataset(&input, test.format, &test.base);
            let actual = dataset(&output, test.format, &test.base);
            match (expected, actual) {
                (Ok(e), Ok(a)) if e == a => None,
                (Ok(_), Ok(_)) => Some("the output is not isomorphic to the input".into()),
                (Err(e), _) => Some(format!(
                    "the input does not parse with the reference parser: {e}"
                )),
                (_, Err(e)) => Some(format!("the output does not parse: {e}")),
            }
        }
        (false, Ok(_)) => Some("negative test rewritten without error".into()),
        (false, Err(_)) => None,
    }
}

#[test]
fn w3c_syntax_suites_through_the_library() {
    let all = tests();
    assert!(all.len() > 1000, "only {} tests found", all.len());
    let known = expected_failures();
    let mut failures = Vec::new();
    let mut unexpected = Vec::new();
    for test in &all {
        match (check(test), known.contains(&test.id)) {
            (Some(problem), false) => failures.push(format!("{}: {problem}", test.id)),
            (None, true) => unexpected.push(test.id.clone()),
            _ => {}
        }
    }
    assert!(
        failures.is_empty() && unexpected.is_empty(),
        "{} of {} W3C tests failed:\n{}\nunexpected successes (remove from w3c-expected-failures.txt): {unexpected:?}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// Turtle read on two threads (in pieces, `src/read/parallel.rs`) gives what one gives:
/// the same bytes, or the same error.
#[test]
fn turtle_suite_on_two_threads_as_on_one() {
    let turtle: Vec<Test> = tests()
        .into_iter()
        .filter(|t| t.format == RdfFormat::Turtle)
        .collect();
    assert!(
        turtle.len() > 300,
        "only {} Turtle tests found",
        turtle.len()
    );
    let differ: Vec<&str> = turtle
        .iter()
        .filter(|t| rewrite_on(t, 1) != rewrite_on(t, 2))
        .map(|t| t.id.as_str())
        .collect();
    assert!(differ.is_empty(), "two threads differ on {differ:?}");
}

#[test]
fn negative_tests_fail_the_cli_naming_the_line_and_leave_no_output() {
    let known = expected_failures();
    let dir = std::env::temp_dir().join(format!("pidcanon-w3c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut failures = Vec::new();
    for test in tests()
        .iter()
        .filter(|t| !t.positive && !known.contains(&t.id))
    {
        let output = dir.join("out");
        let format = match test.format {
            RdfFormat::NTriples => "nt",
            RdfFormat::NQuads => "nq",
            RdfFormat::Turtle => "ttl",
            _ => "trig",
        };
        let result = Command::new(env!("CARGO_BIN_EXE_pidcanon"))
            .args(["rewrite", "-q", "-i", format, "--base", &test.base, "-o"])
            .arg(&output)
            .arg(&test.action)
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&result.stderr);
        let names_line = stderr
            .split(&format!("{}:", test.action.display()))
            .nth(1)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        if result.status.success() || !names_line || output.exists() {
            failures.push(format!(
                "{}: exit {:?}, stderr {stderr:?}, output left: {}",
                test.id,
                result.status,
                output.exists()
            ));
        }
        if std::fs::read_dir(&dir).expect("readable").next().is_some() {
            failures.push(format!(
                "{}: a file was left in the output directory",
                test.id
            ));
            std::fs::remove_dir_all(&dir).expect("cleaned");
            std::fs::create_dir_all(&dir).expect("temp dir");
        }
    }
    std::fs::remove_dir_all(&dir).expect("cleaned up");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

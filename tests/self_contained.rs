//! The project carries everything its tests, benchmarks and docs use: no text in the repository
//! refers to a path outside it. A fresh clone has nothing beside it, so a script or a doc that
//! reaches for a sibling directory (the reference material a development machine may hold next
//! to the repository) fails for everyone else.
//!
//! The check is a strict grep, without false positives on this tree: every text file (build
//! output, caches and the fuzz corpora aside) is searched for
//! - the names of the places outside the repository that files used to point at: the sibling
//!   `shared` directory, however a path to it is spelled, and the development machine's work
//!   directory as an absolute path (at the start of a path only: a URL such as
//!   `http://example.org/work/1` is not a path), and
//! - a relative path that climbs above the repository root from the file's own directory:
//!   a path that starts with more parent steps than the file lies deep (one in the root's
//!   README, two in `benches/`). Only a path that starts a token counts (at the start of a
//!   line, or after a space, a quote, a backtick, `(`, `[`, `=` or `,`): in an RDF file `<`
//!   starts a relative IRI, not a path, and in `a/` followed by a parent step the path starts
//!   at `a`.

use std::path::{Path, PathBuf};

/// Text that names a place outside the repository, anywhere on a line. Built with `concat!` so
/// that this file does not hold the strings it looks for.
const NEEDLES: [&str; 7] = [
    concat!("..", "/shared"),
    concat!("shared", "/bench"),
    concat!("shared", "/corpus"),
    concat!("shared", "/seeds"),
    // the same paths built from components, as Python writes them
    concat!("\"..\", ", "\"shared\""),
    concat!("/ \"sha", "red\" /"),
    concat!("\"sha", "red\", \"bench\""),
];

/// Absolute paths outside the repository: found where a path starts.
const PATH_NEEDLES: [&str; 1] = [concat!("/wo", "rk/")];

/// Whether the text at `start` of `line` starts a token (a path, a word).
fn starts_token(line: &str, start: usize) -> bool {
    start == 0
        || matches!(
            line.as_bytes()[start - 1],
            b' ' | b'\t' | b'"' | b'\'' | b'`' | b'(' | b'[' | b'=' | b','
        )
}

/// Directories that are not the project's text: build output, caches, fuzzing inputs.
fn skipped(relative: &Path) -> bool {
    let name = relative
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    matches!(name, ".git" | "target" | "__pycache__" | "node_modules")
        || (name.starts_with('.') && name.ends_with("cache"))
        || [
            "fuzz/corpus",
            "fuzz/artifacts",
            "fuzz/coverage",
            "python/target",
        ]
        .iter()
        .any(|p| relative == Path::new(p))
}

/// Every file under `dir`, skipped directories aside.
fn walk(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let relative = path.strip_prefix(root).expect("under the root");
        let kind = std::fs::symlink_metadata(&path)
            .expect("metadata")
            .file_type();
        if kind.is_dir() {
            if !skipped(relative) {
                walk(root, &path, files);
            }
        } else if kind.is_file() && relative != Path::new(".git") {
            // (`.git` is a file in a git worktree: it points at the repository it belongs to.)
            files.push(relative.to_owned());
        }
    }
}

/// What on `line` refers to a path outside the repository, for a file `depth` directories below
/// the root: a needle, or a relative path that climbs more than `depth` levels.
fn outside_reference(line: &str, depth: usize) -> Option<String> {
    if let Some(needle) = NEEDLES.iter().find(|n| line.contains(**n)) {
        return Some(format!("refers to {needle:?}"));
    }
    for needle in PATH_NEEDLES {
        if line
            .match_indices(needle)
            .any(|(start, _)| starts_token(line, start))
        {
            return Some(format!("refers to the absolute path {needle:?}"));
        }
    }
    let mut at = 0;
    while let Some(found) = line[at..].find("../") {
        let start = at + found;
        let mut end = start;
        let mut levels = 0;
        while line[end..].starts_with("../") {
            levels += 1;
            end += 3;
        }
        if levels > depth && starts_token(line, start) {
            return Some(format!(
                "climbs {levels} levels from a file {depth} below the repository root"
            ));
        }
        at = end;
    }
    None
}

/// Every `file:line: what` of the tree under `root` that refers outside it.
fn findings(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    walk(root, root, &mut files);
    assert!(files.len() > 100, "walked only {} files", files.len());
    let mut found = Vec::new();
    for relative in files {
        let bytes = std::fs::read(root.join(&relative)).expect("a readable file");
        // Text only: binary files (extension modules, images) are not written by hand.
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        if text.contains('\0') {
            continue;
        }
        let depth = relative.components().count() - 1;
        for (number, line) in text.lines().enumerate() {
            if let Some(what) = outside_reference(line, depth) {
                found.push(format!(
                    "{}:{}: {what}: {}",
                    relative.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    found
}

#[test]
fn nothing_in_the_repository_refers_to_a_path_outside_it() {
    let found = findings(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(
        found.is_empty(),
        "{} references to paths outside the repository (the project must carry what it uses):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_matcher_finds_paths_that_leave_the_repository() {
    let shared = concat!("..", "/shared", "/bench/gen.py");
    for line in [
        format!("gen=${{GEN:-{shared}}}"),
        format!("python3 {shared} --statements 10"),
        format!("see `{shared}`"),
        concat!("cd /wo", "rk/main && make").to_owned(),
        concat!("[ -f \"$gen\" ] || gen=/wo", "rk/elsewhere/gen.py").to_owned(),
        concat!("[ -f \"$g\" ] || g=/elsewhere/shared", "/bench/x.py").to_owned(),
        concat!("from the corpus (shared", "/corpus/real/)").to_owned(),
        concat!(
            "os.path.join(REPO, \"..\", ",
            "\"shared\", \"bench\", \"g.py\")"
        )
        .to_owned(),
        concat!("ROOT.parent / \"sha", "red\" / \"bench\"").to_owned(),
    ] {
        assert!(
            outside_reference(&line, 1).is_some(),
            "not found in {line:?}"
        );
    }
    // Climbing: more `../` than the file's depth, at the start of a path.
    assert!(outside_reference("see [the README](../README.md)", 0).is_some());
    let two_up = concat!("..", "/..", "/x");
    assert!(outside_reference(&format!("include_str!(\"{two_up}\")"), 1).is_some());
    assert!(outside_reference(two_up, 1).is_some());
    assert_eq!(outside_reference(two_up, 2), None);
}

#[test]
fn the_matcher_leaves_paths_inside_the_repository_alone() {
    for (line, depth) in [
        ("see [the README](../README.md)", 1),
        ("#[path = \"../fuzz/src/lib.rs\"]", 1),
        ("cd \"$(dirname \"$0\")/..\"", 1),
        ("<../../g> <p> <o> .", 0),
        ("\"x:a/./../b\",", 0),
        ("<http://a/b/../c> <p> <./o> .", 0),
        ("\"10../x\",", 0),
        ("python3 benches/gen_rdf.py --statements 1000", 0),
        ("a shared 2-core machine", 0),
        ("<http://example.org/work/7> <p> <o> .", 0),
        ("let shared = d.graph(x)", 0),
    ] {
        assert_eq!(outside_reference(line, depth), None, "{line:?}");
    }
}

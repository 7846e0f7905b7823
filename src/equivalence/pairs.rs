//! Tab-separated IRI pairs, one per line (`--rename`, `--equivalences`): the format `--map`
//! writes (`original<TAB>canonical<TAB>kind`; a third column is allowed and ignored). Empty lines
//! and lines starting with `#` are skipped. Each IRI is canonicalized by the registry, so any
//! spelling of an identifier may be written.

use crate::{IdError, Kind, Registry};
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// One pair of canonical IRIs, with the kinds they were recognized as and their line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The 1-based line.
    pub line: u64,
    /// The first column, canonicalized.
    pub left: (String, Kind),
    /// The second column, canonicalized.
    pub right: (String, Kind),
}

/// A line of a pair file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairProblem {
    /// The 1-based line.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PairProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.line, self.message)
    }
}

impl std::error::Error for PairProblem {}

/// A pair file that cannot be used, named by its path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PairFileError {
    /// The file cannot be read: `PATH: error`.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Lines that cannot be used, one per line of the message: `PATH:LINE: problem`.
    #[error("{}", problem_lines(path, problems))]
    Problems {
        /// The file.
        path: PathBuf,
        /// Every problem, in the order of the lines.
        problems: Vec<PairProblem>,
    },
}

fn problem_lines(path: &Path, problems: &[PairProblem]) -> String {
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("{}:{p}", path.display()))
        .collect();
    lines.join("\n")
}

/// Reads every pair of the file at `path` ([`read_pairs`]), with the path in its errors.
///
/// ```
/// use pidcanon::{equivalence::mapping::{read_pairs_file, PairFileError}, Registry};
/// let path = std::env::temp_dir().join("pidcanon-doctest-pairs.tsv");
/// std::fs::write(&path, "http://e/a\thttp://e/b\nnot a pair\n")?;
/// let error = read_pairs_file(&path, &Registry::default()).unwrap_err();
/// assert!(matches!(error, PairFileError::Problems { .. }));
/// assert!(error.to_string().starts_with(&format!("{}:2: expected two IRIs", path.display())));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_pairs_file(path: &Path, registry: &Registry) -> Result<Vec<Pair>, PairFileError> {
    read_file(path, |input| read_pairs(input, registry))
}

/// What `read` makes of the file at `path`, with the path in its errors.
pub(crate) fn read_file<T>(
    path: &Path,
    read: impl FnOnce(BufReader<File>) -> std::io::Result<Result<T, Vec<PairProblem>>>,
) -> Result<T, PairFileError> {
    let io = |source| PairFileError::Io {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    read(BufReader::new(file))
        .map_err(io)?
        .map_err(|problems| PairFileError::Problems {
            path: path.to_owned(),
            problems,
        })
}

/// The pairs of IRIs an application holds (any spelling of an identifier), numbered from 1 in
/// the place of lines; the problems of every bad pair, or the pairs.
///
/// ```
/// use pidcanon::{equivalence::mapping::pairs_of, Registry};
/// let pairs = pairs_of([("info:fedora/demo%3a1", "https://repo.example/obj/1")], &Registry::default()).unwrap();
/// assert_eq!(pairs[0].left.0, "info:fedora/demo:1");
/// let problems = pairs_of([("info:fedora/x", "http://e/")], &Registry::default()).unwrap_err();
/// assert_eq!(problems[0].line, 1);
/// ```
pub fn pairs_of<'a>(
    iris: impl IntoIterator<Item = (&'a str, &'a str)>,
    registry: &Registry,
) -> Result<Vec<Pair>, Vec<PairProblem>> {
    let mut pairs = Vec::new();
    let mut problems = Vec::new();
    for (index, (left, right)) in iris.into_iter().enumerate() {
        match pair(registry, index as u64 + 1, left, right) {
            Ok(pair) => pairs.push(pair),
            Err(bad) => problems.extend(bad),
        }
    }
    if problems.is_empty() {
        Ok(pairs)
    } else {
        Err(problems)
    }
}

/// The pair of `left` and `right`, numbered `line`, each canonicalized; the problem of each
/// side that is not an identifier.
fn pair(registry: &Registry, line: u64, left: &str, right: &str) -> Result<Pair, Vec<PairProblem>> {
    let side = |column: &str, name: &str| {
        canonical(registry, column).map_err(|e| PairProblem {
            line,
            message: format!("{name} <{column}>: {e}"),
        })
    };
    match (side(left, "first column"), side(right, "second column")) {
        (Ok(left), Ok(right)) => Ok(Pair { line, left, right }),
        (left, right) => Err(left.err().into_iter().chain(right.err()).collect()),
    }
}

/// Reads every pair of `input`; the problems of every bad line, or the pairs.
///
/// ```
/// use pidcanon::{equivalence::mapping::read_pairs, Registry};
/// let text = "# old\tnew\ninfo:fedora/demo%3a1\thttps://repo.example/obj/1\n";
/// let pairs = read_pairs(text.as_bytes(), &Registry::default()).unwrap().unwrap();
/// assert_eq!(pairs[0].left.0, "info:fedora/demo:1");
/// assert_eq!(pairs[0].line, 2);
/// let problems = read_pairs("a\n".as_bytes(), &Registry::default()).unwrap().unwrap_err();
/// assert!(problems[0].message.contains("tab"), "{}", problems[0]);
/// ```
pub fn read_pairs(
    input: impl BufRead,
    registry: &Registry,
) -> std::io::Result<Result<Vec<Pair>, Vec<PairProblem>>> {
    let mut pairs = Vec::new();
    let mut problems = Vec::new();
    for (index, text) in input.lines().enumerate() {
        let text = text?;
        let line = index as u64 + 1;
        let text = text.strip_suffix('\r').unwrap_or(&text);
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let columns: Vec<&str> = text.split('\t').collect();
        if !(2..=3).contains(&columns.len()) {
            problems.push(PairProblem {
                line,
                message: format!(
                    "expected two IRIs separated by a tab (and optionally a kind), found {} column(s)",
                    columns.len()
                ),
            });
            continue;
        }
        match pair(registry, line, columns[0], columns[1]) {
            Ok(pair) => pairs.push(pair),
            Err(bad) => problems.extend(bad),
        }
    }
    Ok(if problems.is_empty() {
        Ok(pairs)
    } else {
        Err(problems)
    })
}

/// The canonical form of one IRI of a pair file, and its kind.
fn canonical(registry: &Registry, iri: &str) -> Result<(String, Kind), IdError> {
    let canonical = registry.canonicalize(iri)?;
    Ok((canonical.iri.into_owned(), canonical.kind))
}

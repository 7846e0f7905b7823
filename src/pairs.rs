//! Tab-separated IRI pairs, one per line (`--rename`, `--equivalences`): the format `--map`
//! writes (`original<TAB>canonical<TAB>kind`; a third column is allowed and ignored). Empty lines
//! and lines starting with `#` are skipped. Each IRI is canonicalized by the registry, so any
//! spelling of an identifier may be written.

use crate::{IdError, Kind, Registry};
use std::fmt;
use std::io::BufRead;

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

/// Reads every pair of `input`; the problems of every bad line, or the pairs.
///
/// ```
/// use pidcanon::{pairs::read_pairs, Registry};
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
        let side = |column: &str, name: &str| {
            canonical(registry, column).map_err(|e| PairProblem {
                line,
                message: format!("{name} <{column}>: {e}"),
            })
        };
        match (
            side(columns[0], "first column"),
            side(columns[1], "second column"),
        ) {
            (Ok(left), Ok(right)) => pairs.push(Pair { line, left, right }),
            (left, right) => problems.extend(left.err().into_iter().chain(right.err())),
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

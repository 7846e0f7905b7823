//! [`RenameTable`]: directed renaming (`--rename FILE`) for migrations — every occurrence of an
//! old IRI, in any position, becomes its new IRI.
//!
//! The table is read from `old<TAB>new` lines ([`crate::equivalence::mapping::read_pairs`]); both sides are
//! canonicalized first, so any spelling of an old identifier is renamed. The table must be a function that is
//! applied once: an old IRI with two different targets, a target that is itself renamed (a chain
//! `a→b`, `b→c`, or a cycle) are all reported, with their line numbers, and the table is refused.
//!
//! ```
//! use pidcanon::{equivalence::rename::RenameTable, Registry};
//! let table = "info:fedora/test:collectionPid\thttps://repo.example/collections/1\n";
//! let rename = RenameTable::read(table.as_bytes(), &Registry::default())?.unwrap();
//! assert_eq!(
//!     rename.target("info:fedora/test:collectionPid"),
//!     Some("https://repo.example/collections/1")
//! );
//! let bad = "http://a/\thttp://b/\nhttp://b/\thttp://c/\nhttp://a/\thttp://d/\n";
//! let problems = RenameTable::read(bad.as_bytes(), &Registry::default())?.unwrap_err();
//! assert_eq!(problems.len(), 2); // a chain (lines 1 and 2), a conflict (lines 1 and 3)
//! # Ok::<(), std::io::Error>(())
//! ```

use crate::equivalence::pairs::{
    Pair, PairFileError, PairProblem, pairs_of, read_file, read_pairs,
};
use crate::{IdError, Kind, Registry};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// Whether renaming `from` again and again reaches `to` (within as many steps as there are
/// renames).
fn leads_back(targets: &HashMap<Box<str>, (Box<str>, Kind, u64)>, from: &str, to: &str) -> bool {
    let mut iri = from;
    for _ in 0..targets.len() {
        match targets.get(iri) {
            Some((next, _, _)) if **next == *to => return true,
            Some((next, _, _)) => iri = next,
            None => return false,
        }
    }
    false
}

/// A checked rename table: canonical old IRI → canonical new IRI.
#[derive(Debug, Clone, Default)]
pub struct RenameTable {
    targets: HashMap<Box<str>, (Box<str>, Kind)>,
}

impl RenameTable {
    /// Reads and checks a table; every problem (bad lines, conflicts, chains) with its line, or
    /// the table.
    pub fn read(
        input: impl BufRead,
        registry: &Registry,
    ) -> std::io::Result<Result<Self, Vec<PairProblem>>> {
        Ok(read_pairs(input, registry)?.and_then(|pairs| Self::from_pairs(&pairs)))
    }

    /// Reads and checks the table in the file at `path` ([`Self::read`]), with the path in its
    /// errors.
    ///
    /// ```
    /// use pidcanon::{equivalence::rename::RenameTable, Registry};
    /// let path = std::env::temp_dir().join("pidcanon-doctest-rename.tsv");
    /// std::fs::write(&path, "http://e/a\thttp://e/b\nhttp://e/a\thttp://e/c\n")?;
    /// let error = RenameTable::read_file(&path, &Registry::default()).unwrap_err();
    /// assert!(error.to_string().starts_with(&format!("{}:2: <http://e/a> is renamed", path.display())));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read_file(path: &Path, registry: &Registry) -> Result<Self, PairFileError> {
        read_file(path, |input| Self::read(input, registry))
    }

    /// A checked table of the pairs `(old, new)` an application holds (any spelling of an
    /// identifier); the problems (numbered from 1 by pair), or the table.
    ///
    /// ```
    /// use pidcanon::{equivalence::rename::RenameTable, Registry};
    /// let table = RenameTable::from_iris([("info:fedora/demo%3a1", "http://e/new")], &Registry::default())?;
    /// assert_eq!(table.target("info:fedora/demo:1"), Some("http://e/new"));
    /// let cycle = RenameTable::from_iris([("http://e/a", "http://e/b"), ("http://e/b", "http://e/a")], &Registry::default());
    /// assert!(cycle.unwrap_err()[0].message.contains("a cycle"));
    /// # Ok::<(), Vec<pidcanon::equivalence::mapping::PairProblem>>(())
    /// ```
    pub fn from_iris<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
        registry: &Registry,
    ) -> Result<Self, Vec<PairProblem>> {
        Self::from_pairs(&pairs_of(pairs, registry)?)
    }

    /// Checks canonical pairs: conflicts, chains and cycles are problems.
    fn from_pairs(pairs: &[Pair]) -> Result<Self, Vec<PairProblem>> {
        // Old IRI → (new IRI, its kind, the line that said so).
        let mut targets: HashMap<Box<str>, (Box<str>, Kind, u64)> = HashMap::new();
        let mut problems = Vec::new();
        for pair in pairs {
            let (old, new) = (&pair.left.0, &pair.right.0);
            if old == new {
                continue;
            }
            match targets.get(old.as_str()) {
                Some((earlier, _, _)) if **earlier == **new => {}
                Some((earlier, _, line)) => problems.push(PairProblem {
                    line: pair.line,
                    message: format!(
                        "<{old}> is renamed to <{new}> here but to <{earlier}> on line {line}"
                    ),
                }),
                None => {
                    targets.insert(
                        old.as_str().into(),
                        (new.as_str().into(), pair.right.1, pair.line),
                    );
                }
            }
        }
        for pair in pairs {
            let (old, new) = (&pair.left.0, &pair.right.0);
            if let Some((further, _, line)) = targets.get(new.as_str())
                && old != new
            {
                let message = if **further == **old {
                    format!(
                        "<{old}> is renamed to <{new}>, which is renamed back to <{old}> on line \
                         {line}: a cycle, which has no final target (rename through a new IRI, \
                         in two runs)"
                    )
                } else if leads_back(&targets, further, old) {
                    format!(
                        "<{old}> is renamed to <{new}>, which is renamed to <{further}> on line \
                         {line}, and on back to <{old}>: a cycle, which has no final target \
                         (rename through a new IRI, in two runs)"
                    )
                } else {
                    format!(
                        "<{old}> is renamed to <{new}>, which is itself renamed to <{further}> \
                         on line {line}: write the final target on both lines"
                    )
                };
                problems.push(PairProblem {
                    line: pair.line,
                    message,
                });
            }
        }
        problems.sort_by_key(|p| p.line);
        problems.dedup();
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Self {
            targets: targets
                .into_iter()
                .map(|(old, (new, kind, _))| (old, (new, kind)))
                .collect(),
        })
    }

    /// The new IRI of a canonical `iri`, if it is renamed. Allocates nothing.
    #[must_use]
    pub fn target(&self, iri: &str) -> Option<&str> {
        self.targets.get(iri).map(|(new, _)| &**new)
    }

    /// The new IRI of a canonical `iri` and the kind it was recognized as.
    #[must_use]
    pub fn target_with_kind(&self, iri: &str) -> Option<(&str, Kind)> {
        self.targets.get(iri).map(|(new, kind)| (&**new, *kind))
    }

    /// The canonical IRIs that are renamed, in no particular order.
    pub fn olds(&self) -> impl Iterator<Item = &str> {
        self.targets.keys().map(|old| &**old)
    }

    /// How many IRIs are renamed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Whether nothing is renamed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

/// `iri`, an IRI a parser has read, canonicalized by the adapter that claims it (as it stands,
/// of kind [`Kind::Iri`], if none does), then renamed by `table`, with its kind: what a side of
/// an equivalence statement becomes before it joins a class. The error if `iri` is an invalid
/// identifier. Allocates only for a rewrite.
///
/// ```
/// use pidcanon::equivalence::rename::{RenameTable, canonical_renamed};
/// use pidcanon::{Kind, Registry};
/// let registry = Registry::default();
/// let table = RenameTable::read("hdl:10013/old\thttp://new/1\n".as_bytes(), &registry)?.unwrap();
/// let (iri, _) = canonical_renamed(&registry, Some(&table), "HDL:10013/old").unwrap();
/// assert_eq!(iri, "http://new/1");
/// let (iri, kind) = canonical_renamed(&registry, None, "http://e/x").unwrap();
/// assert_eq!((iri.as_ref(), kind), ("http://e/x", Kind::Iri));
/// assert!(canonical_renamed(&registry, None, "hdl:10013").is_err());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn canonical_renamed<'i>(
    registry: &Registry,
    table: Option<&RenameTable>,
    iri: &'i str,
) -> Result<(Cow<'i, str>, Kind), IdError> {
    let (canonical, kind) = registry.canonicalize_parsed(iri)?;
    Ok(
        match table.and_then(|table| table.target_with_kind(&canonical)) {
            Some((new, kind)) => (Cow::Owned(new.to_owned()), kind),
            None => (canonical, kind),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<RenameTable, Vec<PairProblem>> {
        RenameTable::read(text.as_bytes(), &Registry::default()).unwrap()
    }

    #[test]
    fn old_spellings_are_canonicalized_and_self_renames_ignored() {
        let table = read(
            "INFO:FEDORA/demo%3a1\thttps://repo.example/1\n\
             hdl://10013/X\thdl:10013/X\n\
             info:fedora/demo:1\thttps://repo.example/1\n",
        )
        .unwrap();
        assert_eq!(
            table.target("info:fedora/demo:1"),
            Some("https://repo.example/1")
        );
        assert_eq!(table.len(), 1);
        assert_eq!(table.target("hdl:10013/X"), None);
    }

    #[test]
    fn every_problem_is_reported_with_its_line() {
        let problems = read(
            "http://a/\thttp://b/\n\
             http://b/\thttp://c/\n\
             http://a/\thttp://d/\n\
             http://x/\thttp://y/\n\
             http://y/\thttp://x/\n\
             only-one-column\n\
             info:fedora/bad pid\thttp://z/\n",
        )
        .unwrap_err();
        let lines: Vec<u64> = problems.iter().map(|p| p.line).collect();
        // Bad lines are reported first, on their own: the table is not checked further.
        assert_eq!(lines, [6, 7], "{problems:?}");
        let problems = read(
            "http://a/\thttp://b/\n\
             http://b/\thttp://c/\n\
             http://a/\thttp://d/\n\
             http://x/\thttp://y/\n\
             http://y/\thttp://x/\n",
        )
        .unwrap_err();
        let lines: Vec<u64> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [1, 3, 4, 5], "{problems:?}");
        assert!(
            problems[0].message.contains("itself renamed"),
            "{}",
            problems[0]
        );
        assert!(problems[1].message.contains("on line 1"), "{}", problems[1]);
    }

    #[test]
    fn many_to_one_is_a_function() {
        let table = read("http://a/\thttp://c/\nhttp://b/\thttp://c/\n").unwrap();
        assert_eq!(table.target("http://a/"), Some("http://c/"));
        assert_eq!(table.target("http://b/"), Some("http://c/"));
    }
}

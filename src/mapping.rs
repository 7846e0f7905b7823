//! [`IriMapping`]: what becomes of a canonical IRI after canonicalization — renamed
//! (`--rename`), then replaced by its class's representative (`--collapse`) — and what becomes of
//! the equivalence statements themselves.
//!
//! ```
//! use pidcanon::equivalence::{EquivalencesBuilder, Origin, RepresentativeOrder};
//! use pidcanon::mapping::{EquivalenceStatement, IriMapping};
//! use pidcanon::rename::RenameTable;
//! use pidcanon::{Kind, Registry};
//!
//! let rename = RenameTable::read("http://old/1\thttp://new/1\n".as_bytes(), &Registry::default())?.unwrap();
//! let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
//! builder.add(("http://new/1", Kind::Iri), ("hdl:10013/x", Kind::Handle), Origin::default()).unwrap();
//! let mapping = IriMapping::new()
//!     .with_rename(rename)
//!     .with_equivalences(builder.freeze(1000), vec![IriMapping::OWL_SAME_AS.into()]);
//! assert_eq!(mapping.target("http://old/1"), Some("hdl:10013/x"));
//! assert_eq!(mapping.renamed("http://old/1"), Some("http://new/1"));
//! // `<http://new/1> owl:sameAs <hdl:10013/x>` is kept, written from the representative.
//! assert_eq!(
//!     mapping.equivalence_statement("http://new/1", "hdl:10013/x"),
//!     EquivalenceStatement::Keep("hdl:10013/x", "http://new/1")
//! );
//! # Ok::<(), std::io::Error>(())
//! ```

use crate::equivalence::Equivalences;
use crate::rename::RenameTable;
use std::fmt;

/// Renames and equivalences applied after canonicalization.
#[derive(Default)]
pub struct IriMapping {
    rename: Option<RenameTable>,
    equivalences: Option<Equivalences>,
    /// The predicates whose statements assert equivalences (`owl:sameAs`, …).
    predicates: Vec<String>,
    drop_reflexive: bool,
}

impl fmt::Debug for IriMapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IriMapping")
            .field("renamed", &self.rename.as_ref().map_or(0, RenameTable::len))
            .field("equivalences", &self.equivalences)
            .field("predicates", &self.predicates)
            .field("drop_reflexive", &self.drop_reflexive)
            .finish()
    }
}

/// What becomes of a statement `<s> P <o>` whose predicate asserts an equivalence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EquivalenceStatement<'a> {
    /// Written as `<subject> P <object>`: the representative, and the other side as it is
    /// (renamed, not collapsed), so that the statement still says which IRI was equivalent.
    Keep(&'a str, &'a str),
    /// Both sides are one IRI (after canonicalization and renaming) and reflexive statements
    /// are dropped.
    Drop,
}

impl IriMapping {
    /// `owl:sameAs`.
    pub const OWL_SAME_AS: &str = "http://www.w3.org/2002/07/owl#sameAs";

    /// A mapping that changes nothing.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Renames by `table` first.
    #[must_use]
    pub fn with_rename(mut self, table: RenameTable) -> Self {
        self.rename = Some(table);
        self
    }

    /// Replaces members of `equivalences`' classes by their representative; statements of
    /// `predicates` are kept as [`EquivalenceStatement`]s.
    #[must_use]
    pub fn with_equivalences(
        mut self,
        equivalences: Equivalences,
        predicates: Vec<String>,
    ) -> Self {
        self.equivalences = Some(equivalences);
        self.predicates = predicates;
        self
    }

    /// Drops equivalence statements whose two sides become one IRI.
    #[must_use]
    pub fn drop_reflexive(mut self) -> Self {
        self.drop_reflexive = true;
        self
    }

    /// The equivalences, if any.
    #[must_use]
    pub fn equivalences(&self) -> Option<&Equivalences> {
        self.equivalences.as_ref()
    }

    /// The rename table, if any.
    #[must_use]
    pub fn rename_table(&self) -> Option<&RenameTable> {
        self.rename.as_ref()
    }

    /// Whether statements of `predicate` assert equivalences that are kept in their own way.
    #[must_use]
    pub fn is_equivalence_predicate(&self, predicate: &str) -> bool {
        self.equivalences.is_some() && self.predicates.iter().any(|p| p == predicate)
    }

    /// The equivalence predicates.
    #[must_use]
    pub fn equivalence_predicates(&self) -> &[String] {
        if self.equivalences.is_some() {
            &self.predicates
        } else {
            &[]
        }
    }

    /// What a canonical IRI becomes, if not itself: renamed, then its class's representative.
    /// Allocates nothing.
    #[must_use]
    pub fn target<'a>(&'a self, canonical: &'a str) -> Option<&'a str> {
        let renamed = self.renamed(canonical);
        let collapsed = self
            .equivalences
            .as_ref()
            .and_then(|e| e.representative(renamed.unwrap_or(canonical)));
        collapsed.or(renamed)
    }

    /// What a canonical IRI is renamed to, if it is.
    #[must_use]
    pub fn renamed<'a>(&'a self, canonical: &str) -> Option<&'a str> {
        self.rename.as_ref().and_then(|r| r.target(canonical))
    }

    /// An equivalence statement between `subject` and `object`, both canonical and renamed.
    #[must_use]
    pub fn equivalence_statement<'a>(
        &'a self,
        subject: &'a str,
        object: &'a str,
    ) -> EquivalenceStatement<'a> {
        let representative = self
            .equivalences
            .as_ref()
            .and_then(|e| e.representative(subject))
            .unwrap_or(subject);
        if subject == object {
            // Reflexive: written as any other statement would be, both sides collapsed.
            return if self.drop_reflexive {
                EquivalenceStatement::Drop
            } else {
                EquivalenceStatement::Keep(representative, representative)
            };
        }
        let other = if object == representative {
            subject
        } else {
            object
        };
        EquivalenceStatement::Keep(representative, other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kind;
    use crate::equivalence::{EquivalencesBuilder, Origin, RepresentativeOrder};

    fn mapping(drop_reflexive: bool) -> IriMapping {
        let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
        for (a, b) in [("http://a/", "http://b/"), ("http://b/", "http://c/")] {
            builder
                .add((a, Kind::Iri), (b, Kind::Iri), Origin::default())
                .unwrap();
        }
        let m = IriMapping::new()
            .with_equivalences(builder.freeze(10), vec![IriMapping::OWL_SAME_AS.into()]);
        if drop_reflexive {
            m.drop_reflexive()
        } else {
            m
        }
    }

    #[test]
    fn equivalence_statements_are_written_from_the_representative() {
        let m = mapping(false);
        let dropping = mapping(true);
        use EquivalenceStatement::{Drop, Keep};
        for (mapping, (s, o), expected) in [
            (
                &m,
                ("http://b/", "http://c/"),
                Keep("http://a/", "http://c/"),
            ),
            (
                &m,
                ("http://c/", "http://a/"),
                Keep("http://a/", "http://c/"),
            ),
            (
                &m,
                ("http://a/", "http://b/"),
                Keep("http://a/", "http://b/"),
            ),
            (
                &m,
                ("http://a/", "http://a/"),
                Keep("http://a/", "http://a/"),
            ),
            (
                &m,
                ("http://b/", "http://b/"),
                Keep("http://a/", "http://a/"),
            ),
            (&dropping, ("http://a/", "http://a/"), Drop),
            (&dropping, ("http://c/", "http://c/"), Drop),
        ] {
            assert_eq!(mapping.equivalence_statement(s, o), expected, "{s} {o}");
        }
        assert!(m.is_equivalence_predicate(IriMapping::OWL_SAME_AS));
        assert_eq!(m.target("http://c/"), Some("http://a/"));
        assert_eq!(m.target("http://a/"), None);
    }
}

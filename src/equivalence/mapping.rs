//! [`IriMapping`]: what becomes of a canonical IRI after canonicalization — renamed
//! (`--rename`), then replaced by its class's representative (`--collapse`) — and what becomes of
//! the equivalence statements themselves: a statement between two members of one class is
//! written as links from the representative, once per member, after the rest of the output.
//!
//! Renames and equivalences come as [`Pair`]s of IRIs, read from tab-separated files
//! ([`read_pairs`]) or given in memory ([`pairs_of`]).
//!
//! ```
//! use pidcanon::equivalence::{EquivalencesBuilder, Origin, RepresentativeOrder};
//! use pidcanon::equivalence::mapping::{EquivalenceStatement, IriMapping};
//! use pidcanon::equivalence::rename::RenameTable;
//! use pidcanon::{Kind, Registry};
//!
//! let rename = RenameTable::read("http://old/1\thttp://new/1\n".as_bytes(), &Registry::default())?.unwrap();
//! let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
//! builder.add(("http://new/1", Kind::Iri), ("hdl:10013/x", Kind::Handle), Origin::default()).unwrap();
//! builder.add(("http://new/1", Kind::Iri), ("http://new/2", Kind::Iri), Origin::default()).unwrap();
//! let mapping = IriMapping::new()
//!     .with_rename(rename)
//!     .with_equivalences(builder.freeze(1000), vec![IriMapping::OWL_SAME_AS.into()]);
//! assert_eq!(mapping.target("http://old/1"), Some("hdl:10013/x"));
//! assert_eq!(mapping.renamed("http://old/1"), Some("http://new/1"));
//! // `<http://new/1> owl:sameAs <http://new/2>`, neither the representative, is not written
//! // where it stands: both members are linked from the representative instead.
//! let statement = mapping.equivalence_statement("http://new/1", "http://new/2");
//! let linked: Vec<&str> = statement.linked().map(|m| mapping.member_iri(m)).collect();
//! assert_eq!(linked, ["http://new/1", "http://new/2"]);
//! assert!(matches!(statement, EquivalenceStatement::Linked(_)));
//! # Ok::<(), std::io::Error>(())
//! ```

pub use crate::equivalence::pairs::{
    Pair, PairFileError, PairProblem, pairs_of, read_pairs, read_pairs_file,
};

use crate::equivalence::rename::{RenameTable, canonical_renamed};
use crate::equivalence::{Equivalences, Member};
use crate::{IdError, Kind, Registry};
use hashbrown::HashTable;
use std::borrow::Cow;
use std::cmp::Ordering;
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

/// What becomes of a statement `<s> P <o>` whose predicate P asserts an equivalence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EquivalenceStatement<'a> {
    /// Both sides are members of one collapsed class: the statement is not written where it
    /// stands; `<representative> P <member>` is written for each member named (the sides other
    /// than the representative; the representative itself for `<rep> P <rep>`), once per
    /// graph, predicate and member, after the rest of the output.
    Linked([Option<Member>; 2]),
    /// The sides are not in one collapsed class (a class too large to collapse, no class, or
    /// classes given beforehand that the statement does not join): written where it stands as
    /// `<subject> P <object>`, each side collapsed as any IRI is; a side that is a member of a
    /// collapsed class other than its representative is linked too.
    Kept {
        /// The subject written.
        subject: &'a str,
        /// The object written.
        object: &'a str,
        /// The sides linked from their representatives.
        linked: [Option<Member>; 2],
    },
    /// Both sides are one IRI, a class's representative or in no class, and reflexive
    /// statements are dropped.
    Dropped,
}

impl EquivalenceStatement<'_> {
    /// The members to link from their representatives.
    pub fn linked(&self) -> impl Iterator<Item = Member> + use<> {
        let linked = match self {
            Self::Linked(linked) | Self::Kept { linked, .. } => *linked,
            Self::Dropped => [None, None],
        };
        linked.into_iter().flatten()
    }

    /// Whether the statement is written where it stands.
    #[must_use]
    pub fn is_written(&self) -> bool {
        matches!(self, Self::Kept { .. })
    }
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

    /// Drops the equivalence statements `<rep> P <rep>` whose two sides become one IRI that is
    /// its class's representative or in no class (`<b> P <b>` for another member still links
    /// `b`).
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
        self.equivalence_predicate(predicate).is_some()
    }

    /// The index of `predicate` in [`Self::equivalence_predicates`], if it asserts
    /// equivalences.
    #[must_use]
    pub fn equivalence_predicate(&self, predicate: &str) -> Option<u32> {
        self.equivalence_predicates()
            .iter()
            .position(|p| p == predicate)
            .and_then(|i| u32::try_from(i).ok())
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
        let (mapped, _) = self.collapsed(canonical);
        (mapped != canonical || self.renamed(canonical).is_some()).then_some(mapped)
    }

    /// What a canonical IRI becomes (itself, if nothing): renamed, then its class's
    /// representative; with the member of a collapsed class that it is once renamed, if it is
    /// one. Allocates nothing.
    pub(crate) fn collapsed<'a>(&'a self, canonical: &'a str) -> (&'a str, Option<Member>) {
        let renamed = self.renamed(canonical).unwrap_or(canonical);
        let classes = self.equivalences.as_ref();
        match classes.and_then(|e| Some((e, e.member(renamed)?))) {
            Some((e, member)) => (e.iri(e.representative_of(member)), Some(member)),
            None => (renamed, None),
        }
    }

    /// What `iri`, in any spelling, becomes in a rewrite: canonicalized by `registry`, then
    /// mapped by [`Self::target`]; with the kind it was recognized as ([`Kind::Iri`] if no
    /// scheme claims it). `Ok(None)` if it stays as it is; the error if a scheme claims it and
    /// finds it invalid (a rewrite leaves it as it is).
    ///
    /// ```
    /// use pidcanon::{equivalence::mapping::IriMapping, equivalence::rename::RenameTable, Kind, Registry};
    /// let registry = Registry::default();
    /// let table = RenameTable::from_iris([("info:fedora/demo:1", "http://e/new")], &registry).unwrap();
    /// let mapping = IriMapping::new().with_rename(table);
    /// let renamed = mapping.rewrite_iri(&registry, "info:fedora/demo%3a1")?;
    /// assert_eq!(renamed, Some(("http://e/new".to_owned(), Kind::FedoraObject)));
    /// assert_eq!(mapping.rewrite_iri(&registry, "hdl:10013/x")?, None);
    /// assert!(mapping.rewrite_iri(&registry, "info:fedora/no-colon").is_err());
    /// # Ok::<(), pidcanon::IdError>(())
    /// ```
    pub fn rewrite_iri(
        &self,
        registry: &Registry,
        iri: &str,
    ) -> Result<Option<(String, Kind)>, IdError> {
        let (canonical, kind) = registry.canonicalize_parsed(iri)?;
        Ok(match self.target(&canonical).unwrap_or(&canonical) {
            same if same == iri => None,
            other => Some((other.to_owned(), kind)),
        })
    }

    /// A side of an equivalence statement as written (any spelling), as
    /// [`Self::equivalence_statement`] takes it: canonicalized and renamed, not collapsed;
    /// `None` if a scheme claims it and finds it invalid (the statement is then left as any
    /// other).
    ///
    /// ```
    /// use pidcanon::{equivalence::mapping::IriMapping, Registry};
    /// let mapping = IriMapping::new();
    /// let registry = Registry::default();
    /// assert_eq!(mapping.equivalence_side(&registry, "hdl://10013/x").as_deref(), Some("hdl:10013/x"));
    /// assert_eq!(mapping.equivalence_side(&registry, "info:fedora/no-colon"), None);
    /// ```
    #[must_use]
    pub fn equivalence_side<'i>(&self, registry: &Registry, iri: &'i str) -> Option<Cow<'i, str>> {
        canonical_renamed(registry, self.rename.as_ref(), iri)
            .ok()
            .map(|(iri, _)| iri)
    }

    /// What a canonical IRI is renamed to, if it is.
    #[must_use]
    pub fn renamed<'a>(&'a self, canonical: &str) -> Option<&'a str> {
        self.rename.as_ref().and_then(|r| r.target(canonical))
    }

    /// The IRI of a member of the equivalences' classes.
    ///
    /// # Panics
    /// If the mapping has no equivalences (then there are no members).
    #[must_use]
    pub fn member_iri(&self, member: Member) -> &str {
        self.equivalences
            .as_ref()
            .map(|e| e.iri(member))
            .expect("a member comes from the mapping's equivalences")
    }

    /// What becomes of an equivalence statement between `subject` and `object`, both canonical
    /// and renamed. Allocates nothing.
    #[must_use]
    pub fn equivalence_statement<'a>(
        &'a self,
        subject: &'a str,
        object: &'a str,
    ) -> EquivalenceStatement<'a> {
        let member = |side| self.equivalences.as_ref().and_then(|e| e.member(side));
        self.equivalence_statement_of((member(subject), subject), (member(object), object))
    }

    /// [`Self::equivalence_statement`], each side given as the member of a collapsed class it
    /// is (as [`Self::collapsed`] finds it) and its IRI, canonical and renamed — which is read
    /// only when it is no member. Allocates nothing.
    pub(crate) fn equivalence_statement_of<'a>(
        &'a self,
        (s, subject): (Option<Member>, &'a str),
        (o, object): (Option<Member>, &'a str),
    ) -> EquivalenceStatement<'a> {
        let classes = self.equivalences.as_ref();
        if let (Some(e), Some(s), Some(o)) = (classes, s, o) {
            let representative = e.representative_of(s);
            if representative == e.representative_of(o) {
                if s == representative && o == representative {
                    // `<rep> P <rep>`: reflexive.
                    return if self.drop_reflexive {
                        EquivalenceStatement::Dropped
                    } else {
                        EquivalenceStatement::Linked([Some(representative), None])
                    };
                }
                let other = |m: Member| (m != representative).then_some(m);
                let object = other(o).filter(|&o| o != s);
                return EquivalenceStatement::Linked([other(s), object]);
            }
        }
        // One IRI is one member: two sides that are members here are of two classes.
        let reflexive = match (s, o) {
            (None, None) => subject == object,
            _ => false,
        };
        if reflexive && self.drop_reflexive {
            return EquivalenceStatement::Dropped;
        }
        // Not in one class: written as any statement is, each side collapsed; the members of
        // collapsed classes it names are linked too.
        let collapsed = |side: &'a str, member: Option<Member>| match (classes, member) {
            (Some(e), Some(m)) => {
                let representative = e.representative_of(m);
                (e.iri(representative), (m != representative).then_some(m))
            }
            _ => (side, None),
        };
        let ((subject, s), (object, o)) = (collapsed(subject, s), collapsed(object, o));
        EquivalenceStatement::Kept {
            subject,
            object,
            linked: [s, o],
        }
    }
}

/// The links of `--collapse`: for every (graph name, equivalence predicate, member) seen in an
/// equivalence statement, `<representative> P <member>` once, written after the rest of the
/// output. Workers record them as they go; the session merges what they record (a union: the
/// order of threads and statements does not matter) and writes them in a fixed order at the
/// end.
///
/// Memory: per distinct (graph, predicate, member), 8 bytes of key in a hash table (≈ 9 bytes
/// per slot at its load, up to twice that just after it grows), and 16 bytes more while they
/// are sorted at the end (each with its class's rank); per distinct (graph, predicate), the
/// graph name once. The members are the equivalences' own ids: no IRI is copied.
#[derive(Default)]
pub(crate) struct EquivalenceLinks {
    /// Each (graph name as N-Quads writes it — empty for the default graph —, predicate index)
    /// recorded, numbered in order of first record.
    scopes: Vec<(Box<str>, u32)>,
    scope_ids: HashTable<u32>,
    /// The scope recorded last: a statement is usually in the graph of the one before.
    last: Option<u32>,
    /// `(scope << 32) | member`, each once.
    keys: HashTable<u64>,
    /// Equivalence statements not written where they stood, their members linked instead.
    pub(crate) statements: u64,
}

impl fmt::Debug for EquivalenceLinks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EquivalenceLinks")
            .field("scopes", &self.scopes.len())
            .field("links", &self.keys.len())
            .field("statements", &self.statements)
            .finish()
    }
}

/// One link to write: `<representative> <predicate> <member> graph .`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Link<'a> {
    /// The graph name as N-Quads writes it (`<iri>`, `_:label`), empty for the default graph.
    pub(crate) graph: &'a str,
    pub(crate) representative: &'a str,
    pub(crate) predicate: &'a str,
    pub(crate) member: &'a str,
}

/// The byte order of `a` and `b` each followed by the byte `end` (which neither holds): of two
/// IRIs as a line writes them (`<a>`), of two graph names before ` .`.
///
/// ```text
/// cmp_followed_by("http://a", "http://a/b", b'>')   Greater ('>' after '/')
/// ```
fn cmp_followed_by(a: &str, b: &str, end: u8) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len().min(b.len());
    a[..n].cmp(&b[..n]).then_with(|| {
        let next = |s: &[u8]| s.get(n).copied().unwrap_or(end);
        next(a).cmp(&next(b))
    })
}

fn hash_scope(graph: &str, predicate: u32) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(graph.as_bytes(), u64::from(predicate))
}

fn hash_key(key: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&key.to_le_bytes())
}

impl EquivalenceLinks {
    /// Records the link of `member` in `graph` (as N-Quads writes it, empty for the default
    /// graph) by the predicate numbered `predicate`.
    pub(crate) fn insert(&mut self, graph: &str, predicate: u32, member: Member) {
        let scope = self.scope(graph, predicate);
        self.insert_key((u64::from(scope) << 32) | u64::from(member.0));
    }

    fn insert_key(&mut self, key: u64) {
        let hash = hash_key(key);
        if self.keys.find(hash, |&k| k == key).is_none() {
            self.keys.insert_unique(hash, key, |&k| hash_key(k));
        }
    }

    /// The number of `graph` and `predicate`.
    fn scope(&mut self, graph: &str, predicate: u32) -> u32 {
        if let Some(last) = self.last {
            let (g, p) = &self.scopes[last as usize];
            if *p == predicate && **g == *graph {
                return last;
            }
        }
        let hash = hash_scope(graph, predicate);
        let scopes = &self.scopes;
        let found = self
            .scope_ids
            .find(hash, |&id| {
                let (g, p) = &scopes[id as usize];
                *p == predicate && **g == *graph
            })
            .copied();
        let id = found.unwrap_or_else(|| {
            // Fewer scopes than statements, and statements are counted in u64 — but a scope
            // number must fit the key's upper half.
            let id = u32::try_from(self.scopes.len()).expect("fewer than 2³² graphs");
            self.scopes.push((graph.into(), predicate));
            let scopes = &self.scopes;
            self.scope_ids.insert_unique(hash, id, |&id| {
                let (g, p) = &scopes[id as usize];
                hash_scope(g, *p)
            });
            id
        });
        self.last = Some(id);
        id
    }

    /// Whether nothing is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.statements == 0
    }

    /// Adds what `other` recorded, and empties it (keeping its room).
    pub(crate) fn merge(&mut self, other: &mut Self) {
        if other.is_empty() {
            return;
        }
        let scopes: Vec<u32> = other
            .scopes
            .iter()
            .map(|(graph, predicate)| self.scope(graph, *predicate))
            .collect();
        for &key in &other.keys {
            let scope = scopes[(key >> 32) as usize];
            self.insert_key((u64::from(scope) << 32) | (key & u64::from(u32::MAX)));
        }
        self.statements += other.statements;
        other.clear();
    }

    /// Forgets everything, keeping the room.
    pub(crate) fn clear(&mut self) {
        self.scopes.clear();
        self.scope_ids.clear();
        self.keys.clear();
        self.last = None;
        self.statements = 0;
    }

    /// Hands every link to `write`, in the byte order of their N-Quads lines
    /// (`<representative> <predicate> <member> [graph] .`): the same order whatever the order
    /// they were recorded in, and one that a job gathering the lines of several processes
    /// (the Spark job) gets by sorting the lines, without reading them.
    pub(crate) fn write_sorted<E>(
        self,
        mapping: &IriMapping,
        mut write: impl FnMut(Link<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some(classes) = mapping.equivalences.as_ref() else {
            return Ok(());
        };
        let Self { scopes, keys, .. } = self;
        let predicates = mapping.equivalence_predicates();
        // Ranks in the lines' order: of the graph names (one rank for one name), of the
        // predicates.
        let graph_order = |a: &str, b: &str| match (a.is_empty(), b.is_empty()) {
            // The default graph's line goes on with `.`, before `<` and `_`.
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => cmp_followed_by(a, b, b' '),
        };
        let mut by_graph: Vec<u32> = (0..scopes.len() as u32).collect();
        by_graph
            .sort_unstable_by(|&a, &b| graph_order(&scopes[a as usize].0, &scopes[b as usize].0));
        let mut graph_rank = vec![0u32; scopes.len()];
        for (rank, pair) in by_graph.iter().enumerate() {
            let same =
                rank > 0 && scopes[by_graph[rank - 1] as usize].0 == scopes[*pair as usize].0;
            graph_rank[*pair as usize] = if same {
                graph_rank[by_graph[rank - 1] as usize]
            } else {
                rank as u32
            };
        }
        let predicate_rank: Vec<usize> = predicates
            .iter()
            .map(|p| {
                predicates
                    .iter()
                    .filter(|other| cmp_followed_by(other, p, b'>') == Ordering::Less)
                    .count()
            })
            .collect();
        let scope_of = |key: u64| (key >> 32) as usize;
        let member_of = |key: u64| Member(key as u32);
        let representative_of = |key: u64| classes.representative_of(member_of(key));
        let iri_order =
            |a: Member, b: Member| cmp_followed_by(classes.iri(a), classes.iri(b), b'>');
        // The representatives' ranks in byte order: their IRIs are compared once per
        // representative, not once per pair of links.
        let mut representatives: Vec<Member> = keys.iter().map(|&k| representative_of(k)).collect();
        representatives.sort_unstable();
        representatives.dedup();
        let mut by_iri: Vec<u32> = (0..representatives.len() as u32).collect();
        by_iri.sort_unstable_by(|&a, &b| {
            iri_order(representatives[a as usize], representatives[b as usize])
        });
        let mut representative_rank = vec![0u32; representatives.len()];
        for (rank, &at) in by_iri.iter().enumerate() {
            representative_rank[at as usize] = rank as u32;
        }
        // Sorted by representative and predicate, then each class's links of one predicate by
        // member and graph.
        let mut sorted: Vec<(u64, u64)> = keys
            .into_iter()
            .map(|key| {
                let at = representatives.binary_search(&representative_of(key));
                let rank = representative_rank[at.expect("the key's representative")];
                let predicate = predicate_rank[scopes[scope_of(key)].1 as usize];
                ((u64::from(rank) << 32) | predicate as u64, key)
            })
            .collect();
        sorted.sort_unstable_by_key(|&(class, _)| class);
        for class in sorted.chunk_by_mut(|a, b| a.0 == b.0) {
            class.sort_unstable_by(|&(_, a), &(_, b)| {
                let (ma, mb) = (member_of(a), member_of(b));
                (if ma == mb {
                    Ordering::Equal
                } else {
                    iri_order(ma, mb)
                })
                .then_with(|| graph_rank[scope_of(a)].cmp(&graph_rank[scope_of(b)]))
            });
        }
        for (_, key) in sorted {
            let (graph, predicate) = &scopes[scope_of(key)];
            let member = member_of(key);
            write(Link {
                graph,
                representative: classes.iri(classes.representative_of(member)),
                predicate: &predicates[*predicate as usize],
                member: classes.iri(member),
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kind;
    use crate::equivalence::{EquivalencesBuilder, Origin, RepresentativeOrder};

    /// Classes {a, b, c} (representative a) and {x, y} (representative x); {z, z1, z2, z3} is
    /// over the limit of 3 and left uncollapsed. Two equivalence predicates.
    fn mapping(drop_reflexive: bool) -> IriMapping {
        let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
        for (a, b) in [
            ("http://a/", "http://b/"),
            ("http://b/", "http://c/"),
            ("http://x/", "http://y/"),
            ("http://z/", "http://z1/"),
            ("http://z/", "http://z2/"),
            ("http://z/", "http://z3/"),
        ] {
            builder
                .add((a, Kind::Iri), (b, Kind::Iri), Origin::default())
                .unwrap();
        }
        let m = IriMapping::new().with_equivalences(
            builder.freeze(3),
            vec![IriMapping::OWL_SAME_AS.into(), "http://p/".into()],
        );
        if drop_reflexive {
            m.drop_reflexive()
        } else {
            m
        }
    }

    /// What `mapping` makes of `<s> P <o>`, with members as IRIs.
    fn statement<'a>(
        mapping: &'a IriMapping,
        s: &'a str,
        o: &'a str,
    ) -> (Option<(&'a str, &'a str)>, Vec<&'a str>) {
        let statement = mapping.equivalence_statement(s, o);
        let written = match statement {
            EquivalenceStatement::Kept {
                subject, object, ..
            } => Some((subject, object)),
            _ => None,
        };
        let linked = statement.linked().map(|m| mapping.member_iri(m)).collect();
        (written, linked)
    }

    #[test]
    fn statements_within_a_class_are_linked_not_written() {
        let m = mapping(false);
        let dropping = mapping(true);
        for (s, o, linked) in [
            // Neither side the representative: both linked.
            ("http://b/", "http://c/", vec!["http://b/", "http://c/"]),
            ("http://c/", "http://b/", vec!["http://c/", "http://b/"]),
            // One side the representative: the other.
            ("http://c/", "http://a/", vec!["http://c/"]),
            ("http://a/", "http://b/", vec!["http://b/"]),
            // Reflexive on a member: the member, also when reflexive statements are dropped.
            ("http://b/", "http://b/", vec!["http://b/"]),
        ] {
            for mapping in [&m, &dropping] {
                assert_eq!(statement(mapping, s, o), (None, linked.clone()), "{s} {o}");
            }
        }
        // The representative with itself: linked, or dropped.
        assert_eq!(
            statement(&m, "http://a/", "http://a/"),
            (None, vec!["http://a/"])
        );
        assert_eq!(
            dropping.equivalence_statement("http://a/", "http://a/"),
            EquivalenceStatement::Dropped
        );
        assert!(m.is_equivalence_predicate(IriMapping::OWL_SAME_AS));
        assert_eq!(m.equivalence_predicate("http://p/"), Some(1));
        assert_eq!(m.target("http://c/"), Some("http://a/"));
        assert_eq!(m.target("http://a/"), None);
    }

    #[test]
    fn statements_not_within_one_class_are_written_collapsed() {
        let m = mapping(false);
        // Two classes (classes given beforehand): written between the representatives, the
        // members linked.
        assert_eq!(
            statement(&m, "http://b/", "http://y/"),
            (
                Some(("http://a/", "http://x/")),
                vec!["http://b/", "http://y/"]
            )
        );
        // A class and no class.
        assert_eq!(
            statement(&m, "http://other/", "http://a/"),
            (Some(("http://other/", "http://a/")), vec![])
        );
        // A class too large to collapse: as it is.
        assert_eq!(
            statement(&m, "http://z1/", "http://z/"),
            (Some(("http://z1/", "http://z/")), vec![])
        );
        // Reflexive outside any class: written, or dropped.
        assert_eq!(
            statement(&m, "http://z1/", "http://z1/"),
            (Some(("http://z1/", "http://z1/")), vec![])
        );
        assert_eq!(
            mapping(true).equivalence_statement("http://z1/", "http://z1/"),
            EquivalenceStatement::Dropped
        );
    }

    /// The links of `links`, as `graph rep predicate member` strings.
    fn written(links: EquivalenceLinks, mapping: &IriMapping) -> Vec<String> {
        let mut out = Vec::new();
        links
            .write_sorted(mapping, |l| {
                let graph = if l.graph.is_empty() { "" } else { " " };
                out.push(format!(
                    "<{}> <{}> <{}>{graph}{} .",
                    l.representative, l.predicate, l.member, l.graph
                ));
                Ok::<(), ()>(())
            })
            .unwrap();
        out
    }

    #[test]
    fn terms_compare_as_their_lines_do() {
        let iris = [
            "http://a",
            "http://a/b",
            "http://a#",
            "http://a-",
            "http://",
            "urn:x",
        ];
        let graphs = [
            "<http://g>",
            "<http://g/h>",
            "<http://g>x",
            "_:b",
            "_:b1",
            "_:b-",
        ];
        for (terms, end, line) in [(iris, b'>', "<{}> ."), (graphs, b' ', "{} .")] {
            for a in terms {
                for b in terms {
                    let (la, lb) = (line.replace("{}", a), line.replace("{}", b));
                    assert_eq!(cmp_followed_by(a, b, end), la.cmp(&lb), "{la} {lb}");
                }
            }
        }
    }

    #[test]
    fn links_are_kept_once_and_written_in_one_order_whatever_the_order_recorded() {
        let m = mapping(false);
        let e = m.equivalences().unwrap();
        let member = |iri| e.member(iri).unwrap();
        let records = [
            ("<http://g/>", 0, "http://c/"),
            ("", 1, "http://b/"),
            ("", 0, "http://y/"),
            ("", 0, "http://c/"),
            ("_:g", 0, "http://b/"),
            ("", 0, "http://b/"),
            ("<http://g/>", 0, "http://c/"),
            ("", 0, "http://a/"),
        ];
        let same_as = "<http://www.w3.org/2002/07/owl#sameAs>";
        let expected = [
            "<http://a/> <http://p/> <http://b/> .".to_owned(),
            format!("<http://a/> {same_as} <http://a/> ."),
            format!("<http://a/> {same_as} <http://b/> ."),
            format!("<http://a/> {same_as} <http://b/> _:g ."),
            format!("<http://a/> {same_as} <http://c/> ."),
            format!("<http://a/> {same_as} <http://c/> <http://g/> ."),
            format!("<http://x/> {same_as} <http://y/> ."),
        ];
        assert!(expected.is_sorted(), "the lines' byte order");
        // Recorded in one set, in order, and reversed in two sets merged.
        let mut one = EquivalenceLinks::default();
        for (graph, predicate, iri) in records {
            one.insert(graph, predicate, member(iri));
        }
        assert_eq!(one.keys.len(), expected.len());
        assert_eq!(written(one, &m), expected);
        let (mut first, mut second) = (EquivalenceLinks::default(), EquivalenceLinks::default());
        for (i, (graph, predicate, iri)) in records.iter().rev().enumerate() {
            let set = if i % 2 == 0 { &mut first } else { &mut second };
            set.insert(graph, *predicate, member(iri));
            set.statements += 1;
        }
        let mut merged = EquivalenceLinks::default();
        merged.merge(&mut second);
        merged.merge(&mut first);
        assert!(first.is_empty() && second.is_empty());
        assert_eq!(merged.statements, records.len() as u64);
        assert_eq!(written(merged, &m), expected);
    }
}

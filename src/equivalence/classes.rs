//! [`Equivalences`]: classes of canonical IRIs that name one thing (asserted by `owl:sameAs`, a
//! mapping file, …), each with one representative chosen by a deterministic rule.
//!
//! IRIs are interned once (one arena of bytes, integer ids); classes are kept by union-find over
//! the ids, with path halving, each class rooted at its representative.
//! [`EquivalencesBuilder::freeze`] fixes the classes and their representatives; looking one up
//! then allocates nothing.
//!
//! ```
//! use pidcanon::equivalence::{EquivalencesBuilder, Origin, RepresentativeOrder};
//! use pidcanon::Kind;
//!
//! let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
//! let here = Origin::default();
//! builder.add(("info:fedora/demo:1", Kind::FedoraObject), ("hdl:10013/abc", Kind::Handle), here)?;
//! builder.add(("hdl:10013/abc", Kind::Handle), ("http://example.org/obj/1", Kind::Iri), here)?;
//! let equivalences = builder.freeze(1000);
//! // Handles and DOIs are the identifiers meant to be cited: the handle represents the class.
//! assert_eq!(equivalences.representative("info:fedora/demo:1"), Some("hdl:10013/abc"));
//! assert_eq!(equivalences.representative("http://example.org/obj/1"), Some("hdl:10013/abc"));
//! assert_eq!(equivalences.representative("hdl:10013/abc"), None); // it is its own
//! assert_eq!(equivalences.representative("info:fedora/other:2"), None); // in no class
//! # Ok::<(), pidcanon::equivalence::TooManyIdentifiers>(())
//! ```

use crate::Kind;
use hashbrown::HashTable;
use std::fmt;

/// Where an equivalence was asserted: an input (an index the caller keeps names for) and a line
/// (0 when unknown).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    /// The input, as the caller numbers them.
    pub source: u32,
    /// The 1-based line, 0 if unknown.
    pub line: u64,
}

/// The rule that picks a class's representative: the member whose kind comes first in a
/// preference order, then the least in byte order.
///
/// ```
/// use pidcanon::equivalence::RepresentativeOrder;
/// use pidcanon::Kind;
/// let order = RepresentativeOrder::default();
/// assert!(order.rank(Kind::Doi) < order.rank(Kind::FedoraObject));
/// assert!(order.rank(Kind::FedoraObject) < order.rank(Kind::Iri));
/// let fedora_first = RepresentativeOrder::from_names(&["fedora-object".into()]).unwrap();
/// assert!(fedora_first.rank(Kind::FedoraObject) < fedora_first.rank(Kind::Doi));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepresentativeOrder {
    /// Rank per kind, indexed by the kind's position in [`Kind::ALL`].
    ranks: [u8; Kind::ALL.len()],
}

impl RepresentativeOrder {
    /// The default preference: DOIs, Handles, then Fedora objects, then everything else. Handles
    /// and DOIs are the identifiers meant to be cited; a Fedora PID is a repository's local name.
    pub const DEFAULT: [Kind; 3] = [Kind::Doi, Kind::Handle, Kind::FedoraObject];

    /// An order that prefers `kinds` in the order given; every other kind comes after them, all
    /// alike (byte order decides among them).
    #[must_use]
    pub fn new(kinds: &[Kind]) -> Self {
        let mut ranks = [u8::MAX; Kind::ALL.len()];
        for (rank, kind) in kinds.iter().enumerate() {
            let slot = &mut ranks[kind_index(*kind)];
            *slot = (*slot).min(u8::try_from(rank).unwrap_or(u8::MAX - 1));
        }
        Self { ranks }
    }

    /// An order from kind names (`"doi"`, `"fedora-object"`, as [`Kind::as_str`] writes them);
    /// an empty list gives the [default](Self::DEFAULT).
    pub fn from_names(names: &[String]) -> Result<Self, crate::UnknownKind> {
        if names.is_empty() {
            return Ok(Self::default());
        }
        let kinds = names
            .iter()
            .map(|name| name.parse())
            .collect::<Result<Vec<Kind>, _>>()?;
        Ok(Self::new(&kinds))
    }

    /// The rank of `kind`: lower is preferred.
    #[must_use]
    pub fn rank(&self, kind: Kind) -> u8 {
        self.ranks[kind_index(kind)]
    }
}

impl Default for RepresentativeOrder {
    fn default() -> Self {
        Self::new(&Self::DEFAULT)
    }
}

fn kind_index(kind: Kind) -> usize {
    Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

/// More distinct IRIs than integer ids (2³¹).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("more than {} distinct identifiers in equivalences", ROOT)]
pub struct TooManyIdentifiers;

/// IRIs stored once, each with an integer id: one arena of bytes, the offsets, and a hash table
/// of ids.
#[derive(Default)]
struct Interner {
    /// The IRIs, one after the other.
    text: String,
    /// Where each IRI starts in `text`, and one more: where the next would.
    starts: Vec<u64>,
    table: HashTable<u32>,
}

impl Interner {
    fn hash(iri: &str) -> u64 {
        xxhash_rust::xxh3::xxh3_64(iri.as_bytes())
    }

    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The bytes it holds on the heap.
    fn heap_bytes(&self) -> usize {
        self.text.capacity() + heap_bytes(&self.starts) + self.table.allocation_size()
    }

    fn get(&self, id: u32) -> &str {
        let (start, end) = (self.starts[id as usize], self.starts[id as usize + 1]);
        &self.text[start as usize..end as usize]
    }

    fn find(&self, iri: &str) -> Option<u32> {
        let (starts, text) = (&self.starts, self.text.as_bytes());
        self.table
            .find(Self::hash(iri), |&id| {
                let (start, end) = (starts[id as usize], starts[id as usize + 1]);
                text[start as usize..end as usize] == *iri.as_bytes()
            })
            .copied()
    }

    /// The id of `iri`, and whether it is new.
    fn intern(&mut self, iri: &str) -> Result<(u32, bool), TooManyIdentifiers> {
        if let Some(id) = self.find(iri) {
            return Ok((id, false));
        }
        let id = u32::try_from(self.len())
            .ok()
            .filter(|&id| id < ROOT)
            .ok_or(TooManyIdentifiers)?;
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        if self.text.capacity() - self.text.len() < iri.len() {
            self.text
                .reserve_exact((self.text.len() / 2).max(iri.len()));
        }
        self.text.push_str(iri);
        push_gently(&mut self.starts, self.text.len() as u64);
        let (text, starts) = (&self.text, &self.starts);
        let rehash = |&id: &u32| {
            let range = starts[id as usize] as usize..starts[id as usize + 1] as usize;
            xxhash_rust::xxh3::xxh3_64(text[range].as_bytes())
        };
        self.table.insert_unique(Self::hash(iri), id, rehash);
        Ok((id, true))
    }
}

/// Pushes `value` onto `vec`, growing a full one by half (not doubling, as `push` does): the
/// builder's arrays are most of what `--collapse` holds, and just after a doubling an array
/// takes twice what its elements need (1.39 times on average; growing by half, 1.22).
fn push_gently<T>(vec: &mut Vec<T>, value: T) {
    if vec.len() == vec.capacity() {
        vec.reserve_exact((vec.len() / 2).max(64));
    }
    vec.push(value);
}

/// The bytes `vec` holds on the heap.
fn heap_bytes<T>(vec: &Vec<T>) -> usize {
    vec.capacity() * size_of::<T>()
}

/// A union of two classes: the statement that asserted it and how large the smaller side was.
/// 24 bytes: the [`Origin`] is kept flat (as a field it would pad the join to 32).
#[derive(Debug, Clone, Copy)]
struct Join {
    a: u32,
    b: u32,
    smaller: u32,
    source: u32,
    line: u64,
}

/// Collects equivalences; [`freeze`](Self::freeze) it to look representatives up.
pub struct EquivalencesBuilder {
    order: RepresentativeOrder,
    iris: Interner,
    /// Union-find parent of each id; at a root, [`ROOT`] and the class's size. The root of a
    /// class is its preferred member (its representative), so nothing else is kept per id.
    parent: Vec<u32>,
    /// The representative rank of each id's kind.
    rank: Vec<u8>,
    /// Every union of two distinct classes, in the order asserted.
    joins: Vec<Join>,
    pairs: u64,
}

impl fmt::Debug for EquivalencesBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EquivalencesBuilder")
            .field("identifiers", &self.iris.len())
            .field("pairs", &self.pairs)
            .finish_non_exhaustive()
    }
}

impl EquivalencesBuilder {
    /// An empty builder choosing representatives by `order`.
    #[must_use]
    pub fn new(order: RepresentativeOrder) -> Self {
        Self {
            order,
            iris: Interner::default(),
            parent: Vec::new(),
            rank: Vec::new(),
            joins: Vec::new(),
            pairs: 0,
        }
    }

    /// Distinct IRIs seen so far.
    #[must_use]
    pub fn identifiers(&self) -> usize {
        self.iris.len()
    }

    /// The bytes it holds on the heap: the interned IRIs, their table, the classes and the
    /// joins kept for the report of large classes.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.iris.heap_bytes()
            + heap_bytes(&self.parent)
            + heap_bytes(&self.rank)
            + heap_bytes(&self.joins)
    }

    /// Pairs added so far (reflexive ones included).
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.pairs
    }

    /// Asserts that two canonical IRIs (each with the kind it was recognized as) name one thing.
    pub fn add(
        &mut self,
        a: (&str, Kind),
        b: (&str, Kind),
        origin: Origin,
    ) -> Result<(), TooManyIdentifiers> {
        self.pairs += 1;
        let a = self.id(a)?;
        let b = self.id(b)?;
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return Ok(());
        }
        // The preferred root becomes the root of both, so that the forest does not depend on
        // which side a pair names first (paths are halved as they are walked, which keeps
        // them short without union by size).
        let (sa, sb) = (self.size(ra), self.size(rb));
        let (root, other) = if self.prefers(ra, rb) {
            (ra, rb)
        } else {
            (rb, ra)
        };
        let smaller = sa.min(sb);
        self.parent[other as usize] = root;
        self.parent[root as usize] = ROOT | (sa + sb);
        push_gently(
            &mut self.joins,
            Join {
                a,
                b,
                smaller,
                source: origin.source,
                line: origin.line,
            },
        );
        Ok(())
    }

    fn id(&mut self, (iri, kind): (&str, Kind)) -> Result<u32, TooManyIdentifiers> {
        let (id, new) = self.iris.intern(iri)?;
        if new {
            push_gently(&mut self.parent, ROOT | 1);
            push_gently(&mut self.rank, self.order.rank(kind));
        }
        Ok(id)
    }

    /// The root of `id`'s class, halving the path on the way.
    fn find(&mut self, mut id: u32) -> u32 {
        loop {
            let parent = self.parent[id as usize];
            if parent & ROOT != 0 {
                return id;
            }
            let grandparent = self.parent[parent as usize];
            if grandparent & ROOT != 0 {
                return parent;
            }
            self.parent[id as usize] = grandparent;
            id = grandparent;
        }
    }

    /// The size of the class whose root is `root`.
    fn size(&self, root: u32) -> u32 {
        self.parent[root as usize] & !ROOT
    }

    /// Whether `x` is a better representative than `y`: preferred kind, then byte order.
    fn prefers(&self, x: u32, y: u32) -> bool {
        (self.rank[x as usize], self.iris.get(x).as_bytes())
            < (self.rank[y as usize], self.iris.get(y).as_bytes())
    }

    /// Fixes the classes. A class of more than `max_class` members is listed in
    /// [`Equivalences::large_classes`] with the statements that joined it, and is not collapsed:
    /// its members keep their own IRIs.
    #[must_use]
    pub fn freeze(self, max_class: usize) -> Equivalences {
        self.freeze_with(max_class, false)
    }

    /// Like [`freeze`](Self::freeze), but collapses the large classes too when `collapse_large`
    /// (they are still listed).
    #[must_use]
    pub fn freeze_with(mut self, max_class: usize, collapse_large: bool) -> Equivalences {
        let gathered_bytes = self.heap_bytes();
        let n = self.parent.len();
        // Every id but a root points at its root; a root keeps its size.
        for id in 0..n as u32 {
            let root = self.find(id);
            if root != id {
                self.parent[id as usize] = root;
            }
        }
        let is_root = |parent: &[u32], id: usize| parent[id] & ROOT != 0;
        let root_of = |parent: &[u32], id: usize| {
            if is_root(parent, id) {
                id as u32
            } else {
                parent[id]
            }
        };
        let mut large: Vec<LargeClass> = Vec::new();
        // Root → index into `large`, for the roots of large classes.
        let mut large_index = hashbrown::HashMap::<u32, usize, Xxh3Build>::default();
        for root in 0..n as u32 {
            if is_root(&self.parent, root as usize) && self.size(root) as usize > max_class {
                large_index.insert(root, large.len());
                large.push(LargeClass {
                    size: self.size(root) as usize,
                    representative: self.iris.get(root).to_owned(),
                    joins: Vec::new(),
                    largest_join: None,
                });
            }
        }
        for join in &self.joins {
            let root = root_of(&self.parent, join.a as usize);
            if let Some(&i) = large_index.get(&root) {
                let class = &mut large[i];
                let edge = ClassJoin {
                    a: self.iris.get(join.a).to_owned(),
                    b: self.iris.get(join.b).to_owned(),
                    origin: Origin {
                        source: join.source,
                        line: join.line,
                    },
                    smaller_side: join.smaller as usize,
                };
                if class
                    .largest_join
                    .as_ref()
                    .is_none_or(|l| edge.smaller_side > l.smaller_side)
                {
                    class.largest_join = Some(edge.clone());
                }
                class.joins.push(edge);
            }
        }
        // `parent` becomes the representative of each id (`NONE` when not collapsed): the
        // other members first, while their roots still hold the classes' sizes. `rank` is
        // not needed any more: it marks the roots meanwhile.
        for id in 0..n {
            self.rank[id] = u8::from(is_root(&self.parent, id));
        }
        let mut members = 0;
        let mut classes = 0;
        for roots in [0, 1] {
            for id in (0..n).filter(|&id| self.rank[id] == roots) {
                let root = root_of(&self.parent, id);
                let collapsed =
                    self.size(root) >= 2 && (collapse_large || !large_index.contains_key(&root));
                self.parent[id] = if collapsed { root } else { NONE };
                members += usize::from(collapsed);
                classes += usize::from(collapsed && roots == 1);
            }
        }
        large.sort_by(|x, y| {
            y.size
                .cmp(&x.size)
                .then(x.representative.cmp(&y.representative))
        });
        Equivalences {
            iris: self.iris,
            representative: self.parent,
            large,
            pairs: self.pairs,
            classes,
            members,
            gathered_bytes,
        }
    }
}

/// The representative of an IRI in no collapsed class.
const NONE: u32 = u32::MAX;
/// The bit of a union-find root (the rest is its class's size); ids are below it.
const ROOT: u32 = 1 << 31;

/// A hasher for integer keys (the ids of large classes' roots).
#[derive(Default, Clone, Copy)]
struct Xxh3Build;

impl std::hash::BuildHasher for Xxh3Build {
    type Hasher = xxhash_rust::xxh3::Xxh3Default;
    fn build_hasher(&self) -> Self::Hasher {
        xxhash_rust::xxh3::Xxh3Default::new()
    }
}

/// One statement that joined two classes into a large one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassJoin {
    /// One side of the statement.
    pub a: String,
    /// The other side.
    pub b: String,
    /// Where it was asserted.
    pub origin: Origin,
    /// How many members the smaller of the two classes it joined had: a join of two large
    /// classes is the usual sign of one wrong statement.
    pub smaller_side: usize,
}

/// A class larger than the limit, left uncollapsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LargeClass {
    /// Its members.
    pub size: usize,
    /// The representative it would have had.
    pub representative: String,
    /// Every statement that joined two of its parts, in the order asserted (one per member but
    /// the first: the statements that made the class; others within it are not listed).
    pub joins: Vec<ClassJoin>,
    /// The join whose smaller side was largest.
    pub largest_join: Option<ClassJoin>,
}

/// A member of a collapsed class, as the [`Equivalences`] it came from numbers them (the IRI's
/// interned id): the same IRI is the same member, in every thread. Read it back with
/// [`Equivalences::iri`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Member(pub(crate) u32);

/// Frozen equivalence classes: look up the representative of a canonical IRI.
pub struct Equivalences {
    iris: Interner,
    /// Representative id per id; [`NONE`] for an IRI in no collapsed class.
    representative: Vec<u32>,
    large: Vec<LargeClass>,
    pairs: u64,
    classes: usize,
    members: usize,
    /// The builder's heap bytes when it was frozen.
    gathered_bytes: usize,
}

impl fmt::Debug for Equivalences {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Equivalences")
            .field("classes", &self.classes)
            .field("members", &self.members)
            .field("large_classes", &self.large.len())
            .finish_non_exhaustive()
    }
}

impl Equivalences {
    /// The representative of `iri`'s class when it is another IRI; `None` when `iri` is its
    /// class's representative, is in no class, or is in a class too large to collapse.
    /// Allocates nothing.
    #[must_use]
    pub fn representative(&self, iri: &str) -> Option<&str> {
        let id = self.iris.find(iri)?;
        let rep = self.representative[id as usize];
        (rep != id && rep != NONE).then(|| self.iris.get(rep))
    }

    /// `iri` as a member of a collapsed class (representatives included); `None` when it is in
    /// no class or in one too large to collapse. Allocates nothing.
    ///
    /// ```
    /// use pidcanon::equivalence::{EquivalencesBuilder, Origin, RepresentativeOrder};
    /// use pidcanon::Kind;
    /// let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
    /// builder.add(("http://a/", Kind::Iri), ("hdl:10013/x", Kind::Handle), Origin::default())?;
    /// let e = builder.freeze(10);
    /// let a = e.member("http://a/").unwrap();
    /// assert_eq!(e.iri(a), "http://a/");
    /// assert_eq!(e.iri(e.representative_of(a)), "hdl:10013/x");
    /// assert_eq!(e.member("http://b/"), None);
    /// # Ok::<(), pidcanon::equivalence::TooManyIdentifiers>(())
    /// ```
    #[must_use]
    pub fn member(&self, iri: &str) -> Option<Member> {
        let id = self.iris.find(iri)?;
        (self.representative[id as usize] != NONE).then_some(Member(id))
    }

    /// The IRI of `member`.
    #[must_use]
    pub fn iri(&self, member: Member) -> &str {
        self.iris.get(member.0)
    }

    /// The representative of `member`'s class (itself, for the representative).
    #[must_use]
    pub fn representative_of(&self, member: Member) -> Member {
        Member(self.representative[member.0 as usize])
    }

    /// Every member of a collapsed class other than its representative, with its
    /// representative: the IRIs a collapse rewrites.
    ///
    /// ```
    /// use pidcanon::equivalence::{EquivalencesBuilder, Origin, RepresentativeOrder};
    /// use pidcanon::Kind;
    /// let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
    /// builder.add(("http://a/", Kind::Iri), ("hdl:10013/x", Kind::Handle), Origin::default())?;
    /// let e = builder.freeze(10);
    /// assert_eq!(e.collapsed().collect::<Vec<_>>(), [("http://a/", "hdl:10013/x")]);
    /// # Ok::<(), pidcanon::equivalence::TooManyIdentifiers>(())
    /// ```
    pub fn collapsed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.representative
            .iter()
            .enumerate()
            .filter(|&(id, &rep)| rep != NONE && rep as usize != id)
            .map(|(id, &rep)| (self.iris.get(id as u32), self.iris.get(rep)))
    }

    /// Whether `iri` is a member of a collapsed class (representatives included).
    #[must_use]
    pub fn contains(&self, iri: &str) -> bool {
        self.iris
            .find(iri)
            .is_some_and(|id| self.representative[id as usize] != NONE)
    }

    /// The classes larger than the limit given to [`freeze`](EquivalencesBuilder::freeze),
    /// largest first; they are not collapsed.
    #[must_use]
    pub fn large_classes(&self) -> &[LargeClass] {
        &self.large
    }

    /// Collapsed classes (of two or more members).
    #[must_use]
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// The IRIs gathered: the members of classes of every size.
    #[must_use]
    pub fn identifiers(&self) -> usize {
        self.iris.len()
    }

    /// The bytes the builder held on the heap when it was frozen: the most the classes took
    /// while they were gathered (a frozen set holds less: its IRIs and one representative
    /// each).
    #[must_use]
    pub fn gathered_bytes(&self) -> usize {
        self.gathered_bytes
    }

    /// IRIs in collapsed classes, representatives included.
    #[must_use]
    pub fn members(&self) -> usize {
        self.members
    }

    /// Pairs that were added.
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.pairs
    }

    /// Every collapsed class as `(representative, members)`, members in byte order, classes by
    /// representative: for reports and tests (allocates the whole listing).
    #[must_use]
    pub fn listing(&self) -> Vec<(String, Vec<String>)> {
        let mut classes: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
        for (id, &rep) in self.representative.iter().enumerate() {
            if rep != NONE {
                classes
                    .entry(rep)
                    .or_default()
                    .push(self.iris.get(id as u32).to_owned());
            }
        }
        let mut listing: Vec<(String, Vec<String>)> = classes
            .into_iter()
            .map(|(rep, mut members)| {
                members.sort();
                (self.iris.get(rep).to_owned(), members)
            })
            .collect();
        listing.sort();
        listing
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_join_takes_24_bytes() {
        assert_eq!(size_of::<super::Join>(), 24);
    }

    #[test]
    fn classes_are_gathered_in_less_than_100_bytes_an_identifier() {
        // Classes of 2 to 50 members (most of them small), IRIs of 34 bytes as in the benchmark's
        // sameAs corpus: everything the builder holds, the joins included, at sizes that fall
        // at different points of its arrays' growth.
        for identifiers in [50_000, 121_655, 300_000, 486_334] {
            let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
            let (mut n, mut size) = (0, 2);
            while n < identifiers {
                let first = format!("http://example.org/work/{n:010}");
                for member in 1..size {
                    let other = format!("http://example.org/work/{:010}", n + member);
                    builder
                        .add((&first, Kind::Iri), (&other, Kind::Iri), Origin::default())
                        .unwrap();
                }
                n += size;
                size = size % 7 + 2;
            }
            let per = builder.heap_bytes() / builder.identifiers();
            eprintln!("{identifiers}: {per} bytes an identifier");
            assert!(per <= 100, "{per} bytes an identifier at {identifiers}");
        }
    }

    use super::*;

    fn build(pairs: &[(&str, &str)], max_class: usize) -> Equivalences {
        let mut builder = EquivalencesBuilder::new(RepresentativeOrder::default());
        for (line, (a, b)) in pairs.iter().enumerate() {
            let kind = |iri: &str| match iri {
                _ if iri.starts_with("https://doi.org/") => Kind::Doi,
                _ if iri.starts_with("hdl:") => Kind::Handle,
                _ if iri.starts_with("info:fedora/") => Kind::FedoraObject,
                _ => Kind::Iri,
            };
            let origin = Origin {
                source: 0,
                line: line as u64 + 1,
            };
            builder.add((a, kind(a)), (b, kind(b)), origin).unwrap();
        }
        builder.freeze(max_class)
    }

    #[test]
    fn representative_prefers_doi_then_handle_then_fedora_then_bytes() {
        let e = build(
            &[
                ("http://b.example/1", "info:fedora/x:1"),
                ("info:fedora/x:1", "hdl:10013/z"),
                ("http://a.example/1", "http://b.example/1"),
            ],
            1000,
        );
        assert_eq!(e.representative("http://a.example/1"), Some("hdl:10013/z"));
        assert_eq!(e.representative("info:fedora/x:1"), Some("hdl:10013/z"));
        let e = build(
            &[
                ("hdl:10013/z", "https://doi.org/10.1/b"),
                ("https://doi.org/10.1/a", "hdl:10013/z"),
            ],
            1000,
        );
        assert_eq!(
            e.representative("hdl:10013/z"),
            Some("https://doi.org/10.1/a")
        );
        assert_eq!(
            e.representative("https://doi.org/10.1/b"),
            Some("https://doi.org/10.1/a")
        );
        // Among IRIs of no preferred kind: byte order.
        let e = build(
            &[("http://z/", "http://a/"), ("http://m/", "http://z/")],
            1000,
        );
        assert_eq!(e.representative("http://z/"), Some("http://a/"));
        assert_eq!(e.representative("http://m/"), Some("http://a/"));
        assert_eq!(e.classes(), 1);
        assert_eq!(e.members(), 3);
    }

    #[test]
    fn chains_and_stars_close_transitively() {
        let chain: Vec<(String, String)> = (0..100)
            .map(|i| (format!("http://c/{i:03}"), format!("http://c/{:03}", i + 1)))
            .collect();
        let pairs: Vec<(&str, &str)> = chain.iter().map(|(a, b)| (&**a, &**b)).collect();
        let e = build(&pairs, 1000);
        assert_eq!(e.representative("http://c/100"), Some("http://c/000"));
        assert_eq!(e.members(), 101);
        assert_eq!(e.listing().len(), 1);
    }

    #[test]
    fn reflexive_and_unknown_iris_are_in_no_class() {
        let e = build(&[("http://a/", "http://a/")], 1000);
        assert!(!e.contains("http://a/"));
        assert_eq!(e.classes(), 0);
        assert!(e.listing().is_empty());
        assert_eq!(e.representative("http://other/"), None);
    }

    #[test]
    fn a_class_over_the_limit_is_reported_with_its_joins_and_not_collapsed() {
        // Two stars of 4 joined by one statement (line 7).
        let pairs = [
            ("http://a/0", "http://a/1"),
            ("http://a/0", "http://a/2"),
            ("http://a/0", "http://a/3"),
            ("http://b/0", "http://b/1"),
            ("http://b/0", "http://b/2"),
            ("http://b/0", "http://b/3"),
            ("http://a/3", "http://b/3"),
            ("http://c/0", "http://c/1"),
        ];
        let e = build(&pairs, 5);
        assert_eq!(e.large_classes().len(), 1);
        let large = &e.large_classes()[0];
        assert_eq!(large.size, 8);
        assert_eq!(large.representative, "http://a/0");
        assert_eq!(large.joins.len(), 7);
        let bridge = large.largest_join.as_ref().unwrap();
        assert_eq!(
            (bridge.a.as_str(), bridge.b.as_str()),
            ("http://a/3", "http://b/3")
        );
        assert_eq!((bridge.origin.line, bridge.smaller_side), (7, 4));
        assert_eq!(e.representative("http://a/1"), None);
        assert!(!e.contains("http://b/0"));
        // The small class is still collapsed.
        assert_eq!(e.representative("http://c/1"), Some("http://c/0"));
        // With a higher limit, everything collapses.
        let e = build(&pairs, 8);
        assert!(e.large_classes().is_empty());
        assert_eq!(e.representative("http://b/3"), Some("http://a/0"));
    }

    #[test]
    fn the_order_of_kinds_is_configurable() {
        let order =
            RepresentativeOrder::from_names(&["fedora-object".into(), "doi".into()]).unwrap();
        let mut builder = EquivalencesBuilder::new(order);
        builder
            .add(
                ("https://doi.org/10.1/a", Kind::Doi),
                ("info:fedora/x:1", Kind::FedoraObject),
                Origin::default(),
            )
            .unwrap();
        let e = builder.freeze(10);
        assert_eq!(
            e.representative("https://doi.org/10.1/a"),
            Some("info:fedora/x:1")
        );
        assert!(RepresentativeOrder::from_names(&["fedora".into()]).is_err());
    }
}

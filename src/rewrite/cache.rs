//! A small direct-mapped cache of canonicalization results: dumps repeat the same IRIs (Fedora
//! vocabulary predicates, objects referenced from many statements), so most lookups skip the
//! adapters. Fixed size: memory stays constant. A cache with an [`IriMapping`] keeps the mapped
//! IRI (renamed, collapsed), so that mapping costs nothing more per occurrence than the lookup;
//! one that collapses keeps in the same slot the class member the IRI is, which is what an
//! equivalence statement asks of its sides.

use crate::equivalence::Member;
use crate::equivalence::mapping::IriMapping;
use crate::read::iri_hash;
use crate::{Canonical, IdError, Kind, Registry};
use std::borrow::Cow;
use std::sync::Arc;

/// Slots in the cache (a power of two). 2 048 slots of 64 bytes stay in the processor's second
/// level cache, and hit nearly as often as 8 192, which did not (NT->NT 8 % faster on one thread).
const SLOTS: usize = 1 << 11;
/// IRIs longer than this are not kept (they are rare and would only take room).
const MAX_LEN: usize = 256;

/// What the adapters said of an IRI.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    /// No adapter claims it, or it is canonical.
    Unchanged,
    /// Its canonical form differs.
    Changed(Box<str>, Kind),
    /// It is claimed but invalid (boxed: an error is rare, and the slot stays one cache line).
    Invalid(Box<IdError>),
}

/// What the cache keeps of an IRI.
#[derive(Debug)]
struct Resolved {
    outcome: Outcome,
    /// With a mapping that collapses, the member of a collapsed class that the IRI's canonical
    /// (renamed) form is.
    member: Option<Member>,
}

/// One cache line.
#[derive(Debug)]
#[repr(align(64))]
struct Slot {
    hash: u64,
    /// Reused from one IRI to the next: a miss allocates only if the IRI is longer than any
    /// this slot held before.
    iri: String,
    resolved: Resolved,
}

#[derive(Debug)]
pub(crate) struct Cache {
    slots: Vec<Slot>,
    /// What was found of the last IRI too long to keep.
    long: Resolved,
    /// The mapping applied after the adapters, and whether it collapses (else it only renames).
    mapping: Option<(Arc<IriMapping>, bool)>,
}

impl Cache {
    pub(crate) fn new() -> Self {
        Self {
            slots: std::iter::repeat_with(|| Slot {
                hash: iri_hash(""),
                iri: String::new(),
                resolved: Resolved::UNCHANGED,
            })
            .take(SLOTS)
            .collect(),
            long: Resolved::UNCHANGED,
            mapping: None,
        }
    }

    /// A cache whose outcomes go through `mapping`: renamed, and collapsed if `collapse`.
    pub(crate) fn with_mapping(mapping: Option<&Arc<IriMapping>>, collapse: bool) -> Self {
        Self {
            mapping: mapping.map(|m| (Arc::clone(m), collapse)),
            ..Self::new()
        }
    }

    /// The outcome for `iri`, from the cache or from `registry`. The cache is asked first, for
    /// every IRI: a hit costs one hash and one comparison, less than finding out whether an
    /// adapter claims the IRI.
    pub(crate) fn lookup(&mut self, registry: &Registry, iri: &str) -> &Outcome {
        self.lookup_hashed(registry, iri, iri_hash(iri))
    }

    /// [`Cache::lookup`], with `iri`'s hash ([`iri_hash`]) made already (by the line checker).
    pub(crate) fn lookup_hashed(&mut self, registry: &Registry, iri: &str, hash: u64) -> &Outcome {
        &self.resolved(registry, iri, hash).outcome
    }

    /// [`Cache::lookup`], with the member of a collapsed class that `iri`'s canonical (renamed)
    /// form is, for a cache that collapses (`None` for any other).
    pub(crate) fn lookup_member(
        &mut self,
        registry: &Registry,
        iri: &str,
    ) -> (&Outcome, Option<Member>) {
        let resolved = self.resolved(registry, iri, iri_hash(iri));
        (&resolved.outcome, resolved.member)
    }

    fn resolved(&mut self, registry: &Registry, iri: &str, hash: u64) -> &Resolved {
        let mapping = self.mapping.as_ref().map(|(m, collapse)| (&**m, *collapse));
        if iri.len() > MAX_LEN {
            self.long = resolve(registry, mapping, iri);
            return &self.long;
        }
        let slot = &mut self.slots[(hash as usize) & (SLOTS - 1)];
        if slot.hash != hash || slot.iri != iri {
            slot.resolved = resolve(registry, mapping, iri);
            slot.hash = hash;
            slot.iri.clear();
            slot.iri.push_str(iri);
        }
        &slot.resolved
    }
}

impl Resolved {
    const UNCHANGED: Self = Self {
        outcome: Outcome::Unchanged,
        member: None,
    };
}

/// What becomes of `iri`: canonicalized by the adapter that claims it (if one does), then
/// mapped.
fn resolve(registry: &Registry, mapping: Option<(&IriMapping, bool)>, iri: &str) -> Resolved {
    let result = registry
        .adapter_for(iri)
        .map(|adapter| registry.canonicalize_by(adapter, iri));
    let Some((mapping, collapse)) = mapping else {
        let outcome = result.map_or(Outcome::Unchanged, |result| outcome(result, iri));
        return Resolved {
            outcome,
            member: None,
        };
    };
    let (canonical, kind) = match result {
        None => (Cow::Borrowed(iri), Kind::Iri),
        Some(Ok(c)) => (c.iri, c.kind),
        Some(Err(error)) => {
            return Resolved {
                outcome: Outcome::Invalid(Box::new(error)),
                member: None,
            };
        }
    };
    let (mapped, member) = if collapse {
        mapping.collapsed(&canonical)
    } else {
        (mapping.renamed(&canonical).unwrap_or(&canonical), None)
    };
    let outcome = match mapped {
        same if same == iri => Outcome::Unchanged,
        other => Outcome::Changed(other.into(), kind),
    };
    Resolved { outcome, member }
}

fn outcome(result: Result<Canonical<'_>, IdError>, iri: &str) -> Outcome {
    match result {
        Ok(Canonical {
            iri: Cow::Borrowed(_),
            ..
        }) => Outcome::Unchanged,
        Ok(c) if c.iri == iri => Outcome::Unchanged,
        Ok(c) => Outcome::Changed(c.iri.into_owned().into_boxed_str(), c.kind),
        Err(error) => Outcome::Invalid(Box::new(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_one_cache_line() {
        // With the class member kept beside the outcome, a slot must still fill one line, not two.
        assert_eq!(std::mem::size_of::<Slot>(), 64);
    }
}

//! A small direct-mapped cache of canonicalization results: dumps repeat the same IRIs (Fedora
//! vocabulary predicates, objects referenced from many statements), so most lookups skip the
//! adapters. Fixed size: memory stays constant.

use crate::{Canonical, IdError, Kind, Registry};
use std::borrow::Cow;

/// Slots in the cache (a power of two).
const SLOTS: usize = 1 << 13;
/// IRIs longer than this are not kept (they are rare and would only take room).
const MAX_LEN: usize = 256;

/// What the adapters said of an IRI.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    /// No adapter claims it, or it is canonical.
    Unchanged,
    /// Its canonical form differs.
    Changed(Box<str>, Kind),
    /// It is claimed but invalid.
    Invalid(IdError),
}

#[derive(Debug)]
struct Slot {
    hash: u64,
    iri: Box<str>,
    outcome: Outcome,
}

#[derive(Debug)]
pub(crate) struct Cache {
    slots: Vec<Option<Slot>>,
    /// The outcome of the last IRI too long to keep.
    long: Outcome,
}

impl Cache {
    pub(crate) fn new() -> Self {
        Self {
            slots: std::iter::repeat_with(|| None).take(SLOTS).collect(),
            long: Outcome::Unchanged,
        }
    }

    /// The outcome for `iri`, from the cache or from `registry`. Allocates only on a miss of a
    /// claimed IRI.
    pub(crate) fn lookup(&mut self, registry: &Registry, iri: &str) -> &Outcome {
        const UNCHANGED: &Outcome = &Outcome::Unchanged;
        let Some(adapter) = registry.adapter_for(iri) else {
            return UNCHANGED;
        };
        if iri.len() > MAX_LEN {
            self.long = outcome(registry.canonicalize_by(adapter, iri), iri);
            return &self.long;
        }
        let hash = xxhash_rust::xxh3::xxh3_64(iri.as_bytes());
        let slot = &mut self.slots[(hash as usize) & (SLOTS - 1)];
        let hit = slot
            .as_ref()
            .is_some_and(|s| s.hash == hash && *s.iri == *iri);
        if !hit {
            let outcome = outcome(registry.canonicalize_by(adapter, iri), iri);
            *slot = Some(Slot {
                hash,
                iri: iri.into(),
                outcome,
            });
        }
        slot.as_ref().map_or(UNCHANGED, |s| &s.outcome)
    }
}

fn outcome(result: Result<Canonical<'_>, IdError>, iri: &str) -> Outcome {
    match result {
        Ok(Canonical {
            iri: Cow::Borrowed(_),
            ..
        }) => Outcome::Unchanged,
        Ok(c) if c.iri == iri => Outcome::Unchanged,
        Ok(c) => Outcome::Changed(c.iri.into_owned().into_boxed_str(), c.kind),
        Err(error) => Outcome::Invalid(error),
    }
}

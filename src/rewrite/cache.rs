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
    /// Reused from one IRI to the next: a miss allocates only if the IRI is longer than any
    /// this slot held before.
    iri: String,
    outcome: Outcome,
}

#[derive(Debug)]
pub(crate) struct Cache {
    slots: Vec<Slot>,
    /// The outcome of the last IRI too long to keep.
    long: Outcome,
}

impl Cache {
    pub(crate) fn new() -> Self {
        Self {
            slots: std::iter::repeat_with(|| Slot {
                hash: xxhash_rust::xxh3::xxh3_64(b""),
                iri: String::new(),
                outcome: Outcome::Unchanged,
            })
            .take(SLOTS)
            .collect(),
            long: Outcome::Unchanged,
        }
    }

    /// The outcome for `iri`, from the cache or from `registry`. The cache is asked first, for
    /// every IRI: a hit costs one hash and one comparison, less than finding out whether an
    /// adapter claims the IRI.
    pub(crate) fn lookup(&mut self, registry: &Registry, iri: &str) -> &Outcome {
        if iri.len() > MAX_LEN {
            self.long = outcome(registry, iri);
            return &self.long;
        }
        let hash = xxhash_rust::xxh3::xxh3_64(iri.as_bytes());
        let slot = &mut self.slots[(hash as usize) & (SLOTS - 1)];
        if slot.hash != hash || slot.iri != iri {
            slot.outcome = outcome(registry, iri);
            slot.hash = hash;
            slot.iri.clear();
            slot.iri.push_str(iri);
        }
        &slot.outcome
    }
}

/// What the adapters say of `iri`.
fn outcome(registry: &Registry, iri: &str) -> Outcome {
    match registry.adapter_for(iri) {
        Some(adapter) => outcome_of(registry.canonicalize_by(adapter, iri), iri),
        None => Outcome::Unchanged,
    }
}

fn outcome_of(result: Result<Canonical<'_>, IdError>, iri: &str) -> Outcome {
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

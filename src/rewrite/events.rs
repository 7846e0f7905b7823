//! What the workers of both pipelines find as they canonicalize — rewrites, invalid
//! identifiers, lines that do not parse, statements to check for duplicates — kept in input order
//! for the session to apply: the workers decide nothing, the session decides everything.

use super::cache::{Cache, Outcome};
use super::fingerprint::Fingerprint;
use super::{Location, SyntaxError};
use crate::{IdError, Kind, Registry};
use std::collections::BTreeMap;
use std::ops::Range;

/// One thing found, at a location counted from the start of what the worker was given.
#[derive(Debug)]
pub(crate) enum Event {
    Rewritten {
        location: Location,
        original: Box<str>,
        canonical: Box<str>,
        kind: Kind,
    },
    Invalid {
        location: Location,
        iri: Box<str>,
        error: IdError,
    },
    /// A line that does not parse: its bytes, and where in the worker's output it would stand.
    Syntax {
        error: SyntaxError,
        line: Vec<u8>,
        at: usize,
    },
    /// Something worth a word that is not an error.
    Warning { location: Location, message: String },
    /// A statement's fingerprint and its bytes in the worker's output, for `--dedup`.
    Statement {
        fingerprint: Fingerprint,
        output: Range<usize>,
    },
}

/// What a worker found in one chunk or batch.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub(crate) events: Vec<Event>,
    /// IRI occurrences rewritten, per kind (counted whether or not each is an event).
    pub(crate) rewritten: BTreeMap<Kind, u64>,
    /// Reflexive equivalence statements dropped.
    pub(crate) dropped: u64,
    /// Identifier literals, per predicate.
    pub(crate) literals: crate::equivalence::literals::LiteralStats,
    /// Statements of trusty nanopublications left as they are.
    pub(crate) signed_statements_kept: u64,
    /// The class members named by equivalence statements, to link from their representatives
    /// at the end (`--collapse`).
    pub(crate) links: crate::equivalence::mapping::EquivalenceLinks,
}

impl Found {
    pub(crate) fn clear(&mut self) {
        self.events.clear();
        self.rewritten.clear();
        self.dropped = 0;
        self.literals.clear();
        self.signed_statements_kept = 0;
        self.links.clear();
    }
}

/// What the workers must record for a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Needs {
    /// Each rewrite is told to an observer, links or map.
    pub(crate) rewrite_events: bool,
}

/// Looks `iri` up in `cache`: counts and (when `needs` says so) records a rewrite, or records an
/// invalid identifier, at the location `location` gives. Returns the canonical form when it
/// differs.
pub(crate) fn look_up<'c>(
    cache: &'c mut Cache,
    registry: &Registry,
    needs: Needs,
    (iri, hash): (&str, Option<u64>),
    location: impl FnOnce() -> Location,
    found: &mut Found,
) -> Option<&'c str> {
    let outcome = match hash {
        Some(hash) => cache.lookup_hashed(registry, iri, hash),
        None => cache.lookup(registry, iri),
    };
    match outcome {
        Outcome::Unchanged => None,
        Outcome::Changed(canonical, kind) => {
            *found.rewritten.entry(*kind).or_default() += 1;
            if needs.rewrite_events {
                found.events.push(Event::Rewritten {
                    location: location(),
                    original: iri.into(),
                    canonical: canonical.clone(),
                    kind: *kind,
                });
            }
            Some(canonical)
        }
        Outcome::Invalid(error) => {
            found.events.push(Event::Invalid {
                location: location(),
                iri: iri.into(),
                error: (**error).clone(),
            });
            None
        }
    }
}

//! `--dedup`: a statement is known by a 128-bit fingerprint of its N-Quads form, so a set of
//! them costs 16 bytes per distinct statement (plus the set's overhead) whatever the statements'
//! length. Both pipelines use it: the line pipeline fingerprints each line's rewritten statement
//! on its workers, the graph pipeline each mapped statement before it is serialized.

use oxrdf::QuadRef;
use std::collections::HashSet;
use std::fmt::Write as _;

/// The fingerprint of one statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Fingerprint(u128);

impl Fingerprint {
    /// The fingerprint of `quad`; `scratch` is a buffer reused between calls.
    pub(crate) fn of<'a>(quad: impl Into<QuadRef<'a>>, scratch: &mut String) -> Self {
        scratch.clear();
        let _ = write!(scratch, "{}", quad.into());
        Self(xxhash_rust::xxh3::xxh3_128(scratch.as_bytes()))
    }
}

/// The fingerprints of the statements written so far.
#[derive(Debug, Default)]
pub(crate) struct Fingerprints(HashSet<Fingerprint>);

impl Fingerprints {
    /// Remembers `fingerprint`; false if it was there already (the statement is a duplicate).
    pub(crate) fn first_time(&mut self, fingerprint: Fingerprint) -> bool {
        self.0.insert(fingerprint)
    }
}

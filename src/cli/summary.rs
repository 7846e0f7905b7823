//! What the commands' summaries share: counts per kind of identifier.

use pidcanon::Kind;
use std::collections::BTreeMap;

/// ` (fedora-object 3, doi 1)`, or nothing when there are none.
pub(crate) fn kinds_text(counts: &BTreeMap<Kind, u64>) -> String {
    if counts.is_empty() {
        return String::new();
    }
    let kinds: Vec<String> = counts
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect();
    format!(" ({})", kinds.join(", "))
}

/// `{"fedora-object": 3, "doi": 1}`.
pub(crate) fn kinds_json(counts: &BTreeMap<Kind, u64>) -> serde_json::Value {
    counts
        .iter()
        .map(|(kind, n)| (kind.to_string(), (*n).into()))
        .collect::<serde_json::Map<String, serde_json::Value>>()
        .into()
}

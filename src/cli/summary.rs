//! What the commands' summaries share: counts of things, counts per kind of identifier.

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

/// `1 file`, `2 files`, `0 files`: `n` and the noun in the singular when `n` is 1.
pub(crate) fn count(n: impl Into<u64>, singular: &str, plural: &str) -> String {
    match n.into() {
        1 => format!("1 {singular}"),
        n => format!("{n} {plural}"),
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!(count(0u64, "file", "files"), "0 files");
        assert_eq!(count(1u64, "class", "classes"), "1 class");
        assert_eq!(count(2u64, "class", "classes"), "2 classes");
    }
}

//! Every vector of `fixtures/conformance/*.tsv` through the library: the expected result, the
//! kind, and for every valid row idempotence, a valid IRI, and no allocation when unchanged.
//! All failures are collected and printed before the one assertion (as oxigraph's test suite).

mod common;

use common::{Vector, expected_failures, options, parse_expected_failures, vectors};
use oxrdf::NamedNodeRef;
use pidcanon::{Canonical, IdError, Registry};
use std::borrow::Cow;
use std::collections::BTreeMap;

fn run<'a>(
    registry: &Registry,
    scheme: Option<&str>,
    input: &'a str,
) -> Result<Canonical<'a>, IdError> {
    match scheme {
        Some(name) => registry
            .canonicalize_as(name, input)
            .unwrap_or_else(|| panic!("no adapter named {name}")),
        None => registry.canonicalize(input),
    }
}

/// What is wrong with the answer for `input` as an oxrdf named node (when it is an IRI), given
/// the answer for it as a string.
fn check_named_node(
    registry: &Registry,
    input: &str,
    result: &Result<Canonical<'_>, IdError>,
) -> Option<String> {
    let node = NamedNodeRef::new(input).ok()?;
    match (registry.canonicalize_named_node(node), result) {
        (Ok(n), Ok(c)) if n.as_str() == c.iri && n.is_changed() == (c.iri != input) => None,
        (Err(e), Err(f)) if e == *f => None,
        (node, _) => Some(format!("as a named node: {node:?}")),
    }
}

/// What is wrong with the library's answer for `v`, if anything.
fn check(v: &Vector) -> Option<String> {
    let (scheme, policy) = options(&v.options);
    let registry = Registry::from_policy(&policy).expect("vector policies are valid");
    if scheme
        .as_deref()
        .is_some_and(|s| registry.adapter_named(s).is_none())
    {
        return Some(format!("no adapter for {scheme:?}"));
    }
    let result = run(&registry, scheme.as_deref(), &v.input);
    let (got, kind) = match &result {
        Ok(c) => (c.iri.as_ref(), c.kind.as_str()),
        Err(e) => ("INVALID", e.kind().as_str()),
    };
    if got != v.expected {
        let message = result
            .as_ref()
            .err()
            .map(ToString::to_string)
            .unwrap_or_default();
        return Some(format!("expected {:?}, got {got:?} {message}", v.expected));
    }
    if kind != v.kind {
        return Some(format!("expected kind {}, got {kind}", v.kind));
    }
    if scheme.is_none() {
        if let Some(problem) = check_named_node(&registry, &v.input, &result) {
            return Some(problem);
        }
    }
    let Ok(canonical) = result else { return None };
    if canonical.iri == v.input && !matches!(canonical.iri, Cow::Borrowed(_)) {
        return Some("unchanged input was copied, not borrowed".into());
    }
    if let Err(e) = pidcanon::iri::validate(&canonical.iri) {
        return Some(format!("output is not an IRI: {e}"));
    }
    match registry.canonicalize(&canonical.iri) {
        Ok(again) if again.iri == canonical.iri && matches!(again.iri, Cow::Borrowed(_)) => None,
        Ok(again) => Some(format!("not idempotent: then {:?}", again.iri)),
        Err(e) => Some(format!("output not accepted: {e}")),
    }
}

#[test]
fn conformance_vectors() {
    let known = expected_failures();
    let mut failures = Vec::new();
    let mut unexpected_successes = Vec::new();
    let all = vectors();
    for v in &all {
        match (check(v), known.contains(&v.key())) {
            (Some(problem), false) => failures.push(format!(
                "{} [{}] {:?}: {problem}\n    ({})",
                v.location, v.options, v.input, v.note
            )),
            (None, true) => unexpected_successes.push(v.key()),
            _ => {}
        }
    }
    let stale: Vec<_> = known
        .iter()
        .filter(|k| !all.iter().any(|v| v.key() == **k))
        .collect();
    assert!(all.len() > 300, "only {} vectors", all.len());
    assert!(
        failures.is_empty() && unexpected_successes.is_empty() && stale.is_empty(),
        "{} of {} vectors failed:\n{}\nunexpected successes (remove from expected-failures.txt): {unexpected_successes:?}\nstale entries: {stale:?}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// A key names one expectation: rows of several files with the same input and options must
/// expect the same result.
#[test]
fn rows_with_the_same_input_and_options_agree() {
    let mut seen: BTreeMap<(String, String), Vector> = BTreeMap::new();
    let mut conflicts = Vec::new();
    for v in vectors() {
        match seen.get(&v.key()) {
            Some(first) if (&first.expected, &first.kind) != (&v.expected, &v.kind) => {
                conflicts.push(format!("{} and {}", first.location, v.location));
            }
            Some(_) => {}
            None => {
                seen.insert(v.key(), v);
            }
        }
    }
    assert!(conflicts.is_empty(), "{}", conflicts.join("\n"));
}

#[test]
fn expected_failures_are_keyed_by_input_and_options_not_by_line() {
    let known = parse_expected_failures(
        "# comment\ninfo:fedora/demo:1#a\t\nhdl:x/y\t--handle-form https\ndoi:10.1/x\n",
    );
    let keys: Vec<_> = known
        .iter()
        .map(|(i, o)| (i.as_str(), o.as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("doi:10.1/x", ""),
            ("hdl:x/y", "--handle-form https"),
            ("info:fedora/demo:1#a", "")
        ]
    );
}

//! Canonicalizing an identifier that is already canonical does not allocate: every vector whose
//! expected value is its input, measured with a counting allocator (`allocation-counter`), as a
//! string and as an oxrdf named node.

mod common;

use common::{options, vectors};
use oxrdf::NamedNodeRef;
use pidcanon::{CanonicalNamedNode, Registry};

#[test]
fn canonical_inputs_do_not_allocate() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for v in vectors().into_iter().filter(|v| v.input == v.expected) {
        let (scheme, policy) = options(&v.options);
        let registry = Registry::from_policy(&policy).expect("vector policies are valid");
        let info = allocation_counter::measure(|| {
            let result = match scheme.as_deref() {
                Some(name) => registry.canonicalize_as(name, &v.input),
                None => Some(registry.canonicalize(&v.input)),
            };
            assert!(matches!(result, Some(Ok(_))), "{}: {result:?}", v.location);
        });
        checked += 1;
        if info.count_total != 0 {
            failures.push(format!(
                "{} {:?}: {} allocations",
                v.location, v.input, info.count_total
            ));
        }
    }
    assert!(checked > 50, "only {checked} canonical vectors");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn canonical_named_nodes_come_back_borrowed_without_allocating() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for v in vectors()
        .into_iter()
        .filter(|v| v.input == v.expected && !v.options.contains("--scheme"))
    {
        let (_, policy) = options(&v.options);
        let registry = Registry::from_policy(&policy).expect("vector policies are valid");
        let node = NamedNodeRef::new(&v.input).expect("a canonical form is an IRI");
        let mut result = None;
        let info = allocation_counter::measure(|| {
            result = Some(registry.canonicalize_named_node(node));
        });
        checked += 1;
        match result {
            Some(Ok(CanonicalNamedNode::Unchanged(back))) if back == node => {}
            other => failures.push(format!("{} {:?}: {other:?}", v.location, v.input)),
        }
        if info.count_total != 0 {
            failures.push(format!(
                "{} {:?}: {} allocations",
                v.location, v.input, info.count_total
            ));
        }
    }
    assert!(checked > 50, "only {checked} canonical vectors");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! Canonicalization per scheme, for already-canonical and for non-canonical input, and the
//! registry's dispatch of an IRI no adapter claims: `cargo bench --bench canonicalize`.

use criterion::{Criterion, criterion_group, criterion_main};
use pidcanon::Registry;
use std::hint::black_box;

const CASES: [(&str, &str, &str); 7] = [
    (
        "fedora",
        "info:fedora/demo:A-B.C_D%3AE",
        "INFO:FEDORA/demo%3aA-B.C_D%3ae",
    ),
    (
        "fedora-dissemination",
        "info:fedora/demo:1/demo:MyBDef/method?a=1&b=2",
        "info:fedora/demo%3A1/demo:MyBDef/method?b=2&a=1",
    ),
    (
        "oai",
        "oai:arXiv.org:hep-th/9901001",
        "oai:arXiv.org:hep-th/9901001",
    ),
    (
        "poi",
        "http://purl.org/poi/arXiv.org/hep-th/9901001",
        "HTTPS://PURL.ORG/poi/arXiv.org/hep-th/9901001",
    ),
    (
        "handle",
        "hdl:10013/epic.10033",
        "https://hdl.handle.net/10013%2Fepic.10033",
    ),
    (
        "doi",
        "https://doi.org/10.1371/journal.pone.0042793",
        "http://dx.doi.org/10.1371/JOURNAL.PONE.0042793",
    ),
    (
        "pdi",
        "urn:pdi://oma.eop.gov.us/1997/09/01/1.text.1#char=37,51",
        "pdi://oma.eop.gov.us/1997/09/01/1.TEXT.1#37,51",
    ),
];

fn canonicalize(c: &mut Criterion) {
    let registry = Registry::default();
    for (scheme, canonical, variant) in CASES {
        c.bench_function(&format!("{scheme}/canonical"), |b| {
            b.iter(|| registry.canonicalize(black_box(canonical)).map(|c| c.kind))
        });
        c.bench_function(&format!("{scheme}/variant"), |b| {
            b.iter(|| {
                registry
                    .canonicalize(black_box(variant))
                    .map(|c| c.iri.len())
            })
        });
    }
    c.bench_function("unclaimed/dispatch", |b| {
        b.iter(|| {
            registry
                .canonicalize_claimed(black_box("http://schema.org/name"))
                .is_none()
        })
    });
}

criterion_group!(benches, canonicalize);
criterion_main!(benches);

//! What the differential fuzz targets found (docs/fuzzing.md), each input minimized, run
//! through the same check the target runs (`fuzz/src/differential.rs`, compiled in here); and
//! every input of their corpora, so that a change that breaks an agreement the fuzzer once
//! checked fails here without cargo-fuzz.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)] // the identifier checks belong to tests/fuzz_corpora.rs
mod fuzz;

use fuzz::differential;
use std::path::Path;

/// The check a fuzz target runs on one input.
type Check = fn(&[u8]);

/// Each differential target: its corpus and the check it runs.
const TARGETS: [(&str, Check); 7] = [
    ("turtle_fast_vs_oxttl", differential::turtle_fast_vs_oxttl),
    (
        "turtle_fast_vs_oxttl_structured",
        differential::turtle_fast_vs_oxttl_structured,
    ),
    ("turtle_threads", differential::turtle_threads_bytes),
    (
        "ntriples_scanner_vs_oxttl",
        differential::ntriples_scanner_vs_oxttl,
    ),
    ("turtle_lenient", differential::turtle_lenient),
    (
        "rdfxml_legacy_vs_oxrdfxml",
        differential::rdfxml_legacy_vs_oxrdfxml,
    ),
    ("collapse", differential::collapse),
];

#[test]
fn every_corpus_input_agrees() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    for (target, check) in TARGETS {
        let dir = root.join(target);
        let mut inputs = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            check(&std::fs::read(&path).expect("a corpus file"));
            inputs += 1;
        }
        assert!(inputs >= 50, "{target}: only {inputs} inputs");
    }
}

//! The fuzz targets' corpora (`fuzz/corpus/<target>`) as a regression test: every input of the
//! identifier targets goes through the same checks the fuzz targets make (`fuzz/src/lib.rs`,
//! compiled in here), so a change to an adapter's fast paths is checked against every case the
//! fuzzer has found, without cargo-fuzz.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)] // the RDF rewrite check belongs to the rewrite targets
mod checks;

use std::path::Path;

/// The check a fuzz target runs on one input.
type Check = fn(&str);

/// Each identifier target: its corpus and the check it runs.
const TARGETS: [(&str, Check); 7] = [
    ("registry", checks::registry),
    ("fedora", |input| {
        checks::adapter("fedora", "info:fedora/", input)
    }),
    ("oai", |input| checks::adapter("oai", "oai:", input)),
    ("poi", |input| {
        checks::adapter("poi", "http://purl.org/poi/", input)
    }),
    ("handle", |input| checks::adapter("handle", "hdl:", input)),
    ("doi", |input| checks::adapter("doi", "doi:", input)),
    ("pdi", |input| checks::adapter("pdi", "urn:pdi://", input)),
];

#[test]
fn every_corpus_input_passes_its_target_checks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    for (target, check) in TARGETS {
        let mut inputs = 0;
        let dir = root.join(target);
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            let bytes = std::fs::read(&path).expect("a corpus file");
            // libFuzzer hands a `&str` target only the inputs that are UTF-8.
            if let Ok(input) = std::str::from_utf8(&bytes) {
                check(input);
                inputs += 1;
            }
        }
        assert!(inputs > 100, "{target}: only {inputs} inputs");
    }
}

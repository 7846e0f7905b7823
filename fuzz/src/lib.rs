//! The checks the fuzz targets share: what must hold of any input; the differential checks
//! ([`differential`]) and the Turtle documents they are run on ([`structured`]).

pub mod differential;
pub mod structured;

use pidcanon::rewrite::{RdfFormat, Rewriter};
use pidcanon::{Kind, Registry};
use std::borrow::Cow;
use std::sync::LazyLock;

static REGISTRY: LazyLock<Registry> = LazyLock::new(Registry::default);

/// A canonical form is an IRI that canonicalizes to itself, borrowed, with the same kind.
fn check_canonical(input: &str, iri: &str, kind: Kind) {
    assert!(
        pidcanon::iri::validate(iri).is_ok(),
        "{input:?} -> {iri:?} is not an IRI"
    );
    let again = REGISTRY
        .canonicalize(iri)
        .unwrap_or_else(|e| panic!("{iri:?} from {input:?}: {e}"));
    assert!(
        matches!(again.iri, Cow::Borrowed(_)),
        "{iri:?} changes again: {:?}",
        again.iri
    );
    assert_eq!(again.kind, kind, "{iri:?} changes kind");
}

/// Any text through the registry, with and without `--scheme`.
pub fn registry(input: &str) {
    if let Ok(c) = REGISTRY.canonicalize(input) {
        check_canonical(input, &c.iri, c.kind);
    }
    for scheme in ["fedora", "oai", "poi", "handle", "doi", "pdi"] {
        if let Some(Ok(c)) = REGISTRY.canonicalize_as(scheme, input) {
            check_canonical(input, &c.iri, c.kind);
        }
    }
}

/// Any text through one adapter, in its full forms (with `prefix` put in front, so the fuzzer
/// spends its time inside the adapter) and as a bare identifier.
pub fn adapter(scheme: &str, prefix: &str, input: &str) {
    let full = format!("{prefix}{input}");
    if let Some(adapter) = REGISTRY.adapter_for(&full)
        && let Ok(c) = REGISTRY.canonicalize_by(adapter, &full)
    {
        check_canonical(&full, &c.iri, c.kind);
    }
    if let Some(Ok(c)) = REGISTRY.canonicalize_as(scheme, input) {
        check_canonical(input, &c.iri, c.kind);
    }
}

/// Any bytes through the rewriter: it never panics; what it accepts keeps its statements, comes
/// out canonical, and rewrites to itself (N-Triples byte for byte).
pub fn rewrite(format: RdfFormat, input: &[u8]) {
    let run = |bytes: &[u8], from: RdfFormat| {
        let rewriter = Rewriter::new(Registry::default())
            .with_input_format(from)
            .with_output_format(RdfFormat::NQuads);
        let mut out = Vec::new();
        let mut session = rewriter.session(&mut out);
        session.rewrite(bytes).ok()?;
        let report = session.finish().ok()?;
        Some((out, report))
    };
    let Some((once, report)) = run(input, format) else {
        return;
    };
    assert_eq!(report.statements_read, report.statements_written);
    let (twice, again) = run(&once, RdfFormat::NQuads).expect("the output rewrites");
    assert_eq!(
        again.rewritten_total(),
        0,
        "not canonical: {:?}",
        String::from_utf8_lossy(&once)
    );
    assert_eq!(again.statements_written, report.statements_written);
    if format == RdfFormat::NTriples {
        assert_eq!(once, twice, "not idempotent");
    }
}

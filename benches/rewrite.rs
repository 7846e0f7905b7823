#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! The rewriter on a generated corpus (`benches/gen_rdf.py`, or `$GEN_CORPUS`; needs python3):
//! N-Triples and Turtle to N-Triples, in memory: `cargo bench --bench rewrite`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pidcanon::Registry;
use pidcanon::rewrite::{RdfFormat, Rewriter};
use std::process::Command;

const TRIPLES: &str = "50000";

fn corpus(format: &str) -> Vec<u8> {
    let generator = std::env::var("GEN_CORPUS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/benches/gen_rdf.py").into());
    let out = Command::new("python3")
        .args([
            generator.as_str(),
            "--triples",
            TRIPLES,
            "--seed",
            "1",
            "--format",
            format,
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 ({e}): {generator} needs Python 3"));
    assert!(
        out.status.success(),
        "{generator} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn rewrite(c: &mut Criterion) {
    for (name, format, rdf) in [
        ("nt", "nt", RdfFormat::NTriples),
        ("ttl", "ttl", RdfFormat::Turtle),
    ] {
        let input = corpus(format);
        let rewriter = Rewriter::new(Registry::default())
            .with_input_format(rdf)
            .with_output_format(RdfFormat::NTriples);
        let mut group = c.benchmark_group(format!("rewrite-{name}-to-nt"));
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.sample_size(10);
        group.bench_function(TRIPLES, |b| {
            b.iter(|| {
                let mut session = rewriter.session(std::io::sink());
                session.rewrite(input.as_slice()).map(|()| session.finish())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, rewrite);
criterion_main!(benches);

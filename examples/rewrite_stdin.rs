//! Rewrite N-Triples from stdin to stdout with the library, printing each rewrite on stderr:
//! `cargo run --example rewrite_stdin < fixtures/examples/repository.nt`.

use pidcanon::rewrite::{Location, Observer, RdfFormat, Rewriter};
use pidcanon::{Kind, Registry};
use std::io;

/// Prints every rewrite as it happens.
struct PrintRewrites;

impl Observer for PrintRewrites {
    fn rewritten(&mut self, location: Location, original: &str, canonical: &str, kind: Kind) {
        eprintln!("line {location}: {original} -> {canonical} ({kind})");
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::NTriples);
    let mut session = rewriter
        .session(io::stdout().lock())
        .with_observer(PrintRewrites);
    session.rewrite(io::stdin().lock())?;
    let report = session.finish()?;
    eprintln!(
        "{} statements, {} IRIs rewritten",
        report.statements_written,
        report.rewritten_total()
    );
    Ok(())
}

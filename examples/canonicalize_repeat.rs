//! Canonicalizes each identifier given `N` times: the workload `benches/canon_instructions.sh`
//! counts instructions of (`cargo run --release --example canonicalize_repeat -- N ID...`).

use pidcanon::Registry;
use std::hint::black_box;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let times: usize = args
        .next()
        .ok_or("usage: canonicalize_repeat N ID...")?
        .parse()?;
    let ids: Vec<String> = args.collect();
    let registry = Registry::default();
    let mut bytes = 0;
    for _ in 0..times {
        for id in &ids {
            bytes += registry
                .canonicalize(black_box(id))
                .map_or(0, |c| c.iri.len());
        }
    }
    println!("{bytes}");
    Ok(())
}

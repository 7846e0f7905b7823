//! Canonicalize identifiers with the library: `cargo run --example canonicalize -- ID...`
//! (with no arguments, a few built-in examples).

use pidcanon::{PoiOai, Policy, Registry};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut policy = Policy::default();
    policy.poi_oai = PoiOai::Keep;
    policy
        .fedora_bases
        .push("http://localhost:8080/fedora".to_owned());
    let registry = Registry::from_policy(&policy)?;

    let args: Vec<String> = std::env::args().skip(1).collect();
    let inputs: Vec<&str> = if args.is_empty() {
        vec![
            "info:fedora/demo%3a1",
            "http://localhost:8080/fedora/objects/demo%3A1/datastreams/DC/content",
            "HDL://100.102/F58FB49EB1F848f0A606E84CEF294BE5",
            "http://dx.doi.org/10.1371/JOURNAL.PONE.0042793",
            "oai:wibble.org:ab%3ccd",
        ]
    } else {
        args.iter().map(String::as_str).collect()
    };
    for input in inputs {
        match registry.canonicalize(input) {
            Ok(canonical) => println!("{input}\n  -> {} ({})", canonical.iri, canonical.kind),
            Err(error) => println!("{input}\n  !! {error}"),
        }
    }
    Ok(())
}

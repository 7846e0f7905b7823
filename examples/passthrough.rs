//! The baseline of `benches/compare.sh`: a plain oxttl parse → N-Triples (N-Quads for TriG)
//! serialize pipe, with the same oxttl version and the same buffer sizes as `pidcanon rewrite`,
//! and no canonicalization.
//! `cargo run --release --example passthrough -- nt|ttl|trig < INPUT > OUTPUT`

use oxttl::{NQuadsSerializer, NTriplesParser, NTriplesSerializer, TriGParser, TurtleParser};
use std::io::{self, BufReader, BufWriter, Write};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let format = std::env::args().nth(1).unwrap_or_else(|| "nt".into());
    let input = BufReader::with_capacity(1 << 16, io::stdin().lock());
    if format == "trig" {
        let mut output = NQuadsSerializer::new()
            .for_writer(BufWriter::with_capacity(1 << 16, io::stdout().lock()));
        for quad in TriGParser::new().for_reader(input) {
            output.serialize_quad(&quad?)?;
        }
        output.finish().flush()?;
        return Ok(());
    }
    let mut output = NTriplesSerializer::new()
        .for_writer(BufWriter::with_capacity(1 << 16, io::stdout().lock()));
    match format.as_str() {
        "nt" => {
            for triple in NTriplesParser::new().for_reader(input) {
                output.serialize_triple(&triple?)?;
            }
        }
        "ttl" => {
            for triple in TurtleParser::new().for_reader(input) {
                output.serialize_triple(&triple?)?;
            }
        }
        other => return Err(format!("unknown format {other}: nt, ttl or trig").into()),
    }
    output.finish().flush()?;
    Ok(())
}

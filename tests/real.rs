//! Real RDF written by others (`fixtures/real/`, see its SOURCES.md): for every file and every
//! output form, the statement count is preserved (for RDF/XML, legacy RDF/XML included: the count
//! of its rapper conversion) (less the duplicates `--dedup` reports), every
//! identifier in the output is canonical (a second rewrite changes nothing), and rewriting is
//! idempotent.

mod common;

use common::reference::RdfParser;
use pidcanon::Registry;
use pidcanon::rewrite::RdfFormat;
use pidcanon::rewrite::{Report, Rewriter};
use std::path::Path;

fn rewrite(
    input: &[u8],
    from: RdfFormat,
    to: RdfFormat,
    dedup: bool,
) -> Result<(Vec<u8>, Report), String> {
    let mut rewriter = Rewriter::new(Registry::default())
        .with_input_format(from)
        .with_output_format(to)
        .with_base_iri("http://example.org/base/")
        .map_err(|e| e.to_string())?;
    if dedup {
        rewriter = rewriter.drop_duplicates();
    }
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    session.rewrite(input).map_err(|e| e.to_string())?;
    let report = session.finish().map_err(|e| e.to_string())?;
    Ok((out, report))
}

fn count(bytes: &[u8], format: RdfFormat) -> Result<usize, String> {
    let parser = RdfParser::from_format(format)
        .with_base_iri("http://example.org/base/")
        .map_err(|e| e.to_string())?;
    parser
        .for_slice(bytes)
        .try_fold(0, |n, q| q.map(|_| n + 1).map_err(|e| e.to_string()))
}

fn format_named(name: &str) -> RdfFormat {
    match name {
        "ntriples" => RdfFormat::NTriples,
        "nquads" => RdfFormat::NQuads,
        "turtle" => RdfFormat::Turtle,
        "trig" => RdfFormat::TriG,
        "rdfxml" => RdfFormat::RdfXml,
        other => panic!("unknown format {other}"),
    }
}

/// The number of statements in `file`: for RDF/XML, in its rapper conversion `conversion`
/// (rapper reads legacy RDF/XML, and so must the rewrite); for the other formats, as `oxttl`
/// reads them.
fn expected_count(file: &str, format: RdfFormat, conversion: &str) -> Result<u64, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real");
    let (file, format) = if format == RdfFormat::RdfXml {
        (conversion, RdfFormat::NTriples)
    } else {
        (file, format)
    };
    let input = std::fs::read(root.join(file)).expect("readable fixture");
    count(&input, format).map(|n| n as u64)
}

/// What is wrong with rewriting `file` (of `format`, with `expected` statements) into `to`, if
/// anything.
fn check(
    file: &str,
    format: RdfFormat,
    expected: u64,
    to: RdfFormat,
    dedup: bool,
) -> Option<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/real")
        .join(file);
    let input = std::fs::read(&path).expect("readable fixture");
    let (output, report) = match rewrite(&input, format, to, dedup) {
        Ok(done) => done,
        Err(e) => return Some(format!("rewrite failed: {e}")),
    };
    if report.statements_read != expected
        || report.statements_written + report.duplicates_dropped != expected
    {
        return Some(format!("{expected} statements in, report {report:?}"));
    }
    match count(&output, to) {
        Ok(n) if n as u64 == report.statements_written => {}
        Ok(n) => {
            return Some(format!(
                "{n} statements in the output, {} reported",
                report.statements_written
            ));
        }
        Err(e) => return Some(format!("the output does not parse: {e}")),
    }
    let (again, second) = match rewrite(&output, to, to, dedup) {
        Ok(done) => done,
        Err(e) => return Some(format!("the output does not rewrite: {e}")),
    };
    if second.rewritten_total() != 0 {
        return Some(format!(
            "identifiers still not canonical: {:?}",
            second.rewritten
        ));
    }
    if second.duplicates_dropped != 0 || (to == RdfFormat::NTriples && again != output) {
        return Some("the rewrite is not idempotent".into());
    }
    None
}

#[test]
fn real_files_keep_their_statements_and_come_out_canonical() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real");
    let index = std::fs::read_to_string(root.join("index.tsv")).expect("index");
    let mut failures = Vec::new();
    let mut files = 0;
    let mut rewritten = 0;
    for row in index.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let (file, format) = (cols[0], format_named(cols[3]));
        files += 1;
        let expected = match expected_count(file, format, cols[1]) {
            Ok(n) => n,
            Err(e) => {
                failures.push(format!("{file}: the input does not parse: {e}"));
                continue;
            }
        };
        let graph_out = if matches!(format, RdfFormat::TriG | RdfFormat::NQuads) {
            RdfFormat::NQuads
        } else {
            RdfFormat::NTriples
        };
        for (to, dedup) in [(graph_out, false), (graph_out, true), (format, false)] {
            if let Some(problem) = check(file, format, expected, to, dedup) {
                failures.push(format!("{file} -> {to} (dedup: {dedup}): {problem}"));
            }
        }
        let input = std::fs::read(root.join(file)).expect("readable");
        if let Ok((_, report)) = rewrite(&input, format, graph_out, false) {
            rewritten += report.rewritten_total();
        }
    }
    assert!(files > 80, "only {files} files");
    assert!(rewritten > 0, "nothing in the real corpus was rewritten");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! `--collapse` reads its inputs twice, and both passes must see the same statements: the
//! first gathers the equivalence statements of exactly what the rewrite then reads — legacy
//! RDF/XML, Turtle recovered from under `--lenient`, FOXML objects and object stores,
//! compressed files, stdin. Each case: the equivalence statements between IRIs the rewrite
//! writes without `--collapse`, counted, against the pairs the first pass says it gathered.

mod common;

use common::{Dir, run_pidcanon};
use std::fs;
use std::io::Write;
use std::path::Path;

const SAME_AS: &str = "<http://www.w3.org/2002/07/owl#sameAs>";

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// The `owl:sameAs` statements between IRIs that `rewrite ARGS --to nq` writes.
fn equivalence_statements(args: &[&str], stdin: &[u8]) -> usize {
    let mut all = vec!["rewrite", "-q", "--to", "nq"];
    all.extend_from_slice(args);
    let out = run_pidcanon(&all, stdin);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        // (A CR alone ends a line too, and the line path keeps it.)
        .split(['\n', '\r'])
        .filter(|line| {
            let terms: Vec<&str> = line.split(' ').collect();
            terms.len() >= 4
                && terms[1] == SAME_AS
                && terms[0].starts_with('<')
                && terms[2].starts_with('<')
        })
        .count()
}

/// The pairs the first pass of `rewrite --collapse ARGS` says it gathered.
fn pairs_gathered(args: &[&str], stdin: &[u8]) -> usize {
    let mut all = vec!["rewrite", "--collapse", "--to", "nq"];
    all.extend_from_slice(args);
    let out = run_pidcanon(&all, stdin);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{said}");
    let at = said
        .find("--collapse: ")
        .unwrap_or_else(|| panic!("no --collapse summary: {said}"));
    said[at + "--collapse: ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no pair count: {said}"))
}

/// Both passes see the same equivalence statements, and there are some.
fn same_statements(case: &str, args: &[&str], stdin: &[u8]) {
    let written = equivalence_statements(args, stdin);
    assert!(written > 0, "{case}: no equivalence statement read");
    assert_eq!(pairs_gathered(args, stdin), written, "{case}");
}

fn foxml(pid: &str, same_as: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<foxml:digitalObject VERSION="1.1" PID="{pid}" xmlns:foxml="info:fedora/fedora-system:def/foxml#">
<foxml:objectProperties><foxml:property NAME="info:fedora/fedora-system:def/model#state" VALUE="Active"/></foxml:objectProperties>
<foxml:datastream ID="RELS-EXT" CONTROL_GROUP="X" STATE="A" VERSIONABLE="true">
<foxml:datastreamVersion ID="RELS-EXT.0" MIMETYPE="application/rdf+xml" CREATED="2008-07-02T05:09:42.015Z">
<foxml:xmlContent>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:owl="http://www.w3.org/2002/07/owl#">
<rdf:Description rdf:about="info:fedora/{pid}"><owl:sameAs rdf:resource="{same_as}"/></rdf:Description>
</rdf:RDF>
</foxml:xmlContent>
</foxml:datastreamVersion>
</foxml:datastream>
</foxml:digitalObject>
"#
    )
}

#[test]
fn legacy_rdfxml_is_read_by_both_passes_alike() {
    let dir = Dir::new("first-pass-rdfxml");
    let input = dir.file(
        "legacy.rdf",
        r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:owl="http://www.w3.org/2002/07/owl#">
<rdf:Description about="http://e/a"><owl:sameAs resource="http://e/b"/></rdf:Description>
<rdf:Description rdf:about="http://e/c"><owl:sameAs rdf:resource="http://e/d"/></rdf:Description>
</rdf:RDF>
"#,
    );
    same_statements("legacy RDF/XML", &[p(&input)], b"");
}

#[test]
fn lenient_turtle_is_recovered_from_by_both_passes_alike() {
    let dir = Dir::new("first-pass-lenient");
    let input = dir.file(
        "bad.ttl",
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n\
         <http://e/a> owl:sameAs <http://e/b> .\n\
         <http://e/x> !! <http://e/y> .\n\
         <http://e/c> owl:sameAs <http://e/d> ;\n  <http://e/p> [ owl:sameAs <http://e/z> ] .\n\
         <http://e/q> owl:sameAs <http://e/r>, ( bad .\n\
         <http://e/e> owl:sameAs <http://e/f> .\n",
    );
    same_statements("--lenient Turtle", &["--lenient", p(&input)], b"");
    same_statements(
        "--lenient Turtle on stdin",
        &["--lenient", "-i", "ttl", "-"],
        &fs::read(&input).expect("readable"),
    );
}

#[test]
fn foxml_files_and_object_stores_are_read_by_both_passes_alike() {
    let dir = Dir::new("first-pass-foxml");
    let file = dir.file("demo1.xml", &foxml("demo:1", "info:fedora/demo:2"));
    same_statements("a FOXML file", &[p(&file)], b"");
    let store = dir.path("store");
    fs::create_dir_all(store.join("aa")).expect("mkdir");
    fs::write(
        store.join("aa/one.xml"),
        foxml("demo:3", "info:fedora/demo:4"),
    )
    .expect("written");
    fs::write(store.join("two.xml"), foxml("demo:5", "hdl:10013/x")).expect("written");
    same_statements("an object store", &[p(&store)], b"");
}

#[test]
fn compressed_and_line_inputs_are_read_by_both_passes_alike() {
    let dir = Dir::new("first-pass-compressed");
    let text = "<http://e/a> <http://www.w3.org/2002/07/owl#sameAs> <http://e/b> .\r\
                <info:fedora/demo%3a1> <http://www.w3.org/2002/07/owl#sameAs> <info:fedora/demo:9> .\n";
    let path = dir.path("a.nt.gz");
    let mut gz = flate2::write::GzEncoder::new(
        fs::File::create(&path).expect("created"),
        flate2::Compression::default(),
    );
    gz.write_all(text.as_bytes()).expect("written");
    gz.finish().expect("finished");
    same_statements("a .nt.gz with a lone CR", &[p(&path)], b"");
    let ttl = dir.file("a.ttl", text);
    let gz_ttl = dir.path("b.ttl.gz");
    let mut gz = flate2::write::GzEncoder::new(
        fs::File::create(&gz_ttl).expect("created"),
        flate2::Compression::default(),
    );
    gz.write_all(&fs::read(&ttl).expect("readable"))
        .expect("written");
    gz.finish().expect("finished");
    same_statements("Turtle and .ttl.gz", &[p(&ttl), p(&gz_ttl)], b"");
}

/// An equivalence predicate written with an escape (`owl\u0023sameAs`) is the predicate it
/// stands for: in N-Triples and N-Quads (read line by line, where the lines hold it as written)
/// as in Turtle (read by a parser), both passes take it as an equivalence, and the output is
/// the one of the same input written without the escape (but for the spelling of the
/// statements kept as they are written). A line whose escape is elsewhere, or
/// whose subject is a blank node, is no equivalence between IRIs.
#[test]
fn an_equivalence_predicate_written_with_an_escape_is_one() {
    let escaped = "<http://www.w3.org/2002/07/owl\\u0023sameAs>";
    let plain = SAME_AS;
    let text = |same_as: &str, graph: &str| {
        format!(
            "<info:fedora/demo:1> {same_as} <hdl:10013/x>{graph} .\n\
             <info:fedora/demo:2> <http://purl.org/dc/terms/title> \"\\u0023 <a> \\U0001F600\"{graph} .\n\
             _:b {same_as} <info:fedora/demo:2>{graph} .\n\
             <info:fedora/demo:1> <http://purl.org/dc/terms/title> \"t\"{graph} .\n\
             <hdl:10013/x> <http://purl.org/dc/terms/title> \"u\"{graph} .\n"
        )
    };
    let dir = Dir::new("first-pass-escaped-predicate");
    for (extension, graph) in [("nt", ""), ("nq", " <http://e/g>"), ("ttl", "")] {
        let written = dir.file(&format!("escaped.{extension}"), &text(escaped, graph));
        let unescaped = dir.file(&format!("plain.{extension}"), &text(plain, graph));
        assert_eq!(
            pairs_gathered(&[p(&written)], b""),
            1,
            "{extension}: the first pass gathers the escaped equivalence"
        );
        let collapsed = |path: &Path| {
            let out = run_pidcanon(&["rewrite", "-q", "--collapse", "--to", "nq", p(path)], b"");
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).expect("UTF-8")
        };
        // The lines path writes the statements it keeps as written (the one of `_:b`).
        let output = collapsed(&written).replace("owl\\u0023sameAs", "owl#sameAs");
        assert_eq!(output, collapsed(&unescaped), "{extension}");
        assert!(
            output.contains("<hdl:10013/x> <http://purl.org/dc/terms/title> \"t\""),
            "{extension}: the class collapsed in the second pass: {output}"
        );
    }
}

/// The files under `dir` with an RDF extension.
fn rdf_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).expect("a fixture directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rdf_files(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ["nt", "nq", "ttl", "trig", "rdf", "rdfs", "owl"].contains(&e))
        {
            out.push(path);
        }
    }
}

/// Every statement between two IRIs, whatever its predicate, is seen by both passes alike, in
/// every fixture: the W3C suites (their bad documents too, read going on after errors), the
/// real corpus, legacy RDF/XML, the generated Turtle. Each file is rewritten to N-Quads (on
/// one thread and, for Turtle, on two, in the rewrite's large pieces), and the first pass is
/// asked to gather the statements of every predicate that rewrite wrote — reading as the
/// rewriter reads (`Collector::read_as`) and as the library reads a graph without a rewriter
/// (`Collector::read_graph`) — : it must gather (or skip as an invalid identifier) exactly as
/// many as the rewrite wrote between IRIs.
#[test]
fn every_fixture_is_read_by_both_passes_alike() {
    use pidcanon::Registry;
    use pidcanon::collapse::Collector;
    use pidcanon::equivalence::{EquivalencesBuilder, RepresentativeOrder};
    use pidcanon::rewrite::{RdfFormat, Rewriter};

    let mut files = Vec::new();
    rdf_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &mut files,
    );
    files.sort();
    let (mut compared, mut with_statements) = (0, 0);
    for file in &files {
        let extension = file
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        let format = match extension {
            "rdfs" | "owl" => RdfFormat::RdfXml,
            other => RdfFormat::from_extension(other).expect("an RDF extension"),
        };
        let bytes = fs::read(file).expect("readable");
        for (lenient, threads) in [(false, 1), (true, 1), (true, 2)] {
            let registry = Registry::default();
            let mut rewriter = Rewriter::new(Registry::default())
                .with_input_format(format)
                .with_output_format(RdfFormat::NQuads)
                .with_base_iri("http://example.org/base/")
                .expect("a valid base")
                .with_threads(threads);
            if lenient {
                rewriter = rewriter.skip_syntax_errors();
            }
            let mut out = Vec::new();
            let mut session = rewriter.session(&mut out);
            let rewritten = session.rewrite(bytes.as_slice());
            if rewritten.and_then(|()| session.finish().map(drop)).is_err() {
                // Stopped at an error: there is no second pass to agree with.
                assert!(!lenient, "{}: a lenient rewrite stopped", file.display());
                continue;
            }
            // (Lines the line pipeline passes through unchanged under `--lenient`, which do
            // not parse, are no statement of either pass.)
            let statements: Vec<oxrdf::Quad> =
                common::reference::RdfParser::from_format(RdfFormat::NQuads)
                    .for_slice(&out)
                    .filter_map(Result::ok)
                    .collect();
            let between_iris = statements
                .iter()
                .filter(|q| {
                    matches!(q.subject, oxrdf::NamedOrBlankNode::NamedNode(_))
                        && matches!(q.object, oxrdf::Term::NamedNode(_))
                })
                .count() as u64;
            let mut predicates: Vec<String> = statements
                .iter()
                .map(|q| q.predicate.as_str().to_owned())
                .collect();
            predicates.sort();
            predicates.dedup();
            let collector = || {
                Collector::new(
                    &registry,
                    EquivalencesBuilder::new(RepresentativeOrder::default()),
                    predicates.clone(),
                )
            };
            // As a rewriter reads, and as the library reads a graph without one.
            let mut as_rewriter = collector();
            as_rewriter
                .read_as(&rewriter, bytes.as_slice(), 0)
                .unwrap_or_else(|e| panic!("{}: the first pass: {e}", file.display()));
            let mut graph = collector();
            graph
                .read_graph(
                    bytes.as_slice(),
                    format,
                    Some("http://example.org/base/"),
                    0,
                )
                .unwrap_or_else(|e| panic!("{}: read_graph: {e}", file.display()));
            for (how, collected) in [("read_as", as_rewriter), ("read_graph", graph)] {
                assert_eq!(
                    collected.pairs() + collected.skipped_invalid(),
                    between_iris,
                    "{} ({format}, lenient: {lenient}, {threads} threads, {how})",
                    file.display()
                );
            }
            compared += 1;
            with_statements += usize::from(between_iris > 0);
        }
    }
    assert!(files.len() > 1500, "only {} fixture files", files.len());
    assert!(
        with_statements > 1000,
        "only {with_statements} comparisons with statements"
    );
    println!("{compared} readings of {} files compared", files.len());
}

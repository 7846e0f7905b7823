//! `benches/gen_rdf.py`, the corpus generator the benchmarks, the Spark tests and the docs use:
//! exactly the statements asked for, in N-Triples, N-Quads and Turtle that hold the same
//! statements, the same bytes for the same seed, and every kind of identifier pidcanon knows,
//! in canonical and other spellings. It needs `python3` on `PATH`; without it the tests fail
//! and say so.

use oxrdf::{NamedOrBlankNodeRef, Quad, TermRef, Triple};
use oxttl::{NQuadsParser, NTriplesParser, TurtleParser};
use pidcanon::{Kind, Registry};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The statements of the corpora the tests compare.
const N: usize = 3000;

/// `python3 benches/gen_rdf.py ARGS`: its standard output.
fn generate(args: &[&str]) -> Vec<u8> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gen_rdf.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run python3 ({e}): benches/gen_rdf.py needs Python 3 (standard library \
                 only); install it, e.g. `apt-get install python3`"
            )
        });
    assert!(
        out.status.success(),
        "gen_rdf.py {args:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn corpus(format: &str, statements: usize, seed: u32) -> Vec<u8> {
    generate(&[
        "--statements",
        &statements.to_string(),
        "--seed",
        &seed.to_string(),
        "--format",
        format,
    ])
}

fn triples(format: &str, data: &[u8]) -> Vec<Triple> {
    match format {
        "nt" => NTriplesParser::new()
            .for_slice(data)
            .collect::<Result<_, _>>()
            .expect("the N-Triples parse"),
        "ttl" => TurtleParser::new()
            .for_slice(data)
            .collect::<Result<_, _>>()
            .expect("the Turtle parse"),
        _ => quads(data).into_iter().map(Triple::from).collect(),
    }
}

fn quads(data: &[u8]) -> Vec<Quad> {
    NQuadsParser::new()
        .for_slice(data)
        .collect::<Result<_, _>>()
        .expect("the N-Quads parse")
}

/// A statement as N-Triples with every blank node written `_:b`: the formats name blank nodes
/// differently (`_:a1` in N-Triples, `[ ]` in Turtle).
fn masked(t: &Triple) -> String {
    let subject = match t.subject.as_ref() {
        NamedOrBlankNodeRef::BlankNode(_) => "_:b".to_owned(),
        s => s.to_string(),
    };
    let object = match t.object.as_ref() {
        TermRef::BlankNode(_) => "_:b".to_owned(),
        o => o.to_string(),
    };
    format!("{subject} {} {object}", t.predicate)
}

fn masked_sorted(triples: &[Triple]) -> Vec<String> {
    let mut all: Vec<String> = triples.iter().map(masked).collect();
    all.sort_unstable();
    all
}

#[test]
fn every_format_holds_exactly_the_statements_asked_for() {
    // (N itself in the_formats_of_one_seed_hold_the_same_statements)
    for (format, sizes) in [("nt", &[0, 1, 37][..]), ("nq", &[1]), ("ttl", &[1, 37])] {
        for &n in sizes {
            let data = corpus(format, n, 5);
            assert_eq!(triples(format, &data).len(), n, "{format}, {n} statements");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_others() {
    // (N-Quads are N-Triples with graph names drawn from the same stream of choices)
    for format in ["nt", "ttl"] {
        let once = corpus(format, 1000, 1);
        assert_eq!(
            once,
            corpus(format, 1000, 1),
            "{format}: two runs of seed 1 differ"
        );
    }
    assert_ne!(
        corpus("nt", 1000, 1),
        corpus("nt", 1000, 2),
        "seeds 1 and 2 give the same corpus"
    );
    // --triples, as older scripts spell it, and -o FILE give the same bytes.
    let dir = std::env::temp_dir().join(format!("pidcanon-gen-rdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("corpus.ttl");
    let path = file.to_str().expect("a UTF-8 path");
    let printed = generate(&["--triples", "500", "--seed", "4", "--format", "ttl"]);
    generate(&[
        "--statements",
        "500",
        "--seed",
        "4",
        "--format",
        "ttl",
        "-o",
        path,
    ]);
    assert_eq!(std::fs::read(&file).expect("the -o file"), printed);
    std::fs::remove_dir_all(&dir).expect("removing the temporary directory");
}

#[test]
fn the_formats_of_one_seed_hold_the_same_statements() {
    let nt = triples("nt", &corpus("nt", N, 3));
    let ttl = triples("ttl", &corpus("ttl", N, 3));
    assert_eq!((nt.len(), ttl.len()), (N, N));
    assert_eq!(masked_sorted(&nt), masked_sorted(&ttl));

    // N-Quads: the N-Triples statements in the same order, in the default and named graphs.
    let nq = quads(&corpus("nq", N, 3));
    let graphs: BTreeSet<String> = nq.iter().map(|q| q.graph_name.to_string()).collect();
    assert!(graphs.contains("DEFAULT"), "{graphs:?}");
    assert!(graphs.len() >= 4, "a few named graphs: {graphs:?}");
    assert_eq!(nq.len(), N);
    let nq: Vec<String> = nq.into_iter().map(|q| masked(&Triple::from(q))).collect();
    let in_order: Vec<String> = nt.iter().map(masked).collect();
    assert_eq!(nq, in_order);

    // Some statements repeat, as in real dumps.
    let plain: Vec<String> = nt
        .iter()
        .filter(|t| !t.subject.is_blank_node() && !t.object.is_blank_node())
        .map(Triple::to_string)
        .collect();
    let distinct: BTreeSet<&String> = plain.iter().collect();
    assert!(distinct.len() < plain.len(), "no duplicate statement");
}

#[test]
fn every_identifier_kind_appears_valid_and_in_other_spellings() {
    let registry = Registry::default();
    let data = corpus("nq", N, 1);
    // kind -> (occurrences, occurrences not in canonical form)
    let mut kinds: BTreeMap<Kind, (usize, usize)> = BTreeMap::new();
    let mut invalid = Vec::new();
    let mut identifiers = 0;
    let mut count = |iri: &str| match registry.canonicalize(iri) {
        Ok(canonical) => {
            let entry = kinds.entry(canonical.kind).or_default();
            entry.0 += 1;
            entry.1 += usize::from(canonical.iri != iri);
            identifiers += usize::from(canonical.kind != Kind::Iri);
        }
        Err(_) => invalid.push(iri.to_owned()),
    };
    for quad in quads(&data) {
        if let NamedOrBlankNodeRef::NamedNode(s) = quad.subject.as_ref() {
            count(s.as_str());
        }
        if let TermRef::NamedNode(o) = quad.object.as_ref() {
            count(o.as_str());
        }
        if let oxrdf::GraphNameRef::NamedNode(g) = quad.graph_name.as_ref() {
            count(g.as_str());
        }
    }
    for kind in Kind::ALL {
        let (seen, other) = kinds.get(&kind).copied().unwrap_or_default();
        assert!(seen > 0, "no {kind} in the corpus: {kinds:?}");
        // An OAI identifier has one spelling ("identical strings"); other IRIs pass through.
        if kind != Kind::Iri && kind != Kind::Oai {
            assert!(
                other > 0,
                "no {kind} in a non-canonical spelling: {kinds:?}"
            );
        }
    }
    // A few decoys are meant to be invalid; the spellings are otherwise valid.
    assert!(
        invalid.len() * 100 < identifiers,
        "{} invalid of {identifiers} identifiers: {invalid:?}",
        invalid.len()
    );
}

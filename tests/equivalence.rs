//! Equivalences across schemes: `--collapse`, `--rename`, `--literals`, end to end.
//! A generated corpus of sameAs chains and stars across schemes with one statement that joins
//! two large classes; properties on generated graphs: the result does not depend on statement
//! order or thread count, running twice changes nothing, every input IRI is in the `--map`
//! output or in the output graph.

mod common;

use common::run_pidcanon;
use pidcanon::Registry;
use pidcanon::collapse::Collector;
use pidcanon::equivalence::literals::LiteralRewriter;
use pidcanon::equivalence::mapping::IriMapping;
use pidcanon::equivalence::{EquivalencesBuilder, RepresentativeOrder};
use pidcanon::rewrite::{RdfFormat, Report, Rewriter};
use proptest::prelude::*;
use std::collections::BTreeSet;

const SAME_AS: &str = "http://www.w3.org/2002/07/owl#sameAs";

/// Both passes through the library: the classes of `input`, then the rewrite to N-Triples (line
/// by line from N-Triples, parsed and serialized from Turtle) or N-Quads (from N-Quads); the
/// output and the map.
fn collapse(input: &str, format: RdfFormat, threads: usize) -> (String, String) {
    let (output, map, _) = collapse_with(input, format, threads, None);
    (output, map)
}

/// The `owl:sameAs` classes of `input`, as `--collapse`'s first pass gathers them.
fn classes_of(input: &str, format: RdfFormat) -> pidcanon::equivalence::Equivalences {
    let registry = Registry::default();
    let mut collector = Collector::new(
        &registry,
        EquivalencesBuilder::new(RepresentativeOrder::default()),
        vec![SAME_AS.into()],
    );
    collector
        .read_graph(input.as_bytes(), format, None, 0)
        .expect("the first pass reads the input");
    collector.finish(1000, false)
}

/// [`collapse`], with identifier literals rewritten by `literals` too; also the report.
fn collapse_with(
    input: &str,
    format: RdfFormat,
    threads: usize,
    literals: Option<LiteralRewriter>,
) -> (String, String, Report) {
    let equivalences = classes_of(input, format);
    let mut rewriter = Rewriter::new(Registry::default())
        .with_input_format(format)
        .with_output_format(match format {
            RdfFormat::NQuads => RdfFormat::NQuads,
            _ => RdfFormat::NTriples,
        })
        .with_threads(threads)
        .with_mapping(IriMapping::new().with_equivalences(equivalences, vec![SAME_AS.into()]));
    if let Some(literals) = literals {
        rewriter = rewriter.with_literals(literals);
    }
    let (mut output, mut map) = (Vec::new(), Vec::new());
    let mut session = rewriter.session(&mut output).with_map(&mut map);
    session
        .rewrite(input.as_bytes())
        .expect("the input rewrites");
    let report = session.finish().expect("the rewrite finishes");
    (
        String::from_utf8(output).expect("N-Triples are UTF-8"),
        String::from_utf8(map).expect("the map is UTF-8"),
        report,
    )
}

fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

/// Every `<…>` IRI of an N-Triples text.
fn iris(text: &str) -> BTreeSet<String> {
    text.split('<')
        .skip(1)
        .filter_map(|part| part.split_once('>').map(|(iri, _)| iri.to_owned()))
        .collect()
}

/// The corpus: `stars` stars of `size` members across schemes (a DOI at the centre of each, a
/// Fedora PID, a handle and plain URLs around it, some in non-canonical spellings), `chains`
/// chains of the same, other statements about the members, and — if `bridge` — one statement
/// joining the first two stars.
fn corpus(stars: usize, size: usize, chains: usize, bridge: bool) -> String {
    let member = |group: usize, i: usize| match i % 4 {
        0 => format!("http://dx.doi.org/10.5555/G{group}.{i}"),
        1 => format!("info:fedora/demo%3a{group}-{i}"),
        2 => format!("hdl://10013/g{group}.{i}"),
        _ => format!("http://example.org/object/{group}/{i}"),
    };
    let mut out = String::new();
    for star in 0..stars {
        for i in 1..size {
            out += &format!(
                "<{}> <{SAME_AS}> <{}> .\n",
                member(star, 0),
                member(star, i)
            );
            out += &format!(
                "<{}> <http://purl.org/dc/terms/title> \"star {star} member {i}\" .\n",
                member(star, i)
            );
        }
    }
    for chain in stars..stars + chains {
        for i in 0..size - 1 {
            out += &format!(
                "<{}> <{SAME_AS}> <{}> .\n",
                member(chain, i + 1),
                member(chain, i)
            );
        }
    }
    if bridge {
        out += &format!("<{}> <{SAME_AS}> <{}> .\n", member(0, 3), member(1, 2));
    }
    out
}

#[test]
fn stars_and_chains_across_schemes_collapse_onto_the_doi() {
    let input = corpus(3, 8, 2, false);
    let (output, map) = collapse(&input, RdfFormat::NTriples, 1);
    // Star 0's DOI (member 0) and chain 3's least DOI represent their classes.
    assert!(output.contains(
        "<https://doi.org/10.5555/g0.0> <http://purl.org/dc/terms/title> \"star 0 member 1\" ."
    ));
    assert!(output.contains(
        "<https://doi.org/10.5555/g3.0> <http://www.w3.org/2002/07/owl#sameAs> <info:fedora/demo:3-1> ."
    ));
    assert!(map.contains("http://example.org/object/0/3\thttps://doi.org/10.5555/g0.0\tiri\n"));
    assert!(map.contains("hdl://10013/g4.6\thttps://doi.org/10.5555/g4.0\thandle\n"));
    // Nothing outside a class is touched; every class keeps its sameAs statements.
    assert_eq!(output.lines().count(), input.lines().count());
}

#[test]
fn a_statement_joining_two_large_classes_is_reported_and_refused() {
    let input = corpus(2, 600, 0, true);
    let bridge_line = input.lines().count();
    let out = rewrite_nt(&["--collapse"], &input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing is written");
    assert!(stderr.contains("a class of 1200 identifiers"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the largest join (of a part of 600 members to one at least as large): \
             <stdin>:{bridge_line}: <http://example.org/object/0/3> = <hdl:10013/g1.2>"
        )),
        "{stderr}"
    );
    // Told to, it collapses the class (and still reports it).
    let out = rewrite_nt(&["--collapse", "--allow-large-classes", "-q"], &input);
    assert_eq!(out.status.code(), Some(0));
    let output = String::from_utf8_lossy(&out.stdout);
    assert!(output.contains(
        "<https://doi.org/10.5555/g0.0> <http://purl.org/dc/terms/title> \"star 1 member 5\""
    ));
    // Under a higher limit it is an ordinary class.
    let out = rewrite_nt(&["--collapse", "--max-class", "1200", "-q"], &input);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
}

#[test]
fn classes_gathered_beforehand_rewrite_each_part_as_the_whole_input_does() {
    // What the Spark job does: the classes of the whole input (from a first run's map), then
    // each part of the input in one pass with `--equivalences-only`. Every statement but the
    // equivalences comes out where it stood, as in the whole; each part ends with the links of
    // the members its own equivalence statements name, so the parts together hold the whole's
    // links (a member named in two parts is linked in both).
    let input = corpus(3, 9, 2, true);
    let dir = tempfile::tempdir().expect("works in the test");
    let classes = dir.path().join("classes.tsv");
    let classes_arg = classes.to_str().expect("a UTF-8 path");
    let whole = rewrite_nt(&["-q", "--collapse", "--map", classes_arg], &input);
    assert_eq!(whole.status.code(), Some(0));
    let lines: Vec<&str> = input.lines().collect();
    let mut parts = Vec::new();
    for part in lines.chunks(lines.len() / 3 + 1) {
        let text = part.iter().map(|l| format!("{l}\n")).collect::<String>();
        let flags = [
            "-q",
            "--collapse",
            "--equivalences-only",
            "--equivalences",
            classes_arg,
        ];
        let out = rewrite_nt(&flags, &text);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        parts.extend_from_slice(&out.stdout);
    }
    let (parts, whole_output) = (
        String::from_utf8_lossy(&parts),
        String::from_utf8_lossy(&whole.stdout),
    );
    let split = |text: &str| -> (Vec<String>, BTreeSet<String>) {
        let (links, rest): (Vec<&str>, Vec<&str>) =
            text.lines().partition(|line| line.contains(SAME_AS));
        (
            rest.into_iter().map(str::to_owned).collect(),
            links.into_iter().map(str::to_owned).collect(),
        )
    };
    assert_eq!(split(&parts), split(&whole_output));
    assert!(whole_output.contains(SAME_AS));
    // The inputs' own equivalence statements are not read then: with no classes given, only
    // spellings change.
    let empty = dir.path().join("empty.tsv");
    std::fs::write(&empty, "").expect("works in the test");
    let empty_arg = empty.to_str().expect("a UTF-8 path");
    let only = rewrite_nt(
        &[
            "-q",
            "--collapse",
            "--equivalences-only",
            "--equivalences",
            empty_arg,
        ],
        &input,
    );
    assert_eq!(only.stdout, rewrite_nt(&["-q"], &input).stdout);
}

#[test]
fn reflexive_equivalences_are_kept_or_dropped_and_counted() {
    let input = format!(
        "<http://dx.doi.org/10.5555/A> <{SAME_AS}> <doi:10.5555/a> .\n\
         <http://dx.doi.org/10.5555/A> <{SAME_AS}> <hdl:10013/b> .\n"
    );
    let kept = rewrite_nt(&["--collapse", "--report", "json"], &input);
    let reflexive =
        format!("<https://doi.org/10.5555/a> <{SAME_AS}> <https://doi.org/10.5555/a> .");
    assert!(String::from_utf8_lossy(&kept.stdout).contains(&reflexive));
    let dropped = rewrite_nt(
        &["--collapse", "--drop-reflexive", "--report", "json"],
        &input,
    );
    assert_eq!(dropped.status.code(), Some(0));
    let output = String::from_utf8_lossy(&dropped.stdout);
    assert_eq!(
        output,
        format!("<https://doi.org/10.5555/a> <{SAME_AS}> <hdl:10013/b> .\n")
    );
    let stderr = String::from_utf8_lossy(&dropped.stderr);
    let report = stderr.lines().last().expect("the JSON report");
    assert!(report.contains("\"reflexive_dropped\":1"), "{report}");
    assert!(report.contains("\"statements_written\":1"), "{report}");
}

/// `pidcanon rewrite -i nt ARGS…` on `input`.
fn rewrite_nt(args: &[&str], input: &str) -> std::process::Output {
    let mut all = vec!["rewrite", "-i", "nt"];
    all.extend_from_slice(args);
    run_pidcanon(&all, input.as_bytes())
}

#[test]
fn rename_tables_rename_everywhere_and_refuse_chains_before_writing() {
    let dir = tempfile::tempdir().expect("works in the test");
    let table = dir.path().join("rename.tsv");
    std::fs::write(
        &table,
        "info:fedora/test%3acollectionPid\thttps://repo.example/collections/1\n",
    )
    .expect("works in the test");
    let map = dir.path().join("map.tsv");
    let input = "<info:fedora/demo:1> <info:fedora/fedora-system:def/relations-external#isMemberOf> <info:fedora/test:collectionPid> .\n\
                 <info:fedora/test:collectionPid> <http://purl.org/dc/terms/title> \"C\" .\n";
    let table_path = table.to_str().expect("a UTF-8 path");
    let out = rewrite_nt(
        &[
            "-q",
            "--rename",
            table_path,
            "--map",
            map.to_str().expect("a UTF-8 path"),
        ],
        input,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "<info:fedora/demo:1> <info:fedora/fedora-system:def/relations-external#isMemberOf> <https://repo.example/collections/1> .\n\
         <https://repo.example/collections/1> <http://purl.org/dc/terms/title> \"C\" .\n"
    );
    assert_eq!(
        std::fs::read_to_string(&map).expect("works in the test"),
        "info:fedora/test:collectionPid\thttps://repo.example/collections/1\tfedora-object\n"
    );
    std::fs::write(
        &table,
        "http://a/\thttp://b/\nhttp://b/\thttp://c/\nhttp://a/\thttp://d/\n",
    )
    .expect("works in the test");
    let output = dir.path().join("out.nt");
    let out = rewrite_nt(
        &[
            "--rename",
            table_path,
            "-o",
            output.to_str().expect("a UTF-8 path"),
        ],
        input,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "rename.tsv:1: <http://a/> is renamed to <http://b/>, which is itself renamed"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "rename.tsv:3: <http://a/> is renamed to <http://d/> here but to <http://b/> on line 1"
        ),
        "{stderr}"
    );
    assert!(!output.exists(), "nothing is written");
}

#[test]
fn identifier_literals_are_rewritten_counted_and_linked() {
    let input = "\
@prefix bibo: <http://purl.org/ontology/bibo/> .
@prefix schema: <http://schema.org/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
<http://example.org/a> bibo:doi \"doi:10.1000/ABC\" ;
    dcterms:identifier \"info:fedora/demo%3a1\"@en , \"10.1000\" ;
    schema:identifier [ a schema:PropertyValue ; schema:propertyID \"DOI\" ; schema:value \"https://doi.org/10.1000/Xy\" ] .
<http://example.org/b> bibo:doi \"10.1000\" .
";
    let out = run_pidcanon(
        &[
            "rewrite",
            "-i",
            "ttl",
            "--to",
            "nt",
            "--literals",
            "--literal-links",
            "http://purl.org/dc/terms/relation",
            "--doi-literal-case",
            "upper",
        ],
        input.as_bytes(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains(
            "<http://example.org/a> <http://purl.org/ontology/bibo/doi> \"10.1000/ABC\" ."
        ),
        "{stdout}"
    );
    assert!(stdout.contains("<http://example.org/a> <http://purl.org/dc/terms/identifier> \"info:fedora/demo:1\"@en ."), "{stdout}");
    assert!(
        stdout.contains("<http://schema.org/value> \"10.1000/XY\" ."),
        "{stdout}"
    );
    assert!(stdout.contains("<http://example.org/a> <http://purl.org/dc/terms/relation> <https://doi.org/10.1000/abc> ."), "{stdout}");
    assert!(
        stdout.contains(
            "<http://example.org/a> <http://purl.org/dc/terms/relation> <info:fedora/demo:1> ."
        ),
        "{stdout}"
    );
    // The invalid DOI is reported with its line, left as it is.
    assert!(
        stderr.contains(":7:34: invalid identifier <10.1000>"),
        "{stderr}"
    );
    assert!(
        stdout.contains("<http://example.org/b> <http://purl.org/ontology/bibo/doi> \"10.1000\" .")
    );
    assert!(
        stderr.contains("literals of <http://purl.org/ontology/bibo/doi>: 1 identifier, 1 rewritten, 1 invalid, 1 linked"),
        "{stderr}"
    );
}

/// A graph of statements among a few identifiers of each scheme, in several spellings.
fn graphs() -> impl Strategy<Value = Vec<String>> {
    let iri = (0..4usize, 0..6usize).prop_map(|(scheme, n)| match scheme {
        0 => {
            [
                "doi:10.5555/",
                "https://doi.org/10.5555/",
                "http://dx.doi.org/10.5555/",
            ][n % 3]
                .to_owned()
                + &format!("X{n}")
        }
        1 => ["info:fedora/demo:", "info:fedora/demo%3A"][n % 2].to_owned() + &n.to_string(),
        2 => ["hdl:10013/", "hdl://10013/"][n % 2].to_owned() + &format!("h{n}"),
        _ => format!("http://example.org/{n}"),
    });
    let predicate = prop_oneof![
        Just(SAME_AS.to_owned()),
        Just("http://purl.org/dc/terms/relation".to_owned()),
    ];
    prop::collection::vec((iri.clone(), predicate, iri), 0..40).prop_map(|statements| {
        statements
            .into_iter()
            .map(|(s, p, o)| format!("<{s}> <{p}> <{o}> .\n"))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn order_and_threads_do_not_change_the_result(
        statements in graphs(),
        seed in any::<u64>(),
    ) {
        let input: String = statements.concat();
        let mut shuffled = statements.clone();
        // A deterministic shuffle from the seed.
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let (one, map) = collapse(&input, RdfFormat::NTriples, 1);
        let (two, _) = collapse(&input, RdfFormat::NTriples, 2);
        prop_assert_eq!(&one, &two);
        let (other_order, other_map) = collapse(&shuffled.concat(), RdfFormat::NTriples, 1);
        prop_assert_eq!(sorted_lines(&one), sorted_lines(&other_order));
        prop_assert_eq!(sorted_lines(&map), sorted_lines(&other_map));
        // The graph pipeline (Turtle in, N-Triples out) agrees.
        let (graph, _) = collapse(&input, RdfFormat::Turtle, 1);
        prop_assert_eq!(sorted_lines(&one), sorted_lines(&graph));
    }

    #[test]
    fn running_twice_changes_nothing_and_every_iri_is_kept_or_mapped(statements in graphs()) {
        let input: String = statements.concat();
        let (once, map) = collapse(&input, RdfFormat::NTriples, 1);
        let (twice, _) = collapse(&once, RdfFormat::NTriples, 1);
        prop_assert_eq!(&once, &twice);
        let kept = iris(&once);
        let mapped: BTreeSet<String> = map
            .lines()
            .filter_map(|line| line.split('\t').next().map(str::to_owned))
            .collect();
        let registry = Registry::default();
        for iri in iris(&input) {
            prop_assert!(kept.contains(&iri) || mapped.contains(&iri), "{} is lost", iri);
            // Not only in the map: every identifier is in the output graph, in its canonical
            // form — rewritten, or linked from its class's representative.
            let canonical = match registry.canonicalize_claimed(&iri) {
                Some(Ok(c)) => c.iri.into_owned(),
                _ => iri.clone(),
            };
            prop_assert!(kept.contains(&canonical), "{} ({}) is not in the output", iri, canonical);
        }
        // Two different sides of an equivalence come out as one link each, once.
        let links: Vec<&str> = once
            .lines()
            .filter(|line| line.contains(SAME_AS))
            .filter(|line| {
                let terms: Vec<&str> = line.split(' ').collect();
                terms[0] != terms[2]
            })
            .collect();
        let distinct: BTreeSet<&str> = links.iter().copied().collect();
        prop_assert_eq!(distinct.len(), links.len(), "{}", once);
    }
}

/// A dataset of statements among a few identifiers, in the default graph, a named graph (in
/// two spellings of one DOI) or a blank-node graph.
fn datasets() -> impl Strategy<Value = Vec<String>> {
    let graph = prop_oneof![
        Just(String::new()),
        Just(" <doi:10.5555/G>".to_owned()),
        Just(" <http://dx.doi.org/10.5555/g>".to_owned()),
        Just(" _:g1".to_owned()),
    ];
    (graphs(), prop::collection::vec(graph, 40)).prop_map(|(statements, graphs)| {
        statements
            .iter()
            .zip(graphs)
            .map(|(line, graph)| format!("{}{graph} .\n", line.trim_end().trim_end_matches(" .")))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn links_stay_in_their_graphs_on_both_pipelines_in_any_order(
        statements in datasets(),
        rotate in any::<prop::sample::Index>(),
    ) {
        let input: String = statements.concat();
        let mut rotated = statements.clone();
        if !rotated.is_empty() {
            let by = rotate.index(rotated.len());
            rotated.rotate_left(by);
        }
        let (lines, _) = collapse(&input, RdfFormat::NQuads, 1);
        let (other_order, _) = collapse(&rotated.concat(), RdfFormat::NQuads, 2);
        prop_assert_eq!(sorted_lines(&lines), sorted_lines(&other_order));
        // The graph pipeline (taken for identifier literals, of which there are none here).
        let literals = LiteralRewriter::new(Default::default());
        let (graph, _, report) = collapse_with(&input, RdfFormat::NQuads, 1, Some(literals));
        prop_assert_eq!(sorted_lines(&lines), sorted_lines(&graph));
        prop_assert_eq!(report.statements_written, graph.lines().count() as u64);
        // Every link once, in the graph its statement was in (named graphs by their
        // representative: both spellings of the DOI are one graph).
        for line in lines.lines().filter(|l| l.contains(SAME_AS)) {
            prop_assert!(!line.contains("dx.doi.org") && !line.contains("<doi:"), "{}", line);
        }
        let (twice, _) = collapse(&lines, RdfFormat::NQuads, 1);
        prop_assert_eq!(&twice, &lines);
    }
}

/// Every N-Triples file of `fixtures/real/` through `--collapse` and `--literals` together: the
/// statements are all kept, the output parses, and a second run changes nothing.
#[test]
fn the_real_corpus_collapses_without_loss() {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from("fixtures/real")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixtures/real is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "nt") {
                files.push(path);
            }
        }
    }
    assert!(!files.is_empty(), "no N-Triples in fixtures/real");
    let run = |input: &str| -> (String, u64) {
        let literals = LiteralRewriter::new(Default::default());
        let (output, _, report) = collapse_with(input, RdfFormat::NTriples, 1, Some(literals));
        assert_eq!(report.statements_read, report.statements_written);
        (output, report.statements_read)
    };
    for file in files {
        let input = std::fs::read_to_string(&file).expect("readable");
        let (once, statements) = run(&input);
        let parsed = common::reference::RdfParser::from_format(RdfFormat::NTriples)
            .for_slice(once.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_else(|e| panic!("{}: the output does not parse: {e}", file.display()));
        assert_eq!(parsed.len() as u64, statements, "{}", file.display());
        let (twice, _) = run(&once);
        assert_eq!(
            sorted_lines(&once),
            sorted_lines(&twice),
            "{}",
            file.display()
        );
    }
}

// `--collapse` keeps every member of a class, as `<rep> P <member>` once each, written after
// the rest of the output.

const DOI_R: &str = "https://doi.org/10.5555/r";

/// `<a> sameAs <b>`, `<b> sameAs <c>`, `<c> sameAs <R>` (R a DOI, so the representative is
/// none of a, b, c), b named in two statements and a title of a.
fn chain_to_a_doi() -> String {
    format!(
        "<http://example.org/a> <{SAME_AS}> <info:fedora/demo%3ab> .\n\
         <info:fedora/demo%3ab> <{SAME_AS}> <hdl://10013/c> .\n\
         <http://example.org/a> <http://purl.org/dc/terms/title> \"A\" .\n\
         <hdl:10013/c> <{SAME_AS}> <http://dx.doi.org/10.5555/R> .\n\
         <info:fedora/demo:b> <{SAME_AS}> <http://example.org/a> .\n"
    )
}

/// The links `<R> sameAs <m>` of [`chain_to_a_doi`], in the order they are written, each
/// followed by `graph` (`""` for the default graph).
fn chain_links(graph: &str) -> String {
    ["hdl:10013/c", "http://example.org/a", "info:fedora/demo:b"]
        .iter()
        .map(|member| format!("<{DOI_R}> <{SAME_AS}> <{member}>{graph} .\n"))
        .collect()
}

/// `pidcanon rewrite ARGS…` on `input`: stdout, stderr; the run must succeed.
fn rewrite_ok(args: &[&str], input: &str) -> (String, String) {
    let mut all = vec!["rewrite"];
    all.extend_from_slice(args);
    let out = run_pidcanon(&all, input.as_bytes());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    (String::from_utf8(out.stdout).expect("UTF-8 output"), stderr)
}

/// The statements of `text` in `format`, as N-Quads lines, sorted (duplicates kept).
fn parsed(text: &str, format: RdfFormat) -> Vec<String> {
    let mut all: Vec<String> = common::reference::RdfParser::from_format(format)
        .for_slice(text.as_bytes())
        .map(|q| q.expect("the output parses").to_string())
        .collect();
    all.sort();
    all
}

#[test]
fn every_member_of_a_class_stays_in_the_output_once() {
    let input = chain_to_a_doi();
    let (output, map) = collapse(&input, RdfFormat::NTriples, 1);
    let expected = format!(
        "<{DOI_R}> <http://purl.org/dc/terms/title> \"A\" .\n{}",
        chain_links("")
    );
    assert_eq!(output, expected);
    for member in [
        "http://example.org/a",
        "info:fedora/demo%3ab",
        "hdl://10013/c",
    ] {
        assert!(
            map.contains(&format!("{member}\t{DOI_R}\t")),
            "{member}: {map}"
        );
    }
    // The graph pipeline writes the same statements, the links last.
    let (graph, _) = collapse(&input, RdfFormat::Turtle, 1);
    assert_eq!(graph, expected);
    // Counted as written: 5 read, 1 written in place and 3 links.
    let (_, stderr) = rewrite_ok(&["-i", "nt", "--collapse", "--report", "json"], &input);
    let report = stderr.lines().last().expect("the JSON report");
    assert!(report.contains("\"statements_read\":5"), "{report}");
    assert!(report.contains("\"statements_written\":4"), "{report}");
    let (_, stderr) = rewrite_ok(&["-i", "nt", "--collapse"], &input);
    assert!(
        stderr.contains(
            "pidcanon: --collapse: 4 equivalence statements within classes written as 3 links \
             from their representatives"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("5 statements read, 4 written"), "{stderr}");
}

#[test]
fn drop_reflexive_drops_only_the_representative_linked_to_itself() {
    let input = format!(
        "{}<doi:10.5555/r> <{SAME_AS}> <http://dx.doi.org/10.5555/R> .\n\
         <http://example.org/a> <{SAME_AS}> <http://example.org/a> .\n\
         <https://doi.org/10.5555/r> <{SAME_AS}> <https://doi.org/10.5555/r> .\n",
        chain_to_a_doi()
    );
    let title = format!("<{DOI_R}> <http://purl.org/dc/terms/title> \"A\" .\n");
    let links = chain_links("");
    let (kept, _) = rewrite_ok(&["-i", "nt", "--collapse", "-q"], &input);
    let reflexive = format!("<{DOI_R}> <{SAME_AS}> <{DOI_R}> .\n");
    // The representative sorts among the members in byte order: `https://doi…` after
    // `http://example…` and before `info:…`.
    let at = links.find("<info:").expect("b's link");
    let at = links[..at].rfind('\n').expect("a line before") + 1;
    let (first, rest) = links.split_at(at);
    assert_eq!(kept, format!("{title}{first}{reflexive}{rest}"));
    let (dropped, stderr) = rewrite_ok(
        &[
            "-i",
            "nt",
            "--collapse",
            "--drop-reflexive",
            "--report",
            "json",
        ],
        &input,
    );
    assert_eq!(dropped, format!("{title}{links}"));
    let report = stderr.lines().last().expect("the JSON report");
    assert!(report.contains("\"reflexive_dropped\":2"), "{report}");
    assert!(report.contains("\"statements_read\":8"), "{report}");
    assert!(report.contains("\"statements_written\":4"), "{report}");
}

#[test]
fn links_stay_in_the_graph_they_were_asserted_in() {
    let input = format!(
        "<http://example.org/a> <{SAME_AS}> <info:fedora/demo%3ab> <http://g/1> .\n\
         <info:fedora/demo%3ab> <{SAME_AS}> <hdl://10013/c> <http://g/2> .\n\
         <hdl:10013/c> <{SAME_AS}> <http://dx.doi.org/10.5555/R> <http://g/1> .\n\
         <http://example.org/a> <{SAME_AS}> <info:fedora/demo:b> .\n\
         <hdl:10013/c> <{SAME_AS}> <doi:10.5555/r> _:g3 .\n\
         <http://example.org/a> <http://purl.org/dc/terms/title> \"A\" _:g3 .\n"
    );
    let link = |member: &str, graph: &str| format!("<{DOI_R}> <{SAME_AS}> <{member}>{graph} .\n");
    let expected = [
        format!("<{DOI_R}> <http://purl.org/dc/terms/title> \"A\" _:g3 .\n"),
        // In the lines' byte order: by member, then graph (the default graph first).
        link("hdl:10013/c", " <http://g/1>"),
        link("hdl:10013/c", " <http://g/2>"),
        link("hdl:10013/c", " _:g3"),
        link("http://example.org/a", ""),
        link("http://example.org/a", " <http://g/1>"),
        link("info:fedora/demo:b", ""),
        link("info:fedora/demo:b", " <http://g/1>"),
        link("info:fedora/demo:b", " <http://g/2>"),
    ]
    .concat();
    let (lines, _) = rewrite_ok(&["-i", "nq", "--collapse", "-q"], &input);
    assert_eq!(lines, expected);
    // Parsed and serialized (TriG), the same statements.
    let (trig, _) = rewrite_ok(&["-i", "nq", "--to", "trig", "--collapse", "-q"], &input);
    let mut from_trig = parsed(&trig, RdfFormat::TriG);
    let mut expected_quads = parsed(&expected, RdfFormat::NQuads);
    // Blank node labels may differ between the two outputs.
    for quads in [&mut from_trig, &mut expected_quads] {
        for quad in quads.iter_mut() {
            if let Some(at) = quad.find(" _:") {
                quad.replace_range(at.., " _:g .");
            }
        }
        quads.sort();
    }
    assert_eq!(from_trig, expected_quads);
}

#[test]
fn turtle_in_and_out_keeps_every_member_once() {
    let input = "\
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix ex: <http://example.org/> .
ex:a owl:sameAs <info:fedora/demo%3ab> ; ex:p \"x\" .
<info:fedora/demo%3ab> owl:sameAs <hdl://10013/c> , <hdl:10013/c> .
<hdl:10013/c> owl:sameAs <http://dx.doi.org/10.5555/R> .
";
    let (turtle, _) = rewrite_ok(&["-i", "ttl", "--to", "ttl", "--collapse", "-q"], input);
    let expected = format!(
        "<{DOI_R}> <http://example.org/p> \"x\" .\n{}",
        chain_links("")
    );
    assert_eq!(
        parsed(&turtle, RdfFormat::Turtle),
        parsed(&expected, RdfFormat::NTriples)
    );
    assert!(turtle.contains("@prefix owl:"), "{turtle}");
    // Twice: nothing changes.
    let (again, _) = rewrite_ok(&["-i", "ttl", "--to", "ttl", "--collapse", "-q"], &turtle);
    assert_eq!(again, turtle);
}

/// The corpus with more classes, every equivalence statement also repeated reversed at the end
/// (so a member is seen in chunks and batches far apart): about 1.2 MB.
fn larger_corpus() -> String {
    let input = corpus(300, 12, 300, false);
    let reversed: String = input
        .lines()
        .filter(|line| line.contains(SAME_AS))
        .map(|line| {
            let terms: Vec<&str> = line.split(' ').collect();
            format!("{} {} {} .\n", terms[2], terms[1], terms[0])
        })
        .collect();
    input + &reversed
}

#[test]
fn links_are_the_same_on_any_number_of_threads_and_formats() {
    let input = larger_corpus();
    let (one, _) = collapse(&input, RdfFormat::NTriples, 1);
    for threads in [2, 3] {
        let (many, _) = collapse(&input, RdfFormat::NTriples, threads);
        assert!(one == many, "{threads} threads differ");
    }
    // The graph pipeline: Turtle parsed in pieces on two threads, and on one.
    let (turtle_one, _) = collapse(&input, RdfFormat::Turtle, 1);
    let (turtle_two, _) = collapse(&input, RdfFormat::Turtle, 2);
    assert!(turtle_one == one, "Turtle input differs");
    assert!(turtle_two == one, "Turtle input on two threads differs");
    // Every member but the representative once: as many links as members less classes.
    let classes = classes_of(&input, RdfFormat::NTriples);
    let links: Vec<&str> = one.lines().filter(|l| l.contains(SAME_AS)).collect();
    assert_eq!(links.len(), classes.members() - classes.classes());
    let distinct: BTreeSet<&str> = links.iter().copied().collect();
    assert_eq!(distinct.len(), links.len());
    // Running again changes nothing.
    let (twice, _) = collapse(&one, RdfFormat::NTriples, 2);
    assert!(twice == one, "a second run changes the output");
}

#[test]
fn literals_followed_by_a_file_reads_the_file_and_a_list_is_given_with_equals() {
    let dir = common::Dir::new("literals-file");
    let input = dir.file(
        "all.nt",
        "<http://e/a> <http://purl.org/ontology/bibo/doi> \"doi:10.1000/x\" .\n\
         <http://e/a> <http://e/p> \"doi:10.1000/y\" .\n",
    );
    let path = input.to_str().expect("UTF-8");
    let out = run_pidcanon(&["rewrite", "-q", "--literals", path], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"10.1000/x\""), "{stdout}");
    assert!(stdout.contains("\"doi:10.1000/y\""), "{stdout}");
    let all = run_pidcanon(&["rewrite", "-q", "--literals=all", path], b"");
    let stdout = String::from_utf8_lossy(&all.stdout);
    assert!(!stdout.contains("\"doi:10.1000/y\""), "{stdout}");
}

//! Statements already parsed, rewritten through a session (`Session::rewrite_located_quads`):
//! written, counted and told as the same statements read as N-Quads text, at the locations
//! given. FOXML objects' statements among them: the command line wrote them as N-Quads text
//! and parsed it again before, and now hands them over parsed, so its output is the same.

use oxrdf::vocab::xsd;
use oxrdf::{BlankNode, GraphName, Literal, NamedNode, Quad, Term};
use pidcanon::collapse::CollapseOptions;
use pidcanon::equivalence::literals::{LiteralOptions, LiteralRewriter, Predicates};
use pidcanon::foxml::{FoxmlObject, FoxmlOptions};
use pidcanon::rewrite::{Location, Observer, RdfFormat, Report, Rewriter};
use pidcanon::{IdError, Kind, Registry};
use std::path::Path;

/// What an observer heard, in order: each finding, and where.
#[derive(Debug, Default)]
struct Heard {
    findings: Vec<String>,
    locations: Vec<Location>,
}

impl Observer for &mut Heard {
    fn rewritten(&mut self, at: Location, original: &str, canonical: &str, _: Kind) {
        self.findings.push(format!("{original} -> {canonical}"));
        self.locations.push(at);
    }

    fn invalid(&mut self, at: Location, iri: &str, _: &IdError) {
        self.findings.push(format!("invalid {iri}"));
        self.locations.push(at);
    }

    fn warning(&mut self, at: Location, message: &str) {
        self.findings.push(format!("warning {message}"));
        self.locations.push(at);
    }
}

/// Rewrites `inputs` in one session, each input given parsed (`parsed`) or else written as
/// N-Quads text: the output, the report and what the observer heard.
fn run(
    rewriter: &Rewriter,
    inputs: &[Vec<(Quad, Location)>],
    parsed: bool,
) -> (String, Report, Heard) {
    let mut heard = Heard::default();
    let mut output = Vec::new();
    let mut session = rewriter.session(&mut output).with_observer(&mut heard);
    for input in inputs {
        if parsed {
            session.rewrite_located_quads(input.iter().cloned())
        } else {
            let text: String = input
                .iter()
                .map(|(quad, _)| format!("{quad} .\n"))
                .collect();
            session.rewrite(text.as_bytes())
        }
        .expect("rewrites");
    }
    let report = session.finish().expect("finishes");
    (String::from_utf8(output).expect("UTF-8"), report, heard)
}

/// `inputs` rewritten given parsed and as text: the same output, report (but for the bytes
/// read: there are none when the statements come parsed) and findings; gives the output.
fn same_as_text(rewriter: &Rewriter, inputs: &[Vec<(Quad, Location)>], case: &str) -> String {
    let (parsed, parsed_report, parsed_heard) = run(rewriter, inputs, true);
    let (text, mut text_report, text_heard) = run(rewriter, inputs, false);
    assert_eq!(parsed, text, "{case}: output");
    assert_eq!(parsed_report.bytes_read, 0, "{case}");
    text_report.bytes_read = 0;
    assert_eq!(parsed_report, text_report, "{case}: report");
    assert_eq!(
        parsed_heard.findings, text_heard.findings,
        "{case}: findings"
    );
    parsed
}

fn iri(iri: &str) -> NamedNode {
    NamedNode::new(iri).expect("an IRI")
}

fn quad(s: impl Into<oxrdf::NamedOrBlankNode>, p: &str, o: impl Into<Term>) -> Quad {
    Quad::new(s, iri(p), o, GraphName::DefaultGraph)
}

/// The statements of the FOXML fixtures, one input per object (those that are read), in
/// graphs named by the objects or in the default graph; and one input with an `owl:sameAs`
/// between two of the objects and a DOI written as a literal.
fn foxml_inputs(named_graphs: bool) -> Vec<Vec<(Quad, Location)>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real/fcrepo3/foxml");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("the fixtures")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    files.sort();
    let mut inputs = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file).expect("a fixture");
        let Ok(object) = FoxmlObject::parse(&bytes) else {
            continue;
        };
        let graph = if named_graphs {
            GraphName::NamedNode(iri(&object.iri()))
        } else {
            GraphName::DefaultGraph
        };
        let options = FoxmlOptions { properties: true };
        if let Ok(quads) = object.located_quads(options, &graph, &mut |_, _, _| {}) {
            inputs.push(quads);
        }
    }
    assert!(inputs.len() > 20, "{} objects read", inputs.len());
    let same_as = quad(
        iri("info:fedora/demo%3ASmileyBucket"),
        "http://www.w3.org/2002/07/owl#sameAs",
        iri("info:fedora/demo:SmileyPens"),
    );
    let doi = quad(
        iri("info:fedora/demo:SmileyPens"),
        "http://purl.org/dc/elements/1.1/identifier",
        Literal::new_simple_literal("doi:10.1000/ABC"),
    );
    inputs.push(vec![
        (same_as, Location::new(1, 1)),
        (doi, Location::new(2, 1)),
    ]);
    inputs
}

/// Identifiers in every literal, linked with `rdfs:seeAlso`.
fn all_literals() -> LiteralRewriter {
    LiteralRewriter::new(LiteralOptions {
        predicates: Predicates::parse("all").expect("all"),
        link: Some(iri("http://www.w3.org/2000/01/rdf-schema#seeAlso")),
        ..LiteralOptions::default()
    })
}

#[test]
fn foxml_objects_are_written_as_their_nquads_text_was() {
    let registry = Registry::default();
    // The classes of the inputs' `owl:sameAs` statements.
    let collapse = || {
        let options = CollapseOptions::default();
        let mut collector = options.collector(&registry, None);
        for (quad, _) in foxml_inputs(false).concat() {
            collector.add_statement(quad, 0).expect("collected");
        }
        options.mapping(None, options.finish(collector))
    };
    let base = Rewriter::new(Registry::default()).with_input_format(RdfFormat::NQuads);
    for format in [
        RdfFormat::NTriples,
        RdfFormat::NQuads,
        RdfFormat::Turtle,
        RdfFormat::TriG,
    ] {
        let inputs = foxml_inputs(format.supports_datasets());
        let rewriter = base.clone().with_output_format(format);
        let variants = [
            ("as is", rewriter.clone()),
            ("--dedup", rewriter.clone().drop_duplicates()),
            ("--collapse", rewriter.clone().with_mapping(collapse())),
            ("--threads 2", rewriter.clone().with_threads(2)),
            (
                "--literals=all",
                rewriter.clone().with_literals(all_literals()),
            ),
        ];
        let outputs: Vec<String> = variants
            .iter()
            .map(|(name, rewriter)| {
                let case = format!("{} {name}", format.name());
                let output = same_as_text(rewriter, &inputs, &case);
                assert!(output.contains("<info:fedora/demo:SmileyBucket>"), "{case}");
                output
            })
            .collect();
        // Two files hold the same object: duplicates to drop; a class to collapse; the same
        // statements on two threads; DC identifiers written as literals, linked.
        let name = format.name();
        assert!(outputs[1] != outputs[0], "{name}: --dedup drops nothing");
        assert!(
            outputs[2] != outputs[0],
            "{name}: --collapse collapses nothing"
        );
        assert!(
            outputs[3] == outputs[0],
            "{name}: two threads write otherwise"
        );
        assert!(outputs[4] != outputs[0], "{name}: --literals links nothing");
    }
}

#[test]
fn findings_are_told_at_the_locations_given() {
    let inputs = vec![vec![
        (
            quad(
                iri("info:fedora/demo%3a1"),
                "http://e/p",
                iri("hdl://10013/X"),
            ),
            Location::new(37, 25),
        ),
        (
            quad(iri("http://e/s"), "http://e/p", iri("hdl:/")),
            Location::at_line(40),
        ),
        (
            quad(iri("http://e/s"), "http://e/p", iri("info:fedora/demo%3a2")),
            Location::unknown(),
        ),
    ]];
    let expected = [
        Location::new(37, 25),
        Location::new(37, 25),
        Location::at_line(40),
        Location::unknown(),
    ];
    // Line-based output (N-Quads to N-Quads) and serialized output.
    for format in [RdfFormat::NQuads, RdfFormat::Turtle] {
        let rewriter = Rewriter::new(Registry::default())
            .with_input_format(RdfFormat::NQuads)
            .with_output_format(format);
        same_as_text(&rewriter, &inputs, format.name());
        let (_, report, heard) = run(&rewriter, &inputs, true);
        assert_eq!(heard.locations, expected, "{}: {heard:?}", format.name());
        assert_eq!(heard.findings[2], "invalid hdl:/");
        assert_eq!((report.statements_read, report.invalid_identifiers), (3, 1));
    }
}

/// Two inputs of the same statements: `_:b1 <p> made_up .` and `made_up <p> <hdl://10013/X> .`.
fn with_blank_nodes(made_up: &BlankNode) -> Vec<Vec<(Quad, Location)>> {
    let written = BlankNode::new("b1").expect("a label");
    let input = vec![
        (
            quad(written, "http://e/p", made_up.clone()),
            Location::new(1, 1),
        ),
        (
            quad(made_up.clone(), "http://e/p", iri("hdl://10013/X")),
            Location::new(2, 1),
        ),
    ];
    vec![input.clone(), input]
}

#[test]
fn blank_nodes_are_each_inputs_own() {
    let made_up = BlankNode::default();
    let rewriter = Rewriter::new(Registry::default());
    let (output, ..) = run(&rewriter, &with_blank_nodes(&made_up), true);
    let lines: Vec<Vec<&str>> = output
        .lines()
        .map(|line| line.split(' ').collect())
        .collect();
    assert_eq!(lines.len(), 4, "{output}");
    // A label written is kept in the first input and made its own in the second, as in text.
    assert_eq!(lines[0][0], "_:b1");
    assert_ne!(lines[2][0], "_:b1");
    let written = quad(
        BlankNode::new("b1").expect("a label"),
        "http://e/p",
        iri("http://e/o"),
    );
    let written = vec![vec![(written, Location::new(1, 1))]; 2];
    for format in [RdfFormat::NTriples, RdfFormat::Turtle] {
        same_as_text(
            &rewriter.clone().with_output_format(format),
            &written,
            format.name(),
        );
    }
    // A label made up (as oxrdf draws them) is one node in an input, another in the next, and
    // labelled the same on every run.
    assert_eq!(lines[0][2], lines[1][0]);
    assert_eq!(lines[2][2], lines[3][0]);
    assert_ne!(lines[0][2], lines[2][2]);
    assert_ne!(lines[0][2], made_up.to_string());
    let another = BlankNode::default();
    assert_ne!(another, made_up);
    assert_eq!(run(&rewriter, &with_blank_nodes(&another), true).0, output);
    assert_eq!(lines[1][2], "<hdl:10013/X>");
}

#[test]
fn parsed_statements_and_text_go_into_one_line_based_output_in_order() {
    let rewriter = Rewriter::new(Registry::default())
        .with_format(RdfFormat::NQuads)
        .drop_duplicates();
    let literal = Literal::new_typed_literal("a \"b\"\n", xsd::STRING);
    let statement = quad(iri("info:fedora/demo%3a1"), "http://e/p", literal);
    let mut output = Vec::new();
    let mut session = rewriter.session(&mut output);
    session
        .rewrite(&b"<http://e/first> <http://e/p> <http://e/o> .\n"[..])
        .expect("rewrites");
    session
        .rewrite_located_quads([
            (statement.clone(), Location::new(1, 1)),
            (statement.clone(), Location::new(2, 1)),
        ])
        .expect("rewrites");
    session
        .rewrite(format!("{statement} .\n<http://e/last> <http://e/p> <http://e/o> .\n").as_bytes())
        .expect("rewrites");
    let report = session.finish().expect("finishes");
    assert_eq!(
        String::from_utf8(output).expect("UTF-8"),
        "<http://e/first> <http://e/p> <http://e/o> .\n\
         <info:fedora/demo:1> <http://e/p> \"a \\\"b\\\"\\n\" .\n\
         <http://e/last> <http://e/p> <http://e/o> .\n"
    );
    assert_eq!(
        (
            report.statements_read,
            report.statements_written,
            report.duplicates_dropped
        ),
        (5, 3, 2)
    );
}

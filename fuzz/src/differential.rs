//! The differential checks: each reads one input two ways that must agree — pidcanon's own
//! readers against `oxttl` and `oxrdfxml`, one thread against two, a corrupted document
//! against the document without the corrupted statement, one statement order against another —
//! and panics with both results where they do not. The fuzz targets run them on what the
//! fuzzer makes; `tests/fuzz_regressions.rs` on what it found.

use super::structured::{self, Choices};
use pidcanon::fuzzing::{
    Scanned, ntriples_line, rdfxml_triples, trig_items, turtle_items, with_piece_size,
};
use pidcanon::rewrite::{Location, Observer, RdfFormat, Recovery, Rewriter, SyntaxError};
use pidcanon::{IdError, Kind, Registry};
use std::collections::HashMap;

/// The base IRI documents are read against.
pub const BASE: &str = "http://base.example/dir/doc";

/// Panics at the first item where `left` and `right` differ.
fn same_items(what: &str, input: &[u8], left: (&str, &[String]), right: (&str, &[String])) {
    let (left_name, left) = left;
    let (right_name, right) = right;
    if let Some(at) = (0..left.len().max(right.len())).find(|&i| left.get(i) != right.get(i)) {
        panic!(
            "{what}: {:?}\nitem {at}\n{left_name}: {:?}\n{right_name}: {:?}\n\
             all of {left_name}: {left:#?}\nall of {right_name}: {right:#?}",
            String::from_utf8_lossy(input),
            left.get(at),
            right.get(at)
        );
    }
}

/// The fast Turtle path against `oxttl` alone: the same statements in the same order, with the
/// same lines and declarations, the same errors at the same places with the same lines.
pub fn turtle_fast_vs_oxttl(text: &[u8]) {
    let oxttl = turtle_items(text, BASE, false);
    let fast = turtle_items(text, BASE, true);
    same_items("fast path", text, ("oxttl", &oxttl), ("fast", &fast));
}

/// [`turtle_fast_vs_oxttl`] for TriG: the fast path within graph blocks and out of them.
pub fn trig_fast_vs_oxttl(text: &[u8]) {
    let oxttl = trig_items(text, BASE, false);
    let fast = trig_items(text, BASE, true);
    same_items("fast path (TriG)", text, ("oxttl", &oxttl), ("fast", &fast));
}

/// [`turtle_fast_vs_oxttl`] on a document made from `data`.
pub fn turtle_fast_vs_oxttl_structured(data: &[u8]) {
    let document = structured::document(&mut Choices::new(data), false);
    turtle_fast_vs_oxttl(document.text().as_bytes());
}

/// What an observer heard, in order.
#[derive(Default)]
struct Heard(Vec<String>);

impl Observer for &mut Heard {
    fn rewritten(&mut self, location: Location, original: &str, canonical: &str, kind: Kind) {
        self.0.push(format!(
            "rewritten {location} {original} {canonical} {kind}"
        ));
    }

    fn invalid(&mut self, location: Location, iri: &str, error: &IdError) {
        self.0.push(format!("invalid {location} {iri} {error}"));
    }

    fn syntax_error(&mut self, error: &SyntaxError, recovery: Recovery) {
        self.0.push(format!("syntax error {error} ({recovery})"));
    }

    fn warning(&mut self, location: Location, message: &str) {
        self.0.push(format!("warning {location} {message}"));
    }
}

/// A rewrite of `input` by `rewriter`: the output, what was heard, and the report or error.
fn rewrite(rewriter: &Rewriter, input: &[u8]) -> (Vec<u8>, Vec<String>, String) {
    let mut out = Vec::new();
    let mut heard = Heard::default();
    let mut session = rewriter.session(&mut out).with_observer(&mut heard);
    let ended = session
        .rewrite(input)
        .and_then(|()| session.finish())
        .map_or_else(|e| format!("error: {e}"), |report| format!("{report:?}"));
    (out, heard.0, ended)
}

/// Turtle on one thread against Turtle on two, cut into pieces of about `piece` bytes: the
/// same bytes out, the same findings in the same order at the same places, the same report (or
/// error).
pub fn turtle_threads(text: &[u8], lenient: bool, output: RdfFormat, piece: usize) {
    let mut rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::Turtle)
        .with_output_format(output)
        .with_base_iri(BASE)
        .expect("a valid base");
    if lenient {
        rewriter = rewriter.skip_syntax_errors();
    }
    let one = rewrite(&rewriter, text);
    let rewriter = rewriter.with_threads(2);
    let two = with_piece_size(piece, || rewrite(&rewriter, text));
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let lines = |b: &[u8]| lossy(b).lines().map(str::to_owned).collect::<Vec<_>>();
    let what = format!("threads ({output:?}, lenient {lenient}, pieces of {piece})");
    same_items(
        &what,
        text,
        ("1 thread", &lines(&one.0)),
        ("2 threads", &lines(&two.0)),
    );
    same_items(&what, text, ("1 thread", &one.1), ("2 threads", &two.1));
    assert_eq!(one.2, two.2, "{what}: {:?}", lossy(text));
    assert_eq!(one.0, two.0, "{what}: {:?}", lossy(text));
}

/// [`turtle_threads`] with its options from the first byte of `data`: on the rest as it is,
/// or on a document made from it.
pub fn turtle_threads_bytes(data: &[u8]) {
    let Some((&options, rest)) = data.split_first() else {
        return;
    };
    let lenient = options & 1 != 0;
    let output = if options & 2 != 0 {
        RdfFormat::Turtle
    } else {
        RdfFormat::NTriples
    };
    let piece = 1 + usize::from(options >> 3) * 8;
    if options & 4 != 0 {
        let document = structured::document(&mut Choices::new(rest), false);
        turtle_threads(document.text().as_bytes(), lenient, output, piece);
    } else {
        turtle_threads(rest, lenient, output, piece);
    }
}

/// What `oxttl` makes of one line: its statements (their IRIs: subject, predicate, object,
/// graph, those that are IRIs) and whether it met an error.
fn oxttl_line(line: &[u8], quads: bool) -> (Vec<Vec<String>>, bool) {
    use oxrdf::{GraphName, NamedOrBlankNode, Term};
    let results: Vec<Result<oxrdf::Quad, _>> = if quads {
        oxttl::NQuadsParser::new().for_slice(line).collect()
    } else {
        oxttl::NTriplesParser::new()
            .for_slice(line)
            .map(|r| r.map(|t| t.in_graph(GraphName::DefaultGraph)))
            .collect()
    };
    let mut statements = Vec::new();
    let mut failed = false;
    for result in results {
        let Ok(quad) = result else {
            failed = true;
            continue;
        };
        let mut iris = Vec::new();
        if let NamedOrBlankNode::NamedNode(s) = &quad.subject {
            iris.push(s.as_str().to_owned());
        }
        iris.push(quad.predicate.as_str().to_owned());
        if let Term::NamedNode(o) = &quad.object {
            iris.push(o.as_str().to_owned());
        }
        if let GraphName::NamedNode(g) = &quad.graph_name {
            iris.push(g.as_str().to_owned());
        }
        statements.push(iris);
    }
    (statements, failed)
}

/// The lines of `text`, each with its line break: `\n`, `\r\n` or a `\r` alone (pidcanon's one
/// definition of a line break; the line pipeline reads N-Triples in such lines).
fn lines(text: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'\n' => {
                lines.push(&text[start..=at]);
                start = at + 1;
            }
            b'\r' if text.get(at + 1) != Some(&b'\n') => {
                lines.push(&text[start..=at]);
                start = at + 1;
            }
            _ => {}
        }
        at += 1;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// The N-Triples / N-Quads line scanner against `oxttl`, line by line: a line it accepts is one
/// statement `oxttl` accepts, with the same IRIs; a line it finds empty is empty for `oxttl`.
/// Then the whole line pipeline, going on after errors: it refuses the lines `oxttl` refuses
/// and reads the statements of the others.
pub fn ntriples_scanner_vs_oxttl(data: &[u8]) {
    let Some((&options, text)) = data.split_first() else {
        return;
    };
    let quads = options & 1 != 0;
    let mut refused = 0;
    let mut statements = 0;
    for line in lines(text) {
        let (expected, failed) = oxttl_line(line, quads);
        if failed {
            refused += 1;
        } else {
            statements += expected.len();
        }
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        match ntriples_line(line, quads) {
            Scanned::Statement(iris) => assert!(
                !failed && expected == [iris.clone()],
                "scanner accepts {line:?} (quads {quads}) with {iris:?}; oxttl: {expected:?}, error {failed}"
            ),
            Scanned::Nothing => assert!(
                !failed && expected.is_empty(),
                "scanner finds nothing in {line:?} (quads {quads}); oxttl: {expected:?}, error {failed}"
            ),
            Scanned::Unsure => {}
        }
    }
    if text.starts_with(b"\xEF\xBB\xBF") {
        // Skipped by the session: the first line is not what `oxttl` read above.
        return;
    }
    let format = if quads {
        RdfFormat::NQuads
    } else {
        RdfFormat::NTriples
    };
    let rewriter = Rewriter::new(Registry::default())
        .with_format(format)
        .skip_syntax_errors();
    let (_, heard, report) = rewrite(&rewriter, text);
    let errors = heard
        .iter()
        .filter(|h| h.starts_with("syntax error"))
        .count();
    let expected = format!("statements_read: {statements},");
    assert!(
        errors == refused && report.contains(&expected),
        "line pipeline on {:?} (quads {quads}): {errors} errors, {report}; oxttl: {refused} lines refused, {statements} statements",
        String::from_utf8_lossy(text)
    );
}

/// Renames the blank nodes of N-Triples text in order of appearance.
fn blank_nodes_numbered(text: &str) -> Vec<String> {
    let mut names: HashMap<String, usize> = HashMap::new();
    text.lines()
        .map(|line| {
            let mut out = String::new();
            let mut rest = line;
            while let Some(at) = rest.find("_:") {
                out.push_str(&rest[..at + 2]);
                rest = &rest[at + 2..];
                let len = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
                let next = names.len();
                let n = *names.entry(rest[..len].to_owned()).or_insert(next);
                out.push_str(&format!("n{n}"));
                rest = &rest[len..];
            }
            out.push_str(rest);
            out
        })
        .collect()
}

/// Tokens that make a statement bad wherever they stand, without changing how the text after
/// them is cut into tokens.
const CORRUPTIONS: [&str; 10] = [
    "!! ",
    "( ",
    "[ ",
    ") ",
    "] ",
    "<http://a b> ",
    "\"\\q\" ",
    "undeclared:x ",
    "@ ",
    "ex:a^^ ",
];

/// Turtle read going on after errors: a valid document (made from `data`) with one statement
/// corrupted gives every other statement, and nothing of the corrupted one.
pub fn turtle_lenient(data: &[u8]) {
    let mut choices = Choices::new(data);
    let document = structured::document(&mut choices, true);
    let candidates: Vec<usize> = (0..document.statements.len())
        .filter(|&i| document.statements[i].triples)
        .collect();
    if candidates.is_empty() {
        return;
    }
    let corrupted = candidates[choices.pick(candidates.len())];
    let tokens = &document.statements[corrupted].tokens;
    let at = choices.pick(tokens.len());
    let bad = choices.one(&CORRUPTIONS);
    // Put after the statement's final `.` (before the line break that ends it), the bad token
    // is a statement of its own, which runs on to the next statement's end — unless a
    // directive comes next, which ends it (a statement never holds one). A space keeps it from
    // the `.`, which it could otherwise make part of a name (`ex:c.undeclared:x`).
    let after_dot = at + 1 == tokens.len();
    let mut text = String::new();
    for (i, statement) in document.statements.iter().enumerate() {
        if i == corrupted {
            text.push_str(&tokens[..at].concat());
            if after_dot {
                text.push(' ');
            }
            text.push_str(bad);
            text.push_str(&tokens[at..].concat());
        } else {
            text.push_str(&statement.text());
        }
    }
    let clean = match document.statements.get(corrupted + 1) {
        _ if !after_dot => document.text_without(corrupted),
        Some(next) if next.triples => document.text_without(corrupted + 1),
        _ => document.text(),
    };
    lenient_drops_only_the_bad_statement(
        &text,
        &clean,
        &format!("statement {corrupted} corrupted with {bad:?}"),
    );
}

/// `text` read going on after errors gives what `clean` (`text` without a bad statement, as
/// `what` says) gives, and reports at least one error.
pub fn lenient_drops_only_the_bad_statement(text: &str, clean: &str, what: &str) {
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::Turtle)
        .with_output_format(RdfFormat::NTriples)
        .with_base_iri(BASE)
        .expect("a valid base");
    let (expected, _, report) = rewrite(&rewriter, clean.as_bytes());
    if report.starts_with("error") {
        // Not Turtle without the corrupted statement either (a name a redefined prefix or
        // base makes invalid).
        return;
    }
    let rewriter = rewriter.skip_syntax_errors();
    let (got, heard, _) = rewrite(&rewriter, text.as_bytes());
    let expected = blank_nodes_numbered(&String::from_utf8_lossy(&expected));
    let got = blank_nodes_numbered(&String::from_utf8_lossy(&got));
    let errors: Vec<_> = heard
        .iter()
        .filter(|h| h.starts_with("syntax error"))
        .collect();
    if expected != got || errors.is_empty() {
        panic!(
            "lenient: {text:?}\n{what}\nerrors: {errors:?}\n\
             without it: {expected:#?}\nlenient:     {got:#?}"
        );
    }
}

/// The legacy RDF/XML pre-pass against `oxrdfxml`: a document `oxrdfxml` reads without error
/// gives the same statements through the pre-pass.
pub fn rdfxml_legacy_vs_oxrdfxml(xml: &[u8]) {
    let Ok(direct) = rdfxml_triples(xml, BASE, false) else {
        return;
    };
    let legacy = rdfxml_triples(xml, BASE, true);
    assert!(
        legacy.as_ref() == Ok(&direct),
        "pre-pass on {:?}\noxrdfxml: {direct:#?}\npre-pass: {legacy:#?}",
        String::from_utf8_lossy(xml)
    );
}

/// Identifier spellings: several of one identifier, and IRIs no adapter claims.
const COLLAPSE_IRIS: [&str; 14] = [
    "info:fedora/demo:1",
    "info:fedora/demo%3A1",
    "hdl:10013/x",
    "http://hdl.handle.net/10013/X",
    "doi:10.1000/ABC",
    "https://doi.org/10.1000/abc",
    "http://dx.doi.org/10.1000/ABC",
    "info:fedora/demo:2",
    "oai:example.org:demo:2",
    "http://e/a",
    "http://e/b",
    "http://e/c",
    "urn:x:1",
    "info:fedora/no-colon",
];

const COLLAPSE_PREDICATES: [&str; 4] = [
    "http://www.w3.org/2002/07/owl#sameAs",
    "http://www.w3.org/2002/07/owl#sameAs",
    "http://e/p",
    "http://purl.org/dc/terms/relation",
];

/// The N-Triples output of `--collapse` (`owl:sameAs`) on `text`, or of a plain rewrite.
fn collapsed(text: &str, collapse: bool) -> String {
    use pidcanon::collapse::Collector;
    use pidcanon::equivalence::mapping::IriMapping;
    use pidcanon::equivalence::{EquivalencesBuilder, RepresentativeOrder};
    let mut rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::NTriples);
    if collapse {
        let registry = Registry::default();
        let predicates = vec![IriMapping::OWL_SAME_AS.to_owned()];
        let mut collector = Collector::new(
            &registry,
            EquivalencesBuilder::new(RepresentativeOrder::default()),
            predicates.clone(),
        );
        collector
            .read_graph(text.as_bytes(), RdfFormat::NTriples, None, 0)
            .expect("collects");
        let mapping =
            IriMapping::new().with_equivalences(collector.finish(1000, false), predicates);
        rewriter = rewriter.with_mapping(mapping);
    }
    let (out, _, report) = rewrite(&rewriter, text.as_bytes());
    assert!(!report.starts_with("error"), "{text:?}: {report}");
    String::from_utf8(out).expect("UTF-8 out")
}

/// The IRIs of N-Triples text.
fn iris(text: &str) -> std::collections::BTreeSet<&str> {
    let mut iris = std::collections::BTreeSet::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let end = start + rest[start..].find('>').expect("an IRI's end");
        iris.insert(&rest[start + 1..end]);
        rest = &rest[end + 1..];
    }
    iris
}

/// `--collapse` on a graph made from `data`: every IRI of the plain rewrite (each input IRI
/// canonicalized) is in the output, rewritten or as a class member; and the output, sorted,
/// does not depend on the order of the statements.
pub fn collapse(data: &[u8]) {
    let mut c = Choices::new(data);
    let mut statements = Vec::new();
    while !c.done() && statements.len() < 24 {
        let s = c.one(&COLLAPSE_IRIS);
        let p = c.one(&COLLAPSE_PREDICATES);
        let o = if c.pick(6) == 0 {
            "\"x\"".to_owned()
        } else {
            format!("<{}>", c.one(&COLLAPSE_IRIS))
        };
        statements.push(format!("<{s}> <{p}> {o} .\n"));
    }
    let text = statements.concat();
    let mut reordered = statements.clone();
    reordered.reverse();
    let turn = c.pick(reordered.len().max(1));
    reordered.rotate_left(turn);
    let reordered = reordered.concat();
    let plain = collapsed(&text, false);
    let once = collapsed(&text, true);
    let again = collapsed(&reordered, true);
    let missing: Vec<_> = iris(&plain).difference(&iris(&once)).copied().collect();
    assert!(
        missing.is_empty(),
        "collapse loses {missing:?}\ninput:\n{text}\nplain:\n{plain}\ncollapsed:\n{once}"
    );
    let sorted = |text: &str| {
        let mut lines: Vec<_> = text.lines().map(str::to_owned).collect();
        lines.sort();
        lines
    };
    assert!(
        sorted(&once) == sorted(&again),
        "collapse depends on the order\ninput:\n{text}\ncollapsed:\n{once}\nreordered:\n{reordered}\ncollapsed:\n{again}"
    );
}

//! The library as an application uses it: a rewriter configured once and cloned onto threads,
//! identifiers that parse back what they display.

use pidcanon::Registry;
use pidcanon::rewrite::{RdfFormat, Rewriter};
use pidcanon::scheme::handle::Handle;

/// `rewriter`'s output for `input`.
fn rewrite(rewriter: &Rewriter, input: &[u8]) -> String {
    let mut out = Vec::new();
    let mut session = rewriter.session(&mut out);
    session.rewrite(input).expect("rewrites");
    session.finish().expect("finishes");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn a_rewriter_is_cloned_onto_threads_and_rewrites_as_the_original() {
    let input = b"@prefix ex: <http://e/> .\n<info:fedora/demo%3a1> ex:p <hdl://10013/X>, [ ex:q ex:r ] .\n";
    let rewriter = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::Turtle)
        .with_output_format(RdfFormat::NTriples);
    fn shared<T: Send + Sync + Clone>(_: &T) {}
    shared(&rewriter);
    let expected = rewrite(&rewriter, input);
    assert!(expected.contains("<info:fedora/demo:1>"), "{expected}");
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let rewriter = rewriter.clone();
            std::thread::spawn(move || rewrite(&rewriter, input))
        })
        .collect();
    for thread in threads {
        assert_eq!(thread.join().expect("the thread ends"), expected);
    }
    // A clone configured further leaves the original as it was.
    let to_turtle = rewriter.clone().with_output_format(RdfFormat::Turtle);
    assert_ne!(rewrite(&to_turtle, input), expected);
    assert_eq!(rewrite(&rewriter, input), expected);
}

#[test]
fn a_handle_parses_back_what_it_displays() {
    for name in [
        "10013/X",
        "21.T11148/AbC",
        "10.1000/ABC",
        "10.1000/a b#c?d%e",
        "20.500.12345/é/x",
        "10013/x/y",
    ] {
        let handle = Handle::parse(name).expect("a handle");
        let displayed = handle.to_string();
        let parsed: Handle = displayed
            .parse()
            .unwrap_or_else(|e| panic!("{displayed}: {e}"));
        assert_eq!(parsed, handle, "{name} displayed as {displayed}");
    }
    assert!("hdl:10013/X?q".parse::<Handle>().is_err());
}

#[test]
fn a_quad_is_mapped_as_a_session_maps_it() {
    use oxrdf::{GraphNameRef, NamedNodeRef, QuadRef};
    use pidcanon::equivalence::mapping::IriMapping;
    use pidcanon::equivalence::rename::RenameTable;
    let registry = Registry::default();
    let table = RenameTable::read(&b"info:fedora/demo:1\thttp://e/new\n"[..], &registry)
        .expect("readable")
        .expect("a valid table");
    let rewriter = Rewriter::new(registry).with_mapping(IriMapping::new().with_rename(table));
    let quad = QuadRef::new(
        NamedNodeRef::new("info:fedora/demo%3a1").expect("an IRI"),
        NamedNodeRef::new("http://e/p").expect("an IRI"),
        NamedNodeRef::new("info:fedora/demo:1").expect("an IRI"),
        GraphNameRef::DefaultGraph,
    );
    let mapped = rewriter.canonical_quad(quad);
    assert_eq!(mapped.subject.to_string(), "<http://e/new>");
    assert_eq!(mapped.object.to_string(), "<http://e/new>");
    assert_eq!(rewriter.try_canonical_quad(quad).expect("valid"), mapped);
    let bad = QuadRef::new(
        NamedNodeRef::new("info:fedora/no-colon").expect("an IRI"),
        NamedNodeRef::new("http://e/p").expect("an IRI"),
        NamedNodeRef::new("http://e/o").expect("an IRI"),
        GraphNameRef::DefaultGraph,
    );
    let error = rewriter
        .try_canonical_quad(bad)
        .expect_err("a PID needs a colon");
    assert!(
        error
            .to_string()
            .starts_with("invalid identifier <info:fedora/no-colon>: fedora-object: "),
        "{error}"
    );
    let line = rewrite(
        &rewriter,
        b"<info:fedora/demo%3a1> <http://e/p> <info:fedora/demo:1> .\n",
    );
    assert_eq!(line, format!("{mapped} .\n"));
}

#[test]
fn statements_an_application_holds_are_rewritten_as_a_session_rewrites_them() {
    let input = "<info:fedora/demo%3a1> <http://e/p> <hdl://10013/X> .\n\
                 <http://e/s> <http://e/p> <info:fedora/no-colon> .\n\
                 <HDL:10013/Y> <http://e/p> \"x\" <info:fedora/demo%3A2> .\n";
    let quads: Vec<oxrdf::Quad> = oxttl::NQuadsParser::new()
        .for_slice(input.as_bytes())
        .collect::<Result<_, _>>()
        .expect("N-Quads");
    let rewriter = Rewriter::new(Registry::default()).with_format(RdfFormat::NQuads);
    let by_session = rewrite(&rewriter, input.as_bytes());
    let rewritten: Vec<String> = rewriter
        .for_quads(quads.clone())
        .map(|quad| format!("{} .\n", quad.expect("kept")))
        .collect();
    assert_eq!(rewritten.concat(), by_session);
    let strict = rewriter.clone().fail_on_invalid();
    let results: Vec<_> = strict.for_quads(quads).collect();
    assert_eq!(results.len(), 3);
    assert!(results[0].is_ok() && results[2].is_ok());
    assert!(
        results[1]
            .as_ref()
            .is_err_and(|e| e.to_string().contains("<info:fedora/no-colon>"))
    );
}

#[test]
fn fingerprints_go_before_lines_and_not_into_a_serializer() {
    let input = b"<info:fedora/demo%3a1> <http://p> <http://o> .\n";
    let lines = Rewriter::new(Registry::default())
        .with_input_format(RdfFormat::Turtle)
        .with_output_format(RdfFormat::NQuads)
        .fingerprint_statements();
    let written = rewrite(&lines, input);
    let (fingerprint, line) = written
        .split_once('\t')
        .expect("a tab after the fingerprint");
    assert_eq!(fingerprint.len(), 32);
    assert_eq!(line, "<info:fedora/demo:1> <http://p> <http://o> .\n");
    let turtle = lines.with_output_format(RdfFormat::Turtle);
    let mut out = Vec::new();
    let mut session = turtle.session(&mut out);
    let failed = session
        .rewrite(&input[..])
        .and_then(|()| session.finish().map(drop));
    let message = failed
        .expect_err("Turtle has no lines to put a fingerprint before")
        .to_string();
    assert!(
        message.contains("fingerprints are written before N-Triples or N-Quads lines"),
        "{message}"
    );
}

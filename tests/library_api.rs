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

/// A quad as N-Quads writes it, comparable across a parse: every blank node label made `_:b`
/// (a session numbers the blank nodes of each input; a reader keeps the parser's) and every
/// language tag in lower case (as `oxttl` reads a tag back, where pidcanon keeps its case).
fn comparable(quad: &oxrdf::Quad) -> String {
    let text = quad.to_string();
    let mut out = String::with_capacity(text.len());
    let (mut in_literal, mut escaped, mut in_label, mut in_tag) = (false, false, false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let ends_token = c == ' ' || c == '>' || c == ')';
        if in_label && !ends_token {
            continue;
        }
        if in_tag && !ends_token {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        (in_label, in_tag) = (false, false);
        if in_literal {
            in_literal = escaped || c != '"';
            escaped = !escaped && c == '\\';
            in_tag = !in_literal && chars.peek() == Some(&'@');
        } else if c == '"' {
            in_literal = true;
        } else if c == '_' && chars.peek() == Some(&':') {
            chars.next();
            out.push_str("_:b");
            in_label = true;
            continue;
        }
        out.push(c);
    }
    out
}

/// The statements of every fixture file (the W3C suites, the real corpus, legacy RDF/XML),
/// syntax errors skipped: read by `for_reader`, and written by a session then parsed back, they
/// are the same, in the same order, and an input a session refuses ends `for_reader` with an
/// error.
#[test]
fn a_reader_gives_the_statements_a_session_writes() {
    let mut files = 0;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixtures").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let Some(format) = path
                .extension()
                .and_then(|e| e.to_str())
                .and_then(|e| pidcanon::rewrite::parse_format(e).ok())
            else {
                continue;
            };
            files += 1;
            let input = std::fs::read(&path).expect("fixture");
            let rewriter = Rewriter::new(Registry::default())
                .with_input_format(format)
                .with_output_format(RdfFormat::TriG)
                .with_base_iri("http://example.org/base/")
                .expect("base")
                .skip_syntax_errors();
            let mut written = Vec::new();
            let mut session = rewriter.session(&mut written);
            let by_session = session.rewrite(&input[..]).and_then(|()| session.finish());
            let read: Vec<_> = rewriter.for_reader(std::io::Cursor::new(input)).collect();
            let (ok, errors): (Vec<_>, Vec<_>) = read.into_iter().partition(Result::is_ok);
            let read: Vec<String> = ok
                .into_iter()
                .map(|quad| comparable(&quad.expect("ok")))
                .collect();
            if by_session.is_err() {
                assert!(!errors.is_empty(), "{}: no error", path.display());
                continue;
            }
            assert!(errors.is_empty(), "{}: {errors:?}", path.display());
            let parsed: Vec<String> = oxttl::TriGParser::new()
                .for_slice(&written)
                .map(|quad| comparable(&quad.expect("the session's own TriG")))
                .collect();
            if let Some(at) =
                (0..read.len().max(parsed.len())).find(|&i| read.get(i) != parsed.get(i))
            {
                panic!(
                    "{}: statement {at} of {} read, {} written: {:?} read, {:?} written",
                    path.display(),
                    read.len(),
                    parsed.len(),
                    read.get(at),
                    parsed.get(at)
                );
            }
        }
    }
    assert!(files > 1500, "only {files} fixture files");
}

/// Each syntax error is an `Err` where it is found, and reading goes on after it; with two
/// threads, the same items.
#[test]
fn a_reader_tells_each_syntax_error_and_goes_on() {
    let mut turtle = String::from("@prefix ex: <http://e/> .\n");
    for n in 0..3000 {
        turtle.push_str(&format!("<info:fedora/demo%3a{n}> ex:p ex:o{n} .\n"));
        if n % 1000 == 7 {
            turtle.push_str("ex:a ex:b <bad iri> .\n");
        }
    }
    let items = |threads: usize| -> Vec<String> {
        Rewriter::new(Registry::default())
            .with_input_format(RdfFormat::Turtle)
            .with_threads(threads)
            .for_reader(std::io::Cursor::new(turtle.clone().into_bytes()))
            .map(|item| match item {
                Ok(quad) => quad.to_string(),
                Err(error) => format!("error: {error}"),
            })
            .collect()
    };
    let one = items(1);
    assert_eq!(one.len(), 3003);
    assert_eq!(one[0], "<info:fedora/demo:0> <http://e/p> <http://e/o0>");
    assert!(one[8].starts_with("error: "), "{}", one[8]);
    assert!(one[8].contains("10:"), "{}", one[8]);
    assert_eq!(one[9], "<info:fedora/demo:8> <http://e/p> <http://e/o8>");
    assert_eq!(items(2), one);
}

/// An iterator dropped before its input ends stops the thread that reads it, which then drops
/// the input (an endless input of blank lines, which gives the thread nothing to send).
#[test]
fn a_reader_dropped_early_stops_reading() {
    struct Endless(std::sync::mpsc::Sender<()>);
    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(b'\n');
            Ok(buf.len())
        }
    }
    impl Drop for Endless {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let (input_dropped, heard) = std::sync::mpsc::channel();
    let rewriter = Rewriter::new(Registry::default()).with_input_format(RdfFormat::NTriples);
    let read = rewriter.for_reader(std::io::Read::chain(
        &b"<http://e/s> <http://e/p> <http://e/o> .\n"[..],
        Endless(input_dropped),
    ));
    drop(read);
    heard
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the reading thread drops its input");
}

/// A compressed input is read as the command line reads a compressed file: decompressed, the
/// same statements as the plain text.
#[test]
fn a_reader_decompresses_what_is_compressed() {
    use pidcanon::compression::{Compression, Encoder};
    use std::io::Write;
    let text = b"<info:fedora/demo%3a1> <http://e/p> <hdl://10013/X> .\n<http://e/s> <http://e/p> \"x\"@en-GB .\n";
    let rewriter = Rewriter::new(Registry::default()).with_input_format(RdfFormat::NTriples);
    let read = |input: Vec<u8>| -> Vec<String> {
        rewriter
            .for_reader(std::io::Cursor::new(input))
            .map(|quad| quad.expect("read").to_string())
            .collect()
    };
    let plain = read(text.to_vec());
    assert_eq!(plain.len(), 2);
    assert_eq!(plain[0], "<info:fedora/demo:1> <http://e/p> <hdl:10013/X>");
    for compression in [Compression::Gzip, Compression::Bzip2, Compression::Zstd] {
        let mut encoder = Encoder::new(Vec::new(), Some(compression)).expect("encoder");
        encoder.write_all(text).expect("compresses");
        assert_eq!(
            read(encoder.finish().expect("ends")),
            plain,
            "{compression:?}"
        );
    }
}

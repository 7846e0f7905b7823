//! Statements written as N-Triples / N-Quads lines straight into a byte buffer: the same bytes
//! as `oxttl`'s serializers (which format each term through `std::fmt`), at a fraction of the
//! cost — serializing took as many instructions as canonicalizing.
//!
//! ```text
//! <http://s> <http://p> "a \"quoted\" line\n"@en <http://g> .
//! ```

#[cfg(feature = "rdf-12")]
use oxrdf::Triple;
use oxrdf::{BlankNode, GraphName, Literal, NamedOrBlankNode, Quad, Term, vocab::xsd};

/// Appends `quad` to `out` as an N-Quads line (an N-Triples line in the default graph).
pub(crate) fn write_quad(out: &mut Vec<u8>, quad: &Quad) {
    write_quad_with(out, quad, &mut |out, node| {
        write_blank_node(out, node.as_str());
    });
}

/// Appends `quad` to `out` as [`write_quad`] does, writing its blank nodes with
/// `blank_node`, in the order they are written (subject, object, graph; a triple term's
/// subject and object where it is written).
pub(crate) fn write_quad_with(
    out: &mut Vec<u8>,
    quad: &Quad,
    blank_node: &mut impl FnMut(&mut Vec<u8>, &BlankNode),
) {
    write_subject(out, &quad.subject, blank_node);
    out.push(b' ');
    write_iri(out, quad.predicate.as_str());
    out.push(b' ');
    write_term(out, &quad.object, blank_node);
    match &quad.graph_name {
        GraphName::NamedNode(graph) => {
            out.push(b' ');
            write_iri(out, graph.as_str());
        }
        GraphName::BlankNode(graph) => {
            out.push(b' ');
            blank_node(out, graph);
        }
        GraphName::DefaultGraph => {}
    }
    out.extend_from_slice(b" .\n");
}

fn write_iri(out: &mut Vec<u8>, iri: &str) {
    out.push(b'<');
    out.extend_from_slice(iri.as_bytes());
    out.push(b'>');
}

/// `_:label`.
pub(crate) fn write_blank_node(out: &mut Vec<u8>, label: &str) {
    out.extend_from_slice(b"_:");
    out.extend_from_slice(label.as_bytes());
}

fn write_subject(
    out: &mut Vec<u8>,
    subject: &NamedOrBlankNode,
    blank_node: &mut impl FnMut(&mut Vec<u8>, &BlankNode),
) {
    match subject {
        NamedOrBlankNode::NamedNode(node) => write_iri(out, node.as_str()),
        NamedOrBlankNode::BlankNode(node) => blank_node(out, node),
    }
}

fn write_term(
    out: &mut Vec<u8>,
    term: &Term,
    blank_node: &mut impl FnMut(&mut Vec<u8>, &BlankNode),
) {
    match term {
        Term::NamedNode(node) => write_iri(out, node.as_str()),
        Term::BlankNode(node) => blank_node(out, node),
        Term::Literal(literal) => write_literal(out, literal),
        #[cfg(feature = "rdf-12")]
        Term::Triple(triple) => write_triple_term(out, triple, blank_node),
    }
}

/// An RDF 1.2 triple term: `<<( s p o )>>`.
#[cfg(feature = "rdf-12")]
fn write_triple_term(
    out: &mut Vec<u8>,
    triple: &Triple,
    blank_node: &mut impl FnMut(&mut Vec<u8>, &BlankNode),
) {
    out.extend_from_slice(b"<<( ");
    write_subject(out, &triple.subject, blank_node);
    out.push(b' ');
    write_iri(out, triple.predicate.as_str());
    out.push(b' ');
    write_term(out, &triple.object, blank_node);
    out.extend_from_slice(b" )>>");
}

fn write_literal(out: &mut Vec<u8>, literal: &Literal) {
    write_quoted(out, literal.value());
    if let Some(language) = literal.language() {
        out.push(b'@');
        out.extend_from_slice(language.as_bytes());
        #[cfg(feature = "rdf-12")]
        if let Some(direction) = literal.direction() {
            out.extend_from_slice(b"--");
            out.extend_from_slice(direction.to_string().as_bytes());
        }
    } else if literal.datatype() != xsd::STRING {
        out.extend_from_slice(b"^^");
        write_iri(out, literal.datatype().as_str());
    }
}

/// Whether a byte starts something to escape: a control character, `"`, `\`, or (0xEF) maybe
/// U+FFFE / U+FFFF.
static ESCAPED: [bool; 256] = {
    let mut escaped = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        escaped[i] = true;
        i += 1;
    }
    escaped[b'"' as usize] = true;
    escaped[b'\\' as usize] = true;
    escaped[0x7F] = true;
    escaped[0xEF] = true;
    escaped
};

/// `value` between double quotes, escaped as `oxrdf` escapes it: `\b \t \n \f \r \" \\` by
/// name, other control characters, DEL, U+FFFE and U+FFFF as `\uXXXX`.
fn write_quoted(out: &mut Vec<u8>, value: &str) {
    let bytes = value.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if !ESCAPED[usize::from(byte)] {
            at += 1;
            continue;
        }
        let (escape, len): (&[u8], usize) = match byte {
            0x08 => (b"\\b", 1),
            b'\t' => (b"\\t", 1),
            b'\n' => (b"\\n", 1),
            0x0C => (b"\\f", 1),
            b'\r' => (b"\\r", 1),
            b'"' => (b"\\\"", 1),
            b'\\' => (b"\\\\", 1),
            0xEF => match bytes.get(at + 1..at + 3) {
                Some([0xBF, 0xBE]) => (b"\\uFFFE", 3),
                Some([0xBF, 0xBF]) => (b"\\uFFFF", 3),
                _ => {
                    at += 1;
                    continue;
                }
            },
            _ => {
                out.extend_from_slice(&bytes[start..at]);
                out.extend_from_slice(format!("\\u{byte:04X}").as_bytes());
                at += 1;
                start = at;
                continue;
            }
        };
        out.extend_from_slice(&bytes[start..at]);
        out.extend_from_slice(escape);
        at += len;
        start = at;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxrdf::NamedNode;

    /// The line `oxttl` writes for `quad`.
    fn oxttl_line(quad: &Quad) -> Vec<u8> {
        let mut serializer = oxttl::NQuadsSerializer::new().for_writer(Vec::new());
        serializer.serialize_quad(quad).expect("serializes");
        serializer.finish()
    }

    fn ours(quad: &Quad) -> Vec<u8> {
        let mut out = Vec::new();
        write_quad(&mut out, quad);
        out
    }

    #[test]
    fn lines_are_the_bytes_oxttl_writes() {
        let s = NamedNode::new_unchecked("http://s");
        let p = NamedNode::new_unchecked("http://p");
        let every_char: String = (0..0x80u8).map(char::from).collect();
        #[cfg_attr(not(feature = "rdf-12"), allow(unused_mut))]
        let mut objects: Vec<Term> = vec![
            s.clone().into(),
            BlankNode::new_unchecked("b1").into(),
            BlankNode::default().into(),
            Literal::new_simple_literal(every_char.clone()).into(),
            Literal::new_simple_literal("\u{FFFE}\u{FFFF}\u{FFFD}\u{EFFF} é 書 \u{10FFFF}").into(),
            Literal::new_language_tagged_literal_unchecked("été \"x\"", "fr-CA").into(),
            Literal::new_typed_literal("3", xsd::INTEGER).into(),
            Literal::new_typed_literal("x\\y", xsd::STRING).into(),
        ];
        #[cfg(feature = "rdf-12")]
        objects.extend([
            Literal::new_directional_language_tagged_literal_unchecked(
                "ب",
                "ar",
                oxrdf::BaseDirection::Rtl,
            )
            .into(),
            Triple::new(
                BlankNode::new_unchecked("t"),
                p.clone(),
                Triple::new(s.clone(), p.clone(), Literal::from("in")),
            )
            .into(),
        ]);
        let graphs: [GraphName; 3] = [
            GraphName::DefaultGraph,
            NamedNode::new_unchecked("http://g").into(),
            BlankNode::new_unchecked("g").into(),
        ];
        for object in objects {
            for graph in &graphs {
                for subject in [
                    NamedOrBlankNode::from(s.clone()),
                    BlankNode::new_unchecked("s").into(),
                ] {
                    let quad = Quad::new(subject, p.clone(), object.clone(), graph.clone());
                    assert_eq!(
                        String::from_utf8(ours(&quad)),
                        String::from_utf8(oxttl_line(&quad)),
                    );
                }
            }
        }
    }
}

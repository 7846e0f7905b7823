//! Every IRI of a statement through a function; literals and blank nodes untouched.

use oxrdf::{GraphName, NamedNode, NamedOrBlankNode, Quad, Term};

/// Replaces every IRI of `quad` (in triple terms too) by what `f` gives, where it gives one.
/// In place: a statement is mapped without being moved, and a term that does not change is
/// left as it is.
pub(crate) fn map_quad(quad: &mut Quad, f: &mut impl FnMut(&str) -> Option<String>) {
    map_subject(&mut quad.subject, f);
    map_named_node(&mut quad.predicate, f);
    map_term(&mut quad.object, f);
    if let GraphName::NamedNode(graph) = &mut quad.graph_name {
        map_named_node(graph, f);
    }
}

fn map_named_node(node: &mut NamedNode, f: &mut impl FnMut(&str) -> Option<String>) {
    if let Some(iri) = f(node.as_str()) {
        *node = NamedNode::new_unchecked(iri);
    }
}

fn map_subject(subject: &mut NamedOrBlankNode, f: &mut impl FnMut(&str) -> Option<String>) {
    if let NamedOrBlankNode::NamedNode(node) = subject {
        map_named_node(node, f);
    }
}

fn map_term(term: &mut Term, f: &mut impl FnMut(&str) -> Option<String>) {
    match term {
        Term::NamedNode(node) => map_named_node(node, f),
        #[cfg(feature = "rdf-12")]
        Term::Triple(triple) => {
            map_subject(&mut triple.subject, f);
            map_named_node(&mut triple.predicate, f);
            map_term(&mut triple.object, f);
        }
        Term::BlankNode(_) | Term::Literal(_) => {}
    }
}

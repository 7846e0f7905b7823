//! Every IRI of a statement through a function; literals and blank nodes untouched.

use oxrdf::{GraphName, NamedNode, NamedOrBlankNode, Quad, Term, Triple};

/// `quad` with every IRI (in triple terms too) replaced by what `f` gives, where it gives one.
pub(crate) fn map_quad(quad: Quad, f: &mut impl FnMut(&str) -> Option<String>) -> Quad {
    Quad {
        subject: map_subject(quad.subject, f),
        predicate: map_named_node(quad.predicate, f),
        object: map_term(quad.object, f),
        graph_name: match quad.graph_name {
            GraphName::NamedNode(n) => GraphName::NamedNode(map_named_node(n, f)),
            other => other,
        },
    }
}

fn map_named_node(node: NamedNode, f: &mut impl FnMut(&str) -> Option<String>) -> NamedNode {
    f(node.as_str()).map_or(node, NamedNode::new_unchecked)
}

fn map_subject(
    subject: NamedOrBlankNode,
    f: &mut impl FnMut(&str) -> Option<String>,
) -> NamedOrBlankNode {
    match subject {
        NamedOrBlankNode::NamedNode(n) => map_named_node(n, f).into(),
        other => other,
    }
}

fn map_term(term: Term, f: &mut impl FnMut(&str) -> Option<String>) -> Term {
    match term {
        Term::NamedNode(n) => map_named_node(n, f).into(),
        Term::Triple(t) => {
            let t = *t;
            Triple {
                subject: map_subject(t.subject, f),
                predicate: map_named_node(t.predicate, f),
                object: map_term(t.object, f),
            }
            .into()
        }
        other => other,
    }
}

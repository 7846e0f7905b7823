//! Blank nodes belong to their document: the scope of the blank node labels of one input.
//!
//! Two inputs of one run that both write `_:b1` mean two nodes, as in RDF (and as riot reads
//! them). The labels written in the run's first input are kept as written, so that one input
//! comes out byte for byte; a label written in any later input is replaced by one derived from
//! it and the input's seed (its number in the run and its base IRI): the same on every run,
//! the same wherever the input is read from (one thread or several, N-Triples lines or a
//! serializer), and another for every input. Labels the parsers make up (for `[]`,
//! collections, RDF/XML nodes without `rdf:nodeID`) derive from the same seed
//! (`graph::worker`). docs/canonical-forms.md, "Blank nodes", says why.

use oxrdf::BlankNode;

/// The blank node labels of one input document.
///
/// ```text
/// input 1, _:b1  →  _:b1
/// input 2, _:b1  →  _:a5…  (32 hexadecimal digits, the first a letter)
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DocumentScope {
    seed: u64,
    /// The input is not the run's first: the labels written in it are replaced.
    relabels_written: bool,
}

impl DocumentScope {
    /// The scope of the run's input number `number` (from 1), read with `base_iri`.
    pub(crate) fn new(number: u64, base_iri: Option<&str>) -> Self {
        Self {
            seed: xxhash_rust::xxh3::xxh3_64_with_seed(
                base_iri.unwrap_or_default().as_bytes(),
                number,
            ),
            relabels_written: number > 1,
        }
    }

    /// The seed the labels of the document's made-up blank nodes derive from.
    pub(crate) fn seed(self) -> u64 {
        self.seed
    }

    /// Whether the labels written in the document are replaced.
    pub(crate) fn relabels_written(self) -> bool {
        self.relabels_written
    }

    /// What the label `label`, written in the document, becomes: `None` where it is kept.
    pub(crate) fn written(self, label: &str) -> Option<BlankNode> {
        self.relabels_written.then(|| {
            let hash = xxhash_rust::xxh3::xxh3_128_with_seed(label.as_bytes(), self.seed);
            // The first hex digit is a letter, as in the made-up labels: RDF/XML's rdf:nodeID
            // must not start with a digit.
            BlankNode::new_from_unique_id((hash >> 4) | (0xA << 124))
        })
    }

    /// Replaces, in `line` (a valid N-Triples / N-Quads statement), each blank node label by
    /// what [`Self::written`] makes of it, appending the line to `out`.
    pub(crate) fn relabel_line(self, line: &[u8], out: &mut Vec<u8>) {
        let mut copied = 0;
        for label in crate::rewrite::line_iris::blank_labels(line) {
            // A valid line's label is UTF-8 (it is part of a valid line).
            let Some(new) = std::str::from_utf8(&line[label.clone()])
                .ok()
                .and_then(|l| self.written(l))
            else {
                continue;
            };
            out.extend_from_slice(&line[copied..label.start]);
            out.extend_from_slice(new.as_str().as_bytes());
            copied = label.end;
        }
        out.extend_from_slice(&line[copied..]);
    }
}

#[cfg(test)]
mod tests {
    use super::DocumentScope;

    fn relabelled(scope: DocumentScope, line: &str) -> String {
        let mut out = Vec::new();
        scope.relabel_line(line.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_first_documents_labels_are_kept() {
        let scope = DocumentScope::new(1, Some("file:///a.nt"));
        assert_eq!(scope.written("b1"), None);
        let line = "_:b1 <http://p> _:b2 .\n";
        assert_eq!(relabelled(scope, line), line);
    }

    #[test]
    fn a_later_documents_labels_are_its_own_and_the_same_on_every_run() {
        let second = DocumentScope::new(2, Some("file:///b.nt"));
        let third = DocumentScope::new(3, Some("file:///c.nt"));
        let b1 = second.written("b1").unwrap();
        assert_eq!(second.written("b1"), Some(b1.clone()));
        assert_ne!(second.written("b2"), Some(b1.clone()));
        assert_ne!(third.written("b1"), Some(b1.clone()));
        assert_eq!(b1.as_str().len(), 32);
        assert!(b1.as_str().starts_with('a'));
    }

    #[test]
    fn only_labels_change_in_a_line() {
        let scope = DocumentScope::new(2, None);
        let own = |label| scope.written(label).unwrap().as_str().to_owned();
        let (b1, b2) = (own("b1"), own("b.2"));
        assert_eq!(
            relabelled(
                scope,
                "_:b1 <http://p#_:x> \"_:b1 \\\" _:b1\"^^<http://t> _:b.2. # _:b1\n"
            ),
            format!("_:{b1} <http://p#_:x> \"_:b1 \\\" _:b1\"^^<http://t> _:{b2}. # _:b1\n")
        );
        assert_eq!(
            relabelled(scope, "_:é·1 <http://p> \"x\"@en _:g .\r\n"),
            format!("_:{} <http://p> \"x\"@en _:{} .\r\n", own("é·1"), own("g"))
        );
    }
}

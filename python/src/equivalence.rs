//! What `rename=`, `collapse=` and `equivalences=` ask of `pidcanon.rewrite` and of the graph
//! helpers (`_mapped_terms`): the rename table, the equivalence classes and the pairs files,
//! read, gathered and applied with the library's own code (`RenameTable::read_file`,
//! `read_pairs_file`, `CollapseOptions`, the `Collector` and the `IriMapping`), as `pidcanon
//! rewrite --rename --collapse --equivalences` does.

use crate::errors::value_error;
use crate::policy::{PyPolicy, policy_of, registry_of};
use oxrdf::{GraphName, NamedNode, Quad};
use pidcanon::collapse::{CollapseOptions, CollectError, Collector};
use pidcanon::equivalence::Equivalences;
use pidcanon::equivalence::mapping::IriMapping;
use pidcanon::equivalence::mapping::{PairFileError, read_pairs_file};
use pidcanon::equivalence::rename::RenameTable;
use pidcanon::{Policy, Registry};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use std::path::PathBuf;

/// The keyword arguments `rename`, `collapse`, `equivalence_predicates`, `equivalences`,
/// `max_class`, `allow_large_classes` and `drop_reflexive`, checked.
pub(crate) struct Equivalence {
    rename: Option<PathBuf>,
    collapse: Option<CollapseOptions>,
    equivalences: Vec<PathBuf>,
}

/// Why the mapping could not be made.
pub(crate) enum EquivalenceError {
    /// A `rename` or `equivalences` file that cannot be used.
    File(PairFileError),
    /// The first pass stopped.
    Collect(CollectError),
    /// Classes larger than `max_class`, which may not be collapsed: how many, their sizes.
    LargeClasses(String),
}

impl EquivalenceError {
    /// The Python exception, its message prefixed by `source` (the input's name), if any, and
    /// saying that nothing was `done`.
    pub(crate) fn into_py(self, source: Option<&str>, done: &str) -> PyErr {
        let prefixed = |message: String| match source {
            Some(source) => format!("{source}: {message}"),
            None => message,
        };
        match self {
            // The path is in the message: `path: error`, `path:line: problem`.
            Self::File(PairFileError::Io { source: e, path }) => {
                std::io::Error::new(e.kind(), format!("{}: {e}", path.display())).into()
            }
            Self::File(e) => value_error(e),
            Self::Collect(e) => value_error(prefixed(e.to_string())),
            Self::LargeClasses(classes) => value_error(prefixed(format!(
                "{classes}: nothing {done}; fix the statements that joined them, raise \
                 max_class, or pass allow_large_classes=True"
            ))),
        }
    }
}

impl Equivalence {
    /// The options, checked before anything is read.
    pub(crate) fn new(
        policy: &Policy,
        rename: Option<PathBuf>,
        collapse: bool,
        equivalence_predicates: Option<Vec<String>>,
        equivalences: Option<Vec<PathBuf>>,
        (max_class, allow_large_classes, drop_reflexive): (usize, bool, bool),
    ) -> PyResult<Self> {
        let equivalences = equivalences.unwrap_or_default();
        if !collapse && !equivalences.is_empty() {
            return Err(value_error(
                "equivalences= gives classes to collapse: pass collapse=True",
            ));
        }
        let collapse = collapse
            .then(|| -> PyResult<CollapseOptions> {
                let mut options = CollapseOptions::for_policy(policy)
                    .map_err(|e| value_error(format!("policy representative_order: {e}")))?;
                for predicate in equivalence_predicates.unwrap_or_default() {
                    options.add_predicate(&predicate).map_err(|e| {
                        value_error(format!("equivalence predicate <{predicate}>: {e}"))
                    })?;
                }
                options.max_class = max_class;
                options.collapse_large = allow_large_classes;
                options.drop_reflexive = drop_reflexive;
                Ok(options)
            })
            .transpose()?;
        Ok(Self {
            rename,
            collapse,
            equivalences,
        })
    }

    /// Whether there is anything to map.
    pub(crate) fn is_empty(&self) -> bool {
        self.rename.is_none() && self.collapse.is_none()
    }

    /// The equivalence predicates (with `collapse`).
    pub(crate) fn predicates(&self) -> &[String] {
        self.collapse.as_ref().map_or(&[], |o| &o.predicates)
    }

    /// The mapping: the rename table, then (with `collapse`) the classes of what `feed` gives
    /// the collector (as the input numbered 0) and of the `equivalences` files; `None` if
    /// there is nothing to map.
    pub(crate) fn mapping(
        &self,
        registry: &Registry,
        feed: impl FnOnce(&mut Collector<'_>) -> Result<(), CollectError>,
    ) -> Result<Option<IriMapping>, EquivalenceError> {
        let rename = self
            .rename
            .as_deref()
            .map(|path| RenameTable::read_file(path, registry))
            .transpose()
            .map_err(EquivalenceError::File)?;
        let Some(options) = &self.collapse else {
            return Ok(rename.map(|table| IriMapping::new().with_rename(table)));
        };
        let mut collector = options.collector(registry, rename.as_ref());
        feed(&mut collector).map_err(EquivalenceError::Collect)?;
        for (i, path) in self.equivalences.iter().enumerate() {
            let pairs = read_pairs_file(path, registry).map_err(EquivalenceError::File)?;
            collector
                .add_pairs(&pairs, i as u32 + 1)
                .map_err(|e| EquivalenceError::Collect(e.into()))?;
        }
        let classes = options.finish(collector);
        refuse_large(options, &classes)?;
        Ok(Some(options.mapping(rename, classes)))
    }
}

/// The refusal of classes larger than `max_class`, unless they may be collapsed.
fn refuse_large(options: &CollapseOptions, classes: &Equivalences) -> Result<(), EquivalenceError> {
    let large = classes.large_classes();
    if large.is_empty() || options.collapse_large {
        return Ok(());
    }
    let sizes: Vec<String> = large
        .iter()
        .map(|class| format!("{} (representative <{}>)", class.size, class.representative))
        .collect();
    Err(EquivalenceError::LargeClasses(format!(
        "{} equivalence classes larger than max_class={} ({})",
        large.len(),
        options.max_class,
        sizes.join(", ")
    )))
}

/// One equivalence statement of a graph: the tuple it was given as, its subject, predicate and
/// object.
struct Statement<'py> {
    tuple: Bound<'py, PyTuple>,
    iris: [PyBackedStr; 3],
}

/// For the graph helpers, with ``rename``, ``collapse`` or ``equivalences``: ``(changed,
/// invalid, replaced, links)``. ``changed`` and ``invalid`` are ``_canonical_terms``'s, each IRI
/// canonicalized, renamed and collapsed as ``pidcanon rewrite`` maps it. With ``collapse``, the
/// classes are gathered from the statements ``statements_of(predicate)`` gives for each
/// equivalence predicate (``(s, p, o)`` or ``(s, p, o, graph)`` tuples) and from the
/// ``equivalences`` files; ``replaced`` lists those of the statements that the rewrite does not
/// write where they stand, and ``links`` the statements ``(representative, p, member[, graph])``
/// it writes instead (the graph as given: not mapped).
#[pyfunction]
#[pyo3(signature = (terms, statements_of, iri_type, policy = None, *, rename = None, collapse = false, equivalence_predicates = None, equivalences = None, max_class = 1000, allow_large_classes = false, drop_reflexive = false))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn _mapped_terms<'py>(
    terms: &Bound<'py, PyAny>,
    statements_of: &Bound<'py, PyAny>,
    iri_type: &Bound<'py, PyType>,
    policy: Option<&Bound<'py, PyPolicy>>,
    rename: Option<PathBuf>,
    collapse: bool,
    equivalence_predicates: Option<Vec<String>>,
    equivalences: Option<Vec<PathBuf>>,
    max_class: usize,
    allow_large_classes: bool,
    drop_reflexive: bool,
) -> PyResult<(
    Bound<'py, PyDict>,
    Bound<'py, PyDict>,
    Bound<'py, PyList>,
    Bound<'py, PyList>,
)> {
    let py = terms.py();
    let registry = registry_of(policy);
    let equivalence = Equivalence::new(
        &policy_of(policy),
        rename,
        collapse,
        equivalence_predicates,
        equivalences,
        (max_class, allow_large_classes, drop_reflexive),
    )?;
    let (objects, iris) = crate::identifiers::iris_of(terms, iri_type)?;
    let iri_test = crate::identifiers::IriTest::new(iri_type);
    let mut statements = Vec::new();
    for predicate in equivalence.predicates() {
        for tuple in statements_of
            .call1((iri_type.call1((predicate,))?,))?
            .try_iter()?
        {
            let tuple = tuple?.cast_into::<PyTuple>()?;
            let [s, p, o] = [0, 1, 2].map(|i| tuple.get_item(i));
            let [s, p, o] = [s?, p?, o?];
            if iri_test.is_iri(&s)? && iri_test.is_iri(&o)? {
                let iri = |term: Bound<'py, PyAny>| -> PyResult<PyBackedStr> {
                    PyBackedStr::try_from(term.cast_into::<PyString>()?)
                };
                let iris = [iri(s)?, iri(p)?, iri(o)?];
                statements.push(Statement { tuple, iris });
            }
        }
    }
    let sides: Vec<[&str; 3]> = statements
        .iter()
        .map(|s| s.iris.each_ref().map(|iri| &**iri))
        .collect();
    let mapped = py.detach(|| {
        let mapping = equivalence
            .mapping(&registry, |collector| {
                for &[s, p, o] in &sides {
                    collector.add_statement(quad(s, p, o), 0)?;
                }
                collector.end_input(0)
            })?
            .unwrap_or_default();
        let terms: Vec<_> = iris
            .iter()
            .map(|iri| mapping.rewrite_iri(&registry, iri))
            .collect();
        // What becomes of each equivalence statement: written where it stands or not, and the
        // links (representative, member) it makes.
        let outcomes: Vec<(bool, Vec<(String, String)>)> = sides
            .iter()
            .map(|&[s, _, o]| {
                let side = |iri| mapping.equivalence_side(&registry, iri);
                let (Some(s), Some(o)) = (side(s), side(o)) else {
                    return (true, Vec::new());
                };
                let statement = mapping.equivalence_statement(&s, &o);
                let classes = mapping.equivalences();
                let links = statement
                    .linked()
                    .filter_map(|member| {
                        let classes = classes?;
                        let representative = classes.representative_of(member);
                        Some((
                            classes.iri(representative).to_owned(),
                            classes.iri(member).to_owned(),
                        ))
                    })
                    .collect();
                (statement.is_written(), links)
            })
            .collect();
        Ok::<_, EquivalenceError>((terms, outcomes))
    });
    let (results, outcomes) = mapped.map_err(|e| e.into_py(None, "changed"))?;
    let (changed, invalid) = crate::identifiers::terms_dicts(iri_type, &objects, &iris, results)?;
    let replaced = PyList::empty(py);
    let links = PyList::empty(py);
    for (statement, (written, linked)) in statements.iter().zip(outcomes) {
        if !written {
            replaced.append(&statement.tuple)?;
        }
        let predicate = statement.tuple.get_item(1)?;
        let graph = statement.tuple.get_item(3).ok();
        for (representative, member) in linked {
            let mut link = vec![
                iri_type.call1((representative,))?,
                predicate.clone(),
                iri_type.call1((member,))?,
            ];
            link.extend(graph.clone());
            links.append(PyTuple::new(py, link)?)?;
        }
    }
    Ok((changed, invalid, replaced, links))
}

/// `<s> <p> <o>` in the default graph, for the collector (which reads only the strings).
fn quad(s: &str, p: &str, o: &str) -> Quad {
    Quad::new(
        NamedNode::new_unchecked(s),
        NamedNode::new_unchecked(p),
        NamedNode::new_unchecked(o),
        GraphName::DefaultGraph,
    )
}

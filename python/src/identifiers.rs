//! One identifier at a time, or many: `canonicalize`, `parse`, `canonicalize_many`,
//! `detect_kind`, the idutils-style `normalize_*` functions, and `pidcanon.Registry`.

use crate::errors::{id_error, invalid_identifier, value_error};
use crate::policy::{PyPolicy, py_repr, registry_of};
use pidcanon::equivalence::mapping::IriMapping;
use pidcanon::{Canonical, IdError, Kind, Registry};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyType};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// The scheme names `scheme=` accepts.
const SCHEMES: [&str; 6] = ["fedora", "oai", "poi", "handle", "doi", "pdi"];

/// The canonical form of one identifier (``str()`` gives it) and what it was recognized as.
///
/// >>> parse("HDL:10013/epic.10033")
/// <Canonical iri='hdl:10013/epic.10033' kind='handle' changed=True>
#[pyclass(frozen, eq, hash, module = "pidcanon", name = "Canonical")]
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct PyCanonical {
    /// The canonical IRI.
    #[pyo3(get)]
    iri: String,
    /// ``fedora-object``, ``fedora-dissemination``, ``oai``, ``poi``, ``handle``, ``doi``,
    /// ``pdi``, or ``iri`` for an IRI no scheme claims (passed through).
    #[pyo3(get)]
    kind: String,
    /// Whether the canonical IRI differs from the input.
    #[pyo3(get)]
    changed: bool,
}

#[pymethods]
impl PyCanonical {
    #[new]
    #[pyo3(signature = (iri, kind, changed))]
    fn new(iri: String, kind: String, changed: bool) -> Self {
        Self { iri, kind, changed }
    }

    fn __str__(&self) -> &str {
        &self.iri
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let changed = if self.changed { "True" } else { "False" };
        Ok(format!(
            "<Canonical iri={} kind={} changed={changed}>",
            py_repr(py, &self.iri)?,
            py_repr(py, &self.kind)?
        ))
    }
}

/// The adapters of one policy, with the identifier functions as methods (the module-level
/// functions take ``policy=`` instead).
///
/// >>> Registry(Policy(doi_form="hdl")).canonicalize("doi:10.1000/ABC")
/// 'hdl:10.1000/abc'
#[pyclass(frozen, module = "pidcanon", name = "Registry")]
pub(crate) struct PyRegistry {
    policy: Py<PyPolicy>,
    registry: Arc<Registry>,
}

#[pymethods]
impl PyRegistry {
    #[new]
    #[pyo3(signature = (policy = None))]
    fn new(py: Python<'_>, policy: Option<&Bound<'_, PyPolicy>>) -> PyResult<Self> {
        let policy = match policy {
            Some(p) => p.clone().unbind(),
            None => Py::new(
                py,
                PyPolicy {
                    policy: pidcanon::Policy::default(),
                    registry: registry_of(None),
                },
            )?,
        };
        let registry = Arc::clone(&policy.get().registry);
        Ok(Self { policy, registry })
    }

    /// The policy the adapters follow.
    #[getter]
    fn policy(&self, py: Python<'_>) -> Py<PyPolicy> {
        self.policy.clone_ref(py)
    }

    /// As :func:`canonicalize`.
    #[pyo3(signature = (text, scheme = None))]
    fn canonicalize<'py>(
        &self,
        text: &Bound<'py, PyString>,
        scheme: Option<&Bound<'py, PyString>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        canonicalize_with(&self.registry, text, scheme_of(scheme)?)
    }

    /// As :func:`parse`.
    #[pyo3(signature = (text, scheme = None))]
    fn parse(
        &self,
        text: &Bound<'_, PyString>,
        scheme: Option<&Bound<'_, PyString>>,
    ) -> PyResult<PyCanonical> {
        parse_with(&self.registry, text, scheme_of(scheme)?)
    }

    /// As :func:`canonicalize_many`.
    #[pyo3(signature = (iterable, scheme = None, on_invalid = "none"))]
    fn canonicalize_many<'py>(
        &self,
        iterable: &Bound<'py, PyAny>,
        scheme: Option<&Bound<'py, PyString>>,
        on_invalid: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        canonicalize_many_with(&self.registry, iterable, scheme_of(scheme)?, on_invalid)
    }

    /// As :func:`detect_kind`.
    fn detect_kind(&self, text: &str) -> Option<&'static str> {
        detect(&self.registry, text).map(Kind::as_str)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Registry({})", self.policy.bind(py).repr()?))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyRegistry>()
            .is_ok_and(|other| other.get().policy.get().policy == self.policy.bind(py).get().policy)
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.policy.bind(py).hash()
    }
}

/// The `scheme=` argument: one of [`SCHEMES`], or a `ValueError`.
fn scheme_named(name: &str) -> PyResult<&'static str> {
    SCHEMES
        .into_iter()
        .find(|known| *known == name)
        .ok_or_else(|| {
            value_error(format!(
                "unknown scheme {name:?}: expected one of {}",
                SCHEMES.join(", ")
            ))
        })
}

/// [`SCHEMES`] as interned Python strings: a literal `"doi"` in Python code is the same object.
static SCHEME_OBJECTS: PyOnceLock<[Py<PyString>; 6]> = PyOnceLock::new();

/// An optional `scheme=` argument, recognized without converting it to UTF-8 when it is one of the
/// interned names (as literals in Python code are).
fn scheme_of(scheme: Option<&Bound<'_, PyString>>) -> PyResult<Option<&'static str>> {
    let Some(scheme) = scheme else {
        return Ok(None);
    };
    let py = scheme.py();
    let interned =
        SCHEME_OBJECTS.get_or_init(py, || SCHEMES.map(|n| PyString::intern(py, n).unbind()));
    match interned.iter().position(|name| name.is(scheme)) {
        Some(i) => Ok(Some(SCHEMES[i])),
        None => scheme_named(&scheme.to_cow()?).map(Some),
    }
}

fn canonicalize_with<'py>(
    registry: &Registry,
    text: &Bound<'py, PyString>,
    scheme: Option<&'static str>,
) -> PyResult<Bound<'py, PyAny>> {
    let input = PyBackedStr::try_from(text.clone())?;
    match registry.canonicalize_with_scheme(scheme, &input) {
        // Unchanged: the caller's own string back, not a copy.
        Ok(Canonical {
            iri: Cow::Borrowed(_),
            ..
        }) => Ok(text.clone().into_any()),
        Ok(c) => Ok(PyString::new(text.py(), &c.iri).into_any()),
        Err(e) => Err(error_of(text.py(), registry, scheme, &input, &e)),
    }
}

fn parse_with(
    registry: &Registry,
    text: &Bound<'_, PyString>,
    scheme: Option<&'static str>,
) -> PyResult<PyCanonical> {
    let input = PyBackedStr::try_from(text.clone())?;
    match registry.canonicalize_with_scheme(scheme, &input) {
        Ok(c) => Ok(PyCanonical {
            changed: c.iri != *input,
            iri: c.iri.into_owned(),
            kind: c.kind.as_str().to_owned(),
        }),
        Err(e) => Err(error_of(text.py(), registry, scheme, &input, &e)),
    }
}

/// The `InvalidIdentifier` of `input`. Read without a scheme, a text that is not an IRI but that
/// `detect_kind` reads as a bare DOI or handle name, and that that scheme takes, says so: the
/// message ends with `; a bare DOI name: pass scheme="doi"` (or handle).
fn error_of(
    py: Python<'_>,
    registry: &Registry,
    scheme: Option<&'static str>,
    input: &str,
    error: &IdError,
) -> PyErr {
    if scheme.is_none() && error.kind() == Kind::Iri {
        let bare = match detect(registry, input) {
            Some(Kind::Doi) => Some(("DOI", "doi")),
            Some(Kind::Handle) => Some(("handle", "handle")),
            _ => None,
        };
        if let Some((what, scheme)) = bare {
            if registry
                .canonicalize_with_scheme(Some(scheme), input)
                .is_ok()
            {
                let message = format!("{error}; a bare {what} name: pass scheme=\"{scheme}\"");
                return invalid_identifier(py, message, input, error, None);
            }
        }
    }
    id_error(py, input, error)
}

/// What `canonicalize_many` puts in place of an invalid identifier.
enum OnInvalid {
    None,
    Error,
    Raise,
}

fn canonicalize_many_with<'py>(
    registry: &Registry,
    iterable: &Bound<'py, PyAny>,
    scheme: Option<&'static str>,
    on_invalid: &str,
) -> PyResult<Bound<'py, PyList>> {
    let on_invalid = match on_invalid {
        "none" => OnInvalid::None,
        "error" => OnInvalid::Error,
        "raise" => OnInvalid::Raise,
        other => {
            return Err(value_error(format!(
                "invalid on_invalid {other:?}: expected 'none', 'error' or 'raise'"
            )));
        }
    };
    let py = iterable.py();
    let list = PyList::empty(py);
    let mut items = iterable.try_iter()?;
    let (mut objects, mut texts, mut results) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        // A chunk at a time: its strings are still in the cache when their results are built.
        for item in items.by_ref().take(MANY_CHUNK) {
            let item = item?;
            texts.push(PyBackedStr::try_from(item.cast::<PyString>()?.clone())?);
            objects.push(item);
        }
        if objects.is_empty() {
            return Ok(list);
        }
        // Canonicalized with the GIL released; `None` stands for "unchanged".
        py.detach(|| {
            results.extend(texts.iter().map(|text| {
                registry
                    .canonicalize_with_scheme(scheme, text)
                    .map(|c| match c.iri {
                        Cow::Borrowed(_) => None,
                        Cow::Owned(iri) => Some(iri),
                    })
            }));
        });
        for ((object, text), result) in objects.drain(..).zip(&texts).zip(results.drain(..)) {
            match result {
                Ok(None) => list.append(object)?,
                Ok(Some(iri)) => list.append(iri)?,
                Err(e) => match on_invalid {
                    OnInvalid::None => list.append(py.None())?,
                    OnInvalid::Error => {
                        list.append(error_of(py, registry, scheme, text, &e).into_value(py))?
                    }
                    OnInvalid::Raise => return Err(error_of(py, registry, scheme, text, &e)),
                },
            }
        }
        texts.clear();
    }
}

/// How many identifiers `canonicalize_many` reads, canonicalizes and hands back at a time.
const MANY_CHUNK: usize = 1024;

/// The kinds each idutils-style function accepts.
const DOI: &[Kind] = &[Kind::Doi];
const HANDLE: &[Kind] = &[Kind::Handle, Kind::Doi];

/// `text` read as idutils reads a DOI or handle: white space around it ignored; a text with a URI
/// scheme in one of the full forms (`doi:`, `hdl:`, resolver URLs...); a text that starts with a
/// resolver's host (`doi.org/10.1000/182`, `hdl.handle.net/10013/x`) as that resolver's `https://`
/// URL; any other text as a bare name of `scheme`. The result must be one of `kinds`. Offsets of
/// errors are in `text` as given.
fn as_pid<'a>(
    registry: &Registry,
    text: &'a str,
    scheme: &str,
    kinds: &[Kind],
) -> Result<Canonical<'a>, IdError> {
    let trimmed = text.trim();
    let lead = text.len() - text.trim_start().len();
    let shifted = |e: IdError, by: isize| {
        let offset = e.offset().saturating_add_signed(by);
        IdError::new(e.kind(), e.rule().clone(), offset)
    };
    let c = match pidcanon::scheme::scheme_of(trimmed) {
        Some(_) => registry.canonicalize(trimmed),
        None => match resolver_url(registry, trimmed) {
            // Offsets in the URL: less its `https://`.
            Some(result) => result.map_err(|e| shifted(e, lead as isize - HTTPS.len() as isize)),
            None => registry.canonicalize_with_scheme(Some(scheme), trimmed),
        },
    }
    .map_err(|e| {
        if lead == 0 {
            e
        } else {
            shifted(e, lead as isize)
        }
    })?;
    if kinds.contains(&c.kind) {
        return Ok(c);
    }
    let rule = if scheme == "doi" && c.kind == Kind::Handle {
        "a handle whose naming authority is not a DOI prefix (10.…)"
    } else if scheme == "doi" {
        "not a DOI"
    } else {
        "not a handle"
    };
    Err(IdError::new(c.kind, pidcanon::Rule::Grammar(rule), lead))
}

const HTTPS: &str = "https://";

/// A text without a URI scheme whose first segment is a host name (`doi.org/…`,
/// `dx.doi.org/…`, `hdl.handle.net/…`, a policy's resolver): the DOI or handle its `https://` URL
/// is, valid or not; `None` when no DOI or handle adapter claims that URL.
fn resolver_url(registry: &Registry, text: &str) -> Option<Result<Canonical<'static>, IdError>> {
    let host = &text[..text.find('/')?];
    if !(host.contains('.') && host.bytes().any(|b| b.is_ascii_alphabetic())) {
        return None;
    }
    let url = format!("{HTTPS}{text}");
    match registry.canonicalize(&url) {
        Ok(c) if matches!(c.kind, Kind::Doi | Kind::Handle) => {
            Some(Ok(Canonical::new(Cow::Owned(c.iri.into_owned()), c.kind)))
        }
        Err(e) if matches!(e.kind(), Kind::Doi | Kind::Handle) => Some(Err(e)),
        _ => None,
    }
}

/// The kind of a valid identifier: its full forms, or a bare DOI or handle name.
fn detect(registry: &Registry, text: &str) -> Option<Kind> {
    let text = text.trim();
    match registry.canonicalize(text) {
        Ok(c) if c.kind != Kind::Iri => Some(c.kind),
        _ => as_pid(registry, text, "handle", HANDLE)
            .ok()
            .map(|c| c.kind),
    }
}

/// A DOI or handle name without its prefix, decoded: what idutils' `normalize_doi` and
/// `normalize_handle` return.
fn bare_name(py: Python<'_>, registry: &Registry, text: &str, scheme: &str) -> PyResult<String> {
    let kinds = if scheme == "doi" { DOI } else { HANDLE };
    let c = as_pid(registry, text, scheme, kinds).map_err(|e| id_error(py, text, &e))?;
    let name = ["https://doi.org/", "https://hdl.handle.net/", "hdl:"]
        .into_iter()
        .find_map(|prefix| c.iri.strip_prefix(prefix))
        .unwrap_or(&c.iri);
    // A URI form's query and fragment (`?noredirect`, `#section`) are not part of the name: in
    // the canonical form a `?` or `#` of the name itself is escaped.
    let name = name.split(['?', '#']).next().unwrap_or(name);
    pidcanon::pct::decode(name)
        .map(Cow::into_owned)
        .map_err(|_| value_error(format!("{:?} does not decode", c.iri)))
}

/// The canonical IRI of ``text``; an IRI no scheme claims comes back unchanged (the same
/// object, as does an identifier that is already canonical).
///
/// >>> canonicalize("info:fedora/demo%3a1")
/// 'info:fedora/demo:1'
/// >>> canonicalize("10.1000/ABC", scheme="doi")
/// 'https://doi.org/10.1000/abc'
///
/// :param scheme: read ``text`` as an identifier of this scheme: its full forms, then its bare
///     form (``demo:1`` for ``"fedora"``, ``10.1000/182`` for ``"doi"``), as ``pidcanon canon
///     --scheme``. Without it, ``demo:1`` is an IRI of URI scheme ``demo``.
/// :param policy: the choices of canonical forms (default: ``Policy()``).
/// :raises InvalidIdentifier: when a scheme claims ``text`` but it breaks a rule, or ``text`` is
///     not an IRI (kind ``"iri"``). Without ``scheme``, a bare DOI or handle name
///     (``10.1000/182``, which :func:`detect_kind` reads as one) is not an IRI: the message then
///     ends with the ``scheme`` that reads it (``; a bare DOI name: pass scheme="doi"``).
/// :raises ValueError: for an unknown ``scheme``.
#[pyfunction]
#[pyo3(signature = (text, scheme = None, policy = None))]
pub(crate) fn canonicalize<'py>(
    text: &Bound<'py, PyString>,
    scheme: Option<&Bound<'py, PyString>>,
    policy: Option<&Bound<'py, PyPolicy>>,
) -> PyResult<Bound<'py, PyAny>> {
    canonicalize_with(&registry_of(policy), text, scheme_of(scheme)?)
}

/// As :func:`canonicalize`, with the kind and whether anything changed.
///
/// >>> parse("http://dx.doi.org/10.1000/182").kind
/// 'doi'
#[pyfunction]
#[pyo3(signature = (text, scheme = None, policy = None))]
pub(crate) fn parse<'py>(
    text: &Bound<'py, PyString>,
    scheme: Option<&Bound<'py, PyString>>,
    policy: Option<&Bound<'py, PyPolicy>>,
) -> PyResult<PyCanonical> {
    parse_with(&registry_of(policy), text, scheme_of(scheme)?)
}

/// The canonical IRIs of many identifiers, in one call that releases the GIL while it works
/// (the items are read and canonicalized a chunk of 1,024 at a time).
///
/// >>> canonicalize_many(["doi:10.1000/ABC", "info:fedora/demo:a b"])
/// ['https://doi.org/10.1000/abc', None]
///
/// :param on_invalid: what stands for an invalid identifier in the list: ``"none"`` (``None``),
///     ``"error"`` (its :class:`InvalidIdentifier`, not raised), or ``"raise"`` (the first one is
///     raised).
/// :raises TypeError: when an item is not a ``str``.
#[pyfunction]
#[pyo3(signature = (iterable, scheme = None, policy = None, on_invalid = "none"))]
pub(crate) fn canonicalize_many<'py>(
    iterable: &Bound<'py, PyAny>,
    scheme: Option<&Bound<'py, PyString>>,
    policy: Option<&Bound<'py, PyPolicy>>,
    on_invalid: &str,
) -> PyResult<Bound<'py, PyList>> {
    canonicalize_many_with(
        &registry_of(policy),
        iterable,
        scheme_of(scheme)?,
        on_invalid,
    )
}

/// The kind of a valid identifier written in any of its forms, bare DOI and handle names
/// included (as idutils' ``detect_identifier_schemes`` reads them); ``None`` for anything else,
/// invalid identifiers included. White space around ``text`` is ignored, and DOIs and handles
/// are read as :func:`normalize_doi` reads them.
///
/// >>> detect_kind("10.1000/182"), detect_kind("info:fedora/demo:1"), detect_kind("http://example.org/")
/// ('doi', 'fedora-object', None)
#[pyfunction]
#[pyo3(signature = (text, policy = None))]
pub(crate) fn detect_kind(
    text: &str,
    policy: Option<&Bound<'_, PyPolicy>>,
) -> Option<&'static str> {
    detect(&registry_of(policy), text).map(Kind::as_str)
}

/// A DOI without its prefix, as idutils' ``normalize_doi`` returns it, from any spelling
/// (``doi:``, ``info:doi/``, ``urn:doi:``, resolver URLs, ``hdl:``, bare).
///
/// White space around ``text`` is ignored. A text with a URI scheme is read in the scheme's full
/// forms; a text without one that starts with a resolver's host (``doi.org/10.1000/182``,
/// ``dx.doi.org/…``) as that resolver's ``https://`` URL, as idutils reads it; any other text as
/// a bare name (``10.1000/182``). The query and fragment of a URI form (``?…``, ``#…``) are not
/// part of the name and are left out: ``https://doi.org/10.1000/abc#frag`` is ``10.1000/abc``,
/// while the bare name ``10.1000/abc#frag`` keeps its ``#``.
///
/// Unlike idutils, ASCII letters are lower-cased (DOI names are case-insensitive, so
/// ``10.1000/ABC`` and ``10.1000/abc`` are one DOI), a URI form is percent-decoded once as the
/// DOI proxy reads it, and the DOI is validated: where idutils returns whatever its regular
/// expression matched (or fails with ``AttributeError``), this raises :class:`InvalidIdentifier`.
///
/// >>> normalize_doi("http://dx.doi.org/10.1371/JOURNAL.PONE.0042793")
/// '10.1371/journal.pone.0042793'
///
/// :raises InvalidIdentifier: when ``text`` is not a valid DOI.
#[pyfunction]
#[pyo3(signature = (text, policy = None))]
pub(crate) fn normalize_doi(
    py: Python<'_>,
    text: &str,
    policy: Option<&Bound<'_, PyPolicy>>,
) -> PyResult<String> {
    bare_name(py, &registry_of(policy), text, "doi")
}

/// A handle without its prefix, as idutils' ``normalize_handle`` returns it, from any
/// spelling (read as :func:`normalize_doi` reads a DOI: ``hdl.handle.net/10013/x`` is a
/// resolver URL, the query and fragment of a URI form such as ``?noredirect`` are left out);
/// the naming authority upper-cased, the local name kept as it is, URI forms percent-decoded
/// once. A DOI is a handle too (and is case-folded as in :func:`normalize_doi`).
///
/// >>> normalize_handle("https://hdl.handle.net/10013%2Fepic.10033")
/// '10013/epic.10033'
///
/// :raises InvalidIdentifier: when ``text`` is not a valid handle.
#[pyfunction]
#[pyo3(signature = (text, policy = None))]
pub(crate) fn normalize_handle(
    py: Python<'_>,
    text: &str,
    policy: Option<&Bound<'_, PyPolicy>>,
) -> PyResult<String> {
    bare_name(py, &registry_of(policy), text, "handle")
}

/// idutils' ``normalize_pid``: :func:`normalize_doi` or :func:`normalize_handle` for those
/// schemes, the canonical IRI (:func:`canonicalize` with ``scheme``) for the others.
#[pyfunction]
#[pyo3(signature = (text, scheme, policy = None))]
pub(crate) fn normalize_pid<'py>(
    text: &Bound<'py, PyString>,
    scheme: &str,
    policy: Option<&Bound<'py, PyPolicy>>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = text.py();
    let registry = registry_of(policy);
    if matches!(scheme, "doi" | "handle") {
        let name = bare_name(py, &registry, &text.to_cow()?, scheme)?;
        return Ok(PyString::new(py, &name).into_any());
    }
    canonicalize_with(&registry, text, Some(scheme_named(scheme)?))
}

/// Whether ``text`` is a valid DOI in any spelling, bare included, read as
/// :func:`normalize_doi` reads it.
#[pyfunction]
#[pyo3(signature = (text, policy = None))]
pub(crate) fn is_doi(text: &str, policy: Option<&Bound<'_, PyPolicy>>) -> bool {
    as_pid(&registry_of(policy), text, "doi", DOI).is_ok()
}

/// Whether ``text`` is a valid handle (DOIs included) in any spelling, bare included, read as
/// :func:`normalize_handle` reads it; unlike idutils, a URL of another host is not a handle.
#[pyfunction]
#[pyo3(signature = (text, policy = None))]
pub(crate) fn is_handle(text: &str, policy: Option<&Bound<'_, PyPolicy>>) -> bool {
    as_pid(&registry_of(policy), text, "handle", HANDLE).is_ok()
}

/// For the graph helpers: ``({term: (canonical term, kind)}, {term: message})`` for the
/// terms of ``iri_type`` (rdflib's ``URIRef``) that a scheme claims and that change or are
/// invalid; the keys are the given objects, and a canonical term already among ``terms`` is
/// that object.
#[pyfunction]
#[pyo3(signature = (terms, iri_type, policy = None))]
pub(crate) fn _canonical_terms<'py>(
    terms: &Bound<'py, PyAny>,
    iri_type: &Bound<'py, PyType>,
    policy: Option<&Bound<'py, PyPolicy>>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let py = terms.py();
    let registry = registry_of(policy);
    let (objects, iris) = iris_of(terms, iri_type)?;
    let unmapped = IriMapping::new();
    let results = py.detach(|| {
        iris.iter()
            .map(|iri| unmapped.rewrite_iri(&registry, iri))
            .collect()
    });
    terms_dicts(iri_type, &objects, &iris, results)
}

/// The terms of `iri_type` among `terms`, and their IRIs (borrowed, to be read without the GIL).
pub(crate) fn iris_of<'py>(
    terms: &Bound<'py, PyAny>,
    iri_type: &Bound<'py, PyType>,
) -> PyResult<(Vec<Bound<'py, PyAny>>, Vec<PyBackedStr>)> {
    let mut objects = Vec::new();
    let mut iris = Vec::new();
    let iri_test = IriTest::new(iri_type);
    for term in terms.try_iter()? {
        let term = term?;
        if iri_test.is_iri(&term)? {
            iris.push(PyBackedStr::try_from(term.cast::<PyString>()?.clone())?);
            objects.push(term);
        }
    }
    Ok((objects, iris))
}

/// Whether terms are instances of `iri_type` (rdflib's `URIRef`), decided once per type: an
/// `isinstance` on rdflib's classes runs `ABCMeta.__instancecheck__` in Python.
pub(crate) struct IriTest<'py> {
    iri_type: Bound<'py, PyType>,
    /// The types met so far (held, so that no other type takes their address) and whether
    /// they are IRI types.
    known: RefCell<Vec<(Bound<'py, PyType>, bool)>>,
}

impl<'py> IriTest<'py> {
    pub(crate) fn new(iri_type: &Bound<'py, PyType>) -> Self {
        Self {
            iri_type: iri_type.clone(),
            known: RefCell::new(Vec::new()),
        }
    }

    /// Whether `term` is an instance of the IRI type.
    pub(crate) fn is_iri(&self, term: &Bound<'py, PyAny>) -> PyResult<bool> {
        let address = term.get_type_ptr().cast::<pyo3::ffi::PyObject>();
        if let Some((_, is_iri)) = self
            .known
            .borrow()
            .iter()
            .find(|(known, _)| known.as_ptr() == address)
        {
            return Ok(*is_iri);
        }
        let is_iri = term.is_instance(&self.iri_type)?;
        self.known.borrow_mut().push((term.get_type(), is_iri));
        Ok(is_iri)
    }
}

/// `_canonical_terms`'s dicts of the terms `objects` (whose IRIs are `iris`), from what each
/// IRI becomes (`IriMapping::rewrite_iri`).
pub(crate) fn terms_dicts<'py>(
    iri_type: &Bound<'py, PyType>,
    objects: &[Bound<'py, PyAny>],
    iris: &[PyBackedStr],
    results: Vec<Result<Option<(String, Kind)>, IdError>>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let py = iri_type.py();
    let existing: HashMap<&str, &Bound<'py, PyAny>> =
        iris.iter().map(|iri| &**iri).zip(objects).collect();
    let changed = PyDict::new(py);
    let invalid = PyDict::new(py);
    for (term, result) in objects.iter().zip(results) {
        match result {
            Ok(Some((canonical, kind))) => {
                let new = match existing.get(canonical.as_str()) {
                    Some(&same) => same.clone(),
                    None => iri_type.call1((canonical,))?,
                };
                changed.set_item(term, (new, kind.as_str()))?;
            }
            Err(error) => invalid.set_item(term, error.to_string())?,
            Ok(None) => {}
        }
    }
    Ok((changed, invalid))
}

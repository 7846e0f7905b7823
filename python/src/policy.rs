//! `pidcanon.Policy` (the TOML keys as keyword arguments) and `pidcanon.Registry` (the adapters
//! a policy configures).

use crate::errors::value_error;
use pidcanon::{DoiForm, HandleForm, PoiOai, Policy, Registry};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

/// The registry of the default policy, shared by every call that gives none.
static DEFAULT: LazyLock<Arc<Registry>> = LazyLock::new(|| Arc::new(Registry::default()));

/// Every choice a user can make about canonical forms; the keyword arguments are the keys of a
/// TOML policy file (``pidcanon --policy FILE``).
///
/// >>> Policy(handle_form="https")
/// Policy(poi_oai='keep', fedora_bases=[], handle_resolvers=[], handle_form='https', doi_form='https')
///
/// :param poi_oai: ``"keep"`` POIs and OAI identifiers apart, or merge them onto ``"poi"`` or ``"oai"``.
/// :param fedora_bases: Fedora base URLs whose REST and API-A-Lite URLs become ``info:fedora/`` URIs.
/// :param handle_resolvers: handle resolver URL prefixes besides ``hdl.handle.net`` and ``doi.org``.
/// :param handle_form: ``"hdl"`` (``hdl:NA/local``) or ``"https"`` (``https://hdl.handle.net/NA/local``).
/// :param doi_form: ``"https"`` (``https://doi.org/10.x/y``) or ``"hdl"`` (``hdl:10.x/y``).
/// :raises ValueError: for an unknown choice or a base or resolver that is not an http(s) URL.
#[pyclass(frozen, module = "pidcanon", name = "Policy")]
pub(crate) struct PyPolicy {
    pub(crate) policy: Policy,
    pub(crate) registry: Arc<Registry>,
}

impl PyPolicy {
    fn checked(policy: Policy) -> PyResult<Self> {
        let registry = Registry::from_policy(&policy).map_err(value_error)?;
        Ok(Self {
            policy,
            registry: Arc::new(registry),
        })
    }
}

#[pymethods]
impl PyPolicy {
    #[new]
    #[pyo3(signature = (*, poi_oai = "keep", fedora_bases = Vec::new(), handle_resolvers = Vec::new(), handle_form = "hdl", doi_form = "https"))]
    // Written out: the generated one shows the `Vec::new()` defaults as `...` (`Ellipsis` in help()).
    #[pyo3(
        text_signature = "(*, poi_oai='keep', fedora_bases=(), handle_resolvers=(), handle_form='hdl', doi_form='https')"
    )]
    fn new(
        poi_oai: &str,
        fedora_bases: Vec<String>,
        handle_resolvers: Vec<String>,
        handle_form: &str,
        doi_form: &str,
    ) -> PyResult<Self> {
        let mut policy = Policy::default();
        policy.poi_oai = match poi_oai {
            "keep" => PoiOai::Keep,
            "poi" => PoiOai::Poi,
            "oai" => PoiOai::Oai,
            other => return Err(bad_choice("poi_oai", other, "'keep', 'poi' or 'oai'")),
        };
        policy.handle_form = match handle_form {
            "hdl" => HandleForm::Hdl,
            "https" => HandleForm::Https,
            other => return Err(bad_choice("handle_form", other, "'hdl' or 'https'")),
        };
        policy.doi_form = match doi_form {
            "https" => DoiForm::Https,
            "hdl" => DoiForm::Hdl,
            other => return Err(bad_choice("doi_form", other, "'https' or 'hdl'")),
        };
        policy.fedora_bases = fedora_bases;
        policy.handle_resolvers = handle_resolvers;
        Self::checked(policy)
    }

    /// A policy from the text of a TOML policy file.
    ///
    /// :raises ValueError: for invalid TOML, an unknown key or value, a bad URL.
    #[staticmethod]
    fn from_toml(text: &str) -> PyResult<Self> {
        Self::checked(Policy::from_toml(text).map_err(value_error)?)
    }

    /// A policy from a TOML policy file.
    ///
    /// :raises OSError: when the file cannot be read.
    /// :raises ValueError: for invalid TOML, an unknown key or value, a bad URL.
    #[staticmethod]
    fn from_file(path: PathBuf) -> PyResult<Self> {
        let policy = Policy::from_file(&path).map_err(|e| match e {
            pidcanon::PolicyError::Io { ref source, .. } => {
                PyErr::from(std::io::Error::new(source.kind(), e.to_string()))
            }
            e => value_error(e),
        })?;
        Self::checked(policy)
    }

    /// ``"keep"``, ``"poi"`` or ``"oai"``.
    #[getter]
    fn poi_oai(&self) -> &'static str {
        match self.policy.poi_oai {
            PoiOai::Keep => "keep",
            PoiOai::Poi => "poi",
            PoiOai::Oai => "oai",
        }
    }

    /// The Fedora base URLs.
    #[getter]
    fn fedora_bases<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.policy.fedora_bases)
    }

    /// The handle resolver URL prefixes besides ``hdl.handle.net`` and ``doi.org``.
    #[getter]
    fn handle_resolvers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.policy.handle_resolvers)
    }

    /// ``"hdl"`` or ``"https"``.
    #[getter]
    fn handle_form(&self) -> &'static str {
        match self.policy.handle_form {
            HandleForm::Hdl => "hdl",
            HandleForm::Https => "https",
        }
    }

    /// ``"https"`` or ``"hdl"``.
    #[getter]
    fn doi_form(&self) -> &'static str {
        match self.policy.doi_form {
            DoiForm::Https => "https",
            DoiForm::Hdl => "hdl",
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Policy(poi_oai={}, fedora_bases={}, handle_resolvers={}, handle_form={}, doi_form={})",
            py_repr(py, self.poi_oai())?,
            py_repr(py, &self.policy.fedora_bases)?,
            py_repr(py, &self.policy.handle_resolvers)?,
            py_repr(py, self.handle_form())?,
            py_repr(py, self.doi_form())?,
        ))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyPolicy>()
            .is_ok_and(|other| other.get().policy == self.policy)
    }

    fn __hash__(&self) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (
            self.poi_oai(),
            &self.policy.fedora_bases,
            &self.policy.handle_resolvers,
            self.handle_form(),
            self.doi_form(),
        )
            .hash(&mut hasher);
        hasher.finish()
    }
}

/// What Python's `repr()` gives for `value`.
pub(crate) fn py_repr<'py>(py: Python<'py>, value: impl IntoPyObject<'py>) -> PyResult<String> {
    let object = value.into_bound_py_any(py)?;
    Ok(object.repr()?.to_string())
}

fn bad_choice(key: &str, value: &str, allowed: &str) -> PyErr {
    value_error(format!("invalid {key} {value:?}: expected {allowed}"))
}

/// The registry of `policy`, or the default one.
pub(crate) fn registry_of(policy: Option<&Bound<'_, PyPolicy>>) -> Arc<Registry> {
    policy.map_or_else(|| Arc::clone(&DEFAULT), |p| Arc::clone(&p.get().registry))
}

/// The policy of an optional `policy` argument (the default when none).
pub(crate) fn policy_of(policy: Option<&Bound<'_, PyPolicy>>) -> Policy {
    policy.map_or_else(Policy::default, |p| p.get().policy.clone())
}

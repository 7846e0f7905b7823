//! `pidcanon._pidcanon`: the Python binding of the pidcanon library. The Python package
//! `pidcanon` re-exports it and adds the rdflib and pyoxigraph helpers.

mod equivalence;
mod errors;
mod identifiers;
mod policy;
mod rewrite;
mod streams;

use pyo3::prelude::*;

#[pymodule]
fn _pidcanon(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The binding crate's version (python/Cargo.toml, kept equal to the library's); maturin
    // writes the same one into the wheel's metadata. Set as an attribute, not added to
    // `__all__`.
    m.setattr("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<policy::PyPolicy>()?;
    m.add_class::<identifiers::PyRegistry>()?;
    m.add_class::<identifiers::PyCanonical>()?;
    m.add_class::<rewrite::PyReport>()?;
    m.add(
        "InvalidIdentifier",
        py.get_type::<errors::InvalidIdentifier>(),
    )?;
    m.add("RdfSyntaxError", py.get_type::<errors::RdfSyntaxError>())?;
    m.add_function(wrap_pyfunction!(identifiers::canonicalize, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::parse, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::canonicalize_many, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::detect_kind, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::normalize_doi, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::normalize_handle, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::normalize_pid, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::is_doi, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::is_handle, m)?)?;
    m.add_function(wrap_pyfunction!(identifiers::_canonical_terms, m)?)?;
    m.add_function(wrap_pyfunction!(equivalence::_mapped_terms, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite::rewrite, m)?)?;
    Ok(())
}

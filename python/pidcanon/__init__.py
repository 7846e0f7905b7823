"""Canonical persistent identifiers: Fedora PIDs and ``info:fedora/`` URIs, OAI identifiers,
POIs, Handles, DOIs and PDIs, each written one way, validated against its specification.

>>> import pidcanon
>>> pidcanon.canonicalize("http://dx.doi.org/10.1371/JOURNAL.PONE.0042793")
'https://doi.org/10.1371/journal.pone.0042793'
>>> pidcanon.parse("info:fedora/demo%3a1")
<Canonical iri='info:fedora/demo:1' kind='fedora-object' changed=True>
>>> pidcanon.canonicalize_many(["hdl://10013/x", "info:fedora/demo:a b"])
['hdl:10013/x', None]

``pidcanon.rewrite`` streams RDF files through the same rules as ``pidcanon rewrite``;
``pidcanon.rdflib`` and ``pidcanon.oxigraph`` canonicalize rdflib graphs and pyoxigraph stores.
``pidcanon.__version__`` is the version of the Rust crates the package is built from.
"""

from pidcanon._pidcanon import (
    Canonical,
    InvalidIdentifier,
    Policy,
    RdfSyntaxError,
    Registry,
    Report,
    canonicalize,
    canonicalize_many,
    detect_kind,
    is_doi,
    is_handle,
    normalize_doi,
    normalize_handle,
    normalize_pid,
    parse,
    rewrite,
)
from pidcanon._pidcanon import __version__ as __version__

__all__ = [
    "Canonical",
    "InvalidIdentifier",
    "Policy",
    "RdfSyntaxError",
    "Registry",
    "Report",
    "canonicalize",
    "canonicalize_many",
    "detect_kind",
    "is_doi",
    "is_handle",
    "normalize_doi",
    "normalize_handle",
    "normalize_pid",
    "parse",
    "rewrite",
]

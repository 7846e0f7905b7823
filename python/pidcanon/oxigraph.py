"""Canonical identifiers in a pyoxigraph ``Store``.

>>> import pyoxigraph, pidcanon.oxigraph
>>> store = pyoxigraph.Store()
>>> store.add(pyoxigraph.Quad(pyoxigraph.NamedNode("info:fedora/demo%3a1"),
...     pyoxigraph.NamedNode("http://purl.org/dc/terms/relation"),
...     pyoxigraph.NamedNode("doi:10.1000/ABC")))
>>> store, report = pidcanon.oxigraph.canonicalize_store(store)
>>> sorted(str(q.object) for q in store)
['<https://doi.org/10.1000/abc>']

The store is dumped as N-Quads into a temporary directory, rewritten there by the same code as
``pidcanon rewrite``, and loaded back with ``bulk_extend``: every IRI is canonicalized (graph names
and RDF 1.2 triple terms included), literals and blank nodes are kept as they are. A store with
nothing to change is not touched (with ``collapse`` or ``rename``, it is always reloaded).
"""

from __future__ import annotations

import os
import tempfile
from typing import Optional, Sequence, Tuple, Union

from pyoxigraph import NamedNode, RdfFormat, Store, parse

from pidcanon._pidcanon import Policy, Report, canonicalize_many, rewrite

__all__ = ["canonicalize_store"]

_Path = Union[str, "os.PathLike[str]"]


def canonicalize_store(
    store: Store,
    inplace: bool = True,
    *,
    policy: Optional[Policy] = None,
    collapse: bool = False,
    equivalence_predicates: Optional[Sequence[str]] = None,
    max_class: int = 1000,
    allow_large_classes: bool = False,
    drop_reflexive: bool = False,
    equivalences: Optional[Sequence[_Path]] = None,
    rename: Optional[_Path] = None,
) -> Tuple[Store, Report]:
    """Canonicalizes every IRI of ``store``.

    With ``inplace=True`` (the default) the store itself is updated in bulk and returned; with
    ``inplace=False`` a new in-memory store receives the result and ``store`` is left as it was.
    The report counts the quads before (``statements_read``) and after (``statements_written``),
    the IRI occurrences rewritten per kind, the invalid identifiers left unchanged (each is also
    logged on the ``pidcanon`` logger) and the quads that became duplicates of others
    (``duplicates_dropped``: of the quads the rewrite wrote, links included).

    ``collapse``, ``equivalence_predicates``, ``max_class``, ``allow_large_classes``,
    ``drop_reflexive``, ``equivalences`` and ``rename`` are :func:`pidcanon.rewrite`'s, applied
    to the store's quads (the classes gathered from its own ``owl:sameAs`` statements); the
    names of empty named graphs, which are not quads, are only canonicalized.

    :raises TypeError: when ``store`` is not a ``pyoxigraph.Store``.
    :raises ValueError: for classes larger than ``max_class`` (the store is left as it is), a
        ``rename`` or ``equivalences`` file with bad lines.
    """
    if not isinstance(store, Store):
        raise TypeError(
            f"canonicalize_store: argument 'store' must be a pyoxigraph Store, not {type(store).__qualname__}"
        )
    mapping = dict(
        collapse=collapse,
        equivalence_predicates=equivalence_predicates,
        max_class=max_class,
        allow_large_classes=allow_large_classes,
        drop_reflexive=drop_reflexive,
        equivalences=equivalences,
        rename=rename,
    )
    # A collapse may change statements without rewriting an IRI (a reflexive one dropped).
    mapped = collapse or rename is not None
    named_graphs = [g for g in store.named_graphs() if isinstance(g, NamedNode)]
    with tempfile.TemporaryDirectory(prefix="pidcanon-") as directory:
        dumped = os.path.join(directory, "store.nq")
        rewritten = os.path.join(directory, "canonical.nq")
        store.dump(dumped, format=RdfFormat.N_QUADS)
        report = rewrite(dumped, rewritten, format="nq", to="nq", policy=policy, **mapping)
        changed = mapped or report.rewritten_total > 0
        target = store if inplace else Store()
        if inplace and changed:
            store.clear()
        if not inplace or changed:
            # Not `bulk_load`, which would rename the blank nodes.
            quads = parse(path=rewritten, format=RdfFormat.N_QUADS, rename_blank_nodes=False)
            target.bulk_extend(quads)
    # Empty named graphs are not in the dump: they are kept, under their canonical names.
    names = canonicalize_many([g.value for g in named_graphs], policy=policy)
    for graph, name in zip(named_graphs, names):
        target.add_graph(NamedNode(name) if name is not None else graph)
    written = len(target)
    return target, Report(
        statements_read=report.statements_read,
        statements_written=written,
        rewritten=report.rewritten,
        invalid_identifiers=report.invalid_identifiers,
        duplicates_dropped=report.statements_written - written,
        bytes_read=report.bytes_read,
    )

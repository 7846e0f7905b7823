"""Canonical identifiers in rdflib graphs: ``canonicalize_graph``.

>>> from rdflib import Graph, URIRef
>>> import pidcanon.rdflib
>>> g = Graph()
>>> _ = g.add((URIRef("info:fedora/demo%3a1"), URIRef("http://purl.org/dc/terms/relation"),
...            URIRef("hdl://10013/EPIC.10033")))
>>> canonical, report = pidcanon.rdflib.canonicalize_graph(g)
>>> sorted(str(o) for o in canonical.objects())
['hdl:10013/EPIC.10033']
>>> report.rewritten
{'fedora-object': 1, 'handle': 1}

Only the statements that hold an IRI to rewrite are touched: the distinct IRIs of the graph are
canonicalized together in Rust, and only the statements holding the ones that change are
rewritten. A plain ``Graph`` alone in rdflib's default ``Memory`` store takes a fast path that
renames entries of the store's indices directly (``pidcanon._memory``); every other graph and
store goes through rdflib's API, removing those statements and adding them back rewritten. Literals (their datatypes included) and blank nodes are kept as they
are; the IRIs no adapter claims are not looked at.
"""

from __future__ import annotations

import gc
import logging
import warnings
from collections import Counter
from contextlib import contextmanager
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple, TypeVar

from rdflib import ConjunctiveGraph, Dataset, Graph, URIRef
from rdflib.term import Node

from pidcanon import _memory
from pidcanon._memory import MemoryGraph
from pidcanon._pidcanon import Policy, Report, _canonical_terms

__all__ = ["canonicalize_graph"]

G = TypeVar("G", bound=Graph)
# What ``_canonical_terms`` maps a changed IRI to: its canonical term and its kind.
Changed = Dict[URIRef, Tuple[URIRef, str]]

_LOGGER = logging.getLogger("pidcanon")


def canonicalize_graph(
    graph: G, inplace: bool = False, *, policy: Optional[Policy] = None
) -> Tuple[G, Report]:
    """Canonicalizes every IRI of an rdflib ``Graph``, ``ConjunctiveGraph`` or ``Dataset``.

    Returns ``(graph, report)``: a new graph of the same type (with the same identifier and
    namespace bindings), or with ``inplace=True`` the same graph changed in place. For the
    multi-graph types, graph names are canonicalized too. Invalid identifiers are left unchanged,
    counted in the report and logged on the ``pidcanon`` logger. As an rdflib graph is a set,
    statements that become equal merge: ``report.duplicates_dropped`` counts them.

    :raises TypeError: when ``graph`` is not an rdflib ``Graph`` (``ConjunctiveGraph`` and
        ``Dataset`` are ``Graph`` subclasses).
    """
    if not isinstance(graph, Graph):
        raise TypeError(
            f"canonicalize_graph: argument 'graph' must be an rdflib Graph, ConjunctiveGraph or Dataset, "
            f"not {type(graph).__qualname__}"
        )
    with _collector_paused():
        return _canonicalize(graph, inplace, policy)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused: rewriting allocates many small dicts and tuples,
    which would trigger collections that each walk every object of a large graph (reference
    counting still frees what is dropped). Restored as it was, even on error."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _canonicalize(graph: G, inplace: bool, policy: Optional[Policy]) -> Tuple[G, Report]:
    multi = isinstance(graph, ConjunctiveGraph)
    read = _count(graph, multi)
    fast = None if multi else MemoryGraph.of(graph)
    terms = fast.terms() if fast is not None else _distinct_iris(graph, multi)
    # Keyed by the graph's own term objects, which dict lookups match by identity.
    changed, invalid = _canonical_terms(terms, URIRef, policy)
    if fast is not None:
        target = graph if inplace else _memory.copy(graph)
        fast = MemoryGraph.of(target)
    else:
        target = graph if inplace else _copy(graph, multi)

    for iri, message in invalid.items():
        _LOGGER.warning("invalid identifier <%s> left unchanged: %s", iri, message)
    if fast is not None:
        rewritten, invalid_occurrences = _rewrite_memory(fast, changed, invalid)
    else:
        rewritten, invalid_occurrences = _rewrite(target, changed, invalid, multi)
    written = _count(target, multi)
    report = Report(
        statements_read=read,
        statements_written=written,
        rewritten=dict(rewritten),
        invalid_identifiers=invalid_occurrences,
        duplicates_dropped=read - written,
    )
    return target, report


def _rewrite_memory(fast: MemoryGraph, changed: Changed, invalid: Dict[URIRef, str]) -> Tuple[Counter, int]:
    """Rewrites the statements holding a changed IRI through the store's indices; returns the
    rewrites per kind and the occurrences of invalid identifiers (both counted per position
    from the indices, as the CLI counts them per statement)."""
    rewritten: Counter = Counter()
    for old, (_, kind) in changed.items():
        rewritten[kind] += fast.occurrences(old)
    invalid_occurrences = sum(map(fast.occurrences, invalid))
    mapping = {old: new for old, (new, _) in changed.items()}
    fast.replace(fast.statements_with(mapping), mapping)
    return rewritten, invalid_occurrences


def _rewrite(graph: Graph, changed: Changed, invalid: Dict[URIRef, str], multi: bool) -> Tuple[Counter, int]:
    """``_rewrite_memory`` through rdflib's API, for any graph and store."""
    rewritten: Counter = Counter()
    affected = _statements_with(graph, changed, multi)
    for statement in affected:
        for term in _iris_of(statement, multi):
            if term in changed:
                rewritten[changed[term][1]] += 1
    invalid_occurrences = sum(
        1
        for statement in _statements_with(graph, invalid, multi)
        for term in _iris_of(statement, multi)
        if term in invalid
    )
    _replace(graph, affected, {old: new for old, (new, _) in changed.items()}, multi)
    return rewritten, invalid_occurrences


def _count(graph: Graph, multi: bool) -> int:
    """Statements: quads for the multi-graph types, triples otherwise."""
    if multi:
        return sum(len(context) for context in _contexts(graph))
    return len(graph)


def _contexts(graph: Graph) -> Iterator[Graph]:
    """The graphs of a ``Dataset`` or ``ConjunctiveGraph``."""
    return graph.graphs() if isinstance(graph, Dataset) else graph.contexts()


def _name(context) -> Node:
    """A graph name: ``quads()`` gives graphs (ConjunctiveGraph) or their names (Dataset)."""
    return context.identifier if isinstance(context, Graph) else context


def _distinct_iris(graph: Graph, multi: bool) -> Set[Node]:
    """Every term of the graph (graph names included)."""
    terms: Set[Node] = set()
    if multi:
        for quad in graph.quads((None, None, None, None)):
            terms.update(quad[:3])
        terms.update(context.identifier for context in _contexts(graph))
    else:
        for triple in graph.triples((None, None, None)):
            terms.update(triple)
    return terms


def _copy(graph: G, multi: bool) -> G:
    """A new graph of the same type, identifier and namespace bindings, with the same statements."""
    if isinstance(graph, Dataset):
        copy = Dataset(default_union=graph.default_union)
        for context in _contexts(graph):
            copy.graph(context.identifier)
    elif multi:
        with warnings.catch_warnings():  # rdflib 7 deprecates ConjunctiveGraph: the caller knows
            warnings.simplefilter("ignore", DeprecationWarning)
            copy = type(graph)()
    else:
        copy = type(graph)(identifier=graph.identifier)
    for prefix, namespace in graph.namespaces():
        copy.bind(prefix, namespace, override=True, replace=True)
    if multi:
        copy.addN(
            (s, p, o, copy.get_context(context.identifier))
            for context in _contexts(graph)
            for s, p, o in context
        )
    else:
        copy += graph
    return copy  # type: ignore[return-value]


def _statements_with(graph: Graph, terms: Iterable[URIRef], multi: bool) -> Set[tuple]:
    """The statements holding any of ``terms``: triples, or ``(s, p, o, graph name)`` quads."""
    found: Set[tuple] = set()
    terms = set(terms)
    for term in terms:
        for pattern in ((term, None, None), (None, term, None), (None, None, term)):
            if multi:
                found.update((s, p, o, _name(c)) for s, p, o, c in graph.quads(pattern))
            else:
                found.update(graph.triples(pattern))
    if multi:
        for context in _contexts(graph):
            if context.identifier in terms:
                found.update((s, p, o, context.identifier) for s, p, o in context)
    return found


def _iris_of(statement: tuple, multi: bool) -> Iterator[Node]:
    """The terms of a statement that may be IRIs, the graph name included."""
    return iter(statement if multi else statement[:3])


def _replace(graph: Graph, statements: Set[tuple], mapping: Dict[URIRef, URIRef], multi: bool) -> None:
    """Removes ``statements`` and adds them back with their IRIs mapped."""
    if not statements:
        return
    new: List[tuple] = []
    renamed: Set[Node] = set()
    for statement in statements:
        graph.remove(statement)
        s, p, o = (mapping.get(t, t) for t in statement[:3])
        if multi:
            name = statement[3]
            if name in mapping:
                renamed.add(name)
            new.append((s, p, o, graph.get_context(mapping.get(name, name))))
        else:
            new.append((s, p, o, graph))
    if multi:
        graph.addN(new)
        for name in renamed:
            if isinstance(graph, Dataset):
                graph.remove_graph(name)
            else:
                graph.remove_context(graph.get_context(name))
    else:
        for s, p, o, _ in new:
            graph.add((s, p, o))

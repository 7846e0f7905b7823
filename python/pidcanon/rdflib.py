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
import os
import warnings
from collections import Counter
from contextlib import contextmanager
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, TypeVar, Union

from rdflib import ConjunctiveGraph, Dataset, Graph, URIRef
from rdflib.term import Node

from pidcanon import _memory
from pidcanon._memory import MemoryGraph
from pidcanon._pidcanon import Policy, Report, _canonical_terms, _mapped_terms

__all__ = ["canonicalize_graph"]

G = TypeVar("G", bound=Graph)
# What ``_canonical_terms`` maps a changed IRI to: its canonical term and its kind.
Changed = Dict[URIRef, Tuple[URIRef, str]]

_Path = Union[str, "os.PathLike[str]"]

_LOGGER = logging.getLogger("pidcanon")


def canonicalize_graph(
    graph: G,
    inplace: bool = False,
    *,
    policy: Optional[Policy] = None,
    collapse: bool = False,
    equivalence_predicates: Optional[Sequence[str]] = None,
    max_class: int = 1000,
    allow_large_classes: bool = False,
    drop_reflexive: bool = False,
    equivalences: Optional[Sequence[_Path]] = None,
    rename: Optional[_Path] = None,
) -> Tuple[G, Report]:
    """Canonicalizes every IRI of an rdflib ``Graph``, ``ConjunctiveGraph`` or ``Dataset``.

    Returns ``(graph, report)``: a new graph of the same type (with the same identifier and
    namespace bindings), or with ``inplace=True`` the same graph changed in place. For the
    multi-graph types, graph names are canonicalized too. Invalid identifiers are left unchanged,
    counted in the report and logged on the ``pidcanon`` logger. As an rdflib graph is a set,
    statements that become equal merge: ``report.duplicates_dropped`` counts them.

    ``collapse``, ``equivalence_predicates``, ``max_class``, ``allow_large_classes``,
    ``drop_reflexive``, ``equivalences`` and ``rename`` are :func:`pidcanon.rewrite`'s: the
    classes are gathered from the graph's own ``owl:sameAs`` statements (and those of
    ``equivalence_predicates``) and the ``equivalences`` files, and the result holds the
    statements ``pidcanon rewrite --collapse`` writes for the same statements: each IRI replaced
    by its class's representative, and each equivalence statement between members of one class
    replaced by the links ``<representative> owl:sameAs <member>``. ``duplicates_dropped``
    counts the statements that merged before the links were added.

    >>> from rdflib import Graph, URIRef
    >>> g = Graph()
    >>> _ = g.add((URIRef("info:fedora/demo:1"), URIRef("http://www.w3.org/2002/07/owl#sameAs"),
    ...            URIRef("hdl://10013/x")))
    >>> _ = g.add((URIRef("info:fedora/demo:1"), URIRef("http://purl.org/dc/terms/title"), URIRef("http://e/t")))
    >>> collapsed, _ = canonicalize_graph(g, collapse=True)
    >>> sorted((str(s), str(o)) for s, _, o in collapsed)
    [('hdl:10013/x', 'http://e/t'), ('hdl:10013/x', 'info:fedora/demo:1')]

    :raises TypeError: when ``graph`` is not an rdflib ``Graph`` (``ConjunctiveGraph`` and
        ``Dataset`` are ``Graph`` subclasses).
    :raises ValueError: for classes larger than ``max_class`` (the graph is left as it is), a
        ``rename`` or ``equivalences`` file with bad lines (``path:line: problem`` each).
    :raises OSError: when a ``rename`` or ``equivalences`` file cannot be read.
    """
    if not isinstance(graph, Graph):
        raise TypeError(
            f"canonicalize_graph: argument 'graph' must be an rdflib Graph, ConjunctiveGraph or Dataset, "
            f"not {type(graph).__qualname__}"
        )
    mapping = None
    if collapse or rename is not None or equivalences is not None:
        mapping = dict(
            rename=rename,
            collapse=collapse,
            equivalence_predicates=equivalence_predicates,
            equivalences=equivalences,
            max_class=max_class,
            allow_large_classes=allow_large_classes,
            drop_reflexive=drop_reflexive,
        )
    with _collector_paused():
        return _canonicalize(graph, inplace, policy, mapping)


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


def _canonicalize(
    graph: G, inplace: bool, policy: Optional[Policy], mapping: Optional[dict]
) -> Tuple[G, Report]:
    multi = isinstance(graph, ConjunctiveGraph)
    read = _count(graph, multi)
    fast = None if multi else MemoryGraph.of(graph)
    terms = fast.terms() if fast is not None else _distinct_iris(graph, multi)
    # Keyed by the graph's own term objects, which dict lookups match by identity.
    replaced: List[tuple] = []
    links: List[tuple] = []
    if mapping is None:
        changed, invalid = _canonical_terms(terms, URIRef, policy)
    else:
        changed, invalid, replaced, links = _mapped_terms(
            terms, lambda predicate: _statements_of(graph, predicate, multi), URIRef, policy, **mapping
        )
    if fast is not None:
        target = graph if inplace else _memory.copy(graph)
    else:
        target = graph if inplace else _copy(graph, multi)
    # The equivalence statements replaced by links go first: the IRIs of the rest are mapped,
    # then the links are added as they are.
    for statement in replaced:
        target.remove(statement)
    if fast is not None:
        fast = MemoryGraph.of(target)

    for iri, message in invalid.items():
        _LOGGER.warning("invalid identifier <%s> left unchanged: %s", iri, message)
    if fast is not None:
        rewritten, invalid_occurrences = _rewrite_memory(fast, changed, invalid)
    else:
        rewritten, invalid_occurrences = _rewrite(target, changed, invalid, multi)
    merged = read - len(replaced) - _count(target, multi)
    _add_links(target, links, {old: new for old, (new, _) in changed.items()}, multi)
    report = Report(
        statements_read=read,
        statements_written=_count(target, multi),
        rewritten={kind: n for kind, n in rewritten.items() if n},
        invalid_identifiers=invalid_occurrences,
        duplicates_dropped=merged,
    )
    return target, report


def _statements_of(graph: Graph, predicate: URIRef, multi: bool) -> Iterator[tuple]:
    """The statements of ``predicate``: triples, or ``(s, p, o, graph name)`` quads."""
    if multi:
        return ((s, p, o, _name(c)) for s, p, o, c in graph.quads((None, predicate, None, None)))
    return graph.triples((None, predicate, None))


def _add_links(graph: Graph, links: List[tuple], mapping: Dict[URIRef, URIRef], multi: bool) -> None:
    """Adds the links of the collapse, in their graphs (named as mapped)."""
    if multi:
        graph.addN((s, p, o, graph.get_context(mapping.get(name, name))) for s, p, o, name in links)
    else:
        for link in links:
            graph.add(link)


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

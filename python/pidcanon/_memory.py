"""A fast path of ``pidcanon.rdflib`` for the common case: a plain rdflib ``Graph`` alone in its
own ``Memory`` store (rdflib's default), whose indices it copies and changes directly.

rdflib's ``Graph.add`` and ``Graph.remove`` cost 20-50 µs a statement (events, context
bookkeeping); these dict operations cost about 1 µs. The path is taken only when the store's
state is exactly what ``Graph()`` builds (every triple in the graph's one context, no quoted
formulas, no event subscribers); any other graph goes through rdflib's public API, with the same
result (the tests run both paths over the same graphs).
"""

from __future__ import annotations

from itertools import repeat
from typing import Dict, Iterable, Optional, Set, Tuple

from rdflib import Graph, Literal
from rdflib.plugins.stores.memory import Memory
from rdflib.term import Node

Triple = Tuple[Node, Node, Node]
# One of the store's indices: spo[s][p][o], pos[p][o][s] or osp[o][s][p], each leaf 1.
Index = Dict[Node, Dict[Node, Dict[Node, int]]]
_INDICES = ("spo", "pos", "osp")


class MemoryGraph:
    """The indices of a plain Graph alone in its Memory store."""

    def __init__(self, graph: Graph, store: Memory, context: str) -> None:
        self.graph = graph
        self.indices = {name: getattr(store, f"_Memory__{name}") for name in _INDICES}
        triples = getattr(store, "_Memory__contextTriples")
        self.all = triples[None]
        self.in_context = triples[context]

    @staticmethod
    def of(graph: Graph) -> Optional["MemoryGraph"]:
        """The fast path's view of ``graph``, or ``None`` when it does not apply."""
        store = graph.store
        if type(graph) is not Graph or type(store) is not Memory:
            return None
        context = f"{type(graph.identifier).__name__}:{graph.identifier}"
        try:
            state = vars(store)
            triples = state["_Memory__contextTriples"]
            defaults = state["_Memory__defaultContexts"]
            alone = (
                not state["_Memory__tripleContexts"]
                and state["_Memory__all_contexts"] in (set(), {graph})
                and set(triples) <= {None, context}
                and defaults in (None, {context: False, None: False})
                and store.dispatcher.get_map() is None
                and len(triples[None]) == len(triples.get(context, ()))
            )
        except (KeyError, AttributeError, TypeError):
            return None
        if not alone or (triples[None] and context not in triples):
            return None
        if context not in triples:  # an empty graph
            return None
        return MemoryGraph(graph, store, context)

    def terms(self) -> Set[Node]:
        """Every subject, predicate and object."""
        found: Set[Node] = set()
        for index in self.indices.values():
            found.update(index)
        return found

    def statements_with(self, terms: Iterable[Node]) -> Tuple[Set[Triple], Set[Triple], Set[Triple]]:
        """The triples holding any of ``terms`` as subject, as predicate and as object (a triple
        with two of them is in two sets), from the indices; the tuples are built by ``zip`` in C,
        one index entry at a time."""
        spo, pos, osp = (self.indices[name] for name in _INDICES)
        by_subject: Set[Triple] = set()
        by_predicate: Set[Triple] = set()
        by_object: Set[Triple] = set()
        for term in terms:
            entry = spo.get(term)
            if entry:
                for p, objects in entry.items():
                    by_subject.update(zip(repeat(term), repeat(p), objects))
            entry = pos.get(term)
            if entry:
                for o, subjects in entry.items():
                    by_predicate.update(zip(subjects, repeat(term), repeat(o)))
            entry = osp.get(term)
            if entry:
                for s, predicates in entry.items():
                    by_object.update(zip(repeat(s), predicates, repeat(term)))
        return by_subject, by_predicate, by_object

    def occurrences(self, term: Node) -> int:
        """How many times ``term`` occurs as subject, predicate or object."""
        count = 0
        for name in _INDICES:
            entry = self.indices[name].get(term)
            if entry:
                count += sum(map(len, entry.values()))
        return count

    def replace(self, found: Tuple[Set[Triple], Set[Triple], Set[Triple]], mapping: Dict[Node, Node]) -> None:
        """Rewrites the triples of ``found`` (from ``statements_with(mapping)``) with their terms
        mapped, renaming index entries rather than removing and adding triples: the entry of a
        mapped term at an index's first level moves at once, and a triple with one mapped term
        has that key renamed in the other two indices (a second-level key carries all its
        third-level ones along). The few triples with two or more mapped terms are removed and
        added back. The two sets of triples are changed in bulk (``difference_update`` and
        ``update`` reuse the stored hashes: a ``Literal`` hashes in Python)."""
        by_subject, by_predicate, by_object = found
        spo, pos, osp = (self.indices[name] for name in _INDICES)
        several = (by_subject & by_predicate) | (by_subject & by_object) | (by_predicate & by_object)
        for s, p, o in several:
            _discard(spo, s, p, o)
            _discard(pos, p, o, s)
            _discard(osp, o, s, p)
        for index in (spo, pos, osp):
            for old, new in mapping.items():
                entry = index.pop(old, None)
                if entry is not None:
                    _merge(index, new, entry)
        get = mapping.get
        for s, p, o in by_subject - several:
            _rename_third(pos[p][o], s, get(s))
            _rename_second(osp[o], s, get(s))
        for s, p, o in by_predicate - several:
            _rename_second(spo[s], p, get(p))
            _rename_third(osp[o][s], p, get(p))
        for s, p, o in by_object - several:
            _rename_third(spo[s][p], o, get(o))
            _rename_second(pos[p], o, get(o))
        for s, p, o in several:
            s, p, o = get(s, s), get(p, p), get(o, o)
            _insert(spo, s, p, o)
            _insert(pos, p, o, s)
            _insert(osp, o, s, p)
        triples = by_subject | by_predicate | by_object
        self.all.difference_update(triples)
        self.in_context.difference_update(triples)
        new = {(get(s, s), get(p, p), o if type(o) is Literal else get(o, o)) for s, p, o in triples}
        self.all.update(new)
        self.in_context.update(new)


def _merge(index: Index, key: Node, entry: Dict[Node, Dict[Node, int]]) -> None:
    """Puts ``entry`` (a first-level entry taken out of ``index``) under ``key``, merged with what
    is already there."""
    existing = index.get(key)
    if existing is None:
        index[key] = entry
        return
    for second, thirds in entry.items():
        _put_second(existing, second, thirds)


def _rename_second(seconds: Dict[Node, Dict[Node, int]], old: Node, new: Node) -> None:
    """Moves ``seconds[old]`` to ``seconds[new]``; nothing if it was moved already (by another
    triple under the same key: its third-level keys came along)."""
    thirds = seconds.pop(old, None)
    if thirds is not None:
        _put_second(seconds, new, thirds)


def _put_second(seconds: Dict[Node, Dict[Node, int]], key: Node, thirds: Dict[Node, int]) -> None:
    """``seconds[key] = thirds``, merged with what is already there."""
    existing = seconds.get(key)
    if existing is None:
        seconds[key] = thirds
    else:
        existing.update(thirds)


def _rename_third(thirds: Dict[Node, int], old: Node, new: Node) -> None:
    """Renames the third-level key ``old`` to ``new``."""
    del thirds[old]
    thirds[new] = 1


def _discard(index: Index, a: Node, b: Node, c: Node) -> None:
    """Removes ``index[a][b][c]``, and the dicts left empty."""
    seconds = index[a]
    thirds = seconds[b]
    del thirds[c]
    if not thirds:
        del seconds[b]
        if not seconds:
            del index[a]


def _insert(index: Index, a: Node, b: Node, c: Node) -> None:
    """Adds ``index[a][b][c]``, creating the dicts on the way."""
    seconds = index.get(a)
    if seconds is None:
        index[a] = {b: {c: 1}}
        return
    thirds = seconds.get(b)
    if thirds is None:
        seconds[b] = {c: 1}
    else:
        thirds[c] = 1


def copy(graph: Graph) -> Graph:
    """A new Graph with the same identifier, bindings and triples, its store's indices copied
    directly (``MemoryGraph.of(graph)`` must apply)."""
    new = Graph(identifier=graph.identifier)
    for prefix, namespace in graph.namespaces():
        new.bind(prefix, namespace, override=True, replace=True)
    source, target = graph.store, new.store
    copy_leaves = dict.copy
    for name in _INDICES:
        index = getattr(source, f"_Memory__{name}")
        # The inner dicts are copied by zip and map in C: one Python step per first-level key.
        copied = {a: dict(zip(bs, map(copy_leaves, bs.values()))) for a, bs in index.items()}
        setattr(target, f"_Memory__{name}", copied)
    context = f"{type(new.identifier).__name__}:{new.identifier}"
    triples = getattr(source, "_Memory__contextTriples")[None]
    setattr(target, "_Memory__contextTriples", {None: set(triples), context: set(triples)})
    setattr(target, "_Memory__defaultContexts", {context: False, None: False})
    getattr(target, "_Memory__context_obj_map")[context] = new
    getattr(target, "_Memory__all_contexts").add(new)
    return new

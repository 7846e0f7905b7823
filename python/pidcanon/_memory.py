"""A fast path of ``pidcanon.rdflib`` for the common case: a plain rdflib ``Graph`` alone in its
own ``Memory`` store (rdflib's default), whose indices it copies and changes directly.

rdflib's ``Graph.add`` and ``Graph.remove`` cost 20-50 µs a statement (events, context
bookkeeping); these dict operations cost about 1 µs. The path is taken only when the store's
state is exactly what ``Graph()`` builds (every triple in the graph's one context, no quoted
formulas, no event subscribers); any other graph goes through rdflib's public API, with the same
result (the tests run both paths over the same graphs).
"""

from __future__ import annotations

from typing import Dict, Iterable, Optional, Set, Tuple

from rdflib import Graph
from rdflib.plugins.stores.memory import Memory
from rdflib.term import Node

Triple = Tuple[Node, Node, Node]
_INDICES = ("spo", "pos", "osp")
# Where each index puts the subject, predicate and object (spo: s, p, o; pos: p, o, s; osp: o, s, p).
_ORDER = {"spo": (0, 1, 2), "pos": (1, 2, 0), "osp": (2, 0, 1)}


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

    def statements_with(self, terms: Iterable[Node]) -> Set[Triple]:
        """The triples holding any of ``terms``, from the indices."""
        found: Set[Triple] = set()
        for term in terms:
            for name, order in _ORDER.items():
                first = self.indices[name].get(term)
                if not first:
                    continue
                for second, thirds in first.items():
                    for third in thirds:
                        triple = [None, None, None]
                        triple[order[0]], triple[order[1]], triple[order[2]] = term, second, third
                        found.add(tuple(triple))  # type: ignore[arg-type]
        return found

    def replace(self, triples: Iterable[Triple], mapping: Dict[Node, Node]) -> None:
        """Removes ``triples`` and adds them back with their terms mapped."""
        new = []
        for triple in triples:
            self._remove(triple)
            new.append(tuple(mapping.get(t, t) for t in triple))
        for triple in new:
            self._add(triple)  # type: ignore[arg-type]

    def _remove(self, triple: Triple) -> None:
        for name, order in _ORDER.items():
            a, b, c = (triple[i] for i in order)
            index = self.indices[name]
            seconds = index[a]
            thirds = seconds[b]
            del thirds[c]
            if not thirds:
                del seconds[b]
                if not seconds:
                    del index[a]
        self.all.discard(triple)
        self.in_context.discard(triple)

    def _add(self, triple: Triple) -> None:
        for name, order in _ORDER.items():
            a, b, c = (triple[i] for i in order)
            self.indices[name].setdefault(a, {}).setdefault(b, {})[c] = 1
        self.all.add(triple)
        self.in_context.add(triple)


def copy(graph: Graph) -> Graph:
    """A new Graph with the same identifier, bindings and triples, its store's indices copied
    directly (``MemoryGraph.of(graph)`` must apply)."""
    new = Graph(identifier=graph.identifier)
    for prefix, namespace in graph.namespaces():
        new.bind(prefix, namespace, override=True, replace=True)
    source, target = graph.store, new.store
    for name in _INDICES:
        index = getattr(source, f"_Memory__{name}")
        setattr(
            target, f"_Memory__{name}", {a: {b: dict(c) for b, c in bs.items()} for a, bs in index.items()}
        )
    context = f"{type(new.identifier).__name__}:{new.identifier}"
    triples = getattr(source, "_Memory__contextTriples")[None]
    setattr(target, "_Memory__contextTriples", {None: set(triples), context: set(triples)})
    setattr(target, "_Memory__defaultContexts", {context: False, None: False})
    getattr(target, "_Memory__context_obj_map")[context] = new
    getattr(target, "_Memory__all_contexts").add(new)
    return new

"""``pidcanon.rdflib.canonicalize_graph`` on the bundled examples and the real corpus: the
result is the graph the command line writes for the same statements, statement counts are kept
(less the statements that merged), blank nodes and literals are untouched."""

import json
import logging

import pytest
from conftest import (
    BASE,
    COLLAPSE_CASES,
    COLLAPSE_STATEMENTS,
    FIXTURES,
    RDFLIB_FORMATS,
    collapse_case,
    collapse_statements,
    real_files,
    require,
    run_cli,
)

rdflib = require("rdflib", "pip install rdflib (or pip install 'pidcanon[test]')")
from rdflib import BNode, ConjunctiveGraph, Dataset, Graph, Literal, URIRef  # noqa: E402
from rdflib.compare import isomorphic  # noqa: E402

import pidcanon  # noqa: E402
from pidcanon._memory import MemoryGraph  # noqa: E402
from pidcanon.rdflib import canonicalize_graph  # noqa: E402

REAL = real_files()
DCT = "http://purl.org/dc/terms/"


def load(f):
    multi = f.format in ("trig", "nquads")
    g = Dataset() if multi else Graph()
    g.parse(str(f.path), format=RDFLIB_FORMATS[f.format], publicID=BASE)
    return g


def contexts(g):
    return g.graphs() if isinstance(g, Dataset) else g.contexts()


def quad_set(d):
    """Quads with graph names: Dataset.quads gives names, ConjunctiveGraph.quads graphs."""
    return {
        (s, p, o, c.identifier if isinstance(c, Graph) else c)
        for s, p, o, c in d.quads((None, None, None, None))
    }


def count(g):
    return sum(len(c) for c in contexts(g)) if isinstance(g, ConjunctiveGraph) else len(g)


def quads(g):
    """The statements of a graph or dataset as N-Triples or N-Quads."""
    return g.serialize(format="nquads" if isinstance(g, ConjunctiveGraph) else "nt", encoding="utf-8")


def same_graph(a, b) -> bool:
    if isinstance(a, ConjunctiveGraph):

        def by_name(d):
            return {c.identifier: c for c in contexts(d) if len(c)}

        ga, gb = by_name(a), by_name(b)
        return ga.keys() == gb.keys() and all(
            isomorphic(ga[name], gb[name]) for name in ga if not isinstance(name, BNode)
        )
    return isomorphic(a, b)


@pytest.fixture(params=["fast", "generic"])
def path(request, monkeypatch):
    """Both ways through a plain Graph: the Memory store fast path, and rdflib's API."""
    if request.param == "generic":
        monkeypatch.setattr(MemoryGraph, "of", staticmethod(lambda graph: None))
    return request.param


@pytest.mark.parametrize("f", REAL, ids=[str(f.path.relative_to(FIXTURES)) for f in REAL])
def test_same_graph_as_the_cli(pidcanon_cli, f, path):
    g = load(f)
    before = count(g)
    original = quads(g)
    result, report = canonicalize_graph(g)
    assert result is not g and type(result) is type(g)
    assert quads(g) == original, "the input graph changed"
    fmt = "nq" if isinstance(g, ConjunctiveGraph) else "nt"
    cli = run_cli(pidcanon_cli, ["rewrite", "-q", "-i", fmt, "--report", "json"], original)
    assert cli.returncode == 0, cli.stderr.decode()
    expected = Dataset() if isinstance(g, ConjunctiveGraph) else Graph()
    expected.parse(data=cli.stdout, format="nquads" if fmt == "nq" else "nt")
    assert same_graph(result, expected)
    assert report.statements_read == before
    after = count(result)
    assert report.statements_written == after
    assert report.duplicates_dropped == before - after
    summary = json.loads(cli.stderr.decode().strip().splitlines()[-1])
    assert report.rewritten == summary["rewritten"]
    assert report.invalid_identifiers == summary["invalid_identifiers"]
    # In place: the same result, in the same object.
    same, again = canonicalize_graph(g, inplace=True)
    assert same is g and same_graph(g, expected) and again == report
    if MemoryGraph.of(g) is not None:  # the store's indices hold what its triple sets hold
        assert all(table == set(g) for table in index_triples(g))
        assert all(table == set(result) for table in index_triples(result))


def example_graph():
    g = Graph(identifier=URIRef("http://example.org/g"))
    g.bind("dct", DCT)
    node = BNode("keep-me")
    g.add((URIRef("info:fedora/demo%3a1"), URIRef(DCT + "relation"), URIRef("doi:10.1000/ABC")))
    g.add((URIRef("info:fedora/demo:1"), URIRef(DCT + "relation"), URIRef("https://doi.org/10.1000/abc")))
    g.add((URIRef("info:fedora/demo%3a1"), URIRef(DCT + "title"), Literal("doi:10.1000/ABC", lang="en")))
    g.add((node, URIRef(DCT + "identifier"), Literal("hdl://1/x", datatype=URIRef("hdl://1/DATATYPE"))))
    g.add((node, URIRef(DCT + "source"), URIRef("oai:wibble.org:ab%3ccd")))
    return g


def test_blank_nodes_literals_and_bindings_are_kept(caplog, path):
    g = example_graph()
    with caplog.at_level(logging.WARNING, logger="pidcanon"):
        result, report = canonicalize_graph(g)
    assert result.identifier == g.identifier
    assert ("dct", URIRef(DCT)) in set(result.namespaces())
    assert set(result) == {
        (URIRef("info:fedora/demo:1"), URIRef(DCT + "relation"), URIRef("https://doi.org/10.1000/abc")),
        (URIRef("info:fedora/demo:1"), URIRef(DCT + "title"), Literal("doi:10.1000/ABC", lang="en")),
        (
            BNode("keep-me"),
            URIRef(DCT + "identifier"),
            Literal("hdl://1/x", datatype=URIRef("hdl://1/DATATYPE")),
        ),
        (BNode("keep-me"), URIRef(DCT + "source"), URIRef("oai:wibble.org:ab%3ccd")),
    }
    assert report == pidcanon.Report(
        statements_read=5,
        statements_written=4,
        rewritten={"fedora-object": 2, "doi": 1},
        invalid_identifiers=1,
        duplicates_dropped=1,
    )
    assert caplog.messages == [
        "invalid identifier <oai:wibble.org:ab%3ccd> left unchanged: "
        "oai: escapes must use upper-case hex digits (%3C, not %3c) (byte 17)"
    ]


def test_policy_is_applied(path):
    g = Graph()
    g.add((URIRef("hdl:10013/x"), URIRef(DCT + "relation"), URIRef("doi:10.1000/ABC")))
    result, _ = canonicalize_graph(g, policy=pidcanon.Policy(handle_form="https", doi_form="hdl"))
    assert set(result) == {
        (URIRef("https://hdl.handle.net/10013/x"), URIRef(DCT + "relation"), URIRef("hdl:10.1000/abc"))
    }


@pytest.mark.parametrize("kind", [Dataset, ConjunctiveGraph])
def test_graph_names_are_canonicalized(kind):
    d = kind()
    s, p, o = URIRef("info:fedora/demo%3a1"), URIRef(DCT + "relation"), URIRef("hdl:10013/x")
    d.get_context(URIRef("info:fedora/demo%3a1/DC")).add((s, p, o))
    d.get_context(URIRef("http://example.org/g")).add((s, p, Literal("x")))
    result, report = canonicalize_graph(d)
    assert type(result) is kind
    found = quad_set(result)
    assert found == {
        (URIRef("info:fedora/demo:1"), p, o, URIRef("info:fedora/demo:1/DC")),
        (URIRef("info:fedora/demo:1"), p, Literal("x"), URIRef("http://example.org/g")),
    }
    assert report.rewritten == {"fedora-object": 2, "fedora-dissemination": 1}
    same, _ = canonicalize_graph(d, inplace=True)
    assert same is d
    assert quad_set(d) == found


def test_an_empty_and_a_canonical_graph_are_untouched(path):
    for g in (Graph(), Dataset()):
        result, report = canonicalize_graph(g)
        assert len(result) == 0 and report == pidcanon.Report()
    g = Graph()
    g.add((URIRef("info:fedora/demo:1"), URIRef(DCT + "relation"), URIRef("hdl:10013/x")))
    result, report = canonicalize_graph(g, inplace=True)
    assert result is g and report.rewritten_total == 0 and report.statements_written == 1


def test_the_fast_path_is_taken_only_for_a_plain_graph_alone_in_its_store():
    g = example_graph()
    assert MemoryGraph.of(g) is not None
    assert MemoryGraph.of(Graph()) is None  # empty: nothing to gain
    d = Dataset()
    d.graph(URIRef("http://example.org/g")).add((URIRef("http://a"), URIRef("http://b"), URIRef("http://c")))
    assert MemoryGraph.of(d) is None
    d.graph(URIRef("http://example.org/h")).add((URIRef("http://a"), URIRef("http://b"), URIRef("http://d")))
    shared = d.graph(URIRef("http://example.org/g"))  # a graph whose store holds another's triples
    assert MemoryGraph.of(shared) is None
    watched = example_graph()
    watched.store.dispatcher.subscribe(rdflib.events.Event, lambda event: None)
    assert MemoryGraph.of(watched) is None


def test_the_fast_path_keeps_the_store_consistent():
    """After the fast path, rdflib's own indices answer every pattern as a fresh graph would."""
    g = example_graph()
    result, _ = canonicalize_graph(g)
    fresh = Graph()
    for triple in result:
        fresh.add(triple)
    for s, p, o in list(fresh):
        for pattern in (
            (s, None, None),
            (None, p, None),
            (None, None, o),
            (s, p, None),
            (None, p, o),
            (s, None, o),
        ):
            assert set(result.triples(pattern)) == set(fresh.triples(pattern))
    assert len(result) == len(fresh)
    result.add((URIRef("http://x"), URIRef("http://y"), URIRef("http://z")))
    result.remove((None, URIRef(DCT + "title"), None))
    assert len(result) == len(fresh)
    assert set(example_graph()) != set(result)


def test_a_canonical_iri_already_in_the_graph_is_that_term_and_the_collector_is_restored():
    import gc

    g = Graph()
    canonical = URIRef("https://doi.org/10.1000/abc")
    g.add((URIRef("http://example.org/a"), URIRef(DCT + "relation"), canonical))
    g.add((URIRef("http://example.org/b"), URIRef(DCT + "relation"), URIRef("doi:10.1000/ABC")))
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            result, report = canonicalize_graph(g)
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
        assert report.rewritten == {"doi": 1}
        assert {o for o in result.objects()} == {canonical}
        # Both statements hold the graph's own object for the canonical IRI, not an equal copy.
        assert all(o is canonical for o in result.objects())
    with pytest.raises(TypeError):
        canonicalize_graph(g, policy="not a policy")
    assert gc.isenabled()


def index_triples(graph):
    """The triples each of the Memory store's three indices and two triple sets hold."""
    fast = MemoryGraph.of(graph)
    spo, pos, osp = (fast.indices[name] for name in ("spo", "pos", "osp"))
    return [
        {(s, p, o) for s, ps in spo.items() for p, os in ps.items() for o in os},
        {(s, p, o) for p, os in pos.items() for o, ss in os.items() for s in ss},
        {(s, p, o) for o, ss in osp.items() for s, ps in ss.items() for p in ps},
        set(fast.all),
        set(fast.in_context),
    ]


def test_fast_path_renames_every_position_and_merges(monkeypatch):
    """Variants of one IRI as subject, predicate and object, alone and together in a triple,
    under shared index entries and merging into triples already present: the fast path gives
    the graph rdflib's API gives, and leaves the store's indices and sets agreeing."""
    fedora = ["info:fedora/demo%3a1", "INFO:FEDORA/demo:1", "info:fedora/demo:1"]
    doi = ["doi:10.1000/ABC", "http://dx.doi.org/10.1000/abc", "https://doi.org/10.1000/abc"]
    predicate = ["hdl://10013/P", "hdl:10013/P"]
    g = Graph()
    for s in fedora:
        for o in doi:
            g.add((URIRef(s), URIRef(DCT + "relation"), URIRef(o)))
            g.add((URIRef(o), URIRef(DCT + "isReferencedBy"), URIRef(s)))
            for p in predicate:
                g.add((URIRef(s), URIRef(p), URIRef(o)))
        g.add((URIRef(s), URIRef(DCT + "title"), Literal("one", lang="en")))
        g.add((URIRef(s), URIRef(DCT + "title"), Literal("two")))
        g.add((BNode("b"), URIRef(DCT + "relation"), URIRef(s)))
        for p in predicate:
            g.add((BNode("b"), URIRef(p), Literal(p)))
    # One changed term, whose variants sit under one entry with different keys below: merged.
    for i, s in enumerate(fedora):
        g.add((URIRef(s), URIRef(DCT + f"p{i}"), Literal("same")))
    for i, o in enumerate(doi):
        g.add((BNode(f"n{i}"), URIRef(DCT + "references"), URIRef(o)))
    # Variants whose canonical form is not in the graph yet, one in each position.
    g.add((URIRef("info:fedora/other%3a2"), URIRef("hdl://10013/Q"), URIRef("hdl://10013/ONLY")))
    fast, fast_report = canonicalize_graph(g)
    monkeypatch.setattr(MemoryGraph, "of", staticmethod(lambda graph: None))
    generic, generic_report = canonicalize_graph(g)
    monkeypatch.undo()
    assert set(fast) == set(generic)
    assert fast_report == generic_report
    # F dct:relation D; D dct:isReferencedBy F; F hdl:10013/P D; two titles of F; _:b dct:relation
    # F and two literals under hdl:10013/P; F dct:p0, p1, p2 "same"; _:n0, n1, n2 dct:references D;
    # info:fedora/other:2 hdl:10013/Q hdl:10013/ONLY.
    assert len(fast) == 15
    assert (URIRef("info:fedora/other:2"), URIRef("hdl:10013/Q"), URIRef("hdl:10013/ONLY")) in set(fast)
    tables = index_triples(fast)
    assert all(table == set(generic) for table in tables)
    same, in_place_report = canonicalize_graph(g, inplace=True)
    assert same is g and set(g) == set(generic) and in_place_report == generic_report
    assert all(table == set(generic) for table in index_triples(g))


def collapse_graph(multi):
    g = Dataset() if multi else Graph()
    g.parse(data=collapse_statements(multi), format="nquads" if multi else "nt")
    return g


@pytest.mark.parametrize("case", COLLAPSE_CASES)
@pytest.mark.parametrize("multi", [False, True], ids=["graph", "dataset"])
def test_collapse_and_rename_give_the_cli_statements(pidcanon_cli, tmp_path, case, multi, path):
    flags, kwargs = collapse_case(case, tmp_path)
    g = collapse_graph(multi)
    original = quads(g)
    result, report = canonicalize_graph(g, **kwargs)
    assert quads(g) == original, "the input graph changed"
    fmt = "nq" if multi else "nt"
    cli = run_cli(pidcanon_cli, ["rewrite", "-q", "-i", fmt, *flags], original)
    assert cli.returncode == 0, cli.stderr.decode()
    expected = Dataset() if multi else Graph()
    expected.parse(data=cli.stdout, format="nquads" if multi else "nt")
    assert same_graph(result, expected), quads(result).decode()
    # Not the plain canonicalization: every case maps more.
    assert not same_graph(result, canonicalize_graph(g)[0])
    assert report.statements_read == count(g) == len(COLLAPSE_STATEMENTS)
    assert report.statements_written == count(result)
    same, again = canonicalize_graph(g, inplace=True, **kwargs)
    assert same is g and same_graph(g, expected) and again == report
    if MemoryGraph.of(g) is not None:
        assert all(table == set(g) for table in index_triples(g))


def test_collapse_refuses_a_large_class_and_changes_nothing(path):
    g = collapse_graph(False)
    before = set(g)
    with pytest.raises(
        ValueError,
        match=r"^1 equivalence classes larger than max_class=3 \(4 \(representative <https://doi.org/10.5555/r>\)\): "
        r"nothing changed; .* pass allow_large_classes=True$",
    ):
        canonicalize_graph(g, inplace=True, collapse=True, max_class=3)
    assert set(g) == before


@pytest.mark.parametrize("argument", ["rename", "equivalences"])
def test_a_bad_pairs_file_names_the_file_and_its_lines(tmp_path, argument):
    bad = tmp_path / "bad.tsv"
    bad.write_text(
        "http://e/a\thttp://e/b\nonly-one-column\nhttp://e/c\tinfo:fedora/no-colon\n", encoding="utf-8"
    )
    g = collapse_graph(False)
    before = set(g)
    with pytest.raises(ValueError) as raised:
        canonicalize_graph(
            g, inplace=True, collapse=True, **{argument: bad if argument == "rename" else [bad]}
        )
    lines = str(raised.value).splitlines()
    assert [line.split(": ")[0] for line in lines] == [f"{bad}:2", f"{bad}:3"]
    assert "expected two IRIs separated by a tab" in lines[0] and "<info:fedora/no-colon>" in lines[1]
    missing = tmp_path / "missing.tsv"
    with pytest.raises(FileNotFoundError, match=str(missing)):
        canonicalize_graph(
            g, inplace=True, collapse=True, **{argument: missing if argument == "rename" else [missing]}
        )
    assert set(g) == before
    with pytest.raises(ValueError, match="pass collapse=True"):
        canonicalize_graph(g, equivalences=[bad])


@pytest.mark.parametrize(
    "graph", [None, "not a graph", [(URIRef("http://a"), URIRef("http://b"), Literal("c"))]]
)
def test_a_graph_that_is_not_a_graph_is_a_type_error_naming_the_argument(graph):
    with pytest.raises(
        TypeError, match=r"canonicalize_graph: argument 'graph' must be an rdflib Graph.*, not "
    ):
        canonicalize_graph(graph)

"""--collapse --classes: the equivalence classes computed on the cluster (connected components by
iterative joins, each component's statements through the binary) are the driver's and the single
machine's; `auto` picks the path by the number of equivalence statements."""

import os
import random

import pytest

import pidcanon_spark
from conftest import BINARY, assert_collapse_is_the_single_machine_one, equivalence_sides, job, reference
from pidcanon_spark import connected_components

SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"
TITLE = "<http://purl.org/dc/terms/title>"


def union_find_components(edges):
    """{vertex: least vertex of its component}, by a plain union-find."""
    parent = {}

    def find(v):
        parent.setdefault(v, v)
        while parent[v] != v:
            v = parent[v]
        return v

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {v: find(v) for v in parent}


GRAPHS = {
    "chain": [(i, i + 1) for i in range(40)],
    "chain backwards": [(i + 1, i) for i in range(40)],
    "star": [(0, i) for i in range(1, 30)],
    "star around its largest vertex": [(i, 99) for i in range(30)],
    "two components": [(1, 2), (2, 3), (10, 11), (12, 11), (3, 4)],
    "self loop": [(5, 5), (6, 7), (7, 7)],
    "duplicate edges": [(1, 2), (2, 1), (1, 2), (3, 2), (3, 2)],
    "random forest": random.Random(3).sample([(random.Random(i).randrange(200), i) for i in range(200)], 200),
}


def test_components_are_those_of_a_union_find(spark):
    # One run over all the graphs side by side (their vertices numbered apart), each checked.
    edges = [(a + 1000 * n, b + 1000 * n) for n, graph in enumerate(GRAPHS.values()) for a, b in graph]
    labels, rounds = connected_components(spark.sparkContext.parallelize(edges, 3))
    labels = dict(labels.collect())
    for n, (name, graph) in enumerate(GRAPHS.items()):
        mine = {v - 1000 * n: label - 1000 * n for v, label in labels.items() if v // 1000 == n}
        assert mine == union_find_components(graph), name
    assert rounds >= 2  # the chains need several


def test_components_that_do_not_converge_in_the_rounds_allowed_fail_clearly(spark):
    chain = spark.sparkContext.parallelize([(i, i + 1) for i in range(64)], 2)
    with pytest.raises(pidcanon_spark.RewriteFailed) as failed:
        connected_components(chain, max_rounds=1)
    assert "did not converge in 1 rounds" in failed.value.message


def handle(n, spelling):
    return [f"<hdl://10013/chain-{n}>", f"<http://hdl.handle.net/10013/chain-{n}>"][spelling]


def chain_node(n, spelling):
    """Node n of the long chain in one of two spellings; node 150 is a DOI, the rest handles."""
    if n == 150:
        return ["<doi:10.1000/CHAIN-150>", "<https://dx.doi.org/10.1000/chain-150>"][spelling]
    return handle(n, spelling)


@pytest.fixture(scope="module")
def chains(tmp_path_factory):
    """A chain of 300 IRIs (each link names its two ends in different spellings, so the chain
    holds only after canonicalization), a chain of 40 Fedora objects, 10 pairs of plain IRIs and
    a statement about every member, shuffled, in three N-Triples files. Returns (the
    concatenation in file order, the directory)."""
    rnd = random.Random(5)
    links = [(chain_node(i, 0), chain_node(i + 1, 1)) for i in range(299)]
    links += [(f"<info:fedora/demo%3aB{i}>", f"<info:fedora/demo:B{i + 1}>") for i in range(39)]
    links += [(f"<http://example.org/p{i}>", f"<http://example.org/q{i}>") for i in range(10)]
    lines = [f"{a} {SAME_AS} {b} .\n" if rnd.random() < 0.5 else f"{b} {SAME_AS} {a} .\n" for a, b in links]
    lines += [f'{chain_node(i, i % 2)} {TITLE} "object {i}" .\n' for i in range(300)]
    rnd.shuffle(lines)
    directory = tmp_path_factory.mktemp("chains")
    third = len(lines) // 3
    for name, part in (("a.nt", lines[:third]), ("b.nt", lines[third : 2 * third]), ("c.nt", lines[2 * third :])):
        (directory / name).write_text("".join(part))
    return "".join(lines).encode(), directory


def leftover_tables(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("_pidcanon-classes-"))


def test_a_long_chain_across_files_is_one_class_with_the_binarys_representative(spark, chains, tmp_path, monkeypatch):
    data, directory = chains
    shipped = []
    compute = pidcanon_spark.classes_on_cluster

    def watched(sc, options, lines, files, threads, table_dir):
        result = compute(sc, options, lines, files, threads, table_dir)
        shipped.extend(os.listdir(table_dir.removeprefix("file:")))
        return result

    monkeypatch.setattr(pidcanon_spark, "classes_on_cluster", watched)
    lines, summary = job(spark, tmp_path, directory, "--min-partitions", "6", "--collapse", "--classes", "cluster")
    assert_collapse_is_the_single_machine_one(lines, summary, "-i", "nt", "--collapse", "-", stdin=data)
    classes = summary.as_json()["classes"]
    assert classes["computed_on"] == "cluster" and classes["rounds"] >= 2
    subjects = {line.split(" ")[0] for line in lines if SAME_AS in line}
    representatives = {"<https://doi.org/10.1000/chain-150>", "<info:fedora/demo:B0>", *(f"<http://example.org/p{i}>" for i in range(10))}
    assert subjects == representatives
    # Every member is linked from its representative, once: 299 + 39 + 10 of them.
    members = equivalence_sides(reference("-i", "nt", "-", stdin=data)[0])
    objects = [line.split(" ")[2] for line in lines if SAME_AS in line]
    assert len(members) == 300 + 40 + 20
    assert sorted(objects) == sorted(members - representatives)
    titled = {line.split(" ")[0] for line in lines if TITLE in line}
    assert titled == {"<https://doi.org/10.1000/chain-150>"}
    assert "_SUCCESS" in shipped and any(name.startswith("part-") for name in shipped)
    assert leftover_tables(tmp_path) == []


def test_a_class_over_max_class_on_the_cluster_fails_before_any_output_and_leaves_no_table(spark, chains, tmp_path):
    _, directory = chains
    options = pidcanon_spark.parse_args([str(directory), "--output", str(tmp_path / "out"), "--binary", BINARY, "-q", "--collapse", "--classes", "cluster", "--max-class", "100"])
    with pytest.raises(pidcanon_spark.RewriteFailed) as failed:
        pidcanon_spark.run(spark, options)
    assert failed.value.status == 2
    message = failed.value.message
    assert "a class of 300 identifiers (over --max-class 100), representative <https://doi.org/10.1000/chain-150>" in message
    assert "1 equivalence class larger than --max-class 100: nothing written" in message
    assert "(the equivalence statements of class group " in message and "<stdin>" not in message
    assert not (tmp_path / "out").exists()
    assert leftover_tables(tmp_path) == []


def test_auto_takes_the_driver_up_to_the_limit_and_the_cluster_above(spark, chains, tmp_path):
    data, directory = chains
    statements = data.decode().count(SAME_AS)
    choices = {}
    for limit in (None, statements, statements - 1):
        extra = [] if limit is None else ["--driver-max-equivalences", str(limit)]
        (tmp_path / str(limit)).mkdir()
        lines, summary = job(spark, tmp_path / str(limit), directory, "--collapse", *extra)
        choices[limit] = summary.as_json()["classes"]
        assert_collapse_is_the_single_machine_one(lines, summary, "-i", "nt", "--collapse", "-", stdin=data)
    assert [c["computed_on"] for c in choices.values()] == ["driver", "driver", "cluster"]
    assert all(c["equivalence_statements"] == statements for c in choices.values())
    assert f"over --driver-max-equivalences {statements - 1}" in choices[statements - 1]["why"]
    assert leftover_tables(tmp_path / str(statements - 1)) == []


def test_classes_options_need_collapse():
    for extra in (["--classes", "cluster"], ["--driver-max-equivalences", "5"]):
        with pytest.raises(SystemExit):
            pidcanon_spark.parse_args(["in.nt", "--output", "out", *extra])

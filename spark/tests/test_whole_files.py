"""Turtle, TriG and RDF/XML files go whole, one file per pidcanon process."""

import gzip
import re
import subprocess
import sys

from conftest import GEN_CORPUS, copy_example, job, reference


def masked(lines):
    """Lines with blank node labels replaced: pidcanon labels Turtle's [] afresh on each run."""
    return sorted(re.sub(r"_:[A-Za-z0-9]+", "_:b", l) for l in lines)


def test_turtle_and_ntriples_examples_together(spark, tmp_path):
    ttl = copy_example("repository.ttl", tmp_path)
    nt = copy_example("repository.nt", tmp_path)
    lines, summary = job(spark, tmp_path, ttl, nt, "--dedup")
    from_ttl, r1 = reference("--to", "nt", ttl)
    from_nt, r2 = reference(nt)
    expected, _ = reference("--dedup", "-i", "nt", "-", stdin="\n".join(from_ttl + from_nt).encode() + b"\n")
    assert sorted(lines) == sorted(expected)
    assert summary.as_json()["statements_read"] == r1["statements_read"] + r2["statements_read"] == 28
    assert summary.as_json()["duplicates_dropped"] == 28 - len(expected)


def test_generated_turtle_compressed_and_plain(spark, tmp_path):
    a, b = tmp_path / "a.ttl", tmp_path / "b.ttl"
    for path, seed in ((a, 3), (b, 4)):
        subprocess.run([sys.executable, GEN_CORPUS, "--triples", "3000", "--seed", str(seed), "--format", "ttl", "-o", str(path)], check=True)
    (tmp_path / "b.ttl.gz").write_bytes(gzip.compress(b.read_bytes()))
    b.unlink()
    lines, summary = job(spark, tmp_path, a, tmp_path / "b.ttl.gz", "--to", "nt")
    expected_a, ra = reference("--to", "nt", a)
    expected_b, rb = reference("--to", "nt", "-i", "ttl", "-", stdin=gzip.decompress((tmp_path / "b.ttl.gz").read_bytes()))
    assert masked(lines) == masked(expected_a + expected_b)
    assert summary.as_json()["rewritten_total"] == ra["rewritten_total"] + rb["rewritten_total"]

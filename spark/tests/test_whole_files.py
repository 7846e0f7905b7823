"""Turtle, TriG and RDF/XML files go whole, one file per pidcanon process."""

import gzip
import re
import subprocess
import sys

from conftest import GEN_CORPUS, copy_example, job, reference


def masked(lines):
    """Lines with blank node labels replaced: the labels of Turtle's [] derive from the
    document's base, which differs between a file read whole and the same bytes on stdin."""
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


def test_made_up_blank_nodes_are_each_files_own_and_the_same_on_every_run(spark, tmp_path):
    text = "@prefix ex: <http://e/> .\nex:a ex:p [ ex:q ( ex:r ) ] .\n"
    for name in ("a.ttl", "b.ttl"):
        (tmp_path / name).write_text(text)
    labels = lambda lines: {m for l in lines for m in re.findall(r"_:[A-Za-z0-9]+", l)}  # noqa: E731
    lines, _ = job(spark, tmp_path, tmp_path / "a.ttl", tmp_path / "b.ttl", "--to", "nt")
    assert len(labels(lines)) == 4, lines
    # Each file as the binary rewrites it alone: its own URL is its base.
    alone, _ = reference("--to", "nt", tmp_path / "a.ttl")
    assert labels(alone) <= labels(lines)
    (tmp_path / "out").rename(tmp_path / "first")
    again, _ = job(spark, tmp_path, tmp_path / "a.ttl", tmp_path / "b.ttl", "--to", "nt")
    assert sorted(again) == sorted(lines)

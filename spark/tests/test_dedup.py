"""--dedup: the processes write each statement's fingerprint before its line (`pidcanon rewrite
--fingerprints`), Spark shuffles on it and keeps each statement's first line in the input's
order — the output `pidcanon rewrite --dedup` of all the inputs writes, in another order."""

import gzip
import os

import pytest

import pidcanon_spark
from conftest import BINARY, job, read_parts, reference, reference_collapse
from pidcanon_spark import LINKS_WRITTEN

XSD_STRING = "<http://www.w3.org/2001/XMLSchema#string>"

# One file's lines: statements spelled several ways, a blank node, a comment, a blank line.
FIRST = [
    "# a comment, kept",
    '<info:fedora/demo%3a1> <http://p> "Caf\\u00E9" .',
    f'<http://s> <http://p> "x"^^{XSD_STRING} .',
    '<http://s> <http://p> "y"@EN .',
    "_:b1 <http://p> <http://o> .",
    "",
    '<http://s> <http://p> "z" .',
]
# Another file: the same statements in other spellings, and the same blank node label (another
# node: it is another document).
SECOND = [
    '<info:fedora/demo:1> <http://p> "Café" .',
    '<http://s> <http://p> "x" .',
    '<http://s> <http://p> "y"@en .',
    '<http://s> <http://p> "y"@en-GB .',
    "_:b1 <http://p> <http://o> .",
    '<http://s>   <http://p> "z" . # again',
]


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_spellings_of_one_statement_in_two_files_are_one_and_blank_nodes_stay_apart(spark, tmp_path):
    a, b = write(tmp_path / "a.nt", FIRST), write(tmp_path / "b.nt", SECOND)
    lines, summary = job(spark, tmp_path, a, b, "--dedup", "--map", tmp_path / "map")
    expected, report = reference("--dedup", a, b)
    assert sorted(lines) == sorted(line for line in expected if line.strip())
    # The first file's spellings (the first in the input's order), rewritten; both _:b1.
    assert '<info:fedora/demo:1> <http://p> "Caf\\u00E9" .' in lines
    assert f'<http://s> <http://p> "x"^^{XSD_STRING} .' in lines
    assert '<http://s> <http://p> "y"@EN .' in lines and '<http://s> <http://p> "y"@en-GB .' in lines
    assert sum(line.startswith("_:") for line in lines) == 2
    assert "# a comment, kept" in lines
    assert report["duplicates_dropped"] == summary.as_json()["duplicates_dropped"] == 4
    assert summary.as_json()["statements_written"] == report["statements_written"] == 7
    assert read_parts(tmp_path / "map") == ["info:fedora/demo%3a1\tinfo:fedora/demo:1\tfedora-object"]


def test_one_statement_in_two_partitions_of_one_file_keeps_the_first_line(spark, tmp_path):
    # 20 000 lines: the same statement, spelled two ways in turn (the escaped one first), and
    # a blank node statement (one document: one node), split into 4 partitions, written gzip.
    lines = []
    for n in range(10000):
        lines += ['<http://s> <http://p> "a" .' if n % 2 else '<http://s> <http://p> "\\u0061" .', "_:x <http://p> <http://o> ."]
    path = write(tmp_path / "one.nt", lines)
    written, summary = job(spark, tmp_path, path, "--dedup", "--min-partitions", "4", "--compression", "gzip")
    assert sorted(written) == sorted(reference("--dedup", path)[0]) == ['<http://s> <http://p> "\\u0061" .', "_:x <http://p> <http://o> ."]
    assert summary.as_json()["duplicates_dropped"] == 19998
    parts = [name for name in os.listdir(tmp_path / "out") if name.startswith("part-")]
    assert parts and all(name.endswith(".gz") for name in parts)
    assert sum(len(gzip.open(tmp_path / "out" / part).read().splitlines()) for part in parts) == 2


def test_lines_that_do_not_parse_are_kept_with_lenient(spark, tmp_path):
    path = write(tmp_path / "bad.nt", ["<http://s> <http://p> .", "<http://s> <http://p> <http://o> .", "<http://s> <http://p> .", "<http://s> <http://p> <http://o> ."])
    lines, summary = job(spark, tmp_path, path, "--dedup", "--lenient", "--min-partitions", "2")
    assert sorted(lines) == sorted(reference("--dedup", "--lenient", path)[0])
    assert lines.count("<http://s> <http://p> .") == 2
    assert summary.as_json()["syntax_errors"] == 2
    assert summary.as_json()["duplicates_dropped"] == 1


def test_dedup_with_collapse_writes_the_links_once_after_the_statements(spark, tmp_path):
    same_as = "<http://www.w3.org/2002/07/owl#sameAs>"
    a = write(tmp_path / "a.nt", [f"<http://a> {same_as} <http://b> .", "<http://a> <http://p> <http://o> ."])
    b = write(tmp_path / "b.nt", [f"<http://b> {same_as} <http://c> .", "<http://b> <http://p> <http://o> ."])
    lines, summary = job(spark, tmp_path, a, b, "--dedup", "--collapse")
    body, links, report = reference_collapse("--dedup", "--collapse", a, b)
    n = summary.as_json()[LINKS_WRITTEN]
    assert n == len(links) > 0
    assert sorted(lines[:-n]) == sorted(body)
    assert lines[-n:] == links
    assert not any("\t" in line for line in lines)
    assert summary.as_json()["duplicates_dropped"] == report["duplicates_dropped"] == 1


def test_a_line_that_is_not_utf8_fails_the_job_naming_the_file(spark, tmp_path):
    # Passed through by --lenient as a syntax error: without --dedup its bytes go on as they are.
    # (--split files: Spark's text reader of --split lines makes the JVM strings of its lines,
    # which turn the byte into U+FFFD before any process sees it.)
    path = tmp_path / "latin1.nt"
    path.write_bytes(b'<http://s> <http://p> "caf\xe9" .\n' + b"<http://s> <http://p> <http://o> .\n" * 2)
    options = pidcanon_spark.parse_args([str(path), "--output", str(tmp_path / "out"), "--binary", BINARY, "-q", "--dedup", "--lenient", "--split", "files"])
    with pytest.raises(pidcanon_spark.RewriteFailed) as failed:
        pidcanon_spark.run(spark, options)
    assert failed.value.status == 2
    assert failed.value.message.startswith(f"pidcanon-spark: file:{path}: --dedup: a line is not UTF-8"), failed.value.message

"""--collapse: the equivalence classes of the whole input, computed on the driver or on the
cluster, rewrite every partition as one machine rewrites the whole input."""

import gzip
import os
import shutil
import subprocess
import sys

import pytest

import pidcanon_spark
from conftest import BINARY, REPO, assert_collapse_is_the_single_machine_one, equivalence_sides, job, part_files, reference, statements
from pidcanon_spark import LINKED

SAMEAS_CORPUS = os.path.join(REPO, "benches", "sameas_corpus.py")


@pytest.fixture(scope="module")
def sameas(corpus, tmp_path_factory):
    """The generated corpus with an owl:sameAs statement every 40 lines (classes that span the
    whole file), as bytes, and split into a plain, a .gz and a third N-Triples file."""
    whole, _ = corpus
    with open(whole, "rb") as f:
        data = subprocess.run([sys.executable, SAMEAS_CORPUS, "--every", "40"], stdin=f, capture_output=True, check=True).stdout
    lines = data.splitlines(keepends=True)
    third = len(lines) // 3
    parts = tmp_path_factory.mktemp("sameas")
    (parts / "a.nt").write_bytes(b"".join(lines[:third]))
    (parts / "b.nt.gz").write_bytes(gzip.compress(b"".join(lines[third : 2 * third])))
    (parts / "c.nt").write_bytes(b"".join(lines[2 * third :]))
    return data, parts


@pytest.mark.parametrize("classes", ["driver", "cluster"])
def test_collapse_across_partitions_is_the_single_machine_collapse(spark, sameas, tmp_path, classes):
    # The statements written in place line for line, then the links from the representatives:
    # those of all six partitions, each once, in the binary's order.
    data, parts = sameas
    lines, summary = job(spark, tmp_path, parts, "--min-partitions", "6", "--collapse", "--drop-reflexive", "--classes", classes)
    body, links, report = assert_collapse_is_the_single_machine_one(lines, summary, "-i", "nt", "--collapse", "--drop-reflexive", *part_files(parts))
    plain, _ = reference("-i", "nt", *part_files(parts))
    assert body + links != plain  # classes span the parts: collapsing changed more than spellings
    assert report[LINKED] > 0 and len(links) > 0
    # Every class member an equivalence statement named is still there, linked from its
    # representative (or is the representative).
    assert equivalence_sides(plain) <= equivalence_sides(lines)
    assert summary.as_json()["classes"]["computed_on"] == classes


def test_collapse_reaches_turtle_files_and_their_equivalences_join_the_classes(spark, sameas, tmp_path):
    # N-Triples are Turtle: the third part read whole as Turtle, its sameAs statements gathered
    # from its rewrite.
    data, parts = sameas
    inputs = tmp_path / "in"
    shutil.copytree(parts, inputs)
    os.rename(inputs / "c.nt", inputs / "c.ttl")
    lines, _ = job(spark, tmp_path, inputs, "--min-partitions", "4", "--collapse", "--to", "nt")
    # (One run reads inputs of one format: the Turtle file, N-Triples text, read as such.)
    expected, _ = reference("-i", "nt", "--collapse", "--to", "nt", *part_files(inputs))
    # As statements: the Turtle file's lines are its rewrite's; the links of all its parts, once.
    assert statements(lines) == statements(expected)


@pytest.mark.parametrize("classes", ["driver", "cluster"])
def test_a_class_over_max_class_fails_the_job_before_any_output(spark, sameas, tmp_path, classes):
    _, parts = sameas
    options = pidcanon_spark.parse_args([str(parts), "--output", str(tmp_path / "out"), "--binary", BINARY, "-q", "--collapse", "--max-class", "2", "--classes", classes])
    with pytest.raises(pidcanon_spark.RewriteFailed) as failed:
        pidcanon_spark.run(spark, options)
    assert failed.value.status == 2
    assert "larger than --max-class 2: nothing written" in failed.value.message
    assert ("gathered from the inputs" if classes == "driver" else "of class group") in failed.value.message
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("classes", ["driver", "cluster"])
def test_spellings_of_one_identifier_in_two_files_join_one_class(spark, tmp_path, classes):
    # Each file names the Fedora object in a spelling of its own, beside another member: the
    # classes of the two partitions are one only where both spellings are read as one
    # identifier (on the cluster, the binary canonicalizes each partition before it links its
    # members; the representative of the whole is the DOI, that of the second file alone the
    # Handle).
    inputs = tmp_path / "in"
    inputs.mkdir()
    same = f"<{pidcanon_spark.SAME_AS}>"
    (inputs / "a.nt").write_text(f"<info:fedora/demo%3a1> {same} <https://doi.org/10.1000/x> .\n")
    (inputs / "b.nt").write_text(f"<info:fedora/demo:1> {same} <hdl://10013/y> .\n<hdl:10013/y> <http://purl.org/dc/terms/title> \"t\" .\n")
    lines, summary = job(spark, tmp_path, inputs, "--min-partitions", "2", "--collapse", "--classes", classes)
    assert_collapse_is_the_single_machine_one(lines, summary, "-i", "nt", "--collapse", *part_files(inputs))
    assert {line.split(" ")[0] for line in lines if "title" in line} == {"<https://doi.org/10.1000/x>"}
    assert summary.as_json()["classes"]["computed_on"] == classes
    # One class of three, which --max-class 2 refuses (as two classes of two would not be).
    options = pidcanon_spark.parse_args([str(inputs), "--output", str(tmp_path / "refused"), "--binary", BINARY, "-q", "--min-partitions", "2", "--collapse", "--max-class", "2", "--classes", classes])
    with pytest.raises(pidcanon_spark.RewriteFailed) as failed:
        pidcanon_spark.run(spark, options)
    assert "a class of 3 identifiers (over --max-class 2)" in failed.value.message

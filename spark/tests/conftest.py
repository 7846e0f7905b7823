"""One local[2] SparkSession for the whole test run (loopback only, stopped at the end), the
pidcanon binary, and helpers that compare the job with a single-machine `pidcanon rewrite`."""

import bz2
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

import pidcanon_spark  # noqa: E402

BINARY = os.environ.get("PIDCANON_BIN", os.path.join(REPO, "target", "release", "pidcanon"))
GEN_CORPUS = os.environ.get("GEN_CORPUS", os.path.join(REPO, "benches", "gen_rdf.py"))
EXAMPLES = os.path.join(REPO, "fixtures", "examples")


def pytest_configure(config):
    # Missing tools fail the run loudly: .ci/spark.sh builds the binary and generates nothing else.
    for what, path in (("pidcanon binary (cargo build --release)", BINARY), ("corpus generator (set GEN_CORPUS)", GEN_CORPUS)):
        if not os.path.isfile(path):
            pytest.exit(f"missing {what}: {path}", returncode=2)


@pytest.fixture(scope="session")
def spark():
    session = pidcanon_spark.local_session(
        "local[2]", "pidcanon-spark tests", [("spark.sql.shuffle.partitions", "4"), ("spark.default.parallelism", "4")]
    )
    yield session
    session.stop()


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """The generated corpus (20 000 statements) as one file, and split into a plain, a .gz and
    a .bz2 file."""
    d = tmp_path_factory.mktemp("corpus")
    whole = d / "corpus.nt"
    subprocess.run([sys.executable, GEN_CORPUS, "--triples", "20000", "--seed", "7", "-o", str(whole)], check=True)
    lines = whole.read_bytes().splitlines(keepends=True)
    third = len(lines) // 3
    parts = d / "parts"
    parts.mkdir()
    (parts / "a.nt").write_bytes(b"".join(lines[:third]))
    (parts / "b.nt.gz").write_bytes(gzip.compress(b"".join(lines[third : 2 * third])))
    (parts / "c.nt.bz2").write_bytes(bz2.compress(b"".join(lines[2 * third :])))
    return whole, parts


def job(spark, tmp_path, *args):
    """Run the job with `args` (inputs and options); return (output lines, summary)."""
    out = tmp_path / "out"
    options = pidcanon_spark.parse_args([*map(str, args), "--output", str(out), "--binary", BINARY, "-q"])
    summary = pidcanon_spark.run(spark, options)
    assert (out / "_SUCCESS").exists()
    return read_parts(out), summary


def read_parts(directory):
    """The lines of a Spark output directory, part files in order (decompressed)."""
    lines = []
    for part in sorted(glob.glob(os.path.join(directory, "part-*"))):
        opener = gzip.open if part.endswith(".gz") else bz2.open if part.endswith(".bz2") else open
        with opener(part, "rt", encoding="utf-8") as f:
            lines += f.read().splitlines()
    return lines


def reference(*args, stdin=None):
    """A single-machine `pidcanon rewrite`: (output lines, JSON report)."""
    done = subprocess.run([BINARY, "rewrite", "--report", "json", *map(str, args)], input=stdin, capture_output=True, check=True)
    report = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return done.stdout.decode().splitlines(), report


def statements(lines):
    """The statements of N-Triples/N-Quads `lines` as pidcanon tells them apart (one statement
    however it is spelled): their fingerprints, `pidcanon rewrite --fingerprints`, sorted."""
    done = subprocess.run([BINARY, "rewrite", "-q", "-i", "nq", "--fingerprints"], input="".join(l + "\n" for l in lines).encode(), capture_output=True, check=True)
    return sorted(line.split("\t", 1)[0] for line in done.stdout.decode().splitlines() if not line.startswith("\t"))


def part_files(parts_dir):
    """The files of a directory of corpus parts, in name order (the order Spark lists them):
    the inputs of a single-machine run that reads them as the job does, each its own document
    (the blank node labels of the second and third are their own)."""
    return sorted(glob.glob(os.path.join(parts_dir, "*")))


def concatenation(parts_dir):
    """The corpus parts' decompressed bytes, in name order (the order Spark lists them)."""
    data = b""
    for path in sorted(glob.glob(os.path.join(parts_dir, "*"))):
        raw = open(path, "rb").read()
        data += gzip.decompress(raw) if path.endswith(".gz") else bz2.decompress(raw) if path.endswith(".bz2") else raw
    return data


def copy_example(name, directory):
    shutil.copy(os.path.join(EXAMPLES, name), directory)
    return os.path.join(directory, name)


def reference_collapse(*args, stdin=None):
    """A single-machine `pidcanon rewrite --collapse …`: (the lines written in place, the links
    written after them, the JSON report with `equivalence_statements_linked` and
    `equivalence_links_written`, read from the summary's note when the report lacks them)."""
    done = subprocess.run([BINARY, "rewrite", "--report", "json", *map(str, args)], input=stdin, capture_output=True, check=True)
    said = done.stderr.decode()
    report = json.loads(said.strip().splitlines()[-1])
    note = pidcanon_spark.LINKS_NOTE.search(said)
    linked, links = (int(note.group(1)), int(note.group(2))) if note else (0, 0)
    report.setdefault(pidcanon_spark.LINKED, linked)
    report.setdefault(pidcanon_spark.LINKS_WRITTEN, links)
    lines = done.stdout.decode().splitlines()
    body = len(lines) - report[pidcanon_spark.LINKS_WRITTEN]
    return lines[:body], lines[body:], report


def assert_collapse_is_the_single_machine_one(lines, summary, *args, stdin=None):
    """The job's output (`lines`, `summary`) against one machine's `pidcanon rewrite ARGS`
    (with --collapse): the lines written in place equal line for line; the links, written after
    them, each once, the same set in the same order (the binary's); the counts equal. Returns
    the single machine's (lines in place, links, report)."""
    body, links, report = reference_collapse(*args, stdin=stdin)
    totals = summary.as_json()
    n = totals[pidcanon_spark.LINKS_WRITTEN]
    mine, my_links = lines[: len(lines) - n], lines[len(lines) - n :]
    assert mine == body
    assert len(set(my_links)) == len(my_links)  # a member named in two partitions: once
    assert set(my_links) == set(links)
    assert my_links == links  # sorted as the binary sorts them
    for key in ("statements_read", "statements_written", "rewritten", "invalid_identifiers", "reflexive_dropped", pidcanon_spark.LINKED, pidcanon_spark.LINKS_WRITTEN):
        assert totals[key] == report[key], key
    return body, links, report


ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def unescape(text):
    """`text` with its N-Triples escapes (`\\uXXXX`, `\\UXXXXXXXX`, `\\n`…) decoded."""
    if "\\" not in text:
        return text
    return ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)) if m.group(3) is None else ECHAR.get(m.group(3), m.group(0)), text)


def equivalence_sides(lines, predicate="<http://www.w3.org/2002/07/owl#sameAs>"):
    """The subjects and objects of the `<s> <P> <o>` lines of `lines` (IRIs, with their <>,
    escapes decoded: a link names its member decoded), but for reflexive ones (`<a> <P> <a>`,
    which --drop-reflexive may drop)."""
    sides = set()
    for line in lines:
        terms = [unescape(term) for term in line.split(" ")[:3]]
        if len(terms) == 3 and terms[1] == predicate and terms[0].startswith("<") and terms[2].startswith("<") and terms[0] != terms[2]:
            sides.update((terms[0], terms[2]))
    return sides

"""One local[2] SparkSession for the whole test run (loopback only, stopped at the end), the
pidcanon binary, and helpers that compare the job with a single-machine `pidcanon rewrite`."""

import bz2
import glob
import gzip
import json
import os
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

"""Shared by the binding's tests: the repository's fixtures, the vectors' options, the CLI."""

from __future__ import annotations

import csv
import importlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple

import pytest

import pidcanon

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

VECTOR_FILES = [
    "fixtures/conformance/seed-vectors.tsv",
    "fixtures/conformance/decision-vectors.tsv",
    "fixtures/conformance/pidcanon-vectors.tsv",
]

# rdflib / pyoxigraph names of the formats in fixtures/real/index.tsv.
RDFLIB_FORMATS = {"ntriples": "nt", "nquads": "nquads", "turtle": "turtle", "trig": "trig", "rdfxml": "xml"}
PIDCANON_FORMATS = {"ntriples": "nt", "nquads": "nq", "turtle": "ttl", "trig": "trig", "rdfxml": "rdfxml"}
BASE = "http://example.org/base/"


class Vector(NamedTuple):
    location: str
    input: str
    expected: str
    kind: str
    options: str
    note: str


def vectors() -> List[Vector]:
    """Every row of the conformance TSVs, as tests/common/mod.rs reads them."""
    rows = []
    for path in VECTOR_FILES:
        lines = (ROOT / path).read_text(encoding="utf-8").split("\n")
        for n, line in enumerate(lines, start=1):
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t") + [""] * 5
            rows.append(Vector(f"{path}:{n}", *cols[:5]))
    return rows


def expected_failures() -> set:
    path = FIXTURES / "conformance" / "expected-failures.txt"
    entries = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = line.split("#")[0].strip()
        if entry:
            entries.add(entry)
    return entries


def options(text: str) -> Tuple[Optional[str], pidcanon.Policy]:
    """The scheme and the policy a vector's options column selects (the CLI's flags)."""
    words = text.split()
    assert len(words) % 2 == 0, f"options {text!r}: a flag without a value"
    scheme = None
    kwargs: dict = {"fedora_bases": [], "handle_resolvers": []}
    for flag, value in zip(words[::2], words[1::2]):
        if flag == "--scheme":
            scheme = value
        elif flag in ("--poi-oai", "--handle-form", "--doi-form"):
            kwargs[flag[2:].replace("-", "_")] = value
        elif flag == "--fedora-base":
            kwargs["fedora_bases"].append(value)
        elif flag == "--handle-resolver":
            kwargs["handle_resolvers"].append(value)
        else:
            raise AssertionError(f"unknown option {flag} in vectors")
    return scheme, pidcanon.Policy(**kwargs)


# The collapse's cases, shared by the rdflib and pyoxigraph tests.
SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
EXACT_MATCH = "http://www.w3.org/2004/02/skos/core#exactMatch"
# Statements of the collapse's every case: a class of four spellings across schemes, a reflexive
# statement once canonical, another predicate's class, a renamed IRI, and equivalence
# statements that are not between two valid IRIs (a literal, a blank node, an invalid PID).
COLLAPSE_STATEMENTS = [
    ("<http://example.org/a>", SAME_AS, "<info:fedora/demo%3Ab>"),
    ("<info:fedora/demo%3Ab>", SAME_AS, "<hdl://10013/c>"),
    ("<hdl:10013/c>", SAME_AS, "<http://dx.doi.org/10.5555/R>"),
    ("<http://example.org/a>", "http://purl.org/dc/terms/title", '"A"'),
    ("<http://example.org/a>", "http://purl.org/dc/terms/relation", "<info:fedora/demo:b>"),
    ("<info:fedora/demo:b>", SAME_AS, "<info:fedora/demo%3ab>"),
    ("<https://doi.org/10.5555/r>", SAME_AS, "<https://doi.org/10.5555/r>"),
    ("<http://example.org/p>", EXACT_MATCH, "<http://example.org/q>"),
    ("<http://example.org/q>", "http://purl.org/dc/terms/title", '"Q"'),
    ("<http://example.org/old>", SAME_AS, "<http://example.org/x>"),
    ("<http://example.org/x>", SAME_AS, '"a literal"'),
    ("_:b", SAME_AS, "<http://example.org/a>"),
    ("<info:fedora/no-colon>", SAME_AS, "<http://example.org/a>"),
]
# The named graphs of the N-Quads version, in turn (one is named by a class member).
COLLAPSE_GRAPHS = ["", " <info:fedora/demo%3Ab>", " <http://example.org/g>"]


def collapse_statements(multi: bool) -> str:
    """``COLLAPSE_STATEMENTS`` as N-Triples, or as N-Quads in ``COLLAPSE_GRAPHS`` in turn."""
    return "".join(
        f"{s} <{p}> {o}{COLLAPSE_GRAPHS[i % 3] if multi else ''} .\n"
        for i, (s, p, o) in enumerate(COLLAPSE_STATEMENTS)
    )


def collapse_case(name: str, tmp_path: Path) -> Tuple[List[str], dict]:
    """The CLI's flags and the Python functions' keyword arguments of one case of the
    collapse (its files written into ``tmp_path``)."""
    rename = tmp_path / "rename.tsv"
    rename.write_text("http://example.org/old\thttp://example.org/new\n", encoding="utf-8")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(
        "# a comment\nhttp://example.org/q\thttp://example.org/r\nhttp://example.org/z\thdl://10013/c\n"
    )
    policy = tmp_path / "policy.toml"
    policy.write_text('representative_order = ["fedora-object"]\n', encoding="utf-8")
    return {
        "collapse": (["--collapse"], {"collapse": True}),
        "predicate, reflexive dropped": (
            ["--collapse", "--equivalence-predicate", EXACT_MATCH, "--drop-reflexive"],
            {"collapse": True, "equivalence_predicates": [EXACT_MATCH], "drop_reflexive": True},
        ),
        "rename": (["--rename", str(rename)], {"rename": rename}),
        "rename, pairs files": (
            [
                "--collapse",
                "--equivalence-predicate",
                EXACT_MATCH,
                "--equivalences",
                str(pairs),
                "--rename",
                str(rename),
            ],
            {
                "collapse": True,
                "equivalence_predicates": [EXACT_MATCH],
                "equivalences": [pairs],
                "rename": str(rename),
            },
        ),
        "large classes allowed": (
            ["--collapse", "--max-class", "2", "--allow-large-classes"],
            {"collapse": True, "max_class": 2, "allow_large_classes": True},
        ),
        "policy's order": (
            ["--collapse", "--policy", str(policy)],
            {"collapse": True, "policy": pidcanon.Policy.from_file(policy)},
        ),
    }[name]


COLLAPSE_CASES = [
    "collapse",
    "predicate, reflexive dropped",
    "rename",
    "rename, pairs files",
    "large classes allowed",
    "policy's order",
]


class RealFile(NamedTuple):
    path: Path
    format: str


def real_files() -> List[RealFile]:
    """Every file of fixtures/real (index.tsv) and fixtures/examples."""
    files = []
    with open(FIXTURES / "real" / "index.tsv", encoding="utf-8", newline="") as index:
        for row in csv.DictReader(index, delimiter="\t"):
            files.append(RealFile(FIXTURES / "real" / row["file"], row["format"]))
    files.append(RealFile(FIXTURES / "examples" / "repository.ttl", "turtle"))
    files.append(RealFile(FIXTURES / "examples" / "repository.nt", "ntriples"))
    return files


def cli() -> Optional[Path]:
    """The pidcanon binary: $PIDCANON_CLI, or one built in the root's target directory."""
    candidates = [os.environ.get("PIDCANON_CLI")]
    candidates += [str(ROOT / "target" / p / "pidcanon") for p in ("release", "debug")]
    candidates.append(shutil.which("pidcanon"))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def pidcanon_cli() -> Path:
    binary = cli()
    if binary is None:
        pytest.fail(
            "no pidcanon binary: run `cargo build --release --bin pidcanon` in the repository root, "
            "or set PIDCANON_CLI to the path of one",
            pytrace=False,
        )
    return binary


def require(module: str, install: str):
    """Imports `module` for a test file, or fails its collection saying what to install (a test
    that cannot run fails; it is never skipped)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        error = e
    pytest.fail(f"{module} is not installed ({error}): {install}", pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """No test passes by not running: a skip (pytest.skip, a skip mark, importorskip) is
    reported as a failure."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped, and a skip counts as a failure here: {reason}"


def run_cli(binary: Path, args: List[str], stdin: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], input=stdin, capture_output=True, check=False)

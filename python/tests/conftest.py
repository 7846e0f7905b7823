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

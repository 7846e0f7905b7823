#!/usr/bin/env bash
# The Python binding (python/): lints its Rust crate, builds and installs the package with pip
# (maturin is its build backend) into a virtual environment, checks the type stubs against the
# module, and runs its tests and doctests against the command line built here.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/venvs/python
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q pytest rdflib pyoxigraph mypy ruff

(cd python && cargo fmt -- --check && cargo clippy --all-targets -- -D warnings)
(cd python && "../$venv/bin/ruff" check && "../$venv/bin/ruff" format --check)
"$venv/bin/pip" install -q ./python
cargo build --release --quiet --bin pidcanon

# From a directory without python/pidcanon on sys.path: the installed package is tested.
cd target
"venvs/python/bin/python" -m mypy.stubtest pidcanon._pidcanon
PIDCANON_CLI="$PWD/release/pidcanon" "venvs/python/bin/pytest" -q -p no:cacheprovider \
  --rootdir ../python ../python/tests
"venvs/python/bin/pytest" -q -p no:cacheprovider --doctest-modules --pyargs pidcanon

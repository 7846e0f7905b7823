#!/usr/bin/env bash
# The Spark job (spark/pidcanon_spark.py) under a real Spark in local[2]: installs pyspark and
# pytest into target/venvs/spark (Spark needs Java 17 on the machine), builds the release binary
# and runs spark/tests on the generated corpus (benches/gen_rdf.py, or $GEN_CORPUS).
set -euo pipefail
cd "$(dirname "$0")/.."

java -version >/dev/null 2>&1 || { echo ".ci/spark.sh: Spark needs Java 17 (java not found)" >&2; exit 1; }
venv=target/venvs/spark
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r spark/requirements.txt
cargo build --release --quiet --bin pidcanon
export GEN_CORPUS=${GEN_CORPUS:-$PWD/benches/gen_rdf.py}
"$venv/bin/python" -m pytest spark/tests -q

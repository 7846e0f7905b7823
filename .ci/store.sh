#!/usr/bin/env bash
# The `pidcanon store` tests against real servers: installs the Oxigraph server (PyPI package
# `oxigraph`, which ships the `oxigraph` binary) into target/venvs/store and, on CI or when asked
# (PIDCANON_VIRTUOSO=1), Virtuoso 7 (Debian package virtuoso-opensource); then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/venvs/store
if [ ! -x "$venv/bin/oxigraph" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet oxigraph
fi
export PIDCANON_OXIGRAPH="$PWD/$venv/bin/oxigraph"
"$PIDCANON_OXIGRAPH" --version

if ! command -v virtuoso-t >/dev/null 2>&1 && { [ "${CI:-}" = true ] || [ "${PIDCANON_VIRTUOSO:-}" = 1 ]; }; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq virtuoso-opensource >/dev/null
fi

cargo test --test store --test store_virtuoso

#!/usr/bin/env bash
# The `pidcanon store` tests against real servers, which a plain `cargo test` ignores: installs
# the Oxigraph server (PyPI package `oxigraph`, which ships the `oxigraph` binary) into
# target/venvs/store and, on CI or when asked (PIDCANON_VIRTUOSO=1), Virtuoso 7 (Debian package
# virtuoso-opensource); then runs them. Where Virtuoso is neither present nor installed, its
# test does not run, and the summary of .ci/run says so.
set -euo pipefail
cd "$(dirname "$0")/.."
note() { if [ -n "${CI_SUMMARY:-}" ]; then echo "$*" >>"$CI_SUMMARY"; fi; }

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

cargo test --test store -- --include-ignored
note "ran      store tests against a real Oxigraph ($("$PIDCANON_OXIGRAPH" --version 2>&1 | head -1))"
if command -v virtuoso-t >/dev/null 2>&1; then
  cargo test --test store_virtuoso -- --include-ignored
  version=$({ virtuoso-t -? 2>&1 || true; } | grep -m1 -o 'Version [^ ]*' || true)
  note "ran      store test against a real Virtuoso (${version:-virtuoso-t})"
else
  note "NOT RUN  store test against Virtuoso: virtuoso-t is not installed (CI=true or PIDCANON_VIRTUOSO=1 installs it with apt-get)"
fi

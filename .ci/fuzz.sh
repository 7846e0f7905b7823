#!/usr/bin/env bash
# CI: runs each differential fuzz target (docs/fuzzing.md) briefly — FUZZ_SECONDS (30) each,
# one at a time, in one process — from its corpus in fuzz/corpus/<target>, and fails on the first
# crash or disagreement (libFuzzer exits non-zero and leaves the input in
# fuzz/artifacts/<target>/). Installs the nightly toolchain and cargo-fuzz when missing.
# What the run found is not added to the committed corpora: it goes to a scratch copy.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-30}
# A fixed seed: the same tree explores the same inputs first, so a failure is the change's, and
# is found again by a rerun (FUZZ_SEED=0 lets libFuzzer draw one).
SEED=${FUZZ_SEED:-1}
# Targets with a known open disagreement (docs/fuzzing.md, "Findings") can be left out until it is
# fixed: FUZZ_SKIP="target …". None today: every finding is fixed, turtle_threads and
# turtle_lenient included (both ran 300 s clean against the fixes).
SKIP=${FUZZ_SKIP-}
TARGETS=(
  turtle_fast_vs_oxttl
  trig_fast_vs_oxttl
  turtle_fast_vs_oxttl_structured
  turtle_threads
  ntriples_scanner_vs_oxttl
  turtle_lenient
  rdfxml_legacy_vs_oxrdfxml
  collapse
)

# Where the nightly toolchain or cargo-fuzz cannot be had (a machine that reaches no rustup
# dist server), the targets do not run, and the summary of .ci/run says so plainly.
not_run() {
  echo "fuzz targets not run: $1" >&2
  if [ -n "${CI_SUMMARY:-}" ]; then echo "NOT RUN  fuzz targets: $1" >>"$CI_SUMMARY"; fi
  exit 0
}
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal ||
    not_run "no nightly toolchain, and it could not be installed (rustup toolchain install nightly)"
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked || not_run "cargo-fuzz could not be installed (cargo install cargo-fuzz)"
fi

cargo +nightly fuzz build --debug-assertions
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
summary=()
notrun=()
for target in "${TARGETS[@]}"; do
  if [[ " $SKIP " == *" $target "* ]]; then
    notrun+=("$target (known open disagreement; docs/fuzzing.md)")
    continue
  fi
  mkdir -p "$scratch/$target"
  echo "== fuzz $target (${SECONDS_EACH} s)" >&2
  log="$scratch/$target.log"
  if ! cargo +nightly fuzz run --debug-assertions "$target" "$scratch/$target" "fuzz/corpus/$target" -- \
    -max_total_time="$SECONDS_EACH" -seed="$SEED" -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "fuzz target $target failed: see the input in fuzz/artifacts/$target/" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 || true)
  summary+=("$target: $runs executions, ${cov:-cov: ?}")
done
printf 'fuzzed   %s\n' "${summary[@]}"
if [ "${#notrun[@]}" -gt 0 ]; then printf 'NOT RUN  fuzz %s\n' "${notrun[@]}"; fi
if [ -n "${CI_SUMMARY:-}" ]; then
  printf 'ran      fuzz %s\n' "${summary[@]}" >>"$CI_SUMMARY"
  if [ "${#notrun[@]}" -gt 0 ]; then printf 'NOT RUN  fuzz %s\n' "${notrun[@]}" >>"$CI_SUMMARY"; fi
fi

#!/usr/bin/env bash
# Normalizing a live store: `pidcanon store` against dump -> `pidcanon rewrite --dedup` -> reload,
# on the same Oxigraph server binary, from identical stores of TRIPLES statements of which 5 %
# hold a variant spelling. Prints one Markdown table: wall time of each path, statements before
# and after, and the ratio.
#
# usage: benches/store_compare.sh [TRIPLES (default 1000000)] [VARIANT-PERCENT (default 5)]
# Needs python3 (the corpus generator benches/gen_rdf.py or $GEN_CORPUS), curl, and the
# oxigraph server binary ($PIDCANON_OXIGRAPH, else target/venvs/store/bin/oxigraph: .ci/store.sh
# installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
triples=${1:-1000000}
percent=${2:-5}
gen=${GEN_CORPUS:-benches/gen_rdf.py}
dir=${BENCH_DIR:-target/bench}/store
oxigraph=${PIDCANON_OXIGRAPH:-target/venvs/store/bin/oxigraph}
mkdir -p "$dir"

cargo build --release --quiet --bin pidcanon
pidcanon=$PWD/target/release/pidcanon

# The store's content: the canonical corpus, with the original (variant) spelling back in
# $percent % of the statements, chosen evenly among those that have one.
data="$dir/store-gen_rdf-$triples-$percent.nt"
if [ ! -s "$data" ]; then
  python3 "$gen" --triples "$triples" --seed 3 --format nt -o "$dir/corpus.nt"
  "$pidcanon" rewrite -q --threads 2 "$dir/corpus.nt" -o "$dir/canonical.nt"
  python3 - "$dir/corpus.nt" "$dir/canonical.nt" "$percent" > "$data" <<'PY'
import sys
original, canonical, percent = open(sys.argv[1]), open(sys.argv[2]), float(sys.argv[3])
pairs = list(zip(original, canonical))
differing = [i for i, (o, c) in enumerate(pairs) if o != c]
wanted = int(len(pairs) * percent / 100)
if len(differing) < wanted:
    sys.exit(f"only {len(differing)} statements have a variant, {wanted} wanted")
step = len(differing) / wanted
chosen = {differing[int(k * step)] for k in range(wanted)}
sys.stdout.writelines(o if i in chosen else c for i, (o, c) in enumerate(pairs))
PY
  rm "$dir/corpus.nt" "$dir/canonical.nt"
fi
variants=$("$pidcanon" check "$data" 2>&1 | grep -c ': non-canonical ' || true)

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
server=
stop() { if [ -n "$server" ]; then kill "$server"; wait "$server" 2>/dev/null || true; server=; fi; }
trap stop EXIT
# serve NAME: a fresh store loaded with the data (offline bulk load, not timed), served on $port.
serve() {
  rm -rf "$dir/$1"
  "$oxigraph" load --location "$dir/$1" --file "$data" >/dev/null 2>&1
  "$oxigraph" serve --location "$dir/$1" --bind "127.0.0.1:$port" >/dev/null 2>&1 &
  server=$!
  until curl -s -o /dev/null "http://127.0.0.1:$port/query"; do sleep 0.1; done
}
count() {
  curl -s -H 'Accept: text/csv' --data-urlencode 'query=SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }' \
    "http://127.0.0.1:$port/query" | tail -1 | tr -d '\r'
}
seconds() { python3 -c 'import time; print(time.monotonic())'; }

serve store-mode
before=$(count)
start=$(seconds)
"$pidcanon" store -q --report json --endpoint "http://127.0.0.1:$port/query" \
  --update-endpoint "http://127.0.0.1:$port/update" 2> "$dir/store-report.json"
store_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
store_after=$(count)
stop

serve dump-mode
start=$(seconds)
curl -s -H 'Accept: application/n-triples' "http://127.0.0.1:$port/store?default" > "$dir/dump.nt"
"$pidcanon" rewrite -q --dedup "$dir/dump.nt" -o "$dir/dump-canonical.nt"
curl -s -f -X PUT -H 'Content-Type: application/n-triples' --data-binary "@$dir/dump-canonical.nt" \
  "http://127.0.0.1:$port/store?default" > /dev/null
dump_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
dump_after=$(count)
stop

echo "Normalizing an Oxigraph store of $before statements, $variants non-canonical identifier occurrences ($percent % of the statements hold one):"
echo
echo "| path | wall time | statements after |"
echo "|---|---:|---:|"
echo "| \`pidcanon store\` (store readable and writable throughout) | ${store_seconds} s | $store_after |"
echo "| dump -> \`pidcanon rewrite --dedup\` -> reload (PUT) | ${dump_seconds} s | $dump_after |"
echo
python3 -c "print(f'store / dump-rewrite-reload time: {$store_seconds / $dump_seconds:.2f}')"
echo "pidcanon store report: $(cat "$dir/store-report.json")"
[ "$store_after" = "$dump_after" ] || { echo "the two paths disagree: $store_after vs $dump_after statements" >&2; exit 1; }

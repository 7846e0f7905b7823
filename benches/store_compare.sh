#!/usr/bin/env bash
# Normalizing a live store: `pidcanon store` against dump -> `pidcanon rewrite --dedup` -> bulk
# reload, on the same Oxigraph server binary, from identical stores of TRIPLES statements of
# which 5 % hold a variant spelling. The reload is the fastest there is: `DROP DEFAULT` and a
# `POST /store?default&no_transaction` (the store empty meanwhile), or, stopping the server, the
# offline bulk loader `oxigraph load` into a fresh database (the store down meanwhile). Prints one
# Markdown table: wall time of each path (store mode scanning for candidates, and --snapshot),
# statements after, and for store mode the statements it rewrote per second; then the ratio of
# each store mode to the faster reload, and the two bounds of the statements rewritten per second
# on this server: the time it takes to write every statement once (its dump), for any path that
# reads them, and the time it takes to apply only the updates (delete each changed statement and
# insert its rewrite, nothing read), for any path that updates the store in place.
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
# The statements that hold a variant: the lines a rewrite changes (it keeps their order).
"$pidcanon" rewrite -q "$data" -o "$dir/data-canonical.nt"
changed=$(python3 -c 'import sys; print(sum(a != b for a, b in zip(open(sys.argv[1]), open(sys.argv[2]))))' "$data" "$dir/data-canonical.nt")
# The least any path that updates the store in place must have it do: delete each changed
# statement and insert its rewrite, nothing read or checked, in updates of 2000 (`DELETE DATA` +
# `INSERT DATA`; those with a blank node, which `DELETE DATA` cannot name, left out).
rm -rf "$dir/updates" && mkdir "$dir/updates"
python3 - "$data" "$dir/data-canonical.nt" "$dir/updates" <<'PY'
import sys
pairs = [(a, b) for a, b in zip(open(sys.argv[1]), open(sys.argv[2])) if a != b and "_:" not in a + b]
for k in range(0, len(pairs), 2000):
    chunk = pairs[k:k + 2000]
    with open(f"{sys.argv[3]}/{k // 2000:05}.ru", "w") as out:
        out.write("DELETE DATA {\n" + "".join(a for a, _ in chunk) + "} ;\nINSERT DATA {\n" + "".join(b for _, b in chunk) + "}\n")
print(len(pairs), file=open(f"{sys.argv[3]}/count", "w"))
PY
rm "$dir/data-canonical.nt"

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

# run_store NAME [OPTION]: `pidcanon store` on a fresh store; sets store_seconds, store_after.
run_store() {
  serve "$1"
  start=$(seconds)
  "$pidcanon" store -q --report json --endpoint "http://127.0.0.1:$port/query" \
    --update-endpoint "http://127.0.0.1:$port/update" ${2:+"$2"} 2> "$dir/$1-report.json"
  store_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
  store_after=$(count)
  stop
}
serve store-mode
before=$(count)
stop
run_store store-mode
scan_seconds=$store_seconds scan_after=$store_after
run_store snapshot-mode --snapshot
snapshot_seconds=$store_seconds snapshot_after=$store_after
scan_rate=$(python3 -c "print(round($changed / $scan_seconds))")
snapshot_rate=$(python3 -c "print(round($changed / $snapshot_seconds))")

# The updates alone, on a fresh store.
serve updates-mode
start=$(seconds)
for update in "$dir"/updates/*.ru; do
  curl -s -f -H 'Content-Type: application/sparql-update' --data-binary "@$update" \
    "http://127.0.0.1:$port/update" > /dev/null
done
updates_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
updated=$(cat "$dir/updates/count")
stop
rm -rf "$dir/updates"

# dump -> rewrite -> DROP + POST without a transaction (the server up, the store empty meanwhile).
serve post-mode
start=$(seconds)
curl -s -H 'Accept: application/n-triples' "http://127.0.0.1:$port/store?default" > "$dir/dump.nt"
# Reading every statement once, the fastest way the server has: what bounds any path that looks
# at every statement (identifiers can be anywhere, and no store indexes IRIs by prefix).
dump_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
"$pidcanon" rewrite -q --dedup "$dir/dump.nt" -o "$dir/dump-canonical.nt"
curl -s -f --data-urlencode 'update=DROP DEFAULT' "http://127.0.0.1:$port/update" > /dev/null
curl -s -f -X POST -H 'Content-Type: application/n-triples' --data-binary "@$dir/dump-canonical.nt" \
  "http://127.0.0.1:$port/store?default&no_transaction" > /dev/null
post_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
post_after=$(count)
stop

# dump -> rewrite -> stop the server, `oxigraph load` into a fresh database, serve it again.
serve load-mode
start=$(seconds)
curl -s -H 'Accept: application/n-triples' "http://127.0.0.1:$port/store?default" > "$dir/dump.nt"
"$pidcanon" rewrite -q --dedup "$dir/dump.nt" -o "$dir/dump-canonical.nt"
stop
rm -rf "$dir/load-mode"
"$oxigraph" load --location "$dir/load-mode" --file "$dir/dump-canonical.nt" >/dev/null 2>&1
"$oxigraph" serve --location "$dir/load-mode" --bind "127.0.0.1:$port" >/dev/null 2>&1 &
server=$!
until curl -s -o /dev/null "http://127.0.0.1:$port/query"; do sleep 0.1; done
load_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
load_after=$(count)
stop
rm -f "$dir/dump.nt" "$dir/dump-canonical.nt"

echo "Normalizing an Oxigraph store of $before statements, $variants non-canonical identifier occurrences in $changed statements ($percent %):"
echo
echo "| path | wall time | statements after | statements rewritten per second |"
echo "|---|---:|---:|---:|"
echo "| \`pidcanon store\` (store readable and writable throughout) | ${scan_seconds} s | $scan_after | $scan_rate |"
echo "| \`pidcanon store --snapshot\` (store readable and writable throughout) | ${snapshot_seconds} s | $snapshot_after | $snapshot_rate |"
echo "| dump -> \`pidcanon rewrite --dedup\` -> DROP + POST ?no_transaction (store empty meanwhile) | ${post_seconds} s | $post_after | |"
echo "| dump -> \`pidcanon rewrite --dedup\` -> stop, \`oxigraph load\`, serve (store down meanwhile) | ${load_seconds} s | $load_after | |"
echo
python3 -c "print(f'store / fastest dump-rewrite-reload time: {$scan_seconds / min($post_seconds, $load_seconds):.2f}')"
python3 -c "print(f'store --snapshot / fastest dump-rewrite-reload time: {$snapshot_seconds / min($post_seconds, $load_seconds):.2f}')"
python3 -c "print(f'reading every statement once (the dump, GET /store?default): $dump_seconds s, so at most {round($changed / $dump_seconds)} statements rewritten per second for a path that reads the store')"
python3 -c "print(f'the updates alone (DELETE DATA + INSERT DATA of $updated changed statements, 2000 an update, nothing read): $updates_seconds s, so at most {round($updated / $updates_seconds)} statements rewritten per second for a path that updates the store in place')"
echo "pidcanon store report: $(cat "$dir/store-mode-report.json")"
echo "pidcanon store --snapshot report: $(cat "$dir/snapshot-mode-report.json")"
for after in "$scan_after" "$post_after" "$load_after"; do
  [ "$snapshot_after" = "$after" ] || { echo "the paths disagree: $snapshot_after vs $after statements" >&2; exit 1; }
done

#!/usr/bin/env bash
# `pidcanon store` on a real Virtuoso, with the options docs/store.md gives for it (`--graph G
# --page 10000`, digest authentication on /sparql-auth, no --batch: the update sizing decides),
# on one named graph of TRIPLES statements of which VARIANT-PERCENT % hold a variant spelling.
# Checks that the graph ends equal to the file rewrite (`pidcanon rewrite --dedup` of the same
# data) and prints one Markdown table: statements, IRIs rewritten, wall time, updates and
# requests, and whether the graph equals the file rewrite (exit status 1 if not).
#
# usage: benches/store_virtuoso.sh [TRIPLES (default 200000)] [VARIANT-PERCENT (default 5)] [OPTION…]
# (OPTIONs are added to the store command, as `--snapshot`)
# Needs python3 (the corpus generator benches/gen_rdf.py or $GEN_CORPUS), curl, and Virtuoso 7
# (`virtuoso-t` and `isql-vt`, or `isql`, on the PATH: Debian's virtuoso-opensource). The server
# runs on free 127.0.0.1 ports with a fresh database in a temporary directory, removed at the end.
#
# The content is that of benches/store_compare.sh (the canonical corpus, with the variant
# spelling back in VARIANT-PERCENT % of the statements) without the statements that hold a blank
# node (the graphs are compared statement by statement, by SPARQL) or a \u escape (as in
# tests/store_virtuoso.rs and the 40 000-statement measurement of docs/store.md); the corpus is
# generated 20 % larger and cut to TRIPLES statements after that filter.
set -euo pipefail
cd "$(dirname "$0")/.."
triples=${1:-200000}
percent=${2:-5}
options=("${@:3}")
gen=${GEN_CORPUS:-benches/gen_rdf.py}
dir=${BENCH_DIR:-target/bench}/store-virtuoso
graph=http://example.org/store
expected_graph=http://example.org/expected
mkdir -p "$dir"
virtuoso=$(command -v virtuoso-t) || { echo "virtuoso-t is not on the PATH (apt-get install virtuoso-opensource)" >&2; exit 2; }
isql=$(command -v isql-vt || command -v isql) || { echo "isql-vt is not on the PATH" >&2; exit 2; }

cargo build --release --quiet --bin pidcanon
pidcanon=$PWD/target/release/pidcanon

data="$dir/store-gen_rdf-$triples-$percent.nt"
if [ ! -s "$data" ]; then
  python3 "$gen" --triples $((triples * 6 / 5)) --seed 3 --format nt -o "$dir/corpus.nt"
  "$pidcanon" rewrite -q --threads 2 "$dir/corpus.nt" -o "$dir/canonical.nt"
  python3 - "$dir/corpus.nt" "$dir/canonical.nt" "$percent" "$triples" > "$data" <<'PY'
import sys
original, canonical = open(sys.argv[1]), open(sys.argv[2])
percent, triples = float(sys.argv[3]), int(sys.argv[4])
def kept(line):
    return "_:" not in line and "\\u" not in line and "\\U" not in line and line.strip()
pairs = [(o, c) for o, c in zip(original, canonical) if kept(o) and kept(c)][:triples]
if len(pairs) < triples:
    sys.exit(f"only {len(pairs)} statements without blank nodes and \\u escapes, {triples} wanted")
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
"$pidcanon" rewrite -q --dedup "$data" -o "$dir/expected.nt"
expected_lines=$(grep -c . "$dir/expected.nt")

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
sql_port=$(free_port)
http_port=$(free_port)
db=$(mktemp -d "${TMPDIR:-/tmp}/pidcanon-virtuoso.XXXXXX")
server=
stop() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=; fi
  rm -rf "$db"
}
trap stop EXIT
ini=$(find /etc/virtuoso-opensource-7/virtuoso.ini /usr/share/virtuoso-opensource-7/virtuoso.ini 2>/dev/null | head -1)
[ -n "$ini" ] || { echo "no packaged virtuoso.ini" >&2; exit 2; }
# The packaged configuration, with the database in $db and the two ports on 127.0.0.1.
awk -v db="$db/" -v sql="$sql_port" -v http="$http_port" '
  /^\[/ { section = $0 }
  { gsub("/var/lib/virtuoso-opensource-7/db/", db) }
  /^[ \t]*ServerPort[ \t]*=/ { $0 = "ServerPort = 127.0.0.1:" (section == "[HTTPServer]" ? http : sql) }
  { print }' "$ini" > "$db/virtuoso.ini"
(cd "$db" && exec "$virtuoso" +foreground +configfile "$db/virtuoso.ini" > "$db/server.log" 2>&1) &
server=$!
endpoint="http://127.0.0.1:$http_port/sparql-auth"
# The HTTP port opens before the SPARQL endpoint is ready.
for _ in $(seq 600); do
  curl -sf -o /dev/null --digest -u dba:dba --data-urlencode 'query=ASK { ?s ?p ?o }' "$endpoint" && break
  kill -0 "$server" 2>/dev/null || { cat "$db/server.log" >&2; exit 1; }
  sleep 0.2
done
# sparql QUERY: its one value, through isql (no ResultSetMaxRows, no anytime query limit).
sparql() {
  "$isql" "127.0.0.1:$sql_port" dba dba BANNER=OFF VERBOSE=OFF "exec=SPARQL $1;" | grep -v '^$' | tail -1 | tr -d ' \r'
}
# load FILE GRAPH: the Graph Store HTTP protocol (a POST parsed by Virtuoso's Turtle loader).
load() {
  curl -sf --digest -u dba:dba -X POST -H 'Content-Type: text/turtle' --data-binary "@$1" \
    "http://127.0.0.1:$http_port/sparql-graph-crud-auth?graph-uri=$2" > /dev/null
}
seconds() { python3 -c 'import time; print(time.monotonic())'; }

start=$(seconds)
load "$data" "$graph"
load_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
before=$(sparql "SELECT COUNT(*) WHERE { GRAPH <$graph> { ?s ?p ?o } }")

start=$(seconds)
status=0
VIRTUOSO_CREDENTIALS=dba:dba "$pidcanon" store --endpoint "$endpoint" --auth digest \
  --credentials-env VIRTUOSO_CREDENTIALS --graph "$graph" --page 10000 --report json \
  ${options[@]+"${options[@]}"} 2> "$dir/store.log" || status=$?
store_seconds=$(python3 -c "import time; print(round(time.monotonic() - $start, 1))")
report=$(tail -1 "$dir/store.log")
field() { python3 -c 'import json, sys; v = json.loads(sys.argv[1]).get(sys.argv[2]); print("-" if v is None else v)' "$report" "$1" 2>/dev/null || echo -; }

# The file rewrite in a graph of its own, then both directions of the difference.
load "$dir/expected.nt" "$expected_graph"
after=$(sparql "SELECT COUNT(*) WHERE { GRAPH <$graph> { ?s ?p ?o } }")
expected=$(sparql "SELECT COUNT(*) WHERE { GRAPH <$expected_graph> { ?s ?p ?o } }")
missing=$(sparql "SELECT COUNT(*) WHERE { GRAPH <$expected_graph> { ?s ?p ?o } FILTER NOT EXISTS { GRAPH <$graph> { ?s ?p ?o } } }")
extra=$(sparql "SELECT COUNT(*) WHERE { GRAPH <$graph> { ?s ?p ?o } FILTER NOT EXISTS { GRAPH <$expected_graph> { ?s ?p ?o } } }")
if [ "$status" = 0 ] && [ "$after" = "$expected" ] && [ "$expected" = "$expected_lines" ] && [ "$missing" = 0 ] && [ "$extra" = 0 ]; then
  equal=yes
else
  equal="no ($after statements, file rewrite $expected_lines, loaded $expected; $missing missing, $extra extra)"
fi

version=$("$virtuoso" -? 2>&1 | sed -n 's/^Version \([^ ]*\).*/\1/p') || true
echo "\`pidcanon store --graph G --page 10000${options[*]+ ${options[*]}}\` (no --batch) on Virtuoso ${version:-7}, $percent % of the statements with a variant spelling (loaded in ${load_seconds} s, not timed):"
echo
echo "| statements before | after | IRIs rewritten | wall time | updates | requests | IRIs per update at the end | updates split | retries | equals the file rewrite |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
echo "| $before | $after | $(field rewritten_total) | ${store_seconds} s | $(field updates) | $(field requests) | $(field batch) | $(field updates_split) | $(field retries) | $equal |"
echo
# What the run said, but for the identifiers it left (invalid ones, as `rewrite` does).
grep '^pidcanon: ' "$dir/store.log" | grep -v '^pidcanon: invalid identifier ' || true
echo "pidcanon store exit status $status; report: $report"
[ "$equal" = yes ]

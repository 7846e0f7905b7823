#!/usr/bin/env bash
# pidcanon rewrite against a plain oxttl parse -> serialize pipe (examples/passthrough.rs), measured
# in one run, alternating the commands. Prints one Markdown table: median wall time, MB/s,
# statements/s and peak RSS for NT->NT and TTL->NT, and the throughput ratio.
#
# usage: benches/compare.sh [TRIPLES (default 1000000)] [RUNS (default 5)]
# Needs python3 (for the corpus generator, ../shared/bench/gen_corpus.py or $GEN_CORPUS) and
# GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
triples=${1:-1000000}
runs=${2:-5}
gen=${GEN_CORPUS:-../shared/bench/gen_corpus.py}
dir=${BENCH_DIR:-target/bench}
mkdir -p "$dir"

cargo build --release --quiet --bin pidcanon --example passthrough
pidcanon=target/release/pidcanon
passthrough=target/release/examples/passthrough

for format in nt ttl; do
  corpus="$dir/corpus-$triples.$format"
  [ -s "$corpus" ] || python3 "$gen" --triples "$triples" --seed 1 --format "$format" -o "$corpus"
done

# measure NAME COMMAND...: one run, appends "seconds kilobytes" to $dir/NAME.times
measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/$name.last" "$@" > /dev/null
  cat "$dir/$name.last" >> "$dir/$name.times"
}

names=(pass-nt pidcanon-nt pidcanon-nt-1thread pass-ttl pidcanon-ttl)
for name in "${names[@]}"; do : > "$dir/$name.times"; done
for _ in $(seq "$runs"); do
  measure pass-nt sh -c "$passthrough nt < $dir/corpus-$triples.nt"
  measure pidcanon-nt "$pidcanon" rewrite -q -i nt "$dir/corpus-$triples.nt"
  measure pidcanon-nt-1thread "$pidcanon" rewrite -q --threads 1 -i nt "$dir/corpus-$triples.nt"
  measure pass-ttl sh -c "$passthrough ttl < $dir/corpus-$triples.ttl"
  measure pidcanon-ttl "$pidcanon" rewrite -q -i ttl --to nt "$dir/corpus-$triples.ttl"
done

python3 - "$dir" "$triples" <<'PY'
import os, statistics, sys
dir, triples = sys.argv[1], int(sys.argv[2])
def stats(name):
    rows = [tuple(map(float, l.split())) for l in open(f"{dir}/{name}.times") if l.strip()]
    return statistics.median(r[0] for r in rows), max(r[1] for r in rows)
size = {f: os.path.getsize(f"{dir}/corpus-{triples}.{f}") for f in ("nt", "ttl")}
print(f"| {triples:,} statements | median wall | MB/s | statements/s | peak RSS | vs passthrough |")
print("|---|---|---|---|---|---|")
for label, name, fmt, base in [
    ("passthrough NT→NT", "pass-nt", "nt", None),
    ("pidcanon NT→NT, 1 thread", "pidcanon-nt-1thread", "nt", "pass-nt"),
    ("pidcanon NT→NT, all cores", "pidcanon-nt", "nt", "pass-nt"),
    ("passthrough TTL→NT", "pass-ttl", "ttl", None),
    ("pidcanon TTL→NT", "pidcanon-ttl", "ttl", "pass-ttl"),
]:
    wall, rss = stats(name)
    ratio = f"{stats(base)[0] / wall:.2f}×" if base else "1.00×"
    print(f"| {label} | {wall:.2f} s | {size[fmt] / 1e6 / wall:.0f} | {triples / wall:,.0f} | {rss / 1024:.0f} MB | {ratio} |")
PY

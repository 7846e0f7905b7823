#!/usr/bin/env bash
# Throughput of `rewrite --collapse` (two passes) against a plain rewrite, on N-Triples with 1 %
# owl:sameAs statements (benches/gen_rdf.py, then benches/sameas_corpus.py). Prints one Markdown
# table: median wall time, statements/s, peak RSS, and the ratio to the plain rewrite.
#
# usage: benches/collapse.sh [TRIPLES (default 1000000)] [RUNS (default 3)]
# Needs python3 (benches/gen_rdf.py or $GEN_CORPUS) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
triples=${1:-1000000}
runs=${2:-3}
gen=${GEN_CORPUS:-benches/gen_rdf.py}
dir=${BENCH_DIR:-target/bench}
mkdir -p "$dir"

cargo build --release --quiet --bin pidcanon
pidcanon=target/release/pidcanon

plain="$dir/gen_rdf-$triples.nt"
corpus="$dir/gen_rdf-$triples-sameas.nt"
[ -s "$plain" ] || python3 "$gen" --triples "$triples" --seed 1 --format nt -o "$plain"
[ -s "$corpus" ] || python3 benches/sameas_corpus.py < "$plain" > "$corpus"

measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/$name.last" "$@" > /dev/null
  cat "$dir/$name.last" >> "$dir/$name.times"
}

names=(plain collapse collapse-1thread plain-1thread)
for name in "${names[@]}"; do : > "$dir/$name.times"; done
for _ in $(seq "$runs"); do
  measure plain "$pidcanon" rewrite -q -i nt "$corpus"
  measure collapse "$pidcanon" rewrite -q -i nt --collapse --allow-large-classes "$corpus"
  measure plain-1thread "$pidcanon" rewrite -q --threads 1 -i nt "$corpus"
  measure collapse-1thread "$pidcanon" rewrite -q --threads 1 -i nt --collapse --allow-large-classes "$corpus"
done
"$pidcanon" rewrite -i nt --collapse --allow-large-classes "$corpus" 2>&1 >/dev/null | grep -- '--collapse' || true

python3 - "$dir" "$triples" <<'PY'
import statistics, sys
dir, triples = sys.argv[1], int(sys.argv[2])
def stats(name):
    rows = [tuple(map(float, l.split())) for l in open(f"{dir}/{name}.times") if l.strip()]
    return statistics.median(r[0] for r in rows), max(r[1] for r in rows)
print(f"| {triples:,} statements, 1 % sameAs | median wall | statements/s | peak RSS | vs plain |")
print("|---|---|---|---|---|")
for label, name, base in [
    ("plain rewrite, all cores", "plain", None),
    ("--collapse (two passes), all cores", "collapse", "plain"),
    ("plain rewrite, 1 thread", "plain-1thread", None),
    ("--collapse (two passes), 1 thread", "collapse-1thread", "plain-1thread"),
]:
    wall, rss = stats(name)
    ratio = f"{stats(base)[0] / wall:.2f}×" if base else "1.00×"
    print(f"| {label} | {wall:.2f} s | {triples / wall:,.0f} | {rss / 1024:.0f} MB | {ratio} |")
PY

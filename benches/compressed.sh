#!/usr/bin/env bash
# pidcanon rewrite of one N-Triples corpus read plain, gzip- and zstd-compressed (decompressed on
# a thread of its own), NT->NT on all cores. Prints a Markdown table: median wall time and MB/s of
# *uncompressed* N-Triples.
#
# usage: benches/compressed.sh [TRIPLES (default 1000000)] [RUNS (default 3)]
# Needs python3 (for benches/gen_rdf.py or $GEN_CORPUS), GNU time, gzip, zstd, bzip2.
set -euo pipefail
cd "$(dirname "$0")/.."
triples=${1:-1000000}
runs=${2:-3}
gen=${GEN_CORPUS:-benches/gen_rdf.py}
dir=${BENCH_DIR:-target/bench}
mkdir -p "$dir"

cargo build --release --quiet --bin pidcanon
pidcanon=target/release/pidcanon
corpus="$dir/gen_rdf-$triples.nt"
[ -s "$corpus" ] || python3 "$gen" --triples "$triples" --seed 1 --format nt -o "$corpus"
[ -s "$corpus.gz" ] || gzip -k -6 "$corpus"
[ -s "$corpus.zst" ] || zstd -q -3 -k "$corpus"
[ -s "$corpus.bz2" ] || bzip2 -k "$corpus"

for input in "$corpus" "$corpus.gz" "$corpus.zst" "$corpus.bz2"; do
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "$input %e" -o "$dir/compressed.last" "$pidcanon" rewrite -q "$input" > /dev/null
    cat "$dir/compressed.last"
  done
done > "$dir/compressed.times"

python3 - "$dir/compressed.times" "$corpus" <<'PY'
import os, statistics, sys
times, corpus = sys.argv[1], sys.argv[2]
rows = {}
for line in open(times):
    name, seconds = line.split()
    rows.setdefault(name, []).append(float(seconds))
size = os.path.getsize(corpus)
print(f"| {size / 1e6:.0f} MB of N-Triples | file size | median wall | MB/s (uncompressed) |")
print("|---|---|---|---|")
for name, seconds in rows.items():
    wall = statistics.median(seconds)
    label = "plain" if name == corpus else name.rsplit(".", 1)[1]
    print(f"| {label} | {os.path.getsize(name) / 1e6:.0f} MB | {wall:.2f} s | {size / 1e6 / wall:.0f} |")
PY

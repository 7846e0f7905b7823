#!/usr/bin/env bash
# `pidcanon rewrite STORE` over a generated Fedora 3 objectStore (benches/gen_foxml_store.py):
# objects/s and MB/s of FOXML read, with 1 and 2 threads, and the peak RSS — also for a store a
# tenth the size, to show memory does not grow with the store. Median of RUNS runs, after one
# run to warm the page cache. Prints one Markdown table.
#
# usage: benches/foxml_bench.sh [OBJECTS (default 100000)] [RUNS (default 3)]
# Needs python3 and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
objects=${1:-100000}
runs=${2:-3}
dir=${BENCH_DIR:-target/bench}
mkdir -p "$dir"

cargo build --release --quiet --bin pidcanon
pidcanon=target/release/pidcanon

# store OBJECTS: the path of a generated store of that many objects (made once).
store() {
  local path="$dir/foxml-store-$1"
  [ -f "$path/.complete" ] || {
    rm -rf "$path"
    python3 benches/gen_foxml_store.py --objects "$1" --out "$path" >&2
    touch "$path/.complete"
  }
  echo "$path"
}

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| objects | threads | flags | objects/s | MB/s | peak RSS (MB) |"
echo "|---:|---:|---|---:|---:|---:|"
for n in "$objects" $((objects / 10)); do
  path=$(store "$n")
  # Only the object files count (the generator's marker is empty).
  megabytes=$(find "$path" -type f -printf '%s\n' | awk '{s+=$1} END {printf "%.1f", s/1e6}')
  for threads in 1 2; do
    for flags in "" "--foxml-properties"; do
      [ "$n" = "$objects" ] || [ -z "$flags" ] || continue
      # shellcheck disable=SC2086
      "$pidcanon" rewrite -q --threads "$threads" $flags "$path" > /dev/null
      : > "$dir/foxml.times"
      for _ in $(seq "$runs"); do
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %M" -a -o "$dir/foxml.times" \
          "$pidcanon" rewrite -q --threads "$threads" $flags "$path" > /dev/null
      done
      seconds=$(awk '{print $1}' "$dir/foxml.times" | median)
      rss=$(awk '{print $2}' "$dir/foxml.times" | median)
      awk -v n="$n" -v t="$threads" -v f="${flags:-—}" -v s="$seconds" -v mb="$megabytes" -v r="$rss" \
        'BEGIN {printf "| %d | %d | %s | %.0f | %.1f | %.1f |\n", n, t, f, n/s, mb/s, r/1024}'
    done
  done
done

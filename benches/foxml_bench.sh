#!/usr/bin/env bash
# `pidcanon rewrite STORE` over a generated Fedora 3 objectStore (benches/gen_foxml_store.py):
# wall seconds, objects/s and MB/s of FOXML read, CPU seconds (user + system) and peak RSS, with
# 1 and 2 threads — also for a store a quarter the size, to show memory does not grow with the
# store. Each case: one run to warm the page cache (its output hashed: every case of one store
# must write the same bytes), then the median of RUNS runs. The machine's 1-minute load average
# is printed with each case: on a shared machine, wall time counts the other processes' work too.
# Prints one Markdown table.
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

# store OBJECTS: the path of a generated store of that many objects (made once; the marker that
# it is complete stands beside it, since every file in a store is read as an object).
store() {
  local path="$dir/foxml-store-$1"
  [ -f "$path.complete" ] || {
    rm -rf "$path"
    python3 benches/gen_foxml_store.py --objects "$1" --out "$path" >&2
    touch "$path.complete"
  }
  echo "$path"
}

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

load() { cut -d' ' -f1 /proc/loadavg; }

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), median of $runs runs"
echo
echo "| objects | threads | flags | seconds | objects/s | MB/s | CPU s | peak RSS (MB) | load |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|"
for n in "$objects" $((objects / 4)); do
  path=$(store "$n")
  megabytes=$(find "$path" -type f -printf '%s\n' | awk '{s+=$1} END {printf "%.1f", s/1e6}')
  for flags in "" "--foxml-properties"; do
    [ "$n" = "$objects" ] || [ -z "$flags" ] || continue
    expected=""
    for threads in 1 2; do
      # shellcheck disable=SC2086
      digest=$("$pidcanon" rewrite -q --threads "$threads" $flags "$path" | sha256sum)
      if [ -n "$expected" ] && [ "$digest" != "$expected" ]; then
        echo "$path $flags: $threads threads write other bytes than 1 thread" >&2
        exit 1
      fi
      expected=$digest
      before=$(load)
      : > "$dir/foxml.times"
      for _ in $(seq "$runs"); do
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %U %S %M" -a -o "$dir/foxml.times" \
          "$pidcanon" rewrite -q --threads "$threads" $flags "$path" > /dev/null
      done
      seconds=$(awk '{print $1}' "$dir/foxml.times" | median)
      cpu=$(awk '{print $2 + $3}' "$dir/foxml.times" | median)
      rss=$(awk '{print $4}' "$dir/foxml.times" | median)
      awk -v n="$n" -v t="$threads" -v f="${flags:-—}" -v s="$seconds" -v mb="$megabytes" \
        -v c="$cpu" -v r="$rss" -v l="$before–$(load)" \
        'BEGIN {printf "| %d | %d | %s | %.2f | %.0f | %.1f | %.2f | %.1f | %s |\n",
                n, t, f, s, n/s, mb/s, c, r/1024, l}'
    done
  done
done

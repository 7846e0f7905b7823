#!/usr/bin/env bash
# pidcanon rewrite against a plain oxttl parse -> N-Triples serialize pass-through
# (examples/passthrough.rs), both built by one `cargo build --release` (Cargo.toml's release
# profile: fat LTO, one codegen unit), measured in one run with the commands alternating.
#
# Prints Markdown: the date, the machine (cores, load average) and one table with, per case, the
# median wall time, MB/s, peak RSS and the time ratio against the pass-through run just before
# it (median and min–max over the runs; below 1 is faster). CPU time (user + system) ratios are
# printed too: on a loaded machine wall time measures the other processes as much as these.
#
# usage: benches/compare.sh [TRIPLES (default 1000000)] [RUNS (default 5)] [--memory]
#   --memory  also rewrites a corpus 4× as large once per case and prints the peak RSS of both
#             sizes (with --dedup on N-Triples too), to show that memory stays flat.
# Needs python3 (for the corpus generator, benches/gen_rdf.py or $GEN_CORPUS) and
# GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
memory=false
args=()
for arg in "$@"; do
  if [ "$arg" = --memory ]; then memory=true; else args+=("$arg"); fi
done
triples=${args[0]:-1000000}
runs=${args[1]:-5}
gen=${GEN_CORPUS:-benches/gen_rdf.py}
dir=${BENCH_DIR:-target/bench}
mkdir -p "$dir"

cargo build --release --quiet --bin pidcanon --example passthrough
pidcanon=target/release/pidcanon
passthrough=target/release/examples/passthrough

# corpus TRIPLES FORMAT: the path of the generated corpus (generated once).
corpus() {
  local path="$dir/gen_rdf-$1.$2"
  if [ ! -s "$path" ]; then
    python3 "$gen" --triples "$1" --seed 1 --format "$2" -o "$path" || return 1
  fi
  echo "$path"
}
nt=$(corpus "$triples" nt)
ttl=$(corpus "$triples" ttl)
trig=$(corpus "$triples" trig)

# measure NAME COMMAND...: one run, appends "wall user system kilobytes" to $dir/NAME.times
measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$dir/$name.last" "$@" > /dev/null
  cat "$dir/$name.last" >> "$dir/$name.times"
}

# Each case: NAME BASELINE INPUT PIDCANON-ARGS...; the baseline runs just before it, every run.
cases=(
  "nt-1|pass-nt|$nt|--threads 1 -i nt"
  "nt-2|pass-nt|$nt|--threads 2 -i nt"
  "ttl-1|pass-ttl|$ttl|--threads 1 -i ttl --to nt"
  "ttl-2|pass-ttl|$ttl|--threads 2 -i ttl --to nt"
  "trig-1|pass-trig|$trig|--threads 1 -i trig --to nq"
)
for case in "${cases[@]}"; do
  IFS='|' read -r name _ _ _ <<< "$case"
  : > "$dir/$name.times"
  : > "$dir/$name.base.times"
done
for _ in $(seq "$runs"); do
  for case in "${cases[@]}"; do
    IFS='|' read -r name base input options <<< "$case"
    # shellcheck disable=SC2086 # the options are words
    measure "$name.base" sh -c "$passthrough ${base#pass-} < $input"
    # shellcheck disable=SC2086
    measure "$name" "$pidcanon" rewrite -q $options "$input"
  done
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $runs alternating runs of $triples statements:"
echo
python3 - "$dir" "$nt" "$ttl" "$trig" "$triples" <<'PY'
import os, statistics, sys
dir, nt, ttl, trig, triples = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
def rows(name):
    return [tuple(map(float, l.split())) for l in open(f"{dir}/{name}.times") if l.strip()]
def spread(values):
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"
print("| case | median wall | MB/s | peak RSS | time vs pass-through: wall | CPU |")
print("|---|---|---|---|---|---|")
for label, name, path in [
    ("NT→NT, `--threads 1`", "nt-1", nt),
    ("NT→NT, `--threads 2`", "nt-2", nt),
    ("TTL→NT, `--threads 1`", "ttl-1", ttl),
    ("TTL→NT, `--threads 2`", "ttl-2", ttl),
    ("TriG→NQ, `--threads 1`", "trig-1", trig),
]:
    size = os.path.getsize(path) / 1e6
    for who, runs in (("pass-through", rows(f"{name}.base")), ("pidcanon", rows(name))):
        wall = statistics.median(r[0] for r in runs)
        rss = max(r[3] for r in runs) / 1024
        if who == "pidcanon":
            base = rows(f"{name}.base")
            walls = [r[0] / b[0] for r, b in zip(runs, base)]
            cpus = [(r[1] + r[2]) / (b[1] + b[2]) for r, b in zip(runs, base)]
            ratios = f"{spread(walls)} | {spread(cpus)}"
            title = label
        else:
            ratios = "1 | 1"
            title = f"{label.split(',')[0]} pass-through"
            if name.endswith("-2"):
                continue
        print(f"| {title} | {wall:.2f} s | {size / wall:.0f} | {rss:.0f} MB | {ratios} |")
PY

if $memory; then
  large=$((triples * 4))
  echo
  echo "| peak RSS | $triples statements | $large statements | growth per statement |"
  echo "|---|---|---|---|"
  for case in "NT→NT, \`--threads 1\`|-i nt --threads 1|nt" "NT→NT, \`--threads 2\`|-i nt --threads 2|nt" \
    "TTL→NT, \`--threads 1\`|-i ttl --to nt --threads 1|ttl" "TTL→NT, \`--threads 2\`|-i ttl --to nt --threads 2|ttl" \
    "TriG→NQ, \`--threads 1\`|-i trig --to nq --threads 1|trig" "NT→NT, \`--dedup\`|-i nt --dedup|nt"; do
    IFS='|' read -r label options format <<< "$case"
    line="| $label |"
    kilobytes=()
    for input in "$(corpus "$triples" "$format")" "$(corpus "$large" "$format")"; do
      # shellcheck disable=SC2086
      /usr/bin/time -f "%M" -o "$dir/memory.last" "$pidcanon" rewrite -q $options "$input" > /dev/null
      kilobytes+=("$(cat "$dir/memory.last")")
      line="$line $((kilobytes[-1] / 1024)) MB |"
    done
    echo "$line $(((kilobytes[1] - kilobytes[0]) * 1024 / (large - triples))) bytes |"
  done
fi

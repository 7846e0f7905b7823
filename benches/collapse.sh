#!/usr/bin/env bash
# Throughput of `rewrite --collapse` (two passes) against a plain rewrite, on N-Triples where 10 %
# of the statements are owl:sameAs links in classes of 2-50 members, the shape of sameAs.cc
# (benches/gen_rdf.py, then benches/sameas_corpus.py). Prints three Markdown tables: median wall
# time, statements/s, peak RSS and the ratio to the plain rewrite (alternating runs); then the
# memory per class member: the peak RSS of --collapse on the corpus and on one 4x as large, the
# growth divided by the members added (also with mimalloc giving freed pages back at once); then
# where the time of --collapse on one thread goes: the same corpus with its owl:sameAs predicates
# renamed (the first pass reads it and finds nothing, the second pass is a plain rewrite), and
# the classes given as a TSV file (--equivalences-only: one pass over the data, with the
# classes' look-ups, less the time of reading the TSV file alone).
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

# sameas_corpus TRIPLES: the path of the corpus (made once); its "N classes, M members" beside it.
sameas_corpus() {
  local plain="$dir/gen_rdf-$1.nt" corpus="$dir/gen_rdf-$1-sameas10.nt"
  [ -s "$plain" ] || python3 "$gen" --triples "$1" --seed 1 --format nt -o "$plain"
  if [ ! -s "$corpus" ]; then
    "$pidcanon" rewrite -q -i nt "$plain" -o "$dir/gen_rdf-$1-canonical.nt"
    python3 benches/sameas_corpus.py "$dir/gen_rdf-$1-canonical.nt" < "$plain" > "$corpus" \
      2> "$corpus.members"
  fi
  echo "$corpus"
}
corpus=$(sameas_corpus "$triples")

measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/$name.last" "$@" > /dev/null
  cat "$dir/$name.last" >> "$dir/$name.times"
}

# The corpus's equivalences as a TSV file, and the corpus with its sameAs predicates renamed.
pairs="$corpus.pairs.tsv"
none="${corpus%.nt}-none.nt"
if [ ! -s "$pairs" ]; then
  grep -F '<http://www.w3.org/2002/07/owl#sameAs>' "$corpus" \
    | sed -E 's/^<([^>]*)> <[^>]*> <([^>]*)> \.$/\1\t\2/' > "$pairs.all"
  # Without the pairs a mapping file refuses (invalid identifiers, N-Triples escapes), which the
  # first pass leaves out: the lines pidcanon names.
  "$pidcanon" rewrite -q --collapse --equivalences-only --equivalences "$pairs.all" -i nt /dev/null \
    2>&1 | sed -nE 's/^[^ ]*pairs\.tsv\.all:([0-9]+): .*/\1/p' | sort -un > "$pairs.refused" || true
  awk -v list="$pairs.refused" 'BEGIN { while ((getline n < list) > 0) refused[n] } !(FNR in refused)' \
    "$pairs.all" > "$pairs"
fi
[ -s "$none" ] || sed 's|<http://www.w3.org/2002/07/owl#sameAs>|<http://example.org/notSameAs>|' \
  "$corpus" > "$none"

names=(plain collapse collapse-1thread plain-1thread none-1thread given-1thread tsv-1thread)
for name in "${names[@]}"; do : > "$dir/$name.times"; done
for _ in $(seq "$runs"); do
  measure plain "$pidcanon" rewrite -q -i nt "$corpus"
  measure collapse "$pidcanon" rewrite -q -i nt --collapse "$corpus"
  measure plain-1thread "$pidcanon" rewrite -q --threads 1 -i nt "$corpus"
  measure collapse-1thread "$pidcanon" rewrite -q --threads 1 -i nt --collapse "$corpus"
  measure none-1thread "$pidcanon" rewrite -q --threads 1 -i nt --collapse "$none"
  measure given-1thread "$pidcanon" rewrite -q --threads 1 -i nt --collapse \
    --equivalences-only --equivalences "$pairs" "$corpus"
  measure tsv-1thread "$pidcanon" rewrite -q --threads 1 -i nt --collapse \
    --equivalences-only --equivalences "$pairs" /dev/null
done
"$pidcanon" rewrite -i nt --collapse "$corpus" 2>&1 >/dev/null | grep -- '--collapse' || true

python3 - "$dir" "$triples" <<'PY'
import statistics, sys
dir, triples = sys.argv[1], int(sys.argv[2])
def stats(name):
    rows = [tuple(map(float, l.split())) for l in open(f"{dir}/{name}.times") if l.strip()]
    return statistics.median(r[0] for r in rows), max(r[1] for r in rows)
print(f"| {triples:,} statements, 10 % sameAs | median wall | statements/s | peak RSS | vs plain |")
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

# Memory per class member: --collapse on one thread, on the corpus and on one 4x as large.
large=$((triples * 4))
large_corpus=$(sameas_corpus "$large")
members() { sed -E 's/.* ([0-9]+) members/\1/' "$1.members"; }
# peak CORPUS [VAR=VALUE…]: the peak RSS of --collapse on CORPUS, in KB, with those variables set.
peak() {
  env "${@:2}" /usr/bin/time -f "%M" -o "$dir/memory.last" \
    "$pidcanon" rewrite -q --threads 1 -i nt --collapse "$1" > /dev/null
  cat "$dir/memory.last"
}
# mimalloc keeps the pages it frees for a while and maps memory in large pages: told to give
# freed pages back at once and to map small ones, the peak RSS shows what the heap holds.
returning=(MIMALLOC_PURGE_DELAY=0 MIMALLOC_ARENA_EAGER_COMMIT=0 MIMALLOC_ALLOW_LARGE_OS_PAGES=0)
# gathered CORPUS: what the classes took while they were gathered, as --collapse prints it.
gathered() {
  "$pidcanon" rewrite --threads 1 -i nt --collapse "$1" 2>&1 > /dev/null \
    | sed -nE 's/.*gathered in ([0-9.]+) MB, ([0-9]+) bytes an identifier.*/\1 MB (\2 bytes an identifier)/p'
}
small_kb=$(peak "$corpus"); large_kb=$(peak "$large_corpus")
small_returning_kb=$(peak "$corpus" "${returning[@]}")
large_returning_kb=$(peak "$large_corpus" "${returning[@]}")
small_members=$(members "$corpus"); large_members=$(members "$large_corpus")
echo
echo "| --collapse, 1 thread | $triples statements | $large statements | per class member added |"
echo "|---|---|---|---|"
echo "| class members | $small_members | $large_members | |"
echo "| classes gathered in (heap) | $(gathered "$corpus") | $(gathered "$large_corpus") | |"
per_member() { echo "$((($2 - $1) * 1024 / (large_members - small_members))) bytes"; }
echo "| peak RSS | $((small_kb / 1024)) MB | $((large_kb / 1024)) MB | $(per_member "$small_kb" "$large_kb") |"
echo "| peak RSS, freed pages given back at once, no large pages (${returning[*]}) | $((small_returning_kb / 1024)) MB | $((large_returning_kb / 1024)) MB | $(per_member "$small_returning_kb" "$large_returning_kb") |"

python3 - "$dir" <<'PY'
import statistics, sys
dir = sys.argv[1]
def wall(name):
    return statistics.median(float(l.split()[0]) for l in open(f"{dir}/{name}.times") if l.strip())
plain, none, given, tsv, full = (
    wall(n) for n in ["plain-1thread", "none-1thread", "given-1thread", "tsv-1thread", "collapse-1thread"]
)
print()
print("| where the time of --collapse goes, 1 thread | median wall | over the plain rewrite |")
print("|---|---|---|")
for label, t in [
    ("plain rewrite", plain),
    ("--collapse, its sameAs predicates renamed (the first pass finds nothing)", none),
    ("--collapse, the classes given as TSV (one pass: gathering them, the look-ups)", given),
    ("--collapse (two passes)", full),
]:
    print(f"| {label} | {t:.2f} s | +{t - plain:.2f} s |")
print(f"| … the classes from the TSV alone (an empty input) | {tsv:.2f} s | |")
print()
print(f"The second pass's work with the classes (look-ups, links, more IRIs rewritten):"
      f" +{given - tsv - plain:.2f} s; the first pass's reading of the file: +{none - plain:.2f} s;"
      f" its gathering of the classes from the equivalence lines:"
      f" +{full - none - (given - tsv - plain):.2f} s.")
PY

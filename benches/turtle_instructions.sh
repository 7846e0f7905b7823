#!/bin/sh
# Instructions per statement of TTL→NT on one thread, pidcanon against the oxttl pass-through
# (examples/passthrough.rs), counted by callgrind — figures that, unlike times, do not move with
# the load of a shared machine — with the data-cache and instruction-cache misses of callgrind's
# cache model, and where pidcanon's instructions go (inclusive, per statement).
# Usage: benches/turtle_instructions.sh [STATEMENTS (default 200000)]
# Needs valgrind and python3 (the corpus generator, benches/gen_rdf.py or $GEN_CORPUS).
set -eu
cd "$(dirname "$0")/.."
statements=${1:-200000}
gen=${GEN_CORPUS:-benches/gen_rdf.py}
dir=${BENCH_DIR:-target/bench}
mkdir -p "$dir"
cargo build --release --quiet --bin pidcanon --example passthrough
ttl="$dir/gen_rdf-$statements.ttl"
[ -s "$ttl" ] || python3 "$gen" --triples "$statements" --seed 1 --format ttl -o "$ttl"

# profile NAME COMMAND...: callgrind with its cache model, into $dir/NAME.callgrind
profile() {
    name=$1
    shift
    valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$dir/$name.callgrind" "$@" \
        2>"$dir/$name.callgrind.log" >/dev/null
}
profile passthrough target/release/examples/passthrough ttl <"$ttl"
profile pidcanon target/release/pidcanon rewrite -q --threads 1 -i ttl --to nt "$ttl" -o /dev/null

python3 - "$dir" "$statements" <<'PY'
import re, subprocess, sys
dir, n = sys.argv[1], int(sys.argv[2])

def totals(name):
    log = open(f"{dir}/{name}.callgrind.log").read()
    def count(label):
        return int(re.search(label + r":\s+([\d,]+)", log).group(1).replace(",", ""))
    return count("I   refs"), count("I1  misses"), count("D1  misses")

def inclusive(name):
    out = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", f"{dir}/{name}.callgrind"],
        capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \(.*?\)\s+\S*?:(.*?) \[", line)
        if m:
            found.setdefault(m.group(2), int(m.group(1).replace(",", "")))
    return found

print(f"TTL→NT, one thread, {n} statements, per statement:")
print()
print("| | instructions | I1 misses | D1 misses |")
print("|---|---|---|---|")
for name in ("passthrough", "pidcanon"):
    ir, i1, d1 = totals(name)
    print(f"| {name} | {ir / n:.0f} | {i1 / n:.1f} | {d1 / n:.1f} |")
print()
parts = [
    ("parse: the fast path (pidcanon's own)", "pidcanon::read::turtle::Groups::read"),
    ("parse: oxttl, fed line by line (what the fast path leaves)", "pidcanon::read::line_parser::LineParser::next"),
    ("lines read (read_until)", "std::io::BufRead::read_until"),
    ("map a statement: labels + IRIs", "pidcanon::rewrite::graph::worker::GraphWorker::map_one"),
    ("  cache look-ups (hits and misses)", "pidcanon::rewrite::cache::Cache::lookup"),
    ("  adapters on a cache miss", "pidcanon::rewrite::cache::resolve"),
    ("write the N-Triples line", "pidcanon::rewrite::graph::sink::GraphSink::put"),
    ("free the statement", "core::ptr::drop_in_place<oxrdf::triple::Quad>"),
    ("apply what was found, output", "pidcanon::rewrite::graph::apply"),
]
found = inclusive("pidcanon")
print("| pidcanon, where (inclusive) | instructions per statement |")
print("|---|---|")
for label, function in parts:
    if function in found:
        print(f"| {label} | {found[function] / n:.0f} |")
PY

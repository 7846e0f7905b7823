#!/usr/bin/env bash
# Seeds the differential fuzz targets' corpora (fuzz/corpus/<target>/) from the W3C suites, the
# real corpus and the examples under fixtures/: at most SEEDS (250) files of at most MAX_BYTES
# (16 KiB) each per target, spread evenly over the sorted list of candidates, each named by the
# SHA-1 of its content as libFuzzer names its own. Targets that read options from their first
# byte get one in front (cycling over a few); the structure-aware targets, whose bytes are
# choices, get the first 512 bytes of Turtle files (any bytes make a document).
# Idempotent: a file already there is written again with the same name. See docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${SEEDS:-250}
MAX_BYTES=${MAX_BYTES:-16384}
SOURCES=(fixtures/w3c fixtures/real fixtures/examples)

# candidates EXT...: the fixture files with one of these extensions, small enough, sorted.
candidates() {
  local args=() ext
  for ext in "$@"; do args+=(-o -name "*.$ext"); done
  find "${SOURCES[@]}" -type f -size -"$MAX_BYTES"c \( "${args[@]:1}" \) | LC_ALL=C sort
}

# seed TARGET HEAD_BYTES PREFIXES... < list: copies every n-th listed file to the corpus, with
# the next of PREFIXES (printf escapes, "" for none) in front; HEAD_BYTES > 0 keeps only that
# many bytes of each file.
seed() {
  local target=$1 head=$2 i=0 n file prefix tmp
  shift 2
  local prefixes=("$@")
  mapfile -t files
  n=${#files[@]}
  [ "$n" -gt 0 ] || return 0
  mkdir -p "fuzz/corpus/$target"
  tmp=$(mktemp)
  local step=$(((n + SEEDS - 1) / SEEDS))
  for ((k = 0; k < n; k += step)); do
    file=${files[$k]}
    prefix=${prefixes[$((i % ${#prefixes[@]}))]}
    i=$((i + 1))
    {
      printf "$prefix"
      if [ "$head" -gt 0 ]; then head -c "$head" "$file"; else cat "$file"; fi
    } >"$tmp"
    cp "$tmp" "fuzz/corpus/$target/$(sha1sum "$tmp" | cut -c1-40)"
  done
  rm -f "$tmp"
  echo "$target: $(ls "fuzz/corpus/$target" | wc -l) files"
}

candidates ttl | seed turtle_fast_vs_oxttl 0 ""
candidates trig | seed trig_fast_vs_oxttl 0 ""
# turtle_threads' first byte: bit 0 lenient, bit 1 Turtle out, bit 2 structured, bits 3-7
# the piece size (1 + 8 * n bytes).
candidates ttl | seed turtle_threads 0 '\x00' '\x01' '\x02' '\x0b' '\x19' '\x40'
# ntriples_scanner_vs_oxttl's first byte: bit 0 N-Quads.
candidates nt | seed ntriples_scanner_vs_oxttl 0 '\x00'
candidates nq | seed ntriples_scanner_vs_oxttl 0 '\x01'
candidates rdf xml rdfs owl | seed rdfxml_legacy_vs_oxrdfxml 0 ""
candidates ttl | seed turtle_fast_vs_oxttl_structured 512 ""
candidates ttl | SEEDS=100 seed turtle_lenient 512 ""
candidates nt | SEEDS=100 seed collapse 512 ""

#!/bin/sh
# Instructions per identifier of the Python binding's calls on the DOIs of python_bench.py,
# counted by callgrind: figures that, unlike the times of python_bench.py, do not move with the
# load of a shared machine. The loop alone (`for x in items: pass`) is subtracted; the Rust
# canonicalization is inside every figure (compare with benches/canon_instructions.sh).
# Usage: benches/python_instructions.sh [python]   (default target/venvs/python/bin/python,
# with the package installed; needs valgrind)
set -eu
cd "$(dirname "$0")/.."
python=${1:-target/venvs/python/bin/python}
runs=30000
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$python" -c "
import sys, pidcanon
DOIS = ['doi:10.1371/JOURNAL.PONE.0042793', 'https://doi.org/10.1000/182',
        'http://dx.doi.org/10.1038/nphys1170', '10.1234/foo.bar',
        'https://doi.org/10.5281/zenodo.1234567',
        'doi:10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI3>3.0.CO;2-0']
items = DOIS * ($1 // len(DOIS))
canonicalize, normalize_doi, many = pidcanon.canonicalize, pidcanon.normalize_doi, pidcanon.canonicalize_many
$2
" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_item() {
    echo $((($(count "$runs" "$1") - $(count 0 "$1") - loop) / runs))
}
loop=$(($(count "$runs" 'for x in items: pass') - $(count 0 'for x in items: pass')))
"$python" -c 'import sys; print("Python", sys.version.split()[0])'
printf '%-50s %s\n' 'call (per DOI)' 'instructions'
printf '%-50s %s\n' 'canonicalize(x, scheme="doi")' "$(per_item 'for x in items: canonicalize(x, scheme="doi")')"
printf '%-50s %s\n' 'canonicalize(x, "doi")' "$(per_item 'for x in items: canonicalize(x, "doi")')"
printf '%-50s %s\n' 'normalize_doi(x)' "$(per_item 'for x in items: normalize_doi(x)')"
printf '%-50s %s\n' 'canonicalize_many(items, scheme="doi"), per item' "$(per_item 'many(items, scheme="doi")')"
# idutils' normalize_doi, the issue's yardstick, if it is installed (`pip install idutils`).
if "$python" -c 'import idutils' 2>/dev/null; then
    printf '%-50s %s\n' 'idutils.normalize_doi(x)' "$(per_item 'from idutils import normalize_doi as idutils_doi
for x in items: idutils_doi(x)')"
fi

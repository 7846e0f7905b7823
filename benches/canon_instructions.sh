#!/bin/sh
# Instructions per `Registry::canonicalize` call for the cases of benches/canonicalize.rs, counted
# by callgrind: a figure that, unlike a time, does not move with the load of a shared machine.
# Usage: benches/canon_instructions.sh   (needs valgrind; builds the example in release mode)
set -eu
cd "$(dirname "$0")/.."
cargo build --quiet --release --example canonicalize_repeat
bin=target/release/examples/canonicalize_repeat
runs=2000
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
base=$(instructions 0)
while read -r kind id; do
    total=$(instructions "$runs" "$id")
    printf '%-30s %6d  %s\n' "$kind" $(((total - base) / runs)) "$id"
done <<'CASES'
fedora/canonical info:fedora/demo:A-B.C_D%3AE
fedora/variant INFO:FEDORA/demo%3aA-B.C_D%3ae
fedora-dissemination/canonical info:fedora/demo:1/demo:MyBDef/method?a=1&b=2
fedora-dissemination/variant info:fedora/demo%3A1/demo:MyBDef/method?b=2&a=1
oai/canonical oai:arXiv.org:hep-th/9901001
poi/canonical http://purl.org/poi/arXiv.org/hep-th/9901001
poi/variant HTTPS://PURL.ORG/poi/arXiv.org/hep-th/9901001
handle/canonical hdl:10013/epic.10033
handle/variant https://hdl.handle.net/10013%2Fepic.10033
doi/canonical https://doi.org/10.1371/journal.pone.0042793
doi/variant http://dx.doi.org/10.1371/JOURNAL.PONE.0042793
pdi/canonical urn:pdi://oma.eop.gov.us/1997/09/01/1.text.1#char=37,51
pdi/variant pdi://oma.eop.gov.us/1997/09/01/1.TEXT.1#37,51
CASES

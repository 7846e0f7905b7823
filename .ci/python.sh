#!/usr/bin/env bash
# The Python binding (python/), as its users get it: lints its Rust crate and its Python code,
# builds the abi3 wheel (manylinux) and the sdist with maturin, then installs the wheel into a
# new virtual environment and, with no Rust toolchain on PATH, checks the type stubs against
# the module and runs the tests and doctests against that install (the tests compare with the
# command line built here). No test may be skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$SECONDS

# The manylinux tag of the wheel. Building on a glibc newer than the tag's, maturin links with
# zig (from PyPI), which targets the tag's glibc; maturin checks the wheel against the tag
# (its auditwheel check) either way.
manylinux=2_28

# Build tools: maturin (and zig when needed), ruff. This venv is kept between runs.
build=target/venvs/python-build
python3 -m venv "$build"
"$build/bin/pip" install -q --upgrade pip
glibc=$(python3 -c 'import platform; print(platform.libc_ver()[1])')
zig=()
if [ -z "$glibc" ] || [ "$(printf '%s\n' "${manylinux/_/.}" "$glibc" | sort -V | tail -1)" != "${manylinux/_/.}" ]; then
  # Not glibc, or a glibc newer than the tag's: maturin's zig extra pins a ziglang it supports.
  zig=(--zig)
  "$build/bin/pip" install -q "maturin[zig]>=1.5,<2" ruff
else
  "$build/bin/pip" install -q "maturin>=1.5,<2" ruff
fi

# Lints (these need the Rust toolchain).
(cd python && cargo fmt -- --check && cargo clippy --all-targets -- -D warnings)
(cd python && "$root/$build/bin/ruff" check && "$root/$build/bin/ruff" format --check)

# The wheel and the sdist.
dist=target/python-dist
rm -rf "$dist"
# The build venv's bin on PATH: maturin runs zig as `python -m ziglang`.
PATH="$root/$build/bin:$PATH" "$build/bin/maturin" build --quiet --release --manifest-path python/Cargo.toml \
  --compatibility "manylinux_$manylinux" "${zig[@]}" --out "$dist"
"$build/bin/maturin" sdist --manifest-path python/Cargo.toml --out "$dist"
wheels=("$dist"/*.whl)
sdists=("$dist"/*.tar.gz)
if [ ${#wheels[@]} -ne 1 ] || [ ! -f "${wheels[0]}" ] || [ ${#sdists[@]} -ne 1 ] || [ ! -f "${sdists[0]}" ]; then
  echo "python.sh: expected one wheel and one sdist in $dist:" "$dist"/* >&2
  exit 1
fi
wheel=$root/${wheels[0]}
# name-version-python-abi-platform.whl: an abi3 wheel with a manylinux platform tag, never the
# plain linux_x86_64 that pip installs only where it was built.
tags=$(basename "$wheel" .whl | cut -d- -f3-)
echo "python.sh: wheel $(basename "$wheel") (tag $tags), sdist $(basename "${sdists[0]}")"
case "$tags" in
  *-abi3-manylinux_*) ;;
  *)
    echo "python.sh: the wheel's tag $tags is not an abi3 manylinux one" >&2
    exit 1
    ;;
esac
# The sdist carries the library it builds from (a path dependency) and the Python sources.
sdist_files=$(tar -tzf "${sdists[0]}")
for f in pyproject.toml python/Cargo.toml python/src/lib.rs pidcanon/__init__.py pidcanon/_pidcanon.pyi src/lib.rs Cargo.toml; do
  if ! grep -qx "[^/]*/$f" <<<"$sdist_files"; then
    echo "python.sh: the sdist has no $f" >&2
    exit 1
  fi
done

# Disk: in CI, the build tools (zig alone is 400 MB) and the binding's build go once the wheel
# is made.
if [ "${CI:-}" = true ]; then rm -rf "$build" python/target; fi

# The command line the tests compare with, built while Rust is still on PATH.
cargo build --release --quiet --bin pidcanon
cli=$root/target/release/pidcanon

# From here on, no Rust toolchain: PATH without any directory that holds cargo, rustc or rustup.
norust_path=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  if [ -z "$d" ] || [ -e "$d/cargo" ] || [ -e "$d/rustc" ] || [ -e "$d/rustup" ]; then continue; fi
  norust_path=${norust_path:+$norust_path:}$d
done
norust=(env -u CARGO -u RUSTC -u RUSTUP_TOOLCHAIN -u CARGO_HOME -u RUSTUP_HOME "PATH=$norust_path")
if "${norust[@]}" sh -c 'command -v cargo || command -v rustc || command -v rustup'; then
  echo "python.sh: a Rust toolchain is still on PATH ($norust_path)" >&2
  exit 1
fi

# A new virtual environment each run, with the wheel (never a build from source) and what the
# tests need. benches/python_bench.py runs in it too.
venv=target/venvs/python
python3 -m venv --clear "$venv"
py=$root/$venv/bin/python
"${norust[@]}" "$py" -m pip install -q --upgrade pip
"${norust[@]}" "$py" -m pip install -q --only-binary=:all: "$wheel" pytest rdflib pyoxigraph mypy

# From a directory without python/pidcanon on sys.path: the installed package is tested.
cd target
"${norust[@]}" "$py" -c 'import pathlib, sys, pidcanon
p = pathlib.Path(pidcanon.__file__).resolve()
assert pathlib.Path(sys.prefix).resolve() in p.parents, f"pidcanon imported from {p}, not the venv"
print(f"python.sh: pidcanon {pidcanon.__version__} from {p.parent}")'
"${norust[@]}" "$py" -m mypy.stubtest pidcanon._pidcanon

# pytest's summary line (-rs lists skips): a skipped test fails the stage (the tests' conftest
# also reports skips as failures).
log=$root/target/python-pytest.log
run_pytest() {
  "${norust[@]}" PIDCANON_CLI="$cli" "$py" -m pytest -q -rs -p no:cacheprovider "$@" 2>&1 | tee "$log"
  if tail -n 1 "$log" | grep -q -E '\b(skipped|deselected)\b'; then
    echo "python.sh: pytest skipped tests: $(tail -n 1 "$log")" >&2
    exit 1
  fi
}
run_pytest --rootdir ../python ../python/tests
run_pytest --doctest-modules --pyargs pidcanon
echo "python.sh: done in $((SECONDS - start)) s"

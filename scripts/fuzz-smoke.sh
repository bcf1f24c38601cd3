#!/usr/bin/env bash
# The fuzz targets' smoke test, run by .ci/run: builds fuzz/ as a plain (debug,
# uninstrumented) cargo build, which needs neither cargo-fuzz nor a nightly compiler,
# and replays up to SEEDS (default 40) seed inputs of every target through it: each
# target's harness must build against the current library and survive real inputs of
# its kind. Fuzzing itself (instrumented, minutes per target) is scripts/fuzz.sh.
#
#   scripts/fuzz-smoke.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-40}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/fuzz-smoke}"
cargo build --manifest-path fuzz/Cargo.toml --locked --bins
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in $(scripts/fuzz.sh --list); do
  python3 scripts/fuzz_seeds.py "$target" "$work/$target"
  mapfile -t inputs < <(find "$work/$target" -type f | sort | head -n "$seeds")
  [ "${#inputs[@]}" -gt 0 ] || { echo "fuzz-smoke: no seed for $target" >&2; exit 1; }
  # libFuzzer given files (not folders) runs each once and exits 0, instrumented or not.
  "$CARGO_TARGET_DIR/debug/$target" "${inputs[@]}" >"$work/$target.log" 2>&1 || {
    tail -n 40 "$work/$target.log" >&2
    echo "fuzz-smoke: $target failed on one of its seeds" >&2
    exit 1
  }
  echo "fuzz-smoke: $target ok (${#inputs[@]} inputs)"
done

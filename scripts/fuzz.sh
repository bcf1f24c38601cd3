#!/usr/bin/env bash
# Seeds and runs one cargo-fuzz target of fuzz/ for a number of seconds.
#
#   scripts/fuzz.sh TARGET [SECONDS]
#   scripts/fuzz.sh --list               the targets, one a line
#   scripts/fuzz.sh --all [SECONDS]      every target in turn, SECONDS each
#
# Targets: check_text, policy, retry_after (one parser each); config_yaml_json, nginx,
# haproxy, properties, toml, proto, code (one importer family each, through the whole
# `check` of a small project: fuzz/src/lib.rs); check_tree (the whole `check` over a
# random tree of up to four files of any kind).
#
# Seeds: the small fixtures of each kind under fixtures/ (and ../shared/corpus when
# present), with the selector byte that names their file. Installs cargo-fuzz when
# missing. Uses a nightly toolchain when one is installed, else RUSTC_BOOTSTRAP=1 on
# stable. A crash is saved under fuzz/artifacts/TARGET/: add it to
# fixtures/fuzz-regressions/ with a regression test (tests/fuzz_regressions.rs).
# FUZZ_JOBS=N runs N fuzzing processes for the target (libFuzzer -fork).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(check_text policy retry_after config_yaml_json nginx haproxy properties toml proto code check_tree)
if [ "${1:-}" = --list ]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi
if [ "${1:-}" = --all ]; then
  for t in "${targets[@]}"; do "$0" "$t" "${2:-600}"; done
  exit 0
fi
target=${1:?usage: scripts/fuzz.sh TARGET [SECONDS] | --list | --all [SECONDS]}
seconds=${2:-600}
printf '%s\n' "${targets[@]}" | grep -qx "$target" || {
  echo "unknown target $target (scripts/fuzz.sh --list)" >&2
  exit 2
}
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
python3 scripts/fuzz_seeds.py "$target" "fuzz/corpus/$target"
cd fuzz
flags=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20)
[ -n "${FUZZ_JOBS:-}" ] && flags+=(-fork="$FUZZ_JOBS")
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  exec cargo +nightly fuzz run "$target" -- "${flags[@]}"
fi
RUSTC_BOOTSTRAP=1 exec cargo fuzz run "$target" -- "${flags[@]}"

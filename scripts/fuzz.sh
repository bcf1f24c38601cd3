#!/usr/bin/env bash
# Seeds and runs one cargo-fuzz target of fuzz/ for a number of seconds.
#
#   scripts/fuzz.sh TARGET [SECONDS]    TARGET: check_text | policy | retry_after
#
# Seeds: every small YAML/JSON file under fixtures/ (policies only for `policy`),
# two Retry-After values for `retry_after`. Installs cargo-fuzz when missing. Uses a
# nightly toolchain when one is installed, else RUSTC_BOOTSTRAP=1 on stable. A crash
# is saved under fuzz/artifacts/TARGET/: add it to fixtures/ with a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh check_text|policy|retry_after [SECONDS]}
seconds=${2:-600}
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
mkdir -p fuzz/corpus/check_text fuzz/corpus/policy fuzz/corpus/retry_after
find fixtures -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -size -64k -print0 |
while IFS= read -r -d '' f; do
  cp "$f" "fuzz/corpus/check_text/$(echo "$f" | tr / _)"
  case "$f" in *policy*) cp "$f" "fuzz/corpus/policy/$(echo "$f" | tr / _)" ;; esac
done
printf '120' >fuzz/corpus/retry_after/seconds
printf 'Wed, 21 Oct 2015 07:28:00 GMT' >fuzz/corpus/retry_after/date
cd fuzz
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  exec cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=2048
fi
RUSTC_BOOTSTRAP=1 exec cargo fuzz run "$target" -- -max_total_time="$seconds" -rss_limit_mb=2048

#!/usr/bin/env bash
# Real retry configs (../shared/corpus/retry-configs), real retry code
# (../shared/corpus/retry-code) and the acceptance cases with companion specs
# (../shared/cases/retry-configs): every config and source file alone, the code
# folder whole, every case folder, in human, json and sarif output. Fails on a panic (exit 101), a timeout,
# or an exit code other than 0, 1 or 2; prints each run's exit code and summary.
#
#   scripts/retry-configs.sh [BIN]     (default: target/release/retrylint)
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/retrylint}
CORPUS=../shared/corpus/retry-configs
CASES=../shared/cases/retry-configs
CODE=../shared/corpus/retry-code
failed=0
runs=0
run() { # label path
  for fmt in human json sarif; do
    runs=$((runs + 1))
    out=$(NO_COLOR=1 timeout 60 "$BIN" check --format "$fmt" "$2" 2>&1)
    rc=$?
    if [ "$rc" -gt 2 ] || grep -q "panicked" <<<"$out"; then
      echo "FAILED ($fmt, exit $rc): $2"; echo "$out" | tail -5; failed=$((failed + 1))
    elif [ "$fmt" = human ]; then
      printf '%s\texit %s\t%s\n' "$1" "$rc" "$(tail -1 <<<"$out")"
    fi
  done
}
if [ -d "$CORPUS" ]; then
  for f in "$CORPUS"/*; do
    case $f in *.tsv) continue ;; esac
    run "corpus" "$f"
  done
fi
if [ -d "$CODE" ]; then
  for f in "$CODE"/*; do
    case $f in *.tsv) continue ;; esac
    run "code" "$f"
  done
  run "code" "$CODE"
fi
if [ -d "$CASES" ]; then
  for d in "$CASES"/*/; do run "case" "$d"; done
fi
echo "$runs runs, $failed failed"
[ "$failed" = 0 ]

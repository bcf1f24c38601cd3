#!/usr/bin/env bash
# Validates retrylint's SARIF output with Microsoft's official SARIF validator
# (the `--rule-kind "Gh;Sarif"` rules GitHub code scanning applies to uploads).
#
#   scripts/validate-sarif.sh [FILE.sarif]
#
# Without FILE, writes the SARIF of fixtures/examples/shop with the debug binary.
# The validator is installed once with npm into .cache/sarif-multitool (gitignored).
# Exits non-zero when the validator reports any error (the multitool itself exits 0
# on findings, so its output is read).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${SARIF_MULTITOOL_CACHE:-.cache/sarif-multitool}"
TOOL="$CACHE/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"

if [ ! -x "$TOOL" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "validate-sarif: npm is not installed; it is needed to install @microsoft/sarif-multitool (the official SARIF validator)." >&2
    echo "validate-sarif: install Node.js/npm, or set SARIF_MULTITOOL_CACHE to a directory holding node_modules/@microsoft/sarif-multitool." >&2
    exit 1
  fi
  mkdir -p "$CACHE"
  npm install --no-audit --no-fund --prefix "$CACHE" @microsoft/sarif-multitool >&2
  # npm may skip the package's postinstall (chmod u+x); do it here.
  chmod u+x "$TOOL"
fi

FILE="${1:-}"
if [ -z "$FILE" ]; then
  FILE=".cache/shop.sarif"
  mkdir -p .cache
  cargo build --quiet --locked
  status=0
  "${CARGO_TARGET_DIR:-target}/debug/retrylint" check fixtures/examples/shop \
    --format sarif --output "$FILE" || status=$?
  if [ "$status" -ge 2 ]; then
    echo "validate-sarif: retrylint could not lint fixtures/examples/shop (exit $status)" >&2
    exit 1
  fi
fi

echo "== SARIF validator on $FILE"
# The multitool skips files over 10,000 KB unless told otherwise (and then reports
# "no valid analysis targets"): a whole-corpus run is larger.
out="$("$TOOL" validate --rule-kind "Gh;Sarif" --level "Error;Warning" \
  --max-file-size-in-kb 4000000 "$FILE" 2>&1)" || {
  echo "$out"
  echo "validate-sarif: the validator failed to run" >&2
  exit 1
}
echo "$out"
if grep -qE ': error [A-Z]+[0-9]+' <<<"$out"; then
  echo "validate-sarif: FAILED: the validator reported errors" >&2
  exit 1
fi
echo "validate-sarif: no errors"

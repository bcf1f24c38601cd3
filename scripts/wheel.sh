#!/usr/bin/env bash
# Builds the `retrylint` wheel (python/pyproject.toml: maturin, `bindings = "bin"`)
# into target/wheels/, installs it into a fresh virtual environment and runs the
# bundled example from it (exit 1 with findings, as README's Quick start says).
# maturin comes from PyPI into a temporary venv. Prints the wheel's path last.
#
# RETRYLINT_WHEEL_PROFILE: the cargo profile (default `dist`, as the release
# archives); .ci/run sets `release`, whose settings it exports, so the wheel reuses
# the release build of the other stages.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
profile="${RETRYLINT_WHEEL_PROFILE:-dist}"

python3 -m venv "$work/build"
"$work/build/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.9,<2"
"$work/build/bin/maturin" --version
rm -f target/wheels/retrylint-*.whl
(cd python && "$work/build/bin/maturin" build --locked --profile "$profile" --out ../target/wheels)
wheel="$(ls target/wheels/retrylint-*.whl)"
echo "== wheel: $wheel ($(wc -c <"$wheel" | tr -d ' ') bytes)"

# A fresh venv with nothing but the wheel (no index: it must need nothing else).
python3 -m venv "$work/use"
"$work/use/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
status=0
out="$("$work/use/bin/retrylint" check fixtures/examples/shop 2>&1)" || status=$?
echo "$out" | tail -n 1
if [ "$status" -ne 1 ] || ! grep -q "OpenAPI document checked" <<<"$out"; then
  echo "wheel.sh: FAILED: the installed wheel's \`retrylint check fixtures/examples/shop\` exited $status (expected 1 with findings)" >&2
  exit 1
fi
"$work/use/bin/retrylint" --version
echo "$wheel"

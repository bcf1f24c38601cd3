#!/usr/bin/env bash
# Round trip of both pre-commit hooks (.pre-commit-hooks.yaml) as users run them:
# installs pre-commit from PyPI into a temporary venv, makes a throwaway git
# repository whose .pre-commit-config.yaml points at a committed snapshot of this
# repository, and runs `pre-commit run` on staged changes, as `git commit` does, once
# with the hook `retrylint` (`language: python`: installs the wheel) and once with
# `retrylint-rust` (`language: rust`: cargo install):
#   1. a change touching no YAML or JSON: the hook is skipped;
#   2. a commit adding an unprotected retried POST must FAIL the hook;
#   3. the commit that adds an idempotency-key contract must PASS it;
#   4. a change to the spec alone is checked against the policy that governs it;
#   5. a spec in api/ governed by a mesh policy in deploy/istio/ (outside its folder
#      chain): adding an unprotected POST to the spec alone must FAIL (case 41);
#   6. a shared `$ref` fragment changed alone re-checks the documents that use it;
#   7. a `.retrylint.yaml` changed alone re-checks the whole project;
#   8. specs named api.yaml, spec3.yaml, petstore.json, OpenAPI.yaml are checked;
#      unrelated YAML and JSON pass.
# The python hook installs the root pyproject.toml, which depends on the `retrylint`
# wheel: pip is pointed at the wheel scripts/wheel.sh built (RETRYLINT_WHEEL_DIR,
# default target/wheels; built here when missing) and at a local copy of setuptools,
# with no index, so the round trip tests this commit's wheel, never PyPI's.
# `language: rust` makes pre-commit `cargo install` this repository once per hook
# environment. `pre-commit try-repo` keeps its environments in a temporary store, so
# it rebuilt the tool on every call (about 8 minutes in all); a config file with a
# fixed `rev` and one PRE_COMMIT_HOME build it once (`pre-commit install-hooks`), and
# cargo uses this checkout's target/ (CARGO_TARGET_DIR overrides), so the release
# dependencies that `cargo build --release` already built are reused: only the
# retrylint crate of pre-commit's clone is compiled, and a second run reuses that too.
# The script prints, per hook, the time of its first run (`pre-commit install-hooks`:
# the environment, the install or the build) and of everything after it.
# HOOKS="retrylint" (or "retrylint-rust") runs one of them.
# Needs PyPI, so .ci/run calls it, never `cargo test`.
set -euo pipefail
SOURCE="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# A committed snapshot of the working tree.
REPO="$WORK/retrylint"
git clone -q --no-hardlinks "$SOURCE" "$REPO"
git -C "$SOURCE" diff HEAD --binary | git -C "$REPO" apply --allow-empty --whitespace=nowarn
(cd "$SOURCE" && git ls-files -z --others --exclude-standard) |
  while IFS= read -r -d '' f; do
    mkdir -p "$REPO/$(dirname "$f")"
    cp "$SOURCE/$f" "$REPO/$f"
  done
git -C "$REPO" add -A
git -C "$REPO" -c user.email=ci@example.invalid -c user.name=ci -c commit.gpgsign=false \
  commit -q --allow-empty -m "working tree snapshot for the pre-commit round trip"
REV="$(git -C "$REPO" rev-parse HEAD)"

echo "== pre-commit round trip in $WORK"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --disable-pip-version-check pre-commit
PRE_COMMIT="$WORK/venv/bin/pre-commit"
export PRE_COMMIT_HOME="$WORK/cache"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$SOURCE/target}"
"$PRE_COMMIT" --version

# The python hook's packages: this commit's wheel and setuptools (the build backend of
# the root pyproject.toml), and nothing from the index.
WHEELS="${RETRYLINT_WHEEL_DIR:-$SOURCE/target/wheels}"
if ! ls "$WHEELS"/retrylint-*.whl >/dev/null 2>&1; then
  "$SOURCE/scripts/wheel.sh"
fi
LINKS="$WORK/links"
mkdir -p "$LINKS"
cp "$WHEELS"/retrylint-*.whl "$LINKS/"
"$WORK/venv/bin/pip" download --quiet --disable-pip-version-check --only-binary :all: \
  -d "$LINKS" "setuptools>=61"
export PIP_NO_INDEX=1 PIP_FIND_LINKS="$LINKS"

roundtrip() {
HOOK_ID="$1"

T="$WORK/api-$HOOK_ID"
mkdir -p "$T"
cd "$T"
git init -q
git config user.email ci@example.invalid
git config user.name ci
git config commit.gpgsign false

cat > .pre-commit-config.yaml <<EOF
repos:
  - repo: $REPO
    rev: $REV
    hooks:
      - id: $HOOK_ID
EOF
cat > openapi.yaml <<'EOF'
openapi: 3.0.3
info: {title: Shop, version: "1"}
paths:
  /orders:
    get:
      operationId: listOrders
      responses:
        "200": {description: the orders}
    post:
      operationId: createOrder
      # Optional: a key the spec requires would protect a retry by itself (it travels
      # with the request, layers.md), and step 2 needs an unprotected one.
      parameters:
        - {name: Idempotency-Key, in: header, required: false, schema: {type: string}}
      responses:
        "201": {description: created}
        "409": {description: a request with this key is in progress}
        "422": {description: the key was used with another payload}
EOF
cat > shop.retry-policy.yaml <<'EOF'
version: 1
spec: openapi.yaml
defaults:
  attempts: 3
  deadline: 5s
  backoff: {base: 100ms, cap: 2s, jitter: full}
  retry_on: [connect-failure, timeout]
operations:
  listOrders:
    retry: true
EOF
echo "notes" > README.md
git add -A
git commit -qm "Shop API and its retry policy"

hook() {
  # Runs the hook on the staged files, as `git commit` would.
  "$PRE_COMMIT" run "$HOOK_ID" --verbose "$@"
}
must_fail() {
  # $1: what a pass would mean. The hook must exit non-zero.
  local status=0
  hook || status=$?
  if [ "$status" -eq 0 ]; then
    echo "pre-commit-roundtrip: FAILED: $1" >&2
    exit 1
  fi
  echo "(hook failed as expected, exit $status)"
}

echo "== $HOOK_ID: first run: pre-commit install-hooks (the hook's environment, once)"
BUILD_START=$SECONDS
"$PRE_COMMIT" install-hooks
BUILD_TIME=$((SECONDS - BUILD_START))
REST_START=$SECONDS

echo "== $HOOK_ID 1. a change touching no YAML or JSON: the hook is skipped"
echo "more notes" >> README.md
git add README.md
hook
git commit -qm "Notes"

echo "== $HOOK_ID 2. adding an unprotected retried POST must fail"
cat >> shop.retry-policy.yaml <<'EOF'
  createOrder:
    retry: true
EOF
git add shop.retry-policy.yaml
must_fail "the hook passed an unprotected retried POST"

echo "== $HOOK_ID 3. the fix (an idempotency-key contract) must pass"
cat >> shop.retry-policy.yaml <<'EOF'
    effect: non-idempotent
    on_unknown_result: replay-key
    idempotency_key:
      header: Idempotency-Key
      retention: 24h
      scope: per-client
      on_payload_mismatch: reject
      on_concurrent: reject
EOF
git add shop.retry-policy.yaml
hook
git commit -qm "Retry createOrder with an idempotency key"

echo "== $HOOK_ID 4. a change to the spec alone is checked against the policy that governs it"
# Dropping the Idempotency-Key parameter breaks the policy's contract (RL202), a
# finding in the policy file, which this commit does not touch.
sed -i '/name: Idempotency-Key/d; /parameters:/d' openapi.yaml
git add openapi.yaml
must_fail "the hook missed the policy of a changed spec"
git checkout -q HEAD -- openapi.yaml

echo "== $HOOK_ID 5. a spec in api/ governed by a mesh policy in deploy/istio/ (case 41)"
mkdir -p refunds/api refunds/deploy/istio refunds/shared
cat > refunds/api/openapi.yaml <<'EOF'
openapi: 3.0.3
info: {title: Refunds, version: "1"}
paths:
  /refunds:
    get:
      operationId: listRefunds
      responses:
        "200": {description: the refunds}
        "429": {$ref: "../shared/responses.yaml#/components/responses/Throttled"}
EOF
cat > refunds/shared/responses.yaml <<'EOF'
components:
  responses:
    Throttled:
      description: too many requests
      headers:
        Retry-After: {schema: {type: integer}}
EOF
cat > refunds/deploy/istio/mesh.retry-policy.yaml <<'EOF'
version: 1
spec: ../../api/openapi.yaml
layer: mesh
defaults:
  retry: true
  attempts: 3
  deadline: 10s
  backoff: {base: 25ms, cap: 250ms, jitter: full}
  retry_on: [502, 503, 504]
  on_unknown_result: fail
EOF
git add -A
hook
git commit -qm "Refunds API, its shared responses and its mesh policy"
cat >> refunds/api/openapi.yaml <<'EOF'
    post:
      operationId: createRefund
      responses:
        "201": {description: refund issued}
EOF
git add refunds/api/openapi.yaml
must_fail "the hook missed the mesh policy in deploy/istio of a changed spec"
git checkout -q HEAD -- refunds/api/openapi.yaml

echo "== $HOOK_ID 6. a shared \$ref fragment changed alone re-checks the documents using it"
# Renaming the shared response leaves the \$ref of refunds/api/openapi.yaml pointing
# to nothing: RL003, in a file this commit does not touch.
sed -i 's/Throttled:/TooManyRequests:/' refunds/shared/responses.yaml
git add refunds/shared/responses.yaml
must_fail "the hook missed a document reaching a changed \$ref fragment"
git checkout -q HEAD -- refunds/shared/responses.yaml

echo "== $HOOK_ID 7. a .retrylint.yaml changed alone re-checks the whole project"
# The mesh policy retries 503 without honouring Retry-After (RL306, a warning): with
# `fail_on: warning` the project fails, although no spec or policy is staged.
printf 'fail_on: warning\n' > .retrylint.yaml
git add .retrylint.yaml
must_fail "the hook did not re-check the project for a changed .retrylint.yaml"
git rm -q --cached .retrylint.yaml
rm .retrylint.yaml

echo "== $HOOK_ID 8. specs with other names are checked; unrelated YAML and JSON pass"
for name in api.yaml spec3.yaml petstore.json OpenAPI.yaml; do
  case "$name" in
    *.json)
      printf '{"swagger": "2.0", "info": {"title": "%s", "version": "1"},\n "paths": {"/pets": {"get": {"responses": {"200": {"description": "ok"}}}}}}\n' \
        "$name" > "$name" ;;
    *)
      printf 'openapi: 3.0.3\ninfo: {title: %s, version: "1"}\npaths:\n  /items:\n    get:\n      responses:\n        "200": {description: ok}\n' \
        "$name" > "$name" ;;
  esac
done
mkdir -p .github/workflows
printf 'on: push\njobs: {}\n' > .github/workflows/ci.yml
printf '{"name": "web", "private": true}\n' > package.json
git add -A
status=0
out="$(hook 2>&1)" || status=$?
echo "$out"
if [ "$status" -ne 0 ]; then
  echo "pre-commit-roundtrip: FAILED: valid specs or unrelated YAML failed the hook" >&2
  exit 1
fi
if ! grep -q "4 OpenAPI documents checked" <<<"$out"; then
  echo "pre-commit-roundtrip: FAILED: the hook did not check the four specs" >&2
  exit 1
fi
git commit -qm "Specs with other names; unrelated YAML and JSON"
for name in api.yaml spec3.yaml petstore.json OpenAPI.yaml; do
  # A ref to nothing (RL003, an error) in each spec, one commit at a time.
  case "$name" in
    *.json) sed -i 's|{"description": "ok"}|{"$ref": "#/responses/Missing"}|' "$name" ;;
    *) sed -i 's|{description: ok}|{$ref: "#/components/responses/Missing"}|' "$name" ;;
  esac
  git add "$name"
  must_fail "the hook skipped a broken spec named $name"
  git checkout -q HEAD -- "$name"
done
printf 'on: [push, pull_request]\njobs: {}\n' > .github/workflows/ci.yml
git add .github/workflows/ci.yml
hook

REST_TIME=$((SECONDS - REST_START))
echo "pre-commit-roundtrip: hook $HOOK_ID ok (first run ${BUILD_TIME} s; every scenario after it ${REST_TIME} s)"
}

for id in ${HOOKS:-retrylint retrylint-rust}; do
  (roundtrip "$id")
done
echo "pre-commit-roundtrip: ok"

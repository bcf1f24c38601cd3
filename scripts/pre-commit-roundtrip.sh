#!/usr/bin/env bash
# Round trip of the pre-commit hook (.pre-commit-hooks.yaml) as users run it:
# installs pre-commit from PyPI into a temporary venv, makes a throwaway git
# repository with a spec and a retry policy, and runs
# `pre-commit try-repo <this repo> retrylint` on staged changes:
#   1. a commit adding an unprotected retried POST must FAIL the hook;
#   2. the commit that adds an idempotency-key contract must PASS it.
# `language: rust` makes pre-commit `cargo install` this repository. try-repo on a
# path with uncommitted changes makes a new shadow commit (and so a new install) on
# every call, so the working tree (tracked changes and untracked, not ignored files)
# is first committed once in a temporary clone, and try-repo uses that clone.
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

echo "== pre-commit round trip in $WORK"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --disable-pip-version-check pre-commit
PRE_COMMIT="$WORK/venv/bin/pre-commit"
export PRE_COMMIT_HOME="$WORK/cache"
"$PRE_COMMIT" --version

T="$WORK/api"
mkdir -p "$T"
cd "$T"
git init -q
git config user.email ci@example.invalid
git config user.name ci
git config commit.gpgsign false

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
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
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
  "$PRE_COMMIT" try-repo "$REPO" retrylint --verbose "$@"
}

echo "== 1. a change touching no spec or policy: the hook is skipped"
echo "more notes" >> README.md
git add README.md
hook
git commit -qm "Notes"

echo "== 2. adding an unprotected retried POST must fail"
cat >> shop.retry-policy.yaml <<'EOF'
  createOrder:
    retry: true
EOF
git add shop.retry-policy.yaml
status=0
hook || status=$?
if [ "$status" -eq 0 ]; then
  echo "pre-commit-roundtrip: FAILED: the hook passed an unprotected retried POST" >&2
  exit 1
fi
echo "(hook failed as expected, exit $status)"

echo "== 3. the fix (an idempotency-key contract) must pass"
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

echo "== 4. a change to the spec alone is checked against the policy that governs it"
# Dropping the Idempotency-Key parameter breaks the policy's contract (RL202), a
# finding in the policy file, which this commit does not touch.
sed -i '/name: Idempotency-Key/d; /parameters:/d' openapi.yaml
git add openapi.yaml
status=0
hook || status=$?
if [ "$status" -eq 0 ]; then
  echo "pre-commit-roundtrip: FAILED: the hook missed the policy of a changed spec" >&2
  exit 1
fi
echo "(hook failed as expected, exit $status)"

echo "pre-commit-roundtrip: ok"

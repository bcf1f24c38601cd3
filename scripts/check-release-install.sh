#!/usr/bin/env bash
# Tests the GitHub Action's install step (scripts/install-release.sh) against the
# archive scripts/dist.sh builds for this machine, served from a `file://` release
# folder laid out as GitHub's (<base>/v<version>/<archive>):
#   1. the archive installs, and the installed binary runs the bundled example;
#   2. a checksum that does not match fails the step with a clear message (exit 1),
#      and installs nothing;
#   3. a version with no archive exits 3, the Action's cue to build with cargo.
# RETRYLINT_DIST_PROFILE is passed on to dist.sh (.ci/run: `release`).
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check-release-install: FAILED: $*" >&2; exit 1; }

archive="$(scripts/dist.sh --out "$work/out" | tail -n 1)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
target="$(rustc -vV | sed -n 's/^host: //p')"
name="$(basename "$archive")"
listing="$(tar -tzf "$archive" | sort)"
echo "$listing"
for f in retrylint README.md LICENSE-MIT LICENSE-APACHE; do
  grep -qx "retrylint-$version-$target/$f" <<<"$listing" || fail "$name lacks $f"
done

echo "== 1. download, verify, install"
mkdir -p "$work/good/v$version"
cp "$archive" "$archive.sha256" "$work/good/v$version/"
bin="$(scripts/install-release.sh --version "$version" --target "$target" \
  --base-url "file://$work/good" --dest "$work/bin")"
"$bin" --version
status=0
"$bin" check fixtures/examples/shop >/dev/null 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "the installed binary exited $status on the bundled example (expected 1)"

echo "== 2. a checksum mismatch fails with a clear message"
mkdir -p "$work/bad/v$version"
cp "$archive" "$work/bad/v$version/"
printf '%064d  %s\n' 0 "$name" >"$work/bad/v$version/$name.sha256"
status=0
scripts/install-release.sh --version "$version" --target "$target" \
  --base-url "file://$work/bad" --dest "$work/bad-bin" 2>"$work/err" || status=$?
cat "$work/err"
[ "$status" -eq 1 ] || fail "a checksum mismatch exited $status (expected 1)"
grep -q "SHA-256 mismatch for $name" "$work/err" || fail "the mismatch message does not say so"
[ ! -e "$work/bad-bin/retrylint" ] || fail "a mismatched archive was installed"

echo "== 3. no archive for this version: exit 3 (the Action builds with cargo)"
status=0
scripts/install-release.sh --version 0.0.0-none --target "$target" \
  --base-url "file://$work/good" --dest "$work/none" 2>"$work/err" || status=$?
cat "$work/err"
[ "$status" -eq 3 ] || fail "a missing archive exited $status (expected 3)"

echo "check-release-install: ok ($name, $(wc -c <"$archive" | tr -d ' ') bytes)"

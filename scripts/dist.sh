#!/usr/bin/env bash
# Builds the release archive of one target and its checksum:
#   dist/retrylint-<version>-<target>.tar.gz  (retrylint[.exe], README.md, LICENSE-MIT,
#                                              LICENSE-APACHE, in a folder of the same name)
#   dist/retrylint-<version>-<target>.tar.gz.sha256  (`sha256sum` format: hash, two
#                                              spaces, archive name)
# The release workflow (.github/workflows/release.yml) runs it once per target;
# .ci/run runs it for the host and tests the Action's download against its output.
#
# Usage: scripts/dist.sh [--target TRIPLE] [--out DIR]
#   --target  a Rust target triple (default: the host's, from `rustc -vV`)
#   --out     where the archive goes (default: dist/ in the repository)
# Environment:
#   RETRYLINT_DIST_PROFILE  the cargo profile (default `dist`: no debuginfo, stripped,
#                           LTO). CI sets `release`, whose settings .ci/run exports, so
#                           the archive reuses the build the other stages made.
#   CARGO_BUILD_COMMAND     the build command (default `cargo build`; the release
#                           workflow uses `cargo zigbuild` for the Linux musl targets).
# Prints the archive's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."

target=""
out="dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "dist.sh: unknown argument \`$1\` (see --help)" >&2; exit 2 ;;
  esac
done

profile="${RETRYLINT_DIST_PROFILE:-dist}"
build="${CARGO_BUILD_COMMAND:-cargo build}"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
host="$(rustc -vV | sed -n 's/^host: //p')"
if [ -z "$version" ] || [ -z "$host" ]; then
  echo "dist.sh: could not read the version from Cargo.toml or the host from rustc -vV" >&2
  exit 2
fi

# The folder cargo writes to: target/[TRIPLE/]<profile folder>.
case "$profile" in
  dev) profile_dir="debug" ;;
  *) profile_dir="$profile" ;;
esac
target_args=()
bin_dir="${CARGO_TARGET_DIR:-target}"
if [ -n "$target" ]; then
  target_args=(--target "$target")
  bin_dir="$bin_dir/$target"
else
  target="$host"
fi
bin_dir="$bin_dir/$profile_dir"
exe=""
case "$target" in *windows*) exe=".exe" ;; esac

echo "== dist: retrylint $version for $target (profile $profile)" >&2
# Word splitting of the build command is intended (`cargo zigbuild`).
# shellcheck disable=SC2086
$build --locked --profile "$profile" --bin retrylint ${target_args[@]+"${target_args[@]}"}

name="retrylint-$version-$target"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$bin_dir/retrylint$exe" README.md LICENSE-MIT LICENSE-APACHE "$stage/$name/"

mkdir -p "$out"
archive="$out/$name.tar.gz"
tar -C "$stage" -czf "$archive" "$name"
if command -v sha256sum >/dev/null; then
  hash="$(sha256sum "$archive" | cut -d ' ' -f 1)"
else
  hash="$(shasum -a 256 "$archive" | cut -d ' ' -f 1)"
fi
printf '%s  %s\n' "$hash" "$name.tar.gz" >"$archive.sha256"

size="$(wc -c <"$bin_dir/retrylint$exe" | tr -d ' ')"
echo "== dist: binary $size bytes; archive $(wc -c <"$archive" | tr -d ' ') bytes" >&2
echo "$archive"

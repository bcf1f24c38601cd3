#!/usr/bin/env bash
# Downloads a release archive of retrylint, checks its SHA-256 and unpacks the binary:
# the install step of the GitHub Action (action.yml), kept here so CI can run it
# against the archive scripts/dist.sh just built.
#
# Usage: scripts/install-release.sh --version VERSION --dest DIR [--base-url URL] [--target TRIPLE]
#   --version   the release, without the `v` (0.1.0)
#   --dest      the folder the binary goes to (created)
#   --base-url  where releases are (default the GitHub releases of retrylint); the
#               archive is <base-url>/v<version>/retrylint-<version>-<target>.tar.gz,
#               its checksum the same name + `.sha256`. `file://` URLs work (CI).
#   --target    the Rust target triple (default: the runner's OS and architecture,
#               Linux as the static musl build)
# Exit codes:
#   0  installed: prints the binary's path
#   3  no archive for this version and target (a commit that is not a release, a
#      platform without one): the caller builds from source instead
#   1  the archive or its checksum is unusable (checksum mismatch, checksum file
#      missing, archive without the binary): never falls back, since a mismatch is a
#      broken or tampered download
#   2  wrong arguments
set -euo pipefail

version=""
dest=""
base_url="https://github.com/retrylint/retrylint/releases/download"
target=""
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="${2#v}"; shift 2 ;;
    --dest) dest="$2"; shift 2 ;;
    --base-url) base_url="${2%/}"; shift 2 ;;
    --target) target="$2"; shift 2 ;;
    -h | --help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "install-release.sh: unknown argument \`$1\` (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$version" ] || [ -z "$dest" ]; then
  echo "install-release.sh: --version and --dest are required (see --help)" >&2
  exit 2
fi

if [ -z "$target" ]; then
  os="$(uname -s)"
  arch="$(uname -m)"
  case "$arch" in
    x86_64 | amd64) arch="x86_64" ;;
    aarch64 | arm64) arch="aarch64" ;;
  esac
  case "$os" in
    Linux) target="$arch-unknown-linux-musl" ;;
    Darwin) target="$arch-apple-darwin" ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) target="$arch-pc-windows-msvc" ;;
    *) target="$arch-unknown-$os" ;;
  esac
fi
exe=""
case "$target" in *windows*) exe=".exe" ;; esac

name="retrylint-$version-$target"
url="$base_url/v$version/$name.tar.gz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "retrylint: downloading $url" >&2
if ! curl --fail --silent --show-error --location --retry 2 -o "$work/$name.tar.gz" "$url"; then
  echo "retrylint: no release archive for $version on $target at $url" >&2
  exit 3
fi
if ! curl --fail --silent --show-error --location --retry 2 -o "$work/$name.tar.gz.sha256" "$url.sha256"; then
  echo "retrylint: the archive has no checksum file ($url.sha256): not installing an unverified binary" >&2
  exit 1
fi

expected="$(cut -d ' ' -f 1 <"$work/$name.tar.gz.sha256" | tr -d '\r\n' | tr 'A-F' 'a-f')"
if command -v sha256sum >/dev/null; then
  actual="$(sha256sum "$work/$name.tar.gz" | cut -d ' ' -f 1)"
else
  actual="$(shasum -a 256 "$work/$name.tar.gz" | cut -d ' ' -f 1)"
fi
if [ "${#expected}" -ne 64 ] || [ "$expected" != "$actual" ]; then
  cat >&2 <<EOF
retrylint: SHA-256 mismatch for $name.tar.gz
  expected $expected (from $url.sha256)
  actual   $actual
The download is corrupt or was altered; it was not installed.
EOF
  exit 1
fi

tar -C "$work" -xzf "$work/$name.tar.gz"
if [ ! -f "$work/$name/retrylint$exe" ]; then
  echo "retrylint: $name.tar.gz holds no $name/retrylint$exe" >&2
  exit 1
fi
mkdir -p "$dest"
cp "$work/$name/retrylint$exe" "$dest/"
chmod +x "$dest/retrylint$exe"
echo "retrylint: installed $version ($target, SHA-256 $actual)" >&2
echo "$dest/retrylint$exe"

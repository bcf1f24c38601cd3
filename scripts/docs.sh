#!/usr/bin/env bash
# Builds the documentation site and checks it: assembles docs/ and the rule pages
# (scripts/docs_assemble.py) under target/book-src/, builds it with mdBook into
# target/book/, fails on any warning or error mdBook prints, then checks every
# internal link and anchor of the built HTML (scripts/check_links.py).
#
# Needs mdBook MDBOOK_VERSION (below) and python3. With MDBOOK_INSTALL=1 a missing or
# other mdBook is installed from crates.io with `cargo install --locked` into cargo's
# usual bin folder (~/.cargo/bin), once per machine; without the server and the
# watcher (`--no-default-features --features search`), which a build does not need.
# MDBOOK=PATH uses another binary.
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=0.5.4
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
mdbook="${MDBOOK:-}"
if [ -z "$mdbook" ]; then
  if [ -x "$cargo_bin/mdbook" ]; then
    mdbook="$cargo_bin/mdbook"
  else
    mdbook="$(command -v mdbook || true)"
  fi
fi
if [ -z "$mdbook" ] || [ "$("$mdbook" --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
  if [ "${MDBOOK_INSTALL:-0}" != 1 ]; then
    echo "docs.sh: needs mdbook v$MDBOOK_VERSION (found: ${mdbook:-none}); run with MDBOOK_INSTALL=1 to install it" >&2
    exit 2
  fi
  cargo install mdbook --version "$MDBOOK_VERSION" --locked --force \
    --no-default-features --features search
  mdbook="$cargo_bin/mdbook"
fi

python3 scripts/docs_assemble.py target/book-src
rm -rf target/book
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
"$mdbook" build target/book-src >"$log" 2>&1 || status=$?
cat "$log"
if [ "$status" -ne 0 ] || grep -Eq '(WARN|ERROR)' "$log"; then
  echo "docs.sh: mdbook build failed or warned (warnings are errors)" >&2
  exit 1
fi
python3 scripts/check_links.py target/book
echo "docs.sh: site built in target/book/ ($(find target/book -name '*.html' | wc -l) pages)"

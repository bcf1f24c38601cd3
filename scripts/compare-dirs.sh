#!/usr/bin/env bash
# Byte-for-byte comparison of `check .` between two builds, run inside each folder
# given (default: every folder of fixtures/examples, fixtures/import, fixtures/repos):
# standard output and exit code, in each FORMATS (default: json human sarif).
#
#   scripts/compare-dirs.sh OLD_BIN NEW_BIN [FOLDER...]
#
# Prints one line per difference and a count; exits 1 when anything differs.
set -uo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1"); new=$(realpath "$2"); shift 2
folders=("$@")
[ ${#folders[@]} -gt 0 ] || folders=(fixtures/examples/*/ fixtures/import/*/ fixtures/repos/*/)
FORMATS=${FORMATS:-json human sarif}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
same=0; differ=0
for dir in "${folders[@]}"; do
  for format in $FORMATS; do
    (cd "$dir" && "$old" check . --format "$format" --color never >"$tmp/old" 2>"$tmp/old.err"; echo "exit $?" >>"$tmp/old")
    (cd "$dir" && "$new" check . --format "$format" --color never >"$tmp/new" 2>"$tmp/new.err"; echo "exit $?" >>"$tmp/new")
    if cmp -s "$tmp/old" "$tmp/new"; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "DIFFERS: $dir ($format)"
      diff "$tmp/old" "$tmp/new" | head -20
    fi
  done
done
echo "$same identical, $differ different"
[ "$differ" -eq 0 ]

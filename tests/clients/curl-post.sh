#!/bin/sh
# curl with --retry 3 --retry-all-errors: POST /orders at $RETRYLINT_BASE_URL
# (tests/probe_clients.rs). The body goes to a temporary file: `-o /dev/null` with
# --retry exits 23 ("Failed to truncate") before retrying.
out=$(mktemp) || exit 2
curl -sS --retry 3 --retry-all-errors -X POST -H 'Content-Type: application/json' \
  -d '{"item":1}' -o "$out" "$RETRYLINT_BASE_URL/orders"
code=$?
rm -f "$out"
exit $code

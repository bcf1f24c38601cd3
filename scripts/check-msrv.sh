#!/usr/bin/env bash
# The minimum supported Rust version (`rust-version` in Cargo.toml) must be at least
# the highest `rust-version` declared by any locked dependency, else `cargo install
# --locked` fails on the toolchain we claim to support. Only one toolchain can be
# installed on the CI machine, so building with the MSRV itself is not possible here;
# the project's own code is held to the MSRV by clippy's `incompatible_msrv` lint
# (it reads `rust-version`), which `.ci/run` runs with `-D warnings`.
#
#   scripts/check-msrv.sh      prints the declared and required versions; exit 1 if
#                              the declared one is lower than what the lock needs
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --format-version 1 --locked | python3 -c '
import json, sys
meta = json.load(sys.stdin)
def ver(v):
    # "1.88" and "1.88.0" are one version.
    parts = [int(x) for x in v.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))
root = next(p for p in meta["packages"] if p["name"] == "retrylint")
declared = root.get("rust_version") or "0"
locked = {n["id"] for n in meta["resolve"]["nodes"]}
needs = [(p.get("rust_version") or "0", p["name"], p["version"])
         for p in meta["packages"] if p["id"] in locked and p["name"] != "retrylint"]
top = max(ver(v) for v, _, _ in needs)
required = ".".join(str(x) for x in top)
names = sorted(f"{n} {v}" for r, n, v in needs if ver(r) == top)
shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
print(f"rust-version declared: {declared}; required by the lock: {required} ({shown})")
if ver(declared) < top:
    print(f"error: raise rust-version in Cargo.toml to {required}", file=sys.stderr)
    sys.exit(1)
'

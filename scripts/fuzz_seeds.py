#!/usr/bin/env python3
"""Writes the seed corpus of one fuzz target (scripts/fuzz.sh): the small fixtures of
the target's kind, each prefixed with the selector byte that names its file in the
target (fuzz/fuzz_targets/*.rs: the `NAMES` lists, kept in the same order here).

    scripts/fuzz_seeds.py TARGET OUT_DIR
"""
import os
import sys
from pathlib import Path

MAX = 64 * 1024  # seeds above this slow the fuzzer more than they teach it
ROOTS = [Path("fixtures"), Path("../shared/corpus/retry-configs"), Path("../shared/corpus/retry-code")]

# Selector indexes, in the order of the targets' NAMES lists.
CONFIG = {"yaml": 0, "envoy-json": 1, "grpc-json": 2, "kong": 3, "spring": 4}
CODE = {".py": 0, ".ts": 1, ".tsx": 1, ".js": 2, ".mjs": 2, ".java": 3, ".cs": 4, ".go": 5, ".rs": 6}
TREE = {"openapi": 0, "policy": 2, "config": 4, "nginx": 7, "haproxy": 8, "toml": 9,
        "properties": 10, "proto": 11, ".py": 12, ".ts": 13, ".java": 14, ".go": 15}


def files():
    for root in ROOTS:
        if not root.is_dir():
            continue
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                path = Path(dirpath) / name
                try:
                    if path.is_file() and 0 < path.stat().st_size <= MAX:
                        yield path
                except OSError:
                    continue


def text(path):
    try:
        return path.read_bytes()
    except OSError:
        return b""


def config_selector(path, body):
    name = path.name.lower()
    if name.startswith("application") and name.endswith((".yml", ".yaml")):
        return CONFIG["spring"]
    if name.endswith(".json"):
        return CONFIG["grpc-json"] if b"methodConfig" in body else CONFIG["envoy-json"]
    if b"_format_version" in body:
        return CONFIG["kong"]
    return CONFIG["yaml"]


def is_config(body):
    return any(k in body for k in (b"apiVersion", b"static_resources", b"virtual_hosts", b"_format_version",
                                   b"methodConfig", b"resilience4j", b"spring:", b"retry"))


def seeds(target):
    tree_parts = []
    for path in files():
        name = path.name.lower()
        suffix = path.suffix.lower()
        body = text(path)
        if not body:
            continue
        if target == "config_yaml_json" and suffix in (".yaml", ".yml", ".json") and is_config(body):
            yield bytes([config_selector(path, body)]) + body
        elif target == "nginx" and suffix == ".conf" and b"upstream" in body or target == "nginx" and "nginx" in name:
            yield body
        elif target == "haproxy" and suffix == ".cfg":
            yield body
        elif target == "properties" and suffix == ".properties":
            yield body
        elif target == "toml" and suffix == ".toml":
            yield body
        elif target == "proto" and suffix == ".proto":
            yield body
        elif target == "code" and suffix in CODE:
            yield bytes([CODE[suffix]]) + body
        elif target == "check_text" and suffix in (".yaml", ".yml", ".json"):
            yield body
        elif target == "policy" and suffix in (".yaml", ".yml") and b"retry" in body and "policy" in str(path):
            yield body
        elif target == "check_tree" and b"\0" not in body:
            kind = None
            if suffix in (".yaml", ".yml", ".json"):
                kind = "openapi" if (b"openapi:" in body or b"swagger:" in body) else (
                    "policy" if "policy" in name else "config")
            elif suffix == ".conf":
                kind = "nginx"
            elif suffix == ".cfg":
                kind = "haproxy"
            elif suffix in (".toml", ".properties", ".proto"):
                kind = suffix[1:]
            elif suffix in TREE:
                kind = suffix
            if kind:
                tree_parts.append(bytes([TREE[kind]]) + body)
    if target == "retry_after":
        yield b"120"
        yield b"Wed, 21 Oct 2015 07:28:00 GMT"
    if target == "check_tree":
        # A spec beside each other file: the pairs a real project holds.
        specs = [p for p in tree_parts if p[0] == TREE["openapi"]][:40]
        others = [p for p in tree_parts if p[0] != TREE["openapi"]][:200]
        for i, other in enumerate(others):
            if specs:
                yield specs[i % len(specs)] + b"\0" + other


def main():
    target, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for i, seed in enumerate(seeds(target)):
        (out / f"seed-{i:05}").write_bytes(seed)
        count += 1
    print(f"{target}: {count} seeds in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()

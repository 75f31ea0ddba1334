#!/usr/bin/env bash
# `ctx budget spent` against `opencode stats` (OpenCode 1.18.33, which prints tables only) on the
# fixture database of tests/fixtures/spent/: sessions, total cost, input, output, cache read and
# cache write of the overview, and per model its messages, tokens and cost, each compared at the
# precision the table prints (opencode.md §12: the model section adds reasoning into "Output").
#
#   tests/e2e/spent-stats.sh        (needs cargo, node/npm, python3)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cargo build --quiet --manifest-path "$repo/Cargo.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sandbox/data/opencode" "$work/project"
cp "$repo/tests/fixtures/spent/opencode-1.18.33.db" "$work/sandbox/data/opencode/opencode.db"
cp "$repo/tests/fixtures/spent/opencode-1.18.33.db" "$work/ctx.db"
"$repo/tests/e2e/opencode-sandbox.sh" "$work/sandbox" "$work/project" -- stats --models >"$work/stats.txt" 2>&1
"$repo/target/debug/ctx" -C "$work/project" budget spent --source "$work/ctx.db" --json >"$work/total.json"
"$repo/target/debug/ctx" -C "$work/project" budget spent --source "$work/ctx.db" --json --by model >"$work/models.json"
"$repo/target/debug/ctx" -C "$work/project" budget spent --source "$work/ctx.db" --json --by session >"$work/sessions.json"
python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
text = open(f"{work}/stats.txt").read()
total = json.load(open(f"{work}/total.json"))["total"]
models = {r["key"]: r["total"] for r in json.load(open(f"{work}/models.json"))["rows"]}
sessions = json.load(open(f"{work}/sessions.json"))["rows"]

def number(cell):
    cell = cell.strip().lstrip("$")
    scale = {"K": 1e3, "M": 1e6}.get(cell[-1:], 1)
    return float(cell.rstrip("KM")) * scale, cell

def same(label, theirs, ours):
    value, cell = number(theirs)
    decimals = len(cell.rstrip("KM").split(".")[1]) if "." in cell else 0
    scale = {"K": 1e3, "M": 1e6}.get(cell[-1:], 1)
    ok = round(ours / scale, decimals) == round(value / scale, decimals)
    print(("ok  " if ok else "FAIL"), f"{label}: opencode stats {cell}, ctx {ours}")
    return ok

def cell(section, key):
    m = re.search(rf"│\s*{re.escape(key)}\s+(\S+)\s*│", section)
    if not m:
        sys.exit(f"no {key!r} in opencode stats:\n{section}")
    return m.group(1)

overview, rest = text.split("MODEL USAGE")
t = total["tokens"]
ok = all([
    same("sessions", cell(overview, "Sessions"), len(sessions)),
    same("total cost", cell(overview, "Total Cost"), total["cost_recorded"]),
    same("input", cell(overview, "Input"), t["input"]),
    same("output", cell(overview, "Output"), t["output"]),
    same("cache read", cell(overview, "Cache Read"), t["cache_read"]),
    same("cache write", cell(overview, "Cache Write"), t["cache_write"]),
])
for block in re.split(r"├[─┤]+", rest):
    name = re.search(r"│ (\S+/\S+)\s", block)
    if not name:
        continue
    ours = models[name.group(1)]
    ok &= all([
        same(f"{name.group(1)} messages", cell(block, "Messages"), ours["calls"]),
        same(f"{name.group(1)} input", cell(block, "Input Tokens"), ours["tokens"]["input"]),
        same(f"{name.group(1)} output", cell(block, "Output Tokens"), ours["tokens"]["output"] + ours["tokens"]["reasoning"]),
        same(f"{name.group(1)} cache read", cell(block, "Cache Read"), ours["tokens"]["cache_read"]),
        same(f"{name.group(1)} cost", cell(block, "Cost"), ours["cost_recorded"]),
    ])
sys.exit(0 if ok else 1)
PY

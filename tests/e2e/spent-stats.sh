#!/usr/bin/env bash
# `ctx budget spent` against the agent's own `stats` (OpenCode 1.18.33 and Kilo Code 7.7.9 print
# tables only), on the same database: sessions, total cost, input, output, cache read and cache
# write of the overview, and per model its messages, tokens and cost, each compared at the
# precision the table prints (opencode.md §12: the model section adds reasoning into "Output").
#
#   tests/e2e/spent-stats.sh [opencode [SANDBOX] | kilo SANDBOX]      (needs cargo, node/npm, python3)
#
# Without SANDBOX, the database is the fixture of tests/fixtures/spent/, OpenCode's own. With SANDBOX
# (a folder of opencode-sandbox.sh or kilo-sandbox.sh), it is the database the agent wrote there:
# opencode.sh's `spent` scenario, after a live run. Kilo needs one: given OpenCode's fixture, the
# total cost of `kilo stats` (0.18) is not the sum of its own per-model costs (0.2717).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
agent=${1:-opencode}
[[ $agent == opencode || ($agent == kilo && -n ${2:-}) ]] ||
  { echo "usage: $0 [opencode [SANDBOX] | kilo SANDBOX]" >&2; exit 2; }
cargo build --quiet --manifest-path "$repo/Cargo.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sandbox=${2:-$work/sandbox}
db=$sandbox/data/$agent/$agent.db
if [[ -z ${2:-} ]]; then
  mkdir -p "$(dirname "$db")"
  cp "$repo/tests/fixtures/spent/opencode-1.18.33.db" "$db"
fi
mkdir -p "$work/project"
# ctx reads a copy (with its write-ahead log): the agent's stats may write to its own.
cp "$db" "$work/ctx.db"
[[ ! -f $db-wal ]] || cp "$db-wal" "$work/ctx.db-wal"
"$repo/tests/e2e/$agent-sandbox.sh" "$sandbox" "$work/project" -- stats --models >"$work/stats.txt" 2>&1
"$repo/target/debug/ctx" -C "$work/project" budget spent --source "$work/ctx.db" --json >"$work/total.json"
"$repo/target/debug/ctx" -C "$work/project" budget spent --source "$work/ctx.db" --json --by model >"$work/models.json"
"$repo/target/debug/ctx" -C "$work/project" budget spent --source "$work/ctx.db" --json --by session >"$work/sessions.json"
python3 - "$work" "$agent" <<'PY'
import json, re, sys
work, agent = sys.argv[1:3]
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
    print(("ok  " if ok else "FAIL"), f"{label}: {agent} stats {cell}, ctx {ours}")
    return ok

def cell(section, key):
    m = re.search(rf"│\s*{re.escape(key)}\s+(\S+)\s*│", section)
    if not m:
        sys.exit(f"no {key!r} in {agent} stats:\n{section}")
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

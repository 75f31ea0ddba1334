#!/usr/bin/env bash
# Every `ctx swarm VIEW --format markdown` next to opencode-swarm's own `/swarm VIEW`, whole
# processes, in hyperfine runs on copies of the demo project with two evidence bundles added (the
# plugin, from 5.x on, rewrites .swarm/ when it reads it, so each tool gets its own copy); then
# status and export on a plan of 50 000 tasks.
# Needs hyperfine, npm and python3; installs the plugin and bun under target/.
# Usage: benches/swarm.sh [PLUGIN_VERSION]   (default: 5.1.0, the version ctx reproduces)
# With CTX_BASELINE=/path/to/an/older/ctx, that build is measured in the same runs, in its own column.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
version=${1:-5.1.0}
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
peers="$PWD/target/bench-peers/swarm-$version"
mkdir -p "$peers"
if [ ! -x "$peers/node_modules/.bin/bun" ] || [ ! -d "$peers/node_modules/opencode-swarm" ]; then
  (cd "$peers" && npm install --silent --no-audit --no-fund "opencode-swarm@$version" bun@1 >/dev/null)
fi
plugin_version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
  "$peers/node_modules/opencode-swarm/package.json")
bun="$peers/node_modules/.bin/bun"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for copy in ctx-demo baseline-demo plugin-demo; do
  cp -r examples/demo "$work/$copy"
  cp -r tests/fixtures/swarm5/cases/evidence-entry-types/.swarm/evidence "$work/$copy/.swarm/"
done
export SWARM_PLUGIN="$peers/node_modules/opencode-swarm/dist/index.js"
# The plugin's first read migrates plan.md; the measured runs read what it wrote, as in OpenCode.
"$bun" benches/swarm-peer.mjs "$work/plugin-demo" status >/dev/null
echo "opencode-swarm $plugin_version, bun $("$bun" --version), $(nproc) cores"
baseline=${CTX_BASELINE:-}
if [ -n "$baseline" ]; then
  echo "| view | ctx | ctx baseline | opencode-swarm | ratio |"
  echo "|---|---:|---:|---:|---:|"
else
  echo "| view | ctx | opencode-swarm | ratio |"
  echo "|---|---:|---:|---:|"
fi
for view in status plan agents history evidence diagnose export config; do
  # One hyperfine run per view holds both, so they are measured under the same conditions;
  # -i: diagnose exits 5 when a check fails (the demo has completed tasks without evidence).
  extra=()
  if [ -n "$baseline" ]; then
    extra=(-n baseline "$baseline -C $work/baseline-demo swarm $view --format markdown --swarm-version 5")
  fi
  hyperfine --warmup 3 --runs 30 -N -i --style none \
    -n ctx "$ctx -C $work/ctx-demo swarm $view --format markdown --swarm-version 5" \
    "${extra[@]}" \
    -n opencode-swarm "$bun $PWD/benches/swarm-peer.mjs $work/plugin-demo $view" \
    --export-json "$work/run.json" >/dev/null 2>&1
  python3 - "$view" "$work/run.json" <<'PY'
import json, sys
view = sys.argv[1]
ctx, *baseline, peer = json.load(open(sys.argv[2]))["results"]
ms = lambda r: f"{r['median']*1000:.1f} ms"
cells = [f"`{view}`", ms(ctx), *map(ms, baseline), ms(peer), f"{peer['median']/ctx['median']:.0f}x"]
print("| " + " | ".join(cells) + " |")
PY
done

# A large plan: 200 phases of 250 tasks (50 000 tasks, 12 MB of plan.json), status and export.
for copy in ctx-large plugin-large; do
  mkdir -p "$work/$copy/.swarm"
  python3 - "$work/$copy/.swarm/plan.json" <<'PY'
import json, sys
phases = [{"id": p, "name": f"Phase {p}", "status": "in_progress" if p == 1 else "pending",
           "tasks": [{"id": f"{p}.{t}", "phase": p, "status": "completed" if t % 3 else "pending",
                      "size": "small", "description": f"Task {p}.{t} does a thing",
                      "depends": [], "files_touched": []} for t in range(1, 251)]}
          for p in range(1, 201)]
plan = {"schema_version": "1.0.0", "title": "Big", "swarm": "s", "current_phase": 1, "phases": phases}
open(sys.argv[1], "w").write(json.dumps(plan, indent=2))
PY
done
echo
echo "A plan of 50 000 tasks ($(wc -c <"$work/ctx-large/.swarm/plan.json") bytes of plan.json):"
echo "| view | ctx | opencode-swarm | ratio |"
echo "|---|---:|---:|---:|"
for view in status export; do
  hyperfine --warmup 1 --runs 10 -N --style none \
    -n ctx "$ctx -C $work/ctx-large swarm $view --format markdown --swarm-version 5" \
    -n opencode-swarm "$bun $PWD/benches/swarm-peer.mjs $work/plugin-large $view" \
    --export-json "$work/run.json" >/dev/null 2>&1
  python3 - "$view" "$work/run.json" <<'PY'
import json, sys
ctx, peer = json.load(open(sys.argv[2]))["results"]
print(f"| `{sys.argv[1]}` | {ctx['median']*1000:.1f} ms | {peer['median']*1000:.1f} ms | {peer['median']/ctx['median']:.1f}x |")
PY
done

#!/usr/bin/env bash
# `ctx swarm status --format markdown` next to opencode-swarm's own `/swarm status`, measured in
# one hyperfine run on a copy of the demo project (the plugin, from 5.x on, rewrites .swarm/ when
# it reads it). Needs hyperfine, npm and python3; installs the plugin and bun under target/.
# Usage: benches/swarm.sh [PLUGIN_VERSION]   (default: the newest on the registry)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
version=${1:-latest}
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
peers="$PWD/target/bench-peers/swarm"
mkdir -p "$peers"
if [ ! -x "$peers/node_modules/.bin/bun" ] || [ ! -d "$peers/node_modules/opencode-swarm" ]; then
  (cd "$peers" && npm install --silent --no-audit --no-fund "opencode-swarm@$version" bun >/dev/null)
fi
plugin_version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
  "$peers/node_modules/opencode-swarm/package.json")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/demo "$work/ctx-demo"
cp -r examples/demo "$work/plugin-demo"
peer="SWARM_PLUGIN=$peers/node_modules/opencode-swarm/dist/index.js $peers/node_modules/.bin/bun $PWD/benches/swarm-peer.mjs $work/plugin-demo"
echo "opencode-swarm $plugin_version, $("$peers/node_modules/.bin/bun" --version | sed 's/^/bun /')"
echo "--- ctx swarm status --format markdown"
"$ctx" -C "$work/ctx-demo" swarm status --format markdown
echo "--- opencode-swarm /swarm status"
env SWARM_PLUGIN="$peers/node_modules/opencode-swarm/dist/index.js" \
  "$peers/node_modules/.bin/bun" benches/swarm-peer.mjs "$work/plugin-demo"
hyperfine --warmup 5 --runs 40 -N \
  -n ctx "$ctx -C $work/ctx-demo swarm status --format markdown" \
  --export-json "$work/ctx.json"
hyperfine --warmup 3 --runs 20 \
  -n opencode-swarm "$peer" \
  --export-json "$work/peer.json"
python3 - "$work/ctx.json" "$work/peer.json" <<'PY'
import json, sys
ctx, peer = (json.load(open(p))["results"][0] for p in sys.argv[1:])
print("| command | median |\n|---|---|")
print(f"| `ctx swarm status --format markdown` | {ctx['median']*1000:.1f} ms |")
print(f"| opencode-swarm `/swarm status` under bun | {peer['median']*1000:.1f} ms |")
print(f"ctx is {peer['median']/ctx['median']:.0f}x faster (medians)")
PY

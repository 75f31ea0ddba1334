#!/usr/bin/env bash
# Whole-process benchmarks of `ctx budget estimate` (release build, hyperfine):
#   - a 50 MB tree of real Rust sources (the cargo registry's crate sources, copied to a scratch
#     directory), counted with --tokenizer o200k against repomix (o200k_base) and with
#     --tokenizer cl100k against code2prompt (cl100k), totals checked against js-tiktoken;
#   - the same tree with --tokenizer auto --model claude-sonnet-4-5 (the calibrated estimate);
#   - one 1 KB file with o200k (start-up plus vocabulary loading).
# Usage: benches/budget.sh
# Needs hyperfine, python3, node and npm (repomix and js-tiktoken are installed into the scratch
# directory). code2prompt is used when on PATH or named by $CODE2PROMPT (cargo install code2prompt).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"

# 50 MB of *.rs files, in path order, copied with their relative paths.
python3 - "$registry" "$work/tree" <<'PY'
import os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
files = []
for root, dirs, names in os.walk(src):
    dirs.sort()
    for n in sorted(names):
        if n.endswith(".rs"):
            files.append(os.path.join(root, n))
total = 0
for f in files:
    size = os.path.getsize(f)
    if size == 0 or size > 1_000_000:
        continue
    target = os.path.join(dst, os.path.relpath(f, src))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(f, target)
    total += size
    if total >= 50_000_000:
        break
print(f"tree: {total} bytes of Rust source")
PY
head -c 1024 "$(find "$work/tree" -name '*.rs' | sort | head -1)" > "$work/one.rs"

npm install --silent --prefix "$work/node" js-tiktoken repomix >/dev/null 2>&1 || echo "npm install failed: no repomix or js-tiktoken" >&2

# Reference totals from js-tiktoken (tiktoken's ranks in JavaScript), file by file.
if [ -d "$work/node/node_modules/js-tiktoken" ]; then
  NODE_PATH="$work/node/node_modules" node - "$work/tree" <<'JS'
const fs = require("fs"), path = require("path");
const { getEncoding } = require("js-tiktoken");
const encs = { o200k: getEncoding("o200k_base"), cl100k: getEncoding("cl100k_base") };
const files = [];
(function walk(d) { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
  const p = path.join(d, e.name); e.isDirectory() ? walk(p) : files.push(p); } })(process.argv[2]);
for (const [name, enc] of Object.entries(encs)) {
  let total = 0;
  for (const f of files) total += enc.encode(fs.readFileSync(f, "utf8"), [], []).length;
  console.log(`js-tiktoken ${name} total: ${total}`);
}
JS
fi
for t in o200k cl100k; do
  echo "ctx $t total: $("$ctx" budget estimate "$work/tree" --tokenizer "$t" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_tokens"])')"
done

cd "$work"
[ -x node/node_modules/.bin/repomix ] && echo "repomix $(node/node_modules/.bin/repomix --version)"
c2p="${CODE2PROMPT:-$(command -v code2prompt || true)}"
[ -n "$c2p" ] && echo "$("$c2p" --version)"
args=(--warmup 1 --runs 5 --export-json "$work/tree.json")
cmds=("$ctx budget estimate tree --tokenizer o200k --json")
if [ -x node/node_modules/.bin/repomix ]; then
  cmds+=("node/node_modules/.bin/repomix tree --token-count-encoding o200k_base --output repomix-out.xml --quiet")
fi
cmds+=("$ctx budget estimate tree --tokenizer cl100k --json")
if [ -n "$c2p" ]; then
  cmds+=("$c2p tree --encoding cl100k --output-file c2p-out.md")
fi
cmds+=("$ctx budget estimate tree --tokenizer auto --model claude-sonnet-4-5 --json")
hyperfine "${args[@]}" "${cmds[@]}"

hyperfine --warmup 5 --runs 50 -N --export-json "$work/one.json" \
  "$ctx budget estimate one.rs --tokenizer o200k --json" \
  "$ctx budget estimate one.rs --tokenizer cl100k --json" \
  "$ctx budget estimate one.rs --tokenizer swarm --json"

echo
echo "medians:"
python3 - "$work/tree.json" "$work/one.json" "$(find tree -type f -printf '%s\n' | awk '{s += $1} END {print s}')" <<'PY'
import json, sys
tree_bytes = int(sys.argv[3])
for path in sys.argv[1:3]:
    for r in json.load(open(path))["results"]:
        line = f"  {r['median'] * 1000:9.1f} ms  {r['command']}"
        if "--tokenizer auto" in r["command"]:
            line += f"  ({tree_bytes / r['median'] / 1e6:.0f} MB/s)"
        print(line)
PY

#!/usr/bin/env bash
# Whole-process benchmarks of `ctx budget estimate` (release build, hyperfine), side by side with
# peers measured in the same run:
#   - a 50 MB tree of real Rust sources (the cargo registry's crate sources, copied to a scratch
#     directory), counted with --tokenizer o200k against repomix (o200k_base) and with
#     --tokenizer cl100k against code2prompt (cl100k), and with both by a baseline ctx built from
#     $BASELINE (default: the last commit that counted with bpe-openai; "none" skips it); totals
#     checked against js-tiktoken, and the bench fails when they differ;
#   - the same tree on one core (RAYON_NUM_THREADS=1), and with --tokenizer auto --model
#     claude-sonnet-4-5 (the calibrated estimate);
#   - one 1 KB file (start-up);
#   - 10 MB inputs without a word boundary: `a` repeated, random letters, one line of base64;
#   - peak memory on the tree, and the size of the binary.
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

baseline_rev="${BASELINE:-c0a3649}"
base=""
if [ "$baseline_rev" != none ]; then
  mkdir -p "$work/baseline"
  git archive "$baseline_rev" | tar -x -C "$work/baseline"
  cargo build --release --quiet --manifest-path "$work/baseline/Cargo.toml" --target-dir "$work/baseline/target"
  base="$work/baseline/target/release/ctx"
  echo "baseline: ctx at $(git rev-parse --short "$baseline_rev")"
fi
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"

# 50 MB of *.rs files, in path order, copied with their relative paths.
python3 benches/rust-tree.py "$registry" "$work/tree"
head -c 1024 "$(find "$work/tree" -name '*.rs' | sort | head -1)" > "$work/one.rs"

npm install --silent --prefix "$work/node" js-tiktoken repomix >/dev/null 2>&1 || echo "npm install failed: no repomix or js-tiktoken" >&2

# Reference totals from js-tiktoken (tiktoken's ranks in JavaScript), file by file.
total() { "$1" budget estimate "$work/tree" --tokenizer "$2" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_tokens"])'; }
if [ -d "$work/node/node_modules/js-tiktoken" ]; then
  NODE_PATH="$work/node/node_modules" node - "$work/tree" > "$work/reference.txt" <<'JS'
const fs = require("fs"), path = require("path");
const { getEncoding } = require("js-tiktoken");
const encs = { o200k: getEncoding("o200k_base"), cl100k: getEncoding("cl100k_base") };
const files = [];
(function walk(d) { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
  const p = path.join(d, e.name); e.isDirectory() ? walk(p) : files.push(p); } })(process.argv[2]);
for (const [name, enc] of Object.entries(encs)) {
  let total = 0;
  for (const f of files) total += enc.encode(fs.readFileSync(f, "utf8"), [], []).length;
  console.log(`${name} ${total}`);
}
JS
  while read -r t expected; do
    got=$(total "$ctx" "$t")
    echo "$t total: js-tiktoken $expected, ctx $got"
    [ "$got" = "$expected" ] || { echo "ctx's $t total differs from js-tiktoken's" >&2; exit 1; }
  done < "$work/reference.txt"
else
  for t in o200k cl100k; do echo "ctx $t total: $(total "$ctx" "$t") (no js-tiktoken to check it)"; done
fi

cd "$work"
[ -x node/node_modules/.bin/repomix ] && echo "repomix $(node/node_modules/.bin/repomix --version)"
c2p="${CODE2PROMPT:-$(command -v code2prompt || true)}"
[ -n "$c2p" ] && echo "$("$c2p" --version)"
args=(--warmup 1 --runs 5 --export-json "$work/tree.json")
cmds=("$ctx budget estimate tree --tokenizer o200k --json")
[ -n "$base" ] && cmds+=("$base budget estimate tree --tokenizer o200k --json")
if [ -x node/node_modules/.bin/repomix ]; then
  cmds+=("node/node_modules/.bin/repomix tree --token-count-encoding o200k_base --output repomix-out.xml --quiet")
fi
cmds+=("$ctx budget estimate tree --tokenizer cl100k --json")
[ -n "$base" ] && cmds+=("$base budget estimate tree --tokenizer cl100k --json")
if [ -n "$c2p" ]; then
  cmds+=("$c2p tree --encoding cl100k --output-file c2p-out.md")
fi
cmds+=("$ctx budget estimate tree --tokenizer auto --model claude-sonnet-4-5 --json")
hyperfine "${args[@]}" "${cmds[@]}"

one_core=("$ctx budget estimate tree --tokenizer o200k --json")
[ -n "$base" ] && one_core+=("$base budget estimate tree --tokenizer o200k --json")
RAYON_NUM_THREADS=1 hyperfine --warmup 1 --runs 5 --export-json "$work/one-core.json" "${one_core[@]}"

one_kb=("$ctx budget estimate one.rs --tokenizer o200k --json")
[ -n "$base" ] && one_kb+=("$base budget estimate one.rs --tokenizer o200k --json")
one_kb+=("$ctx budget estimate one.rs --tokenizer cl100k --json" "$ctx budget estimate one.rs --tokenizer swarm --json")
hyperfine --warmup 5 --runs 50 -N --export-json "$work/one.json" "${one_kb[@]}"

# 10 MB without a word boundary: each is one piece (base64 is cut at + and / only).
python3 - <<'PY'
import base64, random
random.seed(1)
open("a.txt", "w").write("a" * 10_000_000)
open("letters.txt", "w").write("".join(random.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(10_000_000)))
open("base64.txt", "w").write(base64.b64encode(random.randbytes(7_500_000)).decode())
PY
words=()
for f in a letters base64; do
  words+=("$ctx budget estimate $f.txt --tokenizer o200k --json")
  [ -n "$base" ] && words+=("$base budget estimate $f.txt --tokenizer o200k --json")
done
hyperfine --warmup 1 --runs 3 -N --export-json "$work/words.json" "${words[@]}"

peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
echo
echo "peak memory on the tree (o200k): ctx $(peak "$ctx" budget estimate tree --tokenizer o200k --json) KB${base:+, baseline $(peak "$base" budget estimate tree --tokenizer o200k --json) KB}"
echo "binary: ctx $(stat -c %s "$ctx") bytes${base:+, baseline $(stat -c %s "$base") bytes}"
echo
echo "medians:"
python3 - "$(find tree -type f -printf '%s\n' | awk '{s += $1} END {print s}')" "$work"/{tree,one-core,one,words}.json <<'PY'
import json, sys
tree_bytes = int(sys.argv[1])
titles = {"tree": "the tree", "one-core": "the tree, one core", "one": "1 KB", "words": "10 MB single words"}
for path in sys.argv[2:]:
    print(f" {titles[path.rsplit('/', 1)[1][:-5]]}:")
    for r in json.load(open(path))["results"]:
        line = f"  {r['median'] * 1000:9.1f} ms  {r['command']}"
        if " tree " in r["command"]:
            line += f"  ({tree_bytes / r['median'] / 1e6:.0f} MB/s)"
        print(line)
PY

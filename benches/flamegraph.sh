#!/usr/bin/env bash
# Whole-process timings of the flame graphs (release build, hyperfine):
#   - `ctx frame tree --format svg` on a state of 10 000 frames (100 trees of 1 + 9 + 90 frames,
#     spans of minutes to an hour, a tenth still running), by each --weight, beside the text tree;
#   - `ctx budget estimate --format svg` on the 50 MB Rust tree of benches/budget.sh, beside the
#     same count as JSON (the picture should cost little more than the count).
# Usage: benches/flamegraph.sh (needs hyperfine and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/big/.opencode/flame"
python3 - "$work/big/.opencode/flame/state.json" <<'PY'
import json, random, sys
random.seed(7)
frames, roots = {}, []
t0 = 1795338000000
def add(fid, parent, start, depth):
    span = random.randint(60_000, 3_600_000 // (depth + 1))
    status = random.choice(["completed"] * 6 + ["failed", "blocked", "invalidated", "in_progress"])
    f = {"sessionID": fid, "status": status, "goal": f"Goal {fid}: do the thing well",
         "createdAt": start, "updatedAt": start + span, "artifacts": [], "decisions": ["keep it simple"],
         "compactionSummary": "Did the work; tests pass and the docs are updated."}
    if parent:
        f["parentSessionID"] = parent
    frames[fid] = f
    return start + span
start = t0
for r in range(100):
    root = f"fr_{r:03d}"
    roots.append(root)
    end = add(root, None, start, 0)
    for a in range(9):
        child = f"{root}_{a}"
        add(child, root, start + a * 1000, 1)
        for b in range(10):
            add(f"{child}_{b}", child, start + a * 1000 + b, 2)
    start = end
doc = {"version": 1, "frames": frames, "activeFrameID": roots[-1], "rootFrameIDs": roots, "updatedAt": start}
open(sys.argv[1], "w").write(json.dumps(doc, indent=2) + "\n")
print(f"state: {len(frames)} frames")
PY

SOURCE_DATE_EPOCH=1795400000 hyperfine --warmup 3 --runs 30 -N --export-json "$work/frames.json" \
  "$ctx -C $work/big frame tree --format svg" \
  "$ctx -C $work/big frame tree --format svg --weight frames" \
  "$ctx -C $work/big frame tree --format svg --weight tokens" \
  "$ctx -C $work/big frame tree"
echo "svg of 10 000 frames: $("$ctx" -C "$work/big" frame tree --format svg | wc -c) bytes"

# The Rust tree of benches/budget.sh.
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
python3 benches/rust-tree.py "$registry" "$work/tree"
hyperfine --warmup 1 --runs 10 --export-json "$work/budget.json" \
  "$ctx budget estimate $work/tree --tokenizer o200k --format svg" \
  "$ctx budget estimate $work/tree --tokenizer o200k --json"
echo "svg of the tree's budget: $("$ctx" budget estimate "$work/tree" --tokenizer o200k --format svg | wc -c) bytes"

echo
echo "medians:"
python3 - "$work/frames.json" "$work/budget.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        print(f"  {r['median'] * 1000:9.1f} ms  {r['command']}")
PY

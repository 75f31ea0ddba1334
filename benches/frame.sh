#!/usr/bin/env bash
# Whole-process timings of `ctx frame`: `tree` on the demo project, and `push` + `pop` on a state of
# 10 000 frames in a temporary folder, on a memory file system when there is one, and in each DIR
# given (to compare file systems). Usage: benches/frame.sh [DIR...] (needs hyperfine and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
work=$(mktemp -d)
cleanup=("$work")
trap 'rm -rf "${cleanup[@]}"' EXIT

# A Flame state of 10 000 frames: 100 roots with 99 descendants each in chains of 9.
mkdir -p "$work/big/.opencode/flame"
python3 - "$work/big/.opencode/flame/state.json" <<'PY'
import json, sys
frames, roots = {}, []
t = 1795338000000
for r in range(100):
    parent = None
    for i in range(100):
        fid = f"fr_{r:04d}{i:08d}"
        f = {"sessionID": fid}
        if i == 0:
            roots.append(fid)
        else:
            f["parentSessionID"] = parent if i % 10 else roots[-1]
        f.update({"status": "completed" if i % 3 else "in_progress", "goal": f"Goal number {r}.{i}: do the thing well",
                  "createdAt": t, "updatedAt": t, "artifacts": [f"src/m{i}.rs"], "decisions": ["keep it simple"],
                  "compactionSummary": "Did the work; tests pass and the docs are updated."})
        frames[fid] = f
        parent = fid
        t += 1
        if i == 0:
            f["status"] = "in_progress"
doc = {"version": 1, "frames": frames, "activeFrameID": roots[-1], "rootFrameIDs": roots, "updatedAt": t}
open(sys.argv[1], "w").write(json.dumps(doc, indent=2) + "\n")
PY
ls -l "$work/big/.opencode/flame/state.json" | awk '{print "state of 10 000 frames:", $5, "bytes"}'

hyperfine --warmup 20 --runs 200 -N \
  "$ctx -C examples/demo frame tree" \
  "$ctx -C examples/demo frame current" \
  --export-json "$work/demo.json"
# push then pop the pushed frame: the state returns to 10 000 frames + 1 per run, as a user's would grow.
hyperfine --warmup 5 --runs 60 -N \
  "$ctx -C $work/big frame push 'Benchmark frame'" \
  "$ctx -C $work/big frame pop --force -q" \
  "$ctx -C $work/big frame tree" \
  --export-json "$work/big.json"
# The same push and pop on a memory file system, when there is one: what the file system adds to a
# write (the fsync, and freeing the 4.5 MB the rename replaces) is the difference.
results=("$work/demo.json" "$work/big.json")
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  shm=$(mktemp -d /dev/shm/ctx-bench.XXXXXX)
  cleanup+=("$shm")
  cp -r "$work/big" "$shm/big"
  hyperfine --warmup 5 --runs 60 -N \
    -n "$ctx -C tmpfs/big frame push 'Benchmark frame'" "$ctx -C $shm/big frame push 'Benchmark frame'" \
    -n "$ctx -C tmpfs/big frame pop --force -q" "$ctx -C $shm/big frame pop --force -q" \
    --export-json "$work/shm.json"
  results+=("$work/shm.json")
fi
for dir in "$@"; do
  other=$(mktemp -d "$dir/ctx-bench.XXXXXX")
  cleanup+=("$other")
  cp -r "$work/big" "$other/big"
  fstype=$(findmnt -n -o FSTYPE -T "$other" 2>/dev/null || echo dir)
  hyperfine --warmup 5 --runs 60 -N \
    -n "$ctx -C $fstype:$dir/big frame push 'Benchmark frame'" "$ctx -C $other/big frame push 'Benchmark frame'" \
    -n "$ctx -C $fstype:$dir/big frame pop --force -q" "$ctx -C $other/big frame pop --force -q" \
    --export-json "$work/other-$(basename "$other").json"
  results+=("$work/other-$(basename "$other").json")
done
# The other JSON model (examples/state_rawvalue.rs: ordered maps of &RawValue and a re-indenter),
# doing what push does to the file, beside ctx's push, each on its own copy of the state.
cargo build --release --quiet --example state_rawvalue
cp -r "$work/big" "$work/proto"
cp -r "$work/big" "$work/push"
hyperfine --warmup 5 --runs 60 -N \
  -n "ctx frame push (src/json.rs)" "$ctx -C $work/push frame push 'Benchmark frame'" \
  -n "prototype push (&RawValue)" "$PWD/target/release/examples/state_rawvalue $work/proto 'Benchmark frame'" \
  --export-json "$work/model.json"
python3 - "$work/model.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"  {r['median'] * 1000:6.1f} ms  {r['command']}")
PY
# Medians, the figure docs/src/performance.md quotes.
python3 - "${results[@]}" <<'PY'
import json, sys
print("| command | median | mean ± σ |\n|---|---|---|")
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        cmd = r["command"].split("/ctx ", 1)[1]
        print(f"| `ctx {cmd}` | {r['median']*1000:.1f} ms | {r['mean']*1000:.1f} ± {r['stddev']*1000:.1f} ms |")
PY

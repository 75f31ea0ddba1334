#!/usr/bin/env bash
# One Claude Code hook call, whole process (stdin JSON in, answer out), in a project whose session
# has a frame among 200 others: UserPromptSubmit when the frame context is unchanged (the common
# case: nothing is printed), when it changed (the context is printed and recorded), and PreCompact,
# beside `ctx --version` (the floor of starting ctx) measured in the same run.
# Usage: benches/claude.sh (needs hyperfine and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project=$work/project
mkdir -p "$project/.opencode/flame"
session=d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b
# 200 frames: 20 pushed and popped with summaries, each with 9 children.
python3 - "$project/.opencode/flame/state.json" <<'PY'
import json, sys
frames, roots, t = {}, [], 1795338000000
for r in range(20):
    rid = f"fr_{r:04d}00000000"
    roots.append(rid)
    frames[rid] = {"sessionID": rid, "status": "completed", "goal": f"Earlier work {r}: refunds and invoices",
                   "createdAt": t, "updatedAt": t, "artifacts": ["src/billing.rs"], "decisions": ["keep cents as integers"],
                   "compactionSummary": "Done; tests pass."}
    for c in range(9):
        cid = f"fr_{r:04d}{c + 1:08d}"
        frames[cid] = {"sessionID": cid, "parentSessionID": rid, "status": "completed", "goal": f"Step {c} of {r}",
                       "createdAt": t + c, "updatedAt": t + c, "artifacts": [], "decisions": []}
    t += 100
open(sys.argv[1], "w").write(json.dumps({"version": 1, "frames": frames, "rootFrameIDs": roots, "updatedAt": t}, indent=2) + "\n")
PY
prompt=$work/prompt.json
printf '{"session_id":"%s","transcript_path":"/tmp/x.jsonl","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"Fix the refund rounding"}' \
  "$session" "$project" >"$prompt"
compact=$work/compact.json
printf '{"session_id":"%s","cwd":"%s","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":null}' \
  "$session" "$project" >"$compact"
cd "$project"
cp .opencode/flame/state.json "$work/before.json"
"$ctx" claude hook UserPromptSubmit <"$prompt" | grep -q flame-context   # the session's frame and its context
echo "state: $(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['frames']))" .opencode/flame/state.json) frames"
hyperfine --warmup 20 --runs 300 \
  -n "ctx --version" "$ctx --version" \
  -n "UserPromptSubmit, context unchanged" "$ctx claude hook UserPromptSubmit <$prompt" \
  -n "PreCompact" "$ctx claude hook PreCompact <$compact" \
  --export-json "$work/steady.json" >/dev/null
cp .opencode/flame/state.json "$work/after.json"
# A session's first prompt: its frame is pushed, its context printed and recorded (a write of
# state.json, as `ctx frame push` makes, measured beside it).
hyperfine --warmup 20 --runs 300 --prepare "cp $work/before.json .opencode/flame/state.json" \
  -n "UserPromptSubmit, first prompt (frame made)" "$ctx claude hook UserPromptSubmit <$prompt" \
  -n "ctx frame push (the same write, for comparison)" "$ctx frame push -q -- 'A frame' >/dev/null" \
  --export-json "$work/first.json" >/dev/null
python3 - "$work/steady.json" "$work/first.json" <<'PY'
import json, sys
rows = [r for path in sys.argv[1:] for r in json.load(open(path))["results"]]
floor = rows[0]["median"]
print("| call | median | mean ± σ | vs `ctx --version` |")
print("|---|---:|---:|---:|")
for r in rows:
    print(f"| {r['command']} | {r['median'] * 1000:.2f} ms | {r['mean'] * 1000:.2f} ± {r['stddev'] * 1000:.2f} ms | {r['median'] / floor:.2f}× |")
PY

#!/usr/bin/env bash
# Whole-process timings of `ctx compact` (release build, hyperfine):
#   render  on examples/demo: swarm compaction entries plus the frame context (target: ≤ 5 ms median)
#   inject  into a generated 2 MB OpenCode message list (target: ≤ 30 ms median)
#
# Usage: benches/compact.sh        Needs hyperfine and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 2 MB of messages shaped like OpenCode's: user prompts, assistant texts and completed tool calls.
python3 - "$work/messages.json" <<'PY'
import json, sys
session = "ses_dfcfe7a69ffeStZsxnTSWsbCBp"
messages, n = [], 0
def mid():
    global n
    n += 1
    return f"{n:012x}AbCdEfGhIjKlMn"
while len(json.dumps({"messages": messages})) < 2_000_000:
    user = "msg_" + mid()
    messages.append({"info": {"id": user, "sessionID": session, "role": "user", "time": {"created": 1795346761241 + n},
                              "agent": "build", "model": {"providerID": "mock", "modelID": "mock-1"}},
                     "parts": [{"id": "prt_" + mid(), "sessionID": session, "messageID": user, "type": "text",
                                "text": "Please handle the refund webhook and add tests. " * 8}]})
    reply = "msg_" + mid()
    messages.append({"info": {"id": reply, "sessionID": session, "role": "assistant", "parentID": user,
                              "modelID": "mock-1", "providerID": "mock", "cost": 0.02034,
                              "tokens": {"input": 1206, "output": 388, "reasoning": 0, "cache": {"read": 18840, "write": 1400}},
                              "time": {"created": 1795346761241 + n, "completed": 1795346761300 + n}},
                     "parts": [{"id": "prt_" + mid(), "sessionID": session, "messageID": reply, "type": "tool",
                                "callID": "call_1", "tool": "bash",
                                "state": {"status": "completed", "input": {"command": "cargo test"},
                                          "output": "test result: ok. 9 passed\n" * 20, "title": "Run tests",
                                          "metadata": {"exit": 0}, "time": {"start": 1, "end": 2}}},
                               {"id": "prt_" + mid(), "sessionID": session, "messageID": reply, "type": "text",
                                "text": "The refund handler is in place; all tests pass. " * 6}]})
json.dump({"messages": messages}, open(sys.argv[1], "w"))
PY
echo "message list: $(wc -c <"$work/messages.json") bytes"

hyperfine --warmup 20 --min-runs 100 --export-json "$work/render.json" \
    -n "render (swarm + frame, json)" "$ctx -C examples/demo compact render --format json" \
    -n "render (frame, xml)" "$ctx -C examples/demo compact render --for frame --format xml"
hyperfine --warmup 5 --min-runs 30 --export-json "$work/inject.json" \
    -n "inject 2 MB (last-user)" "$ctx -C examples/demo compact inject --at last-user < $work/messages.json" \
    -n "inject 2 MB (append)" "$ctx -C examples/demo compact inject --at append < $work/messages.json"

echo
echo "medians (hyperfine's own shell start-up correction applied):"
python3 - "$work/render.json" "$work/inject.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        print(f"  {r['command']}: {r['median'] * 1000:.2f} ms median, {r['mean'] * 1000:.2f} ms mean")
PY

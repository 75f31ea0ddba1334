#!/usr/bin/env bash
# What a popped frame costs in the context a model receives: the same scripted work run three ways in one run,
# each in a real OpenCode (tests/e2e/opencode-sandbox.sh) against the stand-in model in strict mode (it refuses,
# as real APIs do, a request whose tool calls and results no longer pair up):
#   plain  OpenCode without plugins;
#   ctx    ctx's plugin (`ctx opencode install`): the model pushes a frame (flame_push), runs its two bash calls and
#          pops it with a summary (flame_pop);
#   dcp    Dynamic Context Pruning (@tarquinen/opencode-dcp, pinned in benches/opencode-ways.sh) in opencode.json's "plugin": the model
#          runs the two bash calls, then calls DCP's `compress` over the span they fill.
# The work: three parts one after another, each two `bash` calls printing about 20 000 characters of a made-up build
# log (benches/fold-output.py, seeded: every way sees the same text), then a final reply. Then
# benches/fold-measure.py reads each way's request log and prints a markdown table: the last request's size
# (its messages without the system prompt, characters and o200k tokens), the prefix breaks (and where), the share
# of the characters sent that a prefix cache could serve, how many bash outputs the last request still carries,
# and any refused request or failed tool call (definitions: fold-measure.py's header).
#
# Usage: benches/fold.sh [WAY...]       (default: plain ctx dcp; about two minutes)
# Environment: CTX=/path/to/ctx skips the release build and uses that binary; KEEP=1 keeps the work folder
# (request logs under WORK/WAY/sandbox/requests) and prints its path; FOLD_JSON=FILE also writes the measures as
# JSON; MOCK_PORT, if set, is the first of three ports (default: free ones). Needs cargo (unless CTX), node/npm
# and python3; installs OpenCode (on first use, see the sandbox script) and DCP under target/bench-peers/.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
source benches/opencode-ways.sh "$@"
# As separate words: `opencode run` puts an argument with spaces in double quotes before sending it.
prompt=(Do the three parts of the refund work, one after another.)

# steps WAY: the stand-in's script for WAY. Every agent request (one that offers tools) takes the next step.
steps() {
  python3 - "$1" <<'PY'
import json, sys
way = sys.argv[1]
# OpenCode's title request (it offers no tools): the session's title, which ctx also takes as its frame's goal.
steps = [{"tools": False, "reply": "Refund work in three parts"}]
call = lambda name, **arguments: {"tools": True, "tool_calls": [{"name": name, "arguments": arguments}]}
# DCP numbers the session's messages m0001, m0002, ... (one per OpenCode message: the prompt, then one per
# model answer, its tool results included) and shows each number to the model in <dcp-message-id> tags.
message = 1  # the prompt
for part in (1, 2, 3):
    if way == "ctx":
        steps.append(call("flame_push", goal=f"Refund work, part {part}: run the checks and read their logs"))
        message += 1
    first = message + 1
    for run in ("a", "b"):
        steps.append(call("bash", command=f"python3 build-log.py {part} {run}",
                          description=f"Build log {part}{run}"))
        message += 1
    summary = (f"Part {part} done: the checks of part {part} ran; their logs show the refund handler and the ledger "
               f"entries agree, and nothing is left to fix in this part.")
    if way == "ctx":
        steps.append(call("flame_pop", summary=summary))
        message += 1
    elif way == "dcp":
        steps.append(call("compress", topic=f"Refund work part {part}",
                          content=[{"startId": f"m{first:04d}", "endId": f"m{message:04d}", "summary": summary}]))
        message += 1
steps.append({"tools": True, "reply": "All three parts of the refund work are done."})
print(json.dumps(steps, indent=1))
PY
}

run_way() {
  local way=$1 port=$2
  local project=$work/$way/project sandbox=$work/$way/sandbox
  way_project "$way" "$project" "$sandbox" "$port" 200000 32000
  steps "$way" >"$work/$way/steps.json"
  PATH=$(dirname "$ctx"):$PATH MOCK_PORT=$port MOCK_STRICT=1 MOCK_SCRIPT=$work/$way/steps.json \
    tests/e2e/opencode-sandbox.sh "$sandbox" "$project" -- run "${prompt[@]}" >"$work/$way/opencode.out" 2>&1 || {
    echo "$way: opencode exited non-zero; its output:" >&2
    tail -20 "$work/$way/opencode.out" >&2
  }
  [[ -f $sandbox/mock.log ]] || echo "$way: the stand-in did not start (port $port was taken)" >&2
  local scripted used
  scripted=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/$way/steps.json")
  used=$(find "$sandbox/requests" -name '*.step.json' | wc -l)
  [[ $used -eq $scripted ]] ||
    echo "$way: only $used of the $scripted scripted steps were used (KEEP=1 keeps the logs)" >&2
}

echo "OpenCode $(grep -m1 -o 'OPENCODE_VERSION=[0-9.]*' tests/e2e/opencode-sandbox.sh | cut -d= -f2)," \
  "DCP $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$dcp/package.json")," \
  "ctx $("$ctx" --version | cut -d' ' -f2) ($(git rev-parse --short HEAD 2>/dev/null || echo '?'))," \
  "stand-in in strict mode"
echo
logs=()
for i in "${!ways[@]}"; do
  way=${ways[$i]}
  if [[ -n ${MOCK_PORT:-} ]]; then port=$((MOCK_PORT + i)); else port=$(free_port); fi
  run_way "$way" "$port"
  logs+=("$way=$work/$way/sandbox/requests")
done
python3 benches/fold-measure.py "$ctx" "${logs[@]}" ${FOLD_JSON:+--json "$FOLD_JSON"}

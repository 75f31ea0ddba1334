#!/usr/bin/env bash
# A whole long session, three ways, in a real OpenCode (tests/e2e/opencode-sandbox.sh) against the stand-in model
# in strict mode, with a model whose context is small enough (64 000 tokens) that plain OpenCode compacts:
#   plain  OpenCode without plugins (pushes and pops are bash echoes);
#   ctx    ctx's plugin (`ctx opencode install`): each frame pushed with flame_push and popped with flame_pop;
#   dcp    Dynamic Context Pruning (@tarquinen/opencode-dcp, pinned in benches/opencode-ways.sh): after each frame's work
#          the model calls DCP's `compress` over the span that work fills;
#   turns  ctx's plugin with frame.auto = "turns" and plain's script: a model that never calls ctx, whose frames are
#          the person's turns alone (ctx opens and folds them itself).
# And the same work by a model that never calls ctx nor DCP but keeps OpenCode's todo list: each push is a
# `todowrite` that sets the item in progress, each pop one that sets it completed (a nested frame is an item of its
# own, in progress beside its parent's); every third completion comes in the call that starts the next item, and
# items 7 and 15 are completed only by the last call:
#   plain-todos  OpenCode without plugins;
#   ctx-todos    ctx's plugin with frame.auto = "all": ctx frames the turns and the items and folds them itself;
#   dcp-todos    DCP with its automatic strategies only (the model never calls `compress`).
# The session: 22 frames (benches/long_items.py, which benches/pi-long.sh runs as pi turns), every fourth with a
# frame nested in it, each running bash calls that print 10 000 to 40 000 characters of a made-up build log
# (benches/fold-output.py, seeded), a bash call between frames, and a person's message in the middle (a second
# `opencode run --continue`). The stand-in reports usage as a quarter of the request's characters, so OpenCode
# compacts when a request nears the model's limit.
# Then benches/long-measure.py prints a markdown table: compactions and what they sent, the largest request, the
# input billed with a prompt cache (uncached + 0.1 x cached, in characters, every request counted: the
# compactions' too), the characters no cache could serve, refusals and tool errors; and the targets (ctx never compacts where plain does at least twice, ctx's billed input at most
# half of plain's and below DCP's, its uncached characters at most plain's).
#
# Usage: benches/long.sh [WAY...]       (default: plain ctx dcp turns; several minutes each)
# Environment: CTX=/path/to/ctx skips the release build; KEEP=1 keeps the work folder; LONG_JSON=FILE also writes
# the measures as JSON; MOCK_PORT, if set, is the first of three ports (default: free ones); FOLD_AFTER=N sets
# frame.fold_after for the turns and ctx-todos ways (closed frames wait for N person's messages before they fold).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
CONTEXT_TOKENS=64000
[[ $# -gt 0 ]] || set -- plain ctx dcp turns
source benches/opencode-ways.sh "$@"
# As separate words: `opencode run` puts an argument with spaces in double quotes before sending it.
prompt=(Work through the refund backlog, one frame per item.)
person=(Also check the currency rounding in each remaining item.)

# steps WAY HALF: the stand-in's script for WAY's run HALF (1: the first 11 frames, 2: the rest, after the
# person's message). Every agent request (one that offers tools) takes the next step; OpenCode's title and
# compaction requests (no tools) get the stand-in's fixed reply.
steps() {
  python3 - "$1" "$2" <<'PY'
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, "benches")
import long_items  # the items, which benches/pi-long.sh runs too
way, half = sys.argv[1], int(sys.argv[2])
call = lambda name, **arguments: {"tools": True, "tool_calls": [{"name": name, "arguments": arguments}]}
way, todos = way.removesuffix("-todos"), way.endswith("-todos")
# The todo workload's list: every item from the start, pending until its turn; a nested frame's item is added when
# it starts. `pending_done` holds a completion kept for the call that starts the next item.
items = {f"Refund backlog item {n}": "pending" for n, _, _ in long_items.ITEMS}
late = {7, 15}
pending_done = []
if half == 2:
    # The first run's calls, replayed: the second run's list goes on from where the first left it.
    for n in range(1, 12):
        items[f"Refund backlog item {n}"] = "completed" if n not in late else "in_progress"
        if n % 4 == 0:
            items[f"Item {n}: the rounding detail"] = "completed"
def todo_call(**changes):
    items.update(changes)
    todos = [{"content": c, "status": s, "priority": "high"} for c, s in items.items()]
    return call("todowrite", todos=todos)
steps = [{"tools": False, "reply": "Refund backlog"}] if half == 1 else []
# DCP's message numbers: m0001 the prompt, then one per model answer (its tool results included); the second
# run adds the person's message. Only the dcp way reads them.
message = 1
def frame(n, sizes, nested):
    global message
    out = []
    summary = f"Item {n} done: its checks ran and the refund handler and the ledger agree."
    if todos:
        starts = {f"Refund backlog item {n}": "in_progress"}
        starts.update({done: "completed" for done in pending_done})
        pending_done.clear()
        out.append(todo_call(**starts))
    elif way == "ctx":
        out.append(call("flame_push", goal=f"Refund backlog item {n}"))
    else:
        out.append(call("bash", command="echo push", description=f"Item {n}"))
    message += 1
    first = message + 1
    for k, size in enumerate(sizes):
        out.append(call("bash", command=f"python3 build-log.py {n} {k} {size}", description=f"Log {n}.{k}"))
        message += 1
        if nested and k == 0:
            inner_first = message + 1
            if todos:
                out.append(todo_call(**{f"Item {n}: the rounding detail": "in_progress"}))
            elif way == "ctx":
                out.append(call("flame_push", goal=f"Item {n}: the rounding detail"))
            else:
                out.append(call("bash", command="echo push", description=f"Item {n} detail"))
            message += 1
            out.append(call("bash", command=f"python3 build-log.py {n} inner {long_items.INNER_SIZE}", description=f"Detail {n}"))
            message += 1
            detail = f"Item {n} detail: rounding is half-even."
            if todos:
                out.append(todo_call(**{f"Item {n}: the rounding detail": "completed"}))
            elif way == "ctx":
                out.append(call("flame_pop", summary=detail))
            else:
                out.append(call("bash", command="echo pop", description=detail))
            message += 1
    if todos:
        name = f"Refund backlog item {n}"
        if n in late:
            pass  # completed by the last call
        elif n % 3 == 0 and n not in (11, 22):
            pending_done.append(name)  # completed by the call that starts the next item
        else:
            out.append(todo_call(**{name: "completed"}))
    elif way == "ctx":
        out.append(call("flame_pop", summary=summary))
    elif way == "dcp":
        out.append(call("compress", topic=f"Refund item {n}",
                        content=[{"startId": f"m{first:04d}", "endId": f"m{message:04d}", "summary": summary}]))
    else:
        out.append(call("bash", command="echo pop", description=summary))
    message += 1
    out.append(call("bash", command=f"echo 'between items: {n} of 22 done'", description="Progress"))
    message += 1
    return out
for n, a, b in long_items.ITEMS:
    part = 1 if n <= 11 else 2
    if part == 2 and n == 12:
        message += 2  # the first run's final reply, and the person's message
    chunk = frame(n, (a, b), nested=long_items.nested(n))
    if part == half:
        steps.extend(chunk)
if todos and half == 2:
    steps.append(todo_call(**{f"Refund backlog item {n}": "completed" for n in late}))
steps.append({"tools": True, "reply": "Half of the backlog is done." if half == 1 else "The backlog is done."})
print(json.dumps(steps, indent=1))
PY
}

run_way() {
  local way=$1 port=$2
  local project=$work/$way/project sandbox=$work/$way/sandbox
  mkdir -p "$work/$way/requests"
  way_project "$way" "$project" "$sandbox" "$port" "$CONTEXT_TOKENS" 4000
  local half args
  for half in 1 2; do
    steps "$way" "$half" >"$work/$way/steps-$half.json"
    if [[ $half == 1 ]]; then args=(run "${prompt[@]}"); else args=(run --continue "${person[@]}"); fi
    rm -rf "$sandbox/requests"
    PATH=$(dirname "$ctx"):$PATH MOCK_PORT=$port MOCK_STRICT=1 MOCK_SCRIPT=$work/$way/steps-$half.json \
      tests/e2e/opencode-sandbox.sh "$sandbox" "$project" -- "${args[@]}" >"$work/$way/opencode-$half.out" 2>&1 || {
      echo "$way: opencode exited non-zero in run $half; its output:" >&2
      tail -20 "$work/$way/opencode-$half.out" >&2
    }
    # The two runs' requests in one folder, numbered on.
    local n=$(find "$work/$way/requests" -name '[0-9]*[0-9].json' | wc -l) f base
    for f in $(find "$sandbox/requests" -name '[0-9]*[0-9].json' | sort); do
      n=$((n + 1))
      base=$(printf '%04d' "$n")
      cp "$f" "$work/$way/requests/$base.json"
      [[ -f ${f%.json}.error.txt ]] && cp "${f%.json}.error.txt" "$work/$way/requests/$base.error.txt"
    done
    local scripted used
    scripted=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/$way/steps-$half.json")
    used=$(find "$sandbox/requests" -name '*.step.json' | wc -l)
    [[ $used -eq $scripted ]] ||
      echo "$way: run $half used $used of its $scripted scripted steps (KEEP=1 keeps the logs)" >&2
  done
  # The database beside the requests, for the tool errors.
  ln -s "$sandbox/data" "$work/$way/data"
}

echo "OpenCode $(grep -m1 -o 'OPENCODE_VERSION=[0-9.]*' tests/e2e/opencode-sandbox.sh | cut -d= -f2)," \
  "DCP $DCP_VERSION, ctx $("$ctx" --version | cut -d' ' -f2) ($(git rev-parse --short HEAD 2>/dev/null || echo '?'))," \
  "model context $CONTEXT_TOKENS tokens, stand-in in strict mode"
echo
logs=()
for i in "${!ways[@]}"; do
  way=${ways[$i]}
  if [[ -n ${MOCK_PORT:-} ]]; then port=$((MOCK_PORT + i)); else port=$(free_port); fi
  run_way "$way" "$port"
  logs+=("$way=$work/$way/requests")
done
python3 benches/long-measure.py "$ctx" "${logs[@]}" ${LONG_JSON:+--json "$LONG_JSON"}

#!/usr/bin/env bash
# End-to-end tests with the real pi (npm @mariozechner/pi-coding-agent, pinned in pi-install.sh): builds ctx,
# installs ctx's extension into temporary projects with `ctx pi install`, runs `pi -p` offline
# against the stand-in model of mock-llm.py (--strict: tool calls and results must pair up),
# scripted with tool calls and reported usage, and checks the frame tree and logs on disk and, in
# the model's request log, what the model was sent.
#
#   tests/e2e/pi.sh [SCENARIO...]      (default: all; names below, e.g. `fold`)
#
# Needs cargo, node/npm (pi is installed into ${CTX_PI_HOME:-~/.cache/ctx-pi} when missing) and
# python3. MOCK_PORT picks the stand-in's port. KEEP=1 keeps the temporary folder.
set -euo pipefail
source "$(dirname "$0")/lib.sh" pi
export PATH=$ctx_dir:$PATH
export MOCK_PORT=${MOCK_PORT:-47301}
# A pi started from a session with a frame becomes its child: these runs start from none.
unset CTX_SESSION CTX_SESSION_PID

source "$here/pi-install.sh"

mock_pid=
at_exit() { [[ -z $mock_pid ]] || kill "$mock_pid" 2>/dev/null; }

# A fresh project (a git repository, as a project is), with ctx's extension written by
# `ctx pi install` as a user would, unless PLAIN is set.
new_project() {
  local project=$work/$1
  mkdir -p "$project"
  git -C "$project" init -q
  [[ -n ${PLAIN:-} ]] || ctx -C "$project" -q pi install >/dev/null || fail "ctx pi install"
  echo "$project"
}

# pi's agent folder for one run: the stand-in provider, with a context window of WINDOW tokens.
agent_dir() {
  local dir=$work/agent-$1 window=${2:-200000}
  mkdir -p "$dir"
  cat >"$dir/models.json" <<EOF
{"providers": {"mock": {"api": "openai-completions", "baseUrl": "http://127.0.0.1:$MOCK_PORT/v1", "apiKey": "x",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
  "models": [{"id": "mock-1", "name": "Mock 1", "contextWindow": $window, "maxTokens": 8000}]}}}
EOF
  echo "$dir"
}

# run NAME PROJECT SCRIPT PROMPT...: one `pi -p` with a fresh stand-in and request log, the
# prompts (or slash commands) in turn; prints the log's folder. pi's stdout and stderr go to
# $work/NAME.out and $work/NAME.err. WINDOW: the model's context window (200000). AGENT: the
# name of pi's agent folder, where it keeps its sessions (NAME): a later run given the same one
# can continue a session (`-c`).
run() {
  local name=$1 project=$2 script=$3
  shift 3
  local requests=$work/requests-$name agent
  agent=$(agent_dir "${AGENT:-$name}" "${WINDOW:-200000}")
  rm -rf "$requests"
  python3 "$here/mock-llm.py" --strict --port "$MOCK_PORT" --requests "$requests" --script "$script" \
    --max-seconds 300 &
  mock_pid=$!
  for _ in $(seq 50); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 0.2)" "$MOCK_PORT" \
      2>/dev/null && break
    sleep 0.1
  done
  (cd "$project" && PI_OFFLINE=1 PI_CODING_AGENT_DIR=$agent timeout 240 "$pi_bin" -p --provider mock \
    --model mock-1 "$@" >"$work/$name.out" 2>"$work/$name.err") \
    || { cat "$work/$name.out" "$work/$name.err" >&2; kill "$mock_pid"; fail "$name: pi exited non-zero"; }
  kill "$mock_pid" 2>/dev/null || true
  wait "$mock_pid" 2>/dev/null || true
  mock_pid=
  accepted "$requests" "$name"
  echo "$requests"
}

# check REQUESTS WHAT PYTHON: runs the checks in PYTHON with `requests` (the logged requests, in
# order, as request_log.py's "chat" views: "messages" without the system message, "size" the
# characters of their JSON, "tools", …) and `need` in scope.
check() {
  python3 - "$1" <<PY || fail "$2"
import json, sys
from request_log import checks
requests, need, first = checks(sys.argv[1], "chat")
$3
PY
}


# A bash call printing about 20 KB: MARK-0 … MARK-2199.
big_bash() {
  printf '{"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "python3 -c \\"print(chr(32).join(\x27%s-%%d\x27 %% i for i in range(2200)))\\""}}]}' "$1"
}

# The fold script: push, two ~20 KB outputs, pop, a last bash call, an answer. $1: how push and
# pop are made (flame = ctx's tools; plain = bash echoes, for pi without ctx).
fold_script() {
  local push pop
  if [[ $1 == flame ]]; then
    push='{"tools": true, "when": "Audit the ledger", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Audit the ledger entries"}}]}'
    pop='{"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "LEDGER-SUMMARY: 3 entries are wrong"}}]}'
  else
    push='{"tools": true, "when": "Audit the ledger", "tool_calls": [{"name": "bash", "arguments": {"command": "echo push"}}]}'
    pop='{"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo LEDGER-SUMMARY: 3 entries are wrong"}}]}'
  fi
  cat <<EOF
[
 $push,
 $(big_bash LEDA),
 $(big_bash LEDB),
 $pop,
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo after \$CTX_SESSION"}}]},
 {"tools": true, "reply": "Finished."}
]
EOF
}

scenario_fold() {
  echo "scenario fold: push, two 20 KB outputs, pop: the last request carries the summary, none of the outputs, and at most 10 % of plain pi's"
  local project plain requests plain_requests
  project=$(new_project fold)
  fold_script flame >"$work/fold.json"
  requests=$(run fold "$project" "$work/fold.json" "Audit the ledger")
  plain=$(PLAIN=1 new_project fold-plain)
  fold_script plain >"$work/fold-plain.json"
  plain_requests=$(run fold-plain "$plain" "$work/fold-plain.json" "Audit the ledger")
  [[ $(cat "$work/fold.out") == Finished. ]] || fail "fold: pi answers"
  python3 - "$requests" "$plain_requests" >"$work/fold.sizes" <<'PY'
import sys
from request_log import checks
def last(folder):
    return checks(folder, "chat")[0][-1]["size"]
print(last(sys.argv[1]), last(sys.argv[2]))
PY
  read -r folded unfolded <"$work/fold.sizes"
  echo "  last request's messages: $folded characters with ctx, $unfolded with plain pi"
  check "$requests" "fold" "
last = requests[-1]
need(len(requests) == 6, 'six requests')
need('LEDGER-SUMMARY: 3 entries are wrong' in last['all'], 'the last request carries the summary')
need('<flame-folded' in last['all'], 'the last request carries the fold entry')
need('LEDA-' not in last['all'] and 'LEDB-' not in last['all'], 'none of the outputs')
need('LEDB-2199' in requests[3]['all'], 'before the pop the outputs went as they were')
need('after pi_' in last['all'], 'the model\'s shell has CTX_SESSION, its session')
need(last['size'] * 10 <= $unfolded, 'at most 10 % of plain pi')
# Prompt caches: each request starts with the whole request before it, but at the pop, where the
# history changes only from the frame's push on (after the prompt).
for i in (0, 1, 2, 4):
    a, b = requests[i]['messages'], requests[i + 1]['messages']
    need(b[:len(a)] == a, f'request {i + 2} starts with request {i + 1}')
a, b = requests[3]['messages'], requests[4]['messages']
need(a[0] == b[0] and a[1] != b[1], 'the pop changes the history from the push on')
"
  check "$plain_requests" "fold: plain pi" "
need('LEDA-2199' in requests[-1]['all'] and 'LEDB-2199' in requests[-1]['all'], 'plain pi sends both outputs')
need('flame_push' not in requests[0]['tools'], 'plain pi has no ctx tools')
"
}

scenario_log() {
  echo "scenario log: the popped frame's log holds the tool calls with their outputs"
  local project frame log
  project=$(new_project log)
  fold_script flame >"$work/log.json"
  run log "$project" "$work/log.json" "Audit the ledger" >/dev/null
  frame=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(ctx -C "$project" frame show "$frame" --json | field 'd["frame"]["status"]') == completed ]] \
    || fail "log: the frame is popped"
  log=$project/.opencode/flame/logs/frame-$frame.md
  [[ -f $log ]] || fail "log: $log is written"
  for mark in "pi session pi_" "[Tool: bash]" LEDA-0 LEDA-2199 LEDB-0 LEDB-2199 "[Tool: flame_pop]"; do
    grep -qF -- "$mark" "$log" || fail "log: the log holds $mark"
  done
}

scenario_context() {
  echo "scenario context: the <flame-context> arrives before the agent starts and after a push"
  local project requests
  project=$(new_project context)
  ctx -C "$project" -q frame push "Ship the billing fix" >/dev/null
  cat >"$work/context.json" <<'EOF'
[
 {"tools": true, "when": "Fix the refunds", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Fix the refund rounding"}}]},
 {"tools": true, "reply": "Done."},
 {"tools": true, "when": "And the tests", "reply": "Tested."},
 {"tools": true, "when": "And the docs", "reply": "Documented."}
]
EOF
  requests=$(run context "$project" "$work/context.json" "Fix the refunds" "And the tests" "/push Write the docs" "And the docs")
  check "$requests" "context" "
first, second, third, fourth = requests
need('<flame-context' in first['all'] and 'Ship the billing fix' in first['all'], 'the first request carries the person\'s frame')
need('Fix the refund rounding' in json.dumps(second['messages'][-1]), 'after the push, the context names the new frame')
for a, b in ((first, second), (second, third), (third, fourth)):
    need(b['messages'][:len(a['messages'])] == a['messages'], 'each request starts with the one before it')
def contexts(r):
    return sum(1 for m in r['messages'] if isinstance(m.get('content'), list) and any(p.get('text', '').startswith('<flame-context') for p in m['content']))
need(contexts(third) == contexts(second), 'an unchanged context is not added again after the next prompt')
need(contexts(fourth) == contexts(third) + 1 and 'Write the docs' in json.dumps(fourth['messages'][-1]), 'a changed one is')
"
  # The session's frame starts under the person's frame, titled with the prompt.
  ctx -C "$project" frame tree --json | python3 -c "
import json, sys
d = json.load(sys.stdin)
root = d['roots'][0]
kids = [c for c in root['children'] if c['id'].startswith('pi_')]
assert kids and kids[0]['goal'] == 'Fix the refunds', d
" || fail "context: the session's frame is under the person's, titled with the prompt"
}

scenario_compaction() {
  echo "scenario compaction: pi's compaction summary is recorded on the session's frame; the next prompt has the frame context again"
  local project requests session
  project=$(new_project compaction)
  cat >"$work/compaction.json" <<'EOF'
[
 {"tools": true, "when": "Tidy the ledger", "tool_calls": [{"name": "bash", "arguments": {"command": "echo tidy"}}]},
 {"tools": true, "reply": "Tidied.", "usage": {"prompt_tokens": 190000}},
 {"when": "summar", "reply": "COMPACTED-SUMMARY: the ledger was tidied"},
 {"when": "summar", "reply": "COMPACTED-SUMMARY: the ledger was tidied"},
 {"tools": true, "when": "Continue the ledger", "reply": "Continued."}
]
EOF
  requests=$(run compaction "$project" "$work/compaction.json" "Tidy the ledger" "Continue the ledger")
  session=$(ctx -C "$project" frame tree --json | field '[r["id"] for r in d["roots"] if r["id"].startswith("pi_")][0]')
  ctx -C "$project" frame show "$session" --json | field 'd["frame"].get("summary") or ""' >"$work/compaction.summary"
  grep -q "COMPACTED-SUMMARY: the ledger was tidied" "$work/compaction.summary" \
    || { cat "$work/compaction.err" >&2; fail "compaction: the summary is on the frame (got: $(cat "$work/compaction.summary"))"; }
  check "$requests" "compaction" "
last = requests[-1]
need('Continue the ledger' in last['all'] and 'COMPACTED-SUMMARY' in last['all'], 'the next prompt goes with pi\'s summary')
texts = [p.get('text', '') for m in last['messages'] if isinstance(m.get('content'), list) for p in m['content']]
need(any(t.startswith('<flame-context session=\"$session\"') for t in texts), 'and with the session\'s frame context again')
"
}

scenario_without_ctx() {
  echo "scenario without_ctx: the extension installed, ctx missing: pi still answers"
  local project requests
  project=$(new_project without-ctx)
  cat >"$work/without-ctx.json" <<'EOF'
[
 {"tools": true, "when": "Check the ledger", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Check"}}]},
 {"tools": true, "reply": "Checked."}
]
EOF
  # PATH without ctx's folder (pi itself needs node from PATH).
  local bare=${PATH//$ctx_dir:/}
  PATH=$bare command -v ctx >/dev/null && fail "without_ctx: another ctx is on PATH: $(PATH=$bare command -v ctx)"
  requests=$(PATH=$bare run without-ctx "$project" "$work/without-ctx.json" "Check the ledger")
  [[ $(cat "$work/without-ctx.out") == Checked. ]] || fail "without_ctx: pi answers"
  grep -q "ctx is not installed (or not on PATH)" "$work/without-ctx.err" \
    || fail "without_ctx: pi's stderr says ctx is missing"
  check "$requests" "without_ctx" "
need(len(requests) == 2, 'two requests')
need('Error: ctx is not installed (or not on PATH)' in requests[1]['all'], 'the flame_push call answers why')
"
}

scenario_broken_state() {
  echo "scenario broken_state: a state.json ctx cannot read: pi still answers, the file is left as it was, ctx says why once"
  local project requests lines
  project=$(new_project broken-state)
  mkdir -p "$project/.opencode/flame"
  printf '{"frames": {' >"$project/.opencode/flame/state.json"
  cat >"$work/broken-state.json" <<'EOF'
[
 {"tools": true, "when": "Check the ledger", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Check"}}]},
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo checked"}}]},
 {"tools": true, "reply": "Checked."}
]
EOF
  requests=$(run broken-state "$project" "$work/broken-state.json" "Check the ledger")
  [[ $(cat "$work/broken-state.out") == Checked. ]] || fail "broken_state: pi answers"
  [[ $(cat "$project/.opencode/flame/state.json") == '{"frames": {' ]] || fail "broken_state: state.json is left as it was"
  lines=$(grep -c '^ctx: ctx pi messages: error: .*state.json' "$work/broken-state.err" || true)
  [[ $lines == 1 ]] || { cat "$work/broken-state.err" >&2; fail "broken_state: ctx pi messages's refusal is said once (got $lines)"; }
  check "$requests" "broken_state" "
need(len(requests) == 3, 'every model call went')
need('Error: ' in json.dumps(requests[1]['messages']), 'flame_push answers with the refusal')
"
}

scenario_bad_input() {
  echo "scenario bad_input: a message ctx does not know passes unchanged with one log line; a ../ session is refused"
  local project requests lines
  project=$(new_project bad-input)
  # Another extension, loaded before ctx's, adds a message of a shape ctx does not know.
  cat >"$project/.pi/extensions/a-odd.ts" <<'EOF'
export default function (pi: any) {
  pi.on("context", (event: any) => ({ messages: [...event.messages, { role: "hologram", beam: [1, 2] }] }));
}
EOF
  cat >"$work/bad-input.json" <<'EOF'
[
 {"tools": true, "when": "Odd ledger", "tool_calls": [{"name": "bash", "arguments": {"command": "echo odd"}}]},
 {"tools": true, "reply": "Odd done."}
]
EOF
  requests=$(run bad-input "$project" "$work/bad-input.json" "Odd ledger")
  [[ $(cat "$work/bad-input.out") == "Odd done." ]] || fail "bad_input: pi answers"
  lines=$(grep -c 'a message ctx does not know (role "hologram") is passed on as it is' "$work/bad-input.err" || true)
  [[ $lines == 1 ]] || { cat "$work/bad-input.err" >&2; fail "bad_input: one log line (got $lines)"; }
  check "$requests" "bad_input" "
need(len(requests) == 2, 'both requests went')
need('odd' in requests[1]['all'], 'the messages went on')
"
  local out
  out=$(echo '{"messages": []}' | ctx -C "$project" pi messages --session ../etc 2>&1) && fail "bad_input: ../ is refused"
  [[ $out == "error: invalid frame id '../etc': only letters, digits, '_' and '-' are allowed" ]] \
    || fail "bad_input: the refusal says why: $out"
  [[ ! -e $project/.opencode/flame/etc.json && ! -e $project/.opencode/etc.json ]] || fail "bad_input: nothing written outside"
}

scenario_commands() {
  echo "scenario commands: /push, /pop with a summary and /status for the session (their answers on stderr with -p); the frame between them folds"
  local project requests
  project=$(new_project commands)
  cat >"$work/commands.json" <<EOF
[
 $(big_bash CMDX | sed 's/"tools": true,/"tools": true, "when": "Fix it",/'),
 {"tools": true, "reply": "Fixed."},
 {"tools": true, "when": "Next", "reply": "Next done."}
]
EOF
  requests=$(run commands "$project" "$work/commands.json" "/push Fix the rounding" "Fix it" \
    "/pop The rounding is fixed" "/status" "Next")
  grep -q '^Pushed frame fr_.* ("Fix the rounding", in_progress)' "$work/commands.err" || fail "commands: /push answers"
  grep -q '^Popped frame fr_.* ("Fix the rounding", completed)' "$work/commands.err" || fail "commands: /pop answers"
  grep -q '✓ Fix the rounding' "$work/commands.err" || fail "commands: /status shows the tree"
  check "$requests" "commands" "
need(len(requests) == 3, 'three requests')
need('CMDX-1999' in requests[1]['all'], 'the work went as it was while the frame ran')
last = requests[-1]
need('CMDX-' not in last['all'], 'after /pop the frame\'s work is folded')
need('The rounding is fixed' in last['all'] and '<flame-folded' in last['all'], 'its entry is sent')
need(last['messages'][0]['role'] == 'user', 'the conversation still starts with a user message')
"
}

scenario_subagent() {
  echo "scenario subagent: a subagent of pi's example extension is a child frame that sees its own context, popped with its answer"
  local project requests examples=$pi_home/node_modules/@mariozechner/pi-coding-agent/examples/extensions/subagent
  project=$(new_project subagent)
  # pi's own example extension, as its README installs it, and one agent on the stand-in model.
  mkdir -p "$project/.pi/extensions/subagent" "$work/agent-subagent/agents"
  cp "$examples/index.ts" "$examples/agents.ts" "$project/.pi/extensions/subagent/"
  printf -- '---\nname: worker\ndescription: does one task\nmodel: mock-1\n---\n\nYou are a worker.\n' \
    >"$work/agent-subagent/agents/worker.md"
  cat >"$work/subagent.json" <<'EOF'
[
 {"tools": true, "when": "Delegate the count", "tool_calls": [{"name": "subagent", "arguments": {"agent": "worker", "task": "Count the refunds"}}]},
 {"tools": true, "when": "Task: Count the refunds", "reply": "CHILD-ANSWER: 7 refunds"},
 {"tools": true, "reply": "Delegated."}
]
EOF
  requests=$(run subagent "$project" "$work/subagent.json" "Delegate the count")
  [[ $(cat "$work/subagent.out") == Delegated. ]] || fail "subagent: pi answers"
  ctx -C "$project" frame tree --json >"$work/subagent.tree"
  python3 - "$work/subagent.tree" <<'PY' || fail "subagent: the child's frame is under the parent's, completed with its answer"
import json, sys
d = json.load(open(sys.argv[1]))
roots = [r for r in d["roots"] if r["id"].startswith("pi_")]
assert len(roots) == 1, d
kids = [c for c in roots[0]["children"] if c["id"].startswith("pi_")]
assert len(kids) == 1, d
assert kids[0]["goal"] == "Task: Count the refunds" and kids[0]["status"] == "completed", kids
PY
  local child
  child=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['roots'][0]['children'][0]['id'])" "$work/subagent.tree")
  [[ $(ctx -C "$project" frame show "$child" --json | field 'd["frame"]["summary"]') == "CHILD-ANSWER: 7 refunds" ]] \
    || fail "subagent: the child's summary is its answer"
  grep -qF "CHILD-ANSWER: 7 refunds" "$project/.opencode/flame/logs/frame-$child.md" \
    || fail "subagent: the child's log holds its transcript"
  check "$requests" "subagent" "
child = [r for r in requests if 'Task: Count the refunds' in r['all']][0]
texts = [p.get('text', '') for m in child['messages'] if isinstance(m.get('content'), list) for p in m['content']]
need(any(t.startswith('<flame-context session=\"$child\"') for t in texts), 'the child\'s first request carries its own frame context')
"
}

scenario_settings() {
  echo "scenario settings: pi.tools = off offers no flame_* tool, /push and /pop still fold; pi.fold = off sends the frame's work as it was"
  local project requests name
  cat >"$work/settings.json" <<EOF
[
 $(big_bash SETX | sed 's/"tools": true,/"tools": true, "when": "Fix it",/'),
 {"tools": true, "reply": "Fixed."},
 {"tools": true, "when": "Next", "reply": "Next done."}
]
EOF
  for name in tools fold; do
    project=$(new_project "settings-$name")
    mkdir -p "$project/.opencode"
    printf '[pi]\n%s = "off"\n' "$name" >"$project/.opencode/ctx.toml"
    requests=$(run "settings-$name" "$project" "$work/settings.json" "/push Fix the rounding" "Fix it" \
      "/pop The rounding is fixed" "Next")
    grep -q '^Popped frame fr_.* ("Fix the rounding", completed)' "$work/settings-$name.err" \
      || fail "settings: pi.$name = off: /pop answers"
    if [[ $name == tools ]]; then
      check "$requests" "settings: pi.tools = off" "
need(len(requests) == 3, 'three requests')
need(all('bash' in r['tools'] for r in requests), 'pi\'s own tools are offered')
need(not any(t.startswith('flame_') for r in requests for t in r['tools']), 'no flame_* tool is')
need('SETX-' not in requests[-1]['all'] and '<flame-folded' in requests[-1]['all'], 'the frame still folds')
"
    else
      check "$requests" "settings: pi.fold = off" "
need(len(requests) == 3, 'three requests')
need('flame_push' in requests[0]['tools'], 'the tools are offered')
sent = json.dumps(requests[-1]['messages'])
need('SETX-1999' in sent and '<flame-folded' not in sent, 'the frame\'s work is sent as it was')
"
    fi
  done
}

scenario_auto_turns() {
  echo "scenario auto_turns: with frame.auto = turns, a model that never calls ctx gets each person's turn framed and its outputs folded once it closes, across pi -p and pi -p -c; flame_recall gives them back; with frame.auto off nothing changes"
  local project plain off first second third turn name
  # Two person turns, each with a bash call printing about 20 KB, and an answer.
  { printf '[\n'; big_bash T1A | sed 's/"tools": true,/"tools": true, "when": "PERSON0",/'; printf ',\n'
    printf '{"tools": true, "reply": "ASSIST0: the first part is done."}\n]\n'; } >"$work/auto-turns-1.json"
  { printf '[\n'; big_bash T2A | sed 's/"tools": true,/"tools": true, "when": "PERSON1",/'; printf ',\n'
    printf '{"tools": true, "reply": "ASSIST1: the second part is done."}\n]\n'; } >"$work/auto-turns-2.json"
  project=$(new_project auto-turns)
  mkdir -p "$project/.opencode"
  printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  first=$(AGENT=auto-turns run auto-turns-1 "$project" "$work/auto-turns-1.json" "PERSON0: do the first part")
  [[ $(cat "$work/auto-turns-1.out") == "ASSIST0: the first part is done." ]] || fail "auto_turns: pi answers"
  turn=$(python3 - "$project/.opencode/flame/state.json" <<'PY'
import json, sys
frames = json.load(open(sys.argv[1]))["frames"]
turns = [f for f in frames.values() if f.get("auto") == "turn"]
print(turns[0]["sessionID"] if len(turns) == 1 and turns[0]["status"] == "completed" else "")
PY
)
  [[ $turn == fr_* ]] || fail "auto_turns: the first person's prompt is no closed turn frame: $(ctx -C "$project" frame tree)"
  check "$first" "auto_turns, first turn" "
need(len(requests) == 2, 'two requests')
need(all('flame_recall' in r['tools'] for r in requests), 'flame_recall is offered')
need('T1A-2199' in requests[-1]['all'], 'the running turn\'s own output is sent whole')
need('ctx folded' not in json.dumps(requests[-1]['messages']), 'nothing is folded while the turn runs')
"
  second=$(AGENT=auto-turns run auto-turns-2 "$project" "$work/auto-turns-2.json" -c "PERSON1: do the second part")
  [[ $(cat "$work/auto-turns-2.out") == "ASSIST1: the second part is done." ]] || fail "auto_turns: pi -c answers"
  ctx -C "$project" frame tree >"$work/auto-turns.tree"
  grep -q "✓ PERSON0: do the first part (.*) turn" "$work/auto-turns.tree" \
    && grep -q "✓ PERSON1: do the second part (.*) turn" "$work/auto-turns.tree" \
    || fail "auto_turns: each person's turn is a closed turn frame in the tree: $(cat "$work/auto-turns.tree")"
  [[ $(ctx -C "$project" frame show "$turn" --json | field 'd["frame"]["summary"]') == *"ASSIST0: the first part is done."*"Commands: \`python3"*"(exit 0)" ]] \
    || fail "auto_turns: the first turn's summary is its answer and its command: $(ctx -C "$project" frame show "$turn")"
  ctx -C "$project" frame log "$turn" | grep -q "T1A-2199" || fail "auto_turns: ctx frame log gives the first turn's output back"
  check "$second" "auto_turns, second turn" "
need(len(requests) == 2, 'two requests')
for r in requests:
    need('T1A-1000' not in r['all'] and 'T1A-2199' not in r['all'], 'the first turn\'s output is folded in ' + r['file'])
    need('into the log of frame $turn: flame_recall with id $turn' in r['all'], 'the placeholder names the frame and flame_recall')
    for words in ['PERSON0: do the first part', 'ASSIST0: the first part is done.', 'PERSON1: do the second part']:
        need(words in r['all'], words + ' is sent word for word')
    need('flame_recall' in r['tools'], 'flame_recall is offered')
need('T2A-2199' in requests[-1]['all'], 'the running turn\'s own output is sent whole')
need(requests[1]['messages'][:len(requests[0]['messages'])] == requests[0]['messages'], 'the second request starts with the first')
"
  printf '[\n{"tools": true, "when": "PERSON2", "tool_calls": [{"name": "flame_recall", "arguments": {"id": "%s"}}]},\n{"tools": true, "reply": "ASSIST2: recalled."}\n]\n' "$turn" >"$work/auto-turns-3.json"
  third=$(AGENT=auto-turns run auto-turns-3 "$project" "$work/auto-turns-3.json" -c "PERSON2: what did the first part print?")
  check "$third" "auto_turns, recall" "
need(len(requests) == 2, 'two requests')
need('T1A-2199' in requests[-1]['all'], 'flame_recall gave the first turn\'s output back')
need('T2A-2199' not in requests[-1]['all'], 'the second turn\'s output is folded')
for words in ['ASSIST0: the first part is done.', 'ASSIST1: the second part is done.', 'PERSON2: what did the first part print?']:
    need(words in requests[-1]['all'], words + ' is sent word for word')
"
  # frame.auto off (the default), and plain pi without ctx, on the same two prompts: no turn
  # frame, no flame_recall, and every request as plain pi sends it but for ctx's own frame
  # context message.
  for name in off plain; do
    if [[ $name == plain ]]; then project=$(PLAIN=1 new_project auto-turns-plain); else project=$(new_project auto-turns-off); fi
    AGENT=auto-turns-$name run "auto-turns-$name-1" "$project" "$work/auto-turns-1.json" "PERSON0: do the first part" >/dev/null
    AGENT=auto-turns-$name run "auto-turns-$name-2" "$project" "$work/auto-turns-2.json" -c "PERSON1: do the second part" >/dev/null
    [[ ! -e $project/.opencode/flame/state.json ]] || ! grep -q '"auto"' "$project/.opencode/flame/state.json" \
      || fail "auto_turns: frame.auto off opened a turn frame"
  done
  python3 - "$work" <<'PY' || fail "auto_turns: with frame.auto off, a request differs from plain pi's"
import json, sys
from request_log import bodies
work = sys.argv[1]
def requests(name):
    out = []
    for run in (1, 2):
        for body in bodies(f"{work}/requests-auto-turns-{name}-{run}"):
            # ctx's frame context (a custom message, sent as a user one) is ctx's, not a change.
            messages = [m for m in body["messages"] if m["role"] != "system"
                        and not json.dumps(m.get("content")).startswith('[{"type": "text", "text": "<flame-context')]
            tools = [t["function"]["name"] for t in body.get("tools") or []]
            out.append((messages, tools))
    return out
off, plain = requests("off"), requests("plain")
assert len(off) == len(plain) == 4, (len(off), len(plain))
for (a, tools), (b, _) in zip(off, plain):
    assert a == b, (a, b)
    assert "flame_recall" not in tools, tools
assert "T1A-2199" in json.dumps(off[-1][0]), "the first turn's output is sent whole"
PY
  python3 - "$work" <<'PY'
import sys
from request_log import checks
def last(name):
    return checks(f"{sys.argv[1]}/requests-{name}", "chat")[0][-1]["size"]
print(f"  the second process's last request: {last('auto-turns-2')} characters of messages with turn frames, "
      f"{last('auto-turns-off-2')} with frame.auto off")
PY
}

scenario_valve() {
  echo "scenario valve: with frame.auto on, one long turn of large outputs on a small model stays under where pi compacts: the pressure valve masks the oldest results, keeps the last three whole, and flame_recall gives a masked one back"
  local project first second masked
  # A 40 000-token window: pi compacts past 40 000 - 16 384 = 23 616 tokens, which ten 20 KB
  # outputs would pass.
  { printf '[\n'; for i in 0 1 2 3 4 5 6 7 8 9; do big_bash "V$i"; printf ',\n'; done
    printf '{"tools": true, "reply": "ASSIST0: all ten ran."}\n]\n'; } >"$work/valve-1.json"
  project=$(new_project valve)
  mkdir -p "$project/.opencode"
  printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  first=$(AGENT=valve WINDOW=40000 run valve-1 "$project" "$work/valve-1.json" "PERSON0: run the ten steps")
  [[ $(cat "$work/valve-1.out") == "ASSIST0: all ten ran." ]] || fail "valve: pi answers"
  masked=$(python3 - "$first" <<'PY'
import json, re, sys
from request_log import bodies
requests = bodies(sys.argv[1])
if len(requests) != 11 or not all(r.get("tools") for r in requests):
    sys.exit(f"not 11 agent requests: {len(requests)} (a compaction?)")
last = json.dumps(requests[-1])
for i in range(7, 10):
    if f"V{i}-2199" not in last:
        sys.exit(f"the output of step {i}, one of the last three, is not sent whole")
if "V0-2199" in last:
    sys.exit("the oldest output is still sent whole")
if max(len(json.dumps(r)) for r in requests) > 23616 * 4:
    sys.exit("a request passed the count at which pi compacts")
ids = re.findall(r"characters\): flame_recall with id (\S+) gives it back", last)
print(ids[0] if ids else "")
PY
) || fail "valve: $masked"
  [[ -n $masked ]] || fail "valve: no output was masked"
  printf '[\n{"tools": true, "when": "PERSON1", "tool_calls": [{"name": "flame_recall", "arguments": {"id": "%s"}}]},\n{"tools": true, "reply": "ASSIST1: recalled."}\n]\n' "$masked" >"$work/valve-2.json"
  second=$(AGENT=valve WINDOW=40000 run valve-2 "$project" "$work/valve-2.json" -c "PERSON1: what did the first step print?")
  check "$second" "valve, recall" "
need('V0-2199' in requests[-1]['all'], 'flame_recall gave the masked output back')
"
}

scenario_auto_push() {
  echo "scenario auto_push: with frame.auto = turns, a flame_push inside the running turn goes under the turn frame, its pop folds its span at once, and the turn closes at its end; a turn that ends with a pushed frame still running waits for it, across pi -p -c"
  local project first second third turn1 pushed1 turn2 pushed2 lines
  project=$(new_project auto-push)
  mkdir -p "$project/.opencode"
  printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  # The frames ctx opened or the model pushed (not the session's), oldest first, one line each:
  # "ID STATUS turn|pushed PARENT GOAL".
  frames() {
    python3 - "$project/.opencode/flame/state.json" <<'PY'
import json, sys
frames = json.load(open(sys.argv[1]))["frames"]
for f in sorted(frames.values(), key=lambda f: f["createdAt"]):
    if f["sessionID"].startswith("fr_"):
        print(f["sessionID"], f["status"], f.get("auto") or "pushed", f.get("parentSessionID"), f["goal"])
PY
  }
  # Turn 1: a push, a 20 KB output, the pop, another 20 KB output in the turn, an answer.
  cat >"$work/auto-push-1.json" <<JSON
[
 {"tools": true, "when": "PERSON0", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Audit the ledger entries"}}]},
 $(big_bash PSHA),
 {"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "LEDGER-SUMMARY: 3 entries are wrong"}}]},
 $(big_bash AFTA),
 {"tools": true, "reply": "ASSIST0: the ledger is audited."}
]
JSON
  first=$(AGENT=auto-push run auto-push-1 "$project" "$work/auto-push-1.json" "PERSON0: audit the ledger")
  [[ $(cat "$work/auto-push-1.out") == "ASSIST0: the ledger is audited." ]] || fail "auto_push: pi answers"
  mapfile -t lines < <(frames)
  read -r turn1 _ <<<"${lines[0]:-}"
  read -r pushed1 _ <<<"${lines[1]:-}"
  [[ ${#lines[@]} == 2 && ${lines[0]} == "$turn1 completed turn pi_"*" PERSON0: audit the ledger" &&
    ${lines[1]} == "$pushed1 completed pushed $turn1 Audit the ledger entries" ]] ||
    fail "auto_push: no closed turn frame with the popped frame under it: $(printf '%s; ' "${lines[@]}")"
  ctx -C "$project" frame tree --json | python3 -c "
import json, sys
def find(nodes, id):
    for n in nodes:
        if n['id'] == id:
            return n
        found = find(n['children'], id)
        if found:
            return found
turn = find(json.load(sys.stdin)['roots'], '$turn1')
assert turn and [c['id'] for c in turn['children']] == ['$pushed1'], turn
" || fail "auto_push: ctx frame tree does not show the pushed frame under the turn"
  [[ $(ctx -C "$project" frame show "$pushed1" --json | field 'd["frame"]["summary"]') == "LEDGER-SUMMARY: 3 entries are wrong" ]] ||
    fail "auto_push: the pushed frame's summary is not the pop's"
  grep -qF "PSHA-2199" "$project/.opencode/flame/logs/frame-$pushed1.md" || fail "auto_push: the pushed frame's log misses its output"
  check "$first" "auto_push, first turn" "
need(len(requests) == 5, 'five requests')
need('PSHA-2199' in requests[2]['all'], 'while the pushed frame ran, its output went whole')
for r in requests[3:]:
    need('PSHA-' not in r['all'], 'after the pop, the pushed frame\'s output is folded in ' + r['file'])
    need('LEDGER-SUMMARY: 3 entries are wrong' in r['all'] and '<flame-folded' in r['all'], 'the pop\'s summary and fold entry are sent')
need('AFTA-2199' in requests[4]['all'], 'the running turn\'s own output after the pop goes whole')
need('ctx folded this output' not in json.dumps(requests[4]['messages']), 'nothing of the running turn is a placeholder')
"
  # Turn 2: a push, a 20 KB output, and the turn ends with the pushed frame running: it waits.
  cat >"$work/auto-push-2.json" <<JSON
[
 {"tools": true, "when": "PERSON1", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Check the rounding"}}]},
 $(big_bash RNDA),
 {"tools": true, "reply": "ASSIST1: the rounding check is under way."}
]
JSON
  second=$(AGENT=auto-push run auto-push-2 "$project" "$work/auto-push-2.json" -c "PERSON1: check the rounding")
  mapfile -t lines < <(frames)
  read -r turn2 _ <<<"${lines[2]:-}"
  read -r pushed2 _ <<<"${lines[3]:-}"
  [[ ${#lines[@]} == 4 && ${lines[2]} == "$turn2 in_progress turn pi_"*" PERSON1: check the rounding" &&
    ${lines[3]} == "$pushed2 in_progress pushed $turn2 Check the rounding" ]] ||
    fail "auto_push: the second turn does not wait, open, for the frame pushed in it: $(printf '%s; ' "${lines[@]}")"
  check "$second" "auto_push, second turn" "
for r in requests:
    need('AFTA-2199' not in r['all'] and 'into the log of frame $turn1: flame_recall' in r['all'], 'the first turn is folded in ' + r['file'])
    need('PSHA-' not in r['all'] and 'LEDGER-SUMMARY: 3 entries are wrong' in r['all'], 'its pushed frame stays folded to its entry')
need('RNDA-2199' in requests[-1]['all'], 'the running frame\'s output goes whole')
"
  # Turn 3: the person's next prompt is the waiting turn's; the pop ends its frame, and the turn
  # closes at this end.
  cat >"$work/auto-push-3.json" <<'JSON'
[
 {"tools": true, "when": "PERSON2", "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "ROUNDING-SUMMARY: half-even everywhere"}}]},
 {"tools": true, "reply": "ASSIST2: the rounding is checked."}
]
JSON
  third=$(AGENT=auto-push run auto-push-3 "$project" "$work/auto-push-3.json" -c "PERSON2: finish the rounding check")
  mapfile -t lines < <(frames)
  [[ ${#lines[@]} == 4 && ${lines[2]} == "$turn2 completed turn pi_"*" PERSON1: check the rounding" &&
    ${lines[3]} == "$pushed2 completed pushed $turn2 Check the rounding" ]] ||
    fail "auto_push: the waiting turn did not close once its frame was popped, or a third turn opened: $(printf '%s; ' "${lines[@]}")"
  grep -qF "turn $turn2 waits for $pushed2: this message is its" "$work/auto-push-3.err" ||
    fail "auto_push: ctx does not say the prompt is the waiting turn's: $(cat "$work/auto-push-3.err")"
  check "$third" "auto_push, the waiting turn's end" "
need(len(requests) == 2, 'two requests')
need('RNDA-2199' in requests[0]['all'], 'before the pop, the running frame\'s output goes whole')
need('RNDA-' not in requests[1]['all'], 'after the pop, it is folded')
need('ROUNDING-SUMMARY: half-even everywhere' in requests[1]['all'], 'the pop\'s summary is sent')
"
}

all=(fold log context compaction without_ctx broken_state bad_input commands subagent settings auto_turns valve auto_push)
chosen=("${@:-${all[@]}}")
for name in "${chosen[@]}"; do "scenario_${name//-/_}"; done
echo "ok: ${chosen[*]}"

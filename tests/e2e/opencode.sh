#!/usr/bin/env bash
# End-to-end tests with the real OpenCode: builds ctx, installs ctx's plugin and commands into
# temporary projects, runs OpenCode (npm opencode-ai, installed on first use by opencode-sandbox.sh)
# against the stand-in model of mock-llm.py, scripted with tool calls, subagents and reported usage,
# and checks the frame tree on disk and, in the model's request log, what the model was sent.
#
#   tests/e2e/opencode.sh [SCENARIO...]      (default: all; names below, e.g. `subagent`)
#
# Needs cargo, node/npm (to install OpenCode and its plugin kit) and python3. MOCK_PORT picks the
# stand-in's port. CTX_E2E_SHARD=K/N runs only the K-th of N interleaved shares of the scenarios
# chosen, so that N processes, each on its own port, run them all side by side.
#
# CTX_E2E_AGENT=kilo runs the same scenarios through Kilo Code, an OpenCode fork with OpenCode's
# plugin API (tests/e2e/kilo.sh): ctx kilo install instead of ctx opencode install, .kilo/ for the
# agent's own folder, kilo-sandbox.sh for opencode-sandbox.sh. ctx's own files (.opencode/flame/,
# .opencode/ctx.toml) are where they are for either.
set -euo pipefail
agent=${CTX_E2E_AGENT:-opencode}
source "$(dirname "$0")/lib.sh" "$agent"
export PATH=$ctx_dir:$PATH
export MOCK_PORT=${MOCK_PORT:-47231}
case $agent in
  # agent_dir: the project's folder the agent loads plugins, commands and agents from; data: the
  # name of its folders under XDG_DATA_HOME and XDG_CACHE_HOME.
  # agent_home: where its sandbox script installs it, which keeps npm plugins between runs too.
  opencode) agent_dir=.opencode data=opencode agent_home=${CTX_OPENCODE_HOME:-$HOME/.cache/ctx-opencode} ;;
  kilo) agent_dir=.kilo data=kilo agent_home=${CTX_KILO_HOME:-$HOME/.cache/ctx-kilo} ;;
  *) echo "CTX_E2E_AGENT: opencode or kilo, not $agent" >&2; exit 2 ;;
esac
sandbox_script=$here/$agent-sandbox.sh
# The agent and the plugin kit the projects are given, before the first project needs the kit.
"$sandbox_script" --install

# A fresh project with ctx's plugin and commands, written by `ctx opencode install` as a user
# would (nothing copied by hand), and the plugin kit its sandbox script installed (--kit):
#   - OpenCode installs the plugin's one dependency (@opencode-ai/plugin) into .opencode/ at
#     start-up unless it is there, an install that ran past five minutes beside the other agents'
#     tests (opencode-sandbox.sh);
#   - Kilo installs @kilocode/plugin@<its own version> into .kilo/ at start-up, a version the
#     registry does not have (kilo-sandbox.sh).
new_project() {
  local project=$work/$1
  mkdir -p "$project"
  ctx -C "$project" -q "$agent" install >/dev/null || fail "ctx $agent install"
  "$sandbox_script" --kit "$project/$agent_dir" || fail "the plugin kit for $project"
  echo "$project"
}

# mock_config PROJECT EXTRA: the sandbox's own opencode.json (the stand-in provider, here with a
# second model mock-2), plus EXTRA, more top-level keys written as JSON (`"agent": {…}`).
mock_config() {
  cat >"$1/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": { "baseURL": "http://127.0.0.1:$MOCK_PORT/v1", "apiKey": "unused" },
      "models": {
        "mock-1": { "name": "Mock 1", "limit": { "context": 200000, "output": 32000 } },
        "mock-2": { "name": "Mock 2", "limit": { "context": 200000, "output": 32000 } }
      }
    }
  },
  "model": "mock/mock-1",
  "autoupdate": false${2:+,
  $2}
}
EOF
}

# run NAME PROJECT SCRIPT -- OPENCODE-ARGS: one OpenCode run with a fresh request log; prints the
# log's folder. OpenCode's data lives in $work/sandbox-$SANDBOX (default: NAME), so that a later run
# with the same SANDBOX continues its sessions.
run() {
  local name=$1 project=$2 script=$3
  shift 4
  local sandbox=$work/sandbox-${SANDBOX:-$name}
  rm -rf "$sandbox/requests"
  mkdir -p "$sandbox/requests"
  local code=0
  MOCK_SCRIPT=$script "$sandbox_script" "$sandbox" "$project" -- "$@" >"$work/$name.out" 2>&1 || code=$?
  [[ $code == 0 ]] || exited "$name" "$sandbox" "$code"
  echo "$sandbox/requests"
}

# exited NAME SANDBOX CODE: fails, with the output of the agent's run NAME ($work/NAME.out) and the end
# of the agent's own log in SANDBOX, which says why it stopped when its output does not.
exited() {
  cat "$work/$1.out" >&2
  tail -n 40 "$2"/data/"$data"/log/*.log >&2 2>/dev/null || true
  fail "$1: $agent exited with $3"
}

# check REQUESTS WHAT PYTHON: runs the checks in PYTHON with `requests` (the logged requests, in
# order, as request_log.py's "chat" views), `need`, `first` and `text` in scope.
check() {
  python3 - "$1" <<PY || fail "$2"
import json, re, sys
from request_log import chat_text as text, checks
requests, need, first = checks(sys.argv[1], "chat")
$3
PY
}

# settings PROJECT TEXT: ctx's settings for PROJECT (TEXT as printf's format), in .opencode/ctx.toml
# whichever agent runs: a Kilo project has no .opencode/ until ctx writes its frames there.
settings() { mkdir -p "$1/.opencode" && printf "$2" >"$1/.opencode/ctx.toml"; }

scenario_context() {
  echo "scenario context: a prompt carries the frame context and the swarm system entries; /tree shows the tree"
  local project
  project=$(new_project context)
  mkdir -p "$project/.swarm"
  cp "$repo/tests/fixtures/swarm/example-1.plan.md" "$project/.swarm/plan.md"
  cp "$repo/tests/fixtures/swarm/example-3.context.md" "$project/.swarm/context.md"
  (
    cd "$project"
    ctx frame push "Build the billing service" >/dev/null
    ctx frame push "Implement the invoice model" >/dev/null
    ctx frame pop --summary "Invoices store integer cents & totals are computed on read." >/dev/null
    ctx frame push "Handle refund events" >/dev/null
    ctx frame decision "Refunds add a negative line item" >/dev/null
    ctx frame plan "Partial refunds" >/dev/null
  )
  local current requests
  current=$(ctx -C "$project" frame current)
  echo '[]' >"$work/empty.json"
  requests=$(run context "$project" "$work/empty.json" -- run "Continue with the refund work")
  check "$requests" "context" "
r = first(lambda r: 'Continue with the refund work' in r['last_user'] and r['tools'], 'the conversation request')
for hay, needle in [
    (r['last_user'], '<flame-context session=\"$current\">'),
    (r['last_user'], '<goal>Handle refund events</goal>'),
    (r['last_user'], '<decisions>Refunds add a negative line item</decisions>'),
    (r['last_user'], '<summary>Invoices store integer cents &amp; totals are computed on read.</summary>'),
    (r['last_user'], '<goal>Partial refunds</goal>'),
    (r['system'], '[SWARM CONTEXT] Current phase: Phase 2:  [IN PROGRESS]'),
    (r['system'], '[SWARM CONTEXT] Current task: - [ ] 2.2: Port search (depends: 2.1)'),
]:
    need(needle in hay, needle)
"
  local tree
  tree=$(ctx -C "$project" frame tree --details)
  requests=$(run tree "$project" "$work/empty.json" -- run --command tree)
  check "$requests" "/tree" "
tree = '''$tree'''
first(lambda r: 'The current frame tree' in r['all'] and tree in r['last_user'], 'a request holding the frame tree')
"
}

scenario_tools() {
  echo "scenario tools: the flame_* tools are offered; flame_push then flame_pop changes the tree and writes the log"
  local project
  project=$(new_project tools)
  cat >"$work/tools.json" <<'EOF'
[
 {"tools": true, "when": "Start the refund work", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Handle refund events"}}]},
 {"tools": true, "when": "Pushed frame", "tool_calls": [{"name": "flame_add_decision", "arguments": {"decision": "Refunds are negative line items"}}]},
 {"tools": true, "when": "Recorded the decision", "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "Refunds handled & logged."}}]},
 {"tools": true, "when": "flame-folded", "tool_calls": [{"name": "flame_activate", "arguments": {"sessionID": "fr_nope"}}]},
 {"tools": true, "reply": "All done."}
]
EOF
  local requests
  requests=$(run tools "$project" "$work/tools.json" -- run "Start the refund work")
  local session pushed
  session=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["id"]')
  pushed=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $session == ses_* ]] || fail "tools: the root frame is not the session's ($session)"
  [[ $(frame_json "$project" "$pushed" | field 'd["frame"]["status"]') == completed ]] || fail "tools: the pushed frame was not popped"
  [[ $(frame_json "$project" "$pushed" | field 'd["frame"]["summary"]') == "Refunds handled & logged." ]] || fail "tools: summary"
  [[ $(ctx -C "$project" frame current 2>/dev/null || true) == "" ]] || fail "tools: the session moved activeFrameID"
  grep -q "^## Messages" "$project/.opencode/flame/logs/frame-$pushed.md" || fail "tools: the log holds no messages"
  grep -q "flame_add_decision" "$project/.opencode/flame/logs/frame-$pushed.md" || fail "tools: the log misses the frame's tool calls"
  check "$requests" "tools" "
r = first(lambda r: r['tools'], 'an agent request')
for name in ['flame_push', 'flame_pop', 'flame_status', 'flame_tree', 'flame_plan', 'flame_plan_children',
             'flame_activate', 'flame_invalidate', 'flame_set_goal', 'flame_add_artifact',
             'flame_add_decision', 'flame_get_summary', 'flame_context_preview']:
    need(name in r['tools'], name + ' offered')
first(lambda r: r['last'].startswith('Pushed frame $pushed'), 'the push result')
first(lambda r: '<flame-context session=\"$pushed\"' in r['last_user'], 'the pushed frame in the context')
first(lambda r: r['last'].startswith('<flame-folded id=\"$pushed\"') and ' log=' not in r['last'], 'the pop result, folded (its log where every pop writes it)')
first(lambda r: r['last'].startswith(\"Error: no frame matches 'fr_nope'\"), 'a refusal as Error: text')
"
}

scenario_subagent() {
  echo "scenario subagent: a task call makes a child frame that sees its own context; its end is a notice to the parent"
  local project
  project=$(new_project subagent)
  cat >"$work/subagent.json" <<'EOF'
[
 {"tools": true, "when": "Delegate the audit", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Refund work"}}]},
 {"tools": true, "when": "Pushed frame", "tool_calls": [{"name": "task", "arguments": {"description": "Audit refunds", "prompt": "Audit the refund code now", "subagent_type": "general"}}]},
 {"tools": true, "when": "Audit the refund code now", "reply": "Refund audit: 3 issues found."},
 {"tools": true, "when": "task_result", "delay": 1.5, "reply": "The audit is back."},
 {"tools": true, "reply": "Noted."}
]
EOF
  local requests parent child
  requests=$(run subagent "$project" "$work/subagent.json" -- run "Delegate the audit")
  parent=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  child=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["children"][0]["id"]')
  [[ $child == ses_* ]] || fail "subagent: no child frame with the subagent's session id ($child)"
  frame_json "$project" "$child" | field 'd["frame"]' | grep -q "'status': 'completed'" || fail "subagent: the child frame was not completed"
  [[ $(frame_json "$project" "$child" | field 'd["frame"]["summary"]') == "Refund audit: 3 issues found." ]] || fail "subagent: summary"
  grep -q "Audit the refund code now" "$project/.opencode/flame/logs/frame-$child.md" || fail "subagent: the log holds no transcript"
  check "$requests" "subagent" "
sub = first(lambda r: 'Audit the refund code now' in r['last_user'] and r['tools'], 'the subagent request')
need('<flame-context session=\"$child\">' in sub['last_user'], 'the subagent sees its own frame')
need('<frame id=\"$parent\" status=\"in_progress\">' in sub['last_user'], 'with the parent frame among its ancestors')
after = first(lambda r: 'finished with status completed' in r['last_user'], 'the notice in the parent')
import re
visible = re.search(r'Frame (ses_\\w+) completed: Audit refunds(?! \\()', after['last_user'])
need(visible and '$child'.startswith(visible.group(1)), 'the visible line names the child by its short id and its goal, the task\'s description')
need('Summary: Refund audit: 3 issues found.' in after['last_user'], 'the hint')
need('<flame-context session=\"$parent\">' in after['texts'], 'the parent still sees its own frame (an unchanged context is not repeated)')
"
  # The hint is a synthetic part of the parent's user message: people see only the visible line.
  local root
  root=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["id"]')
  "$sandbox_script" "$work/sandbox-subagent" "$project" -- export "$root" >"$work/export.json" 2>/dev/null
  python3 - "$work/export.json" <<'PY' || fail "subagent: the hint is not a synthetic part"
import json, sys
text = open(sys.argv[1]).read()
export = json.loads(text[text.index("{"):])
parts = [p for m in export["messages"] for p in m["parts"] if p.get("type") == "text"]
hint = [p for p in parts if "finished with status completed" in p.get("text", "")]
visible = [p for p in parts if p.get("text", "").startswith("Frame ses_") and "completed: Audit refunds" in p["text"]]
assert hint and all(p.get("synthetic") is True for p in hint), hint
assert visible and not any(p.get("synthetic") for p in visible), visible
PY
}

scenario_parallel() {
  echo "scenario parallel: two subagents at once each see their own frame"
  local project
  project=$(new_project parallel)
  cat >"$work/parallel.json" <<'EOF'
[
 {"tools": true, "when": "Audit both", "tool_calls": [
   {"name": "task", "arguments": {"description": "Audit refunds", "prompt": "Audit the refunds alpha", "subagent_type": "general"}},
   {"name": "task", "arguments": {"description": "Audit invoices", "prompt": "Audit the invoices beta", "subagent_type": "general"}}]},
 {"tools": true, "when": "Audit the refunds alpha", "delay": 0.5, "reply": "Refunds fine."},
 {"tools": true, "when": "Audit the invoices beta", "delay": 0.5, "reply": "Invoices fine."},
 {"tools": true, "reply": "Both audits are back."}
]
EOF
  local requests
  requests=$(run parallel "$project" "$work/parallel.json" -- run "Audit both")
  local refunds invoices
  child() { ctx -C "$project" frame tree --json | field "next((c['id'] for c in d['roots'][0]['children'] if c['goal'].startswith('$1')), '')"; }
  refunds=$(child "Audit refunds") invoices=$(child "Audit invoices")
  [[ -n $refunds && -n $invoices ]] || fail "parallel: two child frames expected"
  check "$requests" "parallel" "
a = first(lambda r: 'Audit the refunds alpha' in r['last_user'], 'the first subagent')
b = first(lambda r: 'Audit the invoices beta' in r['last_user'], 'the second subagent')
need('<flame-context session=\"$refunds\">' in a['last_user'] and '$invoices' not in a['last_user'].split('<current-frame')[1], 'the first sees its frame')
need('<flame-context session=\"$invoices\">' in b['last_user'] and '$refunds' not in b['last_user'].split('<current-frame')[1], 'the second sees its frame')
"
}

scenario_compaction() {
  echo "scenario compaction: reported usage makes OpenCode compact with ctx's context; the frame keeps the summary"
  local project
  project=$(new_project compaction)
  mkdir -p "$project/.swarm"
  cp "$repo/tests/fixtures/swarm/example-1.plan.md" "$project/.swarm/plan.md"
  cat >"$work/compaction.json" <<'EOF'
[
 {"tools": true, "when": "Long work", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Long refactor"}}]},
 {"tools": true, "when": "Pushed frame", "usage": {"prompt_tokens": 195000}, "tool_calls": [{"name": "bash", "arguments": {"command": "echo step", "description": "step"}}]},
 {"tools": false, "when": "summarization", "reply": "## Goal\nRefactor the ledger.\n\n## Accomplished\nHalf of it."},
 {"tools": true, "reply": "Continuing."}
]
EOF
  local requests pushed
  requests=$(run compaction "$project" "$work/compaction.json" -- run "Long work")
  pushed=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(frame_json "$project" "$pushed" | field 'd["frame"]["summary"]') == *"Half of it."* ]] || fail "compaction: the frame holds no summary"
  check "$requests" "compaction" "
r = first(lambda r: not r['tools'] and 'summarization' in r['system'], 'the compaction request')
need('[SWARM PLAN]' in r['last_user'], 'the compacting hook added the swarm entries')
need('<flame-context session=\"$pushed\">' in r['last_user'].split('</conversation>')[-1], 'and the frame context of the session')
"
}

scenario_commands() {
  echo "scenario commands: /push and /pop act for the session that types them"
  local project
  project=$(new_project commands)
  echo '[]' >"$work/empty.json"
  local requests
  requests=$(run push "$project" "$work/empty.json" -- run --command push "Write the migration; then test it")
  local session pushed
  session=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["id"]')
  pushed=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(frame_json "$project" "$pushed" | field 'd["frame"]["goal"]') == "Write the migration; then test it" ]] || fail "/push: goal"
  check "$requests" "/push" "
first(lambda r: 'ctx ran /push for this session' in r['all'] and 'Pushed frame $pushed' in r['all'], 'the result of /push')
"
  # /pop without a summary: the command's own text asks the model for one, and the model pops
  # with flame_pop (a /pop with a summary pops at once, as /push does; flame_pop is the tools
  # scenario's).
  cat >"$work/pop.json" <<'EOF'
[
 {"tools": true, "when": "Finish this session's current frame with the flame_pop tool", "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "The migration adds the ledger table; its tests pass."}}]},
 {"tools": true, "when": "flame-folded", "reply": "Popped, with my summary."}
]
EOF
  requests=$(SANDBOX=push run pop "$project" "$work/pop.json" -- run --session "$session" --command pop)
  [[ $(frame_json "$project" "$pushed" | field 'd["frame"]["status"]') == completed ]] || fail "/pop: not popped"
  [[ $(frame_json "$project" "$pushed" | field 'd["frame"]["summary"]') == "The migration adds the ledger table; its tests pass." ]] \
    || fail "/pop: the frame does not hold the model's summary"
  grep -q "^## Messages" "$project/.opencode/flame/logs/frame-$pushed.md" || fail "/pop: the log holds no messages"
  check "$requests" "/pop" "
first(lambda r: r['last'].startswith('<flame-folded id=\"$pushed\"'), 'the model popped the frame itself (its pop is sent folded)')
need(all('ctx ran /pop' not in r['all'] for r in requests), 'the plugin did not pop before the model wrote a summary')
"
}

scenario_without_ctx() {
  echo "scenario without-ctx: with ctx absent from PATH every model call still works"
  local project
  project=$(new_project without-ctx)
  cat >"$work/without-ctx.json" <<'EOF'
[
 {"tools": true, "when": "Delegate the audit", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Refund work"}}]},
 {"tools": true, "when": "Error: ctx", "tool_calls": [{"name": "task", "arguments": {"description": "Audit refunds", "prompt": "Audit the refund code now", "subagent_type": "general"}}]},
 {"tools": true, "when": "Audit the refund code now", "reply": "Refund audit: 3 issues found."},
 {"tools": true, "reply": "Done."}
]
EOF
  local requests
  requests=$(PATH=$(tr ':' '\n' <<<"$PATH" | grep -vx "$ctx_dir" | paste -sd:) \
    run without-ctx "$project" "$work/without-ctx.json" -- run "Delegate the audit")
  check "$requests" "without ctx" "
first(lambda r: r['last'].startswith('Error: ctx is not installed'), 'the tool answers with an error text')
first(lambda r: 'Audit the refund code now' in r['last_user'], 'the subagent still runs')
first(lambda r: r['last'].startswith('<task id='), 'and its result reaches the parent')
"
}

scenario_budget_warning() {
  echo "scenario budget_warning: opencode-swarm's context-budget warning reaches the architect through ctx"
  local project
  project=$(new_project budget-warning)
  mkdir -p "$project/.swarm" "$project/$agent_dir/agent"
  cp "$repo/tests/fixtures/swarm/example-1.plan.md" "$project/.swarm/plan.md"
  printf -- '---\ndescription: Plans the work\nmode: primary\n---\nYou are the architect.\n' >"$project/$agent_dir/agent/architect.md"
  echo '[]' >"$work/empty.json"
  local prompt requests
  prompt="Plan the ledger. $(printf 'word %.0s' $(seq 600))"
  requests=$(CTX_BUDGET_LIMIT=1000 run budget-warning "$project" "$work/empty.json" -- run --agent architect "$prompt")
  check "$requests" "budget warning" "
r = first(lambda r: 'Plan the ledger.' in r['last_user'] and r['tools'], 'the architect request')
need(r['last_user'].startswith('[CONTEXT CRITICAL: ~') and 'Offload details to .swarm/context.md immediately]' in r['last_user'], 'the warning opens the message')
"
  requests=$(CTX_BUDGET_LIMIT=1000 SANDBOX=budget-warning run budget-warning-build "$project" "$work/empty.json" -- run "$prompt")
  check "$requests" "no warning for build" "
r = first(lambda r: 'Plan the ledger.' in r['last_user'] and r['tools'], 'the build request')
need('CONTEXT CRITICAL' not in r['all'], 'no warning for another agent')
"
}

scenario_broken_state() {
  echo "scenario broken_state: a state file another program broke is reported to the model and left as it is"
  local project
  project=$(new_project broken-state)
  mkdir -p "$project/.opencode/flame" "$project/.swarm"
  printf '{"version": 1, "frames": {"x": ' >"$project/.opencode/flame/state.json"
  cp "$repo/tests/fixtures/swarm/example-1.plan.md" "$project/.swarm/plan.md"
  # A reply reporting 195 000 tokens makes OpenCode compact: the compaction hook renders every
  # source, and the broken frame tree must not take the swarm entries with it.
  cat >"$work/broken-state.json" <<'EOF'
[
 {"tools": true, "when": "Start the refund work", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Handle refund events"}}]},
 {"tools": true, "when": "state.json", "usage": {"prompt_tokens": 195000}, "tool_calls": [{"name": "bash", "arguments": {"command": "echo step", "description": "step"}}]},
 {"tools": false, "when": "summarization", "reply": "## Goal\nRefunds."},
 {"tools": true, "reply": "The frame tree is broken; carrying on without it."}
]
EOF
  local before requests
  before=$(sha256sum "$project/.opencode/flame/state.json")
  requests=$(run broken-state "$project" "$work/broken-state.json" -- run "Start the refund work")
  [[ $(sha256sum "$project/.opencode/flame/state.json") == "$before" ]] || fail "broken_state: the file changed"
  grep -q "carrying on without it" "$work/broken-state.out" || fail "broken_state: the conversation did not go on"
  check "$requests" "broken state" "
first(lambda r: r['last'].startswith('Error: ') and 'state.json' in r['last'], 'the refusal names the file')
first(lambda r: r['tools'] and '[SWARM CONTEXT] Current phase' in r['system'], 'the system entries stay')
c = first(lambda r: not r['tools'] and 'summarization' in r['system'], 'the compaction request')
need('[SWARM PLAN]' in c['last_user'], 'the compaction entries stay beside the broken frame tree')
"
}

scenario_tight_budget() {
  echo "scenario tight_budget: a tight frame-context budget keeps what fits; one too small is named in OpenCode's log"
  local project
  project=$(new_project tight-budget)
  (
    cd "$project"
    ctx frame push "Build the billing service" >/dev/null
    ctx frame push "Implement the invoice model" >/dev/null
    ctx frame pop --summary "Invoices store integer cents; totals are computed on read." >/dev/null
    ctx frame push "Handle refund events" >/dev/null
    ctx frame decision "Refunds add a negative line item" >/dev/null
  )
  settings "$project" '[frame.context]\ntotal = 150\n'
  echo '[]' >"$work/empty.json"
  local requests
  requests=$(SANDBOX=tight run tight "$project" "$work/empty.json" -- run "Continue with the refunds")
  check "$requests" "tight budget" "
r = first(lambda r: 'Continue with the refunds' in r['last_user'] and r['tools'], 'the conversation request')
need('<budget total=\"150\"' in r['last_user'], 'the settings file budget')
need('siblings-filtered=\"1\"' in r['last_user'], 'the sibling that did not fit is counted')
need('<goal>Handle refund events</goal>' in r['last_user'], 'the goal is kept')
need('Invoices store integer cents' not in r['last_user'], 'the sibling is left out')
"
  settings "$project" '[frame.context]\ntotal = 60\n'
  # The line reaches OpenCode's log through its server. Its log file lacked the line in three of
  # five full runs (cause not known; never when the scenario ran alone), so OpenCode also prints
  # its log to stderr (--print-logs), which the check reads too; the run is tried up to three
  # times, and a failure shows what was logged.
  local log="$work/sandbox-too-tight/data/$data/log" attempt
  for attempt in 1 2 3; do
    requests=$(SANDBOX=too-tight run too-tight "$project" "$work/empty.json" -- --print-logs run "Continue with the refunds")
    check "$requests" "too tight" "
first(lambda r: 'Continue with the refunds' in r['last_user'], 'the conversation goes on')
need(all('<flame-context' not in r['last_user'] for r in requests), 'no frame context is sent')
"
    # The claim is that the line names the least budget that works, not which number that is.
    if grep -rqsE "the frame context needs at least [0-9]+ tokens; the budget is 60" "$log" "$work/too-tight.out"; then
      return 0
    fi
    echo "tight_budget: attempt $attempt: the line is not in OpenCode's log" >&2
  done
  { grep -rhs "ctx" "$log" | tail -5 >&2; ls -lR "$log" >&2; } || true
  fail "tight_budget: OpenCode's log does not name the budget that works"
}

# A bash call printing about 20 000 characters, each word tagged (TAG-0 … TAG-2999).
big_bash() {
  printf '{"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "python3 -c \\"print(chr(32).join(\x27%s-%%d\x27 %% i for i in range(2500)))\\"", "description": "%s"}}]}' "$1" "$1"
}

# The work of the fold scenarios: three frames (the second nested in the first), each running two
# large bash calls, popped with a summary. $1: how a push and a pop are made (flame = the tools;
# plain = bash echoes, for OpenCode without ctx's plugin).
fold_script() {
  local push pop
  push() {
    if [[ $1 == flame ]]; then
      printf '{"tools": true, "tool_calls": [{"name": "flame_push", "arguments": {"goal": "%s"}}]}' "$2"
    else
      printf '{"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo push", "description": "%s"}}]}' "$2"
    fi
  }
  pop() {
    if [[ $1 == flame ]]; then
      printf '{"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "%s"}}]}' "$2"
    else
      printf '{"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo pop", "description": "%s"}}]}' "$2"
    fi
  }
  printf '[\n'
  push "$1" "Audit the ledger"; printf ',\n'
  big_bash F1A; printf ',\n'
  push "$1" "Check the rounding"; printf ',\n'
  big_bash F2A; printf ',\n'
  big_bash F2B; printf ',\n'
  pop "$1" "Rounding is half-even everywhere"; printf ',\n'
  big_bash F1B; printf ',\n'
  pop "$1" "The ledger balances to the cent"; printf ',\n'
  push "$1" "Write the report"; printf ',\n'
  big_bash F3A; printf ',\n'
  big_bash F3B; printf ',\n'
  pop "$1" "The report is in docs/ledger.md"; printf ',\n'
  printf '{"tools": true, "reply": "All three frames are done."}\n]\n'
}

scenario_fold() {
  echo "scenario fold: popped frames leave only their entries in what is sent; requests extend each other between pops"
  local project plain
  project=$(new_project fold)
  plain=$work/fold-plain
  mkdir -p "$plain"
  fold_script flame >"$work/fold.json"
  fold_script plain >"$work/fold-plain.json"
  local requests plain_requests
  requests=$(MOCK_STRICT=1 run fold "$project" "$work/fold.json" -- run "Audit the ledger and report")
  plain_requests=$(MOCK_STRICT=1 run fold-plain "$plain" "$work/fold-plain.json" -- run "Audit the ledger and report")
  local outer inner third
  outer=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  inner=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["children"][0]["id"]')
  third=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][1]["id"]')
  for pair in "$outer F1A F1B F2A" "$inner F2A F2B" "$third F3A F3B"; do
    set -- $pair
    local log=$project/.opencode/flame/logs/frame-$1.md
    for tag in "${@:2}"; do
      grep -q "$tag-2499" "$log" || fail "fold: the log of $1 misses the output $tag"
    done
  done
  accepted "$requests" "fold"
  check "$requests" "fold" "
import json
agent = [r for r in requests if r['tools']]
last = agent[-1]
for tag in ['F1A', 'F1B', 'F2A', 'F2B', 'F3A', 'F3B']:
    need(tag + '-2499' not in last['all'], tag + ' is folded out of the last request')
for summary, frame in [('The ledger balances to the cent', '$outer'), ('The report is in docs/ledger.md', '$third')]:
    need(summary in last['all'], summary)
    # Its log is where every pop writes it, as flame_pop's description says: the entry need not say it.
    need(any(text(m) == '<flame-folded id=\"' + frame + '\"/>' for m in last['messages']), 'the entry of ' + frame)
    need('.opencode/flame/logs/frame-<id>.md' in json.dumps(last['body'].get('tools')), 'flame_pop says where logs are')
after_inner = first(lambda r: 'Rounding is half-even everywhere' in r['all'], 'the request after the nested pop')
need('F1A-2499' in after_inner['all'] and 'F2A-2499' not in after_inner['all'], 'the nested frame folds inside the running one')
# Between pushes and pops each request starts with the whole request before it.
breaks = []
for i in range(1, len(agent)):
    a, b = agent[i - 1]['messages'], agent[i]['messages']
    if b[:len(a)] != a:
        at = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        breaks.append((i, at))
need(len(breaks) == 3, 'one break per pop: %r' % breaks)
need(all(at > 0 for _, at in breaks), 'never at the first message: %r' % breaks)
size = len(json.dumps(last['messages']))
print('fold: last request %d characters of messages, %d breaks at %r' % (size, len(breaks), breaks))
open('$work/fold-size', 'w').write(str(size))
"
  check "$plain_requests" "fold, plain OpenCode" "
import json
agent = [r for r in requests if r['tools']]
size = len(json.dumps(agent[-1]['messages']))
folded = int(open('$work/fold-size').read())
print('fold: plain OpenCode sends %d characters of messages; with ctx %d (%.1f %%)' % (size, folded, 100.0 * folded / size))
need(folded * 5 < size, 'ctx sends less than a fifth of what plain OpenCode sends')
"
}

scenario_fold_anthropic() {
  echo "scenario fold_anthropic: the same folding through Anthropic's wire format (OpenCode's @ai-sdk/anthropic)"
  local project port=$((MOCK_PORT + 1))
  project=$(new_project fold-anthropic)
  cat >"$project/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock-anthropic": {
      "npm": "@ai-sdk/anthropic",
      "name": "Mock Anthropic",
      "options": { "baseURL": "http://127.0.0.1:$port/v1", "apiKey": "unused" },
      "models": { "claude-mock": { "name": "Claude Mock", "limit": { "context": 200000, "output": 32000 } } }
    }
  },
  "model": "mock-anthropic/claude-mock",
  "autoupdate": false
}
EOF
  {
    printf '[\n{"tools": true, "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Audit the ledger"}}]},\n'
    big_bash A1; printf ',\n'
    big_bash A2; printf ',\n'
    printf '{"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "The ledger balances"}}]},\n'
    printf '{"tools": true, "reply": "Done."}\n]\n'
  } >"$work/fold-anthropic.json"
  local sandbox=$work/sandbox-fold-anthropic
  mkdir -p "$sandbox/requests"
  python3 "$here/mock-anthropic.py" --port "$port" --requests "$sandbox/requests" --strict \
    --script "$work/fold-anthropic.json" --max-seconds 600 >"$sandbox/mock.log" 2>&1 &
  local mock=$!
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  MOCK_PORT=$port "$sandbox_script" "$sandbox" "$project" -- run "Audit the ledger" \
    >"$work/fold-anthropic.out" 2>&1 || { kill "$mock"; cat "$work/fold-anthropic.out" >&2; fail "fold_anthropic: opencode exited non-zero"; }
  kill "$mock" 2>/dev/null || true
  accepted "$sandbox/requests" "fold_anthropic"
  python3 - "$sandbox/requests" <<'PY' || fail "fold_anthropic"
import json, sys
from request_log import bodies
requests = bodies(sys.argv[1])
agent = [r for r in requests if r.get("tools")]
assert len(agent) >= 5, len(agent)
last = json.dumps(agent[-1]["messages"])
assert "A1-2499" not in last and "A2-2499" not in last, "the span's outputs are folded out"
assert "The ledger balances" in last and "<flame-folded id=" in last, "the fold entry is sent"
def plain(value):
    """The value without Anthropic's cache_control marks, which OpenCode moves to the newest
    messages on every request (they say where to cache, not what is sent)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value
sent = [plain(r["messages"]) for r in agent]
breaks = [i for i in range(1, len(sent)) if sent[i][:len(sent[i - 1])] != sent[i - 1]]
assert len(breaks) == 1, breaks
print("fold_anthropic: last request %d characters of messages, %d break" % (len(last), len(breaks)))
PY
}

scenario_spent() {
  echo "scenario spent: ctx budget spent on the database the agent wrote matches the agent's own stats"
  local project
  project=$(new_project spent)
  mock_config "$project"
  # Prices for the stand-in model, so that the agent records a cost for each call.
  python3 - "$project/opencode.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["provider"]["mock"]["models"]["mock-1"]["cost"] = {"input": 3, "output": 15, "cache_read": 0.3}
json.dump(config, open(sys.argv[1], "w"), indent=2)
PY
  cat >"$work/spent.json" <<'EOF'
[
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "ls", "description": "list"}}],
  "usage": {"prompt_tokens": 12000, "completion_tokens": 300, "prompt_tokens_details": {"cached_tokens": 8000}}},
 {"tools": true, "reply": "Two files.", "usage": {"prompt_tokens": 12500, "completion_tokens": 40}}
]
EOF
  run spent "$project" "$work/spent.json" -- run "Count the files" >/dev/null
  "$here/spent-stats.sh" "$agent" "$work/sandbox-spent" >"$work/spent-stats.out" 2>&1 \
    || { cat "$work/spent-stats.out" >&2; fail "spent: ctx budget spent and $agent stats disagree"; }
  grep -q "mock/mock-1 cost" "$work/spent-stats.out" || fail "spent: $agent stats named no call of mock-1"
}

scenario_root_frame() {
  echo "scenario root_frame: a root session gets its own frame at its first tool call, with no push"
  local project
  project=$(new_project root-frame)
  cat >"$work/root-frame.json" <<'EOF'
[
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo hello", "description": "greet"}}]},
 {"tools": true, "reply": "Said hello."}
]
EOF
  run root-frame "$project" "$work/root-frame.json" -- run "Say hello" >/dev/null
  local root
  root=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["id"]')
  [[ $root == ses_* ]] || fail "root_frame: the session has no frame of its own ($root)"
  [[ $(frame_json "$project" "$root" | field 'd["frame"]["status"]') == in_progress ]] || fail "root_frame: status"
}

scenario_agent() {
  echo "scenario agent: a subagent's notice is answered by the parent's own agent and model"
  local project
  project=$(new_project agent)
  mock_config "$project" '"agent": {"auditor": {"mode": "primary", "description": "Audits the code", "prompt": "You are the AUDITOR-7 agent."}}'
  cat >"$work/agent.json" <<'EOF'
[
 {"tools": true, "when": "Delegate the audit", "tool_calls": [{"name": "task", "arguments": {"description": "Audit refunds", "prompt": "Audit the refund code now", "subagent_type": "general"}}]},
 {"tools": true, "when": "Audit the refund code now", "reply": "Refund audit: 3 issues found."},
 {"tools": true, "when": "task_result", "delay": 1.5, "reply": "The audit is back."},
 {"tools": true, "reply": "Noted."}
]
EOF
  local requests
  requests=$(run agent "$project" "$work/agent.json" -- run --agent auditor --model mock/mock-2 "Delegate the audit")
  check "$requests" "agent" "
first(lambda r: 'Delegate the audit' in r['last_user'] and 'AUDITOR-7' in r['system'], 'the parent runs the auditor agent')
n = first(lambda r: 'finished with status completed' in r['last_user'], 'the notice in the parent')
need('You are the AUDITOR-7 agent.' in n['system'], 'the notice is answered by the auditor agent, not build')
need(n['body'].get('model') == 'mock-2', 'and by the parent model (mock-2), not the default: ' + str(n['body'].get('model')))
need('.opencode/flame/logs/frame-' in n['last_user'] and 'ctx frame log' not in n['last_user'], 'the hint names the log path, not a shell command')
"
}

scenario_unframed() {
  echo "scenario unframed: a subagent without a frame of its own sees its parent session's frame, not the person's"
  local project
  project=$(new_project unframed)
  ctx -C "$project" frame push "A person's own work" >/dev/null
  cat >"$work/unframed.json" <<'EOF'
[
 {"tools": true, "when": "Delegate the audit", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Refund work"}}]},
 {"tools": true, "when": "Pushed frame", "tool_calls": [{"name": "task", "arguments": {"description": "Audit refunds", "prompt": "Audit the refund code now", "subagent_type": "general"}}]},
 {"tools": true, "when": "Audit the refund code now", "reply": "Refund audit: 3 issues found."},
 {"tools": true, "reply": "Noted."}
]
EOF
  local requests pushed
  requests=$(CTX_OPENCODE_SUBAGENT_FRAMES=none run unframed "$project" "$work/unframed.json" -- run "Delegate the audit")
  pushed=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["children"][0]["id"]')
  [[ $(frame_json "$project" "$pushed" | field 'd["frame"]["goal"]') == "Refund work" ]] || fail "unframed: the parent's pushed frame"
  [[ $(ctx -C "$project" frame tree --json | field 'len(d["roots"][0]["children"][0]["children"][0]["children"])') == 0 ]] \
    || fail "unframed: the subagent got a frame of its own"
  check "$requests" "unframed" "
sub = first(lambda r: 'Audit the refund code now' in r['last_user'] and r['tools'], 'the subagent request')
need('<flame-context session=\"$pushed\">' in sub['last_user'], 'the subagent sees its parent session\'s frame')
"
}

scenario_swarm_plugin() {
  echo "scenario swarm_plugin: with opencode-swarm 5.1.0 loaded by OpenCode, each [SWARM CONTEXT] entry is sent once"
  local project
  project=$(new_project swarm-plugin)
  mkdir -p "$project/.swarm"
  cp "$repo/tests/fixtures/swarm/example-1.plan.md" "$project/.swarm/plan.md"
  cp "$repo/tests/fixtures/swarm/example-3.context.md" "$project/.swarm/context.md"
  mock_config "$project" '"plugin": ["opencode-swarm@5.1.0"]'
  # OpenCode installs the plugin from npm into its cache; a copy kept beside the agent's own
  # install saves that download on later runs.
  local packages=$agent_home/packages/opencode-swarm@5.1.0
  local sandbox_packages=$work/sandbox-swarm-plugin/cache/$data/packages
  if [[ -d $packages/node_modules/opencode-swarm ]]; then
    mkdir -p "$sandbox_packages" && cp -r "$packages" "$sandbox_packages/"
  fi
  echo '[]' >"$work/empty.json"
  local requests
  requests=$(run swarm-plugin "$project" "$work/empty.json" -- run "Continue with the plan")
  if [[ ! -d $packages/node_modules/opencode-swarm && -d $sandbox_packages/opencode-swarm@5.1.0 ]]; then
    mkdir -p "$(dirname "$packages")" && cp -r "$sandbox_packages/opencode-swarm@5.1.0" "$(dirname "$packages")/"
  fi
  check "$requests" "swarm plugin" "
r = first(lambda r: 'Continue with the plan' in r['last_user'] and r['tools'], 'the conversation request')
for entry in ['[SWARM CONTEXT] Current phase:', '[SWARM CONTEXT] Current task:', '[SWARM CONTEXT] Key decisions:']:
    need(r['system'].count(entry) == 1, entry + ' once, not ' + str(r['system'].count(entry)))
"
}

# with_npm_plugin SANDBOX-NAME SPEC: OpenCode installs an npm plugin (SPEC, e.g.
# @tarquinen/opencode-dcp@3.1.14) into its cache on its first start; a copy kept beside OpenCode's
# own install saves that download on later runs. Call it before the run, and `keep_npm_plugin` with
# the same arguments after it.
npm_plugin_dirs() {
  local cache=$agent_home/packages
  echo "$cache/$2" "$work/sandbox-$1/cache/$data/packages/$2"
}
with_npm_plugin() {
  local kept sandboxed
  read -r kept sandboxed < <(npm_plugin_dirs "$1" "$2")
  if [[ -d $kept/node_modules ]]; then
    mkdir -p "$(dirname "$sandboxed")" && cp -r "$kept" "$(dirname "$sandboxed")/"
  fi
}
keep_npm_plugin() {
  local kept sandboxed
  read -r kept sandboxed < <(npm_plugin_dirs "$1" "$2")
  if [[ ! -d $kept/node_modules && -d $sandboxed/node_modules ]]; then
    mkdir -p "$(dirname "$kept")" && cp -r "$sandboxed" "$(dirname "$kept")/"
  fi
}

scenario_dcp() {
  echo "scenario dcp: beside DCP 3.1.14, a compress over a range that begins before a push still lets the frame fold"
  local project requests frame dcp=@tarquinen/opencode-dcp@3.1.14
  project=$(new_project dcp)
  mock_config "$project" "\"plugin\": [\"$dcp\"]"
  # DCP numbers the messages it sees (<dcp-message-id>m0001</…>): m0001 the prompt, m0002 the
  # first bash call, m0003 the push. The model compresses m0002..m0003, taking the push with it,
  # then works on in the frame and pops it.
  cat >"$work/dcp.json" <<EOF
[
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo intro", "description": "intro"}}]},
 {"tools": true, "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Audit beside DCP"}}]},
 {"tools": true, "when": "m0003", "tool_calls": [{"name": "compress", "arguments": {"topic": "Start of the audit", "content": [{"startId": "m0002", "endId": "m0003", "summary": "DCP_SUMMARY: the intro ran and the audit frame was pushed."}]}}]},
 $(big_bash DCPX),
 {"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "The audit beside DCP is done"}}]},
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo after", "description": "after"}}]},
 {"tools": true, "reply": "Finished."}
]
EOF
  with_npm_plugin dcp "$dcp"
  requests=$(MOCK_STRICT=1 run dcp "$project" "$work/dcp.json" -- run "Audit the ledger")
  keep_npm_plugin dcp "$dcp"
  accepted "$requests" "dcp"
  frame=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(frame_json "$project" "$frame" | field 'd["frame"]["status"]') == completed ]] || fail "dcp: the frame is popped"
  grep -q "DCPX-2499" "$project/.opencode/flame/logs/frame-$frame.md" || fail "dcp: the frame's log keeps the output"
  ! grep -rq "comes before its push" "$work/sandbox-dcp" || fail "dcp: a wrong warning was logged"
  check "$requests" "dcp" "
agent = [r for r in requests if r['tools']]
need(any('compress' == t for r in agent for t in r['tools']), 'DCP offers its compress tool')
need('<dcp-message-id>' in agent[0]['all'], 'DCP numbers the messages')
last = agent[-1]
need('DCP_SUMMARY' in last['all'], 'DCP\'s summary stays in place of what it compressed')
need('DCPX-2499' not in last['all'], 'the output after the compress folds with its frame')
need('The audit beside DCP is done' in last['all'] and '<flame-folded id=' in last['all'], 'the fold entry')
"
}

scenario_dcp_ids() {
  echo "scenario dcp_ids: ctx's plugin named in opencode.json before DCP 3.1.14: DCP numbers ctx's contexts and fold entries"
  local project requests frame dcp=@tarquinen/opencode-dcp@3.1.14
  project=$(new_project dcp-ids)
  # Named in the config's plugin list, ahead of DCP, and out of .opencode/plugin/ (whose files
  # OpenCode loads after every plugin the config names): ctx's message transform runs first, and
  # DCP's, after it, sees and numbers what ctx put in.
  mv "$project/$agent_dir/plugin/ctx.js" "$project/$agent_dir/ctx.js"
  mock_config "$project" "\"plugin\": [\"file://$project/$agent_dir/ctx.js\", \"$dcp\"]"
  cat >"$work/dcp-ids.json" <<EOF
[
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo intro", "description": "intro"}}]},
 {"tools": true, "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Audit beside DCP"}}]},
 $(big_bash DCPI),
 {"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "The audit beside DCP is done"}}]},
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo after", "description": "after"}}]},
 {"tools": true, "reply": "Finished."}
]
EOF
  with_npm_plugin dcp-ids "$dcp"
  requests=$(MOCK_STRICT=1 run dcp-ids "$project" "$work/dcp-ids.json" -- run "Audit the ledger")
  keep_npm_plugin dcp-ids "$dcp"
  accepted "$requests" "dcp_ids"
  frame=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(frame_json "$project" "$frame" | field 'd["frame"]["status"]') == completed ]] || fail "dcp_ids: the frame is popped"
  check "$requests" "dcp_ids" "
import re
agent = [r for r in requests if r['tools']]
need(any('compress' == t for r in agent for t in r['tools']), 'DCP offers its compress tool')
last = agent[-1]
need('DCPI-2499' not in last['all'], 'the popped frame folds')
tagged = lambda text: re.search(r'<dcp-message-id[^>]*>m[0-9]+</dcp-message-id>', text)
entry = [text(m) for m in last['messages'] if text(m).startswith('<flame-folded id=\"$frame\"')]
need(entry and tagged(entry[0]), 'the fold entry carries a DCP message id: %r' % entry)
contexts = [text(m) for r in agent for m in r['messages'] if text(m).startswith('<flame-context')]
need(contexts and all(tagged(c) for c in contexts), 'every frame context carries a DCP message id: %r' % contexts)
"
}

scenario_swarm_architect() {
  echo "scenario swarm_architect: opencode-swarm 5.1.0's architect gets ctx's notice; its reminder stays on the person's message, the prefix holds"
  local project requests swarm=opencode-swarm@5.1.0
  project=$(new_project swarm-architect)
  mkdir -p "$project/.swarm"
  cp "$repo/tests/fixtures/swarm/example-1.plan.md" "$project/.swarm/plan.md"
  mock_config "$project" "\"plugin\": [\"$swarm\"]"
  # opencode-swarm's agents run on models of their own (anthropic/…, google/…) unless its config
  # names others: here, the stand-in's.
  python3 -c 'import json, sys; print(json.dumps({"agents": {a: {"model": "mock/mock-1"} for a in sys.argv[1:]}}))' \
    architect explorer coder test_engineer sme reviewer critic >"$project/.opencode/opencode-swarm.json"
  cat >"$work/swarm-architect.json" <<'EOF'
[
 {"tools": true, "when": "Delegate the audit", "tool_calls": [{"name": "task", "arguments": {"description": "Audit refunds", "prompt": "Audit the refund code now", "subagent_type": "general"}}]},
 {"tools": true, "when": "Audit the refund code now", "reply": "Refund audit: 3 issues found."},
 {"tools": true, "when": "task_result", "delay": 1.5, "reply": "The audit is back."},
 {"tools": true, "reply": "Noted."}
]
EOF
  with_npm_plugin swarm-architect "$swarm"
  requests=$(MOCK_STRICT=1 run swarm-architect "$project" "$work/swarm-architect.json" -- run --agent architect "Delegate the audit")
  keep_npm_plugin swarm-architect "$swarm"
  accepted "$requests" "swarm_architect"
  check "$requests" "swarm_architect" "
def user_texts(r):
    return [text(m) for m in r['messages'] if m['role'] == 'user']
parent = [r for r in requests if r['tools'] and any('Delegate the audit' in t for t in user_texts(r)[:1])]
need(parent and '<swarm_reminder>' in parent[0]['all'], 'the parent runs opencode-swarm\'s architect (its reminder is sent)')
notice = first(lambda r: r in parent and 'finished with status completed' in r['last_user'], 'the notice in the architect\'s session')
texts = user_texts(notice)
need(texts[0].startswith('<swarm_reminder>') and texts[0].endswith('---\\n\\n\"Delegate the audit\"'), 'the reminder stays before the person\'s message: %r' % texts[0][-80:])
mine = [t for t in texts if 'finished with status completed' in t or t.startswith('Frame ')]
need(mine and not any('<swarm_reminder>' in t for t in mine), 'ctx\'s notice carries no reminder: %r' % mine)
need(sum('<swarm_reminder>' in t for t in texts) == 1, 'one reminder in the request')
before = parent[parent.index(notice) - 1]
need(notice['messages'][:len(before['messages'])] == before['messages'], 'the request with the notice starts with the whole request before it')
"
}

scenario_omo() {
  echo "scenario omo: beside oh-my-opencode 4.19.4, a background task's frame runs until its child answers, then the notice carries the answer"
  local project requests omo=oh-my-opencode@4.19.4
  project=$(new_project omo)
  mock_config "$project" "\"plugin\": [\"$omo\"]"
  # oh-my-opencode's task tool returns at once with run_in_background (its output names the
  # background task, bg_…); the root keeps busy in a bash call while the child works. Not a bare
  # `sleep N`: oh-my-opencode refuses that while a child runs ("Background task wait is already
  # managed by the plugin"), so the root would end its turn first whenever the child is slow.
  cat >"$work/omo.json" <<'EOF'
[
 {"tools": true, "when": "Delegate the audit", "tool_calls": [{"name": "task", "arguments": {"description": "Audit refunds", "prompt": "AUDIT_IN_THE_BACKGROUND", "subagent_type": "explore", "run_in_background": true}}]},
 {"tools": true, "when": "bg_", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 8; echo waited", "description": "wait"}}]},
 {"tools": true, "when": "AUDIT_IN_THE_BACKGROUND", "delay": 1, "reply": "BG_ANSWER: 3 refund issues found."},
 {"tools": true, "when": "finished with status completed", "reply": "The audit is back."},
 {"tools": true, "delay": 2, "reply": "Noted."}
]
EOF
  with_npm_plugin omo "$omo"
  requests=$(OMO_DISABLE_POSTHOG=1 MOCK_STRICT=1 run omo "$project" "$work/omo.json" -- run "Delegate the audit")
  keep_npm_plugin omo "$omo"
  accepted "$requests" "omo"
  local child
  child=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $child == ses_* ]] || fail "omo: the background child is a frame ($child)"
  [[ $(frame_json "$project" "$child" | field 'd["frame"]["status"], d["frame"]["summary"]') == "('completed', 'BG_ANSWER: 3 refund issues found.')" ]] \
    || fail "omo: the child's frame ends with its own answer: $(frame_json "$project" "$child")"
  check "$requests" "omo" "
agent = [r for r in requests if r['tools']]
need(any('background_output' in r['tools'] for r in agent), 'oh-my-opencode\'s own tools are offered')
sub = first(lambda r: 'AUDIT_IN_THE_BACKGROUND' in r['last_user'], 'the child\'s request')
need('<flame-context session=\"$child\">' in sub['texts'], 'the child sees its own frame')
need('<current-frame id=\"$child\" status=\"in_progress\">' in sub['texts'], 'running, not completed at launch')
notice = first(lambda r: 'finished with status completed' in r['last_user'], 'the notice in the parent')
need('BG_ANSWER: 3 refund issues found.' in notice['last_user'], 'the notice carries the child\'s answer')
need(requests.index(notice) > requests.index(sub), 'and comes after it')
"
}

scenario_omo_sync() {
  echo "scenario omo_sync: beside oh-my-opencode 4.19.4, a synchronous task's frame ends with its child's answer and the parent is told"
  local project requests omo=oh-my-opencode@4.19.4
  project=$(new_project omo-sync)
  mock_config "$project" "\"plugin\": [\"$omo\"]"
  # oh-my-opencode's own task tool with run_in_background false waits for its child (here its
  # agent "Metis - Plan Consultant") and returns "Task completed in …" with the child's answer:
  # no <task state=…> result. The parent answers that slowly, so that ctx's notice, sent 200 ms
  # after the child's frame ends, finds the session still busy.
  cat >"$work/omo-sync.json" <<'EOF'
[
 {"tools": true, "when": "Consult on the plan", "tool_calls": [{"name": "task", "arguments": {"description": "Review the plan", "prompt": "CONSULT_IN_SYNC", "subagent_type": "metis", "run_in_background": false, "load_skills": []}}]},
 {"tools": true, "when": "CONSULT_IN_SYNC", "reply": "SYNC_ANSWER: the plan misses refunds."},
 {"tools": true, "when": "Task completed in", "delay": 2, "reply": "The consult is back."},
 {"tools": true, "when": "finished with status completed", "reply": "Noted the notice."},
 {"tools": true, "reply": "Noted."}
]
EOF
  with_npm_plugin omo-sync "$omo"
  requests=$(OMO_DISABLE_POSTHOG=1 MOCK_STRICT=1 run omo-sync "$project" "$work/omo-sync.json" -- run "Consult on the plan")
  keep_npm_plugin omo-sync "$omo"
  accepted "$requests" "omo_sync"
  local child
  child=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $child == ses_* ]] || fail "omo_sync: the child is a frame ($child)"
  [[ $(frame_json "$project" "$child" | field 'd["frame"]["status"], d["frame"]["summary"]') == "('completed', 'SYNC_ANSWER: the plan misses refunds.')" ]] \
    || fail "omo_sync: the child's frame ends with its own answer: $(frame_json "$project" "$child")"
  [[ $(frame_json "$project" "$child" | field 'd["frame"]["goal"]') == "Review the plan" ]] \
    || fail "omo_sync: the child's goal is the task's description: $(frame_json "$project" "$child" | field 'd["frame"]["goal"]')"
  check "$requests" "omo_sync" "
sub = first(lambda r: 'CONSULT_IN_SYNC' in r['last_user'], 'the child\'s request')
need('<flame-context session=\"$child\">' in sub['texts'], 'the child sees its own frame')
done = first(lambda r: 'Task completed in' in r['all'] and 'Metis - Plan Consultant' in r['all'], 'oh-my-opencode\'s synchronous result in the parent')
notice = first(lambda r: 'finished with status completed' in r['last_user'], 'ctx\'s notice in the parent')
need('SYNC_ANSWER: the plan misses refunds.' in notice['last_user'], 'the notice carries the child\'s answer')
need(requests.index(notice) > requests.index(done), 'and comes after the task\'s result')
"
}

scenario_together() {
  echo "scenario together: oh-my-opencode, DCP and opencode-swarm loaded at once beside ctx; a frame still folds"
  local project requests frame
  local omo=oh-my-opencode@4.19.4 dcp=@tarquinen/opencode-dcp@3.1.14 swarm=opencode-swarm@5.1.0
  project=$(new_project together)
  mkdir -p "$project/.swarm"
  cp "$repo/tests/fixtures/swarm/example-1.plan.md" "$project/.swarm/plan.md"
  mock_config "$project" "\"plugin\": [\"$omo\", \"$dcp\", \"$swarm\"]"
  cat >"$work/together.json" <<EOF
[
 {"tools": true, "when": "Audit the ledger", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Audit beside three plugins"}}]},
 $(big_bash TOGX),
 {"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "The audit beside three plugins is done"}}]},
 {"tools": true, "tool_calls": [{"name": "bash", "arguments": {"command": "echo after", "description": "after"}}]},
 {"tools": true, "reply": "Finished."}
]
EOF
  for plugin in "$omo" "$dcp" "$swarm"; do with_npm_plugin together "$plugin"; done
  requests=$(OMO_DISABLE_POSTHOG=1 MOCK_STRICT=1 run together "$project" "$work/together.json" -- run "Audit the ledger")
  for plugin in "$omo" "$dcp" "$swarm"; do keep_npm_plugin together "$plugin"; done
  accepted "$requests" "together"
  frame=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(frame_json "$project" "$frame" | field 'd["frame"]["status"]') == completed ]] || fail "together: the frame is popped"
  check "$requests" "together" "
agent = [r for r in requests if r['tools']]
need(any('background_output' in r['tools'] for r in agent), 'oh-my-opencode\'s tools are offered')
need(any('compress' in r['tools'] for r in agent), 'DCP\'s compress tool is offered')
need(any('[SWARM CONTEXT]' in r['system'] for r in agent), 'opencode-swarm\'s entries are in the system prompt')
last = agent[-1]
need('TOGX-2499' not in last['all'], 'the popped frame\'s output is folded')
need('The audit beside three plugins is done' in last['all'], 'its fold entry is sent')
"
}

scenario_auto_turns() {
  echo "scenario auto_turns: with frame.auto = turns, a model that never calls a ctx tool gets each person's turn framed and its outputs folded once it closes; flame_recall gives them back"
  local project
  project=$(new_project auto-turns)
  settings "$project" 'frame.auto = "turns"\n'
  { printf '[\n'; big_bash T1A; printf ',\n'; printf '{"tools": true, "reply": "ASSIST0: the first part is done."}\n]\n'; } >"$work/auto-turns-1.json"
  { printf '[\n'; big_bash T2A; printf ',\n'; printf '{"tools": true, "reply": "ASSIST1: the second part is done."}\n]\n'; } >"$work/auto-turns-2.json"
  local first second third
  first=$(SANDBOX=auto-turns MOCK_STRICT=1 run auto-turns-1 "$project" "$work/auto-turns-1.json" -- run "PERSON0: do the first part")
  accepted "$first" "auto_turns"
  local turn
  turn=$(python3 - "$project/.opencode/flame/state.json" <<'PY'
import json, sys
frames = json.load(open(sys.argv[1]))["frames"]
turns = [f for f in frames.values() if f.get("auto") == "turn"]
print(turns[0]["sessionID"] if len(turns) == 1 else "")
PY
)
  [[ $turn == fr_* ]] || fail "auto_turns: the first person's message opened no turn frame"
  ctx -C "$project" frame tree | grep -q "PERSON0: do the first part (.*) turn" || fail "auto_turns: the tree does not show the turn: $(ctx -C "$project" frame tree)"
  second=$(SANDBOX=auto-turns MOCK_STRICT=1 run auto-turns-2 "$project" "$work/auto-turns-2.json" -- run --continue "PERSON1: do the second part")
  accepted "$second" "auto_turns"
  [[ $(frame_json "$project" "$turn" | field 'd["frame"]["status"]') == completed ]] || fail "auto_turns: the first turn is not closed"
  grep -q "T1A-2499" "$project/.opencode/flame/logs/frame-$turn.md" || fail "auto_turns: the first turn's log misses its output"
  check "$second" "auto_turns, second turn" "
agent = [r for r in requests if r['tools']]
need(agent, 'the second turn called the model')
for r in agent:
    need('T1A-2499' not in r['all'], 'the first turn\'s output is folded in ' + r['file'])
    need('into the log of frame $turn: flame_recall' in r['all'], 'the placeholder names the frame and flame_recall')
    for words in ['PERSON0: do the first part', 'ASSIST0: the first part is done.', 'PERSON1: do the second part']:
        need(words in r['all'], words + ' is sent word for word')
need('T2A-2499' in agent[-1]['all'], 'the running turn\'s own output is sent whole')
"
  printf '[\n{"tools": true, "tool_calls": [{"name": "flame_recall", "arguments": {"id": "%s"}}]},\n{"tools": true, "reply": "ASSIST2: recalled."}\n]\n' "$turn" >"$work/auto-turns-3.json"
  third=$(SANDBOX=auto-turns MOCK_STRICT=1 run auto-turns-3 "$project" "$work/auto-turns-3.json" -- run --continue "PERSON2: what did the first part print?")
  accepted "$third" "auto_turns"
  check "$third" "auto_turns, recall" "
agent = [r for r in requests if r['tools']]
need('flame_recall' in agent[0]['tools'], 'flame_recall is offered')
need('T1A-2499' in agent[-1]['all'], 'flame_recall gave the first turn\'s output back')
need('T2A-2499' not in agent[-1]['all'], 'the second turn\'s output is folded')
"
}

# A todowrite call of the stand-in's script: $1 is the list, as JSON.
todo_call() {
  printf '{"tools": true, "tool_calls": [{"name": "todowrite", "arguments": {"todos": %s}}]}' "$1"
}

scenario_auto_todos() {
  echo "scenario auto_todos: with frame.auto = all, a model that never calls a ctx tool gets each todo item framed and its outputs folded once the item is completed, inside the running turn; flame_recall gives them back"
  local project
  project=$(new_project auto-todos)
  settings "$project" 'frame.auto = "all"\n'
  local m1='"content": "Migrate m1", "priority": "high"' m2='"content": "Migrate m2", "priority": "high"'
  {
    printf '[\n'
    todo_call "[{$m1, \"status\": \"in_progress\"}, {$m2, \"status\": \"pending\"}]"; printf ',\n'
    big_bash M1A; printf ',\n'
    big_bash M1B; printf ',\n'
    todo_call "[{$m1, \"status\": \"completed\"}, {$m2, \"status\": \"in_progress\"}]"; printf ',\n'
    big_bash M2A; printf ',\n'
    todo_call "[{$m1, \"status\": \"completed\"}, {$m2, \"status\": \"completed\"}]"; printf ',\n'
    printf '{"tools": true, "reply": "ASSIST0: both modules are migrated."}\n]\n'
  } >"$work/auto-todos-1.json"
  local first second
  first=$(SANDBOX=auto-todos MOCK_STRICT=1 run auto-todos-1 "$project" "$work/auto-todos-1.json" -- run "PERSON0: migrate both modules")
  accepted "$first" "auto_todos"
  local ids
  ids=$(python3 - "$project/.opencode/flame/state.json" <<'PY'
import json, sys
frames = json.load(open(sys.argv[1]))["frames"]
todos = sorted((f for f in frames.values() if f.get("auto") == "todo"), key=lambda f: f["createdAt"])
turns = [f for f in frames.values() if f.get("auto") == "turn"]
ok = [f["goal"] for f in todos] == ["Migrate m1", "Migrate m2"] and all(f["status"] == "completed" for f in todos)
ok = ok and len(turns) == 1 and all(f["parentSessionID"] == turns[0]["sessionID"] for f in todos)
print(" ".join(f["sessionID"] for f in todos) if ok else "")
PY
)
  [[ -n $ids ]] || fail "auto_todos: the two items are not two completed frames of the turn: $(ctx -C "$project" frame tree)"
  local item1 item2
  read -r item1 item2 <<<"$ids"
  ctx -C "$project" frame tree | grep -q "Migrate m1 (.*) todo" || fail "auto_todos: the tree does not mark the item: $(ctx -C "$project" frame tree)"
  grep -q "M1A-2499" "$project/.opencode/flame/logs/frame-$item1.md" || fail "auto_todos: the first item's log misses its output"
  check "$first" "auto_todos, one turn" "
agent = [r for r in requests if r['tools']]
need(len(agent) == 7, 'seven model calls, not %d' % len(agent))
# The request after the call that completed m1 and started m2: m1's outputs are folded.
for r in agent[4:]:
    need('M1A-2499' not in r['all'] and 'M1B-2499' not in r['all'], 'm1\'s outputs are folded in ' + r['file'])
    need('into the log of frame $item1, item ' in r['all'] and 'flame_recall with id $item1 gives them back' in r['all'], 'the placeholder names m1\'s frame and the item')
need('M1A-2499' in agent[3]['all'], 'm1\'s output is sent whole while m1 runs')
need('M2A-2499' in agent[5]['all'], 'm2\'s output is sent whole while m2 runs')
need('M2A-2499' not in agent[6]['all'], 'm2\'s output is folded once m2 is completed')
for r in agent:
    need('PERSON0: migrate both modules' in r['all'], 'the person\'s words are sent')
"
  printf '[\n{"tools": true, "tool_calls": [{"name": "flame_recall", "arguments": {"id": "%s"}}]},\n{"tools": true, "reply": "ASSIST1: recalled."}\n]\n' "$item1" >"$work/auto-todos-2.json"
  second=$(SANDBOX=auto-todos MOCK_STRICT=1 run auto-todos-2 "$project" "$work/auto-todos-2.json" -- run --continue "PERSON1: what did m1's migration print?")
  accepted "$second" "auto_todos"
  check "$second" "auto_todos, recall" "
agent = [r for r in requests if r['tools']]
need('flame_recall' in agent[0]['tools'], 'flame_recall is offered')
need('M1A-2499' in agent[-1]['all'], 'flame_recall gave m1\'s output back')
need('M2A-2499' not in agent[-1]['all'], 'm2\'s output stays folded')
need('ASSIST0: both modules are migrated.' in agent[-1]['all'], 'the first answer is sent word for word')
"
}

scenario_valve() {
  echo "scenario valve: with frame.auto on, one long turn of large outputs on a small model stays under where OpenCode compacts: the pressure valve masks the oldest outputs, keeps the last three whole, and flame_recall gives a masked one back"
  local project
  project=$(new_project valve)
  settings "$project" 'frame.auto = "turns"\n'
  # 40 000 tokens of context and 4 000 of output: OpenCode compacts at 36 000, ten 20 000-character
  # outputs (about 5 000 tokens each, as the stand-in counts) would pass it.
  mock_config "$project"
  sed -i 's/"context": 200000, "output": 32000/"context": 40000, "output": 4000/' "$project/opencode.json"
  { printf '[\n'; for i in 0 1 2 3 4 5 6 7 8 9; do big_bash "V$i"; printf ',\n'; done
    printf '{"tools": true, "reply": "ASSIST0: all ten ran."}\n]\n'; } >"$work/valve-1.json"
  local first second
  first=$(SANDBOX=valve MOCK_STRICT=1 run valve-1 "$project" "$work/valve-1.json" -- run "PERSON0: run the ten steps")
  accepted "$first" "valve"
  local masked
  masked=$(python3 - "$first" <<'PY'
import json, re, sys
from request_log import bodies
requests = bodies(sys.argv[1])
agent = [r for r in requests if r.get("tools")]
# A compaction is a request without tools whose system prompt asks for a summarization (the
# title request, which the agent may or may not send, has no tools either).
system = lambda r: json.dumps([m for m in r.get("messages", []) if m.get("role") == "system"])
compactions = [r for r in requests if not r.get("tools") and "summarization" in system(r)]
if len(agent) != 11 or compactions:
    sys.exit(f"not 11 agent requests without a compaction: {len(agent)} agent requests, {len(compactions)} compaction(s), of {len(requests)}")
last = json.dumps(agent[-1])
for i in range(7, 10):
    if f"V{i}-2499" not in last:
        sys.exit(f"the output of step {i}, one of the last three, is not sent whole")
if "V0-2499" in last:
    sys.exit("the oldest output is still sent whole")
if max(len(json.dumps(r)) for r in agent) > 36000 * 4:
    sys.exit("a request passed the count at which OpenCode compacts")
ids = re.findall(r"characters\): flame_recall with id (\S+) gives it back", last)
print(ids[0] if ids else "")
PY
) || fail "valve: $masked"
  [[ -n $masked ]] || fail "valve: no output was masked"
  printf '[\n{"tools": true, "tool_calls": [{"name": "flame_recall", "arguments": {"id": "%s"}}]},\n{"tools": true, "reply": "ASSIST1: recalled."}\n]\n' "$masked" >"$work/valve-2.json"
  second=$(SANDBOX=valve MOCK_STRICT=1 run valve-2 "$project" "$work/valve-2.json" -- run --continue "PERSON1: what did the first step print?")
  accepted "$second" "valve"
  check "$second" "valve, recall" "
agent = [r for r in requests if r['tools']]
need('V0-2499' in agent[-1]['all'], 'flame_recall gave the masked output back')
"
}

# serve NAME PROJECT SCRIPT: starts the agent as a server (`serve`) in a session of its own, on a port of
# its own, with the strict stand-in scripted by SCRIPT, and sets `served` to its address; stop_serving
# ends that session. Its sandbox is $work/sandbox-NAME, its stand-in's request log that sandbox's
# requests/. OpenCode prunes old tool outputs (compaction.prune) in work it forks after a prompt's
# loop, which `run` exits before: a server finishes it.
served= serving=
serve() {
  local name=$1 project=$2 script=$3 port=$((MOCK_PORT + 500))
  ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || fail "$name: port $port, the server's, is taken"
  mkdir -p "$work/sandbox-$name/requests"
  MOCK_SCRIPT=$script MOCK_STRICT=1 setsid "$sandbox_script" "$work/sandbox-$name" "$project" -- \
    serve --hostname 127.0.0.1 --port "$port" >"$work/$name-serve.out" 2>&1 &
  serving=$!
  local code=0
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$serving" 2>/dev/null; then
      wait "$serving" || code=$?
      exited "$name-serve" "$work/sandbox-$name" "$code"
    fi
    sleep 0.5
  done
  served=http://127.0.0.1:$port
}
# The sandbox script, its stand-in and the server (which `timeout` puts in a process group of its own).
stop_serving() {
  [[ -z $serving ]] || pkill -TERM -s "$serving" 2>/dev/null || true
  serving=
}
at_exit() { stop_serving; }

scenario_pruned() {
  echo "scenario pruned: where OpenCode's own pruning (compaction.prune) clears old tool outputs, a popped frame's entry is still sent, and the frame's outputs are not"
  local project frame
  project=$(new_project pruned)
  mock_config "$project" '"compaction": {"prune": true}'
  # Turn 1: a frame with one large output, popped, then twelve more large outputs, past the newest
  # 40 000 estimated tokens of outputs OpenCode keeps; turns 2 to 4, a line each. OpenCode prunes,
  # after a turn, outputs older than the two latest person's messages: after turn 3, turn 1's.
  { printf '[\n{"tools": true, "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Read the old ledger"}}]},\n'
    big_bash P0; printf ',\n'
    printf '{"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "The old ledger is closed"}}]},\n'
    for i in $(seq 12); do big_bash "P$i"; printf ',\n'; done
    printf '{"tools": true, "reply": "ASSIST0: all read."}'
    for i in 1 2 3; do printf ',\n{"tools": true, "when": "PERSON%d", "reply": "ASSIST%d."}' "$i" "$i"; done
    printf '\n]\n'; } >"$work/pruned.json"
  serve pruned "$project" "$work/pruned.json"
  local turn args=()
  for turn in 0 1 2 3; do
    # The server prunes after it answered the third turn, beside the next `run` starting: the fourth
    # waits until the flame_pop call is marked (time.compacted) in the agent's database.
    [[ $turn != 3 ]] || python3 - "$work/sandbox-pruned/data/$data" <<'PY' || fail "pruned: $agent pruned no flame_pop call in a minute"
import glob, json, sqlite3, sys, time
for _ in range(120):
    db = sqlite3.connect(glob.glob(sys.argv[1] + "/*.db")[0])
    parts = [json.loads(d) for (d,) in db.execute("select data from part")]
    db.close()
    if any(p.get("tool") == "flame_pop" and p["state"].get("time", {}).get("compacted") for p in parts):
        sys.exit(0)
    time.sleep(0.5)
sys.exit(1)
PY
    "$sandbox_script" "$work/sandbox-pruned" "$project" -- run --attach "$served" "${args[@]}" "PERSON$turn: go on" \
      >"$work/pruned-$turn.out" 2>&1 || exited "pruned-$turn" "$work/sandbox-pruned" $?
    args=(--continue)
  done
  frame=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  accepted "$work/sandbox-pruned/requests" "pruned"
  check "$work/sandbox-pruned/requests" "pruned" "
last = first(lambda r: 'PERSON3' in r['all'] and r['tools'], 'the last turn\'s request')
need('[Old tool result content cleared]' in last['all'], '$agent sends pruned outputs cleared')
need(any(text(m) == '<flame-folded id=\"$frame\"/>' for m in last['messages']), 'the entry of $frame')
need('The old ledger is closed' in last['all'], 'the frame\'s summary')
need('P0-2499' not in last['all'], 'the frame\'s output is folded out')
need('P12-2499' in last['all'], 'the newest output is sent whole')
print('pruned: %d outputs cleared by $agent, the entry of $frame sent' % last['all'].count('[Old tool result content cleared]'))
"
  stop_serving
}

scenario_auto_push() {
  echo "scenario auto_push: with frame.auto = all, a flame_push inside a running todo item goes under the item's frame, its pop folds its span at once, and the item and the turn then close as they do; a turn that ends with a pushed frame still running waits for it"
  local project first second third turn1 item1 pushed1 turn2 pushed2 lines
  project=$(new_project auto-push)
  settings "$project" 'frame.auto = "all"\n'
  # The frames ctx opened or the model pushed (not the session's), oldest first, one line each:
  # "ID STATUS turn|todo|pushed PARENT GOAL".
  frames() {
    python3 - "$project/.opencode/flame/state.json" <<'PY'
import json, sys
frames = json.load(open(sys.argv[1]))["frames"]
for f in sorted(frames.values(), key=lambda f: f["createdAt"]):
    if f["sessionID"].startswith("fr_"):
        print(f["sessionID"], f["status"], f.get("auto") or "pushed", f.get("parentSessionID"), f["goal"])
PY
  }
  local m1='"content": "Migrate m1", "priority": "high"'
  # Turn 1: item m1 in progress, a push in it, a 20 000-character output, the pop, another output
  # in the item, m1 completed, an answer.
  {
    printf '[\n'
    todo_call "[{$m1, \"status\": \"in_progress\"}]"; printf ',\n'
    printf '{"tools": true, "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Check the rounding of m1"}}]},\n'
    big_bash PSHA; printf ',\n'
    printf '{"tools": true, "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "ROUNDING-SUMMARY: half-even"}}]},\n'
    big_bash M1B; printf ',\n'
    todo_call "[{$m1, \"status\": \"completed\"}]"; printf ',\n'
    printf '{"tools": true, "reply": "ASSIST0: m1 is migrated."}\n]\n'
  } >"$work/auto-push-1.json"
  first=$(SANDBOX=auto-push MOCK_STRICT=1 run auto-push-1 "$project" "$work/auto-push-1.json" -- run "PERSON0: migrate m1")
  accepted "$first" "auto_push"
  mapfile -t lines < <(frames)
  read -r turn1 _ <<<"${lines[0]:-}"
  read -r item1 _ <<<"${lines[1]:-}"
  read -r pushed1 _ <<<"${lines[2]:-}"
  [[ ${#lines[@]} == 3 && ${lines[0]} == "$turn1 completed turn ses_"*" PERSON0: migrate m1" &&
    ${lines[1]} == "$item1 completed todo $turn1 Migrate m1" &&
    ${lines[2]} == "$pushed1 completed pushed $item1 Check the rounding of m1" ]] ||
    fail "auto_push: not a closed turn, its closed item, and the popped frame under the item: $(printf '%s; ' "${lines[@]}")"
  ctx -C "$project" frame tree --json | python3 -c "
import json, sys
def find(nodes, id):
    for n in nodes:
        if n['id'] == id:
            return n
        found = find(n['children'], id)
        if found:
            return found
roots = json.load(sys.stdin)['roots']
turn, item = find(roots, '$turn1'), find(roots, '$item1')
assert turn and [c['id'] for c in turn['children']] == ['$item1'], turn
assert [c['id'] for c in item['children']] == ['$pushed1'], item
" || fail "auto_push: ctx frame tree does not show the pushed frame under the item, under the turn"
  [[ $(frame_json "$project" "$pushed1" | field 'd["frame"]["summary"]') == "ROUNDING-SUMMARY: half-even" ]] ||
    fail "auto_push: the pushed frame's summary is not the pop's"
  grep -q "PSHA-2499" "$project/.opencode/flame/logs/frame-$pushed1.md" || fail "auto_push: the pushed frame's log misses its output"
  check "$first" "auto_push, first turn" "
agent = [r for r in requests if r['tools']]
need(len(agent) == 7, 'seven model calls, not %d' % len(agent))
need('PSHA-2499' in agent[3]['all'], 'while the pushed frame ran, its output went whole')
for r in agent[4:]:
    need('PSHA-2499' not in r['all'], 'after the pop, the pushed frame\'s output is folded in ' + r['file'])
    need('ROUNDING-SUMMARY: half-even' in r['all'], 'the pop\'s summary is sent')
    need(any(text(m).startswith('<flame-folded id=\"$pushed1\"') for m in r['messages']), 'the pop\'s fold entry is sent')
need('M1B-2499' in agent[5]['all'], 'the item\'s own output after the pop goes whole while the item runs')
need('M1B-2499' not in agent[6]['all'] and 'into the log of frame $item1, item' in agent[6]['all'], 'the item folds once completed')
"
  # Turn 2: a push, an output, and the turn ends with the pushed frame running: it waits.
  {
    printf '[\n'
    printf '{"tools": true, "when": "PERSON1", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Check the totals"}}]},\n'
    big_bash TOTA; printf ',\n'
    printf '{"tools": true, "reply": "ASSIST1: the totals check is under way."}\n]\n'
  } >"$work/auto-push-2.json"
  second=$(SANDBOX=auto-push MOCK_STRICT=1 run auto-push-2 "$project" "$work/auto-push-2.json" -- run --continue "PERSON1: check the totals")
  accepted "$second" "auto_push"
  mapfile -t lines < <(frames)
  read -r turn2 _ <<<"${lines[3]:-}"
  read -r pushed2 _ <<<"${lines[4]:-}"
  [[ ${#lines[@]} == 5 && ${lines[3]} == "$turn2 in_progress turn ses_"*" PERSON1: check the totals" &&
    ${lines[4]} == "$pushed2 in_progress pushed $turn2 Check the totals" ]] ||
    fail "auto_push: the second turn does not wait, open, for the frame pushed in it: $(printf '%s; ' "${lines[@]}")"
  check "$second" "auto_push, second turn" "
agent = [r for r in requests if r['tools']]
for r in agent:
    need('M1B-2499' not in r['all'] and 'PSHA-2499' not in r['all'], 'the first turn stays folded in ' + r['file'])
    need('ROUNDING-SUMMARY: half-even' in r['all'], 'with the pop\'s summary')
need('TOTA-2499' in agent[-1]['all'], 'the running frame\'s output goes whole')
"
  # Turn 3: the person's next message is the waiting turn's; the pop ends its frame, and the turn
  # closes at this end of turn.
  printf '[\n{"tools": true, "when": "PERSON2", "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "TOTALS-SUMMARY: they balance"}}]},\n{"tools": true, "reply": "ASSIST2: the totals are checked."}\n]\n' >"$work/auto-push-3.json"
  third=$(SANDBOX=auto-push MOCK_STRICT=1 run auto-push-3 "$project" "$work/auto-push-3.json" -- run --continue "PERSON2: finish the totals check")
  accepted "$third" "auto_push"
  mapfile -t lines < <(frames)
  [[ ${#lines[@]} == 5 && ${lines[3]} == "$turn2 completed turn ses_"*" PERSON1: check the totals" &&
    ${lines[4]} == "$pushed2 completed pushed $turn2 Check the totals" ]] ||
    fail "auto_push: the waiting turn did not close once its frame was popped, or a third turn opened: $(printf '%s; ' "${lines[@]}")"
  check "$third" "auto_push, the waiting turn's end" "
agent = [r for r in requests if r['tools']]
need(len(agent) == 2, 'two model calls, not %d' % len(agent))
need('TOTA-2499' in agent[0]['all'], 'before the pop, the running frame\'s output goes whole')
need('TOTA-2499' not in agent[1]['all'] and 'TOTALS-SUMMARY: they balance' in agent[1]['all'], 'after the pop, it is folded to its summary')
"
}

scenario_notice_bad_input() {
  echo "scenario notice_bad_input: a parent's unknown agent or model, a refused or undeliverable notice, a config that is not JSON"
  # What a real OpenCode cannot be made to do on cue, played by a stand-in client (no OpenCode
  # run): see the script's header.
  mkdir -p "$work/notice-bad-input"
  CTX_BIN=$ctx_dir/ctx node "$here/notice-bad-input.mjs" "$repo/integrations/opencode/plugin/ctx.js" "$work/notice-bad-input" \
    || fail "notice_bad_input"
}

all=(context tools subagent parallel compaction commands without_ctx broken_state budget_warning tight_budget spent
  agent unframed swarm_plugin notice_bad_input fold fold_anthropic root_frame dcp dcp_ids omo omo_sync together swarm_architect auto_turns auto_todos valve
  auto_push pruned)
if [[ $agent == kilo ]]; then
  # swarm_architect: Kilo adds parts of its own to the person's messages (<environment_details>,
  # and a plan-file reminder on the architect's first one in one request but not the next), which
  # the scenario's last check (a request starts with the whole request before it) is not about.
  # notice_bad_input runs no agent (a stand-in client plays one): OpenCode's run of it suffices.
  kept=()
  for name in "${all[@]}"; do
    [[ $name == swarm_architect || $name == notice_bad_input ]] || kept+=("$name")
  done
  all=("${kept[@]}")
fi
chosen=("${@:-${all[@]}}")
if [[ -n ${CTX_E2E_SHARD:-} ]]; then
  [[ $CTX_E2E_SHARD =~ ^([0-9]+)/([0-9]+)$ ]] && ((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= BASH_REMATCH[2])) \
    || { echo "CTX_E2E_SHARD: K/N with 1 <= K <= N, not $CTX_E2E_SHARD" >&2; exit 2; }
  share=()
  for i in "${!chosen[@]}"; do
    ((i % BASH_REMATCH[2] == BASH_REMATCH[1] - 1)) && share+=("${chosen[$i]}")
  done
  chosen=("${share[@]}")
fi
for name in "${chosen[@]}"; do "scenario_${name//-/_}"; done
echo "ok: ${chosen[*]}"

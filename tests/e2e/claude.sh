#!/usr/bin/env bash
# End-to-end tests with the real Claude Code: builds ctx, installs ctx's hooks and slash commands
# into temporary projects with `ctx claude install` (nothing copied by hand), runs Claude Code
# (npm @anthropic-ai/claude-code, installed on first use by claude-sandbox.sh) against the stand-in
# Messages API of mock-anthropic.py, scripted with Bash and Agent tool calls, and checks the frame
# tree on disk and, in the request log, what the model was sent.
#
#   tests/e2e/claude.sh [SCENARIO...]      (default: all; names below, e.g. `subagent`)
#
# Needs cargo, node/npm (to install Claude Code) and python3. MOCK_PORT picks the stand-in's port.
set -euo pipefail
source "$(dirname "$0")/lib.sh" claude
export PATH=$ctx_dir:$PATH
export MOCK_PORT=${MOCK_PORT:-47831}
# Every scenario in strict mode: the stand-in refuses, as Anthropic's API does, a request whose
# tool_use and tool_result blocks do not pair up (what a rewritten transcript could break).
export MOCK_STRICT=1

# A fresh project (a git repository) with ctx's hooks and commands, as a user installs them.
new_project() {
  local project=$work/$1
  mkdir -p "$project"
  git -C "$project" init -q
  ctx -C "$project" -q claude install >/dev/null || fail "ctx claude install"
  echo "$project"
}

# run NAME PROJECT SCRIPT -- CLAUDE-ARGS: one Claude Code run with a fresh request log; prints the
# log's folder. Claude Code's HOME is $work/sandbox-$SANDBOX (default: NAME), so that a later run
# with the same SANDBOX can resume its sessions. The run's JSON result is in $work/NAME.out.
run() {
  local name=$1 project=$2 script=$3
  shift 4
  local sandbox=$work/sandbox-${SANDBOX:-$name}
  rm -rf "$sandbox/requests"
  mkdir -p "$sandbox/requests"
  MOCK_SCRIPT=$script "$here/claude-sandbox.sh" "$sandbox" "$project" -- "$@" \
    --output-format json --dangerously-skip-permissions >"$work/$name.out" 2>"$work/$name.err" \
    || { cat "$work/$name.out" "$work/$name.err" >&2; fail "$name: claude exited non-zero"; }
  echo "$sandbox/requests"
}
session_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['session_id'])" "$work/$1.out"; }

# check REQUESTS WHAT PYTHON: runs the checks in PYTHON with `requests` (the logged requests, in
# order, as request_log.py's "anthropic" views), `need`, `first`, `text` and `current_goals` in
# scope.
check() {
  python3 - "$1" <<PY || fail "$2"
import json, re, sys
from request_log import anthropic_text as text, checks
requests, need, first = checks(sys.argv[1], "anthropic")
def current_goals(r):
    """The goals of the current frames the request's frame contexts name."""
    return re.findall(r'<current-frame [^>]*>\s*<goal>(.*?)</goal>', r["turns"])
$3
PY
}


scenario_subagent() {
  echo "scenario subagent: the session's frame context; the model pushes and pops through Bash; a subagent is a frame"
  subagent_session subagent "$(new_project subagent)"
}

# subagent_session NAME PROJECT: the subagent scenario's run and checks, in PROJECT with ctx's
# hooks and commands installed one way or another.
subagent_session() {
  local name=$1 project=$2 requests session
  cat >"$work/subagent.json" <<'EOF'
[
 {"when": "Delegate the audit", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame push -- 'Refund work'", "description": "push"}}]},
 {"when": "cc_", "tool_calls": [{"name": "Bash", "arguments": {"command": "printf 'REFUND_%s' LIST_42", "description": "list"}}]},
 {"when": "REFUND_LIST_42", "tool_calls": [{"name": "Agent", "arguments": {"description": "Audit refunds", "prompt": "AUDIT_REFUNDS_NOW", "subagent_type": "general-purpose", "run_in_background": false}}]},
 {"when": "AUDIT_REFUNDS_NOW", "tool_calls": [{"name": "Bash", "arguments": {"command": "printf 'SUB_%s' OUTPUT_7", "description": "check"}}]},
 {"when": "SUB_OUTPUT_7", "reply": "Refund audit: 3 issues found."},
 {"when": "Refund audit: 3 issues found", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame pop --summary 'Refunds done'", "description": "pop"}}]},
 {"reply": "Done."}
]
EOF
  requests=$(run "$name" "$project" "$work/subagent.json" -- -p "Delegate the audit")
  session=$(session_of "$name")
  check "$requests" "subagent requests" "
main = requests[0]
need('UserPromptSubmit hook additional context: <flame-context session=\"cc_$session\"' in main['turns'], 'the first request carries the session frame context')
need('<goal>Delegate the audit</goal>' in main['turns'], 'whose goal is the first prompt')
sub = first(lambda r: 'AUDIT_REFUNDS_NOW' in r['last_user'] and 'SubagentStart hook' in r['turns'], 'the subagent request carries SubagentStart context')
need('<goal>Audit refunds</goal>' in sub['turns'] and '<flame-context session=\"cca_' in sub['turns'], 'the subagent sees its own frame')
need('Refund work' in sub['turns'], 'below the frame the model pushed')
need('UserPromptSubmit hook' not in sub['turns'], 'and not the session context')
need(all(r['all'].count('<flame-context session=\\\\\"cc_') <= 1 for r in requests), 'the session context is added once')
"
  local tree
  tree=$(ctx -C "$project" frame tree --details)
  grep -q "Delegate the audit" <<<"$tree" || fail "the session's frame: $tree"
  local refund audit
  refund=$(frame_json "$project" --frame "$(ctx -C "$project" frame tree --json | field "[c['id'] for c in d['roots'][0]['children']][0]")")
  [[ $(field "d['frame']['goal'], d['frame']['status'], d['frame']['summary']" <<<"$refund") == "('Refund work', 'completed', 'Refunds done')" ]] \
    || fail "the pushed frame is popped by the model: $refund"
  audit=$(ctx -C "$project" frame tree --json | field "d['roots'][0]['children'][0]['children'][0]['id']")
  [[ $audit == cca_* ]] || fail "the subagent's frame id: $audit"
  [[ $(frame_json "$project" --frame "$audit" | field "d['frame']['goal'], d['frame']['status'], d['frame']['summary']") \
    == "('Audit refunds', 'completed', 'Refund audit: 3 issues found.')" ]] || fail "the subagent's frame: $(frame_json "$project" --frame "$audit")"
  local log=$project/.opencode/flame/logs/frame-$audit.md
  grep -q "^## Messages" "$log" && grep -q "AUDIT_REFUNDS_NOW" "$log" && grep -q "Refund audit: 3 issues found." "$log" \
    || fail "the subagent's transcript is in its log: $(cat "$log")"
  # Logs lose nothing: a tool's output is in the log of the frame it ran in, the subagent's from
  # its own transcript, the Bash-pushed frame's from the session's transcript between push and pop.
  grep -qx "SUB_OUTPUT_7" "$log" || fail "the subagent's tool output is in its log: $(cat "$log")"
  local refund_log=$project/.opencode/flame/logs/frame-$(field "d['frame']['id']" <<<"$refund").md
  grep -qx "REFUND_LIST_42" "$refund_log" && grep -q "Refund audit: 3 issues found." "$refund_log" \
    || fail "the Bash-pushed frame's span is in its log: $(cat "$refund_log")"
  ! grep -q "Delegate the audit" "$refund_log" || fail "and only its span: $(cat "$refund_log")"
}

scenario_parallel() {
  echo "scenario parallel: two subagents started side by side each get their own frame"
  local project requests
  project=$(new_project parallel)
  cat >"$work/parallel.json" <<'EOF'
[
 {"when": "Start two", "tool_calls": [
   {"name": "Agent", "arguments": {"description": "Audit refunds", "prompt": "AUDIT_REFUNDS_NOW", "subagent_type": "general-purpose", "run_in_background": false}},
   {"name": "Agent", "arguments": {"description": "Check invoices", "prompt": "CHECK_INVOICES_NOW", "subagent_type": "general-purpose", "run_in_background": false}}]},
 {"when": "AUDIT_REFUNDS_NOW", "reply": "Refunds: 3 issues.", "delay": 0.3},
 {"when": "CHECK_INVOICES_NOW", "reply": "Invoices: fine."},
 {"reply": "Both done."}
]
EOF
  requests=$(run parallel "$project" "$work/parallel.json" -- -p "Start two subagents")
  check "$requests" "parallel requests" "
a = first(lambda r: 'AUDIT_REFUNDS_NOW' in r['last_user'], 'the first subagent runs')
b = first(lambda r: 'CHECK_INVOICES_NOW' in r['last_user'], 'the second subagent runs')
# The other one may show as a completed sibling when it ended first: only the current frame tells.
need(current_goals(a) == ['Audit refunds'], 'the first sees its own frame')
need(current_goals(b) == ['Check invoices'], 'the second sees its own frame')
"
  local summaries
  summaries=$(ctx -C "$project" frame tree --json | field "sorted((c['goal'], c['status'], c['summary']) for c in d['roots'][0]['children'])")
  [[ $summaries == "[('Audit refunds', 'completed', 'Refunds: 3 issues.'), ('Check invoices', 'completed', 'Invoices: fine.')]" ]] \
    || fail "each subagent's frame has its own result: $summaries"
}

scenario_subagent_push() {
  echo "scenario subagent-push: a subagent's own ctx frame push lands under the subagent's frame"
  local project requests
  project=$(new_project subagent-push)
  cat >"$work/subagent-push.json" <<'EOF'
[
 {"when": "Delegate the migration", "tool_calls": [{"name": "Agent", "arguments": {"description": "Migrate refunds", "prompt": "MIGRATE_NOW", "subagent_type": "general-purpose", "run_in_background": false}}]},
 {"when": "MIGRATE_NOW", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame push -- 'Move the table'", "description": "push"}}]},
 {"when": "frame push", "tool_calls": [{"name": "Bash", "arguments": {"command": "printf 'TABLE_%s' MOVED", "description": "move"}}]},
 {"when": "TABLE_MOVED", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame pop --summary 'Table moved'", "description": "pop"}}]},
 {"when": "frame pop", "reply": "Migration done."},
 {"reply": "Done."}
]
EOF
  requests=$(run subagent-push "$project" "$work/subagent-push.json" -- -p "Delegate the migration")
  check "$requests" "subagent push" "
first(lambda r: 'TABLE_MOVED' in r['all'], 'the subagent runs its commands')
"
  local tree
  tree=$(ctx -C "$project" frame tree --json | field "[(c['goal'], c['status'], [(g['goal'], g['status'], g.get('summary')) for g in c['children']]) for c in d['roots'][0]['children']]")
  [[ $tree == "[('Migrate refunds', 'completed', [('Move the table', 'completed', 'Table moved')])]" ]] \
    || fail "the subagent's frame holds the frame it pushed: $tree"
  local pushed
  pushed=$(ctx -C "$project" frame tree --json | field "d['roots'][0]['children'][0]['children'][0]['id']")
  grep -qx TABLE_MOVED "$project/.opencode/flame/logs/frame-$pushed.md" \
    || fail "its log holds the subagent's transcript from push to pop: $(cat "$project/.opencode/flame/logs/frame-$pushed.md")"
}

scenario_background() {
  echo "scenario background: a background subagent (the default in -p mode) is a frame too"
  local project requests
  project=$(new_project background)
  cat >"$work/background.json" <<'EOF'
[
 {"when": "Scan in the background", "tool_calls": [{"name": "Agent", "arguments": {"description": "Scan logs", "prompt": "SCAN_LOGS_NOW", "subagent_type": "general-purpose"}}]},
 {"when": "<goal>Scan logs</goal>", "reply": "Logs scanned: nothing odd.", "delay": 0.5},
 {"when": "task-notification", "reply": "The scan is done."},
 {"reply": "Started the scan."}
]
EOF
  requests=$(run background "$project" "$work/background.json" -- -p "Scan in the background")
  check "$requests" "background requests" "
sub = first(lambda r: 'SCAN_LOGS_NOW' in r['last_user'], 'the subagent runs')
need('<goal>Scan logs</goal>' in sub['turns'], 'and sees its frame')
"
  local child
  child=$(ctx -C "$project" frame tree --json | field "[(c['goal'], c['status'], c['summary']) for c in d['roots'][0]['children']]")
  [[ $child == "[('Scan logs', 'completed', 'Logs scanned: nothing odd.')]" ]] || fail "the background subagent's frame: $child"
}

scenario_resume() {
  echo "scenario resume: unchanged frame context is not added again; changed context is"
  local project requests session
  project=$(new_project resume)
  echo '[{"reply": "First answer."}]' >"$work/resume1.json"
  SANDBOX=resume run resume1 "$project" "$work/resume1.json" -- -p "Plan the refunds work" >/dev/null
  session=$(session_of resume1)
  echo '[{"reply": "Second answer."}]' >"$work/resume2.json"
  requests=$(SANDBOX=resume run resume2 "$project" "$work/resume2.json" -- -p "Go on" --resume "$session")
  check "$requests" "resume, unchanged" "
last = requests[-1]
need('Go on' in last['all'], 'the resumed request')
need(last['all'].count('<flame-context') == 1, 'holds the frame context once')
"
  CTX_SESSION=cc_$session ctx -C "$project" -q frame push -- "Refund migration" >/dev/null
  echo '[{"reply": "Third answer."}]' >"$work/resume3.json"
  requests=$(SANDBOX=resume run resume3 "$project" "$work/resume3.json" -- -p "And now" --resume "$session")
  check "$requests" "resume, changed" "
last = requests[-1]
need(last['all'].count('<flame-context') == 2, 'the changed frame context is added again')
need('<goal>Refund migration</goal>' in last['turns'], 'with the new current frame')
"
}

scenario_compaction() {
  echo "scenario compaction: /compact gets the frame context; the summary lands on the frame"
  local project requests session
  project=$(new_project compaction)
  echo '[{"reply": "Noted."}]' >"$work/compaction1.json"
  SANDBOX=compaction run compaction1 "$project" "$work/compaction1.json" -- -p "Refactor the billing module" >/dev/null
  session=$(session_of compaction1)
  echo '[]' >"$work/compaction2.json"
  requests=$(SANDBOX=compaction run compaction2 "$project" "$work/compaction2.json" -- -p "/compact keep the frame ids" --resume "$session")
  check "$requests" "compaction request" "
c = first(lambda r: 'CRITICAL: Respond with TEXT ONLY' in r['all'], 'a compaction request')
need('<flame-context session=\"cc_$session' in c['last_user'], 'carries the frame context')
need('Flame frames: this session works in the frame tree' in c['last_user'], 'and what the summary must keep')
"
  [[ $(frame_json "$project" --frame "cc_$session" | field "d['frame']['summary']") == *"Mock summary of the conversation."* ]] \
    || fail "the compaction summary is on the frame: $(frame_json "$project" --frame "cc_$session")"
}

# plugin_install SANDBOX PROJECT: ctx's plugin installed into SANDBOX's Claude Code from this
# repository as a local marketplace, as a user installs it (user scope); the project's own
# .claude/ is left empty.
plugin_install() {
  "$here/claude-sandbox.sh" "$1" "$2" -- plugin marketplace add "$repo" >"$work/plugin-install.out" 2>&1 \
    && "$here/claude-sandbox.sh" "$1" "$2" -- plugin install ctx@ctxkit >>"$work/plugin-install.out" 2>&1 \
    || { cat "$work/plugin-install.out" >&2; fail "claude plugin marketplace add / install"; }
}

scenario_plugin() {
  echo "scenario plugin: the Claude Code plugin (claude plugin marketplace add + install) gives the same frames as ctx claude install"
  local project=$work/plugin
  mkdir -p "$project" && git -C "$project" init -q
  plugin_install "$work/sandbox-plugin" "$project"
  [[ ! -e $project/.claude/settings.json ]] || fail "plugin: the project's settings were written"
  subagent_session plugin "$project"

  echo "scenario plugin: without any ctx, a session says once how to install it and goes on"
  project=$work/plugin-no-ctx
  mkdir -p "$project" && git -C "$project" init -q
  plugin_install "$work/sandbox-plugin-no-ctx" "$project"
  local bare_path requests
  bare_path=$(tr ':' '\n' <<<"$PATH" | grep -vx "$ctx_dir" | grep -v '/\.cargo/bin$' | paste -sd:)
  PATH=$bare_path command -v ctx >/dev/null && fail "plugin: a ctx is on PATH without $ctx_dir"
  cat >"$work/plugin-no-ctx.json" <<'EOF'
[
 {"when": "Delegate the audit", "tool_calls": [{"name": "Agent", "arguments": {"description": "Audit refunds", "prompt": "AUDIT_REFUNDS_NOW", "subagent_type": "general-purpose", "run_in_background": false}}]},
 {"when": "AUDIT_REFUNDS_NOW", "reply": "Refund audit: 3 issues found."},
 {"reply": "Done."}
]
EOF
  requests=$(PATH=$bare_path run plugin-no-ctx "$project" "$work/plugin-no-ctx.json" -- -p "Delegate the audit")
  grep -q '"is_error":false' "$work/plugin-no-ctx.out" || fail "plugin without ctx: $(cat "$work/plugin-no-ctx.out")"
  check "$requests" "plugin without ctx" "
first(lambda r: 'AUDIT_REFUNDS_NOW' in r['last_user'], 'the subagent runs')
need(all('<flame-context' not in r['all'] for r in requests), 'no frame context without ctx')
"
  # What Claude Code shows the person: the hooks' system messages, recorded in the transcript.
  local said
  said=$(cat "$work"/sandbox-plugin-no-ctx/home/.claude/projects/*/*.jsonl | python3 -c '
import json, sys
shown = [json.loads(line)["attachment"]["content"] for line in sys.stdin
         if "\"hook_system_message\"" in line]
print(sum("ctx: no ctx binary for this plugin" in text and "npm i -g ctxkit" in text for text in shown))')
  [[ $said == 1 ]] || fail "plugin without ctx: the install hint was shown $said times"
}

scenario_without_ctx() {
  echo "scenario without-ctx: with ctx absent, and with a broken state file, every model call still works"
  local project requests
  project=$(new_project without-ctx)
  cat >"$work/without-ctx.json" <<'EOF'
[
 {"when": "Delegate the audit", "tool_calls": [{"name": "Agent", "arguments": {"description": "Audit refunds", "prompt": "AUDIT_REFUNDS_NOW", "subagent_type": "general-purpose", "run_in_background": false}}]},
 {"when": "AUDIT_REFUNDS_NOW", "reply": "Refund audit: 3 issues found."},
 {"reply": "Done."}
]
EOF
  requests=$(CTX_BIN=$work/no-such-ctx run without-ctx "$project" "$work/without-ctx.json" -- -p "Delegate the audit")
  check "$requests" "without ctx" "
first(lambda r: 'AUDIT_REFUNDS_NOW' in r['last_user'], 'the subagent runs')
need('Refund audit: 3 issues found' in requests[-1]['all'], 'and its result reaches the session')
need(all('<flame-context' not in r['all'] for r in requests), 'no frame context without ctx')
"
  grep -q '"result":"Done."' "$work/without-ctx.out" || fail "the run ends normally: $(cat "$work/without-ctx.out")"
  grep -q "exit 127 of ctx claude hook UserPromptSubmit" "$work/sandbox-without-ctx/home/.claude/ctx-hooks.log" \
    || fail "a missing ctx is logged: $(cat "$work/sandbox-without-ctx/home/.claude/ctx-hooks.log" 2>&1)"

  # Every other scenario's script, run again with ctx absent: each run still ends normally.
  local name prompt
  for name in subagent parallel subagent-push background commands1 typed-command headless1; do
    [[ -f $work/$name.json ]] || continue
    case $name in
      subagent) prompt="Delegate the audit" ;;
      parallel) prompt="Start two subagents" ;;
      subagent-push) prompt="Delegate the migration" ;;
      background) prompt="Scan in the background" ;;
      commands1) prompt="/push Refund work" ;;
      typed-command) prompt="/frame Check the invoices" ;;
      headless1) prompt="List the refunds" ;;
    esac
    project=$(new_project "without-ctx-$name")
    requests=$(CTX_BIN=$work/no-such-ctx run "without-ctx-$name" "$project" "$work/$name.json" -- -p "$prompt")
    grep -q '"is_error":false' "$work/without-ctx-$name.out" || fail "$name without ctx: $(cat "$work/without-ctx-$name.out")"
    check "$requests" "$name without ctx" "
need(len(requests) >= 2, 'the conversation goes on past the first request')
need(all('<flame-context' not in r['all'] for r in requests), 'no frame context without ctx')
"
  done

  project=$(new_project broken-state)
  mkdir -p "$project/.opencode/flame"
  printf '{"version": 1, "frames": ' >"$project/.opencode/flame/state.json"
  cp "$project/.opencode/flame/state.json" "$work/broken-state.json"
  requests=$(run broken-state "$project" "$work/without-ctx.json" -- -p "Delegate the audit")
  check "$requests" "broken state" "
first(lambda r: 'AUDIT_REFUNDS_NOW' in r['last_user'], 'the subagent runs')
need('Refund audit: 3 issues found' in requests[-1]['all'], 'and its result reaches the session')
"
  cmp -s "$project/.opencode/flame/state.json" "$work/broken-state.json" || fail "the broken state file is left as it was"
  grep -q "UserPromptSubmit session .*state.json" "$project/.opencode/flame/claude-hooks.log" \
    || fail "the broken state is logged: $(cat "$project/.opencode/flame/claude-hooks.log" 2>&1)"
}

scenario_commands() {
  echo "scenario commands: /push runs the goal as a fork frame; /pop pops through Bash"
  local project requests session
  project=$(new_project commands)
  cat >"$work/commands1.json" <<'EOF'
[
 {"when": "The goal: Refund work", "tool_calls": [{"name": "Agent", "arguments": {"description": "Refund work", "prompt": "REFUND_FORK_NOW: fix the refunds, then report", "subagent_type": "fork", "run_in_background": false}}]},
 {"when": "REFUND_FORK_NOW", "tool_calls": [{"name": "Bash", "arguments": {"command": "printf 'FORK_%s' OUT_1", "description": "one"}}]},
 {"when": "FORK_OUT_1", "tool_calls": [{"name": "Bash", "arguments": {"command": "printf 'FORK_%s' OUT_2", "description": "two"}}]},
 {"when": "FORK_OUT_2", "reply": "FORK_REPORT: 2 refunds fixed."},
 {"reply": "Pushed and done."}
]
EOF
  requests=$(SANDBOX=commands run commands1 "$project" "$work/commands1.json" -- -p "/push Refund work")
  session=$(session_of commands1)
  check "$requests" "/push as a fork" "
need('The goal: Refund work' in requests[0]['all'], 'the command file reaches the model with its argument')
fork = first(lambda r: 'REFUND_FORK_NOW' in r['last_user'] and 'SubagentStart hook' in r['turns'], 'the fork\\'s first request carries SubagentStart context')
# It inherits the parent's conversation, the session's context included; its own comes last.
need(current_goals(fork)[-1] == 'Refund work', 'its own frame')
need(fork['body']['messages'][0] == requests[0]['body']['messages'][0], 'and starts from the parent\\'s conversation')
after = first(lambda r: 'FORK_REPORT: 2 refunds fixed.' in r['all'] and 'SubagentStart hook' not in r['turns'], 'the parent gets the report')
need('FORK_OUT_1' not in after['all'] and 'FORK_OUT_2' not in after['all'], 'and none of the fork\\'s outputs')
"
  local child log
  child=$(ctx -C "$project" frame tree --json | field "[(c['goal'], c['status'], c['summary']) for c in d['roots'][0]['children']]")
  [[ $child == "[('Refund work', 'completed', 'FORK_REPORT: 2 refunds fixed.')]" ]] || fail "/push makes a fork frame: $child"
  log=$project/.opencode/flame/logs/frame-$(ctx -C "$project" frame tree --json | field "d['roots'][0]['children'][0]['id']").md
  grep -qx FORK_OUT_1 "$log" && grep -qx FORK_OUT_2 "$log" || fail "the fork frame's log holds both outputs: $(cat "$log")"
  # Cost: the fork's calls count toward its frame, and roll into the session, whose total equals
  # ccusage's.
  local claude=$work/sandbox-commands/home/.claude fork_id
  fork_id=$(ctx -C "$project" frame tree --json | field "d['roots'][0]['children'][0]['id']")
  ctx --json -C "$project" budget spent --by frame --source "$claude/projects" | python3 -c "
import json, sys
rows = {r['key']: r for r in json.load(sys.stdin)['rows']}
fork = rows['$fork_id']
assert fork['total']['tokens']['total'] > 0 and fork['parent'] == 'cc_$session', fork
assert rows['cc_$session']['total']['tokens']['total'] > fork['total']['tokens']['total'], rows
" || fail "the fork frame's cost rolls into its session"
  local ccusage=${CCUSAGE_DIR:-$HOME/.cache/ctx-ccusage}/node_modules/.bin/ccusage ours theirs
  if [[ -x $ccusage ]]; then
    ours=$(ctx --json budget spent --by session --source "$claude/projects" | field "[r['total']['tokens']['total'] for r in d['rows'] if r['key'] == 'cc_$session']")
    theirs=$(CLAUDE_CONFIG_DIR=$claude "$ccusage" session --json --offline | field "[s['totalTokens'] for s in d['session']]")
    [[ $ours == "$theirs" ]] || fail "the session's total equals ccusage's: $ours vs $theirs"
  fi

  CTX_SESSION=cc_$session ctx -C "$project" -q frame push -- "Invoice work" >/dev/null
  cat >"$work/commands2.json" <<'EOF'
[
 {"when": "ctx frame pop --summary", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame pop --summary 'Invoices done'", "description": "pop"}}]},
 {"reply": "Popped."}
]
EOF
  SANDBOX=commands run commands2 "$project" "$work/commands2.json" -- -p "/pop Invoices done" --resume "$session" >/dev/null
  child=$(ctx -C "$project" frame tree --json | field "[(c['goal'], c['status'], c['summary']) for c in d['roots'][0]['children']]")
  [[ $child == "[('Refund work', 'completed', 'FORK_REPORT: 2 refunds fixed.'), ('Invoice work', 'completed', 'Invoices done')]" ]] || fail "/pop: $child"
}

# totals DIR: per session, the token figures `ctx budget spent` and ccusage give for the Claude
# Code folder DIR (ccusage only when ccusage 20.0.24 is installed where the Rust tests find it).
totals() {
  ctx --json budget spent --by session --source "$1/projects" \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print(sorted((r['key'], r['total']['tokens']['total']) for r in d['rows']))"
  local ccusage=${CCUSAGE_DIR:-$HOME/.cache/ctx-ccusage}/node_modules/.bin/ccusage
  if [[ -x $ccusage ]]; then
    CLAUDE_CONFIG_DIR=$1 "$ccusage" session --json --offline \
      | python3 -c "import json,sys; d=json.load(sys.stdin); print(sorted((s['period'], s['totalTokens']) for s in d['session']))"
  else
    echo "(no ccusage 20.0.24 to compare with)"
  fi
}

scenario_headless_continue() {
  echo "scenario headless-continue: after a Bash push (in the call of the frame's first command) and pop (in the call of the next), --continue sends the frame folded"
  local project requests session
  project=$(new_project headless)
  # The push shares its call with the frame's first command, and the pop with the command after
  # the frame, as the session's context tells the model to: the fold takes the push's call out with
  # the frame (the log keeps its output) and keeps what the command after the pop printed.
  cat >"$work/headless1.json" <<'EOF'
[
 {"when": "List the refunds", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame push -- 'Refund work' && { head -c 20000 /dev/zero | tr '\\0' a; printf 'OUT_%s_END' A; }", "description": "push, a"}}]},
 {"when": "OUT_A_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "head -c 20000 /dev/zero | tr '\\0' b; printf 'OUT_%s_END' B", "description": "b"}}]},
 {"when": "OUT_B_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame pop --summary 'REFUNDS_LISTED: 2 lists' && printf 'AFTER_%s_END' POP", "description": "pop, then the next command"}}]},
 {"reply": "Done."}
]
EOF
  SANDBOX=headless run headless1 "$project" "$work/headless1.json" -- -p "List the refunds" >/dev/null
  session=$(session_of headless1)
  local claude=$work/sandbox-headless/home/.claude transcript kept frame
  transcript=$(ls "$claude"/projects/*/"$session.jsonl")
  kept=$(ls "${transcript%.jsonl}"/ctx-fold-*.jsonl 2>/dev/null | head -1)
  [[ -n $kept ]] || fail "the original transcript is kept: $(ls -R "$claude/projects"; cat "$project/.opencode/flame/claude-hooks.log" 2>&1)"
  grep -q OUT_A_END "$kept" && grep -q OUT_B_END "$kept" || fail "the kept original holds the outputs"
  ! grep -q OUT_A_END "$transcript" || fail "the transcript is folded"
  frame=$(ctx -C "$project" frame tree --json | field "d['roots'][0]['children'][0]['id']")
  grep -q OUT_A_END "$project/.opencode/flame/logs/frame-$frame.md" && grep -q OUT_B_END "$project/.opencode/flame/logs/frame-$frame.md" \
    || fail "the frame's log holds both outputs: $(cat "$project/.opencode/flame/logs/frame-$frame.md")"
  # Cost stays right: the same per-session totals on the original alone as on the folded folder.
  local before=$work/headless-before
  mkdir -p "$before/projects/p"
  cp "$kept" "$before/projects/p/$session.jsonl"
  [[ $(totals "$before") == "$(totals "$claude")" ]] \
    || fail "the same totals before and after the fold: $(totals "$before") vs $(totals "$claude")"
  echo "  totals before and after the fold: $(totals "$claude" | tr '\n' ' ')"
  [[ $(ls "$(dirname "$transcript")"/*.jsonl | wc -l) == 1 ]] || fail "one session in the project's folder"

  echo '[{"reply": "Continued."}]' >"$work/headless2.json"
  requests=$(SANDBOX=headless run headless2 "$project" "$work/headless2.json" -- -p "Go on" --continue)
  check "$requests" "headless continue" "
r = requests[0]
need('Go on' in r['all'], 'the continued request')
need('REFUNDS_LISTED: 2 lists' in r['all'], 'carries the summary')
need('AFTER_POP_END' in r['all'], 'and what the command in the pop\'s call printed')
need('OUT_A_END' not in r['all'] and 'OUT_B_END' not in r['all'] and 'a' * 1000 not in r['all'], 'and none of the outputs')
"
  grep -q '"is_error":false' "$work/headless2.out" || fail "the continued run ends normally: $(cat "$work/headless2.out")"
}

scenario_left_alone() {
  echo "scenario left-alone: a transcript of an unknown shape, and a broken state file, are not rewritten"
  local project session claude transcript
  [[ -f $work/headless1.json ]] || scenario_headless_continue
  project=$(new_project left-alone)
  SANDBOX=left-alone run left-alone1 "$project" "$work/headless1.json" -- -p "List the refunds" >/dev/null
  session=$(session_of left-alone1)
  claude=$work/sandbox-left-alone/home/.claude
  transcript=$(ls "$claude"/projects/*/"$session.jsonl")
  # An unknown shape (a line that is not JSON) when the next run ends: left as it is, and logged.
  printf '{"type":"assis\n' >>"$transcript"
  cp "$transcript" "$work/left-alone.jsonl"
  echo '[{"reply": "Continued."}]' >"$work/left-alone2.json"
  SANDBOX=left-alone run left-alone2 "$project" "$work/left-alone2.json" -- -p "Go on" --resume "$session" >/dev/null
  head -c "$(stat -c %s "$work/left-alone.jsonl")" "$transcript" | cmp -s - "$work/left-alone.jsonl" \
    || fail "the transcript of an unknown shape is left as it was"
  grep -q "SessionEnd session $session: transcript .* left as it is: line .* is not a JSON object" "$project/.opencode/flame/claude-hooks.log" \
    || fail "and the reason is logged: $(cat "$project/.opencode/flame/claude-hooks.log" 2>&1)"

  project=$(new_project left-alone-state)
  mkdir -p "$project/.opencode/flame"
  printf '{"version": 1, "frames": ' >"$project/.opencode/flame/state.json"
  # The push on its own, since it fails on the broken state file: the outputs are made all the same.
  cat >"$work/left-alone-state.json" <<'EOF'
[
 {"when": "List the refunds", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame push -- 'Refund work'", "description": "push"}}]},
 {"when": "frame push", "tool_calls": [{"name": "Bash", "arguments": {"command": "head -c 20000 /dev/zero | tr '\\0' a; printf 'OUT_%s_END' A", "description": "a"}}]},
 {"when": "OUT_A_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame pop --summary 'REFUNDS_LISTED: 1 list'", "description": "pop"}}]},
 {"reply": "Done."}
]
EOF
  run left-alone-state "$project" "$work/left-alone-state.json" -- -p "List the refunds" >/dev/null
  session=$(session_of left-alone-state)
  ! ls "$work"/sandbox-left-alone-state/home/.claude/projects/*/"$session"/ctx-fold-*.jsonl >/dev/null 2>&1 \
    || fail "a session whose state file is broken is not folded"
  grep -q "OUT_A_END" "$work"/sandbox-left-alone-state/home/.claude/projects/*/"$session.jsonl" \
    || fail "and its transcript keeps everything"
}

scenario_typed_command() {
  echo "scenario typed-command: /frame <goal> runs a forked worker in its own frame, no main-model turn"
  local project requests
  project=$(new_project typed-command)
  [[ -f $project/.claude/agents/ctx-frame.md ]] || fail "the install writes the agent the command runs"
  cat >"$work/typed-command.json" <<'EOF'
[
 {"when": "Check the invoices", "tool_calls": [{"name": "Bash", "arguments": {"command": "printf 'TYPED_%s' OUT", "description": "one"}}]},
 {"when": "TYPED_OUT", "reply": "TYPED_REPORT: invoices fine."},
 {"reply": "Main."}
]
EOF
  requests=$(run typed-command "$project" "$work/typed-command.json" -- -p "/frame Check the invoices")
  check "$requests" "typed command" "
w = first(lambda r: 'SubagentStart hook' in r['turns'], 'the worker\\'s first request carries its frame context')
need(current_goals(w)[-1] == 'Check the invoices', 'its own frame (after the session\\'s), the goal typed')
need(all('Main.' not in r['all'] for r in requests), 'no main-model turn')
"
  local child log
  child=$(ctx -C "$project" frame tree --json | field "[(c['goal'], c['status'], c['summary']) for c in d['roots'][0]['children']]")
  [[ $child == "[('Check the invoices', 'completed', 'TYPED_REPORT: invoices fine.')]" ]] || fail "the typed command's frame: $child"
  log=$project/.opencode/flame/logs/frame-$(ctx -C "$project" frame tree --json | field "d['roots'][0]['children'][0]['id']").md
  grep -qx TYPED_OUT "$log" || fail "its log holds its output: $(cat "$log")"
}

scenario_settings() {
  echo "scenario settings: the user's own hooks (one naming ctx's) and settings survive install, a second install and remove"
  local project=$work/settings
  mkdir -p "$project/.claude"
  git -C "$project" init -q
  cat >"$project/.claude/settings.json" <<EOF
{
  "env": {
    "MY_SETTING": "kept"
  },
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "touch $work/user-hook-ran"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "echo 'ctx claude hook finished' >>$work/user-stop-hook-ran"
          }
        ]
      }
    ]
  }
}
EOF
  cp "$project/.claude/settings.json" "$work/settings.orig"
  ctx -C "$project" -q claude install >/dev/null || fail "install over the user's settings"
  cp "$project/.claude/settings.json" "$work/settings.installed"
  ctx -C "$project" -q claude install >/dev/null || fail "a second install"
  cmp "$project/.claude/settings.json" "$work/settings.installed" || fail "a second install changes nothing"
  echo '[{"reply": "Fine."}]' >"$work/settings.json"
  local requests
  requests=$(run settings "$project" "$work/settings.json" -- -p "Check the settings")
  [[ -f $work/user-hook-ran ]] || fail "the user's hook still runs"
  grep -q "ctx claude hook finished" "$work/user-stop-hook-ran" || fail "and so does the one that names ctx's hook"
  check "$requests" "settings" "
need('<flame-context' in requests[0]['turns'], 'and so do ctx\\'s')
"
  ctx -C "$project" -q claude install --remove >/dev/null || fail "remove"
  cmp "$project/.claude/settings.json" "$work/settings.orig" || fail "remove gives back the user's file"
  [[ ! -e $project/.claude/commands/push.md ]] || fail "remove takes the slash commands out"
}

scenario_auto_turns() {
  echo "scenario auto_turns: with frame.auto = turns and a model that never calls ctx, each person's turn is a frame, and --continue sends finished turns without their outputs"
  local project requests session claude transcript turns first log
  project=$(new_project auto-turns)
  mkdir -p "$project/.opencode"
  printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  # Two processes of a loop driver, each one person's turn: a short command, a long one, an answer.
  cat >"$work/auto-turns1.json" <<'EOF'
[
 {"when": "Audit the refunds", "tool_calls": [{"name": "Bash", "arguments": {"command": "printf 'SHORT_%s_END' ONE", "description": "short"}}]},
 {"when": "SHORT_ONE_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "head -c 20000 /dev/zero | tr '\\0' a; printf 'LONG_%s_END' ONE", "description": "long"}}]},
 {"reply": "REFUNDS_AUDITED: 2 issues."}
]
EOF
  cat >"$work/auto-turns2.json" <<'EOF'
[
 {"when": "Now the invoices", "tool_calls": [{"name": "Bash", "arguments": {"command": "printf 'SHORT_%s_END' TWO", "description": "short"}}]},
 {"when": "SHORT_TWO_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "head -c 20000 /dev/zero | tr '\\0' b; printf 'LONG_%s_END' TWO", "description": "long"}}]},
 {"reply": "INVOICES_CHECKED: fine."}
]
EOF
  SANDBOX=auto-turns run auto-turns1 "$project" "$work/auto-turns1.json" -- -p "Audit the refunds" >/dev/null
  session=$(session_of auto-turns1)
  SANDBOX=auto-turns run auto-turns2 "$project" "$work/auto-turns2.json" -- -p "Now the invoices" --continue >/dev/null
  echo '[{"reply": "Continued."}]' >"$work/auto-turns3.json"
  requests=$(SANDBOX=auto-turns run auto-turns3 "$project" "$work/auto-turns3.json" -- -p "Go on" --continue)
  turns=$(ctx -C "$project" frame tree --json | field "[(c['goal'], c['status'], c['summary']) for c in d['roots'][0]['children']]")
  [[ $turns == "[('Audit the refunds', 'completed', 'REFUNDS_AUDITED: 2 issues.'), ('Now the invoices', 'completed', 'INVOICES_CHECKED: fine.'), ('Go on', 'completed', 'Continued.')]" ]] \
    || fail "each person's turn is a frame, closed with its answer: $turns"
  check "$requests" "auto_turns continue" "
r = requests[0]
need('Go on' in r['all'], 'the continued request')
for kept in ('Audit the refunds', 'REFUNDS_AUDITED: 2 issues.', 'Now the invoices', 'INVOICES_CHECKED: fine.'):
    need(kept in r['all'], 'keeps ' + kept)
need('LONG_ONE_END' not in r['all'] and 'LONG_TWO_END' not in r['all'] and 'a' * 1000 not in r['all'], 'and none of the finished turns\' long outputs')
need('ctx frame log' in r['all'], 'the fold entry names the recall')
"
  claude=$work/sandbox-auto-turns/home/.claude
  transcript=$(ls "$claude"/projects/*/"$session.jsonl")
  python3 - "$transcript" <<'PY' || fail "the folded transcript pairs every call with its result and chains every kept line"
import json, sys
records = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
uuids = {r['uuid'] for r in records if 'uuid' in r}
calls, results = set(), set()
for r in records:
    parent = r.get('parentUuid')
    assert parent is None or parent in uuids, ('a dropped parent', parent)
    content = (r.get('message') or {}).get('content')
    for block in content if isinstance(content, list) else []:
        if block.get('type') == 'tool_use': calls.add(block['id'])
        if block.get('type') == 'tool_result': results.add(block['tool_use_id'])
assert calls == results, (calls, results)
PY
  first=$(ctx -C "$project" frame tree --json | field "d['roots'][0]['children'][0]['id']")
  # Kept whole, so that a failure shows what the log held.
  log=$(ctx -C "$project" frame log "$first")
  [[ $log == *LONG_ONE_END* ]] || fail "ctx frame log gives the first turn's outputs back: $(head -c 2000 <<<"$log")"
}

scenario_auto_tasks() {
  echo "scenario auto_tasks: with the task tools turned on and frame.auto = all, a task in progress is a frame in its turn, closed by its update, folded with the turn for --continue"
  local project requests tree turn task log
  project=$(new_project auto-tasks)
  mkdir -p "$project/.opencode"
  printf '[frame]\nauto = "all"\n' >"$project/.opencode/ctx.toml"
  # The user turns the task tools on (ctx never does); ctx's hooks stay as installed.
  python3 - "$project/.claude/settings.json" <<'PY'
import json, sys
path = sys.argv[1]
settings = json.load(open(path))
settings["env"] = {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}
json.dump(settings, open(path, "w"), indent=2)
PY
  cat >"$work/auto-tasks1.json" <<'EOF'
[
 {"when": "Migrate the modules", "tool_calls": [{"name": "TaskCreate", "arguments": {"subject": "Migrate module m1", "description": "Move m1 to the new API", "activeForm": "Migrating m1"}}]},
 {"when": "tool_result", "tool_calls": [{"name": "TaskUpdate", "arguments": {"taskId": "1", "status": "in_progress"}}]},
 {"when": "Updated task #1", "tool_calls": [{"name": "Bash", "arguments": {"command": "head -c 20000 /dev/zero | tr '\\0' m; printf 'LONG_%s_END' M1", "description": "long"}}]},
 {"when": "LONG_M1_END", "tool_calls": [{"name": "TaskUpdate", "arguments": {"taskId": "1", "status": "completed"}}]},
 {"when": "LONG_M1_END", "reply": "TASKS_DONE: m1 migrated."}
]
EOF
  echo '[{"reply": "Continued."}]' >"$work/auto-tasks2.json"
  SANDBOX=auto-tasks run auto-tasks1 "$project" "$work/auto-tasks1.json" -- -p "Migrate the modules" >/dev/null
  requests=$(SANDBOX=auto-tasks run auto-tasks2 "$project" "$work/auto-tasks2.json" -- -p "Go on" --continue)
  tree=$(ctx -C "$project" frame tree --json)
  [[ $(field "[(c['goal'], c['status']) for c in d['roots'][0]['children'][0]['children']]" <<<"$tree") == "[('Migrate module m1', 'completed')]" ]] \
    || fail "the task in progress was a frame in its turn, closed completed: $(ctx -C "$project" frame tree; cat "$project/.opencode/flame/claude-hooks.log" 2>/dev/null)"
  turn=$(field "d['roots'][0]['children'][0]['id']" <<<"$tree")
  task=$(field "d['roots'][0]['children'][0]['children'][0]['id']" <<<"$tree")
  log=$(ctx -C "$project" frame log "$task")
  [[ $log == *LONG_M1_END* ]] || fail "the task's log holds its output: $(head -c 2000 <<<"$log")"
  check "$requests" "auto_tasks continue" "
r = requests[0]
need('Go on' in r['all'], 'the continued request')
need('LONG_M1_END' not in r['all'] and 'm' * 1000 not in r['all'], 'the task\\'s output is not sent')
need('ctx frame log $turn' in r['all'], 'the fold entry names the turn the task folded with')
need('TASKS_DONE: m1 migrated.' in r['all'], 'the answer is sent whole')
"
  [[ ! -s $project/.opencode/flame/claude-hooks.log ]] || fail "no hook failed: $(cat "$project/.opencode/flame/claude-hooks.log")"
}

all=(subagent parallel subagent_push background resume compaction commands typed_command headless_continue left_alone without_ctx settings plugin auto_turns auto_tasks)
chosen=("${@:-${all[@]}}")
for name in "${chosen[@]}"; do "scenario_${name//-/_}"; done
echo "ok: ${chosen[*]}"

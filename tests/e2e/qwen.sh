#!/usr/bin/env bash
# End-to-end tests with the real Qwen Code: builds ctx, installs ctx's hooks into temporary projects with
# `ctx qwen install` (nothing copied by hand), runs Qwen Code (npm @qwen-code/qwen-code, installed on first use
# by qwen-sandbox.sh) against the stand-in chat completions API of mock-llm.py in strict mode, scripted with
# shell and agent calls, and checks the frame tree on disk and, in the request log, what the model was sent.
#
#   tests/e2e/qwen.sh [SCENARIO...]      (default: all; names below, e.g. `subagent`)
#
# Needs cargo, node/npm (to install Qwen Code) and python3. MOCK_PORT picks the stand-in's port.
set -euo pipefail
source "$(dirname "$0")/lib.sh" qwen
# Qwen Code finds ctx's hooks' `ctx` on its PATH, and so does the model's shell.
export PATH=$ctx_dir:$PATH
export MOCK_PORT=${MOCK_PORT:-47611}

# A fresh project with ctx's hooks, as a user installs them (lib.sh).
new_project() { hooks_project "$1" qwen; }

# run NAME PROJECT SCRIPT -- QWEN-ARGS: one Qwen Code run (lib.sh's sandbox_run); its HOME is
# $work/sandbox-$SANDBOX (default: NAME), so that a later run with the same SANDBOX can continue its sessions.
run() { sandbox_run "$here/qwen-sandbox.sh" "$@"; }

# check REQUESTS WHAT PYTHON: the checks in PYTHON over the request log as "chat" views (lib.sh).
check() { request_check chat "$@"; }

# The push and pop the model runs in its shell, as ctx's frame context tells it to.
session_arg='--session "qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}"'
shell_call() {
  python3 -c 'import json,sys; print(json.dumps({"name": "run_shell_command", "arguments": {"command": sys.argv[1]}}))' "$1"
}
root_id() { ctx -C "$1" frame tree --json | field 'd["roots"][0]["id"]'; }

scenario_settings() {
  echo "scenario settings: the user's own hooks stay and run beside ctx's; a second install changes nothing; remove gives the file back"
  local project before
  project=$work/settings
  mkdir -p "$project/.qwen"
  git -C "$project" init -q
  # "$version" as Qwen Code writes it into a settings file it reads (it adds the key when it is not there).
  cat >"$project/.qwen/settings.json" <<'EOF'
{
  "$version": 4,
  "tools": {"todoWrite": {"enabled": false}},
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "touch user-stop-hook-ran; echo 'ctx qwen hook Stop' >/dev/null"}]}
    ]
  }
}
EOF
  before=$(cat "$project/.qwen/settings.json")
  ctx -C "$project" -q qwen install >/dev/null || fail "settings: install"
  cp "$project/.qwen/settings.json" "$work/settings.installed"
  ctx -C "$project" -q qwen install >/dev/null || fail "settings: a second install"
  cmp -s "$project/.qwen/settings.json" "$work/settings.installed" || fail "settings: a second install changed the file"
  echo '[{"tools": true, "reply": "Nothing to do."}]' >"$work/settings.json"
  run settings "$project" "$work/settings.json" -- -p "Say hello" >/dev/null
  [[ -f $project/user-stop-hook-ran ]] || fail "settings: the user's own Stop hook did not run"
  [[ -f $project/.opencode/flame/state.json ]] || fail "settings: ctx's hooks did not run"
  ctx -C "$project" -q qwen install --remove >/dev/null || fail "settings: remove"
  [[ $(cat "$project/.qwen/settings.json") == "$before" ]] || fail "settings: remove did not give the file back"
}

scenario_context() {
  echo "scenario context: a prompt gets the session's frame and its context, in a form Qwen's escaping leaves readable; the prompt Qwen sends after a tool batch gets nothing"
  local project requests session
  project=$(new_project context)
  cat >"$work/context.json" <<EOF
[{"tools": true, "when": "Fix the refunds", "tool_calls": [$(shell_call "echo listed")]},
 {"tools": true, "when": "listed", "reply": "Refunds fixed."}]
EOF
  requests=$(run context "$project" "$work/context.json" -- -p "Fix the refunds")
  session=$(root_id "$project")
  [[ $session == qw_* ]] || fail "context: the session's frame is $session"
  [[ $(frame_json "$project" --frame "$session" | field 'd["frame"]["goal"]') == "Fix the refunds" ]] || fail "context: goal"
  check "$requests" "context" "
r = first(lambda r: 'Fix the refunds' in r['texts'], 'the first request')
need('[flame-context session=\"$session\"]' in r['texts'], 'the frame context, its tags in brackets')
need('[goal]Fix the refunds[/goal]' in r['texts'], 'with the session goal')
need('qw_\${QWEN_CODE_AGENT_ID:-\$QWEN_CODE_SESSION_ID}' in r['texts'], 'and the commands for the shell')
need('&lt;flame-context' not in r['all'], 'nothing of it escaped')
last = requests[-1]
need(sum('flame-context' in text(m) for m in last['messages']) == 1, 'one context in the last request: none after the tool batch')
"
}

scenario_push_pop() {
  echo "scenario push_pop: the model pushes and pops a frame of its own session from its shell"
  local project session child
  project=$(new_project push-pop)
  cat >"$work/push-pop.json" <<EOF
[{"tools": true, "when": "Write the migration", "tool_calls": [$(shell_call "ctx frame push $session_arg -- 'Write the fix' && echo pushed")]},
 {"tools": true, "when": "pushed", "tool_calls": [$(shell_call "ctx frame pop $session_arg --summary 'Fix written and tested' && echo popped")]},
 {"tools": true, "when": "popped", "reply": "Done."}]
EOF
  run push-pop "$project" "$work/push-pop.json" -- -p "Write the migration" >/dev/null
  session=$(root_id "$project")
  child=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["goal"]') == "Write the fix" ]] || fail "push_pop: the pushed frame's goal"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["status"]') == completed ]] || fail "push_pop: not popped"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["summary"]') == "Fix written and tested" ]] || fail "push_pop: summary"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["parent"]') == "$session" ]] || fail "push_pop: not below the session"
}

scenario_subagent() {
  echo "scenario subagent: an agent call gets a frame below the session's, which its own shell pushes below, popped with its report; budget spent equals Qwen's own totals"
  local project sub grandchild
  project=$(new_project subagent)
  cat >"$work/subagent.json" <<EOF
[{"tools": true, "when": "Delegate the audit", "tool_calls": [{"name": "agent", "arguments": {"description": "Audit refunds", "prompt": "Audit the refund code", "subagent_type": "general-purpose", "run_in_background": false}}]},
 {"tools": true, "when": "Audit the refund code", "tool_calls": [$(shell_call "ctx frame push $session_arg -- 'Check one refund' && echo sub-pushed")]},
 {"tools": true, "when": "sub-pushed", "tool_calls": [$(shell_call "ctx frame pop $session_arg --summary 'One refund checked' && echo sub-popped")]},
 {"tools": true, "when": "sub-popped", "reply": "Audit done: 2 bugs."},
 {"tools": true, "when": "2 bugs", "reply": "Delegated."}]
EOF
  run subagent "$project" "$work/subagent.json" -- -p "Delegate the audit" >/dev/null
  sub=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $sub == qw_general-purpose-* ]] || fail "subagent: the subagent's frame is $sub"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["goal"]') == "Audit refunds" ]] || fail "subagent: goal"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["status"]') == completed ]] || fail "subagent: not popped"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["summary"]') == "Audit done: 2 bugs." ]] || fail "subagent: summary"
  grandchild=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["children"][0]["goal"]')
  [[ $grandchild == "Check one refund" ]] || fail "subagent: the subagent's own push is not below its frame: $grandchild"
  # What the work cost, as ctx reads Qwen's ledger, against Qwen's own totals of the session.
  python3 - "$work/sandbox-subagent/home/.qwen" "$(root_id "$project")" <<'PY' || fail "subagent: budget spent differs from Qwen's usage_record.jsonl"
import json, subprocess, sys
home, session = sys.argv[1], sys.argv[2]
totals = {}
for line in open(home + "/usage_record.jsonl"):
    record = json.loads(line)
    totals["qw_" + record["sessionId"]] = record["models"]["mock-1"]
out = subprocess.run(["ctx", "budget", "spent", "--source", home, "--json", "--by", "session"],
                     capture_output=True, text=True, check=True)
doc = json.loads(out.stdout)
row = next(r for r in doc["rows"] if r["key"] == session)
qwen = totals[session]
tokens = row["total"]["tokens"]
assert row["total"]["calls"] == qwen["requests"], (row["total"]["calls"], qwen)
assert tokens["total"] == qwen["totalTokens"], (tokens, qwen)
assert tokens["input"] + tokens["cache_read"] == qwen["inputTokens"], (tokens, qwen)
print(f"  budget spent: {row['total']['calls']} calls, {tokens['total']} tokens; Qwen's usage_record: {qwen['requests']}, {qwen['totalTokens']}")
PY
}

scenario_resume() {
  echo "scenario resume: a frame pushed and popped in the shell is sent folded by the next --continue; the session file keeps every line"
  local project requests file
  project=$(new_project resume)
  cat >"$work/resume-1.json" <<EOF
[{"tools": true, "when": "Start the refunds", "tool_calls": [$(shell_call "ctx frame push $session_arg -- 'List the refunds' && echo pushed")]},
 {"tools": true, "when": "pushed", "tool_calls": [$(shell_call "python3 -c \"print(' '.join('BULK-%d' % i for i in range(2000)))\"")]},
 {"tools": true, "when": "BULK-1999", "tool_calls": [$(shell_call "ctx frame pop $session_arg --summary 'Refunds listed: 12 pending' && echo popped")]},
 {"tools": true, "when": "popped", "reply": "Listed."}]
EOF
  SANDBOX=resume run resume-1 "$project" "$work/resume-1.json" -- -p "Start the refunds" >/dev/null
  echo '[{"tools": true, "when": "Next step", "reply": "Next."}]' >"$work/resume-2.json"
  requests=$(SANDBOX=resume run resume-2 "$project" "$work/resume-2.json" -- --continue -p "Next step")
  file=$(find "$work/sandbox-resume/home/.qwen/projects" -path '*/chats/*.jsonl' | head -1)
  # On a failure: what the hooks logged, and the session file's records (type, own and parent id).
  local diagnosis
  diagnosis="hook log: $(cat "$project/.opencode/flame/qwen-hooks.log" 2>/dev/null); records: $(python3 -c '
import json, sys
print(" ".join("%s/%s:%s<%s" % (r["type"], r.get("subtype") or "", r["uuid"][:4], (r.get("parentUuid") or "")[:4])
               for r in map(json.loads, open(sys.argv[1]))))' "$file")"
  check "$requests" "resume ($diagnosis)" "
r = first(lambda r: 'Next step' in r['texts'], 'the resumed request')
need('BULK-7 BULK-8' not in r['all'], 'the popped frame\\'s output is folded out')
need('frame-' in r['texts'] and 'Refunds listed: 12 pending' in r['texts'], 'its summary and log are the pop\\'s result')
need('Start the refunds' in r['texts'], 'the first prompt stays')
"
  grep -q 'BULK-7 BULK-8' "$file" || fail "resume: the session file lost the frame's output"
  grep -q '"subtype":"chat_compression"' "$file" || fail "resume: no compression record"
  grep -q 'BULK-7 BULK-8' "$project"/.opencode/flame/logs/frame-fr_*.md || fail "resume: the frame's log lacks what the fold took out"
}

scenario_compaction() {
  echo "scenario compaction: /compress sends the frame context with what the summary must keep, and the summary is recorded on the current frame"
  local project requests session
  project=$(new_project compaction)
  echo '[{"tools": true, "when": "Start the refunds", "reply": "Started."}]' >"$work/compaction-1.json"
  SANDBOX=compaction run compaction-1 "$project" "$work/compaction-1.json" -- -p "Start the refunds" >/dev/null
  echo '[{"tools": false, "when": "state_snapshot", "reply": "<state_snapshot>Refunds started; the ledger is next.</state_snapshot>"}]' >"$work/compaction-2.json"
  requests=$(SANDBOX=compaction run compaction-2 "$project" "$work/compaction-2.json" -- --continue -p "/compress")
  session=$(root_id "$project")
  check "$requests" "compaction" "
r = first(lambda r: not r['tools'] and 'state_snapshot' in r['all'], 'the compaction request')
need('[current-frame id=\"$session\"' in r['texts'], 'the current frame in the compaction request')
need('Keep in your summary, verbatim, the id of the current frame' in r['texts'], 'with what the summary must keep')
"
  frame_json "$project" --frame "$session" | field 'd["frame"]["summary"]' | grep -q "the ledger is next" \
    || fail "compaction: the summary is not on the session's frame"
}

scenario_auto_turns() {
  echo "scenario auto_turns: with frame.auto = turns, a prompt opens a turn frame and Stop closes it with the answer"
  local project turn
  project=$(new_project auto-turns)
  mkdir -p "$project/.opencode" && printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  cat >"$work/auto-turns.json" <<EOF
[{"tools": true, "when": "Migrate module m1", "tool_calls": [$(shell_call "echo migrated")]},
 {"tools": true, "when": "migrated", "reply": "Module m1 migrated."}]
EOF
  run auto-turns "$project" "$work/auto-turns.json" -- -p "Migrate module m1" >/dev/null
  turn=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(field "d['frames']['$turn'].get('auto')" <"$project/.opencode/flame/state.json") == turn ]] \
    || fail "auto_turns: no turn frame: $(ctx -C "$project" frame tree)"
  [[ $(frame_json "$project" --frame "$turn" | field 'd["frame"]["status"]') == completed ]] || fail "auto_turns: the turn is not closed"
  [[ $(frame_json "$project" --frame "$turn" | field 'd["frame"]["summary"]') == "Module m1 migrated." ]] || fail "auto_turns: summary"
}

scenario_without_ctx() {
  echo "scenario without_ctx: with ctx on no PATH, Qwen Code still answers, and the hooks' shell logs why"
  local project
  project=$(new_project without-ctx)
  echo '[{"tools": true, "reply": "Answered without ctx."}]' >"$work/without-ctx.json"
  PATH=$(tr ':' '\n' <<<"$PATH" | grep -vx "$ctx_dir" | paste -sd:) \
    run without-ctx "$project" "$work/without-ctx.json" -- -p "Anything" >/dev/null
  grep -q "Answered without ctx." "$work/without-ctx.out" || fail "without_ctx: no answer"
  grep -q "of ctx qwen hook UserPromptSubmit" "$work/sandbox-without-ctx/home/.qwen/ctx-hooks.log" \
    || fail "without_ctx: no line in ~/.qwen/ctx-hooks.log"
}

scenario_broken_state() {
  echo "scenario broken_state: a broken state.json is left as it is, logged, and Qwen Code answers"
  local project
  project=$(new_project broken-state)
  mkdir -p "$project/.opencode/flame"
  printf '{"frames": {' >"$project/.opencode/flame/state.json"
  echo '[{"tools": true, "reply": "Answered."}]' >"$work/broken-state.json"
  run broken-state "$project" "$work/broken-state.json" -- -p "Start the refund work" >/dev/null
  grep -q "Answered." "$work/broken-state.out" || fail "broken_state: no answer"
  [[ $(cat "$project/.opencode/flame/state.json") == '{"frames": {' ]] || fail "broken_state: the state file changed"
  grep -q "state.json" "$project/.opencode/flame/qwen-hooks.log" || fail "broken_state: nothing logged"
}

scenarios=(settings context push_pop subagent resume compaction auto_turns without_ctx broken_state)
for scenario in "${@:-${scenarios[@]}}"; do
  "scenario_$scenario"
done
echo "qwen e2e: all scenarios passed"

#!/usr/bin/env bash
# End-to-end tests with the real Gemini CLI: builds ctx, installs ctx's hooks into temporary projects with
# `ctx gemini install` (nothing copied by hand), runs Gemini CLI (npm @google/gemini-cli, installed on first use
# by gemini-sandbox.sh) against the stand-in generateContent API of mock-gemini.py in strict mode, scripted with
# shell and invoke_agent calls, and checks the frame tree on disk and, in the request log, what the model was sent.
#
#   tests/e2e/gemini.sh [SCENARIO...]      (default: all; names below, e.g. `subagent`)
#
# Needs cargo, node/npm (to install Gemini CLI) and python3. MOCK_PORT picks the stand-in's port.
set -euo pipefail
source "$(dirname "$0")/lib.sh" gemini
# Gemini CLI finds ctx's hooks' `ctx` on its PATH, and so does the model's shell.
export PATH=$ctx_dir:$PATH
export MOCK_PORT=${MOCK_PORT:-47621}

# A fresh project with ctx's hooks, as a user installs them (lib.sh).
new_project() { hooks_project "$1" gemini; }

# run NAME PROJECT SCRIPT -- GEMINI-ARGS: one Gemini CLI run (lib.sh's sandbox_run); its HOME is
# $work/sandbox-$SANDBOX (default: NAME), so that a later run with the same SANDBOX can resume its sessions.
run() { sandbox_run "$here/gemini-sandbox.sh" "$@"; }

# check REQUESTS WHAT PYTHON: the checks in PYTHON over the request log as "gemini" views (lib.sh).
check() { request_check gemini "$@"; }

# Each run names its session (--session-id), so that the script can name its frame as the model would read it
# in its frame context.
new_session() { python3 -c 'import uuid; print(uuid.uuid4())'; }
shell_call() {
  python3 -c 'import json,sys; print(json.dumps({"name": "run_shell_command", "arguments": {"command": sys.argv[1], "description": "run"}}))' "$1"
}
root_id() { ctx -C "$1" frame tree --json | field 'd["roots"][0]["id"]'; }
child_id() { ctx -C "$1" frame tree --json | field 'd["roots"][0]["children"][0]["id"]'; }

scenario_settings() {
  echo "scenario settings: the user's own hooks stay and run beside ctx's; a second install changes nothing; remove gives the file back"
  local project before
  project=$work/settings
  mkdir -p "$project/.gemini"
  git -C "$project" init -q
  cat >"$project/.gemini/settings.json" <<'EOF'
{
  "hooks": {
    "AfterAgent": [{"hooks": [{"name": "mine", "type": "command", "command": "touch user-hook-ran; echo 'ctx gemini hook AfterAgent' >/dev/null"}]}]
  }
}
EOF
  before=$(cat "$project/.gemini/settings.json")
  ctx -C "$project" -q gemini install >/dev/null 2>&1 || fail "settings: install"
  cp "$project/.gemini/settings.json" "$work/settings.installed"
  ctx -C "$project" gemini install 2>"$work/settings.note" >/dev/null || fail "settings: a second install"
  cmp -s "$project/.gemini/settings.json" "$work/settings.installed" || fail "settings: a second install changed the file"
  grep -q -- "--skip-trust" "$work/settings.note" || fail "settings: install does not say how to trust the folder"
  echo '[{"tools": true, "reply": "Nothing to do."}]' >"$work/settings.json"
  run settings "$project" "$work/settings.json" -- -p "Say hello" >/dev/null
  [[ -f $project/user-hook-ran ]] || fail "settings: the user's own AfterAgent hook did not run"
  [[ -f $project/.opencode/flame/state.json ]] || fail "settings: ctx's hooks did not run"
  grep -q "ctx" "$work/settings.err" || fail "settings: Gemini CLI did not name ctx's hooks on their first run"
  ctx -C "$project" -q gemini install --remove >/dev/null || fail "settings: remove"
  [[ $(cat "$project/.gemini/settings.json") == "$before" ]] || fail "settings: remove did not give the file back"
}

scenario_trust() {
  echo "scenario trust: Gemini CLI runs nothing in a folder it does not trust, the project's hooks included; hooks installed with --global run in every folder"
  local project rc=0
  project=$(new_project trust)
  echo '[{"tools": true, "reply": "Answered."}]' >"$work/trust.json"
  mkdir -p "$work/sandbox-trust/requests"
  GEMINI_TRUST=false MOCK_SCRIPT=$work/trust.json "$here/gemini-sandbox.sh" "$work/sandbox-trust" "$project" -- \
    -p "Start the audit" >"$work/trust-1.out" 2>"$work/trust-1.err" || rc=$?
  [[ $rc -ne 0 ]] || fail "trust: Gemini CLI ran in an untrusted folder"
  grep -q -i "trust" "$work/trust-1.out" "$work/trust-1.err" || fail "trust: Gemini CLI did not say why it stopped"
  [[ ! -e $project/.opencode/flame/state.json ]] || fail "trust: the project's hooks ran in an untrusted folder"
  ctx -C "$project" -q gemini install --remove >/dev/null || fail "trust: remove"
  GEMINI_CLI_HOME=$work/sandbox-trust/home ctx -C "$project" -q gemini install --global >/dev/null \
    || fail "trust: install --global"
  grep -q "gemini hook BeforeAgent" "$work/sandbox-trust/home/.gemini/settings.json" || fail "trust: no user hooks"
  grep -q "selectedType" "$work/sandbox-trust/home/.gemini/settings.json" || fail "trust: the user's settings were lost"
  SANDBOX=trust run trust-2 "$project" "$work/trust.json" -- -p "Start the audit" >/dev/null
  [[ $(root_id "$project") == gm_* ]] || fail "trust: the user's hooks did not give the session a frame"
}

scenario_context() {
  echo "scenario context: a prompt gets the session's frame and its context, in a form Gemini's escaping leaves readable, with the commands that name its frame; a tool call gets nothing"
  local project requests id
  project=$(new_project context)
  id=$(new_session)
  cat >"$work/context.json" <<EOF
[{"tools": true, "when": "Fix the refunds", "tool_calls": [$(shell_call "echo listed")]},
 {"tools": true, "when": "listed", "reply": "Refunds fixed."}]
EOF
  requests=$(run context "$project" "$work/context.json" -- -p "Fix the refunds" --session-id "$id")
  [[ $(root_id "$project") == "gm_$id" ]] || fail "context: the session's frame is $(root_id "$project")"
  [[ $(frame_json "$project" --frame "gm_$id" | field 'd["frame"]["goal"]') == "Fix the refunds" ]] || fail "context: goal"
  check "$requests" "context" "
r = first(lambda r: 'Fix the refunds' in r['texts'], 'the first request')
need('[flame-context session=\"gm_$id\"]' in r['last_user'], 'the frame context, its tags in brackets')
need('[goal]Fix the refunds[/goal]' in r['last_user'], 'with the session goal')
need('&lt;' not in r['last_user'], 'nothing left escaped')
need('ctx frame push --session gm_$id' in r['last_user'], 'and the commands naming the session')
last = requests[-1]
need(last['texts'].count('[flame-context') == 1, 'one context in the last request: none for the tool call')
"
}

scenario_push_pop() {
  echo "scenario push_pop: the model pushes and pops a frame of its own session from its shell"
  local project id child
  project=$(new_project push-pop)
  id=$(new_session)
  cat >"$work/push-pop.json" <<EOF
[{"tools": true, "when": "Write the migration", "tool_calls": [$(shell_call "ctx frame push --session gm_$id -- 'Write the fix' && echo pushed")]},
 {"tools": true, "when": "pushed", "tool_calls": [$(shell_call "ctx frame pop --session gm_$id --summary 'Fix written and tested' && echo popped")]},
 {"tools": true, "when": "popped", "reply": "Done."}]
EOF
  run push-pop "$project" "$work/push-pop.json" -- -p "Write the migration" --session-id "$id" >/dev/null
  child=$(child_id "$project")
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["goal"]') == "Write the fix" ]] || fail "push_pop: the pushed frame's goal"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["status"]') == completed ]] || fail "push_pop: not popped"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["summary"]') == "Fix written and tested" ]] || fail "push_pop: summary"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["parent"]') == "gm_$id" ]] || fail "push_pop: not below the session"
}

scenario_subagent() {
  echo "scenario subagent: an invoke_agent call gets a frame below the session's, named in its prompt, popped with its result; budget spent equals Gemini CLI's own totals, per role"
  local project requests id sub
  project=$(new_project subagent)
  id=$(new_session)
  cat >"$work/subagent.json" <<EOF
[{"tools": true, "when": "Delegate the count", "tool_calls": [{"name": "invoke_agent", "arguments": {"agent_name": "generalist", "prompt": "Count the refund rows"}}]},
 {"tools": true, "when": "Count the refund rows", "tool_calls": [$(shell_call "echo rows-12")]},
 {"tools": true, "when": "rows-12", "tool_calls": [{"name": "complete_task", "arguments": {"result": {"response": "There are 12 rows."}}}]},
 {"tools": true, "when": "12 rows", "reply": "Delegated."}]
EOF
  requests=$(run subagent "$project" "$work/subagent.json" -- -p "Delegate the count" --session-id "$id" -o json)
  sub=$(child_id "$project")
  [[ $sub == gma_* ]] || fail "subagent: the subagent's frame is $sub"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["goal"]') == "Count the refund rows" ]] || fail "subagent: goal"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["status"]') == completed ]] || fail "subagent: not popped"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["summary"]') == "There are 12 rows." ]] || fail "subagent: summary"
  check "$requests" "subagent" "
r = first(lambda r: r['users'] and r['users'][0].startswith('Count the refund rows'), 'the subagent\\'s first request')
need('<flame-context session=\"$sub\">' in r['users'][0], 'the subagent\\'s own frame context, in its prompt')
need('Your frame is $sub.' in r['users'][0], 'and its frame named')
"
  # What the work cost, as ctx reads Gemini CLI's session files, against Gemini CLI's own totals per role.
  python3 - "$work/sandbox-subagent/home/.gemini/tmp" "$work/subagent.out" "gm_$id" "$sub" <<'PY' || fail "subagent: budget spent differs from Gemini CLI's totals"
import json, subprocess, sys
sessions, out, main, frame = sys.argv[1:]
[model] = json.load(open(out))["stats"]["models"].values()
roles = model["roles"]
doc = json.loads(subprocess.run(["ctx", "budget", "spent", "--source", sessions, "--json", "--by", "session"],
                                capture_output=True, text=True, check=True).stdout)
[row, sub] = doc["rows"]
# The subagent's session is named for its frame, which so owns exactly its calls.
assert row["key"] == main and sub["key"] == frame and sub["parent"] == main, doc["rows"]
for role, own in [("main", row["own"]), ("subagent", sub["own"])]:
    gemini = roles[role]
    tokens = own["tokens"]
    assert own["calls"] == gemini["totalRequests"], (role, own, gemini)
    assert tokens["input"] + tokens["cache_read"] == gemini["tokens"]["prompt"], (role, tokens, gemini)
    assert tokens["output"] == gemini["tokens"]["candidates"], (role, tokens, gemini)
    print(f"  budget spent, {role}: {own['calls']} calls, {tokens['total']} tokens; Gemini CLI's: "
          f"{gemini['totalRequests']}, {gemini['tokens']['total']}")
PY
}

scenario_resume() {
  echo "scenario resume: a frame pushed and popped in the shell is sent folded by the next --resume, each tool result once; the session file keeps every line"
  local project id file requests
  project=$(new_project resume)
  id=$(new_session)
  cat >"$work/resume-1.json" <<EOF
[{"tools": true, "when": "Start the refunds", "tool_calls": [$(shell_call "ctx frame push --session gm_$id -- 'Check the ledger' && echo pushed")]},
 {"tools": true, "when": "pushed", "tool_calls": [$(shell_call "echo BULKY_LEDGER_OUTPUT")]},
 {"tools": true, "when": "BULKY_LEDGER_OUTPUT", "tool_calls": [$(shell_call "ctx frame pop --session gm_$id --summary 'Ledger checked: 3 refunds' && echo popped")]},
 {"tools": true, "when": "popped", "reply": "Refunds started."}]
EOF
  SANDBOX=resume run resume-1 "$project" "$work/resume-1.json" -- -p "Start the refunds" --session-id "$id" >/dev/null
  file=$(ls "$work"/sandbox-resume/home/.gemini/tmp/*/chats/session-*.jsonl)
  python3 - "$file" <<'PY' || fail "resume: the session file's lines or its fold"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert any("BULKY_LEDGER_OUTPUT" in json.dumps(l) for l in lines if "id" in l), "Gemini's own lines are kept"
last = [l for l in lines if "messages" in l.get("$set", {})][-1]
assert "BULKY_LEDGER_OUTPUT" not in json.dumps(last), "the last list has the span folded"
assert "Ledger checked: 3 refunds" in json.dumps(last), "and the frame's summary"
PY
  echo '[{"tools": true, "when": "Next step", "reply": "Next."}]' >"$work/resume-2.json"
  requests=$(SANDBOX=resume run resume-2 "$project" "$work/resume-2.json" -- -p "Next step" --resume latest)
  check "$requests" "resume" "
r = first(lambda r: 'Next step' in r['texts'], 'the resumed request')
need('BULKY_LEDGER_OUTPUT' not in r['all'], 'the popped frame\'s outputs folded out')
need('Ledger checked: 3 refunds' in r['all'], 'its summary in their place')
need('Start the refunds' in r['texts'] and 'Refunds started.' in r['texts'], 'the person\'s message and the answer kept')
"
}

scenario_compaction() {
  echo "scenario compaction: the snapshot of a compression Gemini CLI ran in a resumed session is recorded on the current frame, and the next prompt gets the frame context again"
  local project id answer
  project=$(new_project compaction)
  id=$(new_session)
  echo '[{"tools": true, "when": "Start the refunds", "reply": "Started."}]' >"$work/compaction-1.json"
  SANDBOX=compaction run compaction-1 "$project" "$work/compaction-1.json" -- -p "Start the refunds" --session-id "$id" >/dev/null
  # Gemini CLI compresses at a second person's turn, once a call reported more than half the model's window.
  cat >"$work/compaction-2.json" <<EOF
[{"tools": true, "when": "Next step", "tool_calls": [$(shell_call "echo step-two")], "usage": {"promptTokenCount": 600000}},
 {"tools": false, "when": "state_snapshot", "reply": "<state_snapshot>Refunds started; the ledger is next.</state_snapshot>"},
 {"tools": false, "when": "state_snapshot", "reply": "<state_snapshot>Refunds started; the ledger is next.</state_snapshot>"},
 {"tools": true, "when": "step-two", "reply": "Next."}]
EOF
  SANDBOX=compaction run compaction-2 "$project" "$work/compaction-2.json" -- -p "Next step" --resume latest >/dev/null
  [[ $(frame_json "$project" --frame "gm_$id" | field 'd["frame"]["summary"]') == "Refunds started; the ledger is next." ]] \
    || fail "compaction: the snapshot is not on the session's frame: $(cat "$project/.opencode/flame/gemini-hooks.log" 2>/dev/null)"
  # The next prompt's BeforeAgent, as Gemini CLI sends it.
  answer=$(printf '{"session_id": "%s", "hook_event_name": "BeforeAgent", "prompt": "Third step", "cwd": "%s"}' "$id" "$project" \
    | (cd "$project" && ctx gemini hook BeforeAgent))
  [[ $answer == *"[flame-context session=\\\"gm_$id\\\"]"* ]] || fail "compaction: the next prompt does not get the frame context: $answer"
}

scenario_auto_turns() {
  echo "scenario auto_turns: with frame.auto = turns, a prompt opens a turn frame and AfterAgent closes it with the answer"
  local project turn
  project=$(new_project auto-turns)
  mkdir -p "$project/.opencode" && printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  cat >"$work/auto-turns.json" <<EOF
[{"tools": true, "when": "Migrate module m1", "tool_calls": [$(shell_call "echo migrated")]},
 {"tools": true, "when": "migrated", "reply": "Module m1 migrated."}]
EOF
  run auto-turns "$project" "$work/auto-turns.json" -- -p "Migrate module m1" >/dev/null
  turn=$(child_id "$project")
  [[ $(field "d['frames']['$turn'].get('auto')" <"$project/.opencode/flame/state.json") == turn ]] \
    || fail "auto_turns: no turn frame: $(ctx -C "$project" frame tree)"
  [[ $(frame_json "$project" --frame "$turn" | field 'd["frame"]["status"]') == completed ]] || fail "auto_turns: the turn is not closed"
  [[ $(frame_json "$project" --frame "$turn" | field 'd["frame"]["summary"]') == "Module m1 migrated." ]] || fail "auto_turns: summary"
}

scenario_without_ctx() {
  echo "scenario without_ctx: with ctx on no PATH, Gemini CLI still answers, and the hooks' shell logs why"
  local project
  project=$(new_project without-ctx)
  echo '[{"tools": true, "reply": "Answered without ctx."}]' >"$work/without-ctx.json"
  PATH=$(tr ':' '\n' <<<"$PATH" | grep -vx "$ctx_dir" | paste -sd:) \
    run without-ctx "$project" "$work/without-ctx.json" -- -p "Anything" >/dev/null
  grep -q "Answered without ctx." "$work/without-ctx.out" || fail "without_ctx: no answer"
  grep -q "of ctx gemini hook BeforeAgent" "$work/sandbox-without-ctx/home/.gemini/ctx-hooks.log" \
    || fail "without_ctx: no line in ~/.gemini/ctx-hooks.log"
}

scenario_broken_state() {
  echo "scenario broken_state: a broken state.json is left as it is, logged, and Gemini CLI answers"
  local project
  project=$(new_project broken-state)
  mkdir -p "$project/.opencode/flame"
  printf '{"frames": {' >"$project/.opencode/flame/state.json"
  echo '[{"tools": true, "reply": "Answered."}]' >"$work/broken-state.json"
  run broken-state "$project" "$work/broken-state.json" -- -p "Start the refund work" >/dev/null
  grep -q "Answered." "$work/broken-state.out" || fail "broken_state: no answer"
  [[ $(cat "$project/.opencode/flame/state.json") == '{"frames": {' ]] || fail "broken_state: the state file changed"
  grep -q "state.json" "$project/.opencode/flame/gemini-hooks.log" || fail "broken_state: nothing logged"
}

scenarios=(settings trust context push_pop subagent resume compaction auto_turns without_ctx broken_state)
for scenario in "${@:-${scenarios[@]}}"; do
  "scenario_$scenario"
done
echo "gemini e2e: all scenarios passed"

#!/usr/bin/env bash
# End-to-end tests with the real GitHub Copilot CLI: builds ctx, installs ctx's hooks into temporary projects
# with `ctx copilot install` (nothing copied by hand), runs Copilot (npm @github/copilot, installed on first use
# by copilot-sandbox.sh) against the stand-in chat completions API of mock-llm.py in strict mode, scripted with
# shell and task calls, and checks the frame tree on disk and, in the request log, what the model was sent.
#
#   tests/e2e/copilot.sh [SCENARIO...]      (default: all; names below, e.g. `subagent`)
#
# Needs cargo, node/npm (to install Copilot) and python3. MOCK_PORT picks the stand-in's port.
set -euo pipefail
source "$(dirname "$0")/lib.sh" copilot
# Copilot finds ctx's hooks' `ctx` on its PATH, and so does the model's shell.
export PATH=$ctx_dir:$PATH
export MOCK_PORT=${MOCK_PORT:-47911}

# A fresh project with ctx's hooks, as a user installs them (lib.sh).
new_project() { hooks_project "$1" copilot; }

# run NAME PROJECT SCRIPT -- COPILOT-ARGS: one Copilot run (lib.sh's sandbox_run); its HOME is
# $work/sandbox-$SANDBOX (default: NAME), so that a later run with the same SANDBOX can resume its sessions.
run() { sandbox_run "$here/copilot-sandbox.sh" "$@"; }

# check REQUESTS WHAT PYTHON: the checks in PYTHON over the request log as "chat" views (lib.sh).
check() { request_check chat "$@"; }

# The push and pop the main agent runs in its shell, as ctx's frame context tells it to.
session_arg='--session "cp_$COPILOT_AGENT_SESSION_ID"'
shell_call() {
  python3 -c 'import json,sys; print(json.dumps({"name": "bash", "arguments": {"command": sys.argv[1], "description": "run"}}))' "$1"
}
root_id() { ctx -C "$1" frame tree --json | field 'd["roots"][0]["id"]'; }

scenario_settings() {
  echo "scenario settings: a hooks file of the user's runs beside ctx's; a second install changes nothing; remove takes ctx's file and folder out and leaves the user's"
  local project before
  project=$work/settings
  mkdir -p "$project/.github/hooks"
  git -C "$project" init -q
  cat >"$project/.github/hooks/user.json" <<'EOF'
{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "touch user-stop-hook-ran; echo 'ctx copilot hook agentStop' >/dev/null", "timeoutSec": 5}]}}
EOF
  before=$(cat "$project/.github/hooks/user.json")
  ctx -C "$project" -q copilot install >/dev/null 2>&1 || fail "settings: install"
  cp "$project/.github/hooks/ctx.json" "$work/settings.installed"
  ctx -C "$project" copilot install 2>"$work/settings.note" >/dev/null || fail "settings: a second install"
  cmp -s "$project/.github/hooks/ctx.json" "$work/settings.installed" || fail "settings: a second install changed the file"
  grep -q -- "--trust-folder" "$work/settings.note" || fail "settings: install does not say how to trust the folder"
  echo '[{"tools": true, "reply": "Nothing to do."}]' >"$work/settings.json"
  run settings "$project" "$work/settings.json" -- -p "Say hello" --trust-folder >/dev/null
  [[ -f $project/user-stop-hook-ran ]] || fail "settings: the user's own agentStop hook did not run"
  [[ -f $project/.opencode/flame/state.json ]] || fail "settings: ctx's hooks did not run"
  ctx -C "$project" -q copilot install --remove >/dev/null || fail "settings: remove"
  [[ ! -e $project/.github/hooks/ctx.json ]] || fail "settings: remove left ctx.json"
  [[ $(cat "$project/.github/hooks/user.json") == "$before" ]] || fail "settings: remove changed the user's hooks file"
}

scenario_trust() {
  echo "scenario trust: in a folder Copilot does not trust the project's hooks do not run and Copilot answers; hooks installed with --global run there"
  local project
  project=$(new_project trust)
  echo '[{"tools": true, "reply": "Answered untrusted."}]' >"$work/trust.json"
  SANDBOX=trust run trust-1 "$project" "$work/trust.json" -- -p "Start the audit" >/dev/null
  grep -q "Answered untrusted." "$work/trust-1.out" || fail "trust: no answer"
  [[ ! -e $project/.opencode/flame/state.json ]] || fail "trust: the project's hooks ran in an untrusted folder"
  COPILOT_HOME=$work/sandbox-trust/home/.copilot ctx -C "$project" -q copilot install --global >/dev/null \
    || fail "trust: install --global"
  [[ -f $work/sandbox-trust/home/.copilot/hooks/ctx.json ]] || fail "trust: no user hooks file"
  SANDBOX=trust run trust-2 "$project" "$work/trust.json" -- -p "Start the audit" >/dev/null
  [[ $(root_id "$project") == cp_* ]] || fail "trust: the user's hooks did not give the session a frame"
}

scenario_context() {
  echo "scenario context: a prompt gets the session's frame and its context, unescaped; a tool call gets nothing"
  local project requests session
  project=$(new_project context)
  cat >"$work/context.json" <<EOF
[{"tools": true, "when": "Fix the refunds", "tool_calls": [$(shell_call "echo listed")]},
 {"tools": true, "when": "listed", "reply": "Refunds fixed."}]
EOF
  requests=$(run context "$project" "$work/context.json" -- -p "Fix the refunds" --trust-folder)
  session=$(root_id "$project")
  [[ $session == cp_* ]] || fail "context: the session's frame is $session"
  [[ $(frame_json "$project" --frame "$session" | field 'd["frame"]["goal"]') == "Fix the refunds" ]] || fail "context: goal"
  check "$requests" "context" "
r = first(lambda r: 'Fix the refunds' in r['texts'], 'the first request')
need('<flame-context session=\"$session\">' in r['texts'], 'the frame context, unescaped')
need('<goal>Fix the refunds</goal>' in r['texts'], 'with the session goal')
need('cp_\$COPILOT_AGENT_SESSION_ID' in r['texts'], 'and the commands for the shell')
last = requests[-1]
need(sum('<flame-context' in text(m) for m in last['messages']) == 1, 'one context in the last request: none for the tool call')
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
  run push-pop "$project" "$work/push-pop.json" -- -p "Write the migration" --trust-folder >/dev/null
  session=$(root_id "$project")
  child=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["goal"]') == "Write the fix" ]] || fail "push_pop: the pushed frame's goal"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["status"]') == completed ]] || fail "push_pop: not popped"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["summary"]') == "Fix written and tested" ]] || fail "push_pop: summary"
  [[ $(frame_json "$project" --frame "$child" | field 'd["frame"]["parent"]') == "$session" ]] || fail "push_pop: not below the session"
}

scenario_subagent() {
  echo "scenario subagent: a task call gets a frame below the session's, named in its prompt, popped with its answer; budget spent equals Copilot's own totals, per agent"
  local project requests sub
  project=$(new_project subagent)
  cat >"$work/subagent.json" <<EOF
[{"tools": true, "when": "Delegate the audit", "tool_calls": [{"name": "task", "arguments": {"name": "audit", "description": "Audit refunds", "prompt": "Audit the refund code", "agent_type": "general-purpose", "mode": "sync"}}]},
 {"tools": true, "when": "Audit the refund code", "tool_calls": [$(shell_call "echo audited")]},
 {"tools": true, "when": "audited", "reply": "Audit done: 2 bugs."},
 {"tools": true, "when": "2 bugs", "reply": "Delegated."}]
EOF
  requests=$(run subagent "$project" "$work/subagent.json" -- -p "Delegate the audit" --trust-folder)
  sub=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $sub == cp_* && $sub != "$(root_id "$project")" ]] || fail "subagent: the subagent's frame is $sub"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["goal"]') == "Audit refunds" ]] || fail "subagent: goal"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["status"]') == completed ]] || fail "subagent: not popped"
  [[ $(frame_json "$project" --frame "$sub" | field 'd["frame"]["summary"]') == "Audit done: 2 bugs." ]] || fail "subagent: summary"
  check "$requests" "subagent" "
r = first(lambda r: 'As a sub-agent' in r['system'], 'the subagent\\'s request')
need('Audit the refund code' in r['texts'], 'its prompt')
need('<flame-context session=\"$sub\">' in r['texts'], 'the subagent\\'s own frame context')
need('Your frame is $sub.' in r['texts'], 'and its frame named')
"
  # What the work cost, as ctx reads Copilot's session file, against Copilot's own totals per agent.
  python3 - "$work/sandbox-subagent/home/.copilot/session-state" "$(root_id "$project")" "$sub" <<'PY' || fail "subagent: budget spent differs from Copilot's session.shutdown totals"
import glob, json, subprocess, sys
state, session, sub = sys.argv[1:]
[events] = glob.glob(state + "/*/events.jsonl")
shutdown = [json.loads(l) for l in open(events) if '"session.shutdown"' in l][-1]["data"]["accountingSnapshot"]
out = subprocess.run(["ctx", "budget", "spent", "--source", state, "--json", "--by", "session"],
                     capture_output=True, text=True, check=True)
rows = {r["key"]: r for r in json.loads(out.stdout)["rows"]}
def own(agent):
    [usage] = [m["usage"] | {"count": m["requests"]["count"]} for m in shutdown["agentMetrics"][agent]["modelMetrics"].values()]
    return usage
for key, agent in [(session, "main"), (sub, sub[3:])]:
    row, copilot = rows[key], own(agent)
    tokens, calls = row["own"]["tokens"], row["own"]["calls"]
    assert calls == copilot["count"], (key, calls, copilot)
    assert tokens["input"] + tokens["cache_read"] + tokens["cache_write"] == copilot["inputTokens"], (key, tokens, copilot)
    assert tokens["output"] + tokens["reasoning"] == copilot["outputTokens"], (key, tokens, copilot)
    print(f"  budget spent {key[:8]}: {calls} calls, {tokens['total']} tokens; Copilot's totals: {copilot['count']}, {copilot['inputTokens'] + copilot['outputTokens']}")
PY
}

scenario_resume() {
  echo "scenario resume: a frame pushed and popped in the shell is sent folded by the next --resume, the person's messages and the model's texts kept; the session file keeps every line"
  local project session file requests
  project=$(new_project resume)
  cat >"$work/resume-1.json" <<EOF
[{"tools": true, "when": "Start the refunds", "tool_calls": [$(shell_call "ctx frame push $session_arg -- 'Check the ledger' && echo pushed")]},
 {"tools": true, "when": "pushed", "tool_calls": [$(shell_call "echo BULKY_LEDGER_OUTPUT")]},
 {"tools": true, "when": "BULKY_LEDGER_OUTPUT", "tool_calls": [$(shell_call "ctx frame pop $session_arg --summary 'Ledger checked: 3 refunds' && echo popped")]},
 {"tools": true, "when": "popped", "reply": "Refunds started."}]
EOF
  SANDBOX=resume run resume-1 "$project" "$work/resume-1.json" -- -p "Start the refunds" --trust-folder >/dev/null
  session=$(root_id "$project")
  file=$work/sandbox-resume/home/.copilot/session-state/${session#cp_}/events.jsonl
  python3 - "$file" <<'PY' || fail "resume: the session file's lines or its fold: $(cat "$project/.opencode/flame/copilot-hooks.log" 2>/dev/null)"
import json, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert any("BULKY_LEDGER_OUTPUT" in json.dumps(e) for e in events if e["type"] == "tool.execution_complete"), "Copilot's own events are kept"
done = [e for e in events if e["type"] == "session.compaction_complete"]
assert len(done) == 1, "one compaction appended"
summary = done[0]["data"]["summaryContent"]
assert "BULKY_LEDGER_OUTPUT" not in summary and "Ledger checked: 3 refunds" in summary, summary
assert "Start the refunds" in summary and "Refunds started." in summary, summary
PY
  echo '[{"tools": true, "when": "Next step", "reply": "Next."}]' >"$work/resume-2.json"
  requests=$(COPILOT_ALLOW_ALL=true SANDBOX=resume run resume-2 "$project" "$work/resume-2.json" -- "--resume=${session#cp_}" -p "Next step")
  check "$requests" "resume" "
r = first(lambda r: 'Next step' in r['texts'], 'the resumed request')
need('BULKY_LEDGER_OUTPUT' not in r['all'], 'the popped frame\'s outputs folded out')
need('Ledger checked: 3 refunds' in r['all'], 'its summary in their place')
need('Start the refunds' in r['texts'] and 'Refunds started.' in r['texts'], 'the person\'s message and the answer kept')
"
}

scenario_compaction() {
  echo "scenario compaction: the summary of a compaction Copilot ran beside the turn is recorded on the current frame, and the next prompt, at --resume, gets the frame context again; budget spent counts the compaction's call"
  local project requests session attempt
  cat >"$work/compaction-1.json" <<EOF
[{"tools": true, "when": "Start the refunds", "tool_calls": [$(shell_call "echo step-one")], "usage": {"prompt_tokens": 61000}},
 {"tools": true, "when": "Please create a detailed summary", "reply": "<summary>Refunds started; the ledger is next.</summary>"},
 {"tools": true, "when": "step-one", "tool_calls": [$(shell_call "echo step-two")], "after": "Please create a detailed summary", "delay": 3},
 {"tools": true, "when": "step-two", "reply": "Started."}]
EOF
  # Copilot applies a compaction it ran beside the turn at the next turn's start, once the summary is
  # in; one still running when a -p run ends it applies there or cancels ("outcome":"cancelled"). With
  # the summary sent 6 s before the run's last answer, no run of three applied it on a CI machine running
  # the other suites. So the summary is answered 3 s before a second shell call, and the turn that call
  # starts applies it. On a machine too busy even for that the run is made again, at most three times,
  # since what is tested is what ctx does with a summary.
  local outcome
  for attempt in 1 2 3; do
    project=$(new_project "compaction-$attempt")
    SANDBOX=compaction-$attempt run compaction-1 "$project" "$work/compaction-1.json" -- -p "Start the refunds" --trust-folder >/dev/null
    outcome=$(grep -ho '"outcome":"[a-z_]*"' "$work"/sandbox-compaction-"$attempt"/home/.copilot/session-state/*/events.jsonl || echo "no compaction_complete")
    [[ $outcome == '"outcome":"applied"' ]] && break
    [[ $attempt -lt 3 ]] || fail "compaction: Copilot applied no compaction in three runs; the last: $outcome"
    echo "  Copilot did not apply its compaction ($outcome); again"
  done
  session=$(root_id "$project")
  echo '[{"tools": true, "when": "Next step", "reply": "Next."}]' >"$work/compaction-2.json"
  # --trust-folder is for new sessions only: a resumed one in a trusted folder, as Copilot's own variable says.
  requests=$(COPILOT_ALLOW_ALL=true SANDBOX=compaction-$attempt run compaction-2 "$project" "$work/compaction-2.json" -- "--resume=${session#cp_}" -p "Next step")
  frame_json "$project" --frame "$session" | field 'd["frame"]["summary"]' | grep -q "the ledger is next" \
    || fail "compaction: the summary is not on the session's frame: $(cat "$project/.opencode/flame/copilot-hooks.log" 2>/dev/null)"
  check "$requests" "compaction" "
r = first(lambda r: 'Next step' in r['texts'], 'the resumed request')
need('Refunds started; the ledger is next.' in r['texts'], 'the compaction\\'s summary')
need('<flame-context session=\"$session\">' in r['texts'], 'the frame context again')
"
  python3 - "$work/sandbox-compaction-$attempt/home/.copilot" <<'PY' || fail "compaction: budget spent does not count the compaction's call"
import json, subprocess, sys
doc = json.loads(subprocess.run(["ctx", "budget", "spent", "--source", sys.argv[1], "--json", "--by", "model"],
                                capture_output=True, text=True, check=True).stdout)
# Run 1: the three agent requests and the compaction's; run 2: one.
assert doc["total"]["calls"] == 5, doc["total"]
PY
}

scenario_auto_turns() {
  echo "scenario auto_turns: with frame.auto = turns, a prompt opens a turn frame and agentStop closes it with the answer"
  local project turn
  project=$(new_project auto-turns)
  mkdir -p "$project/.opencode" && printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  cat >"$work/auto-turns.json" <<EOF
[{"tools": true, "when": "Migrate module m1", "tool_calls": [$(shell_call "echo migrated")]},
 {"tools": true, "when": "migrated", "reply": "Module m1 migrated."}]
EOF
  run auto-turns "$project" "$work/auto-turns.json" -- -p "Migrate module m1" --trust-folder >/dev/null
  turn=$(ctx -C "$project" frame tree --json | field 'd["roots"][0]["children"][0]["id"]')
  [[ $(field "d['frames']['$turn'].get('auto')" <"$project/.opencode/flame/state.json") == turn ]] \
    || fail "auto_turns: no turn frame: $(ctx -C "$project" frame tree)"
  [[ $(frame_json "$project" --frame "$turn" | field 'd["frame"]["status"]') == completed ]] || fail "auto_turns: the turn is not closed"
  [[ $(frame_json "$project" --frame "$turn" | field 'd["frame"]["summary"]') == "Module m1 migrated." ]] || fail "auto_turns: summary"
}

scenario_without_ctx() {
  echo "scenario without_ctx: with ctx on no PATH, Copilot still answers, and the hooks' shell logs why"
  local project
  project=$(new_project without-ctx)
  echo '[{"tools": true, "reply": "Answered without ctx."}]' >"$work/without-ctx.json"
  PATH=$(tr ':' '\n' <<<"$PATH" | grep -vx "$ctx_dir" | paste -sd:) \
    run without-ctx "$project" "$work/without-ctx.json" -- -p "Anything" --trust-folder >/dev/null
  grep -q "Answered without ctx." "$work/without-ctx.out" || fail "without_ctx: no answer"
  grep -q "of ctx copilot hook userPromptSubmitted" "$work/sandbox-without-ctx/home/.copilot/ctx-hooks.log" \
    || fail "without_ctx: no line in ~/.copilot/ctx-hooks.log"
}

scenario_broken_state() {
  echo "scenario broken_state: a broken state.json is left as it is, logged, and Copilot answers"
  local project
  project=$(new_project broken-state)
  mkdir -p "$project/.opencode/flame"
  printf '{"frames": {' >"$project/.opencode/flame/state.json"
  echo '[{"tools": true, "reply": "Answered."}]' >"$work/broken-state.json"
  run broken-state "$project" "$work/broken-state.json" -- -p "Start the refund work" --trust-folder >/dev/null
  grep -q "Answered." "$work/broken-state.out" || fail "broken_state: no answer"
  [[ $(cat "$project/.opencode/flame/state.json") == '{"frames": {' ]] || fail "broken_state: the state file changed"
  grep -q "state.json" "$project/.opencode/flame/copilot-hooks.log" || fail "broken_state: nothing logged"
}

scenarios=(settings trust context push_pop subagent resume compaction auto_turns without_ctx broken_state)
for scenario in "${@:-${scenarios[@]}}"; do
  "scenario_$scenario"
done
echo "copilot e2e: all scenarios passed"

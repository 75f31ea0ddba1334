#!/usr/bin/env bash
# End-to-end tests with the real Codex CLI: builds ctx, installs ctx's hooks into temporary projects with
# `ctx codex install` (nothing copied by hand), runs Codex (npm @openai/codex, installed on first use by
# codex-sandbox.sh) against the stand-in Responses API of mock-responses.py in strict mode, scripted with
# exec_command and spawn_agent calls, and checks the frame tree on disk and, in the request log, what the model
# was sent.
#
#   tests/e2e/codex.sh [SCENARIO...]      (default: all; names below, e.g. `subagent`)
#
# Needs cargo, node/npm (to install Codex) and python3. MOCK_PORT picks the stand-in's port.
set -euo pipefail
source "$(dirname "$0")/lib.sh" codex
# Codex finds ctx's hooks' `ctx` on its own PATH; the model's login shell does not (its PATH is the login
# PATH), which is why the frame context names ctx by its absolute path.
export PATH=$ctx_dir:$PATH
ctx_bin=$ctx_dir/ctx
export MOCK_PORT=${MOCK_PORT:-47401}

# A fresh project with ctx's hooks, as a user installs them (lib.sh).
new_project() { hooks_project "$1" codex; }

# run NAME PROJECT SCRIPT -- CODEX-EXEC-ARGS: one Codex run (lib.sh's sandbox_run); its CODEX_HOME is
# $work/sandbox-$SANDBOX/codex-home (default: NAME), so that a later run with the same SANDBOX can resume.
run() { sandbox_run "$here/codex-sandbox.sh" "$@"; }
thread_of() { sed -n 's/^session id: //p' "$work/$1.err" | head -1; }

# check REQUESTS WHAT PYTHON: the checks in PYTHON over the request log as "responses" views (lib.sh).
check() { request_check responses "$@"; }


scenario_context() {
  echo "scenario context: the session's frame context arrives, naming ctx as the model's login shell must"
  local project requests thread
  project=$(new_project context)
  cat >"$work/context.json" <<EOF
[
 {"when": "Fix the refunds", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo LOGIN_PATH=\$PATH"}}]},
 {"when": "LOGIN_PATH=", "reply": "Looked."},
 {"reply": "Done."}
]
EOF
  requests=$(run context "$project" "$work/context.json" -- "Fix the refunds")
  thread=$(thread_of context)
  [[ -n $thread ]] || fail "codex names its session: $(cat "$work/context.err")"
  check "$requests" "context requests" "
main = requests[0]
need('<flame-context session=\"cx_$thread\"' in main['developer'], 'the first request carries the session frame context as a developer message')
need('<goal>Fix the refunds</goal>' in main['developer'], 'whose goal is the first prompt')
need('$ctx_bin frame push --session \"cx_\$CODEX_THREAD_ID\"' in main['developer'], 'naming ctx absolutely, with the thread id variable')
need(all(r['all'].count('<flame-context session=\\\\\"cx_') <= 1 for r in requests), 'the context is added once')
login = first(lambda r: any('LOGIN_PATH=' in o for o in r['outputs']), 'the shell ran')['outputs']
need(not any('$ctx_dir' in o for o in login), 'the login PATH does not hold ctx: ' + repr(login))
"
  [[ $(frame_json "$project" "cx_$thread" | field "d['frame']['status']") == in_progress ]] || fail "the session's frame runs"
}

# The goal's frame in PROJECT's tree, as "ID STATUS PARENT".
frame_of_goal() {
  ctx -C "$1" frame tree --json | python3 -c "
import json,sys
d=json.load(sys.stdin)
def walk(n, parent):
    yield n, parent
    for c in n.get('children', []): yield from walk(c, n['id'])
for root in d['roots']:
    for n, parent in walk(root, ''):
        if n['goal'] == sys.argv[1]: print(n['id'], n['status'], parent)
" "$2"
}

scenario_push_pop() {
  echo "scenario push-pop: the model's shell pushes and pops on its own thread's frame"
  local project requests thread pushed
  project=$(new_project push-pop)
  cat >"$work/push-pop.json" <<EOF
[
 {"when": "Fix the refunds", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "$ctx_bin frame push --session \"cx_\$CODEX_THREAD_ID\" -- 'Refund work'"}}]},
 {"when": "Refund work", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "printf 'REFUND_%s' LIST_42"}}]},
 {"when": "REFUND_LIST_42", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "$ctx_bin frame pop --session \"cx_\$CODEX_THREAD_ID\" --summary 'Refunds done'"}}]},
 {"when": "Refunds done", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "unset CODEX_THREAD_ID; $ctx_bin frame push --session \"cx_\$CODEX_THREAD_ID\" -- 'Lost'; echo EXIT=\$?"}}]},
 {"when": "EXIT=", "reply": "All done."},
 {"reply": "Done."}
]
EOF
  requests=$(run push-pop "$project" "$work/push-pop.json" -- "Fix the refunds")
  thread=$(thread_of push-pop)
  pushed=$(frame_of_goal "$project" "Refund work")
  [[ $pushed == *" completed cx_$thread" ]] || fail "the pushed frame is a completed child of the thread's frame: $pushed ($(ctx -C "$project" frame tree))"
  [[ $(frame_json "$project" "${pushed%% *}" | field "d['frame']['summary']") == "Refunds done" ]] || fail "with the pop's summary"
  check "$requests" "push-pop requests" "
out = first(lambda r: any('EXIT=' in o for o in r['outputs']), 'the push without a thread id ran')['outputs'][-1]
need('names no Codex thread' in out and 'EXIT=1' in out, 'a shell without the thread id gets an error and exit 1: ' + out)
"
  [[ -z $(frame_of_goal "$project" Lost) ]] || fail "and nothing is pushed"
}

scenario_subagent() {
  echo "scenario subagent: a spawn_agent subagent is a frame with its own context, completed with its last message"
  local project requests thread agent
  project=$(new_project subagent)
  cat >"$work/subagent.json" <<EOF
[
 {"when": "Delegate the audit", "tool_calls": [{"namespace": "multi_agent_v1", "name": "spawn_agent", "arguments": {"message": "Audit refunds\nAUDIT_REFUNDS_NOW"}}]},
 {"when": "\"text\":\"Audit refunds", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "$ctx_bin frame push --session \"cx_\$CODEX_THREAD_ID\" -- 'Sub check' && printf 'SUB_%s' OUTPUT_7 && $ctx_bin frame pop --session \"cx_\$CODEX_THREAD_ID\" --summary 'checked'"}}]},
 {"when": "SUB_OUTPUT_7", "reply": "Refund audit: 3 issues found."},
 {"when": "nickname", "delay": 3, "reply": "Waiting for the audit."},
 {"when": "subagent_notification", "reply": "Done."},
 {"reply": "Done."}
]
EOF
  requests=$(run subagent "$project" "$work/subagent.json" -- "Delegate the audit")
  thread=$(thread_of subagent)
  agent=$(python3 - "$requests" <<'PY'
import json, sys
from request_log import bodies
for body in bodies(sys.argv[1]):
    for item in body.get("input", []):
        if item.get("type") == "function_call_output" and "agent_id" in str(item.get("output")):
            print(json.loads(item["output"])["agent_id"])
            sys.exit(0)
PY
)
  [[ -n $agent ]] || fail "spawn_agent names its agent"
  check "$requests" "subagent requests" "
sub = first(lambda r: any(u.startswith('Audit refunds') for u in r['users']), 'the subagent asks the model')
need('<flame-context session=\"cx_$agent\"' in sub['developer'], 'the subagent sees its own frame context')
need('<goal>Audit refunds</goal>' in sub['developer'], 'whose goal is the task first line')
need('<goal>Delegate the audit</goal>' in sub['developer'], 'below the session frame')
need('<flame-context session=\"cx_$thread\"' not in sub['developer'], 'and not the session context')
"
  frame_json "$project" "cx_$agent" >"$work/subagent.frame" || fail "the subagent has a frame"
  [[ $(field "d['frame']['status']" <"$work/subagent.frame") == completed ]] || fail "completed: $(cat "$work/subagent.frame")"
  [[ $(field "d['frame']['summary']" <"$work/subagent.frame") == "Refund audit: 3 issues found." ]] || fail "with its last message"
  [[ $(field "d['frame']['parent']" <"$work/subagent.frame") == "cx_$thread" ]] || fail "a child of the session's frame"
  grep -q "SUB_OUTPUT_7" "$project/.opencode/flame/logs/frame-cx_$agent.md" || fail "its log holds its rollout"
  [[ $(frame_of_goal "$project" "Sub check") == *" completed cx_$agent" ]] \
    || fail "the subagent's own push landed below its own frame: $(ctx -C "$project" frame tree)"
}

scenario_compaction() {
  echo "scenario compaction: an automatic compaction's summary lands on the frame; the context is there after it"
  local project requests thread
  project=$(new_project compaction)
  cat >"$work/compaction.json" <<'EOF'
[
 {"when": "Fix the refunds", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo STEP_ONE"}}], "usage": {"input_tokens": 200000}},
 {"when": "CONTEXT CHECKPOINT COMPACTION", "tools": false, "reply": "Refunds half done: the list is checked."},
 {"when": "Refunds half done", "tools": true, "reply": "Done."},
 {"reply": "Done."}
]
EOF
  # A compaction whenever a response reports more than 5000 input tokens (the first reports 200000).
  requests=$(run compaction "$project" "$work/compaction.json" -- -c model_auto_compact_token_limit=5000 "Fix the refunds")
  thread=$(thread_of compaction)
  check "$requests" "compaction requests" "
first(lambda r: 'CONTEXT CHECKPOINT COMPACTION' in r['all'], 'Codex compacted')
after = first(lambda r: 'Refunds half done' in r['all'] and r['body'].get('tools'), 'the conversation goes on after the compaction')
need('<flame-context session=\"cx_$thread\"' in after['developer'], 'and its requests still hold the frame context')
"
  [[ $(frame_json "$project" "cx_$thread" | field "d['frame']['summary']") == "Refunds half done: the list is checked." ]] \
    || fail "the compaction's summary is on the thread's frame: $(frame_json "$project" "cx_$thread")"
}

scenario_resume() {
  echo "scenario resume: the session's end folds its rollout, and codex exec resume sends the popped frame folded"
  local project requests thread
  project=$(new_project resume)
  cat >"$work/resume1.json" <<EOF
[
 {"when": "Fix the refunds", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "$ctx_bin frame push --session \"cx_\$CODEX_THREAD_ID\" -- 'Refund work'"}}]},
 {"when": "Refund work", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "printf 'REFUND_%s' LIST_42"}}]},
 {"when": "REFUND_LIST_42", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "$ctx_bin frame pop --session \"cx_\$CODEX_THREAD_ID\" --summary 'Refunds done'"}}]},
 {"when": "Refunds done", "reply": "Paused."},
 {"reply": "Done."}
]
EOF
  requests=$(SANDBOX=resume run resume1 "$project" "$work/resume1.json" -- "Fix the refunds")
  thread=$(thread_of resume1)
  check "$requests" "the first run" "
need(any('REFUND_LIST_42' in r['all'] for r in requests), 'the frame\\'s work was sent while it ran')
"
  ls "$work"/sandbox-resume/codex-home/sessions/*/*/*/rollout-*"$thread"/ctx-fold-*.jsonl >/dev/null 2>&1 \
    || fail "the original rollout is kept beside it: $(cat "$project/.opencode/flame/codex-hooks.log" 2>&1)"
  echo '[{"when": "Next step", "reply": "Resumed."}]' >"$work/resume2.json"
  requests=$(SANDBOX=resume run resume2 "$project" "$work/resume2.json" -- resume "$thread" "Next step")
  grep -qx "Resumed." "$work/resume2.out" || fail "the resumed session answers: $(cat "$work/resume2.out" "$work/resume2.err")"
  check "$requests" "the resumed run" "
r = first(lambda r: 'Next step' in r['users'], 'the resumed request')
need('REFUND_LIST_42' not in r['all'], 'the popped frame\\'s work is folded away')
need('Fix the refunds' in r['users'], 'the conversation before it stays')
need(any('[ctx] Frame' in o and 'Summary: Refunds done' in o for o in r['outputs']), 'the pop\\'s output holds the summary')
"
}

# auto_turns_run FOLD: the two runs of scenario auto_turns in a project of their own, codex.fold set to FOLD; sets
# project and requests (the resumed run's).
auto_turns_run() {
  local fold=$1
  project=$(new_project "auto-turns-$fold")
  mkdir -p "$project/.opencode"
  printf '[frame]\nauto = "turns"\n\n[codex]\nfold = "%s"\n' "$fold" >"$project/.opencode/ctx.toml"
  local n
  for n in 1 2; do
    cat >"$work/auto-turns$n.json" <<EOF
[
 {"when": "Migrate module m$n", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "seq -f 'OUT_T${n}_%05g' 1 700"}}]},
 {"when": "OUT_T${n}_00700", "reply": "ANSWER_T$n: m$n migrated."},
 {"reply": "Done."}
]
EOF
  done
  SANDBOX=auto-turns-$fold run "auto-turns-$fold-1" "$project" "$work/auto-turns1.json" -- "Migrate module m1" >/dev/null
  requests=$(SANDBOX=auto-turns-$fold run "auto-turns-$fold-2" "$project" "$work/auto-turns2.json" -- resume --last "Migrate module m2")
  grep -qx "ANSWER_T2: m2 migrated." "$work/auto-turns-$fold-2.out" || fail "the resumed session answers: $(cat "$work/auto-turns-$fold-2.out")"
}

scenario_auto_turns() {
  echo "scenario auto-turns: with frame.auto = turns and a model that never calls ctx, exec resume sends the finished turn without its outputs"
  local project requests turn1 turn2 rollout unfolded
  auto_turns_run off
  unfolded=$(python3 -c "
import json, sys
from request_log import bodies
for body in bodies(sys.argv[1]):
    if 'Migrate module m2' in json.dumps(body):
        print(len(json.dumps(body['input']))); break
" "$requests")
  check "$requests" "auto-turns with the fold off" "
r = first(lambda r: 'Migrate module m2' in r['users'], 'the resumed request')
need('OUT_T1_00700' in r['all'], 'without the fold, the first turn\\'s output is sent whole')
"
  auto_turns_run on
  # The session's own frame has the first prompt as its goal too: the turns are its children.
  turn1=$(frame_of_goal "$project" "Migrate module m1" | grep " cx_")
  turn2=$(frame_of_goal "$project" "Migrate module m2" | grep " cx_")
  [[ $turn1 == *" completed cx_"* && $turn2 == *" completed cx_"* ]] || fail "each prompt had its turn frame, closed: $(ctx -C "$project" frame tree)"
  turn1=${turn1%% *} turn2=${turn2%% *}
  check "$requests" "auto-turns resumed" "
r = first(lambda r: 'Migrate module m2' in r['users'], 'the resumed request')
need('OUT_T1_00' not in r['all'], 'the finished turn\\'s output is not sent (its command, which names OUT_T1, is)')
need(any('ctx frame log $turn1' in o for o in r['outputs']), 'its placeholder, naming its turn frame, is: ' + repr(r['outputs']))
need('Migrate module m1' in r['users'], 'the first prompt is sent whole')
need('ANSWER_T1: m1 migrated.' in r['all'], 'and so is its answer')
folded = len(json.dumps(r['body']['input']))
print(f'resumed request input: {folded} characters folded, $unfolded with codex.fold = off ({100 * folded / $unfolded:.1f} %)')
"
  rollout=$(ls "$work"/sandbox-auto-turns-on/codex-home/sessions/*/*/*/rollout-*.jsonl)
  python3 - "$rollout" <<'PY' || fail "the folded rollout: $(cat "$project/.opencode/flame/codex-hooks.log" 2>&1)"
import json, sys
calls, outputs, texts = set(), set(), []
for line in open(sys.argv[1]):
    p = json.loads(line).get("payload") or {}
    if p.get("type") == "function_call":
        calls.add(p["call_id"])
    elif p.get("type") == "function_call_output":
        outputs.add(p["call_id"])
        texts.append(str(p.get("output")))
assert calls and calls == outputs, f"every call is paired with its output: {calls ^ outputs}"
joined = "\n".join(texts)
assert "OUT_T1_00" not in joined and "OUT_T2_00" not in joined, "both finished turns are folded"
assert joined.count("[ctx folded this output") == 2, texts
PY
  ctx -C "$project" frame log "$turn1" | grep -q "OUT_T1_00700" || fail "the first turn's log holds its output"
  ctx -C "$project" frame log "$turn2" | grep -q "OUT_T2_00700" || fail "the second turn's log holds its output"
}

scenario_auto_plan() {
  echo "scenario auto-plan: with update_plan turned on and frame.auto = all, each plan step in progress is a frame in its turn, closed by the plan, folded with the turn"
  local project requests turn m1 m2 tree
  project=$(new_project auto-plan)
  mkdir -p "$project/.opencode"
  printf '[frame]\nauto = "all"\n' >"$project/.opencode/ctx.toml"
  cat >"$work/auto-plan1.json" <<'EOF'
[
 {"when": "Migrate the modules", "tool_calls": [{"name": "update_plan", "arguments": {"plan": [{"step": "Migrate m1", "status": "in_progress"}, {"step": "Migrate m2", "status": "pending"}]}}]},
 {"when": "Plan updated", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "seq -f 'OUT_P1_%05g' 1 700"}}]},
 {"when": "OUT_P1_00700", "tool_calls": [{"name": "update_plan", "arguments": {"plan": [{"step": "Migrate m1", "status": "completed"}, {"step": "Migrate m2", "status": "in_progress"}]}}]},
 {"when": "OUT_P1_00700", "tool_calls": [{"name": "exec_command", "arguments": {"cmd": "seq -f 'OUT_P2_%05g' 1 700"}}]},
 {"when": "OUT_P2_00700", "tool_calls": [{"name": "update_plan", "arguments": {"plan": [{"step": "Migrate m1", "status": "completed"}, {"step": "Migrate m2", "status": "completed"}]}}]},
 {"when": "OUT_P2_00700", "reply": "ANSWER_PLAN: both migrated."},
 {"reply": "Done."}
]
EOF
  echo '[{"when": "Now the tests", "reply": "ANSWER_TESTS: fine."}, {"reply": "Done."}]' >"$work/auto-plan2.json"
  SANDBOX=auto-plan run auto-plan1 "$project" "$work/auto-plan1.json" -- -c tools.update_plan.enabled=true "Migrate the modules" >/dev/null
  grep -qx "ANSWER_PLAN: both migrated." "$work/auto-plan1.out" || fail "the plan run answers: $(cat "$work/auto-plan1.out")"
  requests=$(SANDBOX=auto-plan run auto-plan2 "$project" "$work/auto-plan2.json" -- -c tools.update_plan.enabled=true resume --last "Now the tests")
  tree=$(ctx -C "$project" frame tree --json)
  turn=$(field "d['roots'][0]['children'][0]['id']" <<<"$tree")
  [[ $(field "[(c['goal'], c['status']) for c in d['roots'][0]['children'][0]['children']]" <<<"$tree") == "[('Migrate m1', 'completed'), ('Migrate m2', 'completed')]" ]] \
    || fail "each step in progress was a frame in its turn, closed completed: $(ctx -C "$project" frame tree)"
  m1=$(field "d['roots'][0]['children'][0]['children'][0]['id']" <<<"$tree")
  m2=$(field "d['roots'][0]['children'][0]['children'][1]['id']" <<<"$tree")
  ctx -C "$project" frame log "$m1" | grep -q "OUT_P1_00700" || fail "the first step's log holds its output"
  ctx -C "$project" frame log "$m2" | grep -q "OUT_P2_00700" || fail "the second step's log holds its output"
  ! ctx -C "$project" frame log "$m1" | grep -q "OUT_P2_00700" || fail "and not the second step's"
  check "$requests" "auto-plan resumed" "
r = first(lambda r: 'Now the tests' in r['users'], 'the resumed request')
need('OUT_P1_00' not in r['all'] and 'OUT_P2_00' not in r['all'], 'the steps\\' outputs are not sent')
need(any('ctx frame log $turn' in o for o in r['outputs']), 'their placeholders name the turn they folded with')
need('ANSWER_PLAN: both migrated.' in r['all'], 'the answer is sent whole')
"
  [[ ! -s $project/.opencode/flame/codex-hooks.log ]] || fail "no hook failed: $(cat "$project/.opencode/flame/codex-hooks.log")"
}

scenario_without_ctx() {
  echo "scenario without-ctx: with ctx absent, and with a broken state file, Codex still answers"
  local project requests
  project=$(new_project without-ctx)
  cat >"$work/without-ctx.json" <<'EOF'
[
 {"when": "Delegate the audit", "tool_calls": [{"namespace": "multi_agent_v1", "name": "spawn_agent", "arguments": {"message": "AUDIT_REFUNDS_NOW"}}]},
 {"when": "\"text\":\"AUDIT_REFUNDS_NOW", "reply": "Refund audit: 3 issues found."},
 {"when": "nickname", "delay": 3, "reply": "Waiting."},
 {"when": "subagent_notification", "reply": "Done."},
 {"reply": "Done."}
]
EOF
  requests=$(CTX_BIN=$work/no-such-ctx run without-ctx "$project" "$work/without-ctx.json" -- "Delegate the audit")
  check "$requests" "without ctx" "
first(lambda r: 'AUDIT_REFUNDS_NOW' in r['users'], 'the subagent runs')
need(all('<flame-context' not in r['all'] for r in requests), 'no frame context without ctx')
"
  grep -qx "Done." "$work/without-ctx.out" || fail "the run ends normally: $(cat "$work/without-ctx.out")"
  grep -q "exit 127 of ctx codex hook UserPromptSubmit" "$work/sandbox-without-ctx/codex-home/ctx-hooks.log" \
    || fail "a missing ctx is logged: $(cat "$work/sandbox-without-ctx/codex-home/ctx-hooks.log" 2>&1)"

  project=$(new_project broken-state)
  mkdir -p "$project/.opencode/flame"
  printf '{"version": 1, "frames": ' >"$project/.opencode/flame/state.json"
  cp "$project/.opencode/flame/state.json" "$work/broken-state.json"
  requests=$(run broken-state "$project" "$work/without-ctx.json" -- "Delegate the audit")
  grep -qx "Done." "$work/broken-state.out" || fail "the run ends normally: $(cat "$work/broken-state.out")"
  cmp -s "$project/.opencode/flame/state.json" "$work/broken-state.json" || fail "the broken state file is left as it was"
  grep -q "UserPromptSubmit session .*state.json" "$project/.opencode/flame/codex-hooks.log" \
    || fail "the broken state is logged: $(cat "$project/.opencode/flame/codex-hooks.log" 2>&1)"
}

scenario_install() {
  echo "scenario install: the user's own hooks survive install, a second install and remove, and still run"
  local project=$work/install
  mkdir -p "$project/.codex"
  git -C "$project" init -q
  cat >"$project/.codex/hooks.json" <<EOF
{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "touch $work/user-stop-hook-ran", "timeout": 30}]}
    ],
    "SessionStart": [
      {"hooks": [{"type": "command", "command": "echo 'ctx codex hook SessionStart' > $work/user-hook-ran"}]}
    ]
  }
}
EOF
  cp "$project/.codex/hooks.json" "$work/hooks.orig"
  ctx -C "$project" -q codex install >/dev/null || fail "install over the user's hooks"
  cp "$project/.codex/hooks.json" "$work/hooks.installed"
  ctx -C "$project" -q codex install >/dev/null || fail "a second install"
  cmp "$project/.codex/hooks.json" "$work/hooks.installed" || fail "a second install changes nothing"
  echo '[{"reply": "Fine."}]' >"$work/install.json"
  local requests
  requests=$(run install "$project" "$work/install.json" -- "Check the hooks")
  [[ -f $work/user-stop-hook-ran ]] || fail "the user's hook still runs: $(grep -i hook "$work/install.err")"
  grep -q "ctx codex hook SessionStart" "$work/user-hook-ran" || fail "and so does the one that names ctx's hook"
  check "$requests" "install" "
need('<flame-context' in requests[0]['developer'], 'and so do ctx\\'s')
"
  ctx -C "$project" -q codex install --remove >/dev/null || fail "remove"
  cmp "$project/.codex/hooks.json" "$work/hooks.orig" || fail "remove gives back the user's file"
}

all=(context push_pop subagent compaction resume auto_turns auto_plan without_ctx install)
chosen=("${@:-${all[@]}}")
for name in "${chosen[@]}"; do "scenario_${name//-/_}"; done
echo "ok: ${chosen[*]}"

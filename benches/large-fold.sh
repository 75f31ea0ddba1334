#!/usr/bin/env bash
# How long an agent's SessionEnd takes to fold a large transcript of finished turns: a Claude Code transcript
# (AGENT=claude, the default) or a Codex rollout (AGENT=codex) of TURNS person turns (default 20), each a prompt, a
# short command, a long one printing OUTPUT_KB kilobytes and an answer, in the shapes Claude Code 2.1.328 and Codex
# 0.171.0 write (docs/src/claude-code.md, docs/src/codex.md). Claude Code writes an output twice (the result and its
# toolUseResult), Codex once: OUTPUT_KB defaults to 2560 and 5120, about 100 MB in all. Each turn runs ctx's hooks as
# the agent would (UserPromptSubmit, then Stop) with frame.auto = "turns"; then SessionEnd folds every finished turn.
# The SessionEnd is timed RUNS times (default 3), each on a fresh copy of the transcript and state, with
# /usr/bin/time: its wall time, CPU time and largest resident size. ctx installs its hooks with a 10 s timeout, and
# Codex clamps a SessionEnd hook to 3 s: the figure says which transcripts fold in time.
#
# Usage: benches/large-fold.sh
# Environment: CTX=/path/to/ctx skips the release build; AGENT, TURNS, OUTPUT_KB, RUNS as above; KEEP=1 keeps the
# work folder.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n ${CTX:-} ]]; then
  ctx=$CTX
else
  cargo build --release --quiet
  ctx=$PWD/target/release/ctx
fi
agent=${AGENT:-claude}
case $agent in
  claude) default_kb=2560 ;;
  codex) default_kb=5120 ;;
  *) echo "usage: AGENT=claude|codex $0" >&2; exit 2 ;;
esac
turns=${TURNS:-20} output_kb=${OUTPUT_KB:-$default_kb} runs=${RUNS:-3}
work=$(mktemp -d)
if [[ -n ${KEEP:-} ]]; then echo "work folder: $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

session=0b6f3e2a-5c1d-4d7e-9f00-1a2b3c4d5e6f
# Where each agent keeps the session's file, below HOME.
case $agent in
  claude) file_of() { echo "$1/.claude/projects/-x/$session.jsonl"; } ;;
  codex) file_of() { echo "$1/.codex/sessions/2026/11/28/rollout-2026-11-28T22-07-59-$session.jsonl"; } ;;
esac
make_session() {
  local home=$1 project=$2
  local file
  file=$(file_of "$home")
  mkdir -p "$(dirname "$file")" "$project/.opencode"
  printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  AGENT=$agent FILE=$file TURNS=$turns OUTPUT_KB=$output_kb SESSION=$session CTX_BIN=$ctx HOME=$home PROJECT=$project \
    python3 - <<'PY'
import json, os, subprocess, datetime

home, project, session, ctx = os.environ["HOME"], os.environ["PROJECT"], os.environ["SESSION"], os.environ["CTX_BIN"]
agent, path = os.environ["AGENT"], os.environ["FILE"]
turns, output_kb = int(os.environ["TURNS"]), int(os.environ["OUTPUT_KB"])
out = open(path, "w")

def stamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

def line(value):
    value.update({"timestamp": stamp(), "sessionId": session, "version": "2.1.328"})
    out.write(json.dumps(value) + "\n")
    out.flush()

def record(kind, payload):
    out.write(json.dumps({"timestamp": stamp(), "type": kind, "payload": payload}) + "\n")
    out.flush()

def hook(event, fields):
    doc = {"session_id": session, "transcript_path": path, "cwd": project, "hook_event_name": event, **fields}
    subprocess.run([ctx, "-C", project, agent, "hook", event], input=json.dumps(doc).encode(), check=True,
                   env={**os.environ, "HOME": home}, stdout=subprocess.DEVNULL)

big = ("build log line " * 8 + "\n") * (output_kb * 1024 // 121)
parent = None
if agent == "codex":
    record("session_meta", {"id": session, "cwd": project})
for n in range(turns):
    prompt = f"Step {n}: run the build and report"
    answer = f"ANSWER {n}: the build passed."
    if agent == "codex":
        turn = f"01a22433-6c35-70c1-948f-{n:012d}"
        record("event_msg", {"type": "task_started", "turn_attribution": {"turn_id": turn, "turn_trigger": "exec"}})
        record("turn_context", {"turn_id": turn, "cwd": project, "model": "mock-1"})
        record("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
        hook("UserPromptSubmit", {"prompt": prompt, "turn_id": turn, "model": "mock-1"})
        for k, output in enumerate(["ok", big]):
            call = f"call_{n}_{k}"
            record("response_item", {"type": "function_call", "name": "exec_command",
                                     "arguments": json.dumps({"cmd": "make" if k else "ls"}), "call_id": call})
            record("response_item", {"type": "function_call_output", "call_id": call,
                                     "output": f"Process exited with code 0\nOutput:\n{output}"})
        record("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]})
        record("event_msg", {"type": "task_complete", "turn_id": turn, "last_agent_message": answer})
        hook("Stop", {"turn_id": turn, "last_assistant_message": answer, "model": "mock-1"})
        continue
    line({"type": "user", "uuid": f"p{n}", "parentUuid": parent, "promptId": f"id{n}",
          "message": {"role": "user", "content": prompt}})
    hook("UserPromptSubmit", {"prompt": prompt, "prompt_id": f"id{n}"})
    uuid = f"p{n}"
    for k, output in enumerate(["ok", big]):
        call = f"toolu_{n}_{k}"
        line({"type": "assistant", "uuid": f"c{n}{k}", "parentUuid": uuid, "message": {"id": f"m{n}{k}",
              "role": "assistant", "content": [{"type": "tool_use", "id": call, "name": "Bash",
              "input": {"command": "make" if k else "ls"}}]}})
        line({"type": "user", "uuid": f"r{n}{k}", "parentUuid": f"c{n}{k}", "message": {"role": "user",
              "content": [{"type": "tool_result", "tool_use_id": call, "content": output}]},
              "toolUseResult": {"stdout": output}})
        uuid = f"r{n}{k}"
    line({"type": "assistant", "uuid": f"a{n}", "parentUuid": uuid, "message": {"id": f"ma{n}",
          "role": "assistant", "content": [{"type": "text", "text": answer}]}})
    parent = f"a{n}"
    hook("Stop", {"prompt_id": f"id{n}", "last_assistant_message": answer})
out.close()
PY
}

make_session "$work/home" "$work/project"
bytes=$(stat -c %s "$(file_of "$work/home")")
echo "ctx $("$ctx" --version | cut -d' ' -f2) ($(git rev-parse --short HEAD 2>/dev/null || echo '?')):" \
  "$agent, a session file of $turns turns, $bytes bytes; SessionEnd folds every finished turn"
echo
echo "| run | wall (s) | user + system CPU (s) | largest resident (MB) | file after (bytes) |"
echo "|---:|---:|---:|---:|---:|"
for run in $(seq "$runs"); do
  rm -rf "$work/run"
  mkdir "$work/run"
  cp -a "$work/home" "$work/project" "$work/run/"
  home=$work/run/home project=$work/run/project
  end=$(printf '{"session_id": "%s", "transcript_path": "%s", "cwd": "%s", "hook_event_name": "SessionEnd", "reason": "other"}' \
    "$session" "$(file_of "$home")" "$project")
  HOME=$home /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$ctx" -C "$project" "$agent" hook SessionEnd <<<"$end" >/dev/null
  read -r wall user sys rss <"$work/time"
  after=$(stat -c %s "$(file_of "$home")")
  echo "| $run | $wall | $(python3 -c "print(round($user + $sys, 2))") | $((rss / 1024)) | $after |"
done

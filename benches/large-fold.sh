#!/usr/bin/env bash
# How long Claude Code's SessionEnd takes to fold a large transcript of finished turns: a transcript of TURNS person
# turns (default 20), each a prompt, a short command, a long one printing OUTPUT_KB kilobytes (default 2560) and an
# answer (Claude Code writes an output twice: the result and its toolUseResult), in the shapes Claude Code 2.1.328 writes (docs/src/claude-code.md), about 100 MB in all. Each turn runs ctx's
# hooks as Claude Code would (UserPromptSubmit, then Stop) with frame.auto = "turns"; then SessionEnd folds every
# finished turn. The SessionEnd is timed RUNS times (default 3), each on a fresh copy of the transcript and state,
# with /usr/bin/time: its wall time, CPU time and largest resident size. Codex clamps a SessionEnd hook to 3 s, Claude
# Code gives hooks 60 s by default: the figure says which transcripts fold in time.
#
# Usage: benches/large-fold.sh
# Environment: CTX=/path/to/ctx skips the release build; TURNS, OUTPUT_KB, RUNS as above; KEEP=1 keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n ${CTX:-} ]]; then
  ctx=$CTX
else
  cargo build --release --quiet
  ctx=$PWD/target/release/ctx
fi
turns=${TURNS:-20} output_kb=${OUTPUT_KB:-2560} runs=${RUNS:-3}
work=$(mktemp -d)
if [[ -n ${KEEP:-} ]]; then echo "work folder: $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

session=0b6f3e2a-5c1d-4d7e-9f00-1a2b3c4d5e6f
make_session() {
  local home=$1 project=$2
  mkdir -p "$home/.claude/projects/-x" "$project/.opencode"
  printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
  TURNS=$turns OUTPUT_KB=$output_kb SESSION=$session CTX_BIN=$ctx HOME=$home PROJECT=$project python3 - <<'PY'
import json, os, subprocess, datetime

home, project, session, ctx = os.environ["HOME"], os.environ["PROJECT"], os.environ["SESSION"], os.environ["CTX_BIN"]
turns, output_kb = int(os.environ["TURNS"]), int(os.environ["OUTPUT_KB"])
path = f"{home}/.claude/projects/-x/{session}.jsonl"
out = open(path, "w")

def stamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

def line(value):
    value.update({"timestamp": stamp(), "sessionId": session, "version": "2.1.328"})
    out.write(json.dumps(value) + "\n")
    out.flush()

def hook(event, fields):
    doc = {"session_id": session, "transcript_path": path, "cwd": project, "hook_event_name": event, **fields}
    subprocess.run([ctx, "-C", project, "claude", "hook", event], input=json.dumps(doc).encode(), check=True,
                   env={**os.environ, "HOME": home}, stdout=subprocess.DEVNULL)

big = ("build log line " * 8 + "\n") * (output_kb * 1024 // 121)
parent = None
for n in range(turns):
    prompt = f"Step {n}: run the build and report"
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
    answer = f"ANSWER {n}: the build passed."
    line({"type": "assistant", "uuid": f"a{n}", "parentUuid": uuid, "message": {"id": f"ma{n}",
          "role": "assistant", "content": [{"type": "text", "text": answer}]}})
    parent = f"a{n}"
    hook("Stop", {"prompt_id": f"id{n}", "last_assistant_message": answer})
out.close()
PY
}

make_session "$work/home" "$work/project"
bytes=$(stat -c %s "$work/home/.claude/projects/-x/$session.jsonl")
echo "ctx $("$ctx" --version | cut -d' ' -f2) ($(git rev-parse --short HEAD 2>/dev/null || echo '?')):" \
  "a transcript of $turns turns, $bytes bytes; SessionEnd folds every finished turn"
echo
echo "| run | wall (s) | user + system CPU (s) | largest resident (MB) | transcript after (bytes) |"
echo "|---:|---:|---:|---:|---:|"
for run in $(seq "$runs"); do
  rm -rf "$work/run"
  mkdir "$work/run"
  cp -a "$work/home" "$work/project" "$work/run/"
  home=$work/run/home project=$work/run/project
  end=$(printf '{"session_id": "%s", "transcript_path": "%s", "cwd": "%s", "hook_event_name": "SessionEnd", "reason": "other"}' \
    "$session" "$home/.claude/projects/-x/$session.jsonl" "$project")
  HOME=$home /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$ctx" -C "$project" claude hook SessionEnd <<<"$end" >/dev/null
  read -r wall user sys rss <"$work/time"
  after=$(stat -c %s "$home/.claude/projects/-x/$session.jsonl")
  echo "| $run | $wall | $(python3 -c "print(round($user + $sys, 2))") | $((rss / 1024)) | $after |"
done

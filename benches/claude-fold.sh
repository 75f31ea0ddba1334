#!/usr/bin/env bash
# What a finished frame costs in what Claude Code sends: the same scripted work run three ways in one run, each in a
# real Claude Code (tests/e2e/claude-sandbox.sh) against the stand-in model in strict mode (it refuses, as Anthropic's
# API does, a request whose tool_use and tool_result blocks no longer pair up), each as two processes, the way
# scripts and CI jobs run Claude Code: `claude -p PROMPT`, then `claude -p "Next step" --continue`.
#   plain  Claude Code without ctx: the model runs the commands itself;
#   fork   ctx installed: each frame is a fork (the Agent tool with subagent_type "fork"), which runs the frame's
#          commands and reports;
#   bash   ctx installed: the model pushes a frame with `ctx frame push`, runs the frame's commands, pops it with a
#          summary; when the process ends, ctx folds the transcript (SessionEnd) for the --continue.
# Two workloads:
#   small      one frame: two commands printing 20 000 characters each (`/push Run the build` for the fork), then
#              a continuation that only answers;
#   realistic  three frames of two or three commands each, printing 10 000 to 40 000 characters of a made-up build
#              log (benches/fold-output.py), a short command before each frame, then a continuation that runs two
#              short commands before it answers.
# benches/claude-fold-measure.py prints, for each workload and way, the last request's size, the input a prompt
# cache bills (definitions in its header), refused requests, and where a fork's first request leaves its parent's
# prefix. Exit 1 when a target is not met.
#
# Usage: benches/claude-fold.sh [WORKLOAD...]   (default: small realistic)
# Environment: CTX=/path/to/ctx skips the release build; KEEP=1 keeps the work folder; MOCK_PORT (default 47851);
# CLAUDE_FOLD_VERBOSE=1 prints each request's size and what a cache serves of it. Needs cargo (unless CTX),
# node/npm and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
if [[ -n ${CTX:-} ]]; then
  ctx=$(cd "$(dirname "$CTX")" && pwd)/$(basename "$CTX")
else
  cargo build --release --quiet
  ctx=$repo/target/release/ctx
fi
export PATH=$(dirname "$ctx"):$PATH MOCK_PORT=${MOCK_PORT:-47851} MOCK_STRICT=1
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] && echo "kept $work" >&2 || rm -rf "$work"' EXIT
workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(small realistic)

# scripts WORKLOAD DIR: the stand-in's scripts, DIR/WAY.json for the first process and DIR/next.json for the
# continuation, and DIR/prompt (the first prompt of each way, one line each: plain, fork, bash).
scripts() {
  python3 - "$1" "$2" "$repo/benches/fold-output.py" <<'PY'
import json, sys
workload, out, output = sys.argv[1:4]
call = lambda command, what: {"name": "Bash", "arguments": {"command": command, "description": what}}
if workload == "small":
    prompt = "Run the build"
    big = lambda c, n: f"head -c 20000 /dev/zero | tr '\\0' {c}; printf 'OUT_%s_END' {n}"
    frames = [("Run the build", "BUILD_NOW: run the build, report", [big("a", "A"), big("b", "B")],
               ["OUT_A_END", "OUT_B_END"], "Built: 2 parts.")]
    before, after, final, nxt = [], [], "The build ran.", []
else:
    prompt = "Ship the release"
    # Claude Code sends a Bash output of 30 000 characters or more as a 2 KB preview and a file's path
    # (observed): the 40 000 one shows it; the others reach the model whole.
    sizes = {"Build": [24000, 12000, 40000], "Test": [18000, 28000, 10000], "Docs": [26000, 15000]}
    frames = []
    for name, chars in sizes.items():
        marks = [f"OUT_{name.upper()}{n}_END" for n in range(1, len(chars) + 1)]
        # The mark first, so that a preview shows it too.
        commands = [f"printf 'OUT_%s_END\\n' {name.upper()}{n}; python3 {output} {name} {n} {c}"
                    for n, c in enumerate(chars, 1)]
        frames.append((name, f"{name.upper()}_NOW: {name.lower()} the release, report", commands, marks,
                       f"{name}: done, {len(chars)} steps passed."))
    small = lambda n: f"python3 {output} work {n} 600; printf 'WORK_%s_END' {n}"
    before = [(small(n), f"WORK_{n}_END") for n in range(1, len(frames) + 1)]
    final = "Released."
    nxt = [(f"python3 {output} next {n} 2000; printf 'NEXT_%s_END' {n}", f"NEXT_{n}_END") for n in (1, 2)]

def steps(way):
    s, last = [], prompt
    for i, (name, directive, commands, marks, report) in enumerate(frames):
        if before:
            s.append({"when": last, "tool_calls": [call(before[i][0], "work")]})
            last = before[i][1]
        if way == "fork":
            s.append({"when": last, "tool_calls": [{"name": "Agent", "arguments": {
                "description": name, "prompt": directive, "subagent_type": "fork", "run_in_background": False}}]})
            last = directive.split(":")[0]
        elif way == "bash":
            s.append({"when": last, "tool_calls": [call(f"ctx frame push -- '{name}'", "push")]})
            last = "frame push"
        for command, mark in zip(commands, marks):
            s.append({"when": last, "tool_calls": [call(command, "step")]})
            last = mark
        if way == "fork":
            s.append({"when": last, "reply": report})
            last = report
        elif way == "bash":
            s.append({"when": last, "tool_calls": [call(f"ctx frame pop --summary '{report}'", "pop")]})
            last = report
    s.append({"when": last, "reply": final})
    return s

for way in ("plain", "fork", "bash"):
    json.dump(steps(way), open(f"{out}/{way}.json", "w"), indent=1)
n, last = [], "Next step"
for command, mark in nxt:
    n.append({"when": last, "tool_calls": [call(command, "next")]})
    last = mark
n.append({"when": last, "reply": "Next step done."})
json.dump(n, open(f"{out}/next.json", "w"), indent=1)
# The small workload's fork frame is the user's /push; the realistic one's are the model's own.
open(f"{out}/prompt", "w").write(f"{prompt}\n{'/push ' + prompt if workload == 'small' else prompt}\n{prompt}\n")
PY
}

ok=0
for workload in "${workloads[@]}"; do
  dir=$work/$workload
  mkdir -p "$dir"
  scripts "$workload" "$dir"
  mapfile -t prompts <"$dir/prompt"
  for i in 0 1 2; do
    way=(plain fork bash)
    way=${way[$i]}
    project=$dir/$way/project
    mkdir -p "$project"
    git -C "$project" init -q
    [[ $way == plain ]] || "$ctx" -C "$project" -q claude install >/dev/null
    for step in 1 2; do
      sandbox=$dir/$way/sandbox
      script=$dir/$way.json args=(-p "${prompts[$i]}")
      [[ $step == 2 ]] && script=$dir/next.json args=(-p "Next step" --continue)
      mkdir -p "$sandbox"
      MOCK_SCRIPT=$script tests/e2e/claude-sandbox.sh "$sandbox" "$project" -- "${args[@]}" \
        --output-format json --dangerously-skip-permissions >"$dir/$way.$step.out" 2>"$dir/$way.$step.err" || true
      mkdir -p "$dir/$way/requests-$step"
      mv "$sandbox"/requests/* "$dir/$way/requests-$step/" 2>/dev/null || true
    done
  done
  python3 benches/claude-fold-measure.py "$work" "$workload" --check || ok=1
done
exit $ok

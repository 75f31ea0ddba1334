#!/usr/bin/env bash
# What a finished frame costs in what Claude Code sends: the same scripted work run three ways in one run, each in a
# real Claude Code (tests/e2e/claude-sandbox.sh) against the stand-in model in strict mode (it refuses, as Anthropic's
# API does, a request whose tool_use and tool_result blocks no longer pair up), each as a row of processes, the way
# scripts and CI jobs run Claude Code: `claude -p PROMPT`, then `claude -p … --continue` for each later step.
#   plain  Claude Code without ctx: the model runs the commands itself;
#   fork   ctx installed: each frame is a fork (the Agent tool with subagent_type "fork"), which runs the frame's
#          commands and reports;
#   turns  ctx installed with frame.auto = "turns", and plain's script: a model that never calls ctx; each person's
#          turn is a frame ctx opens and closes itself, folded at SessionEnd for the next --continue;
#   bash   ctx installed: the model pushes a frame with `ctx frame push -- '<goal>' && <first command>` (one Bash
#          call, as ctx's context tells it), runs the frame's other commands, pops it with a summary in the call of
#          the command after the frame when one follows (`ctx frame pop --summary '…' && <next command>`, as the
#          context tells it too); when a process ends, ctx folds the transcript (SessionEnd) for the next --continue.
# Three workloads:
#   small      one frame: two commands printing 20 000 characters each (`/push Run the build` for the fork), then
#              a continuation that only answers;
#   realistic  three frames of two or three commands each, printing 10 000 to 40 000 characters of a made-up build
#              log (benches/fold-output.py), a short command before each frame, then a continuation that runs two
#              short commands before it answers;
#   loop       a loop driver: four processes in a row (the first without --continue), each a short command and then
#              one frame of two or three commands (the realistic work's three frames and a fourth of 22 000 and
#              16 000 characters), then a last --continue that only answers.
# benches/claude-fold-measure.py prints, for each workload and way, the last request's size, the input a prompt
# cache bills (definitions in its header), refused requests, and where a fork's first request leaves its parent's
# prefix; which targets each way meets. Exit 1 when a target is not met.
#
# Usage: benches/claude-fold.sh [WORKLOAD...]   (default: small realistic loop)
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
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] && echo "kept $work" >&2 || rm -rf "$work"' EXIT
# The hooks and the model's shell run `ctx` from the PATH: the binary under that name, whatever CTX calls it.
mkdir -p "$work/bin" && ln -s "$ctx" "$work/bin/ctx"
export PATH=$work/bin:$PATH MOCK_PORT=${MOCK_PORT:-47851} MOCK_STRICT=1
workloads=("$@")
[[ ${#workloads[@]} -gt 0 ]] || workloads=(small realistic loop)

# scripts WORKLOAD DIR: the stand-in's scripts, DIR/WAY.STEP.json for each process of each way, and DIR/steps, one
# line per process: STEP, whether it continues (0/1), then the prompt of each way (plain, fork, bash), tab-separated.
scripts() {
  python3 - "$1" "$2" "$repo/benches/fold-output.py" <<'PY'
import json, sys
workload, out, output = sys.argv[1:4]
call = lambda command, what: {"name": "Bash", "arguments": {"command": command, "description": what}}
# Claude Code sends a Bash output of 30 000 characters or more as a 2 KB preview and a file's path (observed): the
# 40 000 one shows it; the others reach the model whole.
realistic = {"Build": [24000, 12000, 40000], "Test": [18000, 28000, 10000], "Docs": [26000, 15000]}


def frame(name, chars):
    marks = [f"OUT_{name.upper()}{n}_END" for n in range(1, len(chars) + 1)]
    # The mark first, so that a preview shows it too.
    commands = [f"printf 'OUT_%s_END\\n' {name.upper()}{n}; python3 {output} {name} {n} {c}"
                for n, c in enumerate(chars, 1)]
    return (name, f"{name.upper()}_NOW: {name.lower()} the release, report", commands, marks,
            f"{name}: done, {len(chars)} steps passed.")


def short(tag, n, chars):
    return (f"python3 {output} {tag.lower()} {n} {chars}; printf '{tag}_%s_END' {n}", f"{tag}_{n}_END")


def steps(way, prompt, frames, before, final):
    """One process's script: per frame, the command before it, the frame (a fork, a Bash push and pop, or the
    commands alone), then the final reply."""
    s, last = [], prompt
    for i, (name, directive, commands, marks, report) in enumerate(frames):
        # The Bash way runs the command before a frame in the call of the pop before it.
        if before and not (way == "bash" and i > 0):
            s.append({"when": last, "tool_calls": [call(before[i][0], "work")]})
            last = before[i][1]
        if way == "fork":
            s.append({"when": last, "tool_calls": [{"name": "Agent", "arguments": {
                "description": name, "prompt": directive, "subagent_type": "fork", "run_in_background": False}}]})
            last = directive.split(":")[0]
        for n, (command, mark) in enumerate(zip(commands, marks)):
            if way == "bash" and n == 0:
                # The push in the call of the frame's first command, as ctx's context tells the model.
                command = f"ctx frame push -- '{name}' && {{ {command}; }}"
            s.append({"when": last, "tool_calls": [call(command, "step")]})
            last = mark
        if way == "fork":
            s.append({"when": last, "reply": report})
            last = report
        elif way == "bash":
            pop = f"ctx frame pop --summary '{report}'"
            if before and i + 1 < len(frames):
                # The pop in the call of the next command, as ctx's context tells the model.
                s.append({"when": last, "tool_calls": [call(f"{pop} && {{ {before[i + 1][0]}; }}", "pop")]})
                last = before[i + 1][1]
            else:
                s.append({"when": last, "tool_calls": [call(pop, "pop")]})
                last = report
    s.append({"when": last, "reply": final})
    return s


def answer_only(prompt, commands, final):
    s, last = [], prompt
    for command, mark in commands:
        s.append({"when": last, "tool_calls": [call(command, "next")]})
        last = mark
    s.append({"when": last, "reply": final})
    return s


# Each process: (prompts of plain, fork and bash; its script for each way).
processes = []
if workload == "small":
    big = lambda c, n: f"head -c 20000 /dev/zero | tr '\\0' {c}; printf 'OUT_%s_END' {n}"
    prompt = "Run the build"
    frames = [("Run the build", "BUILD_NOW: run the build, report", [big("a", "A"), big("b", "B")],
               ["OUT_A_END", "OUT_B_END"], "Built: 2 parts.")]
    # The small workload's fork frame is the user's /push; the others' are the model's own.
    processes.append(((prompt, "/push " + prompt, prompt),
                      {way: steps(way, prompt, frames, [], "The build ran.") for way in ("plain", "fork", "bash")}))
    nxt = []
elif workload == "realistic":
    prompt = "Ship the release"
    frames = [frame(name, chars) for name, chars in realistic.items()]
    before = [short("WORK", n, 600) for n in range(1, len(frames) + 1)]
    processes.append(((prompt,) * 3,
                      {way: steps(way, prompt, frames, before, "Released.") for way in ("plain", "fork", "bash")}))
    nxt = [short("NEXT", n, 2000) for n in (1, 2)]
elif workload == "loop":
    sizes = dict(realistic, Package=[22000, 16000])
    for n, (name, chars) in enumerate(sizes.items(), 1):
        prompt = f"Loop step {n}: {name.lower()} the release"
        frames = [frame(name, chars)]
        before = [short("WORK", n, 600)]
        processes.append(((prompt,) * 3, {way: steps(way, prompt, frames, before, f"Loop step {n} finished.")
                                          for way in ("plain", "fork", "bash")}))
    nxt = []
else:
    sys.exit(f"unknown workload {workload}: small, realistic or loop")
final = answer_only("Next step", nxt, "Next step done.")
processes.append((("Next step",) * 3, {way: final for way in ("plain", "fork", "bash")}))
with open(f"{out}/steps", "w") as lines:
    for step, (prompts, scripts) in enumerate(processes, 1):
        for way, script in scripts.items():
            json.dump(script, open(f"{out}/{way}.{step}.json", "w"), indent=1)
            # The model that never calls ctx: plain's script, run with ctx's turn frames on.
            if way == "plain":
                json.dump(script, open(f"{out}/turns.{step}.json", "w"), indent=1)
        lines.write("\t".join([str(step), "0" if step == 1 else "1", *prompts]) + "\n")
PY
}

ok=0
for workload in "${workloads[@]}"; do
  dir=$work/$workload
  mkdir -p "$dir"
  scripts "$workload" "$dir"
  for i in 0 1 2 3; do
    way=(plain fork bash turns)
    way=${way[$i]}
    project=$dir/$way/project
    mkdir -p "$project"
    git -C "$project" init -q
    [[ $way == plain ]] || "$ctx" -C "$project" -q claude install >/dev/null
    if [[ $way == turns ]]; then
      mkdir -p "$project/.opencode"
      printf '[frame]\nauto = "turns"\n' >"$project/.opencode/ctx.toml"
    fi
    while IFS=$'\t' read -r step continues p0 p1 p2; do
      prompts=("$p0" "$p1" "$p2" "$p0")
      sandbox=$dir/$way/sandbox
      args=(-p "${prompts[$i]}")
      [[ $continues == 1 ]] && args+=(--continue)
      mkdir -p "$sandbox"
      MOCK_SCRIPT=$dir/$way.$step.json tests/e2e/claude-sandbox.sh "$sandbox" "$project" -- "${args[@]}" \
        --output-format json --dangerously-skip-permissions >"$dir/$way.$step.out" 2>"$dir/$way.$step.err" || true
      mkdir -p "$dir/$way/requests-$step"
      mv "$sandbox"/requests/* "$dir/$way/requests-$step/" 2>/dev/null || true
    done <"$dir/steps"
  done
  python3 benches/claude-fold-measure.py "$work" "$workload" --check || ok=1
done
exit $ok

#!/usr/bin/env bash
# What a finished frame costs in what Claude Code sends: the same scripted work run three ways in one run, each in a
# real Claude Code (tests/e2e/claude-sandbox.sh) against the stand-in model in strict mode (it refuses, as Anthropic's
# API does, a request whose tool_use and tool_result blocks no longer pair up), each as two processes, the way
# scripts and CI jobs run Claude Code: `claude -p "Run the build"`, then `claude -p "Next step" --continue`.
#   plain  Claude Code without ctx: the model runs two Bash commands printing 20 000 characters each;
#   fork   ctx installed, `/push Run the build`: the model runs the goal as a fork frame (the Agent tool with
#          subagent_type "fork"), the fork runs the two commands and reports;
#   bash   ctx installed: the model pushes a frame with `ctx frame push`, runs the two commands, pops it with a
#          summary; when the process ends, ctx folds the transcript (SessionEnd) for the --continue.
# For each way: the last request's size (its messages, characters), and the input billed over all requests with a
# prompt cache: for each request, what no prefix cache could serve (its length minus the common prefix with the
# request before it) plus a tenth of the rest, as benches/fold.sh counts it; refused requests; and for the fork, the
# share of the parent's last request that the fork's first request starts with.
#
# Usage: benches/claude-fold.sh          Environment: CTX=/path/to/ctx skips the release build; KEEP=1 keeps the
# work folder; MOCK_PORT (default 47851). Needs cargo (unless CTX), node/npm and python3.
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

big() { echo "head -c 20000 /dev/zero | tr '\\\\0' $1; printf 'OUT_%s_END' $2"; }
cat >"$work/plain.json" <<EOF
[
 {"when": "Run the build", "tool_calls": [{"name": "Bash", "arguments": {"command": "$(big a A)", "description": "a"}}]},
 {"when": "OUT_A_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "$(big b B)", "description": "b"}}]},
 {"when": "OUT_B_END", "reply": "Built: 2 parts."}
]
EOF
cat >"$work/fork.json" <<EOF
[
 {"when": "The goal: Run the build", "tool_calls": [{"name": "Agent", "arguments": {"description": "Run the build", "prompt": "BUILD_NOW: run the build, report", "subagent_type": "fork", "run_in_background": false}}]},
 {"when": "BUILD_NOW", "tool_calls": [{"name": "Bash", "arguments": {"command": "$(big a A)", "description": "a"}}]},
 {"when": "OUT_A_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "$(big b B)", "description": "b"}}]},
 {"when": "OUT_B_END", "reply": "Built: 2 parts."},
 {"reply": "The build ran."}
]
EOF
cat >"$work/bash.json" <<EOF
[
 {"when": "Run the build", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame push -- 'Run the build'", "description": "push"}}]},
 {"when": "frame push", "tool_calls": [{"name": "Bash", "arguments": {"command": "$(big a A)", "description": "a"}}]},
 {"when": "OUT_A_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "$(big b B)", "description": "b"}}]},
 {"when": "OUT_B_END", "tool_calls": [{"name": "Bash", "arguments": {"command": "ctx frame pop --summary 'Built: 2 parts.'", "description": "pop"}}]},
 {"reply": "The build ran."}
]
EOF
echo '[{"reply": "Next step done."}]' >"$work/next.json"

for way in plain fork bash; do
  project=$work/$way/project
  mkdir -p "$project"
  git -C "$project" init -q
  [[ $way == plain ]] || "$ctx" -C "$project" -q claude install >/dev/null
  prompt="Run the build"
  [[ $way == fork ]] && prompt="/push Run the build"
  for step in 1 2; do
    sandbox=$work/$way/sandbox
    script=$work/$way.json args=(-p "$prompt")
    [[ $step == 2 ]] && script=$work/next.json args=(-p "Next step" --continue)
    mkdir -p "$sandbox"
    MOCK_SCRIPT=$script tests/e2e/claude-sandbox.sh "$sandbox" "$project" -- "${args[@]}" \
      --output-format json --dangerously-skip-permissions >"$work/$way.$step.out" 2>"$work/$way.$step.err" || true
    mkdir -p "$work/$way/requests-$step"
    mv "$sandbox"/requests/* "$work/$way/requests-$step/" 2>/dev/null || true
  done
done

python3 - "$work" <<'PY'
import glob, json, os, sys
work = sys.argv[1]
def messages(path):
    body = json.load(open(path))
    return json.dumps(body.get("messages", []), ensure_ascii=False)
def common(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n
rows = {}
for way in ("plain", "fork", "bash"):
    files = []
    for step in (1, 2):
        files += sorted(glob.glob(f"{work}/{way}/requests-{step}/[0-9]*[0-9].json"))
    refused = len(glob.glob(f"{work}/{way}/requests-*/*.error.txt"))
    texts = [messages(f) for f in files]
    billed, before = 0.0, ""
    for t in texts:
        uncached = len(t) - common(before, t)
        billed += uncached + 0.1 * (len(t) - uncached)
        before = t
    last = texts[-1] if texts else ""
    row = {"requests": len(texts), "last": len(last), "billed": round(billed), "refused": refused,
           "outputs_in_last": last.count("OUT_A_END") + last.count("OUT_B_END")}
    if way == "fork":
        # The fork's first request against the parent's request just before it.
        forks = [i for i, f in enumerate(files) if "fork-boilerplate" in open(f).read()]
        if forks and forks[0] > 0:
            parent, child = texts[forks[0] - 1], texts[forks[0]]
            row["fork_prefix_share"] = round(common(parent, child) / max(1, len(parent)), 3)
    rows[way] = row
print("| way | requests | last request (chars) | vs plain | billed input (chars) | vs plain | outputs in last | refused |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for way, r in rows.items():
    p = rows["plain"]
    print(f"| {way} | {r['requests']} | {r['last']} | {r['last'] / max(1, p['last']):.1%} | {r['billed']} "
          f"| {r['billed'] / max(1, p['billed']):.1%} | {r['outputs_in_last']} | {r['refused']} |")
if "fork_prefix_share" in rows["fork"]:
    print(f"\nfork: its first request starts with {rows['fork']['fork_prefix_share']:.1%} of the parent's request before it")
ok = True
for way in ("fork", "bash"):
    r, p = rows[way], rows["plain"]
    for what, cond in ((f"{way}: last request at most 10 % of plain's", r["last"] <= 0.10 * p["last"]),
                       (f"{way}: billed input below plain's", r["billed"] < p["billed"]),
                       (f"{way}: no request refused", r["refused"] == 0)):
        print(("met: " if cond else "NOT met: ") + what)
        ok = ok and cond
sys.exit(0 if ok else 1)
PY

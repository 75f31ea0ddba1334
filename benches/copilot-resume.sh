#!/usr/bin/env bash
# What a resumed GitHub Copilot CLI session sends, with and without ctx: the same scripted work run two ways in one
# run, each in a real Copilot CLI (tests/e2e/copilot-sandbox.sh) against the strict stand-in chat completions API:
#   plain  Copilot without ctx: the model runs the work's shell calls;
#   ctx    ctx's hooks (`ctx copilot install`): the model pushes a frame for each part from its shell, runs the
#          part's calls and pops the frame with a summary; at the session's end ctx folds it for --resume.
# The work, in a first process (`copilot -p`): three parts one after another, each two shell calls printing about
# 20 000 characters of a made-up build log (benches/fold-output.py, seeded: both ways see the same text), then a
# reply. A second process resumes the session (`copilot --resume=ID -p`) and gets one reply. The table gives the
# resumed request: its messages' size but the system prompt's (characters of their JSON), and the tool calls and
# tool results it carries as the API's own messages.
#
# Usage: benches/copilot-resume.sh        (about a minute)
# Environment: CTX=/path/to/ctx skips the release build and uses that binary; KEEP=1 keeps the work folder;
# MOCK_PORT (default 47941). Needs cargo (unless CTX), node/npm (Copilot is installed on first use) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
if [[ -z ${CTX:-} ]]; then
  cargo build --release --quiet
  CTX=$repo/target/release/ctx
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-copilot-resume.XXXXXX")
[[ -n ${KEEP:-} ]] && echo "work folder: $work" >&2 || trap 'rm -rf "$work"' EXIT
export MOCK_PORT=${MOCK_PORT:-47941}
bin=$work/bin
mkdir -p "$bin" && ln -s "$CTX" "$bin/ctx"

# steps WAY: the stand-in's script of the first process.
steps() { python3 benches/resume-steps.py "$1" bash '--session "cp_$COPILOT_AGENT_SESSION_ID"'; }

for way in plain ctx; do
  project=$work/$way/project
  mkdir -p "$project"
  git -C "$project" init -q
  cp benches/fold-output.py "$project/build-log.py"
  [[ $way == plain ]] || PATH=$bin:$PATH ctx -C "$project" -q copilot install >/dev/null
  steps "$way" >"$work/$way/steps.json"
  echo '[{"tools": true, "when": "Now the ledger", "reply": "The ledger is next."}]' >"$work/$way/resume.json"
  for run in first resume; do
    rm -rf "$work/$way/sandbox/requests"
    case $run in
      first) args=(-p "Do the three parts of the refund work, one after another." --trust-folder) ;;
      resume)
        session=$(ls "$work/$way/sandbox/home/.copilot/session-state")
        args=("--resume=$session" -p "Now the ledger")
        ;;
    esac
    script=$work/$way/$([[ $run == first ]] && echo steps || echo resume).json
    # A resumed session's hooks run in a trusted folder as Copilot's own variable says.
    PATH=$bin:$PATH COPILOT_ALLOW_ALL=true MOCK_SCRIPT=$script tests/e2e/copilot-sandbox.sh "$work/$way/sandbox" \
      "$project" -- "${args[@]}" >"$work/$way/$run.out" 2>"$work/$way/$run.err" \
      || { cat "$work/$way/$run.err" >&2; echo "$way: the $run run failed" >&2; exit 1; }
  done
done

python3 - "$work" <<'PY'
import glob, json, sys
work = sys.argv[1]
print("| way | resumed request | tool calls in it | tool results in it |")
print("|---|---:|---:|---:|")
sizes = {}
for way in ("plain", "ctx"):
    [path] = glob.glob(f"{work}/{way}/sandbox/requests/0001.json")
    messages = [m for m in json.load(open(path))["messages"] if m["role"] != "system"]
    calls = sum(len(m.get("tool_calls") or []) for m in messages)
    results = sum(m["role"] == "tool" for m in messages)
    sizes[way] = len(json.dumps(messages, ensure_ascii=False))
    share = "" if way == "plain" else f" ({sizes[way] / sizes['plain']:.1%})"
    print(f"| {way} | {sizes[way]:,}{share} | {calls} | {results} |".replace(",", " "))
PY

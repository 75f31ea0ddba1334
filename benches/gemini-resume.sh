#!/usr/bin/env bash
# What a resumed Gemini CLI session sends, with and without ctx: the same scripted work run two ways in one run,
# each in a real Gemini CLI (tests/e2e/gemini-sandbox.sh) against the stand-in generateContent API:
#   plain  Gemini CLI without ctx: the model runs the work's shell calls;
#   ctx    ctx's hooks (`ctx gemini install`): the model pushes a frame for each part from its shell, runs the
#          part's calls and pops the frame with a summary; at the session's end ctx folds it for --resume.
# The work, in a first process (`gemini -p`): three parts one after another, each two shell calls printing about
# 20 000 characters of a made-up build log (benches/fold-output.py, seeded: both ways see the same text), then a
# reply. A second process resumes the session (`gemini --resume latest -p`) and gets one reply. The table gives the
# resumed request: its contents' size (characters of their JSON), the tool results it carries and how many of
# them it sends twice, and whether a strict API takes it (a model turn's calls answered once, at once). The
# stand-in runs lax for plain Gemini CLI, whose own --resume sends every result twice, so that its request is
# measured at all; ctx's runs strict.
#
# Usage: benches/gemini-resume.sh        (about a minute)
# Environment: CTX=/path/to/ctx skips the release build and uses that binary; KEEP=1 keeps the work folder;
# MOCK_PORT (default 47641). Needs cargo (unless CTX), node/npm (Gemini CLI is installed on first use) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
if [[ -z ${CTX:-} ]]; then
  cargo build --release --quiet
  CTX=$repo/target/release/ctx
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-gemini-resume.XXXXXX")
[[ -n ${KEEP:-} ]] && echo "work folder: $work" >&2 || trap 'rm -rf "$work"' EXIT
export MOCK_PORT=${MOCK_PORT:-47641}
bin=$work/bin
mkdir -p "$bin" && ln -s "$CTX" "$bin/ctx"
session=5d0e8a34-6c1b-4f0e-9a57-2b8e4c1d7f61

# steps WAY: the stand-in's script of the first process.
steps() { python3 benches/resume-steps.py "$1" run_shell_command "--session gm_$session"; }

for way in plain ctx; do
  project=$work/$way/project
  mkdir -p "$project"
  git -C "$project" init -q
  cp benches/fold-output.py "$project/build-log.py"
  [[ $way == plain ]] || PATH=$bin:$PATH ctx -C "$project" -q gemini install >/dev/null
  steps "$way" >"$work/$way/steps.json"
  echo '[{"tools": true, "when": "Now the ledger", "reply": "The ledger is next."}]' >"$work/$way/resume.json"
  lax=$([[ $way == plain ]] && echo 1 || echo 0)
  for run in first resume; do
    rm -rf "$work/$way/sandbox/requests"
    case $run in
      first) args=(-p "Do the three parts of the refund work, one after another." --session-id "$session") ;;
      resume) args=(-p "Now the ledger" --resume latest) ;;
    esac
    script=$work/$way/$([[ $run == first ]] && echo steps || echo resume).json
    PATH=$bin:$PATH MOCK_LAX=$lax MOCK_SCRIPT=$script tests/e2e/gemini-sandbox.sh "$work/$way/sandbox" "$project" -- \
      "${args[@]}" >"$work/$way/$run.out" 2>"$work/$way/$run.err" \
      || { cat "$work/$way/$run.err" >&2; echo "$way: the $run run failed" >&2; exit 1; }
  done
done

python3 - "$work" <<'PY'
import collections, glob, json, sys
work = sys.argv[1]
print("| way | resumed request | tool results in it | sent twice | a strict API takes it |")
print("|---|---:|---:|---:|---|")
sizes = {}
for way in ("plain", "ctx"):
    [path] = glob.glob(f"{work}/{way}/sandbox/requests/0001.json")
    body = json.load(open(path))
    contents = body["contents"]
    ids = [p["functionResponse"].get("id") for c in contents for p in c.get("parts", []) if "functionResponse" in p]
    twice = sum(n - 1 for n in collections.Counter(ids).values() if n > 1)
    pending, refused = collections.Counter(), False
    for c in contents:
        answered = collections.Counter(p["functionResponse"]["name"] for p in c.get("parts", []) if "functionResponse" in p)
        if (pending and answered != pending) or (answered and not pending):
            refused = True
        pending = collections.Counter(p["functionCall"]["name"] for p in c.get("parts", []) if "functionCall" in p) \
            if c.get("role") == "model" else collections.Counter()
    sizes[way] = len(json.dumps(contents, ensure_ascii=False))
    share = "" if way == "plain" else f" ({sizes[way] / sizes['plain']:.1%})"
    print(f"| {way} | {sizes[way]:,}{share} | {len(ids)} | {twice} | {'no' if refused else 'yes'} |".replace(",", " "))
PY

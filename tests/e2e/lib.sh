# What every end-to-end suite starts with, sourced after `set -euo pipefail`:
#
#   source "$(dirname "$0")/lib.sh" SUITE
#
# `repo` and `here` (this folder); ctx built (debug) in `ctx_dir`, which a suite puts on PATH
# itself when the agents it runs should find that ctx (npm.sh's must not); the suite's own
# temporary folder `work`, named for it (files of a plain `mktemp -d` folder were seen to vanish
# while other suites ran beside it) and removed at exit unless KEEP is set, after the suite's
# `at_exit` (a function it may define: stop its servers, unmount); and the checks below. This folder is on
# PYTHONPATH, so that a suite's checks read the stand-in's request log with request_log.py.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$repo/tests/e2e
export PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH}
ctx_dir=$repo/target/debug
cargo build --quiet --manifest-path "$repo/Cargo.toml"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-$1-e2e.XXXXXX")
at_exit() { :; }
trap 'at_exit || true; [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# accepted REQUESTS WHAT: fails, naming WHAT, when the strict stand-in refused a request it logged
# in REQUESTS (it writes why as <n>.error.txt).
accepted() {
  if ls "$1"/*.error.txt >/dev/null 2>&1; then
    fail "$2: the strict stand-in refused a request: $(cat "$1"/*.error.txt)"
  fi
}

# frame_json PROJECT [ARGS…]: `ctx frame show --json` of PROJECT (ctx on PATH).
frame_json() { ctx -C "$1" frame show --json "${@:2}"; }

# field EXPR: EXPR (Python, over `d`) of the JSON document on stdin.
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }

# The three helpers of the suites of agents that take ctx's hooks through a sandbox script (Codex, Qwen Code,
# Copilot), which each suite names after itself: `new_project`, `run` and `check`.

# hooks_project NAME AGENT: a fresh project $work/NAME (a git repository) with ctx's hooks for AGENT, as a user
# installs them (`ctx AGENT install`); prints its path.
hooks_project() {
  local project=$work/$1
  mkdir -p "$project"
  git -C "$project" init -q
  ctx -C "$project" -q "$2" install >/dev/null || fail "ctx $2 install"
  echo "$project"
}

# sandbox_run SANDBOX-SCRIPT NAME PROJECT SCRIPT -- ARGS: one run of the agent SANDBOX-SCRIPT starts against the
# stand-in scripted by SCRIPT, with a fresh request log, every request of which the strict stand-in accepted;
# prints the log's folder. The sandbox is $work/sandbox-$SANDBOX (default: NAME), so that a later run with the
# same SANDBOX can resume its sessions. The run's stdout is in $work/NAME.out, its stderr in $work/NAME.err.
sandbox_run() {
  local sandbox_script=$1 name=$2 project=$3 script=$4
  shift 5
  local sandbox=$work/sandbox-${SANDBOX:-$name}
  rm -rf "$sandbox/requests"
  mkdir -p "$sandbox/requests"
  MOCK_SCRIPT=$script "$sandbox_script" "$sandbox" "$project" -- "$@" >"$work/$name.out" 2>"$work/$name.err" \
    || { cat "$work/$name.out" "$work/$name.err" >&2; fail "$name: $(basename "$sandbox_script" -sandbox.sh) exited non-zero"; }
  accepted "$sandbox/requests" "$name"
  echo "$sandbox/requests"
}

# request_check WIRE REQUESTS WHAT PYTHON: runs the checks in PYTHON with `requests` (the logged requests, in
# order, as request_log.py's WIRE views: chat, anthropic or responses), `need`, `first` and `text` (a message's
# text in that wire format) in scope; fails naming WHAT.
request_check() {
  python3 - "$2" <<PY || fail "$3"
import json, re, sys
from request_log import ${1}_text as text, checks
requests, need, first = checks(sys.argv[1], "$1")
$4
PY
}

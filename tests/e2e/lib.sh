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

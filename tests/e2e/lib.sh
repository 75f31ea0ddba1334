# What every end-to-end suite starts with, sourced after `set -euo pipefail`:
#
#   source "$(dirname "$0")/lib.sh" SUITE
#
# `repo` and `here` (this folder); ctx built (debug) in `ctx_dir`, which a suite puts on PATH
# itself when the agents it runs should find that ctx (npm.sh's must not); the suite's own
# temporary folder `work`, named for it (files of a plain `mktemp -d` folder were seen to vanish
# while other suites ran beside it) and removed at exit unless KEEP is set, after the suite's
# `at_exit` (a function it may define: stop its servers, unmount); and `fail`.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$repo/tests/e2e
ctx_dir=$repo/target/debug
cargo build --quiet --manifest-path "$repo/Cargo.toml"
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-$1-e2e.XXXXXX")
at_exit() { :; }
trap 'at_exit || true; [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

#!/usr/bin/env bash
# Whole-process timings of the completions ctx computes when a shell asks (release build,
# hyperfine), on examples/demo: frame ids, swarm phases, models (target: ≤ 10 ms each).
#
# Usage: benches/completion.sh        Needs hyperfine.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
cd examples/demo
# What the bash script sets before it calls back into ctx.
export COMPLETE=bash _CLAP_COMPLETE_INDEX=3 _CLAP_IFS=$'\n'
hyperfine -N --warmup 10 --min-runs 100 \
  -n "frame show <TAB> (frame ids)" "$ctx -- ctx frame show ''" \
  -n "swarm plan <TAB> (phases)" "$ctx -- ctx swarm plan ''" \
  -n "budget estimate --model <TAB> (models)" "$ctx -- ctx budget estimate --model ''"

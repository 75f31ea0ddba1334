#!/usr/bin/env bash
# Many agents on one frame tree: `ctx frame push` and `pop` from many processes at once on a state
# of 1 000 frames and 20 OpenCode sessions, in two loads (benches/load.py says more):
#   closed loop  100 clients share 1 000 push+pop pairs, each starting its next command as soon as
#                the last one ends;
#   open loop    60 agents start a push+pop pair on a schedule, 70 operations a second in all, for
#                20 s, however long the commands take.
# Prints, per build, load and command: throughput, p50/p90/p99/max latency and failures, and
# checks that no update was lost. Every build is measured in the same run, one after the other.
#
# Usage: benches/load.sh [load.py options]   e.g. --clients 50 --pairs 300 --loads closed --rounds 2
# The baseline beside this build: CTX_BASELINE=/path/to/a/ctx, or else ctx at CTX_BASELINE_REV
# (default 3987c97, the last commit whose lock polled), built once under target/bench-baseline/;
# CTX_BASELINE=none measures this build alone. Needs python3 and git.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
ctx="$PWD/target/release/ctx"
rev=${CTX_BASELINE_REV:-3987c97}
baseline=${CTX_BASELINE:-}
if [ -z "$baseline" ]; then
  dir="$PWD/target/bench-baseline/$rev"
  baseline="$dir/target/release/ctx"
  if [ ! -x "$baseline" ]; then
    echo "building ctx at $rev as the baseline (once, into $dir)" >&2
    rm -rf "$dir/src"
    mkdir -p "$dir/src"
    git archive "$rev" | tar -x -C "$dir/src"
    CARGO_TARGET_DIR="$dir/target" cargo build --release --quiet --locked \
      --manifest-path "$dir/src/Cargo.toml"
  fi
fi
builds=(--ctx "ctx=$ctx")
if [ "$baseline" != none ]; then
  builds+=(--ctx "baseline=$baseline")
  echo "baseline: $baseline ($("$baseline" --version))"
fi
echo "ctx: $ctx ($("$ctx" --version)); $(nproc) cores; $(uptime | sed 's/.*load/load/')"
python3 benches/load.py "${builds[@]}" "$@"
echo "after the run: $(uptime | sed 's/.*load/load/')"

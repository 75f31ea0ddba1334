#!/usr/bin/env bash
# The long session of benches/long.sh in pi (npm @mariozechner/pi-coding-agent, the version tests/e2e/pi-install.sh pins,
# run as it runs it: `pi -p` offline against the stand-in model of tests/e2e/mock-llm.py in strict mode), with a
# model that never calls ctx. pi has no todo tool, so each item is one person's turn: one `pi -p` process per item,
# the first starting the session and each next one continuing it (`pi -p -c`). Two ways:
#   plain  pi without ctx's extension;
#   turns  ctx's extension (`ctx pi install`) with frame.auto = "turns": ctx opens a frame for each person's turn,
#          closes it at the turn's end and folds its outputs in every later request, and its pressure valve
#          masks the oldest outputs of a turn that nears where pi compacts.
# The work: long.sh's 22 items (benches/long_items.py: the same seed and sizes), each one turn that runs long.sh's
# plain script (pushes and pops as bash echoes): a push, two bash calls printing 10 000 to 40 000 characters of a
# made-up build log (benches/fold-output.py), every fourth item a nested push, a 12 000-character call and a pop
# between them, a pop, a bash call between items, and an answer. The person's message of long.sh's middle comes
# with item 12's prompt.
# The model: 64 000 tokens of context (`contextWindow` in pi's models.json, 4 000 of output), pi's own compaction
# settings (none written: pi compacts when a model call's tokens pass the window less compaction.reserveTokens,
# 16 384, checked when a run ends and before a prompt). The stand-in reports usage as a quarter of the request's
# characters, so plain pi compacts as the session grows.
# Then benches/long-measure.py prints its markdown table (compactions are pi's summarization requests; a split
# turn's second summary belongs to the compaction it is part of) and the targets for turns: never compacts, billed
# input at most half of plain's, nothing refused.
#
# Usage: benches/pi-long.sh [WAY...]       (default: plain turns; several minutes each)
# Environment: CTX=/path/to/ctx skips the release build; KEEP=1 keeps the work folder; LONG_JSON=FILE also writes
# the measures as JSON; MOCK_PORT, if set, is the first of two ports (default: free ones); CTX_PI_HOME is where
# pi is installed when missing (as for tests/e2e/pi.sh; default ~/.cache/ctx-pi); FOLD_AFTER=N sets
# frame.fold_after for the turns way (closed turns wait for N person's messages before they fold).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
CONTEXT_TOKENS=64000
OUTPUT_TOKENS=4000
[[ $# -gt 0 ]] || set -- plain turns
ways=("$@")
for way in "${ways[@]}"; do
  case $way in plain | turns) ;; *) echo "usage: $0 [plain|turns]..." >&2; exit 2 ;; esac
done
# A pi started from a session with a frame becomes its child: these runs start from none.
unset CTX_SESSION CTX_SESSION_PID

if [[ -n ${CTX:-} ]]; then
  ctx=$(cd "$(dirname "$CTX")" && pwd)/$(basename "$CTX")
else
  cargo build --release --quiet
  ctx=$repo/target/release/ctx
fi

source tests/e2e/pi-install.sh

work=$(mktemp -d)
mock_pid=
cleanup() {
  [[ -n $mock_pid ]] && kill "$mock_pid" 2>/dev/null || true
  [[ -n ${KEEP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
[[ -z ${KEEP:-} ]] || echo "work folder: $work" >&2
# The extension runs `ctx` from PATH: a CTX of another name is linked under that name.
mkdir -p "$work/bin"
ln -s "$ctx" "$work/bin/ctx"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# prompt N: the person's words for item N.
prompt() {
  local words="Refund backlog item $1: run its checks and fix what fails."
  [[ $1 != 12 ]] || words="$words Also check the currency rounding in each remaining item."
  echo "$words"
}

# steps FOLDER: the stand-in's script for the whole session (every agent request takes the next step; pi's
# compaction requests offer no tools and get the stand-in's fixed reply) into FOLDER/steps.json, and how many
# steps each item's turn takes into FOLDER/steps-per-turn.
steps() {
  python3 - "$1" <<'PY'
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, "benches")
import long_items
folder = sys.argv[1]
call = lambda command: {"tools": True, "tool_calls": [{"name": "bash", "arguments": {"command": command}}]}
steps, counts = [], []
for n, a, b in long_items.ITEMS:
    # long.sh's plain script, item n: pi's bash takes no description, so what long.sh writes there is echoed.
    turn = [call(f"echo 'push: Refund backlog item {n}'")]
    for k, size in enumerate((a, b)):
        turn.append(call(f"python3 build-log.py {n} {k} {size}"))
        if long_items.nested(n) and k == 0:
            turn.append(call(f"echo 'push: Item {n}: the rounding detail'"))
            turn.append(call(f"python3 build-log.py {n} inner {long_items.INNER_SIZE}"))
            turn.append(call(f"echo 'pop: Item {n} detail: rounding is half-even.'"))
    summary = f"Item {n} done: its checks ran and the refund handler and the ledger agree."
    turn.append(call(f"echo 'pop: {summary}'"))
    turn.append(call(f"echo 'between items: {n} of 22 done'"))
    turn.append({"tools": True, "reply": summary})
    steps.extend(turn)
    counts.append(len(turn))
json.dump(steps, open(f"{folder}/steps.json", "w"), indent=1)
open(f"{folder}/steps-per-turn", "w").write(" ".join(map(str, counts)) + "\n")
PY
}

# pi's agent folder for one way: the stand-in provider and its 64 000-token model. pi keeps its sessions here.
agent_dir() {
  local dir=$1 port=$2
  mkdir -p "$dir"
  cat >"$dir/models.json" <<EOF
{"providers": {"mock": {"api": "openai-completions", "baseUrl": "http://127.0.0.1:$port/v1", "apiKey": "x",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
  "models": [{"id": "mock-1", "name": "Mock 1", "contextWindow": $CONTEXT_TOKENS, "maxTokens": $OUTPUT_TOKENS}]}}}
EOF
}

run_way() {
  local way=$1 port=$2
  local project=$work/$way/project agent=$work/$way/agent requests=$work/$way/requests
  mkdir -p "$project" "$requests"
  git -C "$project" init -q
  cp benches/fold-output.py "$project/build-log.py"
  if [[ $way == turns ]]; then
    "$ctx" -C "$project" -q pi install >/dev/null
    mkdir -p "$project/.opencode"
    printf '[frame]\nauto = "turns"\n%s' "${FOLD_AFTER:+fold_after = $FOLD_AFTER
}" >"$project/.opencode/ctx.toml"
  fi
  agent_dir "$agent" "$port"
  steps "$work/$way"
  # One stand-in for the whole session: its call ids (call_<request>_<i>) stay unique across the processes, as a
  # real provider's do.
  python3 tests/e2e/mock-llm.py --strict --port "$port" --requests "$requests" --script "$work/$way/steps.json" \
    --max-seconds 7200 &
  mock_pid=$!
  for _ in $(seq 50); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 0.2)" "$port" \
      2>/dev/null && break
    sleep 0.1
  done
  local n continue=() expected=0 used count
  read -r -a counts <"$work/$way/steps-per-turn"
  for n in $(seq 1 22); do
    (cd "$project" && PATH=$work/bin:$PATH PI_OFFLINE=1 PI_CODING_AGENT_DIR=$agent timeout 600 "$pi_bin" -p \
      --provider mock --model mock-1 "${continue[@]}" "$(prompt "$n")" >"$work/$way/pi-$n.out" 2>"$work/$way/pi-$n.err") || {
      echo "$way: pi exited non-zero in turn $n; its output:" >&2
      tail -5 "$work/$way/pi-$n.out" "$work/$way/pi-$n.err" >&2
    }
    continue=(-c)
    expected=$((expected + counts[n - 1]))
    used=$(find "$requests" -name '*.step.json' | wc -l)
    [[ $used -eq $expected ]] ||
      echo "$way: after turn $n the stand-in used $used of the $expected scripted steps so far (KEEP=1 keeps the logs)" >&2
  done
  kill "$mock_pid" 2>/dev/null || true
  wait "$mock_pid" 2>/dev/null || true
  mock_pid=
  # What ctx's extension said (once each), and pi's sessions beside the requests, for the tool errors.
  cat "$work/$way"/pi-*.err | sort | uniq -c | sed "s/^/$way: pi's stderr: /" >&2 || true
  ln -s "$agent/sessions" "$work/$way/pi-sessions"
}

echo "pi $PI_VERSION, ctx $("$ctx" --version | cut -d' ' -f2) ($(git rev-parse --short HEAD 2>/dev/null || echo '?'))," \
  "model context $CONTEXT_TOKENS tokens, stand-in in strict mode, one pi -p process per turn"
echo
logs=()
for i in "${!ways[@]}"; do
  way=${ways[$i]}
  if [[ -n ${MOCK_PORT:-} ]]; then port=$((MOCK_PORT + i)); else port=$(free_port); fi
  run_way "$way" "$port"
  logs+=("$way=$work/$way/requests")
done
python3 benches/long-measure.py "$ctx" "${logs[@]}" ${LONG_JSON:+--json "$LONG_JSON"}

#!/usr/bin/env bash
# Runs a real Qwen Code (npm @qwen-code/qwen-code, pinned below), isolated from the user's own, against the
# stand-in chat completions API in mock-llm.py. Where it may (root, or user namespaces), it runs inside a network
# namespace that has only loopback, so nothing can leave the machine.
#
#   qwen-sandbox.sh SANDBOX PROJECT -- QWEN-ARGS...
#
# SANDBOX  a folder of your choosing: SANDBOX/home is Qwen Code's HOME (its own folder ~/.qwen: settings.json
#          written here with the stand-in as the model; its sessions in projects/<project>/chats/, its ledger of
#          model calls in usage/), SANDBOX/requests/NNNN.json what it sent to the model (NNNN.step.json the step
#          that answered), SANDBOX/mock.log the stand-in's output.
# PROJECT  the folder Qwen Code runs in; its hooks go in PROJECT/.qwen/settings.json (`ctx qwen install`).
#
# The run is `qwen --yolo QWEN-ARGS` (without --yolo no shell tool is offered). Scripted model:
# MOCK_SCRIPT=steps.json (see mock-llm.py), always in strict mode. MOCK_PORT (default 47611) is its port.
# CTX_BIN, when set, is passed to Qwen Code (and so to its hooks).
#
# Observed with Qwen Code 0.24.4 (on Node 20, though it asks for 22): the model's shell has QWEN_CODE_SESSION_ID
# and QWEN_CODE_AGENT_ID (empty but in a subagent); after a turn that ran tools, a later process may add a call of
# its own (its memory extractor, with tools), which a script's fixed reply answers.
set -euo pipefail
QWEN_VERSION=0.24.4
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 3 && $3 == -- ]] || { echo "usage: $0 SANDBOX PROJECT -- QWEN-ARGS..." >&2; exit 2; }
sandbox=$(mkdir -p "$1" && cd "$1" && pwd)
project=$(mkdir -p "$2" && cd "$2" && pwd)
shift 3

home=${CTX_QWEN_HOME:-$HOME/.cache/ctx-qwen}
bin=$home/node_modules/.bin/qwen
if [[ ! -x $bin ]]; then
  mkdir -p "$home"
  (cd "$home" && npm install --no-audit --no-fund --silent "@qwen-code/qwen-code@$QWEN_VERSION" >&2)
fi
port=${MOCK_PORT:-47611}
mkdir -p "$sandbox/home/.qwen" "$sandbox/requests"
[[ -f $sandbox/home/.qwen/settings.json ]] ||
  echo '{"security": {"auth": {"selectedType": "openai"}}, "model": {"name": "mock-1"}}' >"$sandbox/home/.qwen/settings.json"

inner=$(cat <<'INNER'
set -u
ip link set lo up 2>/dev/null || true
python3 "$MOCK_PY" --port "$MOCK_PORT_" --requests "$SANDBOX_/requests" ${MOCK_SCRIPT:+--script "$MOCK_SCRIPT"} \
  ${MOCK_REPLY:+--reply "$MOCK_REPLY"} --strict --max-seconds 900 >"$SANDBOX_/mock.log" 2>&1 &
mock=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$MOCK_PORT_") 2>/dev/null && break; sleep 0.1; done
cd "$PROJECT_"
env -i PATH="$PATH" HOME="$SANDBOX_/home" TERM=dumb LANG=C.UTF-8 \
  OPENAI_API_KEY=mock-key OPENAI_BASE_URL="http://127.0.0.1:$MOCK_PORT_/v1" OPENAI_MODEL=mock-1 \
  QWEN_CODE_SUPPRESS_YOLO_WARNING=1 ${CTX_BIN:+CTX_BIN="$CTX_BIN"} \
  timeout 300 "$QWEN_BIN" --yolo "$@" </dev/null
rc=$?
kill "$mock" 2>/dev/null || true
exit $rc
INNER
)
export MOCK_PY=$here/mock-llm.py MOCK_PORT_=$port SANDBOX_=$sandbox PROJECT_=$project QWEN_BIN=$bin
if unshare -n true 2>/dev/null; then
  exec unshare -n bash -c "$inner" _ "$@"
else
  exec bash -c "$inner" _ "$@"
fi

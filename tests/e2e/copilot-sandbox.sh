#!/usr/bin/env bash
# Runs a real GitHub Copilot CLI (npm @github/copilot, pinned below: a native binary), isolated from the user's
# own, against the stand-in chat completions API in mock-llm.py, offline and with a key of its own (Copilot's
# "bring your own key" provider). Where it may (root, or user namespaces), it runs inside a network namespace
# that has only loopback, so nothing can leave the machine.
#
#   copilot-sandbox.sh SANDBOX PROJECT -- COPILOT-ARGS...
#
# SANDBOX  a folder of your choosing: SANDBOX/home is the HOME, SANDBOX/home/.copilot Copilot's own folder
#          (COPILOT_HOME: settings.json, its sessions in session-state/<id>/events.jsonl),
#          SANDBOX/requests/NNNN.json what it sent to the model (NNNN.step.json the step that answered),
#          SANDBOX/mock.log the stand-in's output.
# PROJECT  the folder Copilot runs in; its hooks go in PROJECT/.github/hooks/ (`ctx copilot install`), which
#          Copilot runs only in a trusted folder: pass --trust-folder among the arguments (a new session's
#          run only), or set COPILOT_ALLOW_ALL=true (a resumed one's), which is passed on.
#
# The run is `copilot --allow-all-tools COPILOT-ARGS`. Scripted model: MOCK_SCRIPT=steps.json (see
# mock-llm.py), always in strict mode. MOCK_PORT (default 47911) is its port. CTX_BIN, when set, is passed to
# Copilot (and so to its hooks). COPILOT_MAX_PROMPT_TOKENS, when set, is the model's prompt limit (64 000 else).
set -euo pipefail
COPILOT_VERSION=1.0.102
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 3 && $3 == -- ]] || { echo "usage: $0 SANDBOX PROJECT -- COPILOT-ARGS..." >&2; exit 2; }
sandbox=$(mkdir -p "$1" && cd "$1" && pwd)
project=$(mkdir -p "$2" && cd "$2" && pwd)
shift 3

home=${CTX_COPILOT_HOME:-$HOME/.cache/ctx-copilot}
bin=$home/node_modules/@github/copilot-linux-x64/copilot
if [[ ! -x $bin ]]; then
  mkdir -p "$home"
  (cd "$home" && npm install --no-audit --no-fund --silent "@github/copilot@$COPILOT_VERSION" >&2)
fi
port=${MOCK_PORT:-47911}
mkdir -p "$sandbox/home/.copilot" "$sandbox/requests"

inner=$(cat <<'INNER'
set -u
ip link set lo up 2>/dev/null || true
python3 "$MOCK_PY" --port "$MOCK_PORT_" --requests "$SANDBOX_/requests" ${MOCK_SCRIPT:+--script "$MOCK_SCRIPT"} \
  ${MOCK_REPLY:+--reply "$MOCK_REPLY"} --strict --max-seconds 900 >"$SANDBOX_/mock.log" 2>&1 &
mock=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$MOCK_PORT_") 2>/dev/null && break; sleep 0.1; done
cd "$PROJECT_"
env -i PATH="$PATH" HOME="$SANDBOX_/home" TERM=dumb LANG=C.UTF-8 COPILOT_HOME="$SANDBOX_/home/.copilot" \
  COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false COPILOT_MODEL=gpt-4.1 COPILOT_PROVIDER_API_KEY=mock-key \
  COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$MOCK_PORT_/v1" \
  ${COPILOT_MAX_PROMPT_TOKENS:+COPILOT_PROVIDER_MAX_PROMPT_TOKENS="$COPILOT_MAX_PROMPT_TOKENS"} \
  ${CTX_BIN:+CTX_BIN="$CTX_BIN"} ${COPILOT_ALLOW_ALL:+COPILOT_ALLOW_ALL="$COPILOT_ALLOW_ALL"} \
  timeout 300 "$COPILOT_BIN" --allow-all-tools "$@" </dev/null
rc=$?
kill "$mock" 2>/dev/null || true
exit $rc
INNER
)
export MOCK_PY=$here/mock-llm.py MOCK_PORT_=$port SANDBOX_=$sandbox PROJECT_=$project COPILOT_BIN=$bin
if unshare -n true 2>/dev/null; then
  exec unshare -n bash -c "$inner" _ "$@"
else
  exec bash -c "$inner" _ "$@"
fi

#!/usr/bin/env bash
# Runs a real Gemini CLI (npm @google/gemini-cli, pinned below), isolated from the user's own, against the
# stand-in Gemini API in mock-gemini.py, offline and with a key of its own. Where it may (root, or user
# namespaces), it runs inside a network namespace that has only loopback, so nothing can leave the machine.
#
#   gemini-sandbox.sh SANDBOX PROJECT -- GEMINI-ARGS...
#
# SANDBOX  a folder of your choosing: SANDBOX/home is the HOME and GEMINI_CLI_HOME (Gemini's own folder
#          SANDBOX/home/.gemini: settings.json written here with the API-key auth the stand-in needs; its sessions
#          in tmp/<project name>/chats/), SANDBOX/requests/NNNN.json what it sent to the model (NNNN.step.json the
#          step that answered), SANDBOX/mock.log the stand-in's output.
# PROJECT  the folder Gemini CLI runs in; its hooks go in PROJECT/.gemini/settings.json (`ctx gemini install`).
#          The folder is trusted (GEMINI_CLI_TRUST_WORKSPACE=true) unless GEMINI_TRUST=false.
#
# The run is `gemini -m gemini-2.5-pro --approval-mode yolo GEMINI-ARGS` (without yolo only read-only tools are
# offered; without -m a router model is asked first). Scripted model: MOCK_SCRIPT=steps.json (see stand_in.py),
# in strict mode unless MOCK_LAX=1 (for a bench that measures what Gemini CLI sends on its own: its --resume sends
# each tool result twice, which strict mode refuses). MOCK_PORT (default 47621) is its port. CTX_BIN, when set, is
# passed to Gemini CLI (and so to its hooks).
set -euo pipefail
GEMINI_VERSION=0.61.0
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 3 && $3 == -- ]] || { echo "usage: $0 SANDBOX PROJECT -- GEMINI-ARGS..." >&2; exit 2; }
sandbox=$(mkdir -p "$1" && cd "$1" && pwd)
project=$(mkdir -p "$2" && cd "$2" && pwd)
shift 3

home=${CTX_GEMINI_HOME:-$HOME/.cache/ctx-gemini}
bin=$home/node_modules/.bin/gemini
if [[ ! -x $bin ]]; then
  mkdir -p "$home"
  (cd "$home" && npm install --no-audit --no-fund --silent "@google/gemini-cli@$GEMINI_VERSION" >&2)
fi
port=${MOCK_PORT:-47621}
mkdir -p "$sandbox/home/.gemini" "$sandbox/requests"
settings=$sandbox/home/.gemini/settings.json
[[ -f $settings ]] || cat >"$settings" <<'EOF'
{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false},
 "general": {"disableAutoUpdate": true, "disableUpdateNag": true}}
EOF

inner=$(cat <<'INNER'
set -u
ip link set lo up 2>/dev/null || true
python3 "$MOCK_PY" --port "$MOCK_PORT_" --requests "$SANDBOX_/requests" ${MOCK_SCRIPT:+--script "$MOCK_SCRIPT"} \
  ${MOCK_REPLY:+--reply "$MOCK_REPLY"} $STRICT_ --max-seconds 900 >"$SANDBOX_/mock.log" 2>&1 &
mock=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$MOCK_PORT_") 2>/dev/null && break; sleep 0.1; done
cd "$PROJECT_"
env -i PATH="$PATH" HOME="$SANDBOX_/home" GEMINI_CLI_HOME="$SANDBOX_/home" TERM=dumb LANG=C.UTF-8 \
  GEMINI_API_KEY=mock-key GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$MOCK_PORT_" \
  GEMINI_CLI_TRUST_WORKSPACE="$TRUST_" ${CTX_BIN:+CTX_BIN="$CTX_BIN"} \
  timeout 300 "$GEMINI_BIN" -m gemini-2.5-pro --approval-mode yolo "$@" </dev/null
rc=$?
kill "$mock" 2>/dev/null || true
exit $rc
INNER
)
export MOCK_PY=$here/mock-gemini.py MOCK_PORT_=$port SANDBOX_=$sandbox PROJECT_=$project GEMINI_BIN=$bin \
  TRUST_=${GEMINI_TRUST:-true} STRICT_=$([[ ${MOCK_LAX:-} == 1 ]] || echo --strict)
if unshare -n true 2>/dev/null; then
  exec unshare -n bash -c "$inner" _ "$@"
else
  exec bash -c "$inner" _ "$@"
fi

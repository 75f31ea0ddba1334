#!/usr/bin/env bash
# Runs a real Codex CLI (npm @openai/codex, pinned below), isolated from the user's own, against the stand-in
# Responses API in mock-responses.py. Where it may (root, or user namespaces), it runs inside a network namespace that
# has only loopback, so nothing can leave the machine.
#
#   codex-sandbox.sh SANDBOX PROJECT -- CODEX-EXEC-ARGS...
#
# SANDBOX  a folder of your choosing: SANDBOX/codex-home is CODEX_HOME (config.toml written here: the stand-in as
#          the model provider; its rollouts in sessions/), SANDBOX/home the HOME of Codex and of the model's login
#          shell, SANDBOX/requests/NNNN.json what Codex sent to the model (NNNN.step.json the step that answered),
#          SANDBOX/mock.log the stand-in's output.
# PROJECT  the folder Codex runs in; its hooks go in PROJECT/.codex/hooks.json (`ctx codex install`).
#
# The run is `codex exec --skip-git-repo-check --dangerously-bypass-hook-trust
# --dangerously-bypass-approvals-and-sandbox CODEX-EXEC-ARGS` (hooks run only when trusted; the model's commands
# write the project's frame state). Scripted model: MOCK_SCRIPT=steps.json (see mock-responses.py), always in strict
# mode. MOCK_PORT (default 47401) is its port. CTX_BIN, when set, is passed to Codex (and so to its hooks).
#
# Observed with Codex 0.171.0: it speaks only the streamed Responses API, sends the request bodies uncompressed to
# this provider, and runs the model's commands in a login shell (`bash -lc`), whose PATH is the login PATH.
set -euo pipefail
CODEX_VERSION=0.171.0
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 3 && $3 == -- ]] || { echo "usage: $0 SANDBOX PROJECT -- CODEX-EXEC-ARGS..." >&2; exit 2; }
sandbox=$(mkdir -p "$1" && cd "$1" && pwd)
project=$(mkdir -p "$2" && cd "$2" && pwd)
shift 3

home=${CTX_CODEX_HOME:-$HOME/.cache/ctx-codex}
bin=$home/node_modules/.bin/codex
if [[ ! -x $bin ]]; then
  mkdir -p "$home"
  (cd "$home" && npm install --no-audit --no-fund --silent "@openai/codex@$CODEX_VERSION" >&2)
fi
port=${MOCK_PORT:-47401}
mkdir -p "$sandbox/home" "$sandbox/codex-home" "$sandbox/requests"
cat >"$sandbox/codex-home/config.toml" <<TOML
model = "mock-1"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$port/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"

[projects."$project"]
trust_level = "trusted"
TOML

inner=$(cat <<'INNER'
set -u
ip link set lo up 2>/dev/null || true
python3 "$MOCK_PY" --port "$MOCK_PORT_" --requests "$SANDBOX_/requests" ${MOCK_SCRIPT:+--script "$MOCK_SCRIPT"} \
  ${MOCK_REPLY:+--reply "$MOCK_REPLY"} --strict --max-seconds 900 >"$SANDBOX_/mock.log" 2>&1 &
mock=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$MOCK_PORT_") 2>/dev/null && break; sleep 0.1; done
cd "$PROJECT_"
env -i PATH="$PATH" HOME="$SANDBOX_/home" TERM=dumb LANG=C.UTF-8 CODEX_HOME="$SANDBOX_/codex-home" \
  MOCK_API_KEY=mock-key ${CTX_BIN:+CTX_BIN="$CTX_BIN"} \
  timeout 300 "$CODEX_BIN" exec --skip-git-repo-check --dangerously-bypass-hook-trust \
  --dangerously-bypass-approvals-and-sandbox "$@" </dev/null
rc=$?
kill "$mock" 2>/dev/null || true
exit $rc
INNER
)
export MOCK_PY=$here/mock-responses.py MOCK_PORT_=$port SANDBOX_=$sandbox PROJECT_=$project CODEX_BIN=$bin
if unshare -n true 2>/dev/null; then
  exec unshare -n bash -c "$inner" _ "$@"
else
  exec bash -c "$inner" _ "$@"
fi

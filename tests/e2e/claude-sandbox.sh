#!/usr/bin/env bash
# Runs a real Claude Code (npm @anthropic-ai/claude-code, pinned below), isolated from the user's own, against the
# stand-in Messages API in mock-anthropic.py. Where it may (root, or user namespaces), it runs inside a network
# namespace that has only loopback, so nothing can leave the machine.
#
#   claude-sandbox.sh SANDBOX PROJECT -- CLAUDE-ARGS...
#
# SANDBOX  a folder of your choosing: SANDBOX/home is Claude Code's HOME (its settings ~/.claude/settings.json, its
#          transcripts ~/.claude/projects/<cwd with / as ->/<session id>.jsonl), SANDBOX/requests/NNNN.json what it
#          sent to the model (and NNNN.step.json the script step that answered), SANDBOX/mock.log the stand-in's output.
# PROJECT  the folder Claude Code runs in; its hooks go in PROJECT/.claude/settings.json.
#
# Scripted model: MOCK_SCRIPT=steps.json (see mock-anthropic.py: replies, tool_use blocks such as Bash or the
# subagent tool "Agent", reported usage, delays). MOCK_PORT (default 47811) is its port.
#
# Observed with Claude Code 2.1.328 (every request streams; with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 its only
# connection is POST /v1/messages to the stand-in; as root, --dangerously-skip-permissions needs IS_SANDBOX=1, which
# this script sets; read-only Bash commands run without it, writes need --allowedTools Bash or that flag):
#   claude-sandbox.sh "$sb" ./proj -- -p "Do the work" --output-format json --dangerously-skip-permissions
#   claude-sandbox.sh "$sb" ./proj -- -p "/compact keep the frame ids" --resume SESSION_ID --output-format json
set -euo pipefail
CLAUDE_VERSION=2.1.328
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 3 && $3 == -- ]] || { echo "usage: $0 SANDBOX PROJECT -- CLAUDE-ARGS..." >&2; exit 2; }
sandbox=$(mkdir -p "$1" && cd "$1" && pwd)
project=$(mkdir -p "$2" && cd "$2" && pwd)
shift 3

home=${CTX_CLAUDE_HOME:-$HOME/.cache/ctx-claude}
bin=$home/node_modules/.bin/claude
if [[ ! -x $bin ]]; then
  mkdir -p "$home"
  (cd "$home" && npm install --no-audit --no-fund --silent "@anthropic-ai/claude-code@$CLAUDE_VERSION" >&2)
fi
port=${MOCK_PORT:-47811}
mkdir -p "$sandbox/home" "$sandbox/requests"

inner=$(cat <<'EOF'
set -u
ip link set lo up 2>/dev/null || true
python3 "$MOCK_PY" --port "$MOCK_PORT_" --requests "$SANDBOX_/requests" ${MOCK_SCRIPT:+--script "$MOCK_SCRIPT"} \
  ${MOCK_REPLY:+--reply "$MOCK_REPLY"} ${MOCK_STRICT:+--strict} --max-seconds 900 >"$SANDBOX_/mock.log" 2>&1 &
mock=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$MOCK_PORT_") 2>/dev/null && break; sleep 0.1; done
cd "$PROJECT_"
env -i PATH="$PATH" HOME="$SANDBOX_/home" TERM=dumb LANG=C.UTF-8 \
  ANTHROPIC_BASE_URL="http://127.0.0.1:$MOCK_PORT_" ANTHROPIC_API_KEY=mock-key \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 IS_SANDBOX=1 \
  ${CTX_BIN:+CTX_BIN="$CTX_BIN"} timeout 300 "$CLAUDE_BIN" "$@" </dev/null
rc=$?
kill "$mock" 2>/dev/null || true
exit $rc
EOF
)
export MOCK_PY=$here/mock-anthropic.py MOCK_PORT_=$port SANDBOX_=$sandbox PROJECT_=$project CLAUDE_BIN=$bin
if unshare -n true 2>/dev/null; then
  exec unshare -n bash -c "$inner" _ "$@"
else
  exec bash -c "$inner" _ "$@"
fi

#!/usr/bin/env bash
# Runs a real Kilo Code CLI, isolated from the user's own, against the stand-in model in mock-llm.py:
# opencode-sandbox.sh's interface, for Kilo (an OpenCode fork), so that opencode.sh's scenarios run
# through either (tests/e2e/kilo.sh).
#
#   kilo-sandbox.sh SANDBOX PROJECT -- KILO-ARGS...
#   kilo-sandbox.sh --install       (installs Kilo and its plugin kit, below, and nothing else)
#
# SANDBOX and PROJECT as in opencode-sandbox.sh: Kilo's data/config/cache/state folders (XDG_* point
# there; its sessions in SANDBOX/data/kilo/kilo.db), the request log and the stand-in's output; the
# project, given an opencode.json for the stand-in if it has none (Kilo reads opencode.json as it
# reads kilo.json). `run` is given --auto: without it, Kilo's `run` refuses every bash call.
#
# Kilo comes from npm, pinned below, installed once into ${CTX_KILO_HOME:-$HOME/.cache/ctx-kilo}
# with --ignore-scripts: the launcher @kilocode/cli 7.8.1 has no binary of its own version on the
# registry (its postinstall fails), so the binary package is 7.7.9's, which `kilo --version` names.
# The plugin kit @kilocode/plugin (7.3.1, the newest on the registry) is installed beside it, in
# kit/: Kilo installs @kilocode/plugin@<its version> into each project's .kilo/ at start-up, and
# 7.7.9 is not on the registry, so a test links a project's .kilo/node_modules to kit/'s.
# Environment: MOCK_SCRIPT, MOCK_STRICT, MOCK_REPLY and MOCK_PORT as in opencode-sandbox.sh.
set -euo pipefail
KILO_VERSION=7.8.1
KILO_BINARY_VERSION=7.7.9
KILO_PLUGIN_VERSION=7.3.1
here=$(cd "$(dirname "$0")" && pwd)
home=${CTX_KILO_HOME:-$HOME/.cache/ctx-kilo}
[[ ${1:-} == --install || ($# -ge 3 && $3 == --) ]] ||
  { echo "usage: $0 SANDBOX PROJECT -- KILO-ARGS...  (or --install: only install Kilo)" >&2; exit 2; }

bin=$home/node_modules/@kilocode/cli-linux-x64/bin/kilo
if [[ ! -x $bin ]]; then
  mkdir -p "$home"
  (cd "$home" && npm install --ignore-scripts --no-audit --no-fund --silent \
    "@kilocode/cli@$KILO_VERSION" "@kilocode/cli-linux-x64@$KILO_BINARY_VERSION" >&2)
fi
# The kit, in a folder of its own that projects link to (KILO_KIT is its node_modules).
if [[ ! -f $home/kit/node_modules/@kilocode/plugin/package.json ]]; then
  mkdir -p "$home/kit" && echo '{}' >"$home/kit/package.json"
  npm install --prefix "$home/kit" --no-audit --no-fund --silent "@kilocode/plugin@$KILO_PLUGIN_VERSION" >&2
fi
[[ $1 != --install ]] || exit 0
sandbox=$(mkdir -p "$1" && cd "$1" && pwd)
project=$(mkdir -p "$2" && cd "$2" && pwd)
shift 3

port=${MOCK_PORT:-47211}
if [[ ! -f $project/opencode.json ]]; then
  cat >"$project/opencode.json" <<EOF2
{
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": { "baseURL": "http://127.0.0.1:$port/v1", "apiKey": "unused" },
      "models": { "mock-1": { "name": "Mock 1", "limit": { "context": 200000, "output": 32000 } } }
    }
  },
  "model": "mock/mock-1",
  "autoupdate": false
}
EOF2
fi

export XDG_DATA_HOME=$sandbox/data XDG_CONFIG_HOME=$sandbox/config XDG_CACHE_HOME=$sandbox/cache \
  XDG_STATE_HOME=$sandbox/state KILO_DISABLE_AUTOUPDATE=1 KILO_DISABLE_MODELS_FETCH=1 \
  KILO_DISABLE_SHARE=1 KILO_DISABLE_LSP_DOWNLOAD=1
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"

mock_pid=
if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  python3 "$here/mock-llm.py" --port "$port" --requests "$sandbox/requests" \
    ${MOCK_REPLY:+--reply "$MOCK_REPLY"} ${MOCK_SCRIPT:+--script "$MOCK_SCRIPT"} ${MOCK_STRICT:+--strict} --max-seconds 900 >"$sandbox/mock.log" 2>&1 &
  mock_pid=$!
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
fi
trap '[[ -n $mock_pid ]] && kill "$mock_pid" 2>/dev/null || true' EXIT

cd "$project"
if [[ ${1:-} == run ]]; then
  shift
  set -- run --auto "$@"
fi
timeout 300 "$bin" "$@"

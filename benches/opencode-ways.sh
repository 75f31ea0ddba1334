# What benches/fold.sh and benches/long.sh share, sourced by both (from the repository's root, with `repo` set):
# the ways they run (plain OpenCode, ctx's plugin, DCP), the ctx binary, DCP and its peer installed under
# target/bench-peers/, the work folder, free ports, and each way's project: its opencode.json and OpenCode's
# plugin kit, which the sandbox script installs once.
#
#   source benches/opencode-ways.sh "$@"     sets: ways, ctx, dcp, work
#   way_project WAY PROJECT SANDBOX PORT CONTEXT OUTPUT   writes the project of WAY (model limits CONTEXT/OUTPUT)
#   free_port                                 a port nobody listens on now

DCP_VERSION=3.1.14
OPENCODE_PLUGIN_VERSION=1.18.33 # @opencode-ai/plugin, DCP's peer: the OpenCode the sandbox runs

ways=("$@")
[[ ${#ways[@]} -gt 0 ]] || ways=(plain ctx dcp)
for way in "${ways[@]}"; do
  case $way in plain | ctx | dcp | turns | plain-todos | ctx-todos | dcp-todos) ;;
    *) echo "usage: $0 [plain|ctx|dcp|turns|plain-todos|ctx-todos|dcp-todos]..." >&2; exit 2 ;;
  esac
done

if [[ -n ${CTX:-} ]]; then
  ctx=$(cd "$(dirname "$CTX")" && pwd)/$(basename "$CTX")
else
  cargo build --release --quiet
  ctx=$repo/target/release/ctx
fi

peers=$repo/target/bench-peers/dcp-$DCP_VERSION
dcp=$peers/node_modules/@tarquinen/opencode-dcp
if [[ ! -f $dcp/dist/index.js || ! -d $peers/node_modules/@opencode-ai/plugin ]]; then
  mkdir -p "$peers"
  # --legacy-peer-deps: DCP's other peers (@opentui/*, solid-js) serve only its TUI entry, which OpenCode's
  # server does not load.
  (cd "$peers" && npm install --silent --no-audit --no-fund --legacy-peer-deps \
    "@tarquinen/opencode-dcp@$DCP_VERSION" "@opencode-ai/plugin@$OPENCODE_PLUGIN_VERSION" >/dev/null)
fi

# OpenCode and its plugin kit, which every project gets (opencode-sandbox.sh gives it to each sandbox's config
# folder): OpenCode would otherwise install it into the project's .opencode/ at start-up.
tests/e2e/opencode-sandbox.sh --install
work=$(mktemp -d)
if [[ -n ${KEEP:-} ]]; then
  echo "work folder: $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
# The plugin runs `ctx` from PATH: a CTX of another name is linked under that name.
if [[ $(basename "$ctx") != ctx ]]; then
  mkdir -p "$work/bin"
  ln -s "$ctx" "$work/bin/ctx"
  ctx=$work/bin/ctx
fi
grep -q -- '--strict' tests/e2e/opencode-sandbox.sh ||
  { echo "error: tests/e2e/opencode-sandbox.sh has no strict mode (MOCK_STRICT)" >&2; exit 1; }

# free_port: a port nobody listens on now (the sandbox would talk to whatever already listens on its port).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

way_project() {
  local way=$1 project=$2 sandbox=$3 port=$4 context=$5 output=$6 plugins=""
  mkdir -p "$project" "$sandbox"
  cp benches/fold-output.py "$project/build-log.py"
  case $way in
    ctx) "$ctx" -C "$project" -q opencode install >/dev/null ;;
    # ctx's plugin with its turn frames on, and plain's script: a model that never calls ctx.
    turns)
      "$ctx" -C "$project" -q opencode install >/dev/null
      printf '[frame]\nauto = "turns"\n%s' "${FOLD_AFTER:+fold_after = $FOLD_AFTER
}" >"$project/.opencode/ctx.toml"
      ;;
    # ctx's plugin with its turn and todo frames on, for the todo workload.
    ctx-todos)
      "$ctx" -C "$project" -q opencode install >/dev/null
      printf '[frame]\nauto = "all"\n%s' "${FOLD_AFTER:+fold_after = $FOLD_AFTER
}" >"$project/.opencode/ctx.toml"
      ;;
    dcp | dcp-todos)
      plugins="\"plugin\": [\"file://$dcp/dist/index.js\"],"
      mkdir -p "$project/.opencode"
      # The defaults, but no update check against npm.
      echo '{ "autoUpdate": false }' >"$project/.opencode/dcp.jsonc"
      ;;
  esac
  cat >"$project/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  $plugins
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": { "baseURL": "http://127.0.0.1:$port/v1", "apiKey": "unused" },
      "models": { "mock-1": { "name": "Mock 1", "limit": { "context": $context, "output": $output } } }
    }
  },
  "model": "mock/mock-1",
  "autoupdate": false
}
EOF
  tests/e2e/opencode-sandbox.sh --kit "$project/.opencode"
}

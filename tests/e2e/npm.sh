#!/usr/bin/env bash
# End to end: ctx as npm users get it. Packages ctxkit and @ctxkit/linux-x64 with
# scripts/release.sh (around this clone's debug build, stripped: a release build takes minutes),
# publishes them to a real npm registry (verdaccio 6.8, started here on 127.0.0.1), then from a
# clean HOME whose only npm setting is that registry:
#
#   - `npm i -g ctxkit` puts ctx on PATH (the binary itself), `npx ctxkit frame tree` runs;
#   - a broken install says what to do: the platform package left out (--omit=optional), a binary
#     that cannot be executed, a platform package of another version;
#   - the real OpenCode (opencode-sandbox.sh), with only `"plugin": ["ctxkit@VERSION"]` in its
#     opencode.json, installs the plugin by name; a scripted push and pop work with no ctx on PATH
#     and the request log shows the pop folded; with the binary unusable OpenCode says so once and
#     answers anyway; with the registry unreachable OpenCode still answers.
#
#   tests/e2e/npm.sh [SCENARIO...]   (default: all: cli broken opencode)
#
# Needs cargo, node/npm, python3, Linux x64. Verdaccio is installed once into
# ${CTX_VERDACCIO_HOME:-$HOME/.cache/ctx-verdaccio}. NPM_PORT (default 47241) is the registry's
# port, MOCK_PORT (default 47242) the stand-in model's.
set -euo pipefail
source "$(dirname "$0")/lib.sh" npm
export MOCK_PORT=${MOCK_PORT:-47242}
npm_port=${NPM_PORT:-47241}
registry=http://127.0.0.1:$npm_port/
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -1)

verdaccio_pid=""
at_exit() {
  [[ -z $verdaccio_pid ]] || kill "$verdaccio_pid" 2>/dev/null || true
  ! mountpoint -q "$work/noexec" 2>/dev/null || umount "$work/noexec"
}

# ---- the packages -----------------------------------------------------------------------------

# The release script refuses a tag that is not Cargo.toml's version, before building anything.
if "$repo/scripts/release.sh" --tag "v$version-not" --out "$work/refused" >/dev/null 2>"$work/refused.err"; then
  fail "release.sh accepted the tag v$version-not"
fi
grep -q "^error: tag v$version-not does not match Cargo.toml's version $version" "$work/refused.err" \
  || fail "release.sh: $(cat "$work/refused.err")"

strip -o "$work/ctx" "$ctx_dir/ctx"
"$repo/scripts/release.sh" --binary "$work/ctx" --out "$work/dist" x86_64-unknown-linux-musl >/dev/null

# ---- the registry -----------------------------------------------------------------------------

verdaccio_home=${CTX_VERDACCIO_HOME:-$HOME/.cache/ctx-verdaccio}
if [[ ! -x $verdaccio_home/node_modules/.bin/verdaccio ]]; then
  mkdir -p "$verdaccio_home"
  # verdaccio 6.8 needs node-fetch 2.7.0 on Node 20.
  cat >"$verdaccio_home/package.json" <<'EOF'
{ "private": true, "dependencies": { "verdaccio": "6.8.0" }, "overrides": { "node-fetch": "2.7.0" } }
EOF
  (cd "$verdaccio_home" && npm install --no-audit --no-fund --silent >&2)
fi
# ctx's packages live only here; anything else (OpenCode's own packages) comes through from the
# registry this machine's npm is set up with, so the names published here are never looked up
# there.
upstream=$(npm config get registry)
[[ $upstream == http* ]] || fail "npm config get registry gave '$upstream', not an address"
cat >"$work/verdaccio.yaml" <<EOF
storage: $work/registry
max_body_size: 200mb
auth:
  htpasswd:
    file: $work/htpasswd
    max_users: -1
uplinks:
  npmjs:
    url: $upstream
packages:
  'ctxkit':
    access: \$all
    publish: \$anonymous
  '@ctxkit/*':
    access: \$all
    publish: \$anonymous
  '**':
    access: \$all
    proxy: npmjs
log: { type: file, path: $work/verdaccio.log, level: warn }
EOF
"$verdaccio_home/node_modules/.bin/verdaccio" --config "$work/verdaccio.yaml" --listen "127.0.0.1:$npm_port" \
  >"$work/verdaccio.out" 2>&1 &
verdaccio_pid=$!
for _ in $(seq 100); do
  curl -fsS "${registry}-/ping" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "${registry}-/ping" >/dev/null || { cat "$work/verdaccio.out" >&2; fail "verdaccio did not start"; }

# A clean HOME whose npm config names the registry (and an anonymous token verdaccio accepts).
clean_home() {
  local home=$work/home-$1
  rm -rf "$home"
  mkdir -p "$home"
  printf 'registry=%s\n//127.0.0.1:%s/:_authToken=anonymous\n' "$registry" "$npm_port" >"$home/.npmrc"
  echo "$home"
}
publisher=$(clean_home publisher)
for package in linux-x64 ctxkit; do
  (cd "$work/dist/npm/$package" && HOME=$publisher npm publish --silent >/dev/null) || fail "npm publish $package"
done

# Node and npm without any ctx: PATH holds only node's folder and the system's.
base_path=$(dirname "$(command -v node)"):/usr/bin:/bin
PATH=$base_path command -v ctx >/dev/null && fail "a ctx is on the base PATH"

# ---- scenarios --------------------------------------------------------------------------------

demo() {
  rm -rf "$work/demo"
  cp -r "$repo/examples/demo" "$work/demo"
  echo "$work/demo"
}

scenario_cli() {
  echo "scenario cli: npm i -g ctxkit puts ctx on PATH; npx ctxkit runs any command"
  local home prefix project expected
  home=$(clean_home cli)
  prefix=$home/.npm-global
  project=$(demo)
  expected=$("$work/ctx" -C "$project" frame tree)
  HOME=$home PATH=$base_path npm i -g --prefix "$prefix" --silent "ctxkit@$version" >/dev/null || fail "npm i -g ctxkit"
  [[ -n $(find "$prefix/lib/node_modules" -path '*/@ctxkit/linux-x64/bin/ctx' -perm -u+x) ]] || fail "npm i -g: no @ctxkit/linux-x64"
  [[ $(HOME=$home PATH=$prefix/bin:$base_path ctx --version) == "ctx $version ("* ]] || fail "ctx --version after npm i -g"
  # OpenCode's plugin kit is an optional peer: the command alone does not pull it in.
  [[ -z $(find "$prefix/lib/node_modules" -path '*/@opencode-ai/plugin/package.json') ]] \
    || fail "npm i -g ctxkit installed @opencode-ai/plugin, an optional peer"
  # `ctx` on PATH is the binary itself, not the Node script that starts it (install.js).
  [[ $(head -c4 "$(readlink -f "$prefix/bin/ctx")" | od -An -c | tr -d ' ') == '177ELF' ]] \
    || fail "npm i -g: ctx on PATH is not the binary: $(readlink -f "$prefix/bin/ctx")"
  [[ $(cd "$project" && HOME=$home PATH=$prefix/bin:$base_path ctx frame tree) == "$expected" ]] || fail "ctx frame tree after npm i -g"
  local got
  got=$(cd "$project" && HOME=$home PATH=$base_path npx --yes "ctxkit@$version" frame tree) || fail "npx ctxkit frame tree"
  [[ $got == "$expected" ]] || fail "npx ctxkit frame tree printed: $got"
  # The exit status and stderr are ctx's own.
  local status=0
  (cd "$project" && HOME=$home PATH=$base_path npx --yes "ctxkit@$version" frame show fr_nope >/dev/null 2>"$work/npx.err") || status=$?
  [[ $status == 1 ]] || fail "npx ctxkit: exit $status for an unknown frame"
  grep -q "^error: " "$work/npx.err" || fail "npx ctxkit: no error line"
}

# install_local NAME [NPM-ARGS]: ctxkit installed into a fresh folder; prints the folder.
install_local() {
  local home dir
  home=$(clean_home "$1")
  dir=$work/local-$1
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && echo '{"private": true}' >package.json && HOME=$home PATH=$base_path npm i --silent "${@:2}" "ctxkit@$version" >/dev/null) \
    || fail "$1: npm i ctxkit"
  echo "$dir"
}

# expect_error DIR WHAT PATTERN: running ctx through the package fails with exit 1 and an error
# line matching PATTERN, and the plugin, loaded as OpenCode loads it, says the same and hands
# OpenCode no hooks instead of throwing.
expect_error() {
  local dir=$1 what=$2 pattern=$3 status=0
  PATH=$base_path node "$dir/node_modules/ctxkit/bin/ctx.js" --version >/dev/null 2>"$work/err" || status=$?
  [[ $status == 1 ]] || fail "$what: exit $status"
  grep -Eq "^error: .*$pattern" "$work/err" || fail "$what: $(cat "$work/err")"
  (cd "$dir" && PATH=$base_path node --input-type=module -e '
    const logs = [];
    const { CtxkitPlugin } = await import(process.cwd() + "/node_modules/ctxkit/plugin.js");
    const hooks = await CtxkitPlugin({ client: { app: { log: async (m) => logs.push(m.body) } }, directory: process.cwd() });
    if (Object.keys(hooks).length !== 0) throw new Error("the plugin gave hooks");
    if (logs.length !== 1 || logs[0].level !== "error") throw new Error("logged: " + JSON.stringify(logs));
    console.log(logs[0].message);
  ' >"$work/plugin.out" 2>/dev/null) || fail "$what: the plugin threw or logged otherwise"
  grep -Eq "$pattern" "$work/plugin.out" || fail "$what: the plugin logged $(cat "$work/plugin.out")"
}

scenario_broken() {
  echo "scenario broken: without the platform package, with a binary that cannot run, with another version"
  local dir
  dir=$(install_local omit --omit=optional)
  [[ ! -e $dir/node_modules/@ctxkit/linux-x64 ]] || fail "--omit=optional installed the platform package"
  expect_error "$dir" "no platform package" "@ctxkit/linux-x64\) is not installed: install ctxkit again with its optional dependencies"

  # Where the binary could not be used at install time (or --ignore-scripts), `ctx` stays the Node
  # script, which says what is wrong: these installs keep it.
  dir=$(install_local noexec --ignore-scripts)
  chmod -x "$dir/node_modules/@ctxkit/linux-x64/bin/ctx"
  expect_error "$dir" "not executable" "cannot be run \(not executable, or its folder is mounted noexec"

  # A folder mounted noexec, where one can (root): the binary has its mode but cannot run.
  if [[ $(id -u) == 0 ]] && mkdir -p "$work/noexec" && mount -t tmpfs -o noexec tmpfs "$work/noexec" 2>/dev/null; then
    echo "scenario broken: in a folder mounted noexec"
    cp -r "$(install_local noexec-mount --ignore-scripts)/." "$work/noexec/"
    expect_error "$work/noexec" "a noexec folder" "cannot be run \(not executable, or its folder is mounted noexec"
    umount "$work/noexec"
  fi

  dir=$(install_local other-version --ignore-scripts)
  sed -i "s/\"version\": \"$version\"/\"version\": \"0.0.0-other\"/" "$dir/node_modules/@ctxkit/linux-x64/package.json"
  expect_error "$dir" "another version" "@ctxkit/linux-x64 is version 0.0.0-other, ctxkit $version"
}

# A project whose opencode.json names the stand-in model and, as its only ctx, the npm plugin.
plugin_project() {
  local project=$work/$1
  rm -rf "$project" && mkdir -p "$project"
  cat >"$project/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": { "baseURL": "http://127.0.0.1:$MOCK_PORT/v1", "apiKey": "unused" },
      "models": { "mock-1": { "name": "Mock 1", "limit": { "context": 200000, "output": 32000 } } }
    }
  },
  "model": "mock/mock-1",
  "autoupdate": false,
  "plugin": ["ctxkit@$version"]
}
EOF
  echo "$project"
}

# opencode NAME PROJECT HOME SCRIPT -- ARGS: one OpenCode run, no ctx on PATH; prints the request log's folder.
opencode() {
  local name=$1 project=$2 home=$3 script=$4
  shift 5
  local sandbox=$work/sandbox-$name
  mkdir -p "$sandbox/requests"
  local code=0
  HOME=$home PATH=$base_path MOCK_SCRIPT=$script "$here/opencode-sandbox.sh" "$sandbox" "$project" -- "$@" \
    >"$work/$name.out" 2>&1 || code=$?
  if [[ $code != 0 ]]; then
    cat "$work/$name.out" >&2
    tail -n 40 "$sandbox"/data/opencode/log/*.log >&2 2>/dev/null || true
    fail "$name: opencode exited with $code"
  fi
  echo "$sandbox/requests"
}

scenario_opencode() {
  echo "scenario opencode: \"plugin\": [\"ctxkit@$version\"] is all OpenCode needs; push and pop with no ctx on PATH"
  local home project requests
  home=$(clean_home opencode)
  # OpenCode itself and its plugin kit are installed (once) from the registry this machine's npm uses.
  CTX_OPENCODE_HOME=${CTX_OPENCODE_HOME:-$HOME/.cache/ctx-opencode}
  export CTX_OPENCODE_HOME
  "$here/opencode-sandbox.sh" --install
  project=$(plugin_project opencode)
  cat >"$work/pushpop.json" <<'EOF'
[
 {"tools": true, "when": "Start the refund work", "tool_calls": [{"name": "flame_push", "arguments": {"goal": "Handle refund events"}}]},
 {"tools": true, "when": "Pushed frame", "tool_calls": [{"name": "flame_pop", "arguments": {"summary": "Refunds handled."}}]},
 {"tools": true, "reply": "All done."}
]
EOF
  requests=$(opencode opencode "$project" "$home" "$work/pushpop.json" -- run "Start the refund work")
  local tree pushed
  tree=$("$work/ctx" -C "$project" frame tree --json)
  pushed=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["roots"][0]["children"][0]["id"])' <<<"$tree") \
    || fail "opencode: no pushed frame in $tree"
  [[ $(python3 -c 'import json,sys; print(json.load(sys.stdin)["roots"][0]["children"][0]["status"])' <<<"$tree") == completed ]] \
    || fail "opencode: the pushed frame was not popped: $tree"
  python3 - "$requests" "$pushed" <<'PY' || fail "opencode: the request log shows no fold"
import json, sys
from request_log import bodies
folded = False
for body in map(json.dumps, bodies(sys.argv[1])):
    # A completed frame's entry carries no status (the usual case goes unsaid), nor its log's
    # path when the log is where every pop writes it.
    folded |= ('<flame-folded id=\\"%s\\"' % sys.argv[2]) in body
sys.exit(0 if folded else 1)
PY

  echo "scenario opencode: an unusable binary is said once, logged, and OpenCode answers"
  local installed
  installed=$(find "$work/sandbox-opencode" -path '*node_modules/@ctxkit/linux-x64/bin/ctx' | head -1)
  [[ -n $installed ]] || fail "opencode: where did OpenCode install @ctxkit/linux-x64?"
  chmod -x "$installed"
  echo '[{"tools": true, "reply": "Answered without ctx."}]' >"$work/plain.json"
  rm -rf "$work/sandbox-opencode/requests"
  requests=$(opencode opencode "$project" "$home" "$work/plain.json" -- run "Anything")
  grep -q "Answered without ctx." "$work/opencode.out" || fail "opencode without a usable binary: no answer"
  [[ $(grep -c "ctxkit: ctx's binary .* cannot be run" "$work/opencode.out") == 1 ]] \
    || fail "opencode without a usable binary: not said once: $(cat "$work/opencode.out")"
  grep -rqs "ctxkit: ctx's binary" "$work/sandbox-opencode/data/opencode/log" || fail "opencode: not in OpenCode's log"
  chmod +x "$installed"

  echo "scenario opencode: the registry unreachable at OpenCode's first start: OpenCode answers"
  local offline
  offline=$(clean_home offline)
  printf 'registry=http://127.0.0.1:9/\n' >"$offline/.npmrc"
  opencode offline "$project" "$offline" "$work/plain.json" -- run "Anything" >/dev/null
  grep -q "Answered without ctx." "$work/offline.out" || fail "opencode with the registry unreachable: no answer"
  [[ ! -e $work/sandbox-offline/cache/opencode/packages/ctxkit@$version/node_modules/ctxkit ]] \
    || fail "opencode with the registry unreachable: ctxkit was installed after all"
}

all=(cli broken opencode)
chosen=("${@:-${all[@]}}")
for name in "${chosen[@]}"; do "scenario_${name//-/_}"; done
echo "ok: ${chosen[*]}"

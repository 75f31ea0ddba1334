#!/usr/bin/env bash
# Runs a real Kilo Code CLI, isolated from the user's own, against the stand-in model in mock-llm.py:
# opencode-sandbox.sh itself, with Kilo's binary for OpenCode's (Kilo is an OpenCode fork with
# OpenCode's command line), so that opencode.sh's scenarios run through either (tests/e2e/kilo.sh).
#
#   kilo-sandbox.sh SANDBOX PROJECT -- KILO-ARGS...
#   kilo-sandbox.sh --install       (installs Kilo and its plugin kit, below, and nothing else)
#   kilo-sandbox.sh --kit DIR       (the same, then gives DIR, a project's .kilo/, the kit)
#
# SANDBOX, PROJECT and the environment as in opencode-sandbox.sh; Kilo keeps its sessions in
# SANDBOX/data/kilo/kilo.db, and reads the project's opencode.json as it reads kilo.json. `run` is
# given --auto: without it, Kilo's `run` refuses every bash call.
#
# Kilo comes from npm, pinned below, installed once into ${CTX_KILO_HOME:-$HOME/.cache/ctx-kilo}
# with --ignore-scripts: the launcher @kilocode/cli 7.8.1 has no binary of its own version on the
# registry (its postinstall fails), so the binary package is 7.7.9's, which `kilo --version` names.
# The plugin kit @kilocode/plugin (7.3.1, the newest on the registry) is installed beside it, in
# kit/: Kilo installs @kilocode/plugin@<its version> into each project's .kilo/ at start-up, and
# 7.7.9 is not on the registry, so --kit gives a project's .kilo/ kit/'s node_modules, as hard
# links where it can (Kilo removes a symbolic link there), and nothing else: Kilo writes its own
# package.json.
set -euo pipefail
KILO_VERSION=7.8.1
KILO_BINARY_VERSION=7.7.9
KILO_PLUGIN_VERSION=7.3.1
here=$(cd "$(dirname "$0")" && pwd)
home=${CTX_KILO_HOME:-$HOME/.cache/ctx-kilo}
[[ ${1:-} == --install || (${1:-} == --kit && $# == 2) || ($# -ge 3 && $3 == --) ]] ||
  { echo "usage: $0 SANDBOX PROJECT -- KILO-ARGS...  (or --install, or --kit DIR)" >&2; exit 2; }

bin=$home/node_modules/@kilocode/cli-linux-x64/bin/kilo
if [[ ! -x $bin ]]; then
  mkdir -p "$home"
  (cd "$home" && npm install --ignore-scripts --no-audit --no-fund --silent \
    "@kilocode/cli@$KILO_VERSION" "@kilocode/cli-linux-x64@$KILO_BINARY_VERSION" >&2)
fi
if [[ ! -f $home/kit/node_modules/@kilocode/plugin/package.json ]]; then
  mkdir -p "$home/kit" && echo '{}' >"$home/kit/package.json"
  npm install --prefix "$home/kit" --no-audit --no-fund --silent "@kilocode/plugin@$KILO_PLUGIN_VERSION" >&2
fi
[[ $1 != --install ]] || exit 0
if [[ $1 == --kit ]]; then
  mkdir -p "$2"
  cp -al "$home/kit/node_modules" "$2/" 2>/dev/null || cp -r "$home/kit/node_modules" "$2/"
  exit 0
fi

export KILO_DISABLE_AUTOUPDATE=1 KILO_DISABLE_MODELS_FETCH=1 KILO_DISABLE_SHARE=1 KILO_DISABLE_LSP_DOWNLOAD=1
exec env CTX_SANDBOX_BIN="$bin" CTX_SANDBOX_RUN_FLAGS=--auto "$here/opencode-sandbox.sh" "$@"

#!/usr/bin/env bash
# End-to-end tests with the real Kilo Code CLI (npm @kilocode/cli, installed on first use by
# kilo-sandbox.sh): opencode.sh's scenarios, run through Kilo. Kilo is an OpenCode fork with
# OpenCode's plugin API, so the same plugin, the same scripts and the same checks prove the same
# things; `ctx kilo install` writes the plugin and commands into .kilo/.
#
#   tests/e2e/kilo.sh [SCENARIO...]      (default: opencode.sh's, but swarm_architect and the
#                                         agent-free notice_bad_input; see the end of opencode.sh)
#
# MOCK_PORT picks the stand-in's port.
set -euo pipefail
export CTX_E2E_AGENT=kilo MOCK_PORT=${MOCK_PORT:-47271}
exec "$(dirname "$0")/opencode.sh" "$@"

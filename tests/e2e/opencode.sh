#!/usr/bin/env bash
# End-to-end test with the real OpenCode: builds ctx, starts OpenCode (npm opencode-ai, installed on
# first use by opencode-sandbox.sh) in a temporary project holding a .swarm plan, a frame tree, the
# ctx plugin and commands, runs it against the stand-in model of mock-llm.py, and checks in the
# model's request log that the model saw what ctx rendered.
#
#   tests/e2e/opencode.sh
#
# Needs cargo, node/npm (to install OpenCode) and python3. MOCK_PORT picks the stand-in's port.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
here=$repo/tests/e2e
export MOCK_PORT=${MOCK_PORT:-47231}

cargo build --quiet --manifest-path "$repo/Cargo.toml"
export PATH=$repo/target/debug:$PATH

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project=$work/project sandbox=$work/sandbox
mkdir -p "$sandbox/requests" "$project/.swarm" "$project/.opencode/plugin" "$project/.opencode/command"
cp "$repo/tests/fixtures/swarm/example-1.plan.md" "$project/.swarm/plan.md"
cp "$repo/tests/fixtures/swarm/example-3.context.md" "$project/.swarm/context.md"
cp "$repo/integrations/opencode/plugin/ctx.js" "$project/.opencode/plugin/"
cp "$repo/integrations/opencode/command/"*.md "$project/.opencode/command/"

cd "$project"
ctx frame push "Build the billing service" >/dev/null
ctx frame push "Implement the invoice model" >/dev/null
ctx frame pop --summary "Invoices store integer cents & totals are computed on read." >/dev/null
current=$(ctx frame push "Handle refund events")
ctx frame decision "Refunds add a negative line item" >/dev/null
ctx frame plan "Partial refunds" >/dev/null

fail() { echo "FAIL: $*" >&2; exit 1; }
# Each run starts a fresh stand-in model, which numbers its request files from 1 again.
fresh_requests() { rm -f "$sandbox/requests"/*.json; }
requests() { find "$sandbox/requests" -name '*.json' | wc -l; }

echo "case 1: a prompt carries the frame context and the swarm system entries"
fresh_requests
"$here/opencode-sandbox.sh" "$sandbox" "$project" -- run "Continue with the refund work" >"$work/run1.out" 2>&1 \
  || { cat "$work/run1.out" >&2; fail "opencode run exited non-zero"; }
[[ $(requests) -gt 0 ]] || fail "the model received no request"
python3 - "$sandbox/requests" "$current" <<'PY' || fail "case 1"
import glob, json, sys
current = sys.argv[2]
def text(message):
    content = message["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
# The conversation's request (OpenCode also asks the model for a title).
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    request = json.load(open(path))
    users = [text(m) for m in request["messages"] if m["role"] == "user"]
    if users and "Continue with the refund work" in users[-1] and "title" not in users[0]:
        break
else:
    sys.exit("no request holds the prompt")
system = "".join(text(m) for m in request["messages"] if m["role"] == "system")
last_user = users[-1]
expect = [
    (last_user, "Continue with the refund work"),
    (last_user, f'<flame-context session="{current}">'),
    (last_user, "<goal>Handle refund events</goal>"),
    (last_user, "<decisions>Refunds add a negative line item</decisions>"),
    (last_user, "<summary>Invoices store integer cents &amp; totals are computed on read.</summary>"),
    (last_user, "<goal>Partial refunds</goal>"),
    (system, "[SWARM CONTEXT] Current phase: Phase 2:  [IN PROGRESS]"),
    (system, "[SWARM CONTEXT] Current task: - [ ] 2.2: Port search (depends: 2.1)"),
]
missing = [needle for hay, needle in expect if needle not in hay]
if missing:
    print("missing from the request:", missing, file=sys.stderr)
    sys.exit(1)
PY

echo "case 2: /tree shows the model the frame tree"
fresh_requests
"$here/opencode-sandbox.sh" "$sandbox" "$project" -- run --command tree >"$work/run2.out" 2>&1 \
  || { cat "$work/run2.out" >&2; fail "opencode run --command tree exited non-zero"; }
[[ $(requests) -gt 0 ]] || fail "the model received no request"
tree=$(ctx frame tree --details)
python3 - "$sandbox/requests" "$tree" <<'PY' || fail "case 2"
import glob, json, sys
tree = sys.argv[2]
def text(message):
    content = message["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    request = json.load(open(path))
    users = "".join(text(m) for m in request["messages"] if m["role"] == "user")
    if "The current frame tree" in users and tree in users:
        break
else:
    sys.exit("no request holds the frame tree; expected:\n" + tree)
PY

echo "ok: OpenCode saw ctx's context in both cases"

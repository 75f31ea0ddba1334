#!/usr/bin/env bash
# The OpenCode plugin's overhead per model call: every hook OpenCode runs before a model call
# (experimental.chat.system.transform, then experimental.chat.messages.transform), called the way
# OpenCode calls them, on a copy of examples/demo with an OpenCode session's frame and a message
# list of 40 messages (target: ≤ 15 ms median for both hooks together).
#
# Usage: benches/plugin.sh [CALLS]     Needs node (the plugin runs as OpenCode runs it) and python3.
# CTX_BIN picks the ctx binary (default: a release build of this checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-200}
if [[ -z ${CTX_BIN:-} ]]; then
  cargo build --release --quiet
  export CTX_BIN=$PWD/target/release/ctx
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/demo "$work/project"
session=ses_bench0000000000000000001
"$CTX_BIN" -C "$work/project" opencode frame "$session" --title "Benchmark session" >/dev/null
"$CTX_BIN" -C "$work/project" frame push --session "$session" "Handle refund events" >/dev/null

node --input-type=module - "$PWD/integrations/opencode/plugin/ctx.js" "$work/project" "$session" "$calls" <<'JS'
const [plugin, directory, session, calls] = process.argv.slice(2);
const { CtxPlugin } = await import(plugin);
// What the hooks ask of OpenCode: the session's info, once; nothing else per call.
const client = { session: { get: async () => ({ data: { id: session, title: "Benchmark session" } }) }, app: { log: async () => {} } };
const hooks = await CtxPlugin({ client, directory });
const messages = [];
for (let i = 0; i < 40; i++) {
  const role = i % 2 ? "assistant" : "user";
  const id = `msg_${String(i).padStart(12, "0")}AbCdEfGhIjKlMn`;
  messages.push({ info: { id, sessionID: session, role, time: { created: 1795346761241 + i }, agent: "build",
                          model: { providerID: "mock", modelID: "mock-1" } },
                  parts: [{ id: `prt_${String(i).padStart(12, "0")}AbCdEfGhIjKlMn`, sessionID: session, messageID: id,
                            type: "text", text: "Please handle the refund webhook and add tests. ".repeat(20) }] });
}
const times = [];
for (let i = 0; i < Number(calls); i++) {
  const start = process.hrtime.bigint();
  await hooks["experimental.chat.system.transform"]({ sessionID: session, model: {} }, { system: ["You are opencode."] });
  const output = { messages: structuredClone(messages) };
  await hooks["experimental.chat.messages.transform"]({}, output);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (i === 0 && !JSON.stringify(output.messages).includes("<flame-context")) throw new Error("no frame context was injected");
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
console.log(`both hooks per model call, ${calls} calls: median ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms, min ${times[0].toFixed(2)} ms`);
JS

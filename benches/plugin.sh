#!/usr/bin/env bash
# The OpenCode plugin's overhead per model call: every hook OpenCode runs before a model call
# (experimental.chat.system.transform, then experimental.chat.messages.transform), called the way
# OpenCode calls them, on a copy of examples/demo with an OpenCode session of 200 messages: a
# prompt, then eight frames the session pushed and popped (each a flame_push call, 22 bash calls
# with 2 KB outputs and a flame_pop call, spans recorded as ctx's plugin records them), and the
# messages of a ninth frame still running. Folding is on (the default). Target: ≤ 15 ms median
# for both hooks together.
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

node --input-type=module - "$PWD/integrations/opencode/plugin/ctx.js" "$work/project" "$session" "$calls" <<'JS'
const [plugin, directory, session, calls] = process.argv.slice(2);
const { CtxPlugin } = await import(plugin);
// What the hooks ask of OpenCode: the session's info, once; nothing else per call.
const client = { session: { get: async () => ({ data: { id: session, title: "Benchmark session" } }) }, app: { log: async () => {} } };
const hooks = await CtxPlugin({ client, directory });
const { execFileSync } = await import("node:child_process");
const ctx = (...args) => execFileSync(process.env.CTX_BIN, ["-C", directory, ...args], { encoding: "utf8" }).trim();
const messages = [];
let n = 0;
const info = (role) => {
  const id = `msg_${String(n++).padStart(12, "0")}AbCdEfGhIjKlMn`;
  return { id, sessionID: session, role, time: { created: 1795346761241 + n }, agent: "build",
           model: { providerID: "mock", modelID: "mock-1" } };
};
const tool = (name, input, output) => {
  const i = info("assistant");
  const callID = `call_${i.id}`;
  messages.push({ info: i, parts: [{ id: `prt_${i.id}`, sessionID: session, messageID: i.id, type: "tool", tool: name, callID,
                                     state: { status: "completed", input, output, time: { start: 1, end: 2 } } }] });
  return [i.id, callID];
};
const user = info("user");
messages.push({ info: user, parts: [{ id: `prt_${user.id}`, sessionID: session, messageID: user.id, type: "text",
                                      text: "Please handle the refund webhook and add tests." }] });
for (let frame = 0; frame < 9; frame++) {
  const [pushMessage, pushCall] = tool("flame_push", { goal: `Part ${frame}` }, "Pushed");
  ctx("frame", "push", "--session", session, "--span-message", pushMessage, "--span-call", pushCall, `Part ${frame}`);
  for (let call = 0; call < 22 && messages.length < 200; call++) tool("bash", { command: "cargo test" }, `test ${frame}.${call} ok\n`.repeat(100));
  if (frame < 8) {
    const [popMessage, popCall] = tool("flame_pop", { summary: `Part ${frame} done` }, "Popped");
    ctx("frame", "pop", "--session", session, "--span-message", popMessage, "--span-call", popCall, "--summary", `Part ${frame} done`);
  }
}
if (messages.length !== 200) throw new Error(`${messages.length} messages, not 200`);
const times = [];
for (let i = 0; i < Number(calls); i++) {
  const start = process.hrtime.bigint();
  await hooks["experimental.chat.system.transform"]({ sessionID: session, model: {} }, { system: ["You are opencode."] });
  const output = { messages: structuredClone(messages) };
  await hooks["experimental.chat.messages.transform"]({}, output);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (i === 0 && !JSON.stringify(output.messages).includes("<flame-context")) throw new Error("no frame context was injected");
  if (i === 0 && !JSON.stringify(output.messages).includes("<flame-folded")) throw new Error("nothing was folded");
  if (i === 0) console.log(`${messages.length} messages in, ${output.messages.length} out`);
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
console.log(`both hooks per model call on 200 messages, folding on, ${calls} calls: median ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms, min ${times[0].toFixed(2)} ms`);
JS

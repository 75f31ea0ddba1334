// ctx's OpenCode plugin against a stand-in OpenCode client, for what a real OpenCode cannot be
// made to do on cue: a parent whose last agent or model OpenCode no longer knows, a parent that
// refuses the notice, a parent deleted while its child ran, an OpenCode config that is not
// JSON, a task launched in the background (oh-my-opencode's `run_in_background`, whose call
// returns at launch with the child's id in its metadata), and a task whose result carries no
// task state (oh-my-opencode's synchronous "Task completed in …"), with its child idle or still
// busy. Each case runs a subagent's end (`tool.execute.after` of a task call) through the plugin
// with the real ctx (CTX_BIN) in a fresh project, and checks what the plugin sent and logged.
//
//   node notice-bad-input.mjs PLUGIN.js WORKDIR      (ctx on PATH or in CTX_BIN)
//
// Prints "ok" and exits 0, or names the first claim that does not hold and exits 1.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pluginPath, work] = process.argv.slice(2);
const { CtxPlugin } = await import(pathToFileURL(pluginPath).href);
const ctx = process.env.CTX_BIN || "ctx";
const PARENT = "ses_parent0000000000000000001";
const CHILD = "ses_child00000000000000000001";

function fail(what, detail) {
  console.error(`not so: ${what}\n${JSON.stringify(detail, null, 2)}`);
  process.exit(1);
}

// One OpenCode as the plugin sees it: `options` say what it knows and how it answers.
// `statuses`: what OpenCode's session status says (session id -> {type}); an idle session is absent.
function stand_in({ messages, agents = ["build", "auditor"], models = ["mock-1"], refuse = () => undefined, statuses = {} }) {
  const sent = [];
  const logged = [];
  const client = {
    app: {
      log: async ({ body }) => logged.push(body.message),
      agents: async () => ({ data: agents.map((name) => ({ name })) }),
    },
    config: {
      providers: async () => ({ data: { providers: [{ id: "mock", models: Object.fromEntries(models.map((m) => [m, {}])) }] } }),
    },
    session: {
      get: async ({ path }) =>
        path.id === CHILD
          ? { data: { id: CHILD, parentID: PARENT, title: "Audit refunds (@general subagent)" } }
          : { data: { id: PARENT, title: "Build billing" } },
      messages: async ({ path }) => {
        if (path.id === PARENT) return messages === undefined ? { error: { name: "NotFoundError" } } : { data: messages };
        return { data: [{ info: { role: "assistant", time: { created: 1 } }, parts: [{ type: "text", text: "3 issues found." }] }] };
      },
      status: async () => ({ data: statuses }),
      prompt: async ({ path, body }) => {
        sent.push({ to: path.id, body });
        const error = refuse(body);
        return error ? { error } : { data: {} };
      },
    },
  };
  return { client, sent, logged };
}

const userTurn = (agent, modelID) => ({
  info: { role: "user", agent, model: { providerID: "mock", modelID }, time: { created: 1 } },
  parts: [{ type: "text", text: "Delegate the audit" }],
});

// A fresh project whose parent session has a frame and whose child ends now; `config` is its
// opencode.json. Resolves once the notice (sent 200 ms after the child's frame is popped) is out.
async function subagentEnds(name, openCode, config) {
  const dir = join(work, name);
  mkdirSync(join(dir, ".opencode"), { recursive: true });
  mkdirSync(join(dir, ".swarm"), { recursive: true });
  writeFileSync(join(dir, ".swarm", "plan.md"), "# Plan\n\n## Phase 1: Start [IN PROGRESS]\n\n- [ ] 1.1: Begin\n");
  if (config !== undefined) writeFileSync(join(dir, "opencode.json"), config);
  const run = (...args) => execFileSync(ctx, ["-C", dir, ...args], { encoding: "utf8" });
  run("opencode", "frame", PARENT, "--title", "Build billing");
  run("opencode", "frame", CHILD, "--title", "Audit refunds (@general subagent)", `--parent-session=${PARENT}`);
  process.env.CTX_BIN = ctx;
  const hooks = await CtxPlugin({ client: openCode.client, directory: dir });
  await hooks["tool.execute.before"]({ tool: "task", sessionID: PARENT, callID: "c1" }, { args: {} });
  await hooks["tool.execute.after"](
    { tool: "task", sessionID: PARENT, callID: "c1" },
    { metadata: { sessionId: CHILD }, output: `<task id="${CHILD}" state="completed">` },
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return { hooks, run };
}

// 1. The parent's own agent and model go with the notice.
{
  const openCode = stand_in({ messages: [userTurn("auditor", "mock-1")] });
  await subagentEnds("known", openCode);
  const [notice] = openCode.sent;
  if (openCode.sent.length !== 1 || notice.body.agent !== "auditor" || notice.body.model?.modelID !== "mock-1")
    fail("the notice names the parent's agent and model", openCode.sent);
  if (!notice.body.parts?.[1]?.text?.includes(".opencode/flame/logs/frame-") || notice.body.parts[1].synthetic !== true)
    fail("the hint is synthetic and names the log's path", notice.body.parts);
}

// 2. An agent and a model OpenCode no longer knows: left out, logged, the notice still sent.
{
  const openCode = stand_in({ messages: [userTurn("retired", "mock-9")] });
  await subagentEnds("unknown", openCode);
  if (openCode.sent.length !== 1 || "agent" in openCode.sent[0].body || "model" in openCode.sent[0].body)
    fail("the notice goes to OpenCode's default agent and model", openCode.sent);
  if (!openCode.logged.some((l) => l.includes('no longer knows the agent "retired"')))
    fail("the log says which agent is gone", openCode.logged);
  if (!openCode.logged.some((l) => l.includes("no longer knows the model mock/mock-9")))
    fail("the log says which model is gone", openCode.logged);
}

// 3. OpenCode refuses the notice with the agent: sent again to its default agent.
{
  const openCode = stand_in({
    messages: [userTurn("auditor", "mock-1")],
    refuse: (body) => (body.agent ? { name: "UnknownError", data: { message: 'Agent not found: "auditor".' } } : undefined),
  });
  await subagentEnds("refused", openCode);
  if (openCode.sent.length !== 2 || openCode.sent[0].body.agent !== "auditor" || "agent" in openCode.sent[1].body)
    fail("a refused notice is sent again without the agent", openCode.sent);
  if (!openCode.logged.some((l) => l.includes('Agent not found: "auditor".') && l.includes("default agent")))
    fail("the log says why it was sent again", openCode.logged);
}

// 4. The parent was deleted while its child ran: nothing sent, the log says so, the child's frame
//    is popped all the same.
{
  const openCode = stand_in({ messages: undefined });
  const { run } = await subagentEnds("deleted", openCode);
  if (openCode.sent.length !== 0) fail("no notice to a deleted session", openCode.sent);
  if (!openCode.logged.some((l) => l.includes(`notice to ${PARENT}: the session cannot be read`)))
    fail("the log says the notice was not delivered", openCode.logged);
  const frame = JSON.parse(run("frame", "show", CHILD, "--json")).frame;
  if (frame.status !== "completed" || frame.summary !== "3 issues found.") fail("the child's frame is popped", frame);
}

// 5. An OpenCode config that is not JSON: the system entries are still added, the log says why.
{
  const openCode = stand_in({ messages: [userTurn("build", "mock-1")] });
  const { hooks } = await subagentEnds("bad-config", openCode, '{"plugin": ["opencode-swarm"');
  const output = { system: ["OpenCode's own prompt"] };
  await hooks["experimental.chat.system.transform"]({ model: {} }, output);
  if (!output.system.some((s) => s.startsWith("[SWARM CONTEXT] "))) fail("the swarm entries are still added", output.system);
  if (!openCode.logged.some((l) => l.includes("opencode.json: not valid JSON")))
    fail("the log names the config it cannot read", openCode.logged);
  if (openCode.sent.length !== 1) fail("the notice is delivered", openCode.sent);
}

// 6. A background task: the call returns at launch. The child's frame runs on, no notice yet;
//    the child's own end (session.idle) pops it with its real answer, and then the parent is told.
{
  const openCode = stand_in({ messages: [userTurn("build", "mock-1")] });
  const dir = join(work, "background");
  mkdirSync(join(dir, ".opencode"), { recursive: true });
  const run = (...args) => execFileSync(ctx, ["-C", dir, ...args], { encoding: "utf8" });
  run("opencode", "frame", PARENT, "--title", "Build billing");
  run("opencode", "frame", CHILD, "--title", "Audit refunds (@Metis - Plan Consultant subagent)", `--parent-session=${PARENT}`);
  const hooks = await CtxPlugin({ client: openCode.client, directory: dir });
  await hooks["tool.execute.before"]({ tool: "task", sessionID: PARENT, callID: "bg1" }, { args: { run_in_background: true } });
  await hooks["tool.execute.after"](
    { tool: "task", sessionID: PARENT, callID: "bg1" },
    { metadata: { sessionId: CHILD }, output: `Background task launched. Session: ${CHILD}` },
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  let frame = JSON.parse(run("frame", "show", CHILD, "--json")).frame;
  if (frame.status !== "in_progress") fail("a background child's frame runs after its launch", frame);
  if (openCode.sent.length !== 0) fail("no notice at launch", openCode.sent);
  // A foreground task of the same parent is under way when the child ends: the child still ends.
  await hooks["tool.execute.before"]({ tool: "task", sessionID: PARENT, callID: "fg1" }, { args: {} });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: CHILD } } });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  frame = JSON.parse(run("frame", "show", CHILD, "--json")).frame;
  if (frame.status !== "completed" || frame.summary !== "3 issues found.")
    fail("the child's own end pops its frame with its answer", frame);
  if (openCode.sent.length !== 1 || !openCode.sent[0].body.parts?.[1]?.text?.includes("3 issues found."))
    fail("the parent is told then, with the answer", openCode.sent);
}

// 7. A synchronous task whose result is no <task state=…> (oh-my-opencode's "Task completed in
//    …", run_in_background false): its child is done once the call returns, idle as OpenCode
//    says. Its frame is popped with the answer and the parent told, whatever idle events came
//    before. The same result while OpenCode says the child is still busy is a launch: the frame
//    runs on until the child's own end.
for (const [name, statuses, ends] of [
  ["sync", {}, true],
  ["sync-busy", { [CHILD]: { type: "busy" } }, false],
]) {
  const openCode = stand_in({ messages: [userTurn("build", "mock-1")], statuses });
  const dir = join(work, name);
  mkdirSync(join(dir, ".opencode"), { recursive: true });
  const run = (...args) => execFileSync(ctx, ["-C", dir, ...args], { encoding: "utf8" });
  run("opencode", "frame", PARENT, "--title", "Build billing");
  run("opencode", "frame", CHILD, "--title", "Audit refunds (@Metis - Plan Consultant subagent)", `--parent-session=${PARENT}`);
  const hooks = await CtxPlugin({ client: openCode.client, directory: dir });
  const args = { description: "Audit refunds", subagent_type: "metis", run_in_background: false };
  await hooks["tool.execute.before"]({ tool: "task", sessionID: PARENT, callID: "s1" }, { args });
  await hooks.event({ event: { type: "session.created", properties: { info: { id: CHILD, parentID: PARENT, title: "Audit refunds (@Metis - Plan Consultant subagent)" } } } });
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: CHILD } } });
  await hooks["tool.execute.after"](
    { tool: "task", sessionID: PARENT, callID: "s1", args },
    {
      title: "Audit refunds",
      metadata: { sessionId: CHILD, sync: true, run_in_background: false },
      output: `Task completed in 1s.\n\nAgent: Metis - Plan Consultant\n\n---\n\n3 issues found.\n\n<task_metadata>\nsession_id: ${CHILD}\n</task_metadata>`,
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const frame = JSON.parse(run("frame", "show", CHILD, "--json")).frame;
  if (ends) {
    if (frame.status !== "completed" || frame.summary !== "3 issues found.") fail("a synchronous task's frame ends with its answer", frame);
    if (openCode.sent.length !== 1 || !openCode.sent[0].body.parts?.[1]?.text?.includes("3 issues found."))
      fail("the parent is told, with the answer", openCode.sent);
  } else {
    if (frame.status !== "in_progress") fail("a child still busy when its call returns runs on", frame);
    if (openCode.sent.length !== 0) fail("no notice while the child works", openCode.sent);
  }
}

console.log("ok");

// ctx's OpenCode plugin: Flame inside OpenCode, with ctx as its engine.
//
// A frame is an OpenCode session plus its metadata in .opencode/flame/state.json. Every session has
// its own current frame (`ctx … --session ID`), so parallel sessions and subagents never see or move
// each other's frame. What the plugin does, and the ctx command behind each part:
//   tools flame_*                          ctx frame … --session ID --json (a refusal is "Error: …" text)
//   subagent (task tool) sessions          ctx opencode frame (created), ctx opencode finish (ended),
//                                          then the notice of `ctx compact notice --host opencode` to
//                                          the parent session, with its last agent and model
//   session.compacted                      ctx frame edit --summary-file - (the compaction summary)
//   session.deleted                        ctx opencode deleted
//   /push /pop /status /plan               the same calls as the tools, for the session typing them
//                                          (/pop without a summary: the model writes one, then pops)
//   experimental.session.compacting        ctx compact render --format json --session ID
//   experimental.chat.system.transform     ctx compact render --for system --format json
//   experimental.chat.messages.transform   ctx opencode messages --session ID: popped frames folded
//                                          to their summaries, the frame context anchored where it
//                                          keeps prompt caches (--budget-warning in opencode-swarm
//                                          projects: its context-budget warning)
//   tool.execute.before                    a root session's own frame at its first tool call; the
//                                          call ids of flame_* calls, recorded with their frames
//   shell.env                              CTX_SESSION for the model's shell: `ctx frame …` run
//                                          through bash acts for its own session
//   chat.params, config                    with frame.auto on: the session's model limits and
//                                          compaction.reserved, where OpenCode compacts, passed to ctx
//                                          opencode messages, whose pressure valve masks the oldest
//                                          outputs before it does
//   chat.message, session.idle             with frame.auto = turns or all: a person's message opens
//                                          a turn frame, the end of turn closes it (ctx opencode
//                                          turn); with todos or all, ctx opencode messages opens and
//                                          closes a frame per todo item from the todowrite calls;
//                                          tool flame_recall (ctx frame log) gives back a folded
//                                          turn's or item's outputs
// Nothing here may break the agent: a missing, slow or failing ctx, or a broken state file, is logged
// once and OpenCode carries on with its data untouched. CTX_BIN names the ctx binary; CTX_TIMEOUT_MS
// (default 10000) bounds each call. Every call runs with CTX_HOOK set: ctx's hook mode, which waits
// at most 3 s for the state's lock and starts no frame state in the home folder or /. The flame_*
// tools' descriptions and arguments (the table at the end of this file) are generated from ctx's
// src/tools.rs, the pi extension's too: change them there, then run `ctx generate-artifacts .`.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const TIMEOUT_MS = Number(process.env.CTX_TIMEOUT_MS) || 10000;
// How long after a subagent ends its parent is told (Flame's design: let the task's own result land first).
const NOTICE_DELAY_MS = 200;

// `ctxBin`: the binary the npm package ctxkit hands over (its own); else CTX_BIN, else ctx on PATH.
// OpenCode's plugin kit (`tool`, with its zod schemas), which the flame_* tools are defined with.
// Found where this file is (a project's .opencode/node_modules, or beside the npm package when npm
// installed it), else in the folders OpenCode installs it into for its own plugins: the project's
// .opencode/ and the user's OpenCode folder. Kilo Code (an OpenCode fork) installs its own copy,
// @kilocode/plugin, into .kilo/ and its user folder: the same `tool`. The npm package names the kit
// as an optional peer, so that `npm i -g ctxkit` for the command alone does not pull it in;
// OpenCode, which loads the package by name, keeps its own copy in its config folder.
const KITS = [
  // The package, its folders below the project, and below the user's config folder.
  ["@opencode-ai/plugin", [".opencode"], ["opencode"]],
  ["@kilocode/plugin", [".kilo", ".kilocode"], ["kilo"]],
];
const pluginKit = async (directory) => {
  for (const [name] of KITS) {
    try {
      return (await import(name)).tool;
    } catch {}
  }
  // The kit's package exports an ES module only, which require.resolve cannot find: its entry
  // is read from its own package.json in the node_modules the agent fills.
  const config = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  for (const [name, projectDirs, userDirs] of KITS) {
    const dirs = [...projectDirs.map((d) => join(directory ?? ".", d)), ...userDirs.map((d) => join(config, d))];
    for (const dir of dirs) {
      try {
        const kit = join(dir, "node_modules", ...name.split("/"));
        const manifest = JSON.parse(readFileSync(join(kit, "package.json"), "utf8"));
        const entry = manifest.exports?.["."]?.import ?? manifest.module ?? manifest.main;
        if (typeof entry !== "string") continue;
        return (await import(pathToFileURL(join(kit, entry)).href)).tool;
      } catch {}
    }
  }
  return undefined;
};

export const CtxPlugin = async ({ client, directory, ctxBin }) => {
  const bin = ctxBin || process.env.CTX_BIN || "ctx";
  const logged = new Set();
  // Resolves once OpenCode has the line (never rejects): a caller about to let the request go
  // on awaits it, so a short `opencode run` cannot exit before the line is written.
  const log = (message) => {
    if (logged.has(message)) return Promise.resolve();
    logged.add(message);
    return Promise.resolve()
      .then(() => client?.app?.log?.({ body: { service: "ctx", level: "warn", message } }))
      .catch(() => {});
  };

  // One ctx process: resolves {ok, stdout, stderr}, never rejects.
  const run = (args, input) =>
    new Promise((resolve) => {
      let child;
      try {
        // CTX_HOOK: every call is in ctx's hook mode (it fires on its own, nobody typed it).
        child = spawn(bin, args, { cwd: directory, env: { ...process.env, CTX_HOOK: "opencode" }, stdio: ["pipe", "pipe", "pipe"] });
      } catch (error) {
        resolve({ ok: false, stdout: "", stderr: String(error) });
        return;
      }
      let stdout = "";
      let stderr = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
      child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
      child.on("error", (error) => {
        clearTimeout(timer);
        const why = error.code === "ENOENT" ? `${bin} is not installed (or not on PATH)` : String(error);
        resolve({ ok: false, stdout, stderr: why });
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        const stopped = signal ? `${bin} ${args[0]} ${args[1] ?? ""} took over ${TIMEOUT_MS} ms` : "";
        resolve({ ok: code === 0, stdout, stderr: stopped || stderr });
      });
      child.stdin.on("error", () => {});
      child.stdin.end(input ?? "");
    });

  // ctx's answer as JSON, or undefined (logged once). A warning ctx gives with its answer (a
  // config it cannot read, say) is logged once too.
  const json = async (args, input) => {
    const result = await run(args, input);
    if (!result.ok) {
      log(`ctx ${args.slice(0, 2).join(" ")}: ${result.stderr.trim() || "failed"}`);
      return undefined;
    }
    for (const line of result.stderr.split("\n")) {
      if (line.startsWith("warning: ")) log(`ctx ${args.slice(0, 2).join(" ")}: ${line}`);
    }
    try {
      return JSON.parse(result.stdout);
    } catch {
      log(`ctx ${args.slice(0, 2).join(" ")}: printed no JSON`);
      return undefined;
    }
  };

  // A refusal as the model reads it: "Error: " and ctx's message with its hints.
  const refusal = (result) => {
    const text = result.stderr.trim().replace(/^error: /, "") || "ctx failed";
    return `Error: ${text}`;
  };

  // ---- sessions ----------------------------------------------------------------------------------

  const sessions = new Map(); // id -> OpenCode's session info (parentID and title)
  const sessionInfo = async (id) => {
    if (!sessions.has(id)) {
      const response = await client.session.get({ path: { id } }).catch(() => undefined);
      if (response?.data) sessions.set(id, response.data);
    }
    return sessions.get(id) ?? {};
  };

  // OpenCode titles a new session "New session - <date>" until its title is generated; until then
  // the goal is the first thing the user wrote, else ctx's placeholder, replaced by the title later.
  const placeholderTitle = (title) => !title || /^(New|Child) session - /.test(title);
  const placeholders = new Set();
  const goalTitle = async (id, info) => {
    const title = info.title ?? "";
    if (!placeholderTitle(title)) return title;
    const response = await client.session.messages({ path: { id } }).catch(() => undefined);
    for (const message of response?.data ?? []) {
      if (message.info?.role !== "user") continue;
      const text = (message.parts ?? []).find((p) => p.type === "text" && !p.synthetic)?.text;
      if (text?.trim()) return text.trim().split("\n")[0];
    }
    placeholders.add(id);
    return "";
  };

  // The session's own frame, created when missing (subagents: as ctx's settings say). Resolves to
  // whether the session has a frame.
  const framed = new Map();
  const ensureFrame = (id) => {
    if (!framed.has(id)) {
      const pending = (async () => {
        const info = await sessionInfo(id);
        if (info.parentID) await ensureFrame(info.parentID);
        const args = ["opencode", "frame", id, "--json", `--title=${await goalTitle(id, info)}`];
        if (info.parentID) args.push(`--parent-session=${info.parentID}`);
        const doc = await json(args);
        if (doc === undefined) framed.delete(id); // try again next time
        return Boolean(doc?.frame);
      })();
      framed.set(id, pending);
    }
    return framed.get(id);
  };

  // The whole output of the tool call the pressure valve names `wanted` (`<call id>@<its
  // message's time>`, or a bare call id) in session `id` (or its parent sessions), as OpenCode
  // stored it; undefined when none holds it.
  const callOutput = async (id, wanted) => {
    const cut = wanted.lastIndexOf("@");
    const call = cut > 0 ? wanted.slice(0, cut) : wanted;
    const time = cut > 0 ? Number(wanted.slice(cut + 1)) : undefined;
    for (let at = id, hops = 0; at && hops < 8; hops++) {
      const response = await client.session.messages({ path: { id: at } }).catch(() => undefined);
      for (const message of response?.data ?? []) {
        if (time !== undefined && message.info?.time?.created !== time) continue;
        const part = (message.parts ?? []).find((p) => p?.type === "tool" && p.callID === call);
        if (typeof part?.state?.output === "string") return part.state.output;
      }
      at = (await sessionInfo(at)).parentID;
    }
    return undefined;
  };

  // The session as `opencode export` prints it; with `since`, only messages created from then on.
  const transcript = async (id, since) => {
    const [info, messages] = await Promise.all([
      client.session.get({ path: { id } }).catch(() => undefined),
      client.session.messages({ path: { id } }).catch(() => undefined),
    ]);
    if (!info?.data || !Array.isArray(messages?.data)) return undefined;
    const kept = messages.data.filter((m) => !since || (m.info?.time?.created ?? 0) >= since);
    return JSON.stringify({ info: info.data, messages: kept });
  };

  // ---- subagents ---------------------------------------------------------------------------------

  const taskCalls = new Map(); // parent session -> number of task calls under way
  const finishing = new Map(); // child session -> the finish under way
  // Task calls that return at launch while their child works on (oh-my-opencode's
  // `run_in_background`), and the children they launched: those end when the child itself does
  // (its session.idle or session.error), never when the call returns.
  const backgroundCalls = new Set();
  const backgroundChildren = new Map(); // child session -> parent session

  // The agent and model of a session's last user message, which a notice must name: without
  // them OpenCode answers it with its default agent, and a parent running `architect` (or any
  // agent of its own) would go on as `build`. Undefined when the session cannot be read
  // (deleted while its child ran).
  const lastTurn = async (id) => {
    const response = await client.session.messages({ path: { id } }).catch(() => undefined);
    if (!Array.isArray(response?.data)) return undefined;
    const info = response.data.findLast((m) => m.info?.role === "user")?.info ?? {};
    const turn = {};
    if (typeof info.agent === "string" && info.agent) turn.agent = info.agent;
    const { providerID, modelID } = info.model ?? {};
    if (typeof providerID === "string" && typeof modelID === "string") turn.model = { providerID, modelID };
    return turn;
  };

  // The turn without what OpenCode no longer knows (an agent or model removed from its config
  // since): OpenCode refuses a prompt naming an unknown agent and reports it as the session's
  // error, so such a name is left out (and logged) and OpenCode's default answers instead.
  const knownTurn = async (turn) => {
    const kept = { ...turn };
    if (kept.agent) {
      const agents = (await client.app?.agents?.().catch(() => undefined))?.data;
      if (Array.isArray(agents) && !agents.some((a) => a?.name === kept.agent)) {
        log(`notice: OpenCode no longer knows the agent "${kept.agent}"; the notice goes to its default agent`);
        delete kept.agent;
      }
    }
    if (kept.model) {
      const providers = (await client.config?.providers?.().catch(() => undefined))?.data?.providers;
      const { providerID, modelID } = kept.model;
      if (Array.isArray(providers) && !providers.some((p) => p?.id === providerID && p.models?.[modelID])) {
        log(`notice: OpenCode no longer knows the model ${providerID}/${modelID}; the notice goes to the agent's own model`);
        delete kept.model;
      }
    }
    return kept;
  };

  // The SDK answers an HTTP error with {error} rather than throwing; both are a failure here.
  const failure = (response) => {
    const error = response?.error;
    if (!error) return undefined;
    return error?.data?.message ?? error?.message ?? error?.name ?? JSON.stringify(error);
  };

  const notify = async (parent, child) => {
    const body = await json(["compact", "notice", "--frame", child, "--host", "opencode", "--format", "json"]);
    if (!body || !parent) return;
    const turn = await lastTurn(parent);
    if (!turn) {
      log(`notice to ${parent}: the session cannot be read (deleted?); the notice of ${child} is not delivered`);
      return;
    }
    const send = (extra) =>
      client.session.prompt({ path: { id: parent }, body: { ...body, ...extra } }).catch((error) => ({ error }));
    const kept = await knownTurn(turn);
    let why = failure(await send(kept));
    if (why && (kept.agent || kept.model)) {
      // The last resort: OpenCode's default agent and model, so that the notice is never lost.
      log(`notice to ${parent} as ${kept.agent ?? "its agent"}: ${why}; sent again to OpenCode's default agent`);
      why = failure(await send({}));
    }
    if (why) log(`notice to ${parent}: ${why}`);
  };

  // A subagent's session ended: pop its frame with its transcript, then tell the parent session.
  const finishChild = (child, state, parent) => {
    if (finishing.has(child)) return finishing.get(child);
    const pending = (async () => {
      const info = await sessionInfo(child);
      const exported = await transcript(child);
      const args = ["opencode", "finish", child, "--state", state, "--json"];
      if (exported) args.push("--transcript", "-");
      const doc = await json(args, exported);
      if (doc?.frame) setTimeout(() => notify(parent ?? info.parentID, child), NOTICE_DELAY_MS);
    })().finally(() => finishing.delete(child));
    finishing.set(child, pending);
    return pending;
  };

  // The state of a task's result (`<task id=… state="completed">`), undefined when the call's output
  // is no task result (a background launch's "started" message, say).
  const taskState = (output) => /<task\b[^>]*\bstate="([^"]*)"/.exec(String(output ?? ""))?.[1];

  // Whether OpenCode says the session is at work (busy, or waiting to retry); undefined when it
  // cannot say. A task result with no state comes both from a launch whose child works on and
  // from a call that waited for its child (oh-my-opencode's synchronous "Task completed in …"):
  // only the child's status tells them apart, and an idle event seen earlier proves nothing, as
  // a child goes idle between its turns too.
  const atWork = async (id) => {
    const statuses = (await client.session.status?.().catch(() => undefined))?.data;
    if (!statuses || typeof statuses !== "object") return undefined;
    const type = statuses[id]?.type;
    return type === "busy" || type === "retry";
  };

  const errorState = (error) => {
    const name = error?.name ?? "";
    return /Abort/i.test(name) ? "aborted" : "error";
  };

  // ---- the current frame of a session, for tools and commands -------------------------------------

  // A ctx call for the session: `ctx GROUP COMMAND --session=ID ARGS…` (ARGS may end in `-- VALUES`).
  const frameArgs = (session, group, command, ...args) => [group, command, `--session=${session}`, ...args];

  // Where a tool call happened (the message holding it and its call id), so that ctx records the
  // frame's span in the session and can fold it once the frame is popped.
  const callIDs = new Map(); // "<session> <tool>" -> call ids of calls under way, oldest first
  const spanArgs = (at) => [
    ...(at?.message ? [`--span-message=${at.message}`] : []),
    ...(at?.call ? [`--span-call=${at.call}`] : []),
  ];

  const currentFrame = async (session) => {
    const result = await run(frameArgs(session, "frame", "show", "--json"));
    if (!result.ok) return undefined;
    try {
      return JSON.parse(result.stdout).frame;
    } catch {
      return undefined;
    }
  };

  const say = (frame) => `${frame.id} ("${frame.goal.split("\n")[0]}", ${frame.status})`;

  const push = async (session, goal, at) => {
    await ensureFrame(session);
    const result = await run(frameArgs(session, "frame", "push", "--json", ...spanArgs(at), "--", goal));
    if (!result.ok) return refusal(result);
    const { frame } = JSON.parse(result.stdout);
    // Short: the call holds the goal, flame_push's description says the frame becomes the
    // session's current one, and a frame context follows when there is more to say.
    return `Pushed frame ${frame.id}.`;
  };

  const pop = async (session, status, summary, at) => {
    const frame = await currentFrame(session);
    if (!frame) return "Error: this session has no current frame to pop";
    const exported = await transcript(session, frame.id === session ? 0 : Date.parse(frame.created_at));
    const args = frameArgs(session, "frame", "pop", "--json", "--status", status || "completed", ...spanArgs(at));
    if (summary?.trim()) args.push(`--summary=${summary}`);
    if (exported) args.push("--transcript", "-");
    const result = await run(args, exported);
    if (!result.ok) return refusal(result);
    const doc = JSON.parse(result.stdout);
    const log = `.opencode/flame/logs/frame-${doc.frame.id}.md`;
    const next = doc.current ? `This session's current frame is now ${doc.current}.` : "This session has no running frame now.";
    return `Popped frame ${say(doc.frame)}. Its log: ${log}. ${next}`;
  };

  const text = async (args) => {
    const result = await run(args);
    if (!result.ok) return refusal(result);
    return result.stdout.trimEnd() || "(nothing)";
  };

  const plan = async (session, goals, parent) => {
    await ensureFrame(session);
    const args = frameArgs(session, "frame", "plan", "--json");
    if (parent) args.push(`--parent=${parent}`);
    const result = await run([...args, "--", ...goals]);
    if (!result.ok) return refusal(result);
    const { frames } = JSON.parse(result.stdout);
    return `Planned ${frames.map(say).join(", ")}. Start one with flame_activate when its turn comes.`;
  };

  // ---- turn frames (frame.auto) ------------------------------------------------------------------

  // Read once: a person changing it mid-session restarts OpenCode, as for opencode.tools.
  const autoFrames = (await run(["config", "frame.auto"])).stdout.trim();
  const autoTurns = ["turns", "all"].includes(autoFrames);

  // ---- the pressure valve ------------------------------------------------------------------------

  // Each session's model limits, from chat.params (its model's `limit`), and OpenCode's
  // compaction.reserved, from the config: where OpenCode compacts, for `ctx opencode messages`.
  const modelLimits = new Map();
  let reserved;
  const limitArgs = (session) => {
    // The valve is part of the frames ctx keeps by itself: off with them.
    if (autoFrames === "off") return [];
    const limit = modelLimits.get(session);
    if (!Number.isSafeInteger(limit?.context) || limit.context <= 0 || !Number.isSafeInteger(limit?.output)) return [];
    const args = ["--context-limit", String(limit.context), "--output-limit", String(Math.max(0, limit.output))];
    if (Number.isSafeInteger(limit.input) && limit.input > 0) args.push("--input-limit", String(limit.input));
    if (Number.isSafeInteger(reserved) && reserved >= 0) args.push("--reserved", String(reserved));
    return args;
  };

  // A person's message (autoframes.md §1.3): a non-blank text that is not synthetic, not ctx's
  // notice (whose hint is synthetic) and not oh-my-opencode's prompt (its marker). A subagent's
  // prompt is told apart by its session.
  const personText = (parts) => {
    const texts = (parts ?? []).filter((p) => p?.type === "text" && typeof p.text === "string");
    const own = (t) => t.startsWith("<flame-") || (t.startsWith("Frame ") && t.includes(" finished with status "));
    if (texts.some((p) => (p.synthetic && own(p.text)) || p.text.includes("<!-- OMO_INTERNAL_INITIATOR -->"))) return undefined;
    return texts.find((p) => !p.synthetic && p.text.trim())?.text;
  };

  // One session's turn calls run one after the other: an end of turn and the next message's
  // start must not cross.
  const turnOrder = new Map();
  const inTurnOrder = (session, job) => {
    const next = (turnOrder.get(session) ?? Promise.resolve()).then(job, job);
    turnOrder.set(session, next.catch(() => {}));
    return next;
  };
  const turnCall = async (args, input) => {
    const result = await run(args, input);
    for (const line of result.stderr.split("\n")) if (line.trim()) await log(`ctx opencode turn: ${line.trim()}`);
    return result;
  };
  // The session's open turn, closed with its messages for the log (ctx keeps the turn's own).
  const endTurn = async (session) => {
    const exported = await transcript(session);
    await turnCall(["opencode", "turn", session, "--end", ...(exported ? ["--transcript", "-"] : [])], exported);
  };
  const startTurn = async (session, message, text) => {
    await ensureFrame(session);
    // `opencode run` quotes the words it is given; the quotes are not the goal.
    const goal = text.trim().replace(/^(["'])(.*)\1$/s, "$2");
    await inTurnOrder(session, async () => {
      await endTurn(session);
      await turnCall(["opencode", "turn", session, "--start", message, `--goal=${goal}`]);
    });
  };

  // ---- tools -------------------------------------------------------------------------------------

  const tools = {};
  const toolsOn = (await run(["config", "opencode.tools"])).stdout.trim() !== "off";
  let tool;
  if (toolsOn) {
    tool = await pluginKit(directory);
    if (!tool) {
      log("the flame_* tools are off: neither @opencode-ai/plugin nor @kilocode/plugin can be loaded (.opencode/node_modules, .kilo/node_modules)");
    }
  }
  if (tool) {
    // Each tool's description and arguments: flameTools, the table generated at the end of this file.
    const table = flameTools(tool.schema);
    // Every tool answers with text; nothing it meets may throw into OpenCode's turn.
    const define = (name, execute) => {
      tools[name] = tool({
        description: table[name].description,
        args: table[name].args,
        async execute(input, context) {
          try {
            const queue = callIDs.get(`${context.sessionID} ${name}`);
            const at = { message: context.messageID, call: queue?.shift() };
            return await execute(input ?? {}, context.sessionID, at);
          } catch (error) {
            return `Error: ${error?.message ?? error}`;
          }
        },
      });
    };

    define("flame_push", ({ goal }, session, at) => push(session, goal, at));
    define("flame_pop", ({ status, summary }, session, at) => pop(session, status, summary, at));
    if (autoFrames !== "off") define("flame_recall", async ({ id: wanted }, session) => {
      const result = await run(["frame", "log", "--", wanted]);
      if (result.ok) return result.stdout.trimEnd() || "(the log is empty)";
      // An output the pressure valve masked is named by its call: OpenCode's session keeps it.
      const output = await callOutput(session, wanted);
      return output ?? refusal(result);
    });
    define("flame_status", async (_args, session) => {
      const shown = await text(frameArgs(session, "frame", "show"));
      const tree = await text(frameArgs(session, "frame", "tree"));
      return `This session's current frame:\n${shown}\n\nThe frame tree:\n${tree}`;
    });
    define("flame_tree", async ({ showFull, rootID, showDetails }, session) => {
      const args = frameArgs(session, "frame", "tree");
      if (showDetails) args.push("--details");
      if (rootID) args.push(`--from=${rootID}`);
      else if (showFull === false) {
        const frame = await currentFrame(session);
        if (frame) args.push("--from", frame.id);
      }
      return text(args);
    });
    define("flame_plan", ({ goal, parentSessionID }, session) => plan(session, [goal], parentSessionID));
    define("flame_plan_children", ({ children, parentSessionID }, session) => plan(session, children, parentSessionID));
    define("flame_activate", async ({ sessionID }, session, at) => {
      await ensureFrame(session);
      const result = await run(frameArgs(session, "frame", "activate", "--json", ...spanArgs(at), "--", sessionID));
      if (!result.ok) return refusal(result);
      const { frame } = JSON.parse(result.stdout);
      return `Frame ${say(frame)} is now this session's current frame.`;
    });
    define("flame_invalidate", async ({ reason, sessionID }, session, at) => {
      const args = frameArgs(session, "frame", "invalidate", "--json", `--reason=${reason}`, ...spanArgs(at));
      if (sessionID) args.push("--", sessionID);
      const result = await run(args);
      if (!result.ok) return refusal(result);
      const doc = JSON.parse(result.stdout);
      const left = doc.in_progress_descendants.length ? ` Still running below it: ${doc.in_progress_descendants.join(", ")}.` : "";
      return `Invalidated ${doc.invalidated.join(", ")}.${left}`;
    });
    define("flame_set_goal", async ({ goal }, session) => {
      const result = await run(frameArgs(session, "frame", "edit", "--json", `--goal=${goal}`));
      if (!result.ok) return refusal(result);
      return `The goal of frame ${say(JSON.parse(result.stdout).frame)} is set.`;
    });
    define("flame_add_artifact", async ({ artifact }, session) => {
      const result = await run(frameArgs(session, "frame", "artifact", "--json", "--", artifact));
      if (!result.ok) return refusal(result);
      const doc = JSON.parse(result.stdout);
      return doc.added.length ? `Recorded ${artifact} on frame ${doc.frame.id}.` : `${artifact} was already recorded on frame ${doc.frame.id}.`;
    });
    define("flame_add_decision", async ({ decision }, session) => {
      const result = await run(frameArgs(session, "frame", "decision", "--json", "--", decision));
      if (!result.ok) return refusal(result);
      return `Recorded the decision on frame ${JSON.parse(result.stdout).frame.id}.`;
    });
    define("flame_get_summary", ({ sessionID }, session) =>
      text(frameArgs(session, "frame", "show", ...(sessionID ? ["--", sessionID] : []))),
    );
    define("flame_context_preview", async ({ maxLength }, session) => {
      const xml = await text(frameArgs(session, "compact", "render", "--for", "frame", "--format", "xml"));
      const max = maxLength ?? PREVIEW_CHARS;
      return xml.length > max ? `${xml.slice(0, max)}\n… [${xml.length - max} more characters]` : xml;
    });
  }

  // ---- slash commands ----------------------------------------------------------------------------

  // /pop without a summary leaves the command's own text to the model, which asks it to write the
  // summary and pop with flame_pop: popping at once would leave the frame without one. Without
  // the tools, the model is asked to run ctx itself.
  const popWithoutSummary = async (session) => {
    if (tool) return undefined;
    const frame = await currentFrame(session);
    if (!frame) return "Error: this session has no current frame to pop";
    return `Finish this session's current frame ${say(frame)}: write its summary (what was achieved or learned, for later frames and its log), then run \`ctx frame pop --session ${session} --summary "<the summary>"\` with the bash tool.`;
  };

  const commands = {
    push: (session, args) => (args ? push(session, args) : "Error: /push needs a goal: /push <goal>"),
    pop: (session, args) => (args ? pop(session, "completed", args) : popWithoutSummary(session)),
    status: (session) => text(frameArgs(session, "frame", "tree", "--details")),
    plan: (session, args) => {
      const goals = args.split(/[;\n]/).map((g) => g.trim()).filter(Boolean);
      return goals.length ? plan(session, goals) : "Error: /plan needs goals: /plan <goal>; <goal>; …";
    },
  };

  return {
    tool: tools,

    "chat.message": async (input, output) => {
      if (!autoTurns) return;
      const session = input?.sessionID ?? output?.message?.sessionID;
      const message = output?.message?.id ?? input?.messageID;
      const text = personText(output?.parts);
      if (!session || !message || text === undefined) return;
      // A subagent's prompt: its session's frame already covers it.
      if ((await sessionInfo(session)).parentID) return;
      await startTurn(session, message, text);
    },

    "command.execute.before": async (input, output) => {
      const command = commands[input.command];
      if (!command) return;
      // One pair of quotes around the whole argument is how many people type it; it is not part of it.
      const args = (input.arguments ?? "").trim().replace(/^(["'])(.*)\1$/s, "$2");
      const answer = await command(input.sessionID, args).catch((error) => `Error: ${error?.message ?? error}`);
      if (answer === undefined) return; // the command's own text asks the model
      const result = `ctx ran /${input.command} for this session:\n\n${answer}`;
      const part = output.parts.find((p) => p.type === "text");
      if (part) part.text = result;
      else output.parts.push({ type: "text", text: result });
    },

    "experimental.session.compacting": async (input, output) => {
      const args = ["compact", "render", "--format", "json"];
      if (input?.sessionID) args.push("--session", input.sessionID);
      const doc = await json(args);
      if (Array.isArray(doc?.context)) output.context.push(...doc.context);
      if (typeof doc?.prompt === "string") output.prompt = doc.prompt;
    },

    "chat.params": async (input) => {
      if (input?.sessionID && input.model?.limit) modelLimits.set(input.sessionID, input.model.limit);
    },

    config: async (config) => {
      reserved = config?.compaction?.reserved;
    },

    "experimental.chat.system.transform": async (_input, output) => {
      const doc = await json(["compact", "render", "--for", "system", "--format", "json"]);
      if (Array.isArray(doc?.system)) output.system.push(...doc.system);
    },

    "experimental.chat.messages.transform": async (_input, output) => {
      const session = output.messages.findLast((m) => m.info?.sessionID)?.info.sessionID;
      if (!session) return;
      // A subagent's first request must already see its own frame.
      if ((await sessionInfo(session)).parentID) await ensureFrame(session);
      const args = ["opencode", "messages", "--session", session, ...limitArgs(session)];
      if (existsSync(join(directory, ".swarm"))) args.push("--budget-warning");
      const result = await run(args, JSON.stringify({ messages: output.messages }));
      // ctx's warnings (a span it could not fold) and refusals (a broken file) go to OpenCode's
      // log, once each; on a refusal the messages go as they are.
      for (const line of result.stderr.split("\n")) if (line.trim()) await log(`ctx opencode messages: ${line.trim()}`);
      if (!result.ok) return;
      try {
        const doc = JSON.parse(result.stdout);
        // OpenCode holds a reference to this array: replace its contents, never the array.
        if (Array.isArray(doc?.messages)) output.messages.splice(0, output.messages.length, ...doc.messages);
      } catch {
        log("ctx opencode messages printed no JSON");
      }
    },

    "shell.env": async (input, output) => {
      if (input?.sessionID && output?.env) output.env.CTX_SESSION = input.sessionID;
      // The model's own `ctx …` finds the plugin's binary when none is on PATH.
      if (ctxBin && output?.env) {
        output.env.PATH = [dirname(ctxBin), output.env.PATH ?? process.env.PATH].filter(Boolean).join(delimiter);
      }
    },

    "tool.execute.before": async (input, output) => {
      if (input.tool?.startsWith("flame_") && input.callID) {
        const key = `${input.sessionID} ${input.tool}`;
        callIDs.set(key, [...(callIDs.get(key) ?? []), input.callID]);
      }
      // Every session has its own frame from its first tool call on (subagents as ctx's settings
      // say), so that its compaction summaries and cost are recorded.
      if (input.sessionID) await ensureFrame(input.sessionID);
      if (input.tool !== "task") return;
      taskCalls.set(input.sessionID, (taskCalls.get(input.sessionID) ?? 0) + 1);
      if (output?.args?.run_in_background === true && input.callID) backgroundCalls.add(input.callID);
      // The task tool continues an earlier subagent session (its `task_id`; `session_id` in
      // older builds): a blocked frame runs again.
      const resumed = output?.args?.task_id ?? output?.args?.session_id;
      if (resumed) await run(["frame", "activate", "--session", resumed, "--", resumed]);
    },

    "tool.execute.after": async (input, output) => {
      if (input.tool !== "task") return;
      taskCalls.set(input.sessionID, Math.max(0, (taskCalls.get(input.sessionID) ?? 1) - 1));
      const child = output?.metadata?.sessionId;
      if (!child) return;
      const state = taskState(output.output);
      const declared = backgroundCalls.delete(input.callID);
      if (declared || (state === undefined && (await atWork(child)) !== false)) {
        // Launched, not done: its frame runs until the child's own end.
        backgroundChildren.set(child, input.sessionID);
        await sessionInfo(child);
        return;
      }
      // A result with no state whose child is idle: the call waited for it, which then answered.
      await finishChild(child, state ?? "completed", input.sessionID);
    },

    event: async ({ event }) => {
      const properties = event?.properties ?? {};
      switch (event?.type) {
        case "session.created":
        case "session.updated": {
          const info = properties.info;
          if (!info?.id) return;
          sessions.set(info.id, info);
          if (event.type === "session.created" && info.parentID) await ensureFrame(info.id);
          if (placeholders.has(info.id) && !placeholderTitle(info.title)) {
            placeholders.delete(info.id);
            await json(["frame", "edit", info.id, "--json", `--goal=${info.title}`]);
          }
          return;
        }
        case "session.idle": {
          // A child session no task call waits for (a subtask command, say) ends when it goes idle;
          // a task's own end comes with tool.execute.after, which also carries its state.
          const info = sessions.get(properties.sessionID);
          if (!info?.parentID) {
            // A root session's end of turn closes its turn frame.
            if (autoTurns && properties.sessionID) await inTurnOrder(properties.sessionID, () => endTurn(properties.sessionID));
            return;
          }
          if (backgroundChildren.delete(info.id) || !(taskCalls.get(info.parentID) > 0))
            await finishChild(info.id, "completed", info.parentID);
          return;
        }
        case "session.error": {
          const info = properties.sessionID && sessions.get(properties.sessionID);
          if (!info?.parentID) return;
          backgroundChildren.delete(info.id);
          await finishChild(info.id, errorState(properties.error), info.parentID);
          return;
        }
        case "session.deleted": {
          const id = properties.info?.id;
          if (id) await run(["opencode", "deleted", id]);
          return;
        }
        case "session.compacted": {
          const id = properties.sessionID;
          if (!id) return;
          // Only a session with a frame of its own records its summary (never the person's frame).
          if (!(await run(["frame", "show", "--frame", id, "--json"])).ok) return;
          const response = await client.session.messages({ path: { id } }).catch(() => undefined);
          const summary = (response?.data ?? [])
            .filter((m) => m.info?.role === "assistant" && m.info?.summary)
            .map((m) => (m.parts ?? []).filter((p) => p.type === "text").map((p) => p.text).join("\n\n"))
            .findLast((t) => t.trim());
          if (summary) await json(["frame", "edit", "--session", id, "--json", "--summary-file", "-"], summary);
          return;
        }
      }
    },
  };
};

// ---- BEGIN GENERATED from src/tools.rs by `ctx generate-artifacts .`: edit the table there ----
// The longest context preview, in characters, when the model does not ask for another length.
const PREVIEW_CHARS = 2000;
// The flame_* tools as the model reads them: each one's description and args, in OpenCode's plugin kit (`z` is its `tool.schema`).
const flameTools = (z) => ({
  flame_push: {
    description: "Start a child frame of this session's current frame for a subtask with its own goal, and make it this session's current frame. Use it when you begin a distinct piece of work (a feature, a fix, an investigation) whose result should be summarised on its own; call flame_pop when it is done.",
    args: {
      goal: z.string().describe("What the new frame is for, in one sentence (required, not blank)"),
    },
  },
  flame_pop: {
    description: "Finish this session's current frame: record its status and summary, write its log (with this session's messages since the frame began), and make its parent the current frame. Use it when the frame's goal is reached (completed), cannot be reached (failed), or waits on something outside your control (blocked; it can be resumed with flame_activate). A frame with running child frames is refused: pop those first. After the pop, the frame's messages (from its flame_push on) are folded out of the conversation: what stays is this call, with its summary, and as its result a <flame-folded> entry with the frame's status (none: completed), goal (none when completed with a summary), artifacts and decisions, the summary only when the call does not hold it, and a log attribute only when the frame's log is not .opencode/flame/logs/frame-<id>.md, where a pop writes it (log=\"\": no log). So write a summary that carries what later work needs; the log holds every message and tool output in full.",
    args: {
      status: z.enum(["completed", "failed", "blocked"]).optional().describe("How the frame ended (default: completed)"),
      summary: z.string().optional().describe("What was achieved or learned, for later frames and the log (default: none)"),
    },
  },
  flame_recall: {
    description: "Give back what ctx folded out of the conversation. With a frame's id: what its log keeps, every message and tool output of the frame (an output over frame.log.output_max bytes cut, marked). With a tool call's id: that call's whole output, from this session. Use it when an output replaced by \"[ctx folded this output … flame_recall with id <id> …]\" is needed again.",
    args: {
      id: z.string().describe("The id the folded output names: a frame's (or a unique prefix of at least 4 characters), or a tool call's"),
    },
  },
  flame_status: {
    description: "Show this session's current frame in full and the whole frame tree (its current frame marked). Use it to see where you are before you push, pop or plan.",
    args: {},
  },
  flame_tree: {
    description: "Show the frame tree: frames in creation order with their status, this session's current frame marked.",
    args: {
      showFull: z.boolean().optional().describe("The whole tree (default: true); false shows only this session's current frame and what is below it"),
      rootID: z.string().optional().describe("Show only this frame's subtree (default: all roots)"),
      showDetails: z.boolean().optional().describe("Add summaries, artifacts, decisions and log paths (default: false)"),
    },
  },
  flame_plan: {
    description: "Plan one child frame (status planned) for work to do later, without starting it. Use it to lay out the next steps; start a planned frame with flame_activate.",
    args: {
      goal: z.string().describe("What the planned frame is for (required)"),
      parentSessionID: z.string().optional().describe("The parent frame (default: this session's current frame)"),
    },
  },
  flame_plan_children: {
    description: "Plan several child frames at once, in the order given, without starting them.",
    args: {
      children: z.array(z.string()).min(1).describe("The goals of the planned frames, in order (at least one)"),
      parentSessionID: z.string().optional().describe("The parent frame (default: this session's current frame)"),
    },
  },
  flame_activate: {
    description: "Start a planned frame, or resume a blocked one, and make it this session's current frame. Its parent must be in progress.",
    args: {
      sessionID: z.string().describe("The frame to start: a full frame id or a unique prefix of at least 4 characters"),
    },
  },
  flame_invalidate: {
    description: "Mark a frame as no longer needed (invalidated), with its planned descendants; running descendants are reported and left as they are. Use it when a plan changed and a frame's goal no longer applies.",
    args: {
      reason: z.string().describe("Why the frame no longer applies (required)"),
      sessionID: z.string().optional().describe("The frame (default: this session's current frame)"),
    },
  },
  flame_set_goal: {
    description: "Correct the goal of this session's current frame (a typo, a sharper wording).",
    args: {
      goal: z.string().describe("The new goal (required, not blank)"),
    },
  },
  flame_add_artifact: {
    description: "Record a file or other output that this session's current frame produced (exact duplicates are skipped).",
    args: {
      artifact: z.string().describe("A path or name, recorded exactly as given"),
    },
  },
  flame_add_decision: {
    description: "Record a decision taken in this session's current frame, so later frames see it.",
    args: {
      decision: z.string().describe("The decision, in one sentence (required)"),
    },
  },
  flame_get_summary: {
    description: "Show every field of a frame: goal, status, times, summary, artifacts, decisions, log.",
    args: {
      sessionID: z.string().optional().describe("The frame (default: this session's current frame)"),
    },
  },
  flame_context_preview: {
    description: "Show the <flame-context> XML that is added to this session's messages: the current frame, its ancestors and finished siblings.",
    args: {
      maxLength: z.number().int().positive().optional().describe("Longest preview in characters (default: 2000)"),
    },
  },
});
// ---- END GENERATED ----

// ctx's pi extension: Flame inside pi (pi-coding-agent), with ctx as its engine.
//
// A pi session's frames live in .opencode/flame/state.json like OpenCode's: the session is
// `pi_<pi's session id>`, and its own frame is the frame of that id. What the extension does, and
// the ctx command behind each part:
//   tools flame_*               ctx frame … --session pi_ID --json (a refusal is "Error: …" text);
//                               flame_pop passes the session's messages since the frame began,
//                               so its log holds every tool call with its output; none with
//                               pi.tools = "off" (ctx config pi.tools, read once at load)
//   /push /pop /status /plan    the same calls as the tools, for the session typing them
//                               (/pop without a summary: the model writes one, then pops)
//   before_agent_start          ctx compact render --for frame --session pi_ID: the frame
//                               context as a message after the prompt (pi stores it, so it is
//                               sent again unchanged on every later request)
//   context                     ctx pi messages --session pi_ID: popped frames folded to their
//                               entries before every model call, the frame context anchored
//                               after each push and pop (pi.fold, pi.fold_user_messages); with
//                               frame.auto on, the model's context window and pi's
//                               compaction.reserveTokens for the pressure valve
//   tool_call                   ctx pi frame: the session's own frame at its first tool call
//   session_compact             ctx frame edit --summary-file -: pi's compaction summary,
//                               recorded on the session's frame
//   session_start               CTX_SESSION for the model's shell: `ctx frame …` run through
//                               bash acts for this session
//   input, before_agent_start,  with frame.auto = turns or all (ctx config frame.auto, read once
//   agent_end                   at load): a person's prompt (an input whose source is not an
//                               extension) opens a turn frame before the agent starts (ctx pi turn
//                               --start), and the agent's end closes it with the turn's messages
//                               (ctx pi turn --end --messages -); tool flame_recall (ctx frame
//                               log) gives back a folded turn's outputs. Not in a subagent's pi.
//   a pi started by another     (pi's example subagent extension runs `pi -p` processes, which
//   session's pi                inherit CTX_SESSION): its frame is a child of that session's
//                               current frame from its first request (ctx pi frame
//                               --parent-session), and at its end (session_shutdown) it is
//                               popped with its transcript (ctx pi finish)
// Nothing here may break the agent: a missing, slow or failing ctx, or a broken state file, is
// reported once and pi carries on with its data untouched. CTX_BIN names the ctx binary;
// CTX_TIMEOUT_MS (default 10000) bounds each call. Every call runs with CTX_HOOK set: ctx's hook
// mode, which waits at most 3 s for the state's lock and starts no frame state in the home
// folder or /. The flame_* tools' descriptions and parameters (the table at the end of this file)
// are generated from ctx's src/tools.rs, the OpenCode plugin's too: change them there, then run
// `ctx generate-artifacts .`.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";

const TIMEOUT_MS = Number(process.env.CTX_TIMEOUT_MS) || 10000;
// The customType of the messages ctx adds (the frame context); `ctx pi messages` knows it.
const CUSTOM_TYPE = "ctx";

type Result = { ok: boolean; stdout: string; stderr: string };

export default async function (pi: ExtensionAPI) {
  const bin = process.env.CTX_BIN || "ctx";
  // The session that started this pi process, when another session's pi (or agent) did: its
  // CTX_SESSION, unless this very process set it (pi loads the extension again for /new).
  const parent = process.env.CTX_SESSION_PID !== String(process.pid) ? process.env.CTX_SESSION : undefined;
  let cwd = process.cwd();
  let notify: ((message: string) => void) | undefined;

  // Each message once: in pi's interface when it has one, else on stderr.
  const logged = new Set<string>();
  const log = (message: string) => {
    if (logged.has(message)) return;
    logged.add(message);
    const line = `ctx: ${message}`;
    if (notify) notify(line);
    else console.error(line);
  };

  // One ctx process: resolves {ok, stdout, stderr}, never rejects.
  const run = (args: string[], input?: string): Promise<Result> =>
    new Promise((resolve) => {
      let child;
      try {
        child = spawn(bin, args, { cwd, env: { ...process.env, CTX_HOOK: "pi" }, stdio: ["pipe", "pipe", "pipe"] });
      } catch (error) {
        resolve({ ok: false, stdout: "", stderr: String(error) });
        return;
      }
      let stdout = "";
      let stderr = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.on("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        const why = error.code === "ENOENT" ? `${bin} is not installed (or not on PATH)` : String(error);
        resolve({ ok: false, stdout, stderr: why });
      });
      child.on("close", (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        const stopped = signal ? `${bin} ${args[0]} ${args[1] ?? ""} took over ${TIMEOUT_MS} ms` : "";
        resolve({ ok: code === 0, stdout, stderr: stopped || stderr });
      });
      child.stdin.on("error", () => {});
      child.stdin.end(input ?? "");
    });

  // ctx's answer as JSON, or undefined (logged once).
  const json = async (args: string[], input?: string) => {
    const result = await run(args, input);
    if (!result.ok) {
      log(`ctx ${args.slice(0, 2).join(" ")}: ${result.stderr.trim() || "failed"}`);
      return undefined;
    }
    try {
      return JSON.parse(result.stdout);
    } catch {
      log(`ctx ${args.slice(0, 2).join(" ")}: printed no JSON`);
      return undefined;
    }
  };

  const refusal = (result: Result) => `Error: ${result.stderr.trim().replace(/^error: /, "") || "ctx failed"}`;

  // ---- the session --------------------------------------------------------------------------------

  // The session of the latest event: a compaction that pi runs as `pi -p` ends comes with a
  // context pi has already retired, which throws when it is read.
  let lastSession: string | undefined;
  const sessionOf = (ctx: any): string | undefined => {
    try {
      const id = ctx?.sessionManager?.getSessionId?.();
      if (id) lastSession = `pi_${id}`;
    } catch {
      // a retired context: the session it had
    }
    return lastSession;
  };

  // The first line of the session's first prompt: the goal of its frame.
  let goal = "";
  const framed = new Map<string, Promise<boolean>>();
  const ensureFrame = (session: string) => {
    if (!framed.has(session)) {
      const pending = (async () => {
        // Without a prompt yet (a /push first), ctx names the frame after the session.
        const args = ["pi", "frame", `--session=${session}`, "--json"];
        if (goal) args.push(`--title=${goal}`);
        if (parent && parent !== session) args.push(`--parent-session=${parent}`);
        const doc = await json(args);
        if (doc === undefined) framed.delete(session); // try again next time
        return Boolean(doc?.frame);
      })();
      framed.set(session, pending);
    }
    return framed.get(session)!;
  };

  const frameArgs = (session: string, group: string, command: string, ...args: string[]) => [
    group,
    command,
    `--session=${session}`,
    ...args,
  ];

  const currentFrame = async (session: string) => {
    const result = await run(frameArgs(session, "frame", "show", "--json"));
    if (!result.ok) return undefined;
    try {
      return JSON.parse(result.stdout).frame;
    } catch {
      return undefined;
    }
  };

  const say = (frame: any) => `${frame.id} ("${String(frame.goal).split("\n")[0]}", ${frame.status})`;

  // ---- the session's messages as a transcript (the frame's log) -----------------------------------

  const textOf = (content: any): string =>
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.filter((b) => b?.type === "text").map((b) => b.text).join("\n")
        : "";

  // pi's messages since `since` (epoch ms), in the shape `opencode export` prints, which ctx's
  // logs read: each tool call with its input and output.
  const transcript = (ctx: any, session: string, since: number) => {
    let entries: any[] = [];
    try {
      entries = ctx.sessionManager.getBranch();
    } catch {
      return undefined;
    }
    const messages = entries.filter((e) => e?.type === "message" && e.message).map((e) => ({ id: e.id, m: e.message }));
    const results = new Map<string, any>();
    for (const { m } of messages) if (m.role === "toolResult") results.set(m.toolCallId, m);
    const out: any[] = [];
    for (const { id, m } of messages) {
      const created = Number(m.timestamp) || 0;
      if (created < since || m.role === "toolResult") continue;
      const info = { id, sessionID: session, role: m.role === "assistant" ? "assistant" : "user", time: { created } };
      const parts: any[] = [];
      if (m.role === "assistant") {
        for (const block of m.content ?? []) {
          if (block?.type === "text") parts.push({ type: "text", text: block.text });
          else if (block?.type === "thinking") parts.push({ type: "reasoning", text: block.thinking });
          else if (block?.type === "toolCall") {
            const result = results.get(block.id);
            const state: any = { status: result ? (result.isError ? "error" : "completed") : "running", input: block.arguments ?? {} };
            if (result) {
              state[result.isError ? "error" : "output"] = textOf(result.content);
              state.time = { start: created, end: Number(result.timestamp) || created };
            }
            parts.push({ type: "tool", tool: block.name, callID: block.id, state });
          }
        }
      } else if (m.role === "bashExecution") {
        parts.push({ type: "text", text: `$ ${m.command}\n${m.output ?? ""}` });
      } else {
        const text = m.summary ?? textOf(m.content);
        if (text) parts.push({ type: "text", text, ...(m.role === "user" ? {} : { synthetic: true }) });
      }
      out.push({ info, parts });
    }
    return JSON.stringify({ info: { id: session, title: goal, ctxSource: "pi" }, messages: out });
  };

  // ---- frame operations ---------------------------------------------------------------------------

  const push = async (session: string, goalText: string, call?: string) => {
    await ensureFrame(session);
    const span = call ? [`--span-call=${call}`] : [];
    const result = await run(frameArgs(session, "frame", "push", "--json", ...span, "--", goalText));
    if (!result.ok) return refusal(result);
    const { frame } = JSON.parse(result.stdout);
    return `Pushed frame ${say(frame)}. It is now this session's current frame: work on its goal here, and call flame_pop when the goal is reached (or cannot be).`;
  };

  const pop = async (ctx: any, session: string, status: string | undefined, summary: string | undefined, call?: string) => {
    const frame = await currentFrame(session);
    if (!frame) return "Error: this session has no current frame to pop";
    const exported = transcript(ctx, session, frame.id === session ? 0 : Date.parse(frame.created_at) || 0);
    const args = frameArgs(session, "frame", "pop", "--json", "--status", status || "completed");
    if (call) args.push(`--span-call=${call}`);
    if (summary?.trim()) args.push(`--summary=${summary}`);
    if (exported) args.push("--transcript", "-");
    const result = await run(args, exported);
    if (!result.ok) return refusal(result);
    const doc = JSON.parse(result.stdout);
    const next = doc.current ? `This session's current frame is now ${doc.current}.` : "This session has no running frame now.";
    return `Popped frame ${say(doc.frame)}. Its log: .opencode/flame/logs/frame-${doc.frame.id}.md. ${next}`;
  };

  const text = async (args: string[]) => {
    const result = await run(args);
    if (!result.ok) return refusal(result);
    return result.stdout.trimEnd() || "(nothing)";
  };

  const plan = async (session: string, goals: string[], parent?: string) => {
    await ensureFrame(session);
    const args = frameArgs(session, "frame", "plan", "--json");
    if (parent) args.push(`--parent=${parent}`);
    const result = await run([...args, "--", ...goals]);
    if (!result.ok) return refusal(result);
    const { frames } = JSON.parse(result.stdout);
    return `Planned ${frames.map(say).join(", ")}. Start one with flame_activate when its turn comes.`;
  };

  // ---- tools --------------------------------------------------------------------------------------

  // pi.tools = "off" (`ctx config`) offers the model no flame_* tool; the commands, the frame
  // context and the fold go on. A ctx that cannot say leaves them on, as the OpenCode plugin does.
  const toolsOn = (await run(["config", "pi.tools"])).stdout.trim() !== "off";
  // frame.auto = turns or all: a frame per person's prompt (below). Read once: a person changing
  // it restarts pi (or /reload), as for pi.tools.
  const autoFrames = (await run(["config", "frame.auto"])).stdout.trim();
  const autoTurns = ["turns", "all"].includes(autoFrames);

  // The pressure valve's limits (frame.auto on): the model's context window, and pi's
  // compaction.reserveTokens from its settings (the project's over the user's), where pi
  // compacts; `ctx pi messages` masks the oldest tool results before it does.
  const reserveTokens = (cwd: string): number | undefined => {
    const agentDir = process.env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent");
    for (const file of [join(cwd, ".pi", "settings.json"), join(agentDir, "settings.json")]) {
      try {
        const reserve = JSON.parse(readFileSync(file, "utf8"))?.compaction?.reserveTokens;
        if (Number.isSafeInteger(reserve) && reserve >= 0) return reserve;
      } catch {
        // No settings there, or none ctx can read: pi's default then.
      }
    }
    return undefined;
  };
  const limitArgs = (ctx: any): string[] => {
    const window = ctx?.model?.contextWindow;
    if (autoFrames === "off" || !Number.isSafeInteger(window) || window <= 0) return [];
    const reserve = reserveTokens(ctx?.cwd ?? process.cwd());
    return ["--context-limit", String(window), ...(reserve === undefined ? [] : ["--reserved", String(reserve)])];
  };

  // Every tool answers with text; nothing it meets may throw into pi's turn. Each tool's
  // description and parameters: flameTools, the table generated at the end of this file.
  const define = (name: string, execute: (params: any, session: string, call: string, ctx: any) => Promise<string>) => {
    if (!toolsOn) return;
    const { description, parameters } = flameTools[name as keyof typeof flameTools];
    pi.registerTool({
      name,
      label: name,
      description,
      parameters,
      async execute(toolCallId: string, params: any, _signal: any, _update: any, ctx: any) {
        let answer: string;
        const session = sessionOf(ctx);
        try {
          answer = session ? await execute(params ?? {}, session, toolCallId, ctx) : "Error: pi gave no session id";
        } catch (error: any) {
          answer = `Error: ${error?.message ?? error}`;
        }
        return { content: [{ type: "text", text: answer }], details: {} };
      },
    });
  };

  define("flame_push", ({ goal: g }, session, call) => push(session, g, call));
  define("flame_pop", ({ status, summary }, session, call, ctx) => pop(ctx, session, status, summary, call));
  if (autoFrames !== "off") {
    define("flame_recall", async ({ id: wanted }, _session, _call, ctx) => {
      const result = await run(["frame", "log", "--", wanted]);
      if (result.ok) return result.stdout.trimEnd() || "(the log is empty)";
      // A result the pressure valve masked is named by its call (`<call id>@<the result's
      // time>`): pi's session keeps it.
      const cut = wanted.lastIndexOf("@");
      const call = cut > 0 ? wanted.slice(0, cut) : wanted;
      const time = cut > 0 ? Number(wanted.slice(cut + 1)) : undefined;
      const entries = ctx?.sessionManager?.getBranch?.() ?? [];
      const found = entries.find(
        (e: any) =>
          e?.message?.role === "toolResult" &&
          e.message.toolCallId === call &&
          (time === undefined || e.message.timestamp === time),
      );
      const content = found?.message?.content;
      if (typeof content === "string") return content;
      if (Array.isArray(content)) return content.map((b: any) => (b?.type === "text" ? b.text : JSON.stringify(b))).join("\n");
      return refusal(result);
    });
  }
  define("flame_status", async (_p, session) => {
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
  define("flame_plan", ({ goal: g, parentSessionID }, session) => plan(session, [g], parentSessionID));
  define("flame_plan_children", ({ children, parentSessionID }, session) => plan(session, children, parentSessionID));
  define("flame_activate", async ({ sessionID }, session, call) => {
    await ensureFrame(session);
    const result = await run(frameArgs(session, "frame", "activate", "--json", `--span-call=${call}`, "--", sessionID));
    if (!result.ok) return refusal(result);
    return `Frame ${say(JSON.parse(result.stdout).frame)} is now this session's current frame.`;
  });
  define("flame_invalidate", async ({ reason, sessionID }, session, call) => {
    const args = frameArgs(session, "frame", "invalidate", "--json", `--reason=${reason}`, `--span-call=${call}`);
    if (sessionID) args.push("--", sessionID);
    const result = await run(args);
    if (!result.ok) return refusal(result);
    const doc = JSON.parse(result.stdout);
    const left = doc.in_progress_descendants.length ? ` Still running below it: ${doc.in_progress_descendants.join(", ")}.` : "";
    return `Invalidated ${doc.invalidated.join(", ")}.${left}`;
  });
  define("flame_set_goal", async ({ goal: g }, session) => {
    const result = await run(frameArgs(session, "frame", "edit", "--json", `--goal=${g}`));
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

  // ---- slash commands -----------------------------------------------------------------------------

  const command = (name: string, description: string, answer: (args: string, session: string, ctx: any) => Promise<string | undefined>) => {
    pi.registerCommand(name, {
      description,
      handler: async (raw: string, ctx: any) => {
        const session = sessionOf(ctx);
        if (!session) return;
        // One pair of quotes around the whole argument is how many people type it.
        const args = (raw ?? "").trim().replace(/^(["'])(.*)\1$/s, "$2");
        const said = await answer(args, session, ctx).catch((error) => `Error: ${error?.message ?? error}`);
        if (said === undefined) return;
        if (ctx.hasUI) ctx.ui.notify(said, said.startsWith("Error: ") ? "error" : "info");
        else console.log(said);
      },
    });
  };
  command("push", "Push a frame for this session: /push <goal>", async (args, session) =>
    args ? push(session, args) : "Error: /push needs a goal: /push <goal>",
  );
  command("pop", "Pop this session's current frame: /pop [summary]", async (args, session, ctx) => {
    if (args) return pop(ctx, session, "completed", args);
    // Without a summary, the model writes one and pops with flame_pop.
    const frame = await currentFrame(session);
    if (!frame) return "Error: this session has no current frame to pop";
    // Without the tools, the model runs ctx itself.
    const how = toolsOn ? "call flame_pop with it" : `run \`ctx frame pop --session ${session} --summary "<the summary>"\` with the bash tool`;
    pi.sendUserMessage(`Finish this session's current frame ${say(frame)}: write its summary (what was achieved or learned, for later frames and its log), then ${how}.`);
    return undefined;
  });
  command("status", "Show this session's frames", async (_args, session) => text(frameArgs(session, "frame", "tree", "--details")));
  command("plan", "Plan frames: /plan <goal>; <goal>; …", async (args, session) => {
    const goals = args.split(/[;\n]/).map((g) => g.trim()).filter(Boolean);
    return goals.length ? plan(session, goals) : "Error: /plan needs goals: /plan <goal>; <goal>; …";
  });

  // ---- events -------------------------------------------------------------------------------------

  const bind = (ctx: any) => {
    try {
      if (ctx?.cwd) cwd = ctx.cwd;
      notify = ctx?.hasUI ? (message: string) => ctx.ui.notify(message, "warning") : undefined;
    } catch {
      // a retired context: the folder and interface it had
    }
  };

  pi.on("session_start", async (_event, ctx) => {
    bind(ctx);
    const session = sessionOf(ctx);
    // The model's own `ctx frame …` (through bash) acts for this session, and so does a pi it
    // starts (a subagent), as its parent.
    if (session) {
      process.env.CTX_SESSION = session;
      process.env.CTX_SESSION_PID = String(process.pid);
    }
  });

  // The latest context in the messages sent to the model (a stored one, or one `ctx pi messages`
  // anchored after a push or pop), while this process knows it; forgotten at a compaction.
  let inView: string | undefined;
  // The whole context as it was when `inView` appeared: one that `ctx pi messages` anchored after a
  // push or pop says only what the request did not, so it is compared through this.
  let inViewWhole: string | undefined;
  const contextIn = (messages: any[]) =>
    messages
      .filter((m) => m?.role === "custom" && m.customType === CUSTOM_TYPE)
      .map((m) => textOf(m.content))
      .filter((t) => t.startsWith("<flame-context"))
      .at(-1);

  // The whole frame context of the session as it is now (the one before_agent_start adds), or
  // undefined when there is none.
  const render = async (session: string): Promise<string | undefined> => {
    const result = await run(["compact", "render", "--for", "frame", "--format", "xml", "--session", session]);
    if (!result.ok) {
      // No frame yet (neither the session's nor a person's) is the usual start: nothing to add.
      if (!/no current frame/.test(result.stderr)) log(`ctx compact render: ${result.stderr.trim() || "failed"}`);
      return undefined;
    }
    const xml = result.stdout.trim();
    return xml.startsWith("<flame-context") ? xml : undefined;
  };

  // The text of the last context this extension added to the session after its last compaction.
  const lastContext = (ctx: any): string | undefined => {
    let entries: any[] = [];
    try {
      entries = ctx.sessionManager.getBranch();
    } catch {
      return undefined;
    }
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry?.type === "compaction") return undefined;
      if (entry?.type === "custom_message" && entry.customType === CUSTOM_TYPE) return textOf(entry.content);
    }
    return undefined;
  };

  // ---- turn frames (frame.auto) ------------------------------------------------------------------

  // The words of the person's prompt about to start the agent, as typed (before pi expands a
  // skill or template); undefined when the prompt is not a person's: pi's input event says who
  // sent it ("extension" for pi.sendUserMessage, as /pop without a summary sends one).
  let personPrompt: string | undefined;
  pi.on("input", async (event: any) => {
    personPrompt = event?.source === "extension" ? undefined : String(event?.text ?? "");
  });

  // One session's turn calls run one after the other: an end of turn and the next prompt's start
  // must not cross.
  const turnOrder = new Map<string, Promise<unknown>>();
  const inTurnOrder = <T>(session: string, job: () => Promise<T>): Promise<T> => {
    const next = (turnOrder.get(session) ?? Promise.resolve()).then(job, job);
    turnOrder.set(session, next.catch(() => {}));
    return next;
  };
  // The messages of the session's runs since its turn opened (agent_end's, run after run: a turn
  // that waits for a frame pushed in it spans several), for the turn's summary and log.
  const turnMessages = new Map<string, any[]>();
  const turnCall = async (args: string[], input?: string) => {
    const result = await run(args, input);
    for (const line of result.stderr.split("\n")) if (line.trim()) log(`ctx pi turn: ${line.trim()}`);
    if (!result.ok) return undefined;
    try {
      return JSON.parse(result.stdout);
    } catch {
      log("ctx pi turn printed no JSON");
      return undefined;
    }
  };
  // A person's prompt starts the agent: its turn opens (after the frame context is made, which
  // stays the session's own, so that it is not sent again for every turn).
  const startTurn = (session: string, prompt: string) =>
    inTurnOrder(session, async () => {
      const doc = await turnCall(["pi", "turn", `--session=${session}`, "--start", "--json", `--goal=${prompt}`]);
      if (doc?.frame) turnMessages.set(session, []);
    });
  const endTurn = (session: string, messages: any[]) =>
    inTurnOrder(session, async () => {
      const held = [...(turnMessages.get(session) ?? []), ...messages];
      turnMessages.set(session, held);
      const doc = await turnCall(
        ["pi", "turn", `--session=${session}`, "--end", "--json", "--messages", "-"],
        JSON.stringify({ messages: held }),
      );
      // Kept only for a turn that waits for a frame pushed in it: its next end needs them too.
      if (!/waits/.test(doc?.reason ?? "")) turnMessages.delete(session);
    });

  pi.on("agent_end", async (event: any, ctx) => {
    bind(ctx);
    const session = sessionOf(ctx);
    if (!autoTurns || !session || (parent && parent !== session)) return;
    await endTurn(session, Array.isArray(event?.messages) ? event.messages : []);
  });

  pi.on("before_agent_start", async (event, ctx) => {
    bind(ctx);
    const prompt = typeof event.prompt === "string" ? event.prompt : "";
    if (!goal) goal = prompt.trim().split("\n")[0] ?? "";
    const session = sessionOf(ctx);
    const person = personPrompt;
    personPrompt = undefined;
    if (!session) return;
    const subagent = Boolean(parent && parent !== session);
    const turn = autoTurns && person !== undefined && !subagent;
    // A subagent's first request already carries its own frame; a turn opens under the
    // session's.
    if (subagent || turn) await ensureFrame(session);
    const xml = await render(session);
    if (turn) await startTurn(session, person || prompt);
    if (!xml) return;
    // A context saying what the latest one the model was sent says is not added again.
    if ((inView === undefined ? lastContext(ctx) : inViewWhole) === xml) return;
    return { message: { customType: CUSTOM_TYPE, content: xml, display: false } };
  });

  pi.on("tool_call", async (_event, ctx) => {
    bind(ctx);
    // Every session has its own frame from its first tool call on, so that its compaction
    // summaries and cost are recorded.
    const session = sessionOf(ctx);
    if (session) await ensureFrame(session);
  });

  pi.on("context", async (event, ctx) => {
    bind(ctx);
    const session = sessionOf(ctx);
    if (!session || !Array.isArray(event.messages)) return;
    const result = await run(["pi", "messages", "--session", session, ...limitArgs(ctx)], JSON.stringify({ messages: event.messages }));
    // ctx's warnings (a message it does not know, a span it could not fold) and refusals go to
    // the log, once each; on a refusal the messages go as they are.
    for (const line of result.stderr.split("\n")) if (line.trim()) log(`ctx pi messages: ${line.trim()}`);
    if (!result.ok) return;
    try {
      const doc = JSON.parse(result.stdout);
      if (Array.isArray(doc?.messages)) {
        // "" when none is in view (folded with a frame, say): the next one is added.
        const latest = contextIn(doc.messages) ?? "";
        if (latest !== inView) {
          inView = latest;
          inViewWhole = latest && (await render(session));
        }
        return { messages: doc.messages };
      }
    } catch {
      log("ctx pi messages printed no JSON");
    }
  });

  pi.on("session_shutdown", async (_event, ctx) => {
    const session = sessionOf(ctx);
    if (!parent || !session || parent === session || !framed.has(session)) return;
    // A subagent's session ended: its frame is popped with its transcript, the summary its last
    // answer; a run that ended in an error or was aborted pops as failed or blocked.
    let entries: any[] = [];
    try {
      entries = ctx.sessionManager.getBranch();
    } catch {
      // a retired context: no transcript, the frame still ends
    }
    const last = entries.filter((e) => e?.type === "message" && e.message?.role === "assistant").at(-1)?.message;
    const exported = entries.length ? transcript(ctx, session, 0) : undefined;
    const args = ["pi", "finish", `--session=${session}`, "--json"];
    if (typeof last?.stopReason === "string") args.push(`--stop-reason=${last.stopReason}`);
    if (exported) args.push("--transcript", "-");
    await json(args, exported);
  });

  pi.on("session_compact", async (event: any, ctx) => {
    bind(ctx);
    inView = undefined;
    const session = sessionOf(ctx);
    const summary = event?.compactionEntry?.summary;
    if (!session || typeof summary !== "string" || !summary.trim()) return;
    // Only a session with a frame of its own records its summary (never the person's frame).
    if (!(await run(["frame", "show", "--frame", session, "--json"])).ok) return;
    await json(["frame", "edit", "--session", session, "--json", "--summary-file", "-"], summary);
  });
}

// ---- BEGIN GENERATED from src/tools.rs by `ctx generate-artifacts .`: edit the table there ----
// The longest context preview, in characters, when the model does not ask for another length.
const PREVIEW_CHARS = 2000;
// The flame_* tools as the model reads them: each one's description and parameters, in pi's TypeBox schemas.
const flameTools = {
  flame_push: {
    description: "Start a child frame of this session's current frame for a subtask with its own goal, and make it this session's current frame. Use it when you begin a distinct piece of work (a feature, a fix, an investigation) whose result should be summarised on its own; call flame_pop when it is done.",
    parameters: Type.Object({
      goal: Type.String({ description: "What the new frame is for, in one sentence (required, not blank)" }),
    }),
  },
  flame_pop: {
    description: "Finish this session's current frame: record its status and summary, write its log (with this session's messages since the frame began), and make its parent the current frame. Use it when the frame's goal is reached (completed), cannot be reached (failed), or waits on something outside your control (blocked; it can be resumed with flame_activate). A frame with running child frames is refused: pop those first. After the pop, the frame's messages (from its flame_push on) are folded out of the conversation: what stays is this call, with its summary, and as its result a <flame-folded> entry with the frame's status (none: completed), goal (none when completed with a summary), artifacts and decisions, the summary only when the call does not hold it, and a log attribute only when the frame's log is not .opencode/flame/logs/frame-<id>.md, where a pop writes it (log=\"\": no log). So write a summary that carries what later work needs; the log holds every message and tool output in full.",
    parameters: Type.Object({
      status: Type.Optional(Type.Union([Type.Literal("completed"), Type.Literal("failed"), Type.Literal("blocked")], { description: "How the frame ended (default: completed)" })),
      summary: Type.Optional(Type.String({ description: "What was achieved or learned, for later frames and the log (default: none)" })),
    }),
  },
  flame_recall: {
    description: "Give back what ctx folded out of the conversation. With a frame's id: what its log keeps, every message and tool output of the frame (an output over frame.log.output_max bytes cut, marked). With a tool call's id: that call's whole output, from this session. Use it when an output replaced by \"[ctx folded this output … flame_recall with id <id> …]\" is needed again.",
    parameters: Type.Object({
      id: Type.String({ description: "The id the folded output names: a frame's (or a unique prefix of at least 4 characters), or a tool call's" }),
    }),
  },
  flame_status: {
    description: "Show this session's current frame in full and the whole frame tree (its current frame marked). Use it to see where you are before you push, pop or plan.",
    parameters: Type.Object({}),
  },
  flame_tree: {
    description: "Show the frame tree: frames in creation order with their status, this session's current frame marked.",
    parameters: Type.Object({
      showFull: Type.Optional(Type.Boolean({ description: "The whole tree (default: true); false shows only this session's current frame and what is below it" })),
      rootID: Type.Optional(Type.String({ description: "Show only this frame's subtree (default: all roots)" })),
      showDetails: Type.Optional(Type.Boolean({ description: "Add summaries, artifacts, decisions and log paths (default: false)" })),
    }),
  },
  flame_plan: {
    description: "Plan one child frame (status planned) for work to do later, without starting it. Use it to lay out the next steps; start a planned frame with flame_activate.",
    parameters: Type.Object({
      goal: Type.String({ description: "What the planned frame is for (required)" }),
      parentSessionID: Type.Optional(Type.String({ description: "The parent frame (default: this session's current frame)" })),
    }),
  },
  flame_plan_children: {
    description: "Plan several child frames at once, in the order given, without starting them.",
    parameters: Type.Object({
      children: Type.Array(Type.String(), { minItems: 1, description: "The goals of the planned frames, in order (at least one)" }),
      parentSessionID: Type.Optional(Type.String({ description: "The parent frame (default: this session's current frame)" })),
    }),
  },
  flame_activate: {
    description: "Start a planned frame, or resume a blocked one, and make it this session's current frame. Its parent must be in progress.",
    parameters: Type.Object({
      sessionID: Type.String({ description: "The frame to start: a full frame id or a unique prefix of at least 4 characters" }),
    }),
  },
  flame_invalidate: {
    description: "Mark a frame as no longer needed (invalidated), with its planned descendants; running descendants are reported and left as they are. Use it when a plan changed and a frame's goal no longer applies.",
    parameters: Type.Object({
      reason: Type.String({ description: "Why the frame no longer applies (required)" }),
      sessionID: Type.Optional(Type.String({ description: "The frame (default: this session's current frame)" })),
    }),
  },
  flame_set_goal: {
    description: "Correct the goal of this session's current frame (a typo, a sharper wording).",
    parameters: Type.Object({
      goal: Type.String({ description: "The new goal (required, not blank)" }),
    }),
  },
  flame_add_artifact: {
    description: "Record a file or other output that this session's current frame produced (exact duplicates are skipped).",
    parameters: Type.Object({
      artifact: Type.String({ description: "A path or name, recorded exactly as given" }),
    }),
  },
  flame_add_decision: {
    description: "Record a decision taken in this session's current frame, so later frames see it.",
    parameters: Type.Object({
      decision: Type.String({ description: "The decision, in one sentence (required)" }),
    }),
  },
  flame_get_summary: {
    description: "Show every field of a frame: goal, status, times, summary, artifacts, decisions, log.",
    parameters: Type.Object({
      sessionID: Type.Optional(Type.String({ description: "The frame (default: this session's current frame)" })),
    }),
  },
  flame_context_preview: {
    description: "Show the <flame-context> XML that is added to this session's messages: the current frame, its ancestors and finished siblings.",
    parameters: Type.Object({
      maxLength: Type.Optional(Type.Integer({ minimum: 1, description: "Longest preview in characters (default: 2000)" })),
    }),
  },
};
// ---- END GENERATED ----

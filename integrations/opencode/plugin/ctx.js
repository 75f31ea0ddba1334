// OpenCode plugin: feeds ctx's rendered context into OpenCode's hooks.
//   experimental.session.compacting      <- ctx compact render --format json
//   experimental.chat.system.transform   <- ctx compact render --for system --format json
//   experimental.chat.messages.transform <- ctx compact inject --at last-user --for frame
// A failing ctx (no current frame, unreadable state, ctx not installed) leaves OpenCode's output
// untouched, so a broken state file never breaks a model call. CTX_BIN names the ctx binary.
import { spawnSync } from "node:child_process";

export const CtxPlugin = async ({ directory }) => {
  const bin = process.env.CTX_BIN || "ctx";
  const ctx = (args, input) => {
    const run = spawnSync(bin, args, {
      cwd: directory,
      input,
      encoding: "utf8",
      maxBuffer: 1 << 30,
    });
    if (run.status !== 0 || !run.stdout) return undefined;
    try {
      return JSON.parse(run.stdout);
    } catch {
      return undefined;
    }
  };

  return {
    "experimental.session.compacting": async (_input, output) => {
      const doc = ctx(["compact", "render", "--format", "json"]);
      if (Array.isArray(doc?.context)) output.context.push(...doc.context);
      if (typeof doc?.prompt === "string") output.prompt = doc.prompt;
    },
    "experimental.chat.system.transform": async (_input, output) => {
      const doc = ctx(["compact", "render", "--for", "system", "--format", "json"]);
      if (Array.isArray(doc?.system)) output.system.push(...doc.system);
    },
    "experimental.chat.messages.transform": async (_input, output) => {
      const list = JSON.stringify({ messages: output.messages });
      const doc = ctx(["compact", "inject", "--at", "last-user", "--for", "frame"], list);
      // OpenCode holds a reference to this array: replace its contents, never the array.
      if (Array.isArray(doc?.messages)) output.messages.splice(0, output.messages.length, ...doc.messages);
    },
  };
};

// The OpenCode plugin of `"plugin": ["ctxkit@VERSION"]` in opencode.json: ctx's own plugin
// (ctx.js, the file `ctx opencode install` writes), run with the binary of this package, so no
// ctx on PATH is needed and plugin and binary are always the same version. When that binary
// cannot be used, OpenCode is told once what to do, the message is logged, and OpenCode runs on
// without ctx.
import { findCheckedBinary } from "./binary.js";
import { CtxPlugin } from "./ctx.js";

export const CtxkitPlugin = async (input) => {
  const found = findCheckedBinary();
  if (found.error) {
    const message = `ctxkit: ${found.error}. ctx's frames are off for this OpenCode run.`;
    console.error(message);
    await Promise.resolve()
      .then(() => input?.client?.app?.log?.({ body: { service: "ctx", level: "error", message } }))
      .catch(() => {});
    return {};
  }
  return CtxPlugin({ ...input, ctxBin: found.path });
};

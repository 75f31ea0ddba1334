// After install (npm's postinstall): `ctx` becomes this platform's binary itself instead of the
// Node script that starts it, which costs Node's start-up on every call (over 100 ms on a busy
// machine: every Claude Code hook pays it). bin/ctx.js is replaced by a hard link to the binary
// (a copy where links cannot be made). Nothing changes on Windows, where npm's shim runs the file
// with node, nor when the binary cannot be used here: the script stays and says what to do. An
// install with --ignore-scripts keeps the script too. Never fails the install.
import { chmodSync, copyFileSync, linkSync, renameSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { findCheckedBinary } from "./binary.js";

if (process.platform !== "win32") {
  const found = findCheckedBinary();
  if (!found.error) {
    const script = fileURLToPath(new URL("./bin/ctx.js", import.meta.url));
    const next = `${script}.next`;
    try {
      rmSync(next, { force: true });
      try {
        linkSync(found.path, next);
      } catch {
        copyFileSync(found.path, next);
        chmodSync(next, 0o755);
      }
      renameSync(next, script);
    } catch {
      rmSync(next, { force: true });
    }
  }
}

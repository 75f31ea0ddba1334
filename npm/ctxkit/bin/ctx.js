#!/usr/bin/env node
// `ctx` and `npx ctxkit`: runs this platform's ctx binary with the same arguments, streams and
// exit status.
import { spawnSync } from "node:child_process";
import { findBinary } from "../binary.js";

const found = findBinary();
if (found.error) {
  console.error(`error: ${found.error}`);
  process.exit(1);
}
const run = spawnSync(found.path, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(`error: cannot run ${found.path}: ${run.error.message}`);
  process.exit(1);
}
if (run.signal) process.kill(process.pid, run.signal);
process.exit(run.status ?? 1);

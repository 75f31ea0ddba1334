// Finds the ctx binary of this package: the one in the @ctxkit/<os>-<arch> package that npm
// installed beside it (an optional dependency: npm installs only the one for this machine).
// Everything that can be wrong with it becomes one message saying what to do; nothing throws.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const manifest = require("./package.json");

export const VERSION = manifest.version;
export const PLATFORM = `${process.platform}-${process.arch}`;
const PACKAGE = `@ctxkit/${PLATFORM}`;
const EXE = process.platform === "win32" ? "ctx.exe" : "ctx";
const OTHER_WAYS = "or install ctx another way: cargo install ctxkit, or a release binary";

// {path} or {error}: the platform package's binary, checked to be there and executable.
export function findBinary() {
  if (process.env.CTXKIT_BINARY) return checked(process.env.CTXKIT_BINARY);
  if (!(PACKAGE in (manifest.optionalDependencies ?? {}))) {
    const supported = Object.keys(manifest.optionalDependencies ?? {})
      .map((name) => name.replace("@ctxkit/", ""))
      .join(", ");
    return { error: `ctxkit ${VERSION} has no ctx binary for ${PLATFORM} (it has: ${supported}); ${OTHER_WAYS}` };
  }
  let packageJson;
  try {
    packageJson = require.resolve(`${PACKAGE}/package.json`);
  } catch {
    return {
      error:
        `ctx's binary for ${PLATFORM} (${PACKAGE}) is not installed: ` +
        `install ctxkit again with its optional dependencies (not --no-optional or --omit=optional), ${OTHER_WAYS}`,
    };
  }
  const platform = require(packageJson);
  if (platform.version !== VERSION) {
    return { error: `${PACKAGE} is version ${platform.version}, ctxkit ${VERSION}: install ctxkit@${VERSION} again` };
  }
  return checked(join(dirname(packageJson), "bin", EXE));
}

function checked(path) {
  try {
    accessSync(path, constants.X_OK);
  } catch (error) {
    const why =
      error.code === "ENOENT"
        ? "is missing"
        : "cannot be run (not executable, or its folder is mounted noexec: install ctxkit somewhere else)";
    return { error: `ctx's binary ${path} ${why}` };
  }
  return { path };
}

// {path, version} or {error}: the binary found, run once to check it is the version of this
// package (the plugin's JSON contract is the binary's).
export function findCheckedBinary() {
  const found = findBinary();
  if (found.error) return found;
  const run = spawnSync(found.path, ["--version"], { encoding: "utf8", timeout: 10000 });
  if (run.error || run.status !== 0) {
    const why = run.error?.code === "EACCES"
      ? "not executable, or its folder is mounted noexec: install ctxkit somewhere else"
      : (run.error?.message ?? run.stderr.trim()) || `exit ${run.status}`;
    return { error: `ctx's binary ${found.path} does not run: ${why}` };
  }
  const version = run.stdout.split(" ")[1]?.trim();
  if (version !== VERSION) {
    return { error: `ctx's binary ${found.path} is version ${version}, the ctxkit plugin ${VERSION}: install ctxkit@${VERSION} again` };
  }
  return { path: found.path, version };
}

//! The manifests of the packages ctx ships in, generated from the crate's own metadata so that
//! every one of them carries Cargo.toml's version: the npm package `ctxkit` and its per-platform
//! binary packages `@ctxkit/<os>-<arch>`, and the Claude Code marketplace and plugin (its hooks
//! are those `ctx claude install` merges into settings.json, its commands the very files it
//! writes, `integrations/claude/commands/`). Pure: each manifest is a path below the repository
//! and its text. `ctx generate-artifacts` writes them and a test keeps the committed copies fresh.

use crate::json::{self, Json, Object};

/// The version every package carries: the crate's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One release target: its Rust triple and the npm platform (`process.platform`,
/// `process.arch`) its binary runs on.
#[derive(Debug, Clone, Copy)]
pub struct Platform {
    pub target: &'static str,
    pub os: &'static str,
    pub cpu: &'static str,
    /// Said in the package's description.
    pub what: &'static str,
}

impl Platform {
    /// `<os>-<arch>`, the platform package's name below `@ctxkit/`.
    pub fn npm_name(&self) -> String {
        format!("{}-{}", self.os, self.cpu)
    }

    fn executable(&self) -> &'static str {
        if self.os == "win32" { "ctx.exe" } else { "ctx" }
    }
}

/// The release targets (scripts/release.sh builds the same list). The Linux binaries are static
/// (musl), so they run on glibc and musl systems alike.
pub const PLATFORMS: [Platform; 5] = [
    Platform {
        target: "x86_64-unknown-linux-musl",
        os: "linux",
        cpu: "x64",
        what: "Linux x64, static (musl)",
    },
    Platform {
        target: "aarch64-unknown-linux-musl",
        os: "linux",
        cpu: "arm64",
        what: "Linux arm64, static (musl)",
    },
    Platform {
        target: "x86_64-apple-darwin",
        os: "darwin",
        cpu: "x64",
        what: "macOS x64",
    },
    Platform {
        target: "aarch64-apple-darwin",
        os: "darwin",
        cpu: "arm64",
        what: "macOS arm64",
    },
    Platform {
        target: "x86_64-pc-windows-gnu",
        os: "win32",
        cpu: "x64",
        what: "Windows x64",
    },
];

fn common(object: &mut Object, name: &str, description: &str) {
    object.insert("name", Json::str(name));
    object.insert("version", Json::str(VERSION));
    object.insert("description", Json::str(description));
    object.insert("license", Json::str(env!("CARGO_PKG_LICENSE")));
    object.insert(
        "keywords",
        Json::strings(["opencode", "claude-code", "llm", "context", "cli"]),
    );
}

fn pretty(object: Object) -> String {
    let mut text = json::to_pretty_string(&Json::Object(object));
    text.push('\n');
    text
}

/// `npm/ctxkit/package.json`: the command (`npx ctxkit`, `ctx` on PATH after `npm i -g`) and
/// the OpenCode plugin (`"plugin": ["ctxkit@VERSION"]`), its binary in one optional dependency
/// per platform, of which npm installs the one matching `os` and `cpu`.
pub fn ctxkit_manifest() -> String {
    let mut object = Object::new();
    common(
        &mut object,
        "ctxkit",
        "ctx: see and steer the context of AI coding agents (OpenCode, Claude Code, pi, Codex CLI); also an OpenCode plugin",
    );
    object.insert("type", Json::str("module"));
    object.insert("main", Json::str("plugin.js"));
    let mut bin = Object::new();
    bin.insert("ctx", Json::str("bin/ctx.js"));
    bin.insert("ctxkit", Json::str("bin/ctx.js"));
    object.insert("bin", Json::Object(bin));
    object.insert(
        "files",
        Json::strings([
            "bin/",
            "binary.js",
            "install.js",
            "plugin.js",
            "ctx.js",
            "README.md",
        ]),
    );
    // `ctx` becomes the binary itself, without Node's start-up on every call (install.js).
    let mut scripts = Object::new();
    scripts.insert("postinstall", Json::str("node install.js"));
    object.insert("scripts", Json::Object(scripts));
    let mut engines = Object::new();
    engines.insert("node", Json::str(">=18"));
    object.insert("engines", Json::Object(engines));
    // The flame_* tools are defined with OpenCode's plugin kit (`tool`, its zod schemas), which
    // OpenCode does not hand to an npm plugin. The peer is optional: `npm i -g ctxkit` for the
    // command alone must not pull in the kit (29 packages, 64 MB, and an engine warning on older
    // Node), while OpenCode, which installs a plugin by name, installs the kit beside it.
    let mut peers = Object::new();
    peers.insert("@opencode-ai/plugin", Json::str(">=1"));
    object.insert("peerDependencies", Json::Object(peers));
    let mut optional_peer = Object::new();
    optional_peer.insert("optional", Json::Bool(true));
    let mut peers_meta = Object::new();
    peers_meta.insert("@opencode-ai/plugin", Json::Object(optional_peer));
    object.insert("peerDependenciesMeta", Json::Object(peers_meta));
    let mut optional = Object::new();
    for platform in PLATFORMS {
        optional.insert(
            &format!("@ctxkit/{}", platform.npm_name()),
            Json::str(VERSION),
        );
    }
    object.insert("optionalDependencies", Json::Object(optional));
    pretty(object)
}

/// `npm/platforms/<os>-<arch>/package.json`: one platform's binary, `bin/ctx` (`ctx.exe`).
pub fn platform_manifest(platform: &Platform) -> String {
    let mut object = Object::new();
    common(
        &mut object,
        &format!("@ctxkit/{}", platform.npm_name()),
        &format!("The ctx binary for {} (package ctxkit)", platform.what),
    );
    object.insert("os", Json::strings([platform.os]));
    object.insert("cpu", Json::strings([platform.cpu]));
    if platform.os == "linux" {
        // Static: any C library will do.
        object.insert("libc", Json::strings(["glibc", "musl"]));
    }
    object.insert(
        "files",
        Json::strings([format!("bin/{}", platform.executable()).as_str()]),
    );
    object.insert("preferUnplugged", Json::Bool(true));
    pretty(object)
}

/// The folder of the Claude Code plugin, below the repository: the commands `ctx claude install`
/// writes are already there, in `commands/`.
pub const CLAUDE_PLUGIN_DIR: &str = "integrations/claude";

const CLAUDE_DESCRIPTION: &str = "Flame frames for Claude Code: each session and subagent gets a \
     frame whose context the model sees, /push, /pop, /status and /plan (the hooks and commands \
     of `ctx claude install`)";

/// `.claude-plugin/marketplace.json`: the repository as a Claude Code marketplace of one
/// plugin, `ctx` (`claude plugin install ctx@ctxkit`).
pub fn claude_marketplace() -> String {
    let mut owner = Object::new();
    owner.insert("name", Json::str("ctxkit"));
    let mut plugin = Object::new();
    plugin.insert("name", Json::str("ctx"));
    plugin.insert("source", Json::str(&format!("./{CLAUDE_PLUGIN_DIR}")));
    plugin.insert("description", Json::str(CLAUDE_DESCRIPTION));
    plugin.insert("version", Json::str(VERSION));
    let mut object = Object::new();
    object.insert("name", Json::str("ctxkit"));
    object.insert("owner", Json::Object(owner.clone()));
    let mut metadata = Object::new();
    metadata.insert(
        "description",
        Json::str("ctx, the context toolkit for AI coding agents"),
    );
    metadata.insert("version", Json::str(VERSION));
    object.insert("metadata", Json::Object(metadata));
    object.insert("plugins", Json::Array(vec![Json::Object(plugin)]));
    pretty(object)
}

/// The plugin's `.claude-plugin/plugin.json`.
pub fn claude_plugin_manifest() -> String {
    let mut object = Object::new();
    object.insert("name", Json::str("ctx"));
    object.insert("version", Json::str(VERSION));
    object.insert("description", Json::str(CLAUDE_DESCRIPTION));
    let mut author = Object::new();
    author.insert("name", Json::str("ctxkit"));
    object.insert("author", Json::Object(author));
    object.insert("license", Json::str(env!("CARGO_PKG_LICENSE")));
    object.insert(
        "keywords",
        Json::strings(["context", "frames", "flame", "subagents"]),
    );
    pretty(object)
}

/// The plugin's `bin/ctx-npx`: ctx for its hooks when none is on PATH, the npm package ctxkit of
/// the plugin's version as npx keeps it, from npm's cache only, so that a hook never waits on the
/// network (`npx ctxkit@VERSION --version` once puts it there). The binary in npx's cache is run
/// directly when it is found there: npx itself adds about a second to every hook call. Without
/// it the session's first hook tells the person once how to install ctx, and no hook ever fails.
pub fn claude_npx_script() -> String {
    format!(
        r#"#!/bin/sh
# ctx for the hooks of ctx's Claude Code plugin when no ctx is on PATH: the npm package ctxkit
# {VERSION} as npx keeps it, from npm's cache only (a hook never waits on the network); its binary
# run directly when found (npx itself adds about a second to each call). Generated by
# `ctx generate-artifacts` from src/package.rs.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  *) platform=none ;;
esac
for package in "${{npm_config_cache:-$HOME/.npm}}"/_npx/*/node_modules/@ctxkit/"$platform"; do
  if grep -qs '"version": "{VERSION}"' "$package/package.json" && [ -x "$package/bin/ctx" ]; then
    exec "$package/bin/ctx" "$@"
  fi
done
out=$(npx --offline --yes ctxkit@{VERSION} "$@" 2>/dev/null) && {{ printf '%s' "$out"; exit 0; }}
status=$?
if [ "$3" = SessionStart ]; then
  printf '%s
' '{{"systemMessage": "ctx: no ctx binary for this plugin, so its frames are off. Install one: npm i -g ctxkit@{VERSION} (or run npx ctxkit@{VERSION} --version once), or cargo install ctxkit."}}'
  exit 0
fi
exit "$status"
"#
    )
}

/// Every generated file: its path below the repository and its text.
pub fn manifests() -> Vec<(String, String)> {
    let mut out = vec![("npm/ctxkit/package.json".to_string(), ctxkit_manifest())];
    for platform in &PLATFORMS {
        out.push((
            format!("npm/platforms/{}/package.json", platform.npm_name()),
            platform_manifest(platform),
        ));
    }
    out.push((
        ".claude-plugin/marketplace.json".to_string(),
        claude_marketplace(),
    ));
    out.push((
        format!("{CLAUDE_PLUGIN_DIR}/.claude-plugin/plugin.json"),
        claude_plugin_manifest(),
    ));
    out.push((
        format!("{CLAUDE_PLUGIN_DIR}/hooks/hooks.json"),
        crate::claude::settings::plugin_hooks(),
    ));
    out.push((
        format!("{CLAUDE_PLUGIN_DIR}/bin/ctx-npx"),
        claude_npx_script(),
    ));
    out
}

/// Whether a generated file is a program (written with mode 755).
pub fn is_executable(path: &str) -> bool {
    path.contains("/bin/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_platform_is_an_optional_dependency_at_the_same_version() {
        let ctxkit: serde_json::Value = serde_json::from_str(&ctxkit_manifest()).unwrap();
        assert_eq!(ctxkit["version"], VERSION);
        let optional = ctxkit["optionalDependencies"].as_object().unwrap();
        assert_eq!(optional.len(), PLATFORMS.len());
        for platform in &PLATFORMS {
            let manifest: serde_json::Value =
                serde_json::from_str(&platform_manifest(platform)).unwrap();
            let name = manifest["name"].as_str().unwrap();
            assert_eq!(optional[name], VERSION, "{name}");
            assert_eq!(manifest["version"], VERSION, "{name}");
            assert_eq!(manifest["os"][0], platform.os, "{name}");
            assert_eq!(manifest["cpu"][0], platform.cpu, "{name}");
        }
    }
}

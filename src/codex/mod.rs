//! What ctx knows of Codex CLI (agents.md, "Codex CLI"): its thread ids as frame ids, the hooks
//! ctx installs into its `hooks.json`, its rollout files (read for their cost in `cost`), and
//! where its own folder is.
//!
//! Frames: a session (a Codex thread) is `cx_<thread id>`, and so is a subagent that
//! `spawn_agent` started, since a subagent is a thread of its own: the id its SubagentStart
//! names is the `CODEX_THREAD_ID` its shell sees. So `ctx frame push --session
//! "cx_$CODEX_THREAD_ID"` acts on the frame of whichever thread runs it. Codex writes its ids as
//! lowercase UUIDs, which are frame id characters already.

pub mod cost;
pub mod fold;
pub mod hooks;
pub mod plan;
pub mod rollout;
pub mod turn_fold;

use std::path::PathBuf;

use crate::frame::ops::ShellSession;

/// Codex's tools, as a plan step's summary reads them (`crate::frame::digest`): its shell runs
/// as `exec_command` (`cmd`), and hooks name it `Bash`; `apply_patch` edits files by a patch
/// that names them inside, which a summary does not read.
pub const DIGEST_TOOLS: crate::frame::digest::Tools = crate::frame::digest::Tools {
    shell: &["exec_command", "shell", "Bash"],
    editing: &[],
    path_keys: &[],
};

/// Prefix of a Codex thread's frame id (a session's and a subagent's alike).
pub const THREAD_PREFIX: &str = "cx_";

/// The thread id the model's shell holds, which `--session "cx_$CODEX_THREAD_ID"` names.
pub const SHELL_SESSION: ShellSession = ShellSession {
    prefix: THREAD_PREFIX,
    agent: "Codex",
    unit: "thread",
    variable: "CODEX_THREAD_ID",
};

/// The project's folder of Codex's settings, where install writes ctx's hooks.
pub const PROJECT_DIR: &str = ".codex";

/// Codex's own folder, as Codex finds it: `$CODEX_HOME` when set (and not empty), else
/// `~/.codex`. Its user `hooks.json`, its rollouts (`sessions/`) and the hooks' fallback log live
/// there; `None` when neither the variable nor an absolute `$HOME` is set. Taken as Codex 0.171.0
/// takes it (read from its code, and seen): a `~` is not the home folder but a folder of that
/// name, and a relative path is relative to the working folder; Codex refuses one that does not
/// exist ([`missing_home`]).
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::project::home_dir().map(|h| h.join(".codex")))
}

/// `$CODEX_HOME` when it is set and names no folder: Codex then stops with "CODEX_HOME points to
/// …, but that path does not exist" (or that it is not a folder), so ctx installs nothing there.
pub fn missing_home() -> Option<PathBuf> {
    let set = PathBuf::from(std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty())?);
    (!set.is_dir()).then_some(set)
}

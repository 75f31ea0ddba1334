//! What ctx knows of GitHub Copilot CLI (`@github/copilot`, 1.0.102 observed): where it keeps its
//! files, its session ids as frame ids, the hooks file ctx installs (`hooks`), its records of
//! model calls (`cost`), and how a session is folded for `--resume` (`fold`).
//!
//! Frames: a session is `cp_<session id>` and a subagent `cp_<agent id>` (both UUIDs), the ids
//! Copilot's hooks give. The main agent's shell holds the session's id as
//! `COPILOT_AGENT_SESSION_ID`, so `ctx frame push --session "cp_$COPILOT_AGENT_SESSION_ID"` acts
//! on its frame. A subagent's shell holds an id of its own that no hook names, so a subagent is
//! told its frame's id in words, in the text subagentStart adds to its prompt.

pub mod cost;
pub mod fold;
pub mod hooks;

use std::path::PathBuf;

use crate::frame::ops::ShellSession;

/// Prefix of a Copilot session's or subagent's frame id.
pub const SESSION_PREFIX: &str = "cp_";

/// The session id the main agent's shell holds, which `--session "cp_$COPILOT_AGENT_SESSION_ID"`
/// names.
pub const SHELL_SESSION: ShellSession = ShellSession {
    prefix: SESSION_PREFIX,
    agent: "GitHub Copilot CLI",
    unit: "session",
    variable: "COPILOT_AGENT_SESSION_ID",
};

/// The project's folder of hooks files, below the repository's root: Copilot runs every
/// `*.json` in it, in a folder the person trusts.
pub const PROJECT_DIR: &str = ".github/hooks";

/// The name of ctx's hooks file, in the project's `.github/hooks/` or the user's `hooks/`.
pub const HOOKS_FILE: &str = "ctx.json";

/// Copilot's own folder: `$COPILOT_HOME` when set and not empty, else `~/.copilot`. Its user
/// hooks (`hooks/`, run in every folder), its sessions (`session-state/`) and the hooks'
/// fallback log live there; `None` when neither is known.
pub fn home_dir() -> Option<PathBuf> {
    match std::env::var_os("COPILOT_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => crate::project::home_dir().map(|home| home.join(".copilot")),
    }
}

/// The folder of Copilot's sessions, one folder each (`<id>/events.jsonl`), every project's.
pub fn sessions_dir() -> Option<PathBuf> {
    Some(home_dir()?.join("session-state"))
}

/// The session file of session `id` (what its hooks name `transcriptPath`), when `id` can be a
/// folder's name in `session-state/`.
pub fn session_file(id: &str) -> Option<PathBuf> {
    let plain = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    plain.then(|| Some(sessions_dir()?.join(id).join("events.jsonl")))?
}

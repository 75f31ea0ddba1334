//! What ctx knows of Qwen Code (`@qwen-code/qwen-code`, a Gemini CLI fork; 0.24.4 observed): where
//! it keeps its files, its session ids as frame ids, the hooks ctx installs into its
//! `settings.json` (`hooks`), and its records of model calls (`cost`).
//!
//! Frames: a session is `qw_<session id>` (a UUID), and a subagent `qw_<agent id>` (its `agent`
//! call's id after the subagent's type: `general-purpose-call_1_0`), the ids Qwen's hooks give and
//! the model's shell holds as `QWEN_CODE_SESSION_ID` and `QWEN_CODE_AGENT_ID` (set, and empty, in
//! the main agent's shell). So `ctx frame push --session
//! "qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}"` acts on the frame of whichever agent runs it.

pub mod cost;
pub mod fold;
pub mod hooks;

use std::path::{Path, PathBuf};

use crate::frame::ops::ShellSession;

/// Prefix of a Qwen Code session's or subagent's frame id.
pub const SESSION_PREFIX: &str = "qw_";

/// The session id the model's shell holds, which `--session
/// "qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}"` names (outside a subagent).
pub const SHELL_SESSION: ShellSession = ShellSession {
    prefix: SESSION_PREFIX,
    agent: "Qwen Code",
    unit: "session",
    variable: "QWEN_CODE_SESSION_ID",
};

/// The project's folder of Qwen Code's settings, where install writes ctx's hooks.
pub const PROJECT_DIR: &str = ".qwen";

/// Qwen Code's own folder, as Qwen Code finds it (0.24.4, read from its code): `$QWEN_HOME` when
/// set and not empty (a leading `~/` is the home folder; a relative path is relative to the
/// working folder), else `~/.qwen`. Its user settings, its per-call ledger (`usage/`) and the
/// hooks' fallback log live there; `None` when neither is known.
pub fn home_dir() -> Option<PathBuf> {
    let home = crate::project::home_dir;
    match std::env::var_os("QWEN_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => resolve(PathBuf::from(dir), home),
        None => home().map(|home| home.join(PROJECT_DIR)),
    }
}

/// Where Qwen Code writes its sessions: `$QWEN_RUNTIME_DIR` when set, else its own folder.
pub fn runtime_dir() -> Option<PathBuf> {
    match std::env::var_os("QWEN_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => resolve(PathBuf::from(dir), crate::project::home_dir),
        None => home_dir(),
    }
}

/// `dir` as Qwen Code resolves a folder it is given: `~` and `~/…` below the home folder, a
/// relative path below the working folder.
fn resolve(dir: PathBuf, home: fn() -> Option<PathBuf>) -> Option<PathBuf> {
    let path = match dir.strip_prefix("~") {
        Ok(rest) => home()?.join(rest),
        Err(_) => dir,
    };
    if path.is_absolute() {
        Some(path)
    } else {
        std::env::current_dir().ok().map(|cwd| cwd.join(path))
    }
}

/// The folder of `project`'s sessions: `<runtime dir>/projects/<project path, each character
/// but ASCII letters and digits as ->/chats`.
pub fn project_chats_dir(project: &Path) -> Option<PathBuf> {
    let name: String = project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    Some(runtime_dir()?.join("projects").join(name).join("chats"))
}

/// Qwen Code's ledger of model calls (`token-usage-<YYYY-MM>.jsonl`), every project's.
pub fn usage_dir() -> Option<PathBuf> {
    Some(home_dir()?.join("usage"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_projects_folder_is_named_as_qwen_names_it() {
        let dir = project_chats_dir(Path::new("/tmp/qp/my_proj.v2")).unwrap();
        assert!(
            dir.ends_with("projects/-tmp-qp-my-proj-v2/chats"),
            "{dir:?}"
        );
    }
}

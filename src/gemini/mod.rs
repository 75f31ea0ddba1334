//! What ctx knows of Gemini CLI (`@google/gemini-cli`, 0.61.0 observed): where it keeps its
//! files, its session ids as frame ids, the hooks ctx installs into its `settings.json`
//! (`hooks`), and its records of model calls (`cost`).
//!
//! Frames: a session is `gm_<session id>` (a UUID), the id Gemini CLI's hooks give. Gemini CLI
//! tells a hook nothing of its subagents (no event of their own; their tool events carry the
//! parent's session id), so a subagent's frame, `gma_<n>`, is made from its `invoke_agent` call
//! and named to the subagent in its prompt. The model's shell holds no session id, so the frame
//! context names the session's frame in the exact commands it gives.

pub mod cost;
pub mod fold;
pub mod hooks;

use std::path::PathBuf;

/// Prefix of a Gemini CLI session's frame id.
pub const SESSION_PREFIX: &str = "gm_";

/// Prefix of the frame id of a subagent Gemini CLI ran (`invoke_agent`).
pub const AGENT_PREFIX: &str = "gma_";

/// What a subagent is told its frame is, after its prompt (`Your frame is gma_….`): how the
/// call's AfterTool, and the subagent's session file, name the frame.
pub const FRAME_NAMED: &str = "Your frame is ";

/// The subagent frame `text` names (`Your frame is gma_….`), as it is written there.
pub fn named_frame(text: &str) -> Option<&str> {
    let (_, rest) = text.rsplit_once(FRAME_NAMED)?;
    let id = rest.split_once('.')?.0;
    id.strip_prefix(AGENT_PREFIX)
        .is_some_and(|hex| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(id)
}

/// `text` without the `<hook_context>…</hook_context>` that a hook's SessionStart puts before the
/// first prompt (and the blank space after it): the prompt as the person wrote it.
pub fn without_hook_context(text: &str) -> &str {
    text.strip_prefix("<hook_context>")
        .and_then(|rest| rest.split_once("</hook_context>"))
        .map_or(text, |(_, prompt)| prompt.trim_start())
}

/// The project's folder of Gemini CLI's settings, where install writes ctx's hooks.
pub const PROJECT_DIR: &str = ".gemini";

/// Gemini CLI's own folder, as Gemini CLI finds it (0.61.0, read from its code): `.gemini` in
/// `$GEMINI_CLI_HOME` when set and not empty, else in the home folder. Its user settings, its
/// sessions (`tmp/<project>/chats/`) and the hooks' fallback log live there; `None` when neither
/// is known.
pub fn home_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("GEMINI_CLI_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => crate::project::home_dir()?,
    };
    Some(base.join(PROJECT_DIR))
}

/// Where Gemini CLI keeps every project's sessions: `tmp/<project name>/chats/*.jsonl`, a
/// subagent's below its session's id.
pub fn sessions_dir() -> Option<PathBuf> {
    Some(home_dir()?.join("tmp"))
}

//! Which frame a command acts on, from what its command line said (`--frame`, `--session`) and
//! the environment (`CTX_FRAME`): flame.md §5's order, and the session ids no frame can have.

use crate::error::Result;
use crate::frame::id::SessionId;
use crate::frame::ops::Selector;

/// `--frame`, then `--session` (or `CTX_SESSION`), then `CTX_FRAME` (flame.md §5), for every
/// command that acts on "the current frame". `CTX_FRAME` is read here rather than by clap's
/// `env`, which would fill `--frame` with it and so rank it above `--session`. A session that is
/// an agent's prefix alone (a shell without the agent's session variable) is refused here.
pub fn selector(frame: Option<&str>, session: Option<&str>) -> Result<Selector> {
    if let Some(session) = session {
        for shell in [
            crate::codex::SHELL_SESSION,
            crate::qwen::SHELL_SESSION,
            crate::copilot::SHELL_SESSION,
        ] {
            shell.check(session)?;
        }
    }
    Ok(Selector {
        flag: frame.map(str::to_string),
        session: session.map(SessionId::parse).transpose()?,
        env: std::env::var("CTX_FRAME").ok().filter(|v| !v.is_empty()),
    })
}

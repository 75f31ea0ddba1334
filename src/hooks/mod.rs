//! What the agents that call ctx through hooks (Claude Code, Codex) share below their command
//! adapters and the hook core (`app::hooks`): their ids as frame ids, ctx's entries in their
//! hooks files ([`settings`]), and the rewrite of a folded transcript ([`transcript`]).

use crate::frame::id::validate_id;

pub mod settings;
pub mod transcript;

/// `prefix` and an agent's id as a frame id, or `None` when the id cannot be one (empty, too
/// long, characters outside `[A-Za-z0-9_-]`, such as `../x`): such a session gets no frame.
pub fn framed(prefix: &str, id: &str) -> Option<String> {
    if id.is_empty() {
        return None;
    }
    let framed = format!("{prefix}{id}");
    validate_id(&framed).ok().map(|()| framed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids_become_valid_frame_ids() {
        assert_eq!(framed("cx_", "01a2-b").as_deref(), Some("cx_01a2-b"));
        assert_eq!(framed("cx_", ""), None);
        assert_eq!(framed("cx_", "../x"), None);
        assert_eq!(framed("cx_", &"a".repeat(126)), None);
    }
}

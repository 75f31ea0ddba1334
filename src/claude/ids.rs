//! Claude Code ids as frame ids.
//!
//! A Claude Code session is a UUID (`d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b`), a subagent an
//! `agent_id` of hex digits (`ad1b643c2d108eb8d`). Both consist of id characters already
//! (flame.md §4.1: `[A-Za-z0-9_-]`), so they are kept verbatim behind a prefix that says where the
//! frame came from, as OpenCode's `ses_` does: `cc_<session>` and `cca_<agent>`. Flame v1 reads
//! any string key of `frames`; ctx's own rules (valid characters, at most 128 of them, unique
//! ignoring case) hold because Claude Code writes its ids in lowercase. The session's frame id is
//! also its key in `sessionFrames` (what `CTX_SESSION` names), as for OpenCode sessions.

use crate::hooks::framed;

/// Prefix of a Claude Code session's frame id.
pub const SESSION_PREFIX: &str = "cc_";
/// Prefix of a Claude Code subagent's frame id.
pub const AGENT_PREFIX: &str = "cca_";

/// The frame id of session `session_id`, or `None` when the id cannot be one (empty, too long,
/// characters outside `[A-Za-z0-9_-]`): such a session gets no frame.
pub fn session_frame(session_id: &str) -> Option<String> {
    framed(SESSION_PREFIX, session_id).map(String::from)
}

/// The frame id of subagent `agent_id`, or `None` when the id cannot be one.
pub fn agent_frame(agent_id: &str) -> Option<String> {
    framed(AGENT_PREFIX, agent_id).map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_ids_become_valid_frame_ids() {
        assert_eq!(
            session_frame("d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b").as_deref(),
            Some("cc_d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b")
        );
        assert_eq!(
            agent_frame("ad1b643c2d108eb8d").as_deref(),
            Some("cca_ad1b643c2d108eb8d")
        );
        assert_eq!(session_frame(""), None);
        assert_eq!(session_frame("../x"), None);
        assert_eq!(session_frame(&"a".repeat(126)), None);
        assert_eq!(agent_frame("a b"), None);
    }
}

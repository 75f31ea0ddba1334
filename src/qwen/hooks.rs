//! ctx's entries in Qwen Code's `settings.json` (Claude Code's `hooks` shape): which events ctx
//! hooks and the command each runs. Their merge into a user's file is shared with Claude Code's
//! and Codex's ([`crate::hooks::settings`]). Pure.

use crate::hooks::settings::{self as hook_settings, HookSet, Layout};

/// The events ctx hooks in Qwen Code, with the tool matcher of the tool events (its subagent
/// tool is `agent`). SessionEnd did not fire in `-p` runs (0.24.4), but does when a person ends
/// a session.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("SessionStart", None),
    ("UserPromptSubmit", None),
    ("PreToolUse", Some("agent")),
    ("SubagentStart", None),
    ("SubagentStop", None),
    ("PreCompact", None),
    ("PostCompact", None),
    ("Stop", None),
    ("SessionEnd", None),
];

/// Seconds Qwen Code waits for one of ctx's hooks: a hook takes milliseconds, and one stuck on a
/// slow disk must not hold the session long.
pub const TIMEOUT_SECONDS: i64 = 10;

/// The shell command of ctx's hook for `event` ([`hook_settings::shell_command`]), its log
/// line in Qwen Code's folder.
pub fn command(event: &str) -> String {
    hook_settings::shell_command("qwen", event, "${QWEN_HOME:-$HOME/.qwen}")
}

/// ctx's hooks for Qwen Code.
pub static HOOKS: HookSet = HookSet {
    events: EVENTS,
    command,
    earlier_commands: hook_settings::no_earlier_commands,
    timeout_seconds: TIMEOUT_SECONDS,
    layout: Layout::Groups,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::settings::merge;

    #[test]
    fn install_then_remove_gives_back_the_users_file() {
        let user = "{\n  \"model\": {\"name\": \"qwen3-coder\"},\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"./notify.sh\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
        let installed = merge(&HOOKS, Some(user), false).unwrap();
        let text = installed.text.unwrap();
        assert_eq!(installed.added.len(), EVENTS.len());
        assert!(text.contains("\"matcher\": \"agent\""), "{text}");
        assert!(text.contains("qwen hook SubagentStop"), "{text}");
        assert!(merge(&HOOKS, Some(&text), false).unwrap().text.is_none());
        let removed = merge(&HOOKS, Some(&text), true).unwrap();
        assert_eq!(removed.text.as_deref(), Some(user));
    }

    #[test]
    fn claude_codes_hooks_are_not_qwens() {
        let claude = crate::claude::settings::merge(None, false)
            .unwrap()
            .text
            .unwrap();
        let merged = merge(&HOOKS, Some(&claude), true).unwrap();
        assert!(merged.text.is_none(), "{:?}", merged.removed);
    }
}

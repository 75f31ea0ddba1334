//! ctx's hooks file for GitHub Copilot CLI (`{"version": 1, "hooks": {EVENT: [{"type":
//! "command", "bash", "timeoutSec"}]}}`, [`Layout::Entries`]): which events ctx hooks and the
//! command each runs. The merge into a file is shared with the other agents'
//! ([`crate::hooks::settings`]). Pure.

use crate::hooks::settings::{self as hook_settings, HookSet, Layout};

/// The events ctx hooks in Copilot. Copilot has no tool matchers: preToolUse fires for every
/// tool, and ctx answers only the subagent tool's (`task`).
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("sessionStart", None),
    ("userPromptSubmitted", None),
    ("preToolUse", None),
    ("subagentStart", None),
    ("subagentStop", None),
    ("agentStop", None),
    ("sessionEnd", None),
];

/// Seconds Copilot waits for one of ctx's hooks: a hook takes milliseconds, and one stuck on a
/// slow disk must not hold the session long.
pub const TIMEOUT_SECONDS: i64 = 10;

/// The shell command of ctx's hook for `event` ([`hook_settings::shell_command`]), its log
/// line in Copilot's folder.
pub fn command(event: &str) -> String {
    hook_settings::shell_command("copilot", event, "${COPILOT_HOME:-$HOME/.copilot}")
}

/// ctx's hooks for Copilot.
pub static HOOKS: HookSet = HookSet {
    events: EVENTS,
    command,
    earlier_commands: hook_settings::no_earlier_commands,
    timeout_seconds: TIMEOUT_SECONDS,
    layout: Layout::Entries,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::settings::merge;

    #[test]
    fn a_new_file_is_copilots_layout() {
        let text = merge(&HOOKS, None, false).unwrap().text.unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["version"], 1);
        let entry = &json["hooks"]["agentStop"][0];
        assert_eq!(entry["type"], "command");
        assert_eq!(entry["bash"], command("agentStop"));
        assert_eq!(entry["timeoutSec"], TIMEOUT_SECONDS);
        assert!(entry.get("hooks").is_none() && entry.get("matcher").is_none());
        // Removing from the file ctx made leaves nothing worth keeping.
        let removed = merge(&HOOKS, Some(&text), true).unwrap();
        assert!(removed.emptied, "{:?}", removed.text);
    }

    #[test]
    fn install_then_remove_gives_back_the_users_file() {
        let user = "{\n  \"version\": 1,\n  \"hooks\": {\n    \"agentStop\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./notify.sh ctx copilot hook agentStop\",\n        \"timeoutSec\": 5\n      }\n    ]\n  }\n}\n";
        let installed = merge(&HOOKS, Some(user), false).unwrap();
        let text = installed.text.unwrap();
        assert_eq!(installed.added.len(), EVENTS.len());
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let stops = json["hooks"]["agentStop"].as_array().unwrap();
        assert_eq!(stops.len(), 2, "{text}");
        assert_eq!(stops[1]["bash"], command("agentStop"));
        assert!(merge(&HOOKS, Some(&text), false).unwrap().text.is_none());
        let removed = merge(&HOOKS, Some(&text), true).unwrap();
        assert_eq!(removed.text.as_deref(), Some(user));
        assert!(!removed.emptied);
    }

    #[test]
    fn other_agents_hooks_are_not_copilots() {
        let qwen = merge(&crate::qwen::hooks::HOOKS, None, false)
            .unwrap()
            .text
            .unwrap();
        assert!(merge(&HOOKS, Some(&qwen), true).unwrap().text.is_none());
    }
}

//! ctx's entries in Gemini CLI's `settings.json` (matcher groups of named hooks, timeouts in
//! milliseconds: [`Layout::NamedGroups`]): which events ctx hooks and the command each runs.
//! Their merge into a user's file is shared with the other agents' ([`crate::hooks::settings`]).
//! Pure.

use crate::hooks::settings::{self as hook_settings, HookSet, Layout};

/// The events ctx hooks in Gemini CLI, with the tool matcher of the tool events (its subagent
/// tool is `invoke_agent`). SessionStart is not hooked: what it adds is put before the first
/// prompt's text, and Gemini CLI 0.61.0 drops a prompt that starts so when it resumes the
/// session.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("BeforeAgent", None),
    ("BeforeTool", Some("invoke_agent")),
    ("AfterTool", Some("invoke_agent")),
    ("AfterAgent", None),
    ("SessionEnd", None),
];

/// Seconds Gemini CLI waits for one of ctx's hooks (written in milliseconds): a hook takes
/// milliseconds, and one stuck on a slow disk must not hold the session long.
pub const TIMEOUT_SECONDS: i64 = 10;

/// The shell command of ctx's hook for `event` ([`hook_settings::shell_command`]), its log
/// line in Gemini CLI's folder.
pub fn command(event: &str) -> String {
    hook_settings::shell_command("gemini", event, "${GEMINI_CLI_HOME:-$HOME}/.gemini")
}

/// ctx's hooks for Gemini CLI.
pub static HOOKS: HookSet = HookSet {
    events: EVENTS,
    command,
    earlier_commands: hook_settings::no_earlier_commands,
    timeout_seconds: TIMEOUT_SECONDS,
    layout: Layout::NamedGroups,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::settings::merge;

    #[test]
    fn a_hook_is_named_and_waited_for_in_milliseconds() {
        let text = merge(&HOOKS, None, false).unwrap().text.unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let group = &json["hooks"]["BeforeTool"][0];
        assert_eq!(group["matcher"], "invoke_agent");
        let hook = &group["hooks"][0];
        assert_eq!(hook["name"], "ctx");
        assert_eq!(hook["type"], "command");
        assert_eq!(hook["timeout"], 10_000);
        assert_eq!(hook["command"], command("BeforeTool"));
    }

    #[test]
    fn install_then_remove_gives_back_the_users_file() {
        let user = "{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n  \"hooks\": {\n    \"AfterAgent\": [\n      {\n        \"hooks\": [\n          {\n            \"name\": \"notify\",\n            \"type\": \"command\",\n            \"command\": \"./notify.sh ctx gemini hook AfterAgent\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
        let installed = merge(&HOOKS, Some(user), false).unwrap();
        let text = installed.text.unwrap();
        assert_eq!(installed.added.len(), EVENTS.len());
        assert!(merge(&HOOKS, Some(&text), false).unwrap().text.is_none());
        let removed = merge(&HOOKS, Some(&text), true).unwrap();
        assert_eq!(removed.text.as_deref(), Some(user));
    }
}

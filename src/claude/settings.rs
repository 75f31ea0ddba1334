//! ctx's entries in Claude Code's `settings.json` (claude-code.md §2–§4): which hooks ctx installs;
//! their merge into a user's file is shared with Codex's ([`crate::hooks::settings`]). Pure.
//!
//! A hook is ctx's only when its command is, character for character, one that ctx writes (this
//! version or an earlier one) for the very event it sits under. A person's own hook that mentions
//! ctx (`logger 'ctx claude hook finished'`, a hand-written `ctx claude hook Stop`) is theirs and is
//! never replaced or removed. The file is edited in place ([`crate::json_edit`]): every byte outside
//! the entries ctx adds or takes out stays as the user wrote it (layout, escapes, key order).

use crate::hooks::settings::{self as hook_settings, HookSet, Layout, Merged, Refusal};
use crate::json::Json;

/// The events ctx hooks, with the tool matcher of the tool events.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("SessionStart", None),
    ("UserPromptSubmit", None),
    ("PreToolUse", Some("Agent|Bash")),
    ("PostToolUse", Some("TaskCreate|TaskUpdate")),
    ("PostToolUseFailure", Some("Agent")),
    ("SubagentStart", None),
    ("SubagentStop", None),
    ("PreCompact", None),
    ("PostCompact", None),
    ("Stop", None),
    ("SessionEnd", None),
    ("UserPromptExpansion", None),
];

/// Seconds Claude Code waits for one of ctx's hooks (its default is 60): a hook takes
/// milliseconds, and one stuck on a slow disk must not hold the session long.
pub const TIMEOUT_SECONDS: i64 = 10;

/// The shell command of ctx's hook for `event` ([`hook_settings::shell_command`]), its log
/// line in Claude Code's folder.
pub fn command(event: &str) -> String {
    hook_settings::shell_command("claude", event, "${CLAUDE_CONFIG_DIR:-$HOME/.claude}")
}

/// The commands earlier versions of ctx wrote for `event`, which an install replaces and
/// `--remove` takes out. A version that changes [`command`] adds the old text here.
fn earlier_commands(event: &str) -> Vec<String> {
    vec![
        // Before $CLAUDE_CONFIG_DIR was read, the shell's own log line went to ~/.claude.
        format!(
            "\"${{CTX_BIN:-ctx}}\" claude hook {event} 2>/dev/null || echo \"exit $? of ctx claude \
             hook {event} at $(date -u +%FT%TZ)\" >>\"$HOME/.claude/ctx-hooks.log\" 2>/dev/null; exit 0"
        ),
    ]
}

/// ctx's hooks for Claude Code.
pub static HOOKS: HookSet = HookSet {
    events: EVENTS,
    command,
    earlier_commands,
    timeout_seconds: TIMEOUT_SECONDS,
    layout: Layout::Groups,
};

/// Whether `hook`, found under `event`, is one of ctx's: its command is exactly one ctx writes
/// for that event.
pub fn is_ctx_hook(event: &str, hook: &Json) -> bool {
    hook_settings::is_ctx_hook(&HOOKS, event, hook)
}

/// The settings text with ctx's hooks put in (`remove == false`) or taken out. `existing` is the
/// file's text, `None` when there is none. Only ctx's entries change; the rest of the text stays
/// byte for byte.
pub fn merge(existing: Option<&str>, remove: bool) -> Result<Merged, Refusal> {
    hook_settings::merge(&HOOKS, existing, remove)
}

/// The shell command of the Claude Code plugin's hook for `event`: the same hook as [`command`],
/// run by the ctx on PATH, else (`CTX_BIN` unset) by the plugin's `bin/ctx-npx`, the npm package
/// ctxkit through npx.
pub fn plugin_command(event: &str) -> String {
    format!(
        "npx_ctx=\"${{CLAUDE_PLUGIN_ROOT}}/bin/ctx-npx\"; \
         CTX_BIN=\"${{CTX_BIN:-$(command -v ctx || echo \"$npx_ctx\")}}\"; {}",
        command(event)
    )
}

/// The plugin's `hooks/hooks.json`: the hooks `ctx claude install` merges into settings.json,
/// each running [`plugin_command`].
pub fn plugin_hooks() -> String {
    hook_settings::hooks_file(
        Layout::Groups,
        hook_settings::every_event(&HOOKS, |event, matcher| {
            hook_settings::group(&plugin_command(event), matcher, TIMEOUT_SECONDS)
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::settings::has_comments;
    use crate::json::{self, Object};

    fn ctx_group(event: &str, matcher: Option<&str>) -> Json {
        hook_settings::ctx_group(&HOOKS, event, matcher)
    }

    #[test]
    fn install_then_remove_gives_back_the_users_file() {
        let user = r#"{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./check.sh"
          }
        ]
      }
    ]
  }
}
"#;
        let installed = merge(Some(user), false).unwrap();
        let text = installed.text.unwrap();
        assert!(text.contains("./check.sh"));
        assert_eq!(installed.added.len(), EVENTS.len());
        // A second install changes nothing.
        let again = merge(Some(&text), false).unwrap();
        assert!(again.text.is_none(), "{:?}", again.text);
        let removed = merge(Some(&text), true).unwrap();
        assert_eq!(removed.text.as_deref(), Some(user));
        assert_eq!(removed.removed.len(), EVENTS.len());
        assert!(!removed.emptied, "the user's keys keep the file");
    }

    #[test]
    fn a_file_that_held_only_ctxs_hooks_is_emptied_by_remove() {
        let created = merge(None, false).unwrap();
        assert!(!created.emptied);
        let text = created.text.unwrap();
        let removed = merge(Some(&text), true).unwrap();
        assert!(removed.emptied, "{:?}", removed.text);
        // An empty object with a byte order mark and white space holds nothing either.
        let text = merge(Some("\u{feff} { }\n"), false).unwrap().text.unwrap();
        assert!(merge(Some(&text), true).unwrap().emptied);
        // A file that was an empty object before ctx, with nothing of ctx's, is not its to remove.
        let untouched = merge(Some("{}"), true).unwrap();
        assert!(untouched.text.is_none() && !untouched.emptied);
        let kept = merge(Some("{\"hooks\": {}}"), true).unwrap();
        assert!(!kept.emptied);
    }

    #[test]
    fn a_file_without_hooks_loses_the_key_it_got() {
        let text = merge(Some("{\"a\": 1}"), false).unwrap().text.unwrap();
        let back = merge(Some(&text), true).unwrap().text.unwrap();
        assert_eq!(back, "{\"a\": 1}");
        assert!(merge(None, true).unwrap().text.is_none());
    }

    #[test]
    fn the_users_bytes_stay_as_they_were() {
        for user in [
            "{\"a\":\"\\ud800\",\"b\":\"\\ud83d\\ude00\",\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"x\"}]}]}}",
            "\u{feff}{\n    \"model\" : \"opus\",\n    \"n\": 1.50e3\n}\n\n",
            "{\n\t\"hooks\": {\n\t\t\"SessionStart\": []\n\t}\n}",
        ] {
            let text = merge(Some(user), false).unwrap().text.unwrap();
            for kept in [
                "\\ud800",
                "\\ud83d\\ude00",
                "1.50e3",
                "\"model\" : \"opus\"",
            ] {
                assert_eq!(user.contains(kept), text.contains(kept), "{text}");
            }
            assert!(merge(Some(&text), false).unwrap().text.is_none(), "{text}");
            let back = merge(Some(&text), true).unwrap().text.unwrap();
            let expected = user;
            if user.contains("SessionStart") {
                // An event ctx emptied goes, and so does a "hooks" left empty: Claude Code
                // reads an empty list, an empty object and none alike.
                assert_eq!(back, "{}", "{text}");
            } else {
                assert_eq!(back, expected, "{text}");
            }
        }
    }

    #[test]
    fn a_compact_file_stays_compact() {
        let text = merge(Some("{\"a\":1}"), false).unwrap().text.unwrap();
        assert!(!text.contains('\n'), "{text}");
        assert!(
            text.starts_with(
                "{\"a\":1,\"hooks\":{\"SessionStart\":[{\"hooks\":[{\"type\":\"command\""
            ),
            "{text}"
        );
    }

    #[test]
    fn refusals_name_the_problem() {
        let refused = |text: &str| merge(Some(text), false).unwrap_err().0;
        assert!(refused("{\"a\": 1,").starts_with("it is not valid JSON"));
        assert!(refused("{\n  // mine\n  \"a\": 1\n}").contains("comments"));
        assert!(!has_comments("{\"url\": \"http://x/*y\"}"));
        assert_eq!(refused("[1]"), "it is not a JSON object");
        assert!(refused("{\"hooks\": []}").contains("\"hooks\" is not an object"));
        assert!(refused("{\"hooks\": {\"Stop\": 1}}").contains("not a list"));
    }

    #[test]
    fn only_the_exact_command_ctx_writes_for_that_event_is_ctxs() {
        let hook = |c: &str| {
            let mut o = Object::new();
            o.insert("command", Json::str(c));
            Json::Object(o)
        };
        assert!(is_ctx_hook("SessionStart", &hook(&command("SessionStart"))));
        assert!(
            !is_ctx_hook("SubagentStop", &hook(&command("SessionStart"))),
            "another event's"
        );
        assert!(
            !is_ctx_hook("Notification", &hook(&command("Notification"))),
            "an event ctx does not hook"
        );
        for mine in [
            "ctx claude hook SessionStart",
            "/usr/local/bin/ctx claude hook SessionStart",
            "logger 'ctx claude hook finished'",
            "my-ctx claude hook Foo",
            &format!("{} # mine", command("SessionStart")),
            &format!(" {}", command("SessionStart")),
        ] {
            assert!(!is_ctx_hook("SessionStart", &hook(mine)), "{mine}");
        }
    }

    #[test]
    fn an_earlier_versions_entries_are_replaced_not_doubled() {
        let mut old = Object::new();
        for (event, matcher) in EVENTS {
            let Json::Object(mut group) = ctx_group(event, *matcher) else {
                unreachable!()
            };
            let mut hook = Object::new();
            hook.insert("type", Json::str("command"));
            hook.insert("command", Json::str(&earlier_commands(event)[0]));
            group.insert("hooks", Json::Array(vec![Json::Object(hook)]));
            old.insert(event, Json::Array(vec![Json::Object(group)]));
        }
        let mut root = Object::new();
        root.insert("hooks", Json::Object(old));
        let text = json::to_pretty_string(&Json::Object(root));
        let merged = merge(Some(&text), false).unwrap();
        assert_eq!(merged.removed.len(), EVENTS.len());
        let new = merged.text.unwrap();
        assert_eq!(
            new.matches("claude hook SessionStart").count(),
            2,
            "one entry: {new}"
        );
        assert!(!new.contains("$HOME/.claude/ctx-hooks.log"));
    }

    #[test]
    fn a_users_hook_that_mentions_ctx_survives_install_and_remove() {
        let user = "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"logger 'ctx claude hook finished'\"}]}],\"SessionStart\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"ctx claude hook SessionStart\"}]}]}}\n";
        let installed = merge(Some(user), false).unwrap();
        assert!(installed.removed.is_empty(), "{:?}", installed.removed);
        let text = installed.text.unwrap();
        assert!(text.contains("logger 'ctx claude hook finished'"));
        let removed = merge(Some(&text), true).unwrap();
        assert_eq!(removed.removed.len(), EVENTS.len());
        assert_eq!(removed.text.as_deref(), Some(user));
    }

    /// The plugin's hooks are the installed ones: the same events, matchers and timeouts, each
    /// running the installed command.
    #[test]
    fn the_plugins_hooks_are_the_installed_hooks() {
        let installed = merge(None, false).unwrap().text.unwrap();
        let installed: serde_json::Value = serde_json::from_str(&installed).unwrap();
        let plugin: serde_json::Value = serde_json::from_str(&plugin_hooks()).unwrap();
        let (installed, plugin) = (&installed["hooks"], &plugin["hooks"]);
        assert_eq!(
            installed.as_object().unwrap().keys().collect::<Vec<_>>(),
            plugin.as_object().unwrap().keys().collect::<Vec<_>>()
        );
        for (event, groups) in installed.as_object().unwrap() {
            let mut expected = groups.clone();
            let hook = &mut expected[0]["hooks"][0];
            let command = hook["command"].as_str().unwrap().to_string();
            assert!(
                plugin_command(event).ends_with(&format!("; {command}")),
                "{event}"
            );
            hook["command"] = serde_json::Value::String(plugin_command(event));
            assert_eq!(plugin[event], expected, "{event}");
        }
    }
}

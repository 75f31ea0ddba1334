//! ctx's entries in Claude Code's `settings.json` (claude-code.md §2–§4): which hooks ctx installs,
//! how they are merged into a user's file and taken out again. Pure: text in, text out.
//!
//! A hook of ctx's is recognised by its command (it runs `ctx claude hook EVENT`), so a newer ctx
//! replaces an older one's entries and `--remove` finds exactly them; every other key, event,
//! group and hook of the file keeps its place.

use crate::json::{self, Json, Object};

/// The events ctx hooks, with the tool matcher of the tool events.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("SessionStart", None),
    ("UserPromptSubmit", None),
    ("PreToolUse", Some("Agent")),
    ("PostToolUseFailure", Some("Agent")),
    ("SubagentStart", None),
    ("SubagentStop", None),
    ("PreCompact", None),
    ("PostCompact", None),
];

/// Seconds Claude Code waits for one of ctx's hooks (its default is 60): a hook takes
/// milliseconds, and one stuck on a slow disk must not hold the session long.
const TIMEOUT_SECONDS: i64 = 10;

/// The shell command of ctx's hook for `event`. `CTX_BIN` names another ctx binary. When ctx
/// cannot run at all (not on PATH, killed) the shell itself writes the log line and the hook
/// still exits 0, so Claude Code carries on.
pub fn command(event: &str) -> String {
    format!(
        "\"${{CTX_BIN:-ctx}}\" claude hook {event} 2>/dev/null || echo \"exit $? of ctx claude hook \
         {event} at $(date -u +%FT%TZ)\" >>\"$HOME/.claude/ctx-hooks.log\" 2>/dev/null; exit 0"
    )
}

/// Whether a hook entry is one of ctx's: its command runs `ctx claude hook`.
pub fn is_ctx_hook(hook: &Json) -> bool {
    let Some(command) = hook
        .as_object()
        .and_then(|h| h.get("command"))
        .and_then(Json::as_str)
    else {
        return false;
    };
    command
        .find(" claude hook ")
        .is_some_and(|at| command[..at].contains("ctx"))
}

/// What a settings file could not be merged for: the message says what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

/// One hook entry added or removed, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub event: String,
    pub command: String,
}

/// A settings file after the merge: its new text (`None` when nothing changes) and what changed.
#[derive(Debug, Default)]
pub struct Merged {
    pub text: Option<String>,
    pub added: Vec<Change>,
    pub removed: Vec<Change>,
}

/// Parses a settings file's text (`None`: the file does not exist). Anything but a JSON object
/// is refused; so is JSON with comments, which ctx could not write back.
fn parse(text: Option<&str>) -> Result<Object, Refusal> {
    let Some(text) = text else {
        return Ok(Object::new());
    };
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if body.trim().is_empty() {
        return Ok(Object::new());
    }
    match json::parse(body) {
        Ok(Json::Object(object)) => Ok(object),
        Ok(_) => Err(Refusal("it is not a JSON object".into())),
        Err(_) if has_comments(body) => Err(Refusal(
            "it has comments, which ctx would lose by rewriting it".into(),
        )),
        Err(e) => Err(Refusal(format!(
            "it is not valid JSON: {} at line {}, column {}",
            e.message, e.line, e.column
        ))),
    }
}

/// Whether `text` has `//` or `/*` outside its strings.
fn has_comments(text: &str) -> bool {
    let bytes = text.as_bytes();
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')) {
            return true;
        }
    }
    false
}

/// Takes ctx's hooks out of `hooks` (the settings' `hooks` object): groups left without hooks
/// go, events left without groups go.
fn take_out(hooks: &mut Object, removed: &mut Vec<Change>) {
    let events: Vec<String> = hooks.keys().map(str::to_string).collect();
    for event in events {
        let Some(Json::Array(groups)) = hooks.get_mut(&event) else {
            continue;
        };
        let before = removed.len();
        groups.retain_mut(|group| {
            let Some(Json::Array(entries)) = group.as_object_mut().and_then(|g| g.get_mut("hooks"))
            else {
                return true;
            };
            let had = entries.len();
            entries.retain(|hook| {
                if !is_ctx_hook(hook) {
                    return true;
                }
                let command = hook.as_object().and_then(|h| h.get("command"));
                removed.push(Change {
                    event: event.clone(),
                    command: command.and_then(Json::as_str).unwrap_or("").to_string(),
                });
                false
            });
            !(entries.is_empty() && had > 0)
        });
        if removed.len() > before && groups.is_empty() {
            hooks.remove(&event);
        }
    }
}

fn ctx_group(event: &str, matcher: Option<&str>) -> Json {
    let mut hook = Object::new();
    hook.insert("type", Json::str("command"));
    hook.insert("command", Json::str(&command(event)));
    hook.insert("timeout", Json::int(TIMEOUT_SECONDS));
    let mut group = Object::new();
    if let Some(matcher) = matcher {
        group.insert("matcher", Json::str(matcher));
    }
    group.insert("hooks", Json::Array(vec![Json::Object(hook)]));
    Json::Object(group)
}

/// The settings text with ctx's hooks put in (`remove == false`) or taken out. `existing` is the
/// file's text, `None` when there is none.
pub fn merge(existing: Option<&str>, remove: bool) -> Result<Merged, Refusal> {
    let mut root = parse(existing)?;
    let mut merged = Merged::default();
    let hooks_was_there = root.get("hooks").is_some();
    if hooks_was_there && !matches!(root.get("hooks"), Some(Json::Object(_))) {
        return Err(Refusal("its \"hooks\" is not an object".into()));
    }
    if !hooks_was_there && remove {
        return Ok(merged);
    }
    if !hooks_was_there {
        root.insert("hooks", Json::Object(Object::new()));
    }
    let Some(Json::Object(hooks)) = root.get_mut("hooks") else {
        unreachable!("hooks was just checked or made an object");
    };
    for (event, groups) in hooks.iter() {
        if !matches!(groups, Json::Array(_)) {
            return Err(Refusal(format!("its \"hooks\".\"{event}\" is not a list")));
        }
    }
    take_out(hooks, &mut merged.removed);
    if remove {
        if hooks.is_empty() && !merged.removed.is_empty() {
            root.remove("hooks");
        }
    } else {
        for (event, matcher) in EVENTS {
            let group = ctx_group(event, *matcher);
            match hooks.get_mut(event) {
                Some(Json::Array(groups)) => groups.push(group),
                _ => hooks.insert(event, Json::Array(vec![group])),
            }
            merged.added.push(Change {
                event: (*event).to_string(),
                command: command(event),
            });
        }
    }
    let mut text = json::to_pretty_string(&Json::Object(root));
    text.push('\n');
    if existing.map(|e| e.strip_prefix('\u{feff}').unwrap_or(e)) != Some(text.as_str())
        && (existing.is_some() || !merged.added.is_empty())
    {
        merged.text = Some(text);
    }
    // Re-installing the same hooks is no change to report.
    if merged.text.is_none() {
        merged.added.clear();
        merged.removed.clear();
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn a_file_without_hooks_loses_the_key_it_got() {
        let text = merge(Some("{\"a\": 1}"), false).unwrap().text.unwrap();
        let back = merge(Some(&text), true).unwrap().text.unwrap();
        assert_eq!(back, "{\n  \"a\": 1\n}\n");
        assert!(merge(None, true).unwrap().text.is_none());
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
    fn ctx_hooks_are_told_by_their_command() {
        let hook = |c: &str| {
            let mut o = Object::new();
            o.insert("command", Json::str(c));
            Json::Object(o)
        };
        assert!(is_ctx_hook(&hook(&command("Stop"))));
        assert!(is_ctx_hook(&hook("/usr/local/bin/ctx claude hook Stop")));
        assert!(!is_ctx_hook(&hook("./claude hook Stop")));
        assert!(!is_ctx_hook(&hook("ctx frame tree")));
    }
}

//! ctx's entries in Claude Code's `settings.json` (claude-code.md §2–§4): which hooks ctx installs,
//! how they are merged into a user's file and taken out again. Pure: text in, text out.
//!
//! A hook is ctx's only when its command is, character for character, one that ctx writes (this
//! version or an earlier one) for the very event it sits under. A person's own hook that mentions
//! ctx (`logger 'ctx claude hook finished'`, a hand-written `ctx claude hook Stop`) is theirs and is
//! never replaced or removed. The file is edited in place ([`crate::json_edit`]): every byte outside
//! the entries ctx adds or takes out stays as the user wrote it (layout, escapes, key order).

use crate::json::{self, Json, Object};
use crate::json_edit::{Container, Keep};

/// The events ctx hooks, with the tool matcher of the tool events.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("SessionStart", None),
    ("UserPromptSubmit", None),
    ("PreToolUse", Some("Agent|Bash")),
    ("PostToolUseFailure", Some("Agent")),
    ("SubagentStart", None),
    ("SubagentStop", None),
    ("PreCompact", None),
    ("PostCompact", None),
    ("SessionEnd", None),
    ("UserPromptExpansion", None),
];

/// Seconds Claude Code waits for one of ctx's hooks (its default is 60): a hook takes
/// milliseconds, and one stuck on a slow disk must not hold the session long.
pub const TIMEOUT_SECONDS: i64 = 10;

/// The shell command of ctx's hook for `event`. `CTX_BIN` names another ctx binary. When ctx
/// cannot run at all (not on PATH, killed) the shell itself writes the log line and the hook
/// still exits 0, so Claude Code carries on.
pub fn command(event: &str) -> String {
    format!(
        "\"${{CTX_BIN:-ctx}}\" claude hook {event} 2>/dev/null || echo \"exit $? of ctx claude hook \
         {event} at $(date -u +%FT%TZ)\" >>\"${{CLAUDE_CONFIG_DIR:-$HOME/.claude}}/ctx-hooks.log\" 2>/dev/null; exit 0"
    )
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

/// Whether `hook`, found under `event`, is one of ctx's: its command is exactly one ctx writes
/// for that event.
pub fn is_ctx_hook(event: &str, hook: &Json) -> bool {
    let Some(text) = hook
        .as_object()
        .and_then(|h| h.get("command"))
        .and_then(Json::as_str)
    else {
        return false;
    };
    EVENTS.iter().any(|(e, _)| *e == event)
        && (text == command(event) || earlier_commands(event).iter().any(|c| c == text))
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

/// Checks a settings file's text (without its byte order mark): a JSON object, or refused. JSON
/// with comments is refused too, since ctx could not write it back.
fn check(body: &str) -> Result<Object, Refusal> {
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
    crate::json_edit::outside_strings(text)
        .any(|(i, b)| b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')))
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
    hooks_file(every_event(|event, matcher| {
        group(&plugin_command(event), matcher)
    }))
}

/// A `hooks` object with one group for each event ctx hooks, made by `group_of(event, matcher)`.
fn every_event(group_of: impl Fn(&str, Option<&str>) -> Json) -> Json {
    let mut hooks = Object::new();
    for (event, matcher) in EVENTS {
        hooks.insert(event, Json::Array(vec![group_of(event, *matcher)]));
    }
    Json::Object(hooks)
}

/// A file that holds only `hooks`, as `JSON.stringify(…, null, 2)` writes it.
fn hooks_file(hooks: Json) -> String {
    let mut root = Object::new();
    root.insert("hooks", hooks);
    let mut text = json::to_pretty_string(&Json::Object(root));
    text.push('\n');
    text
}

/// ctx's hooks for every event, each noted in `merged` as added.
fn every_ctx_hook(merged: &mut Merged) -> Json {
    for (event, _) in EVENTS {
        merged.added.push(Change {
            event: (*event).to_string(),
            command: command(event),
        });
    }
    every_event(ctx_group)
}

/// ctx's hook group for `event`.
fn ctx_group(event: &str, matcher: Option<&str>) -> Json {
    group(&command(event), matcher)
}

fn group(command: &str, matcher: Option<&str>) -> Json {
    let mut hook = Object::new();
    hook.insert("type", Json::str("command"));
    hook.insert("command", Json::str(command));
    hook.insert("timeout", Json::int(TIMEOUT_SECONDS));
    let mut group = Object::new();
    if let Some(matcher) = matcher {
        group.insert("matcher", Json::str(matcher));
    }
    group.insert("hooks", Json::Array(vec![Json::Object(hook)]));
    Json::Object(group)
}

/// The new text of one event's list of groups with ctx's hooks taken out: `None` when none of
/// them is ctx's. A group left without hooks goes.
fn without_ctx(
    text: &str,
    event: &str,
    groups: &Container,
    removed: &mut Vec<Change>,
) -> Option<String> {
    let mut keep = Vec::with_capacity(groups.items.len());
    let mut changed = false;
    for group in &groups.items {
        let hooks = Container::read(text, group.value.start)
            .filter(|g| text.as_bytes()[g.open] == b'{')
            .and_then(|g| g.member("hooks").cloned().map(|h| (g, h)))
            .and_then(|(g, h)| Container::read(text, h.value.start).map(|list| (g, list)))
            .filter(|(_, list)| text.as_bytes()[list.open] == b'[');
        let Some((object, list)) = hooks else {
            keep.push(Keep::Same);
            continue;
        };
        let mut entries = Vec::with_capacity(list.items.len());
        for entry in &list.items {
            let hook = json::parse(&text[entry.value.clone()]).unwrap_or(Json::Null);
            if is_ctx_hook(event, &hook) {
                let command = hook.as_object().and_then(|h| h.get("command"));
                removed.push(Change {
                    event: event.to_string(),
                    command: command.and_then(Json::as_str).unwrap_or("").to_string(),
                });
                entries.push(Keep::Drop);
            } else {
                entries.push(Keep::Same);
            }
        }
        if entries.iter().all(|e| matches!(e, Keep::Same)) {
            keep.push(Keep::Same);
        } else if entries.iter().all(|e| matches!(e, Keep::Drop)) {
            keep.push(Keep::Drop);
            changed = true;
        } else {
            let new_list = list.rewrite(text, &entries, &[]);
            let members: Vec<Keep> = object
                .items
                .iter()
                .map(|m| {
                    if m.key.as_deref() == Some("hooks") && m.value.start == list.open {
                        Keep::Value(new_list.clone())
                    } else {
                        Keep::Same
                    }
                })
                .collect();
            keep.push(Keep::Value(object.rewrite(text, &members, &[])));
            changed = true;
        }
    }
    changed.then(|| groups.rewrite(text, &keep, &[]))
}

/// The settings text with ctx's hooks put in (`remove == false`) or taken out. `existing` is the
/// file's text, `None` when there is none. Only ctx's entries change; the rest of the text stays
/// byte for byte.
pub fn merge(existing: Option<&str>, remove: bool) -> Result<Merged, Refusal> {
    let mut merged = Merged::default();
    let bom = existing.is_some_and(|e| e.starts_with('\u{feff}'));
    let body = existing.map_or("", |e| e.strip_prefix('\u{feff}').unwrap_or(e));
    if body.trim().is_empty() {
        if remove {
            return Ok(merged);
        }
        merged.text = Some(hooks_file(every_ctx_hook(&mut merged)));
        return Ok(merged);
    }
    let parsed = check(body)?;
    let root = Container::read(body, 0).expect("a JSON object was just parsed");
    if let Some(key) = root.duplicate_key() {
        return Err(Refusal(format!(
            "it has the key \"{key}\" twice, and readers differ on which one counts"
        )));
    }
    let hooks_item = root.member("hooks").cloned();
    let hooks = match (&hooks_item, parsed.get("hooks")) {
        (Some(item), Some(Json::Object(_))) => {
            let hooks = Container::read(body, item.value.start).expect("an object");
            if let Some(key) = hooks.duplicate_key() {
                return Err(Refusal(format!(
                    "its \"hooks\" has the key \"{key}\" twice, and readers differ on which one counts"
                )));
            }
            Some(hooks)
        }
        (Some(_), _) => return Err(Refusal("its \"hooks\" is not an object".into())),
        (None, _) => None,
    };
    let Some(hooks) = hooks else {
        if remove {
            return Ok(merged);
        }
        let keep = vec![Keep::Same; root.items.len()];
        let new_hooks = every_ctx_hook(&mut merged);
        let text = root.rewrite(body, &keep, &[(Some("hooks"), &new_hooks)]);
        merged.text = Some(whole(bom, body, &root, &text));
        return Ok(merged);
    };
    let mut event_keep = Vec::with_capacity(hooks.items.len());
    let mut installed = vec![false; EVENTS.len()];
    for item in &hooks.items {
        let event = item.key.as_deref().unwrap_or_default();
        let Some(groups) =
            Container::read(body, item.value.start).filter(|g| body.as_bytes()[g.open] == b'[')
        else {
            return Err(Refusal(format!("its \"hooks\".\"{event}\" is not a list")));
        };
        let before = merged.removed.len();
        let mut new_groups = without_ctx(body, event, &groups, &mut merged.removed);
        let place = EVENTS.iter().position(|(e, _)| *e == event);
        if let Some(place) = place.filter(|_| !remove) {
            // ctx's group goes at the end of the event's list.
            let group = ctx_group(event, EVENTS[place].1);
            let current = match &new_groups {
                Some(text) => text.clone(),
                None => body[groups.open..=groups.close].to_string(),
            };
            let list = Container::read(&current, 0).expect("a list");
            let keep = vec![Keep::Same; list.items.len()];
            new_groups = Some(splice_into(
                body,
                groups.open,
                &current,
                &list,
                &keep,
                &group,
            ));
            installed[place] = true;
            merged.added.push(Change {
                event: event.to_string(),
                command: command(event),
            });
        }
        event_keep.push(match new_groups {
            None => Keep::Same,
            // An event ctx emptied goes, as the group it added did.
            Some(text) if merged.removed.len() > before && is_empty_list(&text) => Keep::Drop,
            Some(text) => Keep::Value(text),
        });
    }
    let mut added_events = Vec::new();
    if !remove {
        for (n, (event, matcher)) in EVENTS.iter().enumerate() {
            if !installed[n] {
                added_events.push((*event, Json::Array(vec![ctx_group(event, *matcher)])));
                merged.added.push(Change {
                    event: (*event).to_string(),
                    command: command(event),
                });
            }
        }
    }
    let added: Vec<(Option<&str>, &Json)> =
        added_events.iter().map(|(e, v)| (Some(*e), v)).collect();
    let all_gone = event_keep.iter().all(|k| matches!(k, Keep::Drop)) && added.is_empty();
    let root_keep: Vec<Keep> = root
        .items
        .iter()
        .map(|m| {
            if m.key.as_deref() != Some("hooks") || m.value.start != hooks.open {
                Keep::Same
            } else if all_gone && remove && !merged.removed.is_empty() {
                // `--remove` takes out a "hooks" left empty by it.
                Keep::Drop
            } else {
                Keep::Value(hooks.rewrite(body, &event_keep, &added))
            }
        })
        .collect();
    let text = root.rewrite(body, &root_keep, &[]);
    let text = whole(bom, body, &root, &text);
    if text != existing.unwrap_or_default() {
        merged.text = Some(text);
    } else {
        // Re-installing the same hooks is no change to report.
        merged.added.clear();
        merged.removed.clear();
    }
    Ok(merged)
}

/// `group` appended to the list `current` (the new text of the list that starts at `at` in
/// `body`), laid out as `body` lays that list out.
fn splice_into(
    body: &str,
    at: usize,
    current: &str,
    list: &Container,
    keep: &[Keep],
    group: &Json,
) -> String {
    // The list is edited inside the whole text, so that its layout (indentation, line) is the
    // one it has in the file.
    let mut text = String::with_capacity(body.len() + current.len());
    text.push_str(&body[..at]);
    text.push_str(current);
    let shifted = Container::read(&text, at).expect("the list just placed");
    debug_assert_eq!(shifted.items.len(), list.items.len());
    shifted.rewrite(&text, keep, &[(None, group)])
}

fn is_empty_list(text: &str) -> bool {
    text.bytes().filter(|b| !b.is_ascii_whitespace()).count() == 2
}

/// The whole file: `new_root` in place of the root object, with what surrounds it (byte order
/// mark, whitespace, the final newline) as it was.
fn whole(bom: bool, body: &str, root: &Container, new_root: &str) -> String {
    let mut out = String::with_capacity(body.len() + new_root.len() + 3);
    if bom {
        out.push('\u{feff}');
    }
    out.push_str(&body[..root.open]);
    out.push_str(new_root);
    out.push_str(&body[root.close + 1..]);
    out
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
            !is_ctx_hook("Stop", &hook(&command("Stop"))),
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

//! ctx's entries in an agent's hooks file: how they are merged into a user's file and taken out
//! again. Pure: text in, text out. Three layouts ([`Layout`]): Claude Code's `settings.json`,
//! Codex's `hooks.json` and Qwen Code's `settings.json` group their hooks by matcher
//! (`{"hooks": {EVENT: [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}]}}`);
//! Gemini CLI's `settings.json` does too, its hooks named and their timeouts in milliseconds;
//! GitHub Copilot CLI's hooks files list them directly (`{"version": 1, "hooks": {EVENT:
//! [{"type": "command", "bash", "timeoutSec"}]}}`).
//!
//! A hook is ctx's only when its command is, character for character, one that ctx writes (this
//! version or an earlier one) for the very event it sits under. A person's own hook that mentions
//! ctx is theirs and is never replaced or removed. The file is edited in place
//! ([`crate::json_edit`]): every byte outside the entries ctx adds or takes out stays as the user
//! wrote it (layout, escapes, key order).

use crate::json::{self, Json, Object};
use crate::json_edit::{Container, Keep};

/// The hooks ctx installs for one agent.
#[derive(Debug)]
pub struct HookSet {
    /// The events ctx hooks, with the tool matcher of the tool events.
    pub events: &'static [(&'static str, Option<&'static str>)],
    /// The shell command of ctx's hook for an event.
    pub command: fn(&str) -> String,
    /// The commands earlier versions of ctx wrote for an event, which an install replaces and
    /// `--remove` takes out.
    pub earlier_commands: fn(&str) -> Vec<String>,
    /// Seconds the agent waits for one of ctx's hooks.
    pub timeout_seconds: i64,
    /// How the agent's file lays its hooks out.
    pub layout: Layout,
}

/// How an agent's hooks file lays out the hooks under an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A list of groups, each with an optional `matcher` and a `hooks` list of `{"type":
    /// "command", "command", "timeout"}` (Claude Code, Codex, Qwen Code).
    Groups,
    /// Groups as [`Layout::Groups`], whose hooks are `{"name": "ctx", "type": "command",
    /// "command", "timeout"}`, the timeout in milliseconds (Gemini CLI, which names a project's
    /// hooks when it asks the person to trust them).
    NamedGroups,
    /// A list of `{"type": "command", "bash", "timeoutSec"}` entries, no matcher, in a file that
    /// starts `{"version": 1` (GitHub Copilot CLI).
    Entries,
}

impl Layout {
    /// The key of an entry's shell command.
    fn command_key(self) -> &'static str {
        match self {
            Layout::Groups | Layout::NamedGroups => "command",
            Layout::Entries => "bash",
        }
    }
}

/// The shell command of ctx's hook for `event` in `agent` (`ctx AGENT hook EVENT`), `CTX_BIN`
/// naming another ctx binary. When ctx cannot run at all (not on PATH, killed) the shell itself
/// writes the log line, to `ctx-hooks.log` in the agent's folder `home` (a shell expression such
/// as `${CODEX_HOME:-$HOME/.codex}`), and the hook still exits 0, so the agent carries on.
pub fn shell_command(agent: &str, event: &str, home: &str) -> String {
    format!(
        "\"${{CTX_BIN:-ctx}}\" {agent} hook {event} 2>/dev/null || echo \"exit $? of ctx {agent} hook \
         {event} at $(date -u +%FT%TZ)\" >>\"{home}/ctx-hooks.log\" 2>/dev/null; exit 0"
    )
}

/// [`HookSet::earlier_commands`] of an agent whose hooks' commands never changed.
pub fn no_earlier_commands(_event: &str) -> Vec<String> {
    Vec::new()
}

/// Whether `hook`, found under `event`, is one of ctx's: its command is exactly one ctx writes
/// for that event.
pub fn is_ctx_hook(set: &HookSet, event: &str, hook: &Json) -> bool {
    let Some(text) = hook
        .as_object()
        .and_then(|h| h.get(set.layout.command_key()))
        .and_then(Json::as_str)
    else {
        return false;
    };
    set.events.iter().any(|(e, _)| *e == event)
        && (text == (set.command)(event) || (set.earlier_commands)(event).iter().any(|c| c == text))
}

/// What a settings file could not be merged for: the message says what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl Refusal {
    /// The refusal as the error an agent's `install` ends with: the file named, nothing changed,
    /// and what to do; `comments_hint` where the file has comments, which the agent does not read.
    pub fn into_error(self, path: &std::path::Path, comments_hint: &str) -> crate::error::Error {
        let hint = if self.0.contains("comments") {
            comments_hint
        } else {
            "fix the file, or move it aside, then install again"
        };
        crate::error::Error::failure(format!(
            "{}: {}; nothing was changed",
            path.display(),
            self.0
        ))
        .with_hint(hint)
    }
}

/// One hook entry added or removed, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub event: String,
    pub command: String,
}

/// The events of `changes`, in order, as the install documents list them.
pub fn events(changes: &[Change]) -> Vec<String> {
    changes.iter().map(|c| c.event.clone()).collect()
}

/// A settings file after the merge: its new text (`None` when nothing changes) and what changed.
#[derive(Debug, Default)]
pub struct Merged {
    pub text: Option<String>,
    pub added: Vec<Change>,
    pub removed: Vec<Change>,
    /// `--remove` took out ctx's hooks and left the file holding nothing at all (an empty
    /// object, white space aside): the file goes rather than stay behind as `{}`.
    pub emptied: bool,
    /// There was no file at all.
    pub absent: bool,
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
pub fn has_comments(text: &str) -> bool {
    let bytes = text.as_bytes();
    crate::json_edit::outside_strings(text)
        .any(|(i, b)| b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')))
}

/// A `hooks` object with one group for each event ctx hooks, made by `group_of(event, matcher)`.
pub fn every_event(set: &HookSet, group_of: impl Fn(&str, Option<&str>) -> Json) -> Json {
    let mut hooks = Object::new();
    for (event, matcher) in set.events {
        hooks.insert(event, Json::Array(vec![group_of(event, *matcher)]));
    }
    Json::Object(hooks)
}

/// A file that holds only `hooks` (after `"version": 1` in the [`Layout::Entries`] layout), as
/// `JSON.stringify(…, null, 2)` writes it.
pub fn hooks_file(layout: Layout, hooks: Json) -> String {
    let mut root = Object::new();
    if layout == Layout::Entries {
        root.insert("version", Json::int(1));
    }
    root.insert("hooks", hooks);
    let mut text = json::to_pretty_string(&Json::Object(root));
    text.push('\n');
    text
}

/// ctx's hooks for every event, each noted in `merged` as added.
fn every_ctx_hook(set: &HookSet, merged: &mut Merged) -> Json {
    for (event, _) in set.events {
        merged.added.push(Change {
            event: (*event).to_string(),
            command: (set.command)(event),
        });
    }
    every_event(set, |event, matcher| ctx_group(set, event, matcher))
}

/// ctx's hook group for `event` (its entry, in the [`Layout::Entries`] layout, which has no
/// matchers).
pub fn ctx_group(set: &HookSet, event: &str, matcher: Option<&str>) -> Json {
    let command = (set.command)(event);
    match set.layout {
        Layout::Groups => group(&command, matcher, set.timeout_seconds),
        Layout::NamedGroups => {
            let mut hook = Object::new();
            hook.insert("name", Json::str("ctx"));
            hook.insert("type", Json::str("command"));
            hook.insert("command", Json::str(&command));
            hook.insert("timeout", Json::int(set.timeout_seconds * 1000));
            with_matcher(matcher, hook)
        }
        Layout::Entries => {
            let mut entry = Object::new();
            entry.insert("type", Json::str("command"));
            entry.insert("bash", Json::str(&command));
            entry.insert("timeoutSec", Json::int(set.timeout_seconds));
            Json::Object(entry)
        }
    }
}

/// One group of one command hook.
pub fn group(command: &str, matcher: Option<&str>, timeout_seconds: i64) -> Json {
    let mut hook = Object::new();
    hook.insert("type", Json::str("command"));
    hook.insert("command", Json::str(command));
    hook.insert("timeout", Json::int(timeout_seconds));
    with_matcher(matcher, hook)
}

/// The group of the one hook `hook`, with its matcher.
fn with_matcher(matcher: Option<&str>, hook: Object) -> Json {
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
    set: &HookSet,
    text: &str,
    event: &str,
    groups: &Container,
    removed: &mut Vec<Change>,
) -> Option<String> {
    let mut keep = Vec::with_capacity(groups.items.len());
    let mut changed = false;
    let mut drop_if_ctx = |entry: &str| {
        let hook = json::parse(entry).unwrap_or(Json::Null);
        if !is_ctx_hook(set, event, &hook) {
            return Keep::Same;
        }
        let command = hook
            .as_object()
            .and_then(|h| h.get(set.layout.command_key()));
        removed.push(Change {
            event: event.to_string(),
            command: command.and_then(Json::as_str).unwrap_or("").to_string(),
        });
        Keep::Drop
    };
    if set.layout == Layout::Entries {
        // The list holds the hooks themselves.
        for entry in &groups.items {
            keep.push(drop_if_ctx(&text[entry.value.clone()]));
        }
        let changed = keep.iter().any(|k| matches!(k, Keep::Drop));
        return changed.then(|| groups.rewrite(text, &keep, &[]));
    }
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
        let entries: Vec<Keep> = list
            .items
            .iter()
            .map(|entry| drop_if_ctx(&text[entry.value.clone()]))
            .collect();
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
pub fn merge(set: &HookSet, existing: Option<&str>, remove: bool) -> Result<Merged, Refusal> {
    let mut merged = Merged {
        absent: existing.is_none(),
        ..Merged::default()
    };
    let bom = existing.is_some_and(|e| e.starts_with('\u{feff}'));
    let body = existing.map_or("", |e| e.strip_prefix('\u{feff}').unwrap_or(e));
    if body.trim().is_empty() {
        if remove {
            return Ok(merged);
        }
        merged.text = Some(hooks_file(set.layout, every_ctx_hook(set, &mut merged)));
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
            // At any depth: ctx reads the first of two keys, the agents the last, so a group
            // with "hooks" twice would have ctx drop the list the agent never runs and keep, or
            // drop, the one it does.
            if let Some((path, key)) = hooks.duplicate_key_within(body) {
                return Err(Refusal(format!(
                    "its \"hooks\"{path} has the key \"{key}\" twice, and readers differ on which \
                     one counts"
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
        let new_hooks = every_ctx_hook(set, &mut merged);
        let text = root.rewrite(body, &keep, &[(Some("hooks"), &new_hooks)]);
        merged.text = Some(whole(bom, body, &root, &text));
        return Ok(merged);
    };
    let mut event_keep = Vec::with_capacity(hooks.items.len());
    let mut installed = vec![false; set.events.len()];
    for item in &hooks.items {
        let event = item.key.as_deref().unwrap_or_default();
        let Some(groups) =
            Container::read(body, item.value.start).filter(|g| body.as_bytes()[g.open] == b'[')
        else {
            return Err(Refusal(format!("its \"hooks\".\"{event}\" is not a list")));
        };
        let before = merged.removed.len();
        let mut new_groups = without_ctx(set, body, event, &groups, &mut merged.removed);
        let place = set.events.iter().position(|(e, _)| *e == event);
        if let Some(place) = place.filter(|_| !remove) {
            // ctx's group goes at the end of the event's list.
            let group = ctx_group(set, event, set.events[place].1);
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
                command: (set.command)(event),
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
        for (n, (event, matcher)) in set.events.iter().enumerate() {
            if !installed[n] {
                added_events.push((*event, Json::Array(vec![ctx_group(set, event, *matcher)])));
                merged.added.push(Change {
                    event: (*event).to_string(),
                    command: (set.command)(event),
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
        merged.emptied = remove && holds_nothing(set.layout, &text);
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

/// Whether a settings file's text is an empty object, white space (and a byte order mark) aside;
/// in the [`Layout::Entries`] layout, one that holds only its `"version"`.
fn holds_nothing(layout: Layout, text: &str) -> bool {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Ok(Json::Object(object)) = json::parse(body) else {
        return false;
    };
    object
        .iter()
        .all(|(key, _)| layout == Layout::Entries && key == "version")
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

/// The lines an install prints for the hooks file at `path` (shown relative to `base` when below
/// it): the file's change, then one line per hook entry added or removed, each naming `label`
/// (the command the hooks run), then, when `deleted`, that the file itself went.
pub fn report(
    path: &std::path::Path,
    base: &std::path::Path,
    merged: &Merged,
    remove: bool,
    dry_run: bool,
    deleted: bool,
    label: &str,
) -> Vec<String> {
    let shown = path
        .strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string();
    if merged.text.is_none() {
        let what = if remove && merged.absent {
            "not there"
        } else if remove {
            "no hooks of ctx's"
        } else {
            "ctx's hooks are up to date"
        };
        return vec![format!("{shown}: {what}")];
    }
    let (sign, verb, changes) = match (remove, dry_run) {
        (true, false) => ("-", "removed", &merged.removed),
        (true, true) => ("-", "would be removed", &merged.removed),
        (false, false) => ("+", "added", &merged.added),
        (false, true) => ("+", "would be added", &merged.added),
    };
    let replaced = match merged.removed.len() {
        _ if remove => String::new(),
        0 => String::new(),
        1 => ", 1 earlier one replaced".to_string(),
        n => format!(", {n} earlier ones replaced"),
    };
    let hooks = if changes.len() == 1 { "hook" } else { "hooks" };
    let mut lines = vec![format!(
        "{shown}: {} {hooks} {verb}{replaced}",
        changes.len()
    )];
    for change in changes {
        lines.push(format!("  {sign} {}: {label}", change.event));
    }
    if deleted {
        let what = if dry_run {
            "would be removed (nothing else is in it)"
        } else {
            "removed (nothing else was in it)"
        };
        lines.push(format!("{shown}: {what}"));
    }
    lines
}

//! Property tests of ctx's entries in Claude Code's settings (src/claude/settings.rs): on any
//! settings file of a user's, an install keeps every key and hook of theirs, a second install
//! changes nothing, and `--remove` gives back exactly what the user had, byte for byte, whatever
//! their own hooks' commands say (ctx's name included) and however the file is laid out.

use ctxkit::claude::settings::{EVENTS, command, merge};
use proptest::prelude::*;
use serde_json::{Value, json};

fn arb_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "(?s).{0,12}".prop_map(Value::String),
        prop::collection::vec("[a-z()* ]{0,10}".prop_map(Value::String), 0..3)
            .prop_map(Value::Array),
    ]
}

/// A command of the user's: any text, or one that looks like ctx's — its name, its hook
/// command with something added, or its exact command for an event ctx does not hook.
fn arb_command() -> impl Strategy<Value = String> {
    prop_oneof![
        "(?s).{0,40}",
        "[a-z./_-]{1,16}",
        "[a-z' ]{0,8}".prop_map(|s| format!("logger '{s}ctx claude hook finished'")),
        prop::sample::select(vec!["Stop", "SessionStart", "SubagentStop"])
            .prop_map(|e| format!("ctx claude hook {e}")),
        Just(command("TaskCompleted")),
        Just(command("Notification")),
        Just(format!("{} # mine", command("SessionStart"))),
    ]
}

/// A user's hook group: an optional matcher and one or more commands of their own.
fn arb_group() -> impl Strategy<Value = Value> {
    (
        prop::option::of("[A-Za-z|*]{1,8}"),
        prop::collection::vec(arb_command(), 1..3),
    )
        .prop_map(|(matcher, commands)| {
            let hooks: Vec<Value> = commands
                .into_iter()
                .map(|c| json!({ "type": "command", "command": c }))
                .collect();
            match matcher {
                Some(m) => json!({ "matcher": m, "hooks": hooks }),
                None => json!({ "hooks": hooks }),
            }
        })
}

fn arb_settings() -> impl Strategy<Value = Value> {
    let events = prop::sample::select(vec![
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "SubagentStop",
        "Stop",
        "Notification",
    ]);
    (
        prop::collection::vec(
            (
                "[a-zA-Z]{1,8}".prop_filter("not hooks", |k| k != "hooks"),
                arb_leaf(),
            ),
            0..5,
        ),
        prop::option::of(prop::collection::vec(
            (events, prop::collection::vec(arb_group(), 1..3)),
            1..4,
        )),
    )
        .prop_map(|(keys, hooks)| {
            let mut root = serde_json::Map::new();
            for (k, v) in keys {
                root.insert(k, v);
            }
            if let Some(hooks) = hooks {
                let mut events = serde_json::Map::new();
                for (event, groups) in hooks {
                    events.insert(event.to_string(), Value::Array(groups));
                }
                root.insert("hooks".into(), Value::Object(events));
            }
            Value::Object(root)
        })
}

/// The file as people write it: pretty with two spaces, with four, with tabs, or on one line.
fn layout(value: &Value, style: u8) -> String {
    let pretty = serde_json::to_string_pretty(value).unwrap();
    let reindent = |unit: &str| {
        pretty
            .lines()
            .map(|line| {
                let body = line.trim_start_matches(' ');
                format!("{}{body}", unit.repeat((line.len() - body.len()) / 2))
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    match style {
        0 => pretty + "\n",
        1 => reindent("    "),
        2 => reindent("\t") + "\n",
        _ => serde_json::to_string(value).unwrap(),
    }
}

/// Every hook command of the user's, per event, in order.
fn user_commands(settings: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    if let Some(hooks) = settings["hooks"].as_object() {
        for (event, groups) in hooks {
            for group in groups.as_array().into_iter().flatten() {
                for hook in group["hooks"].as_array().into_iter().flatten() {
                    let command = hook["command"].as_str().unwrap_or_default();
                    if command != ctxkit::claude::settings::command(event) {
                        found.push((event.clone(), command.to_string()));
                    }
                }
            }
        }
    }
    found
}

proptest! {
    #[test]
    fn install_keeps_the_users_settings_and_remove_gives_them_back(user in arb_settings(), style in 0u8..4) {
        let text = layout(&user, style);
        let installed = merge(Some(&text), false).unwrap();
        let installed = installed.text.expect("an install adds ctx's hooks");
        let value: Value = serde_json::from_str(&installed).unwrap();
        for (event, _) in EVENTS {
            prop_assert!(value["hooks"][event].as_array().is_some_and(|g| !g.is_empty()), "{event}");
        }
        for (key, kept) in user.as_object().unwrap() {
            if key != "hooks" {
                prop_assert_eq!(&value[key], kept);
            }
        }
        prop_assert_eq!(user_commands(&value), user_commands(&user), "every hook of the user's stays");
        prop_assert!(merge(Some(&installed), false).unwrap().text.is_none(), "a second install changes nothing");
        let removed = merge(Some(&installed), true).unwrap().text.expect("remove changes the file");
        prop_assert_eq!(removed, text, "the user's file, byte for byte");
    }

    #[test]
    fn never_panics_on_arbitrary_text(text in "(?s).{0,200}") {
        let _ = merge(Some(&text), false);
        let _ = merge(Some(&text), true);
    }
}

/// `value` as compact JSON text, with the `target`-th object below the top-level "hooks" (counted
/// in document order, from 0) given one key twice: `key` if it is one of that object's keys,
/// else a key of its own.
fn with_duplicate(value: &Value, target: usize, key: &str) -> (String, bool) {
    fn write(
        value: &Value,
        out: &mut String,
        below_hooks: bool,
        seen: &mut usize,
        target: usize,
        key: &str,
    ) -> bool {
        let mut placed = false;
        match value {
            Value::Object(map) => {
                out.push('{');
                let mine = below_hooks && {
                    let n = *seen;
                    *seen += 1;
                    n == target
                };
                let mut first = true;
                if mine {
                    let twice = if map.contains_key(key) { key } else { "twice" };
                    out.push_str(&format!("{}:1,", serde_json::to_string(twice).unwrap()));
                    if !map.contains_key(twice) {
                        out.push_str(&format!("{}:2", serde_json::to_string(twice).unwrap()));
                        first = false;
                    }
                    placed = true;
                }
                for (k, v) in map {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push(':');
                    placed |= write(v, out, below_hooks, seen, target, key);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (n, v) in items.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    placed |= write(v, out, below_hooks, seen, target, key);
                }
                out.push(']');
            }
            leaf => out.push_str(&leaf.to_string()),
        }
        placed
    }
    let mut out = String::new();
    let mut seen = 0;
    let placed = match value {
        // The root's own members: "hooks" starts the counted part.
        Value::Object(map) => {
            out.push('{');
            let mut placed = false;
            for (n, (k, v)) in map.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push(':');
                placed |= write(v, &mut out, k == "hooks", &mut seen, target, key);
            }
            out.push('}');
            placed
        }
        _ => unreachable!("settings are an object"),
    };
    (out, placed)
}

proptest! {
    /// A key twice at any depth of "hooks" (a group with "hooks" twice, a hook with "command"
    /// twice, an event twice): ctx's reader and the agent's would see different hooks, so the
    /// file is refused whole, for an install and for `--remove` alike.
    #[test]
    fn a_key_twice_anywhere_in_hooks_is_refused(
        user in arb_settings(),
        target in 0usize..12,
        key in prop::sample::select(vec!["hooks", "command", "matcher", "type", "Stop"]),
    ) {
        let (text, placed) = with_duplicate(&user, target, key);
        prop_assume!(placed);
        let installed = merge(Some(&text), false);
        prop_assert!(installed.is_err(), "install refused:\n{text}");
        prop_assert!(installed.unwrap_err().0.contains("twice"));
        prop_assert!(merge(Some(&text), true).is_err(), "remove refused:\n{text}");
    }
}

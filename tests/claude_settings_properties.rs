//! Property tests of ctx's entries in Claude Code's settings (src/claude/settings.rs): on any
//! settings file of a user's, an install keeps every key and hook of theirs, a second install
//! changes nothing, and `--remove` gives back exactly what the user had.

use ctxkit::claude::settings::{EVENTS, merge};
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

/// A user's hook group: an optional matcher and one or more commands of their own.
fn arb_group() -> impl Strategy<Value = Value> {
    (
        prop::option::of("[A-Za-z|*]{1,8}"),
        prop::collection::vec("[a-z./_-]{1,16}", 1..3),
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

proptest! {
    #[test]
    fn install_keeps_the_users_settings_and_remove_gives_them_back(user in arb_settings()) {
        let text = serde_json::to_string_pretty(&user).unwrap();
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
        prop_assert!(merge(Some(&installed), false).unwrap().text.is_none(), "a second install changes nothing");
        let removed = merge(Some(&installed), true).unwrap().text.expect("remove changes the file");
        let back: Value = serde_json::from_str(&removed).unwrap();
        prop_assert_eq!(back, user);
    }

    #[test]
    fn never_panics_on_arbitrary_text(text in "(?s).{0,200}") {
        let _ = merge(Some(&text), false);
        let _ = merge(Some(&text), true);
    }
}

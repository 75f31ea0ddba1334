//! Property tests of how `state.json` is read and rewritten (src/frame/state.rs): frames whose
//! text is kept and copied back must give exactly what parsing the whole document into the JSON
//! model and writing it gives, and the quick checks of such frames must accept and reject exactly
//! what the full validation does, with the same messages.

use ctxkit::frame::state;
use ctxkit::json::{self, Json};
use proptest::prelude::*;
use serde_json::{Map, Value};

const IDS: [&str; 4] = ["fr_aaaa0001", "fr_aaaa0002", "fr_bbbb", "ses_Xy-9"];
const KEYS: [&str; 17] = [
    "sessionID",
    "parentSessionID",
    "status",
    "goal",
    "createdAt",
    "updatedAt",
    "artifacts",
    "decisions",
    "compactionSummary",
    "logPath",
    "invalidationReason",
    "invalidatedAt",
    "plannedChildren",
    "x",
    "nested",
    "a\"b",
    "é/\n",
];

/// Strings with every character the writer treats specially.
fn text() -> impl Strategy<Value = String> {
    "[a-z/\"\\\\\n\t\u{1}\u{b}\u{1f}é\u{2028}\u{7f} ]{0,8}"
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::String),
        prop::sample::select(&["in_progress", "planned", "completed", "done"][..])
            .prop_map(|s| Value::String(s.to_string())),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
            prop::collection::vec(text(), 0..3)
                .prop_map(|items| Value::Array(items.into_iter().map(Value::String).collect())),
        ]
    })
}

/// A frame that is valid more often than not: the usual fields, then a few members replaced,
/// added or removed. Parents come before their children in `IDS`, so there are no cycles and the
/// verdict on a document is the verdict on its frames.
fn frame(index: usize) -> impl Strategy<Value = Value> {
    let id = IDS[index];
    let changes = prop::collection::vec(
        (
            prop::sample::select(&KEYS[..]),
            prop::option::weighted(0.8, prop_oneof![3 => scalar(), 1 => value()]),
        ),
        0..3,
    );
    (
        prop::option::of(prop::sample::select(&IDS[..index.max(1)])),
        text(),
        changes,
        prop::bool::weighted(0.3),
    )
        .prop_map(move |(parent, goal, changes, plain)| {
            let mut map = Map::new();
            map.insert("sessionID".into(), Value::from(id));
            if let Some(parent) = parent.filter(|p| *p != id) {
                map.insert("parentSessionID".into(), Value::from(parent));
            }
            map.insert("status".into(), Value::from("in_progress"));
            map.insert("goal".into(), Value::from(goal));
            map.insert("createdAt".into(), Value::from(1_795_338_000_000i64));
            map.insert("updatedAt".into(), Value::from(1_795_338_000_001i64));
            map.insert(
                "artifacts".into(),
                Value::Array(vec![Value::from("src/a.rs")]),
            );
            map.insert("decisions".into(), Value::Array(Vec::new()));
            if !plain {
                for (key, change) in changes {
                    match change {
                        Some(value) => map.insert(key.to_string(), value),
                        None => map.shift_remove(key),
                    };
                }
            }
            Value::Object(map)
        })
}

fn document() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec((0..IDS.len(), any::<bool>()), 0..6),
        prop::collection::vec(frame(0), 1),
        prop::collection::vec(frame(1), 1),
        prop::collection::vec(frame(2), 1),
        prop::collection::vec(frame(3), 1),
        prop::option::of(value()),
    )
        .prop_map(|(order, f0, f1, f2, f3, extra)| {
            let made = [&f0[0], &f1[0], &f2[0], &f3[0]];
            let mut frames = Map::new();
            for (i, keep) in order {
                if keep {
                    frames.insert(IDS[i].to_string(), made[i].clone());
                }
            }
            let mut doc = Map::new();
            doc.insert("version".into(), Value::from(1));
            doc.insert("frames".into(), Value::Object(frames));
            if let Some(extra) = extra {
                doc.insert("extra".into(), extra);
            }
            doc.insert("activeFrameID".into(), Value::from(IDS[0]));
            doc.insert(
                "rootFrameIDs".into(),
                Value::Array(vec![Value::from(IDS[0])]),
            );
            doc.insert("updatedAt".into(), Value::from(5));
            Value::Object(doc)
        })
}

/// Small changes to a text in the writer's layout: some keep it valid JSON in another layout or
/// with other escapes, some break it.
#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, &'static str),
    Delete(usize),
    /// Replaces the first occurrence at or after the position.
    Replace(usize, &'static str, &'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = 0usize..100_000;
    prop_oneof![
        (
            at.clone(),
            prop::sample::select(&[" ", "\n", "\t", "  "][..])
        )
            .prop_map(|(at, s)| Edit::Insert(at, s)),
        at.clone().prop_map(Edit::Delete),
        (
            at,
            prop::sample::select(
                &[
                    ("\\n", "\\u000a"),
                    ("\\u001f", "\\u001F"),
                    ("\\u0001", "\\u0001\\/"),
                    ("/", "\\/"),
                    ("é", "\\u00e9"),
                    ("\": ", "\":"),
                    (",\n", ", \n"),
                    ("[]", "[ ]"),
                    ("\"x\": ", "\"goal\": 1, \"x\": "),
                    ("\"status\": ", "\"status\": \"planned\", \"status\": "),
                ][..]
            )
        )
            .prop_map(|(at, (from, to))| Edit::Replace(at, from, to)),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    let boundary = |at: usize| {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    match *edit {
        Edit::Insert(at, what) => {
            let at = boundary(at);
            format!("{}{what}{}", &text[..at], &text[at..])
        }
        Edit::Delete(at) => {
            let at = boundary(at);
            match text[at..].chars().next() {
                Some(c) => format!("{}{}", &text[..at], &text[at + c.len_utf8()..]),
                None => text.to_string(),
            }
        }
        Edit::Replace(at, from, to) => {
            let at = boundary(at);
            match text[at..].find(from) {
                Some(found) => {
                    let found = at + found;
                    format!("{}{to}{}", &text[..found], &text[found + from.len()..])
                }
                None => text.to_string(),
            }
        }
    }
}

/// The whole-model rewrite that the kept-text rewrite must equal.
fn model_text(value: &Json) -> String {
    json::to_pretty_string(value) + "\n"
}

/// What reading `text` gives: the error, or the state's rewrite and what the tree reads of each
/// frame (those fields are read in the same pass that checks a frame kept as text).
fn outcome(text: &str) -> Result<String, String> {
    let state = state::parse(text).map_err(|e| e.message)?;
    Ok(state.to_text() + &fields(&state))
}

fn fields(state: &state::State) -> String {
    let mut seen = String::new();
    for f in state.frames() {
        let (parent, goal) = (f.parent(), f.goal());
        seen += &format!(
            "{} {parent:?} {} {goal:?} {}\n",
            f.id,
            f.status(),
            f.created_at()
        );
    }
    seen
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Whatever the layout, a valid state is written as the model writes the whole document, and
    /// text that is not JSON is refused with the model's syntax error.
    #[test]
    fn rewrite_equals_the_model(doc in document(), edits in prop::collection::vec(edit(), 0..4)) {
        let mut text = serde_json::to_string_pretty(&doc).unwrap();
        for e in &edits {
            text = apply(&text, e);
        }
        match json::parse(&text) {
            Ok(model) => {
                if let Ok(state) = state::parse(&text) {
                    prop_assert_eq!(state.to_text(), model_text(&model));
                }
                // The frames of a compact text all take the full path; those of the writer's
                // layout the quick one. Both must reach the same verdict.
                let compact = model.to_compact();
                let canonical = json::to_pretty_string(&model);
                prop_assert_eq!(outcome(&canonical), outcome(&compact));
                prop_assert_eq!(outcome(&text), outcome(&compact));
            }
            Err(e) => {
                let message = state::parse(&text).unwrap_err().message;
                if !text.trim().is_empty() {
                    prop_assert_eq!(
                        message,
                        format!("invalid JSON at line {}, column {}: {}", e.line, e.column, e.message)
                    );
                }
            }
        }
    }

    /// Edits through the state's API write what the same edits of the model write.
    #[test]
    fn edits_equal_model_edits(
        doc in document(),
        changes in prop::collection::vec((0..IDS.len(), prop::sample::select(&KEYS[..]), value()), 1..4),
    ) {
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let Ok(mut state) = state::parse(&text) else { return Ok(()) };
        let mut model = json::parse(&text).unwrap();
        for (i, key, value) in changes {
            let value = json::parse(&value.to_string()).unwrap();
            if state.frame(IDS[i]).is_none() {
                continue;
            }
            state.set_field(IDS[i], key, value.clone());
            let frame = model
                .as_object_mut()
                .and_then(|d| d.get_mut("frames"))
                .and_then(Json::as_object_mut)
                .and_then(|f| f.get_mut(IDS[i]))
                .and_then(Json::as_object_mut)
                .unwrap();
            frame.insert(key, value);
        }
        prop_assert_eq!(state.to_text(), model_text(&model));
    }
}

#[test]
fn duplicate_keys_in_a_frame_take_the_full_path() {
    let text = "{\n  \"version\": 1,\n  \"frames\": {\n    \"fr_a\": {\n      \"sessionID\": \"fr_a\",\n      \"status\": \"done\",\n      \"goal\": \"g\",\n      \"createdAt\": 1,\n      \"updatedAt\": 1,\n      \"status\": \"planned\"\n    }\n  },\n  \"rootFrameIDs\": [],\n  \"updatedAt\": 0\n}\n";
    let state = state::parse(text).unwrap();
    let model = json::parse(text).unwrap();
    assert_eq!(state.to_text(), model_text(&model));
    assert!(
        state
            .to_text()
            .contains("\"status\": \"planned\",\n      \"goal\"")
    );
}

/// The verdict of the full parser on `text`: its syntax error, or what the frames' full
/// validation (which a compact text always takes) decides and the model writes.
fn full_path_outcome(text: &str) -> Result<String, String> {
    match json::parse(text) {
        Ok(model) => {
            let compact = model.to_compact();
            state::parse(&compact)
                .map(|state| model_text(&model) + &fields(&state))
                .map_err(|e| e.message)
        }
        Err(e) => Err(format!(
            "invalid JSON at line {}, column {}: {}",
            e.line, e.column, e.message
        )),
    }
}

/// Frames in the writer's layout are checked and read in one pass over their text. Every
/// one-byte change of such a state, at every position, must be judged exactly as the full parser
/// and validation judge it: the same error, or the model's rewrite. (A value missing its opening
/// quote was once taken for a string.)
#[test]
fn every_one_byte_change_of_a_state_is_judged_as_the_full_parser_judges_it() {
    let full = r#"{"sessionID": "fr_a", "parentSessionID": null, "status": "completed", "goal": "g\"é\n",
        "createdAt": 1795338000000, "updatedAt": -1.5e3, "artifacts": ["a.rs", "b\\c"], "decisions": [],
        "compactionSummary": "s", "logPath": "logs/frame-fr_a.md", "invalidationReason": null,
        "invalidatedAt": 2, "plannedChildren": null, "x": {"k": [1, {}, []], "v": true}, "y": false}"#;
    let other = r#"{"sessionID": "fr_b", "parentSessionID": "fr_a", "status": "invalidated", "goal": "",
        "createdAt": 0, "updatedAt": 1, "artifacts": null, "decisions": ["d"],
        "compactionSummary": null, "logPath": null, "invalidationReason": "r", "invalidatedAt": null,
        "plannedChildren": ["p"]}"#;
    let doc = format!(
        r#"{{"version": 1, "frames": {{"fr_a": {full}, "fr_b": {other}}}, "activeFrameID": null, "rootFrameIDs": ["fr_a"], "updatedAt": 3}}"#
    );
    let text = json::to_pretty_string(&json::parse(&doc).unwrap()) + "\n";
    assert!(outcome(&text).is_ok(), "{:?}", outcome(&text));
    let mut checked = 0;
    for (at, c) in text.char_indices() {
        for with in [
            "", "*", "\"", " ", "\n", ",", ":", "}", "]", "{", "n", "1", "\\", "é",
        ] {
            let changed = format!("{}{with}{}", &text[..at], &text[at + c.len_utf8()..]);
            if changed.trim().is_empty() {
                continue;
            }
            assert_eq!(
                outcome(&changed),
                full_path_outcome(&changed),
                "after replacing byte {at} with {with:?}:\n{changed}"
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000, "{checked}");
}

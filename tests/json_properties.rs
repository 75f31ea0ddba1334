//! Property tests of the JSON model behind state.json (src/json.rs): it never panics, agrees with
//! serde_json on every document, and writes exactly JSON.stringify(value, null, 2).

use ctxkit::json;
use ctxkit::json::Json;
use proptest::prelude::*;
use serde_json::Value;

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "(?s).{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z_]{0,6}", inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_text(text in "(?s).{0,200}") {
        let _ = json::parse(&text);
    }

    #[test]
    fn never_panics_on_json_like_bytes(text in r#"[\[\]{}",:0-9eE.+\-tfnrul\\ \n]{0,200}"#) {
        let _ = json::parse(&text);
    }

    #[test]
    fn agrees_with_serde_json(value in arb_json()) {
        let compact = serde_json::to_string(&value).unwrap();
        let parsed = json::parse(&compact).unwrap();
        let back: serde_json::Value = serde_json::from_str(&parsed.to_compact()).unwrap();
        prop_assert_eq!(back, value.clone());
        // serde_json's pretty printer with two spaces writes what JSON.stringify(v, null, 2) does
        // for integers and strings; ours must match it byte for byte.
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        prop_assert_eq!(json::to_pretty_string(&parsed), pretty);
    }

    #[test]
    fn rejects_what_serde_json_rejects(text in r#"[\[\]{}",:0-9a-z. ]{0,40}"#) {
        let ours = json::parse(&text).is_ok();
        let theirs = serde_json::from_str::<Value>(&text).is_ok();
        prop_assert_eq!(ours, theirs, "{:?}", text);
    }
}

/// A text in the writer's layout with a few characters inserted, removed or replaced.
fn near_canonical() -> impl Strategy<Value = String> {
    (
        arb_json(),
        prop::collection::vec((any::<usize>(), 0u8..6), 0..3),
    )
        .prop_map(|(value, edits)| {
            let mut text = serde_json::to_string_pretty(&value).unwrap();
            for (at, kind) in edits {
                let mut at = at % (text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let piece = ["\n", " ", "\\u000a", "\\/", "\\u001F", "\\u0001"][kind as usize];
                text.insert_str(at, piece);
            }
            text
        })
}

proptest! {
    /// Text `canonical_end` accepts is what the writer writes for the value it holds.
    #[test]
    fn canonical_text_is_what_the_writer_writes(text in near_canonical(), level in 0usize..3) {
        // At level > 0 the text stands nested: its lines after the first carry the indent.
        let indented = text.replace('\n', &format!("\n{}", "  ".repeat(level)));
        let end = json::canonical_end(indented.as_bytes(), 0, level, &mut Vec::new());
        if end == Some(indented.len()) {
            let value = json::parse(&indented).unwrap();
            let mut written = String::new();
            json::write_value(&mut written, &value, level);
            prop_assert_eq!(written, indented);
        }
    }

    /// `parse_lazy` accepts and rejects what `parse` does, and its members are the parsed ones.
    #[test]
    fn lazy_parse_agrees_with_parse(inner in near_canonical(), compact in any::<bool>()) {
        let text = if compact {
            format!("{{\"frames\":{inner},\"x\":1}}")
        } else {
            format!("{{\n  \"frames\": {},\n  \"x\": 1\n}}", inner.replace('\n', "\n  "))
        };
        match (json::parse(&text), json::parse_lazy(&text, "frames")) {
            (Ok(full), Ok((doc, lazy))) => {
                let full = full.as_object().unwrap();
                let frames = full.get("frames").unwrap();
                prop_assert_eq!(lazy.is_some(), frames.as_object().is_some());
                if let Some(lazy) = lazy {
                    prop_assert_eq!(doc.as_object().unwrap().get("frames"), Some(&Json::Null));
                    let members: Vec<(String, Json)> = lazy
                        .members
                        .into_iter()
                        .map(|(k, v)| match v {
                            json::Lazy::Raw(range) => (k, json::parse(&text[range]).unwrap()),
                            json::Lazy::Parsed(value) => (k, value),
                        })
                        .collect();
                    let expected: Vec<(String, Json)> = frames
                        .as_object()
                        .unwrap()
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.clone()))
                        .collect();
                    prop_assert_eq!(members, expected);
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "parse: {:?}, parse_lazy: {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

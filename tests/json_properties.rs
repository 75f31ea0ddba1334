//! Property tests of the JSON model behind state.json (src/json.rs): it never panics, agrees with
//! serde_json on every document, and writes exactly JSON.stringify(value, null, 2).

use ctxkit::json;
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
        prop_assert_eq!(parsed.to_serde(), value.clone());
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

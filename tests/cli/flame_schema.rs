//! Checks that a document is a valid Flame v1 `state.json` (flame.md §3.1–3.4), independently of
//! ctx's own parser: the guarantee tests use it on whatever they find on disk.

use serde_json::{Map, Value};

const STATUSES: [&str; 6] = [
    "planned",
    "in_progress",
    "completed",
    "failed",
    "blocked",
    "invalidated",
];

/// Parses `bytes` as a Flame v1 state and checks its schema; the error says what is wrong.
pub fn check_state_bytes(bytes: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    check_state(&doc)?;
    Ok(doc)
}

pub fn check_state(doc: &Value) -> Result<(), String> {
    let top = doc.as_object().ok_or("top level is not an object")?;
    if top.get("version").and_then(Value::as_i64).unwrap_or(0) < 1 {
        return Err("/version is not an integer >= 1".into());
    }
    let frames = top
        .get("frames")
        .and_then(Value::as_object)
        .ok_or("/frames is not an object")?;
    let roots = top
        .get("rootFrameIDs")
        .and_then(Value::as_array)
        .ok_or("/rootFrameIDs is not an array")?;
    if !roots.iter().all(Value::is_string) {
        return Err("/rootFrameIDs holds a non-string".into());
    }
    if !matches!(
        top.get("activeFrameID"),
        None | Some(Value::String(_) | Value::Null)
    ) {
        return Err("/activeFrameID is neither string nor null".into());
    }
    if !top.get("updatedAt").is_some_and(Value::is_number) {
        return Err("/updatedAt is not a number".into());
    }
    for (id, frame) in frames {
        check_frame(id, frame).map_err(|e| format!("/frames/{id}: {e}"))?;
    }
    Ok(())
}

fn check_frame(id: &str, frame: &Value) -> Result<(), String> {
    let valid_id = !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !valid_id {
        return Err("invalid id".into());
    }
    let f: &Map<String, Value> = frame.as_object().ok_or("not an object")?;
    if f.get("sessionID").and_then(Value::as_str) != Some(id) {
        return Err("sessionID differs from the key".into());
    }
    if !f
        .get("status")
        .and_then(Value::as_str)
        .is_some_and(|s| STATUSES.contains(&s))
    {
        return Err("bad status".into());
    }
    if !f.get("goal").is_some_and(Value::is_string) {
        return Err("goal is not a string".into());
    }
    for key in ["createdAt", "updatedAt"] {
        if !f.get(key).is_some_and(Value::is_number) {
            return Err(format!("{key} is not a number"));
        }
    }
    for key in ["artifacts", "decisions", "plannedChildren"] {
        match f.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
            Some(_) => return Err(format!("{key} is not an array of strings")),
        }
    }
    for key in ["parentSessionID", "compactionSummary", "logPath"] {
        if !matches!(f.get(key), None | Some(Value::String(_) | Value::Null)) {
            return Err(format!("{key} is not a string"));
        }
    }
    Ok(())
}

/// The strings of `frame[key]`, in order.
pub fn strings(frame: &Value, key: &str) -> Vec<String> {
    frame[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

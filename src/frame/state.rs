//! The Flame v1 `state.json` document (flame.md §3): parsing, validation, typed views and
//! order-preserving edits. The JSON document itself is the source of truth, so unknown keys and
//! key order survive every rewrite.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use super::id;

/// The schema version this ctx reads and writes.
pub const SCHEMA_VERSION: i64 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    InProgress,
    Planned,
    Completed,
    Failed,
    Blocked,
    Invalidated,
}

impl Status {
    /// In the order the tree legend lists them.
    pub const ALL: [Status; 6] = [
        Status::InProgress,
        Status::Planned,
        Status::Completed,
        Status::Failed,
        Status::Blocked,
        Status::Invalidated,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "in_progress",
            Status::Planned => "planned",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Blocked => "blocked",
            Status::Invalidated => "invalidated",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// `completed`, `failed` or `invalidated`.
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            Status::Completed | Status::Failed | Status::Invalidated
        )
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a state document is invalid; the caller prefixes the file's path.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub message: String,
    pub empty: bool,
}

impl Invalid {
    fn new(message: impl Into<String>) -> Self {
        Invalid {
            message: message.into(),
            empty: false,
        }
    }
}

/// Keys of a frame that ctx knows; every other key is "extra" and preserved verbatim.
pub const KNOWN_FRAME_KEYS: [&str; 13] = [
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
];

/// A validated state document.
#[derive(Debug, Clone)]
pub struct State {
    doc: Map<String, Value>,
}

/// A read-only view of one validated frame.
#[derive(Clone, Copy)]
pub struct Frame<'a> {
    pub id: &'a str,
    map: &'a Map<String, Value>,
}

fn non_null<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|v| !v.is_null())
}

/// The integer part of a JSON number (flame.md §3.4: fractions read as their integer part).
fn as_millis(value: &Value) -> Option<i64> {
    value.as_i64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.is_finite())
            .map(|f| f.trunc() as i64)
    })
}

fn strings(value: Option<&Value>) -> impl Iterator<Item = &str> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

impl<'a> Frame<'a> {
    pub fn parent(&self) -> Option<&'a str> {
        non_null(self.map, "parentSessionID").and_then(Value::as_str)
    }
    pub fn status(&self) -> Status {
        // Validated on load.
        non_null(self.map, "status")
            .and_then(Value::as_str)
            .and_then(Status::parse)
            .unwrap_or(Status::Planned)
    }
    pub fn goal(&self) -> &'a str {
        non_null(self.map, "goal")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
    pub fn created_at(&self) -> i64 {
        non_null(self.map, "createdAt")
            .and_then(as_millis)
            .unwrap_or(0)
    }
    pub fn updated_at(&self) -> i64 {
        non_null(self.map, "updatedAt")
            .and_then(as_millis)
            .unwrap_or(0)
    }
    pub fn artifacts(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        strings(non_null(self.map, "artifacts"))
    }
    pub fn decisions(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        strings(non_null(self.map, "decisions"))
    }
    pub fn planned_children(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        strings(non_null(self.map, "plannedChildren"))
    }
    pub fn summary(&self) -> Option<&'a str> {
        non_null(self.map, "compactionSummary").and_then(Value::as_str)
    }
    pub fn log_path(&self) -> Option<&'a str> {
        non_null(self.map, "logPath").and_then(Value::as_str)
    }
    pub fn invalidation_reason(&self) -> Option<&'a str> {
        non_null(self.map, "invalidationReason").and_then(Value::as_str)
    }
    pub fn invalidated_at(&self) -> Option<i64> {
        non_null(self.map, "invalidatedAt").and_then(as_millis)
    }
    /// Keys ctx does not know, in file order.
    pub fn extra(&self) -> impl Iterator<Item = (&'a String, &'a Value)> + use<'a> {
        self.map
            .iter()
            .filter(|(k, _)| !KNOWN_FRAME_KEYS.contains(&k.as_str()))
    }
}

/// Parses and validates the text of a state file (BOM already removed).
pub fn parse(text: &str) -> Result<State, Invalid> {
    if text.trim().is_empty() {
        return Err(Invalid {
            message: "the file is empty".into(),
            empty: true,
        });
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let full = e.to_string();
        let message = full
            .rfind(" at line ")
            .map_or(full.as_str(), |cut| &full[..cut]);
        Invalid::new(format!(
            "invalid JSON at line {}, column {}: {message}",
            e.line(),
            e.column()
        ))
    })?;
    let Value::Object(doc) = value else {
        return Err(Invalid::new("the top level must be a JSON object"));
    };
    let state = State { doc };
    state.validate()?;
    Ok(state)
}

/// A JSON pointer token (RFC 6901).
fn pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

impl State {
    /// The empty state a missing file stands for.
    pub fn empty() -> State {
        let mut doc = Map::new();
        doc.insert("version".into(), Value::from(SCHEMA_VERSION));
        doc.insert("frames".into(), Value::Object(Map::new()));
        doc.insert("rootFrameIDs".into(), Value::Array(Vec::new()));
        doc.insert("updatedAt".into(), Value::from(0));
        State { doc }
    }

    fn validate(&self) -> Result<(), Invalid> {
        let doc = &self.doc;
        match doc.get("version") {
            Some(v) if v.as_i64().is_some_and(|n| n >= 1) => {}
            Some(_) => return Err(Invalid::new("/version must be an integer of at least 1")),
            None => return Err(Invalid::new("/version is missing")),
        }
        let Some(Value::Object(frames)) = doc.get("frames") else {
            return Err(Invalid::new("/frames must be an object"));
        };
        match doc.get("rootFrameIDs") {
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {}
            _ => return Err(Invalid::new("/rootFrameIDs must be an array of strings")),
        }
        match doc.get("activeFrameID") {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(_) => return Err(Invalid::new("/activeFrameID must be a string or null")),
        }
        match doc.get("updatedAt") {
            Some(Value::Number(_)) => {}
            _ => return Err(Invalid::new("/updatedAt must be a number")),
        }
        for (key, frame) in frames {
            validate_frame(key, frame)?;
        }
        self.check_acyclic(frames)
    }

    fn check_acyclic(&self, frames: &Map<String, Value>) -> Result<(), Invalid> {
        // 0 = unvisited, 1 = on the current path, 2 = known to reach a root.
        let mut mark: HashMap<&str, u8> = HashMap::with_capacity(frames.len());
        for start in frames.keys() {
            let mut path = Vec::new();
            let mut cursor = Some(start.as_str());
            while let Some(id) = cursor {
                match mark.get(id).copied().unwrap_or(0) {
                    2 => break,
                    1 => return Err(Invalid::new(format!("frames form a cycle through {id}"))),
                    _ => {}
                }
                mark.insert(id, 1);
                path.push(id);
                cursor = frames
                    .get(id)
                    .and_then(|f| non_null(f.as_object()?, "parentSessionID"))
                    .and_then(Value::as_str)
                    .filter(|p| frames.contains_key(*p));
            }
            for id in path {
                mark.insert(id, 2);
            }
        }
        Ok(())
    }

    pub fn version(&self) -> i64 {
        self.doc.get("version").and_then(Value::as_i64).unwrap_or(1)
    }

    fn frames_map(&self) -> &Map<String, Value> {
        self.doc
            .get("frames")
            .and_then(Value::as_object)
            .expect("validated: frames is an object")
    }

    fn frames_map_mut(&mut self) -> &mut Map<String, Value> {
        self.doc
            .get_mut("frames")
            .and_then(Value::as_object_mut)
            .expect("validated: frames is an object")
    }

    pub fn len(&self) -> usize {
        self.frames_map().len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames_map().is_empty()
    }

    pub fn frame(&self, id: &str) -> Option<Frame<'_>> {
        let (key, value) = self.frames_map().get_key_value(id)?;
        Some(Frame {
            id: key,
            map: value.as_object()?,
        })
    }

    /// Every frame, in file order.
    pub fn frames(&self) -> impl Iterator<Item = Frame<'_>> {
        self.frames_map().iter().filter_map(|(id, v)| {
            Some(Frame {
                id,
                map: v.as_object()?,
            })
        })
    }

    /// The stored `activeFrameID`, whether or not it names a frame.
    pub fn active_frame_id(&self) -> Option<&str> {
        non_null(&self.doc, "activeFrameID").and_then(Value::as_str)
    }

    /// True when some id equals `id` ignoring ASCII case.
    pub fn id_taken(&self, id: &str) -> Option<&str> {
        self.frames_map()
            .keys()
            .find(|k| k.eq_ignore_ascii_case(id))
            .map(String::as_str)
    }

    // ---- edits: keys keep their position; new keys go at the end (JavaScript insertion order) ----

    pub fn set_active(&mut self, id: Option<&str>) {
        match id {
            Some(id) => {
                self.doc.insert("activeFrameID".into(), Value::from(id));
            }
            None => {
                self.doc.shift_remove("activeFrameID");
            }
        }
    }

    pub fn set_updated_at(&mut self, now: i64) {
        self.doc.insert("updatedAt".into(), Value::from(now));
    }

    pub fn push_root_id(&mut self, id: &str) {
        if let Some(Value::Array(roots)) = self.doc.get_mut("rootFrameIDs") {
            roots.push(Value::from(id));
        }
    }

    /// Appends a new frame at the end of `frames`.
    pub fn insert_frame(&mut self, id: &str, frame: Map<String, Value>) {
        self.frames_map_mut()
            .insert(id.to_string(), Value::Object(frame));
    }

    /// Sets `key` of frame `id` (in place when present, else appended).
    pub fn set_field(&mut self, id: &str, key: &str, value: Value) {
        if let Some(Value::Object(frame)) = self.frames_map_mut().get_mut(id) {
            frame.insert(key.to_string(), value);
        }
    }

    /// Appends `item` to the string array `key` of frame `id`, creating the key at the end if absent
    /// (or null).
    pub fn append_to(&mut self, id: &str, key: &str, item: &str) {
        if let Some(Value::Object(frame)) = self.frames_map_mut().get_mut(id) {
            match frame.get_mut(key) {
                Some(Value::Array(items)) => items.push(Value::from(item)),
                _ => {
                    frame.insert(key.to_string(), Value::Array(vec![Value::from(item)]));
                }
            }
        }
    }

    /// The document as Flame writes it (`JSON.stringify(state, null, 2)`) plus one newline.
    pub fn to_text(&self) -> String {
        let mut out = Vec::with_capacity(256 + self.len() * 400);
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"  ");
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        serde::Serialize::serialize(&self.doc, &mut serializer)
            .expect("serializing a JSON value into memory cannot fail");
        out.push(b'\n');
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }
}

fn validate_frame(key: &str, value: &Value) -> Result<(), Invalid> {
    let at = format!("/frames/{}", pointer(key));
    if let Some(why) = id::id_problem(key) {
        return Err(Invalid::new(format!("{at}: invalid frame id: {why}")));
    }
    let Value::Object(frame) = value else {
        return Err(Invalid::new(format!("{at} must be an object")));
    };
    let field = |name: &str| non_null(frame, name);
    let need = |ok: bool, what: &str| -> Result<(), Invalid> {
        if ok {
            Ok(())
        } else {
            Err(Invalid::new(format!("{at}/{what}")))
        }
    };
    need(
        field("sessionID").and_then(Value::as_str) == Some(key),
        "sessionID must equal the frame's key",
    )?;
    need(
        matches!(
            frame.get("parentSessionID"),
            None | Some(Value::Null | Value::String(_))
        ),
        "parentSessionID must be a string or null",
    )?;
    need(
        field("status")
            .and_then(Value::as_str)
            .and_then(Status::parse)
            .is_some(),
        "status must be one of planned, in_progress, completed, failed, blocked, invalidated",
    )?;
    need(
        field("goal").is_some_and(Value::is_string),
        "goal must be a string",
    )?;
    for name in ["createdAt", "updatedAt"] {
        need(
            field(name).is_some_and(Value::is_number),
            &format!("{name} must be a number"),
        )?;
    }
    for name in ["artifacts", "decisions", "plannedChildren"] {
        let ok = match field(name) {
            None => true,
            Some(Value::Array(items)) => items.iter().all(Value::is_string),
            Some(_) => false,
        };
        need(ok, &format!("{name} must be an array of strings"))?;
    }
    for name in ["compactionSummary", "logPath", "invalidationReason"] {
        need(
            field(name).is_none_or(Value::is_string),
            &format!("{name} must be a string"),
        )?;
    }
    need(
        field("invalidatedAt").is_none_or(Value::is_number),
        "invalidatedAt must be a number",
    )
}

/// The frames in tree order (flame.md §1): children of each frame and the roots (true roots and
/// orphans), each list by `createdAt`, ties by position in `frames`.
pub struct TreeIndex<'a> {
    pub roots: Vec<&'a str>,
    children: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> TreeIndex<'a> {
    pub fn new(state: &'a State) -> TreeIndex<'a> {
        let frames = state.frames_map();
        let mut roots: Vec<(i64, usize, &str)> = Vec::new();
        let mut children: HashMap<&str, Vec<(i64, usize, &str)>> = HashMap::new();
        for (pos, frame) in state.frames().enumerate() {
            let key = (frame.created_at(), pos, frame.id);
            match frame.parent().filter(|p| frames.contains_key(*p)) {
                Some(parent) => children.entry(parent).or_default().push(key),
                None => roots.push(key),
            }
        }
        let order = |mut list: Vec<(i64, usize, &'a str)>| {
            list.sort_unstable();
            list.into_iter().map(|(_, _, id)| id).collect::<Vec<_>>()
        };
        TreeIndex {
            roots: order(roots),
            children: children.into_iter().map(|(k, v)| (k, order(v))).collect(),
        }
    }

    pub fn children(&self, id: &str) -> &[&'a str] {
        self.children.get(id).map_or(&[], Vec::as_slice)
    }

    /// `id` and its descendants in pre-order.
    pub fn subtree(&self, id: &'a str) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(next) = stack.pop() {
            out.push(next);
            stack.extend(self.children(next).iter().rev());
        }
        out
    }

    /// Every frame in pre-order, tree after tree.
    pub fn preorder(&self) -> Vec<&'a str> {
        self.roots
            .iter()
            .flat_map(|root| self.subtree(root))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_json(id: &str, extra: &str) -> String {
        format!(
            r#""{id}": {{"sessionID": "{id}", "status": "in_progress", "goal": "g", "createdAt": 1, "updatedAt": 1{extra}}}"#
        )
    }

    fn doc(frames: &[String]) -> String {
        format!(
            r#"{{"version": 1, "frames": {{{}}}, "rootFrameIDs": [], "updatedAt": 0}}"#,
            frames.join(",")
        )
    }

    #[test]
    fn type_errors_name_a_json_pointer() {
        let bad = doc(&[frame_json("fr_a", r#", "status": "done""#)]);
        let err = parse(&bad).unwrap_err();
        assert_eq!(
            err.message,
            "/frames/fr_a/status must be one of planned, in_progress, completed, failed, blocked, invalidated"
        );
        let bad = doc(&[frame_json("fr_a", r#", "artifacts": [1]"#)]);
        assert_eq!(
            parse(&bad).unwrap_err().message,
            "/frames/fr_a/artifacts must be an array of strings"
        );
    }

    #[test]
    fn syntax_errors_give_line_and_column() {
        let err = parse("{\n  \"version\": 1,\n  oops\n}").unwrap_err();
        assert!(
            err.message.starts_with("invalid JSON at line 3, column 3"),
            "{}",
            err.message
        );
        assert!(parse("").unwrap_err().empty);
        assert!(parse("{} {}").is_err());
    }

    #[test]
    fn cycles_are_invalid() {
        let bad = doc(&[
            frame_json("fr_a", r#", "parentSessionID": "fr_b""#),
            frame_json("fr_b", r#", "parentSessionID": "fr_a""#),
        ]);
        assert!(
            parse(&bad)
                .unwrap_err()
                .message
                .starts_with("frames form a cycle through")
        );
    }

    #[test]
    fn duplicate_keys_keep_the_first_position_and_the_last_value() {
        let state = parse(r#"{"version": 1, "frames": {}, "rootFrameIDs": [], "updatedAt": 5, "x": 1, "updatedAt": 7}"#).unwrap();
        let text = state.to_text();
        assert!(
            text.find("\"updatedAt\": 7").unwrap() < text.find("\"x\"").unwrap(),
            "{text}"
        );
    }

    #[test]
    fn writes_like_json_stringify() {
        let state = parse(&doc(&[frame_json(
            "fr_a",
            r#", "goal": "a\u0001\u2028/é\"", "n": 1.50"#,
        )]))
        .unwrap();
        let text = state.to_text();
        assert!(
            text.contains("\"goal\": \"a\\u0001\u{2028}/é\\\"\""),
            "{text}"
        );
        assert!(
            text.contains("\"n\": 1.50"),
            "numbers keep their text: {text}"
        );
        assert!(text.contains("\"rootFrameIDs\": [],"));
        assert!(text.ends_with("}\n"));
    }
}

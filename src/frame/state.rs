//! The Flame v1 `state.json` document (flame.md §3): parsing, validation, typed views and
//! order-preserving edits. The JSON document itself is the source of truth, so unknown keys and
//! key order survive every rewrite.

use std::collections::HashMap;
use std::fmt;

use crate::json::{self, Json, Object};

use super::id;

/// The schema version this ctx reads and writes.
pub const SCHEMA_VERSION: i64 = 1;

/// A frame's status, as Flame spells it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
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
/// A validated state document.
#[derive(Debug, Clone)]
pub struct State {
    doc: Object,
    /// Position of each frame in `frames`: lookups by id are the hot path of every command.
    index: HashMap<String, usize>,
    /// Length of the text the state was read from, to size the rewrite's buffer once.
    source_len: usize,
}

/// A read-only view of one validated frame.
#[derive(Clone, Copy)]
pub struct Frame<'a> {
    pub id: &'a str,
    map: &'a Object,
}

fn non_null<'a>(map: &'a Object, key: &str) -> Option<&'a Json> {
    map.get(key).filter(|v| !v.is_null())
}

/// The integer part of a JSON number (flame.md §3.4: fractions read as their integer part).
fn as_millis(value: &Json) -> Option<i64> {
    value.as_i64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.is_finite())
            .map(|f| f.trunc() as i64)
    })
}

fn strings(value: Option<&Json>) -> impl Iterator<Item = &str> {
    value
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
}

impl<'a> Frame<'a> {
    pub fn parent(&self) -> Option<&'a str> {
        non_null(self.map, "parentSessionID").and_then(Json::as_str)
    }
    pub fn status(&self) -> Status {
        // Validated on load.
        non_null(self.map, "status")
            .and_then(Json::as_str)
            .and_then(Status::parse)
            .unwrap_or(Status::Planned)
    }
    pub fn goal(&self) -> &'a str {
        non_null(self.map, "goal")
            .and_then(Json::as_str)
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
        non_null(self.map, "compactionSummary").and_then(Json::as_str)
    }
    pub fn log_path(&self) -> Option<&'a str> {
        non_null(self.map, "logPath").and_then(Json::as_str)
    }
    pub fn invalidation_reason(&self) -> Option<&'a str> {
        non_null(self.map, "invalidationReason").and_then(Json::as_str)
    }
    pub fn invalidated_at(&self) -> Option<i64> {
        non_null(self.map, "invalidatedAt").and_then(as_millis)
    }
    /// Keys ctx does not know, in file order.
    pub fn extra(&self) -> impl Iterator<Item = (&'a str, &'a Json)> + use<'a> {
        self.map
            .iter()
            .filter(|(k, _)| !KNOWN_FRAME_KEYS.contains(k))
    }
}

/// Whether `bytes` hold JSON whitespace only. Eight bytes at a time: a hostile file can be
/// hundreds of megabytes of spaces, and `str::trim` decodes every character.
fn is_blank(bytes: &[u8]) -> bool {
    const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let word = u64::from_ne_bytes(word.try_into().expect("chunks of eight"));
        if word != SPACES && !word.to_ne_bytes().iter().all(|b| is_json_space(*b)) {
            return false;
        }
    }
    words.remainder().iter().all(|b| is_json_space(*b))
}

fn is_json_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// Parses and validates the text of a state file (BOM already removed).
pub fn parse(text: &str) -> Result<State, Invalid> {
    if is_blank(text.as_bytes()) {
        return Err(Invalid {
            message: "the file is empty".into(),
            empty: true,
        });
    }
    let value = json::parse(text).map_err(|e| {
        Invalid::new(format!(
            "invalid JSON at line {}, column {}: {}",
            e.line, e.column, e.message
        ))
    })?;
    let Json::Object(doc) = value else {
        return Err(Invalid::new("the top level must be a JSON object"));
    };
    validate(&doc)?;
    let index = frames_of(&doc)
        .keys()
        .enumerate()
        .map(|(i, id)| (id.to_string(), i))
        .collect();
    Ok(State {
        doc,
        index,
        source_len: text.len(),
    })
}

fn frames_of(doc: &Object) -> &Object {
    doc.get("frames")
        .and_then(Json::as_object)
        .expect("validated: frames is an object")
}

/// A JSON pointer token (RFC 6901).
fn pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn validate(doc: &Object) -> Result<(), Invalid> {
    match doc.get("version") {
        Some(v) if v.as_i64().is_some_and(|n| n >= 1) => {}
        Some(_) => return Err(Invalid::new("/version must be an integer of at least 1")),
        None => return Err(Invalid::new("/version is missing")),
    }
    let Some(Json::Object(frames)) = doc.get("frames") else {
        return Err(Invalid::new("/frames must be an object"));
    };
    match doc.get("rootFrameIDs") {
        Some(Json::Array(items)) if items.iter().all(Json::is_string) => {}
        _ => return Err(Invalid::new("/rootFrameIDs must be an array of strings")),
    }
    match doc.get("activeFrameID") {
        None | Some(Json::Null | Json::String(_)) => {}
        Some(_) => return Err(Invalid::new("/activeFrameID must be a string or null")),
    }
    match doc.get("updatedAt") {
        Some(Json::Number(_)) => {}
        _ => return Err(Invalid::new("/updatedAt must be a number")),
    }
    for (key, frame) in frames.iter() {
        validate_frame(key, frame)?;
    }
    check_acyclic(frames)
}

fn check_acyclic(frames: &Object) -> Result<(), Invalid> {
    let position: HashMap<&str, usize> = frames.keys().enumerate().map(|(i, id)| (id, i)).collect();
    let parent: Vec<Option<usize>> = frames
        .iter()
        .map(|(_, f)| {
            f.as_object()
                .and_then(|f| non_null(f, "parentSessionID"))
                .and_then(Json::as_str)
                .and_then(|p| position.get(p).copied())
        })
        .collect();
    // 0 = unvisited, 1 = on the path being walked, 2 = known to reach a root.
    let mut mark = vec![0u8; parent.len()];
    let mut path = Vec::new();
    for start in 0..parent.len() {
        let mut cursor = Some(start);
        while let Some(at) = cursor {
            match mark[at] {
                2 => break,
                1 => {
                    let (id, _) = frames.entry_at(at).expect("index in range");
                    return Err(Invalid::new(format!("frames form a cycle through {id}")));
                }
                _ => {}
            }
            mark[at] = 1;
            path.push(at);
            cursor = parent[at];
        }
        for at in path.drain(..) {
            mark[at] = 2;
        }
    }
    Ok(())
}

fn validate_frame(key: &str, value: &Json) -> Result<(), Invalid> {
    let at = || format!("/frames/{}", pointer(key));
    if let Some(why) = id::id_problem(key) {
        return Err(Invalid::new(format!("{}: invalid frame id: {why}", at())));
    }
    let Json::Object(frame) = value else {
        return Err(Invalid::new(format!("{} must be an object", at())));
    };
    let field = |name: &str| non_null(frame, name);
    let need = |ok: bool, what: &str| -> Result<(), Invalid> {
        if ok {
            Ok(())
        } else {
            Err(Invalid::new(format!("{}/{what}", at())))
        }
    };
    need(
        field("sessionID").and_then(Json::as_str) == Some(key),
        "sessionID must equal the frame's key",
    )?;
    need(
        matches!(
            frame.get("parentSessionID"),
            None | Some(Json::Null | Json::String(_))
        ),
        "parentSessionID must be a string or null",
    )?;
    need(
        field("status")
            .and_then(Json::as_str)
            .and_then(Status::parse)
            .is_some(),
        "status must be one of planned, in_progress, completed, failed, blocked, invalidated",
    )?;
    need(
        field("goal").is_some_and(Json::is_string),
        "goal must be a string",
    )?;
    need(
        field("createdAt").is_some_and(Json::is_number),
        "createdAt must be a number",
    )?;
    need(
        field("updatedAt").is_some_and(Json::is_number),
        "updatedAt must be a number",
    )?;
    for name in ["artifacts", "decisions", "plannedChildren"] {
        let ok = match field(name) {
            None => true,
            Some(Json::Array(items)) => items.iter().all(Json::is_string),
            Some(_) => false,
        };
        if !ok {
            return need(false, &format!("{name} must be an array of strings"));
        }
    }
    for name in ["compactionSummary", "logPath", "invalidationReason"] {
        if !field(name).is_none_or(Json::is_string) {
            return need(false, &format!("{name} must be a string"));
        }
    }
    need(
        field("invalidatedAt").is_none_or(Json::is_number),
        "invalidatedAt must be a number",
    )
}

impl State {
    /// The empty state a missing file stands for.
    pub fn empty() -> State {
        let mut doc = Object::new();
        doc.insert("version", Json::int(SCHEMA_VERSION));
        doc.insert("frames", Json::Object(Object::new()));
        doc.insert("rootFrameIDs", Json::Array(Vec::new()));
        doc.insert("updatedAt", Json::int(0));
        State {
            doc,
            index: HashMap::new(),
            source_len: 0,
        }
    }

    pub fn version(&self) -> i64 {
        self.doc.get("version").and_then(Json::as_i64).unwrap_or(1)
    }

    fn frames_map(&self) -> &Object {
        frames_of(&self.doc)
    }

    fn frames_map_mut(&mut self) -> &mut Object {
        self.doc
            .get_mut("frames")
            .and_then(Json::as_object_mut)
            .expect("validated: frames is an object")
    }

    /// The object of frame `id`, for editing.
    fn frame_mut(&mut self, id: &str) -> Option<&mut Object> {
        let at = *self.index.get(id)?;
        self.frames_map_mut().value_at_mut(at)?.as_object_mut()
    }

    pub fn len(&self) -> usize {
        self.frames_map().len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames_map().is_empty()
    }

    pub fn frame(&self, id: &str) -> Option<Frame<'_>> {
        let (key, value) = self.frames_map().entry_at(*self.index.get(id)?)?;
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
        non_null(&self.doc, "activeFrameID").and_then(Json::as_str)
    }

    /// The existing id equal to `id` ignoring ASCII case, if any.
    pub fn id_taken(&self, id: &str) -> Option<&str> {
        if let Some((key, _)) = self.index.get_key_value(id) {
            return Some(key);
        }
        self.frames_map()
            .keys()
            .find(|k| k.eq_ignore_ascii_case(id))
    }

    // ---- edits: keys keep their position; new keys go at the end (JavaScript insertion order) ----

    pub fn set_active(&mut self, id: Option<&str>) {
        match id {
            Some(id) => self.doc.insert("activeFrameID", Json::str(id)),
            None => {
                self.doc.remove("activeFrameID");
            }
        }
    }

    pub fn set_updated_at(&mut self, now: i64) {
        self.doc.insert("updatedAt", Json::int(now));
    }

    pub fn push_root_id(&mut self, id: &str) {
        if let Some(Json::Array(roots)) = self.doc.get_mut("rootFrameIDs") {
            roots.push(Json::str(id));
        }
    }

    /// Appends a new frame at the end of `frames`; the caller has checked that `id` is new.
    pub fn insert_frame(&mut self, id: &str, frame: Object) {
        let frames = self.frames_map_mut();
        let at = frames.len();
        frames.push_new(id.to_string(), Json::Object(frame));
        self.index.insert(id.to_string(), at);
    }

    /// Sets `key` of frame `id` (in place when present, else appended).
    pub fn set_field(&mut self, id: &str, key: &str, value: Json) {
        if let Some(frame) = self.frame_mut(id) {
            frame.insert(key, value);
        }
    }

    /// Appends `item` to the string array `key` of frame `id`, creating the key at the end if
    /// absent (or null).
    pub fn append_to(&mut self, id: &str, key: &str, item: &str) {
        if let Some(frame) = self.frame_mut(id) {
            match frame.get_mut(key) {
                Some(Json::Array(items)) => items.push(Json::str(item)),
                _ => frame.insert(key, Json::strings([item])),
            }
        }
    }

    /// The document as Flame writes it (`JSON.stringify(state, null, 2)`) plus one newline.
    pub fn to_text(&self) -> String {
        let mut text =
            json::object_to_pretty_string(&self.doc, self.source_len + self.source_len / 16);
        text.push('\n');
        text
    }
}

/// The frames in tree order (flame.md §1): children of each frame and the roots (true roots and
/// orphans), each list by `createdAt`, ties by position in `frames`.
pub struct TreeIndex<'a> {
    pub roots: Vec<&'a str>,
    children: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> TreeIndex<'a> {
    pub fn new(state: &'a State) -> TreeIndex<'a> {
        let mut roots: Vec<(i64, usize, &str)> = Vec::new();
        let mut children: HashMap<&str, Vec<(i64, usize, &str)>> = HashMap::new();
        for (pos, frame) in state.frames().enumerate() {
            let key = (frame.created_at(), pos, frame.id);
            match frame.parent().filter(|p| state.frame(p).is_some()) {
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

    #[test]
    fn blank_means_json_whitespace_only() {
        assert!(is_blank(b""));
        assert!(is_blank(" \t\r\n".repeat(9).as_bytes()));
        assert!(!is_blank(format!("{}x", " ".repeat(16)).as_bytes()));
        assert!(!is_blank(
            format!("{}{{}}{}", " ".repeat(8), " ".repeat(7)).as_bytes()
        ));
        // Unicode spaces are not JSON whitespace: such a file is invalid JSON, not empty.
        assert!(!is_blank("\u{a0}".as_bytes()));
        assert!(!is_blank(b"\x0c"));
    }

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

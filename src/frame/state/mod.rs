//! The Flame v1 `state.json` document (flame.md §3): its model, typed views and
//! order-preserving edits, and its writing back; reading and validating its text is the room
//! below ([`read`]). The JSON document itself is the source of truth, so unknown keys and key
//! order survive every rewrite.

use std::cell::OnceCell;
use std::fmt;
use std::io;
use std::ops::Range;

use crate::json::{self, Json, Object};

use super::id::{self, FrameId};

mod read;

#[cfg(test)]
use read::{is_blank, known_key, read_frames_in_shares, share_starts};
pub use read::{parse, parse_owned};

/// The schema version this ctx reads and writes.
pub const SCHEMA_VERSION: i64 = 1;

/// ctx's top-level key holding each OpenCode session's current frame.
pub const SESSION_FRAMES: &str = "sessionFrames";
/// ctx's top-level key holding the parent session of each child session without a frame of its
/// own, whose place is its parent session's.
pub const SESSION_PARENTS: &str = "sessionParents";

/// ctx's top-level key holding what its Claude Code hooks remember per session (the hash of the
/// frame context last added, the subagent calls not yet started).
pub const CLAUDE_SESSIONS: &str = "claudeSessions";

/// The indentation level of the frames, the members of the top-level `frames` object, in the
/// writer's layout.
const FRAME_LEVEL: usize = 2;

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
    /// In the order the tree legend lists them, which is the order of the enum: `ALL[s as usize]`
    /// is `s`.
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

    /// Ended by a pop or an invalidation: `completed`, `failed`, `blocked` or `invalidated` (a
    /// blocked frame may be resumed, but nothing runs in it until then).
    pub fn has_ended(self) -> bool {
        matches!(
            self,
            Status::Completed | Status::Failed | Status::Blocked | Status::Invalidated
        )
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

/// A key of a frame that ctx knows, numbered by its row in [`FIELDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKey {
    SessionId,
    Parent,
    Status,
    Goal,
    CreatedAt,
    UpdatedAt,
    Artifacts,
    Decisions,
    PlannedChildren,
    Summary,
    LogPath,
    InvalidationReason,
    InvalidatedAt,
}

/// What a known key's value may be (flame.md §3). `null` counts as absent wherever a value may
/// be absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A string equal to the frame's own key.
    Id,
    /// A string or null; may be absent.
    Parent,
    /// One of the status names.
    Status,
    String,
    Number,
    /// A string; may be absent.
    OptionalString,
    /// A number; may be absent.
    OptionalNumber,
    /// An array of strings; may be absent.
    StringList,
}

impl Kind {
    /// What `validate_frame` says a wrong value must be.
    const fn must(self) -> &'static str {
        match self {
            Kind::Id => "must equal the frame's key",
            Kind::Parent => "must be a string or null",
            Kind::Status => {
                "must be one of planned, in_progress, completed, failed, blocked, invalidated"
            }
            Kind::String | Kind::OptionalString => "must be a string",
            Kind::Number | Kind::OptionalNumber => "must be a number",
            Kind::StringList => "must be an array of strings",
        }
    }
}

/// The frame schema, once: each key ctx knows, its JSON name and its kind, in the order the
/// validator checks them. The one-pass reader (`scan_frame`), the validator (`validate_frame`),
/// the accessors and the writers all take the names from here; every other key is "extra" and
/// preserved verbatim. Adding a field is a row here, its [`FrameKey`] and its `known_key` arm
/// (a test holds the two to this table), and the code that uses it.
const FIELDS: [(FrameKey, &str, Kind); 13] = [
    (FrameKey::SessionId, "sessionID", Kind::Id),
    (FrameKey::Parent, "parentSessionID", Kind::Parent),
    (FrameKey::Status, "status", Kind::Status),
    (FrameKey::Goal, "goal", Kind::String),
    (FrameKey::CreatedAt, "createdAt", Kind::Number),
    (FrameKey::UpdatedAt, "updatedAt", Kind::Number),
    (FrameKey::Artifacts, "artifacts", Kind::StringList),
    (FrameKey::Decisions, "decisions", Kind::StringList),
    (
        FrameKey::PlannedChildren,
        "plannedChildren",
        Kind::StringList,
    ),
    (FrameKey::Summary, "compactionSummary", Kind::OptionalString),
    (FrameKey::LogPath, "logPath", Kind::OptionalString),
    (
        FrameKey::InvalidationReason,
        "invalidationReason",
        Kind::OptionalString,
    ),
    (
        FrameKey::InvalidatedAt,
        "invalidatedAt",
        Kind::OptionalNumber,
    ),
];

impl FrameKey {
    /// The key's name in state.json.
    pub const fn name(self) -> &'static str {
        FIELDS[self as usize].1
    }

    const fn kind(self) -> Kind {
        FIELDS[self as usize].2
    }
}

/// Keys of a frame that ctx knows, from [`FIELDS`].
pub const KNOWN_FRAME_KEYS: [&str; 13] = {
    let mut names = [""; 13];
    let mut i = 0;
    while i < FIELDS.len() {
        names[i] = FIELDS[i].1;
        i += 1;
    }
    names
};

/// A validated state document.
///
/// A state of 10 000 frames is 4.5 MB, and a command reads a few frames and changes one or two: so
/// each frame is kept as its range of the text it was read from for as long as it is unchanged and
/// laid out exactly as ctx writes it, and is written back by copying that range. The fields every
/// listing reads are extracted once at load; the frame's JSON object is built only when something
/// else is asked for or the frame is edited.
#[derive(Debug, Clone)]
pub struct State {
    /// The text the state was read from (empty for a new state).
    source: String,
    /// The top-level members in file order; the value of `frames` is a placeholder: the frames
    /// themselves are in `frames`.
    doc: Object,
    /// The members of `frames`, in file order.
    frames: Vec<Slot>,
    /// Position of each frame in `frames`: lookups by id are the hot path of every command.
    index: json::KeyIndex,
}

#[derive(Debug, Clone)]
struct Slot {
    id: String,
    /// The frame's text in `State::source` while it is unchanged and exactly what the writer would
    /// produce for it; `None` once edited, or when the file laid it out differently.
    raw: Option<Range<usize>>,
    /// The frame's object: set at load when `raw` is `None`, else built on first use.
    object: OnceCell<Object>,
    fields: Fields,
}

/// What the tree and the transitions read of every frame.
#[derive(Debug, Clone)]
struct Fields {
    parent: Option<Text>,
    status: Status,
    goal: Text,
    created_at: i64,
}

/// A string of a frame: a range of `State::source` (no escapes in it), or decoded.
#[derive(Debug, Clone)]
enum Text {
    Source(Range<usize>),
    Owned(Box<str>),
}

impl Text {
    fn get<'a>(&'a self, source: &'a str) -> &'a str {
        match self {
            Text::Source(range) => &source[range.clone()],
            Text::Owned(text) => text,
        }
    }

    fn owned(text: &str) -> Text {
        Text::Owned(text.into())
    }
}

impl Fields {
    /// The fields of a frame object, with the defaults the accessors have always had.
    fn of(map: &Object) -> Fields {
        Fields {
            parent: non_null(map, FrameKey::Parent.name())
                .and_then(Json::as_str)
                .map(Text::owned),
            status: non_null(map, FrameKey::Status.name())
                .and_then(Json::as_str)
                .and_then(Status::parse)
                .unwrap_or(Status::Planned),
            goal: Text::owned(
                non_null(map, FrameKey::Goal.name())
                    .and_then(Json::as_str)
                    .unwrap_or(""),
            ),
            created_at: non_null(map, FrameKey::CreatedAt.name())
                .and_then(as_millis)
                .unwrap_or(0),
        }
    }
}

impl Slot {
    /// The frame's object, built from its text on first use.
    fn object(&self, source: &str) -> &Object {
        self.object.get_or_init(|| {
            let text = self.raw.clone().map_or("", |range| &source[range]);
            match json::parse(text) {
                Ok(Json::Object(object)) => object,
                // Unreachable: a frame kept as text was validated as an object at load.
                _ => Object::new(),
            }
        })
    }
}

/// A read-only view of one validated frame.
#[derive(Clone, Copy)]
pub struct Frame<'a> {
    pub id: &'a str,
    slot: &'a Slot,
    source: &'a str,
}

impl Frame<'_> {
    /// Its id as a [`FrameId`]: the state's reader checked it.
    pub fn frame_id(&self) -> FrameId {
        FrameId::checked(self.id)
    }
}

fn non_null<'a>(map: &'a Object, key: &str) -> Option<&'a Json> {
    map.get(key).filter(|v| !v.is_null())
}

/// The integer part of a JSON number (flame.md §3.4: fractions read as their integer part).
fn as_millis(value: &Json) -> Option<i64> {
    match value {
        Json::Number(text) => millis(text),
        _ => None,
    }
}

/// [`as_millis`] of a number's text.
fn millis(text: &str) -> Option<i64> {
    text.parse::<i64>().ok().or_else(|| {
        text.parse::<f64>()
            .ok()
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
    /// The frame's object, for the fields the tree does not need.
    fn map(&self) -> &'a Object {
        self.slot.object(self.source)
    }
    pub fn parent(&self) -> Option<&'a str> {
        self.slot.fields.parent.as_ref().map(|p| p.get(self.source))
    }
    pub fn status(&self) -> Status {
        self.slot.fields.status
    }
    pub fn goal(&self) -> &'a str {
        self.slot.fields.goal.get(self.source)
    }
    pub fn created_at(&self) -> i64 {
        self.slot.fields.created_at
    }
    pub fn updated_at(&self) -> i64 {
        non_null(self.map(), FrameKey::UpdatedAt.name())
            .and_then(as_millis)
            .unwrap_or(0)
    }
    pub fn artifacts(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        strings(non_null(self.map(), FrameKey::Artifacts.name()))
    }
    pub fn decisions(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        strings(non_null(self.map(), FrameKey::Decisions.name()))
    }
    pub fn planned_children(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        strings(non_null(self.map(), FrameKey::PlannedChildren.name()))
    }
    pub fn summary(&self) -> Option<&'a str> {
        non_null(self.map(), FrameKey::Summary.name()).and_then(Json::as_str)
    }
    pub fn log_path(&self) -> Option<&'a str> {
        non_null(self.map(), FrameKey::LogPath.name()).and_then(Json::as_str)
    }
    pub fn invalidation_reason(&self) -> Option<&'a str> {
        non_null(self.map(), FrameKey::InvalidationReason.name()).and_then(Json::as_str)
    }
    pub fn invalidated_at(&self) -> Option<i64> {
        non_null(self.map(), FrameKey::InvalidatedAt.name()).and_then(as_millis)
    }
    /// The value of any key of the frame, `null` read as absent.
    pub fn field(&self, key: &str) -> Option<&'a Json> {
        non_null(self.map(), key)
    }
    /// Keys ctx does not know, in file order.
    pub fn extra(&self) -> impl Iterator<Item = (&'a str, &'a Json)> + use<'a> {
        self.map()
            .iter()
            .filter(|(k, _)| !KNOWN_FRAME_KEYS.contains(k))
    }
}

/// Whether `gap` is what the writer puts between two frames before the frame `id`: `,`, a
/// newline, the frames' indent, and the key.
fn is_frame_separator(gap: &[u8], id: &str) -> bool {
    let key = json::indent_end(gap, 1, FRAME_LEVEL).and_then(|at| gap.get(at..));
    let is_key = |key: &[u8]| {
        key.len() == id.len() + 4
            && key.starts_with(b"\"")
            && key.ends_with(b"\": ")
            && &key[1..=id.len()] == id.as_bytes()
    };
    gap.first() == Some(&b',')
        && key.is_some_and(is_key)
        // An id the writer would escape is written escaped: its text is not the id.
        && json::string_stop(id.as_bytes(), 0) == id.len()
}

impl State {
    /// The empty state a missing file stands for.
    pub fn empty() -> State {
        let mut doc = Object::new();
        doc.insert("version", Json::int(SCHEMA_VERSION));
        doc.insert("frames", Json::Null);
        doc.insert("rootFrameIDs", Json::Array(Vec::new()));
        doc.insert("updatedAt", Json::int(0));
        State {
            source: String::new(),
            doc,
            frames: Vec::new(),
            index: json::KeyIndex::default(),
        }
    }

    /// The text the state was parsed from (empty for [`State::empty`]): two states parsed from
    /// the same text are the same state.
    pub fn text(&self) -> &str {
        &self.source
    }

    pub fn version(&self) -> i64 {
        self.doc.get("version").and_then(Json::as_i64).unwrap_or(1)
    }

    fn view<'a>(&'a self, slot: &'a Slot) -> Frame<'a> {
        Frame {
            id: &slot.id,
            slot,
            source: &self.source,
        }
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    pub fn frame(&self, id: &str) -> Option<Frame<'_>> {
        let slot = self.frames.get(*self.index.get(id)?)?;
        Some(self.view(slot))
    }

    /// The position of frame `id` in `frames` (file order).
    pub fn position(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }

    /// The frame at position `pos` of `frames`; panics past the end.
    pub fn frame_at(&self, pos: usize) -> Frame<'_> {
        self.view(&self.frames[pos])
    }

    fn id_at(&self, pos: usize) -> &str {
        &self.frames[pos].id
    }

    /// Every frame, in file order.
    pub fn frames(&self) -> impl Iterator<Item = Frame<'_>> {
        self.frames.iter().map(|slot| self.view(slot))
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
        self.frames
            .iter()
            .map(|slot| slot.id.as_str())
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

    /// The current frame of each OpenCode session that has one recorded (`sessionFrames`, ctx's
    /// own top-level key: Flame reads the file without it and keeps it as an unknown key), in file
    /// order. A value that is not an object of strings is an error: ctx will not guess what
    /// another program meant by it, nor overwrite it.
    pub fn session_frames(&self) -> Result<Vec<(&str, &str)>, Invalid> {
        self.string_map(SESSION_FRAMES, "frame id")
    }

    /// Records `frame` as session `session`'s current frame, or forgets the session's entry.
    /// The caller has read [`State::session_frames`] without error.
    pub fn set_session_frame(&mut self, session: &str, frame: Option<&str>) {
        self.set_in_string_map(SESSION_FRAMES, session, frame);
    }

    /// The parent session of each child session recorded without a frame of its own
    /// (`sessionParents`, ctx's own key, read as strictly as `sessionFrames`).
    pub fn session_parents(&self) -> Result<Vec<(&str, &str)>, Invalid> {
        self.string_map(SESSION_PARENTS, "session id")
    }

    /// Records `parent` as the parent session of `session`, or forgets the entry. The caller has
    /// read [`State::session_parents`] without error.
    pub fn set_session_parent(&mut self, session: &str, parent: Option<&str>) {
        self.set_in_string_map(SESSION_PARENTS, session, parent);
    }

    /// The top-level object `key` of strings, in file order; absent or null is empty.
    fn string_map(&self, key: &str, what: &str) -> Result<Vec<(&str, &str)>, Invalid> {
        let Some(value) = non_null(&self.doc, key) else {
            return Ok(Vec::new());
        };
        let object = value
            .as_object()
            .ok_or_else(|| Invalid::new(format!("/{key} must be an object of {what}s")))?;
        object
            .iter()
            .map(|(name, value)| match value.as_str() {
                Some(value) => Ok((name, value)),
                None => Err(Invalid::new(format!(
                    "/{key}/{name} must be a {what} (a string)"
                ))),
            })
            .collect()
    }

    fn set_in_string_map(&mut self, key: &str, name: &str, value: Option<&str>) {
        if !matches!(self.doc.get(key), Some(Json::Object(_))) {
            if value.is_none() {
                return;
            }
            self.doc.insert(key, Json::Object(Object::new()));
        }
        let Some(Json::Object(map)) = self.doc.get_mut(key) else {
            unreachable!("{key} was just made an object");
        };
        match value {
            Some(value) => map.insert(name, Json::str(value)),
            None => {
                map.remove(name);
            }
        }
    }

    /// What ctx's Claude Code hooks recorded for session `session` (`claudeSessions`, ctx's own
    /// top-level key, kept by Flame as an unknown key). A `claudeSessions` that is not an object
    /// of objects is an error, as for `sessionFrames`.
    pub fn claude_session(&self, session: &str) -> Result<Option<&Object>, Invalid> {
        let Some(value) = non_null(&self.doc, CLAUDE_SESSIONS) else {
            return Ok(None);
        };
        let object = value.as_object().ok_or_else(|| {
            Invalid::new(format!("/{CLAUDE_SESSIONS} must be an object of objects"))
        })?;
        match object.get(session) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::Object(record)) => Ok(Some(record)),
            Some(_) => Err(Invalid::new(format!(
                "/{CLAUDE_SESSIONS}/{session} must be an object"
            ))),
        }
    }

    /// Replaces session `session`'s record. The caller has read [`State::claude_session`]
    /// without error.
    pub fn set_claude_session(&mut self, session: &str, record: Object) {
        if !matches!(self.doc.get(CLAUDE_SESSIONS), Some(Json::Object(_))) {
            self.doc
                .insert(CLAUDE_SESSIONS, Json::Object(Object::new()));
        }
        if let Some(Json::Object(sessions)) = self.doc.get_mut(CLAUDE_SESSIONS) {
            sessions.insert(session, Json::Object(record));
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
        self.index.insert(id.to_string(), self.frames.len());
        self.frames.push(Slot {
            id: id.to_string(),
            raw: None,
            fields: Fields::of(&frame),
            object: OnceCell::from(frame),
        });
    }

    /// Runs `change` on the object of frame `id`, which from then on is written from its object.
    fn edit_frame(&mut self, id: &str, change: impl FnOnce(&mut Object)) {
        let Some(&at) = self.index.get(id) else {
            return;
        };
        let slot = &mut self.frames[at];
        slot.object(&self.source);
        slot.raw = None;
        if let Some(object) = slot.object.get_mut() {
            change(object);
            slot.fields = Fields::of(object);
        }
    }

    /// Sets `key` of frame `id` (in place when present, else appended).
    pub fn set_field(&mut self, id: &str, key: &str, value: Json) {
        self.edit_frame(id, |frame| frame.insert(key, value));
    }

    /// Moves frame `id` in `frames` to just before (`after` false) or after frame `other`. Frames
    /// keep their text; only their order in the file changes.
    pub fn move_frame(&mut self, id: &str, other: &str, after: bool) {
        let (Some(&from), Some(_)) = (self.index.get(id), self.index.get(other)) else {
            return;
        };
        let slot = self.frames.remove(from);
        let to = self.index_after_removal(other, from) + usize::from(after);
        self.frames.insert(to, slot);
        for (pos, slot) in self.frames.iter().enumerate() {
            *self.index.get_mut(&slot.id).expect("every slot is indexed") = pos;
        }
    }

    /// The position of `other` once the slot at `removed` is gone.
    fn index_after_removal(&self, other: &str, removed: usize) -> usize {
        let at = self.index[other];
        if at > removed { at - 1 } else { at }
    }

    /// Moves `item` in the string array `key` of the document (`top`) or of frame `owner` to
    /// just before or after `other`, when both are there.
    pub fn move_in_list(
        &mut self,
        owner: Option<&str>,
        key: &str,
        item: &str,
        other: &str,
        after: bool,
    ) {
        let reorder = |items: &mut Vec<Json>| {
            let Some(from) = items.iter().position(|i| i.as_str() == Some(item)) else {
                return;
            };
            if !items.iter().any(|i| i.as_str() == Some(other)) {
                return;
            }
            let moved = items.remove(from);
            let at = items
                .iter()
                .position(|i| i.as_str() == Some(other))
                .expect("checked");
            items.insert(at + usize::from(after), moved);
        };
        match owner {
            None => {
                if let Some(Json::Array(items)) = self.doc.get_mut(key) {
                    reorder(items);
                }
            }
            Some(owner) => self.edit_frame(owner, |frame| {
                if let Some(Json::Array(items)) = frame.get_mut(key) {
                    reorder(items);
                }
            }),
        }
    }

    /// Removes `key` of frame `id`, when present.
    pub fn remove_field(&mut self, id: &str, key: &str) {
        self.edit_frame(id, |frame| {
            frame.remove(key);
        });
    }

    /// Removes the first `item` of the string array `key` of frame `id`; whether there was one.
    pub fn remove_from(&mut self, id: &str, key: &str, item: &str) -> bool {
        let mut removed = false;
        self.edit_frame(id, |frame| {
            if let Some(Json::Array(items)) = frame.get_mut(key)
                && let Some(at) = items.iter().position(|i| i.as_str() == Some(item))
            {
                items.remove(at);
                removed = true;
            }
        });
        removed
    }

    /// Appends `item` to the string array `key` of frame `id`, creating the key at the end if
    /// absent (or null).
    pub fn append_to(&mut self, id: &str, key: &str, item: &str) {
        self.edit_frame(id, |frame| match frame.get_mut(key) {
            Some(Json::Array(items)) => items.push(Json::str(item)),
            _ => frame.insert(key, Json::strings([item])),
        });
    }

    /// The document as Flame writes it (`JSON.stringify(state, null, 2)`) plus one newline: what
    /// [`json::write_object`] writes for the whole document, except that each unchanged frame is
    /// copied from the text it was read from (which is what writing its object would produce).
    pub fn to_text(&self) -> String {
        let mut out = Vec::with_capacity(self.source.len() + self.source.len() / 16 + 4096);
        self.write_text(&mut out)
            .expect("writing to memory cannot fail");
        String::from_utf8(out).expect("every piece written is UTF-8")
    }

    /// [`State::to_text`] written to `out` piece by piece: a state of 10 000 frames is 4.5 MB, and
    /// the writer need not hold a second copy of it.
    pub fn write_text(&self, out: &mut impl io::Write) -> io::Result<()> {
        // What is written between the copied frames collects here.
        let mut pending = String::with_capacity(4096);
        pending.push('{');
        for (i, (key, value)) in self.doc.iter().enumerate() {
            if i > 0 {
                pending.push(',');
            }
            json::indent(&mut pending, 1);
            json::write_string(&mut pending, key);
            pending.push_str(": ");
            if key == "frames" {
                self.write_frames(out, &mut pending)?;
            } else {
                json::write_value(&mut pending, value, 1);
            }
        }
        json::indent(&mut pending, 0);
        pending.push_str("}\n");
        out.write_all(pending.as_bytes())
    }

    /// The `frames` object, at level 1; what remains to be written is left in `pending`.
    fn write_frames<W: io::Write>(&self, out: &mut W, pending: &mut String) -> io::Result<()> {
        if self.frames.is_empty() {
            pending.push_str("{}");
            return Ok(());
        }
        // Unchanged frames that follow one another in the source, with what the writer puts
        // between them, are copied as one run: a state read in the writer's layout and changed in
        // a frame or two is written in a few large writes, straight from the text it was read from.
        let source = self.source.as_bytes();
        let mut run: Option<Range<usize>> = None;
        // Writes what is pending, then the run of copied text.
        let flush = |out: &mut W, pending: &mut String, copied: Range<usize>| {
            out.write_all(pending.as_bytes())?;
            pending.clear();
            out.write_all(&source[copied])
        };
        pending.push('{');
        for (i, slot) in self.frames.iter().enumerate() {
            // (A repeated id leaves a frame's text before the one it follows.)
            if let (Some(copied), Some(raw)) = (&mut run, &slot.raw)
                && let Some(gap) = source.get(copied.end..raw.start)
                && is_frame_separator(gap, &slot.id)
            {
                copied.end = raw.end;
                continue;
            }
            if let Some(copied) = run.take() {
                flush(out, pending, copied)?;
            }
            if i > 0 {
                pending.push(',');
            }
            json::indent(pending, FRAME_LEVEL);
            json::write_string(pending, &slot.id);
            pending.push_str(": ");
            match &slot.raw {
                Some(raw) => run = Some(raw.clone()),
                None => json::write_object(pending, slot.object(&self.source), FRAME_LEVEL),
            }
        }
        if let Some(copied) = run {
            flush(out, pending, copied)?;
        }
        json::indent(pending, 1);
        pending.push('}');
        Ok(())
    }
}

/// The frames in tree order (flame.md §1): children of each frame and the roots (true roots and
/// orphans), each list by `createdAt`, ties by position in `frames`. Built by frame position, so
/// that an index costs one id lookup per frame.
pub struct TreeIndex<'a> {
    pub roots: Vec<&'a str>,
    state: &'a State,
    /// The positions in `frames` of the roots, in tree order.
    root_positions: Vec<usize>,
    /// The positions of the children of the frame at each position of `frames`, in tree order.
    children: Vec<Vec<usize>>,
}

impl<'a> TreeIndex<'a> {
    pub fn new(state: &'a State) -> TreeIndex<'a> {
        let mut roots: Vec<(i64, usize)> = Vec::new();
        let mut children: Vec<Vec<(i64, usize)>> = vec![Vec::new(); state.len()];
        for (pos, frame) in state.frames().enumerate() {
            let key = (frame.created_at(), pos);
            match frame.parent().and_then(|p| state.index.get(p)) {
                Some(&parent) => children[parent].push(key),
                None => roots.push(key),
            }
        }
        let order = |mut list: Vec<(i64, usize)>| {
            list.sort_unstable();
            list.into_iter().map(|(_, pos)| pos).collect::<Vec<_>>()
        };
        let root_positions = order(roots);
        TreeIndex {
            roots: root_positions.iter().map(|&pos| state.id_at(pos)).collect(),
            state,
            root_positions,
            children: children.into_iter().map(order).collect(),
        }
    }

    pub fn children(&self, id: &str) -> Vec<&'a str> {
        let state = self.state;
        let at = state.index.get(id);
        let positions = at.map_or(&[][..], |&at| self.children[at].as_slice());
        positions.iter().map(|&pos| state.id_at(pos)).collect()
    }

    /// The positions of the roots, in tree order.
    pub fn root_positions(&self) -> &[usize] {
        &self.root_positions
    }

    /// The positions of the children of the frame at position `pos`, in tree order.
    pub fn children_at(&self, pos: usize) -> &[usize] {
        &self.children[pos]
    }

    /// `id` and its descendants in pre-order.
    pub fn subtree(&self, id: &'a str) -> Vec<&'a str> {
        let Some(&start) = self.state.index.get(id) else {
            return vec![id];
        };
        let mut out = Vec::new();
        let mut stack = vec![start];
        while let Some(next) = stack.pop() {
            out.push(self.state.id_at(next));
            stack.extend(self.children[next].iter().rev());
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
    fn statuses_are_listed_in_the_order_of_the_enum() {
        for (at, status) in Status::ALL.into_iter().enumerate() {
            assert_eq!(status as usize, at, "{status}");
        }
    }

    #[test]
    fn each_row_of_the_schema_is_its_key() {
        for (at, (key, name, _)) in FIELDS.iter().enumerate() {
            assert_eq!(*key as usize, at, "{name}");
            assert_eq!(key.name(), *name);
        }
    }

    #[test]
    fn known_key_is_the_position_in_the_list() {
        for (at, key) in KNOWN_FRAME_KEYS.iter().enumerate() {
            assert_eq!(
                known_key(key.as_bytes()).map(|k| k as usize),
                Some(at),
                "{key}"
            );
        }
        for other in ["", "sessionid", "goal ", "summary", "children"] {
            assert!(known_key(other.as_bytes()).is_none(), "{other}");
        }
    }

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

    /// A canonical state of `count` frames (parents, escapes, extra keys), and the position and
    /// level of its `frames` object.
    fn large_state(count: usize, after: &str) -> (String, usize) {
        let frames: Vec<String> = (0..count)
            .map(|n| {
                let parent = if n == 0 {
                    String::new()
                } else {
                    format!(r#", "parentSessionID": "fr_{:05}""#, n / 3)
                };
                let extra = match n % 4 {
                    0 => r#", "goal": "quote \" tab \t é", "artifacts": ["a", "b"]"#.to_string(),
                    1 => r#", "x": {"k": [1, {}, []]}, "decisions": []"#.to_string(),
                    2 => format!(r#", "compactionSummary": "{}""#, "s".repeat(n % 97)),
                    _ => r#", "status": "completed", "logPath": null"#.to_string(),
                };
                frame_json(&format!("fr_{n:05}"), &format!("{parent}{extra}"))
            })
            .collect();
        let text =
            doc(&frames).replace(r#""updatedAt": 0}"#, &format!(r#""updatedAt": 0{after}}}"#));
        let text = json::to_pretty_string(&json::parse(&text).unwrap());
        let pos = text.find("\"frames\": ").unwrap() + "\"frames\": ".len();
        (text, pos)
    }

    type Read = Option<(usize, (Vec<Slot>, json::KeyIndex))>;

    /// What the tree reads of each frame, and where the object ended.
    fn read_summary(text: &str, read: &Read) -> Option<(usize, Vec<String>)> {
        let (end, (slots, index)) = read.as_ref()?;
        let frames = slots
            .iter()
            .enumerate()
            .map(|(at, slot)| {
                assert_eq!(index[&slot.id], at);
                let f = &slot.fields;
                let parent = f.parent.as_ref().map(|p| p.get(text));
                let raw = &text[slot.raw.clone().unwrap()];
                let goal = f.goal.get(text);
                format!(
                    "{} {parent:?} {} {goal:?} {} {raw}",
                    slot.id, f.status, f.created_at
                )
            })
            .collect();
        Some((*end, frames))
    }

    #[test]
    fn frames_read_in_shares_are_the_frames_read_in_one() {
        let (text, pos) = large_state(3000, "");
        let bytes = text.as_bytes();
        let one = read_summary(&text, &read_frames_in_shares(&text, pos, 1, 1));
        let (end, frames) = one.clone().expect("read in one share");
        assert_eq!(frames.len(), 3000);
        assert_eq!(&text[end - 3..end + 1], "  },");
        for shares in 2..=7 {
            // The cuts fall where asked: the test would pass vacuously with a single share.
            assert_eq!(share_starts(bytes, pos + 1, 2, shares).len(), shares);
            let read = read_frames_in_shares(&text, pos, 1, shares);
            assert_eq!(read_summary(&text, &read), one, "{shares} shares");
        }
    }

    #[test]
    fn frames_read_in_shares_refuse_what_one_share_refuses() {
        let (text, pos) = large_state(3000, "");
        // The same id early and late: the frame-by-frame read keeps the last at the first place.
        let twice = text.replace("fr_02999", "fr_01000");
        // A frame out of the writer's layout in the last share.
        let odd = text.replacen(
            "\"sessionID\": \"fr_02998\"",
            "\"sessionID\":  \"fr_02998\"",
            1,
        );
        // Lines after the frames that look like where a frame starts: a cut may fall there.
        let tail: Vec<String> = (0..60_000).map(|n| format!(r#""k{n}": {n}"#)).collect();
        let after = format!(r#", "zz": {{{}}}"#, tail.join(", "));
        let (long_tail, long_tail_pos) = large_state(3000, &after);
        for (text, pos) in [(&twice, pos), (&odd, pos), (&long_tail, long_tail_pos)] {
            let one = read_summary(text, &read_frames_in_shares(text, pos, 1, 1));
            for shares in 2..=7 {
                let read = read_summary(text, &read_frames_in_shares(text, pos, 1, shares));
                assert!(read.is_none() || read == one, "{shares} shares");
            }
            // And the state as a whole is what the full parser makes of it.
            let state = parse(text).unwrap();
            assert_eq!(
                state.to_text(),
                json::to_pretty_string(&json::parse(text).unwrap()) + "\n"
            );
        }
        assert!(read_frames_in_shares(&twice, pos, 1, 1).is_none());
        assert!(read_frames_in_shares(&odd, pos, 1, 1).is_none());
        assert!(read_frames_in_shares(&long_tail, long_tail_pos, 1, 1).is_some());
        assert!(read_frames_in_shares(&long_tail, long_tail_pos, 1, 2).is_none());
    }

    #[test]
    fn unchanged_frames_are_copied_in_runs_whatever_their_order() {
        let frame = |id: &str, goal: &str| {
            format!(
                r#""{id}": {{"sessionID": "{id}", "status": "planned", "goal": "{goal}", "createdAt": 1, "updatedAt": 1}}"#
            )
        };
        // `fr_a` twice: the last text is kept at the first place, so `fr_b`'s text comes before it.
        let frames = [
            frame("fr_a", "first"),
            frame("fr_b", "b"),
            frame("fr_c", "c"),
            frame("fr_x", "last"),
        ];
        let canonical = json::to_pretty_string(&json::parse(&doc(&frames)).unwrap());
        let text = canonical.replace("fr_x", "fr_a");
        let state = parse(&text).unwrap();
        let model = json::to_pretty_string(&json::parse(&text).unwrap()) + "\n";
        assert_eq!(state.to_text(), model);
        assert!(model.contains("\"goal\": \"last\""));
        // An edited frame in the middle ends one run and starts another.
        let text = json::to_pretty_string(&json::parse(&doc(&frames[1..])).unwrap());
        let mut state = parse(&text).unwrap();
        state.set_field("fr_c", "goal", Json::String("changed".into()));
        let mut model = json::parse(&text).unwrap();
        let frames = model.as_object_mut().unwrap().get_mut("frames").unwrap();
        let c = frames.as_object_mut().unwrap().get_mut("fr_c").unwrap();
        c.as_object_mut()
            .unwrap()
            .insert("goal", Json::String("changed".into()));
        assert_eq!(state.to_text(), json::to_pretty_string(&model) + "\n");
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

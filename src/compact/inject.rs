//! Inserting rendered context into an OpenCode message list (cli.md, `ctx compact inject`): the
//! `{"messages": [{"info": {…}, "parts": […]}, …]}` of `experimental.chat.messages.transform` in,
//! the same shape out. Only the top level and each message's `info` are parsed: messages that do
//! not change are copied byte for byte (unknown keys, key order and number spellings included),
//! which also keeps a 2 MB history fast. The output document is built whole before a byte of it
//! is written.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::compact::id::IdMinter;
use crate::error::{Error, Result};

/// Where the context goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    /// A new synthetic user message before all others.
    Prepend,
    /// A new synthetic user message after all others.
    Append,
    /// A synthetic text part appended to the last user message.
    LastUser,
    /// A synthetic text part appended to the last assistant message.
    LastAssistant,
    /// A new synthetic user message just before message ID.
    Before(String),
    /// A new synthetic user message just after message ID.
    After(String),
}

impl Position {
    /// Parses `prepend`, `append`, `last-user`, `last-assistant`, `before:ID`, `after:ID`.
    pub fn parse(text: &str) -> std::result::Result<Position, String> {
        let target = |id: &str| {
            if id.is_empty() {
                Err(format!("'{text}' names no message id"))
            } else {
                Ok(id.to_string())
            }
        };
        match text {
            "prepend" => Ok(Position::Prepend),
            "append" => Ok(Position::Append),
            "last-user" => Ok(Position::LastUser),
            "last-assistant" => Ok(Position::LastAssistant),
            _ => {
                if let Some(id) = text.strip_prefix("before:") {
                    target(id).map(Position::Before)
                } else if let Some(id) = text.strip_prefix("after:") {
                    target(id).map(Position::After)
                } else {
                    Err(format!(
                        "'{text}' is not one of prepend, append, last-user, last-assistant, \
                         before:MSGID, after:MSGID"
                    ))
                }
            }
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Prepend => f.write_str("prepend"),
            Position::Append => f.write_str("append"),
            Position::LastUser => f.write_str("last-user"),
            Position::LastAssistant => f.write_str("last-assistant"),
            Position::Before(id) => write!(f, "before:{id}"),
            Position::After(id) => write!(f, "after:{id}"),
        }
    }
}

const SHAPE_HINT: &str = "expected {\"messages\": [{\"info\": {\"id\", \"role\", …}, \"parts\": […]}, …]}, \
                          the output of OpenCode's experimental.chat.messages.transform";

fn shape_error(what: impl fmt::Display) -> Error {
    Error::failure(format!("not an OpenCode message list: {what}")).with_hint(SHAPE_HINT)
}

/// A parsed message list. Only what injection needs is parsed: the top-level keys, and the
/// keys of each message's `info` that injection reads; parts stay raw text and are written back
/// byte for byte.
pub struct MessageList<'a> {
    /// Top-level members in order (a repeated key keeps its first position and its last value,
    /// as JavaScript's parser does); `None` stands for `messages`.
    top: Vec<(String, Option<&'a RawValue>)>,
    messages: Vec<Message<'a>>,
}

pub struct Message<'a> {
    raw: &'a RawValue,
    /// The members of `info` named in [`INFO_KEYS`] that are present.
    info: Map<String, Value>,
}

/// What injection reads of a message's `info`: its identity, and what a new message copies.
const INFO_KEYS: [&str; 5] = ["id", "role", "sessionID", "agent", "model"];

/// An object key, borrowed from the input unless it holds escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        deserializer.deserialize_str(Visit)
    }
}

/// The members of an object whose keys are in `names`, unparsed, the last of a repeated key
/// winning; the other members are skipped without being built.
pub(crate) struct Pick<'n>(pub(crate) &'n [&'n str]);

impl<'de> DeserializeSeed<'de> for Pick<'_> {
    type Value = Vec<Option<&'de RawValue>>;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Pick<'_> {
    type Value = Vec<Option<&'de RawValue>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut found = vec![None; self.0.len()];
        while let Some(Key(key)) = map.next_key()? {
            match self.0.iter().position(|name| *name == key) {
                Some(i) => found[i] = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// The value of the top-level `messages`: its items unparsed, or a note that it is no array.
enum Items<'a> {
    Array(Vec<&'a RawValue>),
    NotArray,
}

impl<'de> Deserialize<'de> for Items<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Items<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Items<'de>, S::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Items::Array(items))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Items<'de>, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Items::NotArray)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Items<'de>, E> {
                Ok(Items::NotArray)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Items<'de>, E> {
                Ok(Items::NotArray)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Items<'de>, E> {
                Ok(Items::NotArray)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Items<'de>, E> {
                Ok(Items::NotArray)
            }
            fn visit_str<E>(self, _: &str) -> Result<Items<'de>, E> {
                Ok(Items::NotArray)
            }
            fn visit_unit<E>(self) -> Result<Items<'de>, E> {
                Ok(Items::NotArray)
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// The top-level object: its members in order with `messages` parsed down to its items, in one
/// pass over the text.
struct Top<'a> {
    members: Vec<(String, Option<&'a RawValue>)>,
    messages: Option<Items<'a>>,
}

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Top<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Top<'de>, M::Error> {
                let mut top = Top {
                    members: Vec::new(),
                    messages: None,
                };
                while let Some(Key(key)) = map.next_key()? {
                    let value = if key == "messages" {
                        top.messages = Some(map.next_value()?);
                        None
                    } else {
                        Some(map.next_value()?)
                    };
                    match top.members.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = value,
                        None => top.members.push((key.into_owned(), value)),
                    }
                }
                Ok(top)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

fn starts_with(raw: &RawValue, byte: u8) -> bool {
    raw.get().as_bytes().first() == Some(&byte)
}

fn is_json_space(byte: &u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// Parses and checks the message list: every message an object with an object `info` holding
/// string `id` and `role`, and an array `parts`. The big parts are crossed twice (the top level,
/// then each message) and never built.
pub fn parse_messages(input: &str) -> Result<MessageList<'_>> {
    let (top, raw_items) = parse_top(input, "an OpenCode message list", SHAPE_HINT)?;
    let syntax = |e: serde_json::Error| syntax_error(e, SHAPE_HINT);
    let mut messages = Vec::with_capacity(raw_items.len());
    for (i, raw) in raw_items.into_iter().enumerate() {
        if !starts_with(raw, b'{') {
            return Err(shape_error(format!("/messages/{i} is not an object")));
        }
        let head = Pick(&["info", "parts"])
            .deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
            .map_err(syntax)?;
        let (info, parts) = (head[0], head[1]);
        let Some(info) = info.filter(|r| starts_with(r, b'{')) else {
            return Err(shape_error(format!("/messages/{i}/info is not an object")));
        };
        let picked = Pick(&INFO_KEYS)
            .deserialize(&mut serde_json::Deserializer::from_str(info.get()))
            .map_err(syntax)?;
        let mut info = Map::new();
        for (key, value) in INFO_KEYS.iter().zip(picked) {
            if let Some(value) = value {
                info.insert(
                    key.to_string(),
                    serde_json::from_str(value.get()).map_err(syntax)?,
                );
            }
        }
        for key in ["id", "role"] {
            if !info.get(key).is_some_and(Value::is_string) {
                return Err(shape_error(format!(
                    "/messages/{i}/info/{key} is not a string"
                )));
            }
        }
        if !parts.is_some_and(|p| starts_with(p, b'[')) {
            return Err(shape_error(format!("/messages/{i}/parts is not an array")));
        }
        messages.push(Message { raw, info });
    }
    Ok(MessageList {
        top: top.members,
        messages,
    })
}

fn syntax_error(e: serde_json::Error, hint: &str) -> Error {
    Error::failure(format!(
        "not JSON: {} at line {}, column {}",
        describe(&e),
        e.line(),
        e.column()
    ))
    .with_hint(hint)
}

/// The top level of a `{"messages": [...]}` document, `list` ("an OpenCode message list"): its
/// members, and the messages unparsed. `hint` says what was expected.
fn parse_top<'a>(input: &'a str, list: &str, hint: &str) -> Result<(Top<'a>, Vec<&'a RawValue>)> {
    let not_a_list = |what: &str| Error::failure(format!("not {list}: {what}")).with_hint(hint);
    let Some(first) = input.as_bytes().iter().find(|b| !is_json_space(b)) else {
        return Err(Error::failure("empty").with_hint(hint));
    };
    let syntax = |e: serde_json::Error| syntax_error(e, hint);
    if *first != b'{' {
        // A syntax error anywhere is reported as such, before the shape.
        serde_json::from_str::<IgnoredAny>(input).map_err(syntax)?;
        return Err(not_a_list("the top level is not an object"));
    }
    let mut top: Top<'_> = serde_json::from_str(input).map_err(syntax)?;
    match top.messages.take() {
        None => Err(not_a_list("there is no \"messages\" key")),
        Some(Items::NotArray) => Err(not_a_list("/messages is not an array")),
        Some(Items::Array(items)) => Ok((top, items)),
    }
}

/// A message list of another agent's shape (pi's), `list`: the top level checked as for
/// OpenCode's, each message read by `info`, which gives what [`Message::id`] and
/// [`Message::role`] answer.
pub(crate) fn parse_list_with<'a>(
    input: &'a str,
    list: &str,
    hint: &str,
    mut info: impl FnMut(usize, &'a RawValue) -> Map<String, Value>,
) -> Result<MessageList<'a>> {
    let (top, raw_items) = parse_top(input, list, hint)?;
    let messages = raw_items
        .into_iter()
        .enumerate()
        .map(|(i, raw)| Message {
            raw,
            info: info(i, raw),
        })
        .collect();
    Ok(MessageList {
        top: top.members,
        messages,
    })
}

/// serde_json's message without its own position suffix.
fn describe(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

impl<'a> MessageList<'a> {
    /// The messages, in order.
    pub fn messages(&self) -> &[Message<'a>] {
        &self.messages
    }
}

impl<'a> Message<'a> {
    pub fn role(&self) -> &str {
        self.info["role"].as_str().unwrap_or("")
    }
    pub fn id(&self) -> &str {
        self.info["id"].as_str().unwrap_or("")
    }
    /// The message's JSON text, as read.
    pub fn raw(&self) -> &'a str {
        self.raw.get()
    }
}

/// The user message nearest to index `at` (an insertion point), earlier ones first on a tie.
fn nearest_user<'m, 'a>(messages: &'m [Message<'a>], at: usize) -> Option<&'m Message<'a>> {
    (0..messages.len())
        .filter(|&i| messages[i].role() == "user")
        .min_by_key(|&i| {
            if i < at {
                (at - i - 1) * 2
            } else {
                (i - at) * 2 + 1
            }
        })
        .map(|i| &messages[i])
}

/// The message nearest to `at` of any role, for its session id.
fn nearest_any<'m, 'a>(messages: &'m [Message<'a>], at: usize) -> Option<&'m Message<'a>> {
    if at > 0 {
        messages.get(at - 1)
    } else {
        messages.first()
    }
}

fn synthetic_part(id: &str, session: &Value, message: &str, text: &str) -> Value {
    json!({
        "id": id,
        "sessionID": session,
        "messageID": message,
        "type": "text",
        "text": text,
        "synthetic": true,
    })
}

/// Who a new message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// A new synthetic message for insertion at index `at` (opencode.md §8.2), from `role`, with
/// ids minted now.
fn new_message(
    messages: &[Message<'_>],
    at: usize,
    text: &str,
    role: Role,
    minter: &mut IdMinter,
    now: i64,
) -> Result<String> {
    let id = minter.mint("msg", now);
    let part = minter.mint("prt", now);
    synthetic_message(messages, at, text, role, [&id, &part], now)
}

/// A synthetic message with message and part ids `ids`, created at `created`, for insertion at
/// index `at`: its session, agent and model are copied from the nearest user message (an earlier
/// one first), the session from any neighbour when there is no user message.
pub(crate) fn synthetic_message(
    messages: &[Message<'_>],
    at: usize,
    text: &str,
    role: Role,
    [id, part]: [&str; 2],
    created: i64,
) -> Result<String> {
    let user = nearest_user(messages, at);
    let session = user
        .or_else(|| nearest_any(messages, at))
        .and_then(|m| m.info.get("sessionID"))
        .cloned()
        .ok_or_else(|| {
            Error::failure("no message carries a sessionID to copy into the new message")
        })?;
    let mut info = Map::new();
    info.insert("id".into(), Value::String(id.to_string()));
    info.insert("sessionID".into(), session.clone());
    let role = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    info.insert("role".into(), Value::String(role.into()));
    info.insert("time".into(), json!({ "created": created }));
    if let Some(user) = user {
        for key in ["agent", "model"] {
            if let Some(value) = user.info.get(key) {
                info.insert(key.into(), value.clone());
            }
        }
    }
    let part = synthetic_part(part, &session, id, text);
    Ok(json!({ "info": Value::Object(info), "parts": [part] }).to_string())
}

/// The index of the message with id `id`.
fn position_of(messages: &[Message<'_>], id: &str) -> Result<usize> {
    messages
        .iter()
        .position(|m| m.id() == id)
        .ok_or_else(|| Error::failure(format!("no message has id '{id}'")))
}

/// `message` with `part` appended to its parts: only this message is parsed whole.
fn with_part(message: &Message<'_>, part: Value) -> Result<String> {
    let mut value: Value = serde_json::from_str(message.raw.get())
        .map_err(|e| Error::failure(format!("not JSON: {e}")))?;
    value["parts"]
        .as_array_mut()
        .expect("checked by parse_messages")
        .push(part);
    Ok(value.to_string())
}

/// The message list with `text` inserted at `at`, as compact JSON text. Messages that do not
/// change are copied byte for byte.
pub fn inject(
    list: &MessageList<'_>,
    at: &Position,
    text: &str,
    minter: &mut IdMinter,
    now: i64,
) -> Result<String> {
    inject_as(list, at, text, Role::User, minter, now)
}

/// [`inject`], with a new message (prepend, append, before:, after:) from `role`.
pub fn inject_as(
    list: &MessageList<'_>,
    at: &Position,
    text: &str,
    role: Role,
    minter: &mut IdMinter,
    now: i64,
) -> Result<String> {
    let messages = &list.messages;
    // The changed message (an index into `messages`, or a new one before index `insert_at`).
    let mut replace: Option<(usize, String)> = None;
    let mut insert: Option<(usize, String)> = None;
    match at {
        Position::Prepend | Position::Append | Position::Before(_) | Position::After(_) => {
            let index = match at {
                Position::Prepend => 0,
                Position::Append => messages.len(),
                Position::Before(id) => position_of(messages, id)?,
                Position::After(id) => position_of(messages, id)? + 1,
                _ => unreachable!("matched above"),
            };
            insert = Some((
                index,
                new_message(messages, index, text, role, minter, now)?,
            ));
        }
        Position::LastUser | Position::LastAssistant => {
            let wanted = if *at == Position::LastUser {
                "user"
            } else {
                "assistant"
            };
            let index = messages
                .iter()
                .rposition(|m| m.role() == wanted)
                .ok_or_else(|| Error::failure(format!("there is no {wanted} message to add to")))?;
            let target = &messages[index];
            let session = target.info.get("sessionID").cloned().unwrap_or(Value::Null);
            let part = synthetic_part(&minter.mint("prt", now), &session, target.id(), text);
            replace = Some((index, with_part(target, part)?));
        }
    }

    Ok(write_list(list, replace, insert, text.len()))
}

/// The message list with opencode-swarm's context-budget warning `line` put before the text of
/// the first text part of the last user message, as the plugin puts it (`line + "\n\n"`, swarm.md
/// §11.3); `None` when there is no such part. Other messages are copied byte for byte.
pub fn prepend_to_last_user_text(list: &MessageList<'_>, line: &str) -> Result<Option<String>> {
    let messages = &list.messages;
    let Some(index) = messages.iter().rposition(|m| m.role() == "user") else {
        return Ok(None);
    };
    let mut value: Value = serde_json::from_str(messages[index].raw.get())
        .map_err(|e| Error::failure(format!("not JSON: {e}")))?;
    let part = value["parts"]
        .as_array_mut()
        .expect("checked by parse_messages")
        .iter_mut()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("text") && p["text"].is_string());
    let Some(part) = part else {
        return Ok(None);
    };
    let text = part["text"].as_str().unwrap_or_default();
    part["text"] = Value::String(format!("{line}\n\n{text}"));
    let changed = value.to_string();
    Ok(Some(write_list(
        list,
        Some((index, changed)),
        None,
        line.len(),
    )))
}

/// The document: the top-level members as read, the messages copied but for the `replace`d one
/// and an `insert`ed one.
fn write_list(
    list: &MessageList<'_>,
    replace: Option<(usize, String)>,
    insert: Option<(usize, String)>,
    added: usize,
) -> String {
    let mut edits = Edits::new(list.messages.len());
    if let Some((at, text)) = replace {
        edits.messages[at] = Edit::Replace(text);
    }
    if let Some((at, text)) = insert {
        edits.before[at].push(text);
    }
    write_edited(list, &edits, added)
}

/// The document as read: the top-level members and every message byte for byte, for a request
/// that ctx passes on without a change.
pub fn write_unchanged(list: &MessageList<'_>) -> String {
    write_list(list, None, None, 0)
}

/// What becomes of one message of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    Keep,
    Drop,
    /// Its new JSON text.
    Replace(String),
}

/// Changes to a message list: one [`Edit`] per message, and new messages (JSON texts) to put
/// before message `i` (`before[len]`: after the last one).
#[derive(Debug, Clone)]
pub struct Edits {
    pub messages: Vec<Edit>,
    pub before: Vec<Vec<String>>,
}

impl Edits {
    pub fn new(len: usize) -> Edits {
        Edits {
            messages: vec![Edit::Keep; len],
            before: vec![Vec::new(); len + 1],
        }
    }
}

/// The document with `edits` applied: the top-level members as read, kept messages copied byte
/// for byte. `added` is a guess of the bytes the edits add, to size the text once.
pub fn write_edited(list: &MessageList<'_>, edits: &Edits, added: usize) -> String {
    let messages = &list.messages;
    let size = list
        .top
        .iter()
        .map(|(k, v)| k.len() + v.map_or(0, |v| v.get().len()) + 4)
        .chain(messages.iter().map(|m| m.raw.get().len() + 1))
        .sum::<usize>();
    let mut out = String::with_capacity(size + added * 2 + 1024);
    out.push('{');
    for (n, (key, value)) in list.top.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(key.clone()).to_string());
        out.push(':');
        if let Some(value) = value {
            out.push_str(value.get());
            continue;
        }
        out.push('[');
        let mut first = true;
        let mut item = |out: &mut String, text: &str| {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(text);
        };
        for (i, message) in messages.iter().enumerate() {
            for new in &edits.before[i] {
                item(&mut out, new);
            }
            match &edits.messages[i] {
                Edit::Keep => item(&mut out, message.raw.get()),
                Edit::Replace(changed) => item(&mut out, changed),
                Edit::Drop => {}
            }
        }
        for new in &edits.before[messages.len()] {
            item(&mut out, new);
        }
        out.push(']');
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1795346761241;

    fn minter() -> IdMinter {
        IdMinter::with_tail(|| *b"ABCDEFGHIJKLMN")
    }

    const LIST: &str = r#"{"messages":[{"info":{"role":"user","id":"msg_1","sessionID":"ses_1","agent":"build","model":{"providerID":"mock","modelID":"mock-1"},"x-extra":1},"parts":[{"id":"prt_1","type":"text","text":"hi","zzz":[3,2,1]}]},{"info":{"id":"msg_2","sessionID":"ses_1","role":"assistant","cost":0.02034},"parts":[]}],"extra":true}"#;

    fn run(at: &str) -> Result<String> {
        let list = parse_messages(LIST)?;
        let at = Position::parse(at).map_err(Error::failure)?;
        inject(&list, &at, "CTX", &mut minter(), NOW)
    }

    const NEW_USER: &str = r#"{"info":{"id":"msg_2030186190013456789ABCDEFG","sessionID":"ses_1","role":"user","time":{"created":1795346761241},"agent":"build","model":{"providerID":"mock","modelID":"mock-1"}},"parts":[{"id":"prt_2030186190023456789ABCDEFG","sessionID":"ses_1","messageID":"msg_2030186190013456789ABCDEFG","type":"text","text":"CTX","synthetic":true}]}"#;

    #[test]
    fn prepend_and_append_add_a_synthetic_user_message() {
        let user = &LIST[r#"{"messages":["#.len()..LIST.find(r#",{"info":{"id":"msg_2""#).unwrap()];
        let assistant = r#"{"info":{"id":"msg_2","sessionID":"ses_1","role":"assistant","cost":0.02034},"parts":[]}"#;
        assert_eq!(
            run("prepend").unwrap(),
            format!(r#"{{"messages":[{NEW_USER},{user},{assistant}],"extra":true}}"#)
        );
        assert_eq!(
            run("append").unwrap(),
            format!(r#"{{"messages":[{user},{assistant},{NEW_USER}],"extra":true}}"#)
        );
        assert_eq!(run("before:msg_2").unwrap(), run("after:msg_1").unwrap());
        assert_eq!(run("after:msg_2").unwrap(), run("append").unwrap());
        assert_eq!(run("before:msg_1").unwrap(), run("prepend").unwrap());
    }

    #[test]
    fn last_user_and_last_assistant_append_a_part() {
        let out = run("last-user").unwrap();
        assert!(out.contains(r#"{"id":"prt_1","type":"text","text":"hi","zzz":[3,2,1]},{"id":"prt_2030186190013456789ABCDEFG","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"CTX","synthetic":true}]"#), "{out}");
        let out = run("last-assistant").unwrap();
        assert!(out.contains(r#""cost":0.02034},"parts":[{"id":"prt_2030186190013456789ABCDEFG","sessionID":"ses_1","messageID":"msg_2","type":"text","text":"CTX","synthetic":true}]}"#), "{out}");
    }

    #[test]
    fn bad_input_is_refused() {
        let err = |input: &str| match parse_messages(input) {
            Ok(_) => panic!("accepted {input}"),
            Err(e) => e.message,
        };
        assert_eq!(
            err("{\"messages\": [}"),
            "not JSON: expected value at line 1, column 15"
        );
        assert_eq!(
            err("[]"),
            "not an OpenCode message list: the top level is not an object"
        );
        assert_eq!(
            err("{}"),
            "not an OpenCode message list: there is no \"messages\" key"
        );
        assert_eq!(
            err(r#"{"messages":[{"info":{"id":"m","role":"user"}}]}"#),
            "not an OpenCode message list: /messages/0/parts is not an array"
        );
        assert_eq!(
            err(r#"{"messages":[{"info":{"role":"user"},"parts":[]}]}"#),
            "not an OpenCode message list: /messages/0/info/id is not a string"
        );
        assert_eq!(
            run("before:msg_9").unwrap_err().message,
            "no message has id 'msg_9'"
        );
        let text =
            r#"{"messages":[{"info":{"id":"m","role":"assistant","sessionID":"s"},"parts":[]}]}"#;
        let only_assistant = parse_messages(text).unwrap();
        assert_eq!(
            inject(
                &only_assistant,
                &Position::LastUser,
                "x",
                &mut minter(),
                NOW
            )
            .unwrap_err()
            .message,
            "there is no user message to add to"
        );
        // Without a user message the session id still comes from a neighbour; agent/model are left out.
        let out = inject(&only_assistant, &Position::Append, "x", &mut minter(), NOW).unwrap();
        let out: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(out["messages"][1]["info"]["sessionID"], "s");
        assert!(out["messages"][1]["info"].get("agent").is_none());
        let empty = parse_messages(r#"{"messages":[]}"#).unwrap();
        assert!(inject(&empty, &Position::Prepend, "x", &mut minter(), NOW).is_err());
    }

    #[test]
    fn repeated_and_escaped_keys_read_as_javascript_reads_them() {
        let err = |input: &str| parse_messages(input).err().map(|e| e.message);
        // The last of a repeated key wins, at every level; an escaped key is the key it spells.
        let text = r#"{"messages":5,"mess\u0061ges":[{"info":{"id":"a","role":"assistant"},"parts":[],"info":{"id":"m","role":"user","role":"user","sessionID":"s"}}],"x":1,"x":2}"#;
        let list = parse_messages(text).unwrap();
        let out = inject(&list, &Position::LastUser, "CTX", &mut minter(), NOW).unwrap();
        let out: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(out["messages"][0]["info"]["id"], "m");
        assert_eq!(out["messages"][0]["parts"][0]["text"], "CTX");
        assert_eq!(out["x"], 2);
        // A syntax error behind a shape error is still reported as a syntax error.
        assert_eq!(
            err("[1, 2"),
            Some("not JSON: EOF while parsing a list at line 1, column 5".into())
        );
        assert_eq!(
            err(r#"{"messages": {"a": }}"#),
            Some("not JSON: expected value at line 1, column 20".into())
        );
        assert_eq!(
            err(r#"{"messages": 5}"#),
            Some("not an OpenCode message list: /messages is not an array".into())
        );
        assert_eq!(err(" \n\t"), Some("empty".into()));
    }
    #[test]
    fn positions_parse_and_print() {
        for text in [
            "prepend",
            "append",
            "last-user",
            "last-assistant",
            "before:msg_1",
            "after:m",
        ] {
            assert_eq!(Position::parse(text).unwrap().to_string(), text);
        }
        assert!(Position::parse("before:").is_err());
        assert!(Position::parse("middle").is_err());
    }
}

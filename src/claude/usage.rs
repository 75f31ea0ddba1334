//! The usage of a Claude Code transcript, read from its bytes: only what the cost of a session
//! needs, never the content that makes most of a transcript (prompts, tool results, file
//! contents, thinking).
//!
//! What cost needs is of two kinds. The session's facts come from its first lines: its id, its
//! time, whether it is a subagent's (its first line that says whether it is on the sidechain, or
//! its first agent id) and its title (its first typed prompt); every line is read until they are
//! all known, which is after a line or two. The responses come from the lines that carry usage,
//! and a line can only carry usage when it holds the key `"usage"`: the other lines are found by a
//! byte search and never parsed. A line that is read is parsed field by field, the fields cost
//! does not need skipped without a copy ([`Line`]).
//!
//! A line that is not read is checked only for being whole (one `{` … `}` by its braces and
//! strings, as a line cut short by a crash is not); a line that is read is checked as JSON. Every byte is checked as UTF-8.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::transcript::{Response, Tokens};

/// What the place of a transcript says of it, before a byte is read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Place {
    /// It is named `agent-<id>.jsonl` inside a `subagents/` folder: a subagent's, by its place.
    pub subagent_folder: bool,
    /// It is named `agent-<id>.jsonl`.
    pub agent_named: bool,
}

/// What cost reads of one transcript.
#[derive(Debug, Default)]
pub struct Usage {
    /// The first non-empty `sessionId`.
    pub session_id: Option<String>,
    /// The first `timestamp` that is a time, epoch ms.
    pub created: Option<i64>,
    /// The first line that says whether it is on the sidechain: what it says, and its non-empty
    /// `agentId`.
    pub sidechain: Option<(bool, Option<String>)>,
    /// The first non-empty `agentId`.
    pub agent_id: Option<String>,
    /// The first line of the first typed prompt (a user line neither on the sidechain nor meta).
    pub prompt: Option<String>,
    /// The model responses, each once, in the order of their first lines ([`Responses`]).
    pub responses: Vec<Response>,
    /// Lines that are not JSON objects.
    pub skipped: usize,
    /// The transcript is not UTF-8 (read with U+FFFD in place of the bad bytes).
    pub not_utf8: bool,
}

impl Usage {
    /// Whether a session fact that the report of a transcript at `place` uses is still unknown.
    fn needs_facts(&self, place: Place) -> bool {
        if self.session_id.is_none() || self.created.is_none() {
            return true;
        }
        if place.subagent_folder {
            return self.agent_id.is_none();
        }
        match &self.sidechain {
            None => true,
            // A subagent's transcript: it has no prompt of the person's.
            Some((true, agent)) if agent.is_some() || place.agent_named => false,
            Some(_) => self.prompt.is_none(),
        }
    }
}

/// Reads what cost needs of the transcript `bytes`, at `place`. Bytes that are not UTF-8 are
/// read as U+FFFD, and said.
pub fn read(bytes: &[u8], place: Place) -> Usage {
    match std::str::from_utf8(bytes) {
        Ok(text) => read_text(text, place),
        Err(_) => Usage {
            not_utf8: true,
            ..read_text(&String::from_utf8_lossy(bytes), place)
        },
    }
}

/// [`read`] of a transcript's `text`.
fn read_text(text: &str, place: Place) -> Usage {
    let bytes = text.as_bytes();
    let mut usage = Usage::default();
    let mut responses = Responses::default();
    let usage_key = memchr::memmem::Finder::new(b"\"usage\"");
    // The next place at or after the current line where "usage" is written.
    let mut next_usage = usage_key.find(bytes);
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |n| start + n);
        // Cut at a newline, so at a character's boundary.
        let line = &text[start..end];
        let holds_usage = next_usage.is_some_and(|at| at < end);
        if holds_usage || usage.needs_facts(place) || !whole(line.as_bytes()) {
            read_line(line, &mut usage, &mut responses);
        }
        if holds_usage {
            next_usage = usage_key.find(&bytes[end..]).map(|n| end + n);
        }
        start = end + 1;
    }
    usage.responses = responses.list;
    usage
}

/// Whether `line` is blank or, once trimmed, one `{` … `}` whose braces close only at its end,
/// braces inside strings not counted: what a line that is not read is checked for. Any other is
/// read, and so said if it is not JSON.
///
/// This finds every line cut short, as a crash leaves one: in a prefix of a JSON object, the
/// object's first brace is still open, or a string is. It skips from quote to brace to quote, so
/// it costs far less than a parse.
fn whole(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    if line.is_empty() {
        return true;
    }
    if line[0] != b'{' {
        return false;
    }
    let mut depth = 0usize;
    let mut at = 0;
    loop {
        // Outside a string.
        let Some(n) = memchr::memchr3(b'"', b'{', b'}', &line[at..]) else {
            return false;
        };
        at += n;
        match line[at] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return at + 1 == line.len();
                }
            }
            _ => {
                // Inside a string: to the first quote that an odd run of backslashes does not
                // escape. Searching for quotes alone passes over the `\n` escapes that most of
                // a transcript's text is cut by.
                let open = at;
                loop {
                    let Some(n) = memchr::memchr(b'"', &line[at + 1..]) else {
                        return false;
                    };
                    at += 1 + n;
                    let before = &line[open + 1..at];
                    let backslashes = before.iter().rev().take_while(|&&b| b == b'\\').count();
                    if backslashes % 2 == 0 {
                        break;
                    }
                }
            }
        }
        at += 1;
    }
}

/// Reads one line: its facts into `usage`, its response into `responses`.
fn read_line(line: &str, usage: &mut Usage, responses: &mut Responses) {
    if line.trim().is_empty() {
        return;
    }
    let Ok(line) = serde_json::from_str::<Line>(line) else {
        usage.skipped += 1;
        return;
    };
    line.facts_into(usage);
    responses.add(&line);
}

/// The model responses of a transcript, each once, in the order of their first lines. Lines
/// without a `message.id` or `usage` (user turns, hook records) are not responses; neither are
/// Claude Code's own placeholders (model `<synthetic>`). A response is the lines with its message
/// id and request id (ccusage's key): its time is its first line's, its usage its last line's,
/// since Claude Code writes a line per content block as the response streams and the early lines
/// carry the counts of that moment (`output_tokens` 1 on the first, 273 on the last).
#[derive(Default)]
struct Responses {
    at: foldhash::HashMap<(String, String), usize>,
    list: Vec<Response>,
}

impl Responses {
    fn add(&mut self, line: &Line) {
        if line.kind.as_str() != Some("assistant") {
            return;
        }
        let Some(message) = &line.message else {
            return;
        };
        let (Some(id), Some(usage)) = (message.id.as_str(), &message.usage) else {
            return;
        };
        let model = message.model.as_str().unwrap_or("");
        if model == "<synthetic>" {
            return;
        }
        let request = line.request_id.as_str().unwrap_or_default();
        let (tokens, bad_counts) = usage.tokens();
        let key = (id.to_string(), request.to_string());
        if let Some(&known) = self.at.get(&key) {
            let response = &mut self.list[known];
            response.tokens = tokens;
            response.bad_counts = bad_counts;
            return;
        }
        self.at.insert(key, self.list.len());
        self.list.push(Response {
            id: id.to_string(),
            request: request.to_string(),
            model: model.to_string(),
            time: line
                .timestamp
                .as_str()
                .and_then(crate::time::parse_rfc3339_utc),
            tokens,
            bad_counts,
        });
    }
}

/// The fields of a transcript line that cost reads; the others are skipped as they are parsed.
/// A key given twice is read as its last value, as a JSON value is.
#[derive(Default)]
struct Line<'a> {
    kind: Field<'a>,
    session_id: Field<'a>,
    timestamp: Field<'a>,
    request_id: Field<'a>,
    agent_id: Field<'a>,
    is_sidechain: Field<'a>,
    is_meta: Field<'a>,
    /// Present whatever its type; a message that is not an object has none of its fields.
    message: Option<Message<'a>>,
}

impl Line<'_> {
    /// Fills in the facts of `usage` this line is the first to give.
    fn facts_into(&self, usage: &mut Usage) {
        let named = |field: &Field| field.as_str().filter(|s| !s.is_empty()).map(str::to_string);
        if usage.session_id.is_none() {
            usage.session_id = named(&self.session_id);
        }
        if usage.created.is_none() {
            usage.created = self
                .timestamp
                .as_str()
                .and_then(crate::time::parse_rfc3339_utc);
        }
        if usage.sidechain.is_none()
            && let Some(on) = self.is_sidechain.as_bool()
        {
            usage.sidechain = Some((on, named(&self.agent_id)));
        }
        if usage.agent_id.is_none() {
            usage.agent_id = named(&self.agent_id);
        }
        if usage.prompt.is_none() {
            usage.prompt = self.prompt();
        }
    }

    /// The first line of the person's prompt this line holds: a text, or the first text part of a
    /// content array (text and image parts). Sidechain and meta lines are not the person's.
    fn prompt(&self) -> Option<String> {
        if self.kind.as_str()? != "user"
            || self.is_sidechain.as_bool() == Some(true)
            || self.is_meta.as_bool() == Some(true)
        {
            return None;
        }
        let content: Value = serde_json::from_str(self.message.as_ref()?.content?.get()).ok()?;
        let text = match &content {
            Value::String(text) => text.as_str(),
            Value::Array(parts) => parts.iter().find_map(|p| {
                (p.get("type")?.as_str()? == "text").then_some(())?;
                p.get("text")?.as_str()
            })?,
            _ => return None,
        };
        Some(
            text.lines()
                .find(|l| !l.trim().is_empty())?
                .trim()
                .to_string(),
        )
    }
}

/// The fields of a line's `message` that cost reads.
#[derive(Default)]
struct Message<'a> {
    id: Field<'a>,
    model: Field<'a>,
    /// Its `usage`, when that is an object.
    usage: Option<Counts<'a>>,
    /// Kept unparsed: only a prompt's is read.
    content: Option<&'a RawValue>,
}

/// The counts of a `usage` object, kept unparsed until they are read ([`Counts::tokens`]).
#[derive(Default)]
struct Counts<'a> {
    input: Option<&'a RawValue>,
    output: Option<&'a RawValue>,
    cache_read: Option<&'a RawValue>,
    cache_write: Option<&'a RawValue>,
    /// `output_tokens_details.thinking_tokens`.
    thinking: Option<&'a RawValue>,
}

impl Counts<'_> {
    /// The tokens, and `name value` of each present count that is not one (negative,
    /// fractional, not a number), taken as 0.
    fn tokens(&self) -> (Tokens, Vec<String>) {
        let mut bad = Vec::new();
        let mut n = |name: &str, raw: Option<&RawValue>| {
            let Some(raw) = raw else {
                return 0;
            };
            if let Ok(n) = serde_json::from_str::<u64>(raw.get()) {
                return n;
            }
            match serde_json::from_str::<Value>(raw.get()) {
                Ok(Value::Null) | Err(_) => {}
                Ok(value) => bad.push(format!("{name} {value}")),
            }
            0
        };
        let tokens = Tokens {
            input: n("input_tokens", self.input),
            output: n("output_tokens", self.output),
            cache_read: n("cache_read_input_tokens", self.cache_read),
            cache_write: n("cache_creation_input_tokens", self.cache_write),
            thinking: n("thinking_tokens", self.thinking),
        };
        (tokens, bad)
    }
}

/// A value of which only a text or a boolean is kept: any other reads as absent, as
/// `Value::as_str` and `Value::as_bool` read it.
#[derive(Default)]
enum Field<'a> {
    Text(Cow<'a, str>),
    Bool(bool),
    #[default]
    Other,
}

impl Field<'_> {
    fn as_str(&self) -> Option<&str> {
        match self {
            Field::Text(text) => Some(text),
            _ => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        match self {
            Field::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

/// The keys cost reads, at the top of a line or in its message; any other is skipped.
enum Key {
    Type,
    SessionId,
    Timestamp,
    RequestId,
    AgentId,
    IsSidechain,
    IsMeta,
    Message,
    Id,
    Model,
    Usage,
    Content,
    InputTokens,
    OutputTokens,
    CacheReadInputTokens,
    CacheCreationInputTokens,
    OutputTokensDetails,
    ThinkingTokens,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "type" => Key::Type,
                    "sessionId" => Key::SessionId,
                    "timestamp" => Key::Timestamp,
                    "requestId" => Key::RequestId,
                    "agentId" => Key::AgentId,
                    "isSidechain" => Key::IsSidechain,
                    "isMeta" => Key::IsMeta,
                    "message" => Key::Message,
                    "id" => Key::Id,
                    "model" => Key::Model,
                    "usage" => Key::Usage,
                    "content" => Key::Content,
                    "input_tokens" => Key::InputTokens,
                    "output_tokens" => Key::OutputTokens,
                    "cache_read_input_tokens" => Key::CacheReadInputTokens,
                    "cache_creation_input_tokens" => Key::CacheCreationInputTokens,
                    "output_tokens_details" => Key::OutputTokensDetails,
                    "thinking_tokens" => Key::ThinkingTokens,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Line<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LineVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for LineVisitor<'a> {
            type Value = Line<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<'a>, A::Error> {
                let mut line = Line::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Type => line.kind = map.next_value()?,
                        Key::SessionId => line.session_id = map.next_value()?,
                        Key::Timestamp => line.timestamp = map.next_value()?,
                        Key::RequestId => line.request_id = map.next_value()?,
                        Key::AgentId => line.agent_id = map.next_value()?,
                        Key::IsSidechain => line.is_sidechain = map.next_value()?,
                        Key::IsMeta => line.is_meta = map.next_value()?,
                        Key::Message => {
                            // A message that is not an object has none of its fields.
                            line.message =
                                Some(map.next_value::<Object<Message>>()?.0.unwrap_or_default());
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(line)
            }
        }
        deserializer.deserialize_map(LineVisitor(std::marker::PhantomData))
    }
}

/// A value read as `T` when it is an object, and as nothing otherwise (as `Value::get` reads
/// into a value that is not an object).
struct Object<T>(Option<T>);

/// The fields of an object, read from its entries.
trait FromEntries<'de>: Default {
    fn entries<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

impl<'de, T: FromEntries<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: FromEntries<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
                T::entries(map).map(|t| Object(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Object<T>, A::Error> {
                IgnoredAny.visit_seq(seq).map(|_| Object(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
            fn visit_unit<E>(self) -> Result<Object<T>, E> {
                Ok(Object(None))
            }
        }
        deserializer.deserialize_any(ObjectVisitor(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> FromEntries<'de> for Message<'a> {
    fn entries<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut message = Message::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id => message.id = map.next_value()?,
                Key::Model => message.model = map.next_value()?,
                Key::Usage => message.usage = map.next_value::<Object<Counts>>()?.0,
                Key::Content => message.content = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(message)
    }
}

impl<'de: 'a, 'a> FromEntries<'de> for Counts<'a> {
    fn entries<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut counts = Counts::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::InputTokens => counts.input = Some(map.next_value()?),
                Key::OutputTokens => counts.output = Some(map.next_value()?),
                Key::CacheReadInputTokens => counts.cache_read = Some(map.next_value()?),
                Key::CacheCreationInputTokens => counts.cache_write = Some(map.next_value()?),
                Key::OutputTokensDetails => {
                    counts.thinking = map.next_value::<Object<Details>>()?.0.and_then(|d| d.0);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(counts)
    }
}

/// `output_tokens_details`: its `thinking_tokens`.
#[derive(Default)]
struct Details<'a>(Option<&'a RawValue>);

impl<'de: 'a, 'a> FromEntries<'de> for Details<'a> {
    fn entries<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut details = Details::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::ThinkingTokens => details.0 = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(details)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Field<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for FieldVisitor<'a> {
            type Value = Field<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Field<'a>, E> {
                Ok(Field::Text(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Field<'a>, E> {
                Ok(Field::Text(Cow::Owned(text.to_string())))
            }
            fn visit_string<E>(self, text: String) -> Result<Field<'a>, E> {
                Ok(Field::Text(Cow::Owned(text)))
            }
            fn visit_bool<E>(self, b: bool) -> Result<Field<'a>, E> {
                Ok(Field::Bool(b))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Field<'a>, E> {
                Ok(Field::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Field<'a>, E> {
                Ok(Field::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Field<'a>, E> {
                Ok(Field::Other)
            }
            fn visit_unit<E>(self) -> Result<Field<'a>, E> {
                Ok(Field::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Field<'a>, A::Error> {
                IgnoredAny.visit_seq(seq).map(|_| Field::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Field<'a>, A::Error> {
                IgnoredAny.visit_map(map).map(|_| Field::Other)
            }
        }
        deserializer.deserialize_any(FieldVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRANSCRIPT: &str = r#"{"type":"user","message":{"role":"user","content":"Audit refunds"},"timestamp":"2026-11-25T17:37:47.443Z"}
{"type":"attachment","attachment":{"type":"hook_success"}}
{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"text","text":"Looking."}],"usage":{"input_tokens":500,"output_tokens":1,"cache_read_input_tokens":100,"cache_creation_input_tokens":7}},"timestamp":"2026-11-25T17:37:48.000Z"}
{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":500,"output_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":7,"output_tokens_details":{"thinking_tokens":3}}},"timestamp":"2026-11-25T17:37:48.001Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a b"}]}}
{"type":"assistant","message":{"id":"msg_2","model":"claude-opus-5-5","content":[{"type":"text","text":"3 issues."}],"usage":{"input_tokens":600,"output_tokens":4}}}
{"type":"assista
"#;

    #[test]
    fn a_line_cut_after_a_closing_brace_is_still_skipped() {
        // Cut after an inner object's brace: it begins with `{` and ends with `}`.
        let text = concat!(
            r#"{"isSidechain":false,"sessionId":"s","type":"user","message":{"content":"Fix it"},"timestamp":"2026-01-10T09:00:07.000Z"}"#,
            "\n",
            r#"{"agentId":[{"type":"text","text":"Hi"}],"sessionId":[{"type":"text","text":"Hi"}"#,
            "\n",
            r#"{"a":"\"}"}"#,
            "\n",
            r#"{"a":"}\\"}"#,
        );
        assert_eq!(read(text.as_bytes(), Place::default()).skipped, 1);
        for (line, is_whole) in [
            ("", true),
            ("  {} ", true),
            (r#"{"a":{"b":"}"}}"#, true),
            (r#"{"a":{"b":"}"}"#, false),
            (r#"{"a":"\"#, false),
            (r#"{"a":"\"}"#, false),
            ("{}{}", false),
            ("[{}]", false),
        ] {
            assert_eq!(whole(line.as_bytes()), is_whole, "{line}");
        }
    }

    /// The same response counted from a parse of every line into JSON values.
    fn every_line_parsed(text: &str) -> (usize, Vec<(String, Tokens)>) {
        let lines = crate::spent::jsonl::parse(text);
        let mut out: Vec<(String, Tokens)> = Vec::new();
        for r in &lines.records {
            let (Some("assistant"), Some(id), Some(usage)) = (
                r.get("type").and_then(Value::as_str),
                r.pointer("/message/id").and_then(Value::as_str),
                r.pointer("/message/usage"),
            ) else {
                continue;
            };
            let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
            let tokens = Tokens {
                input: n(usage.get("input_tokens")),
                output: n(usage.get("output_tokens")),
                cache_read: n(usage.get("cache_read_input_tokens")),
                cache_write: n(usage.get("cache_creation_input_tokens")),
                thinking: n(usage.pointer("/output_tokens_details/thinking_tokens")),
            };
            match out.iter_mut().find(|(known, _)| known == id) {
                Some(known) => known.1 = tokens,
                None => out.push((id.to_string(), tokens)),
            }
        }
        (lines.skipped, out)
    }

    #[test]
    fn each_response_counts_once_with_its_last_lines_usage_and_a_cut_line_is_skipped() {
        let usage = read(TRANSCRIPT.as_bytes(), Place::default());
        assert_eq!(usage.skipped, 1);
        assert_eq!(usage.responses.len(), 2);
        let mut total = Tokens::default();
        for r in &usage.responses {
            total.add(&r.tokens);
        }
        assert_eq!(
            total,
            Tokens {
                input: 1100,
                output: 14,
                cache_read: 100,
                cache_write: 7,
                thinking: 3
            }
        );
        assert_eq!(usage.responses[0].time, Some(1_795_628_268_000));
        let (skipped, parsed) = every_line_parsed(TRANSCRIPT);
        assert_eq!(skipped, usage.skipped);
        let read: Vec<_> = usage
            .responses
            .iter()
            .map(|r| (r.id.clone(), r.tokens))
            .collect();
        assert_eq!(read, parsed);
        assert_eq!(usage.prompt.as_deref(), Some("Audit refunds"));
    }

    #[test]
    fn fields_of_other_types_read_as_absent_and_the_last_of_a_repeated_key_wins() {
        let text = concat!(
            r#"{"sessionId":7,"isSidechain":"no","timestamp":null,"message":[1,{"a":2}],"type":"user"}"#,
            "\n",
            r#"{"sessionId":"","isSidechain":false,"agentId":"","message":"x","type":"user","timestamp":"2026-11-25T17:37:47Z"}"#,
            "\n",
            r#"{"sessionId":"s1","type":"assistant","type":"user","message":{"content":{"no":1},"content":[{"type":"image"},{"type":"text","text":"\n  Fix it  \nplease"}]}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m","usage":{"input_tokens":-1,"output_tokens":2.5}},"requestId":"r"}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m2","model":"<synthetic>","usage":{"input_tokens":1}}}"#,
        );
        let usage = read(text.as_bytes(), Place::default());
        assert_eq!(usage.skipped, 0);
        assert_eq!(usage.session_id.as_deref(), Some("s1"));
        assert_eq!(usage.created, Some(1_795_628_267_000));
        assert_eq!(usage.sidechain, Some((false, None)));
        assert_eq!(usage.agent_id, None);
        assert_eq!(usage.prompt.as_deref(), Some("Fix it"));
        assert_eq!(usage.responses.len(), 1);
        assert_eq!(usage.responses[0].request, "r");
        assert_eq!(
            usage.responses[0].bad_counts,
            ["input_tokens -1", "output_tokens 2.5"]
        );
    }

    #[test]
    fn lines_without_usage_are_read_until_the_facts_are_known_then_only_checked_whole() {
        let text = concat!(
            r#"{"sessionId":"s","isSidechain":false,"type":"user","message":{"content":"Go"},"timestamp":"2026-11-25T17:37:47Z"}"#,
            "\n",
            // Not JSON but whole: not read, so not counted.
            r#"{"type":"user","message":{"content":tru}}"#,
            "\n",
            // Cut short: counted.
            r#"{"type":"user","message":{"con"#,
            "\n \r\n",
            "{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"usage\":{\"output_tokens\":3},\"content\":\"\u{fffd}\"}}\r\n",
        );
        let mut bytes = text.as_bytes().to_vec();
        bytes
            .extend_from_slice(b"{\"type\":\"assistant\",\"message\":{\"id\":\"n\",\"usage\":{}}}");
        let usage = read(&bytes, Place::default());
        assert_eq!(usage.skipped, 1);
        assert_eq!(usage.responses.len(), 2);
        assert!(!usage.not_utf8);
        // Not UTF-8, in a line that is not read: said all the same.
        let mut bytes = text.as_bytes().to_vec();
        bytes.extend_from_slice(b"{\"type\":\"user\",\"x\":\"\xff\"}");
        assert!(read(&bytes, Place::default()).not_utf8);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Any JSON value a field may hold in a damaged or foreign file.
    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(|f| json!(f)),
            prop::sample::select(vec![
                "user",
                "assistant",
                "",
                "s2",
                "<synthetic>",
                "\n x \n"
            ])
            .prop_map(Value::from),
            "[a-z0-9:.T-]{0,24}".prop_map(Value::from),
            // What a line's braces are counted past.
            r#"[{}\[\]"\\ a]{0,8}"#.prop_map(Value::from),
            Just(json!({})),
            Just(json!([{"type": "text", "text": "Hi"}])),
        ]
    }

    /// A line: one of Claude Code's line shapes, with its leaves replaced by any values; or a
    /// line cut short.
    fn any_line() -> impl Strategy<Value = String> {
        let shapes = prop_oneof![
            Just(
                json!({"parentUuid": null, "isSidechain": false, "sessionId": "s", "type": "user",
                "message": {"role": "user", "content": "Fix it"}, "timestamp": "2026-01-10T09:00:07.000Z"})
            ),
            Just(
                json!({"isSidechain": true, "agentId": "a1", "sessionId": "s", "isMeta": true, "type": "user",
                "message": {"content": [{"type": "image"}, {"type": "text", "text": "Look"}]}})
            ),
            Just(
                json!({"isSidechain": false, "sessionId": "s", "type": "assistant",
                "message": {"model": "claude-x", "id": "msg_1", "content": [{"type": "text", "text": "a"}],
                    "usage": {"input_tokens": 3, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 7,
                        "output_tokens": 1, "output_tokens_details": {"thinking_tokens": 1}}},
                "requestId": "req_1", "timestamp": "2026-01-10T09:00:08.000Z"})
            ),
            Just(
                json!({"type": "assistant", "message": {"id": "msg_2", "model": "claude-x",
                "usage": {"input_tokens": 1, "output_tokens": 9}}, "requestId": "req_2"})
            ),
            Just(json!({"type": "system", "subtype": "x", "content": "usage"})),
        ];
        (
            shapes,
            prop::collection::vec(any_value(), 0..5),
            any::<bool>(),
        )
            .prop_map(|(mut line, mut values, cut)| {
                fn replace(v: &mut Value, values: &mut Vec<Value>) {
                    match v {
                        Value::Object(map) => map.values_mut().for_each(|v| replace(v, values)),
                        Value::Array(items) => items.iter_mut().for_each(|v| replace(v, values)),
                        leaf => {
                            if let Some(new) = values.pop() {
                                *leaf = new;
                            }
                        }
                    }
                }
                replace(&mut line, &mut values);
                let text = line.to_string();
                if cut {
                    text[..text.len() / 2].to_string()
                } else {
                    text
                }
            })
    }

    /// The facts and responses of `text` as read when every line was parsed into JSON values.
    fn every_line_parsed(text: &str) -> Usage {
        let lines = crate::spent::jsonl::parse(text);
        let records = &lines.records;
        let named = |r: &Value, key: &str| {
            r.get(key)?
                .as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let prompt = records.iter().find_map(|r| {
            let flag = |key: &str| r.get(key).and_then(Value::as_bool) == Some(true);
            if r.get("type")?.as_str()? != "user" || flag("isSidechain") || flag("isMeta") {
                return None;
            }
            let text = match r.get("message")?.get("content")? {
                Value::String(text) => text.as_str(),
                Value::Array(parts) => parts.iter().find_map(|p| {
                    (p.get("type")?.as_str()? == "text").then_some(())?;
                    p.get("text")?.as_str()
                })?,
                _ => return None,
            };
            Some(
                text.lines()
                    .find(|l| !l.trim().is_empty())?
                    .trim()
                    .to_string(),
            )
        });
        let mut responses: Vec<Response> = Vec::new();
        for r in records {
            if r.get("type").and_then(Value::as_str) != Some("assistant") {
                continue;
            }
            let Some(message) = r.get("message") else {
                continue;
            };
            let (Some(id), Some(usage)) = (
                message.get("id").and_then(Value::as_str),
                message.get("usage").filter(|u| u.is_object()),
            ) else {
                continue;
            };
            let model = message.get("model").and_then(Value::as_str).unwrap_or("");
            if model == "<synthetic>" {
                continue;
            }
            let request = r
                .get("requestId")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut bad = Vec::new();
            let mut n = |name: &str, v: Option<&Value>| match v {
                None | Some(Value::Null) => 0,
                Some(v) => v.as_u64().unwrap_or_else(|| {
                    bad.push(format!("{name} {v}"));
                    0
                }),
            };
            let tokens = Tokens {
                input: n("input_tokens", usage.get("input_tokens")),
                output: n("output_tokens", usage.get("output_tokens")),
                cache_read: n(
                    "cache_read_input_tokens",
                    usage.get("cache_read_input_tokens"),
                ),
                cache_write: n(
                    "cache_creation_input_tokens",
                    usage.get("cache_creation_input_tokens"),
                ),
                thinking: n(
                    "thinking_tokens",
                    usage
                        .get("output_tokens_details")
                        .and_then(|d| d.get("thinking_tokens")),
                ),
            };
            match responses
                .iter_mut()
                .find(|k| k.id == id && k.request == request)
            {
                Some(known) => {
                    known.tokens = tokens;
                    known.bad_counts = bad;
                }
                None => responses.push(Response {
                    id: id.to_string(),
                    request: request.to_string(),
                    model: model.to_string(),
                    time: r
                        .get("timestamp")
                        .and_then(Value::as_str)
                        .and_then(crate::time::parse_rfc3339_utc),
                    tokens,
                    bad_counts: bad,
                }),
            }
        }
        Usage {
            session_id: records.iter().find_map(|r| named(r, "sessionId")),
            created: records
                .iter()
                .find_map(|r| crate::time::parse_rfc3339_utc(r.get("timestamp")?.as_str()?)),
            sidechain: records.iter().find_map(|r| {
                let on = r.get("isSidechain")?.as_bool()?;
                Some((on, named(r, "agentId")))
            }),
            agent_id: records.iter().find_map(|r| named(r, "agentId")),
            prompt,
            responses,
            skipped: lines.skipped,
            not_utf8: false,
        }
    }

    proptest! {
        /// Whatever the lines hold, what is read of them is what a parse of every line gives:
        /// the responses and their counts, and the facts a main transcript's report uses.
        #[test]
        fn reading_only_what_cost_needs_gives_what_a_full_parse_gives(
            lines in prop::collection::vec(any_line(), 0..10)
        ) {
            let text = lines.join("\n");
            let read = read(text.as_bytes(), Place::default());
            let full = every_line_parsed(&text);
            prop_assert_eq!(&read.responses, &full.responses);
            prop_assert_eq!(read.skipped, full.skipped);
            prop_assert_eq!(&read.session_id, &full.session_id);
            prop_assert_eq!(read.created, full.created);
            prop_assert_eq!(&read.sidechain, &full.sidechain);
            if !matches!(full.sidechain, Some((true, Some(_)))) {
                prop_assert_eq!(&read.prompt, &full.prompt);
            }
        }

        /// A JSON object is whole, and no prefix of it is: a line cut anywhere is found.
        #[test]
        fn an_object_is_whole_and_every_prefix_of_it_is_not(
            object in prop::collection::btree_map("[a-z{}\"\\\\]{0,3}", any_value(), 0..4),
            spaces in " {0,2}",
        ) {
            let json = serde_json::to_string(&object).unwrap();
            let text = format!("{spaces}{json}{spaces}");
            for end in 0..=text.len() {
                let prefix = &text.as_bytes()[..end];
                let holds_it = end >= spaces.len() + json.len();
                prop_assert_eq!(
                    whole(prefix),
                    holds_it || prefix.trim_ascii().is_empty(),
                    "{:?}",
                    String::from_utf8_lossy(prefix)
                );
            }
        }
    }
}

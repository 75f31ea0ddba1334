//! A small JSON document model for the files ctx rewrites (`state.json`): objects keep their key
//! order, numbers keep their exact text, and the writer produces what JavaScript's
//! `JSON.stringify(value, null, 2)` does. serde_json's `Value` would need a hash map per object and
//! an allocation per number; on a state of 10 000 frames this model parses several times faster.
//!
//! [`parse_lazy`] goes further for the one large object of a document (the frames of a state):
//! a member whose text is already exactly what the writer would produce is not built into a
//! [`Json`] at all but kept as its range of the text, so that an unchanged member costs one scan
//! to read and one copy to write.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::ops::Range;

/// Nesting deeper than this is refused (as serde_json does), so hostile input cannot exhaust the stack.
pub const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number's text as it appeared (or as ctx wrote it).
    Number(Box<str>),
    String(String),
    Array(Vec<Json>),
    Object(Object),
}

/// An object: members in insertion order. Lookups are linear, which is the fastest choice for the
/// small objects of a state file; large maps are indexed by their owner.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object {
    entries: Vec<(String, Json)>,
}

impl Object {
    pub fn new() -> Object {
        Object::default()
    }

    pub fn with_capacity(n: usize) -> Object {
        Object {
            entries: Vec::with_capacity(n),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == key)
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    pub fn entry_at(&self, index: usize) -> Option<(&str, &Json)> {
        self.entries.get(index).map(|(k, v)| (k.as_str(), v))
    }

    pub fn value_at_mut(&mut self, index: usize) -> Option<&mut Json> {
        self.entries.get_mut(index).map(|(_, v)| v)
    }

    /// Sets `key`: in place when present (JavaScript keeps a key's position), else at the end.
    pub fn insert(&mut self, key: &str, value: Json) {
        match self.get_mut(key) {
            Some(slot) => *slot = value,
            None => self.entries.push((key.to_string(), value)),
        }
    }

    /// Appends a member without looking for an existing one; the caller knows the key is new.
    pub fn push_new(&mut self, key: String, value: Json) {
        self.entries.push((key, value));
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let index = self.position(key)?;
        Some(self.entries.remove(index).1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Json)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }
}

impl Json {
    pub fn str(text: &str) -> Json {
        Json::String(text.to_string())
    }

    pub fn int(n: i64) -> Json {
        Json::Number(n.to_string().into_boxed_str())
    }

    pub fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> Json {
        Json::Array(items.into_iter().map(Json::str).collect())
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Json::String(_))
    }

    /// An integer without fraction or exponent.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// The value as serde_json's model, for JSON output documents.
    /// One line of JSON, numbers spelled as in the file.
    pub fn to_compact(&self) -> String {
        serde_json::to_string(self).expect("a Json value serializes")
    }
}

/// Through serde_json's `RawValue` a number is written as its text: `1e400`, `-0` and `1.0`
/// stay what the file says, where a conversion to `f64` would make them `null`, `0` and `1`.
impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::Number(text) => serde_json::value::RawValue::from_string(text.to_string())
                .map_err(S::Error::custom)?
                .serialize(serializer),
            Json::String(s) => serializer.serialize_str(s),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(object) => object.serialize(serializer),
        }
    }
}

impl serde::Serialize for Object {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in self.iter() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// A syntax error with its 1-based position.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: &'static str,
}

/// Parses one JSON document; anything but whitespace after it is an error. Duplicate keys: the
/// last value wins, at the first key's position (as JavaScript's `JSON.parse`).
pub fn parse(text: &str) -> Result<Json, SyntaxError> {
    let mut parser = Parser::new(text, None);
    parser.document()
}

/// A member value of an object read by [`parse_lazy`].
#[derive(Debug, Clone, PartialEq)]
pub enum Lazy {
    /// The value's range in the text, which is exactly what [`write_value`] writes for it at the
    /// member's level: copying the range equals parsing and re-writing the value.
    Raw(Range<usize>),
    /// Any other value (other layout, escapes the writer does not use, duplicate keys), parsed.
    Parsed(Json),
}

/// The members of the object [`parse_lazy`] was asked for, in order, with duplicate keys merged as
/// [`parse`] merges them; `index` maps each key to its position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LazyObject {
    pub members: Vec<(String, Lazy)>,
    pub index: KeyIndex,
}

/// The position of each key of a large object. Keys come from files, so the hash is seeded per
/// process; foldhash rather than the standard SipHash because hashing 10 000 frame ids was a
/// tenth of reading a state.
pub type KeyIndex = HashMap<String, usize, foldhash::fast::RandomState>;

/// How the object [`parse_lazy_with`] was asked for was read.
#[derive(Debug, Clone, PartialEq)]
pub enum LazyRead {
    /// By the caller's [`ObjectEnd`], which took the object at this range of the text.
    ByCaller(Range<usize>),
    /// Member by member.
    Members(LazyObject),
}

/// [`parse`], except that when the document is an object whose member `key` is an object, that
/// member is returned as a [`LazyObject`] and left as `null` in the document (the placeholder keeps
/// its position). The same text is accepted and rejected, with the same errors, as by [`parse`].
pub fn parse_lazy<'a>(
    text: &'a str,
    key: &'a str,
) -> Result<(Json, Option<LazyObject>), SyntaxError> {
    let bytes = text.as_bytes();
    let mut keys = Vec::new();
    let (value, read) = parse_lazy_with(text, key, 0, &mut |_, _| None, &mut |_, start, level| {
        canonical_end(bytes, start, level, &mut keys)
    })?;
    let object = read.map(|read| match read {
        LazyRead::Members(object) => object,
        LazyRead::ByCaller(_) => unreachable!("this caller reads no object itself"),
    });
    Ok((value, object))
}

/// Lets the caller read the whole lazily read object itself: called with the position of its
/// `{` and its indentation level, it returns where the object ends when the caller took all of
/// it (its text must then be valid JSON and exactly what [`write_value`] writes for it, as for
/// [`MemberEnd`]), and `None` to have it read member by member.
pub type ObjectEnd<'m> = dyn FnMut(usize, usize) -> Option<usize> + 'm;

/// Decides which members of the lazily read object are kept as text: called with a member's key
/// (unescaped), the position of its value and the value's indentation level, it returns where the
/// value ends when its text is exactly what [`write_value`] writes for it at that level (as
/// [`canonical_end`] decides, or more strictly), and `None` to have the value parsed.
pub type MemberEnd<'m> = dyn FnMut(&str, usize, usize) -> Option<usize> + 'm;

/// [`parse_lazy`] with the caller taking part: `object_end` may read the whole object itself
/// (a caller that knows the layout it usually has can read it faster than member by member);
/// when it does not, `member_end` decides which members stay text (a caller that knows what its
/// members hold can check and read them in the same pass). Room for `expected` members is made
/// at once: growing the index and the list of a large object step by step costs more than
/// reserving room that stays unused (and untouched).
pub fn parse_lazy_with<'a>(
    text: &'a str,
    key: &'a str,
    expected: usize,
    object_end: &'a mut ObjectEnd<'_>,
    member_end: &'a mut MemberEnd<'_>,
) -> Result<(Json, Option<LazyRead>), SyntaxError> {
    let mut parser = Parser::new(
        text,
        Some(LazyKey {
            key,
            object_end,
            member_end,
        }),
    );
    parser.lazy_expected = expected;
    let value = parser.document()?;
    Ok((value, parser.lazy))
}

/// The top-level member [`parse_lazy_with`] reads lazily, and the caller's parts in reading it.
struct LazyKey<'a, 'm> {
    key: &'a str,
    object_end: &'a mut ObjectEnd<'m>,
    member_end: &'a mut MemberEnd<'m>,
}

struct Parser<'a, 'm> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// The top-level member to read lazily, with what decides which of its members stay text,
    /// and what was read for it (the last occurrence wins).
    lazy_key: Option<LazyKey<'a, 'm>>,
    /// How many members the lazily read object is expected to have.
    lazy_expected: usize,
    lazy: Option<LazyRead>,
}

/// Objects with more members than this get a hash index while parsing to find duplicate keys.
const LINEAR_DEDUP_LIMIT: usize = 32;

impl<'a, 'm> Parser<'a, 'm> {
    fn new(text: &'a str, lazy_key: Option<LazyKey<'a, 'm>>) -> Parser<'a, 'm> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            lazy_key,
            lazy_expected: 0,
            lazy: None,
        }
    }

    fn document(&mut self) -> Result<Json, SyntaxError> {
        self.skip_ws();
        let value = self.value(0)?;
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.error("trailing characters after the document"));
        }
        Ok(value)
    }

    fn error(&self, message: &'static str) -> SyntaxError {
        let consumed = &self.bytes[..self.pos.min(self.bytes.len())];
        let line = consumed.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = consumed
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&consumed[line_start..])
            .chars()
            .count()
            + 1;
        SyntaxError {
            line,
            column,
            message,
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn value(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        match self.peek() {
            None => Err(self.error("unexpected end of input, expected a value")),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
        }
    }

    fn literal(&mut self, word: &'static str, value: Json) -> Result<Json, SyntaxError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn number(&mut self) -> Result<Json, SyntaxError> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while let Some(b'0'..=b'9') = p.peek() {
                p.pos += 1;
            }
            p.pos > from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else if !digits(self) {
            return Err(self.error("invalid number"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !digits(self) {
                return Err(self.error("invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.error("invalid number"));
            }
        }
        Ok(Json::Number(self.text[start..self.pos].into()))
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            let start = self.pos;
            self.pos = string_stop(self.bytes, self.pos);
            // The run starts and stops at ASCII bytes, so both ends are character boundaries.
            out.push_str(&self.text[start..self.pos]);
            match self.peek() {
                None => return Err(self.error("unexpected end of input inside a string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(self.error("control character inside a string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), SyntaxError> {
        let Some(b) = self.peek() else {
            return Err(self.error("unexpected end of input inside a string"));
        };
        self.pos += 1;
        let ch = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4()?;
                if (0xD800..0xDC00).contains(&first) && self.bytes[self.pos..].starts_with(b"\\u") {
                    let save = self.pos;
                    self.pos += 2;
                    let second = self.hex4()?;
                    if (0xDC00..0xE000).contains(&second) {
                        let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                        char::from_u32(code).unwrap_or('\u{FFFD}')
                    } else {
                        self.pos = save;
                        '\u{FFFD}'
                    }
                } else {
                    // A lone surrogate has no UTF-8 form; JavaScript keeps it, ctx substitutes U+FFFD.
                    char::from_u32(first).unwrap_or('\u{FFFD}')
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid escape in a string"));
            }
        };
        out.push(ch);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let Some(digits) = self.bytes.get(self.pos..self.pos + 4) else {
            return Err(self.error("invalid \\u escape"));
        };
        let mut code = 0;
        for &d in digits {
            let v = (d as char)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid \\u escape"))?;
            code = code * 16 + v;
        }
        self.pos += 4;
        Ok(code)
    }

    fn array(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                None => return Err(self.error("unexpected end of input inside an array")),
                Some(_) => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.pos += 1;
        let mut object = Object::new();
        let mut index: Option<KeyIndex> = None;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(object));
        }
        loop {
            let key = self.member_key()?;
            let value = if depth == 1 && self.lazy_key.as_ref().is_some_and(|k| k.key == key) {
                if self.peek() == Some(b'{') {
                    let start = self.pos;
                    let lazy_key = self.lazy_key.as_mut().expect("reading the lazy member");
                    self.lazy = Some(match (lazy_key.object_end)(start, depth) {
                        Some(end) => {
                            self.pos = end;
                            LazyRead::ByCaller(start..end)
                        }
                        None => LazyRead::Members(self.lazy_object(depth + 1)?),
                    });
                    Json::Null
                } else {
                    self.lazy = None;
                    self.value(depth)?
                }
            } else {
                self.value(depth)?
            };
            let existing = match &mut index {
                Some(index) => index.get(&key).copied(),
                None => object.position(&key),
            };
            match existing {
                Some(at) => *object.value_at_mut(at).expect("index in range") = value,
                None => {
                    if let Some(index) = &mut index {
                        index.insert(key.clone(), object.len());
                    }
                    object.push_new(key, value);
                    if index.is_none() && object.len() > LINEAR_DEDUP_LIMIT {
                        index = Some(
                            object
                                .keys()
                                .enumerate()
                                .map(|(i, k)| (k.to_string(), i))
                                .collect(),
                        );
                    }
                }
            }
            if !self.more_members()? {
                return Ok(Json::Object(object));
            }
        }
    }
}

impl Parser<'_, '_> {
    /// The key of the next member and its `:`, with the whitespace around them.
    fn member_key(&mut self) -> Result<String, SyntaxError> {
        self.skip_ws();
        match self.peek() {
            Some(b'"') => {}
            None => return Err(self.error("unexpected end of input inside an object")),
            Some(_) => return Err(self.error("expected a string key")),
        }
        let key = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.error("expected ':' after a key"));
        }
        self.pos += 1;
        self.skip_ws();
        Ok(key)
    }

    /// After a member: `,` (another member follows: true) or `}` (the object ends: false).
    fn more_members(&mut self) -> Result<bool, SyntaxError> {
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            None => Err(self.error("unexpected end of input inside an object")),
            Some(_) => Err(self.error("expected ',' or '}'")),
        }
    }
}

impl Parser<'_, '_> {
    /// [`Parser::object`] for the lazily read object at `depth`: each member value is kept as
    /// its text when that text is canonical, else parsed. Whitespace, separators and errors are
    /// handled exactly as in `object`, and a value that is not canonical goes through
    /// [`Parser::value`] from its first byte, so every error is the one `parse` reports.
    fn lazy_object(&mut self, depth: usize) -> Result<LazyObject, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.pos += 1;
        let mut object = LazyObject {
            members: Vec::with_capacity(self.lazy_expected),
            index: KeyIndex::with_capacity_and_hasher(self.lazy_expected, Default::default()),
        };
        // Member values sit one level deeper than the object, which is at `depth - 1`.
        let level = depth;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(object);
        }
        loop {
            let key = self.member_key()?;
            let start = self.pos;
            let lazy_key = self.lazy_key.as_mut().expect("reading the lazy member");
            let value = match (lazy_key.member_end)(&key, start, level) {
                Some(end) => {
                    self.pos = end;
                    Lazy::Raw(start..end)
                }
                None => Lazy::Parsed(self.value(depth)?),
            };
            match object.index.entry(key) {
                Entry::Occupied(entry) => object.members[*entry.get()].1 = value,
                Entry::Vacant(entry) => {
                    object.members.push((entry.key().clone(), value));
                    entry.insert(object.members.len() - 1);
                }
            }
            if !self.more_members()? {
                return Ok(object);
            }
        }
    }
}

/// Canonical text nested deeper than this is left to the full parser (whose limit is higher).
const CANONICAL_MAX_LEVEL: usize = 32;
/// Canonical objects with more members than this are left to the full parser, which finds
/// duplicate keys with a hash index instead of comparing every pair.
pub(crate) const CANONICAL_MAX_KEYS: usize = 32;

/// Where the JSON value starting at `pos` ends, when its text is valid and exactly what
/// [`write_value`] writes for it at indentation `level`: two-space indents, `": "` after keys,
/// `[]` and `{}` when empty, strings escaped as [`write_string`] escapes them, no duplicate keys.
/// Numbers count as canonical because the model keeps their text. `None` for anything else,
/// invalid text included: the caller then runs the full parser, which reports the error.
/// `keys` is scratch space for duplicate detection (the key spans of the enclosing objects).
pub fn canonical_end(
    bytes: &[u8],
    pos: usize,
    level: usize,
    keys: &mut Vec<Range<usize>>,
) -> Option<usize> {
    match *bytes.get(pos)? {
        b'"' => canonical_string_end(bytes, pos),
        b't' => literal_end(bytes, pos, b"true"),
        b'f' => literal_end(bytes, pos, b"false"),
        b'n' => literal_end(bytes, pos, b"null"),
        b'-' | b'0'..=b'9' => number_end(bytes, pos),
        b'[' if bytes.get(pos + 1) == Some(&b']') => Some(pos + 2),
        b'{' if bytes.get(pos + 1) == Some(&b'}') => Some(pos + 2),
        _ if level >= CANONICAL_MAX_LEVEL => None,
        b'[' => {
            let mut at = pos + 1;
            loop {
                at = indent_end(bytes, at, level + 1)?;
                at = canonical_end(bytes, at, level + 1, keys)?;
                match *bytes.get(at)? {
                    b',' => at += 1,
                    b'\n' => {
                        at = indent_end(bytes, at, level)?;
                        return (bytes.get(at) == Some(&b']')).then_some(at + 1);
                    }
                    _ => return None,
                }
            }
        }
        b'{' => {
            let base = keys.len();
            let end = canonical_object_end(bytes, pos, level, keys);
            keys.truncate(base);
            end
        }
        _ => None,
    }
}

/// [`canonical_end`] for a non-empty object; pushes its keys on `keys` (the caller truncates).
fn canonical_object_end(
    bytes: &[u8],
    pos: usize,
    level: usize,
    keys: &mut Vec<Range<usize>>,
) -> Option<usize> {
    let base = keys.len();
    let mut at = pos + 1;
    loop {
        at = indent_end(bytes, at, level + 1)?;
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = canonical_string_end(bytes, at)?;
        let key = at + 1..key_end - 1;
        // Canonical escaping is one-to-one, so equal keys have equal text.
        if keys.len() - base >= CANONICAL_MAX_KEYS
            || keys[base..]
                .iter()
                .any(|k| bytes[k.clone()] == bytes[key.clone()])
        {
            return None;
        }
        keys.push(key);
        at = key_end;
        if bytes.get(at..at + 2) != Some(b": ") {
            return None;
        }
        at = canonical_end(bytes, at + 2, level + 1, keys)?;
        match *bytes.get(at)? {
            b',' => at += 1,
            b'\n' => {
                at = indent_end(bytes, at, level)?;
                return (bytes.get(at) == Some(&b'}')).then_some(at + 1);
            }
            _ => return None,
        }
    }
}

/// After a newline and `level` two-space indents at `pos`.
/// Every line of a state starts with one, so the usual depths (up to four levels) are checked as
/// one word.
pub(crate) fn indent_end(bytes: &[u8], pos: usize, level: usize) -> Option<usize> {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let width = 2 * level;
    let end = pos + 1 + width;
    if bytes.get(pos) != Some(&b'\n') {
        return None;
    }
    if width <= 8
        && let Some(word) = bytes.get(pos + 1..pos + 9)
    {
        let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        let mask = u64::MAX.checked_shr(64 - 8 * width as u32).unwrap_or(0);
        return ((word ^ SPACES) & mask == 0).then_some(end);
    }
    let run = bytes.get(pos + 1..end)?;
    run.iter().all(|&b| b == b' ').then_some(end)
}

pub(crate) fn literal_end(bytes: &[u8], pos: usize, word: &[u8]) -> Option<usize> {
    bytes[pos..].starts_with(word).then_some(pos + word.len())
}

/// The end of a number with the grammar [`Parser::number`] accepts.
pub(crate) fn number_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let digits = |at: usize| {
        let n = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (n > 0).then_some(at + n)
    };
    let mut at = pos;
    if bytes.get(at) == Some(&b'-') {
        at += 1;
    }
    at = if bytes.get(at) == Some(&b'0') {
        at + 1
    } else {
        digits(at)?
    };
    if bytes.get(at) == Some(&b'.') {
        at = digits(at + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(at) {
        at += 1;
        if let Some(b'+' | b'-') = bytes.get(at) {
            at += 1;
        }
        at = digits(at)?;
    }
    Some(at)
}

/// The end of the string at `pos` when it is escaped exactly as [`write_string`] escapes.
pub(crate) fn canonical_string_end(bytes: &[u8], pos: usize) -> Option<usize> {
    if bytes.get(pos) != Some(&b'"') {
        return None;
    }
    let mut at = pos + 1;
    loop {
        at = string_stop(bytes, at);
        match *bytes.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => match *bytes.get(at + 1)? {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
                b'u' => {
                    // Only control characters without a short escape are written as \u00xx.
                    let hex = bytes.get(at + 2..at + 6)?;
                    let low = match hex[3] {
                        d @ b'0'..=b'9' => d - b'0',
                        d @ b'a'..=b'f' => d - b'a' + 10,
                        _ => return None,
                    };
                    let code = match (hex[0], hex[1], hex[2]) {
                        (b'0', b'0', b'0') => low,
                        (b'0', b'0', b'1') => 16 + low,
                        _ => return None,
                    };
                    if matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                        return None;
                    }
                    at += 6;
                }
                _ => return None,
            },
            0..=0x1f => return None,
            _ => at += 1,
        }
    }
}

/// The position of the first `"`, `\\` or control character at or after `at` (the length of
/// `bytes` when there is none). Strings are most of a state's text, so this looks at 8 bytes at a
/// time: a byte-wise test flags the bytes that match, and the lowest flag is always a true match
/// (a false flag can only sit above a true one, from the borrow of the subtraction).
pub fn string_stop(bytes: &[u8], mut at: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_bytes = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let hits = zero_bytes(word ^ (ONES * u64::from(b'"')))
            | zero_bytes(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGH);
        if hits != 0 {
            return at + (hits.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return at;
        }
        at += 1;
    }
    at
}

/// `JSON.stringify(value, null, 2)`.
pub fn to_pretty_string(value: &Json) -> String {
    let mut out = String::with_capacity(4096);
    write_value(&mut out, value, 0);
    out
}

/// `JSON.stringify(object, null, 2)`, without cloning the object into a [`Json`]; `size_hint`
/// is the expected length (e.g. the size of the file the object was read from).
pub fn object_to_pretty_string(object: &Object, size_hint: usize) -> String {
    let mut out = String::with_capacity(size_hint + 4096);
    write_object(&mut out, object, 0);
    out
}

/// A newline and `level` two-space indents.
pub fn indent(out: &mut String, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// `value` as `JSON.stringify(…, null, 2)` writes it when nested `level` deep.
pub fn write_value(out: &mut String, value: &Json, level: usize) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(text) => out.push_str(text),
        Json::String(s) => write_string(out, s),
        Json::Array(items) if items.is_empty() => out.push_str("[]"),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_value(out, item, level + 1);
            }
            indent(out, level);
            out.push(']');
        }
        Json::Object(object) => write_object(out, object, level),
    }
}

/// [`write_value`] for an object.
pub fn write_object(out: &mut String, object: &Object, level: usize) {
    if object.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push('{');
    for (i, (key, item)) in object.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        indent(out, level + 1);
        write_string(out, key);
        out.push_str(": ");
        write_value(out, item, level + 1);
    }
    indent(out, level);
    out.push('}');
}

/// A JSON string as JavaScript writes it: `"` and `\` escaped, control characters as `\b \f \n
/// \r \t` or `\u00xx`, everything else as is.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut run_start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[run_start..i]);
        if escaped.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escaped);
        }
        run_start = i + 1;
    }
    out.push_str(&s[run_start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_in_json_stringify_layout() {
        let text = "{\n  \"a\": [\n    1.50,\n    -0,\n    2e10\n  ],\n  \"b\": {},\n  \"c\": [],\n  \"d\": \"x\\u0001\\n\\\"\\\\/é\u{2028}\"\n}";
        let value = parse(text).unwrap();
        assert_eq!(to_pretty_string(&value), text);
    }

    #[test]
    fn matches_serde_json_on_values() {
        let text = r#"{"a":"\ud83d\ude00 \u00e9\/","b":[true,false,null,{"c":-1.5e-3}]}"#;
        let ours: serde_json::Value =
            serde_json::from_str(&parse(text).unwrap().to_compact()).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn numbers_serialize_as_their_text() {
        let text = r#"{"big":1e400,"zero":-0,"one":1.0,"list":[1.50,2E-3],"s":"\u0001"}"#;
        assert_eq!(
            parse(text).unwrap().to_compact(),
            r#"{"big":1e400,"zero":-0,"one":1.0,"list":[1.50,2E-3],"s":"\u0001"}"#
        );
    }

    #[test]
    fn duplicate_keys_keep_first_position_last_value() {
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        text.push_str("\"k3\":\"last\",\"k39\":0}");
        let value = parse(&text).unwrap();
        let object = value.as_object().unwrap();
        assert_eq!(object.len(), 40);
        assert_eq!(object.entry_at(3), Some(("k3", &Json::str("last"))));
        let small = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(to_pretty_string(&small), "{\n  \"a\": 3,\n  \"b\": 2\n}");
    }

    #[test]
    fn errors_have_positions() {
        let err = parse("{\n  \"a\": tru\n}").unwrap_err();
        assert_eq!(
            (err.line, err.column, err.message),
            (2, 8, "expected a value")
        );
        assert_eq!(
            parse("{} x").unwrap_err().message,
            "trailing characters after the document"
        );
        assert_eq!(
            parse("[1,").unwrap_err().message,
            "unexpected end of input, expected a value"
        );
        assert_eq!(
            parse(&"[".repeat(200)).unwrap_err().message,
            "nested too deeply"
        );
        assert_eq!(
            parse("01").unwrap_err().message,
            "trailing characters after the document"
        );
        assert_eq!(
            parse("\"\\x\"").unwrap_err().message,
            "invalid escape in a string"
        );
        assert!(parse("\"a\nb\"").is_err());
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(parse(r#""\ud800x""#).unwrap(), Json::str("\u{FFFD}x"));
    }

    #[test]
    fn canonical_text_is_the_writer_layout_only() {
        let end = |text: &str, level| canonical_end(text.as_bytes(), 0, level, &mut Vec::new());
        let written = "{\n  \"a\": [\n    1.50,\n    \"x\\u0001\\n\\\"é\"\n  ],\n  \"b\": {},\n  \"c\": []\n}";
        assert_eq!(end(written, 0), Some(written.len()));
        // Nested at level 1, the same object needs its lines indented once more.
        assert_eq!(end(written, 1), None);
        assert_eq!(
            end(&written.replace('\n', "\n  "), 1),
            Some(written.len() + 14)
        );
        // Followed by more text: the value's own end.
        assert_eq!(end("\"a\",\n", 0), Some(3));
        for other in [
            "{\"a\": 1}",
            "{\n  \"a\":1\n}",
            "{\n  \"a\": 1 \n}",
            "{\n   \"a\": 1\n}",
            "{\n  \"a\": 1,\n  \"a\": 2\n}",
            "[ ]",
            "[\n]",
            "\"\\/\"",
            "\"\\u00e9\"",
            "\"\\u000a\"",
            "\"\\u001F\"",
            "\"\\ud83d\\ude00\"",
            "\"a\u{1}\"",
            "\"open",
            "01",
            "-",
            "tru",
        ] {
            let end = end(other, 0);
            assert!(end.is_none() || other == "01", "{other:?}: {end:?}");
        }
        // A number's end is where its grammar ends; what follows is the caller's business.
        assert_eq!(end("01", 0), Some(1));
    }

    #[test]
    fn lazy_parse_keeps_canonical_members_as_text() {
        let text = "{\n  \"frames\": {\n    \"a\": {\n      \"k\": [\n        1\n      ]\n    },\n    \"b\": {\"k\": 1},\n    \"a\": \"again\"\n  },\n  \"x\": 1\n}";
        let (doc, lazy) = parse_lazy(text, "frames").unwrap();
        let lazy = lazy.unwrap();
        assert_eq!(
            doc.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["frames", "x"]
        );
        // The duplicate `a` keeps the first position and takes the last value.
        assert_eq!(lazy.members.len(), 2);
        let Lazy::Raw(range) = &lazy.members[0].1 else {
            panic!("{:?}", lazy.members[0]);
        };
        assert_eq!(&text[range.clone()], "\"again\"");
        assert_eq!(
            lazy.members[1].1,
            Lazy::Parsed(parse("{\"k\": 1}").unwrap())
        );
        assert_eq!(lazy.index["b"], 1);
        // Errors are those of `parse`, wherever they are.
        for bad in [
            "{\"frames\": {\"a\": [1,]}}",
            "{\"frames\": {\"a\": 1 \"b\"}}",
            "{\"frames\": {",
        ] {
            assert_eq!(
                parse_lazy(bad, "frames").unwrap_err(),
                parse(bad).unwrap_err()
            );
        }
    }

    #[test]
    fn indent_end_checks_every_space_of_the_indent() {
        for level in 0..7 {
            let width = 2 * level;
            let line = format!("\n{}\"k\": 1", " ".repeat(width));
            for tail in [line.len(), 1 + width] {
                let bytes = &line.as_bytes()[..tail];
                assert_eq!(indent_end(bytes, 0, level), Some(1 + width), "{line:?}");
                for at in 0..=width {
                    let mut bad = bytes.to_vec();
                    bad[at] = b'x';
                    assert_eq!(indent_end(&bad, 0, level), None, "{bad:?}");
                }
            }
            if width > 0 {
                assert_eq!(indent_end(&line.as_bytes()[..width], 0, level), None);
            }
        }
    }

    #[test]
    fn string_stop_finds_the_first_special_byte() {
        let special = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
        for len in 0..24 {
            for at in 0..len {
                for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    // Bytes around the borrow edges (0x21, 0x5d, 0x80, 0xff) before the stop.
                    let mut bytes: Vec<u8> = (0..len)
                        .map(|i| [0x21, 0x5d, 0x80, 0xff, b'a'][i % 5])
                        .collect();
                    bytes[at] = stop;
                    let expected = bytes.iter().position(|&b| special(b)).unwrap();
                    assert_eq!(string_stop(&bytes, 0), expected, "{bytes:?}");
                }
            }
            assert_eq!(string_stop(&vec![b'a'; len], 0), len);
        }
    }
}

//! Edits of a JSON text that keep every byte they do not change. ctx merges its entries into files
//! that belong to people (Claude Code's `settings.json`): parsing such a file and writing the model
//! back would re-indent a compact file, turn `\ud83d\ude00` into 😀 and a lone `\ud800` into U+FFFD.
//! Here a container is read as the spans of its items, and a rewrite replaces only the text between
//! its brackets, item by item: kept items keep their bytes and the separators before them, new
//! items are written in the layout their neighbours have.
//!
//! The text must be valid JSON (checked by [`crate::json::parse`] first): the reader trusts it.

use std::ops::Range;

use crate::json::{self, Json};

/// One item of a container: an object's member or an array's element.
#[derive(Debug, Clone)]
pub struct Item {
    /// The member's key, decoded (`None` for an array's element).
    pub key: Option<String>,
    /// Where the item starts: its key's opening quote, or its value.
    pub start: usize,
    /// The value's text.
    pub value: Range<usize>,
}

/// An object or array of a JSON text with the spans of its items.
#[derive(Debug, Clone)]
pub struct Container {
    /// The offset of `{` or `[`.
    pub open: usize,
    /// The offset of the matching `}` or `]`.
    pub close: usize,
    pub items: Vec<Item>,
}

/// What becomes of one item in [`Container::rewrite`].
#[derive(Debug, Clone)]
pub enum Keep {
    /// The item as it is.
    Same,
    /// The item with this new value text (its key and the separators around it stay).
    Value(String),
    /// Dropped, with the separator before it (after it, for the first item).
    Drop,
}

impl Container {
    /// The container whose value starts at `at` (after any whitespace), `None` when that value is
    /// not an object or array.
    pub fn read(text: &str, at: usize) -> Option<Container> {
        let bytes = text.as_bytes();
        let open = skip_space(bytes, at);
        let is_object = match bytes.get(open) {
            Some(b'{') => true,
            Some(b'[') => false,
            _ => return None,
        };
        let mut items = Vec::new();
        let mut at = skip_space(bytes, open + 1);
        while !matches!(bytes.get(at), Some(b'}' | b']') | None) {
            let start = at;
            let key = if is_object {
                let key_end = value_end(bytes, at);
                let key = match json::parse(&text[at..key_end]) {
                    Ok(Json::String(key)) => key,
                    _ => return None,
                };
                at = skip_space(bytes, key_end);
                at = skip_space(bytes, at + 1); // the colon
                Some(key)
            } else {
                None
            };
            let end = value_end(bytes, at);
            items.push(Item {
                key,
                start,
                value: at..end,
            });
            at = skip_space(bytes, end);
            if bytes.get(at) == Some(&b',') {
                at = skip_space(bytes, at + 1);
            }
        }
        Some(Container {
            open,
            close: at,
            items,
        })
    }

    /// The first member named `key`.
    pub fn member(&self, key: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.key.as_deref() == Some(key))
    }

    /// The first key that appears twice, if any: which of two a reader takes is its own choice.
    pub fn duplicate_key(&self) -> Option<&str> {
        self.items.iter().enumerate().find_map(|(n, item)| {
            let key = item.key.as_deref()?;
            self.items[..n]
                .iter()
                .any(|i| i.key.as_deref() == Some(key))
                .then_some(key)
        })
    }

    /// The first key that appears twice in this container or in any container within it, with
    /// where: the path to the object that holds it (`"a"[0]`, empty for this container itself).
    /// Readers differ on which of two keys counts (ctx's reader takes the first, Claude Code and
    /// Codex the last), so an edit of anything in such a file could edit what the agent never reads.
    pub fn duplicate_key_within(&self, text: &str) -> Option<(String, String)> {
        if let Some(key) = self.duplicate_key() {
            return Some((String::new(), key.to_string()));
        }
        for (n, item) in self.items.iter().enumerate() {
            let Some(inner) = Container::read(text, item.value.start) else {
                continue;
            };
            if let Some((path, key)) = inner.duplicate_key_within(text) {
                let mut at = String::new();
                match &item.key {
                    Some(key) => json::write_string(&mut at, key),
                    None => at = format!("[{n}]"),
                }
                return Some((at + &path, key));
            }
        }
        None
    }

    /// The container's new text (from its opening to its closing bracket): each item kept,
    /// changed or dropped as `keep` says (one entry per item), then `added` appended, each a key
    /// (for objects) and a value, laid out as the container's items are.
    pub fn rewrite(&self, text: &str, keep: &[Keep], added: &[(Option<&str>, &Json)]) -> String {
        debug_assert_eq!(keep.len(), self.items.len());
        let layout = Layout::of(text, self);
        let mut inner = String::new();
        let mut first = true;
        for (n, (item, keep)) in self.items.iter().zip(keep).enumerate() {
            let value = match keep {
                Keep::Drop => continue,
                Keep::Same => &text[item.value.clone()],
                Keep::Value(value) => value.as_str(),
            };
            // The first item kept takes the whitespace after the bracket; the others keep the
            // separator they had.
            let before = if first || n == 0 {
                &text[self.open + 1..self.items[0].start]
            } else {
                &text[self.items[n - 1].value.end..item.start]
            };
            inner.push_str(before);
            inner.push_str(&text[item.start..item.value.start]);
            inner.push_str(value);
            first = false;
        }
        for (key, value) in added {
            if first && !self.items.is_empty() {
                inner.push_str(&text[self.open + 1..self.items[0].start]);
            } else if first {
                inner.push_str(&layout.first);
            } else {
                inner.push_str(&layout.separator);
            }
            if let Some(key) = key {
                json::write_string(&mut inner, key);
                inner.push_str(&layout.colon);
            }
            inner.push_str(&layout.render(value));
            first = false;
        }
        if !first {
            match self.items.last() {
                Some(last) => inner.push_str(&text[last.value.end..self.close]),
                None => inner.push_str(&layout.last),
            }
        }
        let mut out = String::with_capacity(inner.len() + 2);
        out.push_str(&text[self.open..=self.open]);
        out.push_str(&inner);
        out.push_str(&text[self.close..=self.close]);
        out
    }
}

/// How a container lays out its items, learned from the text, for the items ctx adds.
struct Layout {
    /// The document's line break: `\r\n` in a file written with them, so that the lines ctx adds
    /// end as the user's do.
    newline: &'static str,
    /// Multi-line: each item on its own line at `indent`, nested levels one `unit` deeper.
    multiline: bool,
    indent: String,
    unit: String,
    /// Before an added item that follows another.
    separator: String,
    /// Before the first item of an empty container, and after the last.
    first: String,
    last: String,
    /// Between a key and its value.
    colon: String,
}

impl Layout {
    fn of(text: &str, container: &Container) -> Layout {
        let bytes = text.as_bytes();
        let unit = indent_unit(text);
        let line_indent = line_indent(text, container.open).to_string();
        let inside = &text[container.open..container.close];
        // An empty container spreads over lines when the document does.
        let multiline = if container.items.is_empty() {
            text.trim_end().contains('\n')
        } else {
            inside.contains('\n')
        };
        let indent = match container.items.first() {
            Some(item) if multiline => line_indent_if_first(text, item.start)
                .unwrap_or_else(|| format!("{line_indent}{unit}")),
            _ => format!("{line_indent}{unit}"),
        };
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let (doc_colon, doc_comma) = punctuation(text);
        let colon = match container.items.first() {
            Some(item) if item.key.is_some() => {
                let key_end = value_end(bytes, item.start);
                text[key_end..item.value.start].to_string()
            }
            _ if multiline => ": ".to_string(),
            _ => doc_colon.clone(),
        };
        let separator = if multiline {
            format!(",{newline}{indent}")
        } else {
            match container.items.get(1) {
                Some(second) => text[container.items[0].value.end..second.start].to_string(),
                None => doc_comma,
            }
        };
        let (first, last) = if multiline {
            (
                format!("{newline}{indent}"),
                format!("{newline}{line_indent}"),
            )
        } else {
            (String::new(), String::new())
        };
        Layout {
            newline,
            multiline,
            indent,
            unit,
            separator,
            first,
            last,
            colon,
        }
    }

    /// `value` in this layout: pretty, one level per `unit` below `indent`; or on one line.
    fn render(&self, value: &Json) -> String {
        if !self.multiline {
            let compact = value.to_compact();
            return if self.colon.ends_with(' ') {
                spaced(&compact)
            } else {
                compact
            };
        }
        let pretty = json::to_pretty_string(value);
        let mut out = String::with_capacity(pretty.len() * 2);
        for (n, line) in pretty.split('\n').enumerate() {
            if n > 0 {
                out.push_str(self.newline);
                out.push_str(&self.indent);
                let body = line.trim_start_matches(' ');
                let depth = (line.len() - body.len()) / 2;
                for _ in 0..depth {
                    out.push_str(&self.unit);
                }
                out.push_str(body);
            } else {
                out.push_str(line);
            }
        }
        out
    }
}

/// The bytes of `text` outside its strings, with their offsets: what a scanner of JSON's own
/// punctuation (or of comments, which JSON does not have) looks at. A string's quotes and
/// contents are left out, escaped quotes included.
pub fn outside_strings(text: &str) -> impl Iterator<Item = (usize, u8)> + '_ {
    let (mut in_string, mut escaped) = (false, false);
    text.bytes().enumerate().filter(move |&(_, b)| {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            false
        } else if b == b'"' {
            in_string = true;
            false
        } else {
            true
        }
    })
}

/// How the document writes a colon and a comma on one line, from the first of each outside its
/// strings: `":"` or `": "`, `","` or `", "` (a comma that ends a line says nothing, and the
/// comma follows the colon's way where the document has none).
fn punctuation(text: &str) -> (String, String) {
    let bytes = text.as_bytes();
    let spaced_after = |i: usize| bytes.get(i + 1) == Some(&b' ');
    let colon = outside_strings(text)
        .find(|&(_, b)| b == b':')
        .map(|(i, _)| spaced_after(i));
    let comma = outside_strings(text)
        .find(|&(i, b)| b == b',' && !matches!(bytes.get(i + 1), Some(b'\n' | b'\r')))
        .map(|(i, _)| spaced_after(i));
    let colon = colon.unwrap_or(false);
    let comma = comma.unwrap_or(colon);
    (
        if colon { ": " } else { ":" }.to_string(),
        if comma { ", " } else { "," }.to_string(),
    )
}

/// Compact JSON with a space after each `:` and `,` outside strings, for files written so.
fn spaced(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() + 16);
    let mut from = 0;
    for (at, b) in outside_strings(compact) {
        if b == b':' || b == b',' {
            out.push_str(&compact[from..=at]);
            out.push(' ');
            from = at + 1;
        }
    }
    out.push_str(&compact[from..]);
    out
}

/// The indentation of the first indented line of the text (two spaces when none is).
fn indent_unit(text: &str) -> String {
    text.split('\n')
        .skip(1)
        .map(|line| {
            let end = line
                .find(|c: char| c != ' ' && c != '\t')
                .unwrap_or(line.len());
            &line[..end]
        })
        .find(|indent| !indent.is_empty() && indent.len() < 16)
        .unwrap_or("  ")
        .to_string()
}

/// The whitespace that starts the line holding offset `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

/// The whitespace before offset `at` when only whitespace precedes it on its line.
fn line_indent_if_first(text: &str, at: usize) -> Option<String> {
    let start = text[..at].rfind('\n')? + 1;
    let before = &text[start..at];
    before
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
        .then(|| before.to_string())
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end of the (valid) value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at) {
        Some(b'"') => string_end(bytes, at),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut at = at;
            while let Some(&b) = bytes.get(at) {
                match b {
                    b'"' => {
                        at = string_end(bytes, at);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return at + 1;
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
            at
        }
        _ => {
            let mut at = at;
            while !matches!(
                bytes.get(at),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                at += 1;
            }
            at
        }
    }
}

/// The end of the string whose opening quote is at `at` (just past its closing quote).
fn string_end(bytes: &[u8], at: usize) -> usize {
    let mut at = at + 1;
    loop {
        at = json::string_stop(bytes, at);
        match bytes.get(at) {
            Some(b'"') => return at + 1,
            Some(b'\\') => at += 2,
            Some(_) => at += 1,
            None => return at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Container {
        Container::read(text, 0).unwrap()
    }

    #[test]
    fn items_are_read_with_their_spans() {
        let text = " { \"a\\u0041\" : [1, \"x]\"] , \"b\":{\"c\":null} } ";
        let object = root(text);
        assert_eq!(object.items.len(), 2);
        assert_eq!(object.items[0].key.as_deref(), Some("aA"));
        assert_eq!(&text[object.items[0].value.clone()], "[1, \"x]\"]");
        assert_eq!(&text[object.items[1].value.clone()], "{\"c\":null}");
        assert_eq!(&text[object.open..=object.close], text.trim());
        let array = Container::read(text, object.items[0].value.start).unwrap();
        assert_eq!(array.items.len(), 2);
        assert!(Container::read("12", 0).is_none());
    }

    #[test]
    fn dropping_and_keeping_keep_every_other_byte() {
        let text = "{\"a\": \"\\ud83d\\ude00\",  \"b\" :2,\n\"c\": \"\\ud800\"}";
        let object = root(text);
        let out = object.rewrite(text, &[Keep::Same, Keep::Drop, Keep::Same], &[]);
        assert_eq!(out, "{\"a\": \"\\ud83d\\ude00\",\n\"c\": \"\\ud800\"}");
        let out = object.rewrite(text, &[Keep::Drop, Keep::Same, Keep::Same], &[]);
        assert_eq!(out, "{\"b\" :2,\n\"c\": \"\\ud800\"}");
        let out = object.rewrite(text, &[Keep::Drop, Keep::Drop, Keep::Drop], &[]);
        assert_eq!(out, "{}");
    }

    #[test]
    fn added_items_take_the_layout_of_their_neighbours() {
        let value = json::parse("{\"k\": [1, 2]}").unwrap();
        let pretty = "{\n    \"a\": 1\n}";
        let out = root(pretty).rewrite(pretty, &[Keep::Same], &[(Some("n"), &value)]);
        assert_eq!(
            out,
            "{\n    \"a\": 1,\n    \"n\": {\n        \"k\": [\n            1,\n            2\n        ]\n    }\n}"
        );
        let compact = "{\"a\":1}";
        let out = root(compact).rewrite(compact, &[Keep::Same], &[(Some("n"), &value)]);
        assert_eq!(out, "{\"a\":1,\"n\":{\"k\":[1,2]}}");
        let spaced_text = "{\"a\": 1, \"b\": 2}";
        let out = root(spaced_text).rewrite(
            spaced_text,
            &[Keep::Same, Keep::Same],
            &[(Some("n"), &value)],
        );
        assert_eq!(out, "{\"a\": 1, \"b\": 2, \"n\": {\"k\": [1, 2]}}");
        let empty = "{}";
        let out = root(empty).rewrite(empty, &[], &[(Some("n"), &Json::int(1))]);
        assert_eq!(out, "{\"n\":1}");
    }

    #[test]
    fn an_added_item_then_dropped_gives_back_the_text() {
        let value = json::parse("{\"k\": [1, 2]}").unwrap();
        for text in [
            "{\n  \"a\": 1\n}",
            "{\"a\":1}",
            "{\"a\": 1, \"b\": [\n\t2\n]}",
            "{\n\t\"a\": 1,\n\t\"b\": 2\n}",
        ] {
            let object = root(text);
            let keep = vec![Keep::Same; object.items.len()];
            let added = object.rewrite(text, &keep, &[(Some("n"), &value)]);
            let again = root(&added);
            let mut keep = vec![Keep::Same; again.items.len()];
            *keep.last_mut().unwrap() = Keep::Drop;
            assert_eq!(again.rewrite(&added, &keep, &[]), text, "{added}");
        }
    }

    #[test]
    fn punctuation_is_read_outside_strings() {
        assert_eq!(punctuation("{\"a: b, c\":1}"), (":".into(), ",".into()));
        assert_eq!(
            punctuation("{\"a\": 1, \"b\": 2}"),
            (": ".into(), ", ".into())
        );
        assert_eq!(punctuation("{\"a\": [1,2]}"), (": ".into(), ",".into()));
        assert_eq!(
            punctuation("{\n  \"a\": 1,\n  \"b\": 2\n}"),
            (": ".into(), ", ".into())
        );
    }

    #[test]
    fn duplicate_keys_are_found() {
        assert_eq!(root("{\"a\":1,\"b\":2,\"a\":3}").duplicate_key(), Some("a"));
        assert_eq!(root("{\"a\":1,\"b\":2}").duplicate_key(), None);
    }
}

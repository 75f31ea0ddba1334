//! A prototype of another JSON model for `state.json`, measured against ctx's own
//! (`src/json.rs` with the one-pass frame reader in `src/frame/state.rs`): the state read as
//! ordered maps of `&RawValue` by serde_json, every frame checked from its raw members, and the
//! file written back by a re-indenter that touches only whitespace. It does to the file what
//! `ctx frame push GOAL` does (lock, read, validate, add an in_progress child of the active
//! frame, write a temp file, sync, rename), so `benches/frame.sh` can time the two side by side.
//!
//!   cargo run --release --example state_rawvalue -- DIR GOAL
//!
//! What it leaves out of ctx's model, on purpose: string escapes are kept as the file has them
//! (ctx writes them as JSON.stringify does), and nothing checks ids, cycles or sessionFrames.

use std::borrow::Cow;
use std::fmt;
use std::io::Write as _;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// An object's members in file order, values as their text.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    members.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Ordered)
    }
}

impl<'a> Members<'a> {
    fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

fn fail(message: String) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1)
}

fn is_string(raw: &RawValue) -> bool {
    raw.get().starts_with('"')
}

fn is_number(raw: &RawValue) -> bool {
    raw.get()
        .starts_with(|c: char| c == '-' || c.is_ascii_digit())
}

fn is_null(raw: &RawValue) -> bool {
    raw.get() == "null"
}

fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    serde_json::from_str(raw.get()).ok()
}

/// The checks of ctx's frame validator, on raw members.
fn check_frame(id: &str, frame: &Members<'_>) -> Result<(), String> {
    let at = |what: &str| format!("/frames/{id}/{what}");
    let present = |key: &str| frame.get(key).filter(|v| !is_null(v));
    if present("sessionID").and_then(string).as_deref() != Some(id) {
        return Err(at("sessionID must equal the frame's key"));
    }
    let statuses = [
        "planned",
        "in_progress",
        "completed",
        "failed",
        "blocked",
        "invalidated",
    ];
    if !present("status")
        .and_then(string)
        .is_some_and(|s| statuses.contains(&&*s))
    {
        return Err(at("status is not a status"));
    }
    for key in [
        "parentSessionID",
        "compactionSummary",
        "logPath",
        "invalidationReason",
    ] {
        if present(key).is_some_and(|v| !is_string(v)) {
            return Err(at(&format!("{key} must be a string")));
        }
    }
    if !present("goal").is_some_and(is_string) {
        return Err(at("goal must be a string"));
    }
    for key in ["createdAt", "updatedAt"] {
        if !present(key).is_some_and(is_number) {
            return Err(at(&format!("{key} must be a number")));
        }
    }
    if present("invalidatedAt").is_some_and(|v| !is_number(v)) {
        return Err(at("invalidatedAt must be a number"));
    }
    for key in ["artifacts", "decisions", "plannedChildren"] {
        if let Some(list) = present(key) {
            let items: Vec<&RawValue> = serde_json::from_str(list.get())
                .map_err(|_| at(&format!("{key} must be an array of strings")))?;
            if !items.iter().all(|v| is_string(v)) {
                return Err(at(&format!("{key} must be an array of strings")));
            }
        }
    }
    Ok(())
}

/// Writes `text` (valid JSON) in JSON.stringify(value, null, 2)'s layout at indentation
/// `level`: only whitespace changes; strings, numbers and literals are copied.
fn reindent(text: &str, level: usize, out: &mut Vec<u8>) {
    let bytes = text.as_bytes();
    let mut depth = level;
    let mut i = 0;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', depth * 2));
    };
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\n' | b'\r' | b'\t' => {}
            b'"' => {
                let start = i;
                i += 1;
                while bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                out.extend_from_slice(&bytes[start..=i]);
            }
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                let mut j = i + 1;
                while bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                if bytes[j] == close {
                    out.extend_from_slice(&[b, close]);
                    i = j;
                } else {
                    out.push(b);
                    depth += 1;
                    newline(out, depth);
                }
            }
            b'}' | b']' => {
                depth -= 1;
                newline(out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b',');
                newline(out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
        i += 1;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, goal] = &args[..] else {
        fail("usage: state_rawvalue DIR GOAL".into());
    };
    let flame = Path::new(dir).join(".opencode/flame");
    let lock = std::fs::File::create(flame.join("state.json.lock"))
        .unwrap_or_else(|e| fail(format!("lock: {e}")));
    lock.lock().unwrap_or_else(|e| fail(format!("lock: {e}")));
    let path = flame.join("state.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(format!("read: {e}")));

    let top: Members<'_> =
        serde_json::from_str(&text).unwrap_or_else(|e| fail(format!("state.json: {e}")));
    let frames_raw = top
        .get("frames")
        .unwrap_or_else(|| fail("no frames".into()));
    let frames: Members<'_> =
        serde_json::from_str(frames_raw.get()).unwrap_or_else(|e| fail(format!("frames: {e}")));
    let mut parsed: Vec<Members<'_>> = Vec::with_capacity(frames.0.len());
    for (id, raw) in &frames.0 {
        let frame: Members<'_> = serde_json::from_str(raw.get())
            .unwrap_or_else(|_| fail(format!("/frames/{id} must be an object")));
        check_frame(id, &frame).unwrap_or_else(|e| fail(e));
        parsed.push(frame);
    }

    let active = top
        .get("activeFrameID")
        .and_then(string)
        .unwrap_or_else(|| fail("no active frame".into()));
    let Some(parent) = frames.0.iter().position(|(id, _)| **id == *active) else {
        fail(format!("no frame {active}"))
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let id = format!("fr_proto{now}");
    let now = now.to_string();
    let quoted = |s: &str| serde_json::to_string(s).expect("a string serializes");

    // The file, member by member: unchanged values copied through the re-indenter.
    let mut out = Vec::with_capacity(text.len() + 1024);
    out.extend_from_slice(b"{");
    for (n, (key, value)) in top.0.iter().enumerate() {
        out.extend_from_slice(if n == 0 { b"\n  " } else { b",\n  " });
        out.extend_from_slice(quoted(key).as_bytes());
        out.extend_from_slice(b": ");
        match &**key {
            "frames" => {
                out.push(b'{');
                for (i, (frame_id, raw)) in frames.0.iter().enumerate() {
                    out.extend_from_slice(if i == 0 { b"\n    " } else { b",\n    " });
                    out.extend_from_slice(quoted(frame_id).as_bytes());
                    out.extend_from_slice(b": ");
                    if i == parent {
                        // The parent's updatedAt moves; its other members are copied.
                        let mut members = String::from("{");
                        for (k, (name, v)) in parsed[i].0.iter().enumerate() {
                            members.push_str(if k == 0 { "" } else { "," });
                            members.push_str(&quoted(name));
                            members.push(':');
                            members.push_str(if name == "updatedAt" { &now } else { v.get() });
                        }
                        members.push('}');
                        reindent(&members, 2, &mut out);
                    } else {
                        reindent(raw.get(), 2, &mut out);
                    }
                }
                let child = format!(
                    "{{\"sessionID\":{},\"parentSessionID\":{},\"status\":\"in_progress\",\
                     \"goal\":{},\"createdAt\":{now},\"updatedAt\":{now},\"artifacts\":[],\
                     \"decisions\":[]}}",
                    quoted(&id),
                    quoted(&active),
                    quoted(goal)
                );
                out.extend_from_slice(format!(",\n    {}: ", quoted(&id)).as_bytes());
                reindent(&child, 2, &mut out);
                out.extend_from_slice(b"\n  }");
            }
            "activeFrameID" => out.extend_from_slice(quoted(&id).as_bytes()),
            "updatedAt" => out.extend_from_slice(now.as_bytes()),
            _ => reindent(value.get(), 1, &mut out),
        }
    }
    out.extend_from_slice(b"\n}\n");

    let temp = flame.join(format!(".state.json.{}.tmp", std::process::id()));
    let mut file = std::fs::File::create(&temp).unwrap_or_else(|e| fail(format!("write: {e}")));
    file.write_all(&out)
        .and_then(|()| file.sync_all())
        .unwrap_or_else(|e| fail(format!("write: {e}")));
    std::fs::rename(&temp, &path).unwrap_or_else(|e| fail(format!("rename: {e}")));
    println!("{id}");
}

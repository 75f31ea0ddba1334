//! Gemini CLI's session files as a source of usage records (Gemini CLI 0.61.0, observed):
//! `<gemini folder>/tmp/<project>/chats/session-<date>-<id8>.jsonl`, a subagent's in
//! `chats/<session id>/<subagent id>.jsonl`.
//!
//! - The first line, `{sessionId, projectHash, startTime, lastUpdated, kind}` (`kind` `main` or
//!   `subagent`), names the session: `gm_<session id>`. A subagent's session sits below the one
//!   its folder names, and is named for the frame its prompt names (`Your frame is gma_….`, the
//!   words ctx's hook added), so that its frame owns exactly its calls, however many subagents
//!   ran at once; one ctx did not frame keeps `gm_<its id>`.
//! - Each message is a line `{id, timestamp, type, content, …}`: `type` `user` (its text gives the
//!   session's title) or `gemini`, a model call, whose `tokens` are `{input, output, cached,
//!   thoughts, tool, total}` as the API reports them (`input` counts the `cached` among it; `tool`
//!   is the prompt of a tool's own use, input too) and `model` its model.
//! - A message is written again, with the same `id`, once its tool calls have run: a call is
//!   counted once, by its `id`, with its last-written tokens. The `{"$set": {"messages": […]}}`
//!   lines that replace the list (at a resume, after a compression, and ctx's fold) hold
//!   messages written before, or none that made a call, and are not read.
//!
//! Gemini CLI records no cost: calls are priced from the models.dev cache. Nor does it record a
//! compression's two calls (its `utility_compressor`), which its own totals count: they are in
//! no file ctx reads.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::{SESSION_PREFIX, named_frame, without_hook_context};
use crate::spent::jsonl::count;
use crate::spent::price::PriceList;
use crate::spent::record::{Call, Records, Session, Tokens};
use crate::spent::session_files::{Reader, SessionFormat};

/// Whether a line is a Gemini CLI session file's first: its session's id, project and kind.
fn is_header(record: &Map<String, Value>) -> bool {
    record.get("sessionId").is_some_and(Value::is_string)
        && record.get("projectHash").is_some_and(Value::is_string)
        && record.get("kind").is_some_and(Value::is_string)
}

/// Gemini CLI's session files.
pub const SESSION_FILES: SessionFormat = SessionFormat {
    agent: "Gemini CLI",
    recognizes: is_header,
    long_first_line: None,
    read: Reader::Lines {
        source: "gemini",
        read,
    },
};

pub fn read(file: &Path, lines: &[Value], prices: &PriceList, records: &mut Records) {
    let Some(header) = lines
        .iter()
        .find_map(|l| l.as_object().filter(|r| is_header(r)))
    else {
        records.problems.push(format!(
            "{}: no first line names its session; skipped",
            file.display()
        ));
        return;
    };
    let text = |key: &str| header.get(key).and_then(Value::as_str);
    let id = text("sessionId").unwrap_or_default();
    // A subagent's file is in a folder named for its session.
    let parent = (text("kind") == Some("subagent"))
        .then(|| {
            let folder = std::path::absolute(file).ok()?;
            let name = folder.parent()?.file_name()?.to_string_lossy().into_owned();
            Some(format!("{SESSION_PREFIX}{name}"))
        })
        .flatten();
    let agent = if parent.is_some() { "subagent" } else { "main" };

    // Every message, the last written of each id, in the order first written.
    let mut order: Vec<&str> = Vec::new();
    let mut last: HashMap<&str, &Map<String, Value>> = HashMap::new();
    for line in lines {
        let Some(record) = line.as_object() else {
            continue;
        };
        let Some(id) = record.get("id").and_then(Value::as_str) else {
            continue;
        };
        if last.insert(id, record).is_none() {
            order.push(id);
        }
    }

    let time_of = |record: &Map<String, Value>| {
        record
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(crate::time::parse_rfc3339_utc)
    };
    let title = order
        .iter()
        .map(|id| last[id])
        .filter(|r| r.get("type").and_then(Value::as_str) == Some("user"))
        .find_map(|r| prompt_line(r.get("content")?))
        .unwrap_or_default();
    let framed = parent.as_ref().and_then(|_| {
        order
            .iter()
            .map(|id| last[id])
            .filter(|r| r.get("type").and_then(Value::as_str) == Some("user"))
            .find_map(|r| {
                let text: String = texts(r.get("content")?).concat();
                named_frame(&text).map(str::to_string)
            })
    });
    let session = records.add_session(Session {
        id: framed.unwrap_or_else(|| format!("{SESSION_PREFIX}{id}")),
        parent,
        title,
        created: text("startTime")
            .and_then(crate::time::parse_rfc3339_utc)
            .unwrap_or(0),
    });
    for id in order {
        let record = last[id];
        if record.get("type").and_then(Value::as_str) != Some("gemini") {
            continue;
        }
        let Some(usage) = record.get("tokens").and_then(Value::as_object) else {
            continue;
        };
        let name = format!("{}: message {id}", file.display());
        let time = time_of(record);
        if time.is_none() {
            records
                .problems
                .push(format!("{name} has no time; counted at the epoch"));
        }
        let tokens = tokens_of(&name, usage, &mut records.problems);
        let model = record
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let cost = prices.cost(0.0, &tokens, "", &model, &mut records.problems);
        records.add_call(
            &format!("gemini:{id}"),
            Call {
                session,
                message: id.to_string(),
                time: time.unwrap_or(0),
                agent: agent.to_string(),
                provider: String::new(),
                model,
                tokens,
                cost,
            },
        );
    }
}

/// A call's tokens from Gemini's `tokens`: the cached part of `input` is cache reads, `tool`
/// (the prompt of a tool's own use) input, `thoughts` reasoning.
fn tokens_of(name: &str, usage: &Map<String, Value>, problems: &mut Vec<String>) -> Tokens {
    let mut part = |key: &str| match count(usage.get(key)) {
        Ok(n) => n,
        Err(v) => {
            problems.push(format!(
                "{name}: {key} {v} is not a token count; taken as 0"
            ));
            0
        }
    };
    let (input, output, cached) = (part("input"), part("output"), part("cached"));
    let (thoughts, tool) = (part("thoughts"), part("tool"));
    let cached = cached.min(input);
    let mut tokens = Tokens {
        input: input - cached + tool,
        output,
        reasoning: thoughts,
        cache_read: cached,
        cache_write: 0,
        total: 0,
    };
    tokens.total = tokens.sum_of_parts();
    tokens
}

/// A message's texts: its content when that is a string, else its text parts.
fn texts(content: &Value) -> Vec<&str> {
    match content {
        Value::String(text) => vec![text],
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text")?.as_str())
            .collect(),
        _ => Vec::new(),
    }
}

/// The first line of a person's message: its text parts' first non-blank line, after any
/// context a hook put before it (`<hook_context>…</hook_context>`). Gemini CLI's own opening
/// message (`<session_context>`) is none.
fn prompt_line(content: &Value) -> Option<String> {
    let text = texts(content)
        .into_iter()
        .map(without_hook_context)
        .find(|t| !t.trim().is_empty())?;
    if text.starts_with("<session_context>") {
        return None;
    }
    text.lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
}

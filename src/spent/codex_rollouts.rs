//! Codex CLI's rollout files as a source of usage records:
//! `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl` (default `~/.codex`;
//! Codex CLI 0.171.0). The first line is `session_meta`: the thread's `id`, and for a subagent
//! (`spawn_agent`) its `parent_thread_id`. Each model call is a `token_usage_record` line: the
//! `response_id` and that response's `usage`, as OpenAI's Responses API reports it: `input_tokens`
//! with the cached ones (`cached_input_tokens`) among them, `output_tokens` with the reasoning ones
//! (`reasoning_output_tokens`) among them, `total_tokens` = input + output. Codex also writes an
//! `event_msg` of type `token_count` after each call (`last_token_usage`, and the thread's
//! cumulative `total_token_usage`): a file without any `token_usage_record` (an older Codex) is
//! read from those, a `token_count` whose cumulative total did not grow being a repeat of the
//! last one. Codex records no cost: calls are priced from the models.dev cache.
//!
//! Sessions are named as ctx names their frames: `cx_<thread id>`, a subagent's parent being its
//! parent thread's. A call is counted once by its response id, in whichever file and source holds
//! it first (the same rollout given twice, or a copy of it). A subagent spawned with its parent's
//! history (`fork_context`) was seen to repeat no usage line of its parent (Codex 0.171.0).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::jsonl::count;
use super::price::PriceList;
use super::record::{Call, Records, Session, Tokens};

/// What ctx puts before a Codex thread id to name its session and frame.
pub const SESSION_PREFIX: &str = "cx_";

/// Codex's home, as Codex finds it ([`crate::codex::home_dir`]).
pub fn home() -> Option<PathBuf> {
    crate::codex::home_dir()
}

fn kind(record: &Value) -> (&str, &str) {
    (
        record.get("type").and_then(Value::as_str).unwrap_or(""),
        record
            .pointer("/payload/type")
            .and_then(Value::as_str)
            .unwrap_or(""),
    )
}

/// The thread's first typed prompt (Codex's own context messages begin with `<`), first line.
fn first_prompt(lines: &[Value]) -> Option<String> {
    lines.iter().find_map(|r| {
        if kind(r) != ("response_item", "message")
            || r.pointer("/payload/role").and_then(Value::as_str) != Some("user")
        {
            return None;
        }
        let text = r
            .pointer("/payload/content")?
            .as_array()?
            .iter()
            .find_map(|c| c.get("text")?.as_str())?;
        let line = text.lines().find(|l| !l.trim().is_empty())?.trim();
        (!line.starts_with('<')).then(|| line.to_string())
    })
}

/// One call's usage as ctx counts it, named problems for what is not a count.
fn tokens_of(usage: &Value, name: &str, problems: &mut Vec<String>) -> Tokens {
    let mut part = |key: &str| match count(usage.get(key)) {
        Ok(n) => n,
        Err(v) => {
            problems.push(format!(
                "{name}: {key} {v} is not a token count; taken as 0"
            ));
            0
        }
    };
    let input = part("input_tokens");
    let cached = part("cached_input_tokens").min(input);
    let output = part("output_tokens");
    let reasoning = part("reasoning_output_tokens").min(output);
    let cache_write = part("cache_write_input_tokens");
    let total = part("total_tokens");
    let mut tokens = Tokens {
        input: input - cached,
        output: output - reasoning,
        reasoning,
        cache_read: cached,
        cache_write,
        total,
    };
    if tokens.total == 0 {
        tokens.total = tokens.sum_of_parts();
    }
    tokens
}

/// A call read from a rollout: its key, time, usage.
struct Found<'a> {
    /// Its line's position in the file, for the model in effect then.
    line: usize,
    key: String,
    time: Option<i64>,
    usage: &'a Value,
    name: String,
}

/// A non-empty string field of `value`.
fn text(value: Option<&Value>, key: &str) -> Option<String> {
    value
        .and_then(|v| v.get(key)?.as_str())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn time_of(record: &Value) -> Option<i64> {
    crate::time::parse_rfc3339_utc(record.get("timestamp")?.as_str()?)
}

/// The calls of the `token_usage_record` lines of `thread` (Codex 0.171.0 and later).
fn from_usage_records<'a>(file: &Path, lines: &'a [Value], thread: Option<&str>) -> Vec<Found<'a>> {
    let mut found = Vec::new();
    let usage_records = lines
        .iter()
        .enumerate()
        .filter(|(_, r)| kind(r).0 == "token_usage_record");
    for (n, (line, r)) in usage_records.enumerate() {
        let payload = &r["payload"];
        // A line that names another thread is that thread's call, should one be copied here.
        if let (Some(owner), Some(thread)) = (text(Some(payload), "thread_id"), thread)
            && owner != thread
        {
            continue;
        }
        let Some(usage) = payload.get("usage").filter(|u| u.is_object()) else {
            continue;
        };
        let response = text(Some(payload), "response_id");
        let name = match &response {
            Some(id) => format!("{}: response {id}", file.display()),
            None => format!("{}: usage record {}", file.display(), n + 1),
        };
        found.push(Found {
            line,
            key: match response {
                Some(id) => format!("codex:{id}"),
                None => format!("codex:{}:{n}", thread.unwrap_or_default()),
            },
            time: time_of(r),
            usage,
            name,
        });
    }
    found
}

/// The calls of the `token_count` events (older Codex versions): each event's
/// `last_token_usage`, an event whose cumulative total did not grow being a repeat.
fn from_token_counts<'a>(file: &Path, lines: &'a [Value], thread: Option<&str>) -> Vec<Found<'a>> {
    let mut found = Vec::new();
    let mut last_total: Option<&Value> = None;
    let events = lines
        .iter()
        .enumerate()
        .filter(|(_, r)| kind(r) == ("event_msg", "token_count"));
    for (n, (line, r)) in events.enumerate() {
        let Some(info) = r.pointer("/payload/info").filter(|i| i.is_object()) else {
            continue;
        };
        let total = info.get("total_token_usage");
        if total.is_some() && total == last_total {
            continue;
        }
        last_total = total;
        let Some(usage) = info.get("last_token_usage").filter(|u| u.is_object()) else {
            continue;
        };
        found.push(Found {
            line,
            key: format!(
                "codex:{}:{}:{}",
                thread.unwrap_or_default(),
                r.get("timestamp")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                total
                    .and_then(|t| t.get("total_tokens"))
                    .map(Value::to_string)
                    .unwrap_or_else(|| n.to_string())
            ),
            time: time_of(r),
            usage,
            name: format!("{}: token count {}", file.display(), n + 1),
        });
    }
    found
}

/// The thread id a rollout's name ends with (`rollout-<time>-<thread id>.jsonl`), for a file
/// that lost its `session_meta`.
fn thread_of_name(file: &Path) -> Option<String> {
    let stem = file.file_stem()?.to_str()?;
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    let dashes = [8, 13, 18, 23];
    let valid = id.char_indices().all(|(i, c)| {
        if dashes.contains(&i) {
            c == '-'
        } else {
            c.is_ascii_hexdigit()
        }
    });
    valid.then(|| id.to_string())
}

pub(super) fn read_rollout(
    file: &Path,
    lines: &[Value],
    prices: &PriceList,
    records: &mut Records,
) {
    let meta = lines
        .iter()
        .find(|r| kind(r).0 == "session_meta")
        .and_then(|r| r.get("payload"));
    let thread = text(meta, "id").or_else(|| thread_of_name(file));
    let mut found = from_usage_records(file, lines, thread.as_deref());
    if found.is_empty() && !lines.iter().any(|r| kind(r).0 == "token_usage_record") {
        found = from_token_counts(file, lines, thread.as_deref());
    }
    let Some(thread) = thread else {
        if !found.is_empty() {
            records.problems.push(format!(
                "{}: neither a \"session_meta\" with the thread's \"id\" nor a thread id in its name; its {} call(s) are skipped",
                file.display(),
                found.len()
            ));
        }
        return;
    };
    let parent = text(meta, "parent_thread_id").or_else(|| {
        text(
            meta.and_then(|m| m.pointer("/source/subagent/thread_spawn")),
            "parent_thread_id",
        )
    });
    let at = records.add_session(Session {
        id: format!("{SESSION_PREFIX}{thread}"),
        parent: parent.map(|p| format!("{SESSION_PREFIX}{p}")),
        title: first_prompt(lines).unwrap_or_default(),
        created: meta
            .and_then(|m| crate::time::parse_rfc3339_utc(m.get("timestamp")?.as_str()?))
            .unwrap_or(0),
    });
    let provider = text(meta, "model_provider").unwrap_or_default();
    // The model of each call: the latest turn_context before it.
    let mut models: Vec<(usize, String)> = Vec::new();
    for (n, r) in lines.iter().enumerate() {
        if kind(r).0 == "turn_context"
            && let Some(model) = text(r.get("payload"), "model")
        {
            models.push((n, model));
        }
    }
    for call in found {
        let model = models
            .iter()
            .rev()
            .find(|(n, _)| *n <= call.line)
            .or(models.first())
            .map(|(_, m)| m.clone())
            .unwrap_or_default();
        let tokens = tokens_of(call.usage, &call.name, &mut records.problems);
        let cost = prices.cost(0.0, &tokens, &provider, &model, &mut records.problems);
        if call.time.is_none() {
            records
                .problems
                .push(format!("{} has no time; counted at the epoch", call.name));
        }
        let message = call.key.trim_start_matches("codex:").to_string();
        records.add_call(
            &call.key,
            Call {
                session: at,
                message,
                time: call.time.unwrap_or(0),
                agent: String::new(),
                provider: provider.clone(),
                model,
                tokens,
                cost,
            },
        );
    }
}

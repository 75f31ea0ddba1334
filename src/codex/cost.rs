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
//! parent thread's. A call is counted once by its response id (from `token_count` events: its
//! thread and the thread's cumulative total after it), in whichever file and source holds it
//! first (the same rollout given twice, an archived copy). A subagent spawned with its parent's
//! history (`fork_context`) was seen to repeat no usage line of its parent (Codex 0.171.0); a
//! forked thread (`forked_from_id`) of older rollouts begins by replaying its parent's last turn,
//! usage included: what precedes the fork's own first turn is counted with the parent, once.

use std::path::Path;

use serde_json::Value;

use super::THREAD_PREFIX as SESSION_PREFIX;
use crate::spent::jsonl::count;
use crate::spent::price::PriceList;
use crate::spent::record::{Call, Records, Session, Tokens};
use crate::spent::session_files::{Reader, SessionFormat};

/// Codex's rollouts: every line is `{"type":…,"payload":…}`, `session_meta` first (but a rollout
/// cut before it is still Codex's). Only Codex writes a first line longer than is read (its
/// instructions).
pub const SESSION_FILES: SessionFormat = SessionFormat {
    agent: "Codex CLI",
    recognizes: |first| {
        const TYPES: [&str; 6] = [
            "session_meta",
            "response_item",
            "event_msg",
            "turn_context",
            "token_usage_record",
            "compacted",
        ];
        let kind = first.get("type").and_then(Value::as_str).unwrap_or("");
        TYPES.contains(&kind) && first.contains_key("payload")
    },
    long_first_line: Some(b"\"session_meta\""),
    read: Reader::Lines {
        source: "codex-sessions",
        read: read_rollout,
    },
};

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
    let mut unreadable = false;
    let mut part = |key: &str| match count(usage.get(key)) {
        Ok(n) => n,
        Err(v) => {
            problems.push(format!(
                "{name}: {key} {v} is not a token count; taken as 0"
            ));
            unreadable = true;
            0
        }
    };
    let input = part("input_tokens");
    let cached = part("cached_input_tokens");
    let output = part("output_tokens");
    let reasoning = part("reasoning_output_tokens");
    let cache_write = part("cache_write_input_tokens");
    let total = part("total_tokens");
    // The cached tokens are part of the input, the reasoning part of the output: one above its
    // whole is a damaged count, said rather than clamped unseen.
    let mut at_most = |key: &str, n: u64, whole_key: &str, whole: u64| {
        if n > whole {
            problems.push(format!(
                "{name}: {key} {n} is more than {whole_key} {whole}; taken as {whole}"
            ));
        }
        n.min(whole)
    };
    let cached = at_most("cached_input_tokens", cached, "input_tokens", input);
    let reasoning = at_most(
        "reasoning_output_tokens",
        reasoning,
        "output_tokens",
        output,
    );
    let mut tokens = Tokens {
        input: input - cached,
        output: output - reasoning,
        reasoning,
        cache_read: cached,
        cache_write,
        total,
    };
    // OpenAI's total is input + output; the parts are what is priced, so they win, unless one
    // of them could not be read (said already): the total is then the better measure.
    let parts = input.saturating_add(output);
    if tokens.total == 0 {
        tokens.total = tokens.sum_of_parts();
    } else if tokens.total != parts && !unreadable {
        problems.push(format!(
            "{name}: total_tokens {total} is not input_tokens + output_tokens ({parts}); counted as {}",
            tokens.sum_of_parts()
        ));
        tokens.total = tokens.sum_of_parts();
    }
    tokens
}

/// A call read from a rollout: its key, thread, time, usage.
struct Found<'a> {
    /// Its line's position in the file, for the model in effect then.
    line: usize,
    key: String,
    /// The thread whose call it is: the file's, or the parent's for a fork's replayed turn.
    thread: String,
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

/// The calls of the `token_usage_record` lines (Codex 0.171.0 and later) in `range` of `lines`,
/// each with the thread it names (`thread` when it names none).
fn from_usage_records<'a>(
    file: &Path,
    lines: &'a [Value],
    range: std::ops::Range<usize>,
    thread: &str,
) -> Vec<Found<'a>> {
    let mut found = Vec::new();
    let usage_records = lines
        .iter()
        .enumerate()
        .skip(range.start)
        .take(range.len())
        .filter(|(_, r)| kind(r).0 == "token_usage_record");
    for (n, (line, r)) in usage_records.enumerate() {
        let payload = &r["payload"];
        // A line that names another thread is that thread's call, copied here: it is counted
        // with that thread, once, whichever file holds it.
        let owner = text(Some(payload), "thread_id").unwrap_or_else(|| thread.to_string());
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
                None => format!("codex:{owner}:{}:{n}", range.start),
            },
            thread: owner,
            time: time_of(r),
            usage,
            name,
        });
    }
    found
}

/// The calls of the `token_count` events (older Codex versions) in `range` of `lines`, all
/// `thread`'s: each event's `last_token_usage`, an event whose cumulative total did not grow
/// being a repeat. A call is known by its thread and the thread's cumulative total after it,
/// which a fork's replay and an archived copy repeat, whatever time they were written at.
fn from_token_counts<'a>(
    file: &Path,
    lines: &'a [Value],
    range: std::ops::Range<usize>,
    thread: &str,
) -> Vec<Found<'a>> {
    let mut found = Vec::new();
    let mut last_total: Option<&Value> = None;
    let events = lines
        .iter()
        .enumerate()
        .skip(range.start)
        .take(range.len())
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
        let key = match total.and_then(|t| t.get("total_tokens")) {
            Some(cumulative) => format!("codex:{thread}:{cumulative}"),
            None => format!(
                "codex:{thread}:{}:{}",
                r.get("timestamp")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                n + range.start
            ),
        };
        found.push(Found {
            line,
            key,
            thread: thread.to_string(),
            time: time_of(r),
            usage,
            name: format!("{}: token count {}", file.display(), n + 1),
        });
    }
    found
}

/// The time a UUIDv7 (Codex's thread and turn ids) was made, epoch ms.
fn uuid7_time(id: &str) -> Option<i64> {
    let hex: String = id.chars().filter(|&c| c != '-').collect();
    if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) || &hex[12..13] != "7" {
        return None;
    }
    i64::from_str_radix(&hex[..12], 16).ok()
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

/// Where a forked rollout's own turns begin. A fork starts by replaying its parent's last turn
/// (its turn start, messages and usage); what comes before the fork's first turn of its own is
/// the parent's. A turn is the fork's own when its id (a UUIDv7) was made no earlier than the
/// fork's (or, without such ids, the session's `session_meta` time), or, without any turn id,
/// when its line was written no earlier than the fork was made.
fn fork_start(lines: &[Value], thread: &str, meta: Option<&Value>) -> usize {
    let made = meta.and_then(|m| crate::time::parse_rfc3339_utc(m.get("timestamp")?.as_str()?));
    let fork_made = uuid7_time(thread).or(made);
    lines
        .iter()
        .position(|r| {
            let starts_turn =
                kind(r) == ("event_msg", "task_started") || kind(r).0 == "turn_context";
            if !starts_turn {
                return false;
            }
            let turn = r
                .pointer("/payload/turn_id")
                .or_else(|| r.pointer("/payload/turn_attribution/turn_id"))
                .and_then(Value::as_str);
            match (turn.and_then(uuid7_time), fork_made) {
                (Some(turn), Some(fork)) => turn >= fork,
                _ => match (made, time_of(r)) {
                    (Some(made), Some(at)) => at >= made,
                    _ => true,
                },
            }
        })
        .unwrap_or(lines.len())
}

pub fn read_rollout(file: &Path, lines: &[Value], prices: &PriceList, records: &mut Records) {
    let meta = lines
        .iter()
        .find(|r| kind(r).0 == "session_meta")
        .and_then(|r| r.get("payload"));
    let thread = text(meta, "id").or_else(|| thread_of_name(file));
    let Some(thread) = thread else {
        let found = if lines.iter().any(|r| kind(r).0 == "token_usage_record") {
            from_usage_records(file, lines, 0..lines.len(), "")
        } else {
            from_token_counts(file, lines, 0..lines.len(), "")
        };
        if !found.is_empty() {
            records.problems.push(format!(
                "{}: neither a \"session_meta\" with the thread's \"id\" nor a thread id in its name; its {} call(s) are skipped",
                file.display(),
                found.len()
            ));
        }
        return;
    };
    // A fork's first lines replay its parent's last turn: those calls are the parent's.
    let forked_from = text(meta, "forked_from_id");
    let own_start = match &forked_from {
        Some(_) => fork_start(lines, &thread, meta),
        None => 0,
    };
    let mut found = Vec::new();
    if lines.iter().any(|r| kind(r).0 == "token_usage_record") {
        if let Some(parent) = &forked_from {
            found.extend(from_usage_records(file, lines, 0..own_start, parent));
        }
        found.extend(from_usage_records(
            file,
            lines,
            own_start..lines.len(),
            &thread,
        ));
    } else {
        if let Some(parent) = &forked_from {
            found.extend(from_token_counts(file, lines, 0..own_start, parent));
        }
        found.extend(from_token_counts(
            file,
            lines,
            own_start..lines.len(),
            &thread,
        ));
    }
    let parent = text(meta, "parent_thread_id").or_else(|| {
        text(
            meta.and_then(|m| m.pointer("/source/subagent/thread_spawn")),
            "parent_thread_id",
        )
    });
    let created = meta
        .and_then(|m| crate::time::parse_rfc3339_utc(m.get("timestamp")?.as_str()?))
        .unwrap_or(0);
    let at = records.add_session(Session {
        id: format!("{SESSION_PREFIX}{thread}"),
        parent: parent.map(|p| format!("{SESSION_PREFIX}{p}")),
        title: first_prompt(&lines[own_start.min(lines.len())..]).unwrap_or_default(),
        created,
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
        // A call copied from another thread (a fork's replay) is that thread's, which this file
        // may be the only one to hold.
        let session = if call.thread == thread {
            at
        } else {
            records.add_session(Session {
                id: format!("{SESSION_PREFIX}{}", call.thread),
                parent: None,
                title: String::new(),
                created: call.time.unwrap_or(created),
            })
        };
        records.add_call(
            &call.key,
            Call {
                session,
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

//! pi's session files as a source of usage records: `<agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl`
//! (pi 0.73.1; the agent dir is `$PI_CODING_AGENT_DIR`, default `~/.pi/agent`). The first line is
//! the header `{"type":"session","id":…}`; each model call is a `message` entry whose assistant
//! message carries pi's own `usage`: `input` (without cache reads and writes), `output` (reasoning
//! included: pi does not split it), `cacheRead`, `cacheWrite`, `totalTokens`, and `cost.total`,
//! which pi priced from the model's cost in its models.json. ccusage and pi's own session
//! statistics read these same fields.
//!
//! Sessions are named as ctx names their frames: `pi_<session id>`. A fork or clone (`/fork`,
//! `/clone`) copies the entries of the session it came from, ids and times included: a call is
//! counted once, by its entry id and time, in the first file read that holds it (files are read
//! in name order, which begins with the time they were created).

use std::path::Path;

use serde_json::Value;

use super::SESSION_PREFIX;
use crate::spent::jsonl::count;
use crate::spent::price::PriceList;
use crate::spent::record::{Call, MAX_CALL_COST, Records, Session, Tokens};
use crate::spent::session_files::{Reader, SessionFormat};

/// pi's session files: the header `{"type":"session","id":…}` comes first.
pub const SESSION_FILES: SessionFormat = SessionFormat {
    agent: "pi",
    recognizes: |first| {
        first.get("type").and_then(Value::as_str) == Some("session")
            && first.get("id").is_some_and(Value::is_string)
    },
    long_first_line: None,
    read: Reader::Lines {
        source: "pi-sessions",
        read: read_session,
    },
};

/// The text of a user message's content (a string, or text blocks), its first non-blank line.
fn first_line(content: &Value) -> Option<String> {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text")?.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    Some(
        text.lines()
            .find(|l| !l.trim().is_empty())?
            .trim()
            .to_string(),
    )
}

/// The session's title: the name it was given (`/name`, the last one), else its first prompt.
fn title(lines: &[Value]) -> String {
    let named = lines
        .iter()
        .rev()
        .filter(|r| r.get("type").and_then(Value::as_str) == Some("session_info"))
        .find_map(|r| r.get("name")?.as_str().map(str::to_string));
    named
        .or_else(|| {
            lines.iter().find_map(|r| {
                let message = r.get("message")?;
                (message.get("role")?.as_str()? == "user")
                    .then(|| first_line(message.get("content")?))?
            })
        })
        .unwrap_or_default()
}

pub fn read_session(file: &Path, lines: &[Value], prices: &PriceList, records: &mut Records) {
    let calls: Vec<&Value> = lines
        .iter()
        .filter(|r| {
            r.get("type").and_then(Value::as_str) == Some("message")
                && r.pointer("/message/role").and_then(Value::as_str) == Some("assistant")
                && r.pointer("/message/usage").is_some_and(Value::is_object)
        })
        .collect();
    let header = lines
        .iter()
        .find(|r| r.get("type").and_then(Value::as_str) == Some("session"));
    let Some(id) = header
        .and_then(|h| h.get("id")?.as_str())
        .filter(|id| !id.is_empty())
    else {
        if !calls.is_empty() {
            records.problems.push(format!(
                "{}: no session header with an \"id\"; its {} call(s) are skipped",
                file.display(),
                calls.len()
            ));
        }
        return;
    };
    let session = Session {
        id: format!("{SESSION_PREFIX}{id}"),
        parent: None,
        title: title(lines),
        created: header
            .and_then(|h| crate::time::parse_rfc3339_utc(h.get("timestamp")?.as_str()?))
            .unwrap_or(0),
    };
    let at = records.add_session(session);
    for (n, entry) in calls.into_iter().enumerate() {
        let message = &entry["message"];
        let usage = &message["usage"];
        let entry_id = entry.get("id").and_then(Value::as_str).unwrap_or_default();
        let stamp = entry.get("timestamp").and_then(Value::as_str);
        let name = if entry_id.is_empty() {
            format!("{}: call {}", file.display(), n + 1)
        } else {
            format!("{}: entry {entry_id}", file.display())
        };
        let mut unreadable = false;
        let mut part = |key: &str| match count(usage.get(key)) {
            Ok(n) => n,
            Err(v) => {
                records.problems.push(format!(
                    "{name}: {key} {v} is not a token count; taken as 0"
                ));
                unreadable = true;
                0
            }
        };
        let mut tokens = Tokens {
            input: part("input"),
            output: part("output"),
            reasoning: 0,
            cache_read: part("cacheRead"),
            cache_write: part("cacheWrite"),
            total: part("totalTokens"),
        };
        // pi's total is the sum of its parts; the parts are what is priced, so they win, unless
        // one of them could not be read (said already): the total is then the better measure.
        let parts = tokens.sum_of_parts();
        if tokens.total == 0 {
            tokens.total = parts;
        } else if tokens.total != parts && !unreadable {
            records.problems.push(format!(
                "{name}: totalTokens {} is not input + output + cacheRead + cacheWrite ({parts}); counted as {parts}",
                tokens.total
            ));
            tokens.total = parts;
        }
        let recorded = match usage.pointer("/cost/total") {
            None | Some(Value::Null) => 0.0,
            Some(v) => match v.as_f64() {
                Some(usd) if usd.is_finite() && (0.0..=MAX_CALL_COST).contains(&usd) => usd,
                _ => {
                    records.problems.push(format!(
                        "{name}: cost {v} is not a price; counted as not recorded"
                    ));
                    0.0
                }
            },
        };
        let text = |key: &str| {
            message
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let (provider, model) = (text("provider"), text("model"));
        let cost = prices.cost(recorded, &tokens, &provider, &model, &mut records.problems);
        // When the call was made: the message's own time (its request's start), else the
        // entry's (when pi wrote it).
        let time = message
            .get("timestamp")
            .and_then(Value::as_i64)
            .or_else(|| stamp.and_then(crate::time::parse_rfc3339_utc));
        if time.is_none() {
            records
                .problems
                .push(format!("{name} has no time; counted at the epoch"));
        }
        // A fork repeats its origin's entries with their ids and times.
        let key = match (entry_id, stamp) {
            ("", _) | (_, None) => format!("pi:{}:{}:{n}", records.sessions[at].id, entry_id),
            (id, Some(stamp)) => format!("pi:{id}:{stamp}"),
        };
        records.add_call(
            &key,
            Call {
                session: at,
                message: entry_id.to_string(),
                time: time.unwrap_or(0),
                agent: String::new(),
                provider,
                model,
                tokens,
                cost,
            },
        );
    }
}

//! Qwen Code's records as a source of usage records (Qwen Code 0.24.4, observed):
//!
//! - its ledger, `<qwen home>/usage/token-usage-<YYYY-MM>.jsonl`: one line per model call, every
//!   project's, `{schemaVersion, id, timestamp, sessionId, model, source, inputTokens,
//!   outputTokens, cachedTokens, thoughtsTokens, totalTokens, …}`. `source` is the agent that
//!   made the call: `main`, a subagent's type (`general-purpose`), or Qwen's own background work
//!   (`managed-auto-memory-extractor`, which no transcript holds). `inputTokens` counts the cached
//!   ones among them and `outputTokens` the thoughts (`totalTokens` = input + output), as OpenAI
//!   reports them. Each session's totals in `usage_record.jsonl` are these lines' sums. A call is
//!   counted once, by its `id`.
//! - its transcripts, `<runtime dir>/projects/<project>/chats/<session id>.jsonl` (and a subagent's
//!   below `subagents/`), which carry each call's `usageMetadata` too but not the background
//!   calls: read only for each session's title and start (its first prompt), so that the ledger
//!   stays the one count.
//!
//! Sessions are named as ctx names their frames: `qw_<session id>`. Qwen Code records no cost:
//! calls are priced from the models.dev cache.

use std::path::Path;

use serde_json::{Map, Value};

use super::SESSION_PREFIX;
use crate::spent::jsonl::count;
use crate::spent::price::PriceList;
use crate::spent::record::{Call, Records, Session, Tokens};
use crate::spent::session_files::{Reader, SessionFormat};

/// What a Qwen Code file is, from a line of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// A call of the ledger.
    Ledger,
    /// A record of a transcript.
    Transcript,
    /// A session's running totals (`usage_record.jsonl`): the ledger's sums.
    Totals,
}

fn line_of(record: &Map<String, Value>) -> Option<Line> {
    if !record.get("sessionId").is_some_and(Value::is_string) {
        return None;
    }
    if record.contains_key("schemaVersion") && record.contains_key("inputTokens") {
        Some(Line::Ledger)
    } else if record.contains_key("provenance")
        || record
            .get("message")
            .and_then(|m| m.get("parts"))
            .is_some_and(Value::is_array)
    {
        Some(Line::Transcript)
    } else if record.contains_key("models") && record.contains_key("version") {
        Some(Line::Totals)
    } else {
        None
    }
}

/// Qwen Code's files: its ledger, its transcripts (whose messages hold `parts`, where Claude
/// Code's hold `content`) and its session totals. Asked before Claude Code's, whose transcripts'
/// lines also carry `sessionId`.
pub const SESSION_FILES: SessionFormat = SessionFormat {
    agent: "Qwen Code",
    recognizes: |first| line_of(first).is_some(),
    long_first_line: None,
    read: Reader::Lines {
        source: "qwen",
        read,
    },
};

pub fn read(file: &Path, lines: &[Value], prices: &PriceList, records: &mut Records) {
    for (n, line) in lines.iter().enumerate() {
        let Some(record) = line.as_object() else {
            continue;
        };
        match line_of(record) {
            Some(Line::Ledger) => add_call(file, n, record, prices, records),
            Some(Line::Transcript) => add_title(record, records),
            Some(Line::Totals) | None => {}
        }
    }
}

/// A transcript's first prompt as its session's title (a subagent's transcript names no session
/// of its own: its calls are its session's in the ledger).
fn add_title(record: &Map<String, Value>, records: &mut Records) {
    let text = |key: &str| record.get(key).and_then(Value::as_str);
    if text("type") != Some("user") || record.contains_key("agentId") {
        return;
    }
    let (Some(session_id), Some(parts)) = (
        text("sessionId"),
        record
            .get("message")
            .and_then(|m| m.get("parts")?.as_array()),
    ) else {
        return;
    };
    let Some(title) = parts.iter().find_map(|p| {
        let line = p
            .get("text")?
            .as_str()?
            .lines()
            .find(|l| !l.trim().is_empty())?;
        // ctx's and other hooks' contexts ride in the prompt's later parts.
        (!line.starts_with("<qwen:")).then(|| line.trim().to_string())
    }) else {
        return;
    };
    records.add_session(Session {
        id: format!("{SESSION_PREFIX}{session_id}"),
        parent: None,
        title,
        created: text("timestamp")
            .and_then(crate::time::parse_rfc3339_utc)
            .unwrap_or(0),
    });
}

fn add_call(
    file: &Path,
    n: usize,
    record: &Map<String, Value>,
    prices: &PriceList,
    records: &mut Records,
) {
    let text = |key: &str| record.get(key).and_then(Value::as_str).unwrap_or_default();
    let (id, session_id) = (text("id"), text("sessionId"));
    let name = if id.is_empty() {
        format!("{}: line {}", file.display(), n + 1)
    } else {
        format!("{}: call {id}", file.display())
    };
    let mut unreadable = false;
    let mut part = |key: &str| match count(record.get(key)) {
        Ok(n) => n,
        Err(v) => {
            records.problems.push(format!(
                "{name}: {key} {v} is not a token count; taken as 0"
            ));
            unreadable = true;
            0
        }
    };
    let (input, output) = (part("inputTokens"), part("outputTokens"));
    let (cached, thoughts, total) = (
        part("cachedTokens"),
        part("thoughtsTokens"),
        part("totalTokens"),
    );
    let (cached, thoughts) = (cached.min(input), thoughts.min(output));
    let mut tokens = Tokens {
        input: input - cached,
        output: output - thoughts,
        reasoning: thoughts,
        cache_read: cached,
        cache_write: 0,
        total,
    };
    // Qwen's total is input + output; the parts are what is priced, so they win, unless one of
    // them could not be read (said already): the total is then the better measure.
    let parts = tokens.sum_of_parts();
    if tokens.total == 0 {
        tokens.total = parts;
    } else if tokens.total != parts && !unreadable {
        records.problems.push(format!(
            "{name}: totalTokens {} is not inputTokens + outputTokens ({parts}); counted as {parts}",
            tokens.total
        ));
        tokens.total = parts;
    }
    if session_id.is_empty() {
        records
            .problems
            .push(format!("{name} names no session; skipped"));
        return;
    }
    let time = crate::time::parse_rfc3339_utc(text("timestamp"));
    if time.is_none() {
        records
            .problems
            .push(format!("{name} has no time; counted at the epoch"));
    }
    let session = records.add_session(Session {
        id: format!("{SESSION_PREFIX}{session_id}"),
        parent: None,
        title: String::new(),
        created: time.unwrap_or(0),
    });
    let model = text("model").to_string();
    let cost = prices.cost(0.0, &tokens, "", &model, &mut records.problems);
    let key = if id.is_empty() {
        format!("qwen:{session_id}:{}:{n}", file.display())
    } else {
        format!("qwen:{id}")
    };
    records.add_call(
        &key,
        Call {
            session,
            message: id.to_string(),
            time: time.unwrap_or(0),
            agent: text("source").to_string(),
            provider: String::new(),
            model,
            tokens,
            cost,
        },
    );
}

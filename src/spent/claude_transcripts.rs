//! Claude Code's transcripts as a source of usage records (claude-code.md §6): a session's
//! `<session>.jsonl` and its subagents' `<session>/subagents/agent-<id>.jsonl`, found below a
//! folder (one project's `~/.claude/projects/<project>/`, or all of `~/.claude/projects/`) or
//! given one by one ([`super::session_files`] tells them from other agents' files).
//!
//! Sessions are named as ctx names their frames (`crate::claude::ids`): `cc_<session id>`, and
//! `cca_<agent id>` for a subagent, whose parent is its session; so the calls of a session land on
//! its frame and a subagent's on its own, rolled into its session's. A response is written one
//! line per content block, each with the same `message.id` and `requestId`, the early lines
//! carrying partial usage: it is counted once, with its last line's usage, and across files and
//! sources once per message id and request id, as ccusage keys it (a resumed or forked session
//! repeats earlier lines). Claude Code records no cost: calls are priced from the
//! models.dev cache like any call without a recorded cost.

use std::path::Path;

use serde_json::Value;

use super::price::PriceList;
use super::record::{Call, Records, Session, Tokens};
use crate::claude::{ids, transcript};

/// The subagent whose transcript `file` is, by its place (`…/subagents/…/agent-<id>.jsonl`) or,
/// outside such a folder (a `<project>/agent-<id>.jsonl`, a copy elsewhere), by its first line
/// that says whether it is on the sidechain: a subagent's says so and names its `agentId`. A
/// main transcript may hold sidechain lines with an agent's id further down; they do not make it
/// a subagent's.
fn subagent_of<'a>(file: &'a Path, lines: &'a [Value]) -> Option<&'a str> {
    let named = |r: &'a Value| r.get("agentId")?.as_str().filter(|s| !s.is_empty());
    let from_name = file
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.strip_prefix("agent-"))
        .filter(|s| !s.is_empty());
    let in_subagents = file
        .ancestors()
        .skip(1)
        .any(|dir| dir.file_name().is_some_and(|n| n == "subagents"));
    if from_name.is_some() && in_subagents {
        return lines.iter().find_map(named).or(from_name);
    }
    let first = lines
        .iter()
        .find(|r| r.get("isSidechain").is_some_and(Value::is_boolean))?;
    if first.get("isSidechain") != Some(&Value::Bool(true)) {
        return None;
    }
    named(first).or(from_name)
}

/// The session a transcript's lines belong to (its frame-style id, its parent, a title), and the
/// subagent's type (`general-purpose`, `Explore`, …; the main conversation's is not named).
fn session_of(file: &Path, lines: &[Value]) -> Option<(Session, String)> {
    let text = |key: &str| {
        lines
            .iter()
            .find_map(|r| r.get(key)?.as_str().filter(|s| !s.is_empty()))
    };
    let session_id = text("sessionId")?;
    let created = lines
        .iter()
        .find_map(|r| crate::time::parse_rfc3339_utc(r.get("timestamp")?.as_str()?))
        .unwrap_or(0);
    match subagent_of(file, lines) {
        Some(agent) => {
            let meta = transcript::agent_meta(file).unwrap_or_default();
            Some((
                Session {
                    id: ids::agent_frame(agent)?,
                    parent: ids::session_frame(session_id),
                    title: meta.description.unwrap_or_default(),
                    created,
                },
                meta.agent_type.unwrap_or_default(),
            ))
        }
        None => Some((
            Session {
                id: ids::session_frame(session_id)?,
                parent: None,
                title: first_prompt(lines).unwrap_or_default(),
                created,
            },
            String::new(),
        )),
    }
}

/// The first line of a session's first typed prompt: a text, or the first text part of a content
/// array (text and image parts). Sidechain and meta lines are not the person's.
fn first_prompt(lines: &[Value]) -> Option<String> {
    lines.iter().find_map(|r| {
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
    })
}

/// Reads one transcript's `lines` (of `file`) into `records`.
pub(super) fn read_lines(file: &Path, lines: &[Value], prices: &PriceList, records: &mut Records) {
    let responses = transcript::responses(lines);
    if responses.is_empty() {
        return;
    }
    let Some((session, agent)) = session_of(file, lines) else {
        records.problems.push(format!(
            "{}: no usable \"sessionId\"; its {} response(s) are skipped",
            file.display(),
            responses.len()
        ));
        return;
    };
    let at = records.add_session(session);
    for response in responses {
        for bad in &response.bad_counts {
            records.problems.push(format!(
                "{}: response {}: {bad} is not a token count; taken as 0",
                file.display(),
                response.id
            ));
        }
        let t = response.tokens;
        let tokens = Tokens {
            input: t.input,
            // OpenCode's figures keep reasoning apart from output; Anthropic's output includes it.
            output: t.output.saturating_sub(t.thinking),
            reasoning: t.thinking.min(t.output),
            cache_read: t.cache_read,
            cache_write: t.cache_write,
            total: t.total(),
        };
        let tokens = super::record::checked(tokens, &response.id, &mut records.problems);
        let cost = prices.cost(
            0.0,
            &tokens,
            "anthropic",
            &response.model,
            &mut records.problems,
        );
        if response.time.is_none() {
            records.problems.push(format!(
                "{}: response {} has no time; counted at the epoch",
                file.display(),
                response.id
            ));
        }
        // ccusage's key: a resumed or forked session repeats earlier responses, in this file or
        // another source.
        let key = format!("{}:{}", response.id, response.request);
        records.add_call(
            &key,
            Call {
                session: at,
                message: response.id,
                time: response.time.unwrap_or(0),
                agent: agent.clone(),
                provider: "anthropic".to_string(),
                model: response.model,
                tokens,
                cost,
            },
        );
    }
}

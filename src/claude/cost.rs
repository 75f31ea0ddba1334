//! Claude Code's transcripts as a source of usage records (claude-code.md §6): a session's
//! `<session>.jsonl` and its subagents' `<session>/subagents/agent-<id>.jsonl`, found below a
//! folder (one project's `~/.claude/projects/<project>/`, or all of `~/.claude/projects/`) or
//! given one by one ([`crate::spent::session_files`] tells them from other agents' files).
//!
//! Sessions are named as ctx names their frames ([`ids`]): `cc_<session id>`, and
//! `cca_<agent id>` for a subagent, whose parent is its session; so the calls of a session land on
//! its frame and a subagent's on its own, rolled into its session's. A response is written one
//! line per content block, each with the same `message.id` and `requestId`, the early lines
//! carrying partial usage: it is counted once, with its last line's usage, and across files and
//! sources once per message id and request id, as ccusage keys it (a resumed or forked session
//! repeats earlier lines). Claude Code records no cost: calls are priced from the
//! models.dev cache like any call without a recorded cost.
//!
//! Only what cost needs is read of a transcript ([`usage`]), and the files of a
//! folder are read on every core, then added to the records one by one in their order: the
//! report is the same whichever core finished first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use super::usage::{self, Place, Usage};
use super::{ids, transcript};
use crate::error::Result;
use crate::spent::price::PriceList;
use crate::spent::record::{Call, Records, Session, SourceInfo, Tokens};
use crate::spent::session_files::{Reader, SessionFormat};

/// Claude Code's transcripts: their lines carry `sessionId`, or are one of its bookkeeping lines.
/// Asked after the other agents' formats, since a line of another agent may share a type name.
pub const SESSION_FILES: SessionFormat = SessionFormat {
    agent: "Claude Code",
    recognizes: |first| {
        const TYPES: [&str; 9] = [
            "user",
            "assistant",
            "system",
            "summary",
            "attachment",
            "progress",
            "queue-operation",
            "file-history-snapshot",
            // A fork subagent's transcript starts with a reference to its parent's conversation.
            "fork-context-ref",
        ];
        // Claude Code's own keys, whatever a line's type: a type it adds later is still its line.
        let own_keys = ["sessionId", "agentId", "parentSessionId"]
            .iter()
            .any(|key| first.get(*key).is_some_and(Value::is_string))
            || (first.contains_key("uuid") && first.contains_key("parentUuid"));
        let kind = first.get("type").and_then(Value::as_str).unwrap_or("");
        own_keys || TYPES.contains(&kind)
    },
    long_first_line: None,
    read: Reader::Bytes {
        files: read_files,
        bytes: read_bytes,
    },
};

/// The source Claude Code's transcripts are.
const KIND: &str = "claude-transcripts";

/// Where `file` is: a subagent's place (`…/subagents/…/agent-<id>.jsonl`), and the agent id its
/// name gives.
fn place_of(file: &Path) -> (Place, Option<&str>) {
    let from_name = file
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.strip_prefix("agent-"))
        .filter(|s| !s.is_empty());
    let in_subagents = file
        .ancestors()
        .skip(1)
        .any(|dir| dir.file_name().is_some_and(|n| n == "subagents"));
    let place = Place {
        subagent_folder: from_name.is_some() && in_subagents,
        agent_named: from_name.is_some(),
    };
    (place, from_name)
}

/// The subagent whose transcript `file` is, by its place (`…/subagents/…/agent-<id>.jsonl`, then
/// its first agent id, else the one its name gives) or, outside such a folder (a
/// `<project>/agent-<id>.jsonl`, a copy elsewhere), by its first line that says whether it is on
/// the sidechain: a subagent's says so and names its `agentId`. A main transcript may hold
/// sidechain lines with an agent's id further down; they do not make it a subagent's.
fn subagent_of<'a>(file: &'a Path, usage: &'a Usage) -> Option<&'a str> {
    let (place, from_name) = place_of(file);
    if place.subagent_folder {
        return usage.agent_id.as_deref().or(from_name);
    }
    match &usage.sidechain {
        Some((true, agent)) => agent.as_deref().or(from_name),
        _ => None,
    }
}

/// The session a transcript is (its frame-style id, its parent, a title), and the subagent's
/// type (`general-purpose`, `Explore`, …; the main conversation's is not named).
fn session_of(file: &Path, usage: &Usage) -> Option<(Session, String)> {
    let session_id = usage.session_id.as_deref()?;
    let created = usage.created.unwrap_or(0);
    match subagent_of(file, usage) {
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
                title: usage.prompt.clone().unwrap_or_default(),
                created,
            },
            String::new(),
        )),
    }
}

/// Reads the transcripts `files`, found at `path` (at most `cap` bytes a file), into `records`:
/// read on every core, added in their order.
fn read_files(
    path: &Path,
    files: &[PathBuf],
    cap: u64,
    prices: &PriceList,
    records: &mut Records,
) -> Result<()> {
    records.sources.push(SourceInfo {
        kind: KIND,
        path: path.display().to_string(),
    });
    for (file, usage) in files.iter().zip(read_all(files, cap)) {
        add_transcript(file, usage?, prices, records);
    }
    Ok(())
}

/// What cost needs of each of `files` (at most `cap` bytes a file), in their order: read by one
/// thread a core, each taking the largest file not yet taken (so that the cores finish
/// together, and each buffer is made once, for its first file), into a buffer of its own kept
/// from one file to the next.
fn read_all(files: &[PathBuf], cap: u64) -> Vec<Result<Usage>> {
    let mut largest_first: Vec<(u64, usize)> = files
        .iter()
        .enumerate()
        .map(|(at, file)| (std::fs::metadata(file).map_or(0, |m| m.len()), at))
        .collect();
    largest_first.sort_unstable_by(|a, b| b.cmp(a));
    let next = AtomicUsize::new(0);
    let work = || {
        let mut buffer = Vec::new();
        let mut read = Vec::new();
        loop {
            let Some(&(_, at)) = largest_first.get(next.fetch_add(1, Ordering::Relaxed)) else {
                return read;
            };
            let file = &files[at];
            let usage = crate::input::read_file_into(file, cap, &mut buffer)
                .map(|()| usage::read(&buffer, place_of(file).0));
            read.push((at, usage));
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len());
    let mut read = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut read = work();
        for other in others {
            read.extend(
                other
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        read
    });
    read.sort_unstable_by_key(|(at, _)| *at);
    read.into_iter().map(|(_, usage)| usage).collect()
}

/// Reads `bytes`, the whole of the transcript `path` (given as a pipe), into `records`.
fn read_bytes(path: &Path, bytes: &[u8], prices: &PriceList, records: &mut Records) {
    records.sources.push(SourceInfo {
        kind: KIND,
        path: path.display().to_string(),
    });
    add_transcript(path, usage::read(bytes, place_of(path).0), prices, records);
}

/// Adds what was read of the transcript `file` to `records`.
fn add_transcript(file: &Path, usage: Usage, prices: &PriceList, records: &mut Records) {
    if usage.not_utf8 {
        records.problems.push(format!(
            "{}: not UTF-8; read with U+FFFD in place of the bad bytes",
            file.display()
        ));
    }
    if usage.skipped > 0 {
        records.problems.push(format!(
            "{}: {} line(s) are not JSON; skipped",
            file.display(),
            usage.skipped
        ));
    }
    if usage.responses.is_empty() {
        return;
    }
    let Some((session, agent)) = session_of(file, &usage) else {
        records.problems.push(format!(
            "{}: no usable \"sessionId\"; its {} response(s) are skipped",
            file.display(),
            usage.responses.len()
        ));
        return;
    };
    let at = records.add_session(session);
    for response in usage.responses {
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
        let tokens = crate::spent::record::checked(tokens, &response.id, &mut records.problems);
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

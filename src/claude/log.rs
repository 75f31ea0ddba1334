//! A frame's log from a Claude Code transcript.
//!
//! A subagent's frame gets its own transcript whole (`SubagentStop`). A frame that the model
//! pushed and popped through Bash has no transcript of its own: its messages are the lines of its
//! session's transcript written between its push and its pop. Claude Code writes a tool call's line
//! before it runs the tool, so when `ctx frame pop` runs, the transcript already holds the call
//! that pops, and every line from the push's output on (written after the frame was created).

use std::collections::HashSet;

use serde_json::Value;

use super::ids;
use crate::conversation::Export;
use crate::frame::state::State;

/// The key of a Claude Code session's record (`claudeSessions`) that names its transcript, noted
/// by the hooks from their input's `transcript_path`.
pub const TRANSCRIPT_KEY: &str = "transcriptPath";
/// Transcripts larger than this are left out of a log.
pub const MAX_TRANSCRIPT: u64 = 256 << 20;

/// The records of the conversation written at or after `since` (epoch ms): the span of a frame
/// created then, with the tool calls whose results it holds. Claude Code writes a call before it
/// runs it, so a push that shares its Bash call with the frame's first command
/// (`ctx frame push -- 'Build' && make`) is written before the frame exists, and its result, that
/// command's output, after: the span starts at that call. Lines without a time (Claude Code's
/// bookkeeping) are not conversation; in a session's transcript, lines of a side chain are another
/// agent's (a subagent's own transcript is all side chain: `sidechain`).
pub fn since(records: &[Value], since: i64, sidechain: bool) -> Vec<Value> {
    let chain = |r: &&Value| {
        r.get("isSidechain")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            == sidechain
    };
    let after = |r: &Value| {
        r.get("timestamp")
            .and_then(Value::as_str)
            .and_then(crate::time::parse_rfc3339_utc)
            .is_some_and(|t| t >= since)
    };
    let answered: HashSet<String> = records
        .iter()
        .filter(chain)
        .filter(|r| after(r))
        .flat_map(blocks)
        .filter_map(|b| Some(b.get("tool_use_id")?.as_str()?.to_string()))
        .collect();
    let answered_here = |r: &Value| {
        blocks(r).iter().any(|b| {
            b.get("type").and_then(Value::as_str) == Some("tool_use")
                && b.get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| answered.contains(id))
        })
    };
    records
        .iter()
        .filter(chain)
        .filter(|r| after(r) || answered_here(r))
        .cloned()
        .collect()
}

/// A record's content blocks (none when its content is a string).
fn blocks(record: &Value) -> &[Value] {
    record
        .pointer("/message/content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The transcript a Bash-pushed frame's span is read from, for the place (`CTX_SESSION`) that
/// pushed it: a session's (`cc_…`) as the hooks noted it, or a subagent's (`cca_…`, its frame
/// below its session's), `<session>/subagents/agent-<id>.jsonl` beside it. Whether it is a
/// subagent's comes with it.
pub fn transcript_of(state: &State, place: &str) -> Option<(String, bool)> {
    let noted = |session: &str| -> Option<String> {
        let record = state.claude_session(session).ok()??;
        Some(record.get(TRANSCRIPT_KEY)?.as_str()?.to_string())
    };
    if place.starts_with(ids::SESSION_PREFIX) {
        return Some((noted(place)?, false));
    }
    let agent = place.strip_prefix(ids::AGENT_PREFIX)?;
    let mut at = state.frame(place)?;
    let session = loop {
        let parent = state.frame(at.parent()?)?;
        if parent.id.starts_with(ids::SESSION_PREFIX) {
            break parent.id.to_string();
        }
        at = parent;
    };
    let main = noted(&session)?;
    let stem = main.strip_suffix(".jsonl")?;
    Some((format!("{stem}/subagents/agent-{agent}.jsonl"), true))
}

/// Whether the records hold, at or after `since`, a Bash call that pops a frame: the call of the
/// `ctx frame pop` now running, written before it ran.
pub fn holds_pop_call(records: &[Value], since: i64) -> bool {
    records.iter().rev().any(|r| {
        let recent = r
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(crate::time::parse_rfc3339_utc)
            .is_some_and(|t| t >= since);
        recent
            && r.pointer("/message/content")
                .and_then(Value::as_array)
                .is_some_and(|blocks| {
                    blocks.iter().any(|b| {
                        b.get("type").and_then(Value::as_str) == Some("tool_use")
                            && b.pointer("/input/command")
                                .and_then(Value::as_str)
                                .is_some_and(super::fold::pops_a_frame)
                    })
                })
    })
}

/// The export a Bash-pushed frame's log renders: its span of the transcript it was pushed in.
pub fn span_export(
    records: &[Value],
    created: i64,
    sidechain: bool,
    frame: &str,
    transcript: &str,
) -> Export {
    let span = since(records, created, sidechain);
    let title = format!("transcript {transcript}, from the frame's push to its pop");
    super::transcript::export_of(&span, frame, &title, None)
}

/// The log of an auto-frame (a turn, a task), from its transcript: the lines of the main
/// conversation stamped from `from` (its opening: a turn's prompt, a task going in progress) to
/// `to` (its close). Claude Code may still be writing a turn's last lines when its Stop hook reads
/// the transcript; when the session ends they are all there, so the log that the fold points to
/// is written again then, and holds every output the fold takes out.
pub fn span_between(
    records: &[Value],
    from: i64,
    to: i64,
    frame: &str,
    transcript: &str,
) -> Export {
    let until: Vec<Value> = records
        .iter()
        .filter(|r| {
            r.get("timestamp")
                .and_then(Value::as_str)
                .and_then(crate::time::parse_rfc3339_utc)
                .is_some_and(|t| t <= to)
        })
        .cloned()
        .collect();
    let span = since(&until, from, false);
    let title = format!("transcript {transcript}, from the frame's opening to its close");
    super::transcript::export_of(&span, frame, &title, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_span_starts_at_the_frames_creation_and_leaves_side_chains_out() {
        let lines = crate::spent::jsonl::parse(concat!(
            r#"{"type":"user","message":{"role":"user","content":"before"},"timestamp":"2026-11-25T17:37:47.000Z"}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"after"},"timestamp":"2026-11-25T17:37:49.000Z"}"#,
            "\n",
            r#"{"type":"user","isSidechain":true,"message":{"role":"user","content":"other"},"timestamp":"2026-11-25T17:37:50.000Z"}"#,
            "\n",
            r#"{"type":"last-prompt"}"#,
            "\n",
        ));
        let created = crate::time::parse_rfc3339_utc("2026-11-25T17:37:48.000Z").unwrap();
        let span = since(&lines.records, created, false);
        assert_eq!(span.len(), 1);
        assert_eq!(span[0]["message"]["content"], "after");
    }

    #[test]
    fn a_push_in_the_call_of_the_frames_first_command_starts_the_span_at_that_call() {
        // Claude Code writes the call before it runs it, so before the frame exists; its result,
        // the id and the first command's output, after.
        let lines = crate::spent::jsonl::parse(concat!(
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t0","name":"Bash","input":{"command":"ls"}}]},"timestamp":"2026-11-25T17:37:46.000Z"}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t0","content":"README"}]},"timestamp":"2026-11-25T17:37:46.500Z"}"#,
            "\n",
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ctx frame push -- 'Build' && make"}}]},"timestamp":"2026-11-25T17:37:47.000Z"}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"fr_x\nFIRST_OUTPUT"}]},"timestamp":"2026-11-25T17:37:49.000Z"}"#,
            "\n",
        ));
        let created = crate::time::parse_rfc3339_utc("2026-11-25T17:37:48.000Z").unwrap();
        let span = since(&lines.records, created, false);
        assert_eq!(
            span.len(),
            2,
            "the push's call and its result, not the call before"
        );
        assert_eq!(span[0]["message"]["content"][0]["id"], "t1");
        assert_eq!(span[1]["message"]["content"][0]["tool_use_id"], "t1");
    }

    #[test]
    fn only_a_call_that_runs_frame_pop_is_the_pop_being_waited_for() {
        let call = |command: &str| {
            let line = serde_json::json!({"type": "assistant", "timestamp": "2026-11-25T17:37:49.000Z",
                "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                "name": "Bash", "input": {"command": command}}]}});
            crate::spent::jsonl::parse(&line.to_string())
        };
        let since = crate::time::parse_rfc3339_utc("2026-11-25T17:37:48.000Z").unwrap();
        for pops in [
            "ctx frame pop --summary 'Built'",
            "make && ctx -q frame pop --status failed",
        ] {
            assert!(holds_pop_call(&call(pops).records, since), "{pops}");
        }
        for text in [
            "echo 'next: frame pop'",
            "ctx frame push -- 'Check the frame pop path' && make",
            "grep -n \"frame pop\" src/claude/log.rs",
        ] {
            assert!(!holds_pop_call(&call(text).records, since), "{text}");
        }
        let later = crate::time::parse_rfc3339_utc("2026-11-25T17:37:50.000Z").unwrap();
        assert!(!holds_pop_call(&call("ctx frame pop").records, later));
    }
}

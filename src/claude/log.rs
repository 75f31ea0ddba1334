//! A frame's log from a Claude Code transcript.
//!
//! A subagent's frame gets its own transcript whole (`SubagentStop`). A frame that the model
//! pushed and popped through Bash has no transcript of its own: its messages are the lines of its
//! session's transcript written between its push and its pop. Claude Code writes a tool call's line
//! before it runs the tool, so when `ctx frame pop` runs, the transcript already holds the call
//! that pops, and every line from the push's output on (written after the frame was created).

use serde_json::Value;

use crate::opencode::export::Export;

/// The key of a Claude Code session's record (`claudeSessions`) that names its transcript, noted
/// by the hooks from their input's `transcript_path`.
pub const TRANSCRIPT_KEY: &str = "transcriptPath";
/// Transcripts larger than this are left out of a log.
pub const MAX_TRANSCRIPT: u64 = 256 << 20;

/// The records of the conversation written at or after `since` (epoch ms): the span of a frame
/// created then. Lines without a time (Claude Code's bookkeeping) are not conversation; lines of
/// a side chain are another agent's.
pub fn since(records: &[Value], since: i64) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r.get("isSidechain").and_then(Value::as_bool) != Some(true))
        .filter(|r| {
            r.get("timestamp")
                .and_then(Value::as_str)
                .and_then(crate::time::parse_rfc3339_utc)
                .is_some_and(|t| t >= since)
        })
        .cloned()
        .collect()
}

/// The export a Bash-pushed frame's log renders: its span of the session's transcript.
pub fn span_export(records: &[Value], created: i64, frame: &str, transcript: &str) -> Export {
    let span = since(records, created);
    let title = format!("transcript {transcript}, from the frame's push to its pop");
    super::transcript::export_of(&span, frame, &title, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_span_starts_at_the_frames_creation_and_leaves_side_chains_out() {
        let lines = crate::claude::transcript::parse(concat!(
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
        let span = since(&lines.records, created);
        assert_eq!(span.len(), 1);
        assert_eq!(span[0]["message"]["content"], "after");
    }
}

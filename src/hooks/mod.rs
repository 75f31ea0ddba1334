//! What the agents that call ctx through hooks (Claude Code, Codex, Qwen Code, Copilot, Gemini)
//! share below their command adapters and the hook core (`app::hooks`): their ids as frame ids,
//! ctx's entries in their hooks files ([`settings`]), the frame commands of their shell calls
//! ([`frame_calls`]), which every transcript fold pairs, the fold of a history of Gemini-style
//! contents ([`contents_fold`]), the rewrite of a folded transcript ([`transcript`]), and what
//! their folds of finished turn frames share ([`turns`]).

use serde_json::{Map, Value, json};

use crate::frame::id::SessionId;

pub mod contents_fold;
pub mod frame_calls;
pub mod settings;
pub mod transcript;
pub mod turns;

/// `prefix` and an agent's id as a frame id, or `None` when the id cannot be one (empty, too
/// long, characters outside `[A-Za-z0-9_-]`, such as `../x`): such a session gets no frame.
pub fn framed(prefix: &str, id: &str) -> Option<SessionId> {
    if id.is_empty() {
        return None;
    }
    SessionId::parse(&format!("{prefix}{id}")).ok()
}

/// An agent's session file of JSON lines (a transcript, a rollout, an event log), each line as
/// its object, in order, `None` for a blank line (so that positions stay the lines'); an error
/// names the first line that is not a JSON object, which leaves the whole file as it is.
pub fn json_lines(text: &str) -> Result<Vec<Option<Map<String, Value>>>, String> {
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            if line.trim().is_empty() {
                return Ok(None);
            }
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(record)) => Ok(Some(record)),
                _ => Err(format!("line {} is not a JSON object", n + 1)),
            }
        })
        .collect()
}

/// One message of the OpenCode-shaped export an agent's transcript (or rollout) record becomes:
/// its `role`, its `parts`, and its creation time when the record has an RFC 3339 `timestamp`.
pub fn export_message(role: &str, record: &Value, parts: Vec<Value>) -> Value {
    let mut info = Map::new();
    info.insert("role".into(), Value::from(role));
    if let Some(ms) = record
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(crate::time::parse_rfc3339_utc)
    {
        info.insert("time".into(), json!({ "created": ms }));
    }
    json!({ "info": info, "parts": parts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids_become_valid_frame_ids() {
        assert_eq!(framed("cx_", "01a2-b").as_deref(), Some("cx_01a2-b"));
        assert_eq!(framed("cx_", ""), None);
        assert_eq!(framed("cx_", "../x"), None);
        assert_eq!(framed("cx_", &"a".repeat(126)), None);
    }

    #[test]
    fn an_export_message_has_its_records_time_when_it_has_one() {
        let record = json!({ "timestamp": "2026-01-02T03:04:05.678Z" });
        let parts = vec![json!({ "type": "text", "text": "hi" })];
        assert_eq!(
            export_message("user", &record, parts.clone()),
            json!({
                "info": { "role": "user", "time": { "created": 1_767_323_045_678_i64 } },
                "parts": parts,
            })
        );
        let untimed = json!({ "timestamp": "yesterday" });
        assert_eq!(
            export_message("assistant", &untimed, Vec::new()),
            json!({ "info": { "role": "assistant" }, "parts": [] })
        );
    }
}

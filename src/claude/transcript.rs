//! Claude Code's transcripts (claude-code.md §6): one JSON object a line, in
//! `~/.claude/projects/<project>/<session>.jsonl`, a subagent's in
//! `<session>/subagents/agent-<id>.jsonl`.
//!
//! The conversation, as the messages of an OpenCode-shaped export so that a frame's log renders
//! it as it renders an OpenCode session (flame.md §8.3), and the token counts of a response; the
//! usage of each response is read by [`super::usage`], from the transcript's bytes. A line that is
//! not JSON (a write cut short) is skipped and counted, never fatal.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::conversation::Export;
use crate::hooks::export_message;
use crate::spent::jsonl::Lines;

/// Tokens of one or more model responses, as Anthropic reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// Part of `output`: the model's thinking.
    pub thinking: u64,
}

impl Tokens {
    pub fn add(&mut self, other: &Tokens) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.thinking = self.thinking.saturating_add(other.thinking);
    }

    /// Every token the responses were billed for (saturating: a hostile count never wraps).
    pub fn total(&self) -> u64 {
        [self.output, self.cache_read, self.cache_write]
            .into_iter()
            .fold(self.input, u64::saturating_add)
    }
}

/// One model response of a transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// `message.id`.
    pub id: String,
    /// The line's `requestId`, empty when it has none.
    pub request: String,
    pub model: String,
    /// `timestamp` of its first line, epoch ms.
    pub time: Option<i64>,
    /// The usage on its last line: the final counts.
    pub tokens: Tokens,
    /// `usage` fields that are not counts (`name value`), taken as 0 in `tokens`.
    pub bad_counts: Vec<String>,
}

/// What the `.meta.json` Claude Code writes beside a subagent's transcript as it starts it says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentMeta {
    /// The Agent call's description.
    pub description: Option<String>,
    /// The subagent's type (`general-purpose`, `Explore`, …).
    pub agent_type: Option<String>,
    /// The Agent call's `tool_use_id`.
    pub tool_use_id: Option<String>,
}

/// The metadata beside the subagent transcript `transcript` (`agent-<id>.jsonl` →
/// `agent-<id>.meta.json`); `None` when it is absent, not a regular file, or not a JSON object.
pub fn agent_meta(transcript: &std::path::Path) -> Option<AgentMeta> {
    let path = transcript.with_extension("meta.json");
    // Only a regular file, opened without waiting: a pipe named so would block the read.
    let bytes = crate::safe_file::read_regular_capped(&path, 1 << 20).ok()?;
    let meta: Map<String, Value> = serde_json::from_slice(&bytes).ok()?;
    let text = |key: &str| meta.get(key)?.as_str().map(str::to_string);
    Some(AgentMeta {
        description: text("description"),
        agent_type: text("agentType"),
        tool_use_id: text("toolUseId"),
    })
}

/// The conversation of a transcript as an export whose messages a frame log renders: user text,
/// assistant text, the model's reasoning where the transcript holds it, and each tool call with
/// its output or error (the tool_result that answers it, by `tool_use_id`). Hook records and
/// Claude Code's bookkeeping lines are left out; the lines of one response become one message.
/// `final_reply`, the agent's last message as Claude Code reported it, ends the conversation when
/// the transcript does not yet hold it (Claude Code may not have written its last lines when a
/// hook reads the file).
pub fn to_export(lines: &Lines, id: &str, title: &str, final_reply: Option<&str>) -> Export {
    export_of(&lines.records, id, title, final_reply)
}

/// [`to_export`] of some of a transcript's records (a frame's span).
pub fn export_of(records: &[Value], id: &str, title: &str, final_reply: Option<&str>) -> Export {
    let results = tool_results(records);
    let mut messages: Vec<Value> = Vec::new();
    let mut last_response: Option<String> = None;
    for record in records {
        let role = match record.get("type").and_then(Value::as_str) {
            Some(role @ ("user" | "assistant")) => role,
            _ => continue,
        };
        let Some(message) = record.get("message") else {
            continue;
        };
        let parts = parts_of(message.get("content"), &results);
        if parts.is_empty() {
            continue;
        }
        let response = message
            .get("id")
            .and_then(Value::as_str)
            .filter(|_| role == "assistant");
        if response.is_some() && response == last_response.as_deref() {
            if let Some(Value::Array(existing)) =
                messages.last_mut().and_then(|m| m.get_mut("parts"))
            {
                existing.extend(parts);
            }
            continue;
        }
        last_response = response.map(str::to_string);
        messages.push(export_message(role, record, parts));
    }
    Export::of_conversation(id, title, "Claude Code", messages, final_reply)
}

/// What a tool call gave back: its output, or its error.
struct ToolResult {
    text: String,
    is_error: bool,
}

/// The tool_result blocks of the user turns, by the id of the call they answer.
fn tool_results(records: &[Value]) -> HashMap<String, ToolResult> {
    let mut results = HashMap::new();
    for record in records {
        if record.get("type").and_then(Value::as_str) != Some("user") {
            continue;
        }
        let Some(Value::Array(blocks)) = record.get("message").and_then(|m| m.get("content"))
        else {
            continue;
        };
        for block in blocks {
            if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
                continue;
            };
            results.insert(
                id.to_string(),
                ToolResult {
                    text: result_text(block.get("content")),
                    is_error: block.get("is_error").and_then(Value::as_bool) == Some(true),
                },
            );
        }
    }
    results
}

/// A tool_result's content as text: a string as it is, text blocks joined, anything else
/// (an image) named.
fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|block| match block.get("type").and_then(Value::as_str) {
                Some("text") => block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Content blocks as export parts: `text` as text, `thinking` as reasoning (when Claude Code
/// kept its text), `tool_use` as a tool part with its input and, from `results`, its output or
/// error; tool results (already paired with their calls) and images are omitted.
fn parts_of(content: Option<&Value>, results: &HashMap<String, ToolResult>) -> Vec<Value> {
    match content {
        Some(Value::String(text)) if !text.trim().is_empty() => {
            vec![json!({ "type": "text", "text": text })]
        }
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| match block.get("type").and_then(Value::as_str)? {
                "text" => {
                    let text = block.get("text").and_then(Value::as_str)?;
                    (!text.trim().is_empty()).then(|| json!({ "type": "text", "text": text }))
                }
                "thinking" => {
                    let text = block.get("thinking").and_then(Value::as_str)?;
                    (!text.trim().is_empty()).then(|| json!({ "type": "reasoning", "text": text }))
                }
                "tool_use" => {
                    let input = block.get("input").cloned().unwrap_or(Value::Null);
                    let result = block
                        .get("id")
                        .and_then(Value::as_str)
                        .and_then(|id| results.get(id));
                    let state = match result {
                        Some(r) if r.is_error => {
                            json!({ "status": "error", "input": input, "error": r.text })
                        }
                        Some(r) => {
                            json!({ "status": "completed", "input": input, "output": r.text })
                        }
                        None => json!({ "status": "completed", "input": input }),
                    };
                    Some(json!({
                        "type": "tool",
                        "tool": block.get("name").and_then(Value::as_str).unwrap_or("tool"),
                        "state": state,
                    }))
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The text of the last assistant response that has some.
pub fn last_assistant_text(lines: &Lines) -> Option<String> {
    to_export(lines, "", "", None).last_assistant_text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spent::jsonl::parse;

    const TRANSCRIPT: &str = r#"{"type":"user","message":{"role":"user","content":"Audit refunds"},"timestamp":"2026-11-25T17:37:47.443Z"}
{"type":"attachment","attachment":{"type":"hook_success"}}
{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"text","text":"Looking."}],"usage":{"input_tokens":500,"output_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":7,"output_tokens_details":{"thinking_tokens":3}}},"timestamp":"2026-11-25T17:37:48.000Z"}
{"type":"assistant","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":500,"output_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":7,"output_tokens_details":{"thinking_tokens":3}}},"timestamp":"2026-11-25T17:37:48.001Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a b"}]}}
{"type":"assistant","message":{"id":"msg_2","model":"claude-opus-5-5","content":[{"type":"text","text":"3 issues."}],"usage":{"input_tokens":600,"output_tokens":4}}}
{"type":"assista
"#;

    #[test]
    fn a_cut_line_is_skipped_and_counted() {
        let lines = parse(TRANSCRIPT);
        assert_eq!(lines.skipped, 1);
        assert_eq!(lines.records.len(), 6);
    }

    #[test]
    fn the_conversation_becomes_export_messages() {
        let lines = parse(TRANSCRIPT);
        let export = to_export(&lines, "cca_1", "agent-1.jsonl", Some("3 issues."));
        let roles: Vec<String> = export.messages().map(|m| m.role().to_string()).collect();
        assert_eq!(roles, ["user", "assistant", "assistant"]);
        let first_response = export.messages().nth(1).unwrap();
        assert_eq!(first_response.parts.len(), 2);
        assert_eq!(last_assistant_text(&lines).as_deref(), Some("3 issues."));
        // A reply the transcript does not hold yet ends the conversation.
        let cut = parse(
            TRANSCRIPT
                .lines()
                .take(2)
                .collect::<Vec<_>>()
                .join("\n")
                .as_str(),
        );
        let export = to_export(&cut, "cca_1", "agent-1.jsonl", Some("3 issues."));
        let roles: Vec<String> = export.messages().map(|m| m.role().to_string()).collect();
        assert_eq!(roles, ["user", "assistant"]);
    }

    #[test]
    fn tool_calls_carry_their_outputs_and_errors_and_thinking_is_reasoning() {
        let text = r#"{"type":"user","message":{"role":"user","content":"go"}}
{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"Check the tree first."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"false"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\u001b[31mb"},{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"Exit code 1"}]}]}}
"#;
        let export = to_export(&parse(text), "cc_1", "t", None);
        let parts = export.messages().nth(1).unwrap().parts;
        assert_eq!(parts[0]["type"], "reasoning");
        assert_eq!(parts[0]["text"], "Check the tree first.");
        assert_eq!(parts[1]["state"]["output"], "a\u{1b}[31mb");
        assert_eq!(parts[2]["state"]["status"], "error");
        assert_eq!(parts[2]["state"]["error"], "Exit code 1");
        assert_eq!(
            export.messages().count(),
            2,
            "a turn of tool results only is no message"
        );
    }
}

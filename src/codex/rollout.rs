//! A Codex rollout file (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl`, one JSON
//! record a line: `{"timestamp", "type", "payload"}`) as the export a frame log renders: the
//! thread's user and assistant messages and each function call with its output. Codex's own
//! records (`session_meta`, `turn_context`, `event_msg`, …), its developer messages and the
//! environment context it sends as a user message are not the conversation and are left out.
//! Pure: text in, export out.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::conversation::Export;
use crate::hooks::export_message;

/// The records of a rollout; lines that are not JSON objects are skipped.
pub fn parse(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(Value::is_object)
        .collect()
}

/// The payload of a `response_item` record (what Codex sends to the model).
pub(super) fn item(record: &Value) -> Option<&Value> {
    (record.get("type")?.as_str()? == "response_item").then(|| record.get("payload"))?
}

/// The text of a message item's `input_text` / `output_text` parts.
fn message_text(item: &Value) -> String {
    match item.get("content") {
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::String(text)) => text.clone(),
        _ => String::new(),
    }
}

/// Whether a user message is Codex's own (the environment context it sends first).
fn is_codex_context(text: &str) -> bool {
    text.trim_start().starts_with("<environment_context>")
}

/// The rollout's conversation as an export titled `title` with id `id`; `final_reply` (what
/// SubagentStop reported) ends it when the rollout does not hold it yet.
pub fn to_export(records: &[Value], id: &str, title: &str, final_reply: Option<&str>) -> Export {
    let outputs: HashMap<&str, &str> = records
        .iter()
        .filter_map(item)
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call_output"))
        .filter_map(|i| {
            let call = i.get("call_id")?.as_str()?;
            let output = match i.get("output")? {
                Value::String(text) => text.as_str(),
                other => other.get("content")?.as_str()?,
            };
            Some((call, output))
        })
        .collect();
    let mut messages: Vec<Value> = Vec::new();
    for record in records {
        let Some(item) = item(record) else { continue };
        let (role, part) = match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                let role = match item.get("role").and_then(Value::as_str) {
                    Some(role @ ("user" | "assistant")) => role,
                    _ => continue,
                };
                let text = message_text(item);
                if text.trim().is_empty() || (role == "user" && is_codex_context(&text)) {
                    continue;
                }
                (role, json!({ "type": "text", "text": text }))
            }
            Some("function_call") => {
                let arguments = item.get("arguments").and_then(Value::as_str).unwrap_or("");
                let input = serde_json::from_str::<Value>(arguments)
                    .unwrap_or_else(|_| Value::from(arguments));
                let mut state = json!({ "status": "completed", "input": input });
                if let Some(output) = item
                    .get("call_id")
                    .and_then(Value::as_str)
                    .and_then(|c| outputs.get(c))
                {
                    state["output"] = Value::from(*output);
                }
                let name = item.get("name").and_then(Value::as_str).unwrap_or("tool");
                (
                    "assistant",
                    json!({ "type": "tool", "tool": name, "state": state }),
                )
            }
            _ => continue,
        };
        // An assistant's calls and text of one response read as one message.
        let continues = role == "assistant"
            && messages
                .last()
                .is_some_and(|m: &Value| m["info"]["role"] == "assistant");
        if continues && let Some(Value::Array(parts)) = messages.last_mut().map(|m| &mut m["parts"])
        {
            parts.push(part);
            continue;
        }
        messages.push(export_message(role, record, vec![part]));
    }
    Export::of_conversation(id, title, "Codex", messages, final_reply)
}

/// How Codex (0.171.0, observed) starts the message of a `compacted` record: one line that
/// introduces the summary to the model, then the summary the compaction request returned.
const HANDOFF_PREFIX: &str = "Another language model started to solve this problem";

/// The summary of the rollout's last compaction: a `compacted` record's `message`, without the
/// line Codex puts before it for the model.
pub fn last_compaction(records: &[Value]) -> Option<String> {
    let message = records.iter().rev().find_map(|r| {
        (r.get("type")?.as_str()? == "compacted")
            .then(|| r.pointer("/payload/message")?.as_str())?
    })?;
    let summary = match message.split_once('\n') {
        Some((first, rest)) if first.starts_with(HANDOFF_PREFIX) => rest,
        _ => message,
    };
    let summary = summary.trim();
    (!summary.is_empty()).then(|| summary.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLLOUT: &str = concat!(
        r#"{"timestamp":"2026-11-27T04:46:18.064Z","type":"session_meta","payload":{"id":"t1"}}"#,
        "\n",
        r#"{"timestamp":"2026-11-27T04:46:18.100Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}}"#,
        "\n",
        r#"{"timestamp":"2026-11-27T04:46:18.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}"#,
        "\n",
        r#"{"timestamp":"2026-11-27T04:46:18.200Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"count the files"}]}}"#,
        "\n",
        "not json\n",
        r#"{"timestamp":"2026-11-27T04:46:18.300Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}"#,
        "\n",
        r#"{"timestamp":"2026-11-27T04:46:18.400Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a b c"}}"#,
        "\n",
        r#"{"timestamp":"2026-11-27T04:46:18.500Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"three files"}]}}"#,
        "\n",
        r#"{"timestamp":"2026-11-27T04:46:19.000Z","type":"compacted","payload":{"message":"Another language model started to solve this problem and produced a summary. Here it is:\nwe counted files\n"}}"#,
        "\n",
    );

    #[test]
    fn the_conversation_and_its_calls_become_the_export() {
        let records = parse(ROLLOUT);
        let export = to_export(&records, "cx_t1", "rollout", Some("three files"));
        let messages: Vec<_> = export.messages().collect();
        assert_eq!(
            messages.len(),
            2,
            "the user's prompt, then one assistant turn"
        );
        assert_eq!(messages[0].role(), "user");
        assert_eq!(messages[0].parts[0]["text"], "count the files");
        assert_eq!(messages[1].parts.len(), 2);
        assert_eq!(messages[1].parts[0]["tool"], "exec_command");
        assert_eq!(messages[1].parts[0]["state"]["input"]["cmd"], "ls");
        assert_eq!(messages[1].parts[0]["state"]["output"], "a b c");
        assert_eq!(export.last_assistant_text().as_deref(), Some("three files"));
        assert_eq!(
            last_compaction(&records).as_deref(),
            Some("we counted files")
        );
    }

    #[test]
    fn a_reply_the_rollout_lacks_ends_the_export() {
        let export = to_export(&[], "cx_t1", "rollout", Some("done"));
        assert_eq!(export.last_assistant_text().as_deref(), Some("done"));
        assert_eq!(last_compaction(&[]), None);
    }
}

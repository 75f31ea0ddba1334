//! OpenCode's todo list as its `todowrite` calls leave it in a session's messages, for todo
//! frames (`frame.auto = todos` or `all`): each call carries the whole list (autoframes.md §1.1,
//! §1.2), and stays in the messages with its input, so the calls a request holds are the list's
//! whole history since the last compaction, in order.
//!
//! Items have no id: an item is its `content`. `status` is a free string; ctx reads
//! `in_progress`, `completed` and `cancelled`, and any other value as "not in progress".

use serde_json::Value;

/// The tool's name in OpenCode.
pub const TOOL: &str = crate::compact::fold::OPENCODE_TODO_TOOL;

/// An item of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub content: String,
    pub status: String,
}

impl Item {
    pub fn new(content: &str, status: &str) -> Item {
        Item {
            content: content.to_string(),
            status: status.to_string(),
        }
    }
}

/// A completed `todowrite` call of the message list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The index of its message in the list.
    pub message: usize,
    pub message_id: String,
    pub call: String,
    /// The list as the call left it; items without a text content are left out.
    pub items: Vec<Item>,
}

/// A message of the list as the calls are read from it: its id, its role, and its JSON.
pub struct Raw<'a> {
    pub id: &'a str,
    pub role: &'a str,
    pub json: &'a str,
}

/// The completed `todowrite` calls of `messages`, in order. A call that failed or still runs
/// changed nothing; a call without a call id or a `todos` array is not one ctx can place, and is
/// skipped.
pub fn calls<'a>(messages: impl Iterator<Item = Raw<'a>>) -> Vec<Call> {
    let mut out = Vec::new();
    for (index, message) in messages.enumerate() {
        // Most messages hold no todo call: they are not parsed whole for it.
        if message.role != "assistant" || !message.json.contains(TOOL) {
            continue;
        }
        let Ok(value) = serde_json::from_str::<Value>(message.json) else {
            continue;
        };
        let parts = value.get("parts").and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            if let Some(call) = call_of(part) {
                out.push(Call {
                    message: index,
                    message_id: message.id.to_string(),
                    call: call.0,
                    items: call.1,
                });
            }
        }
    }
    out
}

/// The call id and items of a completed `todowrite` part.
fn call_of(part: &Value) -> Option<(String, Vec<Item>)> {
    if part.get("type")?.as_str()? != "tool" || part.get("tool")?.as_str()? != TOOL {
        return None;
    }
    let call = part.get("callID")?.as_str().filter(|c| !c.is_empty())?;
    let state = part.get("state")?;
    if state.get("status")?.as_str()? != "completed" {
        return None;
    }
    let todos = state.get("input")?.get("todos")?.as_array()?;
    let items = todos
        .iter()
        .filter_map(|todo| {
            let content = todo.get("content")?.as_str()?.trim();
            let status = todo.get("status").and_then(Value::as_str).unwrap_or("");
            (!content.is_empty()).then(|| Item::new(content, status.trim()))
        })
        .collect();
    Some((call.to_string(), items))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn todo(call: &str, status: &str, todos: Value) -> Value {
        json!({"type": "tool", "tool": "todowrite", "callID": call,
               "state": {"status": status, "input": {"todos": todos}, "output": "[]"}})
    }

    #[test]
    fn the_completed_calls_are_read_in_order_with_their_lists() {
        let messages = [
            json!({"info": {"id": "msg_1", "role": "user"}, "parts": [{"type": "text", "text": "todowrite this"}]}),
            json!({"info": {"id": "msg_2", "role": "assistant"}, "parts": [
                todo("call_1", "completed", json!([
                    {"content": " Fix A ", "status": "in_progress", "priority": "high"},
                    {"content": "Fix B", "status": 3},
                    {"content": "", "status": "pending"},
                    {"status": "pending"},
                    "not an item"])),
                todo("call_2", "error", json!([])),
                todo("call_3", "running", json!([])),
                {"type": "tool", "tool": "todowrite", "state": {"status": "completed", "input": {"todos": []}}},
                {"type": "tool", "tool": "bash", "callID": "call_4", "state": {"status": "completed"}}]}),
            json!({"info": {"id": "msg_3", "role": "assistant"}, "parts": [
                todo("call_5", "completed", json!({"todos": "wrong type"})),
                todo("call_6", "completed", json!([{"content": "Fix A", "status": "completed"}]))]}),
        ];
        let texts: Vec<String> = messages.iter().map(Value::to_string).collect();
        let calls = calls(messages.iter().zip(&texts).map(|(m, json)| Raw {
            id: m["info"]["id"].as_str().unwrap(),
            role: m["info"]["role"].as_str().unwrap(),
            json,
        }));
        assert_eq!(
            calls,
            [
                Call {
                    message: 1,
                    message_id: "msg_2".into(),
                    call: "call_1".into(),
                    items: vec![Item::new("Fix A", "in_progress"), Item::new("Fix B", ""),],
                },
                Call {
                    message: 2,
                    message_id: "msg_3".into(),
                    call: "call_6".into(),
                    items: vec![Item::new("Fix A", "completed")],
                },
            ]
        );
    }
}

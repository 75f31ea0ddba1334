//! What an OpenCode session export sends to the model, and what OpenCode recorded
//! (opencode.md §3.5, §3.6).

use serde_json::Value;

use crate::conversation::{CLEARED_TOOL_RESULT, Export, is_pruned};

/// Text OpenCode sends for a compaction request part.
const COMPACTION_PROMPT: &str = "What did we do so far?";

/// Provider-reported tokens of the last finished, non-summary assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// `providerID/modelID` of that message.
    pub model: Option<String>,
    /// What OpenCode compares with `usable`: `tokens.total` if > 0, else input + output +
    /// cache.read + cache.write.
    pub context_tokens: u64,
    pub message_id: Option<String>,
}

/// Sums over all assistant messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub input: u64,
    pub output: u64,
    pub reasoning: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost: f64,
}

/// What ctx reads from an export.
#[derive(Debug, Clone)]
pub struct SessionView {
    pub id: String,
    pub messages: usize,
    /// The texts the model is sent on the next call: from the last compaction summary on, every
    /// part that is sent (text unless ignored, reasoning, tool calls and results, file contents,
    /// subtask prompts, agent mentions, compaction requests).
    pub sent: Vec<String>,
    /// opencode-swarm's view: the text of every non-empty `text` part of every message.
    pub swarm_texts: Vec<String>,
    /// The last user message's agent and whether it has a text part (swarm.md §11.2 steps 5–7).
    pub last_user: Option<(Option<String>, bool)>,
    pub recorded: Option<Recorded>,
    pub totals: Totals,
}

fn number(value: Option<&Value>) -> u64 {
    value
        .and_then(Value::as_f64)
        .filter(|n| *n > 0.0)
        .map_or(0, |n| n as u64)
}

fn text_of<'a>(part: &'a Value, key: &str) -> Option<&'a str> {
    part.get(key).and_then(Value::as_str)
}

/// The texts one part contributes to what the model is sent.
fn sent_texts(part: &Value, out: &mut Vec<String>) {
    let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => {
            if part.get("ignored").and_then(Value::as_bool) != Some(true)
                && let Some(text) = text_of(part, "text")
            {
                out.push(text.to_string());
            }
        }
        "reasoning" => {
            if let Some(text) = text_of(part, "text") {
                out.push(text.to_string());
            }
        }
        "tool" => {
            let Some(state) = part.get("state").filter(|s| s.is_object()) else {
                return;
            };
            if let Some(tool) = text_of(part, "tool") {
                out.push(tool.to_string());
            }
            if let Some(input) = state.get("input") {
                out.push(input.to_string());
            }
            match state.get("status").and_then(Value::as_str) {
                Some("completed") => {
                    if is_pruned(state) {
                        out.push(CLEARED_TOOL_RESULT.to_string());
                    } else if let Some(output) = text_of(state, "output") {
                        out.push(output.to_string());
                    }
                }
                Some("error") => {
                    if let Some(error) = text_of(state, "error") {
                        out.push(error.to_string());
                    }
                }
                _ => {}
            }
        }
        "file" => {
            let value = part
                .get("source")
                .and_then(|s| s.get("text"))
                .and_then(|t| t.get("value"))
                .and_then(Value::as_str);
            if let Some(value) = value {
                out.push(value.to_string());
            }
        }
        "subtask" => {
            if let Some(prompt) = text_of(part, "prompt") {
                out.push(prompt.to_string());
            }
        }
        "agent" => {
            if let Some(name) = text_of(part, "name") {
                out.push(name.to_string());
            }
        }
        "compaction" => out.push(COMPACTION_PROMPT.to_string()),
        _ => {}
    }
}

/// Whether opencode-swarm would give its context-budget warning (swarm.md §11.2): its
/// `context_budget.enabled` (`budget_enabled`), and for a session the last user message (agent
/// empty or exactly `architect`, with a text part).
pub fn swarm_would_warn(budget_enabled: Option<bool>, session: Option<&SessionView>) -> bool {
    if budget_enabled == Some(false) {
        return false;
    }
    match session {
        None => true,
        Some(view) => match &view.last_user {
            None => false,
            Some((agent, has_text)) => {
                let agent_ok = agent
                    .as_deref()
                    .is_none_or(|a| a.is_empty() || a == "architect");
                agent_ok && *has_text
            }
        },
    }
}

/// Reads what the budget needs from a validated export.
pub fn view(export: &Export) -> SessionView {
    let messages: Vec<_> = export.messages().collect();
    let is_summary = |m: &crate::conversation::Message| {
        m.role() == "assistant" && m.info.get("summary").and_then(Value::as_bool) == Some(true)
    };
    // History sent to the model starts at the last compaction summary.
    let start = messages.iter().rposition(is_summary).unwrap_or(0);
    let mut sent = Vec::new();
    for message in &messages[start..] {
        for part in message.parts {
            sent_texts(part, &mut sent);
        }
    }
    let mut swarm_texts = Vec::new();
    let mut last_user = None;
    let mut totals = Totals::default();
    let mut recorded = None;
    for message in &messages {
        for part in message.parts {
            if part.get("type").and_then(Value::as_str) == Some("text")
                && let Some(text) = text_of(part, "text").filter(|t| !t.is_empty())
            {
                swarm_texts.push(text.to_string());
            }
        }
        match message.role() {
            "user" => {
                let agent = message
                    .info
                    .get("agent")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let has_text = message.parts.iter().any(|p| {
                    p.get("type").and_then(Value::as_str) == Some("text")
                        && p.get("text").is_some_and(Value::is_string)
                });
                last_user = Some((agent, has_text));
            }
            "assistant" => {
                let tokens = message.info.get("tokens");
                let field = |key: &str| number(tokens.and_then(|t| t.get(key)));
                let cache = |key: &str| {
                    number(tokens.and_then(|t| t.get("cache")).and_then(|c| c.get(key)))
                };
                totals.input += field("input");
                totals.output += field("output");
                totals.reasoning += field("reasoning");
                totals.cache_read += cache("read");
                totals.cache_write += cache("write");
                totals.cost += message
                    .info
                    .get("cost")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0);
                let completed = message
                    .info
                    .get("time")
                    .and_then(|t| t.get("completed"))
                    .is_some_and(Value::is_number);
                if completed && !is_summary(message) {
                    let total = field("total");
                    let context_tokens = if total > 0 {
                        total
                    } else {
                        field("input") + field("output") + cache("read") + cache("write")
                    };
                    let provider = message.info.get("providerID").and_then(Value::as_str);
                    let model = message.info.get("modelID").and_then(Value::as_str);
                    recorded = Some(Recorded {
                        model: match (provider, model) {
                            (Some(p), Some(m)) => Some(format!("{p}/{m}")),
                            (None, Some(m)) => Some(m.to_string()),
                            _ => None,
                        },
                        context_tokens,
                        message_id: message
                            .info
                            .get("id")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    });
                }
            }
            _ => {}
        }
    }
    SessionView {
        id: export.session_id().to_string(),
        messages: messages.len(),
        sent,
        swarm_texts,
        last_user,
        recorded,
        totals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPORT: &str = r#"{
      "info": {"id": "ses_1", "title": "t"},
      "messages": [
        {"info": {"id": "msg_1", "role": "user", "agent": "architect"},
         "parts": [{"type": "text", "text": "Hello there"},
                   {"type": "text", "text": "hidden", "ignored": true},
                   {"type": "file", "mime": "text/plain", "url": "file:///a",
                    "source": {"type": "file", "text": {"value": "FILE BODY"}}}]},
        {"info": {"id": "msg_2", "role": "assistant", "providerID": "anthropic",
                  "modelID": "claude-sonnet-4-5", "cost": 0.5,
                  "time": {"created": 1, "completed": 2},
                  "tokens": {"input": 100, "output": 20, "reasoning": 0,
                             "cache": {"read": 1000, "write": 5}}},
         "parts": [{"type": "reasoning", "text": "think"},
                   {"type": "tool", "tool": "bash", "callID": "c",
                    "state": {"status": "completed", "input": {"command": "ls"},
                              "output": "a b c", "time": {"start": 1, "end": 2}}},
                   {"type": "tool", "tool": "read", "callID": "d",
                    "state": {"status": "completed", "input": {},
                              "output": "OLD", "time": {"start": 1, "end": 2, "compacted": 3}}},
                   {"type": "step-finish", "tokens": {}},
                   {"type": "mystery", "text": "never"}]},
        {"info": {"id": "msg_3", "role": "assistant", "time": {"created": 3},
                  "tokens": {"total": 99999}}, "parts": []}
      ]}"#;

    #[test]
    fn sent_texts_and_recorded_tokens() {
        let export = Export::parse(EXPORT).unwrap();
        let view = view(&export);
        assert_eq!(
            view.sent,
            [
                "Hello there",
                "FILE BODY",
                "think",
                "bash",
                "{\"command\":\"ls\"}",
                "a b c",
                "read",
                "{}",
                CLEARED_TOOL_RESULT
            ]
        );
        assert_eq!(view.swarm_texts, ["Hello there", "hidden"]);
        assert_eq!(view.last_user, Some((Some("architect".into()), true)));
        // msg_3 has not completed: the recorded count is msg_2's.
        let recorded = view.recorded.unwrap();
        assert_eq!(recorded.context_tokens, 1125);
        assert_eq!(
            recorded.model.as_deref(),
            Some("anthropic/claude-sonnet-4-5")
        );
        assert_eq!(view.totals.cache_read, 1000);
        assert_eq!(view.messages, 3);
    }

    #[test]
    fn history_starts_at_the_last_summary() {
        let text = r#"{"info": {"id": "s"}, "messages": [
            {"info": {"role": "user"}, "parts": [{"type": "text", "text": "old"}]},
            {"info": {"role": "assistant", "summary": true, "time": {"completed": 1}},
             "parts": [{"type": "text", "text": "summary"}]},
            {"info": {"role": "user"}, "parts": [{"type": "text", "text": "new"}]}]}"#;
        let view = view(&Export::parse(text).unwrap());
        assert_eq!(view.sent, ["summary", "new"]);
        assert!(view.recorded.is_none());
    }
}

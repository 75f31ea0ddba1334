//! pi's message shape, as its `context` event hands the messages to an extension before each
//! model call (`ctx pi messages`): `{"messages": [{"role": …, "content": …, "timestamp": …}, …]}`.
//! An assistant message holds its tool calls as `{"type": "toolCall", "id", "name",
//! "arguments"}` content blocks; each call's output is a message of its own that follows it,
//! `{"role": "toolResult", "toolCallId", "toolName", "content", …}`; `custom` messages (an
//! extension's, such as the frame context ctx's extension adds before the agent starts) go to
//! the model as user messages.
//!
//! pi's messages have no ids. Folding needs one only to find a message again on a later
//! request (where a context was anchored): a message is named by its role and timestamp (a
//! tool's output by its call id), which pi keeps as long as it keeps the message.

use std::collections::HashMap;

use serde::Deserialize;
use serde::de::DeserializeSeed;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::{Call, Output, Shape, View, editable, is_own_text};
use crate::compact::inject::{MessageList, Pick, parse_list_with};
use crate::error::Result;

/// What a pi message list is expected to be.
pub const HINT: &str = "expected {\"messages\": [{\"role\": \"user\", \"content\": …, \
                        \"timestamp\": …}, …]}, the messages of pi's context event";

/// The roles of pi 0.73's messages (`AgentMessage`).
const ROLES: [&str; 7] = [
    "user",
    "assistant",
    "toolResult",
    "custom",
    "bashExecution",
    "branchSummary",
    "compactionSummary",
];

/// The `customType` of the messages ctx's extension and folding add.
pub const CUSTOM_TYPE: &str = "ctx";

/// pi's shape, for [`super::fold_with`].
pub struct Pi;

/// A pi message list, and what in it is not a pi message (passed on as it is).
pub struct Parsed<'a> {
    pub list: MessageList<'a>,
    pub warnings: Vec<String>,
}

fn pick<'a>(raw: &'a str, keys: &[&str]) -> Option<Vec<Option<&'a RawValue>>> {
    Pick(keys)
        .deserialize(&mut serde_json::Deserializer::from_str(raw))
        .ok()
}

fn string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<String>(raw?.get()).ok()
}

fn number(raw: Option<&RawValue>) -> Option<i64> {
    let value: Value = serde_json::from_str(raw?.get()).ok()?;
    value
        .as_i64()
        .or_else(|| value.as_f64().filter(|f| f.is_finite()).map(|f| f as i64))
}

/// Parses a pi message list. A message ctx does not know (no object, no known `role`) is kept
/// byte for byte and never folded, with a warning; only a document that is no message list at
/// all is refused.
pub fn parse(input: &str) -> Result<Parsed<'_>> {
    let mut warnings = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let list = parse_list_with(input, "a pi message list", HINT, |i, raw| {
        let fields = if raw.get().starts_with('{') {
            pick(
                raw.get(),
                &["role", "timestamp", "toolCallId", "customType"],
            )
        } else {
            None
        };
        let role = fields
            .as_ref()
            .and_then(|f| string(f[0]))
            .filter(|r| ROLES.contains(&r.as_str()));
        let Some(role) = role else {
            // Named by its role, not its place: the same message is met again on every later
            // request, at another place, and is reported once.
            let what = match fields.as_ref().map(|f| string(f[0])) {
                Some(Some(role)) if role.chars().count() <= 40 => {
                    format!("role {}", Value::String(role))
                }
                Some(Some(_)) => "a role of over 40 characters".to_string(),
                _ => "no \"role\" string".to_string(),
            };
            let warning = format!("a message ctx does not know ({what}) is passed on as it is");
            if !warnings.contains(&warning) {
                warnings.push(warning);
            }
            let mut info = Map::new();
            info.insert("id".into(), Value::String(format!("unknown:{i}")));
            info.insert("role".into(), Value::String(String::new()));
            return info;
        };
        let fields = fields.expect("a role was read");
        let stamp = number(fields[1]).map_or_else(|| "-".to_string(), |t| t.to_string());
        let mut id = match (role.as_str(), string(fields[2]), string(fields[3])) {
            ("toolResult", Some(call), _) => format!("toolResult:{call}"),
            ("custom", _, Some(kind)) => format!("custom:{kind}:{stamp}"),
            _ => format!("{role}:{stamp}"),
        };
        // Two messages of one role and millisecond: the second is told apart by its rank.
        let count = seen.entry(id.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            id = format!("{id}#{count}");
        }
        let mut info = Map::new();
        info.insert("id".into(), Value::String(id));
        info.insert("role".into(), Value::String(role));
        info
    })?;
    Ok(Parsed { list, warnings })
}

/// The text of a `content` that is a string or an array of blocks (their `text`s).
fn content_text(content: Option<&RawValue>) -> String {
    let Some(content) = content else {
        return String::new();
    };
    if let Ok(text) = serde_json::from_str::<String>(content.get()) {
        return text;
    }
    let Ok(blocks) =
        Vec::<&RawValue>::deserialize(&mut serde_json::Deserializer::from_str(content.get()))
    else {
        return String::new();
    };
    let mut out = String::new();
    for block in blocks {
        if let Some(f) = pick(block.get(), &["type", "text"])
            && string(f[0]).as_deref() == Some("text")
            && let Some(text) = string(f[1])
        {
            out.push_str(&text);
            out.push('\n');
        }
    }
    out
}

/// The `toolResult` message answering `call`, a call of message `at`: after it, paired with it,
/// with its call id.
fn result_of(list: &MessageList<'_>, views: &[View], at: usize, call: &Call) -> Option<usize> {
    let id = call.call.as_deref()?;
    let messages = list.messages();
    (at + 1..messages.len()).find(|&j| {
        views[j].answers == Some(at)
            && pick(messages[j].raw(), &["toolCallId"])
                .is_some_and(|f| string(f[0]).as_deref() == Some(id))
    })
}

/// The text of a tool result's `content`, as a fold counts it: a string, or its text blocks
/// joined by lines, any other block (an image) counted as its JSON.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|block| match block.get("type").and_then(Value::as_str) {
                Some("text") => block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                _ => block.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

impl Shape for Pi {
    fn views(&self, list: &MessageList<'_>) -> Vec<View> {
        let mut views: Vec<View> = Vec::with_capacity(list.messages().len());
        // Call id -> (message, index among its calls), for the outputs that follow.
        let mut calls: HashMap<String, (usize, usize)> = HashMap::new();
        for (i, message) in list.messages().iter().enumerate() {
            let mut view = View::default();
            let raw = message.raw();
            let fields = pick(raw, &["content", "timestamp", "toolCallId", "customType"]);
            let Some(fields) = fields.filter(|_| !message.role().is_empty()) else {
                views.push(view);
                continue;
            };
            view.created = number(fields[1]);
            match message.role() {
                "assistant" => {
                    let blocks = fields[0]
                        .and_then(|c| {
                            Vec::<&RawValue>::deserialize(&mut serde_json::Deserializer::from_str(
                                c.get(),
                            ))
                            .ok()
                        })
                        .unwrap_or_default();
                    for (index, block) in blocks.into_iter().enumerate() {
                        let Some(b) = pick(block.get(), &["type", "id", "name", "arguments"])
                        else {
                            continue;
                        };
                        if string(b[0]).as_deref() != Some("toolCall") {
                            continue;
                        }
                        let call = string(b[1]);
                        if let Some(id) = &call {
                            calls.insert(id.clone(), (i, view.calls.len()));
                        }
                        view.calls.push(Call {
                            index,
                            tool: string(b[2]).unwrap_or_default(),
                            call,
                            summary: b[3]
                                .and_then(|a| pick(a.get(), &["summary"]))
                                .and_then(|f| string(f[0])),
                            goal: b[3]
                                .and_then(|a| pick(a.get(), &["goal"]))
                                .and_then(|f| string(f[0])),
                            start: view.created,
                            ..Call::default()
                        });
                    }
                }
                "toolResult" => {
                    if let Some(&(at, n)) = string(fields[2]).and_then(|c| calls.get(&c)) {
                        view.answers = Some(at);
                        let call = &mut views[at].calls[n];
                        call.completed = true;
                        call.end = view.created;
                    }
                }
                "user" => {
                    let text = content_text(fields[0]);
                    view.typed = !text.trim().is_empty();
                    // ctx's own messages are pi's `custom` ones: a user message is a person's.
                    view.person = view.typed;
                    view.user_text = text;
                }
                "custom" => {
                    let text = content_text(fields[0]);
                    view.own =
                        string(fields[3]).as_deref() == Some(CUSTOM_TYPE) || is_own_text(&text);
                }
                _ => {}
            }
            views.push(view);
        }
        views
    }

    fn set_output(
        &self,
        list: &MessageList<'_>,
        views: &[View],
        at: usize,
        call: usize,
        Output { entry, keep_input }: Output<'_>,
        replaced: &mut HashMap<usize, Value>,
    ) -> bool {
        let messages = list.messages();
        let Some(made) = views[at].calls.iter().find(|c| c.index == call) else {
            return false;
        };
        let Some(output) = result_of(list, views, at, made) else {
            return false;
        };
        let Ok(mut result) = serde_json::from_str::<Value>(messages[output].raw()) else {
            return false;
        };
        result["content"] = json!([{ "type": "text", "text": entry }]);
        replaced.insert(output, result);
        // The summary a flame_pop call was given is in the entry: not sent twice.
        if made.tool.starts_with("flame_")
            && !keep_input
            && let Some(block) = editable(list, at, replaced)
                .and_then(|m| m.get_mut("content"))
                .and_then(|c| c.get_mut(call))
                .and_then(Value::as_object_mut)
        {
            block.insert("arguments".into(), json!({}));
        }
        true
    }

    fn synthetic(
        &self,
        _list: &MessageList<'_>,
        _at: usize,
        text: &str,
        _ids: [&str; 2],
        created: i64,
    ) -> Option<String> {
        Some(
            json!({
                "role": "custom",
                "customType": CUSTOM_TYPE,
                "content": text,
                "display": false,
                "timestamp": created,
            })
            .to_string(),
        )
    }

    fn marks_by_time(&self) -> bool {
        // pi keeps no message of a slash command: /push and /pop are known by their times.
        true
    }

    fn output_message(
        &self,
        list: &MessageList<'_>,
        views: &[View],
        at: usize,
        call: &Call,
    ) -> Option<usize> {
        result_of(list, views, at, call)
    }

    fn fold_output(
        &self,
        message: &mut Value,
        _call: &Call,
        fold: &dyn Fn(&str) -> Option<String>,
    ) -> bool {
        let Some(content) = message.get("content") else {
            return false;
        };
        let Some(folded) = fold(&result_text(content)) else {
            return false;
        };
        message["content"] = json!([{ "type": "text", "text": folded }]);
        true
    }

    fn call_block<'v>(&self, message: &'v mut Value, call: &Call) -> Option<&'v mut Value> {
        message.get_mut("content")?.get_mut(call.index)
    }

    fn empty_input(&self, block: &mut Value) {
        if let Some(block) = block.as_object_mut() {
            block.insert("arguments".into(), json!({}));
        }
    }

    fn blocks<'v>(&self, message: &'v mut Value) -> Option<&'v mut Vec<Value>> {
        message.get_mut("content")?.as_array_mut()
    }

    /// A text or a call left: a message of thinking alone says nothing the model would be sent.
    fn keeps_something(&self, blocks: &[Value]) -> bool {
        blocks.iter().any(|b| {
            matches!(
                b.get("type").and_then(Value::as_str),
                Some("text" | "toolCall" | "image")
            )
        })
    }

    /// pi's `calculateContextTokens` of an assistant message's `usage`: `totalTokens`, else
    /// input + output + cache reads and writes; an aborted or failed call's usage is not counted
    /// (pi's `getLastAssistantUsageInfo`).
    fn reported_count(&self, message: &Value) -> Option<u64> {
        if message.get("role")?.as_str()? != "assistant"
            || matches!(
                message.get("stopReason").and_then(Value::as_str),
                Some("aborted" | "error")
            )
        {
            return None;
        }
        let usage = message.get("usage")?;
        let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        let total = n("totalTokens");
        let count = if total > 0 {
            total
        } else {
            n("input") + n("output") + n("cacheRead") + n("cacheWrite")
        };
        (count > 0).then_some(count)
    }

    fn anchors_after_prompts(&self) -> bool {
        // ctx's extension adds the frame context after each prompt itself (pi's
        // before_agent_start message), and pi stores it there: sent again unchanged every turn.
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::fold::tests::popped as popped_at;
    use crate::compact::fold::turns::{Turn, entry};
    use crate::compact::fold::{Popped, fold_with};
    use crate::frame::span::Mark;

    /// prompt, push (call c1), bash (c2) with a big output, pop (c3), answer.
    fn session() -> String {
        json!({"messages": [
            {"role": "user", "content": "Audit refunds", "timestamp": 100},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "flame_push",
                "arguments": {"goal": "Audit"}}], "timestamp": 110},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "flame_push",
                "content": [{"type": "text", "text": "Pushed"}], "isError": false, "timestamp": 111},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c2", "name": "bash",
                "arguments": {"command": "cat big"}}], "timestamp": 120},
            {"role": "toolResult", "toolCallId": "c2", "toolName": "bash",
                "content": [{"type": "text", "text": "BIG OUTPUT"}], "isError": false, "timestamp": 121},
            {"role": "assistant", "content": [{"type": "text", "text": "done"},
                {"type": "toolCall", "id": "c3", "name": "flame_pop",
                "arguments": {"summary": "SUMMARY"}}], "timestamp": 130},
            {"role": "toolResult", "toolCallId": "c3", "toolName": "flame_pop",
                "content": [{"type": "text", "text": "Popped"}], "isError": false, "timestamp": 131},
        ]})
        .to_string()
    }

    /// The frame [`session`] pushes with its `flame_push` call c1 and pops with `flame_pop` c3.
    fn popped() -> Popped {
        popped_at(
            "fr_a",
            Mark::new(110, None, Some("c1")),
            Mark::new(130, None, Some("c3")),
            "ENTRY",
        )
    }

    #[test]
    fn the_valve_masks_the_oldest_tool_results_by_pis_reported_usage() {
        let mut messages = vec![json!({"role": "user", "content": "Run it", "timestamp": 100})];
        for i in 0..5 {
            let id = format!("c{i}");
            let mut call = json!({"role": "assistant", "content": [{"type": "toolCall", "id": id,
                "name": "bash", "arguments": {"command": "step"}}], "timestamp": 110 + i});
            if i == 4 {
                call["usage"] = json!({"input": 9_000, "output": 10, "cacheRead": 0,
                                       "cacheWrite": 0, "totalTokens": 0});
                call["stopReason"] = json!("toolUse");
            }
            messages.push(call);
            messages.push(
                json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
                "content": [{"type": "text", "text": "z".repeat(4_000)}], "isError": false,
                "timestamp": 111 + i}),
            );
        }
        let text = json!({ "messages": messages }).to_string();
        let parsed = parse(&text).unwrap();
        let mut folding = fold_with(&Pi, &parsed.list, &[], false);
        // 9 010 reported, and the last result after it: 10 010 of 10 000.
        let opened = folding.relieve(10_000).unwrap();
        assert_eq!(
            opened.estimate,
            9_010 + (messages[10].to_string().len() / 4) as u64
        );
        assert_eq!(opened.masked, ["c0@111", "c1@112"]);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        let results: Vec<&str> = out["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "toolResult")
            .map(|m| m["content"][0]["text"].as_str().unwrap())
            .collect();
        assert_eq!(
            results[0],
            crate::compact::fold::valve::masked("c0@111", 4_000)
        );
        assert_eq!(results[2], "z".repeat(4_000));
        // An aborted call's usage is not counted: no estimate, the valve stays shut.
        messages[9]["stopReason"] = json!("aborted");
        let text = json!({ "messages": messages }).to_string();
        let parsed = parse(&text).unwrap();
        let mut folding = fold_with(&Pi, &parsed.list, &[], false);
        assert_eq!(folding.relieve(10_000), None);
    }

    #[test]
    fn a_popped_span_folds_to_the_pops_output_and_calls_stay_paired() {
        let text = session();
        let parsed = parse(&text).unwrap();
        assert!(parsed.warnings.is_empty());
        let folding = fold_with(&Pi, &parsed.list, &[popped()], false);
        assert!(folding.warnings.is_empty(), "{:?}", folding.warnings);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        let messages = out["messages"].as_array().unwrap();
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "toolResult"]);
        assert_eq!(
            messages[2]["content"],
            json!([{"type": "text", "text": "ENTRY"}])
        );
        assert_eq!(messages[1]["content"][1]["arguments"], json!({}));
        assert!(!out.to_string().contains("BIG OUTPUT"));
    }

    #[test]
    fn a_pop_call_holding_the_summary_keeps_it_and_gets_the_entry_without_it() {
        let text = session();
        let parsed = parse(&text).unwrap();
        let sent = |summary: &str| {
            let popped = Popped {
                by_call: Some(crate::compact::fold::ByCall {
                    summary: summary.into(),
                    entry: "SHORT".into(),
                }),
                ..popped()
            };
            let folding = fold_with(&Pi, &parsed.list, &[popped], false);
            let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
            let messages = out["messages"].as_array().unwrap();
            (
                messages[1]["content"][1]["arguments"].clone(),
                messages[2]["content"][0]["text"].clone(),
            )
        };
        // The call's summary is the recorded one: the call stays whole, the entry is the short one.
        assert_eq!(
            sent("SUMMARY"),
            (json!({"summary": "SUMMARY"}), json!("SHORT"))
        );
        // Another summary was recorded (the call does not say it): the whole entry, no arguments.
        assert_eq!(sent("Recorded otherwise"), (json!({}), json!("ENTRY")));
    }

    #[test]
    fn a_context_anchored_after_a_pop_follows_its_outputs() {
        let text = session();
        let parsed = parse(&text).unwrap();
        let folding = fold_with(&Pi, &parsed.list, &[popped()], false);
        let (at, after) = folding.needs_context(&[]).expect("the pop is a boundary");
        assert_eq!((at, after.as_str()), (5, "assistant:130"));
        let anchor = crate::compact::fold::Anchor {
            after,
            id: "m".into(),
            part: "p".into(),
            created: 200,
            text: Some("<flame-context/>".into()),
        };
        let out: Value = serde_json::from_str(&folding.write(&[anchor])).unwrap();
        let last = out["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(
            last,
            json!({"role": "custom", "customType": "ctx", "content": "<flame-context/>",
                "display": false, "timestamp": 200})
        );
    }

    #[test]
    fn prompts_are_no_boundaries_and_unknown_messages_pass() {
        let text = r#"{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1},7,{"role":"weird","x":1}],"extra":true}"#;
        let parsed = parse(text).unwrap();
        assert_eq!(
            parsed.warnings,
            [
                "a message ctx does not know (no \"role\" string) is passed on as it is",
                "a message ctx does not know (role \"weird\") is passed on as it is"
            ]
        );
        let folding = fold_with(&Pi, &parsed.list, &[], false);
        assert_eq!(folding.needs_context(&[]), None);
        assert_eq!(folding.write(&[]), text);
    }

    #[test]
    fn a_frame_pushed_and_popped_by_commands_folds_by_its_times() {
        // /push at 105, the prompt and its work, /pop at 135, the next prompt.
        let text = json!({"messages": [
            {"role": "user", "content": "Earlier", "timestamp": 100},
            {"role": "user", "content": "Fix it", "timestamp": 110},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash",
                "arguments": {}}], "timestamp": 120},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                "content": [{"type": "text", "text": "BIG"}], "isError": false, "timestamp": 121},
            {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}], "timestamp": 130},
            {"role": "user", "content": "Next", "timestamp": 140},
        ]})
        .to_string();
        let parsed = parse(&text).unwrap();
        let popped = popped_at(
            "fr_a",
            Mark::new(105, None, None),
            Mark::new(135, None, None),
            "ENTRY",
        );
        let folding = fold_with(&Pi, &parsed.list, std::slice::from_ref(&popped), false);
        assert!(folding.warnings.is_empty(), "{:?}", folding.warnings);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        let contents: Vec<&Value> = out["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| &m["content"])
            .collect();
        assert_eq!(
            contents,
            [&json!("Earlier"), &json!("ENTRY"), &json!("Next")]
        );
        // Pushed and popped with nothing between (a person's own work, say): nothing folds,
        // and the entry goes where the pop was.
        for (open, close) in [(141, 142), (125, 126)] {
            let mut empty = popped.clone();
            empty.span.open = Mark::new(open, None, None);
            empty.span.close = Some(Mark::new(close, None, None));
            let folding = fold_with(&Pi, &parsed.list, &[empty], false);
            assert!(folding.warnings.is_empty(), "{:?}", folding.warnings);
            let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
            let messages = out["messages"].as_array().unwrap();
            assert_eq!(messages.len(), 7);
            let at = messages
                .iter()
                .position(|m| m["content"] == "ENTRY")
                .unwrap();
            assert_eq!(at, if open == 141 { 6 } else { 4 }, "{out}");
        }
    }

    #[test]
    fn a_frame_pushed_and_popped_through_bash_is_placed_by_the_running_calls() {
        // `ctx frame push` and `ctx frame pop` run by the model's bash: no call ids, only times
        // inside the bash calls (c1: 110..111, c3: 130..131).
        let text = session()
            .replace("flame_push", "bash")
            .replace("flame_pop", "bash");
        let parsed = parse(&text).unwrap();
        let popped = popped_at(
            "fr_a",
            Mark::new(110, None, None),
            Mark::new(131, None, None),
            "ENTRY",
        );
        let folding = fold_with(&Pi, &parsed.list, &[popped], false);
        assert!(folding.warnings.is_empty(), "{:?}", folding.warnings);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        let messages = out["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "{out}");
        assert_eq!(messages[2]["toolCallId"], "c3");
        assert_eq!(messages[2]["content"][0]["text"], "ENTRY");
        assert!(!out.to_string().contains("BIG OUTPUT"));
    }

    /// A pi session of `turns` (None: a prompt; Some(k): an assistant message with k tool calls
    /// and their results), each message 10 ms after the one before; call ids `c<turn>_<k>`.
    fn session_of(turns: &[Option<u8>]) -> String {
        let mut messages = Vec::new();
        let mut at = 0;
        for (t, turn) in turns.iter().enumerate() {
            at += 10;
            match turn {
                None => messages
                    .push(json!({"role": "user", "content": format!("p{t}"), "timestamp": at})),
                Some(k) => {
                    let calls: Vec<Value> = (0..*k)
                        .map(|n| {
                            json!({"type": "toolCall", "id": format!("c{t}_{n}"),
                            "name": if n == 0 { "flame_pop" } else { "bash" }, "arguments": {}})
                        })
                        .collect();
                    messages.push(json!({"role": "assistant", "content": calls, "timestamp": at}));
                    for n in 0..*k {
                        at += 1;
                        messages.push(
                            // Longer than a fold's entry, so that closed turns do fold.
                            json!({"role": "toolResult", "toolCallId": format!("c{t}_{n}"),
                            "toolName": "bash", "content": [{"type": "text", "text": "o".repeat(300)}],
                            "isError": false, "timestamp": at}),
                        );
                    }
                }
            }
        }
        json!({ "messages": messages }).to_string()
    }

    /// What a strict OpenAI-compatible API refuses: a call not answered right after its
    /// message, or a result answering no call just made.
    fn pairing_error(messages: &[Value]) -> Option<String> {
        let mut pending: Vec<String> = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            if m["role"] == "toolResult" {
                let id = m["toolCallId"].as_str().unwrap_or("").to_string();
                let Some(at) = pending.iter().position(|p| *p == id) else {
                    return Some(format!("{i}: a result for {id}, which no pending call has"));
                };
                pending.remove(at);
                continue;
            }
            if !pending.is_empty() {
                return Some(format!("{i}: calls {pending:?} are not answered"));
            }
            if m["role"] == "assistant" {
                pending = m["content"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|b| b["type"] == "toolCall")
                    .map(|b| b["id"].as_str().unwrap().to_string())
                    .collect();
            }
        }
        None
    }

    proptest::proptest! {
        /// Whatever the spans (by call, by time, nested, crossing, reversed, gone), the closed
        /// turns and the anchors, folding pi's messages never panics and never separates a call
        /// from its result.
        #[test]
        fn calls_and_results_stay_paired(
            turns in proptest::collection::vec(proptest::option::of(0u8..3), 1..25),
            spans in proptest::collection::vec((0usize..30, 0usize..30, proptest::bool::ANY, proptest::bool::ANY), 0..5),
            closed in proptest::collection::vec((0i64..300, 0i64..300), 0..4),
            keep_user in proptest::bool::ANY,
        ) {
            let text = session_of(&turns);
            let parsed = parse(&text).unwrap();
            let mark = |t: usize, by_call: bool| {
                let t = t.min(turns.len() - 1);
                if by_call && turns[t].is_some_and(|k| k > 0) {
                    Mark::new(0, None, Some(&format!("c{t}_0")))
                } else {
                    Mark::new(10 * t as i64 + 5, None, None)
                }
            };
            let popped: Vec<Popped> = spans
                .iter()
                .enumerate()
                .map(|(n, &(open, close, a, b))| {
                    popped_at(&format!("fr_{n}"), mark(open, a), mark(close, b), &format!("ENTRY {n}"))
                })
                .collect();
            let mut folding = fold_with(&Pi, &parsed.list, &popped, keep_user);
            let closed: Vec<Turn> = closed
                .iter()
                .enumerate()
                .map(|(n, &(open, close))| Turn {
                    id: format!("fr_t{n}"),
                    start: None,
                    opened_at: open,
                    closed_at: close,
                })
                .collect();
            folding.fold_turns(&closed);
            let anchors: Vec<crate::compact::fold::Anchor> = folding
                .needs_context(&[])
                .map(|(_, after)| crate::compact::fold::Anchor {
                    after,
                    id: "m".into(),
                    part: "p".into(),
                    created: 1,
                    text: Some("<flame-context/>".into()),
                })
                .into_iter()
                .collect();
            let out: Value = serde_json::from_str(&folding.write(&anchors)).unwrap();
            let messages = out["messages"].as_array().unwrap();
            proptest::prop_assert_eq!(pairing_error(messages), None);
        }
    }

    /// A prompt at 100, then one turn per `(call id, tool, output)`: an assistant message at
    /// 110, 120, … calling it, and its result 2 ms later (the call ran from 10 n to 10 n + 2).
    fn turns(calls: &[(&str, &str, &str)]) -> String {
        let mut messages =
            vec![json!({"role": "user", "content": "Audit refunds", "timestamp": 100})];
        for (n, (id, tool, output)) in calls.iter().enumerate() {
            let at = 110 + 10 * n as i64;
            messages.push(
                json!({"role": "assistant", "content": [{"type": "toolCall", "id": id,
                "name": tool, "arguments": {}}], "timestamp": at}),
            );
            messages.push(
                json!({"role": "toolResult", "toolCallId": id, "toolName": tool,
                "content": [{"type": "text", "text": output}], "isError": false,
                "timestamp": at + 2}),
            );
        }
        json!({ "messages": messages }).to_string()
    }

    /// What is sent of `text` with `popped` folded: the messages, and the warnings.
    fn sent(text: &str, popped: &[Popped]) -> (Vec<Value>, Vec<String>) {
        let parsed = parse(text).unwrap();
        let folding = fold_with(&Pi, &parsed.list, popped, false);
        let warnings = folding.warnings.clone();
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        (out["messages"].as_array().unwrap().clone(), warnings)
    }

    /// Each message as its role and the tool it calls or the text it holds.
    fn outline(messages: &[Value]) -> Vec<String> {
        messages
            .iter()
            .map(|m| match m["role"].as_str().unwrap() {
                "assistant" => format!("call {}", m["content"][0]["name"].as_str().unwrap()),
                "toolResult" => format!("result {}", m["content"][0]["text"].as_str().unwrap()),
                role => format!("{role} {}", m["content"].as_str().unwrap()),
            })
            .collect()
    }

    #[test]
    fn call_ids_that_repeat_every_turn_fold_the_frame_between_its_push_and_pop() {
        // Some OpenAI-compatible servers number each response's calls from call_0: the push
        // (running at 121) and the pop (at 141) are the call_0 that was running then.
        let text = turns(&[
            ("call_0", "bash", "EARLY"),
            ("call_0", "flame_push", "Pushed"),
            ("call_0", "bash", "BIG"),
            ("call_0", "flame_pop", "Popped"),
        ]);
        let popped = popped_at(
            "fr_a",
            Mark::new(121, None, Some("call_0")),
            Mark::new(141, None, Some("call_0")),
            "ENTRY",
        );
        let (messages, warnings) = sent(&text, &[popped]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            outline(&messages),
            [
                "user Audit refunds",
                "call bash",
                "result EARLY",
                "call flame_pop",
                "result ENTRY"
            ]
        );
    }

    #[test]
    fn a_push_whose_call_id_repeats_an_earlier_call_folds_nothing_before_it() {
        let text = turns(&[
            ("call_7", "bash", "EARLY"),
            ("call_7", "flame_push", "Pushed"),
            ("call_8", "bash", "BIG"),
            ("call_9", "flame_pop", "Popped"),
        ]);
        let popped = popped_at(
            "fr_a",
            Mark::new(121, None, Some("call_7")),
            Mark::new(141, None, Some("call_9")),
            "ENTRY",
        );
        let (messages, warnings) = sent(&text, &[popped]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            outline(&messages),
            [
                "user Audit refunds",
                "call bash",
                "result EARLY",
                "call flame_pop",
                "result ENTRY"
            ]
        );
    }

    #[test]
    fn a_repeated_call_id_the_time_cannot_tell_apart_is_not_folded_and_says_why() {
        let text = turns(&[
            ("call_0", "bash", "EARLY"),
            ("call_0", "flame_push", "Pushed"),
            ("call_1", "bash", "BIG"),
            ("call_2", "flame_pop", "Popped"),
        ]);
        let mut doc: Value = serde_json::from_str(&text).unwrap();
        // The earlier call_0 and its result have no time (another extension's, say): it may
        // have been running at the push as well as the push's own call.
        for m in 1..=2 {
            doc["messages"][m]
                .as_object_mut()
                .unwrap()
                .remove("timestamp");
        }
        let untimed = doc.to_string();
        // Or two calls of one response share an id, both running at the mark: the message at
        // `at` gets a second call with its first call's id, and a result for it.
        let twice = |at: usize| {
            let mut doc: Value = serde_json::from_str(&text).unwrap();
            let messages = doc["messages"].as_array_mut().unwrap();
            let call = messages[at]["content"][0].clone();
            messages[at]["content"].as_array_mut().unwrap().push(call);
            let mut result = messages[at + 1].clone();
            result["timestamp"] = json!(result["timestamp"].as_i64().unwrap() + 1);
            messages.insert(at + 2, result);
            doc.to_string()
        };
        let popped = popped_at(
            "fr_a",
            Mark::new(121, None, Some("call_0")),
            Mark::new(141, None, Some("call_2")),
            "ENTRY",
        );
        let why = |end: &str, call: &str| {
            format!(
                "frame fr_a: its {end}'s call id \"{call}\" repeats among the messages, and its \
                 time does not tell which call it is; not folded"
            )
        };
        for (text, warning) in [
            (untimed, why("push", "call_0")),
            (twice(3), why("push", "call_0")),
            (twice(7), why("pop", "call_2")),
        ] {
            let (messages, warnings) = sent(&text, std::slice::from_ref(&popped));
            assert_eq!(warnings, [warning]);
            let given: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(messages, given["messages"].as_array().unwrap().clone());
        }
    }

    #[test]
    fn a_repeated_call_id_none_of_whose_calls_ran_at_the_push_is_a_push_out_of_view() {
        // pi's compaction took the push's turn away; two later calls reuse its id. Neither is
        // the push: the frame folds as one whose push is gone, by its time.
        let text = turns(&[
            ("call_0", "bash", "BIG 1"),
            ("call_0", "bash", "BIG 2"),
            ("call_1", "flame_pop", "Popped"),
        ]);
        let popped = popped_at(
            "fr_a",
            Mark::new(105, None, Some("call_0")),
            Mark::new(131, None, Some("call_1")),
            "ENTRY",
        );
        let (messages, warnings) = sent(&text, &[popped]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            outline(&messages),
            ["user Audit refunds", "call flame_pop", "result ENTRY"]
        );
    }

    proptest::proptest! {
        /// Whatever the numbering of the call ids (repeating across turns or not), a frame pushed
        /// and popped by calls folds, with no warning, and nothing written before its push's
        /// message is left out.
        #[test]
        fn repeated_call_ids_never_fold_what_came_before_the_push(
            turns in proptest::collection::vec(proptest::option::of((1u8..3, 0u8..3)), 2..16),
            ends in (0usize..16, 0usize..16),
        ) {
            // Each turn: a prompt (None) or an assistant message with k calls numbered from
            // `base` (ids repeat across turns, never within one message), 10 ms apart.
            let calling: Vec<usize> = (0..turns.len()).filter(|&t| turns[t].is_some()).collect();
            proptest::prop_assume!(calling.len() >= 2);
            let (a, b) = (ends.0 % calling.len(), ends.1 % calling.len());
            proptest::prop_assume!(a != b);
            let (push, pop) = (calling[a.min(b)], calling[a.max(b)]);
            let mut messages = Vec::new();
            let mut first = Vec::new();
            for (t, turn) in turns.iter().enumerate() {
                let at = 100 + 10 * t as i64;
                let Some((k, base)) = turn else {
                    messages.push(json!({"role": "user", "content": format!("p{t}"), "timestamp": at}));
                    first.push(None);
                    continue;
                };
                let id = |n: u8| format!("call_{}", base + n);
                let tool = |n: u8| match (n, t) {
                    (0, t) if t == push => "flame_push",
                    (0, t) if t == pop => "flame_pop",
                    _ => "bash",
                };
                let calls: Vec<Value> = (0..*k)
                    .map(|n| json!({"type": "toolCall", "id": id(n), "name": tool(n), "arguments": {}}))
                    .collect();
                messages.push(json!({"role": "assistant", "content": calls, "timestamp": at}));
                for n in 0..*k {
                    messages.push(json!({"role": "toolResult", "toolCallId": id(n),
                        "toolName": tool(n), "content": [{"type": "text", "text": format!("out {t} {n}")}],
                        "isError": false, "timestamp": at + 1 + i64::from(n)}));
                }
                first.push(Some(id(0)));
            }
            let text = json!({ "messages": messages }).to_string();
            // ctx runs while the call runs: after its message was written, before its result.
            let mark = |t: usize| Mark::new(100 + 10 * t as i64 + 1, None, first[t].as_deref());
            let popped = popped_at("fr_a", mark(push), mark(pop), "ENTRY");
            let (out, warnings) = sent(&text, &[popped]);
            proptest::prop_assert!(warnings.is_empty(), "{:?}", warnings);
            proptest::prop_assert!(out.iter().any(|m| m["content"][0]["text"] == "ENTRY"));
            let pushed_at = 100 + 10 * push as i64;
            for m in messages.iter().filter(|m| m["timestamp"].as_i64().unwrap() < pushed_at) {
                proptest::prop_assert!(out.contains(m), "{} was folded", m);
            }
        }
    }

    #[test]
    fn messages_of_one_millisecond_get_ids_of_their_own() {
        let text = r#"{"messages":[{"role":"user","content":"a","timestamp":1},{"role":"user","content":"b","timestamp":1}]}"#;
        let parsed = parse(text).unwrap();
        let ids: Vec<&str> = parsed.list.messages().iter().map(|m| m.id()).collect();
        assert_eq!(ids, ["user:1", "user:1#2"]);
    }

    /// What is sent of `text` with the closed turns `turns` folded, and no popped frame.
    fn with_turns(text: &str, turns: &[Turn]) -> Vec<Value> {
        let parsed = parse(text).unwrap();
        let mut folding = fold_with(&Pi, &parsed.list, &[], false);
        folding.fold_turns(turns);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        out["messages"].as_array().unwrap().clone()
    }

    fn closed_turn(opened_at: i64, closed_at: i64) -> Turn {
        Turn {
            id: "fr_turn".into(),
            start: None,
            opened_at,
            closed_at,
        }
    }

    /// Two person turns: the first (prompt at 100, opened at 105, closed at 150) runs bash (c1,
    /// with text beside it), then flame_status (c2) and answers; the second (prompt at 200) runs
    /// bash (c3).
    /// A tool output of 300 characters and more, tagged `tag`.
    fn big(tag: &str) -> String {
        format!("BIG {tag} {}", ".".repeat(300))
    }

    fn two_turns() -> String {
        json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "PERSON0: build"}], "timestamp": 100},
            {"role": "custom", "customType": "ctx", "content": "<flame-context/>", "display": false,
                "timestamp": 106},
            {"role": "assistant", "content": [{"type": "text", "text": "Building."},
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "make"}}],
                "stopReason": "toolUse", "timestamp": 110},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                "content": [{"type": "text", "text": big("ONE")}], "details": {"x": 1},
                "isError": true, "timestamp": 111},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c2", "name": "flame_status",
                "arguments": {}}], "stopReason": "toolUse", "timestamp": 120},
            {"role": "toolResult", "toolCallId": "c2", "toolName": "flame_status",
                "content": [{"type": "text", "text": "TREE"}], "isError": false, "timestamp": 121},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "more"},
                {"type": "toolCall", "id": "c1b", "name": "bash", "arguments": {"command": "make docs"}}],
                "stopReason": "toolUse", "timestamp": 122},
            {"role": "toolResult", "toolCallId": "c1b", "toolName": "bash",
                "content": [{"type": "text", "text": big("ONE-B")}], "isError": false, "timestamp": 123},
            {"role": "assistant", "content": [{"type": "text", "text": "ASSIST0: built"}],
                "stopReason": "stop", "timestamp": 130},
            {"role": "user", "content": [{"type": "text", "text": "PERSON1: test"}], "timestamp": 200},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c3", "name": "bash",
                "arguments": {"command": "make test"}}], "stopReason": "toolUse", "timestamp": 210},
            {"role": "toolResult", "toolCallId": "c3", "toolName": "bash",
                "content": big("TWO"), "isError": false, "timestamp": 211},
        ]})
        .to_string()
    }

    #[test]
    fn a_closed_turn_sends_its_texts_and_one_entry_and_every_call_left_has_its_result() {
        let text = two_turns();
        let given: Value = serde_json::from_str(&text).unwrap();
        let given = given["messages"].as_array().unwrap().clone();
        let out = with_turns(&text, &[closed_turn(105, 150)]);
        // The second bash call's message (a call and thinking) and its result go.
        assert_eq!(out.len(), given.len() - 2);
        // Everything else byte for byte but the first call, whose input is emptied, and its
        // result, which is the turn's entry: the texts, flame_status's call and result, the
        // running turn.
        let kept: Vec<usize> = (0..given.len()).filter(|&i| i != 6 && i != 7).collect();
        for (n, &i) in kept.iter().enumerate().filter(|&(_, &i)| i != 2 && i != 3) {
            assert_eq!(out[n], given[i], "message {i}");
        }
        let mut call = given[2].clone();
        call["content"][1]["arguments"] = json!({});
        assert_eq!(out[2], call);
        let mut folded = given[3].clone();
        let chars = big("ONE").len() + big("ONE-B").len();
        folded["content"] = json!([{"type": "text", "text": entry("fr_turn", None, 2, chars)}]);
        assert_eq!(out[3], folded);
        assert_eq!(pairing_error(&out), None);
        // Folded twice, it is the same.
        let again = json!({ "messages": out }).to_string();
        assert_eq!(with_turns(&again, &[closed_turn(105, 150)]), out);
    }

    #[test]
    fn a_turn_spans_the_messages_written_while_it_ran() {
        let text = two_turns();
        let output = |out: &[Value], i: usize| out[i]["content"].to_string();
        // Closed before its second call ran: only the first result is the turn's.
        let out = with_turns(&text, &[closed_turn(105, 115)]);
        assert!(output(&out, 3).contains("ctx folded"));
        assert!(output(&out, 7).contains("BIG ONE-B"));
        assert!(output(&out, 11).contains("BIG TWO"));
        // The second turn, once closed, folds its own result: a string content too.
        let out = with_turns(&text, &[closed_turn(105, 150), closed_turn(205, 250)]);
        assert_eq!(
            out[9]["content"],
            json!([{"type": "text", "text": entry("fr_turn", None, 1, big("TWO").len())}])
        );
        // A turn nothing was written in (its prompt's work is not among the messages) folds
        // nothing, not even the next turn's messages.
        let given: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            json!(with_turns(&text, &[closed_turn(140, 150)])),
            given["messages"]
        );
        // Outputs no longer than the entry would be stay as they are.
        let small = text
            .replace(&big("ONE"), "ONE")
            .replace(&big("ONE-B"), "ONE-B");
        let given: Value = serde_json::from_str(&small).unwrap();
        assert_eq!(
            json!(with_turns(&small, &[closed_turn(105, 150)])),
            given["messages"]
        );
    }
}

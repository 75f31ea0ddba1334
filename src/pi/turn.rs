//! A person's turn in pi, for its turn frame (`frame.auto = turns`): the messages ctx's extension
//! gives at the turn's end (pi's `agent_end` messages, the ones of the person's prompt), cut to
//! the turn, read into the export shape a frame's log is written from, and what they say for
//! the turn's summary (made in `frame::digest`): pi's tools, and how the turn ended.
//!
//! pi's messages (autoframes.md §2): `{role: "user", content, timestamp}`; `{role: "assistant",
//! content: [text | thinking | toolCall {id, name, arguments}], stopReason, errorMessage?,
//! timestamp}`; `{role: "toolResult", toolCallId, toolName, content, isError, timestamp}`; and
//! the `custom`, `bashExecution`, `branchSummary` and `compactionSummary` messages. A message of
//! another shape, or a field of the wrong type, reads as absent: the turn still closes.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::conversation::Export;
use crate::frame::digest::Ending;

/// pi's tools whose `command` input is a shell command.
pub const SHELL_TOOLS: &[&str] = &["bash"];
/// pi's tools that change a file, and their input naming it: `path` (`file_path` is read too, as
/// pi's own tools read it).
pub const EDITING_TOOLS: &[&str] = &["edit", "write"];
pub const PATH_KEYS: &[&str] = &["path", "file_path"];

/// How pi's `bash` tool ends the output of a command that exited with another code than 0,
/// which it reports as an error.
const EXIT_LINE: &str = "Command exited with code ";

fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

fn timestamp(message: &Value) -> Option<i64> {
    let at = message.get("timestamp")?;
    at.as_i64()
        .or_else(|| at.as_f64().filter(|f| f.is_finite()).map(|f| f as i64))
}

/// The turn's messages among `messages`, for a turn that opened at `opened` (ctx's clock, epoch
/// ms): those written from then on, and the person's message just before them, which pi writes
/// before the extension opens the turn. Messages with no time at all are all the turn's.
pub fn cut(messages: &[Value], opened: i64) -> &[Value] {
    if !messages.iter().any(|m| timestamp(m).is_some()) {
        return messages;
    }
    let first = messages
        .iter()
        .position(|m| timestamp(m).is_some_and(|t| t >= opened))
        .unwrap_or(messages.len());
    let start = messages[..first]
        .iter()
        .rposition(|m| role(m) == "user")
        .unwrap_or(first);
    &messages[start..]
}

/// How the turn of `messages` ended: its last assistant message's `stopReason` (`aborted`: the
/// person stopped it; `error`, with its `errorMessage`).
pub fn ending(messages: &[Value]) -> Ending {
    let last = messages.iter().rev().find(|m| role(m) == "assistant");
    match last
        .and_then(|m| m.get("stopReason"))
        .and_then(Value::as_str)
    {
        Some("aborted") => Ending::Interrupted,
        Some("error") => Ending::Failed(
            last.and_then(|m| m.get("errorMessage"))
                .and_then(Value::as_str)
                .filter(|e| !e.trim().is_empty())
                .map(str::to_string),
        ),
        _ => Ending::Finished,
    }
}

/// The text of a `content` that is a string or an array of blocks: the text blocks, joined by
/// lines, and any other block named (`[image]`).
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| match block.get("type").and_then(Value::as_str)? {
                "text" => block
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                other => Some(format!("[{other}]")),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The exit code a `bash` result says: 0 for one that is no error, the code of pi's last line
/// for one that exited with another; none for an error that is no exit (aborted, timed out).
fn exit_code(text: &str, is_error: bool) -> Option<i64> {
    if !is_error {
        return Some(0);
    }
    let last = text.trim_end().lines().last()?;
    last.strip_prefix(EXIT_LINE)?.trim().parse().ok()
}

/// A tool call as an export's tool part, with its output or error from `result` (none: still
/// running when the turn closed).
fn tool_part(call: &Value, created: Option<i64>, result: Option<&Value>) -> Option<Value> {
    let tool = call.get("name").and_then(Value::as_str)?;
    let mut state = Map::new();
    state.insert(
        "input".into(),
        call.get("arguments").cloned().unwrap_or(json!({})),
    );
    match result {
        Some(result) => {
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            let text = content_text(result.get("content"));
            if SHELL_TOOLS.contains(&tool)
                && let Some(code) = exit_code(&text, is_error)
            {
                state.insert("metadata".into(), json!({ "exit": code }));
            }
            let (status, key) = if is_error {
                ("error", "error")
            } else {
                ("completed", "output")
            };
            state.insert("status".into(), json!(status));
            state.insert(key.into(), Value::String(text));
            if let (Some(start), Some(end)) = (created, timestamp(result)) {
                state.insert("time".into(), json!({ "start": start, "end": end }));
            }
        }
        None => {
            state.insert("status".into(), json!("running"));
        }
    }
    Some(json!({
        "type": "tool",
        "tool": tool,
        "callID": call.get("id").and_then(Value::as_str).unwrap_or(""),
        "state": state,
    }))
}

/// The parts of an assistant message's content: texts, thinking as reasoning, and each tool call
/// with its result.
fn assistant_parts(
    message: &Value,
    created: Option<i64>,
    results: &HashMap<&str, &Value>,
) -> Vec<Value> {
    let Some(Value::Array(blocks)) = message.get("content") else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter_map(|block| {
            let text = |key: &str| block.get(key).and_then(Value::as_str);
            match text("type")? {
                "text" => Some(json!({ "type": "text", "text": text("text")? })),
                "thinking" => Some(json!({ "type": "reasoning", "text": text("thinking")? })),
                "toolCall" => {
                    let result = text("id").and_then(|id| results.get(id).copied());
                    tool_part(block, created, result)
                }
                _ => None,
            }
        })
        .collect()
}

/// The turn's messages (`messages`, [`cut`]) in the shape `opencode export` prints, as a frame's
/// log reads them: each tool call with its input and its output, the person's words as text,
/// what pi or an extension added (ctx's frame context, a summary) as synthetic text.
pub fn to_export(messages: &[Value], session: &str, title: &str) -> Export {
    let mut results: HashMap<&str, &Value> = HashMap::new();
    for message in messages.iter().filter(|m| role(m) == "toolResult") {
        if let Some(call) = message.get("toolCallId").and_then(Value::as_str) {
            results.insert(call, message);
        }
    }
    let mut out = Vec::new();
    for message in messages {
        let created = timestamp(message);
        let text = |text: String, synthetic: bool| {
            let mut part = json!({ "type": "text", "text": text });
            if synthetic {
                part["synthetic"] = json!(true);
            }
            vec![part]
        };
        let (export_role, parts) = match role(message) {
            "assistant" => ("assistant", assistant_parts(message, created, &results)),
            "user" => ("user", text(content_text(message.get("content")), false)),
            "custom" => ("user", text(content_text(message.get("content")), true)),
            "bashExecution" => {
                let field = |key: &str| message.get(key).and_then(Value::as_str).unwrap_or("");
                let shown = format!("$ {}\n{}", field("command"), field("output"));
                ("user", text(shown, false))
            }
            "branchSummary" | "compactionSummary" => {
                let summary = message.get("summary").and_then(Value::as_str).unwrap_or("");
                ("user", text(summary.to_string(), true))
            }
            // A tool's result goes with its call; another shape is not pi's.
            _ => continue,
        };
        let mut info = json!({ "role": export_role, "sessionID": session });
        if let Some(created) = created {
            info["time"] = json!({ "created": created });
        }
        out.push(json!({ "info": info, "parts": parts }));
    }
    let root = json!({
        "info": { "id": session, "title": title, "ctxSource": "pi" },
        "messages": out,
    });
    Export::from_value(root).expect("the export is built in its own shape")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::digest::{Digest, Tools};

    /// The summary and files of the turn of `messages`, as ctx closes it.
    fn digest(turn: &Export, messages: &[Value]) -> Digest {
        let tools = Tools {
            shell: SHELL_TOOLS,
            editing: EDITING_TOOLS,
            path_keys: PATH_KEYS,
        };
        crate::frame::digest::digest(turn, &tools, &ending(messages))
    }

    fn user(text: &str, at: i64) -> Value {
        json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": at})
    }

    fn calling(id: &str, tool: &str, arguments: Value, at: i64) -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": tool,
            "arguments": arguments}], "stopReason": "toolUse", "timestamp": at})
    }

    fn result(id: &str, text: &str, is_error: bool, at: i64) -> Value {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": is_error, "timestamp": at})
    }

    fn answer(text: &str, stop: &str, at: i64) -> Value {
        json!({"role": "assistant", "content": [{"type": "text", "text": text}],
            "stopReason": stop, "timestamp": at})
    }

    #[test]
    fn a_turn_is_cut_from_the_persons_message_before_its_open() {
        let messages = vec![
            user("old", 10),
            answer("old answer", "stop", 11),
            user("new", 20),
            json!({"role": "custom", "customType": "ctx", "content": "<flame-context/>",
                "timestamp": 31}),
            answer("new answer", "stop", 32),
        ];
        assert_eq!(cut(&messages, 30), &messages[2..]);
        // Only the turn's messages given (pi's agent_end): all of them.
        assert_eq!(cut(&messages[2..], 30), &messages[2..]);
        assert_eq!(cut(&messages[4..], 30), &messages[4..]);
        // No times at all: nothing to cut by.
        let untimed = vec![json!({"role": "user", "content": "a"}), json!("x")];
        assert_eq!(cut(&untimed, 30), &untimed[..]);
    }

    #[test]
    fn the_summary_reads_pis_tools_exit_codes_and_files() {
        let messages = vec![
            user("Fix the build", 10),
            calling("c1", "bash", json!({"command": "cargo build"}), 11),
            result(
                "c1",
                "error[E0308]\n\nCommand exited with code 101",
                true,
                12,
            ),
            calling("c2", "edit", json!({"path": "src/a.rs", "edits": []}), 13),
            result("c2", "Edited", false, 14),
            calling("c3", "bash", json!({"command": "cargo test"}), 15),
            result("c3", "ok", false, 16),
            calling("c4", "bash", json!({"command": "sleep 99"}), 17),
            result("c4", "\n\nCommand aborted", true, 18),
            calling(
                "c5",
                "write",
                json!({"file_path": "b.md", "content": "x"}),
                19,
            ),
            result("c5", "Wrote", false, 20),
            answer("Fixed.", "stop", 21),
        ];
        let turn = to_export(&messages, "pi_s", "Fix the build");
        assert_eq!(
            digest(&turn, &messages),
            Digest {
                summary: "Fixed.\n\nCommands: `cargo build` (exit 101); `cargo test` (exit 0); \
                          `sleep 99` (error)"
                    .into(),
                files: vec!["src/a.rs".into(), "b.md".into()],
            }
        );
    }

    #[test]
    fn an_interrupted_or_failed_turn_says_so() {
        let aborted = vec![
            user("Go", 10),
            answer("Working on", "toolUse", 11),
            answer("", "aborted", 12),
        ];
        assert_eq!(
            digest(&to_export(&aborted, "pi_s", "Go"), &aborted).summary,
            "Working on\n\nThe person interrupted the turn."
        );
        let mut failed = vec![user("Go", 10), answer("", "error", 11)];
        failed[1]["errorMessage"] = json!("429 rate limited");
        assert_eq!(
            digest(&to_export(&failed, "pi_s", "Go"), &failed).summary,
            "The turn ended without assistant text.\n\nThe turn ended on an error: 429 rate \
             limited"
        );
    }

    #[test]
    fn the_export_pairs_each_call_with_its_result_and_marks_what_pi_added() {
        let messages = vec![
            user("Go", 10),
            json!({"role": "custom", "customType": "ctx", "content": "<flame-context/>",
                "timestamp": 11}),
            calling("c1", "bash", json!({"command": "ls"}), 12),
            result("c1", "a b", false, 13),
            calling("c2", "read", json!({"path": "a"}), 14),
            json!({"role": "bashExecution", "command": "pwd", "output": "/x", "timestamp": 15}),
            json!({"role": "hologram"}),
            json!(7),
        ];
        let export = to_export(&messages, "pi_s", "Go");
        assert_eq!(export.source(), Some("pi"));
        let all: Vec<Value> = export
            .messages()
            .map(|m| json!({"role": m.role(), "parts": m.parts}))
            .collect();
        assert_eq!(
            all,
            [
                json!({"role": "user", "parts": [{"type": "text", "text": "Go"}]}),
                json!({"role": "user", "parts": [{"type": "text", "text": "<flame-context/>",
                    "synthetic": true}]}),
                json!({"role": "assistant", "parts": [{"type": "tool", "tool": "bash",
                    "callID": "c1", "state": {"input": {"command": "ls"}, "metadata": {"exit": 0},
                    "status": "completed", "output": "a b", "time": {"start": 12, "end": 13}}}]}),
                json!({"role": "assistant", "parts": [{"type": "tool", "tool": "read",
                    "callID": "c2", "state": {"input": {"path": "a"}, "status": "running"}}]}),
                json!({"role": "user", "parts": [{"type": "text", "text": "$ pwd\n/x"}]}),
            ]
        );
    }

    #[test]
    fn fields_of_the_wrong_type_read_as_absent() {
        let messages = vec![
            json!({"role": "user", "content": 5, "timestamp": "soon"}),
            json!({"role": "assistant", "content": {"type": "text"}, "stopReason": 3}),
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": 1, "name": "bash",
                "arguments": "ls"}, {"type": "text", "text": null}, 4]}),
            json!({"role": "toolResult", "toolCallId": ["c1"], "content": [{"type": 2}],
                "isError": "yes"}),
        ];
        let export = to_export(cut(&messages, 0), "pi_s", "x");
        assert_eq!(export.messages().count(), 3);
        // The call's arguments are no object: no command to name.
        assert_eq!(
            digest(&export, &messages).summary,
            "The turn ended without assistant text."
        );
        assert_eq!(ending(&messages), Ending::Finished);
    }
}

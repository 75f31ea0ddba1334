//! A person's turn in an OpenCode export, for its turn frame (`frame.auto = turns`): which
//! messages are the turn's, and the summary made of them mechanically, with no model: the turn's
//! last assistant text, whether the person interrupted it, and the commands it ran with their
//! exit codes; the files it edited are the frame's artifacts.

use serde_json::Value;

use super::export::Export;

/// Longest command shown in a summary, in characters: a summary is read in trees and logs.
const MAX_COMMAND_CHARS: usize = 80;

/// The tools whose `filePath` input is a file the turn changed.
const EDITING_TOOLS: &[&str] = &["edit", "write", "multiedit", "patch"];

/// Whether a synthetic text is one of ctx's own: a `<flame-context>`, a fold entry, or the hint
/// of a completion notice (`ctx compact notice`).
pub fn is_own_text(text: &str) -> bool {
    text.starts_with("<flame-context")
        || text.starts_with("<flame-folded")
        || (text.starts_with("Frame ") && text.contains(" finished with status "))
}

/// The text oh-my-opencode ends its own prompts with (its 4.19.4 `dist/index.js`): a prompt of a
/// plugin, not a person's (autoframes.md §1.3).
const OMO_MARKER: &str = "<!-- OMO_INTERNAL_INITIATOR -->";

/// Whether a user message's text is another plugin's prompt rather than a person's.
pub fn is_plugin_prompt(text: &str) -> bool {
    text.contains(OMO_MARKER)
}

/// Whether an OpenCode message (`info.role` and its parts) is a person's: a user message with a
/// text that is not synthetic and not blank, which is neither ctx's own (a notice's hint) nor
/// another plugin's prompt. The rule of autoframes.md §1.3, for exports; `compact::fold::View::person` is the
/// same for the transform's messages.
pub fn is_person(role: &str, parts: &[Value]) -> bool {
    if role != "user" {
        return false;
    }
    let texts = parts
        .iter()
        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"));
    let mut typed = false;
    for part in texts {
        let text = part.get("text").and_then(Value::as_str).unwrap_or("");
        let synthetic = part.get("synthetic").and_then(Value::as_bool) == Some(true);
        if synthetic && is_own_text(text) {
            return false;
        }
        if is_plugin_prompt(text) {
            return false;
        }
        typed |= !synthetic && !text.trim().is_empty();
    }
    typed
}

/// What a turn's frame records when it closes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub summary: String,
    /// The files it edited, each once, in the order first edited.
    pub files: Vec<String>,
}

/// The turn's messages in `export`: from the person's message `start` up to (not including) the
/// next person's message. A `start` the export does not hold (compacted away, or an export
/// already cut to the turn) keeps the export from its first message on, up to the first person's
/// message after that first one.
pub fn span(export: &Export, start: &str) -> Export {
    export.cut(start, |m| is_person(m.role(), m.parts))
}

/// The summary and files of a turn whose messages are `turn` ([`span`]).
pub fn digest(turn: &Export) -> Digest {
    digest_or(turn, "The turn ended without assistant text.")
}

/// [`digest`] of any span of messages, whose summary is `no_text` when it holds no assistant
/// text.
pub fn digest_or(turn: &Export, no_text: &str) -> Digest {
    let mut summary = turn
        .last_assistant_text()
        .unwrap_or_else(|| no_text.to_string());
    let interrupted = turn.messages().any(|m| {
        m.role() == "assistant"
            && m.info
                .get("error")
                .and_then(|e| e.get("name"))
                .and_then(Value::as_str)
                == Some("MessageAbortedError")
    });
    if interrupted {
        summary.push_str("\n\nThe person interrupted the turn.");
    }
    let mut commands = Vec::new();
    let mut files: Vec<String> = Vec::new();
    for part in turn.messages().flat_map(|m| m.parts.iter()) {
        if part.get("type").and_then(Value::as_str) != Some("tool") {
            continue;
        }
        let tool = part.get("tool").and_then(Value::as_str).unwrap_or("");
        let state = part.get("state");
        let input = state.and_then(|s| s.get("input"));
        let text = |key: &str| input.and_then(|i| i.get(key)).and_then(Value::as_str);
        if tool == "bash"
            && let Some(command) = text("command").filter(|c| !c.trim().is_empty())
        {
            commands.push(format!("`{}` ({})", shown(command), outcome(state)));
        }
        if EDITING_TOOLS.contains(&tool)
            && let Some(path) = text("filePath").filter(|p| !p.trim().is_empty())
            && !files.iter().any(|f| f == path)
        {
            files.push(path.to_string());
        }
    }
    if !commands.is_empty() {
        summary.push_str("\n\nCommands: ");
        summary.push_str(&commands.join("; "));
    }
    Digest { summary, files }
}

/// A command on one line, cut to [`MAX_COMMAND_CHARS`].
fn shown(command: &str) -> String {
    let line = command.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= MAX_COMMAND_CHARS {
        return line.replace('`', "'");
    }
    let cut: String = line.chars().take(MAX_COMMAND_CHARS - 1).collect();
    format!("{}…", cut.replace('`', "'"))
}

/// How a bash call ended: its exit code, an error, or still running when the turn closed.
fn outcome(state: Option<&Value>) -> String {
    let status = state
        .and_then(|s| s.get("status"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let exit = state
        .and_then(|s| s.get("metadata"))
        .and_then(|m| m.get("exit"))
        .and_then(Value::as_i64);
    match (status, exit) {
        (_, Some(code)) => format!("exit {code}"),
        ("completed", None) => "completed".to_string(),
        ("error", None) => "error".to_string(),
        _ => "not finished".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn export(messages: Vec<Value>) -> Export {
        Export::from_value(json!({"info": {"id": "ses_a"}, "messages": messages})).unwrap()
    }

    fn user(id: &str, text: &str) -> Value {
        json!({"info": {"id": id, "role": "user"}, "parts": [{"type": "text", "text": text}]})
    }

    fn assistant(id: &str, parts: Vec<Value>) -> Value {
        json!({"info": {"id": id, "role": "assistant"}, "parts": parts})
    }

    fn bash(command: &str, exit: i64) -> Value {
        json!({"type": "tool", "tool": "bash", "callID": "c", "state": {"status": "completed",
            "input": {"command": command}, "output": "out", "metadata": {"exit": exit}}})
    }

    #[test]
    fn a_turn_runs_from_its_message_to_the_next_persons() {
        let notice = json!({"info": {"id": "msg_3", "role": "user"}, "parts": [
            {"type": "text", "text": "Frame ses_b completed: done"},
            {"type": "text", "synthetic": true,
             "text": "Frame ses_b finished with status completed. …"}]});
        let omo = user("msg_4", "Continue <!-- OMO_INTERNAL_INITIATOR -->");
        let all = export(vec![
            user("msg_0", "before"),
            user("msg_1", "Fix the build"),
            assistant("msg_2", vec![bash("cargo build", 0)]),
            notice,
            omo,
            assistant("msg_5", vec![json!({"type": "text", "text": "Fixed."})]),
            user("msg_6", "Next"),
        ]);
        let ids: Vec<String> = span(&all, "msg_1")
            .messages()
            .map(|m| m.info["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids, ["msg_1", "msg_2", "msg_3", "msg_4", "msg_5"]);
    }

    #[test]
    fn the_summary_is_the_last_text_then_the_commands_and_the_files_are_artifacts() {
        let turn = export(vec![
            user("msg_1", "Fix the build"),
            assistant(
                "msg_2",
                vec![
                    bash("cargo build\n  --release", 101),
                    json!({"type": "tool", "tool": "edit", "state": {"status": "completed",
                        "input": {"filePath": "src/a.rs"}, "output": "ok"}}),
                    json!({"type": "tool", "tool": "write", "state": {"status": "completed",
                        "input": {"filePath": "src/a.rs"}, "output": "ok"}}),
                ],
            ),
            assistant(
                "msg_3",
                vec![
                    bash("cargo test", 0),
                    json!({"type": "text", "text": "Fixed."}),
                ],
            ),
        ]);
        assert_eq!(
            digest(&turn),
            Digest {
                summary: "Fixed.\n\nCommands: `cargo build --release` (exit 101); `cargo test` \
                          (exit 0)"
                    .into(),
                files: vec!["src/a.rs".into()],
            }
        );
    }

    #[test]
    fn a_turn_without_text_or_interrupted_says_so() {
        let mut aborted = assistant("msg_2", vec![]);
        aborted["info"]["error"] = json!({"name": "MessageAbortedError"});
        let turn = export(vec![user("msg_1", "Go"), aborted]);
        assert_eq!(
            digest(&turn).summary,
            "The turn ended without assistant text.\n\nThe person interrupted the turn."
        );
    }
}

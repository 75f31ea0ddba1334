//! A person's turn in an OpenCode export, for its turn frame (`frame.auto = turns`): which
//! messages are the turn's, and what OpenCode's messages say for the turn's summary (made in
//! `frame::digest`): its tools, and whether the person interrupted it.

use serde_json::Value;

use crate::compact::fold::is_own_text;
use crate::compact::fold::turns::is_plugin_prompt;
use crate::conversation::Export;

/// OpenCode's tools whose `command` input is a shell command.
pub const SHELL_TOOLS: &[&str] = &["bash"];
/// OpenCode's tools that change a file, and their input naming it.
pub const EDITING_TOOLS: &[&str] = &["edit", "write", "multiedit", "patch"];
pub const PATH_KEYS: &[&str] = &["filePath"];

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

/// The turn's messages in `export`: from the person's message `start` up to (not including) the
/// next person's message. A `start` the export does not hold (compacted away, or an export
/// already cut to the turn) keeps the export from its first message on, up to the first person's
/// message after that first one.
pub fn span(export: &Export, start: &str) -> Export {
    export.cut(start, |m| is_person(m.role(), m.parts))
}

/// Whether the person interrupted the turn whose messages are `turn` ([`span`]): OpenCode
/// marks it by its assistant message's `MessageAbortedError`.
pub fn interrupted(turn: &Export) -> bool {
    turn.messages().any(|m| {
        m.role() == "assistant"
            && m.info
                .get("error")
                .and_then(|e| e.get("name"))
                .and_then(Value::as_str)
                == Some("MessageAbortedError")
    })
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
    fn a_turn_is_interrupted_by_its_aborted_assistant_message() {
        let mut aborted = assistant("msg_2", vec![]);
        aborted["info"]["error"] = json!({"name": "MessageAbortedError"});
        assert!(interrupted(&export(vec![user("msg_1", "Go"), aborted])));
        let mut failed = assistant("msg_2", vec![]);
        failed["info"]["error"] = json!({"name": "APIError"});
        assert!(!interrupted(&export(vec![user("msg_1", "Go"), failed])));
    }

    #[test]
    fn people_are_told_from_ctx_and_plugins() {
        let text =
            |t: &str, synthetic: bool| json!({"type": "text", "text": t, "synthetic": synthetic});
        assert!(is_person("user", &[text("hi", false)]));
        assert!(!is_person("assistant", &[text("hi", false)]));
        assert!(!is_person("user", &[text("hi", true)]));
        assert!(!is_person("user", &[text("  ", false)]));
        assert!(!is_person(
            "user",
            &[text("x <!-- OMO_INTERNAL_INITIATOR -->", false)]
        ));
        assert!(!is_person(
            "user",
            &[
                text("Frame a completed", false),
                text("Frame a finished with status completed.", true)
            ]
        ));
        // A person's message with a file attached: the file's synthetic texts are not theirs.
        assert!(is_person(
            "user",
            &[text("Called the Read tool", true), text("read it", false)]
        ));
    }
}

//! The summary a turn frame (`frame.auto = turns`) closes with, made from the turn's messages
//! mechanically, with no model, the same way for every agent: the turn's last assistant text,
//! how the turn ended when it did not simply finish (the person interrupted it, an error), and
//! the commands it ran with their exit codes; the files it edited are the frame's artifacts.
//!
//! The messages are an [`Export`], the shape every agent's transcript is read into for logs; what
//! differs between agents is only which tools run commands and which edit files ([`Tools`]), and
//! how the agent records an ending ([`Ending`], which the agent's module reads).

use serde_json::Value;

use crate::conversation::Export;

/// Longest command shown in a summary, in characters: a summary is read in trees and logs.
const MAX_COMMAND_CHARS: usize = 80;

/// What a turn's summary needs to know of an agent's tools.
#[derive(Debug, Clone, Copy)]
pub struct Tools {
    /// The tools whose `command` input (`cmd` in Codex's `exec_command`) is a shell command.
    pub shell: &'static [&'static str],
    /// The tools that change a file.
    pub editing: &'static [&'static str],
    /// The inputs of an editing tool that name its file, the first present one wins.
    pub path_keys: &'static [&'static str],
}

/// How a turn ended, as the agent recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// The agent finished the turn (or ctx cannot tell otherwise).
    Finished,
    /// The person stopped it.
    Interrupted,
    /// The agent stopped on an error (the provider's, say), with what it said when it said it.
    Failed(Option<String>),
}

/// What a turn's frame records when it closes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub summary: String,
    /// The files it edited, each once, in the order first edited.
    pub files: Vec<String>,
}

/// The summary and files of a turn whose messages are `turn`.
pub fn digest(turn: &Export, tools: &Tools, ending: &Ending) -> Digest {
    digest_or(
        turn,
        tools,
        ending,
        "The turn ended without assistant text.",
    )
}

/// [`digest`] of any span of messages (a todo item's), whose summary is `no_text` when it holds
/// no assistant text.
pub fn digest_or(span: &Export, tools: &Tools, ending: &Ending, no_text: &str) -> Digest {
    let mut summary = span
        .last_assistant_text()
        .unwrap_or_else(|| no_text.to_string());
    match ending {
        Ending::Finished => {}
        Ending::Interrupted => summary.push_str("\n\nThe person interrupted the turn."),
        Ending::Failed(None) => summary.push_str("\n\nThe turn ended on an error."),
        Ending::Failed(Some(error)) => {
            let error = error.split_whitespace().collect::<Vec<_>>().join(" ");
            summary.push_str(&format!("\n\nThe turn ended on an error: {error}"));
        }
    }
    let mut commands = Vec::new();
    let mut files: Vec<String> = Vec::new();
    for part in span.messages().flat_map(|m| m.parts.iter()) {
        if part.get("type").and_then(Value::as_str) != Some("tool") {
            continue;
        }
        let tool = part.get("tool").and_then(Value::as_str).unwrap_or("");
        let state = part.get("state");
        let input = state.and_then(|s| s.get("input"));
        let text = |key: &str| input.and_then(|i| i.get(key)).and_then(Value::as_str);
        if tools.shell.contains(&tool)
            && let Some(command) = text("command")
                .or_else(|| text("cmd"))
                .filter(|c| !c.trim().is_empty())
        {
            commands.push(format!("`{}` ({})", shown(command), outcome(state)));
        }
        if tools.editing.contains(&tool)
            && let Some(path) = tools
                .path_keys
                .iter()
                .find_map(|key| text(key))
                .filter(|p| !p.trim().is_empty())
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

/// How a command ended: its exit code, an error, or still running when the turn closed.
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

    const TOOLS: Tools = Tools {
        shell: &["sh"],
        editing: &["put"],
        path_keys: &["file", "path"],
    };

    fn turn(parts: Vec<Value>) -> Export {
        Export::from_value(json!({"info": {"id": "s"}, "messages": [
            {"info": {"role": "user"}, "parts": [{"type": "text", "text": "Go"}]},
            {"info": {"role": "assistant"}, "parts": parts}]}))
        .unwrap()
    }

    fn call(tool: &str, input: Value, status: &str, exit: Option<i64>) -> Value {
        let mut state = json!({"status": status, "input": input});
        if let Some(exit) = exit {
            state["metadata"] = json!({"exit": exit});
        }
        json!({"type": "tool", "tool": tool, "state": state})
    }

    #[test]
    fn the_agents_tools_say_which_calls_are_commands_and_which_edit_files() {
        let digest = digest(
            &turn(vec![
                call(
                    "sh",
                    json!({"command": "make\n  all"}),
                    "completed",
                    Some(2),
                ),
                call("sh", json!({"command": "ls"}), "error", None),
                call("sh", json!({"command": "sleep 9"}), "running", None),
                call(
                    "bash",
                    json!({"command": "not a shell of this agent"}),
                    "completed",
                    None,
                ),
                call("put", json!({"path": "b.rs"}), "completed", None),
                call(
                    "put",
                    json!({"file": "a.rs", "path": "x"}),
                    "completed",
                    None,
                ),
                call("put", json!({"path": "b.rs"}), "completed", None),
                json!({"type": "text", "text": "Made."}),
            ]),
            &TOOLS,
            &Ending::Finished,
        );
        assert_eq!(
            digest,
            Digest {
                summary: "Made.\n\nCommands: `make all` (exit 2); `ls` (error); `sleep 9` (not \
                          finished)"
                    .into(),
                files: vec!["b.rs".into(), "a.rs".into()],
            }
        );
    }

    #[test]
    fn an_ending_that_is_no_finish_is_said_after_the_text() {
        let text = vec![json!({"type": "text", "text": "Half."})];
        let summary = |ending: Ending| digest(&turn(text.clone()), &TOOLS, &ending).summary;
        assert_eq!(
            summary(Ending::Interrupted),
            "Half.\n\nThe person interrupted the turn."
        );
        assert_eq!(
            summary(Ending::Failed(Some("429\n  rate limited".into()))),
            "Half.\n\nThe turn ended on an error: 429 rate limited"
        );
        assert_eq!(
            digest(&turn(vec![]), &TOOLS, &Ending::Failed(None)).summary,
            "The turn ended without assistant text.\n\nThe turn ended on an error."
        );
    }

    #[test]
    fn a_long_command_is_cut_and_its_backquotes_changed() {
        assert_eq!(shown("echo `date`"), "echo 'date'");
        let long = shown(&"x".repeat(200));
        assert_eq!(long.chars().count(), MAX_COMMAND_CHARS);
        assert!(long.ends_with('…'));
    }
}

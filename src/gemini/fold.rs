//! Folding a Gemini CLI session for `--resume`: each frame the model pushed and popped through
//! its shell (`ctx frame push --session gm_…` … `ctx frame pop …`) becomes its pop call and a
//! result holding the frame's folded text ([`contents_fold`]), written as a line that sets the
//! session's message list anew (`{"$set": {"messages": […]}}`) appended to the session file.
//! Gemini CLI 0.61.0 loads a session file line by line, a `$set` of the messages replacing the
//! list (observed: the next `--resume` sent the fold, and the strict stand-in took it), so the
//! file only grows: every line Gemini CLI wrote stays. Pure: text in, the line out.
//!
//! The history folded is the one Gemini CLI rebuilds from the list (its
//! `convertSessionToClientHistory`, read from its code), but for one thing: Gemini CLI 0.61.0
//! sends each tool result twice on resume, from the call's message (`toolCalls[].result`) and
//! again from the user message it also recorded, which a strict API refuses. The fold sends it
//! once: the list it writes holds each model turn's calls in its content and each turn's results
//! in one user message after it, as the API takes them.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::hooks::contents_fold::{self, Shell, ToAppend};
use crate::hooks::frame_calls::Finished;
use crate::hooks::json_lines;

/// Gemini CLI's shell tool, and how its results read.
const SHELL: Shell = Shell {
    tool: "run_shell_command",
    exit_and_output,
};

/// The session file `text` folded, as a `$set` of its messages to append. An error says why the
/// session is left as it is.
pub fn fold(
    text: &str,
    goal_of: &dyn Fn(&str) -> Option<String>,
    finished: &dyn Fn(&str) -> Option<Finished>,
) -> Result<ToAppend, String> {
    let messages = messages(text)?;
    let turns = history(&messages);
    let contents: Vec<Value> = turns.iter().map(|t| t.content.clone()).collect();
    let folded = contents_fold::fold_history(&contents, &SHELL, goal_of, finished);
    if folded.frames.is_empty() {
        return Ok(ToAppend {
            refused: folded.refused,
            ..ToAppend::default()
        });
    }
    let list: Vec<Value> = folded
        .kept
        .iter()
        .zip(&folded.history)
        .map(|(&at, content)| turns[at].message(content))
        .collect();
    let line = json!({ "$set": { "messages": list } });
    Ok(ToAppend {
        text: Some(format!("{line}\n")),
        frames: folded.frames,
        refused: folded.refused,
        spans: folded.spans,
    })
}

/// The session's messages as Gemini CLI loads them: each line's message in order, a message
/// written again (same `id`) in its first place, a `$set` of the messages (or a first line that
/// holds some) starting the list again, and a `$rewindTo` cutting it at the message it names (or
/// emptying it).
fn messages(text: &str) -> Result<Vec<Map<String, Value>>, String> {
    let mut list = Messages::default();
    for record in json_lines(text)?.into_iter().flatten() {
        let set = record.get("$set").and_then(Value::as_object);
        let listed = set
            .and_then(|s| s.get("messages"))
            .or_else(|| record.get("projectHash").and(record.get("messages")))
            .and_then(Value::as_array);
        if let Some(rewind) = record.get("$rewindTo").and_then(Value::as_str) {
            list.rewind(rewind);
        } else if record.get("id").is_some_and(Value::is_string) {
            list.put(record);
        } else if let Some(messages) = listed {
            list = Messages::default();
            for message in messages.iter().filter_map(Value::as_object) {
                list.put(message.clone());
            }
        }
    }
    Ok(list.messages)
}

/// The message list as it is loaded: each id once, in the place it was first written.
#[derive(Default)]
struct Messages {
    messages: Vec<Map<String, Value>>,
    at: HashMap<String, usize>,
}

impl Messages {
    fn put(&mut self, message: Map<String, Value>) {
        let Some(id) = message.get("id").and_then(Value::as_str) else {
            return;
        };
        match self.at.get(id) {
            Some(&n) => self.messages[n] = message,
            None => {
                self.at.insert(id.to_string(), self.messages.len());
                self.messages.push(message);
            }
        }
    }

    /// Cuts the list at message `id`, which goes too; empties it when no message has that id.
    fn rewind(&mut self, id: &str) {
        let keep = self.at.get(id).copied().unwrap_or(0);
        self.messages.truncate(keep);
        self.at.retain(|_, n| *n < keep);
    }
}

/// One content of the history, and the message it came from.
struct Turn<'m> {
    /// Its id: its message's, or `<id>_response` for the results of a message's calls.
    id: String,
    message: &'m Map<String, Value>,
    content: Value,
}

impl Turn<'_> {
    /// The message of the list that sends `content` (this turn's, maybe folded) as it is.
    fn message(&self, content: &Value) -> Value {
        let kind = match content.get("role").and_then(Value::as_str) {
            Some("model") => "gemini",
            _ => "user",
        };
        let mut message = json!({
            "id": self.id,
            "timestamp": self.message.get("timestamp").cloned().unwrap_or(Value::Null),
            "type": kind,
            "content": content.get("parts").cloned().unwrap_or_else(|| json!([])),
        });
        if kind == "gemini"
            && let Some(model) = self.message.get("model")
        {
            message["model"] = model.clone();
        }
        message
    }
}

/// The contents Gemini CLI sends for `messages` on resume, each tool result once.
fn history(messages: &[Map<String, Value>]) -> Vec<Turn<'_>> {
    let mut turns = Vec::new();
    // The results sent already (each part as JSON text), and the ids of the calls they answer.
    let mut sent: HashSet<String> = HashSet::new();
    let mut answered: HashSet<String> = HashSet::new();
    for message in messages {
        let id = message
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let parts = parts_of(message.get("content"));
        match message.get("type").and_then(Value::as_str) {
            Some("user") => {
                if ignored(&parts) {
                    continue;
                }
                // The results of calls whose message gave them already, which Gemini CLI 0.61.0
                // sends a second time: each response, and each part that came with it (an
                // image a tool read).
                let unsent: Vec<Value> = parts
                    .iter()
                    .filter(|p| {
                        let id = p.pointer("/functionResponse/id").and_then(Value::as_str);
                        !id.is_some_and(|id| answered.contains(id))
                            && !sent.contains(&p.to_string())
                    })
                    .cloned()
                    .collect();
                if unsent.is_empty() {
                    continue;
                }
                let parts = unsent;
                turns.push(Turn {
                    id: id.to_string(),
                    message,
                    content: json!({ "role": "user", "parts": parts }),
                });
            }
            Some("gemini") => {
                let calls = message
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                let in_content = parts
                    .iter()
                    .any(|p| p.get("functionCall").is_some() || p.get("thought").is_some());
                let mut model = Vec::new();
                if in_content {
                    model.extend(parts);
                } else {
                    for thought in message
                        .get("thoughts")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        let text = |key: &str| thought.get(key).and_then(Value::as_str);
                        let said = match (text("subject"), text("description")) {
                            (Some(subject), description) => {
                                format!("**{subject}** {}", description.unwrap_or("undefined"))
                            }
                            (None, description) => description.unwrap_or("").to_string(),
                        };
                        model.push(json!({ "text": said, "thought": true }));
                    }
                    model.extend(parts);
                    for call in calls {
                        model.push(json!({ "functionCall": {
                            "id": call.get("id"), "name": call.get("name"), "args": call.get("args"),
                        }}));
                    }
                }
                if model.is_empty() {
                    continue;
                }
                turns.push(Turn {
                    id: id.to_string(),
                    message,
                    content: json!({ "role": "model", "parts": model }),
                });
                let results: Vec<Value> = calls.iter().flat_map(result_parts).collect();
                if results.is_empty() {
                    continue;
                }
                answered.extend(
                    results
                        .iter()
                        .filter_map(|p| p.pointer("/functionResponse/id")?.as_str())
                        .map(str::to_string),
                );
                sent.extend(results.iter().map(Value::to_string));
                turns.push(Turn {
                    id: format!("{id}_response"),
                    message,
                    content: json!({ "role": "user", "parts": results }),
                });
            }
            // info, error, warning: never sent.
            _ => {}
        }
    }
    turns
}

/// A message's content as parts: a string is one text part (an empty one none, as Gemini CLI
/// reads it), a list's strings text parts.
fn parts_of(content: Option<&Value>) -> Vec<Value> {
    match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(text)) if text.is_empty() => Vec::new(),
        Some(Value::String(text)) => vec![json!({ "text": text })],
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match p {
                Value::String(text) => json!({ "text": text }),
                other => other.clone(),
            })
            .collect(),
        Some(other) => vec![other.clone()],
    }
}

/// The result parts of a recorded tool call: a text is its output, a list its parts, an object
/// the part itself.
fn result_parts(call: &Value) -> Vec<Value> {
    match call.get("result") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(output)) => vec![json!({ "functionResponse": {
            "id": call.get("id"), "name": call.get("name"), "response": { "output": output },
        }})],
        Some(list @ Value::Array(_)) => parts_of(Some(list)),
        Some(part) => vec![part.clone()],
    }
}

/// Whether Gemini CLI leaves a person's message out of the history it resumes: one that is empty,
/// a command (`/…`, `?…`), or its own or a hook's context (`<session_context>`,
/// `<hook_context>`), read as its text with every other part named.
fn ignored(parts: &[Value]) -> bool {
    let text: String = parts
        .iter()
        .map(|part| {
            let named = ["functionCall", "functionResponse"]
                .iter()
                .find_map(|key| part.get(*key)?.get("name")?.as_str().map(|n| (*key, n)));
            match named {
                Some(("functionCall", name)) => format!("[Function Call: {name}]"),
                Some((_, name)) => format!("[Function Response: {name}]"),
                None if part.get("thought").is_some() => "[Thought]".to_string(),
                None => part
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("[Data]")
                    .to_string(),
            }
        })
        .collect();
    let text = text.trim();
    text.is_empty()
        || ["/", "?", "<session_context>", "<hook_context>"]
            .iter()
            .any(|start| text.starts_with(start))
}

/// A shell result's exit code and what the command printed (Gemini CLI's result, in
/// `<untrusted_context>`: `Output:` …, then `Error:`, `Exit Code:` (when not 0), `Signal:`,
/// `Background PIDs:`, `Process Group PGID:`); `None` when it has no such shape (one a fold
/// already replaced).
fn exit_and_output(output: &str) -> Option<(i64, String)> {
    let body = match output.strip_prefix("<untrusted_context>\n") {
        Some(inner) => inner
            .strip_suffix("\n</untrusted_context>")
            .unwrap_or(inner),
        None => output,
    };
    let rest = body.strip_prefix("Output: ")?;
    let sections = [
        "\nError: ",
        "\nExit Code: ",
        "\nSignal: ",
        "\nBackground PIDs: ",
        "\nProcess Group PGID: ",
    ];
    let end = sections
        .iter()
        .filter_map(|s| rest.find(s))
        .min()
        .unwrap_or(rest.len());
    let (printed, after) = rest.split_at(end);
    let code = after
        .lines()
        .find_map(|l| l.strip_prefix("Exit Code: "))
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(0);
    let printed = if printed == "(empty)" { "" } else { printed };
    Some((code, printed.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = "gm_s1";
    const PUSH: &str = "ctx frame push --session gm_s1 -- 'Refunds'";
    const POP: &str = "ctx frame pop --session gm_s1 --summary done";

    fn line(value: Value) -> String {
        format!("{value}\n")
    }

    fn header() -> String {
        line(json!({"sessionId": "s1", "projectHash": "h", "startTime": "t", "kind": "main"}))
    }

    fn user(id: &str, text: &str) -> String {
        line(json!({"id": id, "timestamp": "t", "type": "user", "content": [{"text": text}]}))
    }

    fn shell_result(printed: &str, code: i64) -> String {
        let exit = if code == 0 {
            String::new()
        } else {
            format!("\nExit Code: {code}")
        };
        format!(
            "<untrusted_context>\nOutput: {printed}{exit}\nProcess Group PGID: 7\n</untrusted_context>"
        )
    }

    /// A model message with one shell call, written twice as Gemini CLI writes it (before and
    /// after the call ran), then the user message of its result it also records.
    fn call_line(id: &str, call: &str, command: &str, printed: &str) -> String {
        let response = json!({"functionResponse": {"id": call, "name": "run_shell_command",
            "response": {"output": shell_result(printed, 0)}}});
        let before = json!({"id": id, "timestamp": "t", "type": "gemini", "content": "", "model": "m",
            "tokens": {"input": 1, "output": 1}});
        let mut after = before.clone();
        after["toolCalls"] = json!([{"id": call, "name": "run_shell_command",
            "args": {"command": command}, "result": [response], "status": "success"}]);
        line(before)
            + &line(after)
            + &line(
                json!({"id": format!("{id}-r"), "timestamp": "t", "type": "user", "content": [response]}),
            )
    }

    fn answer(id: &str, text: &str) -> String {
        line(json!({"id": id, "timestamp": "t", "type": "gemini", "content": text, "model": "m"}))
    }

    fn sample() -> String {
        header()
            + &line(json!({"$set": {"messages": [{"id": "c0", "type": "user",
                "content": [{"text": "<session_context>\nThis is the Gemini CLI."}]}]}}))
            + &user("u1", "Do the refunds")
            + &call_line("g1", "c1", PUSH, "fr_abc")
            + &call_line("g2", "c2", "printf BULKY_OUTPUT", "BULKY_OUTPUT")
            + &call_line("g3", "c3", POP, SESSION)
            + &answer("g4", "Refunds done.")
            + &line(json!({"$set": {"lastUpdated": "t"}}))
    }

    fn goal_of(frame: &str) -> Option<String> {
        frame.starts_with("fr_").then(|| "Refunds".to_string())
    }

    fn fold_with(text: &str, done: &dyn Fn(&str) -> bool) -> ToAppend {
        fold(text, &goal_of, &|id| {
            done(id).then(|| Finished {
                parent: Some(SESSION.into()),
                text: format!("F {id}"),
            })
        })
        .unwrap()
    }

    fn set_messages(line: &str) -> Vec<Value> {
        let value: Value = serde_json::from_str(line).unwrap();
        value["$set"]["messages"].as_array().unwrap().clone()
    }

    #[test]
    fn a_popped_frames_span_becomes_its_pop_and_folded_text_each_result_once() {
        let folded = fold_with(&sample(), &|id| id == "fr_abc");
        assert_eq!(folded.frames, ["fr_abc"], "{:?}", folded.refused);
        let list = set_messages(folded.text.as_deref().unwrap());
        let text = serde_json::to_string(&list).unwrap();
        assert!(!text.contains("BULKY_OUTPUT"), "{text}");
        assert!(!text.contains("'Refunds'"), "the push goes too: {text}");
        let kinds: Vec<(&str, &str)> = list
            .iter()
            .map(|m| (m["id"].as_str().unwrap(), m["type"].as_str().unwrap()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("u1", "user"),
                ("g3", "gemini"),
                ("g3_response", "user"),
                ("g4", "gemini")
            ],
            "Gemini CLI's own context is left out, as it leaves it out; each result once"
        );
        assert_eq!(
            list[1]["content"][0]["functionCall"]["args"]["command"],
            POP
        );
        assert_eq!(
            list[2]["content"][0]["functionResponse"]["response"]["output"],
            "F fr_abc"
        );
        assert!(
            list[1].get("toolCalls").is_none(),
            "its call is in its content"
        );
        assert_eq!(list[3]["content"][0]["text"], "Refunds done.");
        assert_eq!(folded.spans[0].0, "fr_abc");
    }

    #[test]
    fn a_result_with_more_parts_than_its_response_is_sent_once_too() {
        let image = json!({"inlineData": {"mimeType": "image/png", "data": "AAAA"}});
        let response = json!({"functionResponse": {"id": "c9", "name": "read_file",
            "response": {"output": "Binary content provided"}}});
        let text = sample()
            + &line(
                json!({"id": "g9", "timestamp": "t", "type": "gemini", "content": "",
                "toolCalls": [{"id": "c9", "name": "read_file", "args": {"path": "a.png"},
                    "result": [response, image], "status": "success"}]}),
            )
            + &line(
                json!({"id": "g9-r", "timestamp": "t", "type": "user", "content": [response, image]}),
            );
        let folded = fold_with(&text, &|id| id == "fr_abc");
        let list = set_messages(folded.text.as_deref().unwrap());
        let sends = serde_json::to_string(&list)
            .unwrap()
            .matches("\"c9\"")
            .count();
        assert_eq!(sends, 2, "the call and its result, once each: {list:?}");
        assert_eq!(list.last().unwrap()["id"], "g9_response");
    }

    #[test]
    fn a_pop_beside_a_push_in_one_model_turn_folds_its_own_result() {
        let response = |id: &str, printed: &str| {
            json!({"functionResponse": {"id": id, "name": "run_shell_command",
                "response": {"output": shell_result(printed, 0)}}})
        };
        let call = |id: &str, command: &str| {
            json!({"id": id, "name": "run_shell_command", "args": {"command": command},
                "status": "success"})
        };
        let mut pop = call("c3", POP);
        pop["result"] = json!([response("c3", SESSION)]);
        let mut push = call("c4", &PUSH.replace("Refunds", "Ledger"));
        push["result"] = json!([response("c4", "fr_led")]);
        let text = header()
            + &user("u1", "Do the refunds")
            + &call_line("g1", "c1", PUSH, "fr_abc")
            + &call_line("g2", "c2", "printf BULKY_OUTPUT", "BULKY_OUTPUT")
            + &line(
                json!({"id": "g3", "timestamp": "t", "type": "gemini", "content": "",
                "toolCalls": [pop, push]}),
            );
        let goal = |id: &str| match id {
            "fr_led" => Some("Ledger".to_string()),
            _ => goal_of(id),
        };
        let folded = fold(&text, &goal, &|id| {
            (id == "fr_abc").then(|| Finished {
                parent: Some(SESSION.into()),
                text: format!("F {id}"),
            })
        })
        .unwrap();
        assert_eq!(folded.frames, ["fr_abc"], "{:?}", folded.refused);
        let list = serde_json::to_string(&set_messages(&folded.text.unwrap())).unwrap();
        assert!(
            list.contains("F fr_abc"),
            "the pop's result is its folded text: {list}"
        );
        assert!(list.contains("fr_led"), "the push's result stays: {list}");
        assert!(!list.contains("BULKY_OUTPUT"), "{list}");
    }

    #[test]
    fn a_frame_not_finished_leaves_nothing_to_append() {
        let folded = fold_with(&sample(), &|_| false);
        assert!(folded.text.is_none());
        assert!(folded.frames.is_empty());
    }

    #[test]
    fn a_second_fold_starts_from_the_first_and_folds_only_what_is_new() {
        let first = fold_with(&sample(), &|id| id == "fr_abc");
        let text = sample()
            + first.text.as_deref().unwrap()
            + &user("u2", "Now the ledger")
            + &call_line("g5", "c4", &PUSH.replace("Refunds", "Ledger"), "fr_led")
            + &call_line("g6", "c5", "printf LEDGER_BULK", "LEDGER_BULK")
            + &call_line("g7", "c6", POP, SESSION);
        let goal = |id: &str| match id {
            "fr_led" => Some("Ledger".to_string()),
            _ => goal_of(id),
        };
        let second = fold(&text, &goal, &|id| {
            Some(Finished {
                parent: Some(SESSION.into()),
                text: format!("F {id}"),
            })
        })
        .unwrap();
        assert_eq!(second.frames, ["fr_led"], "{:?}", second.refused);
        let text = serde_json::to_string(&set_messages(&second.text.unwrap())).unwrap();
        assert!(
            text.contains("F fr_abc") && text.contains("F fr_led"),
            "{text}"
        );
        assert!(
            !text.contains("LEDGER_BULK") && !text.contains("BULKY_OUTPUT"),
            "{text}"
        );
    }

    #[test]
    fn a_rewind_cuts_the_list_and_a_line_that_is_not_json_leaves_the_file_alone() {
        let text = sample() + &line(json!({"$rewindTo": "g2"}));
        let list = messages(&text).unwrap();
        let ids: Vec<&str> = list.iter().map(|m| m["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["c0", "u1", "g1", "g1-r"]);
        assert!(fold(&(header() + "not json\n"), &goal_of, &|_| None).is_err());
        assert!(fold("", &goal_of, &|_| None).unwrap().text.is_none());
    }

    #[test]
    fn a_shell_results_exit_code_and_output_are_read() {
        assert_eq!(
            exit_and_output(&shell_result("a\nb", 2)),
            Some((2, "a\nb".to_string()))
        );
        assert_eq!(
            exit_and_output(&shell_result("(empty)", 0)),
            Some((0, String::new()))
        );
        assert_eq!(exit_and_output("F fr_abc"), None);
    }
}

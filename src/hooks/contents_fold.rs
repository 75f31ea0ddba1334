//! Folding a history of Gemini-style contents (`{role, parts}`: `text`, `functionCall` and
//! `functionResponse` parts), which Qwen Code's and Gemini CLI's session files both rebuild on
//! resume: each frame the model pushed and popped through its shell (`ctx frame push --session
//! …` … `ctx frame pop …`) becomes its pop call and a result holding the frame's folded text.
//! A frame's span runs from the content holding its push call to the one holding its pop's
//! result; the pushes and pops are read and paired as Claude Code's and Codex's folds pair them
//! ([`frame_calls`]). A span goes whole but for the content of the pop call and the content of
//! its result, whose output becomes the frame's folded text. A frame whose fold would leave a
//! call without its result, or a result without its call, stays unfolded, with why. Each agent
//! gives its shell tool's name and how its results read ([`Shell`]). Pure.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::export_message;
use super::frame_calls::{self, Finished, Span};
use crate::conversation::Export;

/// An agent's shell tool: its name, and how a result of it reads.
pub struct Shell {
    pub tool: &'static str,
    /// A result's exit code and what the command printed; `None` when it has no such shape (one
    /// a fold already replaced).
    pub exit_and_output: fn(&str) -> Option<(i64, String)>,
}

/// A span's contents as the export its frame's log renders (in `agent`'s name): each
/// model content an assistant message of its texts and calls, each call with the result the
/// span holds for it; the results' own contents are left out, and so is a user content that
/// holds nothing else.
pub fn span_export(id: &str, title: &str, agent: &str, contents: &[Value]) -> Export {
    let results: HashMap<&str, &str> = contents
        .iter()
        .flat_map(parts)
        .filter_map(|p| {
            Some((
                p.pointer("/functionResponse/id")?.as_str()?,
                response_output(p)?,
            ))
        })
        .collect();
    let no_time = Value::Null;
    let mut messages = Vec::new();
    for content in contents {
        let role = match content.get("role").and_then(Value::as_str) {
            Some("model") => "assistant",
            Some("user") => "user",
            _ => continue,
        };
        let mut exported = Vec::new();
        for part in parts(content) {
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                if !text.trim().is_empty() && !part.get("thought").is_some_and(|t| t == true) {
                    exported.push(json!({ "type": "text", "text": text }));
                }
            } else if let Some(call) = part.get("functionCall") {
                let mut state = json!({
                    "status": "completed",
                    "input": call.get("args").cloned().unwrap_or(Value::Null),
                });
                if let Some(output) = call
                    .get("id")
                    .and_then(Value::as_str)
                    .and_then(|id| results.get(id))
                {
                    state["output"] = Value::from(*output);
                }
                let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
                exported.push(json!({ "type": "tool", "tool": name, "state": state }));
            }
        }
        if !exported.is_empty() {
            messages.push(export_message(role, &no_time, exported));
        }
    }
    Export::of_conversation(id, title, agent, messages, None)
}

/// The parts of a content (`{role, parts}`); none when it has no list of them.
pub fn parts(content: &Value) -> &[Value] {
    content
        .get("parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// What a fold by appending makes of an agent's session file (Qwen Code's, Gemini CLI's, Copilot
/// CLI's): the text to append (whole lines, each ending in a newline) when a frame folded, the
/// frames folded, why each frame left unfolded is, and each folded frame's span as it was (its
/// contents, push to pop), for its log: the fold's entry sends the model there for what it no
/// longer holds.
#[derive(Debug, Default)]
pub struct ToAppend {
    pub text: Option<String>,
    pub frames: Vec<String>,
    pub refused: Vec<String>,
    pub spans: Vec<(String, Vec<Value>)>,
}

/// A history with its finished frames folded.
pub struct FoldedHistory {
    pub history: Vec<Value>,
    /// Where each content of `history` was in the history given.
    pub kept: Vec<usize>,
    /// The frames folded.
    pub frames: Vec<String>,
    /// Why each frame left unfolded is.
    pub refused: Vec<String>,
    /// Each folded frame's span as it was (its contents, push to pop), for its log.
    pub spans: Vec<(String, Vec<Value>)>,
}

/// The shell command of a `functionCall` part.
fn command_of<'p>(part: &'p Value, shell: &Shell) -> Option<&'p str> {
    let call = part.get("functionCall")?;
    (call.get("name")?.as_str()? == shell.tool)
        .then(|| call.get("args")?.get("command")?.as_str())
        .flatten()
}

/// The text of a `functionResponse` part's result.
fn response_output(part: &Value) -> Option<&str> {
    part.get("functionResponse")?
        .get("response")?
        .get("output")?
        .as_str()
}

/// `history` with each frame that finished folded (`finished` gives its folded text), the
/// frames' goals from `goal_of`.
pub fn fold_history(
    history: &[Value],
    shell: &Shell,
    goal_of: &dyn Fn(&str) -> Option<String>,
    finished: &dyn Fn(&str) -> Option<Finished>,
) -> FoldedHistory {
    let parts_of = |n: usize| parts(&history[n]);
    let id_of = |part: &Value, key: &str| {
        part.get(key)
            .and_then(|c| c.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut calls: Vec<(usize, String, Vec<frame_calls::FrameCommand>)> = Vec::new();
    let mut answers: HashMap<String, frame_calls::Answer> = HashMap::new();
    for n in 0..history.len() {
        for part in parts_of(n) {
            if let (Some(command), Some(id)) =
                (command_of(part, shell), id_of(part, "functionCall"))
            {
                let commands = frame_calls::frame_commands(command);
                if !commands.is_empty() {
                    calls.push((n, id, commands));
                }
            }
            if let (Some(output), Some(id)) =
                (response_output(part), id_of(part, "functionResponse"))
            {
                let (failed, text, folded) = match (shell.exit_and_output)(output) {
                    Some((code, printed)) => (code != 0, printed, false),
                    None => (true, String::new(), true),
                };
                answers.insert(
                    id,
                    frame_calls::Answer {
                        line: n,
                        text,
                        failed,
                        folded,
                    },
                );
            }
        }
    }
    // The pop calls of each content: a model turn may also push (another frame) beside its pop.
    let mut pop_ids: HashMap<usize, Vec<String>> = HashMap::new();
    for (n, id, commands) in &calls {
        if commands.iter().any(|c| !c.push) {
            pop_ids.entry(*n).or_default().push(id.clone());
        }
    }
    let calls: Vec<frame_calls::Call> = calls
        .into_iter()
        .map(|(line, id, commands)| frame_calls::Call {
            line,
            commands,
            answer: answers.remove(&id),
        })
        .collect();
    let (spans, mut refusals) = frame_calls::pair(&calls, goal_of, finished);
    let mut foldable: Vec<Span> = Vec::new();
    for span in spans {
        let why = if pop_ids.get(&span.pop).map_or(0, Vec::len) != 1 {
            "its pop shares a model turn with another pop"
        } else if !pairs_within(history, &span) {
            "folding it would leave a call without its result"
        } else {
            foldable.push(span);
            continue;
        };
        refusals.push(frame_calls::Refusal {
            frame: Some(span.frame),
            line: span.push,
            why: why.into(),
        });
    }
    let outer = frame_calls::outermost(&foldable);
    let refused = frame_calls::refused(&refusals, &foldable, &outer);
    let mut dropped: HashSet<usize> = HashSet::new();
    let mut replaced: HashMap<usize, (String, String)> = HashMap::new();
    let mut frames = Vec::new();
    let mut span_contents = Vec::new();
    for span in &outer {
        dropped.extend(dropped_by(span));
        span_contents.push((
            span.frame.clone(),
            history[span.push..=span.answer].to_vec(),
        ));
        let done = finished(&span.frame).expect("a span's frame is finished");
        let pop_id = pop_ids[&span.pop][0].clone();
        let exit = parts_of(span.answer)
            .iter()
            .filter(|p| id_of(p, "functionResponse").as_deref() == Some(pop_id.as_str()))
            .find_map(response_output)
            .and_then(shell.exit_and_output)
            .map_or(0, |(code, _)| code);
        // The model saw the other commands' output, and their failure.
        let failure = (exit != 0).then(|| format!("Exit Code: {exit}"));
        let after: Vec<&str> = failure
            .iter()
            .map(String::as_str)
            .chain(span.others.as_deref())
            .collect();
        let text = match after.is_empty() {
            true => done.text,
            false => format!("{}\n\n{}", done.text, after.join("\n")),
        };
        replaced.insert(span.answer, (pop_id, text));
        frames.push(span.frame.clone());
    }
    let kept: Vec<usize> = (0..history.len())
        .filter(|n| !dropped.contains(n))
        .collect();
    let history = kept
        .iter()
        .map(|n| match replaced.get(n) {
            Some((id, text)) => with_output(&history[*n], id, text),
            None => history[*n].clone(),
        })
        .collect();
    FoldedHistory {
        history,
        kept,
        frames,
        refused,
        spans: span_contents,
    }
}

/// The contents a span's fold takes out: all of it but the pop's call and its result.
fn dropped_by(span: &Span) -> Vec<usize> {
    (span.push..=span.answer)
        .filter(|&n| n != span.pop && n != span.answer)
        .collect()
}

/// Whether the calls and results a span's fold takes out answer each other.
fn pairs_within(history: &[Value], span: &Span) -> bool {
    let (mut calls, mut results) = (HashSet::new(), HashSet::new());
    for n in dropped_by(span) {
        for part in parts(&history[n]) {
            if let Some(id) = part.pointer("/functionCall/id").and_then(Value::as_str) {
                calls.insert(id);
            }
            if let Some(id) = part.pointer("/functionResponse/id").and_then(Value::as_str) {
                results.insert(id);
            }
        }
    }
    calls == results
}

/// `content` with the result of call `id` made `text`.
fn with_output(content: &Value, id: &str, text: &str) -> Value {
    let mut content = content.clone();
    if let Some(parts) = content.get_mut("parts").and_then(Value::as_array_mut) {
        for part in parts {
            if part.pointer("/functionResponse/id").and_then(Value::as_str) == Some(id) {
                part["functionResponse"]["response"] = json!({ "output": text });
            }
        }
    }
    content
}

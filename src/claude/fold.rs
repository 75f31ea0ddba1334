//! Folding a Claude Code transcript (claude-code.md §7, "between processes").
//!
//! Claude Code sends, on `--continue` or `--resume`, what the session's transcript holds. So when
//! a session ends, each frame the model pushed and popped through Bash is folded in the transcript:
//! the lines from the push's call to the pop's call are taken out, the pop's call stays, and its
//! result becomes the frame's summary and log path. The pop's call is chained to the push's
//! parent (`parentUuid`), so the conversation stays one linked chain, and every tool_use is still
//! answered by its tool_result. Lines without a `uuid` (Claude Code's bookkeeping) stay.
//!
//! A pop that names its frame (`--frame ID`) ends that frame: the span's own is its end as any
//! pop's; one pushed elsewhere (another session, a person) ends no span here and is an ordinary
//! call, folded with the span it sits in; an outer frame's, while an inner one runs, crosses.
//!
//! A folded result is marked (`ctxFolded`: the frame id), so that a later fold of the same
//! transcript knows that pop's push is already gone. Anything ctx does not know (a line that is
//! not JSON, a version other than 2.x, a pop without its push, spans that cross, a pop naming
//! its frame by what ctx cannot read (a variable), a compaction
//! inside a span, a call that shares its message with other calls) leaves the transcript as it
//! is: the fold is refused whole, with the reason.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::hooks::transcript::Folded;

/// The key ctx adds to a tool_result line it rewrote.
pub const FOLDED_KEY: &str = "ctxFolded";

/// What ctx knows of a frame the transcript pushed and popped.
pub struct Finished {
    /// The frame's parent: what the pop printed as the frame now current.
    pub parent: Option<String>,
    /// The pop's result as the model will see it: the summary and the log path.
    pub text: String,
}

/// One Bash call of the conversation that runs `ctx frame push` or `ctx frame pop`.
struct Call {
    line: usize,
    id: String,
    push: bool,
    /// A push's goal, when the command gives it as plain text.
    goal: Option<String>,
    /// A pop's `--frame` argument: `Some(None)` when ctx cannot read it.
    names: Option<Option<String>>,
}

/// A push's span: the push's call, the pop's call and its result (line numbers), the frame.
struct Span {
    push: usize,
    pop: usize,
    answer: usize,
    frame: String,
    /// What the pop's call printed besides the frame now current (its other commands' output).
    others: Option<String>,
}

/// A tool call's result line.
struct Answer {
    line: usize,
    text: String,
    error: bool,
    folded: bool,
}

/// Folds `text`, a transcript, with `goal_of` telling which frames ctx knows (and their goals)
/// and `finished` which of them ended (and how). `Ok(None)` when there is nothing to fold;
/// `Err(reason)` when the transcript is left as it is.
pub fn fold(
    text: &str,
    goal_of: &dyn Fn(&str) -> Option<String>,
    finished: &dyn Fn(&str) -> Option<Finished>,
) -> Result<Option<Folded>, String> {
    let raw: Vec<&str> = text.lines().collect();
    let mut records: Vec<Option<Value>> = Vec::with_capacity(raw.len());
    for (n, line) in raw.iter().enumerate() {
        if line.trim().is_empty() {
            records.push(None);
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(value @ Value::Object(_)) => records.push(Some(value)),
            _ => return Err(format!("line {} is not a JSON object", n + 1)),
        }
    }
    for (n, record) in records.iter().enumerate() {
        let Some(version) = record
            .as_ref()
            .and_then(|r| r.get("version"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        if !version.starts_with("2.") {
            return Err(format!(
                "line {} is from Claude Code {version}, a version ctx does not know",
                n + 1
            ));
        }
    }
    let (calls, answers, tools_of_message) = calls_and_answers(&records)?;
    // Pair pushes with pops, as a stack: what a pop ends is the last push not yet ended.
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut spans: Vec<Span> = Vec::new();
    for call in &calls {
        let Some(answer) = answers.get(&call.id) else {
            continue;
        };
        if call.push {
            // A push may share its call with other commands (`ctx frame push -- 'Build' &&
            // cargo build`), whose failure makes the whole call an error: what tells is the
            // frame's id in the output.
            if let Some(frame) = pushed_frame(&answer.text, call.goal.as_deref(), goal_of) {
                stack.push((call.line, frame));
            }
            continue;
        }
        // One folded before lost its push with its span.
        if answer.folded {
            continue;
        }
        // A pop that failed ends nothing, and the call is an error. So is a call whose later
        // command failed (`ctx frame pop … && cargo test`), where the pop did end its frame: its
        // output names the frame now current, as checked below. So what would refuse the fold
        // for a call that did not fail only passes over one that did.
        let failed = answer.error;
        macro_rules! refuse {
            ($($why:tt)*) => {{
                if failed {
                    continue;
                }
                return Err(format!($($why)*));
            }};
        }
        if let Some(named) = &call.names {
            let Some(named) = named.as_deref() else {
                refuse!(
                    "the pop at line {} names its frame by what only a shell can read",
                    call.line + 1
                )
            };
            // A pop names a frame by its id or a prefix of it; the innermost frame pushed here
            // that it names is the one it ends.
            let names = |frame: &str| frame.starts_with(named);
            match stack.iter().rposition(|(_, frame)| names(frame)) {
                Some(at) if at + 1 == stack.len() => {}
                Some(_) => {
                    let (inner_line, inner) = stack.last().expect("a frame above the named one");
                    refuse!(
                        "spans cross: the pop at line {} ends frame {named} while frame {inner}, \
                         pushed at line {}, runs",
                        call.line + 1,
                        inner_line + 1
                    )
                }
                // A frame pushed elsewhere (another session, a person): it ends no span of
                // this transcript, and is an ordinary call, folded with the span it is in.
                None => continue,
            }
        }
        let Some((push_line, frame)) = stack.last().cloned() else {
            refuse!(
                "the pop at line {} has no push in the transcript",
                call.line + 1
            )
        };
        let Some(done) = finished(&frame) else {
            refuse!(
                "the pop at line {} ends frame {frame}, which ctx does not know as finished",
                call.line + 1
            )
        };
        // The pop prints the frame now current on a line of its own, among what the other
        // commands of its call print.
        let parent_line = done
            .parent
            .as_deref()
            .and_then(|parent| answer.text.lines().position(|l| l.trim() == parent));
        if parent_line.is_none() {
            refuse!(
                "spans cross: the pop at line {} does not end frame {frame}, pushed at line {}",
                call.line + 1,
                push_line + 1
            )
        }
        stack.pop();
        // What the call's other commands printed stays, after the summary: the model saw it.
        let others: Vec<&str> = answer
            .text
            .lines()
            .enumerate()
            .filter(|(n, _)| Some(*n) != parent_line)
            .map(|(_, l)| l)
            .collect();
        let others = others.join("\n");
        spans.push(Span {
            push: push_line,
            pop: call.line,
            answer: answer.line,
            frame,
            others: (!others.trim().is_empty()).then_some(others),
        });
    }
    // Only the outermost spans are folded: an inner one goes with its outer one.
    let outer: Vec<&Span> = spans
        .iter()
        .filter(|s| !spans.iter().any(|o| o.push < s.push && s.pop < o.pop))
        .collect();
    if outer.is_empty() {
        return Ok(None);
    }
    let mut removed: HashSet<usize> = HashSet::new();
    let mut rewritten: HashMap<usize, Value> = HashMap::new();
    let mut frames = Vec::new();
    for span in &outer {
        let (push_line, pop_line, answer_line, frame) =
            (&span.push, &span.pop, &span.answer, &span.frame);
        for n in [*push_line, *pop_line] {
            let message = message_id(records[n].as_ref()).unwrap_or_default();
            if tools_of_message.get(&message).copied().unwrap_or(0) > 1 {
                return Err(format!(
                    "the call at line {} shares its message with other tool calls",
                    n + 1
                ));
            }
        }
        let answer = records[*answer_line]
            .as_ref()
            .expect("an answer is a record");
        let only_this = answer
            .pointer("/message/content")
            .and_then(Value::as_array)
            .is_some_and(|blocks| blocks.len() == 1);
        if !only_this {
            return Err(format!(
                "the pop's result at line {} shares its message with other results",
                answer_line + 1
            ));
        }
        for (n, record) in records.iter().enumerate().take(*pop_line).skip(*push_line) {
            let Some(record) = record.as_ref() else {
                continue;
            };
            if is_compaction(record) {
                return Err(format!(
                    "the span of frame {frame} (lines {}–{}) holds a compaction",
                    push_line + 1,
                    pop_line + 1
                ));
            }
            if record.get("uuid").is_some() {
                removed.insert(n);
            }
        }
        let push_parent = records[*push_line]
            .as_ref()
            .and_then(|r| r.get("parentUuid"))
            .cloned()
            .unwrap_or(Value::Null);
        let mut pop = records[*pop_line].clone().expect("a call is a record");
        pop["parentUuid"] = push_parent;
        rewritten.insert(*pop_line, pop);
        let done = finished(frame).expect("checked above");
        let call_id = answers_call(answer).unwrap_or_default();
        let content = match &span.others {
            Some(others) => format!("{}\n\n{others}", done.text),
            None => done.text,
        };
        let mut result = answer.clone();
        result["message"]["content"] = json!([{
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": content,
        }]);
        if let Some(object) = result.as_object_mut() {
            object.remove("toolUseResult");
            object.insert(FOLDED_KEY.to_string(), Value::from(frame.as_str()));
        }
        rewritten.insert(*answer_line, result);
        frames.push(frame.clone());
    }
    // Lines left whose parent was taken out are chained to its nearest ancestor that stays.
    let parent_of: HashMap<String, Value> = records
        .iter()
        .enumerate()
        .filter(|(n, _)| removed.contains(n))
        .filter_map(|(_, r)| {
            let r = r.as_ref()?;
            Some((
                r.get("uuid")?.as_str()?.to_string(),
                r.get("parentUuid").cloned().unwrap_or(Value::Null),
            ))
        })
        .collect();
    let mut out = String::with_capacity(text.len());
    for (n, line) in raw.iter().enumerate() {
        if removed.contains(&n) {
            continue;
        }
        let mut record = match rewritten.remove(&n) {
            Some(record) => Some(record),
            None => records[n].clone(),
        };
        let relinked = match record.as_mut() {
            Some(r) => relink(r, &parent_of),
            None => false,
        };
        let changed = relinked || outer.iter().any(|s| s.pop == n || s.answer == n);
        match record {
            Some(r) if changed => {
                out.push_str(&serde_json::to_string(&r).expect("a JSON value serializes"));
            }
            // Every line ctx did not change stays byte for byte.
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(Some(Folded { text: out, frames }))
}

/// Points `record`'s `parentUuid` past the lines taken out; whether it changed.
fn relink(record: &mut Value, parent_of: &HashMap<String, Value>) -> bool {
    let mut parent = record.get("parentUuid").cloned().unwrap_or(Value::Null);
    let mut changed = false;
    let mut hops = 0;
    while let Some(next) = parent.as_str().and_then(|p| parent_of.get(p)) {
        parent = next.clone();
        changed = true;
        hops += 1;
        if hops > parent_of.len() {
            break;
        }
    }
    if changed {
        record["parentUuid"] = parent;
    }
    changed
}

/// Claude Code's compaction in a transcript: its boundary line or its summary.
fn is_compaction(record: &Value) -> bool {
    record.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
        || record.get("subtype").and_then(Value::as_str) == Some("compact_boundary")
}

fn message_id(record: Option<&Value>) -> Option<String> {
    Some(record?.pointer("/message/id")?.as_str()?.to_string())
}

/// The call a result line answers (its single tool_result's `tool_use_id`).
fn answers_call(record: &Value) -> Option<String> {
    record
        .pointer("/message/content/0/tool_use_id")?
        .as_str()
        .map(str::to_string)
}

type Found = (Vec<Call>, HashMap<String, Answer>, HashMap<String, usize>);

/// The Bash calls that push or pop a frame, in order; every tool result by the call it answers;
/// how many tool calls each assistant message holds.
fn calls_and_answers(records: &[Option<Value>]) -> Result<Found, String> {
    let mut calls = Vec::new();
    let mut answers = HashMap::new();
    let mut tools_of_message: HashMap<String, usize> = HashMap::new();
    for (n, record) in records.iter().enumerate() {
        let Some(record) = record else { continue };
        if record.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let Some(blocks) = record.pointer("/message/content").and_then(Value::as_array) else {
            continue;
        };
        match record.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                for block in blocks {
                    if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    if let Some(message) = message_id(Some(record)) {
                        *tools_of_message.entry(message).or_default() += 1;
                    }
                    let command = block.pointer("/input/command").and_then(Value::as_str);
                    let (Some(id), Some(command), Some("Bash")) = (
                        block.get("id").and_then(Value::as_str),
                        command,
                        block.get("name").and_then(Value::as_str),
                    ) else {
                        continue;
                    };
                    if let Some((push, rest)) = frame_call(command) {
                        if frame_call(&rest_text(&rest)).is_some() {
                            return Err(format!(
                                "the call at line {} runs two frame commands; ctx folds a call \
                                 that pushes or pops one frame",
                                n + 1
                            ));
                        }
                        let goal = push.then(|| push_goal(&rest)).flatten();
                        let names = if push { None } else { pop_names(rest) };
                        if record.get("uuid").is_none() {
                            return Err(format!(
                                "line {} has no uuid, a shape ctx does not know",
                                n + 1
                            ));
                        }
                        calls.push(Call {
                            line: n,
                            id: id.to_string(),
                            push,
                            goal,
                            names,
                        });
                    }
                }
            }
            Some("user") => {
                for block in blocks {
                    if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                        continue;
                    }
                    let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
                        continue;
                    };
                    answers.insert(
                        id.to_string(),
                        Answer {
                            line: n,
                            text: result_text(block.get("content")),
                            error: block.get("is_error").and_then(Value::as_bool) == Some(true),
                            folded: record.get(FOLDED_KEY).is_some(),
                        },
                    );
                }
            }
            _ => {}
        }
    }
    Ok((calls, answers, tools_of_message))
}

/// Whether `command` runs `… frame pop`, read as shell words: a summary or an `echo` that says
/// "frame pop" is text.
pub fn pops_a_frame(command: &str) -> bool {
    frame_call(command).is_some_and(|(push, _)| !push)
}

/// Whether `command` runs `… frame push` (true) or `… frame pop` (false), read as shell words (so
/// a summary that says "frame push" is text), and the words after it.
fn frame_call(command: &str) -> Option<(bool, Vec<(String, bool)>)> {
    let mut words = shell_words(command);
    let at = words.windows(2).position(|pair| {
        pair[0].0 == "frame" && pair[0].1 && matches!(pair[1].0.as_str(), "push" | "pop")
    })?;
    let push = words[at + 1].0 == "push";
    Some((push, words.split_off(at + 2)))
}

/// The `--frame` argument of a `ctx frame pop` command (the words after `frame pop`): `Some(None)` when it is not a value ctx
/// can read without running a shell (a variable, a substitution).
fn pop_names(rest: Vec<(String, bool)>) -> Option<Option<String>> {
    let mut words = rest.into_iter();
    while let Some((word, plain)) = words.next() {
        let value = if let Some(value) = word.strip_prefix("--frame=") {
            Some((value.to_string(), plain))
        } else if word == "--frame" {
            Some(words.next().unwrap_or_default())
        } else {
            None
        };
        if let Some((value, plain)) = value {
            return Some(plain.then_some(value).filter(|v| is_frame_id(v)));
        }
        // The command's end: what follows is another command's.
        if plain && matches!(word.as_str(), "&&" | "||" | ";" | "|") {
            break;
        }
    }
    None
}

/// `text` split into shell words, their quotes taken off, each with whether it is plain text (no
/// `$` or backquote outside single quotes, which only a shell could expand).
fn shell_words(text: &str) -> Vec<(String, bool)> {
    let mut words = Vec::new();
    let (mut word, mut plain, mut started) = (String::new(), true, false);
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.push(c),
            (_, '$' | '`') => {
                plain = false;
                word.push(c);
            }
            (Some(_), '\\') | (None, '\\') => word.extend(chars.next()),
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    words.push((std::mem::take(&mut word), plain));
                }
                (plain, started) = (true, false);
            }
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push((word, plain));
    }
    words
}

/// The frame a push's call made, read from the call's output. What `ctx frame push` prints is the
/// id on a line of its own: the output's first line when the push is the call's first command,
/// after the output of the commands before it otherwise (which may print ids too: `ctx frame plan
/// … && ctx frame push …`), and Claude Code puts `Exit code N` first when a command of the call
/// failed. So the frame is the line naming a frame ctx knows with the push's goal, or, when the
/// goal is not plain text, the first line naming a frame ctx knows. None does when the push failed.
fn pushed_frame(
    output: &str,
    goal: Option<&str>,
    goal_of: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let mut known = output
        .lines()
        .map(str::trim)
        .filter(|l| is_frame_id(l))
        .filter_map(|id| Some((id, goal_of(id)?)));
    let frame = match goal {
        Some(goal) => known.find(|(_, known)| known == goal),
        None => known.next(),
    };
    frame.map(|(id, _)| id.to_string())
}

/// The goal of a `ctx frame push` (the words after `frame push`), when it is plain text: the word
/// after `--`, else the first word that is neither an option nor an option's value.
fn push_goal(rest: &[(String, bool)]) -> Option<String> {
    const WITH_VALUE: [&str; 6] = [
        "--parent",
        "--id",
        "--frame",
        "--session",
        "--span-message",
        "--span-call",
    ];
    let mut words = rest.iter();
    while let Some((word, plain)) = words.next() {
        if *plain && matches!(word.as_str(), "&&" | "||" | ";" | "|") {
            return None;
        }
        if WITH_VALUE.contains(&word.as_str()) {
            words.next();
            continue;
        }
        let (goal, plain) = match word.as_str() {
            "--" => {
                let (goal, plain) = words.next()?;
                (goal, plain)
            }
            option if option.starts_with('-') => continue,
            _ => (word, plain),
        };
        return plain.then(|| goal.clone());
    }
    None
}

/// Words back into a command's text, for reading the rest of a call again.
fn rest_text(rest: &[(String, bool)]) -> String {
    rest.iter()
        .map(|(word, _)| format!("'{}'", word.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `text` can be a frame id or a prefix of one.
fn is_frame_id(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text")?.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: Value) -> String {
        v.to_string()
    }

    fn assistant_call(uuid: &str, parent: &str, message: &str, id: &str, command: &str) -> String {
        line(json!({
            "type": "assistant", "uuid": uuid, "parentUuid": parent, "version": "2.1.328",
            "message": { "id": message, "role": "assistant", "usage": { "input_tokens": 10 },
                "content": [{ "type": "tool_use", "id": id, "name": "Bash", "input": { "command": command } }] },
        }))
    }

    fn result(uuid: &str, parent: &str, id: &str, text: &str) -> String {
        line(json!({
            "type": "user", "uuid": uuid, "parentUuid": parent, "version": "2.1.328",
            "message": { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": id, "content": text }] },
            "toolUseResult": { "stdout": text },
        }))
    }

    fn session() -> Vec<String> {
        vec![
            line(
                json!({ "type": "user", "uuid": "a", "parentUuid": null, "message": { "role": "user", "content": "Go" } }),
            ),
            assistant_call("b", "a", "m1", "p1", "ctx frame push -- 'Refunds'"),
            result("c", "b", "p1", "fr_x\n"),
            assistant_call("d", "c", "m2", "t1", "printf BIG"),
            result("e", "d", "t1", "BIG_OUTPUT"),
            line(json!({ "type": "last-prompt", "lastPrompt": "Go" })),
            assistant_call(
                "f",
                "e",
                "m3",
                "q1",
                "ctx frame pop --summary 'Refunds done'",
            ),
            result("g", "f", "q1", "cc_s\n"),
            line(
                json!({ "type": "assistant", "uuid": "h", "parentUuid": "g", "message": { "id": "m4", "content": [{ "type": "text", "text": "Done." }] } }),
            ),
        ]
    }

    fn finished(frame: &str) -> Option<Finished> {
        (frame == "fr_x").then(|| Finished {
            parent: Some("cc_s".into()),
            text: "Frame fr_x completed: Refunds done".into(),
        })
    }

    /// The frames the tests' state holds, and their goals.
    fn goal_of(frame: &str) -> Option<String> {
        let goal = match frame {
            "fr_x" => "Refunds",
            "fr_y" => "Inner",
            "fr_p" => "Planned",
            "fr_else" => "Elsewhere",
            _ => return None,
        };
        Some(goal.to_string())
    }

    fn fold_lines(lines: &[String]) -> Result<Option<Folded>, String> {
        fold(&(lines.join("\n") + "\n"), &goal_of, &finished)
    }

    #[test]
    fn a_span_becomes_the_pop_answered_with_the_summary() {
        let folded = fold_lines(&session()).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert_eq!(uuids_left(&folded), ["a", "-", "f", "g", "h"]);
        let records: Vec<Value> = folded
            .text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            records[2]["parentUuid"], "a",
            "the pop's call follows the push's parent"
        );
        assert_eq!(
            records[3]["message"]["content"],
            json!([{ "type": "tool_result", "tool_use_id": "q1", "content": "Frame fr_x completed: Refunds done" }])
        );
        assert_eq!(records[3][FOLDED_KEY], "fr_x");
        assert!(records[3].get("toolUseResult").is_none());
        assert!(!folded.text.contains("BIG_OUTPUT"));
        // Lines ctx did not change stay byte for byte.
        assert!(folded.text.starts_with(&(session()[0].clone() + "\n")));
        // Folding again finds nothing more to fold.
        assert!(fold(&folded.text, &goal_of, &finished).unwrap().is_none());
    }

    /// `session()` with the push's call running `command` and answered with `output`.
    fn session_pushed_by(command: &str, output: &str, error: bool) -> Vec<String> {
        let mut lines = session();
        lines[1] = assistant_call("b", "a", "m1", "p1", command);
        let mut answer: Value = serde_json::from_str(&result("c", "b", "p1", output)).unwrap();
        answer["message"]["content"][0]["is_error"] = Value::from(error);
        lines[2] = line(answer);
        lines
    }

    fn uuids_left(folded: &Folded) -> Vec<String> {
        folded
            .text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|r| {
                r.get("uuid")
                    .and_then(Value::as_str)
                    .unwrap_or("-")
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn a_push_sharing_its_call_with_the_frames_first_command_starts_the_span() {
        // The push first, then the frame's first command: its output follows the id.
        let lines = session_pushed_by(
            "ctx frame push -- 'Refunds' && cargo test",
            "fr_x\nFIRST_OUTPUT\n",
            false,
        );
        let folded = fold_lines(&lines).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert_eq!(uuids_left(&folded), ["a", "-", "f", "g", "h"]);
        assert!(!folded.text.contains("FIRST_OUTPUT"));
        // A first command that fails makes the call an error, with Claude Code's `Exit code`
        // line first: the frame was pushed all the same, and its span folds.
        let failed = session_pushed_by(
            "ctx frame push -- 'Refunds' && cargo test",
            "Exit code 101\nfr_x\nFIRST_OUTPUT",
            true,
        );
        let folded = fold_lines(&failed).unwrap().unwrap();
        assert_eq!(uuids_left(&folded), ["a", "-", "f", "g", "h"]);
        assert!(!folded.text.contains("FIRST_OUTPUT"));
        // A push that failed pushed nothing: its pop has no push.
        let refused = session_pushed_by(
            "ctx frame push -- 'Refunds' && cargo test",
            "Exit code 1\nerror: no frame folder",
            true,
        );
        assert!(fold_lines(&refused).err().unwrap().contains("has no push"));
    }

    #[test]
    fn a_push_after_another_command_in_its_call_folds_that_commands_output_too() {
        // The span can only start at a whole call: the earlier command's output goes with the
        // frame (its log keeps it, as it keeps every result written after the push). Its lines
        // come before the id, and one that could be an id (`README`) is passed over for the
        // frame ctx knows as finished.
        let lines = session_pushed_by(
            "ls && ctx frame push -- 'Refunds'",
            "README\nEARLIER_OUTPUT\nfr_x\n",
            false,
        );
        let folded = fold_lines(&lines).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert_eq!(uuids_left(&folded), ["a", "-", "f", "g", "h"]);
        assert!(!folded.text.contains("EARLIER_OUTPUT"));
    }

    #[test]
    fn the_pushed_frame_is_the_one_with_the_pushs_goal_not_an_id_another_command_printed() {
        // `ctx frame plan` before the push prints the planned frame's id first; that frame is
        // finished too by the time the session ends.
        let finished = |frame: &str| match frame {
            "fr_p" => Some(Finished {
                parent: Some("cc_s".into()),
                text: "planned".into(),
            }),
            other => finished(other),
        };
        let lines = session_pushed_by(
            "ctx frame plan 'Planned' && ctx frame push -- 'Refunds' && make",
            "fr_p\nfr_x\nMAKE_OUTPUT\n",
            false,
        );
        let folded = fold(&lines.join("\n"), &goal_of, &finished)
            .unwrap()
            .unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(folded.text.contains("Refunds done") && !folded.text.contains("planned"));
        // A goal only a shell can read: the first line naming a finished frame.
        let lines = session_pushed_by("ctx frame push -- \"$GOAL\"", "fr_x\n", false);
        assert_eq!(
            fold(&lines.join("\n"), &goal_of, &finished)
                .unwrap()
                .unwrap()
                .frames,
            ["fr_x"]
        );
    }

    #[test]
    fn a_refused_push_whose_call_printed_something_id_like_pushes_nothing() {
        // Inside the frame, a push that failed after a command printing a word that could be an
        // id: it made no frame, and the outer frame still folds.
        let mut lines = session();
        lines.splice(
            5..5,
            [
                assistant_call(
                    "i1",
                    "e",
                    "n1",
                    "p2",
                    "git rev-parse --short HEAD && ctx frame push -- 'Inner'",
                ),
                result(
                    "i2",
                    "i1",
                    "p2",
                    "Exit code 1\nabc1234\nerror: the parent is finished",
                ),
            ],
        );
        let folded = fold_lines(&lines).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(!folded.text.contains("abc1234"));
    }

    #[test]
    fn a_pop_sharing_its_call_keeps_the_other_commands_output_after_the_summary() {
        let mut lines = session();
        lines[6] = assistant_call(
            "f",
            "e",
            "m3",
            "q1",
            "ctx frame pop --summary 'Refunds done' && git status --short",
        );
        lines[7] = result("g", "f", "q1", "cc_s\n M src/refund.rs\n");
        let folded = fold_lines(&lines).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        let answer: Value = serde_json::from_str(folded.text.lines().nth(3).unwrap()).unwrap();
        assert_eq!(
            answer["message"]["content"][0]["content"],
            "Frame fr_x completed: Refunds done\n\n M src/refund.rs"
        );
        // The command after the pop failed: the call is an error, and the pop ended its frame
        // all the same, as its output says.
        let failed = |text: &str| {
            let mut answer: Value = serde_json::from_str(&result("g", "f", "q1", text)).unwrap();
            answer["message"]["content"][0]["is_error"] = Value::from(true);
            line(answer)
        };
        lines[7] = failed("Exit code 1\ncc_s\nfatal: not a git repository");
        let folded = fold_lines(&lines).unwrap().unwrap();
        let answer: Value = serde_json::from_str(folded.text.lines().nth(3).unwrap()).unwrap();
        assert_eq!(
            answer["message"]["content"][0]["content"],
            "Frame fr_x completed: Refunds done\n\nExit code 1\nfatal: not a git repository"
        );
        // The pop itself failed: it ended nothing, and nothing folds.
        lines[7] = failed("Exit code 1\nerror: no frame is running");
        assert!(fold_lines(&lines).unwrap().is_none());
        // A pop and a push in one call: refused whole, with why.
        lines[6] = assistant_call(
            "f",
            "e",
            "m3",
            "q1",
            "ctx frame pop --summary 'Refunds done' && ctx frame push -- 'Next' && make",
        );
        let why = fold_lines(&lines).err().unwrap();
        assert!(why.contains("runs two frame commands"), "{why}");
    }

    #[test]
    fn a_pushs_goal_is_read_past_its_options() {
        let goal = |command: &str| {
            let (push, rest) = frame_call(command).unwrap();
            assert!(push);
            push_goal(&rest)
        };
        assert_eq!(
            goal("ctx frame push -- 'Build it' && make").as_deref(),
            Some("Build it")
        );
        assert_eq!(goal("ctx frame push 'Build'").as_deref(), Some("Build"));
        assert_eq!(
            goal("ctx frame push --parent fr_a --session=cc_s \"Build\"").as_deref(),
            Some("Build")
        );
        assert_eq!(goal("ctx frame push -- \"$GOAL\""), None);
        assert_eq!(goal("ctx frame push --parent fr_a && make"), None);
    }

    #[test]
    fn what_ctx_does_not_know_is_refused_whole() {
        let mut bad = session();
        bad.insert(3, "{\"type\":\"assis".into());
        assert_eq!(
            fold_lines(&bad).err().unwrap(),
            "line 4 is not a JSON object"
        );
        let no_push: Vec<String> = session()
            .into_iter()
            .enumerate()
            .filter(|(n, _)| !matches!(n, 1 | 2))
            .map(|(_, l)| l)
            .collect();
        assert!(fold_lines(&no_push).err().unwrap().contains("has no push"));
        let newer: Vec<String> = session()
            .into_iter()
            .map(|l| l.replace("2.1.328", "3.0.0"))
            .collect();
        assert!(fold_lines(&newer).err().unwrap().contains("version"));
        let mut compacted = session();
        compacted.insert(
            4,
            line(json!({ "type": "system", "subtype": "compact_boundary", "uuid": "k", "parentUuid": "d" })),
        );
        assert!(fold_lines(&compacted).err().unwrap().contains("compaction"));
        let mut crossing = session();
        crossing[7] = result("g", "f", "q1", "fr_other\n");
        assert!(fold_lines(&crossing).err().unwrap().contains("cross"));
        let mut shared = session();
        shared.insert(2, assistant_call("b2", "b", "m1", "p2", "ls"));
        assert!(
            fold_lines(&shared)
                .err()
                .unwrap()
                .contains("shares its message")
        );
    }

    #[test]
    fn a_pop_of_a_frame_pushed_elsewhere_ends_no_span() {
        // Inside the span: folded away with it.
        let mut lines = session();
        lines.splice(
            5..5,
            [
                assistant_call(
                    "o1",
                    "e",
                    "n1",
                    "o2",
                    "ctx frame pop --frame 'fr_else' --force",
                ),
                result("o3", "o1", "o2", ""),
            ],
        );
        lines[8] = assistant_call(
            "f",
            "o3",
            "m3",
            "q1",
            "ctx frame pop --summary 'Refunds done'",
        );
        let folded = fold_lines(&lines).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(!folded.text.contains("fr_else"), "{}", folded.text);
        // Outside any span: it stays, and ends nothing.
        let mut lines = session();
        lines.splice(
            1..1,
            [
                assistant_call("o1", "a", "n1", "o2", "ctx frame pop --frame=fr_else"),
                result("o3", "o1", "o2", ""),
            ],
        );
        lines[2 + 1] = lines[2 + 1].replace("\"parentUuid\":\"a\"", "\"parentUuid\":\"o3\"");
        let folded = fold_lines(&lines).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(folded.text.contains("--frame=fr_else"));
    }

    #[test]
    fn a_pop_naming_its_own_frame_or_an_outer_one() {
        // Its own frame: the span's end.
        let mut lines = session();
        lines[6] = assistant_call(
            "f",
            "e",
            "m3",
            "q1",
            "ctx frame pop --frame \"fr_x\" --summary 'Refunds done'",
        );
        assert_eq!(fold_lines(&lines).unwrap().unwrap().frames, ["fr_x"]);
        // An outer frame while an inner one runs: the spans cross.
        let mut lines = session();
        lines.splice(
            5..5,
            [
                assistant_call("i1", "e", "n1", "p2", "ctx frame push -- 'Inner'"),
                result("i2", "i1", "p2", "fr_y\n"),
            ],
        );
        lines[8] = assistant_call(
            "f",
            "i2",
            "m3",
            "q1",
            "ctx frame pop --force --frame fr_x --summary 'Refunds done'",
        );
        let why = fold_lines(&lines).err().unwrap();
        assert!(why.contains("spans cross") && why.contains("fr_y"), "{why}");
        // A frame ctx cannot read from the command: left alone.
        let mut lines = session();
        lines[6] = assistant_call("f", "e", "m3", "q1", "ctx frame pop --frame \"$F\"");
        let why = fold_lines(&lines).err().unwrap();
        assert!(why.contains("what only a shell can read"), "{why}");
        // `--frame` inside a quoted summary is the summary's text.
        let mut lines = session();
        lines[6] = assistant_call(
            "f",
            "e",
            "m3",
            "q1",
            "ctx frame pop --summary 'done; see --frame x' && echo \"--frame=$Y\"",
        );
        assert_eq!(fold_lines(&lines).unwrap().unwrap().frames, ["fr_x"]);
        // Nor is a summary that says "frame push" a push.
        let mut lines = session();
        lines[6] = assistant_call(
            "f",
            "e",
            "m3",
            "q1",
            "ctx frame pop --summary 'undid the frame push of the old code'",
        );
        assert_eq!(fold_lines(&lines).unwrap().unwrap().frames, ["fr_x"]);
    }

    #[test]
    fn nested_spans_fold_as_the_outer_one() {
        let mut lines = session();
        lines.splice(
            5..5,
            [
                assistant_call("i1", "e", "n1", "p2", "ctx frame push -- 'Inner'"),
                result("i2", "i1", "p2", "fr_y\n"),
                assistant_call("i3", "i2", "n2", "q2", "ctx frame pop"),
                result("i4", "i3", "q2", "fr_x\n"),
            ],
        );
        lines[10] = assistant_call(
            "f",
            "i4",
            "m3",
            "q1",
            "ctx frame pop --summary 'Refunds done'",
        );
        let finished = |frame: &str| match frame {
            "fr_y" => Some(Finished {
                parent: Some("fr_x".into()),
                text: "inner".into(),
            }),
            other => finished(other),
        };
        let folded = fold(&(lines.join("\n") + "\n"), &goal_of, &finished)
            .unwrap()
            .unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(!folded.text.contains("i4") && !folded.text.contains("inner"));
    }
}

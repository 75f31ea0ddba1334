//! Folding a Claude Code transcript (claude-code.md §7, "between processes").
//!
//! Claude Code sends, on `--continue` or `--resume`, what the session's transcript holds. So when
//! a session ends, each frame the model pushed and popped through Bash is folded in the transcript:
//! the lines from the push's call to the pop's call are taken out, the pop's call stays, and its
//! result becomes the frame's summary and log path. The pop's call is chained to the push's
//! parent (`parentUuid`), so the conversation stays one linked chain, and every tool_use is still
//! answered by its tool_result. Lines without a `uuid` (Claude Code's bookkeeping) stay.
//!
//! Pushes and pops are the Bash calls that run `ctx frame push` and `ctx frame pop`
//! ([`frame_calls`](crate::hooks::frame_calls) says exactly which commands those are), paired as
//! a stack. A pop ends the frame on top only when its output shows it did (it names the frame's
//! parent as the frame now current, or with `--json` its document names the frame): one that
//! does not (it ended a frame ctx did not see pushed) leaves the stack as it is. A pop that names
//! its frame (`--frame ID`) ends that frame: one pushed elsewhere (another session, a person)
//! ends no span here and is an ordinary call, folded with the span it sits in; an outer frame's,
//! while an inner one runs, crosses.
//!
//! A folded result is marked (`ctxFolded`: the frame id), so that a later fold of the same
//! transcript knows that pop's push is already gone. What ctx cannot fold safely is left as it
//! is, with the reason: the whole transcript for what concerns all of it (a line that is not
//! JSON, a version other than 2.x, a frame call without a `uuid`); otherwise only the frame
//! concerned (a pop without its push, spans that cross, a pop naming its frame by what ctx
//! cannot read (a variable), a compaction inside a span, a call that shares its message with
//! other calls, a call that runs two frame commands), while the others fold.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::hooks::frame_calls::{self, Span};
use crate::hooks::transcript::Folded;

pub use crate::hooks::frame_calls::Finished;

/// The key ctx adds to a tool_result line it rewrote.
pub const FOLDED_KEY: &str = "ctxFolded";

/// Folds `text`, a transcript, with `goal_of` telling which frames ctx knows (and their goals)
/// and `finished` which of them ended (and how). `Err(reason)` when the whole transcript is left
/// as it is; otherwise what folded, and why each frame that did not fold was left.
pub fn fold(
    text: &str,
    goal_of: &dyn Fn(&str) -> Option<String>,
    finished: &dyn Fn(&str) -> Option<Finished>,
) -> Result<Folded, String> {
    let (raw, records) = lines_and_records(text)?;
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
    let (calls, tools_of_message) = calls_and_answers(&records)?;
    let (spans, mut refusals) = frame_calls::pair(&calls, goal_of, finished);
    // A span ctx could fold on its own may still not fold safely where it lies.
    let mut foldable: Vec<Span> = Vec::new();
    for span in spans {
        match span_problem(&records, &tools_of_message, &span) {
            Some(why) => refusals.push(frame_calls::Refusal {
                frame: Some(span.frame),
                line: span.push,
                why,
            }),
            None => foldable.push(span),
        }
    }
    let outer = frame_calls::outermost(&foldable);
    let refused = frame_calls::refused(&refusals, &foldable, &outer);
    if outer.is_empty() {
        return Ok(Folded {
            text: None,
            frames: Vec::new(),
            refused,
        });
    }
    let mut removed: HashSet<usize> = HashSet::new();
    let mut rewritten: HashMap<usize, Value> = HashMap::new();
    let mut frames = Vec::new();
    for span in &outer {
        let (push_line, pop_line, answer_line, frame) =
            (span.push, span.pop, span.answer, &span.frame);
        for (n, record) in records.iter().enumerate().take(pop_line).skip(push_line) {
            if record.as_ref().is_some_and(|r| r.get("uuid").is_some()) {
                removed.insert(n);
            }
        }
        let push_parent = records[push_line]
            .as_ref()
            .and_then(|r| r.get("parentUuid"))
            .cloned()
            .unwrap_or(Value::Null);
        let mut pop = records[pop_line].clone().expect("a call is a record");
        pop["parentUuid"] = push_parent;
        rewritten.insert(pop_line, pop);
        let done = finished(frame).expect("a span's frame is finished");
        let answer = records[answer_line]
            .as_ref()
            .expect("an answer is a record");
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
        rewritten.insert(answer_line, result);
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
    Ok(Folded {
        text: Some(out),
        frames,
        refused,
    })
}

/// Why `span` cannot be folded where it lies, if it cannot: a line of a message it would split,
/// or a compaction inside it.
fn span_problem(
    records: &[Option<Value>],
    tools_of_message: &HashMap<String, usize>,
    span: &Span,
) -> Option<String> {
    for n in [span.push, span.pop] {
        let message = message_id(records[n].as_ref()).unwrap_or_default();
        if tools_of_message.get(&message).copied().unwrap_or(0) > 1 {
            return Some(format!(
                "the call at line {} shares its message with other tool calls",
                n + 1
            ));
        }
    }
    let only_this = records[span.answer]
        .as_ref()
        .and_then(|answer| answer.pointer("/message/content"))
        .and_then(Value::as_array)
        .is_some_and(|blocks| blocks.len() == 1);
    if !only_this {
        return Some(format!(
            "the pop's result at line {} shares its message with other results",
            span.answer + 1
        ));
    }
    let compaction = records[span.push..span.pop]
        .iter()
        .flatten()
        .any(is_compaction);
    compaction.then(|| {
        format!(
            "its span (lines {}–{}) holds a compaction",
            span.push + 1,
            span.pop + 1
        )
    })
}

/// A transcript's lines, and each as its JSON object (`None` for a blank line); an error names the
/// first line that is not a JSON object, which leaves the whole transcript as it is.
pub(crate) fn lines_and_records(text: &str) -> Result<(Vec<&str>, Vec<Option<Value>>), String> {
    let records = crate::hooks::json_lines(text)?;
    let records = records.into_iter().map(|r| r.map(Value::Object)).collect();
    Ok((text.lines().collect(), records))
}

/// Points `record`'s `parentUuid` past the lines taken out; whether it changed.
pub(crate) fn relink(record: &mut Value, parent_of: &HashMap<String, Value>) -> bool {
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
pub(crate) fn is_compaction(record: &Value) -> bool {
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

/// The Bash calls that push or pop a frame, in order, with their results; how many tool calls
/// each assistant message holds.
fn calls_and_answers(
    records: &[Option<Value>],
) -> Result<(Vec<frame_calls::Call>, HashMap<String, usize>), String> {
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
                    let commands = frame_calls::frame_commands(command);
                    if commands.is_empty() {
                        continue;
                    }
                    if record.get("uuid").is_none() {
                        return Err(format!(
                            "line {} has no uuid, a shape ctx does not know",
                            n + 1
                        ));
                    }
                    calls.push((n, id.to_string(), commands));
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
                        frame_calls::Answer {
                            line: n,
                            text: result_text(block.get("content")),
                            failed: block.get("is_error").and_then(Value::as_bool) == Some(true),
                            folded: record.get(FOLDED_KEY).is_some(),
                        },
                    );
                }
            }
            _ => {}
        }
    }
    let calls = calls
        .into_iter()
        .map(|(line, id, commands)| frame_calls::Call {
            line,
            commands,
            answer: answers.remove(&id),
        })
        .collect();
    Ok((calls, tools_of_message))
}

/// Whether `command` runs `ctx frame pop` ([`frame_calls`] says what counts): a summary or an
/// `echo` that says "frame pop" is text.
pub fn pops_a_frame(command: &str) -> bool {
    frame_calls::frame_commands(command).iter().any(|c| !c.push)
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

    /// A fold that rewrote the transcript: its text, the frames folded and those refused.
    struct Done {
        text: String,
        frames: Vec<String>,
        refused: Vec<String>,
    }

    /// `Some` when the fold rewrote the transcript.
    fn done(folded: Folded) -> Option<Done> {
        Some(Done {
            text: folded.text?,
            frames: folded.frames,
            refused: folded.refused,
        })
    }

    fn fold_lines(lines: &[String]) -> Result<Option<Done>, String> {
        refusals_and_fold(lines).map(done)
    }

    fn refusals_and_fold(lines: &[String]) -> Result<Folded, String> {
        fold(&(lines.join("\n") + "\n"), &goal_of, &finished)
    }

    /// Why the frames of `lines` that did not fold were refused.
    fn refused(lines: &[String]) -> Vec<String> {
        refusals_and_fold(lines).unwrap().refused
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
        assert!(
            fold(&folded.text, &goal_of, &finished)
                .map(done)
                .unwrap()
                .is_none()
        );
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

    fn uuids_left(folded: &Done) -> Vec<String> {
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
        let failed_push = session_pushed_by(
            "ctx frame push -- 'Refunds' && cargo test",
            "Exit code 1\nerror: no frame folder",
            true,
        );
        assert!(fold_lines(&failed_push).unwrap().is_none());
        let why = refused(&failed_push);
        assert!(why.len() == 1 && why[0].contains("has no push"), "{why:?}");
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
            .map(done)
            .unwrap()
            .unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(folded.text.contains("Refunds done") && !folded.text.contains("planned"));
        // A goal only a shell can read: the first line naming a finished frame.
        let lines = session_pushed_by("ctx frame push -- \"$GOAL\"", "fr_x\n", false);
        assert_eq!(
            fold(&lines.join("\n"), &goal_of, &finished)
                .map(done)
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
        // A pop and a push in one call: that frame is refused, with why.
        lines[6] = assistant_call(
            "f",
            "e",
            "m3",
            "q1",
            "ctx frame pop --summary 'Refunds done' && ctx frame push -- 'Next' && make",
        );
        lines[7] = result("g", "f", "q1", "cc_s\n");
        assert!(fold_lines(&lines).unwrap().is_none());
        let why = refused(&lines);
        assert_eq!(
            why,
            [
                "frame fr_x, pushed at line 2, left unfolded: the call at line 7 runs two frame \
              commands; ctx folds a call that pushes or pops one frame"
            ]
        );
    }

    #[test]
    fn what_concerns_the_whole_transcript_refuses_it_whole() {
        let mut bad = session();
        bad.insert(3, "{\"type\":\"assis".into());
        assert_eq!(
            fold_lines(&bad).err().unwrap(),
            "line 4 is not a JSON object"
        );
        let newer: Vec<String> = session()
            .into_iter()
            .map(|l| l.replace("2.1.328", "3.0.0"))
            .collect();
        assert!(fold_lines(&newer).err().unwrap().contains("version"));
    }

    /// `session()`, then a second frame, fr_z, pushed, worked in and popped (lines 10 to 15).
    fn two_frames() -> Vec<String> {
        let mut lines = session();
        lines.extend([
            assistant_call("z1", "h", "zm1", "zp", "ctx frame push -- 'Second'"),
            result("z2", "z1", "zp", "fr_z\n"),
            assistant_call("z3", "z2", "zm2", "zt", "printf SECOND"),
            result("z4", "z3", "zt", "SECOND_OUTPUT"),
            assistant_call(
                "z5",
                "z4",
                "zm3",
                "zq",
                "ctx frame pop --summary 'Second done'",
            ),
            result("z6", "z5", "zq", "cc_s\n"),
        ]);
        lines
    }

    /// Folds `lines` knowing fr_z as finished too: the frames folded and the refusals.
    fn fold_two(lines: &[String]) -> (Vec<String>, Vec<String>, String) {
        let finished = |frame: &str| match frame {
            "fr_z" => Some(Finished {
                parent: Some("cc_s".into()),
                text: "Second folded".into(),
            }),
            other => finished(other),
        };
        let goal_of = |frame: &str| match frame {
            "fr_z" => Some("Second".to_string()),
            other => goal_of(other),
        };
        let folded = fold(&(lines.join("\n") + "\n"), &goal_of, &finished).unwrap();
        (
            folded.frames,
            folded.refused,
            folded.text.unwrap_or_default(),
        )
    }

    #[test]
    fn a_frame_that_cannot_fold_is_refused_alone_and_the_others_fold() {
        let (frames, refused, _) = fold_two(&two_frames());
        assert_eq!(
            (frames, refused),
            (
                vec!["fr_z".to_string(), "fr_x".to_string()]
                    .into_iter()
                    .rev()
                    .collect(),
                vec![]
            )
        );
        let check = |lines: &[String], why: &str| {
            let (frames, refused, text) = fold_two(lines);
            assert_eq!(frames, ["fr_z"], "{why}: {refused:?}");
            assert!(
                !text.contains("SECOND_OUTPUT") && text.contains("Second folded"),
                "{why}"
            );
            assert!(text.contains("BIG_OUTPUT"), "{why}: fr_x stays");
            assert_eq!(refused.len(), 1, "{why}: {refused:?}");
            assert!(refused[0].contains(why), "{why}: {refused:?}");
        };
        let no_push: Vec<String> = two_frames()
            .into_iter()
            .enumerate()
            .filter(|(n, _)| !matches!(n, 1 | 2))
            .map(|(_, l)| l)
            .collect();
        check(
            &no_push,
            "the pop at line 5 has no push in the transcript; left as it is",
        );
        let mut compacted = two_frames();
        compacted.insert(
            4,
            line(json!({ "type": "system", "subtype": "compact_boundary", "uuid": "k", "parentUuid": "d" })),
        );
        check(
            &compacted,
            "frame fr_x, pushed at line 2, left unfolded: its span (lines 2–8) holds a compaction",
        );
        let mut not_shown = two_frames();
        not_shown[7] = result("g", "f", "q1", "fr_other\n");
        check(
            &not_shown,
            "frame fr_x, pushed at line 2, left unfolded: the pop at line 7 does not show it ended \
             it: its output does not name its parent cc_s as the frame now current",
        );
        let mut shared = two_frames();
        shared.insert(2, assistant_call("b2", "b", "m1", "p2", "ls"));
        check(
            &shared,
            "the call at line 2 shares its message with other tool calls",
        );
        let mut variable = two_frames();
        variable[6] = assistant_call("f", "e", "m3", "q1", "ctx frame pop --frame \"$F\"");
        check(&variable, "names its frame by what only a shell can read");
        let mut two_commands = two_frames();
        two_commands[6] = assistant_call(
            "f",
            "e",
            "m3",
            "q1",
            "ctx frame pop --summary 'Refunds done' && ctx frame push -- 'Next'",
        );
        check(&two_commands, "runs two frame commands");
        // A frame refused inside a frame that folds goes with it, and is not reported.
        let mut inner = two_frames();
        inner.splice(
            11..11,
            [
                assistant_call("y1", "z2", "ym1", "yq", "ctx frame pop --frame \"$F\""),
                result("y2", "y1", "yq", "fr_z\n"),
            ],
        );
        let (frames, refused, _) = fold_two(&inner);
        assert_eq!(frames, ["fr_x", "fr_z"]);
        assert!(refused.is_empty(), "{refused:?}");
    }

    #[test]
    fn a_push_ended_by_a_separator_or_a_parenthesis_keeps_its_goal() {
        for push in [
            "ctx frame push -- 'Refunds'; cargo test",
            "ctx frame push -- 'Refunds'&&cargo test",
            "(ctx frame push -- 'Refunds')",
            "ctx frame push -- 'Refunds'|tee /dev/null",
        ] {
            let lines = session_pushed_by(push, "fr_x\n", false);
            let folded = fold_lines(&lines).unwrap();
            assert_eq!(
                folded.map(|f| f.frames),
                Some(vec!["fr_x".to_string()]),
                "{push}"
            );
        }
    }

    #[test]
    fn a_json_pop_and_text_that_says_frame_pop_are_read_for_what_they_are() {
        // `--json` before `frame`: the pop prints its document, which names the frame popped.
        let mut lines = session();
        lines[6] = assistant_call(
            "f",
            "e",
            "m3",
            "q1",
            "ctx --json frame pop --summary 'Refunds done'",
        );
        lines[7] = result(
            "g",
            "f",
            "q1",
            r#"{"version":1,"frame":{"id":"fr_x","parent":"cc_s","status":"completed"},"current":"cc_s"}"#,
        );
        let folded = fold_lines(&lines).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(!folded.text.contains("\\\"current\\\""), "{}", folded.text);
        // `echo` of words that say "frame pop" pops nothing: it is work inside the frame.
        let mut lines = session();
        lines[3] = assistant_call("d", "c", "m2", "t1", "echo frame pop is next");
        lines[4] = result("e", "d", "t1", "frame pop is next");
        let folded = fold_lines(&lines).unwrap().unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(folded.refused.is_empty());
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
        assert!(fold_lines(&lines).unwrap().is_none());
        let why = refused(&lines);
        assert!(
            why.len() == 1 && why[0].contains("spans cross") && why[0].contains("fr_y"),
            "{why:?}"
        );
        // A frame ctx cannot read from the command: left alone.
        let mut lines = session();
        lines[6] = assistant_call("f", "e", "m3", "q1", "ctx frame pop --frame \"$F\"");
        assert!(fold_lines(&lines).unwrap().is_none());
        let why = refused(&lines);
        assert!(why[0].contains("what only a shell can read"), "{why:?}");
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
            .map(done)
            .unwrap()
            .unwrap();
        assert_eq!(folded.frames, ["fr_x"]);
        assert!(!folded.text.contains("i4") && !folded.text.contains("inner"));
    }
}

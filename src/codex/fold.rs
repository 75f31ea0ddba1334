//! Folding a Codex rollout: each frame the model pushed and popped through its shell
//! (`ctx frame push --session "cx_$CODEX_THREAD_ID"` … `ctx frame pop …`) becomes its pop call and
//! an output that holds the frame's summary, so that `codex exec resume` (which sends what the
//! rollout holds, observed with 0.171.0) sends the frame folded. Pure: text in, text out.
//!
//! A frame's span runs from the `function_call` record of its push to the `function_call_output`
//! of its pop. The pushes and pops are read and paired as Claude Code's fold pairs them
//! ([`frame_calls`]): the frame a push made is the id in its output with the push's goal, and a
//! pop ends the frame on top only when its output shows it did, even when a later command of its
//! call failed. An output without Codex's `Process exited with code N` header (one a fold already
//! replaced) is passed over. What the other commands of the pop's call printed stays in its
//! output, after the summary. In a span, only the `response_item` records (what Codex sends to
//! the model) go; Codex's own records (events, token counts, turn contexts) stay. A frame whose
//! fold would leave a call without its output, or an output without its call, stays unfolded,
//! with why, and so does each frame ctx cannot pair safely; a rollout that is not JSON is left
//! whole.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::rollout::item;
use crate::hooks::frame_calls::{self, Finished, Span};
use crate::hooks::transcript::Folded;

/// The command a shell call ran (`exec_command`'s `cmd`, a `shell` call's `command`).
pub(super) fn command_of(payload: &Value) -> Option<String> {
    let arguments: Value = serde_json::from_str(payload.get("arguments")?.as_str()?).ok()?;
    match arguments.get("cmd").or_else(|| arguments.get("command"))? {
        Value::String(cmd) => Some(cmd.clone()),
        Value::Array(words) => Some(
            words
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => None,
    }
}

/// A call's exit code and what it printed (Codex's output: a header, then `Output:`); `None`
/// when the output has no such header.
fn exit_and_output(output: &str) -> Option<(i64, &str)> {
    let code = output
        .lines()
        .find_map(|l| l.strip_prefix("Process exited with code "))?
        .trim()
        .parse()
        .ok()?;
    Some((
        code,
        output.split_once("Output:\n").map_or("", |(_, rest)| rest),
    ))
}

/// The rollout `text` folded: each span of a frame ctx knows as finished (`finished`, the frames'
/// goals by `goal_of`) that lies in no other folded span becomes its pop call and an output
/// holding the frame's folded text, then what the call's other commands printed. An error says
/// why the whole rollout is left as it is.
pub fn fold(
    text: &str,
    goal_of: &dyn Fn(&str) -> Option<String>,
    finished: &dyn Fn(&str) -> Option<Finished>,
) -> Result<Folded, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut records: Vec<Option<Value>> = Vec::with_capacity(lines.len());
    for (n, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            records.push(None);
            continue;
        }
        let record: Value =
            serde_json::from_str(line).map_err(|e| format!("line {} is not JSON ({e})", n + 1))?;
        records.push(Some(record));
    }
    let mut calls: Vec<(usize, String, Vec<frame_calls::FrameCommand>)> = Vec::new();
    let mut outputs: HashMap<String, frame_calls::Answer> = HashMap::new();
    for (n, record) in records.iter().enumerate() {
        let Some(payload) = record.as_ref().and_then(item) else {
            continue;
        };
        let Some(call_id) = payload.get("call_id").and_then(Value::as_str) else {
            continue;
        };
        match payload.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                let commands = command_of(payload)
                    .map(|c| frame_calls::frame_commands(&c))
                    .unwrap_or_default();
                if !commands.is_empty() {
                    calls.push((n, call_id.to_string(), commands));
                }
            }
            Some("function_call_output") => {
                let output = payload.get("output").and_then(Value::as_str).unwrap_or("");
                let (failed, printed, folded) = match exit_and_output(output) {
                    Some((code, printed)) => (code != 0, printed, false),
                    None => (true, "", true),
                };
                outputs.insert(
                    call_id.to_string(),
                    frame_calls::Answer {
                        line: n,
                        text: printed.to_string(),
                        failed,
                        folded,
                    },
                );
            }
            _ => {}
        }
    }
    let calls: Vec<frame_calls::Call> = calls
        .into_iter()
        .map(|(line, id, commands)| frame_calls::Call {
            line,
            commands,
            answer: outputs.remove(&id),
        })
        .collect();
    let (spans, mut refusals) = frame_calls::pair(&calls, goal_of, finished);
    let mut foldable: Vec<Span> = Vec::new();
    for span in spans {
        if pairs_within(&records, &span) {
            foldable.push(span);
        } else {
            refusals.push(frame_calls::Refusal {
                frame: Some(span.frame),
                line: span.push,
                why: "folding it would leave a call without its output".into(),
            });
        }
    }
    let outer = frame_calls::outermost(&foldable);
    let refused = frame_calls::refused(&refusals, &foldable, &outer);
    let mut dropped: HashSet<usize> = HashSet::new();
    let mut replaced: HashMap<usize, String> = HashMap::new();
    let mut frames = Vec::new();
    for span in &outer {
        dropped.extend(dropped_by(&records, span));
        let done = finished(&span.frame).expect("a span's frame is finished");
        let exit = records[span.answer]
            .as_ref()
            .and_then(|r| r.pointer("/payload/output")?.as_str())
            .and_then(exit_and_output)
            .map_or(0, |(code, _)| code);
        // The model saw the other commands' output, and their failure.
        let failure = (exit != 0).then(|| format!("Process exited with code {exit}"));
        let after: Vec<&str> = failure
            .iter()
            .map(String::as_str)
            .chain(span.others.as_deref())
            .collect();
        let text = match after.is_empty() {
            true => done.text,
            false => format!("{}\n\n{}", done.text, after.join("\n")),
        };
        replaced.insert(span.answer, text);
        frames.push(span.frame.clone());
    }
    if frames.is_empty() {
        return Ok(Folded {
            text: None,
            frames,
            refused,
        });
    }
    let mut out = String::with_capacity(text.len());
    for (n, line) in lines.iter().enumerate() {
        if dropped.contains(&n) {
            continue;
        }
        match (replaced.get(&n), &records[n]) {
            (Some(text), Some(record)) => {
                let mut record = record.clone();
                record["payload"]["output"] = Value::from(text.as_str());
                out.push_str(&record.to_string());
                out.push('\n');
            }
            _ => out.push_str(line),
        }
    }
    Ok(Folded {
        text: Some(out),
        frames,
        refused,
    })
}

/// The lines a span's fold takes out: its response items, but for the pop's call and output.
fn dropped_by(records: &[Option<Value>], span: &Span) -> Vec<usize> {
    (span.push..=span.answer)
        .filter(|&n| n != span.pop && n != span.answer)
        .filter(|&n| records[n].as_ref().and_then(item).is_some())
        .collect()
}

/// Whether the calls and outputs a span's fold takes out answer each other, so that none is
/// left without the other.
fn pairs_within(records: &[Option<Value>], span: &Span) -> bool {
    let dropped: HashSet<usize> = dropped_by(records, span).into_iter().collect();
    let (calls, outputs) = call_ids(records, |n| dropped.contains(&n));
    calls == outputs
}

/// The `call_id`s of the `function_call` and `function_call_output` records on the lines `keep`
/// takes.
fn call_ids(
    records: &[Option<Value>],
    keep: impl Fn(usize) -> bool,
) -> (HashSet<&str>, HashSet<&str>) {
    let mut calls = HashSet::new();
    let mut outputs = HashSet::new();
    for (n, record) in records.iter().enumerate() {
        if !keep(n) {
            continue;
        }
        let Some(payload) = record.as_ref().and_then(item) else {
            continue;
        };
        let id = payload.get("call_id").and_then(Value::as_str);
        match (payload.get("type").and_then(Value::as_str), id) {
            (Some("function_call"), Some(id)) => {
                calls.insert(id);
            }
            (Some("function_call_output"), Some(id)) => {
                outputs.insert(id);
            }
            _ => {}
        }
    }
    (calls, outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, cmd: &str) -> String {
        let arguments = serde_json::json!({ "cmd": cmd }).to_string();
        serde_json::json!({"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": id}})
        .to_string()
            + "\n"
    }

    fn output(id: &str, code: u8, printed: &str) -> String {
        let text = format!("Chunk ID: x\nProcess exited with code {code}\nOutput:\n{printed}");
        serde_json::json!({"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": id, "output": text}})
        .to_string()
            + "\n"
    }

    fn rollout(parts: &[String]) -> String {
        let mut text =
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"t1"}}"#.to_string() + "\n";
        for part in parts {
            text.push_str(part);
        }
        text
    }

    const PUSH: &str = r#"ctx frame push --session "cx_$CODEX_THREAD_ID" -- 'Refunds'"#;
    const POP: &str = r#"ctx frame pop --session "cx_$CODEX_THREAD_ID" --summary done"#;
    /// The thread's frame: every frame's parent but `fr_inner`'s, which is `fr_outer`.
    const THREAD: &str = "cx_t1";

    fn goal_of(frame: &str) -> Option<String> {
        frame.starts_with("fr_").then(|| "Refunds".to_string())
    }

    fn parent_of(frame: &str) -> String {
        match frame {
            "fr_inner" => "fr_outer".into(),
            _ => THREAD.into(),
        }
    }

    /// Folds `text` with the frames `done` names finished, each folded to `F <id>`.
    fn fold_with(text: &str, done: &dyn Fn(&str) -> bool) -> Result<Folded, String> {
        fold(text, &goal_of, &|id| {
            done(id).then(|| Finished {
                parent: Some(parent_of(id)),
                text: format!("F {id}"),
            })
        })
    }

    /// The folded text, when the fold rewrote the rollout.
    fn folded_text(text: &str, done: &dyn Fn(&str) -> bool) -> Option<String> {
        fold_with(text, done).unwrap().text
    }

    #[test]
    fn a_popped_frames_span_becomes_its_pop_and_summary() {
        let text = rollout(&[
            call("c1", PUSH),
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count"}}"#.to_string()
                + "\n",
            output("c1", 0, "fr_abc\n"),
            call("c2", "printf BULKY_OUTPUT"),
            output("c2", 0, "BULKY_OUTPUT"),
            call("c3", POP),
            output("c3", 0, "cx_t1\n"),
            call("c4", "echo after"),
            output("c4", 0, "after"),
        ]);
        let folded = fold_with(&text, &|id| id == "fr_abc").unwrap();
        assert_eq!(folded.frames, ["fr_abc"]);
        let folded = Done::of(folded);
        assert!(!folded.text.contains("BULKY_OUTPUT"), "{}", folded.text);
        assert!(!folded.text.contains("'Refunds'"), "the push goes too");
        assert!(folded.text.contains("frame pop --session"), "the pop stays");
        assert!(
            folded.text.contains("\"output\":\"F fr_abc\""),
            "{}",
            folded.text
        );
        assert!(
            folded.text.contains("token_count"),
            "Codex's own records stay"
        );
        assert!(folded.text.contains("echo after"));
        assert!(
            folded
                .text
                .starts_with(r#"{"timestamp":"t","type":"session_meta""#)
        );
    }

    /// A fold that rewrote the rollout.
    struct Done {
        text: String,
    }

    impl Done {
        fn of(folded: Folded) -> Done {
            Done {
                text: folded.text.expect("the rollout folded"),
            }
        }
    }

    #[test]
    fn unfinished_failed_and_nested_frames_fold_as_they_should() {
        // The outer frame folds, with the inner one inside it.
        let nested = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "fr_outer\n"),
            call("c2", PUSH),
            output("c2", 0, "fr_inner\n"),
            call("c3", POP),
            output("c3", 0, "fr_outer\n"),
            call("c4", POP),
            output("c4", 0, "cx_t1\n"),
        ]);
        let folded = fold_with(&nested, &|_| true).unwrap();
        assert_eq!(folded.frames, ["fr_outer"]);
        assert_eq!(folded.text.unwrap().matches("function_call\"").count(), 1);
        // Only the inner one finished: it alone folds.
        let folded = fold_with(&nested, &|id| id == "fr_inner").unwrap();
        assert_eq!(folded.frames, ["fr_inner"]);
        // Nothing finished, or a push that failed: nothing to fold.
        assert!(folded_text(&nested, &|_| false).is_none());
        let failed = rollout(&[
            call("c1", PUSH),
            output("c1", 1, "error: no\n"),
            call("c2", POP),
            output("c2", 0, "cx_t1\n"),
        ]);
        assert!(folded_text(&failed, &|_| true).is_none());
        // A call left open across the pop is refused rather than unpaired.
        let open = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "fr_a\n"),
            call("c2", "sleep 100"),
            call("c3", POP),
            output("c3", 0, "cx_t1\n"),
            output("c2", 0, ""),
        ]);
        let folded = fold_with(&open, &|_| true).unwrap();
        assert!(folded.text.is_none());
        assert_eq!(
            folded.refused,
            [
                "frame fr_a, pushed at line 2, left unfolded: folding it would leave a call without \
              its output"
            ]
        );
        assert!(fold_with("not json\n", &|_| true).is_err());
    }

    #[test]
    fn a_pop_sharing_its_call_keeps_the_other_commands_output_after_the_summary() {
        let text = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "fr_abc\n"),
            call("c2", "printf BULKY_OUTPUT"),
            output("c2", 0, "BULKY_OUTPUT"),
            call("c3", &format!("{POP} && printf AFTER_POP")),
            output("c3", 0, "cx_t1\nAFTER_POP"),
        ]);
        let folded = Done::of(fold_with(&text, &|_| true).unwrap());
        assert!(!folded.text.contains("BULKY_OUTPUT"));
        assert!(
            folded.text.contains(r#""output":"F fr_abc\n\nAFTER_POP""#),
            "{}",
            folded.text
        );
        // The command after the pop failed: the pop ended its frame all the same, and the model
        // saw the failure.
        let text = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "fr_abc\n"),
            call("c3", &format!("{POP} && git status")),
            output("c3", 128, "cx_t1\nfatal: not a git repository"),
        ]);
        let folded = Done::of(fold_with(&text, &|_| true).unwrap());
        assert!(
            folded.text.contains(
                r#""output":"F fr_abc\n\nProcess exited with code 128\nfatal: not a git repository""#
            ),
            "{}",
            folded.text
        );
    }

    #[test]
    fn a_push_sharing_its_call_is_found_by_its_goal_not_the_last_line() {
        let text = rollout(&[
            call("c1", &format!("{PUSH} && printf INSIDE")),
            output("c1", 0, "fr_abc\nINSIDE"),
            call("c2", POP),
            output("c2", 0, "cx_t1\n"),
        ]);
        let folded = fold_with(&text, &|_| true).unwrap();
        assert_eq!(folded.frames, ["fr_abc"]);
        assert!(!Done::of(folded).text.contains("INSIDE"));
        // A frame command split by a separator or a parenthesis is read whole.
        let text = rollout(&[
            call(
                "c1",
                "(ctx frame push --session \"cx_$CODEX_THREAD_ID\" -- 'Refunds');make",
            ),
            output("c1", 2, "fr_abc\nmake: *** No targets.  Stop."),
            call("c2", POP),
            output("c2", 0, "cx_t1\n"),
        ]);
        assert_eq!(fold_with(&text, &|_| true).unwrap().frames, ["fr_abc"]);
    }

    #[test]
    fn every_frame_left_unfolded_says_why() {
        // A push whose output names no frame: its pop has no push.
        let text = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "INSIDE\n"),
            call("c2", POP),
            output("c2", 0, "cx_t1\n"),
        ]);
        let folded = fold_with(&text, &|_| true).unwrap();
        assert!(folded.text.is_none());
        assert_eq!(
            folded.refused,
            ["the pop at line 4 has no push in the transcript; left as it is"]
        );
        // A pop whose output does not show it ended the frame, and a later one that does.
        let text = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "fr_abc\n"),
            call("c2", POP),
            output("c2", 0, "fr_other\n"),
        ]);
        let folded = fold_with(&text, &|_| true).unwrap();
        assert_eq!(
            folded.refused,
            [
                "frame fr_abc, pushed at line 2, left unfolded: the pop at line 4 does not show it \
              ended it: its output does not name its parent cx_t1 as the frame now current"
            ]
        );
        // A fold's own output, read again, is passed over.
        let text = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "fr_abc\n"),
            call("c2", POP),
            output("c2", 0, "cx_t1\n"),
        ]);
        let once = folded_text(&text, &|_| true).unwrap();
        let again = fold_with(&once, &|_| true).unwrap();
        assert!(
            again.text.is_none() && again.refused.is_empty(),
            "{:?}",
            again.refused
        );
    }

    use proptest::prelude::*;

    /// One step of a generated rollout: a push, a pop, other work, or Codex's own record; each
    /// shell call succeeds or fails, and its output may come late (after the next call).
    fn step(kind: u8, ok: bool, n: usize) -> Vec<String> {
        let id = format!("c{n}");
        let code = if ok { 0 } else { 1 };
        match kind % 4 {
            0 => vec![call(&id, PUSH), output(&id, code, &format!("fr_{n}\n"))],
            1 => vec![call(&id, POP), output(&id, code, "cx_t1\n")],
            2 => vec![call(&id, "echo WORK"), output(&id, code, "WORK")],
            _ => vec![
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count"}}"#
                    .to_string()
                    + "\n",
            ],
        }
    }

    proptest! {
        /// Whatever the pushes, pops and failures, a fold never panics, never leaves a call
        /// without its output or an output without its call, keeps every record that is not a
        /// response item, and keeps the records it does not drop in their order.
        #[test]
        fn folds_keep_pairs_order_and_codexs_own_records(
            steps in proptest::collection::vec((0u8..4, any::<bool>(), any::<bool>()), 0..30),
        ) {
            let mut parts = Vec::new();
            for (n, &(kind, ok, late)) in steps.iter().enumerate() {
                let mut records = step(kind, ok, n);
                // A late output lands after the next step's records.
                if late && records.len() == 2 && n + 1 < steps.len() {
                    let output = records.pop().unwrap();
                    parts.extend(records);
                    parts.extend(step(steps[n + 1].0, steps[n + 1].1, 1000 + n));
                    parts.push(output);
                } else {
                    parts.extend(records);
                }
            }
            let text = rollout(&parts);
            let Some(folded) = folded_text(&text, &|_| true) else {
                return Ok(());
            };
            let folded = Done { text: folded };
            let records = parse_records(&folded.text);
            let (calls, outputs) = call_ids(&records, |_| true);
            prop_assert_eq!(calls, outputs);
            let kept = |t: &str| t.lines().filter(|l| l.contains("token_count")).count();
            prop_assert_eq!(kept(&text), kept(&folded.text));
            // The folded text's lines, other than the replaced outputs, appear in the original in
            // the same order.
            let mut original = text.lines();
            for line in folded.text.lines().filter(|l| !l.contains("\"output\":\"F ")) {
                prop_assert!(original.any(|o| o == line), "{} out of order", line);
            }
        }
    }

    fn parse_records(text: &str) -> Vec<Option<Value>> {
        text.lines().map(|l| serde_json::from_str(l).ok()).collect()
    }
}

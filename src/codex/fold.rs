//! Folding a Codex rollout: each frame the model pushed and popped through its shell
//! (`ctx frame push --session "cx_$CODEX_THREAD_ID"` … `ctx frame pop …`) becomes its pop call and
//! an output that holds the frame's summary, so that `codex exec resume` (which sends what the
//! rollout holds, observed with 0.171.0) sends the frame folded. Pure: text in, text out.
//!
//! A frame's span runs from the `function_call` record of its push to the `function_call_output`
//! of its pop. Pushes and pops pair up as a stack, in the order the rollout holds them; a call
//! counts only when its output says it exited with code 0, and a push's frame id is the last line
//! of its output (what `ctx frame push` prints). In a span, only the `response_item` records (what
//! Codex sends to the model) go; Codex's own records (events, token counts, turn contexts) stay.
//! Whatever would leave a call without its output, or an output without its call, is refused.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::rollout::item;
use crate::hooks::transcript::Folded;

/// A shell call of the rollout: its record's line, its output's line and what it ran.
struct Call {
    line: usize,
    output: Option<(usize, String)>,
    command: String,
}

/// The command a shell call ran (`exec_command`'s `cmd`, a `shell` call's `command`).
fn command_of(payload: &Value) -> Option<String> {
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

/// What a call printed, when it exited with code 0 (Codex's output: a header, then `Output:`).
fn success_output(output: &str) -> Option<&str> {
    if !output.contains("Process exited with code 0\n") {
        return None;
    }
    Some(output.split_once("Output:\n").map_or("", |(_, rest)| rest))
}

/// The two ctx commands a fold pairs, with a session of their own.
#[derive(PartialEq)]
enum Frame {
    Push,
    Pop,
}

fn frame_command(command: &str) -> Option<Frame> {
    if !command.contains("--session") {
        return None;
    }
    match (
        command.contains("frame push"),
        command.contains("frame pop"),
    ) {
        (true, false) => Some(Frame::Push),
        (false, true) => Some(Frame::Pop),
        // Both in one call: its work is not between them.
        _ => None,
    }
}

/// The rollout `text` folded: each span of a frame that `folded(id)` names (a finished frame)
/// and that lies in no other folded span becomes its pop call and an output holding
/// `folded(id)`. `Ok(None)` when there is nothing to fold; an error says why the rollout is left
/// as it is.
pub fn fold(text: &str, folded: &dyn Fn(&str) -> Option<String>) -> Result<Option<Folded>, String> {
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
    let mut calls: Vec<Call> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (n, record) in records.iter().enumerate() {
        let Some(payload) = record.as_ref().and_then(item) else {
            continue;
        };
        let call_id = payload.get("call_id").and_then(Value::as_str);
        match payload.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                if let (Some(id), Some(command)) = (call_id, command_of(payload)) {
                    by_id.insert(id.to_string(), calls.len());
                    calls.push(Call {
                        line: n,
                        output: None,
                        command,
                    });
                }
            }
            Some("function_call_output") => {
                let output = payload.get("output").and_then(Value::as_str).unwrap_or("");
                if let Some(&at) = call_id.and_then(|id| by_id.get(id)) {
                    calls[at].output = Some((n, output.to_string()));
                }
            }
            _ => {}
        }
    }
    // Spans (push line, pop call line, pop output line, frame id), as the stack pairs them.
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut spans: Vec<(usize, usize, usize, String)> = Vec::new();
    for call in &calls {
        let Some((output_line, output)) = &call.output else {
            continue;
        };
        let Some(printed) = success_output(output) else {
            continue;
        };
        match frame_command(&call.command) {
            Some(Frame::Push) => {
                let id = printed.lines().rev().find(|l| !l.trim().is_empty());
                if let Some(id) = id.map(str::trim).filter(|id| {
                    !id.is_empty()
                        && id
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                }) {
                    open.push((call.line, id.to_string()));
                }
            }
            Some(Frame::Pop) => {
                if let Some((start, id)) = open.pop() {
                    spans.push((start, call.line, *output_line, id));
                }
            }
            None => {}
        }
    }
    spans.sort_by_key(|s| s.0);
    let mut dropped: HashSet<usize> = HashSet::new();
    let mut replaced: HashMap<usize, String> = HashMap::new();
    let mut frames = Vec::new();
    let mut covered_until: Option<usize> = None;
    for (start, pop_call, pop_output, id) in spans {
        if covered_until.is_some_and(|end| start <= end) {
            continue;
        }
        let Some(text) = folded(&id) else { continue };
        let span = records.iter().enumerate().take(pop_output + 1).skip(start);
        for (n, record) in span {
            if n != pop_call && record.as_ref().and_then(item).is_some() {
                dropped.insert(n);
            }
        }
        dropped.remove(&pop_output);
        replaced.insert(pop_output, text);
        frames.push(id);
        covered_until = Some(pop_output);
    }
    if frames.is_empty() {
        return Ok(None);
    }
    check_pairs(&records, &dropped)?;
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
    Ok(Some(Folded { text: out, frames }))
}

/// Refuses a fold that would leave a call without its output or an output without its call.
fn check_pairs(records: &[Option<Value>], dropped: &HashSet<usize>) -> Result<(), String> {
    let mut calls = HashSet::new();
    let mut outputs = HashSet::new();
    for (n, record) in records.iter().enumerate() {
        if dropped.contains(&n) {
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
    if calls == outputs {
        Ok(())
    } else {
        Err("folding would leave a call without its output".into())
    }
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
            output("c3", 0, ""),
            call("c4", "echo after"),
            output("c4", 0, "after"),
        ]);
        let folded = fold(&text, &|id| (id == "fr_abc").then(|| "FOLDED".to_string()))
            .unwrap()
            .unwrap();
        assert_eq!(folded.frames, ["fr_abc"]);
        assert!(!folded.text.contains("BULKY_OUTPUT"), "{}", folded.text);
        assert!(!folded.text.contains("'Refunds'"), "the push goes too");
        assert!(folded.text.contains("frame pop --session"), "the pop stays");
        assert!(
            folded.text.contains("\"output\":\"FOLDED\""),
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

    #[test]
    fn unfinished_failed_and_nested_frames_fold_as_they_should() {
        // The outer frame folds, with the inner one inside it.
        let nested = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "fr_outer\n"),
            call("c2", PUSH),
            output("c2", 0, "fr_inner\n"),
            call("c3", POP),
            output("c3", 0, ""),
            call("c4", POP),
            output("c4", 0, ""),
        ]);
        let folded = fold(&nested, &|id| Some(format!("F {id}")))
            .unwrap()
            .unwrap();
        assert_eq!(folded.frames, ["fr_outer"]);
        assert_eq!(folded.text.matches("function_call\"").count(), 1);
        // Only the inner one finished: it alone folds.
        let folded = fold(&nested, &|id| (id == "fr_inner").then(|| "F".to_string()))
            .unwrap()
            .unwrap();
        assert_eq!(folded.frames, ["fr_inner"]);
        // Nothing finished, or a push that failed: nothing to fold.
        assert!(fold(&nested, &|_| None).unwrap().is_none());
        let failed = rollout(&[
            call("c1", PUSH),
            output("c1", 1, "error: no\n"),
            call("c2", POP),
            output("c2", 0, ""),
        ]);
        assert!(fold(&failed, &|_| Some("F".into())).unwrap().is_none());
        // A call left open across the pop is refused rather than unpaired.
        let open = rollout(&[
            call("c1", PUSH),
            output("c1", 0, "fr_a\n"),
            call("c2", "sleep 100"),
            call("c3", POP),
            output("c3", 0, ""),
            output("c2", 0, ""),
        ]);
        assert!(fold(&open, &|_| Some("F".into())).is_err());
        assert!(fold("not json\n", &|_| None).is_err());
    }

    use proptest::prelude::*;

    /// One step of a generated rollout: a push, a pop, other work, or Codex's own record; each
    /// shell call succeeds or fails, and its output may come late (after the next call).
    fn step(kind: u8, ok: bool, n: usize) -> Vec<String> {
        let id = format!("c{n}");
        let code = if ok { 0 } else { 1 };
        match kind % 4 {
            0 => vec![call(&id, PUSH), output(&id, code, &format!("fr_{n}\n"))],
            1 => vec![call(&id, POP), output(&id, code, "")],
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
            let Ok(Some(folded)) = fold(&text, &|id| Some(format!("F {id}"))) else {
                return Ok(());
            };
            let records = parse_records(&folded.text);
            check_pairs(&records, &HashSet::new()).unwrap();
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

//! Folding a Codex rollout's finished turn frames (`frame.auto = "turns"`), and the finished
//! plan step frames that ran in no turn frame (`frame.auto = "todos"`: spanned by their times),
//! so that `codex exec resume` sends each finished turn without its tool outputs, whether or not
//! the model ever pushed a frame. Pure: text in, text out; run after the fold of the model's own frames
//! (`super::fold`), on its result.
//!
//! A turn's span is what Codex wrote between its `event_msg` `task_started` and its
//! `task_complete` (or `turn_aborted`), both naming the turn's id (`turn_id`, which the turn
//! frame keeps from its UserPromptSubmit); a turn frame without that id, or whose id the rollout
//! does not hold, spans the records stamped between its opening and its closing. In a span, the
//! output of each call (`function_call_output`, `custom_tool_call_output`) becomes a placeholder
//! that names the turn frame and the command that gives it back (`ctx frame log <id>`; the
//! turn's log, written again from the rollout at SessionEnd, holds it). Nothing is taken out:
//! every call keeps its output record, so calls and outputs stay paired by construction (Codex
//! repairs a broken pairing silently on resume, autoframes.md §5, so nothing else would catch
//! one). Every other record (the person's prompt and the model's messages, Codex's events, turn
//! contexts and records of kinds ctx does not know) stays byte for byte. The form was chosen over
//! dropping the calls: it was accepted as well (P against D), keeps what the model ran, and
//! cannot unpair.
//!
//! Left as they are: an output no longer than its placeholder (replacing it would grow the
//! request), an output without a call id (Codex's goal objective), an output already a
//! placeholder (so a turn folds once), and the output a fold of the model's frames wrote. Left
//! unfolded, with the reason: a turn with a compaction in its span, and a turn in which the model
//! ran `ctx frame` itself (its explicit frames fold instead).

use serde_json::Value;

use super::fold::command_of;
use super::rollout::item;
use crate::compact::fold::turns::{is_placeholder, placeholder};
use crate::hooks::turns::{
    ClosedFrame, TurnsFolded, refused_for_compaction, refused_for_frames, runs_frame_commands,
};

/// How the text a fold of the model's frames puts in a pop's output begins
/// ([`crate::hooks::transcript::folded_text`]).
const FRAME_FOLD_START: &str = "[ctx] Frame ";

/// A rollout's lines, and each as its JSON object (`None` for a blank line); an error names the
/// first line that is not a Codex record (a JSON object with a `type`), which leaves the whole
/// rollout as it is.
pub fn records(text: &str) -> Result<(Vec<&str>, Vec<Option<Value>>), String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut records = Vec::with_capacity(lines.len());
    for (n, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            records.push(None);
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(value) if value.get("type").is_some_and(Value::is_string) => {
                records.push(Some(value))
            }
            Ok(_) => return Err(format!("line {} is not a Codex record", n + 1)),
            Err(e) => return Err(format!("line {} is not JSON ({e})", n + 1)),
        }
    }
    Ok((lines, records))
}

/// The turn id an `event_msg` of `kind` names (0.171.0 nests `task_started`'s in
/// `turn_attribution`).
fn event_turn<'r>(record: &'r Value, kinds: &[&str]) -> Option<&'r str> {
    if record.get("type")?.as_str()? != "event_msg" {
        return None;
    }
    let payload = record.get("payload")?;
    if !kinds.contains(&payload.get("type")?.as_str()?) {
        return None;
    }
    payload
        .get("turn_id")
        .or_else(|| payload.pointer("/turn_attribution/turn_id"))?
        .as_str()
}

/// The lines of `turn`'s span (see the module's doc), in order; empty when the rollout holds
/// nothing of it.
pub fn span(records: &[Option<Value>], turn: &ClosedFrame) -> Vec<usize> {
    if let Some(id) = turn.agent_turn.as_deref() {
        let start = records
            .iter()
            .position(|r| r.as_ref().and_then(|r| event_turn(r, &["task_started"])) == Some(id));
        if let Some(start) = start {
            let end = (start + 1..records.len())
                .find(|&n| {
                    let Some(r) = records[n].as_ref() else {
                        return false;
                    };
                    // Its end, or the next turn's start when Codex wrote no end (a killed run).
                    event_turn(r, &["task_complete", "turn_aborted"]) == Some(id)
                        || event_turn(r, &["task_started"]).is_some_and(|t| t != id)
                })
                .map_or(records.len(), |n| n + 1);
            return (start..end).collect();
        }
    }
    (0..records.len())
        .filter(|&n| {
            records[n]
                .as_ref()
                .and_then(|r| r.get("timestamp")?.as_str())
                .and_then(crate::time::parse_rfc3339_utc)
                .is_some_and(|at| turn.from <= at && at <= turn.to)
        })
        .collect()
}

/// The output text of a call's output item, when it is one (with its call id).
fn output_of(payload: &Value) -> Option<&Value> {
    let kind = payload.get("type")?.as_str()?;
    if !matches!(kind, "function_call_output" | "custom_tool_call_output") {
        return None;
    }
    payload.get("call_id")?.as_str()?;
    payload.get("output")
}

/// The length in characters of an output, as the model is sent it.
fn chars_of(output: &Value) -> usize {
    match output {
        Value::String(text) => text.chars().count(),
        other => other.to_string().chars().count(),
    }
}

/// Whether an output is one a fold wrote: a turn's placeholder, or a folded frame's text.
fn is_folded(output: &Value) -> bool {
    match output {
        Value::String(text) => is_placeholder(text) || text.starts_with(FRAME_FOLD_START),
        _ => false,
    }
}

/// Whether a turn's span was folded before: an output in it is a placeholder.
pub fn folded_before(records: &[Option<Value>], span: &[usize]) -> bool {
    span.iter().any(|&n| {
        records[n]
            .as_ref()
            .and_then(item)
            .and_then(output_of)
            .and_then(Value::as_str)
            .is_some_and(is_placeholder)
    })
}

/// Folds the finished `turns` of the rollout `text` (see the module's doc). An error says why
/// the whole rollout is left as it is.
pub fn fold_turns(text: &str, turns: &[ClosedFrame]) -> Result<TurnsFolded, String> {
    let mut out = TurnsFolded::default();
    if turns.is_empty() {
        return Ok(out);
    }
    let (lines, records) = records(text)?;
    let mut replaced: Vec<Option<String>> = vec![None; records.len()];
    for turn in turns {
        let span = span(&records, turn);
        let payloads = || {
            span.iter()
                .filter_map(|&n| records[n].as_ref().and_then(item))
        };
        if span.iter().any(|&n| {
            records[n]
                .as_ref()
                .is_some_and(|r| r.get("type").and_then(Value::as_str) == Some("compacted"))
        }) {
            out.refused.push(refused_for_compaction(turn));
            continue;
        }
        if payloads()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("function_call"))
            .filter_map(command_of)
            .any(|c| runs_frame_commands(&c))
        {
            out.refused.push(refused_for_frames(turn));
            continue;
        }
        let mut folded_any = false;
        for &n in &span {
            let Some(output) = records[n].as_ref().and_then(item).and_then(output_of) else {
                continue;
            };
            if is_folded(output) || replaced[n].is_some() {
                continue;
            }
            let chars = chars_of(output);
            let stand_in = placeholder(&turn.id, chars);
            if chars <= stand_in.chars().count() {
                continue;
            }
            let mut record = records[n].clone().expect("an output is a record");
            record["payload"]["output"] = Value::from(stand_in);
            let end = if lines[n].ends_with('\n') { "\n" } else { "" };
            replaced[n] = Some(format!("{record}{end}"));
            folded_any = true;
        }
        if folded_any {
            out.turns.push(turn.id.clone());
        }
    }
    if out.turns.is_empty() {
        return Ok(out);
    }
    let mut text_out = String::with_capacity(text.len());
    for (n, line) in lines.iter().enumerate() {
        // Every line the fold did not change stays byte for byte.
        text_out.push_str(replaced[n].as_deref().unwrap_or(line));
    }
    out.text = Some(text_out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::turns::Kind;
    use serde_json::json;

    fn line(value: Value) -> String {
        value.to_string() + "\n"
    }

    fn started(turn: &str) -> String {
        line(
            json!({"timestamp": "2026-11-28T22:07:59.566Z", "type": "event_msg",
            "payload": {"type": "task_started", "turn_attribution": {"turn_id": turn}}}),
        )
    }

    fn complete(turn: &str) -> String {
        line(
            json!({"timestamp": "2026-11-28T22:08:00.075Z", "type": "event_msg",
            "payload": {"type": "task_complete", "turn_id": turn, "last_agent_message": "ok"}}),
        )
    }

    fn message(role: &str, text: &str) -> String {
        line(
            json!({"timestamp": "2026-11-28T22:07:59.600Z", "type": "response_item",
            "payload": {"type": "message", "role": role,
            "content": [{"type": if role == "user" { "input_text" } else { "output_text" }, "text": text}]}}),
        )
    }

    fn call(id: &str, cmd: &str) -> String {
        let arguments = json!({ "cmd": cmd }).to_string();
        line(
            json!({"timestamp": "2026-11-28T22:07:59.700Z", "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command", "arguments": arguments,
            "call_id": id}}),
        )
    }

    fn output(id: &str, text: &str) -> String {
        line(
            json!({"timestamp": "2026-11-28T22:07:59.800Z", "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": id, "output": text}}),
        )
    }

    fn turn(id: &str, agent: &str) -> ClosedFrame {
        ClosedFrame {
            id: id.into(),
            goal: "g".into(),
            from: 0,
            to: 0,
            agent_turn: Some(agent.into()),
            kind: Kind::Turn,
            in_turn: None,
        }
    }

    fn rollout(turns: &[(&str, &str)]) -> String {
        let mut text =
            line(json!({"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}));
        for (n, (agent, cmd)) in turns.iter().enumerate() {
            text.push_str(&started(agent));
            text.push_str(&message("user", &format!("PROMPT_{n}")));
            text.push_str(&call(&format!("c{n}"), cmd));
            text.push_str(&output(
                &format!("c{n}"),
                &format!("BIG_{n} {}", "x".repeat(800)),
            ));
            text.push_str(&call(&format!("s{n}"), "true"));
            text.push_str(&output(&format!("s{n}"), "small"));
            text.push_str(&message("assistant", &format!("ANSWER_{n}")));
            text.push_str(&complete(agent));
        }
        text
    }

    #[test]
    fn a_finished_turns_large_outputs_become_placeholders_and_nothing_else_changes() {
        let text = rollout(&[("t1", "cat a"), ("t2", "cat b"), ("t3", "cat c")]);
        let folded = fold_turns(&text, &[turn("fr_one", "t1"), turn("fr_two", "t2")]).unwrap();
        assert_eq!(folded.turns, ["fr_one", "fr_two"]);
        let after = folded.text.unwrap();
        assert!(!after.contains("BIG_0") && !after.contains("BIG_1"));
        assert!(after.contains("BIG_2"), "the turn not closed stays");
        assert!(after.contains("ctx frame log fr_one") && after.contains("ctx frame log fr_two"));
        assert!(
            after.contains("\"output\":\"small\""),
            "a small output stays"
        );
        let before: Vec<&str> = text.lines().collect();
        let now: Vec<&str> = after.lines().collect();
        assert_eq!(before.len(), now.len(), "no record taken out");
        for (b, a) in before.iter().zip(&now) {
            if !b.contains("BIG_0") && !b.contains("BIG_1") {
                assert_eq!(b, a, "byte for byte");
            }
        }
        // Once only.
        let again = fold_turns(&after, &[turn("fr_one", "t1"), turn("fr_two", "t2")]).unwrap();
        assert!(again.text.is_none() && again.turns.is_empty());
    }

    #[test]
    fn turns_with_frames_or_a_compaction_stay_and_bad_lines_refuse_the_rollout() {
        let text = rollout(&[(
            "t1",
            "ctx frame push --session \"cx_$CODEX_THREAD_ID\" -- 'x'",
        )]);
        let folded = fold_turns(&text, &[turn("fr_one", "t1")]).unwrap();
        assert!(folded.text.is_none());
        assert_eq!(
            folded.refused,
            ["turn fr_one left unfolded: the model's own frames in it fold instead"]
        );
        let mut compacted = rollout(&[("t1", "cat a")]);
        compacted = compacted.replacen(
            &message("assistant", "ANSWER_0"),
            &line(json!({"timestamp": "t", "type": "compacted", "payload": {"message": "m"}})),
            1,
        );
        let folded = fold_turns(&compacted, &[turn("fr_one", "t1")]).unwrap();
        assert!(folded.text.is_none());
        assert_eq!(folded.refused.len(), 1);
        assert!(fold_turns("not json\n", &[turn("fr_one", "t1")]).is_err());
        assert!(fold_turns("[1]\n", &[turn("fr_one", "t1")]).is_err());
    }

    #[test]
    fn a_turn_without_its_end_spans_up_to_the_next_turn() {
        let text = rollout(&[("t1", "cat a"), ("t2", "cat b")]).replacen(&complete("t1"), "", 1);
        let folded = fold_turns(&text, &[turn("fr_one", "t1")]).unwrap();
        let after = folded.text.unwrap();
        assert!(!after.contains("BIG_0") && after.contains("BIG_1"));
    }
}

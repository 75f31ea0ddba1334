//! Folding a Qwen Code session for `--continue`: each frame the model pushed and popped through
//! its shell (`ctx frame push --session "qw_…"` … `ctx frame pop …`) becomes its pop call and
//! a result holding the frame's folded text, written as a `chat_compression` record appended to
//! the session file. Qwen Code 0.24.4 rebuilds what it sends on resume from the last such record's
//! `compressedHistory` and the records after it (observed: the next `--continue` sent the fold,
//! and the strict stand-in took it), so the file only grows: every record Qwen wrote stays. Pure:
//! text in, the record's line out.
//!
//! The history folded is the one Qwen Code would send: the active chain of records (from the
//! last record back through `parentUuid`), each record's `message` (Gemini-style contents:
//! `{role, parts}`) in order, a `chat_compression` record starting it again from its
//! `compressedHistory`; it is folded as Gemini CLI's is ([`contents_fold`]).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::hooks::contents_fold::{self, Shell, ToAppend};
use crate::hooks::frame_calls::Finished;
use crate::hooks::json_lines;

/// Qwen Code's shell tool, and how its results read.
const SHELL: Shell = Shell {
    tool: "run_shell_command",
    exit_and_output,
};

/// The session file `text` folded, as a `chat_compression` record to append, stamped `now`
/// (RFC 3339) and named `uuid`. An error says why the session is left as it is.
pub fn fold(
    text: &str,
    uuid: &str,
    now: &str,
    goal_of: &dyn Fn(&str) -> Option<String>,
    finished: &dyn Fn(&str) -> Option<Finished>,
) -> Result<ToAppend, String> {
    let records: Vec<Map<String, Value>> = json_lines(text)?.into_iter().flatten().collect();
    let chain = active_chain(&records);
    let Some(&last) = chain.last() else {
        return Ok(ToAppend::default());
    };
    let history = history(&records, &chain);
    let folded = contents_fold::fold_history(&history, &SHELL, goal_of, finished);
    if folded.frames.is_empty() {
        return Ok(ToAppend {
            refused: folded.refused,
            ..ToAppend::default()
        });
    }
    let last = &records[last];
    let text = |key: &str| last.get(key).cloned().unwrap_or(Value::Null);
    let count =
        |contents: &[Value]| json!(serde_json::to_string(contents).map_or(0, |s| s.len() / 4));
    let record = json!({
        "uuid": uuid,
        "parentUuid": text("uuid"),
        "sessionId": text("sessionId"),
        "timestamp": now,
        "type": "system",
        "subtype": "chat_compression",
        "cwd": text("cwd"),
        "version": text("version"),
        "systemPayload": {
            // Estimates, as Qwen Code's own are when it cannot count: about 4 characters a token.
            "info": {
                "originalTokenCount": count(&history),
                "newTokenCount": count(&folded.history),
                "newTokenCountIsEstimated": true,
                "compressionStatus": 1,
            },
            "compressedHistory": folded.history,
            "completedToolCallIds": [],
        },
    });
    Ok(ToAppend {
        text: Some(format!("{record}\n")),
        frames: folded.frames,
        refused: folded.refused,
        spans: folded.spans,
    })
}

/// The records of the active chain, in order: from the last record with a `uuid` back through
/// `parentUuid` to a record with none (or one the file does not hold).
fn active_chain(records: &[Map<String, Value>]) -> Vec<usize> {
    let uuid = |r: &Map<String, Value>| r.get("uuid").and_then(Value::as_str).map(str::to_string);
    let by_uuid: HashMap<String, usize> = records
        .iter()
        .enumerate()
        .filter_map(|(n, r)| Some((uuid(r)?, n)))
        .collect();
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut at = records.iter().rposition(|r| uuid(r).is_some());
    while let Some(n) = at.filter(|&n| seen.insert(n)) {
        chain.push(n);
        at = records[n]
            .get("parentUuid")
            .and_then(Value::as_str)
            .and_then(|parent| by_uuid.get(parent).copied());
    }
    chain.reverse();
    chain
}

/// The history Qwen Code sends on resume (its `SessionApiHistoryAccumulator`, 0.24.4): each
/// chained record's message; a `chat_compression` record's `compressedHistory` in place of what
/// came before; a slash command's prompt taken out again when its result was not sent to the
/// model; a `mid_turn_user_message` joined to the user content before it.
fn history(records: &[Map<String, Value>], chain: &[usize]) -> Vec<Value> {
    let mut history: Vec<Value> = Vec::new();
    let mut last_material: Option<&Map<String, Value>> = None;
    for &n in chain {
        let record = &records[n];
        let subtype = record.get("subtype").and_then(Value::as_str);
        if record.get("type").and_then(Value::as_str) == Some("system") {
            let payload = record.get("systemPayload");
            match subtype {
                Some("chat_compression") => {
                    if let Some(compressed) = payload
                        .and_then(|p| p.get("compressedHistory"))
                        .and_then(Value::as_array)
                    {
                        history = compressed.clone();
                        last_material = None;
                    }
                }
                Some("slash_command") => {
                    if let (Some(payload), Some(previous)) = (payload, last_material)
                        && unsent_command(payload, previous)
                    {
                        history.pop();
                    }
                    if last_material.is_some_and(|p| p.get("type") == Some(&json!("user"))) {
                        last_material = None;
                    }
                }
                _ => {}
            }
            continue;
        }
        let Some(message) = record.get("message").filter(|m| m.is_object()) else {
            continue;
        };
        if subtype == Some("realtime_message") {
            continue;
        }
        if subtype == Some("mid_turn_user_message")
            && let Some(previous) = history.last_mut().filter(|c| c["role"] == "user")
            && let (Some(parts), Some(more)) = (
                previous.get_mut("parts").and_then(Value::as_array_mut),
                message.get("parts").and_then(Value::as_array),
            )
        {
            parts.extend(more.iter().cloned());
            last_material = Some(record);
            continue;
        }
        history.push(message.clone());
        last_material = Some(record);
    }
    history
}

/// Whether a slash command's result record says its prompt (the user record `previous`) was
/// not sent to the model, so that Qwen Code takes it out of the history.
fn unsent_command(payload: &Value, previous: &Map<String, Value>) -> bool {
    let items = payload.get("outputHistoryItems").and_then(Value::as_array);
    let parts = previous
        .get("message")
        .and_then(|m| m.get("parts"))
        .and_then(Value::as_array);
    payload.get("phase").and_then(Value::as_str) == Some("result")
        && payload.get("sentToModel") != Some(&Value::Bool(true))
        && items.is_some_and(|i| !i.is_empty() && i.iter().all(|i| i["type"] == "assistant"))
        && previous.get("type").and_then(Value::as_str) == Some("user")
        && previous.get("subtype").is_none()
        && parts.is_some_and(|p| {
            p.len() == 1
                && p[0].as_object().is_some_and(|o| o.len() == 1)
                && p[0].get("text").and_then(Value::as_str).is_some()
                && p[0].get("text") == payload.get("rawCommand")
        })
}

/// A shell result's exit code and what the command printed (Qwen Code's result: `Command:`,
/// `Directory:`, `Output:` …, `Error:`, `Exit Code:`); `None` when it has no such shape (one a
/// fold already replaced).
fn exit_and_output(output: &str) -> Option<(i64, String)> {
    let code = output
        .lines()
        .find_map(|l| l.strip_prefix("Exit Code: "))?
        .trim()
        .parse()
        .ok()?;
    let printed = output
        .split_once("\nOutput: ")
        .map(|(_, rest)| rest.split_once("\nError: ").map_or(rest, |(o, _)| o))
        .unwrap_or("");
    let printed = if printed == "(empty)" { "" } else { printed };
    Some((code, printed.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUSH: &str = r#"ctx frame push --session "qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}" -- 'Refunds'"#;
    const POP: &str = r#"ctx frame pop --session "qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}" --summary done"#;

    /// A session file: its records chained in order, each a message of `role` and `parts`.
    fn session(contents: &[(&str, Value)]) -> String {
        chained("u", Value::Null, contents)
    }

    /// Records named `<prefix><n>`, the first chained to `parent`.
    fn chained(prefix: &str, mut parent: Value, contents: &[(&str, Value)]) -> String {
        let mut text = String::new();
        for (n, (kind, message)) in contents.iter().enumerate() {
            let uuid = format!("{prefix}{n}");
            let mut record = json!({"uuid": uuid, "parentUuid": parent, "sessionId": "s1",
                "timestamp": "t", "type": kind, "cwd": "/p", "version": "0.24.4"});
            if !message.is_null() {
                record["message"] = message.clone();
            }
            text.push_str(&record.to_string());
            text.push('\n');
            parent = json!(uuid);
        }
        text
    }

    fn user(text: &str) -> (&'static str, Value) {
        ("user", json!({"role": "user", "parts": [{"text": text}]}))
    }
    fn call(id: &str, command: &str) -> (&'static str, Value) {
        (
            "assistant",
            json!({"role": "model", "parts": [{"functionCall": {"id": id, "name": SHELL.tool, "args": {"command": command}}}]}),
        )
    }
    fn result(id: &str, code: i64, printed: &str) -> (&'static str, Value) {
        let output = format!(
            "Command: x\nDirectory: (root)\nOutput: {printed}\nError: (none)\nExit Code: {code}\nSignal: (none)\nProcess Group PGID: (none)"
        );
        (
            "tool_result",
            json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": SHELL.tool, "response": {"output": output}}}]}),
        )
    }
    fn answer(text: &str) -> (&'static str, Value) {
        (
            "assistant",
            json!({"role": "model", "parts": [{"text": text}]}),
        )
    }

    fn goal_of(frame: &str) -> Option<String> {
        frame.starts_with("fr_").then(|| "Refunds".to_string())
    }

    fn fold_with(text: &str, done: &dyn Fn(&str) -> bool) -> ToAppend {
        fold(text, "new", "2026-11-29T00:00:00Z", &goal_of, &|id| {
            done(id).then(|| Finished {
                parent: Some("qw_s1".into()),
                text: format!("F {id}"),
            })
        })
        .unwrap()
    }

    fn compressed(record: &str) -> Vec<Value> {
        let value: Value = serde_json::from_str(record).unwrap();
        value["systemPayload"]["compressedHistory"]
            .as_array()
            .unwrap()
            .clone()
    }

    fn sample() -> String {
        session(&[
            user("Do the refunds"),
            call("c1", PUSH),
            ("system", Value::Null),
            result("c1", 0, "fr_abc"),
            call("c2", "printf BULKY_OUTPUT"),
            result("c2", 0, "BULKY_OUTPUT"),
            call("c3", POP),
            result("c3", 0, "qw_s1"),
            answer("Refunds done."),
        ])
    }

    #[test]
    fn a_popped_frames_span_becomes_its_pop_and_folded_text_in_a_compression_record() {
        let folded = fold_with(&sample(), &|id| id == "fr_abc");
        assert_eq!(folded.frames, ["fr_abc"]);
        let record = folded.text.unwrap();
        let value: Value = serde_json::from_str(&record).unwrap();
        assert_eq!(value["parentUuid"], "u8", "chained to the last record");
        assert_eq!(value["subtype"], "chat_compression");
        assert_eq!(value["sessionId"], "s1");
        let history = compressed(&record);
        let text = serde_json::to_string(&history).unwrap();
        assert!(!text.contains("BULKY_OUTPUT"), "{text}");
        assert!(!text.contains("'Refunds'"), "the push goes too: {text}");
        assert!(
            text.contains("frame pop --session"),
            "the pop stays: {text}"
        );
        assert_eq!(
            history.len(),
            4,
            "prompt, pop call, its result, answer: {text}"
        );
        assert_eq!(
            history[2]["parts"][0]["functionResponse"]["response"]["output"],
            "F fr_abc"
        );
        assert_eq!(history[3]["parts"][0]["text"], "Refunds done.");
    }

    #[test]
    fn a_frame_not_finished_or_unpaired_stays_and_nothing_is_appended() {
        let folded = fold_with(&sample(), &|_| false);
        assert!(folded.text.is_none());
        assert!(folded.frames.is_empty());
        // A pop whose result is missing: the call has no answer, nothing folds.
        let text = session(&[
            user("x"),
            call("c1", PUSH),
            result("c1", 0, "fr_abc"),
            call("c3", POP),
        ]);
        assert!(fold_with(&text, &|_| true).text.is_none());
    }

    #[test]
    fn a_second_fold_starts_from_the_first_and_folds_only_what_is_new() {
        let first = fold_with(&sample(), &|id| id == "fr_abc");
        let mut text = sample() + &first.text.unwrap();
        // More work after the fold, chained to the compression record.
        let more = chained(
            "v",
            json!("new"),
            &[
                user("Now the ledger"),
                call("c4", &PUSH.replace("Refunds", "Ledger")),
                result("c4", 0, "fr_led"),
                call("c5", "printf LEDGER_BULK"),
                result("c5", 0, "LEDGER_BULK"),
                call("c6", POP),
                result("c6", 0, "qw_s1"),
            ],
        );
        text.push_str(&more);
        let goal = |id: &str| match id {
            "fr_led" => Some("Ledger".to_string()),
            _ => goal_of(id),
        };
        let second = fold(&text, "new2", "t", &goal, &|id| {
            Some(Finished {
                parent: Some("qw_s1".into()),
                text: format!("F {id}"),
            })
        })
        .unwrap();
        assert_eq!(second.frames, ["fr_led"], "{:?}", second.refused);
        let history = compressed(&second.text.unwrap());
        let text = serde_json::to_string(&history).unwrap();
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
    fn a_file_that_is_not_json_lines_is_left_alone() {
        assert!(
            fold("{\"uuid\":\"a\"}\nnot json\n", "n", "t", &goal_of, &|_| {
                None
            })
            .is_err()
        );
        assert!(
            fold("", "n", "t", &goal_of, &|_| None)
                .unwrap()
                .text
                .is_none()
        );
    }

    #[test]
    fn a_shell_results_exit_code_and_output_are_read() {
        let (code, printed) = exit_and_output(
            "Command: x\nDirectory: (root)\nOutput: a\nb\nError: (none)\nExit Code: 2\nSignal: (none)",
        )
        .unwrap();
        assert_eq!((code, printed.as_str()), (2, "a\nb"));
        assert_eq!(exit_and_output("F fr_abc"), None);
    }
}

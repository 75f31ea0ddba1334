//! Folding a GitHub Copilot CLI session for `--resume`: each frame the model pushed and popped
//! through its shell (`ctx frame push --session "cp_…"` … `ctx frame pop …`) becomes its pop
//! call and a result holding the frame's folded text ([`contents_fold`]), written as a compaction
//! Copilot itself reads: a `session.compaction_start` and a `session.compaction_complete` event
//! appended to the session's `events.jsonl`. Pure: text in, the two lines out.
//!
//! How Copilot 1.0.102 reads a compaction when it resumes a session (observed: events appended
//! by hand, then `--resume` against the strict stand-in): every message of the conversation
//! before the compaction's start goes; in its place comes one user message that lists the
//! person's messages of the whole session word for word (`<user_message>`) and then the
//! compaction's `summaryContent` (`<summary>`); the messages written after the start stay. The
//! counts the events give (`messagesRemoved`, `preCompactionMessagesLength`) change nothing. A
//! later compaction's summary takes the place of an earlier one.
//!
//! So the fold appends a compaction whose summary is the conversation itself, as text, with the
//! finished frames folded: the person's messages, the model's texts, its tool calls and their
//! results, in order, and the summary of any earlier compaction first. Calls and results become
//! text inside one message, which no API pairs, so no request can be refused for them. Every line
//! Copilot wrote stays in the file.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::hooks::contents_fold::{self, Shell, ToAppend};
use crate::hooks::frame_calls::Finished;
use crate::hooks::json_lines;

/// Copilot's shell tool, and how its results read.
const SHELL: Shell = Shell {
    tool: "bash",
    exit_and_output,
};

/// How the summary of ctx's fold begins: what it is, for the model; and how ctx tells its own
/// compaction from one Copilot made, whose summary it records on the frame.
pub const SUMMARY_START: &str = "[ctx] The conversation so far, folded by ctx";

/// Events that cut Copilot's history in ways the fold does not rebuild: a session holding one is
/// left as it is.
const CUTS: &[&str] = &["session.truncation", "session.snapshot_rewind"];

/// The names and time of the events a fold appends: the two events' ids and the compaction's
/// (UUIDs, as Copilot's own), and `now` (RFC 3339).
pub struct Stamp<'a> {
    pub start_id: &'a str,
    pub complete_id: &'a str,
    pub attempt_id: &'a str,
    pub now: &'a str,
}

/// The session file `text` folded, as a compaction to append. An error says why the session is
/// left as it is.
pub fn fold(
    text: &str,
    stamp: &Stamp<'_>,
    goal_of: &dyn Fn(&str) -> Option<String>,
    finished: &dyn Fn(&str) -> Option<Finished>,
) -> Result<ToAppend, String> {
    let events: Vec<Map<String, Value>> = json_lines(text)?.into_iter().flatten().collect();
    let (history, unsure) = history(&events);
    let folded = contents_fold::fold_history(&history, &SHELL, goal_of, finished);
    if folded.frames.is_empty() {
        return Ok(ToAppend {
            refused: folded.refused,
            ..ToAppend::default()
        });
    }
    if let Some(why) = unsure {
        return Err(why);
    }
    let conversation = summary(&folded.history);
    // The resumed conversation is the summary and Copilot's own list of the person's messages:
    // a fold of frames too small to pay for that list is left out.
    let persons: usize = history
        .iter()
        .filter(|c| c.get("role").and_then(Value::as_str) == Some("user"))
        .flat_map(contents_fold::parts)
        .filter(|p| p.get("summary").is_none() && p.get("source").is_none())
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .map(str::len)
        .sum();
    if conversation.len() + persons >= summary(&history).len() {
        let mut refused = folded.refused;
        refused.push(format!(
            "not folded: the frames folded ({}) would not make the resumed conversation smaller",
            folded.frames.join(", ")
        ));
        return Ok(ToAppend {
            refused,
            ..ToAppend::default()
        });
    }
    // The model the session ran with, which Copilot's own compaction events name.
    let model = events.iter().rev().find_map(|e| {
        (e.get("type")? == "assistant.message" && e.get("agentId").is_none())
            .then(|| e.get("data")?.get("model")?.as_str())
            .flatten()
    });
    let mut start = json!({
        "compactionAttemptId": stamp.attempt_id,
        "trigger": "manual",
    });
    if let Some(model) = model {
        start["model"] = json!(model);
    }
    let start = json!({
        "type": "session.compaction_start",
        "data": start,
        "id": stamp.start_id,
        "timestamp": stamp.now,
        // Chained to the file's last event, as Copilot chains its own.
        "parentId": events.last().and_then(|e| e.get("id")).cloned().unwrap_or(Value::Null),
    });
    let complete = json!({
        "type": "session.compaction_complete",
        "data": {
            "success": true,
            "outcome": "applied",
            "compactionAttemptId": stamp.attempt_id,
            // The system prompt and the history; all of the history goes.
            "preCompactionMessagesLength": history.len() + 1,
            "messagesRemoved": history.len(),
            "summaryContent": conversation,
            "trigger": "manual",
        },
        "id": stamp.complete_id,
        "timestamp": stamp.now,
        "parentId": stamp.start_id,
    });
    Ok(ToAppend {
        text: Some(format!("{start}\n{complete}\n")),
        frames: folded.frames,
        refused: folded.refused,
        spans: folded.spans,
    })
}

/// The main agent's conversation as Copilot rebuilds it on resume, as Gemini-style contents: a
/// person's message (its text as typed, without what hooks added) a user content, the model's
/// message a model content of its text and calls, each call's result a user content of its own,
/// and an applied compaction's summary (a user content marked `summary`) in place of what came
/// before the compaction started. A subagent's events (`agentId`) are not the main agent's. A
/// call id used again (a stand-in's, or a provider's that repeats across processes) is made
/// unique, `#2` and on, so that each result stays with its own call.
///
/// With it, why a compaction appended now could be read otherwise than the fold means, or lose
/// what Copilot would send: Copilot cut its history in a way this does not rebuild (and no
/// compaction since replaced what came before), a compaction it runs is not finished (its
/// summary, written later, would take the place of the fold's), a compaction's end has no start
/// or two overlap, or a message carries attachments, which a summary in text cannot send again.
fn history(events: &[Map<String, Value>]) -> (Vec<Value>, Option<String>) {
    let mut history: Vec<Value> = Vec::new();
    // Each compaction that started and has not ended: its id, the length of the history then,
    // and whether this process started it (one an earlier process left will never end).
    let mut started: Vec<(String, usize, bool)> = Vec::new();
    let mut cut: Option<String> = None;
    let mut unsure: Option<String> = None;
    // How many times each call id was issued, and so the unique id of its latest call.
    let mut issued: HashMap<String, usize> = HashMap::new();
    let unique = |id: &str, times: usize| match times {
        0 | 1 => id.to_string(),
        n => format!("{id}#{n}"),
    };
    for event in events.iter().filter(|e| e.get("agentId").is_none()) {
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        let data = event.get("data").unwrap_or(&Value::Null);
        let text = |key: &str| data.get(key).and_then(Value::as_str);
        match kind {
            _ if CUTS.contains(&kind) => {
                cut = Some(format!("Copilot cut its history ({kind})"));
            }
            "user.message" => {
                if data
                    .get("attachments")
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty())
                {
                    unsure = Some("a message carries attachments".into());
                }
                let mut part = json!({ "text": text("content").unwrap_or("") });
                // A message Copilot sent on its own (autopilot, a background task's notice).
                if let Some(source) = text("source").filter(|s| *s != "user") {
                    part["source"] = json!(source);
                }
                history.push(json!({ "role": "user", "parts": [part] }));
            }
            "assistant.message" => {
                let mut parts = Vec::new();
                if let Some(said) = text("content").filter(|t| !t.trim().is_empty()) {
                    parts.push(json!({ "text": said }));
                }
                for call in data
                    .get("toolRequests")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let id = call.get("toolCallId").and_then(Value::as_str).unwrap_or("");
                    let times = issued.entry(id.to_string()).or_default();
                    *times += 1;
                    parts.push(json!({ "functionCall": {
                        "id": unique(id, *times),
                        "name": call.get("name"),
                        "args": call.get("arguments").cloned().unwrap_or(json!({})),
                    }}));
                }
                if !parts.is_empty() {
                    history.push(json!({ "role": "model", "parts": parts }));
                }
            }
            "tool.execution_complete" => {
                let id = text("toolCallId").unwrap_or("");
                let output = data
                    .pointer("/result/content")
                    .or_else(|| data.pointer("/error/message"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let mut result = json!({
                    "id": unique(id, issued.get(id).copied().unwrap_or(0)),
                    "response": { "output": output },
                });
                if data.get("success") == Some(&Value::Bool(false)) {
                    result["failed"] = json!(true);
                }
                history.push(json!({ "role": "user", "parts": [{ "functionResponse": result }] }));
            }
            "session.resume" | "session.start" => {
                for (_, _, ours) in &mut started {
                    *ours = false;
                }
            }
            "session.compaction_start" => {
                let id = text("compactionAttemptId").unwrap_or("").to_string();
                started.push((id, history.len(), true));
            }
            "session.compaction_complete" => {
                let id = text("compactionAttemptId").unwrap_or("");
                let Some(at) = started.iter().rposition(|(started, _, _)| started == id) else {
                    unsure = Some("a compaction ended that never started".into());
                    continue;
                };
                let (_, from, _) = started.remove(at);
                let applied = data.get("success") == Some(&Value::Bool(true))
                    && text("outcome").is_none_or(|o| o == "applied");
                let Some(summary) = text("summaryContent").filter(|_| applied) else {
                    continue;
                };
                if !started.is_empty() {
                    unsure = Some("two compactions overlap".into());
                }
                let kept = history.split_off(from.min(history.len()));
                history = vec![
                    json!({ "role": "user", "parts": [{ "text": summary, "summary": true }] }),
                ];
                history.extend(kept);
                // What came before, a cut included, is this summary now.
                cut = None;
            }
            _ => {}
        }
    }
    let running = started
        .iter()
        .any(|(_, _, ours)| *ours)
        .then(|| "a compaction Copilot runs is not finished".to_string());
    (history, cut.or(unsure).or(running))
}

/// The summary ctx's compaction gives: `history`, folded, as text, each message in a tag of its
/// kind.
fn summary(history: &[Value]) -> String {
    let mut out = format!(
        "{SUMMARY_START} for this resumed session: every message word for word, in order, but \
         for each frame pushed and popped through `ctx frame`, whose messages are in its log and \
         which is here its pop and the frame's summary.\n"
    );
    for content in history {
        let model = content.get("role").and_then(Value::as_str) == Some("model");
        for part in contents_fold::parts(content) {
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                let (tag, attribute) = match (model, part.get("summary").is_some()) {
                    (true, _) => ("assistant_message", String::new()),
                    (false, true) => ("earlier_summary", String::new()),
                    (false, false) => match part.get("source").and_then(Value::as_str) {
                        Some(source) => ("message", format!(" source=\"{source}\"")),
                        None => ("user_message", String::new()),
                    },
                };
                out.push_str(&format!("\n<{tag}{attribute}>\n{text}\n</{tag}>\n"));
            } else if let Some(call) = part.get("functionCall") {
                let text = |key: &str| call.get(key).and_then(Value::as_str).unwrap_or("");
                let args = call.get("args").map(Value::to_string).unwrap_or_default();
                out.push_str(&format!(
                    "\n<tool_call id=\"{}\" name=\"{}\">\n{args}\n</tool_call>\n",
                    text("id"),
                    text("name")
                ));
            } else if let Some(result) = part.get("functionResponse") {
                let id = result.get("id").and_then(Value::as_str).unwrap_or("");
                let output = result
                    .pointer("/response/output")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let failed = match result.get("failed") {
                    Some(_) => " status=\"failed\"",
                    None => "",
                };
                out.push_str(&format!(
                    "\n<tool_result id=\"{id}\"{failed}>\n{output}\n</tool_result>\n"
                ));
            }
        }
    }
    out
}

/// A shell result's exit code and what the command printed: Copilot ends a finished command's
/// output with a line `<shellId: N completed with exit code C>` (`<detached command with
/// shellId: …>` for one it let run on); `None` when the result has no such line (one a fold
/// already replaced, or a command still running).
fn exit_and_output(output: &str) -> Option<(i64, String)> {
    let output = output.trim_end();
    let (printed, last) = output.rsplit_once('\n').unwrap_or(("", output));
    let line = last.trim_end().strip_prefix('<')?.strip_suffix('>')?;
    let line = line.strip_prefix("detached command with ").unwrap_or(line);
    let (_, code) = line
        .strip_prefix("shellId: ")?
        .split_once(" completed with exit code ")?;
    Some((code.parse().ok()?, printed.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: &str = "cp_s1";
    const STAMP: Stamp<'static> = Stamp {
        start_id: "start",
        complete_id: "complete",
        attempt_id: "attempt",
        now: "2026-11-29T10:00:00.000Z",
    };

    /// Events as Copilot writes them, chained by `parentId`.
    fn file(events: &[(&str, Value)]) -> String {
        let mut text = String::new();
        for (n, (kind, data)) in events.iter().enumerate() {
            let mut event = json!({"type": kind, "data": data, "id": format!("e{n}"),
                "timestamp": "t", "parentId": if n == 0 { json!(null) } else { json!(format!("e{}", n - 1)) }});
            if data.get("agent").is_some() {
                event["agentId"] = json!("a1");
            }
            text.push_str(&format!("{event}\n"));
        }
        text
    }

    fn user(text: &str) -> (&'static str, Value) {
        (
            "user.message",
            json!({"content": text, "transformedContent": format!("{text} <hook context>")}),
        )
    }

    fn said(text: &str) -> (&'static str, Value) {
        (
            "assistant.message",
            json!({"content": text, "model": "m1", "toolRequests": []}),
        )
    }

    fn shell(id: &str, command: &str, printed: &str) -> [(&'static str, Value); 2] {
        [
            (
                "assistant.message",
                json!({"content": "", "model": "m1",
                "toolRequests": [{"toolCallId": id, "name": "bash", "arguments": {"command": command}}]}),
            ),
            (
                "tool.execution_complete",
                json!({"toolCallId": id, "success": true,
                "result": {"content": format!("{printed}\n<shellId: 0 completed with exit code 0>")}}),
            ),
        ]
    }

    fn goal_of(id: &str) -> Option<String> {
        (id == "fr_a").then(|| "Ledger".to_string())
    }

    fn finished(id: &str) -> Option<Finished> {
        (id == "fr_a").then(|| Finished {
            parent: Some(FRAME.to_string()),
            text: "[ctx] Frame fr_a (Ledger) completed, folded".to_string(),
        })
    }

    /// A session that pushes and pops frame fr_a around a bulky output, after `before`.
    fn popped_after(before: &[(&'static str, Value)]) -> String {
        let mut events = before.to_vec();
        events.push(user("Start the refunds"));
        events.extend(shell(
            "c1",
            &format!("ctx frame push --session {FRAME} -- 'Ledger'"),
            "fr_a",
        ));
        events.extend(shell("c2", "cat ledger", "BULKY"));
        events.extend(shell(
            "c3",
            &format!("ctx frame pop --session {FRAME} --summary ok"),
            FRAME,
        ));
        events.push(said("Refunds started."));
        file(&events)
    }

    fn summary_of(fold: &ToAppend) -> String {
        let lines: Vec<Value> = fold
            .text
            .as_deref()
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        lines[1]["data"]["summaryContent"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn a_popped_frame_is_its_pop_and_summary_and_the_rest_stays_word_for_word_in_order() {
        let fold = fold(&popped_after(&[]), &STAMP, &goal_of, &finished).unwrap();
        assert_eq!(fold.frames, ["fr_a"]);
        let lines = fold.text.as_deref().unwrap();
        let start: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
        assert_eq!(start["parentId"], "e7", "chained to the file's last event");
        assert_eq!(start["data"]["model"], "m1");
        let summary = summary_of(&fold);
        assert!(summary.starts_with(SUMMARY_START), "{summary}");
        assert!(
            !summary.contains("BULKY") && !summary.contains("<hook context>"),
            "{summary}"
        );
        let order = [
            "<user_message>\nStart the refunds\n</user_message>",
            "<tool_call id=\"c3\" name=\"bash\">",
            "<tool_result id=\"c3\">\n[ctx] Frame fr_a (Ledger) completed, folded",
            "<assistant_message>\nRefunds started.\n</assistant_message>",
        ];
        let at: Vec<usize> = order
            .iter()
            .map(|o| {
                summary
                    .find(o)
                    .unwrap_or_else(|| panic!("{o} in {summary}"))
            })
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{summary}");
        // The frame's messages, for its log.
        assert_eq!(fold.spans.len(), 1);
        assert!(
            serde_json::to_string(&fold.spans[0].1)
                .unwrap()
                .contains("BULKY")
        );
    }

    #[test]
    fn nothing_popped_appends_nothing() {
        let mut events = vec![user("Hi")];
        events.extend(shell("c1", "ls", "a b"));
        events.push(said("Two files."));
        let fold = fold(&file(&events), &STAMP, &goal_of, &finished).unwrap();
        assert!(fold.text.is_none() && fold.frames.is_empty());
    }

    #[test]
    fn an_earlier_compactions_summary_comes_first_and_what_came_after_its_start_stays() {
        let before = [
            user("Old work"),
            said("OLD_ANSWER"),
            (
                "session.compaction_start",
                json!({"compactionAttemptId": "k1"}),
            ),
            said("During the compaction."),
            (
                "session.compaction_complete",
                json!({"success": true, "outcome": "applied",
                "compactionAttemptId": "k1", "summaryContent": "<summary>Old work done.</summary>"}),
            ),
            // A compaction Copilot cancelled changes nothing.
            (
                "session.compaction_start",
                json!({"compactionAttemptId": "k2"}),
            ),
            (
                "session.compaction_complete",
                json!({"success": false, "outcome": "cancelled",
                "compactionAttemptId": "k2"}),
            ),
            // One an earlier process started and never ended does not hold the fold back.
            (
                "session.compaction_start",
                json!({"compactionAttemptId": "k3"}),
            ),
            ("session.shutdown", json!({})),
            ("session.resume", json!({})),
        ];
        let summary =
            summary_of(&fold(&popped_after(&before), &STAMP, &goal_of, &finished).unwrap());
        assert!(!summary.contains("OLD_ANSWER"), "{summary}");
        let earlier = summary
            .find("<earlier_summary>\n<summary>Old work done.</summary>\n</earlier_summary>")
            .unwrap();
        let during = summary.find("During the compaction.").unwrap();
        let now = summary.find("Start the refunds").unwrap();
        assert!(earlier < during && during < now, "{summary}");
    }

    #[test]
    fn a_subagents_events_are_not_the_main_conversations() {
        let before = [(
            "assistant.message",
            json!({"content": "SUBAGENT_TEXT", "agent": true}),
        )];
        let summary =
            summary_of(&fold(&popped_after(&before), &STAMP, &goal_of, &finished).unwrap());
        assert!(!summary.contains("SUBAGENT_TEXT"), "{summary}");
    }

    #[test]
    fn a_history_the_fold_cannot_rebuild_is_refused_with_why() {
        let running = [(
            "session.compaction_start",
            json!({"compactionAttemptId": "k1"}),
        )];
        let text = popped_after(&running);
        assert_eq!(
            fold(&text, &STAMP, &goal_of, &finished).unwrap_err(),
            "a compaction Copilot runs is not finished"
        );
        let cut = [("session.snapshot_rewind", json!({}))];
        assert_eq!(
            fold(&popped_after(&cut), &STAMP, &goal_of, &finished).unwrap_err(),
            "Copilot cut its history (session.snapshot_rewind)"
        );
        let attached = [(
            "user.message",
            json!({"content": "See", "attachments": [{"type": "file", "path": "a.png"}]}),
        )];
        assert_eq!(
            fold(&popped_after(&attached), &STAMP, &goal_of, &finished).unwrap_err(),
            "a message carries attachments"
        );
        let unstarted = [(
            "session.compaction_complete",
            json!({"success": true, "compactionAttemptId": "k9", "summaryContent": "?"}),
        )];
        assert_eq!(
            fold(&popped_after(&unstarted), &STAMP, &goal_of, &finished).unwrap_err(),
            "a compaction ended that never started"
        );
        assert_eq!(
            fold("{}\n[1]\n", &STAMP, &goal_of, &finished).unwrap_err(),
            "line 2 is not a JSON object"
        );
    }

    #[test]
    fn a_call_id_used_again_by_a_later_process_keeps_each_result_with_its_own_call() {
        // A stand-in (and some providers) number calls per process: call c1 comes back.
        let mut after = vec![("session.resume", json!({})), user("Go on")];
        after.extend(shell("c1", "echo next", "SECOND_RUN_OUTPUT"));
        after.push(said("Went on."));
        let text = popped_after(&[]) + &file(&after);
        let summary = summary_of(&fold(&text, &STAMP, &goal_of, &finished).unwrap());
        assert!(!summary.contains("BULKY"), "{summary}");
        assert!(
            summary.contains("<tool_result id=\"c1#2\">\nSECOND_RUN_OUTPUT"),
            "{summary}"
        );
    }

    #[test]
    fn a_later_compaction_lifts_a_cut_and_failed_and_copilots_own_messages_say_so() {
        let mut before = vec![
            user("Old"),
            ("session.truncation", json!({})),
            (
                "session.compaction_start",
                json!({"compactionAttemptId": "k1"}),
            ),
            (
                "session.compaction_complete",
                json!({"success": true, "outcome": "applied",
                "compactionAttemptId": "k1", "summaryContent": "Old done."}),
            ),
            (
                "user.message",
                json!({"content": "Keep going", "source": "autopilot"}),
            ),
            (
                "assistant.message",
                json!({"content": "", "toolRequests": [{"toolCallId": "f1",
                "name": "bash", "arguments": {"command": "false"}}]}),
            ),
            (
                "tool.execution_complete",
                json!({"toolCallId": "f1", "success": false,
                "error": {"message": "it failed"}}),
            ),
        ];
        before.push(said("Noted."));
        let summary =
            summary_of(&fold(&popped_after(&before), &STAMP, &goal_of, &finished).unwrap());
        assert!(
            summary.contains("<message source=\"autopilot\">\nKeep going\n</message>"),
            "{summary}"
        );
        assert!(
            summary.contains("<tool_result id=\"f1\" status=\"failed\">\nit failed\n"),
            "{summary}"
        );
    }

    #[test]
    fn a_fold_that_would_not_make_the_conversation_smaller_is_left_out() {
        // A frame whose only output is shorter than the person's long message, which Copilot's
        // own list would carry a second time.
        let long = "Refunds, ".repeat(400);
        let mut events = vec![user(&long)];
        events.extend(shell(
            "c1",
            &format!("ctx frame push --session {FRAME} -- 'Ledger'"),
            "fr_a",
        ));
        events.extend(shell(
            "c3",
            &format!("ctx frame pop --session {FRAME} --summary ok"),
            FRAME,
        ));
        let fold = fold(&file(&events), &STAMP, &goal_of, &finished).unwrap();
        assert!(fold.text.is_none(), "{:?}", fold.text);
        assert!(
            fold.refused
                .iter()
                .any(|r| r.contains("would not make the resumed conversation smaller")),
            "{:?}",
            fold.refused
        );
    }

    #[test]
    fn a_shell_result_reads_as_its_exit_code_and_output() {
        let read = exit_and_output;
        assert_eq!(
            read("a\nb\n<shellId: 0 completed with exit code 0>"),
            Some((0, "a\nb".into()))
        );
        assert_eq!(
            read("<shellId: 3 completed with exit code 2>\n"),
            Some((2, String::new()))
        );
        assert_eq!(
            read("x\n<detached command with shellId: s1 completed with exit code -1>"),
            Some((-1, "x".into()))
        );
        assert_eq!(read("[ctx] Frame fr_a folded"), None);
        assert_eq!(read("x\n<shellId: 0 is still running>"), None);
    }
}

//! The fold of closed turn frames (`frame.auto = turns`) in OpenCode's message list: a turn's
//! span, from the person's message that opened it up to the next person's message (or the first
//! message written after the turn closed), keeps every message and every text, word for word,
//! and each tool call with its input; only the outputs of its completed calls are replaced by a
//! short placeholder naming the frame whose log keeps them and how to recall them. OpenCode's
//! strict stand-in accepted exactly this rewrite ("placeholder", autoframes.md §1.4): calls and
//! results stay paired, as each call and its result are one part.
//!
//! A span is found by the id of its person's message; one whose message is gone (compacted, or
//! taken by another plugin) is left as it is. Messages an explicit frame's fold dropped stay
//! dropped, and `flame_*` outputs (fold entries among them) are never replaced.
//!
//! A closed todo frame (`frame.auto = todos`) folds the same way, over the calls made between the
//! `todowrite` call that set its item in progress and the one that ended it, both kept whole: the
//! calls of a message made before the opening call, or after the closing one, are another item's.
//! Todo spans fold before turns, so an output of both names the item's smaller log. An item whose
//! opening call is gone is left as it is; one closed by its turn's end (no closing call) folds
//! with the turn.

use serde_json::Value;

use super::{Folding, View};
use crate::compact::inject::Edit;
pub use crate::opencode::turn::{is_person, is_plugin_prompt};

/// How a placeholder begins: an output that already begins so is not folded twice.
pub(crate) const PLACEHOLDER_START: &str = "[ctx folded this output";

/// A closed turn frame of the session, as the fold needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub id: String,
    /// The id of the person's message that opened it.
    pub start: String,
    /// When it closed (epoch ms): a message written later is not the turn's.
    pub closed_at: i64,
}

/// A closed todo frame of the session, as the fold needs it: the calls that opened and closed it
/// (message id, call id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Todo {
    pub id: String,
    pub open: (String, String),
    pub close: (String, String),
}

/// What stands for the output of a `todowrite` call a later one superseded: the output is the
/// list the call was given, which its input still holds, and the later call holds the whole list.
pub fn superseded(chars: usize) -> String {
    format!(
        "{PLACEHOLDER_START} ({chars} characters): it repeated this call's list, and a later \
         todowrite call holds the whole list]"
    )
}

/// What stands for a folded output of `chars` characters, whose whole text frame `id`'s log
/// keeps.
pub fn placeholder(id: &str, chars: usize) -> String {
    format!(
        "{PLACEHOLDER_START} ({chars} characters) into the log of frame {id}: flame_recall with \
         id {id}, or `ctx frame log {id}`, gives it back]"
    )
}

/// The messages of `turn`'s span, by index: from its person's message up to (not including) the
/// next person's message or the first message written after it closed.
fn span(views: &[View], ids: &[&str], turn: &Turn) -> Option<std::ops::Range<usize>> {
    let start = ids.iter().position(|id| *id == turn.start)?;
    let end = (start + 1..views.len())
        .find(|&i| views[i].person || views[i].created.is_some_and(|t| t > turn.closed_at))
        .unwrap_or(views.len());
    Some(start..end)
}

/// Replaces the outputs of the completed calls of `message` but `flame_*`'s, among its parts
/// `within`; false when none was replaced.
fn fold_outputs(message: &mut Value, id: &str, within: std::ops::Range<usize>) -> bool {
    let Some(parts) = message.get_mut("parts").and_then(Value::as_array_mut) else {
        return false;
    };
    let mut changed = false;
    for (_, part) in parts
        .iter_mut()
        .enumerate()
        .filter(|(i, _)| within.contains(i))
    {
        if part.get("type").and_then(Value::as_str) != Some("tool") {
            continue;
        }
        if part
            .get("tool")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("flame_"))
        {
            continue;
        }
        let Some(state) = part.get_mut("state").and_then(Value::as_object_mut) else {
            continue;
        };
        if state.get("status").and_then(Value::as_str) != Some("completed") {
            continue;
        }
        // OpenCode already sends a compacted output as a line of its own.
        if state
            .get("time")
            .and_then(|t| t.get("compacted"))
            .is_some_and(|c| !c.is_null())
        {
            continue;
        }
        let Some(output) = state.get("output").and_then(Value::as_str) else {
            continue;
        };
        if output.starts_with(PLACEHOLDER_START) {
            continue;
        }
        let folded = placeholder(id, output.chars().count());
        state.insert("output".into(), Value::String(folded));
        // The tool's metadata repeats parts of the output (bash's preview); it is not the
        // model's, and goes with the output.
        if state.contains_key("metadata") {
            state.insert("metadata".into(), Value::Object(serde_json::Map::new()));
        }
        changed = true;
    }
    changed
}

/// Where a call is: its message's index and its part's.
fn find_call(
    views: &[View],
    ids: &[&str],
    (message, call): &(String, String),
) -> Option<(usize, usize)> {
    let i = ids.iter().position(|id| id == message)?;
    let part = views[i]
        .calls
        .iter()
        .find(|c| c.call.as_deref() == Some(call.as_str()))?
        .index;
    Some((i, part))
}

impl Folding<'_, '_> {
    /// Folds the spans of `turns`, closed turn frames of the session, into what is sent.
    pub fn fold_turns(&mut self, turns: &[Turn]) {
        let ids: Vec<&str> = self.list.messages().iter().map(|m| m.id()).collect();
        for turn in turns {
            let Some(range) = span(&self.views, &ids, turn) else {
                continue;
            };
            for i in range {
                self.fold_message(i, &turn.id, 0..usize::MAX);
            }
        }
    }

    /// Folds the spans of `todos`, closed todo frames of the session, into what is sent.
    pub fn fold_todos(&mut self, todos: &[Todo]) {
        let ids: Vec<&str> = self.list.messages().iter().map(|m| m.id()).collect();
        for todo in todos {
            let (Some(open), Some(close)) = (
                find_call(&self.views, &ids, &todo.open),
                find_call(&self.views, &ids, &todo.close),
            ) else {
                continue;
            };
            if close <= open {
                continue;
            }
            for i in open.0..=close.0 {
                let from = if i == open.0 { open.1 + 1 } else { 0 };
                let to = if i == close.0 { close.1 } else { usize::MAX };
                self.fold_message(i, &todo.id, from..to);
            }
        }
    }

    /// Folds the output of every completed `todowrite` call but the last one, up to the call
    /// that opened the last closed item of `todos`: OpenCode's output of the call is the list it
    /// was given, and the last call holds the whole list. The folds stop there because that
    /// item's own fold changes the request from that call on: what lies before it is left as the
    /// prompt cache holds it.
    pub fn fold_superseded_lists(&mut self, todos: &[Todo]) {
        let ids: Vec<&str> = self.list.messages().iter().map(|m| m.id()).collect();
        let Some(until) = todos
            .iter()
            .filter(|t| find_call(&self.views, &ids, &t.close).is_some())
            .filter_map(|t| find_call(&self.views, &ids, &t.open))
            .max()
        else {
            return;
        };
        let calls: Vec<(usize, usize)> = self
            .views
            .iter()
            .enumerate()
            .flat_map(|(i, v)| {
                v.calls
                    .iter()
                    .filter(|c| c.completed && c.tool == crate::opencode::todo::TOOL)
                    .map(move |c| (i, c.index))
            })
            .collect();
        let Some((_, older)) = calls.split_last() else {
            return;
        };
        for &(i, part) in older.iter().filter(|&&at| at <= until) {
            let Some(mut value) = self.edited(i) else {
                continue;
            };
            let output = value
                .pointer_mut(&format!("/parts/{part}/state/output"))
                .filter(|o| {
                    o.as_str()
                        .is_some_and(|o| !o.starts_with(PLACEHOLDER_START))
                });
            if let Some(output) = output {
                let chars = output.as_str().map_or(0, |o| o.chars().count());
                *output = Value::String(superseded(chars));
                self.edits.messages[i] = Edit::Replace(value.to_string());
            }
        }
    }

    /// Replaces the outputs of message `i`'s completed calls among its parts `within` with
    /// placeholders naming frame `id`.
    fn fold_message(&mut self, i: usize, id: &str, within: std::ops::Range<usize>) {
        let has_output = self.views[i]
            .calls
            .iter()
            .any(|c| c.completed && !c.tool.starts_with("flame_") && within.contains(&c.index));
        if !has_output {
            return;
        }
        let Some(mut value) = self.edited(i) else {
            return;
        };
        if fold_outputs(&mut value, id, within) {
            self.edits.messages[i] = Edit::Replace(value.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::compact::fold::fold;
    use crate::compact::inject::parse_messages;

    fn user(id: &str, created: i64, text: &str) -> Value {
        json!({"info": {"id": id, "role": "user", "sessionID": "ses_a", "time": {"created": created}},
               "parts": [{"type": "text", "text": text}]})
    }

    fn answer(id: &str, created: i64, call: &str, output: &str, text: &str) -> Value {
        json!({"info": {"id": id, "role": "assistant", "sessionID": "ses_a",
                        "time": {"created": created}},
               "parts": [
                   {"type": "tool", "tool": "bash", "callID": call, "state": {"status": "completed",
                    "input": {"command": "make"}, "output": output,
                    "metadata": {"exit": 0, "output": output}, "time": {"start": created, "end": created}}},
                   {"type": "text", "text": text}]})
    }

    fn folded(messages: &[Value], turns: &[Turn]) -> Vec<Value> {
        let text = json!({ "messages": messages }).to_string();
        let list = parse_messages(&text).unwrap();
        let mut folding = fold(&list, &[], false);
        folding.fold_turns(turns);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        out["messages"].as_array().unwrap().clone()
    }

    fn turn(start: &str, closed_at: i64) -> Turn {
        Turn {
            id: "fr_turn1".into(),
            start: start.into(),
            closed_at,
        }
    }

    #[test]
    fn a_closed_turn_keeps_its_texts_and_calls_and_replaces_its_outputs() {
        let big = "x".repeat(20_000);
        let dcp = json!({"info": {"id": "msg_dcp", "role": "user", "sessionID": "ses_a",
                                  "time": {"created": 25}},
                         "parts": [{"type": "text", "synthetic": true, "text": "DCP summary"}]});
        let messages = vec![
            user("msg_1", 10, "PERSON0: build it"),
            answer("msg_2", 11, "call_1", &big, "ASSIST0: built"),
            dcp.clone(),
            user("msg_3", 30, "PERSON1: again"),
            answer("msg_4", 31, "call_1", &big, "ASSIST1: built again"),
        ];
        let out = folded(&messages, &[turn("msg_1", 20)]);
        assert_eq!(out.len(), messages.len());
        // Everything but the closed turn's output, byte for byte: the texts, the other plugin's
        // message after the turn, the next turn.
        for i in [0, 2, 3, 4] {
            assert_eq!(out[i], messages[i]);
        }
        let part = &out[1]["parts"][0];
        assert_eq!(part["callID"], "call_1");
        assert_eq!(part["state"]["input"], json!({"command": "make"}));
        assert_eq!(part["state"]["status"], "completed");
        assert_eq!(
            part["state"]["output"],
            placeholder("fr_turn1", 20_000).as_str()
        );
        assert_eq!(part["state"]["metadata"], json!({}));
        assert_eq!(out[1]["parts"][1], messages[1]["parts"][1]);
    }

    #[test]
    fn a_turn_ends_at_the_next_persons_message_and_not_at_ctxs_or_a_plugins() {
        let notice = json!({"info": {"id": "msg_n", "role": "user", "sessionID": "ses_a",
                                     "time": {"created": 12}},
                            "parts": [{"type": "text", "text": "Frame ses_b completed: ok"},
                                      {"type": "text", "synthetic": true,
                                       "text": "Frame ses_b finished with status completed. …"}]});
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            answer("msg_2", 11, "call_1", "OUT-A", "a"),
            notice,
            user("msg_o", 13, "go on <!-- OMO_INTERNAL_INITIATOR -->"),
            answer("msg_3", 14, "call_2", "OUT-B", "b"),
            user("msg_4", 15, "PERSON1"),
            answer("msg_5", 16, "call_3", "OUT-C", "c"),
        ];
        // Closed long after: the span ends at the next person's message.
        let out = folded(&messages, &[turn("msg_1", 1_000)]);
        let output = |i: usize| {
            out[i]["parts"][0]["state"]["output"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert!(output(1).starts_with(PLACEHOLDER_START));
        assert!(output(4).starts_with(PLACEHOLDER_START));
        assert_eq!(output(6), "OUT-C");
        // Closed at 12: what was written after its close is not the turn's.
        let out = folded(&messages, &[turn("msg_1", 12)]);
        let output = |i: usize| {
            out[i]["parts"][0]["state"]["output"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert!(output(1).starts_with(PLACEHOLDER_START));
        assert_eq!(output(4), "OUT-B");
    }

    #[test]
    fn a_turn_whose_message_is_gone_or_folded_twice_is_left_as_it_is() {
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            answer("msg_2", 11, "call_1", "OUT-A", "a"),
        ];
        assert_eq!(folded(&messages, &[turn("msg_gone", 1_000)]), messages);
        let once = folded(&messages, &[turn("msg_1", 1_000)]);
        assert_eq!(folded(&once, &[turn("msg_1", 1_000)]), once);
    }

    #[test]
    fn a_todo_span_folds_the_calls_between_its_two_todo_calls_and_no_other() {
        let part = |call: &str, tool: &str, output: &str| {
            json!({"type": "tool", "tool": tool, "callID": call,
                   "state": {"status": "completed", "input": {}, "output": output}})
        };
        let message = |id: &str, parts: Vec<Value>| {
            json!({"info": {"id": id, "role": "assistant", "sessionID": "ses_a",
                            "time": {"created": 11}}, "parts": parts})
        };
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            message(
                "msg_2",
                vec![
                    part("c1", "bash", "BEFORE"),
                    part("c2", "todowrite", "LIST1"),
                    part("c3", "bash", "IN1"),
                ],
            ),
            message("msg_3", vec![part("c4", "bash", "IN2")]),
            message(
                "msg_4",
                vec![
                    part("c5", "bash", "IN3"),
                    part("c6", "todowrite", "LIST2"),
                    part("c7", "bash", "AFTER"),
                ],
            ),
        ];
        let todo = Todo {
            id: "fr_item".into(),
            open: ("msg_2".into(), "c2".into()),
            close: ("msg_4".into(), "c6".into()),
        };
        let text = json!({ "messages": messages }).to_string();
        let list = parse_messages(&text).unwrap();
        let mut folding = fold(&list, &[], false);
        folding.fold_todos(&[todo]);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        let outputs: Vec<&str> = out["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["parts"].as_array().unwrap())
            .filter_map(|p| p["state"]["output"].as_str())
            .collect();
        let folded = |chars| placeholder("fr_item", chars);
        assert_eq!(
            outputs,
            [
                "BEFORE",
                "LIST1",
                &folded(3),
                &folded(3),
                &folded(3),
                "LIST2",
                "AFTER"
            ]
        );
    }

    #[test]
    fn every_todo_list_but_the_last_folds_up_to_the_last_closed_items_opening() {
        let list = |id: &str, call: &str, output: &str| {
            json!({"info": {"id": id, "role": "assistant", "sessionID": "ses_a",
                            "time": {"created": 11}},
                   "parts": [{"type": "tool", "tool": "todowrite", "callID": call,
                              "state": {"status": "completed", "input": {"todos": []},
                                        "output": output}}]})
        };
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            list("msg_2", "c1", "LIST-ONE"),
            answer("msg_3", 12, "c2", "BASH", "text"),
            list("msg_4", "c3", "LIST-TWO"),
            list("msg_5", "c4", "LIST-THREE"),
            list("msg_6", "c5", "LIST-FOUR"),
        ];
        let text = json!({ "messages": messages }).to_string();
        let parsed = parse_messages(&text).unwrap();
        let outputs = |todos: &[Todo]| {
            let mut folding = fold(&parsed, &[], false);
            folding.fold_superseded_lists(todos);
            let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
            out["messages"]
                .as_array()
                .unwrap()
                .iter()
                .skip(1)
                .map(|m| {
                    m["parts"][0]["state"]["output"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect::<Vec<_>>()
        };
        // No item closed: no list folds.
        assert_eq!(
            outputs(&[]),
            ["LIST-ONE", "BASH", "LIST-TWO", "LIST-THREE", "LIST-FOUR"]
        );
        // An item opened by the third list and closed by the fourth: the lists up to its opening
        // fold; the rest is what its own fold leaves, and the last list stays.
        let item = Todo {
            id: "fr_item".into(),
            open: ("msg_4".into(), "c3".into()),
            close: ("msg_5".into(), "c4".into()),
        };
        assert_eq!(
            outputs(&[item]),
            [
                superseded(8),
                "BASH".into(),
                superseded(8),
                "LIST-THREE".into(),
                "LIST-FOUR".into()
            ]
        );
    }

    #[test]
    fn flame_outputs_and_unfinished_calls_stay() {
        let mut message = answer("msg_2", 11, "call_1", "OUT", "a");
        message["parts"][0]["tool"] = json!("flame_pop");
        let mut running = answer("msg_3", 12, "call_2", "", "b");
        running["parts"][0]["state"] = json!({"status": "running", "input": {}});
        let messages = vec![user("msg_1", 10, "PERSON0"), message, running];
        assert_eq!(folded(&messages, &[turn("msg_1", 1_000)]), messages);
    }

    #[test]
    fn people_are_told_from_ctx_and_plugins() {
        let text =
            |t: &str, synthetic: bool| json!({"type": "text", "text": t, "synthetic": synthetic});
        assert!(is_person("user", &[text("hi", false)]));
        assert!(!is_person("assistant", &[text("hi", false)]));
        assert!(!is_person("user", &[text("hi", true)]));
        assert!(!is_person("user", &[text("  ", false)]));
        assert!(!is_person(
            "user",
            &[text("x <!-- OMO_INTERNAL_INITIATOR -->", false)]
        ));
        assert!(!is_person(
            "user",
            &[
                text("Frame a completed", false),
                text("Frame a finished with status completed.", true)
            ]
        ));
        // A person's message with a file attached: the file's synthetic texts are not theirs.
        assert!(is_person(
            "user",
            &[text("Called the Read tool", true), text("read it", false)]
        ));
    }
}

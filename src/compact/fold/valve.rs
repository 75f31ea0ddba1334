//! The pressure valve (OpenCode, pi): inside one long turn, or one long item, no frame closes,
//! and the request grows until the agent compacts the whole conversation. When the request about
//! to be sent would pass [`TRIGGER`] of the count at which the agent compacts (OpenCode:
//! opencode.md §6.1; pi: its context window less `compaction.reserveTokens`), ctx
//! masks the oldest tool outputs still sent whole, keeping the last [`KEEP_LAST`] calls, until the
//! estimate is under [`TARGET`]: far enough below that the next requests grow for a while before
//! the valve opens again, as each opening changes what prompt caches hold from the first output
//! it masks on.
//!
//! The estimate is the agent's own count of the last finished model call (the tokens its provider
//! reported, [`Shape::reported_count`]), plus what was added since: the outputs of that call's
//! tools and every message after it, at [`CHARS_PER_TOKEN`] characters a token, as pi estimates
//! its own. It ignores what this request's folds take out since that call, so it errs high,
//! never low.
//!
//! A masked output stays masked in every later request (the session's file records each call by
//! [`key`]), so that each opening breaks the prompt cache once. The agent's stored session keeps
//! every output: `flame_recall` with that key gives it back. The same masks serve the items the
//! model left in progress ([`Folding::mask_left_items`]), which need no record: they follow from
//! the todo frames.

use std::cell::Cell;

use super::Folding;
use super::turns::{PLACEHOLDER_START, Todo, find_call, is_placeholder};
use crate::compact::inject::Edit;

/// The share of the compaction count past which the valve opens.
pub const TRIGGER: f64 = 0.9;
/// The share of the compaction count the valve masks down to: low, as each opening costs the
/// prompt cache what follows its first mask (measured in the book: 30 % billed 89 % of plain
/// OpenCode's on a long turn where 60 % billed 102 %).
pub const TARGET: f64 = 0.3;
/// The calls whose outputs the valve never masks: the last ones, which the model works with.
pub const KEEP_LAST: usize = 3;
/// Characters a token, for what was added since the last reported count.
pub const CHARS_PER_TOKEN: u64 = 4;

/// How the valve names a call: its id and the time of the message holding its output
/// (`call_1@1795902469551`). Call ids alone are not unique: some providers number calls per
/// response, and a mask must never reach another call of the same id.
pub fn key(call: &str, created: Option<i64>) -> String {
    match created {
        Some(at) => format!("{call}@{at}"),
        None => call.to_string(),
    }
}

/// What stands for an output the valve, or an item left in progress, masked. It gives no reason,
/// as both mask alike and a call masked for one is masked for the other in a later request: the
/// text stays the same.
pub fn masked(call: &str, chars: usize) -> String {
    format!("{PLACEHOLDER_START} ({chars} characters): flame_recall with id {call} gives it back]")
}

/// What the valve did to one request.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Opened {
    /// The estimate before, in tokens.
    pub estimate: u64,
    /// The calls it masked in this request, besides those masked before.
    pub masked: Vec<String>,
}

impl Folding<'_, '_> {
    /// The completed calls of the messages `calls_in` whose outputs the valve may mask, in
    /// order: not `flame_*`'s (ctx's own entries) nor `todowrite`'s (the list), not already
    /// folded, and not pruned by the agent; each with the message holding its output and the
    /// output's length in characters.
    fn maskable(&self, calls_in: std::ops::Range<usize>) -> Vec<(usize, String, usize)> {
        let (shape, list) = (self.shape, self.list);
        let mut out = Vec::new();
        for (i, view) in self
            .views
            .iter()
            .enumerate()
            .take(calls_in.end)
            .skip(calls_in.start)
        {
            for call in &view.calls {
                let Some(id) = call.call.as_ref() else {
                    continue;
                };
                if !call.completed || call.tool.starts_with("flame_") || self.is_todo_list(call) {
                    continue;
                }
                let Some(at) = shape.output_message(list, &self.views, i, call) else {
                    continue;
                };
                let Some(mut message) = self.edited(at) else {
                    continue;
                };
                if shape.pruned(&message, call) {
                    continue;
                }
                let chars = Cell::new(None);
                shape.fold_output(&mut message, call, &|output| {
                    if !is_placeholder(output) {
                        chars.set(Some(output.chars().count()));
                    }
                    None
                });
                if let Some(chars) = chars.get() {
                    out.push((at, key(id, self.views[at].created), chars));
                }
            }
        }
        out
    }

    /// Masks the outputs of the calls in `calls` (masked by an earlier request, or chosen now).
    pub fn mask(&mut self, calls: &[String]) {
        if calls.is_empty() {
            return;
        }
        let (shape, list) = (self.shape, self.list);
        for i in 0..self.views.len() {
            for c in 0..self.views[i].calls.len() {
                let call = &self.views[i].calls[c];
                let (Some(id), false) = (&call.call, call.tool.starts_with("flame_")) else {
                    continue;
                };
                let Some(at) = shape.output_message(list, &self.views, i, call) else {
                    continue;
                };
                let id = key(id, self.views[at].created);
                if !calls.contains(&id) {
                    continue;
                }
                let Some(mut message) = self.edited(at) else {
                    continue;
                };
                let fold = |output: &str| {
                    (!is_placeholder(output)).then(|| masked(&id, output.chars().count()))
                };
                if shape.fold_output(&mut message, &self.views[i].calls[c], &fold) {
                    self.edits.messages[at] = Edit::Replace(message.to_string());
                }
            }
        }
    }

    /// Masks the outputs of the items the model left in progress while it went on to others:
    /// for each open item (`open`, the message and call that opened it), the outputs made after
    /// its opening call and before the opening call of the latest item of `closed` that began
    /// after it. The model has finished work it began later; what it left stays recallable by
    /// call, as the valve's masks are. (OpenCode's: pi has no todo tool.)
    pub fn mask_left_items(&mut self, open: &[(String, String)], closed: &[Todo]) {
        let ids: Vec<&str> = self.list.messages().iter().map(|m| m.id()).collect();
        let starts: Vec<(usize, usize)> = closed
            .iter()
            .filter(|t| find_call(&self.views, &ids, &t.close).is_some())
            .filter_map(|t| find_call(&self.views, &ids, &t.open))
            .collect();
        let mut chosen = Vec::new();
        for start in open {
            let Some(from) = find_call(&self.views, &ids, start) else {
                continue;
            };
            let Some(until) = starts.iter().copied().filter(|s| *s > from).max() else {
                continue;
            };
            for (i, view) in self.views.iter().enumerate() {
                for call in &view.calls {
                    let at = (i, call.index);
                    let Some(id) = call.call.as_ref() else {
                        continue;
                    };
                    if at > from
                        && at < until
                        && call.completed
                        && !call.tool.starts_with("flame_")
                        && !self.is_todo_list(call)
                    {
                        chosen.push(key(id, view.created));
                    }
                }
            }
        }
        self.mask(&chosen);
    }

    /// The estimate of the request in tokens, when the messages hold a finished model call
    /// ([module docs](self)).
    pub fn estimate(&self) -> Option<u64> {
        let (at, last) = (0..self.views.len())
            .rev()
            .find_map(|i| Some((i, self.shape.reported_count(&self.edited(i)?)?)))?;
        // The outputs of that call's tools, where they are parts of its message (OpenCode's):
        // only that message is read for them, as every request is estimated.
        let mut chars: u64 = self
            .maskable(at..at + 1)
            .iter()
            .filter(|(message, _, _)| *message == at)
            .map(|(_, _, n)| *n as u64)
            .sum();
        for i in at + 1..self.views.len() {
            chars += match &self.edits.messages[i] {
                Edit::Drop => 0,
                Edit::Keep => self.list.messages()[i].raw().len() as u64,
                Edit::Replace(text) => text.len() as u64,
            };
        }
        Some(last + chars / CHARS_PER_TOKEN)
    }

    /// Opens the valve when the estimate passes [`TRIGGER`] of `compacts_at` (tokens): masks
    /// the oldest outputs sent whole, but the last [`KEEP_LAST`] calls', until it is under
    /// [`TARGET`]. `None` when the valve stays shut.
    pub fn relieve(&mut self, compacts_at: u64) -> Option<Opened> {
        let estimate = self.estimate()?;
        if compacts_at == 0 || (estimate as f64) < TRIGGER * compacts_at as f64 {
            return None;
        }
        let target = (TARGET * compacts_at as f64) as u64;
        let candidates = self.maskable(0..self.views.len());
        let keep = candidates.len().saturating_sub(KEEP_LAST);
        let mut left = estimate;
        let mut chosen: Vec<String> = Vec::new();
        for (_, call, chars) in candidates.into_iter().take(keep) {
            if left <= target {
                break;
            }
            let saved = chars.saturating_sub(masked(&call, chars).chars().count()) as u64;
            left = left.saturating_sub(saved / CHARS_PER_TOKEN);
            chosen.push(call);
        }
        self.mask(&chosen);
        Some(Opened {
            estimate,
            masked: chosen,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::compact::fold::fold;
    use crate::compact::inject::parse_messages;

    fn bash(id: &str, call: &str, output: &str, tokens: Option<u64>) -> Value {
        let mut info = json!({"id": id, "role": "assistant", "sessionID": "ses_a",
                              "time": {"created": 1}});
        if let Some(t) = tokens {
            info["time"]["completed"] = json!(2);
            info["tokens"] = json!({"input": t, "output": 0, "cache": {"read": 0, "write": 0}});
        }
        json!({"info": info, "parts": [{"type": "tool", "tool": "bash", "callID": call,
               "state": {"status": "completed", "input": {}, "output": output,
                         "metadata": {"output": output}}}]})
    }

    fn run(
        messages: &[Value],
        compacts_at: u64,
        before: &[String],
    ) -> (Option<Opened>, Vec<Value>) {
        let text = json!({ "messages": messages }).to_string();
        let list = parse_messages(&text).unwrap();
        let mut folding = fold(&list, &[], false);
        folding.mask(before);
        let opened = folding.relieve(compacts_at);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        (opened, out["messages"].as_array().unwrap().clone())
    }

    /// Eight calls of 4 000-character outputs, the last of which reported 9 500 tokens: past
    /// 90 % of 10 000.
    fn eight_calls_past_the_trigger() -> Vec<Value> {
        (0..8)
            .map(|i| {
                let reported = (i == 7).then_some(9_500);
                bash(
                    &format!("msg_{i}"),
                    &format!("c{i}"),
                    &"x".repeat(4_000),
                    reported,
                )
            })
            .collect()
    }

    fn outputs_of(list: &[Value]) -> Vec<String> {
        list.iter()
            .map(|m| {
                m["parts"][0]["state"]["output"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn the_estimate_is_the_last_count_plus_what_came_after_it() {
        let messages = [
            bash("msg_1", "c1", &"a".repeat(400), Some(1_000)),
            bash("msg_2", "c2", &"b".repeat(800), None),
        ];
        let text = json!({ "messages": messages }).to_string();
        let list = parse_messages(&text).unwrap();
        let folding = fold(&list, &[], false);
        let after = messages[1].to_string().len() as u64;
        assert_eq!(folding.estimate(), Some(1_000 + (400 + after) / 4));
    }

    #[test]
    fn under_the_trigger_nothing_is_masked() {
        let messages: Vec<Value> = (0..6)
            .map(|i| {
                bash(
                    &format!("msg_{i}"),
                    &format!("c{i}"),
                    &"x".repeat(4_000),
                    Some(1_000),
                )
            })
            .collect();
        let (opened, out) = run(&messages, 10_000, &[]);
        assert_eq!(opened, None);
        assert_eq!(out, messages);
    }

    #[test]
    fn past_the_trigger_the_oldest_outputs_are_masked_down_to_the_target_keeping_the_last_three() {
        let messages = eight_calls_past_the_trigger();
        let (opened, out) = run(&messages, 10_000, &[]);
        let opened = opened.unwrap();
        assert_eq!(opened.estimate, 9_500 + 1_000);
        // Each mask takes about 975 tokens off 10 500: down to 3 000 would take eight, and the
        // last three stay, so the five older ones go.
        assert_eq!(opened.masked, ["c0@1", "c1@1", "c2@1", "c3@1", "c4@1"]);
        let outputs = outputs_of(&out);
        assert_eq!(outputs[0], masked("c0@1", 4_000));
        assert_eq!(out[0]["parts"][0]["state"]["metadata"], json!({}));
        assert_eq!(outputs[5], "x".repeat(4_000));
        // A call masked before stays masked, whatever the estimate; another call of the same id,
        // at another time (a provider that numbers calls per response), is not that call.
        let mut later = messages[1].clone();
        later["info"]["time"]["created"] = json!(5);
        later["parts"][0]["callID"] = json!("c0");
        let (_, again) = run(
            &[messages[0].clone(), later],
            1_000_000,
            &["c0@1".to_string()],
        );
        assert_eq!(outputs_of(&again)[0], masked("c0@1", 4_000));
        assert_eq!(outputs_of(&again)[1], "x".repeat(4_000));
    }

    #[test]
    fn an_item_left_in_progress_while_a_later_one_was_finished_has_its_outputs_masked() {
        let todo = |id: &str, call: &str| {
            json!({"info": {"id": id, "role": "assistant", "sessionID": "ses_a",
                            "time": {"created": 1}},
                   "parts": [{"type": "tool", "tool": "todowrite", "callID": call,
                              "state": {"status": "completed", "input": {"todos": []},
                                        "output": "[]"}}]})
        };
        let messages = [
            todo("msg_1", "t1"),
            bash("msg_2", "a1", "A-ONE", None),
            todo("msg_3", "t2"),
            bash("msg_4", "b1", "B-ONE", None),
            todo("msg_5", "t3"),
            bash("msg_6", "a2", "A-TWO", None),
        ];
        let text = json!({ "messages": messages }).to_string();
        let list = parse_messages(&text).unwrap();
        let b = Todo {
            id: "fr_b".into(),
            goal: "B".into(),
            open: ("msg_3".into(), "t2".into()),
            close: ("msg_5".into(), "t3".into()),
            closed_at: 0,
        };
        let open_a = [("msg_1".to_string(), "t1".to_string())];
        let outputs = |closed: &[Todo]| {
            let mut folding = fold(&list, &[], false);
            folding.mask_left_items(&open_a, closed);
            let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
            outputs_of(out["messages"].as_array().unwrap())
        };
        // B finished after A began: A's output before B began is masked; B's own outputs are
        // B's fold's, and what A made after stays.
        assert_eq!(
            outputs(std::slice::from_ref(&b)),
            ["[]", &masked("a1@1", 5), "[]", "B-ONE", "[]", "A-TWO"]
        );
        // Nothing finished after A began: nothing is masked.
        assert_eq!(outputs(&[]), ["[]", "A-ONE", "[]", "B-ONE", "[]", "A-TWO"]);
    }

    #[test]
    fn the_valve_masks_no_output_opencode_pruned_and_keeps_its_masks_after_a_prune() {
        let messages = eight_calls_past_the_trigger();
        // OpenCode sends a pruned output as a line of its own: masking it takes nothing off.
        let mut pruned = messages.clone();
        pruned[0]["parts"][0]["state"]["time"] = json!({"compacted": 99});
        let (opened, out) = run(&pruned, 10_000, &[]);
        assert_eq!(opened.unwrap().masked, ["c1@1", "c2@1", "c3@1", "c4@1"]);
        assert_eq!(out[0], pruned[0]);
        // An output masked before OpenCode pruned it stays masked: the request reads the same.
        let masks = ["c0@1".to_string()];
        let (_, whole) = run(&messages, 1_000_000, &masks);
        let (_, after) = run(&pruned, 1_000_000, &masks);
        assert_eq!(outputs_of(&after)[0], masked("c0@1", 4_000));
        assert_eq!(after[0]["parts"][0]["state"]["time"], json!({}));
        assert_eq!(outputs_of(&after), outputs_of(&whole));
    }

    #[test]
    fn the_last_three_calls_stay_whole_even_over_the_limit() {
        let messages: Vec<Value> = (0..3)
            .map(|i| {
                bash(
                    &format!("msg_{i}"),
                    &format!("c{i}"),
                    &"x".repeat(40_000),
                    Some(50_000),
                )
            })
            .collect();
        let (opened, out) = run(&messages, 10_000, &[]);
        assert_eq!(opened.unwrap().masked, Vec::<String>::new());
        assert_eq!(out, messages);
    }
}

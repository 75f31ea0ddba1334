//! The fold of closed turn frames (`frame.auto = turns`) in an agent's message list (OpenCode's,
//! pi's): a turn's span, from the person's message that opened it up to the next person's message
//! (or the first message written after the turn closed), keeps every message's text, word for
//! word. Its completed tool calls go, each with its output, but the first: that one stays, its
//! input emptied, and its output becomes the span's entry, which names the frame whose log keeps
//! them and how to recall them (`Folding::fold_span`). Every call left keeps its output, so calls
//! and results stay paired, which the strict stand-ins require (autoframes.md §1.4 and §2).
//!
//! A span is found by the id of its person's message (OpenCode); one whose message is gone
//! (compacted, or taken by another plugin) is left as it is. pi's messages have no ids: there
//! the span is the messages written between the turn's open and its close. Messages an explicit
//! frame's fold dropped stay dropped, and `flame_*` calls (fold entries among them) always stay.
//! What a fold put in a request it puts there again after OpenCode prunes old outputs
//! ([`fold_part_output`]), so a folded span reads the same in every request.
//!
//! A closed todo frame (`frame.auto = todos`, OpenCode) folds the same way, over the calls made
//! between the `todowrite` call that set its item in progress and the one that ended it: the
//! calls of a message made before the opening call, or after the closing one, are another item's.
//! Todo spans fold before turns, so an output of both names the item's smaller log. An item whose
//! opening call is gone is left as it is; one closed by its turn's end (no closing call) folds
//! with the turn.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Call, DROPPED, Folding, Shape, View};
use crate::compact::inject::Edit;
use crate::conversation::{completed_tool_state, set_tool_output};

/// The text oh-my-opencode ends its own prompts with (its 4.19.4 `dist/index.js`): a prompt of a
/// plugin, not a person's (autoframes.md §1.3).
const OMO_MARKER: &str = "<!-- OMO_INTERNAL_INITIATOR -->";

/// Whether a user message's text is another plugin's prompt rather than a person's.
pub fn is_plugin_prompt(text: &str) -> bool {
    text.contains(OMO_MARKER)
}

/// How a placeholder begins: an output that already begins so is not folded twice.
pub(crate) const PLACEHOLDER_START: &str = "[ctx folded this output";

/// A closed turn frame of the session, as the fold needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub id: String,
    /// The id of the person's message that opened it; none where the agent's messages have no
    /// ids (pi), and the turn begins with the first message written from `opened_at` on.
    pub start: Option<String>,
    /// When it opened (epoch ms).
    pub opened_at: i64,
    /// When it closed (epoch ms): a message written later is not the turn's.
    pub closed_at: i64,
}

/// A closed todo frame of the session, as the fold needs it: the calls that opened and closed it
/// (message id, call id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Todo {
    pub id: String,
    /// The item's text (the frame's goal), which its entry names: the calls that set it in
    /// progress and ended it go with its fold.
    pub goal: String,
    pub open: (String, String),
    pub close: (String, String),
    /// When it closed (epoch ms).
    pub closed_at: i64,
}

/// What stands for the output of a `todowrite` call: the output is the list the call was given,
/// and the last call's input holds the whole list. The same words whether the call is the last
/// (its input is whole) or a later one superseded it (its input then keeps the items it changed),
/// so the text is sent unchanged from its first request on.
pub fn repeated_list(chars: usize) -> String {
    format!("{PLACEHOLDER_START} ({chars} characters): it repeated the list this call wrote]")
}

/// The items of a `todowrite` input list that differ from the list before it (`previous`): new
/// ones, and those whose fields changed. `None` when the list dropped an item, which a list of
/// changes cannot say: the input then stays whole.
fn changed_items(list: &[Value], previous: &[Value]) -> Option<Vec<Value>> {
    let content = |item: &Value| {
        item.get("content")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let dropped = previous
        .iter()
        .filter_map(content)
        .any(|c| !list.iter().any(|item| content(item).as_deref() == Some(&c)));
    if dropped {
        return None;
    }
    Some(
        list.iter()
            .filter(|item| !previous.contains(item))
            .cloned()
            .collect(),
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

/// What stands for the `calls` tool calls of closed auto-frame `id`'s span, `chars` characters of
/// output in all, in the output of the first: frame `id`'s log keeps them all. A todo item's
/// entry names the item (`item`, its text, cut to [`ITEM_COLUMNS`]), as the calls that set it in
/// progress and ended it go with the fold.
pub fn entry(id: &str, item: Option<&str>, calls: usize, chars: usize) -> String {
    let named = item.map_or(String::new(), |text| {
        let cut = crate::text::fit_width(text, ITEM_COLUMNS, "…");
        format!(", item {}", serde_json::Value::String(cut))
    });
    if calls == 1 {
        return format!(
            "{PLACEHOLDER_START} ({chars} characters) into the log of frame {id}{named}: \
             flame_recall with id {id} gives it back]"
        );
    }
    format!(
        "{PLACEHOLDER_START} and the {} other tool calls after it ({chars} characters of output) \
         into the log of frame {id}{named}: flame_recall with id {id} gives them back]",
        calls - 1
    )
}

/// How much of an item's text its entry names, in display columns.
pub const ITEM_COLUMNS: usize = 100;

/// The text of `call`'s output in `message` (its output's message), as it will be sent, or as
/// stored where the agent sends it cleared (OpenCode's pruning); none when the call has no output
/// a fold may take (it did not complete).
fn output_text(shape: &dyn Shape, message: &mut Value, call: &Call) -> Option<String> {
    let seen = std::cell::RefCell::new(None);
    shape.fold_output(message, call, &|text| {
        *seen.borrow_mut() = Some(text.to_string());
        None
    });
    seen.into_inner()
}

/// The frame whose log a placeholder or entry sends the model to; none for any other output
/// (a mask of the pressure valve's names a call, not a frame).
fn named_frame(output: &str) -> Option<&str> {
    let rest = output.strip_prefix(PLACEHOLDER_START)?;
    let (_, after) = rest.split_once(" into the log of frame ")?;
    after.split([':', ',']).next().filter(|id| !id.is_empty())
}

/// Whether a fold of a closed span may take `call` (with its output): a completed call that is
/// not ctx's own (`flame_*` outputs, fold entries and recalls among them, always stay).
fn foldable(call: &Call) -> bool {
    call.completed && !call.tool.starts_with("flame_")
}

/// The text of an output already folded is left as it is: not folded twice.
pub fn is_placeholder(output: &str) -> bool {
    output.starts_with(PLACEHOLDER_START)
}

/// The messages of `turn`'s span, by index: from its person's message (else its first message
/// written in it) up to (not including) the next person's message or the first message written
/// after it closed.
fn span(views: &[View], ids: &[&str], turn: &Turn) -> Option<std::ops::Range<usize>> {
    let start = match &turn.start {
        Some(message) => ids.iter().position(|id| id == message)?,
        None => {
            let first = views
                .iter()
                .position(|v| v.created.is_some_and(|t| t >= turn.opened_at))?;
            // Nothing written while it ran: the first message after it is another turn's.
            views[first].created.filter(|&t| t <= turn.closed_at)?;
            first
        }
    };
    let end = (start + 1..views.len())
        .find(|&i| views[i].person || views[i].created.is_some_and(|t| t > turn.closed_at))
        .unwrap_or(views.len());
    Some(start..end)
}

/// Replaces the output of the tool part at `index` of OpenCode's `message` by what `fold` makes
/// of it, when the call completed; false when nothing changed.
///
/// An output OpenCode pruned (`time.compacted`, opencode.md §6.2) is still stored whole, and
/// OpenCode sends it as `[Old tool result content cleared]` whatever it holds. A fold reads the
/// stored output and takes the mark off where it puts its own text, so that what ctx sent
/// before a prune it sends after it: the request reads the same, and a prompt cache keeps it.
pub(super) fn fold_part_output(
    message: &mut Value,
    index: usize,
    fold: &dyn Fn(&str) -> Option<String>,
) -> bool {
    let Some(state) = completed_tool_state(message, index) else {
        return false;
    };
    let Some(folded) = state.get("output").and_then(Value::as_str).and_then(fold) else {
        return false;
    };
    set_tool_output(state, folded);
    // The tool's metadata repeats parts of the output (bash's preview); it is not the model's,
    // and goes with the output.
    if state.contains_key("metadata") {
        state.insert("metadata".into(), Value::Object(serde_json::Map::new()));
    }
    true
}

/// Where a call is: its message's index and its part's.
pub(super) fn find_call(
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
    /// How many messages a person wrote after `time` (epoch ms): the turns begun since.
    pub fn persons_after(&self, time: i64) -> usize {
        self.views
            .iter()
            .filter(|v| v.person && v.created.is_some_and(|t| t > time))
            .count()
    }

    /// Folds the spans of `turns`, closed turn frames of the session, into what is sent.
    pub fn fold_turns(&mut self, turns: &[Turn]) {
        let ids: Vec<&str> = self.list.messages().iter().map(|m| m.id()).collect();
        let list = self.last_todo_list();
        for turn in turns {
            let Some(range) = span(&self.views, &ids, turn) else {
                continue;
            };
            let calls: Vec<(usize, Call)> = range
                .flat_map(|i| {
                    self.views[i]
                        .calls
                        .iter()
                        .filter(move |c| foldable(c) && list != Some((i, c.index)))
                        .map(move |c| (i, c.clone()))
                })
                .collect();
            self.fold_span(&turn.id, None, &calls);
        }
    }

    /// Where the last completed `todowrite` call still sent is (message, part): it holds the
    /// whole todo list as it stands, which no fold takes from the model. (A later one may have
    /// gone with a popped frame's span, which its log keeps.)
    fn last_todo_list(&self) -> Option<(usize, usize)> {
        self.views.iter().enumerate().rev().find_map(|(i, v)| {
            v.calls
                .iter()
                .rev()
                .find(|c| c.completed && self.is_todo_list(c) && self.is_sent(i, c))
                .map(|c| (i, c.index))
        })
    }

    /// Whether `call` of message `i` is still sent: no fold dropped it, nor its message.
    fn is_sent(&self, i: usize, call: &Call) -> bool {
        match &self.edits.messages[i] {
            Edit::Drop => false,
            Edit::Keep => true,
            // Most edited messages dropped nothing: only those that did are read.
            Edit::Replace(text) if !text.contains(DROPPED) => true,
            Edit::Replace(text) => serde_json::from_str::<Value>(text).is_ok_and(|mut m| {
                self.shape
                    .call_block(&mut m, call)
                    .is_some_and(|b| b.get(DROPPED).is_none())
            }),
        }
    }

    /// Folds the spans of `todos`, closed todo frames of the session (OpenCode's), into what is
    /// sent. `stay` are todo calls (message, call) of items that are not folded yet: the call
    /// that opened a running item, and the two of an item that waits (`frame.fold_after`). Such
    /// a call that also ended a folded item stays, as the unfolded item's outputs follow it and
    /// dropping it would send them again past every prompt cache; it goes with that item's own
    /// fold.
    pub fn fold_todos(&mut self, todos: &[Todo], stay: &[(String, String)]) {
        let ids: Vec<&str> = self.list.messages().iter().map(|m| m.id()).collect();
        let staying: Vec<(usize, usize)> = stay
            .iter()
            .filter_map(|start| find_call(&self.views, &ids, start))
            .collect();
        let list = self.last_todo_list();
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
            let mut calls = Vec::new();
            for i in open.0..=close.0 {
                let within = |part: usize| {
                    (i != open.0 || part > open.1) && (i != close.0 || part < close.1)
                };
                calls.extend(
                    self.views[i]
                        .calls
                        .iter()
                        .filter(|c| foldable(c) && within(c.index) && list != Some((i, c.index)))
                        .map(|c| (i, c.clone())),
                );
            }
            if self.fold_span(&todo.id, Some(&todo.goal), &calls) {
                // The calls that set the item in progress and ended it go too: its entry names
                // it, and the last list, which stays, says where every item stands.
                for (i, part) in [open, close] {
                    if list != Some((i, part)) && !staying.contains(&(i, part)) {
                        self.drop_call(i, part);
                    }
                }
            }
        }
    }

    /// Drops the call at part `part` of message `i` from what is sent, as a span's fold drops
    /// its calls (a todo call's output is part of its call: OpenCode's shape).
    fn drop_call(&mut self, i: usize, part: usize) {
        let Some(call) = self.views[i]
            .calls
            .iter()
            .find(|c| c.index == part)
            .cloned()
        else {
            return;
        };
        let Some(mut message) = self.edited(i) else {
            return;
        };
        let Some(block) = self.shape.call_block(&mut message, &call) else {
            return;
        };
        if block.get(DROPPED).is_none() {
            *block = serde_json::json!({ DROPPED: true });
            self.edits.messages[i] = Edit::Replace(message.to_string());
        }
    }

    /// Folds `calls` (each with the index of its message), the completed calls of closed
    /// auto-frame `id`'s span: the first one's output becomes the span's entry, which names the
    /// frame and how to recall it, and its input is emptied; every other one goes, its output
    /// with it (a call and its output are one part in OpenCode; pi's output message goes whole).
    /// So the span sends its person's and model's texts and one entry, and every call left has
    /// its output. A call an earlier fold dropped is not counted; a span whose outputs are no
    /// longer than its entry would be is left as it is.
    ///
    /// The entry is sent unchanged from its first request on, so that what a prompt cache holds
    /// of the request after it stays: it counts the outputs as the agent stored them (what a
    /// recall gives back), not as another fold or mask left them, and leaves todo list calls out
    /// (one is kept while it holds the latest list, and goes once a later call holds one; their
    /// outputs were folded at once). A todo list call never holds the entry: a span of nothing
    /// else is left as it is. True when the span is folded.
    fn fold_span(&mut self, id: &str, item: Option<&str>, calls: &[(usize, Call)]) -> bool {
        let (shape, list) = (self.shape, self.list);
        let mut read: BTreeMap<usize, Value> = BTreeMap::new();
        // The calls still sent: (its message, the call, its output's message, the output's size
        // as stored, whether it is a todo list's).
        let mut live: Vec<(usize, &Call, usize, usize, bool)> = Vec::new();
        for (i, call) in calls {
            let Some(at) = shape.output_message(list, &self.views, *i, call) else {
                continue;
            };
            let Some(message) = self.read_into(&mut read, *i) else {
                continue;
            };
            if shape
                .call_block(message, call)
                .is_none_or(|b| b.get(DROPPED).is_some())
            {
                continue;
            }
            let Some(output) = self.read_into(&mut read, at) else {
                continue;
            };
            let Some(text) = output_text(shape, output, call) else {
                continue;
            };
            match named_frame(&text) {
                // Folded before: the span is as its fold left it.
                Some(named) if named == id => return true,
                // An item's entry inside a turn: it stays, naming the item's own log.
                Some(_) => continue,
                None => {
                    let todo = self.is_todo_list(call);
                    // An output a mask or list fold replaced is counted as stored (a todo
                    // list's is not counted at all); any other is the stored one.
                    let stored = if !todo && is_placeholder(&text) {
                        serde_json::from_str(list.messages()[at].raw())
                            .ok()
                            .and_then(|mut m| output_text(shape, &mut m, call))
                            .unwrap_or(text)
                    } else {
                        text
                    };
                    live.push((*i, call, at, stored.chars().count(), todo));
                }
            }
        }
        let counted: Vec<_> = live.iter().filter(|l| !l.4).collect();
        let total: usize = counted.iter().map(|l| l.3).sum();
        let Some(&&(first, first_call, first_out, _, _)) = counted.first() else {
            return false;
        };
        let entry = entry(id, item, counted.len(), total);
        if total <= entry.chars().count() {
            return false;
        }
        let mut changed: BTreeSet<usize> = BTreeSet::new();
        let output = read.get_mut(&first_out).expect("read above");
        shape.fold_output(output, first_call, &|_| Some(entry.clone()));
        changed.insert(first_out);
        let message = read.get_mut(&first).expect("read above");
        if let Some(block) = shape.call_block(message, first_call) {
            shape.empty_input(block);
        }
        changed.insert(first);
        for &(i, call, at, _, _) in live.iter().filter(|l| !std::ptr::eq(l.1, first_call)) {
            let message = read.get_mut(&i).expect("read above");
            if let Some(block) = shape.call_block(message, call) {
                *block = serde_json::json!({ DROPPED: true });
            }
            changed.insert(i);
            if at != i {
                self.edits.messages[at] = Edit::Drop;
                changed.remove(&at);
                read.remove(&at);
            }
        }
        for at in changed {
            if let Some(value) = read.get(&at) {
                self.edits.messages[at] = Edit::Replace(value.to_string());
            }
        }
        true
    }

    /// Message `i` as it will be sent, read once into `read`; none when it is dropped or not JSON.
    fn read_into<'r>(
        &self,
        read: &'r mut BTreeMap<usize, Value>,
        i: usize,
    ) -> Option<&'r mut Value> {
        match read.entry(i) {
            Entry::Occupied(held) => Some(held.into_mut()),
            Entry::Vacant(slot) => Some(slot.insert(self.edited(i)?)),
        }
    }

    /// Folds the outputs and inputs of the completed `todowrite` calls (todo frames on):
    ///
    /// - every call whose output is its input's list again (OpenCode's output is the list it
    ///   was given, pretty-printed) has that output folded at once, from the first request that
    ///   holds it: the input says the same;
    /// - every call but the last, up to the call that opened the last closed item of `todos`,
    ///   has its output folded whatever it holds, and its input cut to the items it changed. The
    ///   folds stop there because that item's own fold changes the request from that call on:
    ///   what lies before it is left as the prompt cache holds it.
    ///
    /// The last call's input is never cut: it holds the whole list, which no fold takes from
    /// the model.
    pub fn fold_lists(&mut self, todos: &[Todo]) {
        let ids: Vec<&str> = self.list.messages().iter().map(|m| m.id()).collect();
        let until = todos
            .iter()
            .filter(|t| find_call(&self.views, &ids, &t.close).is_some())
            .filter_map(|t| find_call(&self.views, &ids, &t.open))
            .max();
        let calls: Vec<(usize, usize)> = self
            .views
            .iter()
            .enumerate()
            .flat_map(|(i, v)| {
                v.calls
                    .iter()
                    .filter(|c| c.completed && self.is_todo_list(c))
                    .map(move |c| (i, c.index))
            })
            .collect();
        let last = self.last_todo_list();
        // Each list as the model wrote it, to tell what a call changed.
        let lists: Vec<Vec<Value>> = calls
            .iter()
            .map(|&(i, part)| {
                let value: Value =
                    serde_json::from_str(self.list.messages()[i].raw()).unwrap_or_default();
                value
                    .pointer(&format!("/parts/{part}/state/input/todos"))
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        for (n, &(i, part)) in calls.iter().enumerate() {
            let superseded = Some((i, part)) != last && until.is_some_and(|u| (i, part) <= u);
            let Some(mut value) = self.edited(i) else {
                continue;
            };
            // The output may be folded already (inside an item's or a turn's span); a superseded
            // call's input is cut all the same.
            let fold = |output: &str| {
                let text = repeated_list(output.chars().count());
                let repeats = || {
                    text.len() < output.len()
                        && serde_json::from_str::<Value>(output)
                            .is_ok_and(|r| r.as_array() == Some(&lists[n]))
                };
                (!is_placeholder(output) && (superseded || repeats())).then_some(text)
            };
            let mut changed = fold_part_output(&mut value, part, &fold);
            if superseded {
                let previous = n.checked_sub(1).map_or(&[][..], |p| &lists[p][..]);
                let input = value.pointer_mut(&format!("/parts/{part}/state/input/todos"));
                if let (Some(input), Some(items)) = (input, changed_items(&lists[n], previous)) {
                    let items = Value::Array(items);
                    if *input != items {
                        *input = items;
                        changed = true;
                    }
                }
            }
            if changed {
                self.edits.messages[i] = Edit::Replace(value.to_string());
            }
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

    /// Closed item "The item" (frame `fr_item`), opened and closed by the calls (message, call).
    fn item_todo(open: (&str, &str), close: (&str, &str)) -> Todo {
        Todo {
            id: "fr_item".into(),
            goal: "The item".into(),
            open: (open.0.into(), open.1.into()),
            close: (close.0.into(), close.1.into()),
            closed_at: 0,
        }
    }

    /// A person's message, then two calls of 2 000 and 3 000 characters of output.
    fn two_calls() -> Vec<Value> {
        vec![
            user("msg_1", 10, "PERSON0"),
            answer("msg_2", 11, "c1", &"A".repeat(2_000), "a"),
            answer("msg_3", 12, "c2", &"B".repeat(3_000), "b"),
        ]
    }

    fn turn(start: &str, closed_at: i64) -> Turn {
        Turn {
            id: "fr_turn1".into(),
            start: Some(start.into()),
            opened_at: 0,
            closed_at,
        }
    }

    #[test]
    fn a_closed_turn_keeps_its_texts_and_one_call_whose_output_is_its_entry() {
        let big = "x".repeat(20_000);
        let dcp = json!({"info": {"id": "msg_dcp", "role": "user", "sessionID": "ses_a",
                                  "time": {"created": 25}},
                         "parts": [{"type": "text", "synthetic": true, "text": "DCP summary"}]});
        let mut second = answer("msg_2b", 12, "call_2", &big, "ASSIST0b: tested");
        second["parts"][0]["state"]["input"] = json!({"command": "make test"});
        let only_call = json!({"info": {"id": "msg_2c", "role": "assistant", "sessionID": "ses_a",
                                        "time": {"created": 13}},
                               "parts": [{"type": "step-start"},
                                         answer("x", 0, "call_3", &big, "")["parts"][0].clone(),
                                         {"type": "step-finish"}]});
        let messages = vec![
            user("msg_1", 10, "PERSON0: build it"),
            answer("msg_2", 11, "call_1", &big, "ASSIST0: built"),
            second.clone(),
            only_call,
            dcp.clone(),
            user("msg_3", 30, "PERSON1: again"),
            answer("msg_4", 31, "call_1", &big, "ASSIST1: built again"),
        ];
        let out = folded(&messages, &[turn("msg_1", 20)]);
        // The message that held only a call (and step marks) goes; every other stays.
        assert_eq!(out.len(), messages.len() - 1);
        // The texts, the other plugin's message after the turn, the next turn: byte for byte.
        for (o, i) in [(0, 0), (3, 4), (4, 5), (5, 6)] {
            assert_eq!(out[o], messages[i]);
        }
        // The first call stays, its input emptied, its output the turn's entry.
        let part = &out[1]["parts"][0];
        assert_eq!(part["callID"], "call_1");
        assert_eq!(part["state"]["input"], json!({}));
        assert_eq!(part["state"]["status"], "completed");
        assert_eq!(
            part["state"]["output"],
            entry("fr_turn1", None, 3, 60_000).as_str()
        );
        assert_eq!(part["state"]["metadata"], json!({}));
        assert_eq!(out[1]["parts"][1], messages[1]["parts"][1]);
        // The others go with their outputs; the model's text stays.
        assert_eq!(out[2]["parts"], json!([second["parts"][1]]));
    }

    #[test]
    fn a_turn_ends_at_the_next_persons_message_and_not_at_ctxs_or_a_plugins() {
        let notice = json!({"info": {"id": "msg_n", "role": "user", "sessionID": "ses_a",
                                     "time": {"created": 12}},
                            "parts": [{"type": "text", "text": "Frame ses_b completed: ok"},
                                      {"type": "text", "synthetic": true,
                                       "text": "Frame ses_b finished with status completed. …"}]});
        let big = |tag: &str| format!("{tag} {}", ".".repeat(300));
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            answer("msg_2", 11, "call_1", &big("OUT-A"), "a"),
            notice,
            user("msg_o", 13, "go on <!-- OMO_INTERNAL_INITIATOR -->"),
            answer("msg_3", 14, "call_2", &big("OUT-B"), "b"),
            user("msg_4", 15, "PERSON1"),
            answer("msg_5", 16, "call_3", &big("OUT-C"), "c"),
        ];
        let output = |out: &[Value], i: usize| out[i]["parts"][0]["state"]["output"].clone();
        // Closed long after: the span ends at the next person's message, and holds both calls.
        let out = folded(&messages, &[turn("msg_1", 1_000)]);
        assert_eq!(output(&out, 1), json!(entry("fr_turn1", None, 2, 2 * 306)));
        assert_eq!(out[4]["parts"], json!([{"type": "text", "text": "b"}]));
        assert_eq!(output(&out, 6), json!(big("OUT-C")));
        // Closed at 12: what was written after its close is not the turn's.
        let out = folded(&messages, &[turn("msg_1", 12)]);
        assert_eq!(output(&out, 1), json!(entry("fr_turn1", None, 1, 306)));
        assert_eq!(output(&out, 4), json!(big("OUT-B")));
    }

    #[test]
    fn a_turn_whose_message_is_gone_or_folded_twice_is_left_as_it_is() {
        let big = "OUT-A ".repeat(100);
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            answer("msg_2", 11, "call_1", &big, "a"),
            answer("msg_3", 12, "call_2", &big, "b"),
        ];
        assert_eq!(folded(&messages, &[turn("msg_gone", 1_000)]), messages);
        let once = folded(&messages, &[turn("msg_1", 1_000)]);
        assert_ne!(once, messages);
        assert_eq!(folded(&once, &[turn("msg_1", 1_000)]), once);
        // Outputs no longer than the entry would be are left as they are.
        let small = vec![
            messages[0].clone(),
            answer("msg_2", 11, "call_1", "OUT-A", "a"),
        ];
        assert_eq!(folded(&small, &[turn("msg_1", 1_000)]), small);
    }

    #[test]
    fn a_todo_span_folds_the_calls_between_its_two_todo_calls_and_no_other_and_they_go_too() {
        let part = |call: &str, tool: &str, output: &str| {
            json!({"type": "tool", "tool": tool, "callID": call,
                   "state": {"status": "completed", "input": {"command": "x"}, "output": output}})
        };
        let message = |id: &str, parts: Vec<Value>| {
            json!({"info": {"id": id, "role": "assistant", "sessionID": "ses_a",
                            "time": {"created": 11}}, "parts": parts})
        };
        let inside = |tag: &str| format!("{tag} {}", ".".repeat(200));
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            message(
                "msg_2",
                vec![
                    part("c1", "bash", "BEFORE"),
                    part("c2", "todowrite", "LIST1"),
                    part("c3", "bash", &inside("IN1")),
                ],
            ),
            message("msg_3", vec![part("c4", "bash", &inside("IN2"))]),
            message(
                "msg_4",
                vec![
                    part("c5", "bash", &inside("IN3")),
                    part("c6", "todowrite", "LIST2"),
                    part("c7", "bash", "AFTER"),
                ],
            ),
        ];
        let todo = item_todo(("msg_2", "c2"), ("msg_4", "c6"));
        let sent_with = |messages: &[Value], opened: &[(String, String)]| {
            let text = json!({ "messages": messages }).to_string();
            let list = parse_messages(&text).unwrap();
            let mut folding = fold(&list, &[], false);
            folding.fold_todos(std::slice::from_ref(&todo), opened);
            let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
            let calls: Vec<(String, String)> = out["messages"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|m| m["parts"].as_array().unwrap())
                .filter_map(|p| {
                    Some((
                        p["callID"].as_str()?.to_string(),
                        p["state"]["output"].as_str()?.to_string(),
                    ))
                })
                .collect();
            (calls, out["messages"].as_array().unwrap().len())
        };
        let sent = |messages: &[Value]| sent_with(messages, &[]);
        let entry = entry("fr_item", Some("The item"), 3, 3 * 204);
        let pairs = |expected: &[(&str, &str)]| -> Vec<(String, String)> {
            expected
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        // The call that set the item in progress goes with the fold, which names the item; the
        // one that ended it holds the last list, which stays. msg_3 held only c4: it goes.
        assert_eq!(
            sent(&messages),
            (
                pairs(&[
                    ("c1", "BEFORE"),
                    ("c3", entry.as_str()),
                    ("c6", "LIST2"),
                    ("c7", "AFTER")
                ]),
                3
            )
        );
        // Once a later call holds the list, the one that ended the item goes too.
        let mut later = messages.clone();
        later.push(message("msg_5", vec![part("c8", "todowrite", "LIST3")]));
        assert_eq!(
            sent(&later).0,
            pairs(&[
                ("c1", "BEFORE"),
                ("c3", entry.as_str()),
                ("c7", "AFTER"),
                ("c8", "LIST3")
            ])
        );
        // Unless that call set an item in progress that still runs: what it does follows.
        let running = [("msg_4".to_string(), "c6".to_string())];
        assert!(
            sent_with(&later, &running)
                .0
                .contains(&("c6".to_string(), "LIST2".to_string()))
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
            folding.fold_lists(todos);
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
        let item = item_todo(("msg_4", "c3"), ("msg_5", "c4"));
        assert_eq!(
            outputs(&[item]),
            [
                repeated_list(8),
                "BASH".into(),
                repeated_list(8),
                "LIST-THREE".into(),
                "LIST-FOUR".into()
            ]
        );
    }

    #[test]
    fn a_todo_lists_output_that_repeats_its_input_folds_from_its_first_request_on() {
        let item = |content: &str, status: &str| json!({"content": content, "status": status, "priority": "high"});
        let list = |id: &str, call: &str, todos: Value, output: String| {
            json!({"info": {"id": id, "role": "assistant", "sessionID": "ses_a",
                            "time": {"created": 11}},
                   "parts": [{"type": "tool", "tool": "todowrite", "callID": call,
                              "state": {"status": "completed", "input": {"todos": todos},
                                        "output": output, "metadata": {"todos": todos}}}]})
        };
        let many: Vec<Value> = (0..12)
            .map(|n| item(&format!("Item {n}"), "pending"))
            .collect();
        let pretty = |todos: &Value| serde_json::to_string_pretty(todos).unwrap();
        let first = json!(many);
        let mut second = many.clone();
        second[0] = item("Item 0", "in_progress");
        let second = json!(second);
        // An output that adds what the input does not hold (an id) says more: it stays.
        let mut with_ids = second.clone();
        with_ids[0]["id"] = json!("1");
        let tiny = json!([item("A", "pending")]);
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            list("msg_2", "c1", first.clone(), pretty(&first)),
            list("msg_3", "c2", second.clone(), pretty(&with_ids)),
            list("msg_4", "c3", tiny.clone(), tiny.to_string()),
            list("msg_5", "c4", second.clone(), pretty(&second)),
        ];
        let text = json!({ "messages": messages }).to_string();
        let parsed = parse_messages(&text).unwrap();
        let mut folding = fold(&parsed, &[], false);
        folding.fold_lists(&[]);
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        let state = |i: usize| out["messages"][i]["parts"][0]["state"].clone();
        // No item closed, and the last list too: the outputs that repeat their inputs fold, the
        // inputs stay whole.
        assert_eq!(
            state(1)["output"],
            json!(repeated_list(pretty(&first).chars().count()))
        );
        assert_eq!(state(2)["output"], json!(pretty(&with_ids)));
        // A list shorter than what would stand for it stays.
        assert_eq!(state(3)["output"], json!(tiny.to_string()));
        assert_eq!(
            state(4)["output"],
            json!(repeated_list(pretty(&second).chars().count()))
        );
        for (i, message) in messages.iter().enumerate().skip(1) {
            assert_eq!(state(i)["input"], message["parts"][0]["state"]["input"]);
        }
        // Superseded later, the first list's output reads the same: the cache keeps it.
        let item_closed = item_todo(("msg_3", "c2"), ("msg_5", "c4"));
        let mut folding = fold(&parsed, &[], false);
        folding.fold_lists(&[item_closed]);
        let later: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        assert_eq!(
            later["messages"][1]["parts"][0]["state"]["output"],
            state(1)["output"]
        );
        // So does it after OpenCode pruned it.
        let mut pruned = messages.clone();
        pruned[1]["parts"][0]["state"]["time"] = json!({"compacted": 99});
        let text = json!({ "messages": pruned }).to_string();
        let parsed = parse_messages(&text).unwrap();
        let mut folding = fold(&parsed, &[], false);
        folding.fold_lists(&[]);
        let after: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        assert_eq!(
            after["messages"][1]["parts"][0]["state"]["output"],
            state(1)["output"]
        );
        assert_eq!(after["messages"][1]["parts"][0]["state"]["time"], json!({}));
    }

    #[test]
    fn a_folded_lists_input_keeps_the_items_its_call_changed() {
        let item = |content: &str, status: &str| json!({"content": content, "status": status, "priority": "high"});
        let list = |id: &str, call: &str, todos: Value| {
            json!({"info": {"id": id, "role": "assistant", "sessionID": "ses_a",
                            "time": {"created": 11}},
                   "parts": [{"type": "tool", "tool": "todowrite", "callID": call,
                              "state": {"status": "completed", "input": {"todos": todos},
                                        "output": todos.to_string()}}]})
        };
        let z = item("Z", "pending");
        let messages = vec![
            user("msg_1", 10, "PERSON0"),
            list(
                "msg_2",
                "c1",
                json!([item("A", "in_progress"), item("B", "pending"), z]),
            ),
            list(
                "msg_3",
                "c2",
                json!([item("A", "completed"), item("B", "in_progress"), z]),
            ),
            // B dropped: a list of changes cannot say so.
            list(
                "msg_4",
                "c3",
                json!([item("A", "completed"), item("C", "in_progress"), z]),
            ),
            list(
                "msg_5",
                "c4",
                json!([item("A", "completed"), item("C", "completed"), z]),
            ),
        ];
        // The second list's output was folded already, inside another span: its input is cut
        // all the same.
        let mut messages = messages;
        messages[2]["parts"][0]["state"]["output"] = json!(placeholder("fr_other", 10));
        let text = json!({ "messages": messages }).to_string();
        let parsed = parse_messages(&text).unwrap();
        let todo = item_todo;
        let inputs = |todos: &[Todo]| {
            let mut folding = fold(&parsed, &[], false);
            folding.fold_lists(todos);
            let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
            (1..5)
                .map(|i| out["messages"][i]["parts"][0]["state"]["input"]["todos"].clone())
                .collect::<Vec<_>>()
        };
        let whole = |i: usize| messages[i]["parts"][0]["state"]["input"]["todos"].clone();
        // C closed by the last call: every list before it folds. The first is all new; the
        // second keeps A and B, which it changed, not Z; the third dropped B and stays whole.
        assert_eq!(
            inputs(&[todo(("msg_4", "c3"), ("msg_5", "c4"))]),
            [
                whole(1),
                json!([item("A", "completed"), item("B", "in_progress")]),
                whole(3),
                whole(4)
            ]
        );
        // B closed by the third call: the lists after B's opening stay whole.
        let b = inputs(&[todo(("msg_3", "c2"), ("msg_4", "c3"))]);
        assert_eq!(
            b[1],
            json!([item("A", "completed"), item("B", "in_progress")])
        );
        assert_eq!(b[2..], [whole(3), whole(4)]);
    }

    #[test]
    fn the_last_todo_list_stays_whole_in_a_closed_turn_and_its_entry_reads_the_same_after() {
        let list = |id: &str, created: i64, call: &str, output: &str| {
            json!({"info": {"id": id, "role": "assistant", "sessionID": "ses_a",
                            "time": {"created": created}},
                   "parts": [{"type": "tool", "tool": "todowrite", "callID": call,
                              "state": {"status": "completed", "input": {"todos": [output]},
                                        "output": output}}]})
        };
        let big = "B".repeat(2_000);
        let mut messages = vec![
            user("msg_1", 10, "PERSON0"),
            list("msg_2", 11, "c1", &format!("FIRST {big}")),
            answer("msg_3", 12, "c2", &big, "a"),
            list("msg_4", 13, "c3", &format!("LAST {big}")),
        ];
        let out = folded(&messages, &[turn("msg_1", 1_000)]);
        // The bash call holds the entry, which counts it alone; the first list goes, and the
        // message that held only it; the last list is whole.
        assert_eq!(out.len(), 3);
        let entry = json!([
            {"type": "tool", "tool": "bash", "callID": "c2",
             "state": {"status": "completed", "input": {}, "output": entry("fr_turn1", None, 1, 2_000),
                       "metadata": {}, "time": {"start": 12, "end": 12}}},
            {"type": "text", "text": "a"}]);
        assert_eq!(out[1]["parts"], entry);
        assert_eq!(out[2], messages[3]);
        // A later list, in the next turn: the turn's last list goes now, and its entry is sent
        // as before, so a prompt cache keeps what follows it.
        messages.push(user("msg_5", 2_000, "PERSON1"));
        messages.push(list("msg_6", 2_001, "c4", "NEXT"));
        let out = folded(&messages, &[turn("msg_1", 1_000)]);
        assert_eq!(out[1]["parts"], entry);
        assert_eq!(out[2], messages[4]);
    }

    #[test]
    fn an_entry_counts_the_outputs_as_stored_whatever_masked_them() {
        let messages = two_calls();
        let text = json!({ "messages": messages }).to_string();
        let list = parse_messages(&text).unwrap();
        let entry = |mask: &[String]| {
            let mut folding = fold(&list, &[], false);
            folding.mask(mask);
            folding.fold_turns(&[turn("msg_1", 1_000)]);
            let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
            out["messages"][1]["parts"][0]["state"]["output"].clone()
        };
        assert_eq!(entry(&[]), json!(super::entry("fr_turn1", None, 2, 5_000)));
        assert_eq!(entry(&["c1@11".to_string()]), entry(&[]));
    }

    #[test]
    fn a_turn_opencode_pruned_after_its_fold_is_sent_as_before() {
        // OpenCode's pruning marks old outputs `time.compacted` (and sends each as a line of its
        // own) after a prompt loop: a span folded before must read the same after, its entry
        // where it was, its other calls still gone.
        let mut messages = two_calls();
        messages.push(user("msg_4", 20, "PERSON1"));
        let before = folded(&messages, &[turn("msg_1", 15)]);
        assert_eq!(
            before[1]["parts"][0]["state"]["output"],
            json!(entry("fr_turn1", None, 2, 5_000))
        );
        for pruned in [vec![1], vec![2], vec![1, 2]] {
            let mut after = messages.clone();
            for i in pruned {
                after[i]["parts"][0]["state"]["time"]["compacted"] = json!(99);
            }
            assert_eq!(folded(&after, &[turn("msg_1", 15)]), before);
        }
    }

    #[test]
    fn an_items_entry_names_it_cut_and_escaped_and_still_names_its_frame() {
        let long = format!("Fix \"the: ledger\", then {}", "x".repeat(200));
        let text = entry("fr_item", Some(&long), 2, 500);
        assert_eq!(named_frame(&text), Some("fr_item"));
        let (_, named) = text.split_once(", item ").unwrap();
        let (quoted, _) = named.split_once(": flame_recall").unwrap();
        let item: String = serde_json::from_str(quoted).unwrap();
        assert!(item.starts_with("Fix \"the: ledger\", then x") && item.ends_with('…'));
        assert_eq!(item.chars().count(), ITEM_COLUMNS);
        // A line break stays in the quotes, escaped: the entry is one line.
        let short = entry("fr_item", Some("Short\nlist"), 1, 5);
        assert!(short.contains(", item \"Short\\nlist\": ") && !short.contains('\n'));
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
}

//! What an OpenCode session sends to the model, with its popped frames folded (`ctx opencode
//! messages`): each popped frame's span (from the message that pushed it up to the one that
//! popped it) is left out, the pop's tool output becomes the frame's fold entry (goal, status,
//! summary, artifacts, decisions, log path), and the session's `<flame-context>` is put where it
//! never rewrites what was sent before.
//!
//! Prompt caches serve the longest unchanged prefix of a request, so the history must change only
//! where a frame is popped. Each context is anchored: it goes in a synthetic user message right
//! after a boundary (a person's message, a push, a pop) the first time that boundary is the latest
//! one, is recorded ([`Anchor`]), and is sent again, byte for byte, after that same message on
//! every later request (unless it folds with a span). Between two pushes or pops, each request's
//! messages are then a prefix of the next request's.
//!
//! Pure: the caller reads the state, the session's anchors and the message list, renders the
//! frame context when [`Folding::needs_context`] asks for it, and writes what changed.
//!
//! The span finding, anchoring and entry placing know no agent's message shape: a [`Shape`]
//! reads each message into a [`View`] and writes the few things that change (a pop's output, a
//! new synthetic message). OpenCode's shape ([`OpenCode`]) is here; pi's is in [`pi`].

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde::Deserialize;
use serde::de::DeserializeSeed;
use serde_json::Value;
use serde_json::value::RawValue;

use super::inject::{Edit, Edits, MessageList, Pick, Role, synthetic_message, write_edited};
use crate::conversation;
use crate::frame::span::{Mark, Span};
use crate::frame::state::{Frame, Status};
use crate::text::xml_escape;

#[cfg(test)]
mod beside;
pub mod pi;
pub mod turns;
pub mod valve;

/// An agent's message shape, as folding reads and writes it.
pub trait Shape {
    /// What folding needs of each message of `list`, in order.
    fn views(&self, list: &MessageList<'_>) -> Vec<View>;

    /// The agent's todo tool, whose calls each hold the whole list: its outputs are never masked,
    /// and its last call stays (the list as it stands). `None` where the agent has none.
    fn todo_tool(&self) -> Option<&'static str> {
        None
    }

    /// Makes `output.entry` the output of the tool call at `call` of message `at`, editing the
    /// messages it touches in `replaced` (each one's whole JSON value); false when that call has
    /// no output to stand in for (it did not complete), and the entry then goes in a new message.
    fn set_output(
        &self,
        list: &MessageList<'_>,
        views: &[View],
        at: usize,
        call: usize,
        output: Output<'_>,
        replaced: &mut HashMap<usize, Value>,
    ) -> bool;

    /// A new synthetic user message holding `text`, for insertion before index `at`, with ids
    /// `ids` (message, part) where the shape has ids, created at `created`.
    fn synthetic(
        &self,
        list: &MessageList<'_>,
        at: usize,
        text: &str,
        ids: [&str; 2],
        created: i64,
    ) -> Option<String>;

    /// Whether a person's message is a boundary a context is anchored after. A shape whose agent
    /// stores the context after each prompt itself (pi's `before_agent_start` message) says no.
    fn anchors_after_prompts(&self) -> bool {
        true
    }

    /// Whether a push or pop that no message holds (a slash command's) is placed by its time:
    /// a push before the first message written after it, a pop after the last one written
    /// before it. Where an agent stores a command's result as a message (OpenCode), that
    /// message is found instead, and this says no.
    fn marks_by_time(&self) -> bool {
        false
    }

    /// The text of a message's first text part, to move opencode-swarm's reminder; none where
    /// the shape carries no such reminder.
    fn first_text<'v>(&self, _message: &'v mut Value) -> Option<&'v mut Value> {
        None
    }

    /// The message holding the output of `call`, a call of message `at`: `at` itself where a
    /// call and its output are one part (OpenCode's), the output's own message where it is one
    /// (pi's `toolResult`); none when the call has no output among the messages.
    fn output_message(
        &self,
        _list: &MessageList<'_>,
        _views: &[View],
        at: usize,
        _call: &Call,
    ) -> Option<usize> {
        Some(at)
    }

    /// The count the agent compacts by that a finished model call reported, in `message` (an
    /// assistant message): OpenCode's `info.tokens`, pi's `usage`; none for another message, or
    /// one that reported none.
    fn reported_count(&self, message: &Value) -> Option<u64>;

    /// Replaces the output of `call` in `message` (the JSON of its [`Shape::output_message`]) by
    /// what `fold` makes of the output's text (none: it stays); false when nothing changed.
    fn fold_output(
        &self,
        message: &mut Value,
        call: &Call,
        fold: &dyn Fn(&str) -> Option<String>,
    ) -> bool;

    /// Whether the agent itself no longer sends `call`'s output in `message` (the JSON of its
    /// [`Shape::output_message`]): OpenCode's pruning, which [`Shape::fold_output`] undoes
    /// where it folds. The valve masks no such output, as that would take nothing off.
    fn pruned(&self, _message: &Value, _call: &Call) -> bool {
        false
    }

    /// The part or block of `call` in `message` (the JSON of the message that makes the call),
    /// to edit it or mark it dropped.
    fn call_block<'v>(&self, message: &'v mut Value, call: &Call) -> Option<&'v mut Value>;

    /// Empties the input of the call whose part or block is `block`.
    fn empty_input(&self, block: &mut Value);

    /// The list of parts or blocks of `message` that calls are among.
    fn blocks<'v>(&self, message: &'v mut Value) -> Option<&'v mut Vec<Value>>;

    /// Whether a message whose calls were all dropped still has something to send (a text);
    /// one without is dropped whole.
    fn keeps_something(&self, blocks: &[Value]) -> bool;
}

/// The mark a fold leaves on a call's part or block it drops while other passes still read the
/// message by its parts' places; [`Folding::write`] takes the marked parts out.
pub(crate) const DROPPED: &str = "ctxDropped";

/// What [`Shape::set_output`] puts in place of a pop's output.
#[derive(Debug, Clone, Copy)]
pub struct Output<'e> {
    pub entry: &'e str,
    /// Whether a `flame_` call keeps its input: it does when the entry leaves out the summary
    /// that input holds; otherwise the input is emptied, as the entry says all of it.
    pub keep_input: bool,
}

/// OpenCode's message shape: `{"info": {…}, "parts": […]}`, each tool call a part holding its
/// output.
pub struct OpenCode;

/// OpenCode's todo tool (autoframes.md §1.1).
pub const OPENCODE_TODO_TOOL: &str = "todowrite";

impl Shape for OpenCode {
    fn todo_tool(&self) -> Option<&'static str> {
        Some(OPENCODE_TODO_TOOL)
    }

    fn views(&self, list: &MessageList<'_>) -> Vec<View> {
        list.messages()
            .iter()
            .map(|m| view(m.raw(), m.role()))
            .collect()
    }

    fn set_output(
        &self,
        list: &MessageList<'_>,
        views: &[View],
        at: usize,
        call: usize,
        output: Output<'_>,
        replaced: &mut HashMap<usize, Value>,
    ) -> bool {
        set_part_output(list, &views[at], at, call, output, replaced)
    }

    fn synthetic(
        &self,
        list: &MessageList<'_>,
        at: usize,
        text: &str,
        ids: [&str; 2],
        created: i64,
    ) -> Option<String> {
        synthetic_message(list.messages(), at, text, Role::User, ids, created).ok()
    }

    fn first_text<'v>(&self, message: &'v mut Value) -> Option<&'v mut Value> {
        first_text(message)
    }

    fn fold_output(
        &self,
        message: &mut Value,
        call: &Call,
        fold: &dyn Fn(&str) -> Option<String>,
    ) -> bool {
        turns::fold_part_output(message, call.index, fold)
    }

    fn pruned(&self, message: &Value, call: &Call) -> bool {
        message
            .get("parts")
            .and_then(|p| p.get(call.index))
            .and_then(|p| p.get("state"))
            .is_some_and(conversation::is_pruned)
    }

    fn call_block<'v>(&self, message: &'v mut Value, call: &Call) -> Option<&'v mut Value> {
        message.get_mut("parts")?.get_mut(call.index)
    }

    fn empty_input(&self, part: &mut Value) {
        if let Some(state) = part.get_mut("state").and_then(Value::as_object_mut) {
            state.insert("input".into(), Value::Object(Default::default()));
        }
    }

    fn blocks<'v>(&self, message: &'v mut Value) -> Option<&'v mut Vec<Value>> {
        message.get_mut("parts")?.as_array_mut()
    }

    /// A text, a file or a call left: an assistant message of step marks (or reasoning) alone
    /// says nothing the model would be sent.
    fn keeps_something(&self, parts: &[Value]) -> bool {
        parts.iter().any(|p| {
            matches!(
                p.get("type").and_then(Value::as_str),
                Some("text" | "tool" | "file")
            )
        })
    }

    /// opencode.md §3.6: the last finished, non-summary assistant message's `tokens.total`, else
    /// input + output + cache reads and writes.
    fn reported_count(&self, message: &Value) -> Option<u64> {
        let info = message.get("info")?;
        if info.get("role")?.as_str()? != "assistant"
            || info.get("summary").and_then(Value::as_bool) == Some(true)
            || info
                .get("time")?
                .get("completed")
                .is_none_or(Value::is_null)
        {
            return None;
        }
        let tokens = info.get("tokens")?;
        let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
        let total = n(tokens.get("total"));
        if total > 0 {
            return Some(total);
        }
        let cache = tokens.get("cache");
        let sum = n(tokens.get("input"))
            + n(tokens.get("output"))
            + n(cache.and_then(|c| c.get("read")))
            + n(cache.and_then(|c| c.get("write")));
        (sum > 0).then_some(sum)
    }
}

/// A popped frame of the session, with the entry that stands in for its span.
#[derive(Debug, Clone)]
pub struct Popped {
    pub id: String,
    pub span: Span,
    pub entry: String,
    /// The entry for a pop made by a `flame_pop` call that holds the frame's summary: the call
    /// stays as the model wrote it, and the entry does not say the summary again.
    pub by_call: Option<ByCall>,
}

/// [`Popped::by_call`]: the summary the call must hold verbatim, and the entry without it.
#[derive(Debug, Clone)]
pub struct ByCall {
    pub summary: String,
    pub entry: String,
}

/// The frame's fold entry: what the model keeps of a popped frame. Compact (it is sent on every
/// later request): what it means is said once, in the `flame_pop` tool's description, which also
/// says that an entry without a status is a completed frame's, the usual case, and that its
/// summary stands for its goal.
pub fn entry(frame: &Frame<'_>) -> String {
    entry_with(frame, true)
}

/// The entry of a frame with a summary, for a pop whose `flame_pop` call holds that summary
/// (the model reads it there, beside the entry): the same entry but for the summary.
pub fn by_call(frame: &Frame<'_>) -> Option<ByCall> {
    let summary = frame.summary()?;
    Some(ByCall {
        summary: summary.to_string(),
        entry: entry_with(frame, false),
    })
}

fn entry_with(frame: &Frame<'_>, with_summary: bool) -> String {
    let mut out = format!("<flame-folded id=\"{}\"", xml_escape(frame.id));
    if frame.status() != Status::Completed {
        out.push_str(&format!(" status=\"{}\"", frame.status()));
    }
    // The log is where a pop writes it, `.opencode/flame/logs/frame-<id>.md`, as `flame_pop`'s
    // description says once: only a frame whose log is elsewhere, or that has none (invalidated
    // without a pop), says where on every request.
    match frame.log_path() {
        Some(log) if log == crate::frame::log::path_in_store(&frame.frame_id()) => {}
        Some(log) => out.push_str(&format!(
            " log=\"{}\"",
            xml_escape(&format!(".opencode/flame/{log}"))
        )),
        None => out.push_str(" log=\"\""),
    }
    out.push_str(">\n");
    let opened = out.len();
    let line = |out: &mut String, name: &str, text: &str| {
        out.push_str(&format!("<{name}>{}</{name}>\n", xml_escape(text)));
    };
    // A completed frame's summary says what came of its goal; the goal is kept where the
    // summary alone would not do: no summary, or a frame that did not reach its goal (failed,
    // blocked, invalidated), which a later step may take up again.
    if frame.status() != Status::Completed || frame.summary().is_none() {
        line(&mut out, "goal", frame.goal());
    }
    if let Some(summary) = frame.summary().filter(|_| with_summary) {
        line(&mut out, "summary", summary);
    }
    if let Some(reason) = frame.invalidation_reason() {
        line(&mut out, "reason", reason);
    }
    for artifact in frame.artifacts() {
        line(&mut out, "artifact", artifact);
    }
    for decision in frame.decisions() {
        line(&mut out, "decision", decision);
    }
    if out.len() == opened {
        // Nothing inside: the element closes itself.
        out.truncate(out.len() - 2);
        out.push_str("/>");
    } else {
        out.push_str("</flame-folded>");
    }
    out
}

/// Whether a popped frame folds: it ended, and its span was closed by the session itself.
pub fn folds(frame: &Frame<'_>, span: &Span) -> bool {
    span.close.is_some() && frame.status().has_ended()
}

/// A recorded context: the synthetic message sent after message `after` (none when the context
/// had not changed since the one before it, or the session had no frame).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Anchor {
    pub after: String,
    pub id: String,
    pub part: String,
    pub created: i64,
    pub text: Option<String>,
}

/// One tool call of a message, as folding needs it.
#[derive(Debug, Default, Clone)]
pub struct Call {
    /// Where the call is in its message (the part or content block).
    pub index: usize,
    pub tool: String,
    pub call: Option<String>,
    pub completed: bool,
    /// The `summary` argument the call was given (a `flame_pop`'s).
    pub summary: Option<String>,
    /// The `goal` argument the call was given (a `flame_push`'s).
    pub goal: Option<String>,
    pub start: Option<i64>,
    pub end: Option<i64>,
}

/// A message as folding sees it.
#[derive(Debug, Default)]
pub struct View {
    pub created: Option<i64>,
    pub calls: Vec<Call>,
    /// A message a person (or a command they typed) sent: some text that is not synthetic.
    pub typed: bool,
    /// The text of a user message's parts (to find a `/push` by the id it printed).
    pub user_text: String,
    /// A message ctx itself put in the conversation (a frame context, a fold entry, a completion
    /// notice): it names frames but never pushes or pops one.
    pub own: bool,
    /// A message holding a context or fold entry ctx adds to a request and the agent never
    /// stores (OpenCode's): ctx's output handed back to it.
    pub returned: bool,
    /// A message of the agent's own compaction (OpenCode's request for it, or its summary): it
    /// stands for everything before it, inside a frame's span and out.
    pub compaction: bool,
    /// A message a person wrote (`typed`, not ctx's own, not another plugin's prompt): where a
    /// person's turn begins (autoframes.md §1.3).
    pub person: bool,
    /// In shapes where a tool's output is a message of its own (pi's `toolResult`): the index of
    /// the message holding the call it answers. It goes (and stays) with that message, so that
    /// calls and outputs always come in pairs.
    pub answers: Option<usize>,
}

/// Whether a synthetic text is one of ctx's own: a `<flame-context>`, a fold entry, or the hint
/// of a completion notice (`ctx compact notice`).
pub fn is_own_text(text: &str) -> bool {
    text.starts_with("<flame-context")
        || text.starts_with("<flame-folded")
        || (text.starts_with("Frame ") && text.contains(" finished with status "))
}

fn pick<'a>(raw: &'a str, keys: &[&str]) -> Option<Vec<Option<&'a RawValue>>> {
    Pick(keys)
        .deserialize(&mut serde_json::Deserializer::from_str(raw))
        .ok()
}

fn number(raw: Option<&RawValue>) -> Option<i64> {
    let value: Value = serde_json::from_str(raw?.get()).ok()?;
    value
        .as_i64()
        .or_else(|| value.as_f64().filter(|f| f.is_finite()).map(|f| f as i64))
}

fn string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<String>(raw?.get()).ok()
}

/// Reads what folding needs of one message; anything malformed reads as absent, never an error
/// (the list itself was checked by `parse_messages`).
fn view(raw: &str, role: &str) -> View {
    let mut out = View::default();
    let Some(head) = pick(raw, &["info", "parts"]) else {
        return out;
    };
    if let Some(info) = head[0].and_then(|info| pick(info.get(), &["time", "summary"])) {
        if let Some(time) = info[0] {
            out.created = pick(time.get(), &["created"]).and_then(|c| number(c[0]));
        }
        out.compaction = info[1].is_some_and(|s| s.get() == "true");
    }
    let Some(parts) = head[1].and_then(|p| Vec::<&RawValue>::deserialize(p).ok()) else {
        return out;
    };
    for (index, part) in parts.into_iter().enumerate() {
        let Some(fields) = pick(
            part.get(),
            &["type", "tool", "callID", "state", "synthetic", "text"],
        ) else {
            continue;
        };
        match string(fields[0]).as_deref() {
            Some("tool") => {
                let mut call = Call {
                    index,
                    tool: string(fields[1]).unwrap_or_default(),
                    call: string(fields[2]),
                    ..Call::default()
                };
                if let Some(state) =
                    fields[3].and_then(|s| pick(s.get(), &["status", "time", "input"]))
                {
                    call.completed = string(state[0]).as_deref() == Some("completed");
                    let input = state[2].and_then(|i| pick(i.get(), &["summary", "goal"]));
                    call.summary = input.as_ref().and_then(|f| string(f[0]));
                    call.goal = input.as_ref().and_then(|f| string(f[1]));
                    if let Some(time) = state[1].and_then(|t| pick(t.get(), &["start", "end"])) {
                        call.start = number(time[0]);
                        call.end = number(time[1]);
                    }
                }
                out.calls.push(call);
            }
            Some("compaction") => out.compaction = true,
            Some("text") if role == "user" => {
                let synthetic = fields[4]
                    .and_then(|s| serde_json::from_str::<bool>(s.get()).ok())
                    .unwrap_or(false);
                let text = string(fields[5]).unwrap_or_default();
                if !synthetic && !text.trim().is_empty() {
                    out.typed = true;
                }
                if synthetic && is_own_text(&text) {
                    out.own = true;
                }
                if synthetic
                    && (text.starts_with("<flame-context") || text.starts_with("<flame-folded"))
                {
                    out.returned = true;
                }
                out.user_text.push_str(&text);
                out.user_text.push('\n');
            }
            _ => {}
        }
    }
    out.person =
        role == "user" && out.typed && !out.own && !turns::is_plugin_prompt(&out.user_text);
    out
}

/// Where a mark is among the messages: the message index and, when known, the tool call's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Found {
    message: usize,
    call: Option<usize>,
}

/// A mark's call id is held by more than one call, and the mark's time does not tell which one
/// made the change.
#[derive(Debug)]
struct Repeats {
    call: String,
}

/// Finds the message (and call) of a push or pop: by its message id (and its call in it), else, for
/// a mark without a message id, by its call id, else the tool call that was running at the mark's
/// time (a `ctx frame …` run through the bash tool). A call id alone is not trusted when the mark
/// names its message: some providers number calls per response (`call_0`), and a message that is
/// gone (compacted) must not be found again through another message's call of the same id.
/// A push or pop made by a slash command is the user message at or after the mark that names the
/// frame (the command's result, which OpenCode stores as that message). A call id is looked for
/// from message `from` on (a pop's, after its push).
fn locate(
    list: &MessageList<'_>,
    views: &[View],
    mark: &Mark,
    frame: &str,
    from: usize,
) -> Result<Option<Found>, Repeats> {
    let messages = list.messages();
    if let Some(message) = &mark.message {
        let Some(i) = messages.iter().position(|m| m.id() == message) else {
            return Ok(None);
        };
        let by_id = mark.call.as_ref().and_then(|call| {
            views[i]
                .calls
                .iter()
                .find(|c| c.call.as_deref() == Some(call))
        });
        let call = by_id
            .or_else(|| views[i].calls.iter().find(|c| c.tool.starts_with("flame_")))
            .map(|c| c.index);
        return Ok(Some(Found { message: i, call }));
    }
    if let Some(call) = &mark.call
        && let Some(found) = by_call_id(views, call, mark.at, from)?
    {
        return Ok(Some(found));
    }
    for (i, view) in views.iter().enumerate() {
        let during = view.calls.iter().find(
            |c| matches!((c.start, c.end), (Some(s), Some(e)) if s <= mark.at && mark.at <= e),
        );
        if let Some(c) = during {
            return Ok(Some(Found {
                message: i,
                call: Some(c.index),
            }));
        }
    }
    Ok(views.iter().enumerate().find_map(|(i, view)| {
        (messages[i].role() == "user"
            && !view.own
            && view.created.is_some_and(|t| t >= mark.at)
            && view.user_text.contains(frame))
        .then_some(Found {
            message: i,
            call: None,
        })
    }))
}

/// The call with id `call` in the messages from `from` on. Some OpenAI-compatible servers number
/// each response's calls from `call_0`, so an id can name a call of every turn: then the one
/// that was running at `at` is the mark's (ctx ran inside it: after its message was written,
/// before its output), and when none was, the mark's call is not among the messages. When more
/// than one may have been running (a call without a time, two calls of one id in one response),
/// the id cannot say where the span lies.
fn by_call_id(views: &[View], call: &str, at: i64, from: usize) -> Result<Option<Found>, Repeats> {
    let held: Vec<(usize, &Call)> = views
        .iter()
        .enumerate()
        .skip(from)
        .flat_map(|(i, view)| view.calls.iter().map(move |c| (i, c)))
        .filter(|(_, c)| c.call.as_deref() == Some(call))
        .collect();
    let found = |&(message, c): &(usize, &Call)| Found {
        message,
        call: Some(c.index),
    };
    if let [one] = held.as_slice() {
        return Ok(Some(found(one)));
    }
    // A call with no output yet runs on; one with no start could have run at any time.
    let mut running = held.iter().filter(|(_, c)| {
        c.start.is_none_or(|start| start <= at) && c.end.is_none_or(|end| at <= end)
    });
    match (running.next(), running.next()) {
        (None, _) => Ok(None),
        (Some(one), None) => Ok(Some(found(one))),
        (Some(_), Some(_)) => Err(Repeats {
            call: call.to_string(),
        }),
    }
}

/// The first message written at or after `at`: where a push made between two turns begins.
fn after_time(views: &[View], at: i64) -> Option<Found> {
    let message = views
        .iter()
        .position(|v| v.created.is_some_and(|t| t >= at))?;
    Some(Found {
        message,
        call: None,
    })
}

/// The last message written at or before `at` (not a tool's output, which goes with its call):
/// where a pop made between two turns ends.
fn before_time(views: &[View], at: i64) -> Option<Found> {
    let message = views
        .iter()
        .rposition(|v| v.answers.is_none() && v.created.is_some_and(|t| t <= at))?;
    Some(Found {
        message,
        call: None,
    })
}

/// A span found among the messages.
#[derive(Debug, Clone)]
struct Located {
    popped: usize,
    open: Found,
    close: Found,
    /// The pop was placed by its time (after `close`, which is the frame's last message and
    /// folds with the rest).
    timed: bool,
}

/// What folding decided for one request.
pub struct Folding<'l, 'a> {
    shape: &'l dyn Shape,
    list: &'l MessageList<'a>,
    views: Vec<View>,
    edits: Edits,
    /// Indices of the messages after which a context may go, in order.
    boundaries: Vec<usize>,
    /// Why a frame of the session was not folded.
    pub warnings: Vec<String>,
    /// The frames whose fold entries are sent: a context after them need not say them again.
    pub entries: Vec<String>,
}

/// Decides the folds of `popped` (the session's popped frames with spans) in `list`.
/// `keep_user` keeps what a person wrote inside a span.
pub fn fold<'l, 'a>(
    list: &'l MessageList<'a>,
    popped: &[Popped],
    keep_user: bool,
) -> Folding<'l, 'a> {
    fold_with(&OpenCode, list, popped, keep_user)
}

/// [`fold`] for the messages of `shape`.
pub fn fold_with<'l, 'a>(
    shape: &'l dyn Shape,
    list: &'l MessageList<'a>,
    popped: &[Popped],
    keep_user: bool,
) -> Folding<'l, 'a> {
    let messages = list.messages();
    let views = shape.views(list);
    let mut warnings = Vec::new();
    if views.iter().any(|v| v.returned) {
        warnings.push(
            "the messages already hold ctx's contexts or fold entries (is ctx's plugin loaded \
             twice, globally and in the project?); each is sent once"
                .to_string(),
        );
    }
    let mut located = Vec::new();
    let mut headless = Vec::new();
    // An empty list (a session's first request, or one a plugin filtered) holds no span to miss.
    let popped = if messages.is_empty() { &[][..] } else { popped };
    for (n, frame) in popped.iter().enumerate() {
        let close_mark = frame.span.close.as_ref().expect("only closed spans fold");
        let by_time = shape.marks_by_time();
        let repeats = |end: &str, Repeats { call }| {
            format!(
                "frame {}: its {end}'s call id {} repeats among the messages, and its time does \
                 not tell which call it is; not folded",
                frame.id,
                Value::String(call)
            )
        };
        let open = match locate(list, &views, &frame.span.open, &frame.id, 0) {
            Ok(open) => open.or_else(|| {
                by_time
                    .then(|| after_time(&views, frame.span.open.at))
                    .flatten()
            }),
            Err(r) => {
                warnings.push(repeats("push", r));
                continue;
            }
        };
        let from = open.map_or(0, |o| o.message);
        let mut close = match locate(list, &views, close_mark, &frame.id, from) {
            Ok(close) => close,
            Err(r) => {
                warnings.push(repeats("pop", r));
                continue;
            }
        };
        let timed = close.is_none() && by_time;
        if timed {
            close = before_time(&views, close_mark.at);
        }
        match (open, close) {
            (Some(open), Some(close))
                if open.message < close.message
                    || (open.message == close.message
                        && (timed
                            || open.call.is_some()
                                && close.call.is_some()
                                && open.call != close.call)) =>
            {
                located.push(Located {
                    popped: n,
                    open,
                    close,
                    timed,
                });
            }
            // Pushed and popped between the same two turns: nothing of it was sent, and its
            // entry goes where it was popped.
            (Some(_), Some(close)) if timed => headless.push((n, close)),
            (Some(_), Some(_)) => warnings.push(format!(
                "frame {}: its pop comes before its push among the messages; not folded",
                frame.id
            )),
            // The push was compacted or compressed away (OpenCode's compaction, DCP's
            // `compress` over a range that began before it) but the pop is in view: what is left
            // of the span still folds.
            (None, Some(close)) => headless.push((n, close)),
            // Neither end in view: nothing of the span is sent, nothing to fold.
            (None, None) => {}
            (_, None) => warnings.push(format!(
                "frame {}: the message that popped it is not among the messages; not folded",
                frame.id
            )),
        }
    }
    // Outermost spans first; a span inside another folds with it; two spans that cross are a
    // broken record, and neither folds.
    located.sort_by_key(|l| (l.open.message, std::cmp::Reverse(l.close.message)));
    let crosses = |a: &Located, b: &Located| {
        a.open.message < b.open.message
            && b.open.message < a.close.message
            && a.close.message < b.close.message
    };
    let mut broken = vec![false; located.len()];
    for i in 0..located.len() {
        for j in 0..located.len() {
            if i != j && crosses(&located[i], &located[j]) {
                broken[i] = true;
                broken[j] = true;
            }
        }
    }
    // A message that pops one frame and pushes the next carries the first one's entry: it stays
    // when the second folds.
    let closes: Vec<usize> = located
        .iter()
        .zip(&broken)
        .filter(|(l, b)| !**b && !l.timed)
        .map(|(l, _)| l.close.message)
        .collect();
    // The times of the spans that fold, to tell a span nested in another one when the outer
    // one's push is gone (ctx's own transform run again on what it sent, a compaction): what is
    // left in view of the inner span (its pop, a person's message kept) folds with the outer
    // span, as it did when the outer push was there.
    let spans_folding: Vec<(usize, i64, i64)> = located
        .iter()
        .zip(&broken)
        .filter(|(_, b)| !**b)
        .map(|(l, _)| l.popped)
        .chain(headless.iter().map(|&(n, _)| n))
        .map(|n| (n, popped[n].span.open.at, close_time(&popped[n])))
        .collect();
    let mut edits = Edits::new(messages.len());
    let mut replaced: HashMap<usize, Value> = HashMap::new();
    let mut outer: Vec<(usize, usize)> = Vec::new();
    let mut entries = Vec::new();
    for (l, is_broken) in located.iter().zip(&broken) {
        let frame = &popped[l.popped];
        if *is_broken {
            warnings.push(format!(
                "frame {}: its span crosses another frame's span (a broken state file?); not \
                 folded",
                frame.id
            ));
            continue;
        }
        let inside = outer.iter().any(|&(o, c)| {
            o <= l.open.message
                && l.close.message <= c
                && (o, c) != (l.open.message, l.close.message)
        }) || nested_in_another(
            &spans_folding,
            l.popped,
            frame.span.open.at,
            close_time(frame),
        );
        if inside {
            continue;
        }
        outer.push((l.open.message, l.close.message));
        // The push's own message folds too (the entry names the goal), but for a pop made in
        // the same message, which stays to carry the entry.
        let span = l.open.message..l.close.message + usize::from(l.timed);
        for (i, (edit, view)) in edits.messages[span.clone()]
            .iter_mut()
            .zip(&views[span])
            .enumerate()
        {
            let at = l.open.message + i;
            let kept = keep_user && messages[at].role() == "user" && view.typed;
            // Only the push's message can also be another span's pop; a pop inside the span (of
            // a frame nested in it) goes with the span.
            let carries_entry = at == l.open.message && closes.contains(&at);
            if !kept && !carries_entry {
                *edit = Edit::Drop;
            }
        }
        put_entry(
            shape,
            list,
            &views,
            &mut edits,
            &mut replaced,
            l.close,
            frame,
        );
        entries.push(frame.id.clone());
    }
    for (n, close) in headless {
        let frame = &popped[n];
        let (open_at, close_at) = (frame.span.open.at, close_time(frame));
        let inside = outer
            .iter()
            .any(|&(o, c)| o <= close.message && close.message <= c)
            || nested_in_another(&spans_folding, n, open_at, close_at);
        if inside {
            continue;
        }
        for at in 0..close.message {
            let view = &views[at];
            // Written between the push and the pop, by their times: what another plugin put in
            // their place (DCP's summary, stamped when it is sent) is newer and stays, and so
            // does a message with no time.
            let written_in_span = view
                .created
                .is_some_and(|t| frame.span.open.at <= t && t <= close_at);
            let kept = keep_user && messages[at].role() == "user" && view.typed && !view.own;
            // A compaction written in the span summarises the session before the push too,
            // which no fold entry holds: it stays.
            if written_in_span && !kept && !view.compaction && !closes.contains(&at) {
                edits.messages[at] = Edit::Drop;
            }
        }
        put_entry(shape, list, &views, &mut edits, &mut replaced, close, frame);
        entries.push(frame.id.clone());
        located.push(Located {
            popped: n,
            open: close,
            close,
            timed: false,
        });
    }
    give_back_reminder(shape, list, &views, &edits, &mut replaced);
    pair_outputs(&views, &mut edits, &mut replaced);
    for (i, value) in replaced {
        // A message an outer span folds stays folded, whatever an inner one wrote into it.
        if edits.messages[i] != Edit::Drop {
            edits.messages[i] = Edit::Replace(value.to_string());
        }
    }
    // Boundaries: what a person sent, and the pushes and pops still in view.
    let mut boundaries: Vec<usize> = (0..messages.len())
        .filter(|&i| {
            shape.anchors_after_prompts() && messages[i].role() == "user" && views[i].typed
        })
        .collect();
    for l in &located {
        boundaries.push(l.close.message);
    }
    boundaries.extend(open_pushes(&views));
    boundaries.retain(|&i| edits.messages[i] != Edit::Drop);
    boundaries.sort_unstable();
    boundaries.dedup();
    Folding {
        shape,
        list,
        views,
        edits,
        boundaries,
        warnings,
        entries,
    }
}

/// Whether the span of popped frame `n`, from `open` to `close`, lies inside another of `spans`
/// (popped frame, open and close times).
fn nested_in_another(spans: &[(usize, i64, i64)], n: usize, open: i64, close: i64) -> bool {
    spans
        .iter()
        .any(|&(other, o, c)| other != n && o <= open && close <= c && (o, c) != (open, close))
}

/// When a popped frame's span closed.
fn close_time(frame: &Popped) -> i64 {
    frame.span.close.as_ref().map_or(i64::MAX, |m| m.at)
}

/// A tool output that is a message of its own goes with the message of its call: dropped with
/// it, kept with it (a pop's message that stays to carry its entry keeps its outputs).
fn pair_outputs(views: &[View], edits: &mut Edits, replaced: &mut HashMap<usize, Value>) {
    for (i, view) in views.iter().enumerate() {
        let Some(call) = view.answers else { continue };
        if edits.messages[call] == Edit::Drop {
            edits.messages[i] = Edit::Drop;
            replaced.remove(&i);
        } else if edits.messages[i] == Edit::Drop {
            edits.messages[i] = Edit::Keep;
        }
    }
}

/// The last message of message `i`'s turn: `i`, or the last of the outputs of its calls right
/// after it. What goes after a message goes after those, never between a call and its output.
fn end_of_turn(views: &[View], i: usize) -> usize {
    let mut last = i;
    while views.get(last + 1).is_some_and(|v| v.answers == Some(i)) {
        last += 1;
    }
    last
}

/// What opencode-swarm's architect puts before the newest user message's text: a reminder, then
/// a rule.
const SWARM_REMINDER_OPEN: &str = "<swarm_reminder>";
const SWARM_REMINDER_CLOSE: &str = "</swarm_reminder>\n\n---\n\n";

/// opencode-swarm's messages transform, which OpenCode runs before ctx's, puts its reminder before
/// the text of the newest user message. When that message is ctx's completion notice, the reminder
/// has just left the person's message it stood before in every request so far: the history changes
/// there, and a prompt cache serves nothing past it. The reminder goes back where it was, before
/// the text of the latest message a person sent, as if the notice (which is ctx's, not the
/// person's) were not a user message.
fn give_back_reminder(
    shape: &dyn Shape,
    list: &MessageList<'_>,
    views: &[View],
    edits: &Edits,
    replaced: &mut HashMap<usize, Value>,
) {
    let messages = list.messages();
    let Some(newest) = (0..messages.len())
        .rev()
        .find(|&i| messages[i].role() == "user")
    else {
        return;
    };
    if !views[newest].own || replaced.contains_key(&newest) {
        return;
    }
    let Some(person) = (0..newest).rev().find(|&i| {
        messages[i].role() == "user"
            && views[i].typed
            && !views[i].own
            && edits.messages[i] != Edit::Drop
            && !replaced.contains_key(&i)
    }) else {
        return;
    };
    let parse = |i: usize| serde_json::from_str::<Value>(messages[i].raw()).ok();
    let (Some(mut notice), Some(mut theirs)) = (parse(newest), parse(person)) else {
        return;
    };
    let (Some(notice_text), Some(their_text)) =
        (shape.first_text(&mut notice), shape.first_text(&mut theirs))
    else {
        return;
    };
    let reminder_len = notice_text
        .as_str()
        .and_then(|t| t.strip_prefix(SWARM_REMINDER_OPEN))
        .and_then(|rest| rest.find(SWARM_REMINDER_CLOSE))
        .map(|end| SWARM_REMINDER_OPEN.len() + end + SWARM_REMINDER_CLOSE.len());
    let (Some(len), Some(theirs_now)) = (reminder_len, their_text.as_str()) else {
        return;
    };
    if theirs_now.starts_with(SWARM_REMINDER_OPEN) {
        return;
    }
    let full = notice_text.as_str().unwrap_or_default().to_string();
    *their_text = Value::String(format!("{}{theirs_now}", &full[..len]));
    *notice_text = Value::String(full[len..].to_string());
    replaced.insert(newest, notice);
    replaced.insert(person, theirs);
}

/// The `text` of a message's first text part.
fn first_text(message: &mut Value) -> Option<&mut Value> {
    message
        .get_mut("parts")?
        .as_array_mut()?
        .iter_mut()
        .find(|p| p.get("type").and_then(Value::as_str) == Some("text"))?
        .get_mut("text")
}

/// The messages holding a completed `flame_push` call: a running frame's push is a boundary too.
fn open_pushes(views: &[View]) -> Vec<usize> {
    views
        .iter()
        .enumerate()
        .filter(|(_, v)| {
            v.calls
                .iter()
                .any(|c| c.tool == "flame_push" && c.completed)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The fold entry as the output of the pop's tool call, or, when the pop is not a completed tool
/// call of that message, as a synthetic message right after it (and its outputs).
fn put_entry(
    shape: &dyn Shape,
    list: &MessageList<'_>,
    views: &[View],
    edits: &mut Edits,
    replaced: &mut HashMap<usize, Value>,
    close: Found,
    frame: &Popped,
) {
    if let Some(call) = close.call {
        // A flame_pop call that holds the frame's summary as it was recorded stays whole, and
        // the entry does not say the summary twice; any other pop (a command, a shell, a call
        // whose summary differs) gets the whole entry.
        let by_call = frame.by_call.as_ref().filter(|b| {
            views[close.message].calls.iter().any(|c| {
                c.index == call && c.tool == "flame_pop" && c.summary.as_ref() == Some(&b.summary)
            })
        });
        let entry = by_call.map_or(&frame.entry, |b| &b.entry);
        let output = Output {
            entry,
            keep_input: by_call.is_some(),
        };
        if shape.set_output(list, views, close.message, call, output, replaced) {
            return;
        }
    }
    let entry = &frame.entry;
    let message = &list.messages()[close.message];
    let ids = [
        format!("{}_fold", message.id()),
        format!("{}_fold_text", message.id()),
    ];
    // Already among the messages (ctx's transform run twice): sent once.
    if list.messages().iter().any(|m| m.id() == ids[0]) {
        return;
    }
    let ids = [ids[0].as_str(), ids[1].as_str()];
    let created = views[close.message].created.unwrap_or(0);
    let at = end_of_turn(views, close.message) + 1;
    if let Some(new) = shape.synthetic(list, at, entry, ids, created) {
        edits.before[at].push(new);
    }
}

/// Message `at` as the fold edits it: the copy in `replaced`, parsed from the list the first time
/// it is needed, so that edits of one message by several pops add up; `None` when it is no JSON.
fn editable<'r>(
    list: &MessageList<'_>,
    at: usize,
    replaced: &'r mut HashMap<usize, Value>,
) -> Option<&'r mut Value> {
    match replaced.entry(at) {
        Entry::Occupied(edited) => Some(edited.into_mut()),
        Entry::Vacant(unedited) => serde_json::from_str(list.messages()[at].raw())
            .ok()
            .map(|value| unedited.insert(value)),
    }
}

/// OpenCode's [`Shape::set_output`]: the call's part holds its output in `state.output`.
fn set_part_output(
    list: &MessageList<'_>,
    view: &View,
    at: usize,
    call: usize,
    Output { entry, keep_input }: Output<'_>,
    replaced: &mut HashMap<usize, Value>,
) -> bool {
    let Some(state) =
        editable(list, at, replaced).and_then(|m| conversation::completed_tool_state(m, call))
    else {
        return false;
    };
    conversation::set_tool_output(state, entry.to_string());
    // The summary a flame_pop call was given is in the entry: not sent twice.
    if !keep_input
        && view
            .calls
            .iter()
            .any(|c| c.index == call && c.tool.starts_with("flame_"))
    {
        state.insert("input".into(), Value::Object(serde_json::Map::new()));
    }
    true
}

impl<'l, 'a> Folding<'l, 'a> {
    /// Whether `call` is one of the agent's todo tool's (see [`Shape::todo_tool`]).
    fn is_todo_list(&self, call: &Call) -> bool {
        self.shape.todo_tool() == Some(call.tool.as_str())
    }

    /// The latest boundary in view, when it has no recorded context yet: the message id after
    /// which a context is to be rendered and recorded.
    pub fn needs_context(&self, anchors: &[Anchor]) -> Option<(usize, String)> {
        let last = *self.boundaries.last()?;
        let id = self.list.messages()[last].id();
        if anchors.iter().any(|a| a.after == id) {
            return None;
        }
        Some((last, id.to_string()))
    }

    /// The goal a completed `flame_push` call still in the request was given, for the push at
    /// `mark` (by its message id and call id): what the model reads of that frame without a
    /// context. None when the push was no such call (a command's, a shell's) or folded away.
    pub fn push_goal_in_view(&self, mark: &Mark) -> Option<&str> {
        let message = mark.message.as_deref()?;
        let at = self
            .list
            .messages()
            .iter()
            .position(|m| m.id() == message)?;
        if self.edits.messages[at] == Edit::Drop {
            return None;
        }
        let calls = &self.views[at].calls;
        let call = match &mark.call {
            Some(id) => calls.iter().find(|c| c.call.as_ref() == Some(id)),
            None => calls.iter().find(|c| c.tool == "flame_push"),
        }?;
        (call.tool == "flame_push" && call.completed)
            .then_some(call.goal.as_deref())
            .flatten()
    }

    /// The text of the latest context in view before message `at` (what a new context is
    /// compared with: an unchanged one is not sent twice).
    pub fn context_in_view(&self, anchors: &[Anchor], at: usize) -> Option<String> {
        let by_id: HashMap<&str, &Anchor> = anchors.iter().map(|a| (a.after.as_str(), a)).collect();
        self.list.messages()[..at]
            .iter()
            .enumerate()
            .rev()
            .filter(|(i, _)| self.edits.messages[*i] != Edit::Drop)
            .find_map(|(_, m)| by_id.get(m.id()).and_then(|a| a.text.clone()))
    }

    /// The message list to send: folds applied, and each recorded context in view after its
    /// message, as a synthetic user message.
    /// Message `i` as it will be sent, parsed; none when it is dropped (or, edited by another
    /// plugin, does not parse).
    /// Takes out the calls a fold marked dropped ([`DROPPED`]), and a message left with nothing
    /// to send.
    fn take_out_dropped(&mut self) {
        for edit in &mut self.edits.messages {
            let Edit::Replace(text) = edit else {
                continue;
            };
            if !text.contains(DROPPED) {
                continue;
            }
            let Ok(mut value) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            let Some(blocks) = self.shape.blocks(&mut value) else {
                continue;
            };
            let before = blocks.len();
            blocks.retain(|b| b.get(DROPPED).is_none());
            if blocks.len() == before {
                continue;
            }
            *edit = if self.shape.keeps_something(blocks) {
                Edit::Replace(value.to_string())
            } else {
                Edit::Drop
            };
        }
    }

    fn edited(&self, i: usize) -> Option<Value> {
        let text = match &self.edits.messages[i] {
            Edit::Drop => return None,
            Edit::Keep => self.list.messages()[i].raw(),
            Edit::Replace(text) => text.as_str(),
        };
        serde_json::from_str(text).ok()
    }

    pub fn write(mut self, anchors: &[Anchor]) -> String {
        self.take_out_dropped();
        let messages = self.list.messages();
        let by_id: HashMap<&str, &Anchor> = anchors.iter().map(|a| (a.after.as_str(), a)).collect();
        // A context already among the messages (ctx's plugin loaded twice, globally and in the
        // project, or a plugin that hands ctx's messages back) is sent once, where it is.
        let sent: std::collections::HashSet<&str> = messages
            .iter()
            .enumerate()
            .filter(|(i, _)| self.edits.messages[*i] != Edit::Drop)
            .map(|(_, m)| m.id())
            .collect();
        let mut added = 0;
        for (i, message) in messages.iter().enumerate() {
            if self.edits.messages[i] == Edit::Drop {
                continue;
            }
            let Some(anchor) = by_id.get(message.id()) else {
                continue;
            };
            if sent.contains(anchor.id.as_str()) {
                continue;
            }
            let Some(text) = &anchor.text else {
                continue;
            };
            // After the message (and its outputs) and anything already put after it (a fold
            // entry).
            let ids = [anchor.id.as_str(), anchor.part.as_str()];
            let at = end_of_turn(&self.views, i) + 1;
            if let Some(new) = self
                .shape
                .synthetic(self.list, at, text, ids, anchor.created)
            {
                added += text.len();
                self.edits.before[at].push(new);
            }
        }
        write_edited(self.list, &self.edits, added)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::inject::parse_messages;
    use proptest::prelude::*;

    /// A message list of `roles` (true: a user message), each assistant message one tool call
    /// with call id `c<i>` running from `10 i` to `10 i + 5`.
    fn list(roles: &[bool]) -> String {
        let messages: Vec<Value> = roles
            .iter()
            .enumerate()
            .map(|(i, &user)| {
                let id = format!("m{i:03}");
                if user {
                    serde_json::json!({"info": {"id": id, "sessionID": "s", "role": "user",
                        "time": {"created": 10 * i}},
                        "parts": [{"type": "text", "text": format!("prompt {i}")}]})
                } else {
                    serde_json::json!({"info": {"id": id, "sessionID": "s", "role": "assistant",
                        "time": {"created": 10 * i}},
                        "parts": [{"type": "tool", "tool": "bash", "callID": format!("c{i}"),
                            "state": {"status": "completed", "output": format!("out {i}"),
                                "time": {"start": 10 * i, "end": 10 * i + 5}}}]})
                }
            })
            .collect();
        serde_json::json!({ "messages": messages }).to_string()
    }

    fn mark(at: usize, how: u8) -> Mark {
        match how {
            0 => Mark::new(10 * at as i64 + 2, None, Some(&format!("c{at}"))),
            1 => Mark::new(10 * at as i64 + 2, Some(&format!("m{at:03}")), None),
            2 => Mark::new(10 * at as i64 + 2, None, None),
            _ => Mark::new(-1, Some("gone"), Some("gone")),
        }
    }

    fn ids_after(folding: Folding<'_, '_>) -> Vec<String> {
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        out["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["info"]["id"].as_str().unwrap().to_string())
            .collect()
    }

    /// A frame of session `s` popped with `entry`, pushed at mark `open` and popped at `close`
    /// (folding reads no session: the caller picks a session's frames).
    pub(super) fn popped(id: &str, open: Mark, close: Mark, entry: &str) -> Popped {
        Popped {
            id: id.into(),
            span: Span {
                session: "s".into(),
                open,
                close: Some(close),
            },
            entry: entry.into(),
            by_call: None,
        }
    }

    /// A user message with `parts` (text, synthetic) created at `created`.
    fn user(id: &str, created: i64, parts: &[(&str, bool)]) -> Value {
        let parts: Vec<Value> = parts
            .iter()
            .map(|(text, synthetic)| serde_json::json!({"type": "text", "text": text, "synthetic": synthetic}))
            .collect();
        serde_json::json!({"info": {"id": id, "sessionID": "s", "role": "user", "time": {"created": created}}, "parts": parts})
    }

    #[test]
    fn a_span_whose_push_was_compressed_away_still_folds_and_keeps_what_replaced_it() {
        // m000 prompt, m001 push (gone), m002..m004 work, m005 pop, m006 prompt. Another plugin
        // replaced m000..m002 with its summary, stamped when it is sent (after the pop).
        let full: Value =
            serde_json::from_str(&list(&[true, false, false, false, false, false, true])).unwrap();
        let mut messages: Vec<Value> = full["messages"].as_array().unwrap()[3..].to_vec();
        messages.insert(
            0,
            user(
                "msg_dcp_summary_1",
                1_000,
                &[("Summary of m000 to m002", false)],
            ),
        );
        let text = serde_json::json!({ "messages": messages }).to_string();
        let parsed = parse_messages(&text).unwrap();
        let popped = [popped("fr_a", mark(1, 0), mark(5, 0), "ENTRY")];
        let folding = fold(&parsed, &popped, false);
        assert!(folding.warnings.is_empty(), "{:?}", folding.warnings);
        let out = folding.write(&[]);
        assert!(out.contains("ENTRY"), "{out}");
        assert!(
            !out.contains("out 3") && !out.contains("out 4"),
            "the rest of the span folds: {out}"
        );
        let parsed = parse_messages(&text).unwrap();
        assert_eq!(
            ids_after(fold(&parsed, &popped, false)),
            ["msg_dcp_summary_1", "m005", "m006"],
            "the other plugin's summary stays"
        );
    }

    #[test]
    fn swarms_reminder_goes_back_from_ctxs_notice_to_the_persons_message() {
        let reminder = "<swarm_reminder>\nWORKFLOW\n</swarm_reminder>\n\n---\n\n";
        let messages = vec![
            user("m000", 1, &[("Build billing", false)]),
            serde_json::from_str::<Value>(&list(&[true, false])).unwrap()["messages"][1].clone(),
            user(
                "m002",
                30,
                &[
                    (&format!("{reminder}Frame fr_a completed: Audit"), false),
                    (
                        "Frame fr_a (\"Audit\") finished with status completed.",
                        true,
                    ),
                ],
            ),
        ];
        let text = serde_json::json!({ "messages": messages }).to_string();
        let parsed = parse_messages(&text).unwrap();
        let out: Value = serde_json::from_str(&fold(&parsed, &[], false).write(&[])).unwrap();
        let texts: Vec<&str> = out["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["info"]["role"] == "user")
            .map(|m| m["parts"][0]["text"].as_str().unwrap())
            .collect();
        assert_eq!(
            texts,
            [
                format!("{reminder}Build billing").as_str(),
                "Frame fr_a completed: Audit"
            ]
        );
        // A person's own newest message keeps it: that is where opencode-swarm means it to be.
        let mine = vec![
            user("m000", 1, &[("Build billing", false)]),
            user("m001", 2, &[(&format!("{reminder}And the tests"), false)]),
        ];
        let text = serde_json::json!({ "messages": mine }).to_string();
        let parsed = parse_messages(&text).unwrap();
        let out = fold(&parsed, &[], false).write(&[]);
        assert_eq!(
            serde_json::from_str::<Value>(&out).unwrap(),
            serde_json::from_str::<Value>(&text).unwrap()
        );
    }

    #[test]
    fn a_nested_frames_pop_goes_with_the_span_around_it() {
        // m001 push outer, m002 push inner, m003 work, m004 pop inner, m005 work, m006 pop outer.
        let text = list(&[true, false, false, false, false, false, false, true]);
        let parsed = parse_messages(&text).unwrap();
        let popped = [
            popped("fr_outer", mark(1, 0), mark(6, 0), "ENTRY OUTER"),
            popped("fr_inner", mark(2, 0), mark(4, 0), "ENTRY INNER"),
        ];
        let folding = fold(&parsed, &popped, false);
        assert!(folding.warnings.is_empty(), "{:?}", folding.warnings);
        assert_eq!(ids_after(folding), ["m000", "m006", "m007"]);
    }

    #[test]
    fn a_pops_entry_is_sent_where_opencode_pruned_the_pops_output() {
        // OpenCode's pruning marks old outputs `time.compacted` and then sends each as a line of
        // its own, whatever it holds: the entry would never reach the model.
        let mut full: Value = serde_json::from_str(&list(&[true, false, false, false])).unwrap();
        full["messages"][3]["parts"][0]["state"]["time"]["compacted"] = Value::from(99);
        let text = full.to_string();
        let parsed = parse_messages(&text).unwrap();
        let folding = fold(
            &parsed,
            &[popped("fr_a", mark(1, 0), mark(3, 0), "ENTRY A")],
            false,
        );
        let out: Value = serde_json::from_str(&folding.write(&[])).unwrap();
        let state = &out["messages"][1]["parts"][0]["state"];
        assert_eq!(state["output"], "ENTRY A");
        assert_eq!(state["time"], serde_json::json!({"start": 30, "end": 35}));
    }

    #[test]
    fn call_ids_numbered_per_response_are_found_in_their_own_message() {
        // Every response's first call is `call_0`, as some providers number them: the push and
        // pop of the second frame must be found by their messages, not the first `call_0`.
        let mut full: Value =
            serde_json::from_str(&list(&[true, false, false, false, false, false, false])).unwrap();
        for m in full["messages"].as_array_mut().unwrap().iter_mut().skip(1) {
            m["parts"][0]["callID"] = Value::from("call_0");
        }
        let text = full.to_string();
        let parsed = parse_messages(&text).unwrap();
        let at = |n: usize| Mark::new(10 * n as i64 + 2, Some(&format!("m{n:03}")), Some("call_0"));
        let popped = [
            popped("fr_a", at(1), at(2), "ENTRY A"),
            popped("fr_b", at(4), at(6), "ENTRY B"),
        ];
        let folding = fold(&parsed, &popped, false);
        assert!(folding.warnings.is_empty(), "{:?}", folding.warnings);
        assert_eq!(ids_after(folding), ["m000", "m002", "m003", "m006"]);
    }

    #[test]
    fn ctxs_own_notice_naming_the_frame_is_never_taken_for_its_push() {
        // The push was made from a shell (no call, no message): only the user-text fallback could
        // find it, and the one message naming the frame is ctx's notice after the pop.
        let mut messages: Vec<Value> = serde_json::from_str::<Value>(&list(&[true, false, false]))
            .unwrap()["messages"]
            .as_array()
            .unwrap()
            .clone();
        messages.push(user(
            "m003",
            40,
            &[
                ("Frame fr_a completed: Audit", false),
                ("Frame fr_a (\"Audit\") finished with status completed.\nIts log: .opencode/flame/logs/frame-fr_a.md", true),
            ],
        ));
        let text = serde_json::json!({ "messages": messages }).to_string();
        let parsed = parse_messages(&text).unwrap();
        let popped = [popped(
            "fr_a",
            Mark::new(7, None, None),
            mark(2, 0),
            "ENTRY",
        )];
        let folding = fold(&parsed, &popped, false);
        assert!(
            !folding
                .warnings
                .iter()
                .any(|w| w.contains("before its push")),
            "{:?}",
            folding.warnings
        );
    }

    proptest! {
        /// Whatever the spans (valid, nested, crossing, reversed, missing), folding never panics,
        /// keeps the messages it does not drop in order, and drops only messages of some span,
        /// from its push up to (not including) its pop.
        #[test]
        fn folds_keep_order_and_drop_only_inside_spans(
            roles in proptest::collection::vec(any::<bool>(), 1..40),
            spans in proptest::collection::vec((0usize..40, 0usize..40, 0u8..4, 0u8..4), 0..6),
            keep_user in any::<bool>(),
        ) {
            let text = list(&roles);
            let parsed = parse_messages(&text).unwrap();
            let popped: Vec<Popped> = spans
                .iter()
                .enumerate()
                .map(|(n, &(open, close, a, b))| {
                    popped(
                        &format!("fr_{n}"),
                        mark(open.min(roles.len() - 1), a),
                        mark(close.min(roles.len() - 1), b),
                        &format!("ENTRY {n}"),
                    )
                })
                .collect();
            let folding = fold(&parsed, &popped, keep_user);
            let out = folding.write(&[]);
            let out: Value = serde_json::from_str(&out).unwrap();
            let ids: Vec<&str> = out["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["info"]["id"].as_str().unwrap())
                .filter(|id| !id.ends_with("_fold"))
                .collect();
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            prop_assert_eq!(&ids, &sorted, "kept messages keep their order");
            for (i, &user) in roles.iter().enumerate() {
                let id = format!("m{i:03}");
                if ids.contains(&id.as_str()) {
                    continue;
                }
                let inside = popped.iter().any(|p| {
                    let at = |m: &Mark| (m.at + 1) / 10;
                    let (o, c) = (at(&p.span.open), at(p.span.close.as_ref().unwrap()));
                    o <= i as i64 && (i as i64) < c
                });
                prop_assert!(inside, "message {} dropped outside every span", i);
                prop_assert!(!(keep_user && user), "a kept user message was dropped");
            }
        }
    }
}

//! Todo frames (`frame.auto = todos` or `all`), kept by `ctx opencode messages` from the
//! `todowrite` calls each request holds (`opencode::todo`): a frame ctx opens when an item goes
//! in progress, with the item's text as its goal, and closes when the item is completed,
//! cancelled, set back, or leaves the list, so that a long turn folds item by item with a model
//! that never calls a ctx tool.
//!
//! How todo frames nest: an item's frame opens under the session's current frame, or, when that
//! is another item's frame, beside it (two items in progress at once are siblings), so it goes
//! under the person's turn when turns are on. It becomes the session's current frame: a
//! `flame_push` made while the item runs goes under it. An item's frame whose explicit frames
//! still run when the item ends waits for them: it closes at the first todo call after they were
//! popped, or with its turn. When its turn ends first, it closes as blocked, and the item's next
//! update in progress opens a new frame.
//!
//! Items have no ids: an item is its text. A renamed item is a new item (the old one left the
//! list), and two items of the same text are one.

use serde_json::Value;

use super::Context;
use crate::compact::inject::MessageList;
use crate::error::Result;
use crate::frame::digest::{self, Digest, Ending, Tools};
use crate::frame::ops;
use crate::frame::span::{self, Mark};
use crate::frame::state::{State, Status};
use crate::frame::store::Store;
use crate::frame::{auto, log};
use crate::json::Json;
use crate::opencode::export::Export;
use crate::opencode::todo::{self, Call};
use crate::opencode::turn as opencode;
use crate::settings;

/// What an item's summary says when no assistant text was written while it ran.
const NO_TEXT: &str = "No assistant text was written while the item was in progress.";

/// What an item's frame says when its turn ended before the item did.
const TURN_ENDED: &str = "The turn ended before the item was finished.";

/// Takes in the todo calls of `list` that the session has not taken in yet (those after its
/// frame's `todo_call`), in order: each opens the frames of the items it sets in progress and
/// closes those of the items it ends. `state` is the state as read for the request; the state
/// after is returned when anything changed. The caller checks that `frame.auto` keeps todo
/// frames. Nothing is written when no call is new, so a request
/// without a new call costs no lock.
pub(crate) fn sync(
    ctx: &Context,
    store: &Store,
    session: &str,
    list: &MessageList<'_>,
    state: &State,
) -> Result<Option<State>> {
    let calls = todo::calls(list.messages().iter().map(|m| todo::Raw {
        id: m.id(),
        role: m.role(),
        json: m.raw(),
    }));
    if new_calls(state, session, &calls).is_empty() {
        return Ok(None);
    }
    let output_max = settings::resolve(
        ctx.project.config()?,
        &settings::FRAME_LOG_OUTPUT_MAX,
        None,
        None,
    )?
    .count() as usize;
    let now = ctx.now;
    let (waiting, after) = store.update(now, |state| {
        // Another request of the session may have taken them in since the read.
        let new = new_calls(state, session, &calls);
        if new.is_empty() {
            return Ok((Vec::new(), false));
        }
        let mut waiting = Vec::new();
        for call in new {
            waiting = take_in(state, store, session, list, call, output_max, now)?;
            state.set_field(session, auto::TODO_CALL_KEY, Json::str(&call.call));
        }
        Ok((waiting, true))
    })?;
    for (id, running) in waiting {
        ctx.out.note(&format!(
            "todo frame {id} waits for {}, pushed in it",
            running.join(", ")
        ));
    }
    Ok(Some(after))
}

/// The calls of `calls` after the last one the session's frame took in; all of them when it
/// took in none, or one no longer in the messages (compacted away: every call left is later).
/// None for a session without a frame of its own (a subagent ctx does not frame).
fn new_calls<'c>(state: &State, session: &str, calls: &'c [Call]) -> &'c [Call] {
    let Some(frame) = state.frame(session) else {
        return &[];
    };
    let last = frame.field(auto::TODO_CALL_KEY).and_then(Json::as_str);
    match last.and_then(|last| calls.iter().position(|c| c.call == last)) {
        Some(at) => &calls[at + 1..],
        None => calls,
    }
}

/// Applies one call: closes the open item frames whose item it does not hold in progress, then
/// opens a frame for each item in progress that has none. Returns the frames that could not
/// close, with the explicit frames still running in them.
fn take_in(
    state: &mut State,
    store: &Store,
    session: &str,
    list: &MessageList<'_>,
    call: &Call,
    output_max: usize,
    now: i64,
) -> Result<Vec<(String, Vec<String>)>> {
    let wanted = call.in_progress();
    let mut waiting = Vec::new();
    for id in auto::open_todos(state, session) {
        let goal = state.frame(&id).map(|f| f.goal().to_string());
        let Some(goal) = goal.filter(|g| !wanted.contains(&g.as_str())) else {
            continue;
        };
        let running = auto::explicit_running_below(state, &id);
        if !running.is_empty() {
            waiting.push((id, running));
            continue;
        }
        let (status, why) = match call.item(&goal).map(|i| i.status.as_str()) {
            Some("completed") => (Status::Completed, None),
            Some("cancelled") => (Status::Blocked, Some("The item was cancelled.".to_string())),
            Some(other) => (
                Status::Blocked,
                Some(format!(
                    "The item was set to {} before it was finished.",
                    if other.is_empty() { "no status" } else { other }
                )),
            ),
            None => (
                Status::Blocked,
                Some("The item left the todo list before it was finished.".to_string()),
            ),
        };
        let span = item_span(state, &id, list, call);
        let mut digest = item_digest(&span);
        if let Some(why) = why {
            digest.summary = format!("{why}\n\n{}", digest.summary);
        }
        let messages = log::Messages::of(&span, output_max);
        let ending = auto::Ending {
            status,
            summary: &digest.summary,
            files: &digest.files,
            messages: Some(&messages),
        };
        let mark = Mark::new(now, Some(&call.message_id), Some(&call.call));
        auto::close(state, store, session, &id, &ending, mark, false)?;
    }
    for goal in wanted {
        let open = auto::open_todos(state, session);
        if open
            .iter()
            .any(|id| state.frame(id).is_some_and(|f| f.goal() == goal))
        {
            continue;
        }
        let parent = parent(state, session)?;
        let at = Mark::new(now, Some(&call.message_id), Some(&call.call));
        auto::open(state, session, goal, parent.as_deref(), auto::TODO, at)?;
    }
    Ok(waiting)
}

/// Where an item's frame opens: the session's current frame, or the parent of the item frames
/// that are current, so that items in progress together are siblings.
fn parent(state: &State, session: &str) -> Result<Option<String>> {
    let mut at = ops::session_current(state, session)?;
    for _ in 0..=state.len() {
        match at.as_deref().and_then(|id| state.frame(id)) {
            Some(frame) if auto::is_todo(&frame) => at = frame.parent().map(str::to_string),
            _ => break,
        }
    }
    Ok(at)
}

/// The messages of item frame `id`'s span in `list`: from the message of the call that opened
/// it (its first message in view, when that one was compacted away) to the message of `call`,
/// which closes it.
fn item_span(state: &State, id: &str, list: &MessageList<'_>, call: &Call) -> Export {
    let messages = list.messages();
    let opened = state
        .frame(id)
        .and_then(|f| span::read(&f).ok().flatten())
        .and_then(|s| s.open.message);
    let from = opened
        .and_then(|m| messages.iter().position(|x| x.id() == m))
        .unwrap_or(0)
        .min(call.message);
    let kept: Vec<Value> = messages[from..=call.message]
        .iter()
        .filter_map(|m| serde_json::from_str(m.raw()).ok())
        .collect();
    let goal = state.frame(id).map(|f| f.goal().to_string());
    Export::from_value(serde_json::json!({
        "info": { "id": id, "title": goal },
        "messages": kept,
    }))
    // A message the list holds but the export's shape does not (no role): the log goes without
    // the messages rather than the close failing.
    .unwrap_or_else(|_| {
        Export::from_value(serde_json::json!({"info": {"id": id}, "messages": []}))
            .expect("an empty export has its shape")
    })
}

/// Closes the open item frames below turn `turn` as blocked, as the turn closes before their
/// items ended; each one's log holds the turn's messages from its opening call on, when `messages`
/// (the turn's) are given, with outputs cut at `output_max`.
pub(crate) fn close_in_turn(
    state: &mut State,
    store: &Store,
    session: &str,
    turn: &str,
    messages: Option<(&Export, usize)>,
    now: i64,
) -> Result<()> {
    let index = crate::frame::state::TreeIndex::new(state);
    let below: Vec<String> = index.subtree(turn)[1..]
        .iter()
        .map(|d| d.to_string())
        .collect();
    drop(index);
    for id in auto::open_todos(state, session) {
        if !below.contains(&id) || !auto::explicit_running_below(state, &id).is_empty() {
            continue;
        }
        let span = messages.map(|(export, max)| {
            let opened = state
                .frame(&id)
                .and_then(|f| span::read(&f).ok().flatten())
                .and_then(|s| s.open.message)
                .unwrap_or_default();
            (export.cut(&opened, |_| false), max)
        });
        let summary = match &span {
            Some((span, _)) => format!("{TURN_ENDED}\n\n{}", item_digest(span).summary),
            None => TURN_ENDED.to_string(),
        };
        let messages = span.map(|(span, max)| log::Messages::of(&span, max));
        let ending = auto::Ending {
            status: Status::Blocked,
            summary: &summary,
            files: &[],
            messages: messages.as_ref(),
        };
        let mark = Mark::new(now, None, None);
        auto::close(state, store, session, &id, &ending, mark, false)?;
    }
    Ok(())
}

/// The summary and files of an item's span of OpenCode messages.
fn item_digest(span: &Export) -> Digest {
    let tools = Tools {
        shell: opencode::SHELL_TOOLS,
        editing: opencode::EDITING_TOOLS,
        path_keys: opencode::PATH_KEYS,
    };
    digest::digest_or(span, &tools, &Ending::Finished, NO_TEXT)
}

//! OpenCode's todo frames (`frame.auto = todos` or `all`), kept by `ctx opencode messages` from
//! the `todowrite` calls each request holds (`opencode::todo`), each taken in by the agents'
//! shared core (`frame::todo`, which says how todo frames open, close and nest). An item's span
//! runs from the message of the call that opened it to that of the call that ends it.

use serde_json::Value;

use super::Context;
use crate::compact::inject::MessageList;
use crate::conversation::Export;
use crate::error::Result;
use crate::frame::auto;
use crate::frame::digest::Tools;
use crate::frame::span::{self, Mark};
use crate::frame::state::State;
use crate::frame::store::Store;
use crate::frame::todo::{self, Item, Reader, Update};
use crate::json::Json;
use crate::opencode::todo::{self as opencode_todo, Call};
use crate::opencode::turn as opencode;
use crate::settings;

/// OpenCode's tools, for an item's summary.
const TOOLS: Tools = Tools {
    shell: opencode::SHELL_TOOLS,
    editing: opencode::EDITING_TOOLS,
    path_keys: opencode::PATH_KEYS,
};

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
    let calls = opencode_todo::calls(list.messages().iter().map(|m| opencode_todo::Raw {
        id: m.id(),
        role: m.role(),
        json: m.raw(),
    }));
    if new_calls(state, session, &calls).is_empty() {
        return Ok(None);
    }
    let output_max = ctx.settings()?.count(&settings::FRAME_LOG_OUTPUT_MAX)? as usize;
    let now = ctx.now;
    let (waiting, after) = store.update(now, |state| {
        // Another request of the session may have taken them in since the read.
        let new = new_calls(state, session, &calls);
        if new.is_empty() {
            return Ok((Vec::new(), false));
        }
        let mut waiting = Vec::new();
        for call in new {
            let mark = Mark::new(now, Some(&call.message_id), Some(&call.call));
            let items: Vec<Item> = call
                .items
                .iter()
                .map(|i| Item::of_text(&i.content, &i.status))
                .collect();
            let update = Update {
                items: &items,
                whole: true,
                mark: &mark,
            };
            let mut span = |state: &State, id: &str| Some(item_span(state, id, list, call));
            let mut reader = Reader {
                span: &mut span,
                tools: &TOOLS,
                output_max,
            };
            waiting = todo::take_in(state, store, session, &update, &mut reader)?;
            state.set_field(session, auto::TODO_CALL_KEY, Json::str(&call.call));
            state.set_field(session, auto::TODO_MESSAGE_KEY, Json::str(&call.message_id));
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
///
/// The last call is known by its message and its call id, as call ids may repeat. A frame that
/// recorded no message (written before ctx recorded it) is matched by the call id's latest use:
/// the calls taken in are the latest ones, and an earlier use would replay every call since.
fn new_calls<'c>(state: &State, session: &str, calls: &'c [Call]) -> &'c [Call] {
    let Some(frame) = state.frame(session) else {
        return &[];
    };
    let last = frame.field(auto::TODO_CALL_KEY).and_then(Json::as_str);
    let message = frame.field(auto::TODO_MESSAGE_KEY).and_then(Json::as_str);
    let taken =
        |c: &Call| Some(c.call.as_str()) == last && message.is_none_or(|m| c.message_id == m);
    match last.and(calls.iter().rposition(taken)) {
        Some(at) => &calls[at + 1..],
        None => calls,
    }
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
    let Some((export, output_max)) = messages else {
        return todo::close_in_turn(state, store, session, turn, None, now);
    };
    let mut span = |state: &State, id: &str| {
        let opened = state
            .frame(id)
            .and_then(|f| span::read(&f).ok().flatten())
            .and_then(|s| s.open.message)
            .unwrap_or_default();
        Some(export.cut(&opened, |_| false))
    };
    let mut reader = Reader {
        span: &mut span,
        tools: &TOOLS,
        output_max,
    };
    todo::close_in_turn(state, store, session, turn, Some(&mut reader), now)
}

//! Frames ctx opens and closes itself (`frame.auto`): the frame's `auto` key, ctx's own, kept
//! through every rewrite as any key ctx does not interpret is (Flame v1 keeps it too). A frame
//! without the key is explicit: pushed by a model, a person or a script.
//!
//! ```json
//! "auto": "turn"
//! ```
//!
//! A session's frame whose todo frames ctx keeps also records the last `todowrite` call it took
//! in (`"todo_call": "call_…"`, and its message, `"todo_message": "msg_…"`, as call ids may
//! repeat): each request holds every call since the last compaction, and only the ones after it
//! are new.

use super::ops::{self, Place};
use super::span::{self, Mark};
use super::state::{Frame, State, Status, TreeIndex};
use crate::error::Result;
use crate::json::Json;

/// The frame key.
pub const KEY: &str = "auto";

/// The kind of a person's turn: opened at their message, closed at the agent's end of turn.
pub const TURN: &str = "turn";

/// The kind of a todo item's span: opened when the item goes in progress, closed when it is
/// completed, cancelled or leaves the list.
pub const TODO: &str = "todo";

/// The session frame's key for the last todo call ctx took in: its call id.
pub const TODO_CALL_KEY: &str = "todo_call";

/// The session frame's key for the message of the last todo call ctx took in: call ids alone may
/// repeat (a model or stand-in that numbers its calls anew in each process), message ids do not.
pub const TODO_MESSAGE_KEY: &str = "todo_message";

/// What opened `frame` by itself (`"turn"`, `"todo"`), `None` for an explicit frame; a value that is not a
/// string reads as explicit.
pub fn kind<'a>(frame: &Frame<'a>) -> Option<&'a str> {
    frame.field(KEY).and_then(Json::as_str)
}

/// Whether `frame` is a turn frame.
pub fn is_turn(frame: &Frame<'_>) -> bool {
    kind(frame) == Some(TURN)
}

/// Whether `frame` is a todo frame.
pub fn is_todo(frame: &Frame<'_>) -> bool {
    kind(frame) == Some(TODO)
}

/// The todo frames of `session` still open, in the order they were opened.
pub fn open_todos(state: &State, session: &str) -> Vec<String> {
    open_of(state, session, TODO).collect()
}

/// The frames of `kind` that `session` opened and that are still open, in file order.
fn open_of<'s>(
    state: &'s State,
    session: &'s str,
    kind: &'s str,
) -> impl Iterator<Item = String> + 's {
    state
        .frames()
        .filter(move |f| self::kind(f) == Some(kind) && !f.status().has_ended())
        .filter(move |f| {
            span::read(f)
                .ok()
                .flatten()
                .is_some_and(|s| s.session == session)
        })
        .map(|f| f.id.to_string())
}

/// Opens a frame of `kind` for `session` under `parent`, its span from `mark` on; it becomes the
/// session's current frame.
pub fn open(
    state: &mut State,
    session: &str,
    goal: &str,
    parent: Option<&str>,
    kind: &str,
    mark: Mark,
) -> Result<String> {
    let id = ops::push(state, goal, parent, None, Place::Session(session), mark.at)?;
    self::mark(state, &id, kind);
    span::open(state, &id, Place::Session(session), mark);
    Ok(id)
}

/// The explicit frames running below `id` (pushed during a turn or an item); the todo frames
/// below a turn are not counted: they close with it.
pub fn explicit_running_below(state: &State, id: &str) -> Vec<String> {
    let index = TreeIndex::new(state);
    index.subtree(id)[1..]
        .iter()
        .filter(|d| {
            state
                .frame(d)
                .is_some_and(|f| f.status() == Status::InProgress && !is_todo(&f))
        })
        .map(|d| d.to_string())
        .collect()
}

/// The session's current frame, or, when that is a todo item's frame, the frame its items run
/// in (its turn, or the session's own frame): an item on top is the work of the frame below it,
/// not a frame pushed in it. Where a new item's frame opens, and what a turn's end sees on top.
pub fn current_past_items(state: &State, session: &str) -> Result<Option<String>> {
    let mut at = ops::session_current(state, session)?;
    // Up the parents, bounded by the number of frames: a cycle written by hand ends the walk.
    for _ in 0..=state.len() {
        match at.as_deref().and_then(|id| state.frame(id)) {
            Some(frame) if is_todo(&frame) => at = frame.parent().map(str::to_string),
            _ => break,
        }
    }
    Ok(at)
}

/// Marks frame `id` as opened by ctx, of `kind`.
pub fn mark(state: &mut State, id: &str, kind: &str) {
    state.set_field(id, KEY, Json::str(kind));
}

/// How an auto-frame ends: its status, its summary, the files it changed, and the messages its
/// log holds.
pub struct Ending<'a> {
    pub status: super::state::Status,
    pub summary: &'a str,
    pub files: &'a [String],
    pub messages: Option<&'a super::log::Messages>,
}

/// Closes auto-frame `id` of `session` as `ending` says, its span closing at `mark`, and writes its
/// log. `force`: a turn closes over the frames still running in it
/// (it has waited for the explicit ones, and closed its items first); an item never does.
pub fn close(
    state: &mut State,
    store: &super::store::Store,
    session: &str,
    id: &str,
    ending: &Ending<'_>,
    mark: Mark,
    force: bool,
) -> Result<()> {
    let at = mark.at;
    let plan = ops::check_pop(state, id, force)?;
    if !ending.files.is_empty() {
        ops::add_artifacts(state, id, ending.files, at)?;
    }
    ops::apply_pop(state, &plan, ending.status, Some(ending.summary), at)?;
    span::close(state, id, Place::Session(session), mark);
    store.write_log(
        &plan.id,
        &super::log::render(state, id, at, ending.messages),
    )
}

/// The turn frame of `session` that is still open (in progress), if any: at most one, as a turn
/// opens only once the one before it has closed.
pub fn open_turn(state: &State, session: &str) -> Option<String> {
    open_of(state, session, TURN).next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::ops::{self, Place};
    use crate::frame::span::Mark;

    #[test]
    fn a_turn_is_marked_and_found_by_its_session() {
        let mut state = State::empty();
        let id = ops::push(&mut state, "Fix it", None, None, Place::Session("ses_a"), 1).unwrap();
        assert_eq!(open_turn(&state, "ses_a"), None);
        mark(&mut state, &id, TURN);
        span::open(
            &mut state,
            &id,
            Place::Session("ses_a"),
            Mark::new(1, Some("msg_1"), None),
        );
        assert!(is_turn(&state.frame(&id).unwrap()));
        assert_eq!(open_turn(&state, "ses_a"), Some(id.clone()));
        assert_eq!(open_turn(&state, "ses_b"), None);
        state.set_field(&id, KEY, Json::int(3));
        assert_eq!(kind(&state.frame(&id).unwrap()), None);
    }
}

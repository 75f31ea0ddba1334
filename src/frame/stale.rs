//! Stale frames: running, but nothing will pop them. Their parent ended ([`stale_under`]), or
//! their session, a subagent's, stopped calling the model without ever going idle.

use super::state::{Frame, State, Status};

/// Why a running frame is stale.
#[derive(Clone, Copy)]
pub enum Stale<'s> {
    /// Its parent ended ([`stale_under`]).
    ParentEnded(Frame<'s>),
    /// Its session, a subagent's, has not called the model since this time (epoch milliseconds):
    /// a session that never goes idle, so that nothing pops it.
    Quiet(i64),
}

/// When sessions last called the model, to tell a quiet one.
pub struct Quiet<'a> {
    pub now: i64,
    /// How long a session may go without a model call (milliseconds; 0: for ever).
    pub after: i64,
    /// The last model call recorded for a session, by its id.
    pub last_request: &'a dyn Fn(&str) -> Option<i64>,
}

/// Whether a frame is stale, and why: its parent ended, or, with `quiet`, it is a running
/// subagent's frame (or a frame its session pushed) whose session has not called the model for
/// longer than `quiet.after`. A root frame's session waits for a person between prompts, and a
/// session whose frame has a running child of another session waits for that subagent: neither
/// is a sign of anything (the subagent's own frame carries the mark when it is the one stuck).
pub fn stale<'s>(
    state: &'s State,
    frame: &Frame<'_>,
    quiet: Option<&Quiet<'_>>,
) -> Option<Stale<'s>> {
    if let Some(parent) = stale_under(state, frame) {
        return Some(Stale::ParentEnded(parent));
    }
    let quiet = quiet.filter(|q| q.after > 0)?;
    if frame.status() != Status::InProgress || frame.parent().is_none() {
        return None;
    }
    let session = session_of(frame);
    if !is_subagents(state, &session, quiet) {
        return None;
    }
    let at = (quiet.last_request)(&session)?;
    if quiet.now.saturating_sub(at) <= quiet.after {
        return None;
    }
    let waits_for_a_subagent = state.frames().any(|child| {
        child.parent() == Some(frame.id)
            && child.status() == Status::InProgress
            && session_of(&child) != session
    });
    (!waits_for_a_subagent).then_some(Stale::Quiet(at))
}

/// The parent that has ended under a running frame, which makes the frame stale: no session will
/// pop it any more. It happens when a parent is popped with `--force` (as `ctx opencode finish`
/// pops a subagent's session when it ends) while a task it launched in the background still runs.
/// A blocked parent counts: it waits, and the child's result has nowhere to go until it resumes.
/// The frame's own clock is no sign: nothing updates a frame while its session works.
fn stale_under<'s>(state: &'s State, frame: &Frame<'_>) -> Option<Frame<'s>> {
    if frame.status() != Status::InProgress {
        return None;
    }
    let parent = state.frame(frame.parent()?)?;
    parent.status().has_ended().then_some(parent)
}

/// Whether `session` is a subagent's: its own frame is a child of a frame of another session,
/// one that calls the model (its last call is recorded). A person's session, or one started
/// under a person's frame, waits for its person, however long nobody prompts: never quiet.
fn is_subagents(state: &State, session: &str, quiet: &Quiet<'_>) -> bool {
    parent_session(state, session).is_some_and(|parents| (quiet.last_request)(&parents).is_some())
}

/// The session whose frame `session`'s own frame runs under, when that is another session.
pub fn parent_session(state: &State, session: &str) -> Option<String> {
    let parent = state.frame(session)?.parent()?;
    let parents = session_of(&state.frame(parent)?);
    (parents != session).then_some(parents)
}

/// The session a frame belongs to: the one its recorded span names (a frame a session pushed),
/// else its own id (a session's own frame: OpenCode's subagents).
pub fn session_of(frame: &Frame<'_>) -> String {
    match super::span::read(frame) {
        Ok(Some(span)) => span.session,
        _ => frame.id.to_string(),
    }
}

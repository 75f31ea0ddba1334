//! Turn frames (`frame.auto = turns` or `all`), for `ctx opencode turn`: a frame ctx opens at a
//! person's message and closes at the agent's end of turn, so that a session stays small with a
//! model that never calls a ctx tool (`ctx opencode messages` folds each closed turn's outputs).
//!
//! How turns and explicit frames nest: a turn opens under the session's current frame and becomes
//! it, so a `flame_push` (or `ctx frame push --session`) made during the turn goes under the turn.
//! A turn whose explicit frames still run at its end of turn waits for them: it stays open, the
//! person's next message opens no new turn (it belongs to the waiting one), and the turn closes
//! at the first end of turn after they were popped. A turn never pops a frame the model pushed.

use std::path::PathBuf;

use super::Context;
use super::pop::read_transcript;
use crate::document::Version;
use crate::error::{ExitCode, Result};
use crate::frame::doc::{FrameJson, NothingToFinishDoc, SessionFrameDoc};
use crate::frame::ops::{self, Place, Selector};
use crate::frame::span::{self, Mark};
use crate::frame::state::{State, Status};
use crate::frame::store::Store;
use crate::frame::{auto, log};
use crate::opencode::export::Export;
use crate::opencode::turn::{Digest, digest, span as turn_span};
use crate::settings;

/// What a turn closed without its end of turn (the next person's message came first) says.
const UNSEEN_END: &str = "The turn's end was not seen; the next person's message closed it.";

/// Whether `frame.auto` opens turn frames (`turns` or `all`), for every agent.
pub fn turns_on(ctx: &Context) -> Result<bool> {
    let config = ctx.project.config()?;
    let setting = settings::resolve(config, &settings::FRAME_AUTO, None, None)?;
    Ok(matches!(setting.text(), "turns" | "all"))
}

/// The goal of a turn: the first line of the person's message with some words, cut as a
/// session's title is.
fn goal(text: Option<&str>, message: &str) -> String {
    let first = text.and_then(|t| t.lines().find(|l| !l.trim().is_empty()));
    super::session::goal_from_title(first, || format!("Turn at {message}"))
}

/// Closes turn `id` of `session` as completed with `digest`, and writes its log; the item frames
/// still open in it close first, as blocked, with the turn's messages (`turn`, outputs cut at the
/// given size) from each one's start in their logs.
#[allow(clippy::too_many_arguments)]
fn close(
    state: &mut State,
    store: &Store,
    session: &str,
    id: &str,
    digest: &Digest,
    messages: Option<&log::Messages>,
    turn: Option<(&Export, usize)>,
    now: i64,
) -> Result<()> {
    super::todo::close_in_turn(state, store, session, id, turn, now)?;
    let plan = ops::check_pop(state, id, true)?;
    if !digest.files.is_empty() {
        ops::add_artifacts(state, id, &digest.files, now)?;
    }
    ops::apply_pop(state, &plan, Status::Completed, Some(&digest.summary), now)?;
    span::close(
        state,
        id,
        Place::Session(session),
        Mark::new(now, None, None),
    );
    store.write_log(id, &log::render(state, id, now, messages))
}

/// What `start` did.
enum Started {
    /// `frame.auto` opens no turns, or the session has no frame of its own.
    Nothing,
    Opened(String),
    /// This message's turn was already open.
    Open(String),
    /// The open turn waits for the explicit frames pushed in it: the message is its.
    Waits(String, Vec<String>),
}

/// `ctx opencode turn SESSION --start MSGID`: opens the turn frame of a person's message.
pub(crate) fn start(
    ctx: &mut Context,
    store: &Store,
    session: &str,
    message: &str,
    text: Option<&str>,
) -> Result<ExitCode> {
    crate::frame::id::validate_id(session)?;
    ops::require_text("the message id", message)?;
    let started = if turns_on(ctx)? {
        let goal = goal(text, message);
        let now = ctx.now;
        store
            .update(now, |state| {
                // A session with no frame of its own (a subagent ctx does not frame) has no turns.
                if state.frame(session).is_none() {
                    return Ok((Started::Nothing, false));
                }
                if let Some(open) = auto::open_turn(state, session) {
                    let frame = state.frame(&open).expect("the open turn exists");
                    let span = span::read(&frame).ok().flatten();
                    if span.is_some_and(|s| s.open.message.as_deref() == Some(message)) {
                        return Ok((Started::Open(open), false));
                    }
                    let running = auto::explicit_running_below(state, &open);
                    if !running.is_empty() {
                        return Ok((Started::Waits(open, running), false));
                    }
                    // Its end of turn never reached ctx (OpenCode exited first): closed here,
                    // its log without the messages, which stay in OpenCode's session.
                    let digest = Digest {
                        summary: UNSEEN_END.to_string(),
                        files: Vec::new(),
                    };
                    close(state, store, session, &open, &digest, None, None, now)?;
                }
                let selector = Selector {
                    session: Some(session.to_string()),
                    ..Selector::default()
                };
                let (parent, _) = ops::push_parent(state, &selector)?;
                let at = Mark::new(now, Some(message), None);
                let id = auto::open(state, session, &goal, parent.as_deref(), auto::TURN, at)?;
                Ok((Started::Opened(id), true))
            })?
            .0
    } else {
        Started::Nothing
    };
    let id = match started {
        Started::Nothing => None,
        Started::Opened(id) | Started::Open(id) => Some(id),
        Started::Waits(id, running) => {
            ctx.out.note(&format!(
                "turn {id} waits for {}: this message is its",
                running.join(", ")
            ));
            None
        }
    };
    print_frame(ctx, store, id)
}

/// `ctx opencode turn SESSION --end`: closes the session's open turn, with the turn's messages
/// of `transcript` in its log.
pub(crate) fn end(
    ctx: &mut Context,
    store: &Store,
    session: &str,
    transcript: Option<PathBuf>,
) -> Result<ExitCode> {
    crate::frame::id::validate_id(session)?;
    // The turn has ended whatever its transcript holds: one that cannot be read costs the log
    // its messages, never the close.
    let export = match transcript.map(|path| read_transcript(&path)) {
        Some(Ok(export)) => Some(export),
        Some(Err(unread)) => {
            ctx.out.warn(&format!(
                "{}; the turn is closed without its messages in the log",
                unread.message
            ));
            None
        }
        None => None,
    };
    let loaded = store.load()?;
    let Some(open) = auto::open_turn(&loaded, session) else {
        return nothing(ctx, "the session has no open turn");
    };
    let running = auto::explicit_running_below(&loaded, &open);
    if !running.is_empty() {
        ctx.out.note(&format!(
            "turn {open} waits for {}, pushed in it",
            running.join(", ")
        ));
        return nothing(ctx, "the open turn waits for the frames pushed in it");
    }
    let start = loaded
        .frame(&open)
        .and_then(|f| span::read(&f).ok().flatten())
        .and_then(|s| s.open.message)
        .unwrap_or_default();
    let turn = export.as_ref().map(|e| turn_span(e, &start));
    let digest = turn.as_ref().map_or_else(
        || Digest {
            summary: "The turn ended; its messages were not given to ctx.".to_string(),
            files: Vec::new(),
        },
        digest,
    );
    let output_max = settings::resolve(
        ctx.project.config()?,
        &settings::FRAME_LOG_OUTPUT_MAX,
        None,
        None,
    )?
    .count() as usize;
    let messages = turn.as_ref().map(|t| log::Messages::of(t, output_max));
    let now = ctx.now;
    let closed = store
        .update(now, |state| {
            // Another process may have closed it, or a frame been pushed in it, since the read.
            if auto::open_turn(state, session).as_deref() != Some(open.as_str())
                || !auto::explicit_running_below(state, &open).is_empty()
            {
                return Ok((false, false));
            }
            close(
                state,
                store,
                session,
                &open,
                &digest,
                messages.as_ref(),
                turn.as_ref().map(|t| (t, output_max)),
                now,
            )?;
            Ok((true, true))
        })?
        .0;
    if !closed {
        return nothing(ctx, "the turn was closed or pushed into meanwhile");
    }
    print_frame(ctx, store, Some(open))
}

fn nothing(ctx: &mut Context, reason: &str) -> Result<ExitCode> {
    if ctx.out.json {
        ctx.out.json_doc(&NothingToFinishDoc {
            version: Version,
            frame: (),
            reason: reason.to_string(),
        })?;
    }
    Ok(ExitCode::Success)
}

/// Prints the frame's id (JSON: `{"version": 1, "frame": FRAME|null}`).
fn print_frame(ctx: &mut Context, store: &Store, id: Option<String>) -> Result<ExitCode> {
    if ctx.out.json {
        let state = store.load()?;
        let frame = id.as_deref().and_then(|id| state.frame(id));
        ctx.out.json_doc(&SessionFrameDoc {
            version: Version,
            frame: frame.as_ref().map(FrameJson::new),
        })?;
    } else if let Some(id) = id {
        ctx.out.line(&id)?;
    }
    Ok(ExitCode::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turns_goal_is_the_first_line_with_words() {
        assert_eq!(
            goal(Some("\n  Fix the\tbuild \nthen test"), "msg_1"),
            "Fix the build"
        );
        assert_eq!(goal(Some(" \n"), "msg_1"), "Turn at msg_1");
        assert_eq!(goal(None, "msg_1"), "Turn at msg_1");
        assert!(goal(Some(&"x".repeat(500)), "msg_1").ends_with('…'));
    }
}

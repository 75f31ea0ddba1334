//! What the adapters of agents' sessions share (`ctx opencode frame`/`finish`, `ctx pi
//! frame`/`finish`): a session's own frame, the frame whose id is the session id, created when
//! missing and popped when the session's work ends. Each agent's adapter decides what is its
//! own (which child sessions get frames, what names an untitled session, how an ended run maps
//! to a status) and calls these; adapters never call each other.

use super::Context;
use super::pop::{PopInputs, pop, print_pop_doc, read_transcript};
use crate::conversation::Export;
use crate::document::Version;
use crate::error::{Error, ExitCode, Result};
use crate::frame::doc::{FrameJson, NothingToFinishDoc, SessionFrameDoc};
use crate::frame::id::SessionId;
use crate::frame::ops::{self, Place, Selector};
use crate::frame::state::{State, Status};
use crate::frame::store::Store;

/// Longest goal taken from a session title, in characters.
const MAX_TITLE_CHARS: usize = 200;

/// A session title as a goal: one line, control characters as spaces, runs of white space as one,
/// at most [`MAX_TITLE_CHARS`] characters; a blank title is `unnamed()`, which names the session.
pub(crate) fn goal_from_title(title: Option<&str>, unnamed: impl FnOnce() -> String) -> String {
    let words: Vec<&str> = title
        .unwrap_or("")
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    let line = words.join(" ");
    if line.is_empty() {
        return unnamed();
    }
    if line.chars().count() <= MAX_TITLE_CHARS {
        return line;
    }
    let kept: String = line.chars().take(MAX_TITLE_CHARS - 1).collect();
    format!("{}…", kept.trim_end())
}

/// A session made by another one, as its agent reports it.
pub(crate) struct Child<'a> {
    /// The session that made it.
    pub parent: &'a SessionId,
    /// Whether it gets a frame of its own (the agent's rule, e.g. `opencode.subagent_frames`);
    /// asked only once both ids are known to be valid.
    pub wanted: &'a dyn Fn(&Context) -> Result<bool>,
}

/// Prints the frame of `session`, creating it when missing with `goal`: under the current frame
/// of the parent session of a `child` that gets a frame, else under the frame a person made
/// current when it runs, else as a new root. A child that gets no frame is recorded as its
/// parent's, so that its frames go where its parent's go. `frame_command` is the command that
/// creates a session's frame, up to the session id, for the hint when a parent has none.
pub(crate) fn session_frame(
    ctx: &mut Context,
    store: &Store,
    session: &SessionId,
    goal: impl FnOnce() -> String,
    child: Option<Child>,
    frame_command: &str,
) -> Result<ExitCode> {
    let parent_session = child.as_ref().map(|c| c.parent);
    if let Some(child) = &child {
        let parent = child.parent;
        let wanted = (child.wanted)(ctx)?;
        let existing = store.load()?.frame(session).is_some();
        if !wanted && !existing {
            // No frame of its own: its place is its parent session's, never the person's.
            store.update(ctx.now, |state| {
                let known = ops::session_parents(state)?
                    .iter()
                    .any(|(s, p)| *s == session && *p == parent);
                if !known {
                    state.set_session_parent(session, Some(parent));
                }
                Ok(((), !known))
            })?;
            if ctx.out.json {
                ctx.out.json_doc(&SessionFrameDoc {
                    version: Version,
                    frame: None,
                })?;
            }
            return Ok(ExitCode::Success);
        }
    }
    let goal = goal();
    let now = ctx.now;
    let (id, state) = store.update(now, |state| {
        if state.frame(session).is_some() {
            return Ok((session.to_string(), false));
        }
        let parent = match parent_session {
            Some(parent) => Some(parent_frame_of(state, parent, frame_command)?),
            // A root session starts where the person working in this project is, when that
            // frame runs; ctx never pushes under a finished or waiting frame by itself.
            None => state
                .active_frame_id()
                .and_then(|id| state.frame(id))
                .filter(|f| f.status() == Status::InProgress)
                .map(|f| f.id.to_string()),
        };
        let id = ops::push(
            state,
            &goal,
            parent.as_deref(),
            Some(session),
            Place::Session(session),
            now,
        )?;
        Ok((id, true))
    })?;
    let frame = state.frame(&id).expect("the session's frame exists");
    if ctx.out.json {
        ctx.out.json_doc(&SessionFrameDoc {
            version: Version,
            frame: Some(FrameJson::new(&frame)),
        })?;
    } else {
        ctx.out.line(&id)?;
    }
    Ok(ExitCode::Success)
}

/// The frame a child of session `parent` starts under: the parent session's current frame,
/// which must be the parent's own frame or one below it.
fn parent_frame_of(state: &State, parent: &str, frame_command: &str) -> Result<String> {
    if state.frame(parent).is_none() {
        return Err(
            Error::failure(format!("the parent session {parent} has no frame")).with_hint(format!(
                "create it first: {frame_command} {parent} --title TITLE"
            )),
        );
    }
    ops::session_current_or_own(state, parent)
}

/// Pops the frame of `session`, whose work has ended, with `status`, the summary (else the
/// transcript's last assistant text) and the transcript in its log; whatever the session left
/// running stays, with a warning. A session without a running or waiting frame is left alone:
/// nothing printed, or the "nothing to finish" document with `--json`.
pub(crate) fn finish(
    ctx: &mut Context,
    store: &Store,
    session: &SessionId,
    status: Status,
    summary: Option<String>,
    transcript: Option<std::path::PathBuf>,
) -> Result<ExitCode> {
    let mut inputs = PopInputs::read(summary, None, None)?;
    // The session has ended whatever its transcript holds: one that cannot be read costs the
    // log its messages, never the pop, or the frame would run on with nothing left to pop it.
    let transcript = transcript.map(|path| read_transcript(&path));
    let finished = match store.load()?.frame(session) {
        None => Some("the session has no frame".to_string()),
        Some(f) if matches!(f.status(), Status::InProgress | Status::Blocked) => None,
        Some(f) => Some(format!("its frame is already {}", f.status().as_str())),
    };
    if let Some(reason) = finished {
        // Nothing to pop: a second end signal (session.idle after the task returned) is normal.
        if ctx.out.json {
            ctx.out.json_doc(&NothingToFinishDoc {
                version: Version,
                frame: (),
                reason,
            })?;
        }
        return Ok(ExitCode::Success);
    }
    inputs.transcript = match transcript {
        Some(Ok(export)) => Some(export),
        Some(Err(unread)) => {
            ctx.out.warn(&format!(
                "{}; the frame is finished without its messages in the log",
                unread.message
            ));
            None
        }
        None => None,
    };
    if inputs.summary.is_none() {
        inputs.summary = inputs
            .transcript
            .as_ref()
            .and_then(Export::last_assistant_text);
    }
    let selector = Selector {
        flag: Some(session.to_string()),
        ..Selector::default()
    };
    // The session has ended: whatever it left running can no longer be popped by it.
    let (plan, state) = pop(
        ctx,
        store,
        status,
        inputs,
        true,
        &selector,
        crate::frame::span::Mark::new(ctx.now, None, None),
    )?;
    if ctx.out.json {
        let current = ops::running_current(&state, Place::Shared)?;
        print_pop_doc(ctx, store, &plan, &state, current)?;
    } else {
        ctx.out.line(&plan.id)?;
    }
    Ok(ExitCode::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_become_one_line_goals() {
        let unnamed = || "OpenCode session ses_1".to_string();
        assert_eq!(
            goal_from_title(Some("  a\u{1b}[2J\r\nb\tc "), unnamed),
            "a [2J b c"
        );
        assert_eq!(
            goal_from_title(Some(" \n "), unnamed),
            "OpenCode session ses_1"
        );
        assert_eq!(goal_from_title(None, unnamed), "OpenCode session ses_1");
        let long = goal_from_title(Some(&"x".repeat(100_000)), unnamed);
        assert_eq!(long.chars().count(), MAX_TITLE_CHARS);
        assert!(long.ends_with('…'));
    }
}

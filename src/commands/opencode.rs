//! `ctx opencode …`: the frames of OpenCode sessions, for ctx's OpenCode plugin (opencode.md §8.3,
//! §11). A session's frame is the frame whose id is the session id.

use crate::opencode::export::Export;

use super::Context;
use super::frame::{PopInputs, pop, print_pop_doc};
use crate::cli::frame::SpanArgs;
use crate::cli::opencode::OpencodeCommand;
use crate::document::Version;
use crate::error::{ExitCode, Result};
use crate::frame::doc::{FrameJson, InvalidateDoc, NothingToFinishDoc, SessionFrameDoc};
use crate::frame::ops::{self, Place, Selector};
use crate::frame::state::{State, Status};
use crate::frame::store::Store;
use crate::settings;

/// Longest goal taken from a session title, in characters.
const MAX_TITLE_CHARS: usize = 200;

pub fn run(ctx: &mut Context, command: OpencodeCommand) -> Result<ExitCode> {
    let store = ctx.store()?;
    match command {
        OpencodeCommand::Install { global, options } => {
            super::install::opencode(ctx, global, &options)
        }
        OpencodeCommand::Frame {
            session,
            title,
            parent_session,
        } => session_frame(
            ctx,
            &store,
            &session,
            title.as_deref(),
            parent_session.as_deref(),
        ),
        OpencodeCommand::Finish {
            session,
            state,
            summary,
            transcript,
        } => finish(ctx, &store, &session, &state, summary, transcript),
        OpencodeCommand::Deleted { session } => deleted(ctx, &store, &session),
        OpencodeCommand::Messages {
            session,
            budget_warning,
        } => super::fold::run(ctx, &session, budget_warning),
    }
}

/// Which child sessions become frames (`opencode.subagent_frames`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SubagentFrames {
    All,
    None,
    Heuristic,
}

fn subagent_frames(ctx: &Context) -> Result<SubagentFrames> {
    let config = ctx.project.config()?;
    let setting = settings::resolve(config, &settings::OPENCODE_SUBAGENT_FRAMES, None, None)?;
    Ok(match setting.text() {
        "heuristic" => SubagentFrames::Heuristic,
        "none" => SubagentFrames::None,
        _ => SubagentFrames::All,
    })
}

/// Whether the session is titled as OpenCode's task tool titles its child sessions,
/// `<description> (@<agent> subagent)` (opencode.md §11), for `opencode.subagent_frames =
/// heuristic`. An agent's name may hold spaces (oh-my-opencode's "Metis - Plan Consultant").
/// Flame v1 matched the same titles; its further wait for a minimum duration or message count is
/// left out, because a frame created late would miss the subagent's first request, which is the
/// one that needs the frame's context.
fn is_task_subagent(title: &str) -> bool {
    let Some(rest) = title.trim_end().strip_suffix(" subagent)") else {
        return false;
    };
    rest.rfind("(@")
        .is_some_and(|at| !rest[at + 2..].trim().is_empty())
}

/// A session title as a goal: one line, control characters as spaces, runs of white space as one,
/// at most [`MAX_TITLE_CHARS`] characters; a blank title names the session.
pub(crate) fn goal_from_title(title: Option<&str>, session: &str) -> String {
    let words: Vec<&str> = title
        .unwrap_or("")
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    let line = words.join(" ");
    if line.is_empty() {
        return format!("OpenCode session {session}");
    }
    if line.chars().count() <= MAX_TITLE_CHARS {
        return line;
    }
    let kept: String = line.chars().take(MAX_TITLE_CHARS - 1).collect();
    format!("{}…", kept.trim_end())
}

fn session_frame(
    ctx: &mut Context,
    store: &Store,
    session: &str,
    title: Option<&str>,
    parent_session: Option<&str>,
) -> Result<ExitCode> {
    crate::frame::id::validate_id(session)?;
    if let Some(parent) = parent_session {
        crate::frame::id::validate_id(parent)?;
        let wanted = match subagent_frames(ctx)? {
            SubagentFrames::All => true,
            SubagentFrames::None => false,
            SubagentFrames::Heuristic => title.is_some_and(is_task_subagent),
        };
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
    let goal = goal_from_title(title, session);
    let now = ctx.now;
    let (id, state) = store.update(now, |state| {
        if state.frame(session).is_some() {
            return Ok((session.to_string(), false));
        }
        let parent = match parent_session {
            Some(parent) => Some(parent_frame_of(state, parent)?),
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
fn parent_frame_of(state: &State, parent: &str) -> Result<String> {
    if state.frame(parent).is_none() {
        return Err(crate::error::Error::failure(format!(
            "the parent session {parent} has no frame"
        ))
        .with_hint(format!(
            "create it first: ctx opencode frame {parent} --title TITLE"
        )));
    }
    Ok(ops::session_current(state, parent)?.unwrap_or_else(|| parent.to_string()))
}

/// The status a finished task's state pops its frame with.
fn status_for(state: &str) -> Status {
    match state.trim().to_ascii_lowercase().as_str() {
        "completed" => Status::Completed,
        "aborted" | "cancelled" | "canceled" | "interrupted" => Status::Blocked,
        _ => Status::Failed,
    }
}

fn finish(
    ctx: &mut Context,
    store: &Store,
    session: &str,
    task_state: &str,
    summary: Option<String>,
    transcript: Option<std::path::PathBuf>,
) -> Result<ExitCode> {
    crate::frame::id::validate_id(session)?;
    let mut inputs = PopInputs::read(summary, None, transcript)?;
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
        status_for(task_state),
        inputs,
        true,
        &selector,
        &SpanArgs::default(),
    )?;
    if ctx.out.json {
        let current = ops::running_current(&state, Place::Shared)?;
        print_pop_doc(ctx, store, &plan, &state, current)?;
    } else {
        ctx.out.line(&plan.id)?;
    }
    Ok(ExitCode::Success)
}

fn deleted(ctx: &mut Context, store: &Store, session: &str) -> Result<ExitCode> {
    crate::frame::id::validate_id(session)?;
    let now = ctx.now;
    let reason = format!("OpenCode session {session} was deleted");
    let (invalidated, _) = store.update(now, |state| {
        let recorded = ops::session_frames(state)?
            .iter()
            .any(|(s, _)| *s == session);
        let linked = ops::session_parents(state)?
            .iter()
            .any(|(s, _)| *s == session);
        let mut invalidated = Vec::new();
        if state.frame(session).is_some() {
            let index = crate::frame::state::TreeIndex::new(state);
            let running: Vec<String> = index
                .subtree(session)
                .into_iter()
                .filter(|id| state.frame(id).is_some_and(|f| !f.status().is_finished()))
                .map(str::to_string)
                .collect();
            for id in running {
                if state.frame(&id).is_some_and(|f| f.status().is_finished()) {
                    continue; // invalidated by the cascade of an ancestor
                }
                let change = ops::plan_invalidation(state, &id, &reason)?;
                ops::apply_invalidation(state, &change, &reason, now)?;
                invalidated.extend(change.invalidated);
            }
        }
        if recorded {
            state.set_session_frame(session, None);
        }
        if linked {
            state.set_session_parent(session, None);
        }
        let changed = recorded || linked || !invalidated.is_empty();
        Ok((invalidated, changed))
    })?;
    if ctx.out.json {
        ctx.out.json_doc(&InvalidateDoc {
            version: Version,
            invalidated: invalidated.clone(),
            in_progress_descendants: Vec::new(),
            dry_run: false,
        })?;
    } else {
        for id in &invalidated {
            ctx.out.line(id)?;
        }
    }
    Ok(ExitCode::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_subagents_are_told_by_their_title() {
        assert!(is_task_subagent("Audit refunds (@general subagent)"));
        assert!(is_task_subagent("x (@code-review subagent) "));
        assert!(!is_task_subagent("Audit refunds"));
        assert!(!is_task_subagent("(@ subagent)"));
        assert!(!is_task_subagent("(@  subagent)"));
        assert!(is_task_subagent(
            "Audit refunds (@Metis - Plan Consultant subagent)"
        ));
    }

    #[test]
    fn titles_become_one_line_goals() {
        assert_eq!(
            goal_from_title(Some("  a\u{1b}[2J\r\nb\tc "), "ses_1"),
            "a [2J b c"
        );
        assert_eq!(
            goal_from_title(Some(" \n "), "ses_1"),
            "OpenCode session ses_1"
        );
        assert_eq!(goal_from_title(None, "ses_1"), "OpenCode session ses_1");
        let long = goal_from_title(Some(&"x".repeat(100_000)), "ses_1");
        assert_eq!(long.chars().count(), MAX_TITLE_CHARS);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn task_states_map_to_pop_statuses() {
        assert_eq!(status_for("completed"), Status::Completed);
        assert_eq!(status_for("aborted"), Status::Blocked);
        assert_eq!(status_for("error"), Status::Failed);
        assert_eq!(status_for(""), Status::Failed);
    }
}

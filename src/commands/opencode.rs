//! `ctx opencode …`: the frames of OpenCode sessions, for ctx's OpenCode plugin (opencode.md §8.3,
//! §11). A session's frame is the frame whose id is the session id; what pi's sessions share
//! with these is in `session`.

use crate::app::Context;
use crate::app::{session, turn};
use crate::cli::opencode::OpencodeCommand;
use crate::document::Version;
use crate::error::{ExitCode, Result};
use crate::frame::doc::InvalidateDoc;
use crate::frame::id::SessionId;
use crate::frame::ops;
use crate::frame::state::Status;
use crate::frame::store::Store;
use crate::settings;

pub fn run(ctx: &mut Context, command: OpencodeCommand) -> Result<ExitCode> {
    match command {
        OpencodeCommand::Install {
            global,
            remove,
            options,
        } => {
            let options = crate::app::install::InstallOptions {
                force: options.force,
                dry_run: options.dry_run,
            };
            crate::app::install::agent(
                ctx,
                &crate::app::install::OPENCODE,
                global,
                remove,
                &options,
            )
        }
        OpencodeCommand::Frame {
            session,
            title,
            parent_session,
        } => {
            let session = SessionId::parse(&session)?;
            let parent = parent_session
                .as_deref()
                .map(SessionId::parse)
                .transpose()?;
            session_frame(
                ctx,
                &ctx.store()?,
                &session,
                title.as_deref(),
                parent.as_ref(),
            )
        }
        OpencodeCommand::Finish {
            session,
            state,
            summary,
            transcript,
        } => session::finish(
            ctx,
            &ctx.store()?,
            &SessionId::parse(&session)?,
            status_for(&state),
            summary,
            transcript,
        ),
        OpencodeCommand::Turn {
            session,
            start,
            goal,
            end: _,
            transcript,
        } => {
            let session = SessionId::parse(&session)?;
            let store = ctx.store()?;
            match start {
                Some(message) => {
                    turn::start(ctx, &store, &session, Some(&message), goal.as_deref())
                }
                None => turn::end_opencode(ctx, &store, &session, transcript),
            }
        }
        OpencodeCommand::Deleted { session } => {
            deleted(ctx, &ctx.store()?, &SessionId::parse(&session)?)
        }
        OpencodeCommand::Messages {
            session,
            budget_warning,
            context_limit,
            output_limit,
            input_limit,
            reserved,
        } => {
            let compacts_at = context_limit.map(|context| {
                crate::budget::models::Limits {
                    context,
                    input: input_limit,
                    output: output_limit,
                }
                .usable_with(reserved)
            });
            crate::app::fold::run(
                ctx,
                &SessionId::parse(&session)?,
                budget_warning,
                compacts_at,
            )
        }
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
    let setting = ctx.settings()?.text(&settings::OPENCODE_SUBAGENT_FRAMES)?;
    Ok(match setting {
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
    task_description(title).is_some()
}

/// The `<description>` of a title `<description> (@<agent> subagent)`, as OpenCode's task tool and
/// oh-my-opencode's title the sessions they start; `None` for any other title.
fn task_description(title: &str) -> Option<&str> {
    let rest = title.trim_end().strip_suffix(" subagent)")?;
    let at = rest.rfind("(@")?;
    (!rest[at + 2..].trim().is_empty()).then(|| rest[..at].trim_end())
}

/// The goal of a new OpenCode session's frame: its title, or `OpenCode session <id>`. A child
/// session titled as a task's (`<description> (@<agent> subagent)`) is the task's description:
/// the frame's place under its parent already says it is a subagent's, and the agent's name
/// (oh-my-opencode's "Metis - Plan Consultant") would otherwise outweigh the goal in every
/// notice and tree line.
fn goal(title: Option<&str>, session: &str, child: bool) -> String {
    let described = title
        .filter(|_| child)
        .and_then(task_description)
        .filter(|d| !d.is_empty());
    session::goal_from_title(described.or(title), || {
        format!("OpenCode session {session}")
    })
}

/// Whether a child session gets a frame of its own, as `opencode.subagent_frames` says.
fn child_wanted(ctx: &Context, title: Option<&str>) -> Result<bool> {
    Ok(match subagent_frames(ctx)? {
        SubagentFrames::All => true,
        SubagentFrames::None => false,
        SubagentFrames::Heuristic => title.is_some_and(is_task_subagent),
    })
}

fn session_frame(
    ctx: &mut Context,
    store: &Store,
    session: &SessionId,
    title: Option<&str>,
    parent_session: Option<&SessionId>,
) -> Result<ExitCode> {
    let wanted = |ctx: &Context| child_wanted(ctx, title);
    let child = parent_session.map(|parent| session::Child {
        parent,
        wanted: &wanted,
    });
    session::session_frame(
        ctx,
        store,
        session,
        || goal(title, session, parent_session.is_some()),
        child,
        "ctx opencode frame",
    )
}

/// The status a finished task's state pops its frame with.
fn status_for(state: &str) -> Status {
    match state.trim().to_ascii_lowercase().as_str() {
        "completed" => Status::Completed,
        "aborted" | "cancelled" | "canceled" | "interrupted" => Status::Blocked,
        _ => Status::Failed,
    }
}

fn deleted(ctx: &mut Context, store: &Store, session: &SessionId) -> Result<ExitCode> {
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
    fn untitled_sessions_are_named_by_their_id() {
        assert_eq!(goal(Some(" \n "), "ses_1", false), "OpenCode session ses_1");
        assert_eq!(goal(None, "ses_1", true), "OpenCode session ses_1");
        assert_eq!(
            goal(Some("Audit\nrefunds"), "ses_1", false),
            "Audit refunds"
        );
    }

    #[test]
    fn a_task_child_is_its_description() {
        let goal = |title: &str, child: bool| goal(Some(title), "ses_1", child);
        assert_eq!(
            goal("Audit refunds (@general subagent)", true),
            "Audit refunds"
        );
        assert_eq!(
            goal("Review the plan (@Metis - Plan Consultant subagent)", true),
            "Review the plan"
        );
        assert_eq!(goal("Side chat", true), "Side chat");
        // Nothing but the agent: the title is all there is to say.
        assert_eq!(goal("(@general subagent)", true), "(@general subagent)");
        // A root session is not a task's child, whatever its title.
        assert_eq!(
            goal("Audit refunds (@general subagent)", false),
            "Audit refunds (@general subagent)"
        );
    }

    #[test]
    fn task_states_map_to_pop_statuses() {
        assert_eq!(status_for("completed"), Status::Completed);
        assert_eq!(status_for("aborted"), Status::Blocked);
        assert_eq!(status_for("error"), Status::Failed);
        assert_eq!(status_for(""), Status::Failed);
    }
}

//! `ctx pi …`: ctx's extension for pi, the frames of pi's sessions, and the message fold it calls
//! before every model call. A session's frame is the frame whose id is the session,
//! `pi_<pi's session id>`; what it shares with OpenCode's sessions is in `session`.

use crate::app::Context;
use crate::app::{session, turn};
use crate::cli::pi::PiCommand;
use crate::error::{ExitCode, Result};
use crate::frame::id::SessionId;
use crate::frame::state::Status;

pub fn run(ctx: &mut Context, command: PiCommand) -> Result<ExitCode> {
    match command {
        PiCommand::Install {
            global,
            remove,
            options,
        } => {
            let options = crate::app::install::InstallOptions {
                force: options.force,
                dry_run: options.dry_run,
            };
            crate::app::install::agent(ctx, &crate::app::install::PI, global, remove, &options)
        }
        PiCommand::Frame {
            session,
            title,
            parent_session,
        } => {
            let session = SessionId::parse(&session.into_id())?;
            let store = ctx.store()?;
            // pi has no subagents of its own: a pi is another session's child only when that
            // session started it, so every one gets its frame.
            let wanted = |_: &Context| Ok(true);
            let parent = parent_session
                .as_deref()
                .map(SessionId::parse)
                .transpose()?;
            let child = parent.as_ref().map(|parent| session::Child {
                parent,
                wanted: &wanted,
            });
            session::session_frame(
                ctx,
                &store,
                &session,
                || goal(title.as_deref(), &session),
                child,
                "ctx pi frame --session",
            )
        }
        PiCommand::Finish {
            session,
            stop_reason,
            summary,
            transcript,
        } => {
            let session = SessionId::parse(&session.into_id())?;
            let store = ctx.store()?;
            let status = status_for(&stop_reason);
            session::finish(ctx, &store, &session, status, summary, transcript)
        }
        PiCommand::Turn {
            session,
            start,
            goal,
            end: _,
            messages,
        } => {
            let session = SessionId::parse(&session.into_id())?;
            let store = ctx.store()?;
            if start {
                turn::start(ctx, &store, &session, None, goal.as_deref())
            } else {
                turn::end_pi(ctx, &store, &session, messages)
            }
        }
        PiCommand::Messages {
            session,
            context_limit,
            reserved,
        } => {
            // pi's shouldCompact: the window less compaction.reserveTokens (pi's default 16384).
            let compacts_at =
                context_limit.map(|window| window.saturating_sub(reserved.unwrap_or(16_384)));
            crate::app::fold::run_pi(ctx, &SessionId::parse(&session)?, compacts_at)
        }
    }
}

/// The goal of a new pi session's frame: its title, or `pi session <pi's session id>`.
fn goal(title: Option<&str>, session: &str) -> String {
    session::goal_from_title(title, || {
        format!(
            "pi session {}",
            session.strip_prefix("pi_").unwrap_or(session)
        )
    })
}

/// The status an ended run pops its frame with, from the stopReason of its last assistant
/// message: pi's own words for a run a person stopped and one that failed.
fn status_for(stop_reason: &str) -> Status {
    match stop_reason.trim().to_ascii_lowercase().as_str() {
        "aborted" => Status::Blocked,
        "error" => Status::Failed,
        _ => Status::Completed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untitled_sessions_are_named_by_pis_id() {
        assert_eq!(goal(None, "pi_0b1e-77"), "pi session 0b1e-77");
        assert_eq!(goal(Some("\t"), "pi_0b1e-77"), "pi session 0b1e-77");
        assert_eq!(goal(Some("Fix it\nnow"), "pi_0b1e-77"), "Fix it now");
    }

    #[test]
    fn stop_reasons_map_to_pop_statuses() {
        assert_eq!(status_for("stop"), Status::Completed);
        assert_eq!(status_for("toolUse"), Status::Completed);
        assert_eq!(status_for("aborted"), Status::Blocked);
        assert_eq!(status_for("error"), Status::Failed);
    }
}

//! SessionEnd: folds the session's transcript (`crate::claude::fold`), so that a later
//! `claude --continue` or `--resume` sends each frame the model pushed and popped through Bash as
//! its summary and log path.
//!
//! Why at SessionEnd: the running process never rereads its transcript, and Claude Code appends
//! to it by path, so a transcript replaced when the session ends races nothing; a pop in a later
//! process is folded when that process ends. Nothing of the user's is lost: the transcript as it
//! was is kept beside it (`crate::hooks::transcript`), in the session's folder, where Claude
//! Code's session list does not look and where `ctx budget spent` and ccusage, which read every
//! transcript below the project's folder and count a response once by its id, still find the
//! responses folded away. A frame ctx cannot fold safely stays as it is, and so does the whole
//! transcript when ctx does not know its shape; each with the reason in the hook log.

use std::path::Path;

use crate::app::hooks::Hook;
use crate::claude::{fold, log as claude_log, turn_fold};
use crate::error::Result;
use crate::hooks::transcript::MAX_FOLD;
use crate::hooks::turns::{ClosedFrame, frames_then_turns, to_fold};
use crate::spent::jsonl;

pub(super) fn fold(hook: &mut Hook) -> Result<Option<String>> {
    let projects = crate::claude::config_dir().map(|dir| dir.join("projects"));
    let closed = hook.closed_auto_frames()?;
    refresh_logs(hook, &closed)?;
    let turns = to_fold(&closed);
    hook.fold_at_end(
        &crate::settings::CLAUDE_FOLD,
        "transcript",
        projects,
        "Claude Code's projects folder",
        |text, goal_of, finished| {
            frames_then_turns(
                text,
                |text| fold::fold(text, goal_of, finished),
                |text| turn_fold::fold_turns(text, &turns),
            )
        },
    )?;
    Ok(None)
}

/// The logs of the finished auto-frames (turns and items), written again from the transcript as
/// it is now, complete: the fold's entry sends the model to a frame's log for every output it
/// takes out, and the Stop or task update that wrote the log first may have read the transcript
/// before Claude Code wrote the span's last lines. A frame folded before, or in a turn folded
/// before, is left alone: its transcript no longer holds its outputs, and its log does.
fn refresh_logs(hook: &mut Hook, closed: &[ClosedFrame]) -> Result<()> {
    if closed.is_empty() {
        return Ok(());
    }
    let Some(path) = hook.field("transcript_path").map(str::to_string) else {
        return Ok(());
    };
    // A transcript too large to fold keeps every output: its logs need no second writing.
    let Ok(bytes) = crate::safe_file::read_regular_capped(Path::new(&path), MAX_FOLD) else {
        return Ok(());
    };
    let lines = jsonl::parse(&String::from_utf8_lossy(&bytes));
    let folded: std::collections::HashSet<&str> = lines
        .records
        .iter()
        .filter_map(|r| r.get(fold::FOLDED_KEY)?.as_str())
        .collect();
    let exports: Vec<_> = closed
        .iter()
        .filter(|f| !folded.contains(f.id.as_str()))
        .filter(|f| f.in_turn.as_deref().is_none_or(|t| !folded.contains(t)))
        .map(|f| {
            let export = claude_log::span_between(&lines.records, f.from, f.to, &f.id, &path);
            (f.id.clone(), export)
        })
        .collect();
    hook.rewrite_logs(&exports)
}

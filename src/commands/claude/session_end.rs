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

use crate::app::hooks::Hook;
use crate::claude::{fold, turn_fold};
use crate::error::Result;

pub(super) fn fold(hook: &mut Hook) -> Result<Option<String>> {
    let projects = crate::claude::config_dir().map(|dir| dir.join("projects"));
    let turns = hook.closed_turns()?;
    hook.fold_at_end(
        &crate::settings::CLAUDE_FOLD,
        "transcript",
        projects,
        "Claude Code's projects folder",
        |text, goal_of, finished| {
            // The model's own frames first; then the turns, on what that fold left.
            let mut folded = fold::fold(text, goal_of, finished)?;
            let base = folded.text.as_deref().unwrap_or(text);
            let turned = turn_fold::fold_turns(base, &turns)?;
            if turned.text.is_some() {
                folded.text = turned.text;
            }
            folded.frames.extend(turned.turns);
            folded.refused.extend(turned.refused);
            Ok(folded)
        },
    )?;
    Ok(None)
}

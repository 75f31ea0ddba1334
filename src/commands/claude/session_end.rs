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
//! responses folded away. Whatever ctx does not know leaves the transcript as it is, with the
//! reason in the hook log.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::claude::fold::{self, Finished};
use crate::commands::Context;
use crate::error::{Error, Result};
use crate::frame::store::Store;
use crate::hooks::transcript::{self, Rewritten, Transcript};

pub(super) fn fold(ctx: &Context, store: &Store, input: &Value) -> Result<Option<String>> {
    let config = ctx.project.config()?;
    let on = crate::settings::resolve(config, &crate::settings::CLAUDE_FOLD, None, None)?;
    if on.text() != "on" {
        return Ok(None);
    }
    let Some(path) = input
        .get("transcript_path")
        .and_then(Value::as_str)
        .filter(|p| !p.trim().is_empty())
    else {
        return Ok(None);
    };
    let path = Path::new(path);
    let refuse = |why: &str| {
        Error::failure(format!(
            "transcript {} left as it is: {why}",
            path.display()
        ))
    };
    let transcript = Transcript::open(
        path,
        inside_claude_projects,
        "Claude Code's projects folder",
    )
    .map_err(|why| refuse(&why))?;
    let text = transcript.text().map_err(|why| refuse(&why))?;
    let state = store.load()?;
    let at_root = input
        .get("cwd")
        .and_then(Value::as_str)
        .is_some_and(|cwd| transcript::same_folder(Path::new(cwd), &ctx.project.root));
    let root = at_root.then_some(ctx.project.root.as_path());
    let finished = |id: &str| -> Option<Finished> {
        Some(Finished {
            parent: state.frame(id)?.parent().map(str::to_string),
            text: transcript::folded_text(store, &state, id, root)?,
        })
    };
    let folded = match fold::fold(text, &finished) {
        Ok(Some(folded)) => folded,
        Ok(None) => return Ok(None),
        Err(why) => return Err(refuse(&why)),
    };
    match transcript
        .rewrite(&folded.text, ctx.now)
        .map_err(|why| refuse(&why))?
    {
        Rewritten::Done => Ok(None),
        Rewritten::WithLateLines(why) => Err(Error::failure(format!(
            "transcript {} folded; {why}",
            path.display()
        ))),
    }
}

/// Whether `path` lies below `projects/` of Claude Code's folder (`$CLAUDE_CONFIG_DIR`, else
/// `~/.claude`), both seen through links.
fn inside_claude_projects(path: &Path) -> bool {
    let Some(projects) = crate::claude::config_dir()
        .map(|d| d.join("projects"))
        .and_then(|d| fs::canonicalize(d).ok())
    else {
        return false;
    };
    let parent = path
        .parent()
        .and_then(|p| fs::canonicalize(p).ok())
        .unwrap_or_default();
    parent.starts_with(&projects) && parent != projects
}

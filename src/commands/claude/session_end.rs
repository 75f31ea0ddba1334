//! SessionEnd: folds the session's transcript (`crate::claude::fold`), so that a later
//! `claude --continue` or `--resume` sends each frame the model pushed and popped through Bash as
//! its summary and log path.
//!
//! Why at SessionEnd: the running process never rereads its transcript, and Claude Code appends
//! to it by path, so a transcript replaced when the session ends races nothing; a pop in a later
//! process is folded when that process ends. Nothing of the user's is lost: the transcript as it
//! was is kept beside it, in the session's folder (`<session>/ctx-fold-<ms>.jsonl`), where Claude
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
use crate::frame::store::{self, Store};

/// Transcripts larger than this are not folded.
const MAX_FOLD: u64 = 64 << 20;

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
    let before = fs::symlink_metadata(path).map_err(|e| refuse(&format!("cannot be read: {e}")))?;
    if before.file_type().is_symlink() {
        return Err(refuse("it is a symbolic link"));
    }
    if !before.is_file() {
        return Err(refuse("it is not a regular file"));
    }
    if !inside_claude_projects(path) {
        return Err(refuse("it is not below Claude Code's projects folder"));
    }
    if before.len() > MAX_FOLD {
        return Err(refuse(&format!("it is larger than {} MiB", MAX_FOLD >> 20)));
    }
    let bytes = store::read_capped(path, MAX_FOLD).map_err(|e| refuse(&e.to_string()))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| refuse("it is not UTF-8"))?;
    let state = store.load()?;
    let finished = |id: &str| -> Option<Finished> {
        let frame = state.frame(id)?;
        if !frame.status().is_finished() {
            return None;
        }
        Some(Finished {
            parent: frame.parent().map(str::to_string),
            text: crate::hooks::folded_text(store, &state, id)?,
        })
    };
    let folded = match fold::fold(text, &finished) {
        Ok(Some(folded)) => folded,
        Ok(None) => return Ok(None),
        Err(why) => return Err(refuse(&why)),
    };
    crate::hooks::rewrite_transcript(path, &before, &bytes, &folded.text, ctx.now)
        .map_err(|why| refuse(&why))?;
    Ok(None)
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

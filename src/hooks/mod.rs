//! What the agents that call ctx through hooks (Claude Code, Codex) share below their command
//! adapters and the hook core (`commands::hooks`): their ids as frame ids, ctx's entries in their
//! hooks files ([`settings`]), and the rewrite of a folded transcript.

use std::io::Write as _;
use std::path::Path;

use crate::frame::id::validate_id;
use crate::frame::log;
use crate::frame::state::State;
use crate::frame::store::Store;

pub mod settings;

/// `prefix` and an agent's id as a frame id, or `None` when the id cannot be one (empty, too
/// long, characters outside `[A-Za-z0-9_-]`, such as `../x`): such a session gets no frame.
pub fn framed(prefix: &str, id: &str) -> Option<String> {
    if id.is_empty() {
        return None;
    }
    let framed = format!("{prefix}{id}");
    validate_id(&framed).ok().map(|()| framed)
}

/// What a transcript holds, after a fold, in place of a finished frame's messages: its id, goal,
/// status, summary and the log that keeps them all. `None` when the frame is not finished.
pub fn folded_text(store: &Store, state: &State, id: &str) -> Option<String> {
    let frame = state.frame(id)?;
    if !frame.status().is_finished() {
        return None;
    }
    let log_path = store.dir().join(log::path_in_store(id));
    Some(format!(
        "[ctx] Frame {id} ({}) ended {}. Its messages were folded into this summary; its log \
         holds them all: {}\nSummary: {}",
        frame.goal(),
        frame.status().as_str(),
        log_path.display(),
        frame.summary().unwrap_or("(none)")
    ))
}

/// Replaces an agent's transcript at `path` (read as `original`, with the metadata `before`) by
/// `new_text`, keeping `original` beside it in the session's folder (`<path without .jsonl>/
/// ctx-fold-<now>.jsonl`, which the agents' session lists do not read). One rewrite of a
/// transcript at a time (a lock in that folder), and none of a file written to since it was read:
/// a line appended meanwhile would be lost by the rename. The error says why it was left as it is.
pub fn rewrite_transcript(
    path: &Path,
    before: &std::fs::Metadata,
    original: &[u8],
    new_text: &str,
    now: i64,
) -> std::result::Result<(), String> {
    use std::fs;
    let session_dir = path.with_extension("");
    fs::create_dir_all(&session_dir)
        .map_err(|e| format!("cannot create {}: {e}", session_dir.display()))?;
    let lock_path = session_dir.join("ctx-fold.lock");
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    if lock.try_lock().is_err() {
        return Err("another fold of it is running".into());
    }
    if !unchanged_since(path, before) {
        return Err("it is still being written to".into());
    }
    let kept = session_dir.join(format!("ctx-fold-{now}.jsonl"));
    write_new(&kept, original).map_err(|e| format!("cannot keep the original: {e}"))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = dir.join(format!(".{name}.ctx-fold.tmp"));
    write_new(&temp, new_text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", temp.display()))?;
    if !unchanged_since(path, before) {
        let _ = fs::remove_file(&temp);
        let _ = fs::remove_file(&kept);
        return Err("it is still being written to".into());
    }
    fs::rename(&temp, path).map_err(|e| {
        let _ = fs::remove_file(&temp);
        format!("cannot replace it: {e}")
    })
}

/// Whether the file at `path` has the size and time it had when `before` was taken.
fn unchanged_since(path: &Path, before: &std::fs::Metadata) -> bool {
    std::fs::symlink_metadata(path)
        .is_ok_and(|now| now.len() == before.len() && now.modified().ok() == before.modified().ok())
}

/// Writes `bytes` to a new file at `path` and syncs it; the transcript's own mode (private).
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_ids_become_valid_frame_ids() {
        assert_eq!(framed("cx_", "01a2-b").as_deref(), Some("cx_01a2-b"));
        assert_eq!(framed("cx_", ""), None);
        assert_eq!(framed("cx_", "../x"), None);
        assert_eq!(framed("cx_", &"a".repeat(126)), None);
    }
}

//! SessionEnd: folds the session's transcript (`crate::claude::fold`), so that a later
//! `claude --continue` or `--resume` sends each frame the model pushed and popped through Bash as
//! its summary and log path.
//!
//! Why at SessionEnd: the running process never rereads its transcript, and Claude Code appends
//! to it by path, so a transcript replaced when the session ends races nothing; a pop in a later
//! process is folded when that process ends. Nothing of the user's is lost: the transcript as it
//! was is kept beside it (the same file under a second name, or a copy where the file system has
//! no links), in the session's folder (`<session>/ctx-fold-<ms>.jsonl`), where Claude
//! Code's session list does not look and where `ctx budget spent` and ccusage, which read every
//! transcript below the project's folder and count a response once by its id, still find the
//! responses folded away. Whatever ctx does not know leaves the transcript as it is, with the
//! reason in the hook log; so does a transcript that changes while it is folded, and a line that
//! reaches the original after the last check, between it and the rename, is moved to the folded
//! transcript's end.

use std::fs;
use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::Path;

use serde_json::Value;

use crate::claude::fold::{self, Finished};
use crate::commands::Context;
use crate::error::{Error, Result};
use crate::frame::log;
use crate::frame::store::{self, Store};

/// Why a transcript that changed since it was read is left as it is.
const CHANGED: &str = "it changed since ctx read it (still being written to, or folded meanwhile)";

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
    // The file stays open: after the rename it is the original, and says whether a line reached it
    // after the last check.
    let file = store::open_regular(path).map_err(|e| refuse(&e.to_string()))?;
    let mut bytes = Vec::new();
    (&file)
        .take(MAX_FOLD + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| refuse(&e.to_string()))?;
    if bytes.len() as u64 > MAX_FOLD {
        return Err(refuse(&format!("it is larger than {} MiB", MAX_FOLD >> 20)));
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| refuse("it is not UTF-8"))?;
    let state = store.load()?;
    let at_root = input
        .get("cwd")
        .and_then(Value::as_str)
        .is_some_and(|cwd| same_folder(Path::new(cwd), &ctx.project.root));
    let finished = |id: &str| -> Option<Finished> {
        let frame = state.frame(id)?;
        if !frame.status().is_finished() {
            return None;
        }
        let log_path = store.dir().join(log::path_in_store(id));
        // The entry is in every later request: the log's path from where the model works, when
        // that is the project's root, is enough to open it, and shorter.
        let log_path = match log_path.strip_prefix(&ctx.project.root) {
            Ok(relative) if at_root => relative,
            _ => &log_path,
        };
        Some(Finished {
            parent: frame.parent().map(str::to_string),
            text: format!(
                "[ctx] Frame {id} ({}) {}, folded; its log: {}\nSummary: {}",
                frame.goal(),
                frame.status().as_str(),
                log_path.display(),
                frame.summary().unwrap_or("(none)")
            ),
        })
    };
    let folded = match fold::fold(text, &finished) {
        Ok(Some(folded)) => folded,
        Ok(None) => return Ok(None),
        Err(why) => return Err(refuse(&why)),
    };
    let session_dir = path.with_extension("");
    fs::create_dir_all(&session_dir)
        .map_err(|e| refuse(&format!("cannot create {}: {e}", session_dir.display())))?;
    // One fold of a transcript at a time: two ends of one session must not both rewrite it. The
    // session's folder and the lock are made only when there is something to fold, and the file
    // must then still be as it was read.
    let lock_path = session_dir.join("ctx-fold.lock");
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| refuse(&format!("cannot open {}: {e}", lock_path.display())))?;
    if lock.try_lock().is_err() {
        return Err(refuse("another fold of it is running"));
    }
    if !unchanged_since(path, &before) {
        return Err(refuse(CHANGED));
    }
    // The original is kept as a second name of the same file where the file system allows it: a
    // line Claude Code writes to it at any instant, even past the last check, is kept with it.
    let kept = session_dir.join(format!("ctx-fold-{}.jsonl", ctx.now));
    fs::hard_link(path, &kept)
        .or_else(|_| write_new(&kept, &bytes))
        .map_err(|e| refuse(&format!("cannot keep the original: {e}")))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = dir.join(format!(".{name}.ctx-fold.tmp"));
    write_new(&temp, folded.text.as_bytes())
        .map_err(|e| refuse(&format!("cannot write {}: {e}", temp.display())))?;
    // A line appended since it was read would be lost by the rename.
    if !unchanged_since(path, &before) {
        let _ = fs::remove_file(&temp);
        let _ = fs::remove_file(&kept);
        return Err(refuse(CHANGED));
    }
    fs::rename(&temp, path).map_err(|e| {
        let _ = fs::remove_file(&temp);
        let _ = fs::remove_file(&kept);
        refuse(&format!("cannot replace it: {e}"))
    })?;
    move_late_lines(&file, bytes.len() as u64, path)
}

/// Lines written to the original between the last check and the rename go to the folded
/// transcript's end, where Claude Code writes its next lines (they follow every line folded, so
/// nothing they point to was taken out); `original` is the file as opened before the rename,
/// which still reads them (and, kept as a link, still holds them).
fn move_late_lines(original: &File, read: u64, path: &Path) -> Result<Option<String>> {
    let late = |why: String| {
        Error::failure(format!(
            "transcript {} folded; lines written to it meanwhile {why}",
            path.display()
        ))
    };
    let now = original.metadata().map(|m| m.len()).unwrap_or(read);
    if now <= read {
        return Ok(None);
    }
    let mut tail = Vec::new();
    let mut reader = original;
    reader
        .seek(SeekFrom::Start(read))
        .and_then(|_| reader.read_to_end(&mut tail))
        .map_err(|e| late(format!("could not be moved to it: {e}")))?;
    fs::OpenOptions::new()
        .append(true)
        .open(path)
        .and_then(|mut folded| folded.write_all(&tail))
        .map_err(|e| late(format!("could not be moved to it: {e}")))?;
    Err(late(format!(
        "({} bytes) were moved to its end",
        tail.len()
    )))
}

/// Whether `a` and `b` are one folder, seen through links.
fn same_folder(a: &Path, b: &Path) -> bool {
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

/// Whether the file at `path` is the one `before` was taken of, with the size and time it had.
fn unchanged_since(path: &Path, before: &fs::Metadata) -> bool {
    fs::symlink_metadata(path).is_ok_and(|now| {
        now.len() == before.len()
            && now.modified().ok() == before.modified().ok()
            && same_file(&now, before)
    })
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &fs::Metadata, _: &fs::Metadata) -> bool {
    true
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

/// Writes `bytes` to a new file at `path` and syncs it; the transcript's own mode (private).
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = fs::OpenOptions::new();
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
    fn lines_that_reach_the_original_after_the_last_check_go_to_the_folded_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "a\nb\n").unwrap();
        let original = File::open(&path).unwrap();
        let read = 4;
        let mut late = fs::OpenOptions::new().append(true).open(&path).unwrap();
        late.write_all(b"c\n").unwrap();
        let temp = dir.path().join("t");
        fs::write(&temp, "a\n").unwrap();
        fs::rename(&temp, &path).unwrap();
        let why = move_late_lines(&original, read, &path)
            .unwrap_err()
            .to_string();
        assert!(why.contains("(2 bytes) were moved to its end"), "{why}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "a\nc\n");
        // Nothing late, nothing moved.
        let original = File::open(&path).unwrap();
        assert!(move_late_lines(&original, 4, &path).unwrap().is_none());
        assert_eq!(fs::read_to_string(&path).unwrap(), "a\nc\n");
    }

    #[test]
    fn a_file_put_in_its_place_is_a_change_even_of_the_same_size_and_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "ab\n").unwrap();
        let before = fs::symlink_metadata(&path).unwrap();
        assert!(unchanged_since(&path, &before));
        let other = dir.path().join("o");
        fs::write(&other, "cd\n").unwrap();
        File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(before.modified().unwrap())
            .unwrap();
        fs::rename(&other, &path).unwrap();
        assert!(!unchanged_since(&path, &before));
    }
}

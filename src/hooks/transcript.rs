//! The rewrite of an agent's transcript (Claude Code's session `.jsonl`, Codex's rollout) with its
//! popped frames folded, when its session ends: what both agents' SessionEnd hooks share; and the
//! line appended to one whose agent reads a fold as a record of its own (Qwen Code's
//! `chat_compression`), which needs no rewrite.
//!
//! Nothing of the user's is lost. The transcript as it was is kept beside it, in the session's
//! folder (`<path without .jsonl>/ctx-fold-<ms>.jsonl`, which the agents' session lists do not
//! read): the same file under a second name, or a copy where the file system has no links. One
//! rewrite of a transcript at a time (a lock in that folder); a transcript that changes while it
//! is folded is left as it is; and a line that reaches the original after the last check, between
//! it and the rename, is moved to the folded transcript's end.

use std::fs::{self, File, Metadata};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use crate::frame::log;
use crate::frame::state::State;
use crate::frame::store::Store;

/// Transcripts larger than this are not folded.
pub const MAX_FOLD: u64 = 64 << 20;

/// Why a transcript that changed since it was read is left as it is.
pub const CHANGED: &str =
    "it changed since ctx read it (still being written to, or folded meanwhile)";

/// What a fold of a transcript (or rollout) made of it: its new text when a frame folded, the
/// frames folded, in order (outermost spans only), and why each frame it pushed and popped that
/// stays unfolded does: a frame ctx cannot fold safely is left as it is, and the others still
/// fold.
#[derive(Debug, Default)]
pub struct Folded {
    /// `None`: nothing folded, the transcript stays as it is.
    pub text: Option<String>,
    pub frames: Vec<String>,
    /// One sentence per frame left unfolded, for the hook log.
    pub refused: Vec<String>,
}

/// A transcript read for folding, still open: after the rename, the open file is the original,
/// and says whether a line reached it after the last check.
pub struct Transcript {
    path: PathBuf,
    file: File,
    before: Metadata,
    bytes: Vec<u8>,
}

/// What became of a rewrite that went through.
pub enum Rewritten {
    /// The folded transcript took the original's place.
    Done,
    /// It did, and lines written meanwhile were (or could not be) moved to its end: the hook
    /// log's line.
    WithLateLines(String),
}

impl Transcript {
    /// Opens the transcript at `path` for folding: a regular file (not a link), below the agent's
    /// own folder (`inside`), at most [`MAX_FOLD`] bytes. The error says why it is left alone.
    pub fn open(path: &Path, inside: impl Fn(&Path) -> bool, folder: &str) -> Result<Self, String> {
        let before = fs::symlink_metadata(path).map_err(|e| format!("cannot be read: {e}"))?;
        if before.file_type().is_symlink() {
            return Err("it is a symbolic link".into());
        }
        if !before.is_file() {
            return Err("it is not a regular file".into());
        }
        if !inside(path) {
            return Err(format!("it is not below {folder}"));
        }
        let too_large = || format!("it is larger than {} MiB", MAX_FOLD >> 20);
        if before.len() > MAX_FOLD {
            return Err(too_large());
        }
        let file = crate::safe_file::open_regular(path).map_err(|e| e.to_string())?;
        let mut bytes = Vec::new();
        (&file)
            .take(MAX_FOLD + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        if bytes.len() as u64 > MAX_FOLD {
            return Err(too_large());
        }
        // The agents end every line they write: a last line without its end is one still being
        // written, read half-way, and not a line ctx cannot read.
        if bytes.last().is_some_and(|&b| b != b'\n') {
            return Err(CHANGED.into());
        }
        Ok(Self {
            path: path.to_path_buf(),
            file,
            before,
            bytes,
        })
    }

    /// Its text, as read.
    pub fn text(&self) -> Result<&str, String> {
        std::str::from_utf8(&self.bytes).map_err(|_| "it is not UTF-8".into())
    }

    /// Appends `line` (one JSON line, ending in a newline) to the transcript, unless it changed
    /// since it was read: every line of it stays as it is. The error says why nothing was added.
    pub fn append(&self, line: &str) -> Result<(), String> {
        if !unchanged_since(&self.path, &self.before) {
            return Err(CHANGED.into());
        }
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .map_err(|e| format!("cannot open it to append: {e}"))?;
        file.write_all(line.as_bytes())
            .map_err(|e| format!("cannot append to it: {e}"))
    }

    /// Replaces the transcript by `folded`, keeping the original in the session's folder as
    /// `ctx-fold-<now>.jsonl`. The error says why it was left as it is.
    pub fn rewrite(&self, folded: &str, now: i64) -> Result<Rewritten, String> {
        let path = &self.path;
        let session_dir = path.with_extension("");
        fs::create_dir_all(&session_dir)
            .map_err(|e| format!("cannot create {}: {e}", session_dir.display()))?;
        // One fold of a transcript at a time: two ends of one session must not both rewrite it.
        // The session's folder and the lock are made only when there is something to fold, and
        // the file must then still be as it was read.
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
        if !unchanged_since(path, &self.before) {
            return Err(CHANGED.into());
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = path.parent().unwrap_or(Path::new("."));
        // What a fold killed before its rename left (agents kill a hook at their time limit):
        // under the lock, it is no live fold's.
        remove_dead_fold(dir, &name, &session_dir, &self.before, &self.bytes);
        // The original is kept as a second name of the same file where the file system allows
        // it: a line the agent writes to it at any instant, even past the last check, is kept
        // with it.
        let kept = session_dir.join(format!("ctx-fold-{now}.jsonl"));
        fs::hard_link(path, &kept)
            .or_else(|_| write_new(&kept, &self.bytes))
            .map_err(|e| format!("cannot keep the original: {e}"))?;
        let temp = dir.join(format!(".{name}.ctx-fold.{}.tmp", random_suffix()?));
        write_new(&temp, folded.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", temp.display()))?;
        // A line appended since it was read would be lost by the rename.
        if !unchanged_since(path, &self.before) {
            let _ = fs::remove_file(&temp);
            let _ = fs::remove_file(&kept);
            return Err(CHANGED.into());
        }
        fs::rename(&temp, path).map_err(|e| {
            let _ = fs::remove_file(&temp);
            let _ = fs::remove_file(&kept);
            format!("cannot replace it: {e}")
        })?;
        Ok(
            match move_late_lines(&self.file, self.bytes.len() as u64, path) {
                None => Rewritten::Done,
                Some(why) => {
                    Rewritten::WithLateLines(format!("lines written to it meanwhile {why}"))
                }
            },
        )
    }
}

/// A random name part, so that no file left by a killed fold can stand in the next one's way.
fn random_suffix() -> Result<String, String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|e| format!("cannot read the system's random source: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Removes what a fold of the transcript `name` in `dir` that was killed before its rename left
/// behind: its temp file (`.<name>.ctx-fold[.<random>].tmp`, the name without the random part
/// being an earlier ctx's) and the original it kept in `session_dir` — a `ctx-fold-<ms>.jsonl`
/// that is still the transcript itself (the same file, or a copy of the same bytes where the file
/// system has no links), which a fold that went through would have replaced. The caller holds
/// the fold lock, which every fold takes before it writes either.
fn remove_dead_fold(dir: &Path, name: &str, session_dir: &Path, current: &Metadata, bytes: &[u8]) {
    let prefix = format!(".{name}.ctx-fold.");
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let file_name = file_name.to_string_lossy();
            if file_name.starts_with(&prefix) && file_name.ends_with(".tmp") {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    let Ok(entries) = fs::read_dir(session_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        if !(file_name.starts_with("ctx-fold-") && file_name.ends_with(".jsonl")) {
            continue;
        }
        let Ok(meta) = fs::symlink_metadata(entry.path()) else {
            continue;
        };
        // Where a file's identity cannot be read, only the same bytes tell.
        let linked = cfg!(unix) && same_file(&meta, current);
        let stale = meta.is_file()
            && (linked
                || (meta.len() == current.len()
                    && fs::read(entry.path()).is_ok_and(|kept| kept == bytes)));
        if stale {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Lines written to the original between the last check and the rename go to the folded
/// transcript's end, where the agent writes its next lines (they follow every line folded, so
/// nothing they point to was taken out); `original` is the file as opened before the rename,
/// which still reads them (and, kept as a link, still holds them). What was done, when there
/// were any.
fn move_late_lines(original: &File, read: u64, path: &Path) -> Option<String> {
    let now = original.metadata().map(|m| m.len()).unwrap_or(read);
    if now <= read {
        return None;
    }
    let mut tail = Vec::new();
    let mut reader = original;
    let moved = reader
        .seek(SeekFrom::Start(read))
        .and_then(|_| reader.read_to_end(&mut tail))
        .and_then(|_| fs::OpenOptions::new().append(true).open(path))
        .and_then(|mut folded| folded.write_all(&tail));
    Some(match moved {
        Ok(()) => format!("({} bytes) were moved to its end", tail.len()),
        Err(e) => format!("could not be moved to it: {e}"),
    })
}

/// Folds the transcript at `path`, one of the agent's (`noun`: "transcript", "rollout"), at its
/// session's end: it must lie below `folder` (the agent's own folder, `folder_name` to people),
/// `fold` turns its text into the folded text (`None`: nothing to fold; `Err`: why it is left as
/// it is), and the folded text takes its place ([`Transcript::rewrite`]). `note` gets a hook log
/// line for each frame the fold left unfolded, the others folding all the same; the error is the
/// hook log's line: why the whole transcript was left as it is, or that lines written meanwhile
/// were moved.
pub fn fold_at_end(
    path: &Path,
    noun: &str,
    folder: Option<PathBuf>,
    folder_name: &str,
    now: i64,
    fold: impl FnOnce(&str) -> Result<Folded, String>,
    mut note: impl FnMut(&str),
) -> crate::error::Result<()> {
    let refuse = |why: String| {
        crate::error::Error::failure(format!("{noun} {} left as it is: {why}", path.display()))
    };
    let inside = |path: &Path| folder.as_deref().is_some_and(|folder| below(path, folder));
    let transcript = Transcript::open(path, inside, folder_name).map_err(refuse)?;
    let folded = fold(transcript.text().map_err(refuse)?).map_err(refuse)?;
    for why in &folded.refused {
        note(&format!("{noun} {}: {why}", path.display()));
    }
    let Some(text) = folded.text else {
        return Ok(());
    };
    match transcript.rewrite(&text, now).map_err(refuse)? {
        Rewritten::Done => Ok(()),
        Rewritten::WithLateLines(why) => Err(crate::error::Error::failure(format!(
            "{noun} {} folded; {why}",
            path.display()
        ))),
    }
}

/// Whether the file at `path` lies in a folder below `folder`, both seen through links.
pub fn below(path: &Path, folder: &Path) -> bool {
    let (Ok(folder), Some(Ok(parent))) = (
        fs::canonicalize(folder),
        path.parent().map(fs::canonicalize),
    ) else {
        return false;
    };
    parent.starts_with(&folder) && parent != folder
}

/// The project's root, when the session ran there (its `cwd`): a folded frame's log is then
/// named from it ([`folded_text`]).
pub fn root_if_ran_there<'r>(cwd: Option<&str>, root: &'r Path) -> Option<&'r Path> {
    cwd.filter(|cwd| same_folder(Path::new(cwd), root))
        .map(|_| root)
}

/// What a transcript holds, after a fold, in place of a finished frame's messages: its id, goal,
/// status, the log that keeps them all, and its summary; `None` when the frame is not finished.
/// The text is in every later request, so it is short, and the log's path is taken from the
/// project's root when the session ran there (`at_root`): from where the model works, that is
/// enough to open it.
pub fn folded_text(store: &Store, state: &State, id: &str, root: Option<&Path>) -> Option<String> {
    let frame = state.frame(id)?;
    if !frame.status().is_finished() {
        return None;
    }
    let log_path = store.dir().join(log::path_in_store(&frame.frame_id()));
    let log_path = match root.map(|root| log_path.strip_prefix(root)) {
        Some(Ok(relative)) => relative,
        _ => &log_path,
    };
    Some(format!(
        "[ctx] Frame {id} ({}) {}, folded; its log: {}\nSummary: {}",
        frame.goal(),
        frame.status().as_str(),
        log_path.display(),
        frame.summary().unwrap_or("(none)")
    ))
}

/// Whether `a` and `b` are one folder, seen through links.
fn same_folder(a: &Path, b: &Path) -> bool {
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

/// Whether the file at `path` is the one `before` was taken of, with the size and time it had.
fn unchanged_since(path: &Path, before: &Metadata) -> bool {
    fs::symlink_metadata(path).is_ok_and(|now| {
        now.len() == before.len()
            && now.modified().ok() == before.modified().ok()
            && same_file(&now, before)
    })
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    true
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
        let why = move_late_lines(&original, read, &path).unwrap();
        assert!(why.contains("(2 bytes) were moved to its end"), "{why}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "a\nc\n");
        // Nothing late, nothing moved.
        let original = File::open(&path).unwrap();
        assert!(move_late_lines(&original, 4, &path).is_none());
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

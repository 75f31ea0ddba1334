//! The only way `state.json` is read and written (flame.md §3.4–3.5): validated reads, and writes
//! under an exclusive lock on `state.json.lock`, through a synced temp file renamed into place.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use super::id::FrameId;
use super::state::{self, SCHEMA_VERSION, State};
use crate::error::{Error, Result};
use crate::safe_file::{
    ReadBuffer, existing_mode, open_capped, read_to_end_capped, sync_dir, write_and_rename,
    write_atomically,
};

/// How long a writer waits for the lock (flame.md §3.5).
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a writer in hook mode waits for the lock: well inside the 10 s Claude Code gives a
/// hook (the timeout `ctx claude install` writes) and ctx's OpenCode plugin gives a ctx call, so
/// that the hook logs why it skipped its work before it would be killed.
pub const HOOK_LOCK_TIMEOUT: Duration = Duration::from_secs(3);
/// A state file larger than this is refused instead of read into memory.
const MAX_STATE_BYTES: u64 = 512 << 20;

pub const STATE_FILE: &str = "state.json";
pub const LOCK_FILE: &str = "state.json.lock";

/// The frame store of one project.
pub struct Store {
    root: PathBuf,
    dir: PathBuf,
    path: PathBuf,
    /// How long a write waits for the lock.
    lock_timeout: Duration,
    /// Why `.opencode/flame/` may not be created here, when it may not (hook mode, see
    /// [`Store::for_hook`]).
    no_new_dir: Option<String>,
}

impl Store {
    pub fn new(root: &Path) -> Store {
        let dir = root.join(".opencode").join("flame");
        Store {
            root: root.to_path_buf(),
            path: dir.join(STATE_FILE),
            dir,
            lock_timeout: LOCK_TIMEOUT,
            no_new_dir: None,
        }
    }

    /// The store as a hook call uses it: it waits [`HOOK_LOCK_TIMEOUT`] for the lock, and, when
    /// `no_new_dir` says why, refuses to create `.opencode/flame/` (a folder that exists is used).
    pub fn for_hook(mut self, no_new_dir: Option<String>) -> Store {
        self.lock_timeout = HOOK_LOCK_TIMEOUT;
        self.no_new_dir = no_new_dir;
        self
    }

    /// Refuses, before anything is created, to start `.opencode/flame/` where the store may not.
    fn check_may_create(&self) -> Result<()> {
        match &self.no_new_dir {
            Some(why) if fs::symlink_metadata(&self.dir).is_err() => {
                Err(Error::failure(why.clone()))
            }
            _ => Ok(()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reads the state without the lock: a missing file (or a dangling link) is the empty state.
    pub fn load(&self) -> Result<State> {
        let buffer = ReadBuffer::for_file(&self.path, MAX_STATE_BYTES);
        match open_state(&self.path)? {
            Some(file) => parse_state(&self.path, read_state_text(&self.path, &file, buffer)?),
            None => Ok(State::empty()),
        }
    }

    /// Runs `edit` on the state under the lock and writes the result when `edit` reports a change.
    /// `edit` checks its preconditions before any side effect; an error leaves everything untouched.
    /// Returns `edit`'s result and the state as written.
    ///
    /// Where there is no frame tree yet (no `.opencode/flame/`), `edit` first runs on the empty
    /// state with nothing created: a refusal then leaves no folder and no lock behind (a new
    /// `.opencode/` would change which folder later commands take as the project root). `edit`
    /// runs again under the lock when it does change something.
    pub fn update<T>(
        &self,
        now: i64,
        mut edit: impl FnMut(&mut State) -> Result<(T, bool)>,
    ) -> Result<(T, State)> {
        if fs::symlink_metadata(&self.dir).is_err() {
            let mut trial = State::empty();
            let (result, changed) = edit(&mut trial)?;
            if !changed {
                return Ok((result, trial));
            }
        }
        self.check_may_create()?;
        let target = self.write_target()?;
        let target_dir = target.parent().unwrap_or(&self.dir).to_path_buf();
        self.check_inside(&self.dir)?;
        fs::create_dir_all(&self.dir)
            .map_err(|e| Error::io(&self.dir, "create the directory", &e))?;
        let lock_file = self.open_lock_file()?;
        // Every other writer waits while this one holds the lock, so the less done under it the
        // better. When no writer is at work, the state most likely stays as it is until the lock
        // is taken: it is read and parsed before, and under the lock only checked to be the same
        // (`Ahead::still_current`). (When writers are at work, it would most likely have changed
        // by then: it is read under the lock only, as the work done ahead would be lost.)
        let ahead = match lock_file.try_lock() {
            Ok(()) => {
                let _ = lock_file.unlock();
                Ahead::read(&target)
            }
            Err(_) => None,
        };
        // Made ready before the lock is taken: the memory is mapped in as it is first written,
        // a page at a time, and that is a good part of reading the state.
        let buffer = ahead
            .is_none()
            .then(|| ReadBuffer::for_file(&target, MAX_STATE_BYTES));
        let lock = self.take_lock(lock_file)?;

        // The files read stay open until the lock is released: the rename then only unlinks the
        // one it replaces (and another writer may have replaced the one read ahead), and the file
        // system frees their blocks when they are closed, outside the lock (a slow step where
        // freeing means discarding, as on file systems mounted with `discard`).
        let replaced = open_state(&target)?;
        let (mut state, _read_ahead) = match (&replaced, ahead) {
            (None, ahead) => (State::empty(), ahead.map(|a| a.file)),
            (Some(file), Some(ahead)) if ahead.still_current(file) => {
                (ahead.state, Some(ahead.file))
            }
            (Some(file), ahead) => {
                // From the start: a comparison may have read part of it.
                io::Seek::rewind(&mut &*file).map_err(|e| Error::io(&target, "read", &e))?;
                let buffer =
                    buffer.unwrap_or_else(|| ReadBuffer::for_file(&target, MAX_STATE_BYTES));
                let state = parse_state(&target, read_state_text(&target, file, buffer)?)?;
                (state, ahead.map(|a| a.file))
            }
        };
        if state.version() > SCHEMA_VERSION {
            return Err(Error::failure(format!(
                "{} has version {}; this ctx writes version {SCHEMA_VERSION} only",
                self.path.display(),
                state.version()
            ))
            .with_hint("upgrade ctx, or move the file aside"));
        }
        let (result, changed) = edit(&mut state)?;
        if changed {
            state.set_updated_at(now);
            let mode = existing_mode(&target);
            write_and_rename(&target_dir, &target, mode, STATE_FILE, |out| {
                state.write_text(out)
            })?;
            remove_dead_writers_temps(&target_dir, &format!(".{STATE_FILE}."));
            // The next writer may start as soon as the new file is in place: it reads that file,
            // so its own write carries this one, and this process reports success only once the
            // rename is durable. A crash before then leaves the old or the new file, as ever.
            drop(lock);
            sync_dir(&target_dir);
        }
        Ok((result, state))
    }

    /// Where the log of frame `id` is (or would be) written.
    pub fn log_file(&self, id: &FrameId) -> PathBuf {
        self.dir
            .join(super::log::DIR)
            .join(super::log::file_name(id))
    }

    /// Writes the log of frame `id` the way the state is written: inside the project only, to a
    /// temp file renamed into place, keeping an existing file's permissions. Called by an edit
    /// of [`Store::update`], under the lock, which makes it the one to remove what killed
    /// writers of logs left (the log folder grows with every pop: it is not read on every write).
    pub fn write_log(&self, id: &FrameId, text: &str) -> Result<()> {
        let dir = self.dir.join(super::log::DIR);
        self.check_may_create()?;
        self.check_inside(&dir)?;
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, "create the directory", &e))?;
        let file = self.log_file(id);
        let mode = existing_mode(&file);
        write_atomically(&dir, &file, mode, &super::log::file_name(id), |out| {
            out.write_all(text.as_bytes())
        })?;
        remove_dead_writers_temps(&dir, ".frame-");
        Ok(())
    }

    /// Runs `write` under the state's lock, once `dir` (a folder below the store's, created if
    /// need be) is known to be inside the project and the store may be started here: for the
    /// files beside the state that its writers share the lock of (`compact::session`).
    pub fn with_lock<T>(&self, dir: &Path, write: impl FnOnce() -> Result<T>) -> Result<T> {
        self.check_may_create()?;
        self.check_inside(dir)?;
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, "create the directory", &e))?;
        let _lock = self.lock()?;
        write()
    }

    /// Refuses to write in `dir` when it, or the nearest ancestor that exists (where creating it
    /// would start), resolves through symbolic links to a place outside the project root.
    pub fn check_inside(&self, dir: &Path) -> Result<()> {
        let Some(existing) = dir.ancestors().find(|a| a.exists()) else {
            return Ok(());
        };
        let resolved =
            fs::canonicalize(existing).map_err(|e| Error::io(existing, "resolve", &e))?;
        let root = fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        if resolved.starts_with(&root) {
            Ok(())
        } else {
            Err(Error::failure(format!(
                "{} leads to {}, outside the project; refusing to write there",
                existing.display(),
                resolved.display()
            )))
        }
    }

    /// The file a write replaces: `state.json`, or the target of a symbolic link inside the project.
    fn write_target(&self) -> Result<PathBuf> {
        let meta = match fs::symlink_metadata(&self.path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(self.path.clone()),
            Err(e) => return Err(Error::io(&self.path, "read", &e)),
        };
        let target = if meta.file_type().is_symlink() {
            let link = fs::read_link(&self.path)
                .map_err(|e| Error::io(&self.path, "read the link", &e))?;
            let target = self.dir.join(&link);
            let resolved = fs::canonicalize(&target).map_err(|_| {
                Error::failure(format!(
                    "{} is a symbolic link to {}, which does not exist; refusing to write through it",
                    self.path.display(),
                    link.display()
                ))
                .with_hint("remove the link, or restore the file it points to")
            })?;
            let root = fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
            if !resolved.starts_with(&root) {
                return Err(Error::failure(format!(
                    "{} is a symbolic link to {}, outside the project; refusing to write there",
                    self.path.display(),
                    resolved.display()
                )));
            }
            resolved
        } else {
            self.path.clone()
        };
        match fs::metadata(&target) {
            Ok(meta) if meta.permissions().readonly() => Err(Error::failure(format!(
                "{} is read-only; refusing to replace it",
                target.display()
            ))
            .with_hint("make it writable (chmod u+w) if ctx may change it")),
            Ok(meta) if !meta.is_file() => Err(Error::failure(format!(
                "{} is not a regular file",
                target.display()
            ))),
            _ => Ok(target),
        }
    }

    /// Takes the exclusive lock on `state.json.lock`, waiting for it up to [`LOCK_TIMEOUT`]
    /// ([`HOOK_LOCK_TIMEOUT`] in hook mode).
    ///
    /// A writer that finds the lock taken waits in the kernel's queue of the lock's waiters
    /// (a blocking `flock`), which serves them in order of arrival: polling instead lets a process
    /// that arrives while the others sleep take the lock ahead of them, so that some wait seconds
    /// while most wait milliseconds. A file system that cannot lock is refused: writing without
    /// the lock could lose another process's update.
    fn lock(&self) -> Result<File> {
        self.take_lock(self.open_lock_file()?)
    }

    /// Opens (creating it if need be) `state.json.lock`, the file whose lock [`Store::lock`] takes.
    fn open_lock_file(&self) -> Result<File> {
        let path = self.dir.join(LOCK_FILE);
        // Opening follows links: a link could make ctx create a file anywhere.
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::failure(format!(
                "{} is a symbolic link; refusing to use it as the lock",
                path.display()
            ))
            .with_hint("remove the link; ctx creates the lock file itself"));
        }
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, "open the lock file", &e))
    }

    /// Takes the lock of `file`, opened by [`Store::open_lock_file`], as [`Store::lock`] says.
    fn take_lock(&self, file: File) -> Result<File> {
        let path = self.dir.join(LOCK_FILE);
        let waited = match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(fs::TryLockError::WouldBlock) => wait_for_lock(file, self.lock_timeout),
            Err(fs::TryLockError::Error(e)) => Err(Some(e)),
        };
        waited.map_err(|error| match error {
            None => Error::failure(format!(
                "{} is locked by another ctx process",
                self.path.display()
            ))
            .with_hint(format!(
                "waited {} s for the lock on {}, which another process still holds",
                self.lock_timeout.as_secs(),
                path.display()
            )),
            Some(e) => lock_error(&path, &e),
        })
    }
}

/// Waits for the lock of `file` in the kernel's queue, on a helper thread so that the wait can
/// end at `timeout`. `Err(None)`: the timeout passed.
///
/// The helper locks a duplicate of the descriptor, which shares the lock, and closes it as soon as
/// the lock is taken. When the timeout passes first, the helper keeps waiting with its duplicate;
/// if it gets the lock, closing the duplicate, the last descriptor open, releases it.
fn wait_for_lock(file: File, timeout: Duration) -> Result<File, Option<io::Error>> {
    let waiter = file.try_clone().map_err(Some)?;
    let (done, taken) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("lock".into())
        .spawn(move || {
            let locked = loop {
                match waiter.lock() {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    locked => break locked,
                }
            };
            // Closed before the answer is sent: once `file` is dropped, nothing holds the lock.
            drop(waiter);
            let _ = done.send(locked);
        })
        .map_err(Some)?;
    match taken.recv_timeout(timeout) {
        Ok(Ok(())) => Ok(file),
        Ok(Err(e)) => Err(Some(e)),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(None),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(Some(io::Error::other(
            "the thread waiting for the lock stopped",
        ))),
    }
}

/// The error of a failed lock call on `lock_file`. A file system without locks gets its own
/// message: ctx will not write the state there at all.
fn lock_error(lock_file: &Path, err: &io::Error) -> Error {
    let error = Error::io(lock_file, "lock", err);
    if !locks_unsupported(err) {
        return error;
    }
    Error::failure(format!(
        "{}; this file system does not support locks, and ctx does not write {STATE_FILE} without one",
        error.message
    ))
    .with_hint("keep the project on a file system with locks (NFS needs its lock service running)")
}

/// Whether a lock call failed because the file system does not lock at all: `ENOLCK` (NFS without
/// its lock service), `EOPNOTSUPP`/`ENOTSUP` and `ENOSYS` (file systems without `flock`), or what
/// the platform reports as unsupported.
fn locks_unsupported(err: &io::Error) -> bool {
    #[cfg(unix)]
    if let Some(code) = err.raw_os_error()
        && [libc::ENOLCK, libc::EOPNOTSUPP, libc::ENOTSUP, libc::ENOSYS].contains(&code)
    {
        return true;
    }
    err.kind() == io::ErrorKind::Unsupported
}

/// Opens a state file to read it: `None` when it does not exist (or is a dangling link).
fn open_state(path: &Path) -> Result<Option<File>> {
    // Opening a named pipe would wait for a writer forever, and a device can be endless.
    if let Ok(meta) = fs::metadata(path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        return Err(Error::failure(format!(
            "{}: not a regular file; refusing to read it",
            path.display()
        )));
    }
    match open_capped(path, MAX_STATE_BYTES) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(state_read_error(path, &e)),
    }
}

/// Reads the text of the state file `file`, opened by [`open_state`] from `path`.
fn read_state_text(path: &Path, file: &File, buffer: ReadBuffer) -> Result<String> {
    let mut bytes = read_to_end_capped(file, MAX_STATE_BYTES, buffer)
        .map_err(|e| state_read_error(path, &e))?;
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let (line, column) = line_column(&bytes[..e.utf8_error().valid_up_to()]);
        Error::failure(format!(
            "{}: not UTF-8: invalid byte at line {line}, column {column}",
            path.display()
        ))
    })
}

fn state_read_error(path: &Path, e: &io::Error) -> Error {
    if e.kind() == io::ErrorKind::FileTooLarge {
        Error::failure(format!(
            "{}: larger than {} MiB; refusing to read it",
            path.display(),
            MAX_STATE_BYTES >> 20
        ))
    } else {
        Error::io(path, "read", e)
    }
}

/// Whether the rest of `file` is `text`, read a piece at a time (a state file with a byte order
/// mark never is: the mark is not in the text).
fn holds_text(file: &File, text: &str) -> io::Result<bool> {
    use std::io::Read;
    if file.metadata()?.len() != text.len() as u64 {
        return Ok(false);
    }
    let mut piece = vec![0; 64 << 10];
    let mut rest = text.as_bytes();
    loop {
        let n = match (&*file).read(&mut piece) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(rest.is_empty());
        }
        match rest.strip_prefix(&piece[..n]) {
            Some(after) => rest = after,
            None => return Ok(false),
        }
    }
}

/// Parses and validates the text of the state file at `path`; the state keeps the text
/// (unchanged frames are written back from it).
fn parse_state(path: &Path, text: String) -> Result<State> {
    state::parse_owned(text).map_err(|invalid| {
        let err = Error::failure(format!("{}: {}", path.display(), invalid.message));
        if invalid.empty {
            err.with_hint(
                "it may be what remains of a failed write; move it aside to start a new tree",
            )
        } else {
            err
        }
    })
}

/// A state read and parsed ahead of the lock.
struct Ahead {
    state: State,
    /// Kept open until the lock is released: while it is, no other file can get its inode
    /// number, and it is not freed under the lock when another writer replaced it.
    file: File,
    /// What the file said of itself, when that is enough to tell it unchanged later.
    settled: Option<Stamp>,
}

/// How long before a read a file must have last changed for its [`Stamp`] to be trusted: file
/// times tick coarsely (by the kernel's clock tick, or a server's clock), so two changes in one
/// tick can leave the same time; one this long before the read cannot share a tick with a change
/// after it.
const SETTLED: Duration = Duration::from_secs(1);

/// What identifies a file and its last change.
#[derive(PartialEq)]
struct Stamp {
    #[cfg(unix)]
    inode: (u64, u64),
    len: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    changed: (i64, i64),
}

impl Stamp {
    fn of(meta: &fs::Metadata) -> Stamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Stamp {
            #[cfg(unix)]
            inode: (meta.dev(), meta.ino()),
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }
}

impl Ahead {
    /// Reads and parses the state at `path`; `None` when there is nothing to read or it cannot
    /// be used (the read under the lock then says what is wrong).
    fn read(path: &Path) -> Option<Ahead> {
        let file = open_state(path).ok()??;
        let before = Stamp::of(&file.metadata().ok()?);
        let started = std::time::SystemTime::now();
        let text =
            read_state_text(path, &file, ReadBuffer::for_file(path, MAX_STATE_BYTES)).ok()?;
        let after = Stamp::of(&file.metadata().ok()?);
        let settled = cfg!(unix)
            && before == after
            && before
                .modified
                .is_some_and(|at| at.checked_add(SETTLED).is_some_and(|at| at <= started));
        let state = parse_state(path, text).ok()?;
        Some(Ahead {
            state,
            file,
            settled: settled.then_some(before),
        })
    }

    /// Whether `file`, the state file as it is under the lock, is the one read ahead, unchanged.
    /// Every ctx write replaces the file with a new one; a program that writes it in place
    /// changes its size or times, except within one tick of the clock: a file that changed
    /// that recently is compared byte for byte.
    fn still_current(&self, file: &File) -> bool {
        match &self.settled {
            Some(stamp) => file.metadata().is_ok_and(|meta| Stamp::of(&meta) == *stamp),
            None => holds_text(file, self.state.text()).unwrap_or(false),
        }
    }
}

/// The 1-based line and column just after `valid_prefix`, for "invalid byte at" messages.
pub fn line_column(valid_prefix: &[u8]) -> (usize, usize) {
    let text = String::from_utf8_lossy(valid_prefix);
    let line = text.matches('\n').count() + 1;
    let column = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Removes the files of `dir` named `<prefix>*.tmp`: what killed writers left behind. The caller
/// holds the state lock, and every temp file of the state and of the logs is written by a
/// writer holding that lock (state writes, and the log writes of `pop` and `edit`, happen inside
/// [`Store::update`]); so none of them can belong to a writer still at work, whatever its age.
/// (Flame itself writes state.json in place, without temp files of these names.)
pub fn remove_dead_writers_temps(dir: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if file_name.starts_with(prefix) && file_name.ends_with(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// A lock on the folder `dir` itself (`flock` on the folder: no file is added to it), held until
/// it is dropped, taken within `timeout`. `Ok(None)` where the folder cannot be opened or the file
/// system does not lock (ctx then goes on as before, with the race the lock would close).
pub fn lock_folder(dir: &Path, timeout: Duration) -> Result<Option<File>> {
    let Ok(file) = File::open(dir) else {
        return Ok(None);
    };
    let waited = match file.try_lock() {
        Ok(()) => return Ok(Some(file)),
        Err(fs::TryLockError::WouldBlock) => wait_for_lock(file, timeout),
        Err(fs::TryLockError::Error(_)) => return Ok(None),
    };
    match waited {
        Ok(file) => Ok(Some(file)),
        Err(None) => Err(Error::failure(format!(
            "{} is locked by another ctx process",
            dir.display()
        ))
        .with_hint(format!(
            "waited {} s for it; run the command again once the other one is done",
            timeout.as_secs()
        ))),
        Err(Some(_)) => Ok(None),
    }
}

/// True when a relative `/`-separated path stays where it is joined (no root, no `..`).
pub fn is_contained_relative(path: &str) -> bool {
    let path = Path::new(path);
    !path.as_os_str().is_empty()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn file_systems_without_locks_are_told_apart_from_other_lock_failures() {
        for code in [libc::ENOLCK, libc::EOPNOTSUPP, libc::ENOTSUP, libc::ENOSYS] {
            assert!(
                locks_unsupported(&io::Error::from_raw_os_error(code)),
                "{code}"
            );
        }
        for code in [libc::EIO, libc::EBADF, libc::EINTR, libc::EWOULDBLOCK] {
            assert!(
                !locks_unsupported(&io::Error::from_raw_os_error(code)),
                "{code}"
            );
        }
        let lock = Path::new("p/.opencode/flame/state.json.lock");
        let unsupported = lock_error(lock, &io::Error::from_raw_os_error(libc::ENOLCK));
        assert!(
            unsupported.message.starts_with(
                "p/.opencode/flame/state.json.lock: cannot lock: No locks available; \
                 this file system does not support locks"
            ),
            "{}",
            unsupported.message
        );
        assert_eq!(unsupported.hints.len(), 1);
        let other = lock_error(lock, &io::Error::from_raw_os_error(libc::EIO));
        assert_eq!(
            other.message,
            "p/.opencode/flame/state.json.lock: cannot lock: Input/output error"
        );
        assert!(other.hints.is_empty());
    }

    #[test]
    fn what_the_platform_reports_as_unsupported_is_a_file_system_without_locks() {
        assert!(locks_unsupported(&io::Error::from(
            io::ErrorKind::Unsupported
        )));
        assert!(!locks_unsupported(&io::Error::from(io::ErrorKind::Other)));
    }

    #[test]
    fn a_waiter_is_served_when_the_holder_lets_go_and_gives_up_at_the_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        let open = || {
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .unwrap()
        };
        let holder = open();
        holder.lock().unwrap();
        assert!(matches!(
            wait_for_lock(open(), Duration::from_millis(50)),
            Err(None)
        ));
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(holder);
        });
        let waiter = wait_for_lock(open(), Duration::from_secs(10)).expect("served");
        releaser.join().unwrap();
        // The waiter holds the lock now; the one that timed out left nothing held behind.
        assert!(matches!(
            open().try_lock(),
            Err(fs::TryLockError::WouldBlock)
        ));
        drop(waiter);
        open().try_lock().expect("free once the waiter lets go");
    }

    #[test]
    fn holds_text_is_true_only_for_the_same_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STATE_FILE);
        let text = "{\"version\": 1}\n".repeat(10_000);
        let holds = |contents: &[u8]| {
            fs::write(&path, contents).unwrap();
            holds_text(&File::open(&path).unwrap(), &text).unwrap()
        };
        assert!(holds(text.as_bytes()));
        let mut changed = text.clone().into_bytes();
        changed[100_000] = b'2';
        assert!(!holds(&changed));
        assert!(!holds(&text.as_bytes()[1..]));
        assert!(!holds(format!("{text} ").as_bytes()));
        assert!(!holds(format!("\u{feff}{text}").as_bytes()));
    }

    #[cfg(unix)]
    #[test]
    fn a_state_read_ahead_is_current_only_while_its_file_is_untouched() {
        use std::io::{Seek, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(STATE_FILE);
        let text = "{\"version\": 1, \"frames\": {}, \"rootFrameIDs\": [], \"updatedAt\": 1}\n";
        let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        let write_settled = |text: &str| {
            fs::write(&path, text).unwrap();
            File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(hour_ago)
                .unwrap();
        };
        let under_lock = || File::open(&path).unwrap();

        // Last changed an hour ago: its stamp is trusted.
        write_settled(text);
        let ahead = Ahead::read(&path).unwrap();
        assert!(ahead.settled.is_some());
        assert!(ahead.still_current(&under_lock()));
        // Written in place with text of the same length, its old time given back: the change
        // time still tells.
        let mut file = File::options().write(true).open(&path).unwrap();
        file.write_all(text.replace("1", "2").as_bytes()).unwrap();
        file.set_modified(hour_ago).unwrap();
        assert!(!ahead.still_current(&under_lock()));
        // Replaced by another file, even with the same text and time.
        write_settled(text);
        let ahead = Ahead::read(&path).unwrap();
        let other = dir.path().join("other");
        fs::write(&other, text).unwrap();
        File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        fs::rename(&other, &path).unwrap();
        assert!(!ahead.still_current(&under_lock()));

        // Changed just now: compared byte for byte.
        fs::write(&path, text).unwrap();
        let ahead = Ahead::read(&path).unwrap();
        assert!(ahead.settled.is_none());
        assert!(ahead.still_current(&under_lock()));
        let mut file = File::options().write(true).open(&path).unwrap();
        file.rewind().unwrap();
        file.write_all(text.replace("1", "2").as_bytes()).unwrap();
        assert!(!ahead.still_current(&under_lock()));
    }
}

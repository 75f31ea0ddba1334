//! The house's safe-file toolkit: reading a file whole within a cap (a regular file only, for
//! paths another program hands over, opened without waiting on a named pipe), and writing one
//! so that a crash leaves the old or the new file (a synced temp file renamed into place, with
//! the old file's permissions), and removing what a killed writer left. Every module that reads
//! or writes a user's file goes through here; the frame store is one of them.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::error::{Error, Result, describe_io};

/// Writes reach the file in pieces of this size.
const WRITE_BUFFER: usize = 256 << 10;

/// Reads a whole file, refusing files larger than `cap` bytes without reading them.
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_capped(path, cap)?;
    read_to_end_capped(&file, cap, ReadBuffer::for_file(path, cap))
}

/// [`read_capped`] into `buffer`, whose room is kept from one file to the next: the files a
/// thread reads one after another are not given fresh memory to fault in each time.
pub fn read_capped_into(path: &Path, cap: u64, buffer: &mut Vec<u8>) -> io::Result<()> {
    use std::io::Read;
    let file = open_capped(path, cap)?;
    let room = usize::try_from(file.metadata()?.len())
        .unwrap_or(0)
        .saturating_add(1);
    if buffer.capacity() < room {
        // Anew rather than grown: growing would copy the last file's bytes for nothing.
        *buffer = Vec::with_capacity(room);
    }
    buffer.clear();
    // One byte past the cap, to tell a file that grew past it since it was opened.
    (&file).take(cap.saturating_add(1)).read_to_end(buffer)?;
    if buffer.len() as u64 > cap {
        return Err(io::Error::from(io::ErrorKind::FileTooLarge));
    }
    Ok(())
}

/// Reads a whole file that must be a regular one, refusing files larger than `cap` bytes: for
/// files named by what another program hands ctx (hook input), which may be a named pipe or a
/// device. The file is opened without waiting (a named pipe with no writer would block the
/// open), and anything but a regular file is refused before a byte is read.
pub fn read_regular_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let meta = file.metadata()?;
    if meta.len() > cap {
        return Err(io::Error::from(io::ErrorKind::FileTooLarge));
    }
    read_to_end_capped(&file, cap, ReadBuffer::for_file(path, cap))
}

/// The last `max` bytes of the regular file at `path` (all of it when it is smaller), as text:
/// what an agent wrote last. A read that starts inside a line gets only that line's end, and
/// bytes that are not UTF-8 become U+FFFD.
pub fn read_tail(path: &Path, max: u64) -> io::Result<String> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let mut file = open_regular(path)?;
    let len = file.metadata()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(max)))?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Opens `path` to read without waiting for a named pipe's writer; refuses anything but a
/// regular file (after following links).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// Memory to read a file into, zeroed (and so mapped in) ahead of the read: the file's size when
/// it was asked for, and room for it to have grown since, so that the file is read in one call
/// and the next one finds its end.
pub struct ReadBuffer(Vec<u8>);

impl ReadBuffer {
    /// Room for the file at `path` as it is now: little when it cannot be seen or is larger than
    /// `cap` (it is then refused without being read).
    pub fn for_file(path: &Path, cap: u64) -> ReadBuffer {
        let len = fs::metadata(path)
            .ok()
            .filter(|m| m.len() <= cap)
            .and_then(|m| usize::try_from(m.len()).ok())
            .unwrap_or(0);
        let len = len.saturating_add((len >> 4).max(8 << 10));
        // Written, not allocated zeroed (`vec![0; len]`): zeroed memory fresh from the system is
        // only mapped in when first written, which would then be during the read.
        #[allow(clippy::slow_vector_initialization)]
        let bytes = {
            let mut bytes = Vec::with_capacity(len);
            bytes.resize(len, 0);
            bytes
        };
        ReadBuffer(bytes)
    }
}

/// Opens a file to read it whole: refuses a directory, and a file larger than `cap` bytes.
pub fn open_capped(path: &Path, cap: u64) -> io::Result<File> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if meta.len() > cap {
        return Err(io::Error::from(io::ErrorKind::FileTooLarge));
    }
    Ok(file)
}

/// Reads the rest of `file` into `buffer`, refusing it once it passes `cap` bytes (it may have
/// grown since it was opened).
pub fn read_to_end_capped(file: &File, cap: u64, buffer: ReadBuffer) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let too_large = usize::try_from(cap).map_or(usize::MAX, |cap| cap.saturating_add(1));
    let ReadBuffer(mut bytes) = buffer;
    let mut filled = 0;
    loop {
        if filled == bytes.len() {
            if filled >= too_large {
                return Err(io::Error::from(io::ErrorKind::FileTooLarge));
            }
            // The file grew since the buffer was made.
            let grown = bytes.len().saturating_mul(2).max(8 << 10).min(too_large);
            bytes.resize(grown, 0);
        }
        match (&*file).read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if filled >= too_large {
        return Err(io::Error::from(io::ErrorKind::FileTooLarge));
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// The permission bits of an existing file, to give to its replacement.
pub fn existing_mode(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Writes what `contents` writes to `.<name>.<random>.tmp` in `dir`, syncs it, gives it `mode`
/// (new files: 0644 less the umask), renames it over `target` and syncs `dir`: a crash leaves the
/// old or the new file.
pub fn write_atomically(
    dir: &Path,
    target: &Path,
    mode: Option<u32>,
    name: &str,
    contents: impl FnOnce(&mut BufWriter<&File>) -> io::Result<()>,
) -> Result<()> {
    write_and_rename(dir, target, mode, name, contents)?;
    sync_dir(dir);
    Ok(())
}

/// [`write_atomically`] but for the sync of `dir`: the rename is durable once the caller calls
/// [`sync_dir`].
pub fn write_and_rename(
    dir: &Path,
    target: &Path,
    mode: Option<u32>,
    name: &str,
    contents: impl FnOnce(&mut BufWriter<&File>) -> io::Result<()>,
) -> Result<()> {
    let mut suffix = [0u8; 8];
    getrandom::fill(&mut suffix)
        .map_err(|e| Error::failure(format!("cannot read the system's random source: {e}")))?;
    let random: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
    let temp = dir.join(format!(".{name}.{random}.tmp"));
    let result = (|| -> io::Result<()> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        // Created with the target's mode from the start: a private file (a 0600 settings file)
        // must never have a copy others can read, not even until the chmod below, which a kill
        // may never reach.
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(mode.unwrap_or(0o644));
        }
        let file = options.open(&temp)?;
        let mut out = BufWriter::with_capacity(WRITE_BUFFER, &file);
        contents(&mut out)?;
        out.flush()?;
        drop(out);
        #[cfg(unix)]
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        // Elsewhere a file keeps the permissions its folder gives it.
        #[cfg(not(unix))]
        let _ = mode;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, target)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&temp);
        Error::failure(format!(
            "{}: cannot write: {}",
            target.display(),
            describe_io(&e)
        ))
    })
}

/// Syncs the directory `dir`, which makes the renames in it durable. (Where a directory cannot be
/// opened or synced, as on some network file systems, the rename stands unsynced.)
pub fn sync_dir(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}

/// Whether `name` is one of the temp files [`write_atomically`] makes for a file named `target`:
/// `.<target>.<16 hex digits>.tmp`, and nothing a person would name so.
pub fn is_atomic_temp_of(name: &str, target: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|rest| rest.strip_prefix(target))
        .and_then(|rest| rest.strip_prefix('.'))
        .and_then(|rest| rest.strip_suffix(".tmp"))
        .is_some_and(|random| random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Removes what killed writers of the file `target` in `dir` left behind: its temp files of
/// [`write_atomically`]'s naming ([`is_atomic_temp_of`]). The caller holds a lock that every
/// writer of `target` by ctx takes, so none of them belongs to a writer still at work.
pub fn remove_dead_temps_of(dir: &Path, target: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .to_str()
            .is_some_and(|name| is_atomic_temp_of(name, target))
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_whole_even_when_it_grew_past_its_buffer_and_refused_past_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grown");
        // The buffer is made for a file that is not there yet: little room.
        let small = ReadBuffer::for_file(&path, 1 << 20);
        let text: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(&path, &text).unwrap();
        let file = File::open(&path).unwrap();
        assert_eq!(read_to_end_capped(&file, 1 << 20, small).unwrap(), text);
        let file = File::open(&path).unwrap();
        let refused = read_to_end_capped(&file, 99_999, ReadBuffer::for_file(&path, 99_999));
        assert_eq!(refused.unwrap_err().kind(), io::ErrorKind::FileTooLarge);
        let file = File::open(&path).unwrap();
        assert_eq!(
            read_to_end_capped(&file, 100_000, ReadBuffer::for_file(&path, 100_000))
                .unwrap()
                .len(),
            100_000
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_temp_file_has_the_targets_mode_from_its_creation() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("settings.json");
        let mut seen = Vec::new();
        write_atomically(dir.path(), &target, Some(0o600), "settings.json", |out| {
            // Before the first byte: what a kill at this instant would leave.
            for entry in fs::read_dir(dir.path()).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                assert!(is_atomic_temp_of(&name, "settings.json"), "{name}");
                seen.push(entry.metadata().unwrap().permissions().mode() & 0o777);
            }
            out.write_all(b"{}")
        })
        .unwrap();
        assert_eq!(seen, [0o600]);
        assert!(!is_atomic_temp_of(
            ".settings.json.mine.tmp",
            "settings.json"
        ));
        assert!(!is_atomic_temp_of(
            ".settings.json.0123456789abcdeg.tmp",
            "settings.json"
        ));
        assert!(!is_atomic_temp_of(
            ".other.json.0123456789abcdef.tmp",
            "settings.json"
        ));
    }
}

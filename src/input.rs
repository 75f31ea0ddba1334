//! Files and standard input named on the command line: read whole, with a size cap, errors
//! naming what was read. Used by the command adapters and by the readers of the cost report.

use std::io::Read as _;
use std::path::Path;

use crate::error::{Error, Result};

/// How a path given on the command line is named in messages (`-` is standard input).
pub fn label(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads a file given on the command line, or stdin for `-`, refusing more than `cap` bytes.
pub fn read_input(path: &Path, cap: u64) -> Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(Path::new("<stdin>"), "read", &e))?;
        if bytes.len() as u64 > cap {
            return Err(Error::failure(format!(
                "<stdin>: larger than {} MiB",
                cap >> 20
            )));
        }
        return Ok(bytes);
    }
    read_file(path, cap)
}

/// Reads the file at `path`, refusing more than `cap` bytes.
pub fn read_file(path: &Path, cap: u64) -> Result<Vec<u8>> {
    crate::safe_file::read_capped(path, cap).map_err(|e| read_error(path, cap, &e))
}

/// [`read_file`] into `buffer`, kept from one file to the next.
pub fn read_file_into(path: &Path, cap: u64, buffer: &mut Vec<u8>) -> Result<()> {
    crate::safe_file::read_capped_into(path, cap, buffer).map_err(|e| read_error(path, cap, &e))
}

/// The error of reading the file `path` capped at `cap` bytes.
fn read_error(path: &Path, cap: u64, e: &std::io::Error) -> Error {
    match e.kind() {
        std::io::ErrorKind::FileTooLarge => {
            Error::failure(format!("{}: larger than {} MiB", path.display(), cap >> 20))
        }
        _ => Error::io(path, "read", e),
    }
}

/// [`read_input`] of a text: not UTF-8 is refused, naming the file.
pub fn read_text(path: &Path, cap: u64) -> Result<String> {
    String::from_utf8(read_input(path, cap)?)
        .map_err(|_| Error::failure(format!("{}: not UTF-8 text", label(path))))
}

/// The bytes of `path` when it is not a regular file (a pipe, as `<(command)` names one; a
/// device), read whole and capped at `cap`; `None` for a regular file, which the caller reads as
/// it needs. A named pipe with no writer is refused at once: opening it to read would wait for
/// one.
pub fn read_unless_regular(path: &Path, cap: u64) -> Result<Option<Vec<u8>>> {
    let io_error = |e: std::io::Error| Error::io(path, "read", &e);
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut file = options.open(path).map_err(io_error)?;
    let meta = file.metadata().map_err(io_error)?;
    if meta.is_file() || meta.is_dir() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        use std::os::unix::io::AsRawFd;
        if meta.file_type().is_fifo() {
            // Opened without waiting, a pipe with no writer reads as its end; one with a writer
            // that has not written yet would block.
            let mut first = [0u8; 1];
            match file.read(&mut first) {
                Ok(0) => {
                    return Err(Error::failure(format!(
                        "{}: a named pipe with no writer; refusing to wait for one",
                        path.display()
                    )));
                }
                Ok(n) => bytes.extend_from_slice(&first[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(io_error(e)),
            }
        }
        // From here the writer is there: wait for what it writes.
        let fd = file.as_raw_fd();
        // SAFETY: `fd` is the open descriptor of `file`, which outlives these calls.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    (&mut file)
        .take(cap.saturating_add(1).saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > cap {
        return Err(Error::failure(format!(
            "{}: larger than {} MiB",
            path.display(),
            cap >> 20
        )));
    }
    Ok(Some(bytes))
}

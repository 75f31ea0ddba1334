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
    crate::frame::store::read_capped(path, cap).map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => {
            Error::failure(format!("{}: larger than {} MiB", path.display(), cap >> 20))
        }
        _ => Error::io(path, "read", &e),
    })
}

/// [`read_input`] of a text: not UTF-8 is refused, naming the file.
pub fn read_text(path: &Path, cap: u64) -> Result<String> {
    String::from_utf8(read_input(path, cap)?)
        .map_err(|_| Error::failure(format!("{}: not UTF-8 text", label(path))))
}

//! Reading `.swarm/` files the way opencode-swarm does (swarm.md §1.1): any failure is *absent*,
//! one BOM is stripped, invalid UTF-8 is replaced, and empty text is the same as absent. Nothing
//! here ever opens a file for writing.

use std::path::Path;
use std::time::UNIX_EPOCH;

/// A `.swarm/` file's text, or `None` when it is absent, unreadable or empty.
pub fn read_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    if bytes.is_empty() {
        return None;
    }
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// The file's modification time in milliseconds since the epoch, when it can be read.
pub fn modified_ms(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(since.as_millis()).ok()
}

//! The lines of a session file of the agents that keep one JSON Lines file per session (Claude
//! Code, pi, Codex CLI), and their token counts, read the same way for each.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::record::{Records, SourceInfo};
use crate::error::Result;

/// The lines of a session file that are JSON objects, and how many lines were not.
pub struct Lines {
    pub records: Vec<Value>,
    pub skipped: usize,
}

/// Splits a session file into its records; blank lines are nothing, other non-objects are skipped.
pub fn parse(text: &str) -> Lines {
    let mut lines = Lines {
        records: Vec::new(),
        skipped: 0,
    };
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(value @ Value::Object(_)) => lines.records.push(value),
            _ => lines.skipped += 1,
        }
    }
    lines
}

/// Reads the session files `files` of one agent, found at `path`, into `records`: the source
/// named `kind`, then each file's lines (at most `cap` bytes a file) through `read`.
pub fn read_files(
    kind: &'static str,
    cap: u64,
    path: &Path,
    files: Vec<PathBuf>,
    records: &mut Records,
    mut read: impl FnMut(&Path, &[Value], &mut Records),
) -> Result<()> {
    records.sources.push(SourceInfo {
        kind,
        path: path.display().to_string(),
    });
    for file in files {
        let lines = read_lines(&file, cap, records)?;
        read(&file, &lines, records);
    }
    Ok(())
}

/// Reads `bytes`, the whole of the session file `path` of one agent (given as a pipe), into
/// `records`: the source named `kind`, its lines through `read`.
pub fn read_text(
    kind: &'static str,
    path: &Path,
    bytes: &[u8],
    records: &mut Records,
    mut read: impl FnMut(&Path, &[Value], &mut Records),
) {
    records.sources.push(SourceInfo {
        kind,
        path: path.display().to_string(),
    });
    let lines = lines_of(path, bytes, records);
    read(path, &lines, records);
}

/// The records of one session file.
fn read_lines(file: &Path, cap: u64, records: &mut Records) -> Result<Vec<Value>> {
    let bytes = crate::input::read_file(file, cap)?;
    Ok(lines_of(file, &bytes, records))
}

/// The records of the session file `file` whose bytes are `bytes`: its lines as JSON objects, the
/// lines that are not (a line cut short by a crash, a line of something else) counted in a
/// problem naming the file; bytes that are not UTF-8 are read as U+FFFD, and said.
fn lines_of(file: &Path, bytes: &[u8], records: &mut Records) -> Vec<Value> {
    let text = String::from_utf8_lossy(bytes);
    if let std::borrow::Cow::Owned(_) = text {
        records.problems.push(format!(
            "{}: not UTF-8; read with U+FFFD in place of the bad bytes",
            file.display()
        ));
    }
    let lines = parse(&text);
    if lines.skipped > 0 {
        records.problems.push(format!(
            "{}: {} line(s) are not JSON; skipped",
            file.display(),
            lines.skipped
        ));
    }
    lines.records
}

/// A token count read from `value`: 0 when absent, else a whole number from 0 to
/// [`super::record::MAX_CALL_TOKENS`]; anything else is `Err(text of the value)`.
pub fn count(value: Option<&serde_json::Value>) -> std::result::Result<u64, String> {
    match value {
        None | Some(serde_json::Value::Null) => Ok(0),
        Some(v) => match v.as_u64() {
            Some(n) if n <= super::record::MAX_CALL_TOKENS => Ok(n),
            _ => Err(v.to_string()),
        },
    }
}

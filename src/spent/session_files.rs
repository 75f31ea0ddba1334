//! The session files of the agents that keep JSON Lines files (Claude Code's transcripts, pi's
//! session files, Codex CLI's rollouts, Qwen Code's ledger and sessions): which agent wrote a
//! `.jsonl` file, and the files of a folder, each read by its agent's reader. A folder may hold
//! more than one agent's files (a home folder given whole); each agent's are one source.
//!
//! Each agent's module says what its files are and how they are read (a [`SessionFormat`]); the
//! caller hands the formats over, so this module names no agent.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::jsonl;
use super::price::PriceList;
use super::record::Records;
use crate::error::{Error, Result};

/// How much of a file's first line is read to tell its agent: Codex's first line carries its
/// instructions (some 20 KB), and a user's AGENTS.md may make it longer.
const FIRST_LINE_CAP: u64 = 4 << 20;

/// Session files larger than this are not read (a session of a few hundred MB is already rare).
const MAX_SESSION_FILE: u64 = 1 << 30;

/// One agent's session files, as its module describes them.
#[derive(Debug)]
pub struct SessionFormat {
    /// The agent, as a message names it ("Codex CLI").
    pub agent: &'static str,
    /// Whether a file whose first non-blank line is the object `first` is one of the agent's.
    /// Formats are asked in the order they are given: the first that says yes reads the file.
    pub recognizes: fn(&Map<String, Value>) -> bool,
    /// Text only the agent's first lines hold, which tells its file when the first line is
    /// longer than [`FIRST_LINE_CAP`] and so was not read whole.
    pub long_first_line: Option<&'static [u8]>,
    pub read: Reader,
}

/// How one agent's session files are read into the records.
#[derive(Debug)]
pub enum Reader {
    /// Each file's lines, as JSON objects, through `read`; the files are the source `source`.
    Lines {
        source: &'static str,
        read: fn(&Path, &[Value], &PriceList, &mut Records),
    },
    /// The agent's own reader of the files' bytes (only what cost needs of them): `files` for the
    /// files found at a path (each at most a cap of bytes), `bytes` for one file given as a pipe.
    Bytes {
        files: fn(&Path, &[PathBuf], u64, &PriceList, &mut Records) -> Result<()>,
        bytes: fn(&Path, &[u8], &PriceList, &mut Records),
    },
}

impl SessionFormat {
    /// Reads its session files `files`, found at `path`, into `records`.
    fn read_files(
        &self,
        path: &Path,
        files: Vec<PathBuf>,
        prices: &PriceList,
        records: &mut Records,
    ) -> Result<()> {
        match self.read {
            Reader::Lines { source, read } => jsonl::read_files(
                source,
                MAX_SESSION_FILE,
                path,
                files,
                records,
                |file, lines, records| read(file, lines, prices, records),
            ),
            Reader::Bytes { files: read, .. } => {
                read(path, &files, MAX_SESSION_FILE, prices, records)
            }
        }
    }

    /// Reads `bytes`, the whole of its session file `path` (a pipe), into `records`.
    fn read_bytes(&self, path: &Path, bytes: &[u8], prices: &PriceList, records: &mut Records) {
        match self.read {
            Reader::Lines { source, read } => {
                jsonl::read_text(source, path, bytes, records, |file, lines, records| {
                    read(file, lines, prices, records)
                })
            }
            Reader::Bytes { bytes: read, .. } => read(path, bytes, prices, records),
        }
    }
}

/// What a session file is, from its first non-blank line.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind<'f> {
    Agent(&'f SessionFormat),
    /// Nothing but blank space.
    Empty,
    /// Not a session file of any agent ctx knows.
    Unknown,
}

/// What `first` (a file's first non-blank line, or as much of it as was read) says of the file:
/// read as JSON, never by its exact bytes, so that any spacing and key order is the same file.
pub(crate) fn kind_of<'f>(first: &[u8], formats: &'f [SessionFormat]) -> Kind<'f> {
    let line = first.trim_ascii();
    if line.is_empty() {
        return Kind::Empty;
    }
    let Ok(Value::Object(record)) = serde_json::from_slice::<Value>(line) else {
        // A first line longer than was read.
        let has = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
        let long = first.len() as u64 >= FIRST_LINE_CAP;
        return formats
            .iter()
            .find(|f| long && f.long_first_line.is_some_and(has))
            .map_or(Kind::Unknown, Kind::Agent);
    };
    formats
        .iter()
        .find(|f| (f.recognizes)(&record))
        .map_or(Kind::Unknown, Kind::Agent)
}

/// The `.jsonl` files below `dir`, however deep (Claude Code writes a workflow's subagents six
/// folders below its home), sorted. Symbolic links are not followed, so a link that loops is
/// never walked.
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                folders.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "jsonl") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The first non-blank line of `file` (at most [`FIRST_LINE_CAP`] bytes of it).
fn first_line(file: &Path) -> Result<Vec<u8>> {
    use std::io::{BufRead, Read};
    let handle = std::fs::File::open(file).map_err(|e| Error::io(file, "read", &e))?;
    let mut reader = std::io::BufReader::new(handle).take(FIRST_LINE_CAP);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io(file, "read", &e))?;
        if n == 0 || !line.trim_ascii().is_empty() {
            return Ok(line);
        }
    }
}

/// The first non-blank line of `bytes`.
fn first_line_of(bytes: &[u8]) -> &[u8] {
    bytes
        .split(|&b| b == b'\n')
        .find(|l| !l.trim_ascii().is_empty())
        .unwrap_or_default()
}

/// Reads the session files below the folder `path`, each by the first of `formats` that
/// recognizes it; `false`, with nothing read, when it holds none within reach.
pub fn read_folder(
    path: &Path,
    formats: &[SessionFormat],
    prices: &PriceList,
    records: &mut Records,
) -> Result<bool> {
    let files = jsonl_files(path);
    if files.is_empty() {
        return Ok(false);
    }
    let mut by_agent: Vec<Vec<PathBuf>> = vec![Vec::new(); formats.len()];
    for file in files {
        match kind_of(&first_line(&file)?, formats) {
            Kind::Agent(format) => {
                let at = formats.iter().position(|f| std::ptr::eq(f, format));
                by_agent[at.expect("a format of the list")].push(file);
            }
            Kind::Empty => records
                .problems
                .push(format!("{}: empty; skipped", file.display())),
            Kind::Unknown => records.problems.push(format!(
                "{}: not a session file of any agent ctx knows; skipped",
                file.display()
            )),
        }
    }
    for (format, files) in formats.iter().zip(by_agent) {
        if !files.is_empty() {
            format.read_files(path, files, prices, records)?;
        }
    }
    Ok(true)
}

/// The format that reads the file at `path` of `kind`; else what its reader answers instead:
/// `true` for an empty file (skipped, with a line in the problems), `false` for one of no agent's.
fn format_of<'f>(
    kind: Kind<'f>,
    path: &Path,
    records: &mut Records,
) -> std::result::Result<&'f SessionFormat, bool> {
    match kind {
        Kind::Agent(format) => Ok(format),
        Kind::Empty => {
            records
                .problems
                .push(format!("{}: empty; skipped", path.display()));
            Err(true)
        }
        Kind::Unknown => Err(false),
    }
}

/// Reads the session file `path` (a regular file): `false`, with nothing read, when its first
/// line is no agent's.
pub fn read_file(
    path: &Path,
    formats: &[SessionFormat],
    prices: &PriceList,
    records: &mut Records,
) -> Result<bool> {
    let format = match format_of(kind_of(&first_line(path)?, formats), path, records) {
        Ok(format) => format,
        Err(known) => return Ok(known),
    };
    format.read_files(path, vec![path.to_path_buf()], prices, records)?;
    Ok(true)
}

/// Reads `bytes`, the whole of the session file `path` that is not a regular file (a pipe, as
/// `--source <(cat FILE)` gives): `false`, with nothing read, when its first line is no agent's.
pub fn read_bytes(
    path: &Path,
    bytes: &[u8],
    formats: &[SessionFormat],
    prices: &PriceList,
    records: &mut Records,
) -> Result<bool> {
    let format = match format_of(kind_of(first_line_of(bytes), formats), path, records) {
        Ok(format) => format,
        Err(known) => return Ok(known),
    };
    format.read_bytes(path, bytes, prices, records);
    Ok(true)
}

/// The error for a session file `path` that none of the agents of `formats` wrote.
pub fn unknown(path: &Path, formats: &[SessionFormat]) -> Error {
    let agents: Vec<&str> = formats.iter().map(|f| f.agent).collect();
    Error::failure(format!(
        "{}: not a session file of any agent ctx knows ({})",
        path.display(),
        agents.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(agent: &'static str, kind: &'static str) -> SessionFormat {
        SessionFormat {
            agent,
            recognizes: match kind {
                "a" => |first| first.get("type").and_then(Value::as_str) == Some("a"),
                _ => |first| first.contains_key("type"),
            },
            long_first_line: (kind == "a").then_some(b"\"only_a\"".as_slice()),
            read: Reader::Lines {
                source: agent,
                read: |_, _, _, _| {},
            },
        }
    }

    #[test]
    fn the_first_format_that_recognizes_a_first_line_reads_the_file() {
        let formats = [format("A", "a"), format("B", "any")];
        let agent = |line: &[u8]| match kind_of(line, &formats) {
            Kind::Agent(format) => format.agent,
            Kind::Empty => "empty",
            Kind::Unknown => "unknown",
        };
        assert_eq!(agent(br#"{"type": "a"}"#), "A");
        assert_eq!(agent(br#"{"type": "b"}"#), "B");
        assert_eq!(agent(br#"{"kind": "b"}"#), "unknown");
        assert_eq!(agent(b"  \n"), "empty");
        assert_eq!(agent(b"not json"), "unknown");
        // A first line cut at the cap: told by the text only one format's first lines hold.
        let mut long = br#"{"type": "only_a", "x": ""#.to_vec();
        long.resize(FIRST_LINE_CAP as usize, b'x');
        assert_eq!(agent(&long), "A");
        long[10..18].copy_from_slice(b"neither_");
        assert_eq!(agent(&long), "unknown");
        assert_eq!(first_line_of(b"\n\n{\"a\":1}\n{}"), br#"{"a":1}"#);
    }
}

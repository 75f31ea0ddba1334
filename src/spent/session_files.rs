//! The agents that keep one JSON Lines file per session (Claude Code's transcripts, pi's session
//! files, Codex CLI's rollouts): which agent wrote a `.jsonl` file, and the files of a folder,
//! each read by its agent's reader. A folder may hold more than one agent's files (a home folder
//! given whole); each agent's are one source.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::price::PriceList;
use super::record::Records;
use super::{claude_transcripts, codex_rollouts, jsonl, pi_sessions};
use crate::error::{Error, Result};

/// How much of a file's first line is read to tell its agent: Codex's first line carries its
/// instructions (some 20 KB), and a user's AGENTS.md may make it longer.
const FIRST_LINE_CAP: u64 = 4 << 20;

/// Session files larger than this are not read (a session of a few hundred MB is already rare).
const MAX_SESSION_FILE: u64 = 1 << 30;

/// The agent that wrote a session file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Pi,
    Codex,
}

/// How one session file's lines are read into the records (pi's and Codex's).
type Reader = fn(&Path, &[Value], &PriceList, &mut Records);

impl Agent {
    /// The source its files are, and the reader of one file's lines; none for Claude Code's
    /// transcripts, which are read from their bytes, only what cost needs of them.
    fn lines_reader(self) -> Option<(&'static str, Reader)> {
        match self {
            Agent::Claude => None,
            Agent::Pi => Some(("pi-sessions", pi_sessions::read_session)),
            Agent::Codex => Some(("codex-sessions", codex_rollouts::read_rollout)),
        }
    }

    /// Reads its session files `files`, found at `path`, into `records`.
    fn read_files(
        self,
        path: &Path,
        files: Vec<PathBuf>,
        prices: &PriceList,
        records: &mut Records,
    ) -> Result<()> {
        let Some((kind, read)) = self.lines_reader() else {
            return claude_transcripts::read_files(path, &files, MAX_SESSION_FILE, prices, records);
        };
        jsonl::read_files(
            kind,
            MAX_SESSION_FILE,
            path,
            files,
            records,
            |file, lines, records| read(file, lines, prices, records),
        )
    }

    /// Reads `bytes`, the whole of its session file `path` (a pipe), into `records`.
    fn read_bytes(self, path: &Path, bytes: &[u8], prices: &PriceList, records: &mut Records) {
        let Some((kind, read)) = self.lines_reader() else {
            return claude_transcripts::read_bytes(path, bytes, prices, records);
        };
        jsonl::read_text(kind, path, bytes, records, |file, lines, records| {
            read(file, lines, prices, records)
        });
    }
}

/// What a session file is, from its first non-blank line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Agent(Agent),
    /// Nothing but blank space.
    Empty,
    /// Not a session file of any agent ctx knows.
    Unknown,
}

/// What `first` (a file's first non-blank line, or as much of it as was read) says of the file:
/// read as JSON, never by its exact bytes, so that any spacing and key order is the same file.
/// pi's header is `{"type":"session","id":…}`; every Codex line is `{"type":…,"payload":…}`
/// (`session_meta` first, but a rollout cut before it is still Codex's); Claude Code's lines
/// carry `sessionId`, or are one of its bookkeeping lines.
fn kind_of(first: &[u8]) -> Kind {
    let line = first.trim_ascii();
    if line.is_empty() {
        return Kind::Empty;
    }
    let Ok(Value::Object(record)) = serde_json::from_slice::<Value>(line) else {
        // A first line longer than was read: only Codex writes those.
        let has = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
        return if first.len() as u64 >= FIRST_LINE_CAP && has(b"\"session_meta\"") {
            Kind::Agent(Agent::Codex)
        } else {
            Kind::Unknown
        };
    };
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    const CODEX: [&str; 6] = [
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "token_usage_record",
        "compacted",
    ];
    const CLAUDE: [&str; 9] = [
        "user",
        "assistant",
        "system",
        "summary",
        "attachment",
        "progress",
        "queue-operation",
        "file-history-snapshot",
        // A fork subagent's transcript starts with a reference to its parent's conversation.
        "fork-context-ref",
    ];
    // Claude Code's own keys, whatever a line's type: a type it adds later is still its line.
    let claude_keys = ["sessionId", "agentId", "parentSessionId"]
        .iter()
        .any(|key| record.get(*key).is_some_and(Value::is_string))
        || (record.contains_key("uuid") && record.contains_key("parentUuid"));
    if kind == "session" && record.get("id").is_some_and(Value::is_string) {
        Kind::Agent(Agent::Pi)
    } else if CODEX.contains(&kind) && record.contains_key("payload") {
        Kind::Agent(Agent::Codex)
    } else if claude_keys || CLAUDE.contains(&kind) {
        Kind::Agent(Agent::Claude)
    } else {
        Kind::Unknown
    }
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

/// Reads the session files below the folder `path`; `false`, with nothing read, when it holds
/// none within reach.
pub fn read_folder(path: &Path, prices: &PriceList, records: &mut Records) -> Result<bool> {
    let files = jsonl_files(path);
    if files.is_empty() {
        return Ok(false);
    }
    let mut by_agent: [(Agent, Vec<PathBuf>); 3] = [
        (Agent::Claude, Vec::new()),
        (Agent::Pi, Vec::new()),
        (Agent::Codex, Vec::new()),
    ];
    for file in files {
        match kind_of(&first_line(&file)?) {
            Kind::Agent(agent) => {
                if let Some((_, list)) = by_agent.iter_mut().find(|(a, _)| *a == agent) {
                    list.push(file);
                }
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
    for (agent, files) in by_agent {
        if !files.is_empty() {
            agent.read_files(path, files, prices, records)?;
        }
    }
    Ok(true)
}

/// The agent whose reader reads the file at `path` of `kind`; else what its reader answers
/// instead: `true` for an empty file (skipped, with a line in the problems), `false` for one of
/// no agent's.
fn agent_of(kind: Kind, path: &Path, records: &mut Records) -> std::result::Result<Agent, bool> {
    match kind {
        Kind::Agent(agent) => Ok(agent),
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
pub fn read_file(path: &Path, prices: &PriceList, records: &mut Records) -> Result<bool> {
    let agent = match agent_of(kind_of(&first_line(path)?), path, records) {
        Ok(agent) => agent,
        Err(known) => return Ok(known),
    };
    agent.read_files(path, vec![path.to_path_buf()], prices, records)?;
    Ok(true)
}

/// Reads `bytes`, the whole of the session file `path` that is not a regular file (a pipe, as
/// `--source <(cat FILE)` gives): `false`, with nothing read, when its first line is no agent's.
pub fn read_bytes(
    path: &Path,
    bytes: &[u8],
    prices: &PriceList,
    records: &mut Records,
) -> Result<bool> {
    let agent = match agent_of(kind_of(first_line_of(bytes)), path, records) {
        Ok(agent) => agent,
        Err(known) => return Ok(known),
    };
    agent.read_bytes(path, bytes, prices, records);
    Ok(true)
}

/// The error for a session file `path` that no agent ctx knows wrote.
pub fn unknown(path: &Path) -> Error {
    Error::failure(format!(
        "{}: not a session file of any agent ctx knows (Claude Code, pi, Codex CLI)",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agents_first_line_names_it_whatever_its_spacing_and_key_order() {
        let agent = |line: &str| kind_of(line.as_bytes());
        assert_eq!(
            agent(r#"{"type":"session","version":3,"id":"x"}"#),
            Kind::Agent(Agent::Pi)
        );
        assert_eq!(
            agent(r#"{"id": "x", "version": 3, "type": "session"}"#),
            Kind::Agent(Agent::Pi)
        );
        assert_eq!(
            agent(r#"{"timestamp":"t","ordinal":0,"type":"session_meta","payload":{}}"#),
            Kind::Agent(Agent::Codex)
        );
        assert_eq!(
            agent(r#"{"timestamp": "t", "type": "session_meta", "payload": {}}"#),
            Kind::Agent(Agent::Codex)
        );
        assert_eq!(
            agent(r#"{"timestamp":"t","type":"event_msg","payload":{}}"#),
            Kind::Agent(Agent::Codex)
        );
        assert_eq!(
            agent(r#"{"type":"user","sessionId":"s"}"#),
            Kind::Agent(Agent::Claude)
        );
        // Seen in Claude Code 2.1.328: a fork subagent's transcript begins so.
        assert_eq!(
            agent(
                r#"{"type":"fork-context-ref","agentId":"a3b7","parentSessionId":"9997","parentLastUuid":"bcdd","contextLength":16}"#
            ),
            Kind::Agent(Agent::Claude)
        );
        assert_eq!(
            agent(r#"{"type":"some-later-kind","uuid":"u","parentUuid":null}"#),
            Kind::Agent(Agent::Claude)
        );
        assert_eq!(agent(" \n"), Kind::Empty);
        assert_eq!(agent(r#"{"note":"x"}"#), Kind::Unknown);
        assert_eq!(agent("not json"), Kind::Unknown);
        assert_eq!(first_line_of(b"\n\n{\"a\":1}\n{}"), br#"{"a":1}"#);
    }
}

#[cfg(test)]
mod properties {
    use super::super::record::MAX_CALL_TOKENS;
    use super::super::{codex_rollouts, pi_sessions};
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// Any JSON value a field may hold in a damaged or foreign file.
    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(|f| json!(f)),
            "[a-z0-9:.T-]{0,24}".prop_map(Value::from),
            Just(json!({})),
            Just(json!([])),
        ]
    }

    /// A line: one of each agent's line shapes, with its fields replaced by any values.
    fn any_line() -> impl Strategy<Value = Value> {
        let shapes = prop_oneof![
            Just(json!({"type": "session", "id": "s", "timestamp": "2026-11-27T04:46:06.770Z"})),
            Just(
                json!({"type": "message", "id": "e", "timestamp": "t", "message": {"role": "assistant", "provider": "p", "model": "m", "timestamp": 1,
                "usage": {"input": 1, "output": 1, "cacheRead": 1, "cacheWrite": 1, "totalTokens": 4, "cost": {"total": 0.1}}}})
            ),
            Just(
                json!({"type": "session_meta", "timestamp": "t", "payload": {"id": "c", "parent_thread_id": "d", "timestamp": "t"}})
            ),
            Just(json!({"type": "turn_context", "payload": {"model": "m"}})),
            Just(
                json!({"type": "token_usage_record", "timestamp": "2026-11-27T04:47:17.522Z", "payload": {"thread_id": "c", "response_id": "r",
                "usage": {"input_tokens": 5, "cached_input_tokens": 9, "output_tokens": 1, "reasoning_output_tokens": 3, "total_tokens": 6}}})
            ),
            Just(
                json!({"type": "event_msg", "timestamp": "t", "payload": {"type": "token_count", "info": {"total_token_usage": {"total_tokens": 1},
                "last_token_usage": {"input_tokens": 1, "output_tokens": 1}}}})
            ),
        ];
        (shapes, prop::collection::vec(any_value(), 0..4)).prop_map(|(mut line, values)| {
            // Replace leaves, depth first, with the values drawn.
            fn replace(v: &mut Value, values: &mut Vec<Value>) {
                match v {
                    Value::Object(map) => map.values_mut().for_each(|v| replace(v, values)),
                    leaf => {
                        if let Some(new) = values.pop() {
                            *leaf = new;
                        }
                    }
                }
            }
            let mut values = values;
            replace(&mut line, &mut values);
            line
        })
    }

    proptest! {
        /// Whatever the lines hold, reading them never panics and no count read passes the
        /// bound of a call.
        #[test]
        fn any_lines_are_read_without_panic(lines in prop::collection::vec(any_line(), 0..12)) {
            let prices = PriceList::default();
            let file = Path::new("f.jsonl");
            let mut records = Records::default();
            pi_sessions::read_session(file, &lines, &prices, &mut records);
            codex_rollouts::read_rollout(file, &lines, &prices, &mut records);
            prop_assert!(records.calls.len() <= 2 * lines.len());
            for call in &records.calls {
                let t = call.tokens;
                for n in [t.input, t.output, t.reasoning, t.cache_read, t.cache_write] {
                    prop_assert!(n <= MAX_CALL_TOKENS);
                }
            }
        }
    }
}

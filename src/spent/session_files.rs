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

/// How much of a file's start is read to tell its agent: Codex's first line (its instructions)
/// is long, but its `"type":"session_meta"` comes first.
const HEAD: usize = 4096;

/// Session files larger than this are not read (a session of a few hundred MB is already rare).
const MAX_SESSION_FILE: u64 = 1 << 30;

/// The agent that wrote a session file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Pi,
    Codex,
}

/// How one session file's lines are read into the records.
type Reader = fn(&Path, &[Value], &PriceList, &mut Records);

impl Agent {
    /// The source its files are, and the reader of one of them.
    fn source(self) -> (&'static str, Reader) {
        match self {
            Agent::Claude => ("claude-transcripts", claude_transcripts::read_lines),
            Agent::Pi => ("pi-sessions", pi_sessions::read_session),
            Agent::Codex => ("codex-sessions", codex_rollouts::read_rollout),
        }
    }
}

/// The agent whose file `head` (its first bytes) begins: pi's header line
/// `{"type":"session",…`, Codex's `session_meta` line; anything else is read as Claude Code's.
pub fn agent_of(head: &[u8]) -> Agent {
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let has = |needle: &[u8]| first.windows(needle.len()).any(|w| w == needle);
    if first.starts_with(br#"{"type":"session","#) {
        Agent::Pi
    } else if has(br#""type":"session_meta""#) {
        Agent::Codex
    } else {
        Agent::Claude
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

/// The first bytes of `file`.
fn head(file: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(HEAD);
    std::fs::File::open(file)
        .and_then(|f| f.take(HEAD as u64).read_to_end(&mut bytes))
        .map_err(|e| Error::io(file, "read", &e))?;
    Ok(bytes)
}

/// Reads the session files below the folder `path`; `false`, with nothing read, when it holds
/// none within reach.
pub fn read_folder(path: &Path, prices: &PriceList, records: &mut Records) -> Result<bool> {
    let files = jsonl_files(path);
    if files.is_empty() {
        return Ok(false);
    }
    read_files(path, files, prices, records)?;
    Ok(true)
}

/// Reads the session file `path`.
pub fn read_file(path: &Path, prices: &PriceList, records: &mut Records) -> Result<()> {
    read_files(path, vec![path.to_path_buf()], prices, records)
}

/// Reads `files`, found at `path`, each with its agent's reader; an empty file is said and
/// skipped.
fn read_files(
    path: &Path,
    files: Vec<PathBuf>,
    prices: &PriceList,
    records: &mut Records,
) -> Result<()> {
    let mut by_agent: [(Agent, Vec<PathBuf>); 3] = [
        (Agent::Claude, Vec::new()),
        (Agent::Pi, Vec::new()),
        (Agent::Codex, Vec::new()),
    ];
    for file in files {
        let head = head(&file)?;
        if head.is_empty() {
            records
                .problems
                .push(format!("{}: empty; skipped", file.display()));
            continue;
        }
        let agent = agent_of(&head);
        if let Some((_, list)) = by_agent.iter_mut().find(|(a, _)| *a == agent) {
            list.push(file);
        }
    }
    for (agent, files) in by_agent {
        if files.is_empty() {
            continue;
        }
        let (kind, read) = agent.source();
        jsonl::read_files(
            kind,
            MAX_SESSION_FILE,
            path,
            files,
            records,
            |file, lines, records| read(file, lines, prices, records),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agents_first_line_names_it() {
        assert_eq!(
            agent_of(br#"{"type":"session","version":3,"id":"x"}"#),
            Agent::Pi
        );
        assert_eq!(
            agent_of(br#"{"timestamp":"t","ordinal":0,"type":"session_meta","payload":{}}"#),
            Agent::Codex
        );
        assert_eq!(
            agent_of(br#"{"type":"user","sessionId":"s"}"#),
            Agent::Claude
        );
        // Only the first line counts.
        assert_eq!(
            agent_of(b"{\"type\":\"user\"}\n{\"type\":\"session_meta\"}"),
            Agent::Claude
        );
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

//! GitHub Copilot CLI's session files as a source of usage records (Copilot 1.0.102, observed):
//! `<copilot home>/session-state/<session id>/events.jsonl`, one event a line, `{type, data, id,
//! timestamp, parentId, agentId?}`, `agentId` on every event of a subagent.
//!
//! - `session.start` (`data.sessionId`, `data.startTime`) names the session;
//! - the first `user.message` outside a subagent (`data.content`) gives its title;
//! - `subagent.started` (`agentId`, `data.agentDescription`) names a subagent, a session of its
//!   own below the main one, as ctx names their frames: `cp_<session id>`, `cp_<agent id>`;
//! - `session.usage_record` is one model call (`data.usage`: `model`, `inputTokens`,
//!   `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`, `reasoningTokens`?), the subagents'
//!   included. `inputTokens` counts the cache's reads and writes among them (Copilot adds them
//!   up so), and `outputTokens` the reasoning, as OpenAI reports them. A call is counted once, by
//!   its event's `id`. The `session.shutdown` event's totals per model are these records' sums;
//! - `session.compaction_complete` (`data.compactionTokensUsed`, the same fields) is the call
//!   that wrote a compaction's summary, which no usage record holds and Copilot's totals leave
//!   out: ctx counts it, as agent `compaction`.
//!
//! The records' `cost` is not money (a bring-your-own-key model's is 0, a GitHub-hosted model's
//! its premium-request weight): calls are priced from the models.dev cache.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::SESSION_PREFIX;
use crate::spent::jsonl::count;
use crate::spent::price::PriceList;
use crate::spent::record::{Call, Records, Session, Tokens};
use crate::spent::session_files::{Reader, SessionFormat};

/// Whether a line is one of Copilot's events: a dotted `type` (`session.start`) and a `data`
/// object, which no other agent's records have.
fn is_event(record: &Map<String, Value>) -> bool {
    record
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.contains('.'))
        && record.get("data").is_some_and(Value::is_object)
}

/// Copilot's session files (`events.jsonl`).
pub const SESSION_FILES: SessionFormat = SessionFormat {
    agent: "GitHub Copilot CLI",
    recognizes: is_event,
    long_first_line: None,
    read: Reader::Lines {
        source: "copilot",
        read,
    },
};

pub fn read(file: &Path, lines: &[Value], prices: &PriceList, records: &mut Records) {
    // The session's id: its start event's, else the folder's name (a file whose first lines
    // were lost still belongs to the session its folder names).
    let folder = std::path::absolute(file)
        .ok()
        .and_then(|path| Some(path.parent()?.file_name()?.to_string_lossy().into_owned()));
    let started = lines.iter().find_map(|line| {
        let record = line.as_object()?;
        (record.get("type")?.as_str()? == "session.start")
            .then(|| record.get("data")?.get("sessionId")?.as_str())
            .flatten()
    });
    let Some(session_id) = started.map(str::to_string).or(folder) else {
        records.problems.push(format!(
            "{}: neither a session.start event nor its folder names its session; skipped",
            file.display()
        ));
        return;
    };
    let main = format!("{SESSION_PREFIX}{session_id}");
    let mut titled = false;
    // Each subagent's session and type.
    let mut agents: HashMap<String, (usize, String)> = HashMap::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(record) = line.as_object().filter(|r| is_event(r)) else {
            continue;
        };
        let text = |key: &str| record.get(key).and_then(Value::as_str);
        let data = record.get("data").and_then(Value::as_object);
        let data_text = |key: &str| data.and_then(|d| d.get(key)).and_then(Value::as_str);
        let time = text("timestamp").and_then(crate::time::parse_rfc3339_utc);
        let agent = text("agentId").filter(|a| !a.is_empty());
        match text("type").unwrap_or_default() {
            "session.start" => {
                records.add_session(Session {
                    id: main.clone(),
                    parent: None,
                    title: String::new(),
                    created: data_text("startTime")
                        .and_then(crate::time::parse_rfc3339_utc)
                        .or(time)
                        .unwrap_or(0),
                });
            }
            "user.message" if agent.is_none() && !titled => {
                let title = data_text("content")
                    .and_then(|c| c.lines().find(|l| !l.trim().is_empty()))
                    .map(|l| l.trim().to_string());
                if let Some(title) = title {
                    titled = true;
                    records.add_session(Session {
                        id: main.clone(),
                        parent: None,
                        title,
                        created: time.unwrap_or(0),
                    });
                }
            }
            "subagent.started" => {
                if let Some(agent) = agent {
                    let title = data_text("agentDescription")
                        .or_else(|| data_text("agentDisplayName"))
                        .unwrap_or("Copilot subagent");
                    let at = records.add_session(Session {
                        id: format!("{SESSION_PREFIX}{agent}"),
                        parent: Some(main.clone()),
                        title: title.to_string(),
                        created: time.unwrap_or(0),
                    });
                    let kind = data_text("agentName").unwrap_or("subagent");
                    agents.insert(agent.to_string(), (at, kind.to_string()));
                }
            }
            // A compaction's own model call, which no usage record holds.
            "session.compaction_complete" => {
                let Some(usage) = data
                    .and_then(|d| d.get("compactionTokensUsed"))
                    .and_then(Value::as_object)
                else {
                    continue;
                };
                let (session, _) = session_of(records, &mut agents, &main, agent, time);
                let call = Place {
                    id: text("id"),
                    line: n,
                    time,
                    session,
                    agent: "compaction".to_string(),
                };
                add_call(file, &call, usage, prices, records);
            }
            "session.usage_record" => {
                let Some(usage) = data.and_then(|d| d.get("usage")).and_then(Value::as_object)
                else {
                    records.problems.push(format!(
                        "{}: line {}: a usage record without usage; skipped",
                        file.display(),
                        n + 1
                    ));
                    continue;
                };
                let (session, kind) = session_of(records, &mut agents, &main, agent, time);
                let call = Place {
                    id: text("id"),
                    line: n,
                    time,
                    session,
                    agent: kind,
                };
                add_call(file, &call, usage, prices, records);
            }
            _ => {}
        }
    }
}

/// The session of a call made by `agent` (`None`: the main agent, session `main`) at `time`, and
/// the agent's name: `main`, or the subagent's type, known from its `subagent.started` event
/// (one whose start is not in the file is a `subagent` session of its own below `main`).
fn session_of(
    records: &mut Records,
    agents: &mut HashMap<String, (usize, String)>,
    main: &str,
    agent: Option<&str>,
    time: Option<i64>,
) -> (usize, String) {
    let Some(agent) = agent else {
        let at = records.add_session(Session {
            id: main.to_string(),
            parent: None,
            title: String::new(),
            created: time.unwrap_or(0),
        });
        return (at, "main".to_string());
    };
    agents
        .entry(agent.to_string())
        .or_insert_with(|| {
            let at = records.add_session(Session {
                id: format!("{SESSION_PREFIX}{agent}"),
                parent: Some(main.to_string()),
                title: "Copilot subagent".to_string(),
                created: time.unwrap_or(0),
            });
            (at, "subagent".to_string())
        })
        .clone()
}

/// Where a usage record sits: its event's id and line, its time, its session and the agent that
/// made the call (`main`, or the subagent's type).
struct Place<'a> {
    id: Option<&'a str>,
    line: usize,
    time: Option<i64>,
    session: usize,
    agent: String,
}

fn add_call(
    file: &Path,
    call: &Place,
    usage: &Map<String, Value>,
    prices: &PriceList,
    records: &mut Records,
) {
    let (id, n, time) = (call.id, call.line, call.time);
    let name = match id {
        Some(id) => format!("{}: event {id}", file.display()),
        None => format!("{}: line {}", file.display(), n + 1),
    };
    let mut part = |key: &str| match count(usage.get(key)) {
        Ok(n) => n,
        Err(v) => {
            records.problems.push(format!(
                "{name}: {key} {v} is not a token count; taken as 0"
            ));
            0
        }
    };
    let (input, output) = (part("inputTokens"), part("outputTokens"));
    let (read, written, reasoning) = (
        part("cacheReadTokens"),
        part("cacheWriteTokens"),
        part("reasoningTokens"),
    );
    let read = read.min(input);
    let written = written.min(input - read);
    let reasoning = reasoning.min(output);
    let mut tokens = Tokens {
        input: input - read - written,
        output: output - reasoning,
        reasoning,
        cache_read: read,
        cache_write: written,
        total: 0,
    };
    tokens.total = tokens.sum_of_parts();
    if time.is_none() {
        records
            .problems
            .push(format!("{name} has no time; counted at the epoch"));
    }
    let model = usage
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let cost = prices.cost(0.0, &tokens, "", &model, &mut records.problems);
    let key = match id {
        Some(id) => format!("copilot:{id}"),
        None => format!("copilot:{}:{n}", file.display()),
    };
    records.add_call(
        &key,
        Call {
            session: call.session,
            message: id.unwrap_or_default().to_string(),
            time: time.unwrap_or(0),
            agent: call.agent.clone(),
            provider: String::new(),
            model,
            tokens,
            cost,
        },
    );
}

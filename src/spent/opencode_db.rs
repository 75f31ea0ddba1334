//! OpenCode's SQLite database (1.2 and later, opencode.md §2.3, §12), read through rusqlite's
//! bundled SQLite, read-only, without ever writing, locking or leaving a file beside it.
//!
//! A reader of a WAL database normally creates `-wal` and `-shm` files beside it; ctx must not.
//! So the file is opened in the one way that fits what lies beside it:
//! - no `-wal` (OpenCode is not running, or has checkpointed and closed): `immutable=1`, which
//!   reads the file with no locks and no side files;
//! - a `-wal` and a `-shm` (OpenCode is running): `mode=ro`, SQLite's ordinary read-only reader,
//!   which reads the committed pages of the WAL through the existing shared-memory index and
//!   never blocks the writer (WAL readers take no lock a writer waits on);
//! - a `-wal` without its `-shm` (left by a crash): the database and its WAL are copied into a
//!   temporary directory and read there, where SQLite may recover the WAL (and drops a
//!   half-written tail, whose checksums fail) without touching OpenCode's files;
//! - a rollback `-journal` (not OpenCode's mode, but a database may be in it): `mode=ro`, which
//!   waits up to [`BUSY_TIMEOUT`] for a writer's lock and then says the database is locked.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::price::PriceList;
use super::record::{Call, MAX_CALL_COST, MAX_CALL_TOKENS, Records, Session, SourceInfo, Tokens};
use crate::error::{Error, Result};

/// How long a read waits for a lock a writer holds before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// Adds the sessions and assistant messages of the database at `path` to `records`.
pub fn read(path: &Path, prices: &PriceList, records: &mut Records) -> Result<()> {
    let (connection, _copy) = open(path)?;
    let fail = |e: rusqlite::Error| describe(path, e);
    let known: Vec<String> = {
        let mut tables = connection
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .map_err(fail)?;
        let names = tables
            .query_map([], |row| row.get::<_, String>(0))
            .map_err(fail)?;
        names.collect::<rusqlite::Result<_>>().map_err(fail)?
    };
    for table in ["session", "message"] {
        if !known.iter().any(|t| t == table) {
            return Err(Error::failure(format!(
                "{}: not an OpenCode database: it has no table {table:?}",
                path.display()
            ))
            .with_hint("OpenCode 1.2 and later keep their sessions in opencode.db (`opencode db path` prints it)"));
        }
    }
    records.sources.push(SourceInfo {
        kind: "opencode-db",
        path: path.display().to_string(),
    });
    let mut sessions = connection
        .prepare("SELECT id, parent_id, title, time_created FROM session")
        .map_err(fail)?;
    let mut rows = sessions.query([]).map_err(fail)?;
    let mut index: foldhash::HashMap<String, usize> = foldhash::HashMap::default();
    while let Some(row) = rows.next().map_err(fail)? {
        // Text columns are read as bytes: one session's bad bytes are named, not fatal.
        let id = text_column(row, 0, "session", "?", "id", &mut records.problems).map_err(fail)?;
        let Some(id) = id.filter(|id| !id.is_empty()) else {
            records
                .problems
                .push("a session without an id; skipped".to_string());
            continue;
        };
        let parent = text_column(row, 1, "session", &id, "parent_id", &mut records.problems)
            .map_err(fail)?;
        let title =
            text_column(row, 2, "session", &id, "title", &mut records.problems).map_err(fail)?;
        let created = match row.get_ref(3).map_err(fail)? {
            rusqlite::types::ValueRef::Integer(n) => n,
            rusqlite::types::ValueRef::Real(n) if n.is_finite() => n as i64,
            _ => 0,
        };
        let at = records.add_session(Session {
            id: id.clone(),
            parent,
            title: title.unwrap_or_default(),
            created,
        });
        index.insert(id, at);
    }
    drop(rows);

    let mut messages = connection
        .prepare("SELECT id, session_id, time_created, data FROM message")
        .map_err(fail)?;
    let mut rows = messages.query([]).map_err(fail)?;
    while let Some(row) = rows.next().map_err(fail)? {
        let Some(id) =
            text_column(row, 0, "message", "?", "id", &mut records.problems).map_err(fail)?
        else {
            continue;
        };
        let session_id = text_column(row, 1, "message", &id, "session_id", &mut records.problems)
            .map_err(fail)?
            .unwrap_or_default();
        let session_id = session_id.as_str();
        let time: i64 = row.get::<_, Option<i64>>(2).map_err(fail)?.unwrap_or(0);
        let data = match row.get_ref(3).map_err(fail)?.as_str_or_null() {
            Ok(Some(text)) => text,
            _ => {
                records
                    .problems
                    .push(format!("message {id}: its data is not text; skipped"));
                continue;
            }
        };
        let Some(fields) = parse_message(&id, data, &mut records.problems) else {
            continue;
        };
        let session = match index.get(session_id) {
            Some(&session) => session,
            None => {
                records.problems.push(format!(
                    "message {id}: its session {session_id} is not in the session table"
                ));
                let at = records.add_session(Session {
                    id: session_id.to_string(),
                    parent: None,
                    title: String::new(),
                    created: time,
                });
                index.insert(session_id.to_string(), at);
                at
            }
        };
        let call = fields.into_call(id.clone(), session, time, prices, &mut records.problems);
        records.add_call(&id, call);
    }
    Ok(())
}

/// The text in column `at` of a `table` row (the record `id`), `None` when NULL. Bytes that are
/// not UTF-8 are read with U+FFFD in their place and named in `problems`, as SQLite lets any
/// bytes into a TEXT column.
fn text_column(
    row: &rusqlite::Row,
    at: usize,
    table: &str,
    id: &str,
    column: &str,
    problems: &mut Vec<String>,
) -> rusqlite::Result<Option<String>> {
    use rusqlite::types::ValueRef;
    let bytes = match row.get_ref(at)? {
        ValueRef::Null => return Ok(None),
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes,
        ValueRef::Integer(n) => return Ok(Some(n.to_string())),
        ValueRef::Real(n) => return Ok(Some(n.to_string())),
    };
    Ok(Some(match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            problems.push(format!(
                "{table} {}: its {column} is not UTF-8; read with U+FFFD in place of the bad bytes",
                if id == "?" { text.as_str() } else { id }
            ));
            text
        }
    }))
}

/// What a message's `data` holds that the report needs.
#[derive(Deserialize)]
struct MessageData<'a> {
    #[serde(default, borrow)]
    role: Option<&'a RawValue>,
    #[serde(default, rename = "providerID")]
    provider: Option<String>,
    #[serde(default, rename = "modelID")]
    model: Option<String>,
    #[serde(default)]
    agent: Option<String>,
    /// Raw, so that a `null` (how JavaScript writes NaN) is seen rather than taken as absent.
    #[serde(default, borrow, deserialize_with = "present")]
    cost: Option<&'a RawValue>,
    #[serde(default)]
    tokens: Option<TokenData>,
    #[serde(default)]
    time: Option<TimeData>,
}

/// A field that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue as Deserialize>::deserialize(deserializer).map(Some)
}

#[derive(Deserialize, Default)]
struct TimeData {
    #[serde(default)]
    created: Option<f64>,
}

#[derive(Deserialize, Default)]
struct TokenData {
    #[serde(default)]
    total: Option<f64>,
    #[serde(default)]
    input: f64,
    #[serde(default)]
    output: f64,
    #[serde(default)]
    reasoning: f64,
    #[serde(default)]
    cache: CacheData,
}

#[derive(Deserialize, Default)]
struct CacheData {
    #[serde(default)]
    read: f64,
    #[serde(default)]
    write: f64,
}

/// An assistant message's fields, checked.
pub(super) struct CallFields {
    agent: String,
    provider: String,
    model: String,
    tokens: Tokens,
    /// The recorded cost, 0 when absent or unusable.
    recorded: f64,
    /// `time.created`, for sources that keep no separate column of it.
    pub(super) created: Option<i64>,
}

impl CallFields {
    pub(super) fn into_call(
        self,
        message: String,
        session: usize,
        time: i64,
        prices: &PriceList,
        problems: &mut Vec<String>,
    ) -> Call {
        let cost = prices.cost(
            self.recorded,
            &self.tokens,
            &self.provider,
            &self.model,
            problems,
        );
        Call {
            session,
            message,
            time,
            agent: self.agent,
            provider: self.provider,
            model: self.model,
            tokens: self.tokens,
            cost,
        }
    }
}

/// The call an assistant message's JSON describes; `None` for other roles and for JSON that is
/// not a message (then with a problem naming it).
pub(super) fn parse_message(
    id: &str,
    data: &str,
    problems: &mut Vec<String>,
) -> Option<CallFields> {
    let parsed: MessageData = match serde_json::from_str(data) {
        Ok(parsed) => parsed,
        Err(e) => {
            problems.push(format!(
                "message {id}: its data is not a message's JSON ({e}); skipped"
            ));
            return None;
        }
    };
    if parsed.role.map(RawValue::get) != Some("\"assistant\"") {
        return None;
    }
    let tokens = parsed.tokens.unwrap_or_default();
    let count = |n: f64, what: &str, problems: &mut Vec<String>| -> u64 {
        if n.is_finite() && n >= 0.0 && n <= MAX_CALL_TOKENS as f64 {
            n.round() as u64
        } else {
            problems.push(format!(
                "message {id}: {what} tokens {n} is not a count; taken as 0"
            ));
            0
        }
    };
    let mut checked = Tokens {
        input: count(tokens.input, "input", problems),
        output: count(tokens.output, "output", problems),
        reasoning: count(tokens.reasoning, "reasoning", problems),
        cache_read: count(tokens.cache.read, "cache read", problems),
        cache_write: count(tokens.cache.write, "cache write", problems),
        total: 0,
    };
    checked.total = match tokens.total {
        Some(total) if total > 0.0 => count(total, "total", problems),
        _ => checked.sum_of_parts(),
    };
    let recorded = match parsed.cost.map(RawValue::get) {
        // JavaScript writes NaN as null: a cost that is there but null is named, like -1.
        None => 0.0,
        Some(raw) => match raw.parse::<f64>() {
            Ok(cost) if cost.is_finite() && (0.0..=MAX_CALL_COST).contains(&cost) => cost,
            _ => {
                problems.push(format!(
                    "message {id}: cost {raw} is not a price; counted as not recorded"
                ));
                0.0
            }
        },
    };
    Some(CallFields {
        agent: parsed.agent.unwrap_or_default(),
        provider: parsed.provider.unwrap_or_default(),
        model: parsed.model.unwrap_or_default(),
        tokens: checked,
        recorded,
        created: parsed
            .time
            .and_then(|t| t.created)
            .filter(|t| t.is_finite())
            .map(|t| t as i64),
    })
}

/// A read-only connection to the database at `path` (see the module's comment), and the
/// temporary copy it reads when there is one (removed when dropped).
fn open(path: &Path) -> Result<(Connection, Option<tempfile::TempDir>)> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, "read", &e))?;
    if !meta.is_file() {
        return Err(Error::failure(format!("{}: not a file", path.display())));
    }
    // Through a symbolic link, the database's `-wal` and `-shm` lie beside the file it points
    // to, not beside the link: looked for there, and the file opened by its own path.
    let real = std::fs::canonicalize(path).map_err(|e| Error::io(path, "read", &e))?;
    let beside = |suffix: &str| {
        let mut name = real.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    let wal = std::fs::metadata(beside("-wal")).ok();
    let shm_exists = beside("-shm").exists();
    let journal_exists = beside("-journal").exists();
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let (connection, copy) = match wal {
        Some(wal) if wal.len() > 0 && !shm_exists => {
            let dir = tempfile::tempdir()
                .map_err(|e| Error::io(Path::new("a temporary directory"), "create", &e))?;
            let db = dir.path().join("opencode.db");
            std::fs::copy(&real, &db).map_err(|e| Error::io(path, "read", &e))?;
            std::fs::copy(beside("-wal"), dir.path().join("opencode.db-wal"))
                .map_err(|e| Error::io(&beside("-wal"), "read", &e))?;
            let connection = Connection::open_with_flags(
                &db,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| describe(path, e))?;
            (connection, Some(dir))
        }
        Some(_) if shm_exists => (open_uri(path, &real, "mode=ro", flags)?, None),
        _ if journal_exists => (open_uri(path, &real, "mode=ro", flags)?, None),
        _ => (open_uri(path, &real, "immutable=1", flags)?, None),
    };
    connection
        .busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| describe(path, e))?;
    Ok((connection, copy))
}

/// Opens `real` (the canonical path of `path`, which errors name) by a `file:` URI.
fn open_uri(path: &Path, real: &Path, query: &str, flags: OpenFlags) -> Result<Connection> {
    let uri = format!("file:{}?{query}", uri_path(&real.to_string_lossy()));
    Connection::open_with_flags(uri, flags).map_err(|e| describe(path, e))
}

/// A path as the path of a `file:` URI: everything but unreserved characters and `/`
/// percent-encoded (a `?` or `#` in a folder name must not end the path).
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A SQLite error as one line naming the file, with a hint where one helps.
fn describe(path: &Path, e: rusqlite::Error) -> Error {
    let code = e.sqlite_error_code();
    let error = Error::failure(format!("{}: {e}", path.display()));
    match code {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => error
            .with_hint("a running OpenCode holds a lock on it; try again in a moment (ctx never waits longer than 2 s, and never writes)"),
        Some(rusqlite::ErrorCode::NotADatabase) => {
            error.with_hint("give the path of OpenCode's opencode.db (`opencode db path` prints it)")
        }
        _ => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_paths_escape_what_would_end_the_path() {
        assert_eq!(uri_path("/a b/c?d#e%f.db"), "/a%20b/c%3Fd%23e%25f.db");
    }

    #[test]
    fn a_message_with_a_bad_cost_is_kept_without_it() {
        let mut problems = Vec::new();
        let data = r#"{"role":"assistant","providerID":"p","modelID":"m","cost":-1,"tokens":{"input":5,"output":1,"reasoning":0,"cache":{"read":0,"write":0}}}"#;
        let fields = parse_message("msg_1", data, &mut problems).unwrap();
        assert_eq!(fields.recorded, 0.0);
        assert_eq!(fields.tokens.total, 6);
        assert_eq!(
            problems,
            ["message msg_1: cost -1 is not a price; counted as not recorded"]
        );
        assert!(parse_message("msg_2", r#"{"role":"user"}"#, &mut problems).is_none());
        assert!(parse_message("msg_3", "{not json", &mut problems).is_none());
        assert_eq!(problems.len(), 2);
    }
}

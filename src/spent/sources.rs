//! Where the records come from: OpenCode's database (and Kilo Code's, which has its tables), the
//! JSON files of OpenCode 1.1 and older (`storage/`), `opencode export` files, and the session
//! files of the other agents ([`super::session_files`]). OpenCode's records are
//! read here; which databases there are and what the other agents' files are, the caller says
//! ([`Readers`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::opencode_db::{self, parse_message};
use super::price::PriceList;
use super::record::{Records, Session, SourceInfo};
use super::session_files::{self, SessionFormat};
use crate::error::{Error, Result};

/// What the sources may be, besides OpenCode's storage folders and export files.
pub struct Readers<'r> {
    /// The names of a database with OpenCode's tables in a data folder (`opencode.db`, and those
    /// of the agents that share them).
    pub databases: &'r [&'r str],
    /// The session files of the agents that keep one JSON Lines file per session.
    pub session_files: &'r [SessionFormat],
}

/// Reads every source into one set of records, calls sorted.
pub fn load(paths: &[PathBuf], readers: &Readers<'_>, prices: &PriceList) -> Result<Records> {
    let mut records = Records::default();
    for path in paths {
        read_one(path, readers, prices, &mut records)?;
        let repeated = records.take_repeated();
        if repeated > 0 {
            records.problems.push(format!(
                "{}: {repeated} call(s) were read from another source already; counted once",
                path.display()
            ));
        }
    }
    records.sort_calls();
    Ok(records)
}

fn read_one(
    path: &Path,
    readers: &Readers<'_>,
    prices: &PriceList,
    records: &mut Records,
) -> Result<()> {
    let formats = readers.session_files;
    if path.is_dir() {
        for name in readers.databases {
            if path.join(name).is_file() {
                return opencode_db::read(&path.join(name), prices, records);
            }
        }
        if path.join("session").is_dir() && path.join("message").is_dir() {
            return read_storage(path, prices, records);
        }
        if path.join("storage").is_dir() {
            return read_storage(&path.join("storage"), prices, records);
        }
        if session_files::read_folder(path, formats, prices, records)? {
            return Ok(());
        }
        let agents: Vec<&str> = formats.iter().map(|f| f.agent).collect();
        let agents = match agents.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => "no agent".to_string(),
        };
        return Err(Error::failure(format!(
            "{}: holds neither {}, OpenCode's storage/ folder, nor session files (*.jsonl) of {agents}",
            path.display(),
            readers.databases.join(", "),
        )));
    }
    // A pipe (`<(cat FILE)`) has no name to go by and can be read once: its bytes say what it is.
    if let Some(bytes) = crate::input::read_unless_regular(path, 1 << 30)? {
        if session_files::read_bytes(path, &bytes, formats, prices, records)? {
            return Ok(());
        }
        return read_export_text(path, &String::from_utf8_lossy(&bytes), prices, records);
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .map_err(|e| Error::io(path, "read", &e))?;
    if head[..n].starts_with(b"SQLite format 3") {
        return opencode_db::read(path, prices, records);
    }
    if session_files::read_file(path, formats, prices, records)? {
        return Ok(());
    }
    if path.extension().is_some_and(|e| e == "jsonl") {
        return Err(session_files::unknown(path, formats));
    }
    read_export(path, prices, records)
}

/// An `opencode export <sessionID>` file (opencode.md §3).
fn read_export(path: &Path, prices: &PriceList, records: &mut Records) -> Result<()> {
    let text = crate::input::read_text(path, 1 << 30)?;
    read_export_text(path, &text, prices, records)
}

/// [`read_export`] of the file's `text`.
fn read_export_text(
    path: &Path,
    text: &str,
    prices: &PriceList,
    records: &mut Records,
) -> Result<()> {
    // `opencode export` may print a progress line before the JSON.
    let start = text.find('{').unwrap_or(0);
    let value: Value = serde_json::from_str(&text[start..]).map_err(|e| {
        Error::failure(format!(
            "{}: neither an OpenCode database nor an export: {e}",
            path.display()
        ))
    })?;
    let info = value
        .get("info")
        .filter(|i| i.get("id").is_some_and(Value::is_string));
    let (Some(info), Some(messages)) = (info, value.get("messages").and_then(Value::as_array))
    else {
        return Err(Error::failure(format!(
            "{}: not an OpenCode session export: it needs \"info\" with an \"id\" and \"messages\"",
            path.display()
        )));
    };
    records.sources.push(SourceInfo {
        kind: "opencode-export",
        path: path.display().to_string(),
    });
    let session = add_session(records, info);
    for message in messages {
        let Some(info) = message.get("info") else {
            continue;
        };
        add_message(records, session, info, prices);
    }
    Ok(())
}

/// The JSON files of OpenCode 1.1 and older (opencode.md §2.2): `session/<project>/<id>.json`
/// and `message/<session>/<id>.json`.
fn read_storage(storage: &Path, prices: &PriceList, records: &mut Records) -> Result<()> {
    records.sources.push(SourceInfo {
        kind: "opencode-storage",
        path: storage.display().to_string(),
    });
    let mut positions = std::collections::HashMap::new();
    for project in sorted_entries(&storage.join("session"))? {
        if !project.is_dir() {
            continue;
        }
        for file in sorted_entries(&project)? {
            let Some(value) = read_json(&file, records) else {
                continue;
            };
            if value.get("id").is_some_and(Value::is_string) {
                let at = add_session(records, &value);
                positions.insert(records.sessions[at].id.clone(), at);
            } else {
                records.problems.push(format!(
                    "{}: not a session (no \"id\"); skipped",
                    file.display()
                ));
            }
        }
    }
    for folder in sorted_entries(&storage.join("message"))? {
        if !folder.is_dir() {
            continue;
        }
        let session_id = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let session = match positions.get(&session_id) {
            Some(&at) => at,
            None => {
                records.problems.push(format!(
                    "{}: its session {session_id} has no file under session/",
                    folder.display()
                ));
                let at = add_session(records, &serde_json::json!({"id": session_id}));
                positions.insert(session_id.clone(), at);
                at
            }
        };
        for file in sorted_entries(&folder)? {
            let Some(value) = read_json(&file, records) else {
                continue;
            };
            add_message(records, session, &value, prices);
        }
    }
    Ok(())
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, "read", &e)),
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    Ok(paths)
}

fn read_json(file: &Path, records: &mut Records) -> Option<Value> {
    if file.extension().is_none_or(|e| e != "json") {
        return None;
    }
    let parsed = std::fs::read_to_string(file)
        .map_err(|e| crate::error::describe_io(&e))
        .and_then(|text| serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}")));
    match parsed {
        Ok(value) => Some(value),
        Err(why) => {
            records
                .problems
                .push(format!("{}: {why}; skipped", file.display()));
            None
        }
    }
}

fn add_session(records: &mut Records, info: &Value) -> usize {
    let text = |key: &str| info.get(key).and_then(Value::as_str).map(str::to_string);
    records.add_session(Session {
        id: text("id").unwrap_or_default(),
        parent: text("parentID"),
        title: text("title").unwrap_or_default(),
        created: info
            .pointer("/time/created")
            .and_then(Value::as_f64)
            .map_or(0, |t| t as i64),
    })
}

fn add_message(records: &mut Records, session: usize, info: &Value, prices: &PriceList) {
    let id = info
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("(no id)")
        .to_string();
    let Some(fields) = parse_message(&id, &info.to_string(), &mut records.problems) else {
        return;
    };
    let time = fields.created.unwrap_or(0);
    let call = fields.into_call(id.clone(), session, time, prices, &mut records.problems);
    records.add_call(&id, call);
}

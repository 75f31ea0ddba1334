//! A session's file of ctx, `.opencode/flame/sessions/<id>.json`: the contexts anchored in its
//! requests (`compact::fold`), the calls the pressure valve masked, and when it last called the
//! model. This room holds all of it: the file's model, reading it (capped, regular files only),
//! setting a broken one aside, and writing it under the state's lock, atomically. A request reads
//! and parses the file once: a write takes the lock, finds the bytes it read unchanged (the
//! common case) and writes the document it holds, never parsing what it just wrote.

use std::path::{Path, PathBuf};

use super::fold::Anchor;
use crate::error::{Error, Result};
use crate::frame::id::SessionId;
use crate::frame::store::Store;
use crate::safe_file;

/// The file's layout version.
pub const VERSION: u64 = 1;

/// The folder of the sessions' files, below `.opencode/flame/`.
pub const DIR: &str = "sessions";

/// A session file larger than this is refused instead of read into memory.
const MAX_BYTES: u64 = 512 << 20;

/// How stale a recorded model call may get before a request records it anew. A session calls the
/// model many times a minute while it works; writing the file for each call would cost a locked
/// atomic write per request for a time that only needs to be right to the minute
/// (`frame.stale_after` counts minutes).
pub const LAST_REQUEST_STEP_MS: i64 = 60_000;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SessionFile {
    pub version: u64,
    #[serde(rename = "sessionID")]
    pub session: String,
    pub contexts: Vec<Anchor>,
    /// When the session last asked for its messages (each model call does), in epoch
    /// milliseconds, to [`LAST_REQUEST_STEP_MS`]; absent in files of older versions of ctx.
    #[serde(
        rename = "lastRequest",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub last_request: Option<i64>,
    /// The calls whose outputs the pressure valve masked (`compact::fold::valve`): masked in
    /// every later request too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<String>,
}

impl SessionFile {
    /// A new file of `session`.
    fn new(session: &str) -> SessionFile {
        SessionFile {
            version: VERSION,
            session: session.to_string(),
            contexts: Vec::new(),
            last_request: None,
            masked: Vec::new(),
        }
    }

    /// Whether a request at `now` is to record itself: none recorded, or the one recorded is a
    /// step old.
    pub fn records_request(&self, now: i64) -> bool {
        self.last_request
            .is_none_or(|t| now.saturating_sub(t) >= LAST_REQUEST_STEP_MS)
    }

    fn text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("plain data serializes");
        text.push('\n');
        text
    }
}

/// A session's file as a request read it: its bytes, and the document they hold.
pub struct Recorded {
    bytes: Vec<u8>,
    pub doc: SessionFile,
}

/// What a session's file holds.
pub enum Read {
    /// There is none.
    Missing,
    Found(Recorded),
    /// Not a session file of ctx for this session (truncated, garbage, empty, another
    /// session's): ctx's own file, to be set aside ([`set_aside`]) and started anew.
    Broken {
        bytes: Vec<u8>,
        why: String,
    },
}

/// Where the file of session `session` is kept.
pub fn path(store: &Store, session: &SessionId) -> PathBuf {
    store.dir().join(DIR).join(format!("{session}.json"))
}

/// The session's file, read once without the lock (it is only ever replaced whole). A file of a
/// newer ctx is an error: it is left alone, and the request goes unfolded.
pub fn read(store: &Store, session: &SessionId) -> Result<Read> {
    let file = path(store, session);
    let Some(bytes) = read_bytes(&file)? else {
        return Ok(Read::Missing);
    };
    Ok(match parse(&file, &bytes, session)? {
        Ok(doc) => Read::Found(Recorded { bytes, doc }),
        Err(why) => Read::Broken { bytes, why },
    })
}

/// When the session last called the model, as its file says; `None` for no file or one ctx
/// cannot read.
pub fn last_request(store: &Store, session: &SessionId) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct Only {
        #[serde(rename = "lastRequest")]
        last_request: Option<i64>,
    }
    let bytes = read_bytes(&path(store, session)).ok()??;
    serde_json::from_slice::<Only>(&bytes).ok()?.last_request
}

/// Edits the session's file under the state's lock: `edit` gets the document (the one `seen`
/// holds when the file still has its bytes, else the file read anew, else a new one) and says
/// whether it changed it; a changed document is written atomically. Returns the document as the
/// file now holds it.
pub fn update(
    store: &Store,
    session: &SessionId,
    seen: Option<&Recorded>,
    edit: impl FnOnce(&mut SessionFile) -> bool,
) -> Result<SessionFile> {
    let file = path(store, session);
    let dir = file.parent().unwrap_or(store.dir()).to_path_buf();
    store.with_lock(&dir, || {
        let bytes = read_bytes(&file)?;
        let mut doc = match (bytes, seen) {
            (None, _) => SessionFile::new(session),
            (Some(bytes), Some(seen)) if bytes == seen.bytes => seen.doc.clone(),
            (Some(bytes), _) => parse(&file, &bytes, session)?.map_err(Error::failure)?,
        };
        if !edit(&mut doc) {
            return Ok(doc);
        }
        doc.version = VERSION;
        let name = format!("{session}.json");
        let text = doc.text();
        safe_file::write_atomically(&dir, &file, safe_file::existing_mode(&file), &name, |out| {
            std::io::Write::write_all(out, text.as_bytes())
        })?;
        crate::frame::store::remove_dead_writers_temps(&dir, &format!(".{name}."));
        Ok(doc)
    })
}

/// Moves the session's file aside, to `<session>.json.broken-<stamp>` beside it, when it still
/// holds `seen` (under the lock: another call may have set it aside and started it anew already).
/// Returns where it went, `None` when it had changed.
pub fn set_aside(
    store: &Store,
    session: &SessionId,
    seen: &[u8],
    stamp: &str,
) -> Result<Option<PathBuf>> {
    let file = path(store, session);
    let dir = file.parent().unwrap_or(store.dir()).to_path_buf();
    store.with_lock(&dir, || {
        if read_bytes(&file)?.as_deref() != Some(seen) {
            return Ok(None);
        }
        let aside = file.with_file_name(format!("{session}.json.broken-{stamp}"));
        std::fs::rename(&file, &aside).map_err(|e| Error::io(&file, "move aside", &e))?;
        safe_file::sync_dir(&dir);
        Ok(Some(aside))
    })
}

/// A session file's bytes; `None` when there is none. Only a regular file is read: opening a
/// named pipe would wait for a writer.
fn read_bytes(file: &Path) -> Result<Option<Vec<u8>>> {
    match safe_file::read_regular_capped(file, MAX_BYTES) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => Err(Error::failure(format!(
            "{}: larger than {} MiB; refusing to read it",
            file.display(),
            MAX_BYTES >> 20
        ))),
        Err(e) => Err(Error::io(file, "read", &e)),
    }
}

/// The document of a session file's `bytes`: `Ok(Err(why))` when it is not a session file of
/// ctx for this session, an error when it is a newer ctx's.
fn parse(
    file: &Path,
    bytes: &[u8],
    session: &str,
) -> Result<std::result::Result<SessionFile, String>> {
    let doc: SessionFile = match serde_json::from_slice(bytes) {
        Ok(doc) => doc,
        Err(e) => {
            return Ok(Err(format!(
                "{}: not a session file of ctx: {e}",
                file.display()
            )));
        }
    };
    if doc.version > VERSION {
        return Err(Error::failure(format!(
            "{} has version {}; this ctx reads version {VERSION}",
            file.display(),
            doc.version,
        )));
    }
    if doc.session != session {
        return Ok(Err(format!(
            "{}: holds the contexts of session {}, not of {session}",
            file.display(),
            doc.session.escape_debug()
        )));
    }
    Ok(Ok(doc))
}

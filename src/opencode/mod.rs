//! What ctx knows of OpenCode (opencode.md) beyond its export (`crate::conversation`) and its
//! message shape (`crate::compact`): its todo list, its turns, and where its records are.

pub mod todo;
pub mod turn;

use std::path::PathBuf;

use crate::error::{Error, Result};

/// The project's folder OpenCode loads plugins and commands from. ctx keeps its own files there
/// too (`flame/`, `ctx.toml`), as Flame does.
pub const PROJECT_DIR: &str = ".opencode";

/// OpenCode's user folder, for every project: `$XDG_CONFIG_HOME/opencode`, else
/// `~/.config/opencode`.
pub fn user_dir() -> Option<PathBuf> {
    crate::project::xdg_config_home().map(|config| config.join("opencode"))
}

/// OpenCode's data directory: `$XDG_DATA_HOME/opencode`, default `~/.local/share/opencode`.
pub fn data_dir() -> Option<PathBuf> {
    crate::project::xdg_data_home().map(|d| d.join("opencode"))
}

/// The name of OpenCode's database in its data directory.
pub const DATABASE: &str = "opencode.db";

/// OpenCode's records, read by `ctx budget spent` when no source is given: `$OPENCODE_DB`
/// (absolute, or relative to the data directory) else the data directory's [`DATABASE`], else
/// its `storage/` folder.
pub fn default_source() -> Result<PathBuf> {
    let data = data_dir();
    if let Some(db) = std::env::var_os("OPENCODE_DB").filter(|v| !v.is_empty() && v != ":memory:") {
        let db = PathBuf::from(db);
        return Ok(match (&data, db.is_absolute()) {
            (Some(data), false) => data.join(db),
            _ => db,
        });
    }
    let data = data.ok_or_else(|| {
        Error::failure(
            "OpenCode's data directory is unknown: neither XDG_DATA_HOME nor HOME is set",
        )
    })?;
    let db = data.join(DATABASE);
    if db.exists() || !data.join("storage").is_dir() {
        return Ok(db);
    }
    Ok(data.join("storage"))
}

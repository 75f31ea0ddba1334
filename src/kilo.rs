//! Kilo Code (`@kilocode/cli`), an OpenCode fork: where it keeps its files. It has OpenCode's
//! plugin API, so ctx's OpenCode plugin and commands serve it as they are; only the folders
//! differ. Its sessions are OpenCode's (`ses_…`, the same tables), so the frames, the live fold
//! and `ctx budget spent` are OpenCode's too.

use std::path::PathBuf;

/// The project's folder Kilo loads plugins, commands and agents from (`.kilocode/` works too;
/// `.opencode/` does not). It marks a project's root too, so it is the project's to define.
pub use crate::project::KILO_DIR as PROJECT_DIR;

/// Kilo's user folder, for every project: `$XDG_CONFIG_HOME/kilo`, else `~/.config/kilo`.
pub fn user_dir() -> Option<PathBuf> {
    crate::project::xdg_config_home().map(|config| config.join("kilo"))
}

/// The name of Kilo's database of sessions and messages, OpenCode's tables under Kilo's name.
pub const DATABASE: &str = "kilo.db";

/// Kilo's database: `$XDG_DATA_HOME/kilo/kilo.db`, else `~/.local/share/kilo/kilo.db`.
pub fn database() -> Option<PathBuf> {
    crate::project::xdg_data_home().map(|data| data.join("kilo").join(DATABASE))
}

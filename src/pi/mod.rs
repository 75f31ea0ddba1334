//! pi (pi-coding-agent): where it keeps its files, one answer for every command that looks, its
//! session prefix, what its messages say of a person's turn (`turn`), and its session files as
//! records of cost (`cost`).

use std::path::{Path, PathBuf};

pub mod cost;
pub mod turn;

/// The project's folder pi loads extensions from, where install writes ctx's.
pub const PROJECT_DIR: &str = ".pi";

/// What ctx puts before a pi session id to name its session and frame.
pub const SESSION_PREFIX: &str = "pi_";

/// pi's agent folder, where it finds global extensions and writes its sessions:
/// `$PI_CODING_AGENT_DIR` (a leading `~` meaning the home folder, as pi reads it), else
/// `~/.pi/agent`; `None` when that needs a home folder and there is none.
pub fn agent_dir() -> Option<PathBuf> {
    let home = crate::project::home_dir;
    match std::env::var_os("PI_CODING_AGENT_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            match dir.strip_prefix("~") {
                Ok(rest) => home().map(|home| home.join(rest)),
                Err(_) => Some(dir),
            }
        }
        None => home().map(|home| home.join(".pi").join("agent")),
    }
}

/// The folder of pi's sessions started in `project` (pi names it `--<path without its leading
/// separator, each of / \ : as ->--`).
pub fn project_sessions_dir(project: &Path) -> Option<PathBuf> {
    let path = project.to_string_lossy();
    let trimmed = path.strip_prefix(['/', '\\']).unwrap_or(&path);
    let name: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    Some(agent_dir()?.join("sessions").join(format!("--{name}--")))
}

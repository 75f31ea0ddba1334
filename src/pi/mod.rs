//! pi (pi-coding-agent): where it keeps its files, one answer for every command that looks, and
//! what its messages say of a person's turn (`turn`).

use std::path::PathBuf;

pub mod turn;

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

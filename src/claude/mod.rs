//! What ctx knows of Claude Code (claude-code.md): its ids as frame ids, its settings file, its
//! transcripts (read for their cost in `cost`), and where its own folder is.

pub mod cost;
pub mod fold;
pub mod ids;
pub mod log;
pub mod settings;
pub mod tasks;
pub mod transcript;
pub mod turn_fold;
pub mod usage;

use std::path::PathBuf;

/// Claude Code's tools, as a todo item's summary reads them (`crate::frame::digest`).
pub const DIGEST_TOOLS: crate::frame::digest::Tools = crate::frame::digest::Tools {
    shell: &["Bash"],
    editing: &["Edit", "MultiEdit", "Write", "NotebookEdit"],
    path_keys: &["file_path", "notebook_path"],
};

/// The project's folder of Claude Code's settings, where install writes ctx's hooks.
pub const PROJECT_DIR: &str = ".claude";

/// Claude Code's own folder, as Claude Code finds it: `$CLAUDE_CONFIG_DIR` when set, else
/// `~/.claude`. Its user settings, its transcripts (`projects/`) and the hooks' fallback log live
/// there; `None` when neither the variable nor an absolute `$HOME` is set. Taken as Claude Code
/// 2.1.328 takes it (read from its code, and seen): a `~` is not the home folder but a folder of
/// that name, a relative path is relative to the working folder, and an empty value is the
/// working folder itself.
pub fn config_dir() -> Option<PathBuf> {
    std::env::var_os("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| crate::project::home_dir().map(|h| h.join(".claude")))
}

/// How long a project folder's name may be before Claude Code cuts it and adds a hash.
const MAX_PROJECT_NAME: usize = 200;

/// The folder of `project`'s transcripts: `<config dir>/projects/<name>`, named by
/// [`project_folder_name`].
pub fn projects_dir(project: &std::path::Path) -> Option<PathBuf> {
    Some(
        config_dir()?
            .join("projects")
            .join(project_folder_name(&project.to_string_lossy())),
    )
}

/// The name Claude Code (2.1.328, read from its code) gives the transcript folder of the project
/// at `path`: every UTF-16 unit other than an ASCII letter or digit written as `-` (so `/tmp/p`
/// is `-tmp-p`, and a character outside the BMP two dashes); a name over 200 units is cut to 200
/// and followed by `-` and a hash of the whole path: Java's `String.hashCode` (31·h + unit, in
/// 32-bit arithmetic), its absolute value in base 36.
pub fn project_folder_name(path: &str) -> String {
    let units: Vec<u16> = path.encode_utf16().collect();
    let mut name: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => b as char,
            _ => '-',
        })
        .collect();
    if name.len() <= MAX_PROJECT_NAME {
        return name;
    }
    let hash = units
        .iter()
        .fold(0i32, |h, &u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
    name.truncate(MAX_PROJECT_NAME);
    name.push('-');
    name.push_str(&base36(i64::from(hash).unsigned_abs()));
    name
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_folders_are_named_as_claude_code_names_them() {
        assert_eq!(project_folder_name("/tmp/cc1/proj"), "-tmp-cc1-proj");
        // Expected values computed by Claude Code's own function (2.1.328) under Node.
        let long = format!("/tmp/{}/prøject 😀", "a-very-long-folder-name-".repeat(9));
        assert_eq!(
            project_folder_name(&long),
            format!("-tmp-{}a-v-q8gu0o", "a-very-long-folder-name-".repeat(8))
        );
        let wide = format!("/x/{}", "é😀".repeat(70));
        assert_eq!(
            project_folder_name(&wide),
            format!("-x{}-qo1eee", "-".repeat(198))
        );
        // Exactly 200 units: no hash.
        let edge = format!("/{}", "a".repeat(199));
        assert_eq!(project_folder_name(&edge).len(), 200);
    }

    #[test]
    fn the_smallest_hash_has_an_absolute_value() {
        assert_eq!(base36(i64::from(i32::MIN).unsigned_abs()), "zik0zk");
        assert_eq!(base36(0), "0");
    }
}

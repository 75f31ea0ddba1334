//! The project: its root directory, the paths ctx uses under it, and ctx's layered settings
//! files (`settings.rs` resolves each setting through them).

use std::cell::OnceCell;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The project a command works on.
pub struct Project {
    pub root: PathBuf,
    /// The root as the user wrote it (`-C DIR`, `CTX_ROOT`), `None` when discovered.
    pub given_root: Option<PathBuf>,
    /// What made a discovered root the root (`Marker::Given` for `-C`/`CTX_ROOT`).
    pub marker: Marker,
    config: OnceCell<Config>,
}

impl Project {
    /// `-C/--root` (or `CTX_ROOT`) when given; else discovery from the working directory.
    pub fn locate(explicit: Option<&Path>) -> Result<Project> {
        let (root, marker) = match explicit {
            Some(dir) => {
                if !dir.is_dir() {
                    return Err(Error::failure(format!(
                        "{}: the project root is not a directory",
                        dir.display()
                    )));
                }
                (absolute(dir)?, Marker::Given)
            }
            None => {
                let cwd = std::env::current_dir().map_err(|e| {
                    Error::failure(format!(
                        "cannot read the working directory: {}",
                        crate::error::describe_io(&e)
                    ))
                })?;
                let home = home_dir().map(|home| std::fs::canonicalize(&home).unwrap_or(home));
                discover_root(&cwd, home.as_deref())
            }
        };
        let mut project = Project::at(root);
        project.given_root = explicit.map(Path::to_path_buf);
        project.marker = marker;
        Ok(project)
    }

    pub fn at(root: PathBuf) -> Project {
        Project {
            root,
            given_root: None,
            marker: Marker::Given,
            config: OnceCell::new(),
        }
    }

    /// `.opencode/flame/` under the root.
    pub fn flame_dir(&self) -> PathBuf {
        self.root.join(".opencode").join("flame")
    }

    /// `.swarm/` under the root.
    pub fn swarm_dir(&self) -> PathBuf {
        self.root.join(".swarm")
    }

    /// ctx's own settings files, read on first use.
    pub fn config(&self) -> Result<&Config> {
        if let Some(config) = self.config.get() {
            return Ok(config);
        }
        let config = Config::load(&self.root)?;
        Ok(self.config.get_or_init(|| config))
    }

    /// Frame state in `~/.opencode/flame/` that an earlier ctx may have put there for this
    /// project: it took the home folder's `.opencode/` (OpenCode's installer makes one for its
    /// binary) for the root of every git project below it. Reported while the project, another
    /// folder, has no frame state of its own; ctx never moves or deletes it.
    pub fn stray_home_state(&self) -> Option<PathBuf> {
        let home = home_dir()?;
        let home = std::fs::canonicalize(&home).unwrap_or(home);
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        if root == home {
            return None;
        }
        let stray = home.join(".opencode").join("flame");
        let ours = self.flame_dir();
        (stray.join("state.json").is_file() && ours.symlink_metadata().is_err()).then_some(stray)
    }
}

fn absolute(dir: &Path) -> Result<PathBuf> {
    std::path::absolute(dir).map_err(|e| Error::io(dir, "resolve", &e))
}

/// Kilo Code's project folder (`crate::kilo`), a root marker as OpenCode's `.opencode/` is.
pub const KILO_DIR: &str = ".kilo";

/// What chose the project root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// `-C DIR` or `CTX_ROOT`.
    Given,
    /// The nearest folder holding `.opencode/`, at or below the git worktree root.
    Opencode,
    /// The nearest folder holding `.kilo/` (Kilo Code's), at or below the git worktree root.
    Kilo,
    /// The nearest folder holding `.swarm/`, at or below the git worktree root.
    Swarm,
    /// The git worktree root: the nearest folder holding `.git` (a folder, or a file as in
    /// worktrees and submodules).
    Git,
    /// None of them up to the home folder: the working directory.
    WorkingDirectory,
}

impl Marker {
    /// How `ctx config` names it.
    pub fn describe(self) -> &'static str {
        match self {
            Marker::Given => "given",
            Marker::Opencode => "holds .opencode/",
            Marker::Kilo => "holds .kilo/",
            Marker::Swarm => "holds .swarm/",
            Marker::Git => "git worktree root (.git)",
            Marker::WorkingDirectory => {
                "the working directory: no .opencode/, .kilo/, .swarm/ or .git"
            }
        }
    }

    /// Its name in `ctx config --json`.
    pub fn name(self) -> &'static str {
        match self {
            Marker::Given => "given",
            Marker::Opencode => ".opencode",
            Marker::Kilo => ".kilo",
            Marker::Swarm => ".swarm",
            Marker::Git => ".git",
            Marker::WorkingDirectory => "cwd",
        }
    }
}

/// The project root of working directory `start` (cli.md, `-C`): walking up from `start` (itself
/// included), the first folder holding `.opencode/`, `.kilo/` or `.swarm/`, or holding `.git` (the
/// git worktree root, where the walk ends: a project's root is never above its worktree); else
/// `start`. The walk never enters `home` from below: the home folder holds `.opencode/` for
/// OpenCode's own binary, and is a project only when it is the working directory.
pub fn discover_root(start: &Path, home: Option<&Path>) -> (PathBuf, Marker) {
    let has_dir = |dir: &Path, name: &str| dir.join(name).is_dir();
    for dir in start.ancestors() {
        let is_home = home == Some(dir);
        if is_home && dir != start {
            break;
        }
        let marker = if has_dir(dir, ".opencode") {
            Some(Marker::Opencode)
        } else if has_dir(dir, KILO_DIR) {
            Some(Marker::Kilo)
        } else if has_dir(dir, ".swarm") {
            Some(Marker::Swarm)
        } else if dir.join(".git").symlink_metadata().is_ok() {
            // A folder, or a file (worktrees, submodules) even when the gitdir it names is gone:
            // the worktree is still where the user works.
            Some(Marker::Git)
        } else {
            None
        };
        if let Some(marker) = marker {
            return (dir.to_path_buf(), marker);
        }
        if is_home {
            break;
        }
    }
    (start.to_path_buf(), Marker::WorkingDirectory)
}

/// Where a setting's value came from, highest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A command-line flag.
    Flag,
    /// An environment variable (`CTX_*`, or another tool's the setting honours).
    Env,
    /// The project's `.opencode/ctx.toml`.
    Project,
    /// The user's `$XDG_CONFIG_HOME/ctx/config.toml`.
    User,
    /// opencode-swarm's configuration (`context_budget`).
    #[serde(rename = "opencode-swarm")]
    Swarm,
    /// ctx's built-in default.
    Default,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Flag => "flag",
            Source::Env => "env",
            Source::Project => "project",
            Source::User => "user",
            Source::Swarm => "opencode-swarm",
            Source::Default => "default",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One parsed settings file.
pub struct ConfigFile {
    pub path: PathBuf,
    pub table: toml::Table,
}

/// ctx's settings files: `.opencode/ctx.toml` in the project, `$XDG_CONFIG_HOME/ctx/config.toml`
/// for the user. Either may be absent.
pub struct Config {
    pub project_path: PathBuf,
    pub user_path: Option<PathBuf>,
    pub project: Option<ConfigFile>,
    pub user: Option<ConfigFile>,
}

impl Config {
    pub fn load(root: &Path) -> Result<Config> {
        let project_path = root.join(".opencode").join("ctx.toml");
        let user_path = xdg_config_home().map(|dir| dir.join("ctx").join("config.toml"));
        Ok(Config {
            project: read_config_file(&project_path)?,
            user: match &user_path {
                Some(path) => read_config_file(path)?,
                None => None,
            },
            project_path,
            user_path,
        })
    }
}

/// The value at dotted `key` (`frame.context.total`) in a settings table.
pub fn lookup_dotted<'a>(table: &'a toml::Table, key: &str) -> Option<&'a toml::Value> {
    let mut parts = key.split('.');
    let mut value = table.get(parts.next()?)?;
    for part in parts {
        value = value.as_table()?.get(part)?;
    }
    Some(value)
}

/// `$XDG_CONFIG_HOME`, defaulting to `~/.config`.
pub fn xdg_config_home() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home_dir().map(|h| h.join(".config")))
}

/// `$XDG_DATA_HOME`, defaulting to `~/.local/share`.
pub fn xdg_data_home() -> Option<PathBuf> {
    std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home_dir().map(|h| h.join(".local").join("share")))
}

/// `$XDG_CACHE_HOME`, defaulting to `~/.cache`.
pub fn xdg_cache_home() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home_dir().map(|h| h.join(".cache")))
}

/// The variable that puts a command in hook mode (any value but the empty one): ctx's OpenCode
/// plugin sets it on every ctx it runs. `ctx claude hook` is always in hook mode.
pub const HOOK_ENV: &str = "CTX_HOOK";

/// Whether this process runs in hook mode by [`HOOK_ENV`]: called by an agent on its own, not
/// typed by a person.
pub fn hook_mode() -> bool {
    std::env::var_os(HOOK_ENV).is_some_and(|v| !v.is_empty())
}

/// What a hook must not make a project of, when `root` is one: `the home folder` or `/`.
pub fn unclaimed_root(root: &Path) -> Option<&'static str> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if root.parent().is_none() {
        return Some("/");
    }
    let home = home_dir()?;
    let home = std::fs::canonicalize(&home).unwrap_or(home);
    (root == home).then_some("the home folder")
}

/// `$HOME`, when it is set to an absolute path (a relative one would name a different folder in
/// every working directory).
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| home.is_absolute())
}

/// Settings files are small; anything over this is refused rather than read into memory.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

fn read_config_file(path: &Path) -> Result<Option<ConfigFile>> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, "read", &e)),
    };
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(Error::failure(format!(
            "{}: too large for a settings file ({} bytes)",
            path.display(),
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, "read", &e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::failure(format!("{}: not UTF-8 text", path.display())))?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        Error::failure(format!(
            "{}: {}",
            path.display(),
            describe_toml_error(&text, &e)
        ))
    })?;
    Ok(Some(ConfigFile {
        path: path.to_path_buf(),
        table,
    }))
}

fn describe_toml_error(text: &str, err: &toml::de::Error) -> String {
    let message = err.message().trim_end();
    match err.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_is_the_nearest_marker_at_or_below_the_git_worktree() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        std::fs::create_dir_all(top.join("home/.opencode/bin")).unwrap();
        let repo = top.join("home/repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("a/.opencode")).unwrap();
        std::fs::create_dir_all(repo.join("a/b/c")).unwrap();
        std::fs::create_dir_all(repo.join("x/y")).unwrap();
        let home = Some(top.join("home"));
        let home = home.as_deref();
        let root = |p: &str| discover_root(&top.join(p), home);
        assert_eq!(root("home/repo/a/b/c"), (repo.join("a"), Marker::Opencode));
        assert_eq!(root("home/repo/x/y"), (repo.clone(), Marker::Git));
        // Not the home folder's .opencode/, from below; the home folder itself, from there.
        std::fs::create_dir_all(top.join("home/loose")).unwrap();
        assert_eq!(
            root("home/loose"),
            (top.join("home/loose"), Marker::WorkingDirectory)
        );
        assert_eq!(root("home"), (top.join("home"), Marker::Opencode));
        // Without a home folder, the walk goes on to the filesystem's top.
        assert_eq!(
            discover_root(&top.join("home/loose"), None),
            (top.join("home"), Marker::Opencode)
        );
    }

    /// Hostile settings files are refused with their path, never a panic or a stack overflow.
    #[test]
    fn hostile_settings_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ctx.toml");
        let deep = |open: &str, inner: &str, close: &str| {
            format!("a = {}{inner}{}", open.repeat(10_000), close.repeat(10_000))
        };
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("truncated", b"[frame.context\ntotal = 4".to_vec()),
            ("nested arrays", deep("[", "", "]").into_bytes()),
            ("nested tables", deep("{b = ", "1", "}").into_bytes()),
            (
                "huge",
                format!("a = \"{}\"\n", "x".repeat(2 << 20)).into_bytes(),
            ),
            ("not UTF-8", b"a = \"\xff\"\n".to_vec()),
            ("NUL", b"\0a = 1\n".to_vec()),
            ("binary", (0..=255u8).rev().collect()),
        ];
        for (name, bytes) in cases {
            std::fs::write(&path, &bytes).unwrap();
            let Err(err) = read_config_file(&path) else {
                panic!("{name}: accepted");
            };
            assert!(
                err.message.starts_with(&path.display().to_string()),
                "{name}: {}",
                err.message
            );
            assert!(
                err.message.len() < 1000,
                "{name}: {} bytes",
                err.message.len()
            );
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name}: rewritten");
        }
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert!(read_config_file(&path).is_err(), "a directory");
    }

    #[test]
    fn dotted_lookup() {
        let table: toml::Table = "[frame.context]\ntotal = 10\n".parse().unwrap();
        assert_eq!(
            lookup_dotted(&table, "frame.context.total"),
            Some(&toml::Value::Integer(10))
        );
        assert_eq!(lookup_dotted(&table, "frame.context.nope"), None);
    }
}

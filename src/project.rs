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
    config: OnceCell<Config>,
}

impl Project {
    /// `-C/--root` (or `CTX_ROOT`) when given; else discovery from the working directory.
    pub fn locate(explicit: Option<&Path>) -> Result<Project> {
        let root = match explicit {
            Some(dir) => {
                if !dir.is_dir() {
                    return Err(Error::failure(format!(
                        "{}: the project root is not a directory",
                        dir.display()
                    )));
                }
                absolute(dir)?
            }
            None => {
                let cwd = std::env::current_dir().map_err(|e| {
                    Error::failure(format!(
                        "cannot read the working directory: {}",
                        crate::error::describe_io(&e)
                    ))
                })?;
                discover_root(&cwd)
            }
        };
        let mut project = Project::at(root);
        project.given_root = explicit.map(Path::to_path_buf);
        Ok(project)
    }

    pub fn at(root: PathBuf) -> Project {
        Project {
            root,
            given_root: None,
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
}

fn absolute(dir: &Path) -> Result<PathBuf> {
    std::path::absolute(dir).map_err(|e| Error::io(dir, "resolve", &e))
}

/// The nearest ancestor of `start` (itself included) holding `.opencode/` or `.swarm/`; else the
/// nearest holding `.git`; else `start`.
pub fn discover_root(start: &Path) -> PathBuf {
    let has = |dir: &Path, name: &str| dir.join(name).is_dir();
    if let Some(dir) = start
        .ancestors()
        .find(|dir| has(dir, ".opencode") || has(dir, ".swarm"))
    {
        return dir.to_path_buf();
    }
    // `.git` is a file in worktrees and submodules.
    if let Some(dir) = start.ancestors().find(|dir| dir.join(".git").exists()) {
        return dir.to_path_buf();
    }
    start.to_path_buf()
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

/// `$XDG_CACHE_HOME`, defaulting to `~/.cache`.
pub fn xdg_cache_home() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home_dir().map(|h| h.join(".cache")))
}

pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
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
    fn root_prefers_opencode_over_git() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        std::fs::create_dir_all(top.join(".git")).unwrap();
        std::fs::create_dir_all(top.join("a/.opencode")).unwrap();
        std::fs::create_dir_all(top.join("a/b/c")).unwrap();
        assert_eq!(discover_root(&top.join("a/b/c")), top.join("a"));
        std::fs::create_dir_all(top.join("x/y")).unwrap();
        assert_eq!(discover_root(&top.join("x/y")), top.to_path_buf());
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

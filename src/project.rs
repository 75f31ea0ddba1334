//! The project: its root directory, the paths ctx uses under it, and ctx's layered settings
//! (flag > `CTX_*` environment > project `ctx.toml` > user `config.toml` > default).

use std::cell::OnceCell;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The project a command works on.
pub struct Project {
    pub root: PathBuf,
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
        Ok(Project::at(root))
    }

    pub fn at(root: PathBuf) -> Project {
        Project {
            root,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Flag,
    Env,
    Project,
    User,
    Swarm,
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

/// A setting's value with its origin (`detail` names the file or variable).
#[derive(Debug, Clone, PartialEq)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
    pub detail: Option<String>,
}

/// One parsed settings file.
pub struct ConfigFile {
    pub path: PathBuf,
    pub table: toml::Table,
}

/// ctx's settings files: `.opencode/ctx.toml` in the project, `$XDG_CONFIG_HOME/ctx/config.toml`.
pub struct Config {
    pub project: Option<ConfigFile>,
    pub user: Option<ConfigFile>,
}

impl Config {
    pub fn load(root: &Path) -> Result<Config> {
        let project = read_config_file(&root.join(".opencode").join("ctx.toml"))?;
        let user = match xdg_config_home() {
            Some(dir) => read_config_file(&dir.join("ctx").join("config.toml"))?,
            None => None,
        };
        Ok(Config { project, user })
    }

    /// Looks up `key` (dotted, e.g. `frame.context.total`) in `CTX_*` variable `env`, then the
    /// project file, then the user file. `parse` turns the raw value into `T`, or says why not.
    pub fn lookup<T>(
        &self,
        key: &str,
        env: &str,
        parse: impl Fn(&toml::Value) -> Option<T>,
        expected: &str,
    ) -> Result<Option<Setting<T>>> {
        if let Some(raw) = std::env::var_os(env).filter(|v| !v.is_empty()) {
            let raw = raw.to_string_lossy().into_owned();
            let value = env_value(&raw);
            return match parse(&value) {
                Some(value) => Ok(Some(Setting {
                    value,
                    source: Source::Env,
                    detail: Some(env.to_string()),
                })),
                None => Err(Error::failure(format!("{env}={raw}: expected {expected}"))),
            };
        }
        for (file, source) in [(&self.project, Source::Project), (&self.user, Source::User)] {
            let Some(file) = file else { continue };
            let Some(value) = lookup_dotted(&file.table, key) else {
                continue;
            };
            return match parse(value) {
                Some(value) => Ok(Some(Setting {
                    value,
                    source,
                    detail: Some(file.path.display().to_string()),
                })),
                None => Err(Error::failure(format!(
                    "{}: {key} must be {expected}",
                    file.path.display()
                ))),
            };
        }
        Ok(None)
    }
}

/// An environment value read as TOML scalar when it looks like one (numbers, booleans), else as a string.
fn env_value(raw: &str) -> toml::Value {
    let trimmed = raw.trim();
    if let Ok(i) = trimmed.parse::<i64>() {
        return toml::Value::Integer(i);
    }
    if let Ok(f) = trimmed.parse::<f64>() {
        return toml::Value::Float(f);
    }
    match trimmed {
        "true" => toml::Value::Boolean(true),
        "false" => toml::Value::Boolean(false),
        _ => toml::Value::String(raw.to_string()),
    }
}

fn lookup_dotted<'a>(table: &'a toml::Table, key: &str) -> Option<&'a toml::Value> {
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

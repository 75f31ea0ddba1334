//! Reading `.swarm/` files the way opencode-swarm does (swarm.md §1.1): any failure is *absent*,
//! one BOM is stripped, invalid UTF-8 is replaced, and empty text is the same as absent. A file
//! that exists but cannot be read (a directory, a pipe, a device, one larger than any plan) is
//! absent too, with a note saying why. Nothing here ever opens a file for writing.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde_json::Value;

use crate::error::describe_io;

/// `.swarm/` files larger than this are absent rather than read into memory: far beyond any plan
/// an agent writes, and a string the plugin itself could not hold.
const MAX_SWARM_BYTES: u64 = 512 << 20;

/// A file's bytes; `Ok(None)` when it does not exist (a dangling link included), `Err` saying why
/// a file that exists cannot be read. Only regular files are opened: opening a named pipe would
/// wait for a writer forever, and a device can be endless.
pub fn read_bytes(path: &Path, cap: u64) -> Result<Option<Vec<u8>>, String> {
    let too_large = || {
        if cap >= 1 << 20 {
            format!("larger than {} MiB", cap >> 20)
        } else {
            format!("larger than {} KB", cap >> 10)
        }
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(describe_io(&e)),
    };
    if meta.is_dir() {
        return Err("is a directory".into());
    }
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > cap {
        return Err(too_large());
    }
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(describe_io(&e)),
    };
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| describe_io(&e))?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(Some(bytes))
}

/// A `.swarm/` file's text: `Ok(None)` when it is absent or empty, `Err` saying why a file that
/// exists cannot be read (which the plugin treats as absent too).
pub fn read_swarm_file(path: &Path) -> Result<Option<String>, String> {
    Ok(read_swarm_file_keeping_empty(path)?.filter(|text| !text.is_empty()))
}

/// A `.swarm/` file's text as opencode-swarm 5.x's reader returns it: one BOM stripped, invalid
/// UTF-8 replaced, and an empty file kept as `Some("")` (5.x tells it from a missing one).
pub fn read_swarm_file_keeping_empty(path: &Path) -> Result<Option<String>, String> {
    let Some(bytes) = read_bytes(path, MAX_SWARM_BYTES)? else {
        return Ok(None);
    };
    // Valid UTF-8, the usual case, keeps its buffer: a large plan.json is not copied.
    let mut text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(Some(text))
}

/// A `.swarm/` file's text, or `None` when it is absent, unreadable or empty.
pub fn read_text(path: &Path) -> Option<String> {
    read_swarm_file(path).ok().flatten()
}

/// The file's modification time in milliseconds since the epoch, when it can be read.
pub fn modified_ms(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(since.as_millis()).ok()
}

use super::config::{self, SwarmConfig};
use super::plan_json;
use super::schemas::{BARE_CONFIG, PLUGIN_CONFIG};

/// Which file the plan text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanSource {
    PlanMd,
    PlanJson,
}

impl PlanSource {
    pub fn file_name(self) -> &'static str {
        match self {
            PlanSource::PlanMd => "plan.md",
            PlanSource::PlanJson => "plan.json",
        }
    }
}

/// The plan text (swarm.md §2): `D(plan.json)` when plan.json is usable, else plan.md.
pub struct Plan {
    pub text: String,
    pub source: PlanSource,
    /// The validated plan.json, when it was the source.
    pub json: Option<plan_json::PlanJson>,
}

impl Plan {
    /// The plan as data, read from plan.json when that was the source.
    pub fn model(&self) -> super::model::Plan {
        match &self.json {
            Some(json) => super::model::from_json(json),
            None => super::model::from_markdown(&self.text),
        }
    }
}

/// What `.swarm/` holds, plus a note for each file that was there but could not be used (a
/// plan.json that is not usable, a plan.md or context.md that cannot be read).
pub struct SwarmFiles {
    pub plan: Option<Plan>,
    /// `None` from [`read_plan`], which does not read context.md.
    pub context: Option<String>,
    pub notes: Vec<String>,
}

/// The plan text (swarm.md §2); context.md is not read.
pub fn read_plan(dir: &Path) -> SwarmFiles {
    let mut notes = Vec::new();
    let json_path = dir.join("plan.json");
    let mut plan = None;
    let json = read_swarm_file(&json_path).and_then(|text| match text {
        Some(text) => plan_json::parse(text).map(Some),
        None => Ok(None),
    });
    match json {
        Ok(Some(parsed)) => {
            let markdown = plan_json::derive_markdown(&parsed, modified_ms(&json_path));
            plan = Some(Plan {
                text: markdown,
                source: PlanSource::PlanJson,
                json: Some(parsed),
            });
        }
        Ok(None) => {}
        Err(reason) => notes.push(format!(
            "{}: {reason}; reading plan.md instead",
            json_path.display()
        )),
    }
    if plan.is_none() {
        let md_path = dir.join("plan.md");
        plan = match read_swarm_file(&md_path) {
            Ok(text) => text.map(|text| Plan {
                text,
                source: PlanSource::PlanMd,
                json: None,
            }),
            Err(reason) => {
                notes.push(unreadable(&md_path, &reason));
                None
            }
        };
    }
    SwarmFiles {
        plan,
        context: None,
        notes,
    }
}

/// The plan text and context.md.
pub fn read_swarm_dir(dir: &Path) -> SwarmFiles {
    let mut files = read_plan(dir);
    let context_path = dir.join("context.md");
    files.context = match read_swarm_file(&context_path) {
        Ok(text) => text,
        Err(reason) => {
            files.notes.push(unreadable(&context_path, &reason));
            None
        }
    };
    files
}

/// The note for a `.swarm/` file that exists but cannot be read.
pub fn unreadable(path: &Path, reason: &str) -> String {
    format!(
        "{}: {reason}; read as absent, as opencode-swarm does",
        path.display()
    )
}

/// Config files larger than this are ignored rather than read into memory. opencode-swarm 4.3.0
/// has no cap (4.3.2 caps at 100 KB); this one only stops pathological files.
const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// The merged opencode-swarm config, and a warning for each file that was ignored.
pub struct LoadedConfig {
    pub config: SwarmConfig,
    pub warnings: Vec<String>,
}

/// Reads `$XDG_CONFIG_HOME/opencode/opencode-swarm.json` and `<root>/.opencode/opencode-swarm.json`
/// and merges them as the plugin does (swarm.md §6).
pub fn read_config(root: &Path) -> LoadedConfig {
    let mut warnings = Vec::new();
    let user_path = crate::project::xdg_config_home()
        .map(|dir| dir.join("opencode").join("opencode-swarm.json"));
    let project_path = root.join(".opencode").join("opencode-swarm.json");
    let mut read = |path: &Path| -> Option<SwarmConfig> {
        let problem = match read_bytes(path, MAX_CONFIG_BYTES) {
            Ok(None) => return None,
            Ok(Some(bytes)) => match config::parse(&String::from_utf8_lossy(&bytes)) {
                Ok(config) => return Some(config),
                Err(reason) => reason,
            },
            Err(reason) => reason,
        };
        warnings.push(format!(
            "{}: {problem}; ignored, as opencode-swarm ignores it",
            path.display()
        ));
        None
    };
    let user = user_path.as_deref().and_then(&mut read);
    let project = read(&project_path);
    LoadedConfig {
        config: config::merge(user, project),
        warnings,
    }
}

/// opencode-swarm 5.1.0's cap on a config file (`MAX_CONFIG_FILE_BYTES`): a larger one is
/// ignored.
const MAX_CONFIG_BYTES_5: u64 = 100 * 1024;

/// The config as opencode-swarm 5.1.0 loads it (`loadPluginConfig`).
pub struct LoadedConfig5 {
    /// What the plugin's agents are built from.
    pub config: SwarmConfig,
    /// The merged config exactly as the plugin holds it (its schema's order and defaults), which
    /// `/swarm config` prints.
    pub resolved: Value,
    pub user_path: PathBuf,
    pub project_path: PathBuf,
    /// Whether each file was read: `None` absent, `Some(false)` ignored, `Some(true)` used.
    pub user_used: Option<bool>,
    pub project_used: Option<bool>,
    pub warnings: Vec<String>,
}

/// Reads both config files as opencode-swarm 5.1.0 does: each file over 100 KB, not JSON or
/// not valid under its schema is ignored (with a warning); the user file (or the bare defaults)
/// is overlaid key by key with the project file's, `agents` merged deeply.
pub fn read_config_5(root: &Path) -> LoadedConfig5 {
    let mut warnings = Vec::new();
    // Without HOME (or XDG_CONFIG_HOME) there is no user file to read; the path is still shown.
    let config_home = crate::project::xdg_config_home();
    let user_path = config_home
        .clone()
        .unwrap_or_else(|| PathBuf::from("~/.config"))
        .join("opencode")
        .join("opencode-swarm.json");
    let project_path = root.join(".opencode").join("opencode-swarm.json");
    let mut read = |path: &Path| -> Option<Option<Value>> {
        let problem = match read_bytes(path, MAX_CONFIG_BYTES_5) {
            Ok(None) => return None,
            Ok(Some(bytes)) => serde_json::from_str::<Value>(&String::from_utf8_lossy(&bytes))
                .map_err(|e| format!("not JSON: {e}"))
                .and_then(|value| PLUGIN_CONFIG.parse(&value)),
            Err(reason) => Err(reason),
        };
        match problem {
            Ok(value) => Some(Some(value)),
            Err(reason) => {
                warnings.push(format!(
                    "{}: {reason}; ignored, as opencode-swarm ignores it",
                    path.display()
                ));
                Some(None)
            }
        }
    };
    let user_file = config_home.and_then(|_| read(&user_path));
    let project_file = read(&project_path);
    let used = |file: &Option<Option<Value>>| file.as_ref().map(Option::is_some);
    let (user_used, project_used) = (used(&user_file), used(&project_file));
    let (user, project) = (user_file.flatten(), project_file.flatten());
    let mut resolved =
        user.unwrap_or_else(|| serde_json::from_str(BARE_CONFIG).expect("the bare config is JSON"));
    if let (Value::Object(merged), Some(Value::Object(project))) = (&mut resolved, project) {
        let base_agents = merged.get("agents").cloned();
        let project_agents = project.get("agents").cloned();
        for (key, value) in project {
            merged.insert(key, value);
        }
        if let Some(agents) = deep_merge(base_agents, project_agents) {
            merged.insert("agents".into(), agents);
        }
    }
    // 4.3.0's checks are a subset of 5.1.0's schema, so a config that passed the schema passes
    // them too; the default roster is only the fallback for that impossible case.
    let config = config::from_value(&resolved).unwrap_or_default();
    LoadedConfig5 {
        config,
        resolved,
        user_path,
        project_path,
        user_used,
        project_used,
        warnings,
    }
}

/// The plugin's `deepMerge`: objects merged key by key (the base's keys first), anything else
/// replaced by the override.
fn deep_merge(base: Option<Value>, over: Option<Value>) -> Option<Value> {
    match (base, over) {
        (None, over) => over,
        (base, None) => base,
        (Some(Value::Object(mut base)), Some(Value::Object(over))) => {
            for (key, value) in over {
                let merged = match (base.get(&key), &value) {
                    (Some(old @ Value::Object(_)), Value::Object(_)) => {
                        deep_merge(Some(old.clone()), Some(value)).unwrap_or_default()
                    }
                    _ => value,
                };
                base.insert(key, merged);
            }
            Some(Value::Object(base))
        }
        (_, over) => over,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Each of these used to hang (a pipe), exhaust memory (`/dev/zero`, 2 GiB) or be read whole.
    #[test]
    fn files_that_cannot_be_read_are_absent_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        let fifo = std::process::Command::new("mkfifo")
            .arg(path("fifo"))
            .status()
            .unwrap();
        assert!(fifo.success());
        std::os::unix::fs::symlink("/dev/zero", path("zero")).unwrap();
        std::os::unix::fs::symlink(path("nothing"), path("dangling")).unwrap();
        std::fs::create_dir(path("dir")).unwrap();
        std::fs::File::create(path("huge"))
            .unwrap()
            .set_len(MAX_SWARM_BYTES + 1)
            .unwrap();
        std::fs::write(path("bom"), b"\xef\xbb\xbf").unwrap();
        std::fs::write(path("latin1"), b"caf\xe9").unwrap();
        assert_eq!(
            read_swarm_file(&path("fifo")),
            Err("not a regular file".into())
        );
        assert_eq!(
            read_swarm_file(&path("zero")),
            Err("not a regular file".into())
        );
        assert_eq!(read_swarm_file(&path("dir")), Err("is a directory".into()));
        assert_eq!(
            read_swarm_file(&path("huge")),
            Err("larger than 512 MiB".into())
        );
        assert_eq!(read_swarm_file(&path("dangling")), Ok(None));
        assert_eq!(read_swarm_file(&path("missing")), Ok(None));
        assert_eq!(read_swarm_file(&path("bom")), Ok(None));
        assert_eq!(
            read_swarm_file(&path("latin1")),
            Ok(Some("caf\u{fffd}".into()))
        );
        assert_eq!(read_text(&path("fifo")), None);
    }

    #[test]
    fn config_files_that_cannot_be_read_are_ignored_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".opencode/opencode-swarm.json");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &config).unwrap();
        // The user file of the machine running the tests may add a warning of its own.
        let warnings = read_config(dir.path()).warnings;
        assert!(
            warnings.iter().any(|w| w.ends_with(
                ".opencode/opencode-swarm.json: not a regular file; ignored, as opencode-swarm ignores it"
            )),
            "{warnings:?}"
        );
    }

    #[test]
    fn read_plan_leaves_context_md_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("plan.md"), "# P\n").unwrap();
        let fifo = std::process::Command::new("mkfifo")
            .arg(dir.path().join("context.md"))
            .status()
            .unwrap();
        assert!(fifo.success());
        let files = read_plan(dir.path());
        assert!(files.notes.is_empty());
        assert_eq!(files.plan.unwrap().text, "# P\n");
        let files = read_swarm_dir(dir.path());
        assert_eq!(files.context, None);
        assert!(
            files.notes[0].ends_with(
                "context.md: not a regular file; read as absent, as opencode-swarm does"
            )
        );
    }
}

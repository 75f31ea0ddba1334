//! Reading `.swarm/` files the way opencode-swarm does (swarm.md §1.1): any failure is *absent*,
//! one BOM is stripped, invalid UTF-8 is replaced, and empty text is the same as absent. Nothing
//! here ever opens a file for writing.

use std::path::Path;
use std::time::UNIX_EPOCH;

/// A `.swarm/` file's text, or `None` when it is absent, unreadable or empty.
pub fn read_text(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    if bytes.is_empty() {
        return None;
    }
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// The file's modification time in milliseconds since the epoch, when it can be read.
pub fn modified_ms(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(since.as_millis()).ok()
}

use super::config::{self, SwarmConfig};
use super::plan_json;

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

/// What `.swarm/` holds, plus why a present plan.json was not usable (for a note on stderr).
pub struct SwarmFiles {
    pub plan: Option<Plan>,
    pub context: Option<String>,
    pub plan_json_problem: Option<String>,
}

pub fn read_swarm_dir(dir: &Path) -> SwarmFiles {
    let mut plan_json_problem = None;
    let json_path = dir.join("plan.json");
    let mut plan = None;
    if let Some(text) = read_text(&json_path) {
        match plan_json::parse(&text) {
            Ok(parsed) => {
                let markdown = plan_json::derive_markdown(&parsed, modified_ms(&json_path));
                plan = Some(Plan {
                    text: markdown,
                    source: PlanSource::PlanJson,
                    json: Some(parsed),
                });
            }
            Err(reason) => plan_json_problem = Some(reason),
        }
    }
    if plan.is_none() {
        plan = read_text(&dir.join("plan.md")).map(|text| Plan {
            text,
            source: PlanSource::PlanMd,
            json: None,
        });
    }
    SwarmFiles {
        plan,
        context: read_text(&dir.join("context.md")),
        plan_json_problem,
    }
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
        let meta = std::fs::metadata(path).ok()?;
        let problem = if meta.is_dir() {
            "is a directory".to_string()
        } else if meta.len() > MAX_CONFIG_BYTES {
            format!("too large ({} bytes)", meta.len())
        } else {
            match std::fs::read(path) {
                Ok(bytes) => match config::parse(&String::from_utf8_lossy(&bytes)) {
                    Ok(config) => return Some(config),
                    Err(reason) => reason,
                },
                Err(e) => crate::error::describe_io(&e),
            }
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

//! Which opencode-swarm a project runs, and so which of the plugin's behaviours `ctx swarm`
//! reproduces: the 4.3.0 contract (swarm.md) or 5.1.0's.
//!
//! In order: the `swarm.version` setting (`--swarm-version`, `CTX_SWARM_VERSION`, ctx.toml,
//! config.toml) when not `auto`; a version in the `plugin` list of the project's, then the user's,
//! OpenCode config; the package installed in the project's `.opencode/node_modules`, the user's
//! OpenCode config folder or OpenCode's plugin cache; a plugin declared without a version (OpenCode
//! installs the newest, a 5.x); what `.swarm/` holds (a `plan.json` with a `schema_version`, or an
//! `evidence/` folder, are written only by 5.x); else 4.3.0.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::project::{Source, xdg_cache_home, xdg_config_home};

const PACKAGE: &str = "opencode-swarm";

/// The opencode-swarm behaviours ctx reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub enum PluginVersion {
    /// The 4.3.0 contract of swarm.md (and 4.4.0's history).
    #[serde(rename = "4.3.0")]
    V4_3,
    /// opencode-swarm 5.1.0.
    #[serde(rename = "5.1.0")]
    V5,
}

impl PluginVersion {
    pub fn name(self) -> &'static str {
        match self {
            PluginVersion::V4_3 => "4.3.0",
            PluginVersion::V5 => "5.1.0",
        }
    }

    /// The behaviours for a version or range written as npm writes them (`5.1.0`, `^5`,
    /// `~4.3.2`, `v5`); `None` when it names no major version (`latest`, a URL).
    fn of_spec(spec: &str) -> Option<(PluginVersion, u64)> {
        let spec = spec.trim_start_matches(['^', '~', '=', 'v', '>', ' ']);
        let digits = spec.bytes().take_while(u8::is_ascii_digit).count();
        let major: u64 = spec[..digits].parse().ok()?;
        Some((
            if major >= 5 {
                PluginVersion::V5
            } else {
                PluginVersion::V4_3
            },
            major,
        ))
    }
}

/// The version ctx assumed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assumed {
    pub version: PluginVersion,
    pub reason: String,
}

/// Why 4.3.0 when nothing says otherwise.
const NOTHING_SAYS: &str = "nothing names a version: the 4.3.0 contract";

impl Assumed {
    /// 4.3.0 because nothing named a version: the contract ctx has always followed.
    pub fn is_fallback(&self) -> bool {
        self.version == PluginVersion::V4_3 && self.reason == NOTHING_SAYS
    }
}

/// The resolved `swarm.version` setting: its value, where it came from, and the file or
/// variable that set it. (The settings layer resolves it; this module does not depend on it.)
#[derive(Debug, Clone, Copy)]
pub struct Setting<'a> {
    pub text: &'a str,
    pub source: Source,
    pub detail: Option<&'a str>,
}

/// Decides which behaviours to reproduce; `setting` is the resolved `swarm.version` setting.
pub fn detect(root: &Path, setting: Setting<'_>) -> Assumed {
    let chosen = match setting.text {
        "4.3" => Some(PluginVersion::V4_3),
        "5" => Some(PluginVersion::V5),
        _ => None,
    };
    if let Some(version) = chosen {
        let reason = match (setting.source, setting.detail) {
            (Source::Flag, _) => format!("--swarm-version {}", setting.text),
            (Source::Env, _) => format!("CTX_SWARM_VERSION={}", setting.text),
            (_, Some(detail)) => format!("swarm.version in {detail}"),
            _ => format!("swarm.version = {}", setting.text),
        };
        return Assumed { version, reason };
    }
    let mut unversioned: Option<PathBuf> = None;
    let project_configs = opencode_configs(&[root.to_path_buf(), root.join(".opencode")]);
    let user_dir = xdg_config_home().map(|d| d.join("opencode"));
    let user_configs = opencode_configs(user_dir.as_slice());
    for path in project_configs.iter().chain(&user_configs) {
        match declared(path) {
            Some(Declared::Version(spec)) => {
                if let Some((version, major)) = PluginVersion::of_spec(&spec) {
                    return Assumed {
                        version,
                        reason: format!(
                            "{} declares {PACKAGE}@{spec}{}",
                            shown(root, path),
                            newer_note(version, major)
                        ),
                    };
                }
                unversioned.get_or_insert_with(|| path.clone());
            }
            Some(Declared::Unversioned) => {
                unversioned.get_or_insert_with(|| path.clone());
            }
            None => {}
        }
    }
    let installs = [
        Some(root.join(".opencode")),
        user_dir,
        xdg_cache_home().map(|d| d.join("opencode")),
    ];
    for dir in installs.into_iter().flatten() {
        let package = dir.join("node_modules").join(PACKAGE).join("package.json");
        if let Some(spec) = installed(&package)
            && let Some((version, major)) = PluginVersion::of_spec(&spec)
        {
            return Assumed {
                version,
                reason: format!(
                    "{} is installed at {}{}",
                    format_args!("{PACKAGE} {spec}"),
                    shown(root, &package),
                    newer_note(version, major)
                ),
            };
        }
    }
    if let Some(path) = unversioned {
        return Assumed {
            version: PluginVersion::V5,
            reason: format!(
                "{} declares {PACKAGE} without a version, and OpenCode installs the newest (5.x)",
                shown(root, &path)
            ),
        };
    }
    let swarm = root.join(".swarm");
    // Read as every `.swarm/` file is read: regular files only (a pipe would block), capped.
    // Only the top level's keys are kept: the rest is checked as JSON but not built.
    let top_level = super::files::read_swarm_file(&swarm.join("plan.json"))
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str::<HashMap<String, IgnoredAny>>(&text).ok());
    if top_level.is_some_and(|keys| keys.contains_key("schema_version")) {
        return Assumed {
            version: PluginVersion::V5,
            reason: ".swarm/plan.json has a schema_version, which only opencode-swarm 5.x writes"
                .into(),
        };
    }
    if swarm.join("evidence").is_dir() {
        return Assumed {
            version: PluginVersion::V5,
            reason: ".swarm/evidence/ exists, which only opencode-swarm 5.x writes".into(),
        };
    }
    Assumed {
        version: PluginVersion::V4_3,
        reason: NOTHING_SAYS.into(),
    }
}

fn newer_note(version: PluginVersion, major: u64) -> &'static str {
    if version == PluginVersion::V5 && major > 5 {
        " (newer than ctx knows: read as 5.1.0)"
    } else {
        ""
    }
}

/// A path inside the project relative to it, others as they are.
fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `opencode.json` and `opencode.jsonc` in each folder, those that exist.
pub(super) fn opencode_configs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    dirs.iter()
        .flat_map(|dir| ["opencode.json", "opencode.jsonc"].map(|name| dir.join(name)))
        .filter(|path| path.is_file())
        .collect()
}

pub(super) enum Declared {
    Version(String),
    Unversioned,
}

/// Config files are small; a larger one is not an OpenCode config worth reading.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

pub(super) fn read_small(path: &Path) -> Option<String> {
    // The `.swarm/` reader's rules: regular files only (a pipe would block), capped.
    let bytes = super::files::read_bytes(path, MAX_CONFIG_BYTES).ok()??;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The opencode-swarm entry of an OpenCode config's `plugin` list, if any.
fn declared(path: &Path) -> Option<Declared> {
    let text = read_small(path)?;
    let config: Value = serde_json::from_str(&strip_jsonc(&text)).ok()?;
    declared_in(&config)
}

/// The opencode-swarm entry of a parsed OpenCode config's `plugin` list, if any.
pub(super) fn declared_in(config: &Value) -> Option<Declared> {
    config
        .get("plugin")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find_map(|entry| {
            if entry == PACKAGE {
                return Some(Declared::Unversioned);
            }
            let spec = entry.strip_prefix(PACKAGE)?.strip_prefix('@')?;
            Some(Declared::Version(spec.to_string()))
        })
}

/// The `version` of an installed package.json.
fn installed(path: &Path) -> Option<String> {
    let text = read_small(path)?;
    let package: Value = serde_json::from_str(&text).ok()?;
    Some(package.get("version")?.as_str()?.to_string())
}

/// JSON with comments (`//`, `/* */`) and trailing commas, as OpenCode accepts in its config,
/// made plain JSON.
pub fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // A string, escapes included, copied as it is.
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |e| i + 2 + e + 2);
                out.push(b' ');
                i = end;
            }
            b',' => {
                // A comma followed only by whitespace and a closing bracket is dropped.
                let next = bytes[i + 1..].iter().find(|b| !b.is_ascii_whitespace());
                if !matches!(next, Some(b'}' | b']')) {
                    out.push(b',');
                }
                i += 1;
            }
            other => {
                out.push(other);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_name_their_behaviours() {
        let of = |s| PluginVersion::of_spec(s).map(|(v, _)| v);
        assert_eq!(of("5.1.0"), Some(PluginVersion::V5));
        assert_eq!(of("^5"), Some(PluginVersion::V5));
        assert_eq!(of("~4.3.2"), Some(PluginVersion::V4_3));
        assert_eq!(of("v4"), Some(PluginVersion::V4_3));
        assert_eq!(of("7.0.0"), Some(PluginVersion::V5));
        assert_eq!(of("latest"), None);
        assert_eq!(of(""), None);
    }

    #[test]
    fn jsonc_becomes_json() {
        let text = "{\n // a comment, with \"quotes\"\n \"plugin\": [\"a//b\", /* x */ \"c\",],\n}";
        let value: Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(value["plugin"], serde_json::json!(["a//b", "c"]));
    }
}

//! What opencode-swarm's own hooks add to OpenCode's context (swarm.md §9–§10), read from
//! `.swarm/` and its config, and whether OpenCode already loads opencode-swarm, which then adds
//! those entries itself. `ctx compact` renders them; nothing here writes.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::files;
use super::markdown;
use super::version::{Declared, declared_in, opencode_configs, read_small, strip_jsonc};

/// The entries of opencode-swarm's compaction and system-enhancer hooks, with a note for each
/// `.swarm/` file that could not be used and a warning for each config file that was ignored.
#[derive(Debug, Default)]
pub struct HookEntries {
    pub compaction: Vec<String>,
    pub system: Vec<String>,
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

/// Which entries to render; `agent` is the active agent, when the caller names one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wanted<'a> {
    pub compaction: bool,
    pub system: bool,
    pub agent: Option<&'a str>,
}

/// Reads `.swarm/` under `root` (plan and context.md, as opencode-swarm 4.3.0 reads them) and
/// renders the entries wanted. The config is read only when `.swarm/` holds something.
pub fn entries(root: &Path, wanted: Wanted) -> HookEntries {
    let mut out = HookEntries::default();
    if !wanted.compaction && !wanted.system {
        return out;
    }
    let read = files::read_swarm_dir(&root.join(".swarm"));
    out.notes = read.notes;
    let plan = read.plan.as_ref().map(|p| p.text.as_str());
    let context = read.context.as_deref();
    if plan.is_none() && context.is_none() {
        return out;
    }
    let loaded = files::read_config(root);
    out.warnings = loaded.warnings;
    if wanted.compaction {
        out.compaction = markdown::compaction_entries(plan, context, &loaded.config);
    }
    if wanted.system {
        out.system = markdown::system_entries(plan, context, &loaded.config, wanted.agent);
    }
    out
}

/// Whether OpenCode loads opencode-swarm in this project: the OpenCode config that names it in its
/// `plugin` list, and a warning for each config that could not be read as JSON (ctx cannot tell
/// what such a file loads).
#[derive(Debug, Default)]
pub struct Loaded {
    /// The config naming opencode-swarm (relative to the project when inside it).
    pub by: Option<String>,
    pub warnings: Vec<String>,
}

/// Looks, as OpenCode merges its configs, at `$OPENCODE_CONFIG_CONTENT`, `$OPENCODE_CONFIG`, the
/// project's `opencode.json[c]` (also under `.opencode/`) and the user's
/// (`$XDG_CONFIG_HOME/opencode/`). Only a `plugin` entry `opencode-swarm` or
/// `opencode-swarm@<version>` counts: an installed package is not loaded unless a config names it.
pub fn loaded_by_opencode(root: &Path) -> Loaded {
    let mut loaded = Loaded::default();
    let shown = |path: &Path| {
        path.strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let check = |name: String, text: &str, loaded: &mut Loaded| match serde_json::from_str::<Value>(
        &strip_jsonc(text),
    ) {
        Ok(config) => {
            if loaded.by.is_none()
                && matches!(
                    declared_in(&config),
                    Some(Declared::Version(_) | Declared::Unversioned)
                )
            {
                loaded.by = Some(name);
            }
        }
        Err(err) => loaded.warnings.push(format!(
            "{name}: not valid JSON ({err}); ctx cannot tell whether OpenCode loads \
                 opencode-swarm through it"
        )),
    };
    if let Some(content) = std::env::var_os("OPENCODE_CONFIG_CONTENT").filter(|v| !v.is_empty()) {
        check(
            "$OPENCODE_CONFIG_CONTENT".into(),
            &content.to_string_lossy(),
            &mut loaded,
        );
    }
    let mut paths: Vec<PathBuf> = std::env::var_os("OPENCODE_CONFIG")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .collect();
    paths.extend(opencode_configs(&[
        root.to_path_buf(),
        root.join(".opencode"),
    ]));
    let user_dir = crate::project::xdg_config_home().map(|d| d.join("opencode"));
    paths.extend(opencode_configs(user_dir.as_slice()));
    for path in paths {
        if let Some(text) = read_small(&path) {
            check(shown(&path), &text, &mut loaded);
        }
    }
    loaded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plugin_entry_is_what_loads_opencode_swarm() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(loaded_by_opencode(root).by.is_none());
        std::fs::write(
            root.join("opencode.json"),
            r#"{"plugin": ["other", "opencode-swarm@5.1.0"]}"#,
        )
        .unwrap();
        assert_eq!(
            loaded_by_opencode(root).by.as_deref(),
            Some("opencode.json")
        );
        std::fs::write(
            root.join("opencode.json"),
            r#"{"plugin": ["opencode-swarm-extras"]}"#,
        )
        .unwrap();
        assert!(loaded_by_opencode(root).by.is_none());
        std::fs::create_dir(root.join(".opencode")).unwrap();
        std::fs::write(
            root.join(".opencode/opencode.jsonc"),
            "{\n // comments are fine\n \"plugin\": [\"opencode-swarm\",],\n}",
        )
        .unwrap();
        assert_eq!(
            loaded_by_opencode(root).by.as_deref(),
            Some(".opencode/opencode.jsonc")
        );
        std::fs::write(root.join("opencode.json"), "{\"plugin\": [").unwrap();
        let loaded = loaded_by_opencode(root);
        assert_eq!(loaded.by.as_deref(), Some(".opencode/opencode.jsonc"));
        assert_eq!(loaded.warnings.len(), 1);
        assert!(
            loaded.warnings[0].starts_with("opencode.json: not valid JSON ("),
            "{:?}",
            loaded.warnings
        );
    }
}

//! The part of opencode-swarm 4.3.0's configuration the budget uses: `context_budget` (swarm.md
//! §6). Only what the budget needs is read; a file that is invalid as opencode-swarm judges it
//! (not strict JSON, a BOM, a root that is not an object, a `context_budget` of the wrong shape)
//! is ignored as a whole, as the plugin ignores it.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `context_budget` as the merged configuration gives it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContextBudget {
    pub enabled: Option<bool>,
    pub warn_threshold: Option<f64>,
    pub critical_threshold: Option<f64>,
    /// Only the keys written in the file, in file order (the plugin's default map is not added).
    pub model_limits: Vec<(String, u64)>,
    /// The file this section came from.
    pub path: PathBuf,
}

impl ContextBudget {
    /// `context_budget.model_limits`: the exact key, then `default`.
    pub fn limit_for(&self, keys: &[&str]) -> Option<(String, u64)> {
        keys.iter().copied().chain(["default"]).find_map(|key| {
            self.model_limits
                .iter()
                .find(|(k, _)| k == key)
                .map(|(k, v)| (k.clone(), *v))
        })
    }
}

/// Parses one configuration file's text. `Ok(None)`: valid, without `context_budget`.
pub fn parse(text: &str, path: &Path) -> Result<Option<ContextBudget>, String> {
    // The plugin does not strip a BOM, so a file starting with one is invalid JSON.
    let value: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(root) = value else {
        return Err("the top level is not an object".into());
    };
    let Some(section) = root.get("context_budget") else {
        return Ok(None);
    };
    let Value::Object(section) = section else {
        return Err("context_budget is not an object".into());
    };
    let mut budget = ContextBudget {
        path: path.to_path_buf(),
        ..ContextBudget::default()
    };
    if let Some(enabled) = section.get("enabled") {
        budget.enabled = Some(
            enabled
                .as_bool()
                .ok_or("context_budget.enabled is not a boolean")?,
        );
    }
    for (key, slot) in [
        ("warn_threshold", &mut budget.warn_threshold),
        ("critical_threshold", &mut budget.critical_threshold),
    ] {
        if let Some(value) = section.get(key) {
            let n = value
                .as_f64()
                .filter(|n| (0.0..=1.0).contains(n))
                .ok_or_else(|| format!("context_budget.{key} is not a number from 0 to 1"))?;
            *slot = Some(n);
        }
    }
    if let Some(limits) = section.get("model_limits") {
        let limits = limits
            .as_object()
            .ok_or("context_budget.model_limits is not an object")?;
        for (key, value) in limits {
            let n = value.as_f64().filter(|n| *n >= 1000.0).ok_or_else(|| {
                format!("context_budget.model_limits.{key} is not a number ≥ 1000")
            })?;
            budget.model_limits.push((key.clone(), n as u64));
        }
    }
    Ok(Some(budget))
}

/// Reads the user and project files: a valid project file's `context_budget` replaces the user
/// file's whole (swarm.md §6.4). Ignored files are reported through `warn`.
pub fn load(root: &Path, warn: &mut dyn FnMut(String)) -> Option<ContextBudget> {
    let user = crate::project::xdg_config_home()
        .map(|dir| dir.join("opencode").join("opencode-swarm.json"));
    let project = root.join(".opencode").join("opencode-swarm.json");
    let mut merged = None;
    for path in user.into_iter().chain([project]) {
        let text = match std::fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => {
                    warn(format!("{}: ignored: not UTF-8", path.display()));
                    continue;
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                let why = crate::error::describe_io(&e);
                warn(format!("{}: ignored: {why}", path.display()));
                continue;
            }
        };
        match parse(&text, &path) {
            // A valid file without the section: the project's top-level keys replace the user's,
            // and an absent key replaces nothing.
            Ok(None) => {}
            Ok(Some(section)) => merged = Some(section),
            Err(why) => warn(format!("{}: ignored: {why}", path.display())),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_context_budget() {
        let text = r#"{"agents": {}, "context_budget": {"warn_threshold": 0.5,
            "model_limits": {"anthropic/claude-sonnet-4-5": 150000, "default": 100000}}}"#;
        let budget = parse(text, Path::new("x")).unwrap().unwrap();
        assert_eq!(budget.warn_threshold, Some(0.5));
        assert_eq!(budget.critical_threshold, None);
        assert_eq!(
            budget.limit_for(&["anthropic/claude-sonnet-4-5"]),
            Some(("anthropic/claude-sonnet-4-5".to_string(), 150_000))
        );
        assert_eq!(
            budget.limit_for(&["gpt-5"]),
            Some(("default".to_string(), 100_000))
        );
    }

    #[test]
    fn invalid_files_are_refused_whole() {
        let path = Path::new("x");
        assert!(parse("\u{feff}{}", path).is_err());
        assert!(parse("[]", path).is_err());
        assert!(parse("{\"context_budget\": {\"warn_threshold\": 2}}", path).is_err());
        assert!(
            parse(
                "{\"context_budget\": {\"model_limits\": {\"a\": 10}}}",
                path
            )
            .is_err()
        );
        assert!(parse("{\"context_budget\": null}", path).is_err());
        assert_eq!(parse("{}", path).unwrap(), None);
    }
}

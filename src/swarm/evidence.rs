//! opencode-swarm 5.x's evidence bundles: `.swarm/evidence/<task>/evidence.json`, one per task,
//! holding the review, test, diff, approval and note entries its agents recorded. Read-only, as
//! the plugin's `/swarm evidence` reads them, with two limits the plugin does not have: nothing
//! is read through a link that leads outside `.swarm/`, and a bundle over 500 KB (the most the
//! plugin writes) is not read.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::files::read_bytes;
use super::schemas::EVIDENCE_BUNDLE;
use super::text::js_number;

/// opencode-swarm's `EVIDENCE_MAX_JSON_BYTES`: the largest bundle it writes.
pub const MAX_BUNDLE_BYTES: u64 = 500 * 1024;

/// The plugin's `sanitizeTaskId`, with its messages: a task id names a folder under
/// `.swarm/evidence/`, so it must be a plain dotted name.
pub fn check_task_id(id: &str) -> Result<(), String> {
    let problem = if id.is_empty() {
        "empty string".to_string()
    } else if id.contains('\0') {
        "contains null bytes".to_string()
    } else if id.encode_utf16().any(|unit| unit < 32) {
        "contains control characters".to_string()
    } else if id.contains("..") {
        "path traversal detected".to_string()
    } else if !is_dotted_name(id) {
        format!("must match pattern ^[\\w-]+(\\.[\\w-]+)*$, got \"{id}\"")
    } else {
        return Ok(());
    };
    Err(format!("Invalid task ID: {problem}"))
}

/// `^[\w-]+(\.[\w-]+)*$` with JavaScript's ASCII `\w`.
fn is_dotted_name(id: &str) -> bool {
    id.split('.').all(|part| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// The task ids with a bundle folder, as `listEvidenceTaskIds` finds them (sorted, folders
/// only, names that pass [`check_task_id`]), and a note for each entry that could not be used.
pub struct Listing {
    pub ids: Vec<String>,
    pub notes: Vec<String>,
}

pub fn list(swarm_dir: &Path) -> Listing {
    let mut listing = Listing {
        ids: Vec::new(),
        notes: Vec::new(),
    };
    let dir = swarm_dir.join("evidence");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return listing;
    };
    if let Err(note) = inside(swarm_dir, &dir) {
        listing.notes.push(note);
        return listing;
    }
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        match std::fs::metadata(entry.path()) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => continue,
            Err(e) => {
                listing.notes.push(format!(
                    "{}: {}; skipped, as opencode-swarm skips it",
                    entry.path().display(),
                    crate::error::describe_io(&e)
                ));
                continue;
            }
        }
        if check_task_id(&name).is_ok() {
            listing.ids.push(name);
        }
    }
    // JavaScript's default sort (UTF-16 order) is byte order on these ASCII names.
    listing.ids.sort();
    listing
}

/// `Err` naming `path` when it resolves (links followed) to somewhere outside `.swarm/`.
fn inside(swarm_dir: &Path, path: &Path) -> Result<(), String> {
    let root = std::fs::canonicalize(swarm_dir).unwrap_or_else(|_| swarm_dir.to_path_buf());
    match std::fs::canonicalize(path) {
        Ok(real) if real.starts_with(&root) => Ok(()),
        Ok(real) => Err(format!(
            "{}: leads outside .swarm/ (to {}); not read",
            path.display(),
            real.display()
        )),
        Err(_) => Ok(()),
    }
}

/// One task's bundle.
pub enum Bundle {
    /// The bundle as zod returns it (schema order, defaults filled in).
    Valid(Value),
    /// No bundle file (or none the plugin could read).
    Absent,
    /// A file that is not a valid bundle, or one ctx will not read, and why.
    Unusable(String),
}

/// The path of a task's bundle.
pub fn bundle_path(swarm_dir: &Path, id: &str) -> PathBuf {
    swarm_dir.join("evidence").join(id).join("evidence.json")
}

/// Why a task has no bundle, as JSON output's `problem` says it, listed or alone.
pub fn absent_problem(swarm_dir: &Path, id: &str) -> String {
    format!("{}: no such file", bundle_path(swarm_dir, id).display())
}

/// Loads a task's bundle; `id` must have passed [`check_task_id`].
pub fn load(swarm_dir: &Path, id: &str) -> Bundle {
    let path = bundle_path(swarm_dir, id);
    if let Err(why) = inside(swarm_dir, &path) {
        return Bundle::Unusable(why);
    }
    let bytes = match read_bytes(&path, MAX_BUNDLE_BYTES) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Bundle::Absent,
        Err(why) => {
            return Bundle::Unusable(format!("{}: {why}; not read", path.display()));
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let parsed = serde_json::from_str::<Value>(text)
        .map_err(|e| format!("not JSON: {e}"))
        .and_then(|value| EVIDENCE_BUNDLE.parse(&value));
    match parsed {
        Ok(bundle) => Bundle::Valid(bundle),
        Err(why) => Bundle::Unusable(format!(
            "{}: {why}; shown as opencode-swarm shows a bundle it cannot validate",
            path.display()
        )),
    }
}

/// The entries of a valid bundle.
pub fn entries(bundle: &Value) -> &[Value] {
    bundle["entries"].as_array().map_or(&[], Vec::as_slice)
}

/// A string field of a validated bundle or entry.
pub fn field<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key].as_str().unwrap_or_default()
}

/// A number field as JavaScript prints it.
pub fn number(value: &Value, key: &str) -> String {
    value[key].as_f64().map_or_else(String::new, js_number)
}

pub fn verdict_emoji(verdict: &str) -> &'static str {
    match verdict {
        "pass" | "approved" => "✅",
        "fail" | "rejected" => "❌",
        "info" => "ℹ️",
        _ => "",
    }
}

/// `/swarm evidence` without a task: the table of bundles.
pub fn markdown_list(rows: &[(String, Bundle)]) -> String {
    if rows.is_empty() {
        return "No evidence bundles found.".to_string();
    }
    let mut lines = vec![
        "## Evidence Bundles".to_string(),
        String::new(),
        "| Task | Entries | Last Updated |".to_string(),
        "|------|---------|-------------|".to_string(),
    ];
    for (id, bundle) in rows {
        lines.push(match bundle {
            Bundle::Valid(b) => format!(
                "| {id} | {} | {} |",
                entries(b).len(),
                field(b, "updated_at")
            ),
            _ => format!("| {id} | ? | unknown |"),
        });
    }
    lines.join("\n")
}

/// `/swarm evidence TASK`.
pub fn markdown_bundle(id: &str, bundle: &Bundle) -> String {
    let Bundle::Valid(bundle) = bundle else {
        return format!("No evidence found for task {id}.");
    };
    let entries = entries(bundle);
    let mut lines = vec![
        format!("## Evidence for Task {id}"),
        String::new(),
        format!("**Created**: {}", field(bundle, "created_at")),
        format!("**Updated**: {}", field(bundle, "updated_at")),
        format!("**Entries**: {}", entries.len()),
    ];
    if !entries.is_empty() {
        lines.push(String::new());
    }
    for (i, entry) in entries.iter().enumerate() {
        let kind = field(entry, "type");
        let verdict = field(entry, "verdict");
        lines.push(format!(
            "### Entry {}: {kind} ({verdict}) {}",
            i + 1,
            verdict_emoji(verdict)
        ));
        lines.push(format!("- **Agent**: {}", field(entry, "agent")));
        lines.push(format!("- **Summary**: {}", field(entry, "summary")));
        lines.push(format!("- **Time**: {}", field(entry, "timestamp")));
        match kind {
            "review" => {
                lines.push(format!("- **Risk Level**: {}", field(entry, "risk")));
                let issues = entry["issues"].as_array().map_or(0, Vec::len);
                if issues > 0 {
                    lines.push(format!("- **Issues**: {issues}"));
                }
            }
            "test" => lines.push(format!(
                "- **Tests**: {} passed, {} failed",
                number(entry, "tests_passed"),
                number(entry, "tests_failed")
            )),
            _ => {}
        }
        lines.push(String::new());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_checked_as_the_plugin_checks_them() {
        for good in ["1.1", "task-7", "a_b.c-d.3"] {
            assert_eq!(check_task_id(good), Ok(()), "{good}");
        }
        let why = |id: &str| check_task_id(id).unwrap_err();
        assert_eq!(why(""), "Invalid task ID: empty string");
        assert_eq!(why("a\0b"), "Invalid task ID: contains null bytes");
        assert_eq!(why("a\tb"), "Invalid task ID: contains control characters");
        assert_eq!(why("../x"), "Invalid task ID: path traversal detected");
        assert_eq!(why("1..2"), "Invalid task ID: path traversal detected");
        for bad in ["/etc", "a/b", "1.", ".1", "é", "a b"] {
            assert!(why(bad).contains("must match pattern"), "{bad}");
        }
    }
}

//! opencode-swarm 5.1.0's `/swarm` views, byte for byte: what the plugin reads from `.swarm/`
//! once it has read the plan for the first time, and the markdown of `status`, `plan`,
//! `history`, `agents`, `diagnose`, `export` and `config`.
//!
//! 5.1.0 migrates `.swarm/plan.md` into `plan.json` the first time it loads the plan (any
//! `/swarm status`, and its prompt hooks on every message). ctx never writes: it runs the same
//! migration in memory (`migrate.rs`), so the views match what the plugin shows from then on.

use std::path::Path;

use serde_json::{Map, Value};

use super::config::Agent;
use super::files::{self, modified_ms, read_swarm_file_keeping_empty};
use super::markdown;
use super::migrate::migrate;
use super::plan_json::{self, PlanJson, derive_markdown, phase_label};
use super::schemas::PROFILE_LIMITS;
use super::text::{js_number, js_parse_int, json_stringify_pretty, trim};

/// The structured plan the plugin holds.
pub struct PlanState {
    pub plan: PlanJson,
    /// Migrated in memory from plan.md, rather than read from plan.json.
    pub migrated: bool,
    /// The modification time of the file it came from, for the `Updated:` stamp the plugin
    /// takes at call time.
    pub stamp_ms: Option<i64>,
}

impl PlanState {
    pub fn markdown(&self) -> String {
        derive_markdown(&self.plan, self.stamp_ms)
    }
}

/// What the plugin reads from `.swarm/` once it has loaded the plan.
pub struct State {
    /// `plan.json` as `loadPlanJsonOnly` returns it.
    pub plan: Option<PlanState>,
    /// The text of plan.md (rewritten from the migrated plan after a migration); not read when a
    /// usable plan.json makes it irrelevant.
    pub plan_md: Option<String>,
    /// Why the migration of plan.md fails (the plugin then throws and writes nothing).
    pub migration_error: Option<String>,
    /// A note for each file that was there but could not be used.
    pub notes: Vec<String>,
}

/// Reads `.swarm/`; `migrate` runs 5.1.0's migration of a plan.md in memory (false for a
/// project on 4.3.0, where nothing migrates it).
pub fn read(swarm_dir: &Path, migrate_plan_md: bool) -> State {
    let mut notes = Vec::new();
    let read = |name: &str, notes: &mut Vec<String>| {
        let path = swarm_dir.join(name);
        read_swarm_file_keeping_empty(&path).unwrap_or_else(|reason| {
            notes.push(files::unreadable(&path, &reason));
            None
        })
    };
    let json_path = swarm_dir.join("plan.json");
    let mut plan = match read("plan.json", &mut notes).map(plan_json::load) {
        Some(Ok(plan)) => Some(PlanState {
            plan,
            migrated: false,
            stamp_ms: modified_ms(&json_path),
        }),
        Some(Err(reason)) => {
            notes.push(format!(
                "{}: {reason}; ignored, as opencode-swarm 5.1.0 ignores it",
                json_path.display()
            ));
            None
        }
        None => None,
    };
    // plan.md matters only without a usable plan.json: then it is migrated, or (after a failed
    // migration) the status line reads its text.
    let md_text = match &plan {
        Some(loaded) if !loaded.plan.migration_failed() => None,
        _ => read("plan.md", &mut notes),
    };
    let mut plan_md = md_text;
    let mut migration_error = None;
    if plan.is_none()
        && migrate_plan_md
        && let Some(text) = &plan_md
    {
        match migrate(text) {
            Ok(migrated) => {
                let state = PlanState {
                    plan: migrated,
                    migrated: true,
                    stamp_ms: modified_ms(&swarm_dir.join("plan.md")),
                };
                plan_md = Some(state.markdown());
                plan = Some(state);
            }
            Err(reason) => migration_error = Some(reason),
        }
    }
    State {
        plan,
        plan_md,
        migration_error,
        notes,
    }
}

/// context.md as 5.x reads it (an empty file kept as `""`), and a note when it exists but
/// cannot be read. Only `diagnose` and `export` read it.
pub fn read_context(swarm_dir: &Path) -> (Option<String>, Option<String>) {
    let path = swarm_dir.join("context.md");
    match read_swarm_file_keeping_empty(&path) {
        Ok(text) => (text, None),
        Err(reason) => (None, Some(files::unreadable(&path, &reason))),
    }
}

impl State {
    /// plan.md's text for the views that read it, when it has content.
    pub fn plan_text(&self) -> Option<&str> {
        self.plan_md.as_deref().filter(|t| !t.is_empty())
    }

    /// The plan the status line reads: a usable one (not a failed migration's placeholder).
    fn status_plan(&self) -> Option<&PlanJson> {
        self.plan
            .as_ref()
            .map(|p| &p.plan)
            .filter(|p| !p.migration_failed())
    }
}

/// `/swarm status`; `Err` when the plugin throws (a migration its schema refuses).
pub fn status(state: &State, agents: usize) -> Result<String, String> {
    let Some(plan) = state.status_plan() else {
        if let (None, Some(reason)) = (&state.plan, &state.migration_error) {
            return Err(reason.clone());
        }
        return Ok(markdown::status(state.plan_text(), agents));
    };
    let phase = plan
        .phases
        .iter()
        .find(|p| p.id == plan.current_phase)
        .map_or_else(
            || "Unknown".to_string(),
            |p| format!("Phase {}: {} [{}]", p.id, p.name, phase_label(&p.status)),
        );
    let tasks = plan.phases.iter().flat_map(|p| &p.tasks);
    let done = tasks.clone().filter(|t| t.status == "completed").count();
    Ok(format!(
        "## Swarm Status\n\n**Current Phase**: {phase}\n**Tasks**: {done}/{} complete\n**Agents**: {agents} registered",
        tasks.count()
    ))
}

/// `/swarm plan [N]`.
pub fn plan(state: &State, arg: Option<&str>) -> String {
    let Some(loaded) = &state.plan else {
        return markdown::plan(state.plan_text(), arg);
    };
    let text = loaded.markdown();
    let Some(k) = arg.filter(|a| !trim(a).is_empty()).and_then(js_parse_int) else {
        return text;
    };
    if !loaded.plan.phases.iter().any(|p| p.id == k) {
        return format!("Phase {k} not found in plan.");
    }
    markdown::plan(Some(&text), arg)
}

/// `/swarm history`.
pub fn history(state: &State) -> String {
    let Some(loaded) = &state.plan else {
        return markdown::history(state.plan_text());
    };
    let mut out = vec![
        "## Swarm History".to_string(),
        String::new(),
        "| Phase | Name | Status | Tasks |".to_string(),
        "|-------|------|--------|-------|".to_string(),
    ];
    for phase in &loaded.plan.phases {
        let icon = match phase.status.as_str() {
            "complete" => "\u{2705}",
            "in_progress" => "\u{1f504}",
            "blocked" => "\u{1f6ab}",
            _ => "\u{23f3}",
        };
        let done = phase
            .tasks
            .iter()
            .filter(|t| t.status == "completed")
            .count();
        let tasks = match phase.tasks.len() {
            0 => "-".to_string(),
            total => format!("{done}/{total}"),
        };
        out.push(format!(
            "| {} | {} | {icon} {} | {tasks} |",
            phase.id,
            phase.name,
            phase_label(&phase.status)
        ));
    }
    out.join("\n")
}

/// The guardrail profiles of the merged config, in the plugin's key order.
pub fn profiles(resolved: &Value) -> Option<&Map<String, Value>> {
    resolved["guardrails"]["profiles"].as_object()
}

/// The overrides a profile sets, as `/swarm agents` lists them.
pub fn profile_overrides(profile: &Value) -> Vec<String> {
    PROFILE_LIMITS
        .iter()
        .filter_map(|key| {
            let value = profile.get(*key)?.as_f64()?;
            Some(format!("{key}={}", js_number(value)))
        })
        .collect()
}

/// `/swarm agents`: the roster with its count, agents with a guardrail profile of their own
/// marked, then the profiles.
pub fn agents(roster: &[Agent], resolved: &Value) -> String {
    if roster.is_empty() {
        return "No agents registered.".to_string();
    }
    let profiles = profiles(resolved);
    let mut out = vec![
        format!("## Registered Agents ({} total)", roster.len()),
        String::new(),
    ];
    out.extend(markdown::agent_entries(roster, |agent| {
        if profiles.is_some_and(|p| p.contains_key(&agent.name)) {
            " | \u{26a1} custom limits"
        } else {
            ""
        }
    }));
    if let Some(profiles) = profiles.filter(|p| !p.is_empty()) {
        out.extend(["".into(), "### Guardrail Profiles".into(), "".into()]);
        for (name, profile) in profiles {
            let overrides = profile_overrides(profile);
            let text = if overrides.is_empty() {
                "no overrides".to_string()
            } else {
                overrides.join(", ")
            };
            out.push(format!("- **{name}**: {text}"));
        }
    }
    out.join("\n")
}

/// One check of `/swarm diagnose`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Check {
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

fn check(name: &str, passed: bool, detail: impl Into<String>) -> Check {
    Check {
        name: name.to_string(),
        passed,
        detail: detail.into(),
    }
}

/// `/swarm diagnose`'s checks; `evidence` are the task ids with a bundle folder.
pub fn diagnose(state: &State, context: Option<&str>, evidence: &[String]) -> Vec<Check> {
    let mut checks = Vec::new();
    let plan = state.plan.as_ref().map(|p| &p.plan);
    match plan {
        Some(plan) => {
            checks.push(check("plan.json", true, "Valid schema (v1.0.0)"));
            match plan.migration_status.as_deref() {
                Some("migrated") => checks.push(check(
                    "Migration",
                    true,
                    "Plan was migrated from legacy plan.md",
                )),
                Some("migration_failed") => checks.push(check(
                    "Migration",
                    false,
                    "Migration from plan.md failed \u{2014} review manually",
                )),
                _ => {}
            }
            let tasks = || plan.phases.iter().flat_map(|p| &p.tasks);
            let ids: std::collections::HashSet<&str> = tasks().map(|t| t.id.as_str()).collect();
            let missing: Vec<String> = tasks()
                .flat_map(|t| {
                    t.depends
                        .iter()
                        .filter(|d| !ids.contains(d.as_str()))
                        .map(move |d| format!("{} depends on missing {d}", t.id))
                })
                .collect();
            checks.push(if missing.is_empty() {
                check("Task DAG", true, "All dependencies resolved")
            } else {
                check(
                    "Task DAG",
                    false,
                    format!("Missing dependencies: {}", missing.join(", ")),
                )
            });
        }
        None => checks.push(match state.plan_text() {
            Some(text) if has_phase_structure(text) => {
                check("plan.md", true, "Found with valid phase structure")
            }
            Some(_) => check("plan.md", false, "Found but missing phase/task structure"),
            None => check("plan.md", false, "Not found"),
        }),
    }
    let context = context.is_some_and(|c| !c.is_empty());
    checks.push(check(
        "context.md",
        context,
        if context { "Found" } else { "Not found" },
    ));
    // The plugin's config loader never throws: an invalid file is ignored, so this passes.
    checks.push(check("Plugin config", true, "Valid configuration loaded"));
    if let Some(plan) = plan {
        let completed: Vec<&str> = plan
            .phases
            .iter()
            .flat_map(|p| &p.tasks)
            .filter(|t| t.status == "completed")
            .map(|t| t.id.as_str())
            .collect();
        let missing: Vec<&str> = completed
            .iter()
            .copied()
            .filter(|id| !evidence.iter().any(|e| e == id))
            .collect();
        checks.push(if completed.is_empty() {
            check("Evidence", true, "No completed tasks yet")
        } else if missing.is_empty() {
            check(
                "Evidence",
                true,
                format!("All {} completed tasks have evidence", completed.len()),
            )
        } else {
            check(
                "Evidence",
                false,
                format!(
                    "{} completed task(s) missing evidence: {}",
                    missing.len(),
                    missing.join(", ")
                ),
            )
        });
    }
    checks
}

/// `/^## Phase \d+/m` and `/^- \[[ x]\]/m` both match.
fn has_phase_structure(text: &str) -> bool {
    let starts = || super::text::line_starts(text).map(|i| &text[i..]);
    let phase = starts().any(|rest| {
        rest.strip_prefix("## Phase ")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    });
    phase && starts().any(|rest| rest.starts_with("- [ ]") || rest.starts_with("- [x]"))
}

pub fn diagnose_markdown(checks: &[Check]) -> String {
    let passed = checks.iter().filter(|c| c.passed).count();
    let mut out = vec!["## Swarm Health Check".to_string(), String::new()];
    for c in checks {
        let mark = if c.passed { "\u{2705}" } else { "\u{274c}" };
        out.push(format!("- {mark} **{}**: {}", c.name, c.detail));
    }
    out.push(String::new());
    out.push(if passed == checks.len() {
        "**Result**: \u{2705} All checks passed".to_string()
    } else {
        format!(
            "**Result**: \u{26a0}\u{fe0f} {passed}/{} checks passed",
            checks.len()
        )
    });
    out.join("\n")
}

/// `/swarm export`'s document; `now` stands for the time the plugin takes at call time.
/// Takes the state: a plan's document moves into the export rather than being copied.
pub fn export(state: State, context: Option<&str>, now_ms: i64) -> Value {
    let plan = match (state.plan, state.plan_md) {
        (Some(loaded), _) => loaded.plan.document(),
        (None, Some(text)) => Value::from(text),
        (None, None) => Value::Null,
    };
    // Not `json!`, which would copy the plan through serde.
    let mut document = Map::new();
    document.insert("version".into(), "4.5.0".into());
    document.insert("exported".into(), crate::time::rfc3339_ms(now_ms).into());
    document.insert("plan".into(), plan);
    document.insert("context".into(), context.into());
    Value::Object(document)
}

pub fn export_markdown(document: &Value) -> String {
    format!(
        "## Swarm Export\n\n```json\n{}\n```",
        json_stringify_pretty(document)
    )
}

/// `/swarm config`.
pub fn config_markdown(config: &files::LoadedConfig5) -> String {
    format!(
        "## Swarm Configuration\n\n### Config Files\n- User: `{}`\n- Project: `{}`\n\n### Resolved Config\n```json\n{}\n```",
        config.user_path.display(),
        config.project_path.display(),
        json_stringify_pretty(&config.resolved)
    )
}

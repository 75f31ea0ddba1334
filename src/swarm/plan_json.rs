//! `.swarm/plan.json` (schema 1.0.0, opencode-swarm 5.0.0): validation (swarm.md §4.1–4.2) and the
//! markdown the plugin derives from it, `D` (§4.3).

use serde_json::Value;

use super::schemas::PLAN;
use super::text::trim;
use crate::time::rfc3339_ms;

/// A plan.json that passes opencode-swarm's `PlanSchema`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanJson {
    pub title: String,
    pub swarm: String,
    pub current_phase: i64,
    pub phases: Vec<Phase>,
    /// `native`, `migrated` or `migration_failed`, when present.
    pub migration_status: Option<String>,
    /// What opencode-swarm 5.1.0 writes back and exports: see [`PlanJson::document`].
    pub document: Document,
}

/// The plan as zod returns it, or the text to build it from.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    Built(Value),
    /// Read by the fast path (`plan_fast`), which builds no JSON values.
    Text(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub id: i64,
    pub name: String,
    /// `pending`, `in_progress`, `complete` or `blocked`.
    pub status: String,
    pub tasks: Vec<Task>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub id: String,
    /// `pending`, `in_progress`, `completed` or `blocked`.
    pub status: String,
    /// `small`, `medium` or `large`.
    pub size: String,
    pub description: String,
    pub depends: Vec<String>,
    pub blocked_reason: Option<String>,
}

impl PlanJson {
    pub fn migration_failed(&self) -> bool {
        self.migration_status.as_deref() == Some("migration_failed")
    }

    /// The document as zod returns it (the schema's key order, defaults filled in).
    pub fn document(self) -> Value {
        match self.document {
            Document::Built(value) => value,
            // The fast path took it, so the schema takes it too (tested); `null` is unreachable.
            Document::Text(text) => serde_json::from_str(&text)
                .ok()
                .and_then(|value| PLAN.parse_owned(value).ok())
                .unwrap_or_default(),
        }
    }
}

/// Parses plan.json text (BOM already stripped) as usable for the plan text of swarm.md §4.2:
/// valid, and not the placeholder of a failed migration. `Err` says why not.
pub fn parse(text: String) -> Result<PlanJson, String> {
    let plan = load(text)?;
    if plan.migration_failed() {
        return Err("migration_status is migration_failed".into());
    }
    Ok(plan)
}

/// Parses plan.json text as opencode-swarm 5.1.0 loads it: anything `PlanSchema` accepts. The
/// fast path reads most plans; the schema decides the rest, and says why it refuses one.
pub fn load(text: String) -> Result<PlanJson, String> {
    let text = match super::plan_fast::load(text) {
        Ok(plan) => return Ok(plan),
        Err(text) => text,
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    from_value(value)
}

/// Validates a parsed document against `PlanSchema`.
pub fn from_value(value: Value) -> Result<PlanJson, String> {
    let value = PLAN.parse_owned(value)?;
    let text = |v: &Value, key: &str| v[key].as_str().unwrap_or_default().to_string();
    let int = |v: &Value, key: &str| v[key].as_f64().unwrap_or_default() as i64;
    fn items<'v>(v: &'v Value, key: &str) -> &'v [Value] {
        v[key].as_array().map_or(&[], Vec::as_slice)
    }
    let phases = items(&value, "phases")
        .iter()
        .map(|p| Phase {
            id: int(p, "id"),
            name: text(p, "name"),
            status: text(p, "status"),
            tasks: items(p, "tasks")
                .iter()
                .map(|t| Task {
                    id: text(t, "id"),
                    status: text(t, "status"),
                    size: text(t, "size"),
                    description: text(t, "description"),
                    depends: items(t, "depends")
                        .iter()
                        .map(|d| d.as_str().unwrap_or_default().to_string())
                        .collect(),
                    blocked_reason: t["blocked_reason"].as_str().map(str::to_string),
                })
                .collect(),
        })
        .collect();
    Ok(PlanJson {
        title: text(&value, "title"),
        swarm: text(&value, "swarm"),
        current_phase: int(&value, "current_phase"),
        phases,
        migration_status: value["migration_status"].as_str().map(str::to_string),
        document: Document::Built(value),
    })
}

/// A phase status as the plugin's markdown writes it (`in_progress` → `IN PROGRESS`).
pub fn phase_label(status: &str) -> &'static str {
    match status {
        "in_progress" => "IN PROGRESS",
        "complete" => "COMPLETE",
        "blocked" => "BLOCKED",
        _ => "PENDING",
    }
}

/// `D(plan)`: the plan.md opencode-swarm 5.0.0 writes for this plan, stamped with `modified_ms`
/// (plan.json's mtime) instead of "now".
pub fn derive_markdown(plan: &PlanJson, modified_ms: Option<i64>) -> String {
    let stamp = rfc3339_ms(modified_ms.unwrap_or(0));
    let current_label = usize::try_from(plan.current_phase - 1)
        .ok()
        .and_then(|i| plan.phases.get(i))
        .map_or("PENDING", |p| phase_label(&p.status));
    let mut text = format!(
        "# {}\nSwarm: {}\nPhase: {} [{current_label}] | Updated: {stamp}\n",
        plan.title, plan.swarm, plan.current_phase
    );
    for phase in &plan.phases {
        text.push_str(&format!(
            "\n## Phase {}: {} [{}]\n",
            phase.id,
            phase.name,
            phase_label(&phase.status)
        ));
        let mut marked = false;
        for task in &phase.tasks {
            let mut line = String::from(match task.status.as_str() {
                "completed" => "- [x] ",
                "blocked" => "- [BLOCKED] ",
                _ => "- [ ] ",
            });
            line.push_str(&task.id);
            line.push_str(": ");
            line.push_str(&task.description);
            if task.status == "blocked"
                && let Some(reason) = task.blocked_reason.as_deref().filter(|r| !r.is_empty())
            {
                line.push_str(" - ");
                line.push_str(reason);
            }
            line.push_str(&format!(" [{}]", task.size.to_uppercase()));
            if !task.depends.is_empty() {
                line.push_str(&format!(" (depends: {})", task.depends.join(", ")));
            }
            if phase.id == plan.current_phase && task.status == "in_progress" && !marked {
                line.push_str(" ← CURRENT");
                marked = true;
            }
            text.push_str(&line);
            text.push('\n');
        }
    }
    let pieces: Vec<&str> = text.split("\n## ").collect();
    if pieces.len() > 1 {
        let rest: Vec<String> = pieces[1..].iter().map(|p| format!("## {p}")).collect();
        text = format!("{}\n---\n{}", pieces[0], rest.join("\n---\n"));
    }
    format!("{}\n", trim(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE_2: &str = r#"{"schema_version":"1.0.0","title":"CLI docs","swarm":"local","current_phase":2,"phases":[
 {"id":1,"name":"Skeleton","status":"complete","tasks":[{"id":"1.1","phase":1,"status":"completed","description":"Create mdBook layout"}]},
 {"id":2,"name":"Reference pages","status":"in_progress","tasks":[
  {"id":"2.1","phase":2,"status":"in_progress","size":"medium","description":"Document swarm subcommands","depends":["1.1"]},
  {"id":"2.2","phase":2,"status":"blocked","description":"Screenshots","blocked_reason":"needs release build"}]},
 {"id":3,"name":"Publish","tasks":[]}]}"#;

    #[test]
    fn derives_the_spec_example() {
        let plan = parse(EXAMPLE_2.into()).unwrap();
        // 2026-03-02 09:30:00 UTC
        let md = derive_markdown(&plan, Some(1_772_443_800_000));
        assert_eq!(
            md,
            "# CLI docs\nSwarm: local\nPhase: 2 [IN PROGRESS] | Updated: 2026-03-02T09:30:00.000Z\n\n---\n## Phase 1: Skeleton [COMPLETE]\n- [x] 1.1: Create mdBook layout [SMALL]\n\n---\n## Phase 2: Reference pages [IN PROGRESS]\n- [ ] 2.1: Document swarm subcommands [MEDIUM] (depends: 1.1) ← CURRENT\n- [BLOCKED] 2.2: Screenshots - needs release build [SMALL]\n\n---\n## Phase 3: Publish [PENDING]\n"
        );
    }

    #[test]
    fn refuses_what_the_schema_refuses() {
        let bad = |from: &str, to: &str| parse(EXAMPLE_2.replacen(from, to, 1)).unwrap_err();
        assert!(bad("\"1.0.0\"", "\"2.0.0\"").contains("not supported"));
        assert!(bad("\"current_phase\":2", "\"current_phase\":\"2\"").contains("current_phase"));
        assert!(bad("\"current_phase\":2", "\"current_phase\":2.5").contains("current_phase"));
        assert!(
            bad("\"status\":\"complete\"", "\"status\":\"completed\"").contains("phases[0].status")
        );
        assert!(bad("\"size\":\"medium\"", "\"size\":null").contains("size"));
        assert!(bad("\"depends\":[\"1.1\"]", "\"depends\":[1]").contains("depends"));
        assert!(bad("\"title\":\"CLI docs\"", "\"title\":\"\"").contains("title"));
        assert!(parse("[]".into()).is_err());
        assert!(parse("{".into()).unwrap_err().starts_with("not JSON"));
        let with_2_0 = EXAMPLE_2.replacen("\"current_phase\":2", "\"current_phase\":2.0", 1);
        assert_eq!(parse(with_2_0).unwrap().current_phase, 2);
        let failed = EXAMPLE_2.replacen(
            "{\"schema_version",
            "{\"migration_status\":\"migration_failed\",\"schema_version",
            1,
        );
        assert!(parse(failed).is_err());
    }
}

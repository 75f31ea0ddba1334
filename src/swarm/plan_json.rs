//! `.swarm/plan.json` (schema 1.0.0, opencode-swarm 5.0.0): validation (swarm.md §4.1–4.2) and the
//! markdown the plugin derives from it, `D` (§4.3).

use serde_json::{Map, Value};

use super::text::trim;
use crate::text::utf16_len;
use crate::time::rfc3339_ms;

/// A usable plan.json.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanJson {
    pub title: String,
    pub swarm: String,
    pub current_phase: i64,
    pub phases: Vec<Phase>,
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

const PHASE_STATUSES: [&str; 4] = ["pending", "in_progress", "complete", "blocked"];
const TASK_STATUSES: [&str; 4] = ["pending", "in_progress", "completed", "blocked"];
const SIZES: [&str; 3] = ["small", "medium", "large"];
const MIGRATION_STATUSES: [&str; 3] = ["native", "migrated", "migration_failed"];

/// Parses and validates plan.json text (BOM already stripped). `Err` says why it is not usable.
pub fn parse(text: &str) -> Result<PlanJson, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let root = value.as_object().ok_or("the top level is not an object")?;
    match root.get("schema_version") {
        Some(Value::String(v)) if v == "1.0.0" => {}
        Some(Value::String(v)) => {
            return Err(format!(
                "schema_version {v:?} is not supported (ctx reads \"1.0.0\")"
            ));
        }
        _ => return Err("schema_version must be the string \"1.0.0\"".into()),
    }
    let title = nonempty_string(root, "title", "")?;
    let swarm = nonempty_string(root, "swarm", "")?;
    let current_phase = integer_at_least_1(root, "current_phase", "")?;
    if optional_enum(root, "migration_status", &MIGRATION_STATUSES, "")? == Some("migration_failed")
    {
        return Err("migration_status is migration_failed".into());
    }
    let phases = match root.get("phases") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, p)| phase(p, &format!("phases[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(Value::Array(_)) => return Err("phases must not be empty".into()),
        _ => return Err("phases must be an array".into()),
    };
    Ok(PlanJson {
        title,
        swarm,
        current_phase,
        phases,
    })
}

fn phase(value: &Value, at: &str) -> Result<Phase, String> {
    let object = value.as_object().ok_or(format!("{at} is not an object"))?;
    let tasks = match object.get("tasks") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, t)| task(t, &format!("{at}.tasks[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err(format!("{at}.tasks must be an array")),
    };
    Ok(Phase {
        id: integer_at_least_1(object, "id", at)?,
        name: nonempty_string(object, "name", at)?,
        status: optional_enum(object, "status", &PHASE_STATUSES, at)?
            .unwrap_or("pending")
            .to_string(),
        tasks,
    })
}

fn task(value: &Value, at: &str) -> Result<Task, String> {
    let object = value.as_object().ok_or(format!("{at} is not an object"))?;
    let id = match object.get("id") {
        Some(Value::String(id)) => id.clone(),
        _ => return Err(format!("{at}.id must be a string")),
    };
    integer_at_least_1(object, "phase", at)?;
    let depends = string_array(object, "depends", at)?;
    string_array(object, "files_touched", at)?;
    for key in ["acceptance", "evidence_path"] {
        optional_string(object, key, at)?;
    }
    Ok(Task {
        id,
        status: optional_enum(object, "status", &TASK_STATUSES, at)?
            .unwrap_or("pending")
            .to_string(),
        size: optional_enum(object, "size", &SIZES, at)?
            .unwrap_or("small")
            .to_string(),
        description: nonempty_string(object, "description", at)?,
        depends,
        blocked_reason: optional_string(object, "blocked_reason", at)?,
    })
}

fn field(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

fn nonempty_string(object: &Map<String, Value>, key: &str, at: &str) -> Result<String, String> {
    match object.get(key) {
        Some(Value::String(s)) if utf16_len(s) >= 1 => Ok(s.clone()),
        _ => Err(format!("{} must be a non-empty string", field(at, key))),
    }
}

fn optional_string(
    object: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<String>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{} must be a string", field(at, key))),
    }
}

fn string_array(object: &Map<String, Value>, key: &str, at: &str) -> Result<Vec<String>, String> {
    match object.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                _ => Err(format!("{} must hold only strings", field(at, key))),
            })
            .collect(),
        Some(_) => Err(format!("{} must be an array of strings", field(at, key))),
    }
}

fn optional_enum<'a>(
    object: &Map<String, Value>,
    key: &str,
    allowed: &[&'a str],
    at: &str,
) -> Result<Option<&'a str>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => match allowed.iter().find(|a| **a == s) {
            Some(found) => Ok(Some(found)),
            None => Err(format!(
                "{} {s:?} is not one of {}",
                field(at, key),
                allowed.join(", ")
            )),
        },
        Some(_) => Err(format!("{} must be a string", field(at, key))),
    }
}

/// An integral JSON number ≥ 1 within ±(2^53 − 1); `2.0` qualifies (swarm.md §4.1).
fn integer_at_least_1(object: &Map<String, Value>, key: &str, at: &str) -> Result<i64, String> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    let bad = || format!("{} must be an integer of at least 1", field(at, key));
    let number = match object.get(key) {
        Some(Value::Number(n)) => n.as_f64().ok_or_else(bad)?,
        _ => return Err(bad()),
    };
    if number.fract() != 0.0 || !(1.0..=MAX_SAFE).contains(&number) {
        return Err(bad());
    }
    Ok(number as i64)
}

fn phase_label(status: &str) -> &'static str {
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
        let plan = parse(EXAMPLE_2).unwrap();
        // 2026-03-02 09:30:00 UTC
        let md = derive_markdown(&plan, Some(1_772_443_800_000));
        assert_eq!(
            md,
            "# CLI docs\nSwarm: local\nPhase: 2 [IN PROGRESS] | Updated: 2026-03-02T09:30:00.000Z\n\n---\n## Phase 1: Skeleton [COMPLETE]\n- [x] 1.1: Create mdBook layout [SMALL]\n\n---\n## Phase 2: Reference pages [IN PROGRESS]\n- [ ] 2.1: Document swarm subcommands [MEDIUM] (depends: 1.1) ← CURRENT\n- [BLOCKED] 2.2: Screenshots - needs release build [SMALL]\n\n---\n## Phase 3: Publish [PENDING]\n"
        );
    }

    #[test]
    fn refuses_what_the_schema_refuses() {
        let bad = |from: &str, to: &str| parse(&EXAMPLE_2.replacen(from, to, 1)).unwrap_err();
        assert!(bad("\"1.0.0\"", "\"2.0.0\"").contains("not supported"));
        assert!(bad("\"current_phase\":2", "\"current_phase\":\"2\"").contains("current_phase"));
        assert!(bad("\"current_phase\":2", "\"current_phase\":2.5").contains("current_phase"));
        assert!(
            bad("\"status\":\"complete\"", "\"status\":\"completed\"").contains("phases[0].status")
        );
        assert!(bad("\"size\":\"medium\"", "\"size\":null").contains("size"));
        assert!(bad("\"depends\":[\"1.1\"]", "\"depends\":[1]").contains("depends"));
        assert!(bad("\"title\":\"CLI docs\"", "\"title\":\"\"").contains("title"));
        assert!(parse("[]").is_err());
        assert!(parse("{").unwrap_err().starts_with("not JSON"));
        let with_2_0 = EXAMPLE_2.replacen("\"current_phase\":2", "\"current_phase\":2.0", 1);
        assert_eq!(parse(&with_2_0).unwrap().current_phase, 2);
        let failed = EXAMPLE_2.replacen(
            "{\"schema_version",
            "{\"migration_status\":\"migration_failed\",\"schema_version",
            1,
        );
        assert!(parse(&failed).is_err());
    }
}

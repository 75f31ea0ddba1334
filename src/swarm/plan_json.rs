//! `.swarm/plan.json` (schema 1.0.0, opencode-swarm 5.0.0): validation (swarm.md §4.1–4.2) and the
//! markdown the plugin derives from it, `D` (§4.3).

use serde_json::Value;

use super::schemas::PLAN;
use super::text::trim;
use crate::time::rfc3339_ms;

pub use super::plan_doc::{Document, Phase, PlanJson, Task};

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

/// The fast path (`plan_fast`) held to the schema: it takes a plan only when `PlanSchema` does,
/// and reads it as the schema does.
#[cfg(test)]
mod fast_path_tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::super::plan_fast;
    use super::super::schemas::{MIGRATION_STATUSES, PHASE_STATUSES, TASK_SIZES, TASK_STATUSES};
    use super::{Document, from_value, load};

    /// Mostly what the schema takes, sometimes not: each value is wrong one time in forty, so
    /// that about a third of the plans are taken whole.
    fn or_wrong(right: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Value> {
        let wrong = prop_oneof![
            Just(Value::Null),
            Just(json!(1)),
            Just(json!(true)),
            Just(json!("")),
            Just(json!("bogus")),
            Just(json!(["x"])),
            Just(json!({"a": 1})),
        ];
        prop_oneof![39 => right, 1 => wrong].boxed()
    }

    fn text() -> BoxedStrategy<Value> {
        or_wrong(
            prop_oneof![Just("1.1"), Just("Tidy up"), Just("😀"), Just("a\"b\\c")]
                .prop_map(Value::from),
        )
    }

    fn number() -> BoxedStrategy<Value> {
        let out_of_range = prop_oneof![
            Just(json!(0)),
            Just(json!(-3)),
            Just(json!(2.5)),
            Just(json!(9_007_199_254_740_993_u64)),
            Just(json!(1e300)),
        ];
        or_wrong(prop_oneof![
            40 => Just(json!(1)),
            40 => Just(json!(2)),
            4 => Just(json!(2.0)),
            1 => out_of_range,
        ])
    }

    fn one_of(words: &'static [&'static str]) -> BoxedStrategy<Value> {
        or_wrong(proptest::sample::select(words).prop_map(Value::from))
    }

    fn strings() -> BoxedStrategy<Value> {
        or_wrong(proptest::collection::vec(text(), 0..3).prop_map(Value::from))
    }

    /// An object of these fields, each absent one time in thirty, plus a key no schema names.
    fn object(fields: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
        let fields: Vec<_> = fields
            .into_iter()
            .map(|(key, value)| proptest::option::weighted(0.97, value).prop_map(move |v| (key, v)))
            .collect();
        (fields, proptest::option::of(text()))
            .prop_map(|(fields, extra)| {
                let mut map = Map::new();
                for (key, value) in fields {
                    if let Some(value) = value {
                        map.insert(key.to_string(), value);
                    }
                }
                if let Some(extra) = extra {
                    map.insert("extra".into(), extra);
                }
                Value::Object(map)
            })
            .boxed()
    }

    fn task() -> BoxedStrategy<Value> {
        or_wrong(object(vec![
            ("id", text()),
            ("phase", number()),
            ("status", one_of(&TASK_STATUSES)),
            ("size", one_of(&TASK_SIZES)),
            ("description", text()),
            ("depends", strings()),
            ("acceptance", text()),
            ("files_touched", strings()),
            ("evidence_path", text()),
            ("blocked_reason", text()),
        ]))
    }

    fn phase() -> BoxedStrategy<Value> {
        or_wrong(object(vec![
            ("id", number()),
            ("name", text()),
            ("status", one_of(&PHASE_STATUSES)),
            (
                "tasks",
                or_wrong(proptest::collection::vec(task(), 0..4).prop_map(Value::from)),
            ),
        ]))
    }

    fn plan() -> BoxedStrategy<Value> {
        or_wrong(object(vec![
            ("schema_version", or_wrong(Just(json!("1.0.0")))),
            ("title", text()),
            ("swarm", text()),
            ("current_phase", number()),
            (
                "phases",
                or_wrong(proptest::collection::vec(phase(), 0..3).prop_map(Value::from)),
            ),
            ("migration_status", one_of(&MIGRATION_STATUSES)),
        ]))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The fast path takes a plan only when the schema does, and reads it as the schema does.
        #[test]
        fn the_fast_path_agrees_with_the_schema(doc in plan()) {
            let text = doc.to_string();
            let by_schema = from_value(doc);
            if let Ok(fast) = plan_fast::load(text) {
                prop_assert!(by_schema.is_ok(), "the fast path took a plan the schema refuses: {:?}", by_schema);
                let schema = by_schema.unwrap();
                prop_assert_eq!(&fast.title, &schema.title);
                prop_assert_eq!(&fast.swarm, &schema.swarm);
                prop_assert_eq!(fast.current_phase, schema.current_phase);
                prop_assert_eq!(&fast.phases, &schema.phases);
                prop_assert_eq!(&fast.migration_status, &schema.migration_status);
                prop_assert_eq!(fast.document(), schema.document());
            }
        }
    }

    #[test]
    fn plans_the_plugin_writes_take_the_fast_path() {
        let plan = json!({"schema_version": "1.0.0", "title": "T", "swarm": "s", "current_phase": 1,
            "migration_status": "native",
            "phases": [{"id": 1, "name": "One", "status": "in_progress", "tasks": [
                {"id": "1.1", "phase": 1, "status": "pending", "size": "small", "description": "D",
                 "depends": [], "files_touched": [], "acceptance": "A"}]}]});
        let loaded = load(plan.to_string()).unwrap();
        assert!(matches!(loaded.document, Document::Text(_)));
        // An array where an object belongs: serde would read it by position, zod refuses it.
        let positional = json!({"schema_version": "1.0.0", "title": "T", "swarm": "s",
            "current_phase": 1, "phases": [[1, "One"]]});
        assert!(plan_fast::load(positional.to_string()).is_err());
        assert!(load(positional.to_string()).is_err());
        // A duplicate key goes to the schema, which reads the last one as JSON.parse does.
        let duplicate =
            plan.to_string()
                .replacen("\"title\":\"T\"", "\"title\":\"\",\"title\":\"T\"", 1);
        assert!(plan_fast::load(duplicate.clone()).is_err());
        assert_eq!(load(duplicate).unwrap().title, "T");
    }
}

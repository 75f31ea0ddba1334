//! The fast path of reading plan.json: the text read straight into typed fields, checked by the
//! leaf schemas of `PlanSchema` itself, with no JSON value tree built twice (once parsed, once as
//! zod returns it). On a plan of 50 000 tasks that tree is most of the time.
//!
//! The schema stays the judge: this path answers only for a plan it takes as a whole. Anything it
//! does not take (a problem, a duplicate key, a value it does not expect) goes to the zod path,
//! which gives the plugin's answer and reason. So it must never take a plan zod refuses, and must
//! read what it takes as zod does: `tests::the_fast_path_agrees_with_the_schema` holds it to that.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::Number;

use super::plan_json::{Document, Phase, PlanJson, Task};
use super::schemas::{
    ID, MIGRATION_STATUS, PHASE_STATUS, PLAN_SCHEMA_VERSION, TASK_SIZE, TASK_STATUS,
};
use super::zod::{NONEMPTY, Schema};

/// The plan, when this path takes it; else the text back, for the schema to judge. Keys the
/// schema does not name are skipped, as zod drops them: checked as JSON, nothing built.
pub fn load(text: String) -> Result<PlanJson, String> {
    let Ok(Object(raw)) = serde_json::from_str::<Object<RawPlan>>(&text) else {
        return Err(text);
    };
    match raw.check() {
        Some(plan) => Ok(PlanJson {
            document: Document::Text(text),
            ..plan
        }),
        None => Err(text),
    }
}

/// A JSON object read as `T`. serde also reads a struct from an array, by position; zod takes
/// only objects.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Object)
            }
        }
        deserializer.deserialize_map(ObjectVisitor(PhantomData))
    }
}

/// An optional field that, when present, holds a `T`: zod's `.optional()` and `.default()` take
/// a missing key, not `null`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct RawPlan {
    schema_version: String,
    title: String,
    swarm: String,
    current_phase: Number,
    phases: Vec<Object<RawPhase>>,
    #[serde(default, deserialize_with = "present")]
    migration_status: Option<String>,
}

#[derive(Deserialize)]
struct RawPhase {
    id: Number,
    name: String,
    #[serde(default, deserialize_with = "present")]
    status: Option<String>,
    #[serde(default, deserialize_with = "present")]
    tasks: Option<Vec<Object<RawTask>>>,
}

/// Every field of `TaskSchema`: those ctx does not use (`_`) are still checked, as the schema
/// refuses a task whose `acceptance` is a number.
#[derive(Deserialize)]
struct RawTask {
    id: String,
    phase: Number,
    #[serde(default, deserialize_with = "present")]
    status: Option<String>,
    #[serde(default, deserialize_with = "present")]
    size: Option<String>,
    description: String,
    #[serde(default, deserialize_with = "present")]
    depends: Option<Vec<String>>,
    #[serde(default, rename = "acceptance", deserialize_with = "present")]
    _acceptance: Option<String>,
    #[serde(default, rename = "files_touched", deserialize_with = "present")]
    _files_touched: Option<Vec<String>>,
    #[serde(default, rename = "evidence_path", deserialize_with = "present")]
    _evidence_path: Option<String>,
    #[serde(default, deserialize_with = "present")]
    blocked_reason: Option<String>,
}

/// `ID`: an integer of at least 1, as the model keeps it.
fn id(n: &Number) -> Option<i64> {
    ID.takes_number(n)
        .then(|| n.as_f64().unwrap_or_default() as i64)
}

/// A string `schema` takes.
fn string(s: String, schema: &Schema) -> Option<String> {
    schema.takes_str(&s).then_some(s)
}

/// A `.default(word)` field: the word when absent, else what `schema` takes.
fn or_default(value: Option<String>, schema: &Schema, default: &str) -> Option<String> {
    match value {
        None => Some(default.to_string()),
        Some(v) => string(v, schema),
    }
}

impl RawPlan {
    /// The plan, its document still to be attached.
    fn check(self) -> Option<PlanJson> {
        if !PLAN_SCHEMA_VERSION.takes_str(&self.schema_version) || self.phases.is_empty() {
            return None;
        }
        let migration_status = match self.migration_status {
            None => None,
            Some(s) => Some(string(s, &MIGRATION_STATUS)?),
        };
        Some(PlanJson {
            title: string(self.title, &NONEMPTY)?,
            swarm: string(self.swarm, &NONEMPTY)?,
            current_phase: id(&self.current_phase)?,
            phases: self
                .phases
                .into_iter()
                .map(|p| p.0.check())
                .collect::<Option<_>>()?,
            migration_status,
            document: Document::Text(String::new()),
        })
    }
}

impl RawPhase {
    fn check(self) -> Option<Phase> {
        Some(Phase {
            id: id(&self.id)?,
            name: string(self.name, &NONEMPTY)?,
            status: or_default(self.status, &PHASE_STATUS, "pending")?,
            tasks: self
                .tasks
                .unwrap_or_default()
                .into_iter()
                .map(|t| t.0.check())
                .collect::<Option<_>>()?,
        })
    }
}

impl RawTask {
    fn check(self) -> Option<Task> {
        id(&self.phase)?;
        Some(Task {
            id: self.id,
            status: or_default(self.status, &TASK_STATUS, "pending")?,
            size: or_default(self.size, &TASK_SIZE, "small")?,
            description: string(self.description, &NONEMPTY)?,
            depends: self.depends.unwrap_or_default(),
            blocked_reason: self.blocked_reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::super::plan_json::{self, Document};
    use super::super::schemas::{MIGRATION_STATUSES, PHASE_STATUSES, TASK_SIZES, TASK_STATUSES};

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
            let by_schema = plan_json::from_value(doc);
            if let Ok(fast) = super::load(text) {
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
        let loaded = plan_json::load(plan.to_string()).unwrap();
        assert!(matches!(loaded.document, Document::Text(_)));
        // An array where an object belongs: serde would read it by position, zod refuses it.
        let positional = json!({"schema_version": "1.0.0", "title": "T", "swarm": "s",
            "current_phase": 1, "phases": [[1, "One"]]});
        assert!(super::load(positional.to_string()).is_err());
        assert!(plan_json::load(positional.to_string()).is_err());
        // A duplicate key goes to the schema, which reads the last one as JSON.parse does.
        let duplicate =
            plan.to_string()
                .replacen("\"title\":\"T\"", "\"title\":\"\",\"title\":\"T\"", 1);
        assert!(super::load(duplicate.clone()).is_err());
        assert_eq!(plan_json::load(duplicate).unwrap().title, "T");
    }
}

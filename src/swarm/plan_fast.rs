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

use super::plan_doc::{Document, Phase, PlanJson, Task};
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

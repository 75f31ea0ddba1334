//! A `.swarm/plan.json` plan as ctx holds it once read, by either reader: the fast path
//! (`plan_fast`) or the schema (`plan_json`), which tries the fast path first. Both readers build
//! these types, and neither imports the other's: `plan_json` → `plan_fast` → here.

use serde_json::Value;

use super::schemas::PLAN;

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

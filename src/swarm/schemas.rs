//! opencode-swarm 5.1.0's zod schemas, as data (see `zod.rs`): the plan (`plan.json`, also
//! schema 1.0.0 of 5.0.0), evidence bundles and the plugin config. Field order is the plugin's,
//! because the values they return are printed in that order.

use super::zod::{BOOL, NONEMPTY, STRING, Schema, default, number, optional, required};

pub const ID: Schema = Schema::Number {
    int: true,
    min: Some(1.0),
    max: None,
};
const COUNT: Schema = Schema::Number {
    int: true,
    min: Some(0.0),
    max: None,
};
const STRINGS: Schema = Schema::Array {
    item: &STRING,
    min: 0,
};

pub const TASK_STATUSES: [&str; 4] = ["pending", "in_progress", "completed", "blocked"];
pub const PHASE_STATUSES: [&str; 4] = ["pending", "in_progress", "complete", "blocked"];
pub const TASK_SIZES: [&str; 3] = ["small", "medium", "large"];
pub const MIGRATION_STATUSES: [&str; 3] = ["native", "migrated", "migration_failed"];

// The plan's leaves, named so that the typed reader of plan.json (`plan_fast`) applies these
// very rules.
pub const PLAN_SCHEMA_VERSION: Schema = Schema::Literal("1.0.0");
pub const TASK_STATUS: Schema = Schema::Enum(&TASK_STATUSES);
pub const TASK_SIZE: Schema = Schema::Enum(&TASK_SIZES);
pub const PHASE_STATUS: Schema = Schema::Enum(&PHASE_STATUSES);
pub const MIGRATION_STATUS: Schema = Schema::Enum(&MIGRATION_STATUSES);

static TASK: Schema = Schema::Object(&[
    required("id", &STRING),
    required("phase", &ID),
    default("status", &TASK_STATUS, "\"pending\""),
    default("size", &TASK_SIZE, "\"small\""),
    required("description", &NONEMPTY),
    default("depends", &STRINGS, "[]"),
    optional("acceptance", &STRING),
    default("files_touched", &STRINGS, "[]"),
    optional("evidence_path", &STRING),
    optional("blocked_reason", &STRING),
]);

static PHASE: Schema = Schema::Object(&[
    required("id", &ID),
    required("name", &NONEMPTY),
    default("status", &PHASE_STATUS, "\"pending\""),
    default(
        "tasks",
        &Schema::Array {
            item: &TASK,
            min: 0,
        },
        "[]",
    ),
]);

/// `PlanSchema`: `.swarm/plan.json`.
pub static PLAN: Schema = Schema::Object(&[
    required("schema_version", &PLAN_SCHEMA_VERSION),
    required("title", &NONEMPTY),
    required("swarm", &NONEMPTY),
    required("current_phase", &ID),
    required(
        "phases",
        &Schema::Array {
            item: &PHASE,
            min: 1,
        },
    ),
    optional("migration_status", &MIGRATION_STATUS),
]);

/// The fields every evidence entry has, then the ones of its type.
macro_rules! entry {
    ($type:literal $(, $field:expr)*) => {
        Schema::Object(&[
            required("task_id", &NONEMPTY),
            required("type", &Schema::Literal($type)),
            required("timestamp", &Schema::DateTime),
            required("agent", &NONEMPTY),
            required(
                "verdict",
                &Schema::Enum(&["pass", "fail", "approved", "rejected", "info"]),
            ),
            required("summary", &NONEMPTY),
            optional("metadata", &Schema::Record(&Schema::Unknown)),
            $($field,)*
        ])
    };
}

static REVIEW: Schema = entry!(
    "review",
    required(
        "risk",
        &Schema::Enum(&["low", "medium", "high", "critical"])
    ),
    default(
        "issues",
        &Schema::Array {
            item: &Schema::Object(&[
                required("severity", &Schema::Enum(&["error", "warning", "info"])),
                required("message", &NONEMPTY),
                optional("file", &STRING),
                optional(
                    "line",
                    &Schema::Number {
                        int: true,
                        min: None,
                        max: None
                    }
                ),
            ]),
            min: 0,
        },
        "[]"
    )
);

static TEST: Schema = entry!(
    "test",
    required("tests_passed", &COUNT),
    required("tests_failed", &COUNT),
    optional("test_file", &STRING),
    default(
        "failures",
        &Schema::Array {
            item: &Schema::Object(&[required("name", &NONEMPTY), required("message", &NONEMPTY),]),
            min: 0,
        },
        "[]"
    )
);

static DIFF: Schema = entry!(
    "diff",
    default("files_changed", &STRINGS, "[]"),
    default("additions", &COUNT, "0"),
    default("deletions", &COUNT, "0"),
    optional("patch_path", &STRING)
);

static APPROVAL: Schema = entry!("approval");
static NOTE: Schema = entry!("note");

/// `EvidenceBundleSchema`: `.swarm/evidence/<task>/evidence.json`.
pub static EVIDENCE_BUNDLE: Schema = Schema::Object(&[
    required("schema_version", &Schema::Literal("1.0.0")),
    required("task_id", &NONEMPTY),
    default(
        "entries",
        &Schema::Array {
            item: &Schema::Union {
                tag: "type",
                variants: &[
                    ("review", &REVIEW),
                    ("test", &TEST),
                    ("diff", &DIFF),
                    ("approval", &APPROVAL),
                    ("note", &NOTE),
                ],
            },
            min: 0,
        },
        "[]",
    ),
    required("created_at", &Schema::DateTime),
    required("updated_at", &Schema::DateTime),
]);

static AGENT_OVERRIDE: Schema = Schema::Object(&[
    optional("model", &STRING),
    optional("temperature", &number(0.0, 2.0)),
    optional("disabled", &BOOL),
]);

static AGENT_OVERRIDES: Schema = Schema::Record(&AGENT_OVERRIDE);

static HOOKS: Schema = Schema::Object(&[
    default("system_enhancer", &BOOL, "true"),
    default("compaction", &BOOL, "true"),
    default("agent_activity", &BOOL, "true"),
    default("delegation_tracker", &BOOL, "false"),
    default("agent_awareness_max_chars", &number(50.0, 2000.0), "300"),
]);

const WEIGHT: Schema = number(0.0, 5.0);
const RATIO: Schema = number(0.1, 1.0);

static SCORING: Schema = Schema::Object(&[
    default("enabled", &BOOL, "false"),
    default("max_candidates", &number(10.0, 500.0), "100"),
    optional(
        "weights",
        &Schema::Object(&[
            default("phase", &WEIGHT, "1"),
            default("current_task", &WEIGHT, "2"),
            default("blocked_task", &WEIGHT, "1.5"),
            default("recent_failure", &WEIGHT, "2.5"),
            default("recent_success", &WEIGHT, "0.5"),
            default("evidence_presence", &WEIGHT, "1"),
            default("decision_recency", &WEIGHT, "1.5"),
            default("dependency_proximity", &WEIGHT, "1"),
        ]),
    ),
    optional(
        "decision_decay",
        &Schema::Object(&[
            default(
                "mode",
                &Schema::Enum(&["linear", "exponential"]),
                "\"exponential\"",
            ),
            default("half_life_hours", &number(1.0, 168.0), "24"),
        ]),
    ),
    optional(
        "token_ratios",
        &Schema::Object(&[
            default("prose", &RATIO, "0.25"),
            default("code", &RATIO, "0.4"),
            default("markdown", &RATIO, "0.3"),
            default("json", &RATIO, "0.35"),
        ]),
    ),
]);

static CONTEXT_BUDGET: Schema = Schema::Object(&[
    default("enabled", &BOOL, "true"),
    default("warn_threshold", &number(0.0, 1.0), "0.7"),
    default("critical_threshold", &number(0.0, 1.0), "0.9"),
    default(
        "model_limits",
        &Schema::Record(&Schema::Number {
            int: false,
            min: Some(1000.0),
            max: None,
        }),
        "{\"default\": 128000}",
    ),
    default("max_injection_tokens", &number(100.0, 50000.0), "4000"),
    optional("scoring", &SCORING),
]);

static EVIDENCE_CONFIG: Schema = Schema::Object(&[
    default("enabled", &BOOL, "true"),
    default("max_age_days", &number(1.0, 365.0), "90"),
    default("max_bundles", &number(10.0, 10000.0), "1000"),
    default("auto_archive", &BOOL, "false"),
]);

const TOOL_CALLS: Schema = number(0.0, 1000.0);
const DURATION: Schema = number(0.0, 480.0);
const REPETITIONS: Schema = number(3.0, 50.0);
const ERRORS: Schema = number(2.0, 20.0);
const WARNING: Schema = number(0.1, 0.9);
const IDLE: Schema = number(5.0, 240.0);

/// The limits a guardrail profile may set, in the order `/swarm agents` lists them.
pub const PROFILE_LIMITS: [&str; 5] = [
    "max_tool_calls",
    "max_duration_minutes",
    "max_repetitions",
    "max_consecutive_errors",
    "warning_threshold",
];

static GUARDRAILS_PROFILE: Schema = Schema::Object(&[
    optional("max_tool_calls", &TOOL_CALLS),
    optional("max_duration_minutes", &DURATION),
    optional("max_repetitions", &REPETITIONS),
    optional("max_consecutive_errors", &ERRORS),
    optional("warning_threshold", &WARNING),
    optional("idle_timeout_minutes", &IDLE),
]);

/// `GuardrailsConfigSchema`.
pub static GUARDRAILS: Schema = Schema::Object(&[
    default("enabled", &BOOL, "true"),
    default("max_tool_calls", &TOOL_CALLS, "200"),
    default("max_duration_minutes", &DURATION, "30"),
    default("max_repetitions", &REPETITIONS, "10"),
    default("max_consecutive_errors", &ERRORS, "5"),
    default("warning_threshold", &WARNING, "0.75"),
    default("idle_timeout_minutes", &IDLE, "60"),
    optional("profiles", &Schema::Record(&GUARDRAILS_PROFILE)),
]);

/// `PluginConfigSchema`: both `opencode-swarm.json` files.
pub static PLUGIN_CONFIG: Schema = Schema::Object(&[
    optional("agents", &AGENT_OVERRIDES),
    optional(
        "swarms",
        &Schema::Record(&Schema::Object(&[
            optional("name", &STRING),
            optional("agents", &AGENT_OVERRIDES),
        ])),
    ),
    default("max_iterations", &number(1.0, 10.0), "5"),
    default("qa_retry_limit", &number(1.0, 10.0), "3"),
    default("inject_phase_reminders", &BOOL, "true"),
    optional("hooks", &HOOKS),
    optional("context_budget", &CONTEXT_BUDGET),
    optional("guardrails", &GUARDRAILS),
    optional("evidence", &EVIDENCE_CONFIG),
]);

/// What the plugin starts from when the user has no valid config file.
pub const BARE_CONFIG: &str =
    r#"{"max_iterations": 5, "qa_retry_limit": 3, "inject_phase_reminders": true}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_under_their_own_schemas() {
        for schema in [&PLUGIN_CONFIG, &GUARDRAILS] {
            schema.parse(&serde_json::json!({})).unwrap();
        }
        let full = serde_json::json!({
            "hooks": {}, "context_budget": {"scoring": {"weights": {}, "decision_decay": {}, "token_ratios": {}}},
            "guardrails": {"profiles": {"coder": {}}}, "evidence": {}
        });
        let parsed = PLUGIN_CONFIG.parse(&full).unwrap();
        // Every default fills in and passes its own field's check when read back.
        assert_eq!(PLUGIN_CONFIG.parse(&parsed).unwrap(), parsed);
    }
}

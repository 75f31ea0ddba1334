//! The JSON documents of `ctx budget` (cli.md, "JSON"), as serializable structs.

use schemars::JsonSchema;
use serde::Serialize;

use crate::document::Version;

/// Where a model's limits came from (`limit.source`, `source` of a model row).
fn limit_source(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": ["flag", "env", "project", "user", "opencode-swarm", "models.dev", "built-in", "default"]
    })
}

/// `ctx budget estimate --json`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EstimateDoc {
    pub version: Version,
    /// `o200k`, `cl100k`, `swarm`, `opencode` or `estimate:<family>`.
    pub tokenizer: String,
    /// Whether the counts are what the model's own tokenizer gives.
    pub exact: bool,
    pub model: Option<String>,
    pub limit: LimitDoc,
    pub total_tokens: u64,
    pub bytes: u64,
    pub files: u64,
    pub usage: f64,
    /// `ok`, `warn` or `critical`.
    #[schemars(extend("enum" = ["ok", "warn", "critical"]))]
    pub level: &'static str,
    pub thresholds: ThresholdsDoc,
    /// Every counted input, most tokens first (then by path).
    pub items: Vec<ItemDoc>,
    /// Inputs left out, by path.
    pub skipped: Vec<SkippedDoc>,
    /// Present with `--session`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionDoc>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LimitDoc {
    pub context: u64,
    pub input: Option<u64>,
    pub output: Option<u64>,
    /// Where OpenCode would compact a session on this model.
    pub usable: u64,
    /// `flag`, `env`, `project`, `user`, `opencode-swarm`, `models.dev`, `built-in` or `default`.
    #[schemars(schema_with = "limit_source")]
    pub source: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ThresholdsDoc {
    pub warn: f64,
    pub critical: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ItemDoc {
    pub path: String,
    pub tokens: u64,
    pub bytes: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SkippedDoc {
    pub path: String,
    pub reason: String,
}

/// What an OpenCode export says beside ctx's count.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionDoc {
    pub id: String,
    pub path: String,
    pub messages: u64,
    /// ctx's count of what the model is sent on the next call.
    pub tokens: u64,
    /// Provider-reported context tokens of the last finished reply (what OpenCode compares with
    /// `limit.usable`); null when no reply has finished.
    pub recorded_tokens: Option<u64>,
    pub recorded_model: Option<String>,
    /// Sums over the assistant messages.
    pub totals: TotalsDoc,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TotalsDoc {
    pub input: u64,
    pub output: u64,
    pub reasoning: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost: f64,
}

/// `ctx budget models --json`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ModelsDoc {
    pub version: Version,
    /// Every model with limits, sorted by id.
    pub models: Vec<ModelRow>,
    /// The limit of a model found nowhere.
    pub default: ModelRow,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ModelRow {
    pub model: String,
    pub context: u64,
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub usable: u64,
    #[schemars(schema_with = "limit_source")]
    pub source: &'static str,
}

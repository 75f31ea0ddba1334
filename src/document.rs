//! What every JSON document shares: the `version` field, and the schemas of its time stamps.
//! A leaf: the domains' documents and the registry in `schema.rs` both use it.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Serialize, Serializer};

/// The `"version": 1` that opens every document.
#[derive(Debug, Clone, Copy, Default)]
pub struct Version;

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(1)
    }
}

impl JsonSchema for Version {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Version".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"description": "The version of this document's shape.", "const": 1})
    }
}

/// A schema for an RFC 3339 UTC timestamp string.
pub fn timestamp(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "string", "format": "date-time"})
}

/// A schema for an optional RFC 3339 UTC timestamp string.
pub fn optional_timestamp(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": ["string", "null"], "format": "date-time"})
}

/// Tokens and cost of a set of model calls: the figures of `ctx budget spent` and of `frame
/// show|tree --cost` (built from the cost report's own figures in `spent::doc`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FiguresDoc {
    /// Model calls (assistant messages).
    pub calls: u64,
    pub tokens: TokensDoc,
    /// USD: `cost_recorded + cost_estimated`; `null` when calls had tokens and none had a price.
    pub cost: Option<f64>,
    /// USD the agent recorded.
    pub cost_recorded: f64,
    /// USD ctx priced from OpenCode's models.dev cache for calls recorded at 0.
    pub cost_estimated: f64,
    /// Calls whose cost ctx priced (`cost_estimated`), a price of 0 included: when above 0,
    /// `cost` is an estimate.
    pub estimated_calls: u64,
    /// Calls with tokens and no price: when above 0, `cost` is a lower bound.
    pub unpriced_calls: u64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TokensDoc {
    /// Input tokens not read from the cache.
    pub input: u64,
    /// Generated tokens, reasoning excluded.
    pub output: u64,
    pub reasoning: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// The providers' totals (else the sum of the parts).
    pub total: u64,
}

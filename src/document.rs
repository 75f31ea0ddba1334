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

//! The published shapes of ctx's JSON documents. Each `--json` document is a Rust type in its
//! domain module; this registry names them, so `schemas/` is generated from the same types that
//! print the output, and a test keeps the committed files in step.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Serialize, Serializer};

use crate::frame::doc as frame;

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

/// Every published document: its file stem under `schemas/` (the command it comes from) and its
/// schema.
pub fn documents() -> Vec<(&'static str, Schema)> {
    vec![
        (
            "frame-push",
            document::<frame::FrameDoc>("ctx frame push --json"),
        ),
        (
            "frame-pop",
            document::<frame::PopDoc>("ctx frame pop --json"),
        ),
        (
            "frame-tree",
            document::<frame::TreeDoc>("ctx frame tree --json"),
        ),
        (
            "frame-show",
            document::<frame::ShowDoc>("ctx frame show --json"),
        ),
        (
            "frame-current",
            document::<frame::FrameDoc>("ctx frame current --json"),
        ),
        (
            "frame-plan",
            document::<frame::FramesDoc>("ctx frame plan --json"),
        ),
        (
            "frame-activate",
            document::<frame::FrameDoc>("ctx frame activate --json"),
        ),
        (
            "frame-invalidate",
            document::<frame::InvalidateDoc>("ctx frame invalidate --json"),
        ),
        (
            "frame-artifact",
            document::<frame::AddedDoc>("ctx frame artifact --json"),
        ),
        (
            "frame-decision",
            document::<frame::AddedDoc>("ctx frame decision --json"),
        ),
        (
            "frame-log",
            document::<frame::LogDoc>("ctx frame log --json"),
        ),
        (
            "frame-import",
            document::<frame::ImportDoc>("ctx frame import --json"),
        ),
    ]
}

fn document<T: JsonSchema>(title: &str) -> Schema {
    // The serialize contract: a field is required unless it may be skipped, so `null` fields
    // (always printed) are required and `LogDoc::text` is not.
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    schema.insert("title".into(), title.into());
    schema
}

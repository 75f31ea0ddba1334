//! The JSON documents `ctx compact` prints. They are OpenCode's own shapes (opencode.md §8), so
//! they carry no `version` key: a plugin assigns them as they are.

use schemars::JsonSchema;
use serde::Serialize;

/// The output object of OpenCode's `experimental.session.compacting` hook.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CompactingOutput {
    pub context: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// The body of an OpenCode `session.prompt` call: the completion notice.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PromptBody {
    pub parts: Vec<TextPart>,
}

/// A text part of a `session.prompt` body.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TextPart {
    /// Always `text`.
    #[serde(rename = "type")]
    #[schemars(extend("const" = "text"))]
    pub kind: &'static str,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthetic: Option<bool>,
}

/// The output object of OpenCode's `experimental.chat.system.transform` hook.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SystemOutput {
    pub system: Vec<String>,
}

/// What `ctx compact render --format json` prints: the compacting hook's object, or the system
/// transform's object for `--for system` alone.
// Only the schema registry uses this type; the command prints the two structs directly.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RenderOutput {
    Compacting(CompactingOutput),
    System(SystemOutput),
}

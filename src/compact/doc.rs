//! The JSON documents `ctx compact` prints. They are OpenCode's own shapes (opencode.md §8), so
//! they carry no `version` key: a plugin assigns them as they are.

use serde::Serialize;

/// The output object of OpenCode's `experimental.session.compacting` hook.
#[derive(Debug, Serialize)]
pub struct CompactingOutput {
    pub context: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// The body of an OpenCode `session.prompt` call: the completion notice.
#[derive(Debug, Serialize)]
pub struct PromptBody {
    pub parts: Vec<TextPart>,
}

/// A text part of a `session.prompt` body.
#[derive(Debug, Serialize)]
pub struct TextPart {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthetic: Option<bool>,
}

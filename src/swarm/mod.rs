//! opencode-swarm's plan, context and agents, read-only (swarm.md): parsing, the plugin's exact
//! markdown, and the structured model behind ctx's human and JSON views.

pub mod config;
pub mod doc;
pub mod evidence;
pub mod extract;
pub mod files;
pub mod five;
pub mod hooks;
pub mod human;
pub mod markdown;
pub mod migrate;
pub mod model;
mod plan_doc;
mod plan_fast;
pub mod plan_json;
pub mod schemas;
pub mod text;
pub mod version;
pub mod zod;

//! What the work cost: the tokens and money of model calls, read from the agents' own records,
//! attributed to frames (subagents rolled into their parents) and grouped for `ctx budget
//! spent`, `ctx frame tree --cost`, `ctx frame show` and the flame graph's `--weight cost`.
//!
//! Data flows: sources ([`opencode_db`], [`claude_transcripts`], [`pi_sessions`],
//! [`codex_rollouts`], …) → [`record::Records`] → [`attribute`] (frames) →
//! [`report`] (the JSON document) → [`render`] (people). A new source only has to produce
//! `Records`.

pub mod attribute;
pub mod claude_transcripts;
pub mod codex_rollouts;
pub mod doc;
pub mod figures;
pub mod jsonl;
pub mod opencode_db;
pub mod pi_sessions;
pub mod price;
pub mod record;
pub mod render;
pub mod report;
pub mod session_files;
pub mod sources;

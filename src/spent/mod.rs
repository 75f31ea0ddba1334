//! What the work cost: the tokens and money of model calls, read from the agents' own records,
//! attributed to frames (subagents rolled into their parents) and grouped for `ctx budget
//! spent`, `ctx frame tree --cost`, `ctx frame show` and the flame graph's `--weight cost`.
//!
//! Data flows: sources ([`opencode_db`], [`sources`], and the session files of the agents that
//! keep one per session, each read by its agent's module through a
//! [`session_files::SessionFormat`]) → [`record::Records`] → [`attribute`] (frames) →
//! [`report`] (the JSON document) → [`render`] (people). A new source only has to produce
//! `Records`. This module names no agent: the caller hands over the agents' formats.

pub mod attribute;
pub mod doc;
pub mod figures;
pub mod jsonl;
pub mod opencode_db;
pub mod price;
pub mod record;
pub mod render;
pub mod report;
pub mod session_files;
pub mod sources;

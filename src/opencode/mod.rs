//! What ctx knows of OpenCode (opencode.md): the session export it reads.

pub mod export;
pub mod id;
pub mod todo;
pub mod turn;

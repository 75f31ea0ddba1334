//! What ctx knows of Claude Code (claude-code.md): its ids as frame ids, its settings file, its
//! transcripts.

pub mod ids;
pub mod settings;
pub mod transcript;

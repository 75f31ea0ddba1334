//! Token budgets: tokenizers, model limits, what a session sends, verdicts and their rendering.
//! Everything here is pure; the directory walk and file reading live in `walk`.

pub mod estimate;
pub mod models;
pub mod swarm_config;
pub mod tokenize;

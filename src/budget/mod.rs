//! Token budgets: tokenizers, model limits, what a session sends, verdicts and their rendering.
//! Everything here is pure; the directory walk and file reading live in `walk`.

pub mod bpe;
pub mod doc;
pub mod estimate;
pub mod flame;
pub mod models;
pub mod render;
pub mod session;
pub mod tokenize;
pub mod tokenizer;
pub mod verdict;
pub mod walk;

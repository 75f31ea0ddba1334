//! The Flame frame tree (flame.md): the state document, ids, transitions, the locked store,
//! renderings and log files.

pub mod auto;
pub mod digest;
pub mod doc;
pub mod flame;
pub mod id;
pub mod import;
pub mod log;
pub mod ops;
pub mod render;
pub mod span;
pub mod stale;
pub mod state;
pub mod store;
pub mod todo;

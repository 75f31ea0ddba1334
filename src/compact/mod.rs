//! What goes back into the model's context (cli.md, `ctx compact`): the `<flame-context>` XML,
//! the completion notice of a finished frame, and message-list injection.
//!
//! The message lists are the shapes the agents' plugin hooks hand over and take back: OpenCode's
//! (`inject`, with its ids in `id`), which Kilo Code shares, and pi's (`fold::pi`). A shape is a
//! format, as a transcript is; what an agent is (its folders, prefixes, events, records) stays in
//! its own module, which this one never names.

pub mod doc;
pub mod fold;
pub mod frame_context;
pub mod id;
pub mod inject;
pub mod notice;
pub mod session;

//! What goes back into the model's context (cli.md, `ctx compact`): the `<flame-context>` XML,
//! the completion notice of a finished frame, and message-list injection.

pub mod doc;
pub mod fold;
pub mod frame_context;
pub mod inject;
pub mod notice;
pub mod session;

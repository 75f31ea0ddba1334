//! Integration tests: the `ctx` binary run on real files in temporary directories.

mod artifacts;
mod common;
mod concurrency;
mod frame;
mod hooks;
mod schema;

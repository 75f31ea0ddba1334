//! Integration tests: the `ctx` binary run on real files in temporary directories.

mod artifacts;
mod common;
mod concurrency;
mod crash;
mod frame;
mod hooks;
mod hostile;
mod paths;
mod schema;
mod snapshot;

//! Integration tests: the `ctx` binary run on real files in temporary directories.

mod artifacts;
mod budget;
mod common;
mod frame;
mod hooks;

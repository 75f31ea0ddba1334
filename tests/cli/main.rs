//! Integration tests: the `ctx` binary run on real files in temporary directories.

mod common;
mod frame;

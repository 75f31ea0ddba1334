//! Integration tests: the `ctx` binary run on real files in temporary directories.

mod artifacts;
mod browser;
mod budget;
mod common;
mod compact;
mod completion;
mod concurrency;
mod config;
mod crash;
mod flame_schema;
mod flamegraph;
mod frame;
mod help;
mod hooks;
mod hostile;
mod install;
mod limits;
mod lock;
mod paths;
mod schema;
mod sessions;
mod snapshot;
mod swarm;
mod swarm5;
mod swarm_plugin;
mod terminal;

//! ctxkit: the library behind the `ctx` command. Pure cores per domain (`frame`, …), a small I/O
//! layer (`project`, `frame::store`), command adapters (`commands`) and one output layer (`output`).

pub mod app;
pub mod budget;
pub mod claude;
pub mod cli;
pub mod codex;
pub mod commands;
pub mod compact;
pub mod complete;
pub mod conversation;
pub mod copilot;
pub mod document;
pub mod error;
pub mod flamegraph;
pub mod frame;
pub mod gemini;
pub mod hooks;
pub mod input;
pub mod install;
pub mod json;
pub mod json_edit;
pub mod kilo;
pub mod opencode;
pub mod output;
pub mod package;
pub mod pi;
pub mod project;
pub mod qwen;
pub mod safe_file;
pub mod schema;
pub mod settings;
pub mod spent;
pub mod swarm;
pub mod text;
pub mod time;
pub mod tools;

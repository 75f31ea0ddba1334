//! Command adapters: each turns parsed arguments into core calls and rendered output.

pub mod budget;
pub mod claude;
pub mod codex;
pub mod compact;
pub mod config;
pub mod copilot;
pub mod frame;
pub mod gemini;
pub mod generate;
pub mod git_hooks;
pub mod kilo;
pub mod opencode;
pub mod pi;
pub mod qwen;
pub mod swarm;

use crate::app::Context;
use crate::cli::{Cli, Command, Deferred};
use crate::error::{ExitCode, Result};
use crate::output::Output;
use crate::project::Project;

/// Whether the command reads a frame tree, which is walked recursively (and so needs a deep
/// stack); swarm views, budgets, settings and completions never do.
pub fn walks_frame_trees(command: &Command) -> bool {
    matches!(
        command,
        Command::Frame(_)
            | Command::Compact(_)
            | Command::Opencode(_)
            | Command::Claude(_)
            | Command::Pi(_)
            | Command::Codex(_)
    )
}

/// What runs `ctx <agent> hook EVENT`: answered before the command line is parsed, and never
/// with a failure, whatever happens (an exit 2 would block the agent's action).
pub type HookMain = fn(&str);

/// The hook entry of `agent`, when its hooks call ctx (Claude Code's, Codex's, Qwen Code's,
/// GitHub Copilot CLI's, Gemini CLI's).
pub fn hook_main(agent: &str) -> Option<HookMain> {
    match agent {
        "claude" => Some(claude::hook_main),
        "codex" => Some(codex::hook_main),
        "qwen" => Some(qwen::hook_main),
        "copilot" => Some(copilot::hook_main),
        "gemini" => Some(gemini::hook_main),
        _ => None,
    }
}

/// Runs the parsed command line; the result's exit code is the process's.
pub fn run(cli: Cli, mut out: Output) -> (Result<ExitCode>, Output) {
    // Commands that do not look at a project must not fail on (or pay for) finding one.
    match &cli.command {
        Command::Completions { shell } => {
            let result = generate::completions(&mut out, *shell);
            return (result.and_then(|code| out.flush().map(|()| code)), out);
        }
        Command::GenerateArtifacts { dir } => {
            let result = generate::write_artifacts(&out, dir);
            return (result, out);
        }
        _ => {}
    }
    let project = match Project::locate(cli.global.root.as_deref()) {
        Ok(project) => project,
        Err(err) => return (Err(err), out),
    };
    let mut ctx = Context::new(
        project,
        out,
        crate::time::now_ms(),
        crate::project::hook_mode(),
    );
    let result = match cli.command {
        Command::Frame(Deferred(command)) => frame::run(&mut ctx, command),
        Command::Swarm(Deferred(command)) => swarm::run(&mut ctx, command),
        Command::Config { key } => config::run(&mut ctx, &cli.global, key.as_deref()),
        Command::Budget(Deferred(command)) => budget::run(&mut ctx, command),
        Command::Compact(Deferred(command)) => compact::run(&mut ctx, command),
        Command::Opencode(Deferred(command)) => opencode::run(&mut ctx, command),
        Command::Claude(Deferred(command)) => claude::run(&mut ctx, command),
        Command::Pi(Deferred(command)) => pi::run(&mut ctx, command),
        Command::Codex(Deferred(command)) => codex::run(&mut ctx, command),
        Command::Kilo(Deferred(command)) => kilo::run(&mut ctx, command),
        Command::Qwen(Deferred(command)) => qwen::run(&mut ctx, command),
        Command::Copilot(Deferred(command)) => copilot::run(&mut ctx, command),
        Command::Gemini(Deferred(command)) => gemini::run(&mut ctx, command),
        Command::Hooks(Deferred(command)) => git_hooks::run(&mut ctx, command),
        Command::Completions { .. } | Command::GenerateArtifacts { .. } => {
            unreachable!("handled before the project is located")
        }
    };
    let result = result.and_then(|code| ctx.out.flush().map(|()| code));
    (result, ctx.out)
}

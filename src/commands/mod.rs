//! Command adapters: each turns parsed arguments into core calls and rendered output.

pub mod frame;
pub mod generate;

use crate::cli::{Cli, Command};
use crate::error::{ExitCode, Result};
use crate::output::Output;
use crate::project::Project;

/// What every command gets: the project, the output, and the one clock reading of this run.
pub struct Context {
    pub project: Project,
    pub out: Output,
    pub now: i64,
}

/// Runs the parsed command line; the result's exit code is the process's.
pub fn run(cli: Cli, out: Output) -> (Result<ExitCode>, Output) {
    let project = match Project::locate(cli.global.root.as_deref()) {
        Ok(project) => project,
        Err(err) => return (Err(err), out),
    };
    let mut ctx = Context {
        project,
        out,
        now: crate::time::now_ms(),
    };
    let result = match cli.command {
        Command::Frame(command) => frame::run(&mut ctx, command),
        Command::Completions { shell } => generate::completions(&mut ctx, shell),
        Command::GenerateArtifacts { dir } => generate::write_artifacts(&mut ctx, &dir),
    };
    let result = result.and_then(|code| ctx.out.flush().map(|()| code));
    (result, ctx.out)
}

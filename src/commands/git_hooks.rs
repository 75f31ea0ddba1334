//! `ctx hooks …`: ctx's git hooks in the repository's hooks folder.

use super::Context;
use crate::cli::opencode::HooksCommand;
use crate::error::{ExitCode, Result};

pub fn run(ctx: &mut Context, command: HooksCommand) -> Result<ExitCode> {
    let HooksCommand::Install { options } = command;
    crate::app::install::git_hooks(ctx, &options)
}

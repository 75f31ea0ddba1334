//! `ctx hooks …`: ctx's git hooks in the repository's hooks folder.

use crate::app::Context;
use crate::cli::opencode::HooksCommand;
use crate::error::{ExitCode, Result};

pub fn run(ctx: &mut Context, command: HooksCommand) -> Result<ExitCode> {
    let HooksCommand::Install { options } = command;
    let options = crate::app::install::InstallOptions {
        force: options.force,
        dry_run: options.dry_run,
    };
    crate::app::install::git_hooks(ctx, &options)
}

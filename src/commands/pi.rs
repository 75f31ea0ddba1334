//! `ctx pi …`: ctx's extension for pi, and the message fold it calls before every model call.

use super::Context;
use crate::cli::pi::PiCommand;
use crate::error::{ExitCode, Result};

pub fn run(ctx: &mut Context, command: PiCommand) -> Result<ExitCode> {
    match command {
        PiCommand::Install {
            global,
            remove,
            options,
        } => super::install::pi(ctx, global, remove, &options),
        PiCommand::Messages { session } => super::fold::run_pi(ctx, &session),
    }
}

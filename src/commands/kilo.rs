//! `ctx kilo …`: ctx's OpenCode plugin and commands where Kilo Code loads them. Everything the
//! plugin calls afterwards is `ctx opencode …`: Kilo's sessions are OpenCode's.

use crate::app::Context;
use crate::cli::kilo::KiloCommand;
use crate::error::{ExitCode, Result};

pub fn run(ctx: &mut Context, command: KiloCommand) -> Result<ExitCode> {
    match command {
        KiloCommand::Install {
            global,
            remove,
            options,
        } => {
            let options = crate::app::install::InstallOptions {
                force: options.force,
                dry_run: options.dry_run,
            };
            crate::app::install::agent(ctx, &crate::app::install::KILO, global, remove, &options)
        }
    }
}

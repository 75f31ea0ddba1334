//! `ctx codex …`: Flame for Codex CLI through its hooks (agents.md, "Codex CLI"). `install`
//! merges ctx's hooks into a `hooks.json`; `hook EVENT` answers one hook call.
//!
//! Frames: a thread's frame is `cx_<thread id>`, a session's and a `spawn_agent` subagent's
//! alike (see `crate::codex`), so the model's own `ctx frame push --session "cx_$CODEX_THREAD_ID"`
//! acts on its thread's frame.

mod hook;

use std::path::PathBuf;

use crate::app::Context;
use crate::app::install::{self as app_install, AgentHooks};
use crate::cli::codex::CodexCommand;
use crate::codex::hooks;
use crate::error::{Error, ExitCode, Result};

pub use hook::hook_main;

pub fn run(ctx: &mut Context, command: CodexCommand) -> Result<ExitCode> {
    match command {
        CodexCommand::Install {
            global,
            remove,
            dry_run,
        } => install_hooks(ctx, global, remove, dry_run),
        CodexCommand::Hook { event } => {
            hook::run(Ok(ctx.project.root.clone()), &event);
            Ok(ExitCode::Success)
        }
    }
}

fn user_codex_dir() -> Result<PathBuf> {
    if let Some(missing) = crate::codex::missing_home() {
        return Err(Error::failure(format!(
            "CODEX_HOME points to {}, which is not a folder; Codex refuses such a CODEX_HOME, so \
             ctx installs nothing there",
            missing.display()
        ))
        .with_hint("create the folder (mkdir -p), or set CODEX_HOME to Codex's folder"));
    }
    crate::codex::home_dir().ok_or_else(|| {
        Error::failure("neither CODEX_HOME nor HOME is set: there is no ~/.codex/ to install into")
    })
}

fn install_hooks(ctx: &mut Context, global: bool, remove: bool, dry_run: bool) -> Result<ExitCode> {
    let dir = if global {
        user_codex_dir()?
    } else {
        ctx.project.root.join(crate::codex::PROJECT_DIR)
    };
    let agent = AgentHooks {
        path: dir.join("hooks.json"),
        dir,
        hooks: &hooks::HOOKS,
        comments_hint: "remove the comments (Codex reads plain JSON), then install again",
        files: &[],
        command: "ctx codex install",
    };
    app_install::hooks_file(ctx, &agent, "ctx codex hook", remove, dry_run)
}

//! `ctx qwen …`: Flame for Qwen Code through its hooks (kilo-gemini-qwen-copilot.md §3).
//! `install` merges ctx's hooks into a `settings.json`; `hook EVENT` answers one hook call.
//!
//! Frames: a session's frame is `qw_<session id>` and a subagent's `qw_<agent id>` (see
//! `crate::qwen`), so the model's own `ctx frame push --session
//! "qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}"` acts on its own frame.

mod hook;

use std::path::PathBuf;

use crate::app::Context;
use crate::app::install::{self as app_install, AgentHooks};
use crate::cli::qwen::QwenCommand;
use crate::error::{Error, ExitCode, Result};
use crate::qwen::hooks;

pub use hook::hook_main;

pub fn run(ctx: &mut Context, command: QwenCommand) -> Result<ExitCode> {
    match command {
        QwenCommand::Install {
            global,
            remove,
            dry_run,
        } => install_hooks(ctx, global, remove, dry_run),
        QwenCommand::Hook { event } => {
            hook::run(Ok(ctx.project.root.clone()), &event);
            Ok(ExitCode::Success)
        }
    }
}

fn user_qwen_dir() -> Result<PathBuf> {
    crate::qwen::home_dir().ok_or_else(|| {
        Error::failure("neither QWEN_HOME nor HOME is set: there is no ~/.qwen/ to install into")
    })
}

fn install_hooks(ctx: &mut Context, global: bool, remove: bool, dry_run: bool) -> Result<ExitCode> {
    let dir = if global {
        user_qwen_dir()?
    } else {
        ctx.project.root.join(crate::qwen::PROJECT_DIR)
    };
    let agent = AgentHooks {
        path: dir.join("settings.json"),
        dir,
        hooks: &hooks::HOOKS,
        comments_hint: "remove the comments (Qwen Code reads the file the same without them; ctx \
                        edits only plain JSON), then install again",
        files: &[],
        command: "ctx qwen install",
    };
    app_install::hooks_file(ctx, &agent, "ctx qwen hook", remove, dry_run)
}

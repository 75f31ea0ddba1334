//! `ctx gemini …`: Flame for Gemini CLI through its hooks (kilo-gemini-qwen-copilot.md §2).
//! `install` merges ctx's hooks into a `settings.json`; `hook EVENT` answers one hook call.
//!
//! Frames: a session's frame is `gm_<session id>`, and a subagent's `gma_<n>`, made from its
//! `invoke_agent` call (see `crate::gemini`); the model is told the commands that name its frame.

mod hook;

use std::path::PathBuf;

use crate::app::Context;
use crate::app::install::{self as app_install, AgentHooks};
use crate::cli::gemini::GeminiCommand;
use crate::error::{Error, ExitCode, Result};
use crate::gemini::hooks;

pub use hook::hook_main;

/// What a project install says of trust: Gemini CLI runs a project's hooks only in a folder the
/// person trusts, and names them once before their first run.
const TRUST_NOTE: &str = "note: Gemini CLI runs a project's hooks only in a folder you trust: \
answer its question on its first start here, or run `gemini --skip-trust` (or set \
GEMINI_CLI_TRUST_WORKSPACE=true) for a headless run; it lists the hooks once, on their first run. \
`ctx gemini install --global` installs hooks that run in every folder";

pub fn run(ctx: &mut Context, command: GeminiCommand) -> Result<ExitCode> {
    match command {
        GeminiCommand::Install {
            global,
            remove,
            dry_run,
        } => install_hooks(ctx, global, remove, dry_run),
        GeminiCommand::Hook { event } => {
            hook::run(Ok(ctx.project.root.clone()), &event);
            Ok(ExitCode::Success)
        }
    }
}

fn user_gemini_dir() -> Result<PathBuf> {
    crate::gemini::home_dir().ok_or_else(|| {
        Error::failure(
            "neither GEMINI_CLI_HOME nor HOME is set: there is no ~/.gemini/ to install into",
        )
    })
}

fn install_hooks(ctx: &mut Context, global: bool, remove: bool, dry_run: bool) -> Result<ExitCode> {
    let dir = if global {
        user_gemini_dir()?
    } else {
        ctx.project.root.join(crate::gemini::PROJECT_DIR)
    };
    let agent = AgentHooks {
        path: dir.join("settings.json"),
        dir,
        hooks: &hooks::HOOKS,
        comments_hint: "remove the comments (Gemini CLI reads the file the same without them; ctx \
                        edits only plain JSON), then install again",
        files: &[],
        command: "ctx gemini install",
    };
    let code = app_install::hooks_file(ctx, &agent, "ctx gemini hook", remove, dry_run)?;
    if !global && !remove && !ctx.out.json {
        ctx.out.note(TRUST_NOTE);
    }
    Ok(code)
}

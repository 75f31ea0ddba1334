//! `ctx copilot …`: Flame for GitHub Copilot CLI through its hooks (kilo-gemini-qwen-copilot.md
//! §4). `install` writes ctx's hooks file; `hook EVENT` answers one hook call.
//!
//! Frames: a session's frame is `cp_<session id>` and a subagent's `cp_<agent id>` (see
//! `crate::copilot`), so the main agent's own `ctx frame push --session
//! "cp_$COPILOT_AGENT_SESSION_ID"` acts on its frame, and a subagent is told its frame's id.

mod hook;

use std::path::PathBuf;

use crate::app::Context;
use crate::app::install::{self as app_install, AgentHooks};
use crate::cli::copilot::CopilotCommand;
use crate::copilot::hooks;
use crate::error::{Error, ExitCode, Result};

pub use hook::hook_main;

/// What a project install says of trust: Copilot runs a repository's hooks only in a folder the
/// person trusts.
const TRUST_NOTE: &str = "note: Copilot runs a repository's hooks only in a folder you trust: \
answer yes when Copilot asks on its start here, or run `copilot --trust-folder -p PROMPT`; \
`ctx copilot install --global` installs hooks that run in every folder";

pub fn run(ctx: &mut Context, command: CopilotCommand) -> Result<ExitCode> {
    match command {
        CopilotCommand::Install {
            global,
            remove,
            dry_run,
        } => install_hooks(ctx, global, remove, dry_run),
        CopilotCommand::Hook { event } => {
            hook::run(Ok(ctx.project.root.clone()), &event);
            Ok(ExitCode::Success)
        }
    }
}

fn user_hooks_dir() -> Result<PathBuf> {
    crate::copilot::home_dir()
        .map(|home| home.join("hooks"))
        .ok_or_else(|| {
            Error::failure(
                "neither COPILOT_HOME nor HOME is set: there is no ~/.copilot/ to install into",
            )
        })
}

fn install_hooks(ctx: &mut Context, global: bool, remove: bool, dry_run: bool) -> Result<ExitCode> {
    // The folder an install may create and `--remove` take away again when it left it empty:
    // the project's `.github/` (which holds `hooks/`), or the user's `hooks/`.
    let (dir, hooks_dir) = if global {
        let hooks_dir = user_hooks_dir()?;
        (hooks_dir.clone(), hooks_dir)
    } else {
        let hooks_dir = ctx.project.root.join(crate::copilot::PROJECT_DIR);
        let github = hooks_dir
            .parent()
            .expect("a folder below the root")
            .to_path_buf();
        (github, hooks_dir)
    };
    let agent = AgentHooks {
        path: hooks_dir.join(crate::copilot::HOOKS_FILE),
        dir,
        hooks: &hooks::HOOKS,
        comments_hint: "remove the comments (ctx edits only plain JSON), then install again",
        files: &[],
        command: "ctx copilot install",
    };
    let code = app_install::hooks_file(ctx, &agent, "ctx copilot hook", remove, dry_run)?;
    if !global && !remove && !ctx.out.json {
        ctx.out.note(TRUST_NOTE);
    }
    Ok(code)
}

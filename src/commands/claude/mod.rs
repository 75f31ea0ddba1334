//! `ctx claude …`: Flame for Claude Code through its hooks (claude-code.md). `install` merges
//! ctx's hooks into a settings file; `hook EVENT` answers one hook call.
//!
//! Frames: a session's frame is `cc_<session id>` (its key in `sessionFrames` too, which is what
//! `CTX_SESSION` names for the model's own `ctx frame` calls), a subagent's `cca_<agent id>`, a
//! child of its session's current frame (see `crate::claude::ids`).

mod hook;
mod session_end;

use std::path::PathBuf;

use crate::app::Context;
use crate::app::install::{self as app_install, AgentHooks};
use crate::claude::settings;
use crate::cli::claude::ClaudeCommand;
use crate::error::{Error, ExitCode, Result};
use crate::hooks::settings as hook_settings;
use crate::install::{self, Action};

pub use hook::hook_main;

pub fn run(ctx: &mut Context, command: ClaudeCommand) -> Result<ExitCode> {
    match command {
        ClaudeCommand::Install {
            global,
            remove,
            force,
            dry_run,
        } => install_hooks(ctx, global, remove, force, dry_run),
        ClaudeCommand::Hook { event } => {
            hook::run(Ok(ctx.project.root.clone()), &event);
            Ok(ExitCode::Success)
        }
    }
}

// ---- install ------------------------------------------------------------------------------------

fn user_claude_dir() -> Result<PathBuf> {
    crate::claude::config_dir().ok_or_else(|| {
        Error::failure(
            "neither CLAUDE_CONFIG_DIR nor HOME is set: there is no ~/.claude/ to install into",
        )
    })
}

fn install_hooks(
    ctx: &mut Context,
    global: bool,
    remove: bool,
    force: bool,
    dry_run: bool,
) -> Result<ExitCode> {
    let dir = if global {
        user_claude_dir()?
    } else {
        ctx.project.root.join(crate::claude::PROJECT_DIR)
    };
    let command = match (global, remove) {
        (false, false) => "ctx claude install",
        (true, false) => "ctx claude install --global",
        (_, true) => "ctx claude install --remove",
    };
    let agent = AgentHooks {
        path: dir.join("settings.json"),
        dir,
        hooks: &settings::HOOKS,
        comments_hint: "remove the comments (Claude Code reads plain JSON), or add the hooks by \
                        hand: `ctx claude install --dry-run` shows them",
        files: install::CLAUDE_FILES,
        command,
    };
    let installed = app_install::agent_hooks(&agent, remove, force, dry_run)?;
    let path = &agent.path;
    if ctx.out.json {
        let merged = &installed.merged;
        ctx.out.json_doc(&install::ClaudeInstallDoc {
            version: crate::document::Version,
            settings: path.display().to_string(),
            dry_run,
            remove,
            settings_changed: merged.text.is_some(),
            settings_removed: installed.saved.deleted,
            added: hook_settings::events(&merged.added),
            removed: hook_settings::events(&merged.removed),
            files: installed.files.iter().map(app_install::file_doc).collect(),
            folders_removed: app_install::paths(&installed.saved.folders),
        })?;
    } else {
        app_install::print_agent_hooks(ctx, path, &installed, "ctx claude hook", remove, dry_run)?;
    }
    if installed.files.iter().any(|o| o.action == Action::Kept) {
        return Err(Error::failure(
            "some slash commands were changed since ctx wrote them and were kept",
        )
        .with_hint(if remove {
            "delete them by hand if you no longer want them"
        } else {
            "compare them with what ctx writes, then pass --force to replace them"
        }));
    }
    Ok(ExitCode::Success)
}

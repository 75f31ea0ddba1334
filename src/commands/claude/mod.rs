//! `ctx claude …`: Flame for Claude Code through its hooks (claude-code.md). `install` merges
//! ctx's hooks into a settings file; `hook EVENT` answers one hook call.
//!
//! Frames: a session's frame is `cc_<session id>` (its key in `sessionFrames` too, which is what
//! `CTX_SESSION` names for the model's own `ctx frame` calls), a subagent's `cca_<agent id>`, a
//! child of its session's current frame (see `crate::claude::ids`).

mod hook;
mod session_end;

use std::path::{Path, PathBuf};

use super::Context;
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
        ctx.project.root.join(".claude")
    };
    let path = dir.join("settings.json");
    let target = install::settings_target(&path)?;
    let existing = install::read_settings(&path, &target)?;
    let merged = settings::merge(existing.as_deref(), remove).map_err(|refusal| {
        refusal.into_error(
            &path,
            "remove the comments (Claude Code reads plain JSON), or add the hooks by hand: \
             `ctx claude install --dry-run` shows them",
        )
    })?;
    let command = match (global, remove) {
        (false, false) => "ctx claude install",
        (true, false) => "ctx claude install --global",
        (_, true) => "ctx claude install --remove",
    };
    // The slash commands first: a refusal there leaves the settings untouched too.
    let files = if remove {
        install::uninstall(&dir, install::CLAUDE_FILES, dry_run)?
    } else {
        install::install(&dir, install::CLAUDE_FILES, command, force, dry_run)?
    };
    let saved = install::save_settings(
        &dir,
        &path,
        &target,
        existing.as_deref(),
        &merged,
        &files,
        dry_run,
    )?;
    let kept = files.iter().any(|o| o.action == Action::Kept);
    if ctx.out.json {
        let events = |changes: &[settings::Change]| -> Vec<String> {
            changes.iter().map(|c| c.event.clone()).collect()
        };
        ctx.out.json_doc(&install::ClaudeInstallDoc {
            version: crate::document::Version,
            settings: path.display().to_string(),
            dry_run,
            remove,
            settings_changed: merged.text.is_some(),
            settings_removed: saved.deleted,
            added: events(&merged.added),
            removed: events(&merged.removed),
            files: files
                .iter()
                .map(|o| install::InstalledFile {
                    path: o.path.display().to_string(),
                    action: o.action,
                })
                .collect(),
            folders_removed: saved
                .folders
                .iter()
                .map(|f| f.display().to_string())
                .collect(),
        })?;
    } else {
        report_install(ctx, &path, &merged, &files, remove, saved.deleted, dry_run)?;
        let base = std::env::current_dir().unwrap_or_default();
        for folder in &saved.folders {
            ctx.out
                .line(&install::folder_line(folder, &base, dry_run))?;
        }
    }
    if kept {
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

/// The lines `ctx claude install` prints: the settings file's change, then one per command file.
fn report_install(
    ctx: &mut Context,
    path: &Path,
    merged: &settings::Merged,
    files: &[install::Outcome],
    remove: bool,
    deleted: bool,
    dry_run: bool,
) -> Result<()> {
    let base = std::env::current_dir().unwrap_or_default();
    let label = "ctx claude hook";
    for line in hook_settings::report(path, &base, merged, remove, dry_run, deleted, label) {
        ctx.out.line(&line)?;
    }
    for outcome in files {
        ctx.out
            .line(&install::report_line(outcome, &base, dry_run))?;
    }
    Ok(())
}

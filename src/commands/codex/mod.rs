//! `ctx codex …`: Flame for Codex CLI through its hooks (agents.md, "Codex CLI"). `install`
//! merges ctx's hooks into a `hooks.json`; `hook EVENT` answers one hook call.
//!
//! Frames: a thread's frame is `cx_<thread id>`, a session's and a `spawn_agent` subagent's
//! alike (see `crate::codex`), so the model's own `ctx frame push --session "cx_$CODEX_THREAD_ID"`
//! acts on its thread's frame.

mod hook;

use std::path::PathBuf;

use super::Context;
use crate::cli::codex::CodexCommand;
use crate::codex::hooks;
use crate::error::{Error, ExitCode, Result};
use crate::hooks::settings as hook_settings;
use crate::install;

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
    crate::codex::home_dir().ok_or_else(|| {
        Error::failure("neither CODEX_HOME nor HOME is set: there is no ~/.codex/ to install into")
    })
}

fn install_hooks(ctx: &mut Context, global: bool, remove: bool, dry_run: bool) -> Result<ExitCode> {
    let dir = if global {
        user_codex_dir()?
    } else {
        ctx.project.root.join(".codex")
    };
    let path = dir.join("hooks.json");
    let target = install::settings_target(&path)?;
    let existing = install::read_settings(&path, &target)?;
    let merged =
        hook_settings::merge(&hooks::HOOKS, existing.as_deref(), remove).map_err(|refusal| {
            refusal.into_error(
                &path,
                "remove the comments (Codex reads plain JSON), then install again",
            )
        })?;
    let saved = install::save_settings(
        &dir,
        &path,
        &target,
        existing.as_deref(),
        &merged,
        &[],
        dry_run,
    )?;
    if ctx.out.json {
        let events = |changes: &[hook_settings::Change]| -> Vec<String> {
            changes.iter().map(|c| c.event.clone()).collect()
        };
        ctx.out.json_doc(&install::CodexInstallDoc {
            version: crate::document::Version,
            hooks: path.display().to_string(),
            dry_run,
            remove,
            hooks_changed: merged.text.is_some(),
            hooks_removed: saved.deleted,
            added: events(&merged.added),
            removed: events(&merged.removed),
            folders_removed: saved
                .folders
                .iter()
                .map(|f| f.display().to_string())
                .collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    let base = std::env::current_dir().unwrap_or_default();
    let label = "ctx codex hook";
    let lines = hook_settings::report(&path, &base, &merged, remove, dry_run, saved.deleted, label);
    for line in lines {
        ctx.out.line(&line)?;
    }
    for folder in &saved.folders {
        ctx.out
            .line(&install::folder_line(folder, &base, dry_run))?;
    }
    Ok(ExitCode::Success)
}

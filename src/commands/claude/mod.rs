//! `ctx claude …`: Flame for Claude Code through its hooks (claude-code.md). `install` merges
//! ctx's hooks into a settings file; `hook EVENT` answers one hook call.
//!
//! Frames: a session's frame is `cc_<session id>` (its key in `sessionFrames` too, which is what
//! `CTX_SESSION` names for the model's own `ctx frame` calls), a subagent's `cca_<agent id>`, a
//! child of its session's current frame (see `crate::claude::ids`).

mod hook;
mod session_end;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::Context;
use crate::claude::settings;
use crate::cli::claude::ClaudeCommand;
use crate::error::{Error, ExitCode, Result};
use crate::frame::store;
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

/// Where the settings text is written: the file itself, or the file a symbolic link points to
/// (the link stays, as an editor saving through it would keep it). A dangling link and a
/// read-only file are refused.
fn write_target(path: &Path) -> Result<PathBuf> {
    install::check_destination(path)?;
    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::read_link(path).map_err(|e| Error::io(path, "read", &e))?;
            let target = path.parent().unwrap_or(Path::new(".")).join(target);
            match std::fs::metadata(&target) {
                Ok(meta) if !meta.is_file() => {
                    return Err(Error::failure(format!(
                        "{}: links to {}, which is not a regular file",
                        path.display(),
                        target.display()
                    )));
                }
                _ => target,
            }
        }
        Ok(meta) if !meta.is_file() => {
            return Err(Error::failure(format!(
                "{}: is not a regular file",
                path.display()
            )));
        }
        _ => path.to_path_buf(),
    };
    install::check_writable(&target)?;
    Ok(target)
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
    let target = write_target(&path)?;
    let existing = match std::fs::read(&target) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
            Error::failure(format!(
                "{}: not UTF-8 text; nothing was changed",
                path.display()
            ))
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(&target, "read", &e)),
    };
    let merged = settings::merge(existing.as_deref(), remove).map_err(|refusal| {
        Error::failure(format!(
            "{}: {}; nothing was changed",
            path.display(),
            refusal.0
        ))
        .with_hint(if refusal.0.contains("comments") {
            "remove the comments (Claude Code reads plain JSON), or add the hooks by hand: \
             `ctx claude install --dry-run` shows them"
        } else {
            "fix the file, or move it aside, then install again"
        })
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
    if let Some(text) = merged.text.as_deref().filter(|_| !dry_run) {
        write_settings(&target, text)?;
    }
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
            added: events(&merged.added),
            removed: events(&merged.removed),
            files: files
                .iter()
                .map(|o| install::InstalledFile {
                    path: o.path.display().to_string(),
                    action: o.action,
                })
                .collect(),
        })?;
    } else {
        report_install(ctx, &path, &merged, &files, remove, dry_run)?;
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
    dry_run: bool,
) -> Result<()> {
    let base = std::env::current_dir().unwrap_or_default();
    let shown = path
        .strip_prefix(&base)
        .unwrap_or(path)
        .display()
        .to_string();
    if merged.text.is_none() {
        let what = if remove {
            "no hooks of ctx's"
        } else {
            "ctx's hooks are up to date"
        };
        ctx.out.line(&format!("{shown}: {what}"))?;
    } else {
        let (sign, verb, changes) = match (remove, dry_run) {
            (true, false) => ("-", "removed", &merged.removed),
            (true, true) => ("-", "would be removed", &merged.removed),
            (false, false) => ("+", "added", &merged.added),
            (false, true) => ("+", "would be added", &merged.added),
        };
        let replaced = match merged.removed.len() {
            _ if remove => String::new(),
            0 => String::new(),
            1 => ", 1 earlier one replaced".to_string(),
            n => format!(", {n} earlier ones replaced"),
        };
        let hooks = if changes.len() == 1 { "hook" } else { "hooks" };
        ctx.out.line(&format!(
            "{shown}: {} {hooks} {verb}{replaced}",
            changes.len()
        ))?;
        for change in changes {
            ctx.out
                .line(&format!("  {sign} {}: ctx claude hook", change.event))?;
        }
    }
    for outcome in files {
        ctx.out
            .line(&install::report_line(outcome, &base, dry_run))?;
    }
    Ok(())
}

fn write_settings(target: &Path, text: &str) -> Result<()> {
    let parent = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, "create the directory", &e))?;
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("settings.json")
        .to_string();
    let mode = store::existing_mode(target);
    store::write_atomically(parent, target, mode, &name, |out| {
        out.write_all(text.as_bytes())
    })
}

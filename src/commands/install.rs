//! `ctx opencode install` and `ctx hooks install`: the files built into ctx, written where
//! OpenCode and git look for them.

use std::path::{Path, PathBuf};

use super::Context;
use crate::cli::opencode::{HooksCommand, InstallOptions};
use crate::document::Version;
use crate::error::{Error, ExitCode, Result};
use crate::install::{self, Action, Embedded, InstallDoc, InstalledFile, Outcome};

pub fn opencode(ctx: &mut Context, global: bool, options: &InstallOptions) -> Result<ExitCode> {
    let dir = if global {
        user_opencode_dir()?
    } else {
        ctx.project.root.join(".opencode")
    };
    let command = if global {
        "ctx opencode install --global"
    } else {
        "ctx opencode install"
    };
    run(ctx, &dir, install::OPENCODE_FILES, command, options)
}

pub fn hooks(ctx: &mut Context, command: HooksCommand) -> Result<ExitCode> {
    let HooksCommand::Install { options } = command;
    let dir = git_hooks_dir(&ctx.project.root)?;
    run(ctx, &dir, install::GIT_HOOKS, "ctx hooks install", &options)
}

fn run(
    ctx: &mut Context,
    dir: &Path,
    files: &[Embedded],
    command: &str,
    options: &InstallOptions,
) -> Result<ExitCode> {
    let outcomes = install::install(dir, files, command, options.force, options.dry_run)?;
    let kept = outcomes.iter().any(|o| o.action == Action::Kept);
    if ctx.out.json {
        ctx.out.json_doc(&InstallDoc {
            version: Version,
            dir: dir.display().to_string(),
            dry_run: options.dry_run,
            files: outcomes.iter().map(file_doc).collect(),
        })?;
    } else {
        let base = std::env::current_dir().unwrap_or_default();
        for outcome in &outcomes {
            ctx.out
                .line(&install::report_line(outcome, &base, options.dry_run))?;
        }
    }
    if kept {
        return Err(
            Error::failure("some files were changed since ctx wrote them and were kept")
                .with_hint("compare them with what ctx writes, then pass --force to replace them"),
        );
    }
    Ok(ExitCode::Success)
}

fn file_doc(outcome: &Outcome) -> InstalledFile {
    InstalledFile {
        path: outcome.path.display().to_string(),
        action: outcome.action,
    }
}

/// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`, as OpenCode looks for its global files.
fn user_opencode_dir() -> Result<PathBuf> {
    if let Some(config) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(config).join("opencode"));
    }
    let home = crate::project::home_dir().ok_or_else(|| {
        Error::failure("cannot find the user's OpenCode folder: XDG_CONFIG_HOME is not set, and HOME is not an absolute path")
    })?;
    Ok(home.join(".config/opencode"))
}

/// The hooks folder git uses for the repository at `root` (core.hooksPath, worktrees and
/// `.git` files included), as `git rev-parse --git-path hooks` names it.
fn git_hooks_dir(root: &Path) -> Result<PathBuf> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--git-path", "hooks"])
        .current_dir(root)
        .output()
        .map_err(|e| {
            Error::failure(format!("cannot run git: {}", crate::error::describe_io(&e)))
        })?;
    if !out.status.success() {
        return Err(
            Error::failure(format!("{}: not in a git repository", root.display()))
                .with_hint("run it in a repository, or pass -C DIR"),
        );
    }
    let path = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
    Ok(root.join(path))
}

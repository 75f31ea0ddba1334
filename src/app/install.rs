//! `ctx opencode install`, `ctx kilo install`, `ctx pi install` and `ctx hooks install`: the files
//! built into ctx, written where OpenCode, Kilo Code, pi and git look for them (and, `--remove`,
//! taken out again); and `ctx claude install` and `ctx codex install`: ctx's hooks merged into
//! the agent's hooks file.

use std::path::{Path, PathBuf};

use super::Context;
use crate::document::Version;
use crate::error::{Error, ExitCode, Result};
use crate::hooks::settings::{self as hook_settings, HookSet, Merged};
use crate::install::{self, Action, Embedded, InstallDoc, InstalledFile, Outcome, Saved};

/// `ctx codex install` and `ctx qwen install`: ctx's hooks merged into (or, `remove`, taken out
/// of) an agent's hooks file that holds nothing else of ctx's, reported to people or as the
/// hooks-file `--json` document. `hook` names the hook command in the report.
pub fn hooks_file(
    ctx: &mut Context,
    agent: &AgentHooks<'_>,
    hook: &str,
    remove: bool,
    dry_run: bool,
) -> Result<ExitCode> {
    let installed = agent_hooks(agent, remove, false, dry_run)?;
    let path = &agent.path;
    if !ctx.out.json {
        print_agent_hooks(ctx, path, &installed, hook, remove, dry_run)?;
        return Ok(ExitCode::Success);
    }
    let merged = &installed.merged;
    ctx.out.json_doc(&install::CodexInstallDoc {
        version: Version,
        hooks: path.display().to_string(),
        dry_run,
        remove,
        hooks_changed: merged.text.is_some(),
        hooks_removed: installed.saved.deleted,
        added: hook_settings::events(&merged.added),
        removed: hook_settings::events(&merged.removed),
        folders_removed: paths(&installed.saved.folders),
    })?;
    Ok(ExitCode::Success)
}

/// What every install of built-in files takes, as the adapter read it from the command line.
#[derive(Debug, Clone, Copy)]
pub struct InstallOptions {
    /// Replace files that were changed since ctx wrote them.
    pub force: bool,
    /// Say what would be written, and write nothing.
    pub dry_run: bool,
}

/// An agent's hooks file (Claude Code's `settings.json`, Codex's `hooks.json`) and what an install
/// writes beside it.
pub struct AgentHooks<'a> {
    /// The agent's folder, the file's and the `files`' base.
    pub dir: PathBuf,
    pub path: PathBuf,
    pub hooks: &'static HookSet,
    /// What to do when the file has comments, which the agent does not read.
    pub comments_hint: &'a str,
    /// The files written beside the hooks file (Claude Code's slash commands), stamped with
    /// `command`.
    pub files: &'a [Embedded],
    pub command: &'a str,
}

/// What an agent's hooks install did: the merge, the files beside it, and the save.
pub struct HooksInstalled {
    pub merged: Merged,
    pub files: Vec<Outcome>,
    pub saved: Saved,
}

/// Merges ctx's hooks into (`remove`: out of) the agent's hooks file and installs (removes) the
/// files beside it; with `dry_run` only says what it would do. A file that cannot be merged
/// changes nothing.
pub fn agent_hooks(
    agent: &AgentHooks,
    remove: bool,
    force: bool,
    dry_run: bool,
) -> Result<HooksInstalled> {
    let path = &agent.path;
    let target = install::settings_target(path)?;
    let beside = paths_below(&agent.dir, agent.files);
    let _lock = locked(
        &agent.dir,
        dry_run,
        beside
            .iter()
            .map(PathBuf::as_path)
            .chain([target.as_path()]),
    )?;
    let existing = install::read_settings(path, &target)?;
    let merged = hook_settings::merge(agent.hooks, existing.as_deref(), remove)
        .map_err(|refusal| refusal.into_error(path, agent.comments_hint))?;
    // The files first: a refusal there leaves the hooks file untouched too.
    let files = if remove {
        install::uninstall(&agent.dir, agent.files, dry_run)?
    } else {
        install::install(&agent.dir, agent.files, agent.command, force, dry_run)?
    };
    let saved = install::save_settings(
        &agent.dir,
        path,
        &target,
        existing.as_deref(),
        &merged,
        &files,
        dry_run,
    )?;
    Ok(HooksInstalled {
        merged,
        files,
        saved,
    })
}

/// The lines a hooks install prints: the hooks file's change (its entries naming `label`, the
/// command they run), one line per file beside it, then the folders `--remove` left empty.
pub fn print_agent_hooks(
    ctx: &mut Context,
    path: &Path,
    installed: &HooksInstalled,
    label: &str,
    remove: bool,
    dry_run: bool,
) -> Result<()> {
    let base = std::env::current_dir().unwrap_or_default();
    let saved = &installed.saved;
    let merged = &installed.merged;
    for line in hook_settings::report(path, &base, merged, remove, dry_run, saved.deleted, label) {
        ctx.out.line(&line)?;
    }
    for outcome in &installed.files {
        ctx.out
            .line(&install::report_line(outcome, &base, dry_run))?;
    }
    for folder in &saved.folders {
        ctx.out
            .line(&install::folder_line(folder, &base, dry_run))?;
    }
    Ok(())
}

/// An agent whose ctx files are plain files in a folder of its own: where they go, and what.
pub struct FileAgent {
    /// The folder below the project's root.
    project_dir: &'static str,
    /// The user's folder, for `--global`; `None` when it cannot be found.
    user_dir: fn() -> Option<PathBuf>,
    /// Why, when `user_dir` is `None`.
    no_user_dir: &'static str,
    files: &'static [Embedded],
    /// The command that writes them, as their stamp says.
    command: &'static str,
}

/// OpenCode: `.opencode/`, or `$XDG_CONFIG_HOME/opencode` (default `~/.config/opencode`), as
/// OpenCode looks for its global files.
pub const OPENCODE: FileAgent = FileAgent {
    project_dir: crate::opencode::PROJECT_DIR,
    user_dir: crate::opencode::user_dir,
    no_user_dir: "cannot find the user's OpenCode folder: XDG_CONFIG_HOME is not set, and HOME is not an absolute path",
    files: install::OPENCODE_FILES,
    command: "ctx opencode install",
};

/// Kilo Code loads OpenCode's plugins and commands from its own folders: the same files go
/// there.
pub const KILO: FileAgent = FileAgent {
    project_dir: crate::kilo::PROJECT_DIR,
    user_dir: crate::kilo::user_dir,
    no_user_dir: "cannot find the user's Kilo folder: XDG_CONFIG_HOME is not set, and HOME is not an absolute path",
    files: install::OPENCODE_FILES,
    command: "ctx kilo install",
};

/// pi: `.pi/`, or pi's agent folder, where it finds global extensions (`crate::pi::agent_dir`).
pub const PI: FileAgent = FileAgent {
    project_dir: crate::pi::PROJECT_DIR,
    user_dir: crate::pi::agent_dir,
    no_user_dir: "cannot find pi's agent folder: PI_CODING_AGENT_DIR is not set (or starts with ~), \
                  and HOME is not an absolute path",
    files: install::PI_FILES,
    command: "ctx pi install",
};

/// `ctx opencode install`, `ctx kilo install`, `ctx pi install`: `agent`'s files into the
/// project's folder (`global`: the user's), or out of it (`remove`).
pub fn agent(
    ctx: &mut Context,
    agent: &FileAgent,
    global: bool,
    remove: bool,
    options: &InstallOptions,
) -> Result<ExitCode> {
    let dir = if global {
        (agent.user_dir)().ok_or_else(|| Error::failure(agent.no_user_dir))?
    } else {
        ctx.project.root.join(agent.project_dir)
    };
    agent_files(
        ctx,
        &dir,
        agent.files,
        agent.command,
        global,
        remove,
        options,
    )
}

/// Installs an agent's `files` into `dir`, stamped with the `command` that wrote them, or removes
/// them (`remove`).
fn agent_files(
    ctx: &mut Context,
    dir: &Path,
    files: &[Embedded],
    command: &str,
    global: bool,
    remove: bool,
    options: &InstallOptions,
) -> Result<ExitCode> {
    if remove {
        return uninstall(ctx, dir, files, options);
    }
    let command = if global {
        format!("{command} --global")
    } else {
        command.to_string()
    };
    run(ctx, dir, files, &command, options)
}

/// The install lock of `dir` with dead writers' temp files of `files` swept
/// ([`install::lock_and_sweep`]); none for a `--dry-run`, which writes nothing.
fn locked<'p>(
    dir: &Path,
    dry_run: bool,
    files: impl IntoIterator<Item = &'p Path>,
) -> Result<Option<std::fs::File>> {
    if dry_run {
        return Ok(None);
    }
    install::lock_and_sweep(dir, files)
}

/// The paths of `files` below `dir`.
fn paths_below(dir: &Path, files: &[Embedded]) -> Vec<PathBuf> {
    files.iter().map(|f| dir.join(f.path)).collect()
}

/// `--remove`: deletes ctx's untouched files below `dir`, then the folders that leaves empty.
fn uninstall(
    ctx: &mut Context,
    dir: &Path,
    files: &[Embedded],
    options: &InstallOptions,
) -> Result<ExitCode> {
    let paths = paths_below(dir, files);
    let _lock = locked(dir, options.dry_run, paths.iter().map(PathBuf::as_path))?;
    let outcomes = install::uninstall(dir, files, options.dry_run)?;
    let folders =
        install::remove_emptied_folders(dir, install::removed_paths(&outcomes), options.dry_run);
    report(ctx, dir, &outcomes, &folders, options, true)
}

/// ctx's git hooks, into the repository's hooks folder.
pub fn git_hooks(ctx: &mut Context, options: &InstallOptions) -> Result<ExitCode> {
    let dir = git_hooks_dir(&ctx.project.root)?;
    run(ctx, &dir, install::GIT_HOOKS, "ctx hooks install", options)
}

fn run(
    ctx: &mut Context,
    dir: &Path,
    files: &[Embedded],
    command: &str,
    options: &InstallOptions,
) -> Result<ExitCode> {
    let paths = paths_below(dir, files);
    let _lock = locked(dir, options.dry_run, paths.iter().map(PathBuf::as_path))?;
    let outcomes = install::install(dir, files, command, options.force, options.dry_run)?;
    report(ctx, dir, &outcomes, &[], options, false)
}

/// Prints the outcomes; exit 1 when a file someone changed was kept.
fn report(
    ctx: &mut Context,
    dir: &Path,
    outcomes: &[Outcome],
    folders: &[PathBuf],
    options: &InstallOptions,
    removing: bool,
) -> Result<ExitCode> {
    let kept = outcomes.iter().any(|o| o.action == Action::Kept);
    if ctx.out.json {
        ctx.out.json_doc(&InstallDoc {
            version: Version,
            dir: dir.display().to_string(),
            dry_run: options.dry_run,
            files: outcomes.iter().map(file_doc).collect(),
            folders_removed: paths(folders),
        })?;
    } else {
        let base = std::env::current_dir().unwrap_or_default();
        for outcome in outcomes {
            ctx.out
                .line(&install::report_line(outcome, &base, options.dry_run))?;
        }
        for folder in folders {
            ctx.out
                .line(&install::folder_line(folder, &base, options.dry_run))?;
        }
    }
    if kept && removing {
        return Err(
            Error::failure("some files were changed since ctx wrote them and were kept")
                .with_hint("delete them yourself if you no longer want them"),
        );
    }
    if kept {
        return Err(
            Error::failure("some files were changed since ctx wrote them and were kept")
                .with_hint("compare them with what ctx writes, then pass --force to replace them"),
        );
    }
    Ok(ExitCode::Success)
}

/// The paths as the JSON documents show them.
pub fn paths(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().map(|p| p.display().to_string()).collect()
}

pub fn file_doc(outcome: &Outcome) -> InstalledFile {
    InstalledFile {
        path: outcome.path.display().to_string(),
        action: outcome.action,
    }
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

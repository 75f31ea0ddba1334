//! Completion scripts and man pages, generated from the clap definitions, the JSON Schemas of
//! the `--json` documents, generated from their types, the `flame_*` tool tables of the plugins,
//! generated from `crate::tools`, and the pictures of the demo project in the README and the
//! book. The copies committed under `completions/`, `man/`, `schemas/`, `integrations/` and
//! `docs/src/` are kept fresh by tests.

use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::error::{Error, ExitCode, Result};
use crate::output::Output;

/// The clock of the demo's pictures (`SOURCE_DATE_EPOCH`): running frames are timed to it, so
/// the pictures change only when the demo or the drawing does.
pub const PICTURE_EPOCH: &str = "1795344600";

/// The demo's pictures (the README's and the book's): the ctx arguments run in `examples/demo`,
/// and the file under `docs/src/`, where the book's build finds it.
pub const PICTURES: [(&[&str], &str); 2] = [
    (&["frame", "tree", "--format", "svg"], "frame-tree.svg"),
    (
        // The demo is small: a 1 000-token window shows its folders and the lines.
        &[
            "budget",
            "estimate",
            ".",
            "--format",
            "svg",
            "--tokenizer",
            "o200k",
            "--limit",
            "1000",
        ],
        "budget.svg",
    ),
];

/// The process that draws one of [`PICTURES`]: `ctx` run in the demo at [`PICTURE_EPOCH`], with
/// no settings from the environment or the user's files (the test of their freshness runs the
/// same).
pub fn picture_command(ctx: &Path, demo: &Path, args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new(ctx);
    command
        .args(args)
        .current_dir(demo)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", demo.join(".no-home"))
        .env("LANG", "C.UTF-8")
        .env("SOURCE_DATE_EPOCH", PICTURE_EPOCH);
    command
}

/// Each shell and the file name its completion script is committed under.
pub const SHELLS: [(Shell, &str); 5] = [
    (Shell::Bash, "ctx.bash"),
    (Shell::Zsh, "_ctx"),
    (Shell::Fish, "ctx.fish"),
    (Shell::Elvish, "ctx.elv"),
    (Shell::PowerShell, "_ctx.ps1"),
];

/// The script a shell sources to complete `ctx`: it calls back into ctx
/// (`COMPLETE=SHELL ctx -- …`), which answers from the command definitions and the project's
/// files (frame ids, phases, models, settings keys; `crate::complete`).
pub fn completion_script(shell: Shell) -> Vec<u8> {
    use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Zsh};
    let completer: &dyn EnvCompleter = match shell {
        Shell::Bash => &Bash,
        Shell::Zsh => &Zsh,
        Shell::Fish => &Fish,
        Shell::Elvish => &Elvish,
        _ => &Powershell,
    };
    let mut script = Vec::new();
    completer
        .write_registration("COMPLETE", "ctx", "ctx", "ctx", &mut script)
        .expect("writing to memory cannot fail");
    script
}

pub fn completions(out: &mut Output, shell: Shell) -> Result<ExitCode> {
    out.write_bytes(&completion_script(shell))?;
    Ok(ExitCode::Success)
}

/// Man pages: `ctx.1`, then `ctx-<group>.1`, `ctx-<group>-<command>.1` for every visible command.
pub fn man_pages() -> Result<Vec<(String, Vec<u8>)>> {
    // The pages are the same for every target: they show the bare version.
    let mut command = Cli::command().version(env!("CARGO_PKG_VERSION"));
    command.build();
    let mut pages = Vec::new();
    collect_pages(&command, "ctx", &mut pages)?;
    Ok(pages)
}

fn collect_pages(
    command: &clap::Command,
    name: &str,
    pages: &mut Vec<(String, Vec<u8>)>,
) -> Result<()> {
    let mut named = command
        .clone()
        .name(name.to_string())
        .bin_name(name.replace('-', " "));
    // `help` gets no page of its own (`--help` is the same text), so no page may point at one.
    if named.find_subcommand("help").is_some() {
        named = named.mut_subcommand("help", |help| help.hide(true));
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(named)
        .render(&mut page)
        .map_err(|e| Error::failure(format!("cannot render the man page of {name}: {e}")))?;
    pages.push((format!("{name}.1"), page));
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        collect_pages(sub, &format!("{name}-{}", sub.get_name()), pages)?;
    }
    Ok(())
}

/// Writes `completions/`, `man/`, `schemas/`, the package manifests, the plugins' tool tables
/// (when `dir` holds the plugins) and the pictures (when it holds the demo) under `dir`.
pub fn write_artifacts(out: &Output, dir: &Path) -> Result<ExitCode> {
    let write = |path: &Path, bytes: &[u8]| -> Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(parent, "create the directory", &e))?;
        }
        std::fs::write(path, bytes).map_err(|e| Error::io(path, "write", &e))
    };
    for (shell, file) in SHELLS {
        write(
            &dir.join("completions").join(file),
            &completion_script(shell),
        )?;
    }
    for (file, page) in man_pages()? {
        write(&dir.join("man").join(file), &page)?;
    }
    for (name, schema) in crate::schema::documents() {
        let mut text = serde_json::to_string_pretty(&schema)
            .map_err(|e| Error::failure(format!("cannot serialize the schema {name}: {e}")))?;
        text.push('\n');
        write(
            &dir.join("schemas").join(format!("{name}.schema.json")),
            text.as_bytes(),
        )?;
    }
    for (path, text) in crate::package::manifests() {
        let file = dir.join(&path);
        write(&file, text.as_bytes())?;
        #[cfg(unix)]
        if crate::package::is_executable(&path) {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| Error::io(&file, "make executable", &e))?;
        }
    }
    // The plugins' tool tables, in place in their files: a DIR without them gets the rest.
    let mut plugins = 0;
    for plugin in crate::tools::PLUGINS {
        let file = dir.join(plugin.path);
        if !file.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&file).map_err(|e| Error::io(&file, "read", &e))?;
        let fresh = crate::tools::refresh(&text, plugin.flavor).ok_or_else(|| {
            Error::failure(format!(
                "{} has no generated region ({} … {})",
                file.display(),
                crate::tools::BEGIN,
                crate::tools::END
            ))
        })?;
        if fresh != text {
            write(&file, fresh.as_bytes())?;
        }
        plugins += 1;
    }
    // The pictures need the demo project: a DIR without one (a scratch folder) gets the rest.
    let demo = dir.join("examples/demo");
    let pictures = if demo.is_dir() { &PICTURES[..] } else { &[] };
    let ctx =
        std::env::current_exe().map_err(|e| Error::failure(format!("cannot find ctx: {e}")))?;
    for &(args, file) in pictures {
        let run = picture_command(&ctx, &demo, args)
            .output()
            .map_err(|e| Error::io(&demo, "run ctx in", &e))?;
        if !run.status.success() {
            return Err(Error::failure(format!(
                "ctx {} in {} failed: {}",
                args.join(" "),
                demo.display(),
                String::from_utf8_lossy(&run.stderr).trim()
            )));
        }
        write(&dir.join("docs/src").join(file), &run.stdout)?;
    }
    out.note(&format!(
        "wrote completions/, man/, schemas/, the package manifests{}{} under {}",
        if plugins == 0 {
            ""
        } else {
            ", the plugins' tool tables"
        },
        if pictures.is_empty() {
            " (no examples/demo: no pictures)"
        } else {
            " and docs/src/"
        },
        dir.display()
    ));
    Ok(ExitCode::Success)
}

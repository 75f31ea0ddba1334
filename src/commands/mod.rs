//! Command adapters: each turns parsed arguments into core calls and rendered output.

pub mod budget;
pub mod claude;
pub mod compact;
pub mod config;
pub mod frame;
pub mod generate;
pub mod install;
pub mod opencode;
pub mod spent;
pub mod swarm;

use std::io::Read as _;
use std::path::Path;

use crate::cli::{Cli, Command, Deferred};
use crate::error::{Error, ExitCode, Result};
use crate::output::Output;
use crate::project::Project;

/// What every command gets: the project, the output, and the one clock reading of this run.
pub struct Context {
    pub project: Project,
    pub out: Output,
    pub now: i64,
}

/// `--frame`, then `--session` (or `CTX_SESSION`), then `CTX_FRAME` (flame.md §5), for every
/// command that acts on "the current frame". `CTX_FRAME` is read here rather than by clap's
/// `env`, which would fill `--frame` with it and so rank it above `--session`.
pub(crate) fn selector(args: &crate::cli::frame::FrameSelector) -> crate::frame::ops::Selector {
    crate::frame::ops::Selector {
        flag: args.frame.clone(),
        session: args.session.session.clone(),
        env: std::env::var("CTX_FRAME").ok().filter(|v| !v.is_empty()),
    }
}

/// How a path given on the command line is named in messages (`-` is standard input).
pub(crate) fn label(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads a file given on the command line, or stdin for `-`, refusing more than `cap` bytes.
pub(crate) fn read_input(path: &Path, cap: u64) -> Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(Path::new("<stdin>"), "read", &e))?;
        if bytes.len() as u64 > cap {
            return Err(Error::failure(format!(
                "<stdin>: larger than {} MiB",
                cap >> 20
            )));
        }
        return Ok(bytes);
    }
    crate::frame::store::read_capped(path, cap).map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => {
            Error::failure(format!("{}: larger than {} MiB", path.display(), cap >> 20))
        }
        _ => Error::io(path, "read", &e),
    })
}

/// [`read_input`] of a text: not UTF-8 is refused, naming the file.
pub(crate) fn read_text(path: &Path, cap: u64) -> Result<String> {
    String::from_utf8(read_input(path, cap)?)
        .map_err(|_| Error::failure(format!("{}: not UTF-8 text", label(path))))
}

impl Context {
    /// The frame state for a command that only reads it, with a warning when it is of a newer
    /// schema than this ctx knows.
    pub fn read_state(
        &self,
        store: &crate::frame::store::Store,
    ) -> Result<crate::frame::state::State> {
        let state = store.load()?;
        if state.version() > crate::frame::state::SCHEMA_VERSION {
            self.out.warn(&format!(
                "{} has version {}; showing what this ctx understands",
                store.path().display(),
                state.version()
            ));
        }
        Ok(state)
    }

    /// opencode-swarm's merged config; each ignored file is a warning on stderr.
    pub fn swarm_config(&self) -> crate::swarm::config::SwarmConfig {
        let loaded = crate::swarm::files::read_config(&self.project.root);
        for warning in &loaded.warnings {
            self.out.warn(warning);
        }
        loaded.config
    }
}

/// Whether the command reads a frame tree, which is walked recursively (and so needs a deep
/// stack); swarm views, budgets, settings and completions never do.
pub fn walks_frame_trees(command: &Command) -> bool {
    matches!(
        command,
        Command::Frame(_) | Command::Compact(_) | Command::Opencode(_) | Command::Claude(_)
    )
}

/// Runs the parsed command line; the result's exit code is the process's.
pub fn run(cli: Cli, mut out: Output) -> (Result<ExitCode>, Output) {
    // Commands that do not look at a project must not fail on (or pay for) finding one.
    match &cli.command {
        Command::Completions { shell } => {
            let result = generate::completions(&mut out, *shell);
            return (result.and_then(|code| out.flush().map(|()| code)), out);
        }
        Command::GenerateArtifacts { dir } => {
            let result = generate::write_artifacts(&out, dir);
            return (result, out);
        }
        _ => {}
    }
    let project = match Project::locate(cli.global.root.as_deref()) {
        Ok(project) => project,
        Err(err) => return (Err(err), out),
    };
    let mut ctx = Context {
        project,
        out,
        now: crate::time::now_ms(),
    };
    let result = match cli.command {
        Command::Frame(Deferred(command)) => frame::run(&mut ctx, command),
        Command::Swarm(Deferred(command)) => swarm::run(&mut ctx, command),
        Command::Config { key } => config::run(&mut ctx, &cli.global, key.as_deref()),
        Command::Budget(Deferred(command)) => budget::run(&mut ctx, command),
        Command::Compact(Deferred(command)) => compact::run(&mut ctx, command),
        Command::Opencode(Deferred(command)) => opencode::run(&mut ctx, command),
        Command::Claude(Deferred(command)) => claude::run(&mut ctx, command),
        Command::Hooks(Deferred(command)) => install::hooks(&mut ctx, command),
        Command::Completions { .. } | Command::GenerateArtifacts { .. } => {
            unreachable!("handled before the project is located")
        }
    };
    let result = result.and_then(|code| ctx.out.flush().map(|()| code));
    (result, ctx.out)
}

//! Command-line definitions (clap derive) only: no behaviour lives here. These types also feed
//! the completion scripts and man pages.

pub mod budget;
pub mod claude;
pub mod codex;
pub mod compact;
pub mod copilot;
mod deferred;
pub mod frame;
pub mod gemini;
pub mod kilo;
pub mod opencode;
pub mod pi;
pub mod qwen;
pub mod swarm;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub use deferred::Deferred;

use crate::output::ColorChoice;
use crate::project::Source;

const ABOUT: &str = "See and steer the context of coding agents from the shell";

const LONG_ABOUT: &str = "\
See and steer the context of coding agents from the shell.

ctx reads and writes plain files in your project: the Flame frame tree in
.opencode/flame/state.json and opencode-swarm's plan in .swarm/. OpenCode, Claude
Code, pi, Codex CLI, Kilo Code, Qwen Code, GitHub Copilot CLI and Gemini CLI reach
it through their plugin, hook and extension points: ctx AGENT install, AGENT one
of opencode, claude, pi, codex, kilo, qwen, copilot and gemini. One short-lived
process per command, deterministic output, exit codes that mean something.

Exit codes: 0 success; 1 failure (unreadable or malformed input, frame not
found, refused transition); 2 usage error; 3 and 4 budget verdicts; 5 a failed
health check (swarm diagnose); 6 a cost above budget spent --max-cost.";

/// Removes from this process's environment every `CTX_*` variable set to the empty string, so
/// that each reads as unset everywhere (`CTX_SESSION=` is no session and `CTX_ROOT=` no root,
/// as `CTX_FRAME=` always was), whether clap or ctx itself reads it.
///
/// # Safety
///
/// Changes the environment: call it before any other thread of the process starts.
pub unsafe fn forget_empty_ctx_variables() {
    let empty: Vec<std::ffi::OsString> = std::env::vars_os()
        .filter(|(name, value)| name.as_encoded_bytes().starts_with(b"CTX_") && value.is_empty())
        .map(|(name, _)| name)
        .collect();
    for name in empty {
        // SAFETY: the caller runs this while the process has a single thread.
        unsafe { std::env::remove_var(name) };
    }
}

/// What `ctx --version` and `ctx -V` print after `ctx `: the version, then the target triple the
/// binary was built for (a bug report then says which binary ran). Scripts that read the second
/// word still get the bare version.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("CTX_TARGET"), ")");

#[derive(Debug, Parser)]
#[command(name = "ctx", version = VERSION, about = ABOUT, long_about = LONG_ABOUT, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// Options accepted before or after any subcommand, shown under their own heading after the
/// command's own options (as jj and uv show theirs). `-h` gives each its first line; `--help` the
/// rest.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Project root [default: discovered from the working directory]
    ///
    /// The default: walking up from the working directory (itself included), the first folder
    /// holding .opencode/, .kilo/ or .swarm/, or holding .git (a folder or a file: the git
    /// worktree root, where the walk stops); else the working directory. The walk never climbs
    /// into the home folder, whose .opencode/ is OpenCode's own: $HOME is the root only when it
    /// is the working directory or -C says so. `ctx config` shows which marker chose the root.
    #[arg(
        short = 'C',
        long = "root",
        value_name = "DIR",
        env = "CTX_ROOT",
        hide_env_values = true,
        global = true
    )]
    pub root: Option<PathBuf>,

    /// Print exactly one JSON document on stdout
    ///
    /// The same as --format json where a command has --format.
    #[arg(long, global = true)]
    pub json: bool,

    /// When to colour output [default: auto]
    ///
    /// auto colours only on a terminal, and honours NO_COLOR, CLICOLOR_FORCE and TERM=dumb (no
    /// colour); always; never.
    #[arg(
        long,
        value_name = "WHEN",
        value_enum,
        default_value_t = ColorChoice::Auto,
        hide_default_value = true,
        hide_possible_values = true,
        global = true
    )]
    pub color: ColorChoice,

    /// Print nothing on stderr but errors
    ///
    /// stdout keeps only the primary output.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Whether `--root` and `--color` were given as flags or through the environment (filled in
    /// from the parser's matches, for `ctx config`).
    #[arg(skip)]
    pub origins: Origins,
}

/// Where the global options' values came from.
#[derive(Debug, Clone, Copy)]
pub struct Origins {
    pub root: Source,
    pub color: Source,
}

impl Default for Origins {
    fn default() -> Self {
        Origins {
            root: Source::Default,
            color: Source::Default,
        }
    }
}

impl Cli {
    /// Parses the process's arguments, recording where the global options came from.
    pub fn parse_with_origins() -> Result<Cli, clap::Error> {
        let matches = <Cli as clap::CommandFactory>::command().try_get_matches()?;
        let mut cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)?;
        let origin = |id: &str| match matches.value_source(id) {
            Some(clap::parser::ValueSource::CommandLine) => Source::Flag,
            Some(clap::parser::ValueSource::EnvVariable) => Source::Env,
            _ => Source::Default,
        };
        cli.global.origins = Origins {
            root: origin("root"),
            color: origin("color"),
        };
        Ok(cli)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The Flame frame tree in .opencode/flame/state.json: push, pop, plan, inspect
    #[command(subcommand)]
    Frame(Deferred<frame::FrameCommand>),

    /// opencode-swarm's plan, agents, evidence and health, read-only: the plugin's /swarm views
    Swarm(Deferred<swarm::SwarmArgs>),

    /// Token budgets: count files, directories, stdin and sessions against model limits
    #[command(subcommand)]
    Budget(Deferred<budget::BudgetCommand>),

    /// What goes back into the model: compaction context, frame context XML, notices, injection
    #[command(subcommand)]
    Compact(Deferred<compact::CompactCommand>),

    /// OpenCode integration: install the plugin and commands; session frames for the plugin
    #[command(subcommand)]
    Opencode(Deferred<opencode::OpencodeCommand>),

    /// Claude Code integration: install ctx's hooks and slash commands; the hooks' entry point
    #[command(subcommand)]
    Claude(Deferred<claude::ClaudeCommand>),

    /// pi integration: install ctx's extension; the session frames and message fold it calls
    #[command(subcommand)]
    Pi(Deferred<pi::PiCommand>),
    /// Codex CLI integration: install ctx's hooks; the hooks' entry point
    #[command(subcommand)]
    Codex(Deferred<codex::CodexCommand>),

    /// Kilo Code integration: install ctx's OpenCode plugin and commands where Kilo loads them
    #[command(subcommand)]
    Kilo(Deferred<kilo::KiloCommand>),

    /// Qwen Code integration: install ctx's hooks; the hooks' entry point
    #[command(subcommand)]
    Qwen(Deferred<qwen::QwenCommand>),

    /// GitHub Copilot CLI integration: install ctx's hooks; the hooks' entry point
    #[command(subcommand)]
    Copilot(Deferred<copilot::CopilotCommand>),

    /// Gemini CLI integration: install ctx's hooks; the hooks' entry point
    #[command(subcommand)]
    Gemini(Deferred<gemini::GeminiCommand>),

    /// Git hooks: install ctx's pre-commit and post-commit hooks
    #[command(subcommand)]
    Hooks(Deferred<opencode::HooksCommand>),

    /// Show every setting with its value and where it comes from
    #[command(long_about = "\
Show every setting with its value and where it comes from.

Settings are read, highest precedence first, from: a command-line flag, the CTX_* environment
variable, the project's .opencode/ctx.toml, the user's $XDG_CONFIG_HOME/ctx/config.toml
(default ~/.config/ctx/config.toml), opencode-swarm's context_budget (budget thresholds and model
limits only), and the built-in default. The output lines are TOML: copy one into ctx.toml to
change it. Keys in the files that no setting reads are reported as warnings; a value of the wrong
kind is an error (exit 1) after everything else is shown.")]
    Config {
        /// Print only this setting's value (e.g. frame.context.total) [default: all settings]
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::complete::config_key))]
        key: Option<String>,
    },

    /// Print a shell completion script
    #[command(long_about = "\
Print a shell completion script for SHELL on stdout. The script calls back into
ctx, which completes frame ids, swarm phases, models and settings keys from the
project's files.

  bash:       ctx completions bash > ~/.local/share/bash-completion/completions/ctx
  zsh:        echo 'source <(ctx completions zsh)' >> ~/.zshrc
  fish:       ctx completions fish > ~/.config/fish/completions/ctx.fish
  elvish:     ctx completions elvish >> ~/.config/elvish/rc.elv
  powershell: ctx completions powershell >> $PROFILE")]
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },

    /// Write completions/, man/, schemas/ and the plugins' tool tables into DIR (used to refresh the
    /// committed copies)
    #[command(hide = true)]
    GenerateArtifacts {
        /// The repository root to write into
        dir: PathBuf,
    },
}

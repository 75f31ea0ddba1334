//! `ctx budget …` arguments.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Subcommand, ValueEnum};

use crate::budget::tokenizer::{self, Tokenizer};

#[derive(Debug, Subcommand)]
pub enum BudgetCommand {
    /// Count the tokens of files, directories, stdin or a session against a model's context limit
    #[command(long_about = "\
Count the tokens of files, directories (walked with .gitignore/.ignore rules),
standard input ('-') and/or an OpenCode session export (--session), and compare
the total with a model's context window.

With no PATH and no --session, the project root given with -C/--root (or
CTX_ROOT) is counted, else the working directory. Binary files
(a NUL byte in the first 8000 bytes) and unreadable files are skipped and listed;
files that are not UTF-8 are counted as lossily decoded text.

usage = tokens / context window; the level is critical when usage > --critical,
warn when usage > --warn (strict comparisons), else ok.

Limits come from, in order: --limit; ctx's settings ($CTX_BUDGET_LIMIT,
[budget] model_limits / limit in .opencode/ctx.toml, then the user config.toml);
opencode-swarm's context_budget.model_limits (exact model key, then \"default\");
OpenCode's models.dev cache ($XDG_CACHE_HOME/opencode/models.json); ctx's
built-in table; 128000.

Exit codes: 0, or with --fail-on: 3 when the level is warn, 4 when critical.")]
    Estimate(EstimateArgs),

    /// List the model limits in effect and where each comes from
    #[command(long_about = "\
List every model whose limits ctx knows, with its context window, input and
output limits, the point where OpenCode would compact a session on it, and the
source of the numbers: ctx's settings, opencode-swarm's context_budget, OpenCode's
models.dev cache or ctx's built-in table. --json prints one JSON document.")]
    Models,

    /// What the work cost: tokens and money per frame, session, model or day, from the agents' records
    #[command(long_about = "\
What the work cost: tokens and money per frame (subagents rolled into their
parents), per session, per model or per day, from the records OpenCode keeps of
every model call and from the session files of Claude Code, pi, Codex CLI, Qwen
Code, GitHub Copilot CLI and Gemini CLI.

The records are read from OpenCode's database (opencode.db, $OPENCODE_DB, in
$XDG_DATA_HOME/opencode), read-only: ctx never writes, locks or leaves a file
beside it, and reads it while OpenCode runs; and from the project's Claude Code
transcripts (~/.claude/projects/<project>/, $CLAUDE_CONFIG_DIR), each response
counted once; the project's pi sessions (~/.pi/agent/sessions/--<project>--/,
$PI_CODING_AGENT_DIR); Codex's sessions (~/.codex/sessions/, $CODEX_HOME); and
Qwen Code's ledger of model calls (~/.qwen/usage/, $QWEN_HOME); GitHub Copilot
CLI's sessions (~/.copilot/session-state/, $COPILOT_HOME); and Gemini CLI's
sessions (~/.gemini/tmp/, below $GEMINI_CLI_HOME when set). --source also takes
the storage/ folder of OpenCode 1.1 and older, `opencode export` files, and
session files (.jsonl) of Claude Code, pi, Codex, Qwen Code, Copilot or Gemini
CLI, or their folders.

A frame's cost is its own calls plus everything below it. A frame that is an
OpenCode session (its id is the session id) owns that session's calls; a frame
pushed inside a session owns the calls of its span (from its push to its pop);
a subagent's session rolls into the frame that ran it. Sessions in no frame
are shown as \"(in no frame)\", and by --by session.

Cost: what OpenCode or pi recorded; for a call recorded at 0 (Claude Code,
Codex, Qwen Code, Copilot and Gemini CLI record none), the price in OpenCode's
models.dev cache ($XDG_CACHE_HOME/opencode/models.json), marked ~ (estimated);
else unknown, never $0. OpenCode does not store its title requests, so they are
never counted.

Exit codes: 0; 1 unreadable records; 6 with --max-cost when the cost is above
it.")]
    Spent(SpentArgs),
}

#[derive(Debug, Args)]
pub struct SpentArgs {
    /// Group rows by: frame, session, model, day [default: frame]
    ///
    /// frame: the frame tree, each frame with everything below it; session: the sessions of
    /// OpenCode, Claude Code, pi, Codex, Qwen Code, Copilot and Gemini CLI, subagents under their parents; model:
    /// provider/model; day: UTC days.
    #[arg(long, value_name = "BY", value_enum, default_value_t = SpentBy::Frame, hide_default_value = true, hide_possible_values = true)]
    pub by: SpentBy,

    /// Only this frame and everything below it (full id or unique prefix)
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCandidates::new(crate::complete::any_frame))]
    pub frame: Option<String>,

    /// Only this session and its subagents (full id or unique prefix)
    ///
    /// A Claude Code session or subagent, a pi session or a Codex thread may also be named by the
    /// id its agent shows, without ctx's cc_, cca_, pi_ or cx_ in front (f822e299 for
    /// cc_f822e299-…).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,

    /// Only calls made at or after WHEN (a UTC date or time, or a span ago: 7d)
    ///
    /// WHEN is YYYY-MM-DD (midnight UTC), YYYY-MM-DDTHH:MM[:SS[.mmm]]Z, or a span before now:
    /// 30m, 12h, 7d, 2w.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,

    /// Only calls made before WHEN (same forms as --since; not before --since)
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,

    /// Exit with code 6 when the total cost is above USD (for CI)
    ///
    /// Compares the cost that is known (recorded and estimated); calls without a price count as
    /// nothing, and the report says so.
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    pub max_cost: Option<f64>,

    /// Records to read (repeatable) [default: every agent's]
    ///
    /// opencode.db, an OpenCode data folder, the storage/ folder of OpenCode 1.1 and older, a
    /// file `opencode export <sessionID>` wrote, or session files of Claude Code, pi, Codex, Qwen
    /// Code, GitHub Copilot CLI or Gemini CLI (a .jsonl file, a pipe such as <(cat FILE), or a folder holding them however
    /// deep, links to folders not followed, such as ~/.claude/projects, ~/.pi/agent/sessions,
    /// ~/.codex/sessions, ~/.qwen, ~/.copilot or ~/.gemini; each file's first line, read as JSON, tells its agent; a named pipe
    /// with no writer is refused rather than waited on). The default is $OPENCODE_DB, else
    /// $XDG_DATA_HOME/opencode/opencode.db (default ~/.local/share/opencode), else the storage/
    /// folder beside it; and the project's Claude Code transcripts ($CLAUDE_CONFIG_DIR, default
    /// ~/.claude, then projects/<project path with - for each character but letters and digits,
    /// cut at 200 and a hash added when longer, as Claude Code names it>), the project's pi
    /// sessions ($PI_CODING_AGENT_DIR, default ~/.pi/agent, then sessions/--<project path with -
    /// for each / \ :>--), Codex's sessions ($CODEX_HOME, default ~/.codex, then sessions/) and
    /// Qwen Code's ledger ($QWEN_HOME, default ~/.qwen, then usage/, with the project's sessions
    /// for their titles), Copilot's sessions ($COPILOT_HOME, default ~/.copilot, then
    /// session-state/) and Gemini CLI's ($GEMINI_CLI_HOME, default the home folder, then
    /// .gemini/tmp/) when they exist; when none does, the error says where each was looked for.
    /// Sources may overlap: a call is counted once (by OpenCode's message id; Claude Code's
    /// message id and request id; pi's entry id and time; Codex's response id; Qwen Code's call
    /// id; Copilot's event id; Gemini CLI's message id).
    #[arg(long, value_name = "PATH")]
    pub source: Vec<PathBuf>,
}

fn parse_usd(text: &str) -> Result<f64, String> {
    match text.trim_start_matches('$').parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 => Ok(n),
        _ => Err("expected an amount of US dollars, e.g. 2.50".to_string()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SpentBy {
    Frame,
    Session,
    Model,
    Day,
}

#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// Files and directories to count, '-' for standard input
    ///
    /// Without --session, the default is the -C/--root directory when given, else the working
    /// directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Also count an OpenCode session ('-' for stdin)
    ///
    /// The JSON `opencode export <sessionID>` prints, or the {"messages": [...]} list of OpenCode's
    /// messages.transform hook: what the model is sent, beside the tokens OpenCode recorded. Its
    /// model is the default --model.
    #[arg(long, value_name = "PATH")]
    pub session: Option<PathBuf>,

    /// Model as provider/model or model [default: from the settings or session]
    ///
    /// The default is $CTX_BUDGET_MODEL, else `[budget] model` in the settings, else the session's
    /// model.
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCompleter::new(crate::complete::model))]
    pub model: Option<String>,

    /// Context window in tokens, overriding every other source of limits
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,

    #[arg(
        long,
        value_name = "NAME",
        value_parser = tokenizer_parser(),
        hide_possible_values = true,
        help = tokenizer_help(false),
        long_help = tokenizer_help(true)
    )]
    pub tokenizer: Option<Tokenizer>,

    /// Warn threshold, a share of the context window [default: 0.7]
    ///
    /// The default is the settings, else opencode-swarm's context_budget.warn_threshold, else 0.7.
    #[arg(long, value_name = "F", value_parser = parse_share)]
    pub warn: Option<f64>,

    /// Critical threshold, a share of the context window [default: 0.9]
    ///
    /// The default is the settings, else opencode-swarm's context_budget.critical_threshold, else
    /// 0.9.
    #[arg(long, value_name = "F", value_parser = parse_share)]
    pub critical: Option<f64>,

    /// The verdict as exit code: never, warn, critical [default: never]
    ///
    /// warn: exit 3 when the level is warn and 4 when critical; critical: exit 4 when critical
    /// only; never: exit 0 whatever the level. A budget opencode-swarm's config turns off
    /// (context_budget.enabled: false) gives no verdict: exit 0.
    #[arg(
        long,
        value_name = "LEVEL",
        value_enum,
        default_value_t = FailOn::Never,
        hide_default_value = true,
        hide_possible_values = true
    )]
    pub fail_on: FailOn,

    /// How many of the largest files and folders human output lists
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,

    /// Include hidden files and directories
    ///
    /// .git is never included.
    #[arg(long)]
    pub hidden: bool,

    /// Do not apply .gitignore, .ignore and git's exclude files
    #[arg(long)]
    pub no_ignore: bool,

    /// Leave out paths matching GLOB (gitignore syntax; repeatable)
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Output: human, json, swarm, svg [default: human; json with --json]
    ///
    /// human: tables and a usage bar; json: one document; swarm: opencode-swarm's warning line for
    /// the level, or nothing when ok; svg: an interactive flame graph of the inputs, folders above
    /// their files, width by tokens, against the context window with the warn, critical and
    /// limit lines.
    #[arg(long, value_name = "FORMAT", value_enum, hide_possible_values = true)]
    pub format: Option<Format>,
}

fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(n) if (0.0..=1.0).contains(&n) => Ok(n),
        _ => Err("expected a number from 0 to 1".to_string()),
    }
}

/// `--tokenizer`'s help: the names and what they mean, from the registry.
fn tokenizer_help(long: bool) -> String {
    let names: Vec<&str> = tokenizer::BUDGET.iter().map(|t| t.name()).collect();
    let mut help = format!("How to count: {} [default: auto]", names.join(", "));
    if long {
        help.push('\n');
        for t in tokenizer::BUDGET {
            help.push_str(&format!("\n{}: {}.", t.name(), t.about()));
        }
        help.push_str(
            "\n\nThe default is $CTX_BUDGET_TOKENIZER, else `[budget] tokenizer`, else auto.",
        );
    }
    help
}

/// `--tokenizer`: the names, their help and their parsing come from the registry.
fn tokenizer_parser() -> impl TypedValueParser<Value = Tokenizer> {
    let values = tokenizer::BUDGET.map(|t| PossibleValue::new(t.name()).help(t.about()));
    PossibleValuesParser::new(values)
        .map(|name| Tokenizer::parse(&name, &tokenizer::BUDGET).expect("a possible value"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Never,
    Warn,
    Critical,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Swarm,
    Svg,
}

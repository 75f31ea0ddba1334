//! `ctx swarm …`: read-only views of opencode-swarm's plan, context and agents.

use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SwarmFormat {
    /// Tables and progress for people
    Human,
    /// Exactly what opencode-swarm's /swarm command prints, plus one newline
    Markdown,
    /// One JSON document (same as --json)
    Json,
}

#[derive(Debug, Args)]
pub struct FormatArg {
    /// Output: human, markdown, json [default: human; json with --json]
    ///
    /// human: tables and progress for people; markdown: exactly what opencode-swarm's /swarm
    /// command prints, plus one newline; json: one document (same as --json).
    #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
    pub format: Option<SwarmFormat>,
}

#[derive(Debug, Subcommand)]
pub enum SwarmCommand {
    /// Current phase, task counts and the number of agents
    #[command(long_about = "\
Current phase, task counts and the number of agents.

Reads .swarm/plan.json when it is a usable schema 1.0.0 plan, else .swarm/plan.md. With
--format markdown the output is byte-identical to opencode-swarm 4.3.0's `/swarm status`
(whole-plan counts, its phase rules and quirks); human and json report per-phase progress,
the current phase's own counts and blocked tasks. Never writes a file.")]
    Status(#[command(flatten)] FormatArg),

    /// The whole plan, or one phase
    #[command(
        long_about = "\
The whole plan, or one phase.

With --format markdown: the plan text verbatim (for plan.json, the markdown opencode-swarm 5.0.0
derives from it, stamped with the file's modification time), or one phase's section exactly as
opencode-swarm 4.3.0's `/swarm plan N` prints it. Never writes a file.",
        allow_negative_numbers = true
    )]
    Plan {
        /// The phase number [default: every phase]
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::complete::phase))]
        phase: Option<String>,
        #[command(flatten)]
        format: FormatArg,
    },

    /// The resolved agent roster
    #[command(long_about = "\
The resolved agent roster.

Merges $XDG_CONFIG_HOME/opencode/opencode-swarm.json (user) and .opencode/opencode-swarm.json
(project) as opencode-swarm 4.3.0 does: overrides per agent, swarms with prefixed agent names,
disabled agents left out, and the plugin's default roster of seven agents. An invalid config
file is reported on stderr and ignored, as the plugin ignores it.")]
    Agents(#[command(flatten)] FormatArg),

    /// One row per phase with its task counts
    #[command(long_about = "\
One row per phase with its task counts.

With --format markdown the table is byte-identical to opencode-swarm 4.4.0's `/swarm history`.")]
    History(#[command(flatten)] FormatArg),
}

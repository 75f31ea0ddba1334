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

/// Which opencode-swarm to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SwarmVersionArg {
    /// What the project runs (its OpenCode config, the installed package, .swarm/)
    Auto,
    /// The 4.3.0 contract
    #[value(name = "4.3")]
    V4_3,
    /// opencode-swarm 5.1.0
    #[value(name = "5")]
    V5,
}

impl SwarmVersionArg {
    pub fn setting(self) -> &'static str {
        match self {
            SwarmVersionArg::Auto => "auto",
            SwarmVersionArg::V4_3 => "4.3",
            SwarmVersionArg::V5 => "5",
        }
    }
}

#[derive(Debug, Args)]
#[command(after_long_help = "\
Which opencode-swarm: ctx reproduces the version the project runs. It takes --swarm-version (or
the swarm.version setting, CTX_SWARM_VERSION) when not auto; else a version in the `plugin` list of
opencode.json[c] in the project (root or .opencode/), then in $XDG_CONFIG_HOME/opencode/; else the
package installed in .opencode/node_modules, $XDG_CONFIG_HOME/opencode/node_modules or
$XDG_CACHE_HOME/opencode/node_modules; else a plugin declared without a version (5.x, the newest);
else 5.x when .swarm/ holds a plan.json with a schema_version or an evidence/ folder; else 4.3.0.
JSON output names the version and the reason (swarm_version, swarm_version_reason).")]
pub struct SwarmArgs {
    /// Which opencode-swarm to reproduce: auto, 4.3, 5 [default: auto]
    ///
    /// Without the flag, the swarm.version setting decides, and auto when it is not set.
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "VERSION",
        hide_possible_values = true
    )]
    pub swarm_version: Option<SwarmVersionArg>,

    #[command(subcommand)]
    pub command: SwarmCommand,
}

#[derive(Debug, Subcommand)]
pub enum SwarmCommand {
    /// Current phase, task counts and the number of agents
    #[command(long_about = "\
Current phase, task counts and the number of agents.

Reads .swarm/plan.json when it is a usable schema 1.0.0 plan, else .swarm/plan.md. With
--format markdown the output is byte-identical to the `/swarm status` of the opencode-swarm the
project runs (`ctx swarm --help` says how ctx tells): 4.3.0's (whole-plan counts, its phase
rules and quirks) or 5.1.0's (a plan.md migrated in memory as the plugin migrates it, blocked
tasks counted). Human and json report per-phase progress, the current phase's own counts and
blocked tasks. Never writes a file.")]
    Status(#[command(flatten)] FormatArg),

    /// The whole plan, or one phase
    #[command(
        long_about = "\
The whole plan, or one phase.

With --format markdown: the plan text verbatim (for plan.json, the markdown opencode-swarm 5.x
derives from it, stamped with the file's modification time), or one phase's section exactly as
the project's opencode-swarm (4.3.0 or 5.1.0) prints `/swarm plan N`. Never writes a file.",
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
(project) as opencode-swarm does: overrides per agent, swarms with prefixed agent names,
disabled agents left out, and the plugin's default roster of seven agents. An invalid config
file is reported on stderr and ignored, as the plugin ignores it. For 5.1.0 the markdown counts
the agents and marks those with a guardrail profile of their own, then lists the profiles.")]
    Agents(#[command(flatten)] FormatArg),

    /// One row per phase with its task counts
    #[command(long_about = "\
One row per phase with its task counts.

With --format markdown the table is byte-identical to opencode-swarm 4.4.0's `/swarm history`
(5.1.0's for a 5.x project).")]
    History(#[command(flatten)] FormatArg),

    /// Evidence bundles: every task's, or one task's entries (opencode-swarm 5.x)
    #[command(long_about = "\
Evidence bundles: every task's, or one task's entries (opencode-swarm 5.x).

Reads .swarm/evidence/<task>/evidence.json, the review, test, diff, approval and note entries the
plugin's agents record. A bundle that does not parse or fails the plugin's schema is listed as the
plugin lists it (`?`, `unknown`) with the reason on stderr; so is one over 500 KB (the most the
plugin writes) or one behind a link that leads outside .swarm/, which ctx does not read. A task id
must be a dotted name (`2.1`, `task-7`): `../`, `/`, NUL and control characters are refused with
exit 1, as the plugin refuses them. Never writes a file.")]
    Evidence {
        /// The task whose entries to show [default: list every bundle]
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::complete::evidence_task))]
        task: Option<String>,
        #[command(flatten)]
        format: FormatArg,
    },

    /// Health check of .swarm/: plan, migration, dependencies, context, config, evidence
    #[command(long_about = "\
Health check of .swarm/ (opencode-swarm 5.x's `/swarm diagnose`): the plan's schema, its migration
from plan.md, task dependencies that name no task, context.md, the plugin config, and completed
tasks without an evidence bundle.

Exit code 5 when a check fails (after printing the report, in every format), 0 when all pass: a
CI job can gate on `ctx swarm diagnose`. For a 4.3.0 project the same checks run on what .swarm/
holds. Never writes a file.")]
    Diagnose(#[command(flatten)] FormatArg),

    /// The plan and context.md as one JSON document (opencode-swarm 5.x's export)
    #[command(long_about = "\
The plan and context.md as one JSON document: opencode-swarm 5.x's `/swarm export`.

--format markdown prints the plugin's text (its `version` is the 4.5.0 it hard-codes, `exported`
the time of the call); --json (and --format human) print the document itself. Never writes a
file.")]
    Export(#[command(flatten)] FormatArg),

    /// The resolved opencode-swarm config and where it comes from
    #[command(long_about = "\
The resolved opencode-swarm config and where it comes from: opencode-swarm 5.x's `/swarm
config`. The user file ($XDG_CONFIG_HOME/opencode/opencode-swarm.json) overlaid by the project's
(.opencode/opencode-swarm.json) as 5.1.0 merges them, every default filled in; a file over 100
KB, not JSON or outside the plugin's schema is ignored with a warning, as the plugin ignores it.")]
    Config(#[command(flatten)] FormatArg),
}

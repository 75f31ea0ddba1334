//! `ctx kilo …` arguments: ctx's OpenCode plugin and commands, installed where Kilo Code loads
//! them.

use clap::Subcommand;

use super::opencode::InstallOptions;

#[derive(Debug, Subcommand)]
pub enum KiloCommand {
    /// Write ctx's OpenCode plugin and slash commands into .kilo/ (or, --global, the user's)
    #[command(long_about = "\
Write ctx's OpenCode plugin (plugin/ctx.js) and slash commands (command/push.md,
pop.md, status.md, plan.md, tree.md, swarm-status.md), which are built into
ctx, into the project's .kilo/ folder, where Kilo Code loads them, or with
--global into the user's Kilo folder ($XDG_CONFIG_HOME/kilo, default
~/.config/kilo).

Kilo Code is an OpenCode fork with OpenCode's plugin API: the plugin is the
one `ctx opencode install` writes, and gives Kilo what it gives OpenCode (the
flame_* tools, a frame per session and subagent, the frame context, the live
fold of popped frames and of closed auto-frames, compaction summaries). Its
sessions' frames are in .opencode/flame/state.json, as OpenCode's, and
`ctx budget spent` reads Kilo's kilo.db. The plugin loads @kilocode/plugin,
which Kilo installs into .kilo/, when @opencode-ai/plugin is not there.

Each file carries a stamp line. A file that already holds what ctx would write
is left alone; one an earlier ctx wrote and nobody changed is updated; one that
was changed (or is not ctx's) is kept, unless --force. --remove deletes them,
unless they were changed, then plugin/, command/ and .kilo/ (or the user's Kilo
folder) when nothing else is in them and ctx's install made them (a folder that
was there before stays); nothing else is deleted, and --force is refused with
it (a changed file is yours to delete). Refused, with nothing written: a
read-only file, a symbolic link that points to nothing. Prints one line per
file (and per folder removed); exit 1 when a file was kept. Kilo loads the
files at its next start.")]
    Install {
        /// Install for every project: into the user's Kilo folder
        #[arg(long)]
        global: bool,
        /// Delete ctx's plugin and commands instead (unless they were changed)
        #[arg(long, conflicts_with = "force")]
        remove: bool,
        #[command(flatten)]
        options: InstallOptions,
    },
}

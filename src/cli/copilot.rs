//! `ctx copilot …` arguments: ctx's hooks for GitHub Copilot CLI, and the entry point they call.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum CopilotCommand {
    /// Write ctx's hooks to .github/hooks/ctx.json (or, --global, $COPILOT_HOME/hooks/ctx.json)
    #[command(long_about = "\
Write ctx's hooks to the project's .github/hooks/ctx.json (or with --global to
ctx.json in the hooks folder of $COPILOT_HOME, default ~/.copilot), where GitHub
Copilot CLI finds hooks files. Copilot runs a repository's hooks only in a
folder you trust (it asks on its first start there; a prompt-mode run takes
--trust-folder); the hooks of --global run in every folder.

The file is ctx's own, but a ctx.json of yours is edited in place, never
replaced: every key and hook of yours keeps its place and its bytes. A hook
entry is ctx's only when its command is exactly one ctx writes for that event;
those are replaced by the current ones, and a hook of yours that merely
mentions ctx is left alone. Refused, with nothing written: a file that is not
valid JSON, has comments or a key twice; a read-only file; a symbolic link, to
the file or a folder above it, that points to nothing.

--remove takes out exactly ctx's hook entries, and deletes the file when
nothing else is left in it (the one ctx's install created); then the hooks
folder goes when nothing else is in it and ctx's install made it. --dry-run
prints what would change and writes nothing. The hooks run `ctx` from
Copilot's PATH (or $CTX_BIN); Copilot reads them at its next start.")]
    Install {
        /// Install for every folder: into $COPILOT_HOME/hooks/ctx.json (default ~/.copilot)
        #[arg(long)]
        global: bool,
        /// Take ctx's hooks out instead
        #[arg(long)]
        remove: bool,
        /// Print what would change and write nothing
        #[arg(long)]
        dry_run: bool,
    },

    /// The entry point of ctx's Copilot hooks: one event's JSON on stdin, the answer on stdout
    #[command(long_about = "\
Answer one GitHub Copilot CLI hook event: its JSON comes on stdin, the answer
(if any) goes to stdout as Copilot reads it, {\"additionalContext\": …}.
`ctx copilot install` writes the hooks that call it; people do not need to.

  sessionStart         adds the session's frame context, in a message of its
                       own, to a session that has a frame (a resumed one)
  userPromptSubmitted  gives the session its frame cp_<session id> (goal: the
                       first prompt's first line) and adds its frame context
                       when it has changed, with the exact `ctx frame push/pop
                       --session \"cp_$COPILOT_AGENT_SESSION_ID\"` commands for
                       the model's shell; with frame.auto = turns or all,
                       opens the turn's frame
  preToolUse           (task) notes the subagent's description as its goal
  subagentStart        pushes the subagent's frame, cp_<agent id>, and tells
                       the subagent its frame and the commands that push and
                       pop below it (its shell has no variable that names it)
  subagentStop         pops it: completed, with the subagent's answer as
                       summary
  agentStop            with frame.auto = turns or all: closes the turn's frame,
                       the turn's last answer its summary
  sessionEnd           with frame.auto = turns or all: closes a turn left open;
                       with copilot.fold = on (the default), appends to the
                       session file a compaction whose summary is the
                       conversation, each frame the model pushed and popped in
                       its shell folded to its pop and summary, so that the
                       next --resume sends it so

At each userPromptSubmitted and agentStop ctx also looks at the end of the
session file for a compaction Copilot applied since (it writes the summary only
there), records its summary on the session's current frame once, and sends the
frame context again with that prompt or the next.

Copilot gives a hook no way to change the messages a model call sends, so a
popped frame's messages stay in the running conversation until it ends. Every
line Copilot wrote stays in the session file. Whatever goes wrong (bad
JSON, a broken state file, an unknown event) exits 0 with nothing on stdout and
one line in .opencode/flame/copilot-hooks.log (or ctx-hooks.log in
$COPILOT_HOME, default ~/.copilot, when there is no project folder to write
in): a hook that fails must never stop Copilot.")]
    Hook {
        /// The hook event's name, as Copilot spells it (sessionStart, userPromptSubmitted, …)
        event: String,
    },
}

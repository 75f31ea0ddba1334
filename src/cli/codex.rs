//! `ctx codex …` arguments: ctx's hooks for Codex CLI, and the entry point they call.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum CodexCommand {
    /// Add ctx's hooks to .codex/hooks.json (or, --global, the user's $CODEX_HOME/hooks.json)
    #[command(long_about = "\
Add ctx's hooks to the project's .codex/hooks.json (or with --global the
user's hooks.json in $CODEX_HOME, default ~/.codex), the files Codex reads its
hooks from. Codex runs hooks only once you trust them (it asks; `codex exec`
takes --dangerously-bypass-hook-trust).

The file is edited in place, never replaced: every key and hook of yours keeps
its place and its bytes. A hook entry is ctx's only when its command is exactly
one ctx writes for that event; those are replaced by the current ones, and a
hook of yours that merely mentions ctx is left alone. Refused, with nothing
written: a hooks.json that is not valid JSON, has comments or a key twice; a
read-only file; a symbolic link, to the file or a folder above it, that points
to nothing. A link to a file that exists is written through: the file it points
to is rewritten, the link stays.

--remove takes out exactly ctx's hook entries. Install then --remove gives your
file back byte for byte, but for two things: an empty \"hooks\": {} or event
list that ctx filled goes with ctx's entries, and a hooks.json left holding
nothing at all (an empty object, white space aside: the one ctx's install
created, or one that held only {} before) is deleted rather than left as {},
unless it is a link. Then .codex/ (or $CODEX_HOME) goes when nothing else is in
it and ctx's install made it (a folder that was there before stays). Nothing
else is deleted. --dry-run prints what would change and writes
nothing.
The hooks run `ctx` from Codex's PATH (or $CTX_BIN); Codex reads them at its
next start.")]
    Install {
        /// Install for every project: into $CODEX_HOME/hooks.json (default ~/.codex)
        #[arg(long)]
        global: bool,
        /// Take ctx's hooks out instead
        #[arg(long)]
        remove: bool,
        /// Print what would change and write nothing
        #[arg(long)]
        dry_run: bool,
    },

    /// The entry point of ctx's Codex hooks: one event's JSON on stdin, the answer on stdout
    #[command(long_about = "\
Answer one Codex hook event: its JSON comes on stdin, the answer (if any) goes
to stdout as Codex expects it. `ctx codex install` writes the hooks that call
it; people do not need to.

  SessionStart      adds the session's frame context in a new conversation of
                    a session that has a frame, and on resume when it changed
  UserPromptSubmit  gives the session (a Codex thread) its frame cx_<thread id>
                    (goal: the first prompt's first line) and adds its
                    <flame-context> when it has changed, with the exact
                    `ctx frame push/pop --session \"cx_$CODEX_THREAD_ID\"`
                    commands for the model's shell; with frame.auto = turns
                    or all, opens the turn's frame
  PreToolUse        (spawn_agent) notes the subagent's task as its goal
  PostToolUse       (update_plan) with frame.auto = todos or all: a plan step
                    in progress is a frame, closed when it is completed (or
                    dropped, or set back: blocked)
  SubagentStart     pushes the subagent's frame, cx_<its thread id>, and adds
                    its <flame-context> to the subagent's first request
  SubagentStop      pops it: completed, with the subagent's last message as
                    summary and its rollout in the log
  PostCompact       records the compaction's summary (from the rollout) on the
                    current frame, and adds the frame context again at the
                    next prompt
  Stop              with frame.auto = turns or all: closes the turn's frame,
                    the last answer its summary, its rollout span its log
  SessionEnd        folds the thread's rollout (codex.fold): each frame pushed
                    and popped in the shell becomes its pop and summary for a
                    later `codex exec resume`, and each finished turn or step
                    frame's outputs become placeholders naming its log; the
                    original is kept beside it (<rollout>/ctx-fold-<ms>.jsonl)

Codex cannot fold a popped frame out of a running conversation: no hook removes
earlier messages; only a resumed session is sent folded. Whatever goes wrong
(bad JSON, a broken state file, an unknown event) exits 0 with nothing on
stdout and one line in .opencode/flame/codex-hooks.log (or ctx-hooks.log in
$CODEX_HOME, default ~/.codex, when there is no project folder to write in): a
hook that fails must never stop Codex.")]
    Hook {
        /// The hook event's name, as Codex spells it (SessionStart, UserPromptSubmit, …)
        event: String,
    },
}

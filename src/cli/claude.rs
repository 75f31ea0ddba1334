//! `ctx claude …` arguments: ctx's hooks for Claude Code, and the entry point they call.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ClaudeCommand {
    /// Add ctx's hooks to .claude/settings.json and write its slash commands (or, --global, the user's)
    #[command(long_about = "\
Add ctx's hooks to the project's .claude/settings.json (or with --global the
user's ~/.claude/settings.json, in $CLAUDE_CONFIG_DIR when it is set, as Claude
Code reads it) and write ctx's slash commands (/push, /pop, /status, /plan,
/frame) into .claude/commands/ and its agent into .claude/agents/ (or that
folder's commands/ and agents/).

The settings file is edited in place, never replaced: every key and hook of
yours keeps its place and its bytes. A hook entry is ctx's only when its
command is exactly one ctx writes for that event; those are replaced by the
current ones, and a hook of yours that merely mentions ctx is left alone.
Refused, with nothing written: a settings file that is not valid JSON, has
comments or a key twice; a read-only file; a symbolic link, to the file or a
folder above it, that points to nothing. A link to a file that exists is
written through: the file it points to is rewritten, the link stays.

--remove takes out exactly ctx's hook entries (and its slash commands and
agent, unless you changed them). Install then --remove gives your file back
byte for byte, but for two things: an empty \"hooks\": {} or event list that
ctx filled goes with ctx's entries, and a settings file left holding nothing at
all (an empty object, white space aside: the one ctx's install created, or one
that held only {} before) is deleted rather than left as {}, unless it is a
link. Then each folder ctx's files were in, up to .claude/ (or the --global
folder), goes when nothing else is in it and ctx's install made it (an
extended attribute on the folder says so; a folder that was there before stays).
Nothing else is deleted, and --force
is refused with --remove (a changed file is yours to delete). --dry-run prints
what would change and writes nothing. Claude Code reads the hooks at its
next start.")]
    Install {
        /// Install for every project: into ~/.claude/ (or $CLAUDE_CONFIG_DIR)
        #[arg(long)]
        global: bool,
        /// Take ctx's hooks and commands out instead
        #[arg(long, conflicts_with = "force")]
        remove: bool,
        /// Replace slash command files that were changed since ctx wrote them
        #[arg(long)]
        force: bool,
        /// Print what would change and write nothing
        #[arg(long)]
        dry_run: bool,
    },

    /// The entry point of ctx's Claude Code hooks: one event's JSON on stdin, the answer on stdout
    #[command(long_about = "\
Answer one Claude Code hook event: its JSON comes on stdin, the answer (if any)
goes to stdout as Claude Code expects it. `ctx claude install` writes the hooks
that call it; people do not need to.

  SessionStart      writes CTX_SESSION into Claude Code's CLAUDE_ENV_FILE; adds
                    the session's frame context after a compaction, in a new
                    conversation of a session that has a frame, and on resume
                    when it changed
  UserPromptSubmit  gives the session its frame (goal: the first prompt's first
                    line) and adds its <flame-context> when it has changed;
                    with frame.auto = turns or all, opens the turn's frame
  PreToolUse        (Agent) notes the subagent call's description; (Bash, in a
                    subagent) makes a ctx command act on the subagent's frame
  PostToolUse       (TaskCreate, TaskUpdate) with frame.auto = todos or all:
                    a task in progress is a frame, closed when it is completed
                    (or set back, or deleted: blocked)
  Stop              with frame.auto = turns or all: closes the turn's frame,
                    the last answer its summary, its transcript span its log
  SubagentStart     pushes the subagent's frame and adds its <flame-context>
  SubagentStop      pops it: completed, with the subagent's last message as
                    summary and its transcript in the log
  PostToolUseFailure  (Agent) pops the subagent's frame as failed, or blocked
                    when it was interrupted; forgets a call whose subagent
                    never started
  PreCompact        prints the frame context and what the summary must keep
  PostCompact       records the compaction summary on the current frame
  UserPromptExpansion  notes the goal typed after /frame, ctx's forked command,
                    for the frame of the worker it starts
  SessionEnd        folds the session's transcript (claude.fold): each frame
                    pushed and popped through Bash becomes its pop and summary
                    for a later --continue or --resume, and each finished turn
                    or task frame loses its tool outputs to its log; the
                    original is kept in the session's folder
                    (ctx-fold-<ms>.jsonl)

Whatever goes wrong (bad JSON, a broken state file, an unknown event) exits 0
with nothing on stdout and one line in .opencode/flame/claude-hooks.log (or
ctx-hooks.log in $CLAUDE_CONFIG_DIR, default ~/.claude, when there is no project
folder to write in): a hook that fails must never stop Claude Code. The same log
says when a subagent's Agent call had to be guessed among several waiting.")]
    Hook {
        /// The hook event's name, as Claude Code spells it (SessionStart, UserPromptSubmit, …)
        event: String,
    },
}

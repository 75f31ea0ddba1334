//! `ctx qwen …` arguments: ctx's hooks for Qwen Code, and the entry point they call.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum QwenCommand {
    /// Add ctx's hooks to .qwen/settings.json (or, --global, the user's $QWEN_HOME/settings.json)
    #[command(long_about = "\
Add ctx's hooks to the project's .qwen/settings.json (or with --global the
user's settings.json in $QWEN_HOME, default ~/.qwen), where Qwen Code reads its
hooks. Qwen Code 0.24.4 runs a project's hooks without asking: no trust step is
needed.

The file is edited in place, never replaced: every key and hook of yours keeps
its place and its bytes. A hook entry is ctx's only when its command is exactly
one ctx writes for that event; those are replaced by the current ones, and a
hook of yours that merely mentions ctx is left alone. Refused, with nothing
written: a settings.json that is not valid JSON, has comments (which Qwen Code
reads, but ctx does not edit) or a key twice; a read-only file; a symbolic
link, to the file or a folder above it, that points to nothing. A link to a
file that exists is written through: the file it points to is rewritten, the
link stays.

--remove takes out exactly ctx's hook entries. Install then --remove gives your
file back byte for byte, but for two things: an empty \"hooks\": {} or event
list that ctx filled goes with ctx's entries, and a settings.json left holding
nothing at all (the one ctx's install created) is deleted rather than left as
{}, unless it is a link. Then .qwen/ goes when nothing else is in it and ctx's
install made it. Nothing else is deleted. --dry-run prints what would change
and writes nothing.
The hooks run `ctx` from Qwen Code's PATH (or $CTX_BIN); Qwen Code reads them
at its next start.")]
    Install {
        /// Install for every project: into $QWEN_HOME/settings.json (default ~/.qwen)
        #[arg(long)]
        global: bool,
        /// Take ctx's hooks out instead
        #[arg(long)]
        remove: bool,
        /// Print what would change and write nothing
        #[arg(long)]
        dry_run: bool,
    },

    /// The entry point of ctx's Qwen Code hooks: one event's JSON on stdin, the answer on stdout
    #[command(long_about = "\
Answer one Qwen Code hook event: its JSON comes on stdin, the answer (if any)
goes to stdout as Qwen Code expects it. `ctx qwen install` writes the hooks
that call it; people do not need to.

  SessionStart      adds the session's frame context to the system prompt of a
                    session that has a frame (a resumed one, or after a
                    compaction)
  UserPromptSubmit  gives the session its frame qw_<session id> (goal: the
                    first prompt's first line) and adds its frame context when
                    it has changed, with the exact `ctx frame push/pop
                    --session \"qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}\"`
                    commands for the model's shell; with frame.auto = turns or
                    all, opens the turn's frame. Qwen Code sends this event
                    again after each batch of tool calls, with no prompt:
                    ctx answers that with nothing
  PreToolUse        (agent) notes the subagent's description as its goal
  SubagentStart     pushes the subagent's frame, qw_<agent id>
  SubagentStop      pops it: completed, with the subagent's last message as
                    summary
  PreCompact        adds the current frame context to the compaction's request,
                    with what the summary must keep
  PostCompact       records the compaction's summary on the current frame
  Stop              with frame.auto = turns or all: closes the turn's frame,
                    the last answer its summary; then folds the session for
                    --continue (qwen.fold): each frame pushed and popped in
                    the shell becomes its pop and summary in a chat_compression
                    record appended to the session file, which keeps every
                    line it had
  SessionEnd        with frame.auto = turns or all: closes a turn left open

Qwen Code escapes < and > in what a hook adds, so ctx sends its frame context
with [ and ] for the tags ([flame-context …] … [/flame-context]), which reads
as well. Qwen Code gives a hook no way to change the messages a model call
sends, so a popped frame folds only for the next process that continues the
session; and SubagentStart's answer never reaches the subagent. Whatever goes
wrong (bad JSON, a broken state file, an unknown event) exits 0 with nothing on
stdout and one line in .opencode/flame/qwen-hooks.log (or ctx-hooks.log in
$QWEN_HOME, default ~/.qwen, when there is no project folder to write in): a
hook that fails must never stop Qwen Code.")]
    Hook {
        /// The hook event's name, as Qwen Code spells it (SessionStart, UserPromptSubmit, …)
        event: String,
    },
}

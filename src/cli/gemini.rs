//! `ctx gemini …` arguments: ctx's hooks for Gemini CLI, and the entry point they call.

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum GeminiCommand {
    /// Add ctx's hooks to .gemini/settings.json (or, --global, the user's ~/.gemini/settings.json)
    #[command(long_about = "\
Add ctx's hooks to the project's .gemini/settings.json (or with --global the
user's settings.json in ~/.gemini, below $GEMINI_CLI_HOME when set), where
Gemini CLI reads its hooks. Gemini CLI runs a project's hooks only in a folder
you trust (it asks on its first start there; a headless run takes --skip-trust
or GEMINI_CLI_TRUST_WORKSPACE=true), and names them once before their first
run; the hooks of --global run in every folder.

The file is edited in place, never replaced: every key and hook of yours keeps
its place and its bytes. A hook entry is ctx's only when its command is exactly
one ctx writes for that event; those are replaced by the current ones, and a
hook of yours that merely mentions ctx is left alone. Refused, with nothing
written: a settings.json that is not valid JSON, has comments (which Gemini CLI
reads, but ctx does not edit) or a key twice; a read-only file; a symbolic
link, to the file or a folder above it, that points to nothing. A link to a
file that exists is written through: the file it points to is rewritten, the
link stays.

--remove takes out exactly ctx's hook entries. Install then --remove gives your
file back byte for byte, but for two things: an empty \"hooks\": {} or event
list that ctx filled goes with ctx's entries, and a settings.json left holding
nothing at all (the one ctx's install created) is deleted rather than left as
{}, unless it is a link. Then .gemini/ goes when nothing else is in it and
ctx's install made it. Nothing else is deleted. --dry-run prints what would
change and writes nothing.
The hooks run `ctx` from Gemini CLI's PATH (or $CTX_BIN); Gemini CLI reads them
at its next start.")]
    Install {
        /// Install for every project: into ~/.gemini/settings.json (below $GEMINI_CLI_HOME)
        #[arg(long)]
        global: bool,
        /// Take ctx's hooks out instead
        #[arg(long)]
        remove: bool,
        /// Print what would change and write nothing
        #[arg(long)]
        dry_run: bool,
    },

    /// The entry point of ctx's Gemini CLI hooks: one event's JSON on stdin, the answer on stdout
    #[command(long_about = "\
Answer one Gemini CLI hook event: its JSON comes on stdin, the answer (if any)
goes to stdout as Gemini CLI reads it. `ctx gemini install` writes the hooks
that call it; people do not need to.

  BeforeAgent  gives the session its frame gm_<session id> (goal: the first
               prompt's first line) and adds its frame context when it has
               changed, with the exact `ctx frame push/pop --session
               gm_<session id>` commands for the model's shell (which holds
               no session id); with frame.auto = turns or all, opens the
               turn's frame
  BeforeTool   (invoke_agent) pushes the subagent's frame, gma_<16 hex
               digits>, below the session's current frame, its goal the
               prompt's first line, and puts its frame context and id after
               the subagent's prompt (Gemini CLI tells a subagent no hook's
               context, and a hook nothing of the subagent)
  AfterTool    (invoke_agent) pops it: completed with the subagent's result,
               or failed with why it stopped; a call with no AfterTool
               (cancelled, or blocked by another hook) has its frame closed
               failed at the next BeforeAgent, AfterAgent or SessionEnd
  AfterAgent   with frame.auto = turns or all: closes the turn's frame, the
               turn's answer its summary
  SessionEnd   with frame.auto = turns or all: closes a turn left open; with
               gemini.fold = on (the default), appends to the session file a
               line that sets its message list anew, each frame the model
               pushed and popped in its shell folded to its pop and summary,
               so that the next --resume sends it so

Gemini CLI escapes every < and > of a hook's text, so the frame context goes
with its tags in [ and ]. At each AfterAgent ctx also looks at the end of the
session file for a compression Gemini CLI applied in the turn (it writes the
snapshot only there, during the turn), records its <state_snapshot> on the
session's current frame once, and sends the frame context again with the next
prompt.

Gemini CLI gives a hook no way to drop a tool call from a model call, so a
popped frame's messages stay in the running conversation until it ends. The
list SessionEnd sets sends each tool result once (Gemini CLI 0.61.0 itself
sends each twice on --resume, which a strict API refuses); every line Gemini
CLI wrote stays in the file. Whatever goes wrong (bad
JSON, a broken state file, an unknown event) exits 0 with nothing on stdout and
one line in .opencode/flame/gemini-hooks.log (or ctx-hooks.log in ~/.gemini
when there is no project folder to write in): a hook that fails must never stop
Gemini CLI.")]
    Hook {
        /// The hook event's name, as Gemini CLI spells it (BeforeAgent, BeforeTool, …)
        event: String,
    },
}

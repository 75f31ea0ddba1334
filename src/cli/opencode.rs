//! `ctx opencode …` arguments: what ctx's OpenCode plugin calls to keep sessions and frames in
//! step.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum OpencodeCommand {
    /// Write ctx's OpenCode plugin and slash commands into .opencode/ (or, --global, the user's)
    #[command(long_about = "\
Write ctx's OpenCode plugin (plugin/ctx.js) and slash commands (command/push.md,
pop.md, status.md, plan.md, tree.md, swarm-status.md), which are built into
ctx, into the project's .opencode/ folder, or with --global into the user's
OpenCode folder ($XDG_CONFIG_HOME/opencode, default ~/.config/opencode).

Each file carries a stamp line. A file that already holds what ctx would write
is left alone; one an earlier ctx wrote and nobody changed is updated; one that
was changed (or is not ctx's) is kept, unless --force. --remove deletes them,
unless they were changed, then plugin/, command/ and .opencode/ (or the user's
OpenCode folder) when nothing else is in them and ctx's install made them (a
folder that was there before stays; the frame tree in
.opencode/flame/ keeps .opencode/); nothing else is deleted, and --force is
refused with it (a changed file is yours to delete). Prints one line per file
(and per folder removed); exit 1 when a file was kept. OpenCode loads the files
at its next start.")]
    Install {
        /// Install for every project: into the user's OpenCode folder
        #[arg(long)]
        global: bool,
        /// Delete ctx's plugin and commands instead (unless they were changed)
        #[arg(long, conflicts_with = "force")]
        remove: bool,
        #[command(flatten)]
        options: InstallOptions,
    },

    /// Print the frame of an OpenCode session, creating it when missing
    #[command(long_about = "\
Print the frame of an OpenCode session (the frame whose id is the session id),
creating it when missing, as an in_progress frame whose goal is the session's
title; for a child session titled '<description> (@<agent> subagent)', as a
task's, the description alone.

A child session (--parent-session, e.g. a subagent of OpenCode's task tool)
becomes a child of its parent session's current frame, when the setting
opencode.subagent_frames says so: all (the default: every child session,
known by its parent session whatever its title or agent), heuristic (the
sessions titled '<description> (@<agent> subagent)', as the task tool titles
them), or none. The parent session must have a frame.
A root session starts under the frame a person made current (activeFrameID),
when that frame is in_progress; else it is a new root.

The title is made one line (control characters become spaces) and cut to 200
characters; a blank one becomes 'OpenCode session <id>'. activeFrameID is never
changed. Prints the frame's id, or nothing when the session gets no frame.")]
    Frame {
        /// The OpenCode session id (ses_…)
        session: String,
        /// The session's title, which becomes the goal of a new frame
        #[arg(long, value_name = "TEXT")]
        title: Option<String>,
        /// The session that created this one (OpenCode's parentID)
        #[arg(long, value_name = "ID")]
        parent_session: Option<String>,
    },

    /// Pop the frame of a finished subagent session; nothing when there is none to pop
    #[command(long_about = "\
Pop the frame of an OpenCode session whose work has ended (a subagent whose task
call returned, or whose session failed), with its transcript in the log.

--state is the task's state as OpenCode reports it: completed pops the frame as
completed; aborted, cancelled or interrupted as blocked (it can be resumed with
`ctx frame activate`); any other state as failed. The summary is --summary, else
the last assistant text of the transcript. Frames the session pushed and left
running stay as they are, with a warning.

A transcript ctx cannot read (missing, cut short, not JSON, a folder) does not
keep the frame running: it is popped all the same, its log without the
messages, with one warning saying what could not be read.

A session without a frame, or whose frame has already finished, is left alone:
exit 0 and nothing printed (JSON: {\"version\": 1, \"frame\": null, \"reason\":
…}). Otherwise prints the popped frame's id (JSON: the document of `ctx frame
pop`).")]
    Finish {
        /// The OpenCode session id (ses_…)
        session: String,
        /// The task's state: completed, error, aborted, …
        #[arg(long, value_name = "STATE", default_value = "completed")]
        state: String,
        /// The frame's summary [default: the transcript's last assistant text]
        #[arg(long, value_name = "TEXT")]
        summary: Option<String>,
        /// The session's export, whose messages go into the log ('-' for stdin)
        ///
        /// The JSON `opencode export <sessionID>` prints.
        #[arg(long, value_name = "PATH")]
        transcript: Option<PathBuf>,
    },

    /// Open or close the turn frame of a person's message (frame.auto = turns or all)
    #[command(long_about = "\
Open or close a turn frame: a frame ctx opens by itself at a person's message
and closes at the agent's end of turn, so that a session stays small with a
model that never calls a ctx tool. Nothing happens unless frame.auto is turns
or all (a close happens whatever the setting, so that no turn is left open).

--start MSGID opens one for the session's new person message MSGID, under the
session's current frame, with --goal (its first line, cut as session titles
are cut) as goal, marked automatic (\"auto\": \"turn\" in state.json). It becomes
the session's current frame, so a flame_push made in the turn goes under it.
A turn still open is closed first; one still waiting for a frame pushed inside
it (below) opens no new turn: the person's message belongs to it.

--end closes the session's open turn as completed, its summary the last
assistant text of the turn's messages in --transcript (an OpenCode export),
then the commands it ran with their exit codes; the files it edited become its
artifacts; its log keeps every message and tool output. A turn with no
assistant text says so; one the person interrupted says that. A turn whose
explicit frames (pushed inside it) still run waits for them: it is left open,
and closes at the first end of turn after they were popped.

Once closed, `ctx opencode messages` folds the turn: its texts stay word for
word, each tool output becomes a line naming the frame and how to recall it
(flame_recall, or `ctx frame log <id>`).

Prints the id of the frame opened or closed, or nothing.")]
    Turn {
        /// The OpenCode session id (ses_…)
        session: String,
        /// Open a turn at this person's message (msg_…)
        #[arg(
            long,
            value_name = "MSGID",
            conflicts_with = "end",
            required_unless_present = "end"
        )]
        start: Option<String>,
        /// The turn's goal: the person's message
        #[arg(long, value_name = "TEXT", requires = "start")]
        goal: Option<String>,
        /// Close the session's open turn
        #[arg(long)]
        end: bool,
        /// The session's export, for the turn's log ('-' for stdin)
        #[arg(long, value_name = "PATH", requires = "end")]
        transcript: Option<PathBuf>,
    },

    /// Mark the frames of a deleted OpenCode session, keeping them in the tree
    #[command(long_about = "\
Mark what a deleted OpenCode session left running: its frame and every frame
below it that had not finished become invalidated, with the reason 'OpenCode
session <id> was deleted'. Nothing is removed: the tree keeps showing what
happened. The session's entry in sessionFrames is dropped. Prints the
invalidated ids.")]
    Deleted {
        /// The OpenCode session id (ses_…)
        session: String,
    },

    /// Print the message list a session sends to the model, with popped frames folded
    #[command(long_about = "\
Read the message list OpenCode is about to send to the model for a session (the
{\"messages\": [...]} of experimental.chat.messages.transform) on stdin, and
print it as it should be sent.

Folding (opencode.fold = on, the default): the messages of every frame this
session pushed and popped (from the message of the push up to the one of the
pop) are left out, and the pop's tool output becomes the frame's fold entry:
id, goal, status, summary, artifacts, decisions and its log's path. What a person wrote
inside the span folds too, unless opencode.fold_user_messages = keep. Only what
is sent changes: OpenCode's stored session keeps every message. A span whose
push is gone (compacted, or compressed by another plugin) folds what is left of
it: the messages written between the push and the pop, by their times; what
another plugin put in their place stays. A span whose pop is not among the
messages (popped from a shell) is not folded.

Frames ctx keeps by itself (frame.auto): a closed turn frame keeps every text
word for word and one call, its input emptied, whose output is the turn's entry
naming the frame whose log keeps every output; its other calls go with their
outputs (flame_* calls, an item's entry and the last todo list stay; a turn
whose outputs are shorter than its entry stays whole). With frame.auto = todos
or all, the todowrite calls among the messages that were not taken in yet open
a frame per item set in progress and close it when the item is completed,
cancelled, set back or dropped; a closed item's calls (between its two
todowrite calls) fold the same way.

The session's <flame-context> goes in a synthetic user message right after the
latest person's message, push or pop, the first time that one is the latest,
and the same text is sent after that same message from then on (recorded in
.opencode/flame/sessions/<session>.json): between two pushes or pops, every
request starts with the whole request before it, so prompt caches keep serving
it. A context equal to the one before it is not repeated.

With opencode.fold = off, the frame context is added to the last user message
of every request instead. --budget-warning adds opencode-swarm's context-budget
warning as the plugin does.

The pressure valve (with --context-limit and --output-limit, which the plugin
takes from chat.params): when the request's estimate (OpenCode's count of the
last model call plus what came after it, 4 characters a token) passes 90 % of
the count at which OpenCode compacts, the oldest tool outputs sent whole are
masked, but the last three calls', until it is under 30 %. A masked output
stays masked in later requests, and flame_recall with the id its mask names
(the call's id and its message's time, CALL@TIME) gives it back from
OpenCode's session.")]
    Messages {
        /// The OpenCode session sending the messages (ses_…)
        #[arg(long, value_name = "ID")]
        session: String,
        /// Add opencode-swarm's context-budget warning, as its plugin does
        #[arg(long)]
        budget_warning: bool,
        /// The model's context window, in tokens (for the pressure valve)
        #[arg(long, value_name = "TOKENS", requires = "output_limit")]
        context_limit: Option<u64>,
        /// The model's output limit, in tokens
        #[arg(long, value_name = "TOKENS", requires = "context_limit")]
        output_limit: Option<u64>,
        /// The model's input limit, in tokens, when it declares one
        #[arg(long, value_name = "TOKENS", requires = "context_limit")]
        input_limit: Option<u64>,
        /// OpenCode's compaction.reserved, when set
        #[arg(long, value_name = "TOKENS", requires = "context_limit")]
        reserved: Option<u64>,
    },
}

/// What every `install` command takes.
#[derive(Debug, clap::Args)]
pub struct InstallOptions {
    /// Replace files that were changed since ctx wrote them
    #[arg(long)]
    pub force: bool,
    /// Print what would be written and write nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Write ctx's git hooks (pre-commit, post-commit) into the repository's hooks folder
    #[command(long_about = "\
Write ctx's git hooks, which are built into ctx, into the repository's hooks
folder (as git finds it: core.hooksPath, worktrees): pre-commit refuses a
commit whose staged files exceed the token budget, post-commit records the
committed files as artifacts of the current frame.

The same rules as `ctx opencode install`: untouched earlier copies are updated,
changed files kept unless --force; exit 1 when a file was kept.")]
    Install {
        #[command(flatten)]
        options: InstallOptions,
    },
}

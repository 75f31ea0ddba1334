//! `ctx pi …` arguments: ctx's extension for pi (pi-coding-agent), and what it calls.

use std::path::PathBuf;

use clap::Subcommand;

use super::opencode::InstallOptions;

#[derive(Debug, Subcommand)]
pub enum PiCommand {
    /// Write ctx's pi extension into .pi/extensions/ (or, --global, pi's agent folder)
    #[command(long_about = "\
Write ctx's pi extension (extensions/ctx.ts), which is built into ctx, into the
project's .pi/ folder, or with --global into pi's agent folder
($PI_CODING_AGENT_DIR, default ~/.pi/agent), where pi finds extensions.

The extension gives pi the flame_* tools (flame_push, flame_pop, …) acting on
the session's frames (session pi_<pi's session id>), the /push, /pop, /status
and /plan commands, the frame context before each prompt, popped frames folded
before every model call (`ctx pi messages`), compaction summaries recorded on
the session's frame, and a frame for each session from its first tool call. A
pi started from another session (a subagent of pi's example extension, which
inherits CTX_SESSION) is a child frame of that session's current frame, popped
with its transcript when it ends (`ctx pi frame`, `ctx pi finish`). With the
setting pi.tools = off (`ctx config`), the model is offered no flame_* tool.
With frame.auto = turns (or all), each person's prompt is a turn frame, closed
at the agent's end and folded once closed (`ctx pi turn`), and the model is
offered flame_recall.

The file carries a stamp line. A file that already holds what ctx would write
is left alone; one an earlier ctx wrote and nobody changed is updated; one that
was changed (or is not ctx's) is kept, unless --force. --remove deletes it,
unless it was changed, then extensions/ and .pi/ (or pi's agent folder) when
nothing else is in them and ctx's install made them (a folder that was there
before stays); nothing else is deleted, and --force is refused with
it (a changed file is yours to delete). Refused, with nothing written: a
read-only file, a symbolic link that points to nothing. Prints one line per
file (and per folder removed); exit 1 when a file was kept. pi loads the
extension at its next start (or /reload).")]
    Install {
        /// Install for every project: into pi's agent folder
        #[arg(long)]
        global: bool,
        /// Delete ctx's extension instead (unless it was changed)
        #[arg(long, conflicts_with = "force")]
        remove: bool,
        #[command(flatten)]
        options: InstallOptions,
    },

    /// Print the frame of a pi session, creating it when missing
    #[command(override_usage = "ctx pi frame [OPTIONS] --session <ID>")]
    #[command(long_about = "\
Print the frame of a pi session (the frame whose id is the session,
pi_<pi's session id>), creating it when missing, as an in_progress frame whose
goal is --title. ctx's pi extension calls it at the session's first tool call
(or /push), and, in a pi started by another session's (a subagent of pi's
example extension, which inherits CTX_SESSION), before its first request.

With --parent-session (the session that started this pi), the frame is a child
of that session's current frame, which must exist: every pi started from a
session is a child frame. Without it, the session starts under the frame a
person made current (activeFrameID), when that frame is in_progress; else it is
a new root.

The title is made one line (control characters become spaces) and cut to 200
characters; a blank or missing one becomes 'pi session <pi's session id>'.
activeFrameID is never changed. Prints the frame's id (JSON: {\"version\": 1,
\"frame\": FRAME}).")]
    Frame {
        #[command(flatten)]
        session: SessionArg,
        /// The goal of a new frame: the first line of the session's first prompt
        #[arg(long, value_name = "TEXT")]
        title: Option<String>,
        /// The session that started this pi process (its CTX_SESSION)
        #[arg(long, value_name = "ID")]
        parent_session: Option<String>,
    },

    /// Pop the frame of a pi session that ended; nothing when there is none to pop
    #[command(override_usage = "ctx pi finish [OPTIONS] --session <ID>")]
    #[command(long_about = "\
Pop the frame of a pi session whose run has ended, with its messages in the
log. ctx's pi extension calls it when a pi started by another session (a
subagent of pi's example extension) shuts down.

--stop-reason is the stopReason of the run's last assistant message, as pi
records it: aborted pops the frame as blocked (it can be resumed with `ctx
frame activate`), error as failed, anything else (stop, length, toolUse) as
completed. The summary is --summary, else the last assistant text of the
transcript. Frames the session pushed and left running stay as they are, with
a warning.

A transcript ctx cannot read (missing, cut short, not JSON, a folder) does not
keep the frame running: it is popped all the same, its log without the
messages, with one warning saying what could not be read.

A session without a frame, or whose frame has already finished, is left alone:
exit 0 and nothing printed (JSON: {\"version\": 1, \"frame\": null, \"reason\":
…}). Otherwise prints the popped frame's id (JSON: the document of `ctx frame
pop`).")]
    Finish {
        #[command(flatten)]
        session: SessionArg,
        /// How the run ended: pi's stopReason (aborted, error, …)
        #[arg(long, value_name = "REASON", default_value = "stop")]
        stop_reason: String,
        /// The frame's summary [default: the transcript's last assistant text]
        #[arg(long, value_name = "TEXT")]
        summary: Option<String>,
        /// The session's messages, for the log ('-' for stdin)
        ///
        /// In the shape `opencode export <sessionID>` prints, as ctx's extension writes them:
        /// each tool call with its input and output.
        #[arg(long, value_name = "PATH")]
        transcript: Option<PathBuf>,
    },

    /// Open or close the turn frame of a person's prompt (frame.auto = turns or all)
    #[command(override_usage = "ctx pi turn [OPTIONS] --session <ID> <--start|--end>")]
    #[command(group(clap::ArgGroup::new("which").required(true).args(["start", "end"])))]
    #[command(long_about = "\
Open or close a turn frame: a frame ctx opens by itself at a person's prompt
and closes at the agent's end of turn, so that a session stays small with a
model that never calls a ctx tool. ctx's pi extension calls it: --start when a
person's prompt starts the agent (pi's before_agent_start, after an input event
whose source is not an extension), --end at pi's agent_end. Nothing happens
unless frame.auto is turns or all (an --end closes whatever the setting, so
that no turn is left open), or when the session has no frame of its own.

--start opens one under the session's current frame, with --goal (the prompt's
first line, cut as session titles are cut) as goal, marked automatic (\"auto\":
\"turn\" in state.json). It becomes the session's current frame, so a
flame_push made in the turn goes under it. pi's messages have no ids: the turn
begins at the time it opened. A turn still open (its end never came: the pi
process was killed) is closed first; one still waiting for a frame pushed
inside it (below) opens no new turn: the prompt belongs to it.

--end closes the session's open turn as completed. --messages gives pi's
messages ({\"messages\": [...]}, the agent_end event's, or the session's: those
written before the turn's prompt are left out): the summary is the turn's last
assistant text, then \"The person interrupted the turn.\" (stopReason aborted)
or the error it ended on, then the bash commands it ran with their exit codes;
the files its edit and write calls named become its artifacts; its log keeps
every message and tool output. A turn with no assistant text says so. Messages
ctx cannot read (not JSON, no message list) do not keep the turn open: it
closes without them in the log, with one warning. A turn whose explicit frames
(pushed inside it) still run waits for them: it is left open, and closes at
the first end of turn after they were popped.

Once closed, `ctx pi messages` folds the turn: every person's message and
text of the model's is sent as it was; the first tool call stays, its
arguments emptied, and its result becomes the turn's entry, naming the frame
and how to recall it (flame_recall, or `ctx frame log <id>`); every other call
goes with its result (flame_* calls stay), and a message left with nothing to
send goes too. A turn whose results are shorter than its entry stays whole.

Prints the id of the frame opened or closed, or nothing (JSON: {\"version\": 1,
\"frame\": FRAME or null}, and a \"reason\" when --end closed nothing).")]
    Turn {
        #[command(flatten)]
        session: SessionArg,
        /// Open a turn for the person's prompt that starts the agent
        #[arg(long, conflicts_with = "end")]
        start: bool,
        /// The turn's goal: the person's prompt
        #[arg(long, value_name = "TEXT", requires = "start")]
        goal: Option<String>,
        /// Close the session's open turn
        #[arg(long)]
        end: bool,
        /// pi's messages, for the turn's summary and log ('-' for stdin)
        ///
        /// {"messages": [...]}: the agent_end event's messages, or the session's.
        #[arg(long, value_name = "PATH", requires = "end")]
        messages: Option<PathBuf>,
    },

    /// Print the message list a pi session sends to the model, with popped frames folded
    #[command(long_about = "\
Read the message list pi is about to send to the model for a session (the
{\"messages\": [...]} of pi's context event) on stdin, and print it as it
should be sent, in the same shape. ctx's pi extension calls it before every
model call; the session is pi_<pi's session id>.

Folding is the same as `ctx opencode messages`, with pi's own settings: the
messages of every frame this session pushed and popped, from the assistant
message of the push up to the one of the pop, are left out with their tool
results, and the pop's tool result becomes the frame's fold entry. A push or
pop made by a slash command (/push, /pop: pi keeps no message of it) is placed
by its time: the span is the messages written between the two, and the entry
goes where the pop was. After a push or pop, the session's <flame-context>
goes in a message of its own (a custom message, as pi's extensions send them)
after that message's tool results, the first time it is the latest, and the
same text is sent there from then on (recorded in
.opencode/flame/sessions/<session>.json), so prompt caches keep serving the
history. After a person's prompt, the extension's own before_agent_start
message carries the context, and pi stores it.

With pi.fold = off the list is printed as it came (the frame context still
comes with the extension's before_agent_start message); with
pi.fold_user_messages = keep, what a person wrote inside a span stays.

The pressure valve (with --context-limit, the model's contextWindow, which
the extension passes while frame.auto is on): pi compacts when the last model
call's tokens pass the window less compaction.reserveTokens (--reserved,
16384 by default, as pi's). When the request's estimate passes 90 % of that,
the oldest tool results sent whole are masked, but the last three calls',
until it is under 30 %, as in `ctx opencode messages`; flame_recall with the
id its mask names (CALL@TIME) gives a masked result back from pi's session.

A message ctx does not know (no known role) is passed on as it is, with a
warning on stderr; a document that is no message list is refused (exit 1).")]
    Messages {
        /// The session sending the messages (pi_<pi's session id>)
        #[arg(long, value_name = "ID")]
        session: String,
        /// The model's context window, in tokens (for the pressure valve)
        #[arg(long, value_name = "TOKENS")]
        context_limit: Option<u64>,
        /// pi's compaction.reserveTokens [default: 16384]
        #[arg(long, value_name = "TOKENS", requires = "context_limit")]
        reserved: Option<u64>,
    },
}

/// The session `ctx pi frame`, `ctx pi finish` and `ctx pi turn` act on: `--session ID`, as `ctx
/// pi messages` takes it. The extension of an earlier ctx passes it as the first argument
/// instead, which still works (hidden from help) so that an extension installed before keeps
/// working.
#[derive(Debug, clap::Args)]
pub struct SessionArg {
    /// The session (pi_<pi's session id>)
    #[arg(
        long = "session",
        value_name = "ID",
        required_unless_present = "positional_session",
        conflicts_with = "positional_session"
    )]
    flag: Option<String>,
    #[arg(id = "positional_session", value_name = "SESSION", hide = true)]
    positional: Option<String>,
}

impl SessionArg {
    /// The session, whichever way it was given (clap requires exactly one).
    pub fn into_id(self) -> String {
        self.flag
            .or(self.positional)
            .expect("clap requires --session or the session argument")
    }
}

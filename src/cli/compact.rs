//! `ctx compact …` arguments.

use clap::{Args, Subcommand, ValueEnum};

use crate::cli::frame::FrameSelector;
use crate::compact::inject::Position;

/// A source of context entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum SourceArg {
    /// opencode-swarm's compaction entries ([SWARM PLAN], [SWARM DECISIONS], [SWARM TASKS],
    /// [SWARM PATTERNS]) from .swarm/
    Swarm,
    /// opencode-swarm's system-enhancer entries ([SWARM CONTEXT] …)
    System,
    /// The <flame-context> XML of the current frame
    Frame,
}

/// Output formats of `compact render`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    /// The entries separated by a blank line, then one newline
    Text,
    /// The output object of OpenCode's hook: {"context": [...]}, or {"system": [...]} for
    /// --for system alone
    Json,
    /// The <flame-context> document alone, then one newline
    Xml,
}

/// Output formats of `compact notice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NoticeFormat {
    /// The session.prompt body {"parts": [...]}
    Json,
    /// The visible line, a blank line, and the hint
    Text,
}

/// Who reads a notice's hint, and so which tools it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HostArg {
    /// A model with a shell: `ctx frame log ID`, `ctx frame activate ID`
    Shell,
    /// A model inside OpenCode with ctx's plugin: log paths for its read tool, flame_activate,
    /// and the task tool's task_id to resume a subagent
    Opencode,
}

/// What to render, shared by `render` and `inject`.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// A source: swarm, system, frame; repeatable [default: those that exist]
    ///
    /// swarm: opencode-swarm's compaction entries ([SWARM PLAN], [SWARM DECISIONS], [SWARM TASKS],
    /// [SWARM PATTERNS]) from .swarm/; system: its system-enhancer entries ([SWARM CONTEXT] …);
    /// frame: the <flame-context> XML of the current frame. Entries always come in the order
    /// swarm, system, frame. The default is swarm when .swarm/ holds a plan or context.md, and
    /// frame when there is a current frame; system only when asked for.
    #[arg(
        long = "for",
        value_enum,
        value_name = "SOURCE",
        hide_possible_values = true
    )]
    pub sources: Vec<SourceArg>,

    #[command(flatten)]
    pub selector: FrameSelector,

    /// Cap on the whole render, in tokens [default: no cap]
    ///
    /// Tokens are estimated as ceil(UTF-16 code units / 4) per entry plus one per separating blank
    /// line. Swarm and system entries are kept, in order, while they fit; the frame context gets
    /// the rest as its total budget, and is left out with a warning when that is too little,
    /// unless it is the only source. Without a cap, the frame context's own total applies (4000
    /// unless configured).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,

    /// The active opencode-swarm agent [default: none]
    ///
    /// It adds its [SWARM AGENT CONTEXT] system entry.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
}

fn parse_position(text: &str) -> Result<Position, String> {
    Position::parse(text)
}

#[derive(Debug, Subcommand)]
pub enum CompactCommand {
    /// Render context for OpenCode's compaction and system hooks
    #[command(long_about = "\
Render the context that goes back into the model: opencode-swarm's compaction
entries (--for swarm), its system-enhancer entries (--for system) and the
<flame-context> XML of the current frame (--for frame).

--format json prints exactly the output object of OpenCode's
experimental.session.compacting hook, {\"context\": [...]} (for --for system
alone, the experimental.chat.system.transform object {\"system\": [...]}), so a
plugin can push its entries as they are. --format text prints the entries
separated by a blank line; --format xml the frame context alone.

Each source is read on its own: a frame context that cannot render (no current
frame, a broken state file) is a warning when other entries render, and the
error only when nothing else does; when the sources are defaulted, a missing
source is skipped and nothing at all prints nothing (or {\"context\": []}).
When an OpenCode config (the project's, the user's, $OPENCODE_CONFIG) loads
opencode-swarm in its plugin list, the swarm and system entries are left out:
the plugin adds them itself. Reads only; never writes a file.")]
    Render {
        #[command(flatten)]
        sources: SourceArgs,
        /// Output: text, json, xml [default: text; json with --json]
        ///
        /// text: the entries separated by a blank line, then one newline; json: the output object
        /// of OpenCode's hook, {"context": [...]}, or {"system": [...]} for --for system alone;
        /// xml: the <flame-context> document alone, then one newline.
        #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
        format: Option<RenderFormat>,
        /// Add "prompt": TEXT to the JSON output [default: no prompt key]
        ///
        /// OpenCode then uses TEXT instead of its default compaction prompt and ignores
        /// "context". json format only.
        #[arg(long, value_name = "TEXT")]
        prompt: Option<String>,
    },

    /// Print the completion notice of a popped frame, for its parent's session
    #[command(long_about = "\
Print the two-part completion notice of a popped frame as the body of an
OpenCode session.prompt call:

  {\"parts\": [{\"type\": \"text\", \"text\": VISIBLE},
             {\"type\": \"text\", \"text\": HINT, \"synthetic\": true}]}

VISIBLE is one short line for people: the frame's abbreviated id, status and
goal (ending in \" [hint attached]\" when CTX_DEV=1 or NODE_ENV=development).
HINT is for the model: while sibling frames are still in_progress it names
them and says to wait for them or continue, without leaving them unfinished;
when none are left it lists the finished siblings and says to read their logs
with `ctx frame log ID`. With --host opencode the hint names what a model
inside OpenCode has instead: the logs' paths (for its read tool), the
flame_activate tool, and the task tool's task_id for a blocked subagent.

The frame must have been popped (or invalidated). Without --frame, the notice
is about the frame just popped: the current frame (of --session, $CTX_FRAME or
activeFrameID) when it has been popped, else its most recently popped child.
Reads only.")]
    Notice {
        #[command(flatten)]
        selector: FrameSelector,
        /// Output: json, text [default: json]
        ///
        /// json: the session.prompt body {"parts": [...]}; text: the visible line, a blank line,
        /// and the hint.
        #[arg(long, value_enum, value_name = "FORMAT", hide_possible_values = true)]
        format: Option<NoticeFormat>,
        /// Who reads the hint: shell, opencode [default: shell]
        ///
        /// shell: ctx commands (`ctx frame log ID`, `ctx frame activate ID`); opencode: the log
        /// paths, the flame_activate tool and the task tool's task_id, for a model inside
        /// OpenCode with ctx's plugin (a `ctx frame activate` run there would move the
        /// person's current frame, not the session's).
        #[arg(long, value_enum, value_name = "HOST", hide_possible_values = true)]
        host: Option<HostArg>,
    },

    /// Insert rendered context into an OpenCode message list read from stdin
    #[command(long_about = "\
Read {\"messages\": [{\"info\": {...}, \"parts\": [...]}, ...]} (the output of
OpenCode's experimental.chat.messages.transform hook) on standard input, insert
the rendered context (the entries of `ctx compact render`, separated by a blank
line) and print the same shape. Messages that do not change are copied byte for
byte; the others are written as compact JSON.

WHERE:
  prepend, append     a new synthetic user message first or last
  last-user           a synthetic text part appended to the last user message
  last-assistant      the same on the last assistant message
  before:MSGID        a new synthetic user message just before message MSGID
  after:MSGID         ... just after it

New messages copy sessionID, agent and model from the nearest user message;
new ids follow OpenCode's format (msg_/prt_ + time-based hex + random tail).
Unknown keys and key order are kept. When nothing renders, the input is
printed unchanged. Bad input or a missing target prints nothing and exits 1.")]
    Inject {
        /// Where the context goes (see the list above)
        ///
        /// prepend, append, last-user, last-assistant, before:MSGID, after:MSGID.
        #[arg(long, value_name = "WHERE", value_parser = parse_position)]
        at: Position,
        #[command(flatten)]
        sources: SourceArgs,
        /// Also add opencode-swarm's context-budget warning, as the plugin does
        ///
        /// The warning goes before the last user message's text when the list's texts pass the
        /// warn or critical share of the limit (budget.limit, else opencode-swarm's
        /// model_limits.default, else 128000; thresholds budget.warn and budget.critical) and that
        /// message's agent is none or architect, and never when an OpenCode config loads
        /// opencode-swarm (which gives it itself). When it goes in, a source that cannot render
        /// is left out with a warning.
        #[arg(long)]
        budget_warning: bool,
        /// Insert this text, after the entries of any --for
        #[arg(long, value_name = "TEXT", conflicts_with = "text_file")]
        text: Option<String>,
        /// Insert the text of this file, after the entries of any --for
        ///
        /// Not '-': standard input carries the message list.
        #[arg(long, value_name = "PATH")]
        text_file: Option<std::path::PathBuf>,
        /// Who a new message is from: user or assistant [default: user]
        ///
        /// For prepend, append, before:MSGID and after:MSGID; last-user and last-assistant add to
        /// a message whose role is already given.
        #[arg(long, value_enum, value_name = "ROLE", hide_possible_values = true)]
        role: Option<RoleArg>,
    },
}

/// Who an inserted message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    User,
    Assistant,
}

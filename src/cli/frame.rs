//! `ctx frame …` arguments.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use clap_complete::engine::ArgValueCandidates;

use crate::complete;

/// `--frame ID`, shared by the subcommands that act on "the current frame".
#[derive(Debug, Args)]
pub struct FrameSelector {
    /// The frame to act on [default: the current frame]
    ///
    /// A full id or a unique prefix of at least 4 characters. The default is the current frame of
    /// --session, else $CTX_FRAME, else activeFrameID in state.json.
    #[arg(long = "frame", value_name = "ID", add = ArgValueCandidates::new(complete::any_frame))]
    pub frame: Option<String>,
    #[command(flatten)]
    pub session: SessionArg,
}

/// `--span-message`, `--span-call`: where in an OpenCode session a push, pop or invalidation
/// happened, so that the frame's span can be folded (what ctx's plugin passes).
#[derive(Debug, Args, Default)]
pub struct SpanArgs {
    /// The OpenCode message of the tool call making this change
    ///
    /// Set by ctx's plugin. With --session, recorded on the frame (opencodeSpan), so that the
    /// messages of a popped frame can be folded out of what the session sends to the model.
    #[arg(long, value_name = "ID")]
    pub span_message: Option<String>,
    /// The OpenCode tool call making this change
    ///
    /// Set by ctx's plugin, with --span-message.
    #[arg(long, value_name = "ID")]
    pub span_call: Option<String>,
}

/// `--session ID`: whose current frame a command reads and moves.
#[derive(Debug, Args)]
pub struct SessionArg {
    /// Act for this OpenCode session
    ///
    /// Below --frame, above $CTX_FRAME. The session's current frame is the last one it pushed or
    /// activated and has not finished, else its own frame (the id equal to the session id), else
    /// activeFrameID. Commands that make a frame current move the session's current frame, never
    /// activeFrameID.
    #[arg(
        long = "session",
        value_name = "ID",
        env = "CTX_SESSION",
        hide_env_values = true
    )]
    pub session: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum FrameCommand {
    /// Start a new in_progress frame under the current frame and make it current
    #[command(long_about = "\
Start a new in_progress frame and make it current.

The parent is --parent, else the current frame (--frame, $CTX_FRAME, activeFrameID);
with none, the new frame is a root. The parent must be in_progress.
Prints the new frame's full id.")]
    Push(PushArgs),

    /// Finish the current frame, write its log, and make its parent current
    #[command(long_about = "\
Finish a frame (default: the current one), write its log to
.opencode/flame/logs/frame-<id>.md, and make its parent current.

Only in_progress and blocked frames can be popped. A frame with in_progress
descendants is refused unless --force. Planned descendants stay planned, named
in a warning with the command that drops them, unless --invalidate-planned.
Prints the id of the frame that is now current, or nothing when the popped frame
was a root.")]
    Pop(PopArgs),

    /// Print the frame tree, roots and children in creation order, current frame marked
    #[command(long_about = "\
Print the frame tree: roots and children in creation order, the current frame
marked, a legend with counts at the end. Ids are shown as their shortest unique
prefix (at least 8 characters), which every command accepts back. Lines fit the
terminal (80 columns in pipes); only goals are shortened. --frame ID marks that
frame \"← selected\" (\"← current\" when it is the current frame). A running frame
whose parent has ended (completed, failed, blocked, invalidated) is marked
\"stale\", with a line under the legend naming that parent: no session will pop
it any more (ctx frame invalidate ends it). So is a running subagent's frame
whose session has made no model call for frame.stale_after minutes (default
60, 0: never), its line saying since when. --json gives each such frame
\"stale\": {\"parent\": ID} or {\"last_model_call\": TIME}.")]
    Tree(TreeArgs),

    /// Print every field of one frame, untruncated [default: the current frame]
    Show(ShowArgs),

    /// Print the current frame's full id; exit 1 when there is none
    Current(CurrentArgs),

    /// Add planned children, in order, under the current frame; the current frame is unchanged
    Plan(PlanArgs),

    /// Start a planned or blocked frame, or return to a running one, and make it current
    #[command(long_about = "\
Make a frame current and running: a planned frame starts (planned → in_progress),
a blocked frame resumes (blocked → in_progress), a running frame left for another
becomes current again (unchanged). Its parent, when it has one, must be
in_progress. Prints the frame's id.")]
    Activate(ActivateArgs),

    /// Invalidate a frame and its planned descendants; in_progress descendants are reported
    #[command(long_about = "\
Invalidate a frame (default: the current one). Its planned descendants, at any
depth, are invalidated too, with the reason 'Parent frame invalidated: <reason>';
in_progress descendants are left as they are and reported. If the current frame
is invalidated, the target's parent becomes current. Prints the invalidated ids,
the target first.")]
    Invalidate(InvalidateArgs),

    /// Record files or other outputs on a frame (exact duplicates are skipped)
    Artifact(ArtifactArgs),

    /// Record decisions on a frame (exact duplicates are skipped)
    Decision(DecisionArgs),

    /// Correct a frame's goal, summary, artifacts or decisions, whatever its status
    #[command(long_about = "\
Correct a frame (default: the current frame), whatever its status: a typo in a
goal, a summary recorded on a running frame (OpenCode's compaction summary), a
summary amended after a pop, an artifact or decision recorded by mistake, a
planned frame's place among its siblings (--before, --after). A
popped frame's log is brought in step for the goal and summary (its title line
and Summary section; the rest is kept). Every change is checked before any is
made. Prints the frame's id.")]
    Edit(EditArgs),

    /// Plan an invalidated frame again (invalidated → planned)
    #[command(long_about = "\
Plan an invalidated frame again: its status becomes planned, its invalidation
reason and time are removed, and it can be activated as any planned frame. Its
parent must not have finished. The current frame is unchanged. Prints the id.")]
    Reopen(ReopenArgs),

    /// Import frames from Flame "stack" state (or another Flame v1 file)
    #[command(long_about = "\
Import frames from Flame's later \"stack\" state (default: .opencode/stack/state.json)
or from another Flame v1 state file. Each frame keeps its id and every key; stack
frames gain a goal (title: success criteria) and a summary (their results).
Frames whose id already exists are skipped with a warning. The source is only
read. Prints the imported ids.")]
    Import(ImportArgs),

    /// Print a popped frame's log file, or its path [default: the current frame]
    Log(LogArgs),
}

/// `ctx frame push`.
#[derive(Debug, Args)]
pub struct PushArgs {
    /// What the frame is for (must not be blank)
    pub goal: String,
    /// Parent frame [default: the current frame; none makes a root]
    #[arg(long, value_name = "ID", add = ArgValueCandidates::new(complete::running_frame))]
    pub parent: Option<String>,
    /// Adopt this id instead of generating one (e.g. an OpenCode session id)
    ///
    /// Letters, digits, '_' and '-', unique ignoring case. Generated ids are fr_ and 12
    /// random characters.
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    #[command(flatten)]
    pub selector: FrameSelector,
    #[command(flatten)]
    pub span: SpanArgs,
}

/// `ctx frame pop`.
#[derive(Debug, Args)]
pub struct PopArgs {
    /// Final status: completed, failed or blocked [default: completed]
    ///
    /// completed: the goal was reached; failed: it was not; blocked: waiting on something (a
    /// blocked frame can be popped again, or resumed with `ctx frame activate`).
    #[arg(
        long,
        value_enum,
        default_value_t = PopStatus::Completed,
        hide_default_value = true,
        hide_possible_values = true
    )]
    pub status: PopStatus,
    /// What the frame achieved
    ///
    /// Stored as compactionSummary and shown to later frames.
    #[arg(long, value_name = "TEXT", conflicts_with = "summary_file")]
    pub summary: Option<String>,
    /// Read the summary from a file, or '-' for stdin
    ///
    /// Trailing line breaks are removed.
    #[arg(long, value_name = "PATH")]
    pub summary_file: Option<PathBuf>,
    /// An OpenCode session export whose messages go into the log
    ///
    /// The JSON `opencode export <sessionID>` prints, from a file or '-' for stdin.
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
    /// Pop even when descendants are still in_progress
    ///
    /// They stay as they are, and a warning names them.
    #[arg(long)]
    pub force: bool,
    /// Invalidate the frame's planned descendants
    ///
    /// A planned frame cannot start under a finished frame: without this flag they stay
    /// planned (as Flame leaves them), and a warning names them with the command that drops
    /// them (`ctx frame invalidate ID --reason TEXT`). Their reason is 'Parent frame popped
    /// (<status>) before it started'. A frame popped as blocked can be resumed with `ctx
    /// frame activate`, and its planned children started then.
    #[arg(long)]
    pub invalidate_planned: bool,
    #[command(flatten)]
    pub selector: FrameSelector,
    #[command(flatten)]
    pub span: SpanArgs,
}

/// `ctx frame tree`.
#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Print only this frame's subtree
    #[arg(long, value_name = "ID", add = ArgValueCandidates::new(complete::any_frame))]
    pub from: Option<String>,
    /// Add summary, artifacts, decisions, reason and log below each frame
    #[arg(long)]
    pub details: bool,
    /// Draw with ASCII characters only
    #[arg(long)]
    pub ascii: bool,
    /// Draw N levels (1: the roots alone) [default: all]
    ///
    /// A frame with more levels below says how many frames it hides. Past 12 levels the
    /// drawing stops indenting, and says so.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: Option<u32>,
    /// Only frames of this status, with their ancestors (repeatable)
    ///
    /// in_progress, planned, completed, failed, blocked, invalidated.
    #[arg(long, value_name = "STATUS", value_enum, hide_possible_values = true)]
    pub status: Vec<StatusArg>,
    /// Show each frame's cost and tokens, with everything below it, before it
    ///
    /// With --json, each node gets "cost": its own and rolled-up figures. From OpenCode's records ($OPENCODE_DB, else $XDG_DATA_HOME/opencode/opencode.db), read
    /// as `ctx budget spent` reads them.
    #[arg(long)]
    pub cost: bool,
    /// text, or svg: an interactive flame graph [default: text]
    ///
    /// svg: one self-contained SVG, a box per frame with its parent above it, width by
    /// --weight, colour by status. Every frame is a box at least 4 px wide; one drawn wider
    /// than its weight is dashed, and its details say its weight. Hover or focus a box for its
    /// details, click to zoom into its branch, Escape to reset, "/" to search. A running
    /// frame's details say how long it has been open: to now, or to $SOURCE_DATE_EPOCH when
    /// set (the same picture for the same state, byte for byte).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = TreeFormat::Text, hide_default_value = true, hide_possible_values = true)]
    pub format: TreeFormat,
    /// Box width in --format svg: time, frames, tokens, cost [default: time]
    ///
    /// time: from creation to the last update, or the children's total when they ran side by
    /// side (a running frame weighs the work recorded so far, not the time it has been open);
    /// frames: the frame and its descendants; tokens: what its summary, decisions and log add
    /// to the context (o200k), with its descendants'; cost: what its model calls cost, with its
    /// descendants' (as `ctx budget spent` counts it).
    #[arg(long, value_name = "WEIGHT", value_enum, hide_possible_values = true)]
    pub weight: Option<WeightArg>,
    #[command(flatten)]
    pub selector: FrameSelector,
}

/// `ctx frame show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Frame id or unique prefix [default: the current frame]
    #[arg(add = ArgValueCandidates::new(complete::any_frame))]
    pub id: Option<String>,
    /// Add what the frame's own model calls cost, and with everything below it
    ///
    /// From OpenCode's records ($OPENCODE_DB, else $XDG_DATA_HOME/opencode/opencode.db), read
    /// as `ctx budget spent` reads them.
    #[arg(long)]
    pub cost: bool,
    #[command(flatten)]
    pub selector: FrameSelector,
}

/// `ctx frame current`.
#[derive(Debug, Args)]
pub struct CurrentArgs {
    #[command(flatten)]
    pub selector: FrameSelector,
}

/// `ctx frame plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// One goal per planned frame
    #[arg(required = true, num_args = 1..)]
    pub goals: Vec<String>,
    /// Parent frame [default: the current frame]
    #[arg(long, value_name = "ID", add = ArgValueCandidates::new(complete::running_frame))]
    pub parent: Option<String>,
    #[command(flatten)]
    pub selector: FrameSelector,
}

/// `ctx frame activate`.
#[derive(Debug, Args)]
pub struct ActivateArgs {
    /// Frame id or unique prefix
    #[arg(add = ArgValueCandidates::new(complete::activatable_frame))]
    pub id: String,
    #[command(flatten)]
    pub session: SessionArg,
    #[command(flatten)]
    pub span: SpanArgs,
}

/// `ctx frame invalidate`.
#[derive(Debug, Args)]
pub struct InvalidateArgs {
    /// Frame id or unique prefix [default: the current frame]
    #[arg(add = ArgValueCandidates::new(complete::any_frame))]
    pub id: Option<String>,
    /// Why the frame no longer applies (required, must not be blank)
    #[arg(long, value_name = "TEXT", required = true)]
    pub reason: String,
    /// Print what would change and change nothing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub selector: FrameSelector,
    #[command(flatten)]
    pub span: SpanArgs,
}

/// `ctx frame artifact`.
#[derive(Debug, Args)]
pub struct ArtifactArgs {
    /// Paths or names, stored exactly as given
    #[arg(required = true, num_args = 1..)]
    pub paths: Vec<String>,
    #[command(flatten)]
    pub selector: FrameSelector,
}

/// `ctx frame decision`.
#[derive(Debug, Args)]
pub struct DecisionArgs {
    /// The decisions, in order (none blank)
    #[arg(required = true, num_args = 1..)]
    pub texts: Vec<String>,
    #[command(flatten)]
    pub selector: FrameSelector,
}

/// `ctx frame edit`.
#[derive(Debug, Args)]
pub struct EditArgs {
    /// Frame id or unique prefix [default: the current frame]
    #[arg(add = ArgValueCandidates::new(complete::any_frame))]
    pub id: Option<String>,
    /// The new goal (must not be blank)
    #[arg(long, value_name = "TEXT")]
    pub goal: Option<String>,
    /// The new summary, stored as compactionSummary
    #[arg(long, value_name = "TEXT", conflicts_with = "summary_file")]
    pub summary: Option<String>,
    /// Read the new summary from a file, or '-' for stdin
    ///
    /// Trailing line breaks are removed.
    #[arg(long, value_name = "PATH")]
    pub summary_file: Option<PathBuf>,
    /// Remove an artifact recorded by mistake (repeatable)
    #[arg(long, value_name = "TEXT")]
    pub remove_artifact: Vec<String>,
    /// Remove a decision recorded by mistake (repeatable)
    ///
    /// The first decision equal to TEXT is removed.
    #[arg(long, value_name = "TEXT")]
    pub remove_decision: Vec<String>,
    /// Move a planned frame to just before this sibling
    ///
    /// Siblings are ordered by createdAt, then by their place in the file: the moved frame
    /// takes the sibling's createdAt and the place next to it (and in the parent's
    /// plannedChildren). Only a planned frame moves: it has not started.
    #[arg(long, value_name = "ID", conflicts_with = "after", add = ArgValueCandidates::new(complete::any_frame))]
    pub before: Option<String>,
    /// Move a planned frame to just after this sibling
    #[arg(long, value_name = "ID", add = ArgValueCandidates::new(complete::any_frame))]
    pub after: Option<String>,
    #[command(flatten)]
    pub selector: FrameSelector,
}

/// `ctx frame reopen`.
#[derive(Debug, Args)]
pub struct ReopenArgs {
    /// Frame id or unique prefix
    #[arg(add = ArgValueCandidates::new(complete::invalidated_frame))]
    pub id: String,
}

/// `ctx frame import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The state file to import from [default: .opencode/stack/state.json]
    pub path: Option<PathBuf>,
}

/// `ctx frame log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Frame id or unique prefix [default: the current frame]
    #[arg(add = ArgValueCandidates::new(complete::any_frame))]
    pub id: Option<String>,
    /// Print the log file's absolute path instead of its text
    #[arg(long)]
    pub path: bool,
    #[command(flatten)]
    pub selector: FrameSelector,
}

/// `frame tree --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TreeFormat {
    Text,
    Svg,
}

/// `frame tree --weight`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WeightArg {
    Time,
    Frames,
    Tokens,
    Cost,
}

/// A frame status, as `--status` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum StatusArg {
    InProgress,
    Planned,
    Completed,
    Failed,
    Blocked,
    Invalidated,
}

/// Statuses a pop may set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PopStatus {
    /// The goal was reached
    Completed,
    /// The goal was not reached
    Failed,
    /// Waiting on something; a blocked frame can be popped again later
    Blocked,
}

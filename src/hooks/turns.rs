//! What the SessionEnd folds of finished auto-frames (`frame.auto`: person turns and todo items)
//! share between Claude Code's transcript (`crate::claude::turn_fold`) and Codex's rollout
//! (`crate::codex::turn_fold`): the frames as the state knows them, what a fold of them made,
//! the frames each leaves unfolded and why, and the order of the two folds at the end of a
//! session (the model's own frames first, then the auto-frames, on what that fold left).

use super::frame_calls::frame_commands;
use super::transcript::Folded;

/// What an auto-frame spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A person's turn.
    Turn,
    /// A todo or plan item.
    Item,
}

impl Kind {
    /// The word for it in what a fold writes and logs.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Turn => "turn",
            Kind::Item => "item",
        }
    }

    /// The word at the start of a sentence.
    pub fn title(self) -> &'static str {
        match self {
            Kind::Turn => "Turn",
            Kind::Item => "Item",
        }
    }
}

/// A finished auto-frame of the session, as the state knows it.
#[derive(Debug, Clone)]
pub struct ClosedFrame {
    pub id: String,
    pub kind: Kind,
    pub goal: String,
    /// When it opened and closed, in ms since the epoch (ctx's clock at the hooks).
    pub from: i64,
    pub to: i64,
    /// The agent's own id of the turn (Claude Code's `prompt_id`, Codex's `turn_id`), when its
    /// prompt named one; an item has none.
    pub agent_turn: Option<String>,
    /// For an item, the finished turn frame it ran in: that turn folds it with the rest.
    pub in_turn: Option<String>,
}

/// The frames of `closed` a fold folds: every turn, and every item that ran in no finished turn
/// (one that did folds with its turn, which spans it).
pub fn to_fold(closed: &[ClosedFrame]) -> Vec<ClosedFrame> {
    closed
        .iter()
        .filter(|f| f.in_turn.is_none())
        .cloned()
        .collect()
}

/// The transcript with its finished turns folded: the new text (`None` when nothing folded), the
/// turns folded, and one sentence per turn left unfolded.
#[derive(Debug, Default)]
pub struct TurnsFolded {
    pub text: Option<String>,
    pub turns: Vec<String>,
    pub refused: Vec<String>,
}

/// Why a frame whose span holds a compaction is left unfolded.
pub fn refused_for_compaction(frame: &ClosedFrame) -> String {
    format!(
        "{} {} left unfolded: its span holds a compaction",
        frame.kind.word(),
        frame.id
    )
}

/// Why a frame in which the model ran `ctx frame` itself is left unfolded.
pub fn refused_for_frames(frame: &ClosedFrame) -> String {
    format!(
        "{} {} left unfolded: the model's own frames in it fold instead",
        frame.kind.word(),
        frame.id
    )
}

/// Whether a shell command of the model's pushes or pops a frame: its turn is then left to the
/// fold of the model's own frames.
pub fn runs_frame_commands(command: &str) -> bool {
    !frame_commands(command).is_empty()
}

/// The whole SessionEnd fold of a transcript: `frames` (the fold of the model's own frames) on
/// `text`, then `turns` on what it left; the turns folded follow the frames in the result.
pub fn frames_then_turns(
    text: &str,
    frames: impl FnOnce(&str) -> Result<Folded, String>,
    turns: impl FnOnce(&str) -> Result<TurnsFolded, String>,
) -> Result<Folded, String> {
    let mut folded = frames(text)?;
    let base = folded.text.as_deref().unwrap_or(text);
    let turned = turns(base)?;
    if turned.text.is_some() {
        folded.text = turned.text;
    }
    folded.frames.extend(turned.turns);
    folded.refused.extend(turned.refused);
    Ok(folded)
}

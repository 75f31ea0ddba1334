//! What the SessionEnd folds of finished turn frames (`frame.auto = "turns"`) share between
//! Claude Code's transcript (`crate::claude::turn_fold`) and Codex's rollout
//! (`crate::codex::turn_fold`): the turns as the state knows them, what a fold of them made,
//! the turns each leaves unfolded and why, and the order of the two folds at the end of a
//! session (the model's own frames first, then the turns, on what that fold left).

use super::frame_calls::frame_commands;
use super::transcript::Folded;

/// A finished turn frame of the session, as the state knows it.
#[derive(Debug, Clone)]
pub struct ClosedTurn {
    pub id: String,
    pub goal: String,
    /// When it opened and closed, in ms since the epoch (ctx's clock at the hooks).
    pub from: i64,
    pub to: i64,
    /// The agent's own id of the turn (Claude Code's `prompt_id`, Codex's `turn_id`), when its
    /// prompt named one.
    pub agent_turn: Option<String>,
}

/// The transcript with its finished turns folded: the new text (`None` when nothing folded), the
/// turns folded, and one sentence per turn left unfolded.
#[derive(Debug, Default)]
pub struct TurnsFolded {
    pub text: Option<String>,
    pub turns: Vec<String>,
    pub refused: Vec<String>,
}

/// Why a turn whose span holds a compaction is left unfolded.
pub fn refused_for_compaction(turn: &ClosedTurn) -> String {
    format!(
        "turn {} left unfolded: its span holds a compaction",
        turn.id
    )
}

/// Why a turn in which the model ran `ctx frame` itself is left unfolded.
pub fn refused_for_frames(turn: &ClosedTurn) -> String {
    format!(
        "turn {} left unfolded: the model's own frames in it fold instead",
        turn.id
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

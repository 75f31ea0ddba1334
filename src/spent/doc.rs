//! `ctx budget spent --json`: the document, as serializable structs (schemas/budget-spent.schema.json).

use schemars::JsonSchema;
use serde::Serialize;

use super::figures::Figures;
use crate::document::Version;
pub use crate::document::{FiguresDoc, TokensDoc};

/// `ctx budget spent --json`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SpentDoc {
    pub version: Version,
    /// How the rows are grouped: `frame`, `session`, `model` or `day`.
    #[schemars(extend("enum" = ["frame", "session", "model", "day"]))]
    pub by: &'static str,
    /// The records read.
    pub sources: Vec<SourceDoc>,
    /// `--since`, `--until` (calls created in [since, until)), when given.
    #[schemars(schema_with = "crate::document::optional_timestamp")]
    pub since: Option<String>,
    #[schemars(schema_with = "crate::document::optional_timestamp")]
    pub until: Option<String>,
    /// `--frame`, `--session`, when given (full ids).
    pub frame: Option<String>,
    pub session: Option<String>,
    /// Everything the report covers: with `--frame`, that frame's total; otherwise every call
    /// selected.
    pub total: FiguresDoc,
    /// With `by` = `frame`: the calls selected that no frame owns (sessions of other projects,
    /// sessions with no framed ancestor); `null` otherwise.
    pub unattributed: Option<FiguresDoc>,
    /// The rows, in the order of `by`: frames in tree order; sessions parents first, oldest
    /// first; models by cost, then tokens, descending; days ascending.
    pub rows: Vec<RowDoc>,
    /// `--max-cost`, when given.
    pub max_cost: Option<MaxCostDoc>,
    /// Records skipped or doubted, each naming its row or file.
    pub problems: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SourceDoc {
    /// `opencode-db` (opencode.db), `opencode-storage` (the JSON files of OpenCode 1.1 and
    /// older), `opencode-export` (an `opencode export` file), `claude-transcripts` (Claude Code's
    /// transcripts), `pi-sessions` (pi's session files) or `codex-sessions` (Codex CLI's rollout
    /// files).
    pub kind: &'static str,
    pub path: String,
}

impl From<&Figures> for FiguresDoc {
    fn from(f: &Figures) -> Self {
        FiguresDoc {
            calls: f.calls,
            tokens: TokensDoc {
                input: f.tokens.input,
                output: f.tokens.output,
                reasoning: f.tokens.reasoning,
                cache_read: f.tokens.cache_read,
                cache_write: f.tokens.cache_write,
                total: f.tokens.total,
            },
            cost: f.cost(),
            cost_recorded: f.recorded,
            cost_estimated: f.estimated,
            estimated_calls: f.estimated_calls,
            unpriced_calls: f.unpriced,
        }
    }
}

/// One row. `key` is the frame id, session id, `provider/model` or UTC day (`YYYY-MM-DD`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct RowDoc {
    pub key: String,
    /// Frames: the parent frame; sessions: the parent session. `null` for a root and for models
    /// and days.
    pub parent: Option<String>,
    /// Frames: the goal; sessions: the title; `null` for models and days.
    pub label: Option<String>,
    /// Frames: the status; `null` otherwise.
    pub status: Option<&'static str>,
    /// Frames: depth in the tree (0 for a root); sessions: depth among sessions.
    pub depth: Option<usize>,
    /// Frames: the frame's session (`null` for a frame with none); sessions: the frame that owns
    /// the session's calls when one does.
    pub link: Option<String>,
    /// Frames: the calls the frame owns itself; sessions: the session's own calls (what
    /// ccusage's row shows). `null` for models and days.
    pub own: Option<FiguresDoc>,
    /// Frames: own plus every frame below; sessions: own plus every subagent session below;
    /// models and days: their calls.
    pub total: FiguresDoc,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct MaxCostDoc {
    /// USD.
    pub limit: f64,
    /// Whether the total's known cost is above the limit (then the exit code is 6).
    pub exceeded: bool,
}

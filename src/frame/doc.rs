//! The JSON documents of `ctx frame … --json` (cli.md "JSON"), as types: they print the output and
//! generate the schemas in `schemas/`.

use schemars::JsonSchema;
use serde::Serialize;

use super::state::{Frame, State, Status, TreeIndex};
use crate::document::{self, Version};
use crate::time::rfc3339_ms;

/// A frame: cli.md's FRAME.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FrameJson {
    /// The full id.
    pub id: String,
    /// The parent's full id; null for a root.
    pub parent: Option<String>,
    pub status: Status,
    pub goal: String,
    #[schemars(schema_with = "document::timestamp")]
    pub created_at: String,
    #[schemars(schema_with = "document::timestamp")]
    pub updated_at: String,
    /// Paths recorded with `ctx frame artifact`, in the order they were added.
    pub artifacts: Vec<String>,
    /// Decisions recorded with `ctx frame decision`, in the order they were added.
    pub decisions: Vec<String>,
    /// The summary given when the frame was popped.
    pub summary: Option<String>,
    /// The frame's log file, as recorded in state.json.
    pub log_path: Option<String>,
    pub invalidation_reason: Option<String>,
    #[schemars(schema_with = "document::optional_timestamp")]
    pub invalidated_at: Option<String>,
    /// Ids of the planned children, in plan order.
    pub planned_children: Vec<String>,
}

impl FrameJson {
    pub fn new(frame: &Frame<'_>) -> FrameJson {
        FrameJson {
            id: frame.id.to_string(),
            parent: frame.parent().map(str::to_string),
            status: frame.status(),
            goal: frame.goal().to_string(),
            created_at: rfc3339_ms(frame.created_at()),
            updated_at: rfc3339_ms(frame.updated_at()),
            artifacts: frame.artifacts().map(str::to_string).collect(),
            decisions: frame.decisions().map(str::to_string).collect(),
            summary: frame.summary().map(str::to_string),
            log_path: frame.log_path().map(str::to_string),
            invalidation_reason: frame.invalidation_reason().map(str::to_string),
            invalidated_at: frame.invalidated_at().map(rfc3339_ms),
            planned_children: frame.planned_children().map(str::to_string).collect(),
        }
    }
}

/// What `ctx frame push`, `activate` and `current` print with --json.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FrameDoc {
    pub version: Version,
    pub frame: FrameJson,
}

/// What `ctx opencode frame --json` prints: the session's frame, or null when the session gets
/// none (a child session that `opencode.subagent_frames` leaves out).
#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionFrameDoc {
    pub version: Version,
    pub frame: Option<FrameJson>,
}

/// What `ctx frame show --json` prints: FRAME plus `extra`, the keys state.json holds that ctx
/// does not interpret.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShowDoc {
    pub version: Version,
    pub frame: ShownFrame,
    /// With `--cost`: the frame's own model calls, and with everything below it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<FrameCostDoc>,
}

/// `frame show --cost`: figures as `ctx budget spent` gives them.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FrameCostDoc {
    pub own: crate::document::FiguresDoc,
    pub total: crate::document::FiguresDoc,
}

/// FRAME plus the frame's unknown keys.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ShownFrame {
    #[serde(flatten)]
    pub frame: FrameJson,
    /// Unknown keys of the frame in state.json, with their values as stored (numbers as spelled).
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub extra: crate::json::Object,
}

/// What `ctx frame pop --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PopDoc {
    pub version: Version,
    /// The finished frame.
    pub frame: FrameJson,
    /// The frame that is now current, or null.
    pub current: Option<String>,
    /// The absolute path of the log written.
    pub log_path: String,
    /// The planned descendants `--invalidate-planned` invalidated (absent when none were).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invalidated: Vec<String>,
}

/// What `ctx opencode finish --json` prints: the pop's document, or, when the session had no
/// running frame to pop, `frame: null` and why.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum FinishDoc {
    Popped(Box<PopDoc>),
    Nothing(NothingToFinishDoc),
}

/// What `ctx opencode turn --json` and `ctx pi turn --json` print: the turn frame opened or
/// closed (`frame: null` when none was, as when `frame.auto` is off), or, when `--end` closed
/// none, `frame: null` and why.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum TurnDoc {
    Frame(Box<SessionFrameDoc>),
    Nothing(NothingToFinishDoc),
}

/// `ctx opencode finish --json` when nothing was popped.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NothingToFinishDoc {
    pub version: Version,
    /// Always null: no frame was finished.
    pub frame: (),
    /// Why not: the session has no frame, or its frame has already finished.
    pub reason: String,
}

/// What `ctx frame plan --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FramesDoc {
    pub version: Version,
    /// The new planned frames, in plan order.
    pub frames: Vec<FrameJson>,
}

/// What `ctx frame tree --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TreeDoc {
    pub version: Version,
    /// The current frame, or null.
    pub current: Option<String>,
    /// Root frames in creation order (or the `--from` frame alone).
    pub roots: Vec<TreeNode>,
}

/// A frame and its children, in creation order.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TreeNode {
    #[serde(flatten)]
    pub frame: FrameJson,
    pub children: Vec<TreeNode>,
    /// Present when the frame runs but nothing will pop it: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<StaleDoc>,
    /// With `--cost`: the frame's own model calls, and with everything below it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<FrameCostDoc>,
}

impl TreeNode {
    pub fn new(state: &State, index: &TreeIndex<'_>, id: &str) -> TreeNode {
        let frame = state.frame(id).expect("ids come from the index");
        TreeNode {
            frame: FrameJson::new(&frame),
            children: index
                .children(id)
                .iter()
                .map(|child| TreeNode::new(state, index, child))
                .collect(),
            stale: None,
            cost: None,
        }
    }

    /// Fills in `stale` here and below ([`super::stale::stale`]).
    pub fn add_stale(&mut self, state: &State, quiet: Option<&super::stale::Quiet<'_>>) {
        if let Some(frame) = state.frame(&self.frame.id) {
            self.stale = super::stale::stale(state, &frame, quiet).map(|why| match why {
                super::stale::Stale::ParentEnded(parent) => StaleDoc {
                    parent: Some(parent.id.to_string()),
                    last_model_call: None,
                },
                super::stale::Stale::Quiet(at) => StaleDoc {
                    parent: None,
                    last_model_call: Some(crate::time::rfc3339_ms(at)),
                },
            });
        }
        for child in &mut self.children {
            child.add_stale(state, quiet);
        }
    }

    /// Fills in `cost` here and below from figures by frame position.
    pub fn add_costs(
        &mut self,
        state: &State,
        own: &[crate::document::FiguresDoc],
        total: &[crate::document::FiguresDoc],
    ) {
        if let Some(pos) = state.position(&self.frame.id) {
            self.cost = Some(FrameCostDoc {
                own: own[pos].clone(),
                total: total[pos].clone(),
            });
        }
        for child in &mut self.children {
            child.add_costs(state, own, total);
        }
    }
}

/// Why a running frame is stale: one of the two fields.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StaleDoc {
    /// Its parent, which has ended (completed, failed, blocked, invalidated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The last model call of its session, a subagent's, longer ago than `frame.stale_after`
    /// (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_model_call: Option<String>,
}

/// What `ctx frame invalidate --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct InvalidateDoc {
    pub version: Version,
    /// Frames invalidated (or that would be, with --dry-run), the target first.
    pub invalidated: Vec<String>,
    /// In-progress descendants left as they are, for the caller to deal with.
    pub in_progress_descendants: Vec<String>,
    pub dry_run: bool,
}

/// What `ctx frame artifact --json` and `ctx frame decision --json` print.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AddedDoc {
    pub version: Version,
    /// The frame after the change.
    pub frame: FrameJson,
    /// What this command added (artifacts already recorded are not added twice).
    pub added: Vec<String>,
}

/// What `ctx frame log --json` prints: the path, and the text unless `--path` was given.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LogDoc {
    pub version: Version,
    pub id: String,
    /// The absolute path of the log file.
    pub path: String,
    /// The log's text (invalid UTF-8 replaced); absent with --path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// What `ctx frame import --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ImportDoc {
    pub version: Version,
    /// Ids of the frames added.
    pub imported: Vec<String>,
    /// Ids already present, left as they were.
    pub skipped: Vec<String>,
}

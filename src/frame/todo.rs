//! Todo frames (`frame.auto = todos` or `all`), the same for every agent's todo or plan tool
//! (OpenCode's `todowrite`, Claude Code's `TaskCreate`/`TaskUpdate`, Codex's `update_plan`): a
//! frame ctx opens when an item goes in progress, with the item's text as its goal, and closes
//! when the item is completed, cancelled, set back, or leaves the list, so that a long turn folds
//! item by item with a model that never calls a ctx tool. Each agent's adapter reads its tool's
//! calls into [`Update`]s and says how an item's span of messages is read ([`Reader`]).
//!
//! How todo frames nest: an item's frame opens under the session's current frame, or, when that
//! is another item's frame, beside it (two items in progress at once are siblings), so it goes
//! under the person's turn when turns are on. It becomes the session's current frame: a push made
//! while the item runs goes under it. An item's frame whose explicit frames still run when the
//! item ends waits for them: it closes at the first update after they were popped, or with its
//! turn. When its turn ends first, it closes as blocked, and the item's next update in progress
//! opens a new frame.
//!
//! An item is known by its key: its text where the tool gives items no id (OpenCode, Codex; a
//! renamed item is then a new item, and two items of the same text are one), the tool's own id
//! where it has one (Claude Code's task ids). A frame records its item's key when it differs
//! from its goal.

use super::digest::{self, Digest, Ending, Tools};
use super::log;
use super::span::Mark;
use super::state::{State, Status, TreeIndex};
use super::store::Store;
use super::{auto, state::Frame};
use crate::conversation::Export;
use crate::error::Result;
use crate::json::Json;

/// What an item's summary says when no assistant text was written while it ran.
const NO_TEXT: &str = "No assistant text was written while the item was in progress.";

/// What an item's frame says when its turn ended before the item did.
const TURN_ENDED: &str = "The turn ended before the item was finished.";

/// The frame key of an item's key, when it is not the frame's goal.
const ITEM_KEY: &str = "todo_item";

/// An item of a todo list or plan, as an update left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What the item is known by across updates (see the module's doc).
    pub key: String,
    /// Its text: the goal of its frame.
    pub goal: String,
    /// Its status, as the tool wrote it: ctx reads `in_progress`, `completed`, `cancelled` and
    /// `deleted`, and any other value as "not in progress".
    pub status: String,
}

impl Item {
    /// An item known by its text.
    pub fn of_text(text: &str, status: &str) -> Item {
        Item {
            key: text.to_string(),
            goal: text.to_string(),
            status: status.to_string(),
        }
    }

    pub fn in_progress(&self) -> bool {
        self.status == "in_progress"
    }
}

/// One call of an agent's todo or plan tool, as ctx takes it in.
pub struct Update<'a> {
    pub items: &'a [Item],
    /// Whether the call holds the whole list (`todowrite`, `update_plan`), so that an item it
    /// does not hold has left the list; a call that names some items only (Claude Code's
    /// `TaskUpdate`) leaves the others as they are.
    pub whole: bool,
    /// When and where the call was made: where the frames it opens begin and those it closes end.
    pub mark: &'a Mark,
}

/// How an agent's item spans are read, for the logs and summaries of the item frames it closes.
pub struct Reader<'r> {
    /// The messages of item frame `id`'s span, up to the update that closes it; `None` when they
    /// cannot be read (the frame then closes with its summary alone).
    pub span: &'r mut dyn FnMut(&State, &str) -> Option<Export>,
    pub tools: &'r Tools,
    /// `frame.log.output_max`.
    pub output_max: usize,
}

impl Reader<'_> {
    /// The summary and log messages of item frame `id`, opened by `why` when the item did not
    /// simply end.
    fn ending(
        &mut self,
        state: &State,
        id: &str,
        why: Option<&str>,
    ) -> (Digest, Option<log::Messages>) {
        let span = (self.span)(state, id);
        let mut digest = match &span {
            Some(span) => digest::digest_or(span, self.tools, &Ending::Finished, NO_TEXT),
            None => Digest {
                summary: NO_TEXT.to_string(),
                files: Vec::new(),
            },
        };
        if let Some(why) = why {
            digest.summary = match span {
                Some(_) => format!("{why}\n\n{}", digest.summary),
                None => why.to_string(),
            };
        }
        let messages = span.map(|span| log::Messages::of(&span, self.output_max));
        (digest, messages)
    }
}

/// The key of the item whose frame is `frame`.
fn key_of<'f>(frame: &Frame<'f>) -> &'f str {
    frame
        .field(ITEM_KEY)
        .and_then(Json::as_str)
        .unwrap_or_else(|| frame.goal())
}

/// Applies one update: closes the open item frames of `session` whose item it ends, then opens a
/// frame for each item it holds in progress that has none. Returns the frames that could not
/// close, with the explicit frames still running in them.
pub fn take_in(
    state: &mut State,
    store: &Store,
    session: &str,
    update: &Update<'_>,
    reader: &mut Reader<'_>,
) -> Result<Vec<(String, Vec<String>)>> {
    let mut waiting = Vec::new();
    for id in auto::open_todos(state, session) {
        let Some(key) = state.frame(&id).map(|f| key_of(&f).to_string()) else {
            continue;
        };
        let item = update.items.iter().find(|i| i.key == key);
        if item.is_some_and(Item::in_progress) || (item.is_none() && !update.whole) {
            continue;
        }
        let running = auto::explicit_running_below(state, &id);
        if !running.is_empty() {
            waiting.push((id, running));
            continue;
        }
        let (status, why) = match item.map(|i| i.status.as_str()) {
            Some("completed") => (Status::Completed, None),
            Some(status @ ("cancelled" | "deleted")) => {
                (Status::Blocked, Some(format!("The item was {status}.")))
            }
            Some(other) => (
                Status::Blocked,
                Some(format!(
                    "The item was set to {} before it was finished.",
                    if other.is_empty() { "no status" } else { other }
                )),
            ),
            None => (
                Status::Blocked,
                Some("The item left the todo list before it was finished.".to_string()),
            ),
        };
        let (digest, messages) = reader.ending(state, &id, why.as_deref());
        let ending = auto::Ending {
            status,
            summary: &digest.summary,
            files: &digest.files,
            messages: messages.as_ref(),
        };
        auto::close(
            state,
            store,
            session,
            &id,
            &ending,
            update.mark.clone(),
            false,
        )?;
    }
    let mut opened: Vec<&str> = Vec::new();
    for item in update.items.iter().filter(|i| i.in_progress()) {
        if opened.contains(&item.key.as_str()) {
            continue;
        }
        opened.push(&item.key);
        let open = auto::open_todos(state, session);
        if open
            .iter()
            .any(|id| state.frame(id).is_some_and(|f| key_of(&f) == item.key))
        {
            continue;
        }
        // Beside the items in progress, so that items in progress together are siblings.
        let parent = auto::current_past_items(state, session)?;
        let id = auto::open(
            state,
            session,
            &item.goal,
            parent.as_deref(),
            auto::TODO,
            update.mark.clone(),
        )?;
        if item.key != item.goal {
            state.set_field(&id, ITEM_KEY, Json::str(&item.key));
        }
    }
    Ok(waiting)
}

/// Closes the open item frames below turn `turn` as blocked, as the turn closes before their
/// items ended; each one's log holds its span as `reader` reads it, when one is given. An item
/// frame with explicit frames still running in it stays open.
pub fn close_in_turn(
    state: &mut State,
    store: &Store,
    session: &str,
    turn: &str,
    mut reader: Option<&mut Reader<'_>>,
    now: i64,
) -> Result<()> {
    let index = TreeIndex::new(state);
    let below: Vec<String> = index.subtree(turn)[1..]
        .iter()
        .map(|d| d.to_string())
        .collect();
    drop(index);
    for id in auto::open_todos(state, session) {
        if !below.contains(&id) || !auto::explicit_running_below(state, &id).is_empty() {
            continue;
        }
        let (digest, messages) = match reader.as_deref_mut() {
            Some(reader) => reader.ending(state, &id, Some(TURN_ENDED)),
            None => (
                Digest {
                    summary: TURN_ENDED.to_string(),
                    files: Vec::new(),
                },
                None,
            ),
        };
        let ending = auto::Ending {
            status: Status::Blocked,
            summary: &digest.summary,
            // What a turn's item edited is the turn's artifact: the item did not finish.
            files: &[],
            messages: messages.as_ref(),
        };
        auto::close(
            state,
            store,
            session,
            &id,
            &ending,
            Mark::new(now, None, None),
            false,
        )?;
    }
    Ok(())
}

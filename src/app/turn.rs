//! Turn frames (`frame.auto = turns` or `all`), for `ctx opencode turn` and `ctx pi turn`: a
//! frame ctx opens at a person's message and closes at the agent's end of turn, so that a session
//! stays small with a model that never calls a ctx tool (`ctx opencode messages` and `ctx pi
//! messages` fold each closed turn's outputs). What differs between the two agents is only what
//! marks the turn's start (OpenCode's message id; pi's messages have none, so its turn begins at
//! its time) and how the messages given at its end are read ([`Given`]).
//!
//! How turns and explicit frames nest: a turn opens under the session's current frame and becomes
//! it, so a `flame_push` (or `ctx frame push --session`) made during the turn goes under the turn.
//! A turn whose explicit frames still run at its end of turn waits for them: it stays open, the
//! person's next message opens no new turn (it belongs to the waiting one), and the turn closes
//! at the first end of turn after they were popped. A turn never pops a frame the model pushed.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Context;
use super::pop::read_transcript;
use crate::conversation::Export;
use crate::document::Version;
use crate::error::{Error, ExitCode, Result};
use crate::frame::digest::{self, Digest, Ending, Tools};
use crate::frame::doc::{FrameJson, NothingToFinishDoc, SessionFrameDoc, TurnDoc};
use crate::frame::id::SessionId;
use crate::frame::ops::{self, Selector};
use crate::frame::span::{self, Mark};
use crate::frame::state::{State, Status};
use crate::frame::store::Store;
use crate::frame::{auto, log};
use crate::input::{label, read_input};
use crate::settings;

/// What a turn closed without its end of turn (the next person's message came first) says.
const UNSEEN_END: &str = "The turn's end was not seen; the next person's message closed it.";

/// The goal of a turn: the first line of the person's message with some words, cut as a
/// session's title is; without one, the turn is named after its message (or, for an agent whose
/// messages have no ids, its time).
fn goal(text: Option<&str>, message: Option<&str>, now: i64) -> String {
    let first = text.and_then(|t| t.lines().find(|l| !l.trim().is_empty()));
    super::session::goal_from_title(first, || match message {
        Some(message) => format!("Turn at {message}"),
        None => format!("Turn at {}", crate::time::rfc3339_ms(now)),
    })
}

/// The messages an agent gave at its end of turn, read: what the turn's log and summary are made
/// of, each agent's own way.
trait Given {
    /// The messages of session `session`'s turn that opened at `open`, titled `goal`, and
    /// their digest.
    fn turn(&self, session: &str, open: &Mark, goal: &str) -> (Export, Digest);
}

/// An OpenCode session's export: the turn runs from its person's message to the next one.
struct OpenCodeExport(Export);

impl Given for OpenCodeExport {
    fn turn(&self, _session: &str, open: &Mark, _goal: &str) -> (Export, Digest) {
        use crate::opencode::turn as opencode;
        let start = open.message.as_deref().unwrap_or_default();
        let turn = opencode::span(&self.0, start);
        let tools = Tools {
            shell: opencode::SHELL_TOOLS,
            editing: opencode::EDITING_TOOLS,
            path_keys: opencode::PATH_KEYS,
        };
        let ending = if opencode::interrupted(&turn) {
            Ending::Interrupted
        } else {
            Ending::Finished
        };
        let digest = digest::digest(&turn, &tools, &ending);
        (turn, digest)
    }
}

/// pi's messages (`agent_end`'s, or the session's): the turn's are those written from its open
/// on, with the person's message before them.
struct PiMessages(Vec<Value>);

impl Given for PiMessages {
    fn turn(&self, session: &str, open: &Mark, goal: &str) -> (Export, Digest) {
        use crate::pi::turn as pi;
        let messages = pi::cut(&self.0, open.at);
        let turn = pi::to_export(messages, session, goal);
        let tools = Tools {
            shell: pi::SHELL_TOOLS,
            editing: pi::EDITING_TOOLS,
            path_keys: pi::PATH_KEYS,
        };
        let digest = digest::digest(&turn, &tools, &pi::ending(messages));
        (turn, digest)
    }
}

/// Closes turn `id` of `session` as completed with `digest`, and writes its log; the item frames
/// still open in it close first, as blocked, with the turn's messages (`turn`, outputs cut at the
/// given size) from each one's start in their logs.
#[allow(clippy::too_many_arguments)]
fn close(
    state: &mut State,
    store: &Store,
    session: &str,
    id: &str,
    digest: &Digest,
    messages: Option<&log::Messages>,
    turn: Option<(&Export, usize)>,
    now: i64,
) -> Result<()> {
    super::todo::close_in_turn(state, store, session, id, turn, now)?;
    let ending = auto::Ending {
        status: Status::Completed,
        summary: &digest.summary,
        files: &digest.files,
        messages,
    };
    let mark = Mark::new(now, None, None);
    auto::close(state, store, session, id, &ending, mark, true)
}

/// What `start` did.
enum Started {
    /// `frame.auto` opens no turns, or the session has no frame of its own.
    Nothing,
    Opened(String),
    /// This message's turn was already open.
    Open(String),
    /// The open turn waits for the explicit frames pushed in it: the message is its.
    Waits(String, Vec<String>),
}

/// `ctx opencode turn SESSION --start MSGID` and `ctx pi turn --session SESSION --start`: opens
/// the turn frame of a person's message, `message` where the agent's messages have ids.
pub(crate) fn start(
    ctx: &mut Context,
    store: &Store,
    session: &SessionId,
    message: Option<&str>,
    text: Option<&str>,
) -> Result<ExitCode> {
    if let Some(message) = message {
        ops::require_text("the message id", message)?;
    }
    let started = if ctx.auto_frames()?.turns {
        let goal = goal(text, message, ctx.now);
        let now = ctx.now;
        store
            .update(now, |state| {
                // A session with no frame of its own (a subagent ctx does not frame) has no turns.
                if state.frame(session).is_none() {
                    return Ok((Started::Nothing, false));
                }
                if let Some(open) = auto::open_turn(state, session) {
                    let frame = state.frame(&open).expect("the open turn exists");
                    let span = span::read(&frame).ok().flatten();
                    if message.is_some()
                        && span.is_some_and(|s| s.open.message.as_deref() == message)
                    {
                        return Ok((Started::Open(open), false));
                    }
                    let running = auto::explicit_running_below(state, &open);
                    if !running.is_empty() {
                        return Ok((Started::Waits(open, running), false));
                    }
                    // Its end of turn never reached ctx (OpenCode exited first): closed here,
                    // its log without the messages, which stay in OpenCode's session.
                    let digest = Digest {
                        summary: UNSEEN_END.to_string(),
                        files: Vec::new(),
                    };
                    close(state, store, session, &open, &digest, None, None, now)?;
                }
                let selector = Selector {
                    session: Some(session.clone()),
                    ..Selector::default()
                };
                let (parent, _) = ops::push_parent(state, &selector)?;
                let at = Mark::new(now, message, None);
                let id = auto::open(state, session, &goal, parent.as_deref(), auto::TURN, at)?;
                Ok((Started::Opened(id), true))
            })?
            .0
    } else {
        Started::Nothing
    };
    let id = match started {
        Started::Nothing => None,
        Started::Opened(id) | Started::Open(id) => Some(id),
        Started::Waits(id, running) => {
            ctx.out.note(&format!(
                "turn {id} waits for {}: this message is its",
                running.join(", ")
            ));
            None
        }
    };
    print_frame(ctx, store, id)
}

/// `ctx opencode turn SESSION --end`: closes the session's open turn, with the turn's messages
/// of `transcript` (OpenCode's export of the session) in its log.
pub(crate) fn end_opencode(
    ctx: &mut Context,
    store: &Store,
    session: &SessionId,
    transcript: Option<PathBuf>,
) -> Result<ExitCode> {
    match transcript.map(|path| read_transcript(&path)) {
        None => end(ctx, store, session, Messages::NotGiven),
        Some(Err(unread)) => end(ctx, store, session, Messages::Unread(unread)),
        Some(Ok(export)) => end(
            ctx,
            store,
            session,
            Messages::Given(&OpenCodeExport(export)),
        ),
    }
}

/// `ctx pi turn --session SESSION --end`: closes the session's open turn, with the turn's
/// messages of `messages` (`{"messages": [...]}`, pi's `agent_end` messages) in its log.
pub(crate) fn end_pi(
    ctx: &mut Context,
    store: &Store,
    session: &SessionId,
    messages: Option<PathBuf>,
) -> Result<ExitCode> {
    match messages.map(|path| read_pi_messages(&path)) {
        None => end(ctx, store, session, Messages::NotGiven),
        Some(Err(unread)) => end(ctx, store, session, Messages::Unread(unread)),
        Some(Ok(messages)) => end(ctx, store, session, Messages::Given(&PiMessages(messages))),
    }
}

/// The largest message list read at an end of turn: pi's whole session, at worst.
const MAX_MESSAGES_BYTES: u64 = 1 << 30;

/// pi's messages at `path` (`-`: stdin), `{"messages": [...]}` as `ctx pi messages` reads them;
/// refused when that is no message list. Each message is read as it is: the turn's export
/// leaves out what is not a pi message.
fn read_pi_messages(path: &Path) -> Result<Vec<Value>> {
    let named = |mut e: Error| {
        e.message = format!("{}: {}", label(path), e.message);
        e
    };
    let bytes = read_input(path, MAX_MESSAGES_BYTES)?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| Error::failure(format!("{}: not UTF-8 text", label(path))))?;
    let parsed = crate::compact::fold::pi::parse(text).map_err(named)?;
    Ok(parsed
        .list
        .messages()
        .iter()
        .map(|m| serde_json::from_str(m.raw()).unwrap_or(Value::Null))
        .collect())
}

/// The messages an agent gave at its end of turn.
enum Messages<'g> {
    Given(&'g dyn Given),
    NotGiven,
    /// Given, but not readable: the turn has ended whatever the agent gave, so messages that
    /// cannot be read cost the log its messages, never the close.
    Unread(Error),
}

/// Closes the session's open turn, with the turn's messages in its log.
fn end(
    ctx: &mut Context,
    store: &Store,
    session: &str,
    messages: Messages<'_>,
) -> Result<ExitCode> {
    let loaded = store.load()?;
    let Some(open) = auto::open_turn(&loaded, session) else {
        return nothing(ctx, "the session has no open turn");
    };
    let running = auto::explicit_running_below(&loaded, &open);
    if !running.is_empty() {
        ctx.out.note(&format!(
            "turn {open} waits for {}, pushed in it",
            running.join(", ")
        ));
        return nothing(ctx, "the open turn waits for the frames pushed in it");
    }
    if let Messages::Unread(unread) = &messages {
        ctx.out.warn(&format!(
            "{}; the turn is closed without its messages in the log",
            unread.message
        ));
    }
    let frame = loaded.frame(&open).expect("the open turn exists");
    let opened = span::read(&frame)
        .ok()
        .flatten()
        .map_or_else(|| Mark::new(frame.created_at(), None, None), |s| s.open);
    let without = |summary: &str| {
        let digest = Digest {
            summary: summary.to_string(),
            files: Vec::new(),
        };
        (None, digest)
    };
    let (turn, digest) = match messages {
        Messages::Given(given) => {
            let (turn, digest) = given.turn(session, &opened, frame.goal());
            (Some(turn), digest)
        }
        Messages::NotGiven => without("The turn ended; its messages were not given to ctx."),
        Messages::Unread(_) => without("The turn ended; its messages could not be read."),
    };
    let output_max = ctx.settings()?.count(&settings::FRAME_LOG_OUTPUT_MAX)? as usize;
    let messages = turn.as_ref().map(|t| log::Messages::of(t, output_max));
    let now = ctx.now;
    let closed = store
        .update(now, |state| {
            // Another process may have closed it, or a frame been pushed in it, since the read.
            if auto::open_turn(state, session).as_deref() != Some(open.as_str())
                || !auto::explicit_running_below(state, &open).is_empty()
            {
                return Ok((false, false));
            }
            close(
                state,
                store,
                session,
                &open,
                &digest,
                messages.as_ref(),
                turn.as_ref().map(|t| (t, output_max)),
                now,
            )?;
            Ok((true, true))
        })?
        .0;
    if !closed {
        return nothing(ctx, "the turn was closed or pushed into meanwhile");
    }
    print_frame(ctx, store, Some(open))
}

fn nothing(ctx: &mut Context, reason: &str) -> Result<ExitCode> {
    if ctx.out.json {
        ctx.out.json_doc(&TurnDoc::Nothing(NothingToFinishDoc {
            version: Version,
            frame: (),
            reason: reason.to_string(),
        }))?;
    }
    Ok(ExitCode::Success)
}

/// Prints the frame's id (JSON: `{"version": 1, "frame": FRAME|null}`).
fn print_frame(ctx: &mut Context, store: &Store, id: Option<String>) -> Result<ExitCode> {
    if ctx.out.json {
        let state = store.load()?;
        let frame = id.as_deref().and_then(|id| state.frame(id));
        ctx.out.json_doc(&TurnDoc::Frame(Box::new(SessionFrameDoc {
            version: Version,
            frame: frame.as_ref().map(FrameJson::new),
        })))?;
    } else if let Some(id) = id {
        ctx.out.line(&id)?;
    }
    Ok(ExitCode::Success)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The digest of an OpenCode turn of `messages`, opened at the first.
    fn opencode_digest(messages: Vec<Value>) -> Digest {
        let export = Export::from_value(json!({"info": {"id": "ses_a"}, "messages": messages}));
        let open = Mark::new(0, Some("msg_1"), None);
        OpenCodeExport(export.unwrap()).turn("ses_a", &open, "Go").1
    }

    fn assistant(id: &str, parts: Vec<Value>) -> Value {
        json!({"info": {"id": id, "role": "assistant"}, "parts": parts})
    }

    fn bash(command: &str, exit: i64) -> Value {
        json!({"type": "tool", "tool": "bash", "callID": "c", "state": {"status": "completed",
            "input": {"command": command}, "output": "out", "metadata": {"exit": exit}}})
    }

    #[test]
    fn an_opencode_turns_summary_is_its_last_text_then_its_commands_and_its_edits_are_artifacts() {
        let user = json!({"info": {"id": "msg_1", "role": "user"},
            "parts": [{"type": "text", "text": "Fix the build"}]});
        let edit = |tool: &str| {
            json!({"type": "tool", "tool": tool, "state": {"status": "completed",
                "input": {"filePath": "src/a.rs"}, "output": "ok"}})
        };
        let digest = opencode_digest(vec![
            user,
            assistant(
                "msg_2",
                vec![
                    bash("cargo build\n  --release", 101),
                    edit("edit"),
                    edit("write"),
                ],
            ),
            assistant(
                "msg_3",
                vec![
                    bash("cargo test", 0),
                    json!({"type": "text", "text": "Fixed."}),
                ],
            ),
        ]);
        assert_eq!(
            digest,
            Digest {
                summary: "Fixed.\n\nCommands: `cargo build --release` (exit 101); `cargo test` \
                          (exit 0)"
                    .into(),
                files: vec!["src/a.rs".into()],
            }
        );
    }

    #[test]
    fn an_opencode_turn_without_text_or_interrupted_says_so() {
        let user = json!({"info": {"id": "msg_1", "role": "user"},
            "parts": [{"type": "text", "text": "Go"}]});
        let mut aborted = assistant("msg_2", vec![]);
        aborted["info"]["error"] = json!({"name": "MessageAbortedError"});
        assert_eq!(
            opencode_digest(vec![user, aborted]).summary,
            "The turn ended without assistant text.\n\nThe person interrupted the turn."
        );
    }

    #[test]
    fn a_turns_goal_is_the_first_line_with_words() {
        let msg = Some("msg_1");
        assert_eq!(
            goal(Some("\n  Fix the\tbuild \nthen test"), msg, 0),
            "Fix the build"
        );
        assert_eq!(goal(Some(" \n"), msg, 0), "Turn at msg_1");
        assert_eq!(goal(None, msg, 0), "Turn at msg_1");
        assert_eq!(goal(None, None, 0), "Turn at 1970-01-01T00:00:00.000Z");
        assert!(goal(Some(&"x".repeat(500)), msg, 0).ends_with('…'));
    }
}

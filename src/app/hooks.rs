//! The one hook core of the agents that call ctx through hooks (Claude Code, Codex, Qwen Code,
//! GitHub Copilot CLI), shared by their command adapters (`claude::hook`, `codex::hook`,
//! `qwen::hook`, `copilot::hook`), which never call each other: each hook call is one
//! short-lived `ctx <agent> hook EVENT` process with the event's JSON on stdin. What
//! the events mean for frames lives here once: the session's frame and its context text, a
//! subagent's frame pushed at its start and popped at its stop with its last message as the
//! summary and its transcript as the log, the calls that start subagents (`agent_calls`), what
//! a compaction keeps, and the log line that replaces every failure or records a guess. The
//! adapters map their agent's event names, fields and answer shapes onto it.
//!
//! A hook never fails: whatever goes wrong is one line in the hook log and exit 0, because a
//! failing hook would block or disturb the agent's action.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Context;
use super::agent_calls::{AgentCall, CallMeta, Queue};
use crate::claude::log as claude_log;
use crate::compact::frame_context;
use crate::conversation::Export;
use crate::error::{Error, Result};
use crate::frame::auto;
use crate::frame::digest::Tools;
use crate::frame::id::SessionId;
use crate::frame::log;
use crate::frame::ops::{self, Correction, Place};
use crate::frame::span::Mark;
use crate::frame::state::{FrameKey, SCHEMA_VERSION, State, Status};
use crate::frame::store::Store;
use crate::frame::todo::{self, Item, Reader, Update};
use crate::hooks::contents_fold::{self, ToAppend};
use crate::hooks::frame_calls::Finished;
use crate::hooks::transcript::Folded;
use crate::hooks::turns::{ClosedFrame, Kind};
use crate::hooks::{framed, transcript};
use crate::json::{Json, Object};
use crate::project::Project;

/// Hook input larger than this is not a hook event.
pub const MAX_HOOK_INPUT: u64 = 16 << 20;
/// A log grown past this is moved to `<name>.old` before the next line.
const MAX_LOG_BYTES: u64 = 1 << 20;

/// What differs between the agents the core serves, beyond their events.
#[derive(Debug)]
pub struct Harness {
    /// The agent's name in fallback goals ("Claude Code session …").
    pub name: &'static str,
    /// Prefix of a session's frame id (`cc_`, `cx_`).
    pub session_prefix: &'static str,
    /// Prefix of a subagent's frame id (`cca_`, `cx_`).
    pub agent_prefix: &'static str,
    /// The hook log's name below `.opencode/flame/`.
    pub log_name: &'static str,
    /// The agent's own folder, where the hook log goes when the project has no frame folder.
    pub user_dir: fn() -> Option<PathBuf>,
    /// The hook log's name in that folder.
    pub user_log_name: &'static str,
    /// What the event's fields become before the core reads them, for an agent whose names
    /// differ from Claude Code's (`session_id`, `agent_id`, …): parsed once, at the door.
    pub door: Option<fn(&mut serde_json::Map<String, Value>)>,
}

/// One hook call as the process's whole work: reads the event, lets `answer` (the adapter)
/// answer it, prints the answer, and turns every failure, a panic included, into a log line.
pub fn run(
    harness: &'static Harness,
    root: Result<PathBuf>,
    event: &str,
    answer: fn(&mut Hook, &str) -> Result<Option<String>>,
) {
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_HOOK_INPUT + 1)
        .read_to_end(&mut input);
    let root_for_log = root.as_ref().ok().cloned();
    let mut notes = Vec::new();
    let mut session = None;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
        || -> Result<Option<String>> {
            read.map_err(|e| Error::io(Path::new("<stdin>"), "read", &e))?;
            if input.len() as u64 > MAX_HOOK_INPUT {
                return Err(Error::failure("the event's JSON is larger than 16 MiB"));
            }
            let mut value: Value = serde_json::from_slice(&input)
                .map_err(|e| Error::failure(format!("the event's JSON is not valid JSON: {e}")))?;
            let Some(fields) = value.as_object_mut() else {
                return Err(Error::failure("the event's JSON is not an object"));
            };
            if let Some(door) = harness.door {
                door(fields);
            }
            session = field(&value, "session_id").map(str::to_string);
            let root = root?;
            let mut hook = Hook::new(harness, root, &value)?;
            let answered = answer(&mut hook, event);
            notes = std::mem::take(&mut hook.notes);
            answered
        },
    ));
    let (answer, problem) = match outcome {
        Ok(Ok(answer)) => (answer, None),
        // The hints too: the log is all the user will see of it.
        Ok(Err(err)) => (None, Some(with_hints(&err))),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            (None, Some(format!("ctx failed (a bug): {what}")))
        }
    };
    if problem.is_some() || !notes.is_empty() {
        for line in notes.iter().chain(&problem) {
            log_line(
                harness,
                root_for_log.as_deref(),
                event,
                session.as_deref(),
                line,
            );
        }
    }
    if let Some(answer) = answer {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(answer.as_bytes());
        let _ = stdout.flush();
    }
}

/// An error's message followed by its hints, for one log line.
fn with_hints(err: &Error) -> String {
    let mut text = err.message.clone();
    for hint in &err.hints {
        text.push_str(" (hint: ");
        text.push_str(hint);
        text.push(')');
    }
    text
}

/// Appends one line to the hook log: `.opencode/flame/<log_name>` where the project has a frame
/// folder, else `<user_log_name>` in the agent's own folder. A log that cannot be written is
/// given up on: there is nowhere left to say so that the agent would not mistake for an answer.
fn log_line(
    harness: &Harness,
    root: Option<&Path>,
    event: &str,
    session: Option<&str>,
    text: &str,
) {
    let flame = root.map(|r| r.join(".opencode").join("flame"));
    let path = match flame.filter(|d| d.is_dir()) {
        Some(dir) => dir.join(harness.log_name),
        None => match (harness.user_dir)() {
            Some(dir) => dir.join(harness.user_log_name),
            None => return,
        },
    };
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let _ = std::fs::rename(&path, path.with_extension("log.old"));
    }
    let mut line = format!(
        "{} {event}{}: {}\n",
        crate::time::rfc3339_ms(crate::time::now_ms()),
        session.map(|s| format!(" session {s}")).unwrap_or_default(),
        text.replace('\n', " ")
    );
    if line.len() > 4096 {
        let mut cut = 4000;
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        line.truncate(cut);
        line.push_str("…\n");
    }
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = file.write_all(line.as_bytes());
    }
}

/// The JSON answer that adds `context` to what the model sees (Claude Code and Codex read the
/// same shape).
pub fn additional_context(event: &str, context: &str) -> String {
    let mut text = serde_json::json!({
        "hookSpecificOutput": { "hookEventName": event, "additionalContext": context }
    })
    .to_string();
    text.push('\n');
    text
}

/// `text` as it reads once an agent that escapes a hook's text (Qwen Code, Gemini CLI) has
/// turned every `<` and `>` into `&lt;` and `&gt;`: the tags go as `[` and `]`. In ctx's XML
/// every `<` and `>` is a tag's (text in it is escaped), so nothing else changes.
pub fn bracketed(text: &str) -> String {
    text.replace('<', "[").replace('>', "]")
}

/// 64-bit FNV-1a of a text, as 16 hex digits: a context as recorded in the session's record, or
/// an id for what an agent names none for.
pub fn text_hash(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// A string field of the event, when it is a non-blank string.
pub fn field<'v>(input: &'v Value, key: &str) -> Option<&'v str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// How an adapter reads an item frame's span of its agent's transcript, for the log and summary
/// the item closes with: `read(id, from, to)` gives frame `id`'s messages stamped from `from` to
/// `to` (ms since the epoch), `None` when there are none to read.
pub struct ItemSpans<'s> {
    pub read: &'s mut dyn FnMut(&str, i64, i64) -> Option<Export>,
    pub tools: &'s Tools,
}

impl ItemSpans<'_> {
    /// Runs `f` with the reader of the spans of item frames closing at `now`: each from the
    /// frame's creation on.
    fn with_reader<T>(
        &mut self,
        now: i64,
        output_max: usize,
        f: impl FnOnce(&mut Reader<'_>) -> T,
    ) -> T {
        let read = &mut self.read;
        let mut span = |state: &State, id: &str| {
            let from = state.frame(id)?.created_at();
            read(id, from, now)
        };
        f(&mut Reader {
            span: &mut span,
            tools: self.tools,
            output_max,
        })
    }
}

/// How many times a session file that changes while it is read is read again before a fold by
/// appending leaves it as it is (50 ms apart).
const APPEND_ATTEMPTS: u32 = 20;

/// `N` bytes of the system's random source: ids an agent names none for (a record's, a
/// subagent frame's).
pub fn random_bytes<const N: usize>() -> Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::failure(format!("cannot read the system's random source: {e}")))?;
    Ok(bytes)
}

/// A random UUID (version 4), as Qwen Code names its records and Copilot its events.
pub fn new_uuid() -> Result<String> {
    let mut bytes: [u8; 16] = random_bytes()?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    ))
}

/// One hook call: the event's fields, the project, the clock.
pub struct Hook<'a> {
    pub harness: &'static Harness,
    pub ctx: Context,
    pub store: Store,
    pub input: &'a Value,
    /// The session's frame id (`<session_prefix><session id>`).
    pub session: SessionId,
    /// Lines for the hook log that are no failure (a guess, a call dropped), written when the
    /// call has answered.
    notes: Vec<String>,
}

impl<'a> Hook<'a> {
    fn new(harness: &'static Harness, root: PathBuf, input: &'a Value) -> Result<Hook<'a>> {
        let session_id = field(input, "session_id")
            .ok_or_else(|| Error::failure("the event has no \"session_id\""))?;
        let session = framed(harness.session_prefix, session_id).ok_or_else(|| {
            Error::failure(format!(
                "the session id '{}' cannot name a frame",
                session_id.escape_debug()
            ))
        })?;
        let ctx = Context::new(
            Project::at(root),
            crate::output::Output::new(false, true, crate::output::ColorChoice::Never),
            crate::time::now_ms(),
            true,
        );
        let store = ctx.store()?;
        Ok(Hook {
            harness,
            ctx,
            store,
            input,
            session,
            notes: Vec::new(),
        })
    }

    /// A string field of the event.
    pub fn field(&self, key: &str) -> Option<&'a str> {
        field(self.input, key)
    }

    /// The frame id of subagent `agent_id`, or `None` when the id cannot be one.
    pub fn agent_frame(&self, agent_id: &str) -> Option<String> {
        framed(self.harness.agent_prefix, agent_id).map(String::from)
    }

    /// The frame of the subagent `event` names by its `agent_id`: an error when it names none,
    /// or one that cannot be a frame id.
    pub fn event_agent_frame(&self, event: &str) -> Result<String> {
        let agent_id = self
            .field("agent_id")
            .ok_or_else(|| Error::failure(format!("{event} without \"agent_id\"")))?;
        self.agent_frame(agent_id).ok_or_else(|| {
            Error::failure(format!(
                "the agent id '{}' cannot name a frame",
                agent_id.escape_debug()
            ))
        })
    }

    /// SubagentStop's frame, when it still runs (`None`: it ended already); an error when the
    /// subagent has no frame, its SubagentStart not seen.
    pub fn stopping_agent_frame(&self) -> Result<Option<String>> {
        let frame = self.event_agent_frame("SubagentStop")?;
        match self.agent_running(&frame)? {
            None => Err(Error::failure(format!(
                "SubagentStop for {frame}, which has no frame (its SubagentStart was not seen)"
            ))),
            Some(running) => Ok(running.then_some(frame)),
        }
    }

    /// The session's id as the agent wrote it.
    fn session_id(&self) -> &str {
        &self.session[self.harness.session_prefix.len()..]
    }

    fn settings(&self) -> Result<frame_context::Settings> {
        super::frame_context::frame_settings(&self.ctx)
    }

    /// Whether the session has a frame yet.
    pub fn session_has_frame(&self) -> Result<bool> {
        Ok(self.store.load()?.frame(&self.session).is_some())
    }

    /// The session's frame context, made (with the session's frame, when it has none yet) and
    /// recorded; `None` when `always` is false and the same text was added last time.
    pub fn session_context(&mut self, always: bool) -> Result<Option<String>> {
        let settings = self.settings()?;
        let transcript = self.field("transcript_path");
        let session = self.session.clone();
        // The common case, a prompt whose context was added before and has not changed, only
        // reads: no lock, no write.
        let state = self.store.load()?;
        if state.frame(&session).is_some() && state.version() <= SCHEMA_VERSION {
            let current = ops::session_current_or_own(&state, &session)?;
            let xml = frame_context::render(&state, &current, &settings)?.xml;
            let recorded = record_of(&state, &session)?;
            if recorded.get("contextHash").and_then(Json::as_str) == Some(&text_hash(&xml))
                && !transcript_changed(&recorded, transcript)
            {
                return Ok(always.then_some(xml));
            }
        }
        drop(state);
        let goal = self.session_goal();
        let now = self.ctx.now;
        let (context, _) = self.store.update(now, |state| {
            let mut changed = false;
            if state.frame(&session).is_none() {
                push_session_frame(state, &session, &goal, now)?;
                changed = true;
            }
            let current = ops::session_current_or_own(state, &session)?;
            let xml = frame_context::render(state, &current, &settings)?.xml;
            let hash = text_hash(&xml);
            let mut record = record_of(state, &session)?;
            let same = record.get("contextHash").and_then(Json::as_str) == Some(hash.as_str());
            // Where a frame popped through Bash finds its messages (claude::log).
            let moved = transcript_changed(&record, transcript);
            if let Some(path) = transcript.filter(|_| moved) {
                record.insert(claude_log::TRANSCRIPT_KEY, Json::str(path));
            }
            if !same {
                record.insert("contextHash", Json::str(&hash));
            }
            if !same || moved {
                state.set_claude_session(&session, record);
                changed = true;
            }
            Ok(((!same || always).then_some(xml), changed))
        })?;
        Ok(context)
    }

    /// Forgets which context the session was last given, so that its next prompt gets it again
    /// (after a compaction that may have dropped it).
    pub fn forget_context(&mut self) -> Result<()> {
        let session = self.session.clone();
        self.store.update(self.ctx.now, |state| {
            let mut record = record_of(state, &session)?;
            if record.remove("contextHash").is_none() {
                return Ok(((), false));
            }
            state.set_claude_session(&session, record);
            Ok(((), true))
        })?;
        Ok(())
    }

    /// A new session's goal: the first line of its first prompt.
    fn session_goal(&self) -> String {
        let first_line = self
            .field("prompt")
            .and_then(|p| p.lines().find(|l| !l.trim().is_empty()));
        let unnamed = || format!("{} session {}", self.harness.name, self.session_id());
        super::session::goal_from_title(first_line, unnamed)
    }

    /// The context of the session's current frame, when the session has a frame.
    pub fn current_context(&self) -> Result<Option<String>> {
        let state = self.store.load()?;
        if state.frame(&self.session).is_none() {
            return Ok(None);
        }
        let current = ops::session_current_or_own(&state, &self.session)?;
        Ok(Some(
            frame_context::render(&state, &current, &self.settings()?)?.xml,
        ))
    }

    /// Remembers a subagent call until its subagent starts. It never waits for an earlier call
    /// to be claimed: a starting subagent tells its call from the others as well as it can
    /// ([`Queue::take`]), and says so in the hook log when it had to guess.
    pub fn note_call(&mut self, call: &AgentCall) -> Result<()> {
        let session = self.session.clone();
        let now = self.ctx.now;
        let (notes, _) = self.store.update(now, |state| {
            let mut record = record_of(state, &session)?;
            let mut queue = Queue::take_from(&mut record);
            let mut notes = queue.drop_stale(now);
            notes.extend(queue.push(call, now));
            queue.put_into(&mut record);
            state.set_claude_session(&session, record);
            Ok((notes, true))
        })?;
        self.notes.extend(notes);
        Ok(())
    }

    /// A call that starts a subagent, as its tool's input tells it: `task` (its description, or
    /// its prompt) gives the goal, its first line; a subagent started from a subagent
    /// (`agent_id`) goes below its caller's frame. A call without a task is not noted.
    pub fn note_agent_call(
        &mut self,
        task: Option<&str>,
        agent_type: &str,
        tool_use_id: Option<&str>,
    ) -> Result<()> {
        let Some(goal) = task.and_then(|t| t.lines().find(|l| !l.trim().is_empty())) else {
            return Ok(());
        };
        let call = AgentCall {
            description: goal.trim().to_string(),
            tool_use_id: tool_use_id.map(str::to_string),
            agent_type: agent_type.to_string(),
            caller: self.field("agent_id").map(str::to_string),
        };
        self.note_call(&call)
    }

    /// Forgets the call `tool_use_id` when it still waits for its subagent: it ended (failed,
    /// denied) before one started, and must not be taken by a later subagent of its type.
    pub fn forget_call(&mut self, tool_use_id: &str) -> Result<()> {
        let session = self.session.clone();
        self.store.update(self.ctx.now, |state| {
            let mut record = record_of(state, &session)?;
            let mut queue = Queue::take_from(&mut record);
            if !queue.forget(tool_use_id) {
                return Ok(((), false));
            }
            queue.put_into(&mut record);
            state.set_claude_session(&session, record);
            Ok(((), true))
        })?;
        Ok(())
    }

    /// A subagent's start: its frame `frame`, a running child of the current frame of its caller
    /// (or of its session), its goal the description of the call that started it, and the frame
    /// context for the subagent's first request.
    pub fn subagent_start(
        &mut self,
        frame: &str,
        agent_type: &str,
        meta: Option<&CallMeta>,
    ) -> Result<String> {
        let settings = self.settings()?;
        let session = self.session.clone();
        let fallback_goal = format!("{} session {}", self.harness.name, self.session_id());
        let agent_prefix = self.harness.agent_prefix;
        let name = self.harness.name;
        let now = self.ctx.now;
        let ((xml, notes), _) = self.store.update(now, |state| {
            if state.frame(&session).is_none() {
                push_session_frame(state, &session, &fallback_goal, now)?;
            }
            let mut record = record_of(state, &session)?;
            let mut queue = Queue::take_from(&mut record);
            let mut notes = queue.drop_stale(now);
            let (call, guess) = queue.take(meta, frame, agent_type);
            notes.extend(guess);
            queue.put_into(&mut record);
            state.set_claude_session(&session, record);
            if state.frame(frame).is_none() {
                let goal = call
                    .as_ref()
                    .map(|c| c.description.clone())
                    .unwrap_or_else(|| format!("{name} subagent ({agent_type})"));
                let caller = call
                    .as_ref()
                    .and_then(|c| c.caller.as_deref())
                    .and_then(|c| framed(agent_prefix, c))
                    .filter(|f| {
                        state
                            .frame(f)
                            .is_some_and(|f| f.status() == Status::InProgress)
                    });
                let parent =
                    ops::session_current_or_own(state, caller.as_deref().unwrap_or(&session))?;
                ops::push(
                    state,
                    &goal,
                    Some(&parent),
                    Some(frame),
                    Place::Session(frame),
                    now,
                )?;
                if let Some(call) = call.and_then(|c| c.tool_use_id) {
                    state.set_field(frame, "claudeToolUseId", Json::str(&call));
                }
            }
            let xml = frame_context::render(state, frame, &settings)?.xml;
            Ok(((xml, notes), true))
        })?;
        self.notes.extend(notes);
        Ok(xml)
    }

    /// Whether subagent frame `frame` is still to be popped: `Some(false)` when it has finished,
    /// `None` when it has no frame (its start was not seen).
    pub fn agent_running(&self, frame: &str) -> Result<Option<bool>> {
        Ok(self
            .store
            .load()?
            .frame(frame)
            .map(|f| !f.status().is_finished()))
    }

    /// A subagent's stop: pops its frame, completed with its last message (`reported`, else the
    /// last assistant text of its log) as the summary, failed when it ended without one.
    pub fn subagent_stop(
        &mut self,
        frame: &str,
        reported: Option<&str>,
        export: &Export,
    ) -> Result<()> {
        let summary = reported
            .map(str::to_string)
            .or_else(|| export.last_assistant_text());
        let status = if summary.is_some() {
            Status::Completed
        } else {
            Status::Failed
        };
        self.pop_agent(frame, status, summary.as_deref(), Some(export))?;
        Ok(())
    }

    /// A subagent's stop for an agent that gives only its last message (`reported`), not its
    /// transcript: pops the subagent's frame when it still runs, that message its summary and its
    /// log's one message. An error when its start was not seen.
    pub fn stop_reported_subagent(&mut self, reported: Option<&str>) -> Result<()> {
        let Some(frame) = self.stopping_agent_frame()? else {
            return Ok(());
        };
        let name = self.harness.name;
        let title = format!("{name} subagent");
        let export = Export::of_conversation(&frame, &title, name, Vec::new(), reported);
        self.subagent_stop(&frame, reported, &export)
    }

    /// Pops a subagent's frame when it is still running; whether it did.
    pub fn pop_agent(
        &mut self,
        frame: &str,
        status: Status,
        summary: Option<&str>,
        export: Option<&Export>,
    ) -> Result<bool> {
        let now = self.ctx.now;
        let store = &self.store;
        let output_max = self.output_max()?;
        let messages = export.map(|export| log::Messages::of(export, output_max));
        let (popped, _) = store.update(now, |state| {
            let running = state
                .frame(frame)
                .is_some_and(|f| matches!(f.status(), Status::InProgress | Status::Blocked));
            if !running {
                return Ok((false, false));
            }
            // The subagent has ended: what it left running can no longer be popped by it.
            let plan = ops::check_pop(state, frame, true)?;
            let summary = summary.filter(|s| !s.trim().is_empty());
            ops::apply_pop(state, &plan, status, summary, now)?;
            store.write_log(&plan.id, &log::render(state, frame, now, messages.as_ref()))?;
            Ok((true, true))
        })?;
        Ok(popped)
    }

    /// The frame a subagent call (`claudeToolUseId`) started.
    pub fn frame_of_call(&self, call: &str) -> Result<Option<String>> {
        let state = self.store.load()?;
        Ok(state
            .frames()
            .find(|f| {
                f.extra()
                    .any(|(k, v)| k == "claudeToolUseId" && v.as_str() == Some(call))
            })
            .map(|f| f.id.to_string()))
    }

    /// SessionEnd: folds the session's transcript (`transcript_path`, below the agent's `folder`,
    /// `folder_name` to people) when the agent's fold `setting` is on, so that the next process
    /// that resumes the session sends each popped frame as its folded text
    /// ([`transcript::fold_at_end`]). `fold` folds the transcript's text, given what the state
    /// knows of the frames: each one's goal, and each finished one's parent and folded text
    /// ([`transcript::folded_text`], its log named from the project's root when the session ran
    /// there). Each frame it leaves unfolded is a line of the hook log.
    pub fn fold_at_end(
        &mut self,
        setting: &crate::settings::Def,
        noun: &str,
        folder: Option<PathBuf>,
        folder_name: &str,
        fold: impl FnOnce(
            &str,
            &dyn Fn(&str) -> Option<String>,
            &dyn Fn(&str) -> Option<Finished>,
        ) -> std::result::Result<Folded, String>,
    ) -> Result<()> {
        if !self.ctx.settings()?.on(setting)? {
            return Ok(());
        }
        let Some(path) = self.field("transcript_path") else {
            return Ok(());
        };
        let state = self.store.load()?;
        let root = transcript::root_if_ran_there(self.field("cwd"), &self.ctx.project.root);
        let goal_of = |id: &str| state.frame(id).map(|frame| frame.goal().to_string());
        let finished = |id: &str| {
            Some(Finished {
                parent: state.frame(id)?.parent().map(str::to_string),
                text: transcript::folded_text(&self.store, &state, id, root)?,
            })
        };
        let mut refused = Vec::new();
        let folded = transcript::fold_at_end(
            Path::new(path),
            noun,
            folder,
            folder_name,
            self.ctx.now,
            |text| fold(text, &goal_of, &finished),
            |why| refused.push(why.to_string()),
        );
        self.notes.extend(refused);
        folded
    }

    /// A fold for an agent that reads one as records of its own, appended to its session file
    /// at `path` (Qwen Code's `chat_compression`, Gemini CLI's `$set` of the messages, Copilot
    /// CLI's compaction): `fold` makes them of the file, below the agent's `folder`, given what
    /// the state knows of the frames, as for [`Hook::fold_at_end`]; the folded frames' logs are
    /// written from their spans (in `agent`'s name), then the records are appended to the file,
    /// which keeps every line it had. Each frame left unfolded is a line of the hook log. True
    /// when records were appended. The caller has checked that the agent's fold setting is on.
    pub fn fold_by_appending(
        &mut self,
        path: &Path,
        agent: &str,
        folder: Option<PathBuf>,
        folder_name: &str,
        fold: impl Fn(
            &str,
            &dyn Fn(&str) -> Option<String>,
            &dyn Fn(&str) -> Option<Finished>,
        ) -> std::result::Result<ToAppend, String>,
    ) -> Result<bool> {
        let refuse = |why: String| {
            Error::failure(format!(
                "session file {} left as it is: {why}",
                path.display()
            ))
        };
        let inside = |p: &Path| {
            folder
                .as_deref()
                .is_some_and(|folder| transcript::below(p, folder))
        };
        // The agent may still be writing its last records as the hook runs: a file that changes
        // while it is read, or before the record is appended, is read again, a few times, before
        // it is left as it is.
        let mut attempts = 0;
        let changed =
            |why: &str, attempts: u32| why == transcript::CHANGED && attempts < APPEND_ATTEMPTS;
        loop {
            attempts += 1;
            let attempt = {
                let state = self.store.load()?;
                let root = transcript::root_if_ran_there(self.field("cwd"), &self.ctx.project.root);
                let goal_of = |id: &str| state.frame(id).map(|frame| frame.goal().to_string());
                let finished = |id: &str| {
                    Some(Finished {
                        parent: state.frame(id)?.parent().map(str::to_string),
                        text: transcript::folded_text(&self.store, &state, id, root)?,
                    })
                };
                transcript::Transcript::open(path, inside, folder_name).and_then(|file| {
                    let appending = fold(file.text()?, &goal_of, &finished)?;
                    Ok((file, appending))
                })
            };
            let (file, appending) = match attempt {
                Err(why) if changed(&why, attempts) => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    continue;
                }
                other => other.map_err(refuse)?,
            };
            let appended = match &appending.text {
                None => Ok(()),
                Some(text) => {
                    // The logs first: the records' entries send the model to them.
                    let title = format!("{agent} session file {}", path.display());
                    let logs: Vec<(String, Export)> = appending
                        .spans
                        .iter()
                        .map(|(id, contents)| {
                            let log = contents_fold::span_export(id, &title, agent, contents);
                            (id.clone(), log)
                        })
                        .collect();
                    self.rewrite_logs(&logs)?;
                    file.append(text)
                }
            };
            match appended {
                Err(why) if changed(&why, attempts) => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    continue;
                }
                appended => {
                    self.notes.extend(
                        appending
                            .refused
                            .iter()
                            .map(|why| format!("session file {}: {why}", path.display())),
                    );
                    return appended.map(|()| appending.text.is_some()).map_err(refuse);
                }
            }
        }
    }

    /// Whether `frame.auto` asks for turn frames (`turns` or `all`).
    pub fn turns_on(&self) -> Result<bool> {
        Ok(self.ctx.auto_frames()?.turns)
    }

    /// Whether `frame.auto` asks for todo frames (`todos` or `all`).
    pub fn todos_on(&self) -> Result<bool> {
        Ok(self.ctx.auto_frames()?.todos)
    }

    /// Whether the session has an item frame open: only then can a call of its todo tool close
    /// one, and the adapter needs to read the transcript for the item's log.
    pub fn has_open_items(&self) -> Result<bool> {
        let state = self.store.load()?;
        Ok(!auto::open_todos(&state, &self.session).is_empty())
    }

    /// A call of the agent's todo or plan tool, seen once it ran (`frame.auto` keeps todo
    /// frames; `frame::todo` says what an update opens and closes). `items` reads the call into
    /// its items, given the state and the session's frame (Claude Code's tasks are remembered
    /// there), and whether they are the whole list; `spans` reads the span of an item frame it
    /// closes. A subagent's call, or one in a session without a frame, changes nothing.
    pub fn todo_call(
        &mut self,
        mut items: impl FnMut(&mut State, &str) -> (Vec<Item>, bool),
        spans: &mut ItemSpans<'_>,
    ) -> Result<()> {
        if self.field("agent_id").is_some() {
            return Ok(());
        }
        let session = self.session.clone();
        let now = self.ctx.now;
        let output_max = self.output_max()?;
        let mark = Mark::new(now, None, self.field("tool_use_id"));
        let store = &self.store;
        let (waiting, _) = store.update(now, |state| {
            if state.frame(&session).is_none() {
                return Ok((Vec::new(), false));
            }
            let (items, whole) = items(state, &session);
            let update = Update {
                items: &items,
                whole,
                mark: &mark,
            };
            let waiting = spans.with_reader(now, output_max, |reader| {
                todo::take_in(state, store, &session, &update, reader)
            })?;
            Ok((waiting, true))
        })?;
        for (id, running) in waiting {
            self.notes.push(format!(
                "item frame {id} waits for {}, pushed in it",
                running.join(", ")
            ));
        }
        Ok(())
    }

    /// A person's prompt (`frame.auto` on): opens a turn frame under the session's own frame,
    /// its goal the prompt's first line, `turn` the agent's id of the turn (Claude Code's
    /// `prompt_id`, Codex's `turn_id`), which its Stop names. Call it after the session's context
    /// is made: that context is the session frame's, so turn frames do not change it.
    ///
    /// A turn still on top of the session here had no Stop: its process was killed, or another
    /// process continues the session at the same time. It is closed (its own Stop, if it comes,
    /// gives it its answer) and logged. A turn left open below a frame the model pushed in it
    /// goes on: the prompt continues inside the model's frame, and no turn opens under it, so
    /// that the model can still pop it.
    pub fn turn_start(&mut self, turn: Option<&str>) -> Result<()> {
        let prompt = self.field("prompt").unwrap_or("");
        if self.field("agent_id").is_some() || is_notification(prompt) {
            return Ok(());
        }
        let first_line = prompt.lines().find(|l| !l.trim().is_empty());
        let goal =
            super::session::goal_from_title(first_line, || format!("{} turn", self.harness.name));
        let session = self.session.clone();
        let now = self.ctx.now;
        let store = &self.store;
        let (notes, _) = store.update(now, |state| {
            let mut notes = Vec::new();
            if state.frame(&session).is_none() {
                return Ok((notes, false));
            }
            let closed = close_turns_on_top(
                store,
                state,
                &session,
                NO_STOP_BEFORE_PROMPT,
                "before the next prompt (its process was killed, or another process continues \
                 the session)",
                now,
                &mut notes,
            )?;
            let current = auto::current_past_items(state, &session)?;
            if current.as_deref().is_some_and(|c| c != session.as_str()) {
                return Ok((notes, closed));
            }
            // A session whose own frame someone popped gets no turn frames under it.
            if state.frame(&session).map(|f| f.status()) != Some(Status::InProgress) {
                return Ok((notes, closed));
            }
            let id = ops::push(
                state,
                &goal,
                Some(&session),
                None,
                Place::Session(&session),
                now,
            )?;
            auto::mark(state, &id, auto::TURN);
            if let Some(turn) = turn {
                state.set_field(&id, TURN_ID_KEY, Json::str(turn));
            }
            Ok((notes, true))
        })?;
        self.notes.extend(notes);
        Ok(())
    }

    /// The turn frame a Stop would close, with its creation time: `turn` names it, else it is
    /// the session's open turn. Read without the lock, so that the adapter can read the turn's
    /// span of the transcript for its log before [`Hook::turn_stop`] takes it.
    pub fn turn_of_stop(&self, turn: Option<&str>) -> Result<Option<(String, i64)>> {
        let state = self.store.load()?;
        let id = match named_turn(&state, turn) {
            Some(id) => Some(id),
            None => open_turn_around(&state, &self.session)?,
        };
        Ok(id.and_then(|id| {
            let created = state.frame(&id)?.created_at();
            Some((id, created))
        }))
    }

    /// A turn's Stop: closes the turn frame `turn` names (else the session's open turn)
    /// completed, `answer` (the turn's last assistant message) its summary and `export` its log.
    /// A turn with a frame of the model's still running on it stays open with the answer as its
    /// summary so far; a turn a later prompt or the end of its process closed already gets the
    /// answer in place of what was said for it then.
    pub fn turn_stop(
        &mut self,
        turn: Option<&str>,
        answer: Option<&str>,
        export: Option<&Export>,
        mut spans: Option<&mut ItemSpans<'_>>,
    ) -> Result<()> {
        if self.field("agent_id").is_some() {
            return Ok(());
        }
        let session = self.session.clone();
        let now = self.ctx.now;
        let store = &self.store;
        let output_max = self.output_max()?;
        let messages = export.map(|export| log::Messages::of(export, output_max));
        let answer = answer.filter(|a| !a.trim().is_empty());
        store.update(now, |state| {
            let named = named_turn(state, turn);
            let Some(id) = named.or(open_turn_around(state, &session)?) else {
                return Ok(((), false));
            };
            let frame = state.frame(&id).expect("found above");
            if frame.status().is_finished() {
                let said_for_it = frame
                    .summary()
                    .is_some_and(|s| s == NO_STOP_BEFORE_PROMPT || s == NO_STOP_AT_END);
                let Some(answer) = answer.filter(|_| said_for_it) else {
                    return Ok(((), false));
                };
                let frame_id = frame.frame_id();
                state.set_field(&id, FrameKey::Summary.name(), Json::str(answer));
                store.write_log(&frame_id, &log::render(state, &id, now, messages.as_ref()))?;
                return Ok(((), true));
            }
            if auto::current_past_items(state, &session)?.as_deref() != Some(id.as_str()) {
                let Some(answer) = answer else {
                    return Ok(((), false));
                };
                state.set_field(&id, FrameKey::Summary.name(), Json::str(answer));
                return Ok(((), true));
            }
            match spans.as_deref_mut() {
                Some(spans) => spans.with_reader(now, output_max, |reader| {
                    todo::close_in_turn(state, store, &session, &id, Some(reader), now)
                })?,
                None => todo::close_in_turn(state, store, &session, &id, None, now)?,
            }
            let plan = ops::check_pop(state, &id, true)?;
            ops::apply_pop(state, &plan, Status::Completed, answer, now)?;
            store.write_log(&plan.id, &log::render(state, &id, now, messages.as_ref()))?;
            Ok(((), true))
        })?;
        Ok(())
    }

    /// The end of the session's process: closes the turn it ended with, when that turn is on
    /// top of the session and its Stop was not seen.
    pub fn turns_end(&mut self) -> Result<()> {
        if self.field("agent_id").is_some() {
            return Ok(());
        }
        let session = self.session.clone();
        let now = self.ctx.now;
        let store = &self.store;
        let (notes, _) = store.update(now, |state| {
            let mut notes = Vec::new();
            let closed = close_turns_on_top(
                store,
                state,
                &session,
                NO_STOP_AT_END,
                "before its process ended",
                now,
                &mut notes,
            )?;
            Ok((notes, closed))
        })?;
        self.notes.extend(notes);
        Ok(())
    }

    /// The session's finished auto-frames (turns and items), for the fold of its transcript:
    /// each with its goal, when it opened and closed, and for an item the finished turn it ran in.
    pub fn closed_auto_frames(&self) -> Result<Vec<ClosedFrame>> {
        let state = self.store.load()?;
        // The frame's ancestors, nearest first, bounded by the number of frames: a cycle written
        // by hand ends the walk.
        let ancestors = |frame: &crate::frame::state::Frame| {
            let mut out = Vec::new();
            let mut at = frame.parent().map(str::to_string);
            while let Some(id) = at.take() {
                if out.len() > state.len() {
                    break;
                }
                at = state
                    .frame(&id)
                    .and_then(|f| f.parent().map(str::to_string));
                out.push(id);
            }
            out
        };
        let mut closed = Vec::new();
        for frame in state.frames() {
            let kind = if auto::is_turn(&frame) {
                Kind::Turn
            } else if auto::is_todo(&frame) {
                Kind::Item
            } else {
                continue;
            };
            if !frame.status().is_finished() {
                continue;
            }
            let up = ancestors(&frame);
            if !up.iter().any(|id| id == self.session.as_str()) {
                continue;
            }
            let in_turn = up.iter().find(|id| {
                state
                    .frame(id)
                    .is_some_and(|f| auto::is_turn(&f) && f.status().is_finished())
            });
            closed.push(ClosedFrame {
                id: frame.id.to_string(),
                kind,
                goal: frame.goal().to_string(),
                from: frame.created_at(),
                to: frame.updated_at(),
                agent_turn: frame
                    .field(TURN_ID_KEY)
                    .and_then(Json::as_str)
                    .map(str::to_string),
                in_turn: if kind == Kind::Item {
                    in_turn.cloned()
                } else {
                    None
                },
            });
        }
        Ok(closed)
    }

    /// Writes again the log of each auto-frame in `exports` (a turn or item frame and its
    /// messages), as its close wrote it, now from messages read when the session ends.
    pub fn rewrite_logs(&mut self, exports: &[(String, Export)]) -> Result<()> {
        if exports.is_empty() {
            return Ok(());
        }
        let max = self.output_max()?;
        let now = self.ctx.now;
        let store = &self.store;
        store.update(now, |state| {
            for (id, export) in exports {
                let Some(frame_id) = state.frame(id).map(|f| f.frame_id()) else {
                    continue;
                };
                let messages = log::Messages::of(export, max);
                store.write_log(&frame_id, &log::render(state, id, now, Some(&messages)))?;
            }
            Ok(((), false))
        })?;
        Ok(())
    }

    fn output_max(&self) -> Result<usize> {
        Ok(self
            .ctx
            .settings()?
            .count(&crate::settings::FRAME_LOG_OUTPUT_MAX)? as usize)
    }

    /// A compaction's summary on the session's current frame.
    pub fn compaction_summary(&mut self, summary: &str) -> Result<()> {
        self.record_compaction(None, summary).map(|_| ())
    }

    /// A compaction's summary that the agent writes only into its session file, where every
    /// later look finds it again: recorded as [`Hook::compaction_summary`] records it, once,
    /// the compaction's `id` kept in the session's record; whether it was new.
    pub fn compaction_summary_once(&mut self, id: &str, summary: &str) -> Result<bool> {
        self.record_compaction(Some(id), summary)
    }

    fn record_compaction(&mut self, id: Option<&str>, summary: &str) -> Result<bool> {
        let session = self.session.clone();
        let now = self.ctx.now;
        let (recorded, _) = self.store.update(now, |state| {
            if state.frame(&session).is_none() {
                return Ok((false, false));
            }
            if let Some(id) = id {
                let mut record = record_of(state, &session)?;
                if record.get(COMPACTION_KEY).and_then(Json::as_str) == Some(id) {
                    return Ok((false, false));
                }
                record.insert(COMPACTION_KEY, Json::str(id));
                state.set_claude_session(&session, record);
            }
            let current = ops::session_current_or_own(state, &session)?;
            let correction = Correction {
                summary: Some(summary),
                ..Correction::default()
            };
            ops::edit(state, &current, &correction, now)?;
            Ok((true, true))
        })?;
        Ok(recorded)
    }
}

/// The key of a session's record that holds the id of the last compaction whose summary was
/// recorded ([`Hook::compaction_summary_once`]).
const COMPACTION_KEY: &str = "compactionRecorded";

/// The key of a turn frame that holds the agent's id of its turn (Claude Code's `prompt_id`,
/// Codex's `turn_id`), by which its Stop finds it.
const TURN_ID_KEY: &str = "turnId";
/// The summary of a turn closed by the next prompt before its Stop was seen.
const NO_STOP_BEFORE_PROMPT: &str = "(no Stop was seen for this turn before the next prompt)";
/// The summary of a turn closed by the end of its process before its Stop was seen.
const NO_STOP_AT_END: &str = "(the process ended before the turn's Stop)";

/// Whether a prompt is an agent's notice rather than a person's: Claude Code hands a background
/// subagent's result back as a prompt of its own (`<task-notification>`), and Codex a
/// subagent's as `<subagent_notification>`.
fn is_notification(prompt: &str) -> bool {
    let start = prompt.trim_start();
    start.starts_with("<task-notification>") || start.starts_with("<subagent_notification>")
}

/// The turn frame whose agent's turn id is `turn`.
fn named_turn(state: &State, turn: Option<&str>) -> Option<String> {
    let turn = turn?;
    state
        .frames()
        .find(|f| auto::is_turn(f) && f.field(TURN_ID_KEY).and_then(Json::as_str) == Some(turn))
        .map(|f| f.id.to_string())
}

/// The session's current frame (past its items) when it is a running turn frame.
fn open_turn_on_top(state: &State, session: &str) -> Result<Option<String>> {
    Ok(auto::current_past_items(state, session)?.filter(|id| {
        state
            .frame(id)
            .is_some_and(|f| auto::is_turn(&f) && !f.status().is_finished())
    }))
}

/// The running turn frame that the session's current frame is, or runs in.
fn open_turn_around(state: &State, session: &str) -> Result<Option<String>> {
    let mut at = ops::session_current(state, session)?;
    // Up the parents, bounded by the number of frames: a cycle written by hand ends the walk.
    for _ in 0..=state.len() {
        let Some(frame) = at.as_deref().and_then(|id| state.frame(id)) else {
            return Ok(None);
        };
        if auto::is_turn(&frame) && !frame.status().is_finished() {
            return Ok(Some(frame.id.to_string()));
        }
        if frame.id == session {
            return Ok(None);
        }
        at = frame.parent().map(str::to_string);
    }
    Ok(None)
}

/// Closes every running turn frame on top of `session` whose Stop was not seen: completed, with
/// its summary so far (the answer of a Stop that left it open for a frame of the model's), else
/// `unseen` as its summary and a note saying the Stop did not come `when`. Whether any closed.
#[allow(clippy::too_many_arguments)]
fn close_turns_on_top(
    store: &Store,
    state: &mut State,
    session: &str,
    unseen: &str,
    when: &str,
    now: i64,
    notes: &mut Vec<String>,
) -> Result<bool> {
    let mut closed = false;
    while let Some(open) = open_turn_on_top(state, session)? {
        closed = true;
        let kept = state.frame(&open).and_then(|f| f.summary()).is_some();
        if !kept {
            notes.push(format!("turn {open} had no Stop {when}: closed"));
        }
        close_turn(store, state, session, &open, (!kept).then_some(unseen), now)?;
    }
    Ok(closed)
}

/// Closes turn frame `id` completed, with `summary` unless it has one already, and writes its
/// log; its items still open close first, as blocked, with their summaries alone (the session's
/// end writes their logs again from the whole transcript). Subagents the turn started in the
/// background may still run below it: they end at their own SubagentStop.
fn close_turn(
    store: &Store,
    state: &mut State,
    session: &str,
    id: &str,
    summary: Option<&str>,
    now: i64,
) -> Result<()> {
    todo::close_in_turn(state, store, session, id, None, now)?;
    let plan = ops::check_pop(state, id, true)?;
    ops::apply_pop(state, &plan, Status::Completed, summary, now)?;
    store.write_log(&plan.id, &log::render(state, id, now, None))
}

/// A session's frame: under the frame a person made current when it runs (as a root OpenCode
/// session starts), else a new root.
fn push_session_frame(state: &mut State, session: &str, goal: &str, now: i64) -> Result<()> {
    let parent = state
        .active_frame_id()
        .and_then(|id| state.frame(id))
        .filter(|f| f.status() == Status::InProgress)
        .map(|f| f.id.to_string());
    ops::push(
        state,
        goal,
        parent.as_deref(),
        Some(session),
        Place::Session(session),
        now,
    )?;
    Ok(())
}

/// A copy of the session's record (in `claudeSessions`; empty when it has none).
fn record_of(state: &State, session: &str) -> Result<Object> {
    state
        .claude_session(session)
        .map(|r| r.cloned().unwrap_or_default())
        .map_err(|invalid| {
            Error::failure(format!(".opencode/flame/state.json: {}", invalid.message))
                .with_hint("fix or remove the key by hand; ctx leaves the file as it is")
        })
}

/// Whether the event names a transcript other than the one the session's record notes.
fn transcript_changed(record: &Object, transcript: Option<&str>) -> bool {
    transcript.is_some_and(|path| {
        record
            .get(claude_log::TRANSCRIPT_KEY)
            .and_then(Json::as_str)
            != Some(path)
    })
}

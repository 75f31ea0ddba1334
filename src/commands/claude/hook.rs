//! `ctx claude hook EVENT`: one Claude Code hook call (claude-code.md §3–§4), the event's JSON on
//! stdin, the answer (or nothing) on stdout, and never a failure: whatever goes wrong is one line in
//! the hook log and exit 0, because an exit 2 would block Claude Code's action.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::claude::{ids, log as claude_log, transcript};
use crate::commands::Context;
use crate::compact::frame_context;
use crate::error::{Error, Result};
use crate::frame::log;
use crate::frame::ops::{self, Correction, Place};
use crate::frame::state::{SCHEMA_VERSION, State, Status};
use crate::frame::store::{self, Store};
use crate::json::{Json, Object};
use crate::project::Project;

/// Hook input larger than this is not a hook event.
const MAX_HOOK_INPUT: u64 = 16 << 20;
/// Subagent transcripts larger than this are left out of the log.
const MAX_TRANSCRIPT: u64 = claude_log::MAX_TRANSCRIPT;
/// The log of hook failures, below `.opencode/flame/`.
pub const HOOK_LOG: &str = "claude-hooks.log";
/// The log of hook failures below `~/.claude/`, where there is no frame folder.
pub const USER_HOOK_LOG: &str = "ctx-hooks.log";
/// A log grown past this is moved to `<name>.old` before the next line.
const MAX_LOG_BYTES: u64 = 1 << 20;
/// Subagent calls remembered per session until their subagent starts.
const MAX_PENDING_CALLS: usize = 32;
/// ctx's forked slash command (`commands/frame.md`) and the agent it runs (`agents/ctx-frame.md`).
const FORKED_COMMAND: &str = "frame";
const FORKED_AGENT: &str = "ctx-frame";
/// How long an Agent call waits for an earlier call of its type to be claimed by its subagent.
const CALL_WAIT: std::time::Duration = std::time::Duration::from_secs(4);
/// What a compaction must keep of the frames (PreCompact's stdout is appended to Claude Code's
/// compaction instructions).
const COMPACTION_INSTRUCTION: &str = "\
Flame frames: this session works in the frame tree above (.opencode/flame/state.json). Keep in \
your summary, verbatim, the id of the current frame and its goal, the ids of the frames named \
above with their status, and the log paths of finished frames (.opencode/flame/logs/frame-<id>.md), \
so that the work continues in the right frame after the compaction.";

/// `ctx claude hook EVENT` as the process's whole work: never fails, never prints anything but
/// the answer. Called from `main` before the command line is parsed any further.
pub fn hook_main(event: &str) {
    // A panic must not print to stderr nor exit with 101: it becomes a log line.
    std::panic::set_hook(Box::new(|_| {}));
    let root = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|d| !d.is_empty())
        .map(|d| {
            let home = crate::project::home_dir().map(|h| std::fs::canonicalize(&h).unwrap_or(h));
            Ok(crate::project::discover_root(Path::new(&d), home.as_deref()).0)
        })
        .unwrap_or_else(|| Project::locate(None).map(|p| p.root));
    run(root, event);
}

pub(super) fn run(root: Result<PathBuf>, event: &str) {
    let mut input = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_HOOK_INPUT + 1)
        .read_to_end(&mut input);
    let root_for_log = root.as_ref().ok().cloned();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
        || -> Result<Option<String>> {
            read.map_err(|e| Error::io(Path::new("<stdin>"), "read", &e))?;
            if input.len() as u64 > MAX_HOOK_INPUT {
                return Err(Error::failure("the event's JSON is larger than 16 MiB"));
            }
            let root = root?;
            let value: Value = serde_json::from_slice(&input)
                .map_err(|e| Error::failure(format!("the event's JSON is not valid JSON: {e}")))?;
            if !value.is_object() {
                return Err(Error::failure("the event's JSON is not an object"));
            }
            let mut hook = Hook::new(root, &value)?;
            hook.answer(event)
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
    if let Some(problem) = problem {
        let session = serde_json::from_slice::<Value>(&input)
            .ok()
            .and_then(|v| v.get("session_id")?.as_str().map(str::to_string));
        log_problem(root_for_log.as_deref(), event, session.as_deref(), &problem);
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

/// Appends one line to the hook log: `.opencode/flame/claude-hooks.log` where the project has a
/// frame folder, else `ctx-hooks.log` in Claude Code's folder. A log that cannot be written is
/// given up on: there is nowhere left to say so that Claude Code would not mistake for an answer.
fn log_problem(root: Option<&Path>, event: &str, session: Option<&str>, problem: &str) {
    let flame = root.map(|r| r.join(".opencode").join("flame"));
    let path = match flame.filter(|d| d.is_dir()) {
        Some(dir) => dir.join(HOOK_LOG),
        None => match crate::claude::config_dir() {
            Some(dir) => dir.join(USER_HOOK_LOG),
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
        problem.replace('\n', " ")
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

/// One hook call: the event's fields, the project, the clock.
struct Hook<'a> {
    ctx: Context,
    store: Store,
    input: &'a Value,
    /// The session's frame id (`cc_<session id>`).
    session: String,
}

/// The JSON answer that adds `context` to what the model sees.
fn additional_context(event: &str, context: &str) -> String {
    let mut text = serde_json::json!({
        "hookSpecificOutput": { "hookEventName": event, "additionalContext": context }
    })
    .to_string();
    text.push('\n');
    text
}

/// What the session's model is told, after its frame context, of frames as forks.
const FORK_HINT: &str = "\
When a sub-goal takes many tool calls whose outputs you will not need afterwards, give it a \
frame of its own as a fork: the Agent tool with subagent_type \"fork\" and run_in_background \
false (what /push does); only its report comes back, its outputs stay in the frame's log. A fork \
cannot fork nor ask the user: for that, run `ctx frame push -- '<goal>'` and later \
`ctx frame pop --summary '<what was achieved>'` with Bash.";

/// The session's frame context and the hint on fork frames, as the answer to `event`.
fn session_context(event: &str, xml: &str) -> String {
    additional_context(event, &format!("{xml}\n{FORK_HINT}"))
}

/// 64-bit FNV-1a of a context text, as recorded in `claudeSessions`.
fn context_hash(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// A string field of the event, when it is a non-blank string.
fn field<'v>(input: &'v Value, key: &str) -> Option<&'v str> {
    input
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

impl<'a> Hook<'a> {
    fn new(root: PathBuf, input: &'a Value) -> Result<Hook<'a>> {
        let session_id = field(input, "session_id")
            .ok_or_else(|| Error::failure("the event has no \"session_id\""))?;
        let session = ids::session_frame(session_id).ok_or_else(|| {
            Error::failure(format!(
                "the session id '{}' cannot name a frame",
                session_id.escape_debug()
            ))
        })?;
        let ctx = Context {
            project: Project::at(root),
            out: crate::output::Output::new(false, true, crate::output::ColorChoice::Never),
            now: crate::time::now_ms(),
            hook: true,
        };
        let store = ctx.store()?;
        Ok(Hook {
            ctx,
            store,
            input,
            session,
        })
    }

    fn answer(&mut self, event: &str) -> Result<Option<String>> {
        match event {
            "SessionStart" => self.session_start(),
            "UserPromptSubmit" => self.prompt(),
            "PreToolUse" if field(self.input, "tool_name") == Some("Bash") => self.subagent_bash(),
            "PreToolUse" => self.agent_call(),
            "UserPromptExpansion" => self.command_expansion(),
            "SubagentStart" => self.subagent_start(),
            "SubagentStop" => self.subagent_stop(),
            "PostToolUseFailure" => self.agent_failure(),
            "PreCompact" => self.pre_compact(),
            "PostCompact" => self.post_compact(),
            "SessionEnd" => super::session_end::fold(&self.ctx, &self.store, self.input),
            // A newer Claude Code's event, or one hooked by hand: nothing to do.
            _ => Ok(None),
        }
    }

    fn settings(&self) -> Result<frame_context::Settings> {
        crate::commands::compact::frame_settings(&self.ctx)
    }

    fn render(&self, state: &State, id: &str) -> Result<String> {
        Ok(frame_context::render(state, id, &self.settings()?)?.xml)
    }

    /// SessionStart: `CTX_SESSION` for the model's Bash commands; after a compaction, or in a new
    /// conversation of a session that has a frame, the frame context again; on a resume when it
    /// changed.
    fn session_start(&mut self) -> Result<Option<String>> {
        self.write_env_file()?;
        match field(self.input, "source") {
            // A compaction replaced the conversation, and the context added to it.
            Some("compact") => self.context_for_session("SessionStart", true),
            // A resumed conversation still holds what was added before.
            Some("resume") => self.context_for_session("SessionStart", false),
            // A new conversation (startup, /clear) holds nothing yet: a session that already has
            // a frame (its id given again) gets its context now; a new one at its first prompt.
            _ if self.store.load()?.frame(&self.session).is_some() => {
                self.context_for_session("SessionStart", true)
            }
            _ => Ok(None),
        }
    }

    /// Appends `export CTX_SESSION=<frame id>` to the file Claude Code sources before each of
    /// the model's Bash commands, once.
    fn write_env_file(&self) -> Result<()> {
        let Some(path) = std::env::var_os("CLAUDE_ENV_FILE").filter(|p| !p.is_empty()) else {
            return Ok(());
        };
        let path = PathBuf::from(path);
        let line = format!("export CTX_SESSION={}\n", self.session);
        // Read and opened without waiting: a named pipe there would stall the hook.
        let existing = match store::read_regular_capped(&path, MAX_HOOK_INPUT) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(Error::io(&path, "read", &e)),
        };
        if existing.lines().any(|l| format!("{l}\n") == line) {
            return Ok(());
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(parent, "create the directory", &e))?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK);
        }
        let mut file = options
            .open(&path)
            .map_err(|e| Error::io(&path, "open", &e))?;
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Err(Error::failure(format!(
                "{}: not a regular file; refusing to write to it",
                path.display()
            )));
        }
        let text = if existing.is_empty() || existing.ends_with('\n') {
            line
        } else {
            format!("\n{line}")
        };
        file.write_all(text.as_bytes())
            .map_err(|e| Error::io(&path, "write", &e))
    }

    /// UserPromptSubmit: the session's frame (made at its first prompt) and its context when it
    /// changed since it was last added.
    fn prompt(&mut self) -> Result<Option<String>> {
        self.context_for_session("UserPromptSubmit", false)
    }

    /// The session's frame context, made (with the session's frame, when it has none yet) and
    /// recorded; `None` when `always` is false and the same text was added last time.
    fn context_for_session(&mut self, event: &str, always: bool) -> Result<Option<String>> {
        let settings = self.settings()?;
        let transcript = field(self.input, "transcript_path");
        let session = self.session.clone();
        // The common case, a prompt whose context was added before and has not changed, only
        // reads: no lock, no write.
        let state = self.store.load()?;
        if state.frame(&session).is_some() && state.version() <= SCHEMA_VERSION {
            let current =
                ops::session_current(&state, &session)?.unwrap_or_else(|| session.clone());
            let xml = frame_context::render(&state, &current, &settings)?.xml;
            let recorded = record_of(&state, &session)?;
            if recorded.get("contextHash").and_then(Json::as_str) == Some(&context_hash(&xml))
                && !transcript_changed(&recorded, transcript)
            {
                return Ok(always.then(|| session_context(event, &xml)));
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
            let current = ops::session_current(state, &session)?.unwrap_or_else(|| session.clone());
            let xml = frame_context::render(state, &current, &settings)?.xml;
            let hash = context_hash(&xml);
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
        Ok(context.map(|xml| session_context(event, &xml)))
    }

    /// A new session's goal: the first line of its first prompt.
    fn session_goal(&self) -> String {
        let first_line =
            field(self.input, "prompt").and_then(|p| p.lines().find(|l| !l.trim().is_empty()));
        match first_line {
            Some(line) => crate::commands::opencode::goal_from_title(Some(line), &self.session),
            None => format!(
                "Claude Code session {}",
                &self.session[ids::SESSION_PREFIX.len()..]
            ),
        }
    }

    /// PreToolUse of `Bash` inside a subagent: Claude Code gives the subagent's Bash commands its
    /// session's `CTX_SESSION`, so a `ctx` command the subagent runs is rewritten
    /// (`updatedInput`) to name the subagent's own frame first, and acts on it.
    fn subagent_bash(&mut self) -> Result<Option<String>> {
        let Some(frame) = field(self.input, "agent_id").and_then(ids::agent_frame) else {
            return Ok(None);
        };
        let tool_input = self.input.get("tool_input").unwrap_or(&Value::Null);
        let Some(command) = tool_input.get("command").and_then(Value::as_str) else {
            return Ok(None);
        };
        if !command.contains("ctx") {
            return Ok(None);
        }
        let running = self
            .store
            .load()?
            .frame(&frame)
            .is_some_and(|f| !f.status().is_finished());
        if !running {
            return Ok(None);
        }
        let mut updated = tool_input.clone();
        updated["command"] = Value::from(format!("export CTX_SESSION={frame}\n{command}"));
        let mut text = serde_json::json!({
            "hookSpecificOutput": { "hookEventName": "PreToolUse", "updatedInput": updated }
        })
        .to_string();
        text.push('\n');
        Ok(Some(text))
    }

    /// PreToolUse of `Agent`: remembers the call's description until its subagent starts.
    fn agent_call(&mut self) -> Result<Option<String>> {
        if field(self.input, "tool_name") != Some("Agent") {
            return Ok(None);
        }
        let tool_input = self.input.get("tool_input").unwrap_or(&Value::Null);
        let (Some(call), Some(description)) = (
            field(self.input, "tool_use_id"),
            field(tool_input, "description"),
        ) else {
            return Ok(None);
        };
        let agent_type = field(tool_input, "subagent_type").unwrap_or("general-purpose");
        let mut entry = Object::new();
        entry.insert("toolUseId", Json::str(call));
        entry.insert("description", Json::str(description));
        entry.insert("agentType", Json::str(agent_type));
        // A subagent starting a subagent: the new frame goes below the caller's.
        if let Some(caller) = field(self.input, "agent_id") {
            entry.insert("callerAgentId", Json::str(caller));
        }
        self.note_call(entry, agent_type)
    }

    /// UserPromptExpansion of ctx's forked command (`/frame <goal>`, `context: fork`): it starts
    /// a `ctx-frame` subagent with no Agent call, so the goal typed is noted as its call.
    fn command_expansion(&mut self) -> Result<Option<String>> {
        if field(self.input, "command_name") != Some(FORKED_COMMAND) {
            return Ok(None);
        }
        let Some(goal) = field(self.input, "command_args")
            .and_then(|a| a.lines().find(|l| !l.trim().is_empty()))
        else {
            return Ok(None);
        };
        let mut entry = Object::new();
        entry.insert("description", Json::str(goal.trim()));
        entry.insert("agentType", Json::str(FORKED_AGENT));
        self.note_call(entry, FORKED_AGENT)
    }

    /// Remembers a subagent call until its subagent starts.
    fn note_call(&mut self, entry: Object, agent_type: &str) -> Result<Option<String>> {
        let session = self.session.clone();
        // SubagentStart names only the new agent's id, and Claude Code writes the `.meta.json`
        // that ties the id to its call only after the SubagentStart hooks have returned: with
        // two calls of one type waiting, a starting subagent could not tell which is its own.
        // So a call waits here, before its subagent can start, until no other call of its type
        // waits to be claimed; one still waiting after CALL_WAIT never started (denied, say)
        // and is dropped.
        let deadline = std::time::Instant::now() + CALL_WAIT;
        loop {
            let expired = std::time::Instant::now() >= deadline;
            let free = expired
                || !waiting_call_of_type(&record_of(&self.store.load()?, &session)?, agent_type);
            if free {
                let (recorded, _) = self.store.update(self.ctx.now, |state| {
                    let mut record = record_of(state, &session)?;
                    let mut calls = match record.remove("agentCalls") {
                        Some(Json::Array(calls)) => calls,
                        _ => Vec::new(),
                    };
                    let same_type =
                        |c: &Json| call_text(c, "agentType").as_deref() == Some(agent_type);
                    if calls.iter().any(same_type) {
                        if !expired {
                            // Another call came first, between the read and the lock.
                            return Ok((false, false));
                        }
                        calls.retain(|c| !same_type(c));
                    }
                    calls.push(Json::Object(entry.clone()));
                    if calls.len() > MAX_PENDING_CALLS {
                        calls.drain(..calls.len() - MAX_PENDING_CALLS);
                    }
                    record.insert("agentCalls", Json::Array(calls));
                    state.set_claude_session(&session, record);
                    Ok((true, true))
                })?;
                if recorded {
                    return Ok(None);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// SubagentStart: the subagent's frame, a running child of its session's current frame, and
    /// its context for the subagent's first request.
    fn subagent_start(&mut self) -> Result<Option<String>> {
        let agent_type = self
            .input
            .get("agent_type")
            .and_then(Value::as_str)
            .unwrap_or("");
        // Claude Code's own compaction runs as a subagent without a type: not a frame.
        if agent_type.is_empty() {
            return Ok(None);
        }
        let agent_id = field(self.input, "agent_id")
            .ok_or_else(|| Error::failure("SubagentStart without \"agent_id\""))?;
        let frame = ids::agent_frame(agent_id).ok_or_else(|| {
            Error::failure(format!(
                "the agent id '{}' cannot name a frame",
                agent_id.escape_debug()
            ))
        })?;
        let meta = self.agent_meta(agent_id);
        let settings = self.settings()?;
        let session = self.session.clone();
        let fallback_goal = format!(
            "Claude Code session {}",
            &session[ids::SESSION_PREFIX.len()..]
        );
        let now = self.ctx.now;
        let (xml, _) = self.store.update(now, |state| {
            if state.frame(&session).is_none() {
                push_session_frame(state, &session, &fallback_goal, now)?;
            }
            let mut record = record_of(state, &session)?;
            let call = take_call(&mut record, meta.as_ref(), agent_type);
            state.set_claude_session(&session, record);
            if state.frame(&frame).is_none() {
                let goal = call
                    .as_ref()
                    .map(|c| c.description.clone())
                    .unwrap_or_else(|| format!("Claude Code subagent ({agent_type})"));
                let caller = call
                    .as_ref()
                    .and_then(|c| c.caller.as_deref())
                    .and_then(ids::agent_frame)
                    .filter(|f| {
                        state
                            .frame(f)
                            .is_some_and(|f| f.status() == Status::InProgress)
                    });
                let parent = match caller {
                    Some(caller) => ops::session_current(state, &caller)?.unwrap_or(caller),
                    None => {
                        ops::session_current(state, &session)?.unwrap_or_else(|| session.clone())
                    }
                };
                ops::push(
                    state,
                    &goal,
                    Some(&parent),
                    Some(&frame),
                    Place::Session(&frame),
                    now,
                )?;
                if let Some(call) = call.and_then(|c| c.tool_use_id) {
                    state.set_field(&frame, "claudeToolUseId", Json::str(&call));
                }
            }
            let xml = frame_context::render(state, &frame, &settings)?.xml;
            Ok((xml, true))
        })?;
        Ok(Some(additional_context("SubagentStart", &xml)))
    }

    /// The `.meta.json` Claude Code writes beside a subagent's transcript as it starts it: the
    /// Agent call's description and tool_use_id. `None` when it is absent or unreadable.
    fn agent_meta(&self, agent_id: &str) -> Option<transcript::AgentMeta> {
        let session = field(self.input, "transcript_path")?;
        let dir = Path::new(session.strip_suffix(".jsonl")?).join("subagents");
        transcript::agent_meta(&dir.join(format!("agent-{agent_id}.jsonl")))
    }

    /// SubagentStop: pops the subagent's frame, completed with its last message as the summary
    /// (failed when it ended without one), its transcript in the log.
    fn subagent_stop(&mut self) -> Result<Option<String>> {
        let agent_type = self
            .input
            .get("agent_type")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(frame) = field(self.input, "agent_id").and_then(ids::agent_frame) else {
            return Err(Error::failure("SubagentStop without a usable \"agent_id\""));
        };
        // Before any wait for the transcript: is there a frame to pop?
        match self.store.load()?.frame(&frame) {
            // Claude Code's compaction ends as a subagent without a type and without a frame.
            None if agent_type.is_empty() => return Ok(None),
            None => {
                return Err(Error::failure(format!(
                    "SubagentStop for {frame}, which has no frame (its SubagentStart was not seen)"
                )));
            }
            Some(f) if f.status().is_finished() => return Ok(None),
            Some(_) => {}
        }
        let reported = field(self.input, "last_assistant_message");
        let lines = read_agent_transcript(field(self.input, "agent_transcript_path"), reported);
        let title = format!(
            "subagent transcript {}",
            field(self.input, "agent_transcript_path").unwrap_or("(none)")
        );
        let export = transcript::to_export(&lines, &frame, &title, reported);
        let summary = reported
            .map(str::to_string)
            .or_else(|| export.last_assistant_text());
        let status = if summary.is_some() {
            Status::Completed
        } else {
            Status::Failed
        };
        self.pop_agent(&frame, status, summary.as_deref(), Some(&export))?;
        Ok(None)
    }

    /// Pops a subagent's frame when it is still running; whether it did.
    fn pop_agent(
        &mut self,
        frame: &str,
        status: Status,
        summary: Option<&str>,
        export: Option<&crate::opencode::export::Export>,
    ) -> Result<bool> {
        let now = self.ctx.now;
        let store = &self.store;
        let config = self.ctx.project.config()?;
        let output_max =
            crate::settings::resolve(config, &crate::settings::FRAME_LOG_OUTPUT_MAX, None, None)?
                .count() as usize;
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
            store.write_log(frame, &log::render(state, frame, now, messages.as_ref()))?;
            Ok((true, true))
        })?;
        Ok(popped)
    }

    /// PostToolUseFailure of `Agent`: the subagent the call started ended badly.
    fn agent_failure(&mut self) -> Result<Option<String>> {
        if field(self.input, "tool_name") != Some("Agent") {
            return Ok(None);
        }
        let Some(call) = field(self.input, "tool_use_id") else {
            return Ok(None);
        };
        let interrupted = self
            .input
            .get("is_interrupt")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let status = if interrupted {
            Status::Blocked
        } else {
            Status::Failed
        };
        let error = field(self.input, "error").map(|e| format!("The Agent call failed: {e}"));
        let state = self.store.load()?;
        let frame = state
            .frames()
            .find(|f| {
                f.extra()
                    .any(|(k, v)| k == "claudeToolUseId" && v.as_str() == Some(call))
            })
            .map(|f| f.id.to_string());
        if let Some(frame) = frame {
            self.pop_agent(&frame, status, error.as_deref(), None)?;
        }
        Ok(None)
    }

    /// PreCompact: the frame context and what the summary must keep, as plain text that Claude
    /// Code appends to the compaction instructions.
    fn pre_compact(&mut self) -> Result<Option<String>> {
        let state = self.store.load()?;
        if state.frame(&self.session).is_none() {
            return Ok(None);
        }
        let current =
            ops::session_current(&state, &self.session)?.unwrap_or_else(|| self.session.clone());
        let xml = self.render(&state, &current)?;
        Ok(Some(format!("{xml}\n\n{COMPACTION_INSTRUCTION}\n")))
    }

    /// PostCompact: the compaction summary on the session's current frame.
    fn post_compact(&mut self) -> Result<Option<String>> {
        let Some(summary) = field(self.input, "compact_summary").map(str::to_string) else {
            return Ok(None);
        };
        let session = self.session.clone();
        let now = self.ctx.now;
        self.store.update(now, |state| {
            if state.frame(&session).is_none() {
                return Ok(((), false));
            }
            let current = ops::session_current(state, &session)?.unwrap_or_else(|| session.clone());
            let correction = Correction {
                summary: Some(&summary),
                ..Correction::default()
            };
            ops::edit(state, &current, &correction, now)?;
            Ok(((), true))
        })?;
        Ok(None)
    }
}

/// How long SubagentStop waits for Claude Code to finish writing a subagent's transcript.
const TRANSCRIPT_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// A subagent's transcript, read when it holds the subagent's last message: Claude Code may
/// still be writing it when SubagentStop runs (observed: an empty file, or one without the last
/// response), so it is read again for up to [`TRANSCRIPT_WAIT`]. What there is then is taken.
fn read_agent_transcript(path: Option<&str>, last: Option<&str>) -> transcript::Lines {
    let empty = || transcript::Lines {
        records: Vec::new(),
        skipped: 0,
    };
    let Some(path) = path else {
        return empty();
    };
    let started = std::time::Instant::now();
    loop {
        // A path named by the event: only a regular file is read, without waiting on a pipe.
        let lines = match store::read_regular_capped(Path::new(path), MAX_TRANSCRIPT) {
            Ok(bytes) => transcript::parse(&String::from_utf8_lossy(&bytes)),
            // Not a file that will become the transcript by waiting.
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return empty(),
            Err(_) => empty(),
        };
        let complete = match last {
            Some(last) => transcript::last_assistant_text(&lines)
                .is_some_and(|text| text.trim() == last.trim()),
            None => !lines.records.is_empty(),
        };
        if complete || started.elapsed() >= TRANSCRIPT_WAIT {
            return lines;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
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

/// A copy of the session's record in `claudeSessions` (empty when it has none).
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

/// A text field of a remembered call.
fn call_text(call: &Json, key: &str) -> Option<String> {
    call.as_object()?.get(key)?.as_str().map(str::to_string)
}

/// Whether the record holds a call of `agent_type` that no subagent has claimed yet.
fn waiting_call_of_type(record: &Object, agent_type: &str) -> bool {
    match record.get("agentCalls") {
        Some(Json::Array(calls)) => calls
            .iter()
            .any(|c| call_text(c, "agentType").as_deref() == Some(agent_type)),
        _ => false,
    }
}

/// A subagent call, as PreToolUse or the subagent's `.meta.json` told it.
struct AgentCall {
    description: String,
    tool_use_id: Option<String>,
    /// The subagent that made the call, when a subagent started another.
    caller: Option<String>,
}

/// The call that started a subagent: the one its `.meta.json` names, else the remembered call
/// of its agent type (there is at most one: see `agent_call`), else the oldest. The call is
/// taken out of the record.
fn take_call(
    record: &mut Object,
    meta: Option<&transcript::AgentMeta>,
    agent_type: &str,
) -> Option<AgentCall> {
    let mut calls = match record.remove("agentCalls") {
        Some(Json::Array(calls)) => calls,
        _ => Vec::new(),
    };
    let text = |call: &Json, key: &str| -> Option<String> {
        call.as_object()?.get(key)?.as_str().map(str::to_string)
    };
    let meta_id = meta.and_then(|m| m.tool_use_id.as_deref());
    let meta_description = meta
        .and_then(|m| m.description.as_deref())
        .filter(|d| !d.trim().is_empty());
    let at = match meta_id {
        Some(id) => calls
            .iter()
            .position(|c| text(c, "toolUseId").as_deref() == Some(id)),
        None => calls
            .iter()
            .position(|c| text(c, "agentType").as_deref() == Some(agent_type))
            .or(if calls.is_empty() { None } else { Some(0) }),
    };
    let taken = at.map(|at| calls.remove(at));
    if !calls.is_empty() {
        record.insert("agentCalls", Json::Array(calls));
    }
    match (meta_description, taken) {
        (Some(description), taken) => Some(AgentCall {
            description: description.to_string(),
            tool_use_id: meta_id
                .map(str::to_string)
                .or_else(|| taken.as_ref().and_then(|c| text(c, "toolUseId"))),
            caller: taken.as_ref().and_then(|c| text(c, "callerAgentId")),
        }),
        (None, Some(call)) => Some(AgentCall {
            description: text(&call, "description")?,
            tool_use_id: text(&call, "toolUseId"),
            caller: text(&call, "callerAgentId"),
        }),
        (None, None) => None,
    }
}

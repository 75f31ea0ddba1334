//! `ctx claude hook EVENT`: one Claude Code hook call (claude-code.md §3–§4), the event's JSON on
//! stdin, the answer (or nothing) on stdout, and never a failure: whatever goes wrong is one line in
//! the hook log and exit 0, because an exit 2 would block Claude Code's action. The event logic is
//! the hook core's (`commands::hooks`); this adapter maps Claude Code's events, fields and answers onto
//! it, and adds what only Claude Code has (its env file, Bash in a subagent, `/frame`, SessionEnd).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::agent_calls::{AgentCall, CallMeta};
use crate::app::hooks::{self, Harness, Hook, ItemSpans, additional_context, field};
use crate::claude::{DIGEST_TOOLS, ids, log as claude_log, tasks, transcript};
use crate::conversation::Export;
use crate::error::{Error, Result};
use crate::frame::state::Status;
use crate::project::Project;
use crate::spent::jsonl;

/// Subagent transcripts larger than this are left out of the log.
const MAX_TRANSCRIPT: u64 = claude_log::MAX_TRANSCRIPT;
/// The hook log (failures, and subagents matched to their calls by a guess), below
/// `.opencode/flame/`.
pub const HOOK_LOG: &str = "claude-hooks.log";
/// The hook log below `~/.claude/`, where there is no frame folder.
pub const USER_HOOK_LOG: &str = "ctx-hooks.log";
/// ctx's forked slash command (`commands/frame.md`) and the agent it runs (`agents/ctx-frame.md`).
const FORKED_COMMAND: &str = "frame";
const FORKED_AGENT: &str = "ctx-frame";
/// What a compaction must keep of the frames (PreCompact's stdout is appended to Claude Code's
/// compaction instructions).
const COMPACTION_INSTRUCTION: &str = "\
Flame frames: this session works in the frame tree above (.opencode/flame/state.json). Keep in \
your summary, verbatim, the id of the current frame and its goal, the ids of the frames named \
above with their status, and the log paths of finished frames (.opencode/flame/logs/frame-<id>.md), \
so that the work continues in the right frame after the compaction.";

/// Claude Code for the hook core: `cc_<session>` and `cca_<agent>` frames (`crate::claude::ids`).
static CLAUDE: Harness = Harness {
    name: "Claude Code",
    session_prefix: ids::SESSION_PREFIX,
    agent_prefix: ids::AGENT_PREFIX,
    log_name: HOOK_LOG,
    user_dir: crate::claude::config_dir,
    user_log_name: USER_HOOK_LOG,
    door: None,
};

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
    hooks::run(&CLAUDE, root, event, answer);
}

fn answer(hook: &mut Hook, event: &str) -> Result<Option<String>> {
    match event {
        "SessionStart" => session_start(hook),
        "UserPromptSubmit" => {
            let context = hook.session_context(false)?;
            if hook.turns_on()? {
                hook.turn_start(hook.field("prompt_id"))?;
            }
            Ok(context.map(|xml| session_context(event, &xml)))
        }
        "Stop" => turn_stop(hook),
        "PreToolUse" if hook.field("tool_name") == Some("Bash") => subagent_bash(hook),
        "PreToolUse" => agent_call(hook),
        "PostToolUse" if matches!(hook.field("tool_name"), Some(tasks::CREATE | tasks::UPDATE)) => {
            task_call(hook)
        }
        "UserPromptExpansion" => command_expansion(hook),
        "SubagentStart" => subagent_start(hook),
        "SubagentStop" => subagent_stop(hook),
        "PostToolUseFailure" => agent_failure(hook),
        "PreCompact" => Ok(hook
            .current_context()?
            .map(|xml| format!("{xml}\n\n{COMPACTION_INSTRUCTION}\n"))),
        "PostCompact" => {
            if let Some(summary) = hook.field("compact_summary") {
                hook.compaction_summary(summary)?;
            }
            Ok(None)
        }
        "SessionEnd" => {
            // Before the fold, so that the fold sees the turn closed.
            if hook.turns_on()? {
                hook.turns_end()?;
            }
            super::session_end::fold(hook)
        }
        // A newer Claude Code's event, or one hooked by hand: nothing to do.
        _ => Ok(None),
    }
}

/// What the session's model is told, after its frame context, of frames as forks. A Bash push
/// goes with the frame's first command because each call is one more request re-reading the whole
/// conversation, and the fold starts the frame's span at the push's call either way.
const FORK_HINT: &str = "\
When a sub-goal takes many tool calls whose outputs you will not need afterwards, give it a \
frame of its own as a fork: the Agent tool with subagent_type \"fork\" and run_in_background \
false (what /push does); only its report comes back, its outputs stay in the frame's log. A fork \
cannot fork nor ask the user: for that, use Bash, `ctx frame push -- '<goal>' && <first command>`, \
then `ctx frame pop --summary '<what was achieved>' && <next command>` (the pop alone when nothing \
follows, never with a push).";

/// The session's frame context and the hint on fork frames, as the answer to `event`.
fn session_context(event: &str, xml: &str) -> String {
    additional_context(event, &format!("{xml}\n{FORK_HINT}"))
}

/// SessionStart: `CTX_SESSION` for the model's Bash commands; after a compaction, or in a new
/// conversation of a session that has a frame, the frame context again; on a resume when it
/// changed.
fn session_start(hook: &mut Hook) -> Result<Option<String>> {
    write_env_file(hook)?;
    let context = match hook.field("source") {
        // A compaction replaced the conversation, and the context added to it.
        Some("compact") => hook.session_context(true)?,
        // A resumed conversation still holds what was added before.
        Some("resume") => hook.session_context(false)?,
        // A new conversation (startup, /clear) holds nothing yet: a session that already has
        // a frame (its id given again) gets its context now; a new one at its first prompt.
        _ if hook.session_has_frame()? => hook.session_context(true)?,
        _ => None,
    };
    Ok(context.map(|xml| session_context("SessionStart", &xml)))
}

/// Appends `export CTX_SESSION=<frame id>` to the file Claude Code sources before each of the
/// model's Bash commands, once.
fn write_env_file(hook: &Hook) -> Result<()> {
    let Some(path) = std::env::var_os("CLAUDE_ENV_FILE").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let path = PathBuf::from(path);
    let line = format!("export CTX_SESSION={}\n", hook.session);
    // Read and opened without waiting: a named pipe there would stall the hook.
    let existing = match crate::safe_file::read_regular_capped(&path, hooks::MAX_HOOK_INPUT) {
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

/// PreToolUse of `Bash` inside a subagent: Claude Code gives the subagent's Bash commands its
/// session's `CTX_SESSION`, so a `ctx` command the subagent runs is rewritten (`updatedInput`)
/// to name the subagent's own frame first, and acts on it.
fn subagent_bash(hook: &mut Hook) -> Result<Option<String>> {
    let Some(frame) = hook.field("agent_id").and_then(ids::agent_frame) else {
        return Ok(None);
    };
    let tool_input = hook.input.get("tool_input").unwrap_or(&Value::Null);
    let Some(command) = tool_input.get("command").and_then(Value::as_str) else {
        return Ok(None);
    };
    if !command.contains("ctx") || hook.agent_running(&frame)? != Some(true) {
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

/// PreToolUse of `Agent`: remembers the call's description until its subagent starts, at once,
/// however many calls wait.
fn agent_call(hook: &mut Hook) -> Result<Option<String>> {
    if hook.field("tool_name") != Some("Agent") {
        return Ok(None);
    }
    let tool_input = hook.input.get("tool_input").unwrap_or(&Value::Null);
    let (Some(call), Some(description)) =
        (hook.field("tool_use_id"), field(tool_input, "description"))
    else {
        return Ok(None);
    };
    let agent_type = field(tool_input, "subagent_type").unwrap_or("general-purpose");
    hook.note_call(&AgentCall {
        description: description.to_string(),
        tool_use_id: Some(call.to_string()),
        agent_type: agent_type.to_string(),
        // A subagent starting a subagent: the new frame goes below the caller's.
        caller: hook.field("agent_id").map(str::to_string),
    })?;
    Ok(None)
}

/// UserPromptExpansion of ctx's forked command (`/frame <goal>`, `context: fork`): it starts a
/// `ctx-frame` subagent with no Agent call, so the goal typed is noted as its call.
fn command_expansion(hook: &mut Hook) -> Result<Option<String>> {
    if hook.field("command_name") != Some(FORKED_COMMAND) {
        return Ok(None);
    }
    let Some(goal) = hook
        .field("command_args")
        .and_then(|a| a.lines().find(|l| !l.trim().is_empty()))
    else {
        return Ok(None);
    };
    hook.note_call(&AgentCall {
        description: goal.trim().to_string(),
        tool_use_id: None,
        agent_type: FORKED_AGENT.to_string(),
        caller: None,
    })?;
    Ok(None)
}

/// SubagentStart: the subagent's frame and its context for the subagent's first request.
fn subagent_start(hook: &mut Hook) -> Result<Option<String>> {
    let agent_type = hook
        .input
        .get("agent_type")
        .and_then(Value::as_str)
        .unwrap_or("");
    // Claude Code's own compaction runs as a subagent without a type: not a frame.
    if agent_type.is_empty() {
        return Ok(None);
    }
    let agent_id = hook
        .field("agent_id")
        .ok_or_else(|| Error::failure("SubagentStart without \"agent_id\""))?;
    let frame = ids::agent_frame(agent_id).ok_or_else(|| {
        Error::failure(format!(
            "the agent id '{}' cannot name a frame",
            agent_id.escape_debug()
        ))
    })?;
    let meta = agent_meta(hook, agent_id).map(|m| CallMeta {
        description: m.description,
        tool_use_id: m.tool_use_id,
    });
    let xml = hook.subagent_start(&frame, agent_type, meta.as_ref())?;
    Ok(Some(additional_context("SubagentStart", &xml)))
}

/// The `.meta.json` Claude Code writes beside a subagent's transcript as it starts it: the Agent
/// call's description and tool_use_id. `None` when it is absent or unreadable.
fn agent_meta(hook: &Hook, agent_id: &str) -> Option<transcript::AgentMeta> {
    let session = hook.field("transcript_path")?;
    let dir = Path::new(session.strip_suffix(".jsonl")?).join("subagents");
    transcript::agent_meta(&dir.join(format!("agent-{agent_id}.jsonl")))
}

/// SubagentStop: pops the subagent's frame, completed with its last message as the summary
/// (failed when it ended without one), its transcript in the log.
fn subagent_stop(hook: &mut Hook) -> Result<Option<String>> {
    let agent_type = hook
        .input
        .get("agent_type")
        .and_then(Value::as_str)
        .unwrap_or("");
    let Some(frame) = hook.field("agent_id").and_then(ids::agent_frame) else {
        return Err(Error::failure("SubagentStop without a usable \"agent_id\""));
    };
    // Before any wait for the transcript: is there a frame to pop?
    match hook.agent_running(&frame)? {
        // Claude Code's compaction ends as a subagent without a type and without a frame.
        None if agent_type.is_empty() => return Ok(None),
        None => {
            return Err(Error::failure(format!(
                "SubagentStop for {frame}, which has no frame (its SubagentStart was not seen)"
            )));
        }
        Some(false) => return Ok(None),
        Some(true) => {}
    }
    let reported = hook.field("last_assistant_message");
    let path = hook.field("agent_transcript_path");
    let lines = read_agent_transcript(path, reported);
    let title = format!("subagent transcript {}", path.unwrap_or("(none)"));
    let export = transcript::to_export(&lines, &frame, &title, reported);
    hook.subagent_stop(&frame, reported, &export)?;
    Ok(None)
}

/// Stop (`frame.auto` on): closes the turn's frame with the turn's last message as its summary
/// and its span of the session's transcript, from the prompt to the answer, as its log; a task
/// still in progress in it closes first, as blocked, with its own span.
fn turn_stop(hook: &mut Hook) -> Result<Option<String>> {
    if hook.field("agent_id").is_some() || !hook.turns_on()? {
        return Ok(None);
    }
    let turn = hook.field("prompt_id");
    let Some((frame, created)) = hook.turn_of_stop(turn)? else {
        return Ok(None);
    };
    let path = hook.field("transcript_path");
    let records = path.and_then(read_transcript);
    let export = path
        .zip(records.as_ref())
        .map(|(path, records)| claude_log::span_export(records, created, false, &frame, path));
    let mut read = span_reader(path, records.as_deref());
    let mut spans = ItemSpans {
        read: &mut read,
        tools: &DIGEST_TOOLS,
    };
    let answer = hook.field("last_assistant_message");
    hook.turn_stop(turn, answer, export.as_ref(), Some(&mut spans))?;
    Ok(None)
}

/// PostToolUse of `TaskCreate` or `TaskUpdate` (`frame.auto` keeps todo frames): the task's frame
/// opens or closes (`crate::claude::tasks`); one that closes gets its span of the transcript as
/// its log, read only when a task frame is open.
fn task_call(hook: &mut Hook) -> Result<Option<String>> {
    if hook.field("agent_id").is_some() || !hook.todos_on()? {
        return Ok(None);
    }
    let event: &Value = hook.input;
    let tool = hook.field("tool_name").unwrap_or_default();
    let input = event.get("tool_input").unwrap_or(&Value::Null);
    let response = event.get("tool_response").unwrap_or(&Value::Null);
    let path = hook.field("transcript_path");
    let records = match path {
        Some(path) if hook.has_open_items()? => read_transcript(path),
        _ => None,
    };
    let mut read = span_reader(path, records.as_deref());
    let mut spans = ItemSpans {
        read: &mut read,
        tools: &DIGEST_TOOLS,
    };
    hook.todo_call(
        |state, session| (tasks::items(state, session, tool, input, response), false),
        &mut spans,
    )?;
    Ok(None)
}

/// How an item frame's span is read from the session's transcript at `path` (its `records`):
/// the main conversation's lines stamped from its opening to its close; nothing without both.
fn span_reader<'r>(
    path: Option<&'r str>,
    records: Option<&'r [Value]>,
) -> impl FnMut(&str, i64, i64) -> Option<Export> + 'r {
    move |id, from, to| {
        let (path, records) = path.zip(records)?;
        Some(claude_log::span_between(records, from, to, id, path))
    }
}

/// The session's transcript named by an event, as records: only a regular file is read, without
/// waiting on a pipe; `None` when it cannot be read.
fn read_transcript(path: &str) -> Option<Vec<Value>> {
    let bytes = crate::safe_file::read_regular_capped(Path::new(path), MAX_TRANSCRIPT).ok()?;
    Some(jsonl::parse(&String::from_utf8_lossy(&bytes)).records)
}

/// PostToolUseFailure of `Agent`: the subagent the call started ended badly, or none started
/// (the call was denied, say) and the call no longer waits for one.
fn agent_failure(hook: &mut Hook) -> Result<Option<String>> {
    if hook.field("tool_name") != Some("Agent") {
        return Ok(None);
    }
    let Some(call) = hook.field("tool_use_id") else {
        return Ok(None);
    };
    hook.forget_call(call)?;
    let interrupted = hook
        .input
        .get("is_interrupt")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let status = if interrupted {
        Status::Blocked
    } else {
        Status::Failed
    };
    let error = hook
        .field("error")
        .map(|e| format!("The Agent call failed: {e}"));
    if let Some(frame) = hook.frame_of_call(call)? {
        hook.pop_agent(&frame, status, error.as_deref(), None)?;
    }
    Ok(None)
}

/// How long SubagentStop waits for Claude Code to finish writing a subagent's transcript.
const TRANSCRIPT_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// A subagent's transcript, read when it holds the subagent's last message: Claude Code may
/// still be writing it when SubagentStop runs (observed: an empty file, or one without the last
/// response), so it is read again for up to [`TRANSCRIPT_WAIT`]. What there is then is taken.
fn read_agent_transcript(path: Option<&str>, last: Option<&str>) -> jsonl::Lines {
    let empty = || jsonl::Lines {
        records: Vec::new(),
        skipped: 0,
    };
    let Some(path) = path else {
        return empty();
    };
    let started = std::time::Instant::now();
    loop {
        // A path named by the event: only a regular file is read, without waiting on a pipe.
        let lines = match crate::safe_file::read_regular_capped(Path::new(path), MAX_TRANSCRIPT) {
            Ok(bytes) => jsonl::parse(&String::from_utf8_lossy(&bytes)),
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

//! `ctx gemini hook EVENT`: one Gemini CLI hook call (kilo-gemini-qwen-copilot.md §2), the
//! event's JSON on stdin, the answer (or nothing) on stdout, and never a failure: whatever goes
//! wrong is one line in the hook log and exit 0. The event logic is the hook core's
//! (`app::hooks`); this adapter maps Gemini CLI's events and fields onto it.
//!
//! Gemini CLI's events as observed (0.61.0), each with `session_id`, `transcript_path`, `cwd` and
//! `timestamp`: BeforeAgent (`prompt`), whose added text is a text part of its own after the
//! prompt; BeforeTool and AfterTool (`tool_name`, `tool_input`; AfterTool `tool_response`), the
//! subagent tool being `invoke_agent` (`agent_name`, `prompt`), whose `tool_input` BeforeTool may
//! replace; AfterAgent (`prompt_response`); SessionEnd. A subagent has no events of its own: its
//! tool events carry its session's id, and nothing says which call runs it. Every text a hook
//! adds has its `<` and `>` escaped; a tool input it gives is not.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::app::agent_calls::CallMeta;
use crate::app::hooks::{self, Harness, Hook, additional_context, bracketed, field};
use crate::conversation::Export;
use crate::error::{Error, Result};
use crate::frame::ops;
use crate::frame::state::Status;
use crate::gemini::fold;
use crate::project::Project;

/// The hook log (failures), below `.opencode/flame/`.
pub const HOOK_LOG: &str = "gemini-hooks.log";
/// The hook log in Gemini CLI's folder, where there is no frame folder.
pub const USER_HOOK_LOG: &str = "ctx-hooks.log";
/// Gemini CLI's subagent tool.
const AGENT_TOOL: &str = "invoke_agent";
/// A subagent frame's summary when Gemini CLI never said its call ended.
const NO_END: &str = "stopped: Gemini CLI reported no end of its call (cancelled, or blocked by \
another hook)";

/// Gemini CLI for the hook core: a session is `gm_<id>`, a subagent `gma_<n>`.
static GEMINI: Harness = Harness {
    name: "Gemini CLI",
    session_prefix: crate::gemini::SESSION_PREFIX,
    agent_prefix: crate::gemini::AGENT_PREFIX,
    log_name: HOOK_LOG,
    user_dir: crate::gemini::home_dir,
    user_log_name: USER_HOOK_LOG,
    door: Some(at_the_door),
};

/// A prompt as the person wrote it: without the `<hook_context>…</hook_context>` that another
/// hook's SessionStart puts before the first one.
fn at_the_door(fields: &mut Map<String, Value>) {
    if let Some(Value::String(prompt)) = fields.get_mut("prompt") {
        *prompt = crate::gemini::without_hook_context(prompt).to_string();
    }
}

/// `ctx gemini hook EVENT` as the process's whole work: never fails, never prints anything but
/// the answer. Called from `main` before the command line is parsed any further. Gemini CLI runs
/// its hooks in the session's folder.
pub fn hook_main(event: &str) {
    // A panic must not print to stderr nor exit with 101: it becomes a log line.
    std::panic::set_hook(Box::new(|_| {}));
    run(Project::locate(None).map(|p| p.root), event);
}

pub(super) fn run(root: Result<std::path::PathBuf>, event: &str) {
    hooks::run(&GEMINI, root, event, answer);
}

fn answer(hook: &mut Hook, event: &str) -> Result<Option<String>> {
    match event {
        "BeforeAgent" => {
            end_stale_subagents(hook)?;
            let context = hook.session_context(false)?;
            if hook.turns_on()? {
                hook.turn_start(None)?;
            }
            Ok(context.map(|xml| {
                let commands = frame_commands(&hook.session);
                additional_context(event, &format!("{}\n{commands}", bracketed(&xml)))
            }))
        }
        "BeforeTool" if hook.field("tool_name") == Some(AGENT_TOOL) => agent_start(hook),
        "AfterTool" if hook.field("tool_name") == Some(AGENT_TOOL) => agent_stop(hook),
        "AfterAgent" => {
            end_stale_subagents(hook)?;
            record_compaction(hook)?;
            if hook.turns_on()? {
                hook.turn_stop(None, hook.field("prompt_response"), None, None)?;
            }
            Ok(None)
        }
        "SessionEnd" => {
            end_stale_subagents(hook)?;
            if hook.turns_on()? {
                hook.turns_end()?;
            }
            fold_for_resume(hook)?;
            Ok(None)
        }
        // An event ctx does not hook, or a newer Gemini CLI's: nothing to do.
        _ => Ok(None),
    }
}

/// What the model is told, after its frame context: the exact commands that push and pop a frame
/// of its own. Its shell holds no session id, so they name the session's frame.
fn frame_commands(frame: &str) -> String {
    format!(
        "To give a sub-goal a frame of its own, run `ctx frame push --session {frame} -- 'GOAL'` \
         in the shell, and when it is done `ctx frame pop --session {frame} --summary 'WHAT WAS \
         ACHIEVED'`. Gemini CLI keeps a popped frame's messages in this conversation: a sub-goal \
         whose tool outputs you will not need again goes better to a subagent (invoke_agent), \
         which gets a frame of its own and sends back only its result."
    )
}

/// BeforeTool of `invoke_agent`: the subagent's frame, below the session's current frame, its
/// goal the prompt's first line; and the call's input with the prompt followed by the frame's
/// context and id, since the subagent's own requests get no hook's context.
fn agent_start(hook: &mut Hook) -> Result<Option<String>> {
    let Some(input) = hook.input.get("tool_input").and_then(Value::as_object) else {
        return Err(Error::failure(
            "invoke_agent without a \"tool_input\" object",
        ));
    };
    let Some(prompt) = input.get("prompt").and_then(Value::as_str) else {
        return Err(Error::failure("invoke_agent without a \"prompt\""));
    };
    let agent_type = field(&hook.input["tool_input"], "agent_name").unwrap_or("subagent");
    let frame = format!("{}{}", crate::gemini::AGENT_PREFIX, random_hex()?);
    // Gemini CLI names no call: the frame names it, so that a call made beside it (Gemini runs
    // calls in parallel) cannot take its goal.
    let call = CallMeta {
        description: None,
        tool_use_id: Some(frame.clone()),
    };
    hook.note_agent_call(Some(prompt), agent_type, Some(&frame))?;
    let xml = hook.subagent_start(&frame, agent_type, Some(&call))?;
    let mut input = input.clone();
    input.insert(
        "prompt".to_string(),
        Value::String(format!(
            "{prompt}\n\n{xml}\n{}{frame}. To give a sub-goal a frame of its own, run \
             `ctx frame push --session {frame} -- 'GOAL'` in the shell, and when it is done `ctx \
             frame pop --session {frame} --summary 'WHAT WAS ACHIEVED'`.",
            crate::gemini::FRAME_NAMED
        )),
    );
    let mut answer = serde_json::json!({
        "hookSpecificOutput": { "hookEventName": "BeforeTool", "tool_input": input }
    })
    .to_string();
    answer.push('\n');
    Ok(Some(answer))
}

/// AfterTool of `invoke_agent`: pops the subagent's frame (named in the prompt ctx gave the
/// call), completed with its result when it reached its goal, else failed with why it stopped.
fn agent_stop(hook: &mut Hook) -> Result<Option<String>> {
    let prompt = hook
        .input
        .pointer("/tool_input/prompt")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let named = crate::gemini::named_frame(prompt);
    let Some(frame) =
        named.and_then(|id| hook.agent_frame(id.strip_prefix(crate::gemini::AGENT_PREFIX)?))
    else {
        return Err(Error::failure(
            "invoke_agent ended, and its prompt names no frame of ctx's (its BeforeTool was not \
             seen)",
        ));
    };
    let response = hook.input.get("tool_response");
    let display = response.and_then(|r| r.get("returnDisplay"));
    let text_of = |key: &str| display.and_then(|d| d.get(key)).and_then(Value::as_str);
    // Gemini CLI says a subagent failed by its state (`ERROR`) or an `error`, and one that
    // stopped short by why it terminated.
    let errored = response
        .and_then(|r| r.get("error"))
        .is_some_and(|e| !e.is_null());
    let state = text_of("state").filter(|s| !s.eq_ignore_ascii_case("completed"));
    let reason = text_of("terminateReason").filter(|r| *r != "GOAL");
    let result = text_of("result")
        .map(response_of)
        .or_else(|| response.and_then(llm_text))
        .filter(|r| !r.trim().is_empty());
    let (status, summary) = match (errored || state.is_some() || reason.is_some(), result) {
        (false, Some(result)) => (Status::Completed, Some(result)),
        (_, result) => {
            let why = reason
                .or(state)
                .unwrap_or(if errored { "error" } else { "no result" });
            let said = result.map(|r| format!(": {r}")).unwrap_or_default();
            (Status::Failed, Some(format!("stopped ({why}){said}")))
        }
    };
    let title = "Gemini CLI subagent";
    let export =
        Export::of_conversation(&frame, title, "Gemini CLI", Vec::new(), summary.as_deref());
    hook.pop_agent(&frame, status, summary.as_deref(), Some(&export))?;
    Ok(None)
}

/// Pops, failed, every subagent frame of the session still running when no call can run (a new
/// prompt, a turn's end, the session's end): Gemini CLI runs no AfterTool for a call the person
/// cancelled or another hook blocked, and a frame left running would keep the frames above it
/// from being popped.
fn end_stale_subagents(hook: &mut Hook) -> Result<()> {
    let state = hook.store.load()?;
    let stale: Vec<String> = state
        .frames()
        .filter(|f| f.id.starts_with(crate::gemini::AGENT_PREFIX) && !f.status().is_finished())
        .filter(|f| ops::is_within(&state, f.id, &hook.session))
        .map(|f| f.id.to_string())
        .collect();
    drop(state);
    for frame in stale {
        hook.pop_agent(&frame, Status::Failed, Some(NO_END), None)?;
    }
    Ok(())
}

/// A subagent's result as Gemini CLI reports it (`{"response": …}` as JSON text): the response.
fn response_of(result: &str) -> String {
    serde_json::from_str::<Value>(result)
        .ok()
        .and_then(|v| v.get("response")?.as_str().map(str::to_string))
        .unwrap_or_else(|| result.to_string())
}

/// The text of a tool's `llmContent` (a string, or a list of text parts).
fn llm_text(response: &Value) -> Option<String> {
    match response.get("llmContent")? {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text")?.as_str())
                .collect(),
        ),
        _ => None,
    }
}

/// SessionEnd: appends a `$set` of the session's messages to its session file
/// (`crate::gemini::fold`), so that the next process that resumes the session sends each frame
/// the model pushed and popped in its shell as its summary and log path, and each tool result
/// once.
fn fold_for_resume(hook: &mut Hook) -> Result<()> {
    let Some(path) = hook.field("transcript_path").map(PathBuf::from) else {
        return Ok(());
    };
    if !hook.ctx.settings()?.on(&crate::settings::GEMINI_FOLD)? {
        return Ok(());
    }
    hook.fold_by_appending(
        &path,
        "Gemini CLI",
        crate::gemini::sessions_dir(),
        "Gemini CLI's sessions folder",
        fold::fold,
    )?;
    Ok(())
}

/// Sixteen random hex digits: a subagent's frame's own part, since Gemini CLI names none.
fn random_hex() -> Result<String> {
    let bytes: [u8; 8] = hooks::random_bytes()?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// How much of the session file's end is read for a compression.
const TAIL: u64 = 4 << 20;

/// The snapshot of the session's last compression, which Gemini CLI writes only into its session
/// file (a `$set` of the message list, one of whose messages holds the `<state_snapshot>`), during
/// the turn that compressed: looked for in the file's last 4 MiB at each turn's end, and recorded
/// on the session's current frame once (a turn's end that did not come, its process killed, is
/// made up for by the next: Gemini CLI sets the list again, snapshot first, when it resumes). The
/// conversation that held the frame context was replaced, so the next prompt gets it again.
fn record_compaction(hook: &mut Hook) -> Result<()> {
    let Some(path) = hook.field("transcript_path") else {
        return Ok(());
    };
    let Ok(tail) = crate::safe_file::read_tail(std::path::Path::new(path), TAIL) else {
        return Ok(());
    };
    let Some(snapshot) = last_snapshot(&tail) else {
        return Ok(());
    };
    let id = hooks::text_hash(&snapshot);
    if hook.compaction_summary_once(&id, &snapshot)? {
        hook.forget_context()?;
    }
    Ok(())
}

/// What the `<state_snapshot>` of the last `$set` of the message list in `tail` holds: a
/// compression starts the list with it, in the first person's message after Gemini CLI's own
/// context (a snapshot quoted anywhere else is not one).
fn last_snapshot(tail: &str) -> Option<String> {
    tail.lines().rev().find_map(|line| {
        if !line.starts_with("{\"$set\"") || !line.contains("<state_snapshot>") {
            return None;
        }
        let record: Value = serde_json::from_str(line).ok()?;
        let messages = record.pointer("/$set/messages")?.as_array()?;
        let first = messages
            .iter()
            .filter(|m| m.get("type").and_then(Value::as_str) == Some("user"))
            .filter_map(|m| m.pointer("/content/0/text")?.as_str().map(str::trim_start))
            .find(|text| !text.starts_with("<session_context>"))?;
        let snapshot = first.strip_prefix("<state_snapshot>")?;
        let (snapshot, _) = snapshot.rsplit_once("</state_snapshot>")?;
        Some(snapshot.trim().to_string()).filter(|s| !s.is_empty())
    })
}

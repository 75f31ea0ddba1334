//! `ctx copilot hook EVENT`: one GitHub Copilot CLI hook call (kilo-gemini-qwen-copilot.md §4),
//! the event's JSON on stdin, the answer (or nothing) on stdout, and never a failure: whatever
//! goes wrong is one line in the hook log and exit 0. The event logic is the hook core's
//! (`app::hooks`); this adapter maps Copilot's events and fields onto it.
//!
//! Copilot's events as observed (1.0.102), each with `sessionId`, `timestamp` and `cwd`:
//! sessionStart (`source` new or resume), whose added text is a user message of its own before
//! the prompt; userPromptSubmitted (`prompt`), whose added text rides on the prompt in a
//! `<system_reminder>`; preToolUse (`toolName`, `toolArgs`) for every tool, the subagent tool
//! being `task`; subagentStart (`agentId`, `agentType`, `parentAgentId`), whose added text is put
//! before the subagent's prompt; a subagent's own events, whose `sessionId` is its `agentId`;
//! subagentStop (`response`); agentStop (`transcriptPath`), also for each subagent with its
//! `agentId`; sessionEnd. An answer is read only as a top-level `{"additionalContext": …}`, and
//! its text is not escaped.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::app::hooks::{self, Harness, Hook, field};
use crate::copilot::fold;
use crate::error::Result;
use crate::project::Project;

/// The hook log (failures, and subagents matched to their calls by a guess), below
/// `.opencode/flame/`.
pub const HOOK_LOG: &str = "copilot-hooks.log";
/// The hook log in Copilot's folder, where there is no frame folder.
pub const USER_HOOK_LOG: &str = "ctx-hooks.log";
/// The agent type of a `task` call that names none.
const DEFAULT_AGENT_TYPE: &str = "general-purpose";

/// Copilot for the hook core: every session and subagent is `cp_<id>`.
static COPILOT: Harness = Harness {
    name: "GitHub Copilot CLI",
    session_prefix: crate::copilot::SESSION_PREFIX,
    agent_prefix: crate::copilot::SESSION_PREFIX,
    log_name: HOOK_LOG,
    user_dir: crate::copilot::home_dir,
    user_log_name: USER_HOOK_LOG,
    door: Some(at_the_door),
};

/// Copilot's field names as the hook core's. A subagent's own events carry its id as their
/// `sessionId`: their session is the agent that started it (`parentAgentId`), whose frame is
/// `cp_<id>` too.
fn at_the_door(fields: &mut Map<String, Value>) {
    for (copilot, core) in [
        ("sessionId", "session_id"),
        ("agentId", "agent_id"),
        ("agentType", "agent_type"),
        ("transcriptPath", "transcript_path"),
        ("toolName", "tool_name"),
        ("toolArgs", "tool_input"),
    ] {
        if let Some(value) = fields.remove(copilot) {
            fields.insert(core.to_string(), value);
        }
    }
    let own = |key: &str| fields.get(key).and_then(Value::as_str);
    if own("agent_id").is_some()
        && own("agent_id") == own("session_id")
        && let Some(parent) = fields.get("parentAgentId").cloned()
    {
        fields.insert("session_id".to_string(), parent);
    }
}

/// `ctx copilot hook EVENT` as the process's whole work: never fails, never prints anything but
/// the answer. Called from `main` before the command line is parsed any further. Copilot runs its
/// hooks in the session's folder.
pub fn hook_main(event: &str) {
    // A panic must not print to stderr nor exit with 101: it becomes a log line.
    std::panic::set_hook(Box::new(|_| {}));
    run(Project::locate(None).map(|p| p.root), event);
}

pub(super) fn run(root: Result<std::path::PathBuf>, event: &str) {
    hooks::run(&COPILOT, root, event, answer);
}

fn answer(hook: &mut Hook, event: &str) -> Result<Option<String>> {
    let in_subagent = hook.field("agent_id").is_some();
    match event {
        "sessionStart" => {
            let context = match hook.field("source") {
                // A resumed conversation still holds what was added before.
                Some("resume") => hook.session_context(false)?,
                // A new conversation holds nothing yet: a session that already has a frame gets
                // its context now, a new one at its first prompt.
                _ if hook.session_has_frame()? => hook.session_context(true)?,
                _ => None,
            };
            Ok(context.map(|xml| added(&format!("{xml}\n{FRAME_COMMANDS}"))))
        }
        // A subagent's prompt carries what its subagentStart added.
        "userPromptSubmitted" if in_subagent => Ok(None),
        "userPromptSubmitted" => {
            if let Some(tail) = session_file(hook).and_then(|p| read_tail(&p)) {
                record_compaction(hook, &tail)?;
            }
            let context = hook.session_context(false)?;
            if hook.turns_on()? {
                hook.turn_start(None)?;
            }
            Ok(context.map(|xml| added(&format!("{xml}\n{FRAME_COMMANDS}"))))
        }
        "preToolUse" if hook.field("tool_name") == Some("task") => agent_call(hook),
        "subagentStart" => subagent_start(hook),
        "subagentStop" => subagent_stop(hook),
        "agentStop" if !in_subagent => {
            // One read of the file's end serves both the compaction and the turn's answer.
            let turns = hook.turns_on()?;
            let tail =
                session_file(hook).and_then(|p| if turns { turn_tail(&p) } else { read_tail(&p) });
            if let Some(tail) = &tail {
                record_compaction(hook, tail)?;
            }
            if turns {
                let answer = tail.as_deref().and_then(|t| written_answer(t).flatten());
                hook.turn_stop(None, answer.as_deref(), None, None)?;
            }
            Ok(None)
        }
        "sessionEnd" if !in_subagent => {
            if hook.turns_on()? {
                hook.turns_end()?;
            }
            fold_for_resume(hook)?;
            Ok(None)
        }
        // An event ctx does not hook, or a newer Copilot's: nothing to do.
        _ => Ok(None),
    }
}

/// The answer that adds `text` to what the model sees: Copilot reads only the top-level key.
fn added(text: &str) -> String {
    let mut answer = serde_json::json!({ "additionalContext": text }).to_string();
    answer.push('\n');
    answer
}

/// What the main agent is told, after its frame context: the exact commands that push and pop a
/// frame of its own, which its shell's variable names.
const FRAME_COMMANDS: &str = "To give a sub-goal a frame of its own, run `ctx frame push \
--session \"cp_$COPILOT_AGENT_SESSION_ID\" -- 'GOAL'` in the shell, and when it is done `ctx frame \
pop --session \"cp_$COPILOT_AGENT_SESSION_ID\" --summary 'WHAT WAS ACHIEVED'`. Copilot keeps a \
popped frame's messages in this conversation: a sub-goal whose tool outputs you will not need \
again goes better to a subagent (the task tool), which gets a frame of its own and sends back only \
its report.";

/// What a subagent is told, after its frame context: its shell names no id a hook knows, so its
/// frame's id is given in words.
fn subagent_commands(frame: &str) -> String {
    format!(
        "Your frame is {frame}. To give a sub-goal a frame of its own, run `ctx frame push \
         --session {frame} -- 'GOAL'` in the shell, and when it is done `ctx frame pop --session \
         {frame} --summary 'WHAT WAS ACHIEVED'`."
    )
}

/// preToolUse of `task`: remembers the call's description as the goal of the subagent it starts.
/// Copilot gives the call no id, so the subagent is matched to it by its type and order.
fn agent_call(hook: &mut Hook) -> Result<Option<String>> {
    let tool_input = hook.input.get("tool_input").unwrap_or(&Value::Null);
    let task = field(tool_input, "description").or_else(|| field(tool_input, "prompt"));
    let agent_type = field(tool_input, "agent_type").unwrap_or(DEFAULT_AGENT_TYPE);
    hook.note_agent_call(task, agent_type, None)?;
    Ok(None)
}

/// subagentStart: the subagent's frame, and its context with its frame's id, which Copilot puts
/// before the subagent's prompt.
fn subagent_start(hook: &mut Hook) -> Result<Option<String>> {
    let frame = hook.event_agent_frame("subagentStart")?;
    let agent_type = hook.field("agent_type").unwrap_or(DEFAULT_AGENT_TYPE);
    let xml = hook.subagent_start(&frame, agent_type, None)?;
    Ok(Some(added(&format!(
        "{xml}\n{}",
        subagent_commands(&frame)
    ))))
}

/// subagentStop: pops the subagent's frame, completed with its answer (`response`) as the
/// summary (failed when it ended without one).
fn subagent_stop(hook: &mut Hook) -> Result<Option<String>> {
    hook.stop_reported_subagent(hook.field("response"))?;
    Ok(None)
}

/// The session's file (`events.jsonl`): the event's `transcriptPath`, else the one its session id
/// names in Copilot's folder (a prompt's event names none).
fn session_file(hook: &Hook) -> Option<PathBuf> {
    match hook.field("transcript_path") {
        Some(path) => Some(PathBuf::from(path)),
        None => crate::copilot::session_file(hook.field("session_id").unwrap_or_default()),
    }
}

/// How much of the session file's end is read: where the turn's events and any compaction since
/// the last look are.
const TAIL: u64 = 4 << 20;

fn read_tail(path: &Path) -> Option<String> {
    crate::safe_file::read_tail(path, TAIL).ok()
}

/// The summary of the session's last compaction, which Copilot writes only into its session file
/// (`session.compaction_complete`), and after agentStop when it ran beside the turn: looked for
/// in `tail` (the file's end) at each prompt and turn's end of the session, and recorded on its
/// current frame once. The conversation that held the frame context was replaced, so the next
/// prompt gets it again.
fn record_compaction(hook: &mut Hook, tail: &str) -> Result<()> {
    let Some((id, summary)) = last_compaction(tail) else {
        return Ok(());
    };
    if hook.compaction_summary_once(&id, &summary)? {
        hook.forget_context()?;
    }
    Ok(())
}

/// The id and summary of the last compaction Copilot applied to the main conversation (ctx's own
/// fold is none of them).
fn last_compaction(tail: &str) -> Option<(String, String)> {
    tail.lines().rev().find_map(|line| {
        if !line.contains("\"session.compaction_complete\"") {
            return None;
        }
        let event: Value = serde_json::from_str(line).ok()?;
        let data = event.get("data")?;
        let applied =
            data.get("success") == Some(&Value::Bool(true)) && event.get("agentId").is_none();
        let summary = data.get("summaryContent")?.as_str()?.trim();
        let id = event.get("id")?.as_str()?;
        let ours = summary.starts_with(fold::SUMMARY_START);
        (applied && !ours && !summary.is_empty()).then(|| (id.to_string(), summary.to_string()))
    })
}

/// The session file's end once it holds the turn, for its answer, which agentStop does not
/// carry. Copilot writes its session file in batches, and may run agentStop before the turn's
/// events are in it (the file of a first turn may not exist yet), so this waits, at most two
/// seconds, until the file holds the `hook.start` of this agentStop, which it writes after the
/// turn's messages; then it gives what it read last.
fn turn_tail(path: &Path) -> Option<String> {
    let mut last = None;
    for _ in 0..100 {
        last = read_tail(path);
        if last.as_deref().and_then(written_answer).is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    last
}

/// The turn's answer in the session file's end `tail`: the main agent's last `assistant.message`
/// with text after its last `user.message` (`Some(None)`: the turn ended without text), or `None`
/// when the turn's agentStop is not in it yet.
fn written_answer(tail: &str) -> Option<Option<String>> {
    let (mut stopped, mut answer) = (false, None);
    // A read that starts inside a line gets that line's end only, which is not an event; and
    // only the three kinds of event read here are parsed, not the outputs between them.
    for line in tail.lines().rev() {
        let wanted = [
            "\"hook.start\"",
            "\"user.message\"",
            "\"assistant.message\"",
        ];
        if !wanted.iter().any(|kind| line.contains(kind)) {
            continue;
        }
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if event.get("agentId").is_some() {
            continue;
        }
        match event.get("type").and_then(Value::as_str) {
            Some("hook.start") => {
                let data = event.get("data");
                let hook_type = data.and_then(|d| d.get("hookType")).and_then(Value::as_str);
                let of_subagent = data.and_then(|d| d.pointer("/input/agentId")).is_some();
                stopped |= hook_type == Some("agentStop") && !of_subagent;
            }
            Some("user.message") => return stopped.then_some(answer),
            Some("assistant.message") if stopped && answer.is_none() => {
                let content = event.pointer("/data/content").and_then(Value::as_str);
                answer = content.filter(|c| !c.trim().is_empty()).map(str::to_string);
            }
            _ => {}
        }
    }
    // A turn longer than the tail read: its prompt is further up.
    stopped.then_some(answer)
}

/// sessionEnd: appends a compaction to the session file (`crate::copilot::fold`) whose summary is
/// the conversation with each frame the model pushed and popped in its shell folded, so that the
/// next process that resumes the session sends that. The resumed conversation keeps the person's
/// messages as typed, without the frame context hooks added, so the next prompt gets it again.
fn fold_for_resume(hook: &mut Hook) -> Result<()> {
    let Some(path) = session_file(hook) else {
        return Ok(());
    };
    if !hook.ctx.settings()?.on(&crate::settings::COPILOT_FOLD)? {
        return Ok(());
    }
    wait_for_session_end(&path);
    let now = crate::time::rfc3339_ms(hook.ctx.now);
    let (start_id, complete_id, attempt_id) =
        (hooks::new_uuid()?, hooks::new_uuid()?, hooks::new_uuid()?);
    let stamp = fold::Stamp {
        start_id: &start_id,
        complete_id: &complete_id,
        attempt_id: &attempt_id,
        now: &now,
    };
    let folded = hook.fold_by_appending(
        &path,
        "GitHub Copilot CLI",
        crate::copilot::sessions_dir(),
        "Copilot's session-state folder",
        |text, goal_of, finished| fold::fold(text, &stamp, goal_of, finished),
    )?;
    if folded {
        hook.forget_context()?;
    }
    Ok(())
}

/// Waits until the session file at `path` holds the `hook.start` of this sessionEnd, which
/// Copilot writes after the session's last messages: it writes its file in batches, and a
/// compaction appended before them would leave them after it. At most two seconds; each look
/// reads the file's last 64 KiB, where the `hook.start` is once written.
fn wait_for_session_end(path: &Path) {
    for _ in 0..100 {
        let tail = crate::safe_file::read_tail(path, 64 << 10).ok();
        if tail.is_some_and(|tail| session_ended(&tail)) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether the session file's end `tail` holds a sessionEnd's `hook.start` written by the running
/// process: one after the file's last `session.start` or `session.resume` (a resumed session's
/// file holds the sessions' ends of earlier processes too).
fn session_ended(tail: &str) -> bool {
    for line in tail.lines().rev() {
        if line.contains("\"hook.start\"") && line.contains("\"hookType\":\"sessionEnd\"") {
            return true;
        }
        // Quotes inside a JSON string are escaped: these match an event's own type only.
        if line.contains("\"type\":\"session.resume\"")
            || line.contains("\"type\":\"session.start\"")
        {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_ended_only_once_the_running_process_wrote_its_session_end() {
        let end = r#"{"type":"hook.start","data":{"hookType":"sessionEnd","input":{}}}"#;
        let resumed = r#"{"type":"session.resume","data":{}}"#;
        let message =
            r#"{"type":"user.message","data":{"content":"say \"type\":\"session.resume\""}}"#;
        assert!(session_ended(&[resumed, message, end].join("\n")));
        // An earlier process's end, in a resumed session's file, is not this one's.
        assert!(!session_ended(&[end, resumed, message].join("\n")));
        assert!(!session_ended(message));
    }
}

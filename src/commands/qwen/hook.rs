//! `ctx qwen hook EVENT`: one Qwen Code hook call (kilo-gemini-qwen-copilot.md §3), the event's
//! JSON on stdin, the answer (or nothing) on stdout, and never a failure: whatever goes wrong is
//! one line in the hook log and exit 0. The event logic is the hook core's (`app::hooks`); this
//! adapter maps Qwen Code's events and fields onto it.
//!
//! Qwen Code's events as observed (0.24.4, Claude Code's hook protocol): SessionStart (`source`
//! startup, resume, compact), whose added text ends the system prompt; UserPromptSubmit, whose
//! added text rides on the person's message, and which fires again after every batch of tool
//! calls with an empty `prompt` (its text then a user message of its own each time); an `agent`
//! call's PreToolUse (`tool_input.description`), then SubagentStart (`agent_id`, `agent_type`;
//! what it adds never reaches the subagent), the subagent's own tool events (with `agent_id`),
//! and SubagentStop (`last_assistant_message`); PreCompact, whose added text reaches the
//! compaction's request, and PostCompact (`compact_summary`); Stop (`last_assistant_message`).
//! SessionEnd did not fire in `-p` runs. Every text a hook adds has its `<` and `>` escaped.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::hooks::{self, Harness, Hook, additional_context, bracketed, field};
use crate::error::Result;
use crate::project::Project;
use crate::qwen::{SESSION_PREFIX, fold};

/// The hook log (failures, and subagents matched to their calls by a guess), below
/// `.opencode/flame/`.
pub const HOOK_LOG: &str = "qwen-hooks.log";
/// The hook log in Qwen Code's folder, where there is no frame folder.
pub const USER_HOOK_LOG: &str = "ctx-hooks.log";
/// The agent type of an `agent` call that names none.
const DEFAULT_AGENT_TYPE: &str = "general-purpose";
/// What a compaction must keep of the frames (PreCompact's text reaches the compaction's request).
const COMPACTION_INSTRUCTION: &str = "\
Flame frames: this session works in the frame tree above (.opencode/flame/state.json). Keep in \
your summary, verbatim, the id of the current frame and its goal, the ids of the frames named \
above with their status, and the log paths of finished frames (.opencode/flame/logs/frame-<id>.md), \
so that the work continues in the right frame after the compaction.";

/// Qwen Code for the hook core: every session and subagent is `qw_<id>`.
static QWEN: Harness = Harness {
    name: "Qwen Code",
    session_prefix: SESSION_PREFIX,
    agent_prefix: SESSION_PREFIX,
    log_name: HOOK_LOG,
    user_dir: crate::qwen::home_dir,
    user_log_name: USER_HOOK_LOG,
    door: None,
};

/// `ctx qwen hook EVENT` as the process's whole work: never fails, never prints anything but the
/// answer. Called from `main` before the command line is parsed any further. Qwen Code runs its
/// hooks in the session's folder.
pub fn hook_main(event: &str) {
    // A panic must not print to stderr nor exit with 101: it becomes a log line.
    std::panic::set_hook(Box::new(|_| {}));
    run(Project::locate(None).map(|p| p.root), event);
}

pub(super) fn run(root: Result<PathBuf>, event: &str) {
    hooks::run(&QWEN, root, event, answer);
}

fn answer(hook: &mut Hook, event: &str) -> Result<Option<String>> {
    match event {
        "SessionStart" => {
            let context = match hook.field("source") {
                // A compaction replaced the conversation, and the context added to it.
                Some("compact") => hook.session_context(true)?,
                // A resumed conversation still holds what was added before.
                Some("resume") => hook.session_context(false)?,
                // A new conversation holds nothing yet: a session that already has a frame gets
                // its context now, a new one at its first prompt.
                _ if hook.session_has_frame()? => hook.session_context(true)?,
                _ => None,
            };
            Ok(context.map(|xml| with_commands(event, &xml)))
        }
        // Qwen Code's own prompt after a batch of tool calls: what it adds would be one more
        // user message each time.
        "UserPromptSubmit" if hook.field("prompt").is_none() => Ok(None),
        // A subagent's prompt: it has no frame context of its own to show.
        "UserPromptSubmit" if hook.field("agent_id").is_some() => Ok(None),
        "UserPromptSubmit" => {
            let context = hook.session_context(false)?;
            if hook.turns_on()? {
                hook.turn_start(hook.field("prompt_id"))?;
            }
            Ok(context.map(|xml| with_commands(event, &xml)))
        }
        "PreToolUse" if hook.field("tool_name") == Some("agent") => agent_call(hook),
        "SubagentStart" => subagent_start(hook),
        "SubagentStop" => subagent_stop(hook),
        "PreCompact" if hook.field("agent_id").is_none() => {
            Ok(hook.current_context()?.map(|xml| {
                additional_context(
                    event,
                    &bracketed(&format!("{xml}\n\n{COMPACTION_INSTRUCTION}\n")),
                )
            }))
        }
        "PostCompact" if hook.field("agent_id").is_none() => {
            if let Some(summary) = hook.field("compact_summary") {
                hook.compaction_summary(summary)?;
            }
            Ok(None)
        }
        "Stop" if hook.field("agent_id").is_none() => {
            if hook.turns_on()? {
                hook.turn_stop(
                    hook.field("prompt_id"),
                    hook.field("last_assistant_message"),
                    None,
                    None,
                )?;
            }
            fold_for_continue(hook)?;
            Ok(None)
        }
        "SessionEnd" if hook.field("agent_id").is_none() && hook.turns_on()? => {
            hook.turns_end()?;
            Ok(None)
        }
        // An event ctx does not hook, or a newer Qwen Code's: nothing to do.
        _ => Ok(None),
    }
}

/// What the model of a session or subagent is told, after its frame context: the exact commands
/// that push and pop a frame of its own, which the shell's variables name.
const FRAME_COMMANDS: &str = "To give a sub-goal a frame of its own, run `ctx frame push \
--session \"qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}\" -- 'GOAL'` in the shell, and when it \
is done `ctx frame pop --session \"qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}\" --summary \
'WHAT WAS ACHIEVED'`. Qwen Code keeps a popped frame's messages in this conversation: a sub-goal \
whose tool outputs you will not need again goes better to a subagent (the agent tool with \
run_in_background false), which gets a frame of its own and sends back only its report.";

/// The frame context, readable once escaped, and the frame commands, as the answer to `event`.
fn with_commands(event: &str, xml: &str) -> String {
    additional_context(event, &format!("{}\n{FRAME_COMMANDS}", bracketed(xml)))
}

/// PreToolUse of `agent`: remembers the call's description as the goal of the subagent it
/// starts.
fn agent_call(hook: &mut Hook) -> Result<Option<String>> {
    let tool_input = hook.input.get("tool_input").unwrap_or(&Value::Null);
    let task = field(tool_input, "description").or_else(|| field(tool_input, "prompt"));
    let agent_type = field(tool_input, "subagent_type").unwrap_or(DEFAULT_AGENT_TYPE);
    hook.note_agent_call(task, agent_type, hook.field("tool_call_id"))?;
    Ok(None)
}

/// SubagentStart: the subagent's frame. Its answer is not given: Qwen Code does not pass it on
/// to the subagent.
fn subagent_start(hook: &mut Hook) -> Result<Option<String>> {
    let frame = hook.event_agent_frame("SubagentStart")?;
    let agent_type = hook.field("agent_type").unwrap_or(DEFAULT_AGENT_TYPE);
    hook.subagent_start(&frame, agent_type, None)?;
    Ok(None)
}

/// SubagentStop: pops the subagent's frame, completed with its last message as the summary
/// (failed when it ended without one).
fn subagent_stop(hook: &mut Hook) -> Result<Option<String>> {
    hook.stop_reported_subagent(hook.field("last_assistant_message"))?;
    Ok(None)
}

/// Stop: appends a `chat_compression` record to the session file (`crate::qwen::fold`), so that
/// the next process that continues the session sends each frame the model pushed and popped in
/// its shell as its summary and log path. Qwen Code has no session end in `-p` runs, and reads
/// the record only when a process resumes the session, so every turn's end folds what is new.
fn fold_for_continue(hook: &mut Hook) -> Result<()> {
    let Some(path) = hook.field("transcript_path").map(PathBuf::from) else {
        return Ok(());
    };
    if !hook.ctx.settings()?.on(&crate::settings::QWEN_FOLD)? {
        return Ok(());
    }
    if let Some(answer) = hook.field("last_assistant_message") {
        wait_for_answer(&path, answer);
    }
    let now = crate::time::rfc3339_ms(hook.ctx.now);
    let uuid = hooks::new_uuid()?;
    hook.fold_by_appending(
        &path,
        "Qwen Code",
        crate::qwen::runtime_dir().map(|dir| dir.join("projects")),
        "Qwen Code's projects folder",
        |text, goal_of, finished| fold::fold(text, &uuid, &now, goal_of, finished),
    )?;
    Ok(())
}

/// Waits until the session file at `path` ends with the turn's `answer`: Qwen Code writes its
/// records in the background, and may run the Stop hook before the answer's record is in the
/// file; a record ctx appends before it would not be on the chain Qwen follows when it resumes.
/// At most two seconds, and no longer than 300 ms once the file stops growing (an answer Qwen
/// wrote otherwise than Stop reports it must not hold every turn's end).
fn wait_for_answer(path: &Path, answer: &str) {
    let answer = answer.trim();
    let (mut size, mut quiet) = (None, 0);
    for _ in 0..40 {
        if last_answer(path).is_some_and(|last| last.trim() == answer) {
            return;
        }
        let now = std::fs::metadata(path).ok().map(|m| m.len());
        quiet = if now == size { quiet + 1 } else { 0 };
        if quiet >= 6 {
            return;
        }
        size = now;
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// How much of the session file's end is read for its last answer.
const ANSWER_TAIL: u64 = 4 << 20;

/// The text of the session file's last assistant record, when its last 4 MiB hold one.
fn last_answer(path: &Path) -> Option<String> {
    let text = crate::safe_file::read_tail(path, ANSWER_TAIL).ok()?;
    // A read that starts inside a line gets that line's end only, which is not a record.
    text.lines().rev().find_map(|line| {
        let record: Value = serde_json::from_str(line).ok()?;
        if record.get("type")?.as_str()? != "assistant" {
            return None;
        }
        let parts = record.pointer("/message/parts")?.as_array()?;
        Some(
            parts
                .iter()
                .filter(|p| p.get("thought") != Some(&Value::Bool(true)))
                .filter_map(|p| p.get("text")?.as_str())
                .collect::<String>(),
        )
    })
}

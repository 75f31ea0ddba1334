//! `ctx codex hook EVENT`: one Codex hook call (agents.md, "Codex CLI"), the event's JSON on
//! stdin, the answer (or nothing) on stdout, and never a failure: whatever goes wrong is one line
//! in the hook log and exit 0. The event logic is the hook core's (`commands::hooks`); this adapter
//! maps Codex's events and fields onto it.
//!
//! Codex's events as observed (0.171.0): a thread's SessionStart (`source` startup, resume,
//! clear) and UserPromptSubmit; a `spawn_agent` call's PreToolUse (`tool_input.message`), then
//! SubagentStart (`agent_id`: the subagent's thread id), the subagent's own UserPromptSubmit and
//! tool events (with `agent_id`, and the parent's `session_id`), and SubagentStop
//! (`last_assistant_message`, `agent_transcript_path`: the subagent's rollout). Text a hook adds
//! on SessionStart, UserPromptSubmit and SubagentStart reaches the model as a developer message.
//! PreCompact and PostCompact read no answer. SessionEnd (`transcript_path`: the thread's rollout)
//! is when the rollout is folded (the model's popped frames, then the finished turn frames of
//! `frame.auto`): Codex sends what it holds on `codex exec resume`, and the running process
//! never rereads it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::hooks::{self, Harness, Hook, ItemSpans, additional_context, field};
use crate::codex::{DIGEST_TOOLS, THREAD_PREFIX, fold, plan, rollout, turn_fold};
use crate::conversation::Export;
use crate::error::Result;
use crate::hooks::turns::{ClosedFrame, Kind, frames_then_turns, to_fold};
use crate::project::Project;

/// The hook log (failures, and subagents matched to their calls by a guess), below
/// `.opencode/flame/`.
pub const HOOK_LOG: &str = "codex-hooks.log";
/// The hook log in Codex's folder, where there is no frame folder.
pub const USER_HOOK_LOG: &str = "ctx-hooks.log";
/// Rollouts larger than this are left out of a subagent's log.
const MAX_ROLLOUT: u64 = 256 << 20;
/// The agent type of a `spawn_agent` call that names none, as SubagentStart reports it.
const DEFAULT_AGENT_TYPE: &str = "default";

/// Codex for the hook core: every thread (session or subagent) is `cx_<thread id>`.
static CODEX: Harness = Harness {
    name: "Codex",
    session_prefix: THREAD_PREFIX,
    agent_prefix: THREAD_PREFIX,
    log_name: HOOK_LOG,
    user_dir: crate::codex::home_dir,
    user_log_name: USER_HOOK_LOG,
    door: None,
};

/// `ctx codex hook EVENT` as the process's whole work: never fails, never prints anything but the
/// answer. Called from `main` before the command line is parsed any further. Codex runs its
/// hooks in the session's folder.
pub fn hook_main(event: &str) {
    // A panic must not print to stderr nor exit with 101: it becomes a log line.
    std::panic::set_hook(Box::new(|_| {}));
    run(Project::locate(None).map(|p| p.root), event);
}

pub(super) fn run(root: Result<PathBuf>, event: &str) {
    hooks::run(&CODEX, root, event, answer);
}

fn answer(hook: &mut Hook, event: &str) -> Result<Option<String>> {
    match event {
        "SessionStart" => {
            let context = match hook.field("source") {
                // A resumed conversation still holds what was added before.
                Some("resume") => hook.session_context(false)?,
                // A new conversation holds nothing yet: a session that already has a frame gets
                // its context now, a new one at its first prompt.
                _ if hook.session_has_frame()? => hook.session_context(true)?,
                _ => None,
            };
            Ok(context.map(|xml| with_commands(event, &xml)))
        }
        // A subagent's prompt: its context came with its SubagentStart.
        "UserPromptSubmit" if hook.field("agent_id").is_some() => Ok(None),
        "UserPromptSubmit" => {
            let context = hook.session_context(false)?;
            if hook.turns_on()? {
                hook.turn_start(hook.field("turn_id"))?;
            }
            Ok(context.map(|xml| with_commands(event, &xml)))
        }
        "Stop" if hook.field("agent_id").is_none() && hook.turns_on()? => turn_stop(hook),
        "PreToolUse" if hook.field("tool_name") == Some("spawn_agent") => spawn_call(hook),
        "PostToolUse" if hook.field("tool_name") == Some(plan::TOOL) => plan_call(hook),
        "SubagentStart" => subagent_start(hook),
        "SubagentStop" => subagent_stop(hook),
        "PostCompact" => post_compact(hook),
        "SessionEnd" => session_end(hook),
        // An event ctx does not hook, or a newer Codex's: nothing to do.
        _ => Ok(None),
    }
}

/// The ctx that answers, as the model's shell must name it: Codex runs the model's commands in a
/// login shell, whose PATH may not hold the folder Codex found ctx in.
fn ctx_command() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .filter(|p| {
            p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c))
        })
        .unwrap_or_else(|| "ctx".to_string())
}

/// What the model of a thread is told, after its frame context: the exact commands that push and
/// pop a frame of its own thread, and why a subagent is the better frame for bulky work.
fn frame_commands() -> String {
    let ctx = ctx_command();
    format!(
        "To give a sub-goal a frame of its own, run `{ctx} frame push --session \
         \"cx_$CODEX_THREAD_ID\" -- '<goal>'` in the shell, and when it is done `{ctx} frame pop \
         --session \"cx_$CODEX_THREAD_ID\" --summary '<what was achieved>'`. Codex keeps a popped \
         frame's messages in this conversation: a sub-goal whose tool outputs you will not need \
         again goes better to a subagent (spawn_agent), which gets a frame of its own and sends \
         back only its last message."
    )
}

/// The frame context and the frame commands, as the answer to `event`.
fn with_commands(event: &str, xml: &str) -> String {
    additional_context(event, &format!("{xml}\n{}", frame_commands()))
}

/// PreToolUse of `spawn_agent`: remembers the task's first line as the goal of the subagent it
/// starts.
fn spawn_call(hook: &mut Hook) -> Result<Option<String>> {
    let tool_input = hook.input.get("tool_input").unwrap_or(&Value::Null);
    let task = field(tool_input, "message").or_else(|| {
        tool_input
            .get("items")?
            .as_array()?
            .iter()
            .find_map(|i| field(i, "text"))
    });
    let agent_type = field(tool_input, "agent_type").unwrap_or(DEFAULT_AGENT_TYPE);
    hook.note_agent_call(task, agent_type, hook.field("tool_use_id"))?;
    Ok(None)
}

/// SubagentStart: the subagent's frame and its context (with the frame commands, which in its
/// shell act on its own frame) for the subagent's first request.
fn subagent_start(hook: &mut Hook) -> Result<Option<String>> {
    let frame = hook.event_agent_frame("SubagentStart")?;
    let agent_type = hook.field("agent_type").unwrap_or(DEFAULT_AGENT_TYPE);
    let xml = hook.subagent_start(&frame, agent_type, None)?;
    Ok(Some(with_commands("SubagentStart", &xml)))
}

/// SubagentStop: pops the subagent's frame, completed with its last message as the summary
/// (failed when it ended without one), its rollout in the log.
fn subagent_stop(hook: &mut Hook) -> Result<Option<String>> {
    let Some(frame) = hook.stopping_agent_frame()? else {
        return Ok(None);
    };
    let reported = hook.field("last_assistant_message");
    let path = hook.field("agent_transcript_path");
    let records = path.map(read_rollout).unwrap_or_default();
    let title = format!("subagent rollout {}", path.unwrap_or("(none)"));
    let export = rollout::to_export(&records, &frame, &title, reported);
    hook.subagent_stop(&frame, reported, &export)?;
    Ok(None)
}

/// PostCompact: the compaction's summary, which Codex writes into the rollout but not into the
/// event, on the session's current frame; and the frame context added again at the next prompt,
/// since the compacted conversation may have lost it.
fn post_compact(hook: &mut Hook) -> Result<Option<String>> {
    if hook.field("agent_id").is_some() || !hook.session_has_frame()? {
        return Ok(None);
    }
    let summary = hook
        .field("transcript_path")
        .map(read_rollout)
        .and_then(|records| rollout::last_compaction(&records));
    if let Some(summary) = summary {
        hook.compaction_summary(&summary)?;
    }
    hook.forget_context()?;
    Ok(None)
}

/// A rollout named by the event: only a regular file is read, without waiting on a pipe; one
/// that cannot be read is no records.
fn read_rollout(path: &str) -> Vec<Value> {
    match crate::safe_file::read_regular_capped(Path::new(path), MAX_ROLLOUT) {
        Ok(bytes) => rollout::parse(&String::from_utf8_lossy(&bytes)),
        Err(_) => Vec::new(),
    }
}

/// SessionEnd: folds the thread's rollout (`crate::codex::fold`, then
/// `crate::codex::turn_fold`), so that `codex exec resume` sends each frame the model pushed and
/// popped in its shell as its summary and log path, and each finished turn frame with its tool
/// outputs as placeholders naming the turn's log, written again first from the rollout. The
/// rollout as it was is kept beside it (`<rollout>/ctx-fold-<ms>.jsonl`, where Codex's list of
/// sessions does not look); a frame ctx cannot fold safely, or a rollout whose shape it does not
/// know, is left as it is, with the reason in the hook log.
fn session_end(hook: &mut Hook) -> Result<Option<String>> {
    if hook.field("agent_id").is_some() {
        return Ok(None);
    }
    // Before the fold, so that the fold sees the turn closed.
    if hook.turns_on()? {
        hook.turns_end()?;
    }
    let closed = hook.closed_auto_frames()?;
    refresh_logs(hook, &closed)?;
    let turns = to_fold(&closed);
    let sessions = crate::codex::home_dir().map(|dir| dir.join("sessions"));
    hook.fold_at_end(
        &crate::settings::CODEX_FOLD,
        "rollout",
        sessions,
        "Codex's sessions folder",
        |text, goal_of, finished| {
            frames_then_turns(
                text,
                |text| fold::fold(text, goal_of, finished),
                |text| turn_fold::fold_turns(text, &turns),
            )
        },
    )?;
    Ok(None)
}

/// The logs of the finished auto-frames (turns and plan steps), written again from the rollout
/// as it is now, complete: each placeholder sends the model to its frame's log for the output it
/// stands for. A frame folded before (its span holds placeholders) is left alone: the rollout no
/// longer holds its outputs, and its log does.
fn refresh_logs(hook: &mut Hook, closed: &[ClosedFrame]) -> Result<()> {
    if closed.is_empty() {
        return Ok(());
    }
    let Some(path) = hook.field("transcript_path").map(str::to_string) else {
        return Ok(());
    };
    // A rollout too large to fold keeps every output: its logs need no second writing.
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > crate::hooks::transcript::MAX_FOLD) {
        return Ok(());
    }
    let records = rollout_lines(&path);
    let exports: Vec<_> = closed
        .iter()
        .filter_map(|frame| {
            let span = turn_fold::span(&records, frame);
            if span.is_empty() || turn_fold::folded_before(&records, &span) {
                return None;
            }
            Some((
                frame.id.clone(),
                span_export(&records, &span, &frame.id, &path),
            ))
        })
        .collect();
    hook.rewrite_logs(&exports)
}

/// Stop (`frame.auto` keeps turns): the turn's frame closed with its answer, its log the turn's
/// span of the rollout so far (written again, complete, at SessionEnd); a plan step still in
/// progress in it closes first, as blocked, with its own span.
fn turn_stop(hook: &mut Hook) -> Result<Option<String>> {
    let turn = hook.field("turn_id");
    let Some((id, created)) = hook.turn_of_stop(turn)? else {
        return Ok(None);
    };
    let path = hook.field("transcript_path");
    let records = path.map(rollout_lines).unwrap_or_default();
    let open = ClosedFrame {
        id,
        kind: Kind::Turn,
        goal: String::new(),
        from: created,
        to: i64::MAX,
        agent_turn: turn.map(str::to_string),
        in_turn: None,
    };
    let export = path.and_then(|path| {
        let span = turn_fold::span(&records, &open);
        (!span.is_empty()).then(|| span_export(&records, &span, &open.id, path))
    });
    let mut read = |id: &str, from: i64, to: i64| step_export(&records, path?, id, from, to);
    let mut spans = ItemSpans {
        read: &mut read,
        tools: &DIGEST_TOOLS,
    };
    let answer = hook.field("last_assistant_message");
    hook.turn_stop(turn, answer, export.as_ref(), Some(&mut spans))?;
    Ok(None)
}

/// PostToolUse of `update_plan` (`frame.auto` keeps todo frames): the plan's steps open and close
/// their frames (`crate::codex::plan`); one that closes gets its span of the rollout as its log,
/// read only when a step's frame is open.
fn plan_call(hook: &mut Hook) -> Result<Option<String>> {
    if hook.field("agent_id").is_some() || !hook.todos_on()? {
        return Ok(None);
    }
    let event: &Value = hook.input;
    let Some(items) = event.get("tool_input").and_then(plan::items) else {
        return Ok(None);
    };
    let path = hook.field("transcript_path");
    let records = match path {
        Some(path) if hook.has_open_items()? => rollout_lines(path),
        _ => Vec::new(),
    };
    let mut read = |id: &str, from: i64, to: i64| step_export(&records, path?, id, from, to);
    let mut spans = ItemSpans {
        read: &mut read,
        tools: &DIGEST_TOOLS,
    };
    hook.todo_call(|_, _| (items.clone(), true), &mut spans)?;
    Ok(None)
}

/// The span of the rollout stamped from `from` to `to`, for plan step `id`'s log.
fn step_export(
    records: &[Option<Value>],
    path: &str,
    id: &str,
    from: i64,
    to: i64,
) -> Option<Export> {
    let step = ClosedFrame {
        id: id.to_string(),
        kind: Kind::Item,
        goal: String::new(),
        from,
        to,
        agent_turn: None,
        in_turn: None,
    };
    let span = turn_fold::span(records, &step);
    (!span.is_empty()).then(|| span_export(records, &span, id, path))
}

/// A frame's span of the rollout as the export its log renders.
fn span_export(records: &[Option<Value>], span: &[usize], id: &str, path: &str) -> Export {
    let records: Vec<Value> = span.iter().filter_map(|&n| records[n].clone()).collect();
    rollout::to_export(&records, id, &format!("rollout {path}"), None)
}

/// The rollout's lines as records, a line ctx cannot read as one being `None`.
fn rollout_lines(path: &str) -> Vec<Option<Value>> {
    match crate::safe_file::read_regular_capped(Path::new(path), MAX_ROLLOUT) {
        Ok(bytes) => String::from_utf8_lossy(&bytes)
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l)
                    .ok()
                    .filter(Value::is_object)
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

//! The completion notice of a finished frame for its parent (cli.md, `ctx compact notice`): one
//! short visible line for people, and a synthetic hint that tells the model what to do next.

use super::doc::{PromptBody, TextPart};
use crate::error::{Error, Result};
use crate::frame::id;
use crate::frame::state::{State, Status, TreeIndex};

/// Longest goal shown in the visible line, in characters.
const VISIBLE_GOAL_CHARS: usize = 72;
/// Longest goal named in the hint, in characters.
const HINT_GOAL_CHARS: usize = 120;
/// Longest summary repeated in the hint, in characters; the log holds the rest.
const HINT_SUMMARY_CHARS: usize = 2000;

/// The two texts of a notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub visible: String,
    pub hint: String,
}

impl Notice {
    /// `{"parts": [{"type":"text","text":VISIBLE}, {"type":"text","text":HINT,"synthetic":true}]}`.
    pub fn body(&self) -> PromptBody {
        PromptBody {
            parts: vec![
                TextPart {
                    kind: "text",
                    text: self.visible.clone(),
                    synthetic: None,
                },
                TextPart {
                    kind: "text",
                    text: self.hint.clone(),
                    synthetic: Some(true),
                },
            ],
        }
    }
}

/// The first line of `text`, at most `max` characters, ending in `…` when cut.
fn short(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or("").trim_end();
    let cut = first.chars().count() > max || text.trim_end().contains('\n');
    if !cut {
        return first.to_string();
    }
    let kept: String = first.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// The frame a notice is about when none is named: the frame just popped. That is the current
/// frame itself when it has been popped (a session whose own frame ended), else its most recently
/// popped child (after a pop, the current frame is the popped frame's parent), else, with no
/// current frame (a root was popped), the most recently popped frame of the state.
pub fn default_target(state: &State, current: Option<&str>) -> Option<String> {
    let finished = |f: &crate::frame::state::Frame| {
        !matches!(f.status(), Status::InProgress | Status::Planned) && f.log_path().is_some()
    };
    let newest = |candidates: &mut dyn Iterator<Item = crate::frame::state::Frame>| {
        // Latest update wins; among equals, the later in the file.
        candidates
            .filter(|f| finished(f))
            .max_by_key(|f| (f.updated_at(), state.position(f.id)))
            .map(|f| f.id.to_string())
    };
    match current.and_then(|c| state.frame(c)) {
        Some(frame) if finished(&frame) => Some(frame.id.to_string()),
        Some(frame) => {
            let index = TreeIndex::new(state);
            newest(
                &mut index
                    .children(frame.id)
                    .into_iter()
                    .filter_map(|c| state.frame(c)),
            )
        }
        None => newest(&mut state.frames()),
    }
}

/// Who reads the hint, and so which tools it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Host {
    /// A model with a shell: `ctx frame …` commands.
    #[default]
    Shell,
    /// A model inside OpenCode with ctx's plugin: the `flame_*` tools, its read tool for logs
    /// (by path), and the `task` tool to resume a subagent. A `ctx frame activate` run from
    /// there without `--session` would move the person's place, not the session's.
    OpenCode,
}

impl Host {
    /// How to read the logs of frames with these log paths.
    fn read_logs(self, logs: &[String]) -> String {
        match self {
            Host::Shell => "ctx frame log ID".to_string(),
            Host::OpenCode => logs.join(", "),
        }
    }

    /// How to resume the blocked frame `id` (abbreviated `short`).
    fn resume(self, id: &str, short: &str) -> String {
        match self {
            Host::Shell => format!("It can be resumed later: ctx frame activate {short}"),
            // A subagent's frame is its session: the task tool continues that session.
            Host::OpenCode if id.starts_with(crate::frame::id::OPENCODE_SESSION_PREFIX) => format!(
                "It can be resumed later: call the task tool again with task_id \"{id}\" \
                 (the subagent continues with its earlier messages)"
            ),
            Host::OpenCode => {
                format!("It can be resumed later: call flame_activate with sessionID \"{id}\"")
            }
        }
    }

    /// How to start a planned frame.
    fn start_planned(self) -> &'static str {
        match self {
            Host::Shell => "Start one with: ctx frame activate ID",
            Host::OpenCode => "Start one with flame_activate when its turn comes",
        }
    }
}

/// A frame's log as a path from the project root, where the model's tools run.
fn log_path(log: &str) -> String {
    format!(".opencode/flame/{log}")
}

/// The notice for frame `id`, which must have been popped or invalidated. `dev` appends
/// ` [hint attached]` to the visible line; `host` decides which tools the hint names.
pub fn notice(state: &State, id: &str, dev: bool, host: Host) -> Result<Notice> {
    let frame = state
        .frame(id)
        .ok_or_else(|| Error::failure(format!("no frame matches '{id}'")))?;
    let status = frame.status();
    if matches!(status, Status::Planned | Status::InProgress) {
        return Err(Error::failure(format!(
            "{id} is {status}: a completion notice is for a frame that has been popped"
        ))
        .with_hint("pop it first, or pass --frame ID of the frame that was popped"));
    }
    let abbrev = id::abbreviations(state.frames().map(|f| f.id));
    let short_id = |id: &str| abbrev.get(id).copied().unwrap_or(id).to_string();
    let named = |id: &str| {
        let goal = state.frame(id).map_or("", |f| f.goal());
        format!("{} (\"{}\")", short_id(id), short(goal, HINT_GOAL_CHARS))
    };
    let log_of = |id: &str| {
        state
            .frame(id)
            .and_then(|f| f.log_path().map(log_path))
            .unwrap_or_default()
    };

    let mut visible = format!(
        "Frame {} {status}: {}",
        short_id(id),
        short(frame.goal(), VISIBLE_GOAL_CHARS)
    );
    if dev {
        visible.push_str(" [hint attached]");
    }

    let mut hint = format!("Frame {} finished with status {status}.", named(id));
    if let Some(summary) = frame.summary().filter(|s| !s.trim().is_empty()) {
        let summary = if summary.chars().count() > HINT_SUMMARY_CHARS {
            let kept: String = summary.chars().take(HINT_SUMMARY_CHARS).collect();
            format!("{kept} [truncated; the log has all of it]")
        } else {
            summary.to_string()
        };
        hint.push_str(&format!("\nSummary: {summary}"));
    }

    if status == Status::Blocked {
        hint.push('\n');
        hint.push_str(&host.resume(id, &short_id(id)));
    }

    // A root (or an orphan) has no siblings: other roots are other trees.
    let Some(parent) = frame.parent().filter(|p| state.frame(p).is_some()) else {
        if frame.log_path().is_some() {
            let read = match host {
                Host::Shell => format!("ctx frame log {}", short_id(id)),
                Host::OpenCode => log_of(id),
            };
            hint.push_str(&format!("\nIts log: {read}"));
        }
        return Ok(Notice { visible, hint });
    };
    let index = TreeIndex::new(state);
    let family = index.children(parent);
    let with_status = |wanted: &dyn Fn(Status) -> bool| -> Vec<&str> {
        family
            .iter()
            .copied()
            .filter(|f| state.frame(f).is_some_and(|f| wanted(f.status())))
            .collect()
    };
    let running = with_status(&|s| s == Status::InProgress);
    let planned = with_status(&|s| s == Status::Planned);
    let done = with_status(&|s| !matches!(s, Status::InProgress | Status::Planned));
    // Every finished sibling is named, so that of several that finish at once each notice
    // tells the whole story.
    let done_list = done
        .iter()
        .map(|f| {
            let status = state.frame(f).map_or(Status::Completed, |f| f.status());
            format!("{} ({status})", short_id(f))
        })
        .collect::<Vec<_>>()
        .join(", ");
    let logged: Vec<&str> = done
        .iter()
        .copied()
        .filter(|f| state.frame(f).is_some_and(|f| f.log_path().is_some()))
        .collect();
    let unlogged: Vec<String> = done
        .iter()
        .filter(|f| !logged.contains(f))
        .map(|f| short_id(f))
        .collect();
    let logs: Vec<String> = logged.iter().map(|f| log_of(f)).collect();
    let read_logs = if logged.is_empty() {
        String::new()
    } else if unlogged.is_empty() {
        format!(
            "\nRead their logs before you go on: {}",
            host.read_logs(&logs)
        )
    } else {
        let names: Vec<String> = logged.iter().map(|f| short_id(f)).collect();
        format!(
            "\nRead the logs of {} before you go on: {} ({} never popped, so no log)",
            names.join(", "),
            host.read_logs(&logs),
            unlogged.join(", ")
        )
    };

    if !running.is_empty() {
        let list: Vec<String> = running.iter().map(|f| named(f)).collect();
        hint.push_str(&format!(
            "\nSibling frames still in progress: {}.\nWait for them to finish, or continue with \
             other work meanwhile. Do not leave unfinished siblings behind: each must be popped \
             (completed, failed or blocked) before {} is popped.\nFinished so far: {done_list}.",
            list.join(", "),
            short_id(parent)
        ));
    } else if !planned.is_empty() {
        hint.push_str(&format!(
            "\nNo sibling frame is running, but not all are done: planned ones wait (below).\n\
             Finished so far: {done_list}.{read_logs}"
        ));
    } else {
        hint.push_str(&format!(
            "\nAll sibling frames are done: {done_list}.{read_logs}"
        ));
    }
    if !planned.is_empty() {
        let list: Vec<String> = planned.iter().map(|f| named(f)).collect();
        hint.push_str(&format!(
            "\nPlanned siblings not started yet: {}. {}",
            list.join(", "),
            host.start_planned()
        ));
    }
    Ok(Notice { visible, hint })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::state;

    const SPEC: &str = include_str!("../../tests/fixtures/frame/spec-example.json");

    #[test]
    fn a_sibling_still_running_is_named_with_a_warning() {
        let state = state::parse(SPEC).unwrap();
        let n = notice(&state, "fr_z05xht5gmej1", false, Host::Shell).unwrap();
        assert_eq!(
            n.visible,
            "Frame fr_z05xh completed: Verify webhook signatures"
        );
        assert_eq!(
            n.hint,
            "Frame fr_z05xh (\"Verify webhook signatures\") finished with status completed.
Summary: Signatures are checked with the endpoint secret and a 5-minute tolerance; replays get HTTP 400. The raw body is kept for verification.
Sibling frames still in progress: fr_46s6j (\"Handle refund events\").
Wait for them to finish, or continue with other work meanwhile. Do not leave unfinished siblings behind: each must be popped (completed, failed or blocked) before fr_432cf is popped.
Finished so far: fr_z05xh (completed).
Planned siblings not started yet: fr_yrst4 (\"Retry failed deliveries\"). Start one with: ctx frame activate ID"
        );
    }

    #[test]
    fn all_siblings_done_lists_them_and_points_at_their_logs() {
        let state = state::parse(SPEC).unwrap();
        let n = notice(&state, "fr_yb6wk952swa0", true, Host::Shell).unwrap();
        assert_eq!(
            n.visible,
            "Frame fr_yb6wk completed: Implement the invoice model [hint attached]"
        );
        assert!(n.hint.ends_with(
            "\nSibling frames still in progress: fr_432cf (\"Handle Stripe webhooks\").
Wait for them to finish, or continue with other work meanwhile. Do not leave unfinished siblings behind: each must be popped (completed, failed or blocked) before ses_dfd84297 is popped.
Finished so far: fr_yb6wk (completed)."
        ));
        let text = SPEC.replace(
            "\"status\": \"in_progress\",\n      \"goal\": \"Handle Stripe webhooks\"",
            "\"status\": \"failed\",\n      \"goal\": \"Handle Stripe webhooks\"",
        );
        let state = state::parse(&text).unwrap();
        let n = notice(&state, "fr_yb6wk952swa0", false, Host::Shell).unwrap();
        assert_eq!(
            n.hint,
            "Frame fr_yb6wk (\"Implement the invoice model\") finished with status completed.
Summary: Added Invoice and LineItem with integer-cent amounts, a Postgres migration and 14 unit tests; totals are computed on read, never stored.
All sibling frames are done: fr_yb6wk (completed), fr_432cf (failed).
Read the logs of fr_yb6wk before you go on: ctx frame log ID (fr_432cf never popped, so no log)"
        );
    }

    /// A time after every time stamp of the spec state.
    const LATER: i64 = 1_900_000_000_000;

    /// The spec state after `ctx frame pop` of fr_46s6: fr_432c's children are fr_z05x
    /// (completed), fr_46s6 (completed) and fr_yrst4 (`yrst4`).
    fn after_pops(yrst4: &str) -> State {
        let mut state = state::parse(SPEC).unwrap();
        let plan = crate::frame::ops::check_pop(&state, "fr_46s6jr410dd3", true).unwrap();
        crate::frame::ops::apply_pop(&mut state, &plan, Status::Completed, None, LATER).unwrap();
        if yrst4 != "planned" {
            state.set_field("fr_yrst4chn5kn0", "status", crate::json::Json::str(yrst4));
        }
        state
    }

    #[test]
    fn a_planned_sibling_is_not_all_done() {
        let n = notice(
            &after_pops("planned"),
            "fr_46s6jr410dd3",
            false,
            Host::Shell,
        )
        .unwrap();
        assert!(
            !n.hint.contains("All sibling frames are done"),
            "{}",
            n.hint
        );
        assert!(n.hint.ends_with(
            "No sibling frame is running, but not all are done: planned ones wait (below).
Finished so far: fr_z05xh (completed), fr_46s6j (completed).
Read their logs before you go on: ctx frame log ID
Planned siblings not started yet: fr_yrst4 (\"Retry failed deliveries\"). Start one with: ctx frame activate ID"
        ), "{}", n.hint);
    }

    #[test]
    fn an_invalidated_sibling_is_done_but_has_no_log_to_read() {
        let n = notice(
            &after_pops("invalidated"),
            "fr_46s6jr410dd3",
            false,
            Host::Shell,
        )
        .unwrap();
        assert!(n.hint.ends_with(
            "All sibling frames are done: fr_z05xh (completed), fr_46s6j (completed), fr_yrst4 (invalidated).
Read the logs of fr_z05xh, fr_46s6j before you go on: ctx frame log ID (fr_yrst4 never popped, so no log)"
        ), "{}", n.hint);
    }

    #[test]
    fn a_root_has_no_siblings() {
        let mut state = state::parse(SPEC).unwrap();
        let plan =
            crate::frame::ops::check_pop(&state, "ses_dfd84297fffeStZsxnTSWsbCBp", true).unwrap();
        crate::frame::ops::apply_pop(&mut state, &plan, Status::Completed, None, 1).unwrap();
        let n = notice(&state, "ses_dfd84297fffeStZsxnTSWsbCBp", false, Host::Shell).unwrap();
        assert_eq!(
            n.hint,
            "Frame ses_dfd84297 (\"Build the billing service\") finished with status completed.\nIts log: ctx frame log ses_dfd84297"
        );
    }

    #[test]
    fn the_default_target_is_the_frame_just_popped() {
        let state = after_pops("planned");
        // After the pop, fr_432c is current again: its most recently popped child is the one.
        assert_eq!(
            default_target(&state, Some("fr_432cf1xmwcej")).as_deref(),
            Some("fr_46s6jr410dd3")
        );
        // A session whose own frame was popped names that frame.
        assert_eq!(
            default_target(&state, Some("fr_46s6jr410dd3")).as_deref(),
            Some("fr_46s6jr410dd3")
        );
        // No current frame: the most recently popped of all.
        assert_eq!(
            default_target(&state, None).as_deref(),
            Some("fr_46s6jr410dd3")
        );
        // A running frame without popped children has nothing to tell.
        assert_eq!(default_target(&state, Some("fr_yrst4chn5kn0")), None);
    }

    #[test]
    fn a_blocked_frame_says_how_to_resume_it() {
        let mut state = state::parse(SPEC).unwrap();
        let plan = crate::frame::ops::check_pop(&state, "fr_46s6jr410dd3", false).unwrap();
        crate::frame::ops::apply_pop(&mut state, &plan, Status::Blocked, None, 1).unwrap();
        let n = notice(&state, "fr_46s6jr410dd3", false, Host::Shell).unwrap();
        assert!(
            n.hint
                .contains("\nIt can be resumed later: ctx frame activate fr_46s6j\n"),
            "{}",
            n.hint
        );
    }

    #[test]
    fn inside_opencode_the_hint_names_tools_and_log_paths() {
        let n = notice(
            &after_pops("planned"),
            "fr_46s6jr410dd3",
            false,
            Host::OpenCode,
        )
        .unwrap();
        assert!(n.hint.ends_with(
            "Read their logs before you go on: .opencode/flame/logs/frame-fr_z05xht5gmej1.md, .opencode/flame/logs/frame-fr_46s6jr410dd3.md
Planned siblings not started yet: fr_yrst4 (\"Retry failed deliveries\"). Start one with flame_activate when its turn comes"
        ), "{}", n.hint);
        assert!(!n.hint.contains("ctx "), "{}", n.hint);
        // A blocked subagent is resumed through the task tool; another frame through flame_activate.
        let mut state = state::parse(SPEC).unwrap();
        let plan = crate::frame::ops::check_pop(&state, "fr_46s6jr410dd3", false).unwrap();
        crate::frame::ops::apply_pop(&mut state, &plan, Status::Blocked, None, 1).unwrap();
        let n = notice(&state, "fr_46s6jr410dd3", false, Host::OpenCode).unwrap();
        assert!(
            n.hint.contains(
                "\nIt can be resumed later: call flame_activate with sessionID \"fr_46s6jr410dd3\"\n"
            ),
            "{}",
            n.hint
        );
        let plan =
            crate::frame::ops::check_pop(&state, "ses_dfd84297fffeStZsxnTSWsbCBp", true).unwrap();
        crate::frame::ops::apply_pop(&mut state, &plan, Status::Blocked, None, 1).unwrap();
        let n = notice(
            &state,
            "ses_dfd84297fffeStZsxnTSWsbCBp",
            false,
            Host::OpenCode,
        )
        .unwrap();
        assert_eq!(
            n.hint,
            "Frame ses_dfd84297 (\"Build the billing service\") finished with status blocked.
It can be resumed later: call the task tool again with task_id \"ses_dfd84297fffeStZsxnTSWsbCBp\" (the subagent continues with its earlier messages)
Its log: .opencode/flame/logs/frame-ses_dfd84297fffeStZsxnTSWsbCBp.md"
        );
    }

    #[test]
    fn running_and_planned_frames_get_no_notice() {
        let state = state::parse(SPEC).unwrap();
        let err = notice(&state, "fr_46s6jr410dd3", false, Host::Shell).unwrap_err();
        assert_eq!(
            err.message,
            "fr_46s6jr410dd3 is in_progress: a completion notice is for a frame that has been popped"
        );
        assert!(notice(&state, "fr_t78f603xzbcw", false, Host::Shell).is_err());
    }

    #[test]
    fn long_and_multiline_goals_are_shortened_in_the_visible_line() {
        assert_eq!(short("one\ntwo", 10), "one…");
        assert_eq!(short(&"x".repeat(100), 10), format!("{}…", "x".repeat(9)));
        assert_eq!(short("fits", 10), "fits");
    }
}

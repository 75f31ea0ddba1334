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

/// The notice for frame `id`, which must have been popped or invalidated. `dev` appends
/// ` [hint attached]` to the visible line.
pub fn notice(state: &State, id: &str, dev: bool) -> Result<Notice> {
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

    let index = TreeIndex::new(state);
    let parent = frame.parent().filter(|p| state.frame(p).is_some());
    let family: Vec<&str> = parent.map_or(vec![id], |p| index.children(p).to_vec());
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

    if running.is_empty() {
        let list: Vec<String> = done
            .iter()
            .map(|f| {
                let status = state.frame(f).map_or(Status::Completed, |f| f.status());
                format!("{} ({status})", short_id(f))
            })
            .collect();
        hint.push_str(&format!(
            "\nAll sibling frames are done: {}.\nRead their logs before you go on: ctx frame log ID",
            list.join(", ")
        ));
    } else {
        let list: Vec<String> = running.iter().map(|f| named(f)).collect();
        let parent_name = parent.map_or_else(|| "the parent frame".to_string(), short_id);
        hint.push_str(&format!(
            "\nSibling frames still in progress: {}.\nWait for them to finish, or continue with \
             other work meanwhile. Do not leave unfinished siblings behind: each must be popped \
             (completed, failed or blocked) before {parent_name} is popped.",
            list.join(", ")
        ));
    }
    if !planned.is_empty() {
        let list: Vec<String> = planned.iter().map(|f| named(f)).collect();
        hint.push_str(&format!(
            "\nPlanned siblings not started yet: {}. Start one with: ctx frame activate ID",
            list.join(", ")
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
        let n = notice(&state, "fr_z05xht5gmej1", false).unwrap();
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
Planned siblings not started yet: fr_yrst4 (\"Retry failed deliveries\"). Start one with: ctx frame activate ID"
        );
    }

    #[test]
    fn all_siblings_done_lists_them_and_points_at_their_logs() {
        let state = state::parse(SPEC).unwrap();
        let n = notice(&state, "fr_yb6wk952swa0", true).unwrap();
        assert_eq!(
            n.visible,
            "Frame fr_yb6wk completed: Implement the invoice model [hint attached]"
        );
        assert!(n.hint.ends_with(
            "\nSibling frames still in progress: fr_432cf (\"Handle Stripe webhooks\").
Wait for them to finish, or continue with other work meanwhile. Do not leave unfinished siblings behind: each must be popped (completed, failed or blocked) before ses_dfd8 is popped."
        ));
        let text = SPEC.replace(
            "\"status\": \"in_progress\",\n      \"goal\": \"Handle Stripe webhooks\"",
            "\"status\": \"failed\",\n      \"goal\": \"Handle Stripe webhooks\"",
        );
        let state = state::parse(&text).unwrap();
        let n = notice(&state, "fr_yb6wk952swa0", false).unwrap();
        assert_eq!(
            n.hint,
            "Frame fr_yb6wk (\"Implement the invoice model\") finished with status completed.
Summary: Added Invoice and LineItem with integer-cent amounts, a Postgres migration and 14 unit tests; totals are computed on read, never stored.
All sibling frames are done: fr_yb6wk (completed), fr_432cf (failed).
Read their logs before you go on: ctx frame log ID"
        );
    }

    #[test]
    fn running_and_planned_frames_get_no_notice() {
        let state = state::parse(SPEC).unwrap();
        let err = notice(&state, "fr_46s6jr410dd3", false).unwrap_err();
        assert_eq!(
            err.message,
            "fr_46s6jr410dd3 is in_progress: a completion notice is for a frame that has been popped"
        );
        assert!(notice(&state, "fr_t78f603xzbcw", false).is_err());
    }

    #[test]
    fn long_and_multiline_goals_are_shortened_in_the_visible_line() {
        assert_eq!(short("one\ntwo", 10), "one…");
        assert_eq!(short(&"x".repeat(100), 10), format!("{}…", "x".repeat(9)));
        assert_eq!(short("fits", 10), "fits");
    }
}

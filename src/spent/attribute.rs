//! Which frame each model call belongs to, and each frame's own and rolled-up figures.
//!
//! The rule (`docs/src/budget-spent.md`, "what each frame cost"):
//! 1. A frame's session is the `sessionID` of its `opencodeSpan`, else its own id when that is a
//!    session id (`ses_…`: the frame of an OpenCode session, subagents included; or the id of
//!    any session in the records, whatever its source, such as a Claude Code session's `cc_…`
//!    and subagent's `cca_…`, a pi session's `pi_…`, a Codex thread's `cx_…`), else its
//!    parent's session. A frame with no session (one people pushed by hand) owns no calls of its
//!    own; it rolls up what is below it.
//! 2. Within a session, a frame pushed there owns the calls of its span: with an `opencodeSpan`,
//!    the messages after the one holding the push call up to and including the one holding the
//!    pop call (to the end while it runs); without one, the session's calls created in
//!    `[createdAt, end)`, where `end` is a finished frame's `updatedAt` (its pop) and never for a
//!    running one. Nested frames take their own sub-spans: a call belongs to the innermost frame
//!    whose span holds it.
//! 3. The session's other calls belong to the session's own frame (id = session id).
//! 4. A session with no frame of its own (a subagent ctx made no frame for, or a session that
//!    pushed no frame) belongs where it started: the frame that owned its parent session at the
//!    time it was created (rules 2–3 applied to that time), and so on up its parents.
//! 5. What is left (sessions of other projects, or without any framed ancestor) is unattributed.
//!
//! A frame's total is its own calls plus the totals of its child frames.

use std::collections::HashMap;

use super::figures::Figures;
use super::record::Records;
use crate::frame::state::{State, TreeIndex};

/// The key of a frame's span bookkeeping.
pub const SPAN_KEY: &str = "opencodeSpan";

/// Per frame (by position in the state's `frames`): owner of every call, and the figures.
pub struct Attribution {
    /// The frame position owning each call (by position in `records.calls`), when any.
    pub owner: Vec<Option<usize>>,
    /// The session of each frame, by position in `records.sessions`, when it has one there.
    pub frame_session: Vec<Option<usize>>,
    /// Sessions whose parent chains loop or break, for the report's problems.
    pub problems: Vec<String>,
}

/// A pushed frame's span, in positions of its session's calls and in time.
struct Span {
    frame: usize,
    start: usize,
    end: usize,
    /// Order among spans starting at the same call: the later-created frame is the inner one.
    created: i64,
    time_start: i64,
    time_end: i64,
}

/// Attributes every call of `records` (calls sorted by session, then time) to a frame of
/// `state`.
pub fn attribute(records: &Records, state: &State) -> Attribution {
    let session_at: HashMap<&str, usize> = records
        .sessions
        .iter()
        .enumerate()
        .map(|(at, s)| (s.id.as_str(), at))
        .collect();
    // The calls of each session: a range of positions (calls are sorted by session).
    let mut calls_of: Vec<(usize, usize)> = vec![(0, 0); records.sessions.len()];
    let mut at = 0;
    while at < records.calls.len() {
        let session = records.calls[at].session;
        let start = at;
        while at < records.calls.len() && records.calls[at].session == session {
            at += 1;
        }
        calls_of[session] = (start, at);
    }

    // Rule 1, parents before children.
    let index = TreeIndex::new(state);
    let mut session_name: Vec<Option<&str>> = vec![None; state.len()];
    let mut frame_session = vec![None; state.len()];
    let mut own_frame: Vec<Option<usize>> = vec![None; records.sessions.len()];
    let mut pushed: Vec<Vec<usize>> = vec![Vec::new(); records.sessions.len()];
    let mut stack: Vec<usize> = index.root_positions().iter().rev().copied().collect();
    while let Some(pos) = stack.pop() {
        let frame = state.frame_at(pos);
        let span_session = span_of(&frame).and_then(|span| span.get("sessionID")?.as_str());
        let parent_session = frame
            .parent()
            .and_then(|p| state.position(p))
            .and_then(|p| session_name[p]);
        let name = span_session
            .or_else(|| {
                (is_session_id(frame.id) || session_at.contains_key(frame.id)).then_some(frame.id)
            })
            .or(parent_session);
        session_name[pos] = name;
        if let Some(&session) = name.and_then(|n| session_at.get(n)) {
            frame_session[pos] = Some(session);
            if frame.id == records.sessions[session].id {
                own_frame[session] = Some(pos);
            } else {
                pushed[session].push(pos);
            }
        }
        stack.extend(index.children_at(pos).iter().rev());
    }

    // Rule 2: the spans of the frames pushed in each session.
    let mut spans: Vec<Vec<Span>> = Vec::with_capacity(records.sessions.len());
    for (session, frames) in pushed.iter().enumerate() {
        let (lo, hi) = calls_of[session];
        let calls = &records.calls[lo..hi];
        let mut list: Vec<Span> = frames
            .iter()
            .map(|&pos| {
                let frame = state.frame_at(pos);
                let time_start = frame.created_at();
                let time_end = if frame.status().is_finished() {
                    frame.updated_at().max(time_start)
                } else {
                    i64::MAX
                };
                let by_message = |key: &str| {
                    let id = span_of(&frame)?
                        .get(key)?
                        .as_object()?
                        .get("messageID")?
                        .as_str()?;
                    calls.iter().position(|c| c.message == id)
                };
                let (start, end) = match by_message("open") {
                    Some(open) => {
                        let end = match by_message("close") {
                            Some(close) => close + 1,
                            None => calls.len(),
                        };
                        (open + 1, end.max(open + 1))
                    }
                    None => (
                        calls.partition_point(|c| c.time < time_start),
                        calls.partition_point(|c| c.time < time_end),
                    ),
                };
                Span {
                    frame: pos,
                    start: lo + start,
                    end: lo + end,
                    created: time_start,
                    time_start,
                    time_end,
                }
            })
            .collect();
        list.sort_by_key(|s| (s.start, s.created, s.frame));
        spans.push(list);
    }

    let mut owner: Vec<Option<usize>> = vec![None; records.calls.len()];
    for list in &spans {
        for span in list {
            for slot in &mut owner[span.start..span.end] {
                *slot = Some(span.frame);
            }
        }
    }

    // Rules 3 and 4: the place of each session's remaining calls.
    let mut problems = Vec::new();
    // A session none of whose calls is left (each read from another source first) has nothing to
    // place: its missing parent is not worth a word. Sessions below it may have calls, though.
    let mut has_calls = vec![false; records.sessions.len()];
    for call in &records.calls {
        let mut at = Some(call.session);
        while let Some(session) = at.filter(|&s| !has_calls[s]) {
            has_calls[session] = true;
            at = records.sessions[session]
                .parent
                .as_deref()
                .and_then(|p| session_at.get(p).copied());
        }
    }
    let parent_of: Vec<Option<usize>> = records
        .sessions
        .iter()
        .enumerate()
        .map(|(n, s)| {
            let parent = s.parent.as_deref()?;
            let found = session_at.get(parent).copied();
            if found.is_none() && has_calls[n] {
                problems.push(format!(
                    "session {}: its parent session {parent} is not in the records; counted as a root",
                    s.id
                ));
            }
            found
        })
        .collect();
    let parent_of = break_loops(records, parent_of, &mut problems);
    let owner_at = |session: usize, time: i64| -> Option<usize> {
        spans[session]
            .iter()
            .filter(|s| s.time_start <= time && time < s.time_end)
            .max_by_key(|s| (s.time_start, s.created, s.frame))
            .map(|s| s.frame)
            .or(own_frame[session])
    };
    let place: Vec<Option<usize>> = (0..records.sessions.len())
        .map(|session| {
            if let Some(frame) = own_frame[session] {
                return Some(frame);
            }
            let mut child = session;
            // `parent_of` has no loops; the bound is a second guard.
            for _ in 0..records.sessions.len() {
                let parent = parent_of[child]?;
                if let Some(frame) = owner_at(parent, records.sessions[child].created) {
                    return Some(frame);
                }
                child = parent;
            }
            None
        })
        .collect();
    for (slot, call) in owner.iter_mut().zip(&records.calls) {
        if slot.is_none() {
            *slot = place[call.session];
        }
    }
    Attribution {
        owner,
        frame_session,
        problems,
    }
}

/// The parent of each session with every loop cut: the session of a loop met first (in the
/// records' order) becomes a root, and a problem names it.
pub fn break_loops(
    records: &Records,
    mut parent_of: Vec<Option<usize>>,
    problems: &mut Vec<String>,
) -> Vec<Option<usize>> {
    // 0: not seen, 1: on the walk being made, 2: done.
    let mut mark = vec![0u8; parent_of.len()];
    for start in 0..parent_of.len() {
        let mut walk = Vec::new();
        let mut at = Some(start);
        while let Some(session) = at {
            match mark[session] {
                2 => break,
                1 => {
                    let from = walk.last().copied().unwrap_or(session);
                    problems.push(format!(
                        "session {}: its parent sessions loop back to it; counted as a root",
                        records.sessions[from].id
                    ));
                    // Cut the edge that closed the loop.
                    if parent_of[from] == Some(session) {
                        parent_of[from] = None;
                    }
                    break;
                }
                _ => {
                    mark[session] = 1;
                    walk.push(session);
                    at = parent_of[session];
                }
            }
        }
        for session in walk {
            mark[session] = 2;
        }
    }
    parent_of
}

/// A frame's `opencodeSpan` object, when it has one.
fn span_of<'a>(frame: &crate::frame::state::Frame<'a>) -> Option<&'a crate::json::Object> {
    frame
        .extra()
        .find(|(key, _)| *key == SPAN_KEY)
        .and_then(|(_, value)| value.as_object())
}

/// Whether `id` has the shape of an OpenCode session id.
pub fn is_session_id(id: &str) -> bool {
    id.starts_with(crate::frame::id::OPENCODE_SESSION_PREFIX)
}

/// Each frame's own figures (the calls it owns, among those `included`) and its total with
/// everything below it, by frame position.
pub fn frame_figures(
    records: &Records,
    state: &State,
    attribution: &Attribution,
    included: &dyn Fn(usize) -> bool,
) -> (Vec<Figures>, Vec<Figures>, Figures) {
    let mut own = vec![Figures::default(); state.len()];
    let mut unattributed = Figures::default();
    for (at, call) in records.calls.iter().enumerate() {
        if !included(at) {
            continue;
        }
        match attribution.owner[at] {
            Some(frame) => own[frame].add_call(call),
            None => unattributed.add_call(call),
        }
    }
    let index = TreeIndex::new(state);
    let mut total = own.clone();
    // Children after parents in pre-order: add each frame into its parent walking backwards.
    let mut order = Vec::with_capacity(state.len());
    let mut stack: Vec<usize> = index.root_positions().to_vec();
    while let Some(pos) = stack.pop() {
        order.push(pos);
        stack.extend(index.children_at(pos));
    }
    for &pos in order.iter().rev() {
        for &child in index.children_at(pos) {
            let below = total[child];
            total[pos].add(&below);
        }
    }
    (own, total, unattributed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spent::record::{Call, Cost, Session, Tokens};
    use proptest::prelude::*;

    fn records(parents: &[Option<usize>], calls: &[(usize, i64)]) -> Records {
        let mut records = Records::default();
        for (n, parent) in parents.iter().enumerate() {
            records.sessions.push(Session {
                id: format!("ses_{n:04}"),
                parent: parent.map(|p| format!("ses_{:04}", p % parents.len())),
                title: String::new(),
                created: n as i64 * 10,
            });
        }
        for (n, &(session, time)) in calls.iter().enumerate() {
            records.calls.push(Call {
                session: session % parents.len(),
                message: format!("msg_{n:06}"),
                time,
                agent: "build".into(),
                provider: "p".into(),
                model: "m".into(),
                tokens: Tokens {
                    input: 1,
                    total: 1,
                    ..Tokens::default()
                },
                cost: Cost::Recorded(1.0),
            });
        }
        records.sort_calls();
        records
    }

    /// Frames: some sessions' own frames, and pushed frames under them, as `(id, parent, start, end)`.
    fn state(frames: &[(String, Option<String>, i64, i64)]) -> State {
        let body: Vec<String> = frames
            .iter()
            .map(|(id, parent, start, end)| {
                let parent = parent
                    .as_ref()
                    .map(|p| format!(r#", "parentSessionID": "{p}""#))
                    .unwrap_or_default();
                format!(
                    r#""{id}": {{"sessionID": "{id}", "status": "completed", "goal": "g", "createdAt": {start}, "updatedAt": {end}, "artifacts": [], "decisions": []{parent}}}"#
                )
            })
            .collect();
        crate::frame::state::parse(&format!(
            r#"{{"version": 1, "frames": {{{}}}, "rootFrameIDs": [], "updatedAt": 0}}"#,
            body.join(", ")
        ))
        .unwrap()
    }

    proptest! {
        /// Every call is counted once: the frames' own figures and the unattributed ones add up
        /// to all calls, and each frame's total is its own plus its children's totals.
        #[test]
        fn every_call_is_counted_once(
            parents in prop::collection::vec(prop::option::of(0usize..12), 1..12),
            calls in prop::collection::vec((0usize..12, 0i64..200), 0..60),
            framed in prop::collection::vec(any::<bool>(), 12),
            pushes in prop::collection::vec((0usize..12, 0i64..200, 0i64..100), 0..6),
        ) {
            let records = records(&parents, &calls);
            let mut frames = Vec::new();
            for (n, _) in parents.iter().enumerate() {
                if framed[n] {
                    frames.push((format!("ses_{n:04}"), None, 0, 1000));
                }
            }
            for (k, &(session, start, length)) in pushes.iter().enumerate() {
                let owner = format!("ses_{:04}", session % parents.len());
                if frames.iter().any(|f| f.0 == owner) {
                    frames.push((format!("fr_push{k:06}"), Some(owner), start, start + length));
                }
            }
            let state = state(&frames);
            let attribution = attribute(&records, &state);
            let (own, total, unattributed) = frame_figures(&records, &state, &attribution, &|_| true);
            let mut sum = unattributed;
            for figures in &own {
                sum.add(figures);
            }
            prop_assert_eq!(sum.calls, records.calls.len() as u64);
            let index = TreeIndex::new(&state);
            for pos in 0..state.len() {
                let mut expected = own[pos];
                for &child in index.children_at(pos) {
                    expected.add(&total[child]);
                }
                prop_assert_eq!(expected.calls, total[pos].calls);
            }
        }
    }
}

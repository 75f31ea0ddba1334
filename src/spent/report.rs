//! The report: the selected calls grouped by frame, session, model or day, as the JSON
//! document (which the human table is rendered from).

use std::collections::HashMap;

use super::attribute::{self, Attribution};
use super::doc::{FiguresDoc, MaxCostDoc, RowDoc, SourceDoc, SpentDoc};
use super::figures::Figures;
use super::record::Records;
use crate::frame::state::{State, TreeIndex};
use crate::time::rfc3339_ms;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Frame,
    Session,
    Model,
    Day,
}

impl By {
    pub fn name(self) -> &'static str {
        match self {
            By::Frame => "frame",
            By::Session => "session",
            By::Model => "model",
            By::Day => "day",
        }
    }
}

/// What the report covers.
#[derive(Debug, Clone)]
pub struct Selection {
    pub by: By,
    /// Calls created in `[since, until)`, epoch ms.
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// A frame (full id): its calls and everything below it.
    pub frame: Option<String>,
    /// A session (position in the records): its calls and its subagents'.
    pub session: Option<usize>,
    pub max_cost: Option<f64>,
}

/// Builds the report. `state` is the frame tree (empty when the project has none); `records`'
/// calls are sorted ([`Records::sort_calls`]).
pub fn build(records: &Records, state: &State, selection: &Selection) -> SpentDoc {
    let attribution = attribute::attribute(records, state);
    let mut problems = records.problems.clone();
    problems.extend(attribution.problems.iter().cloned());
    let parent_of = session_parents(records);
    let in_session = selection.session.map(|root| {
        let mut inside = vec![false; records.sessions.len()];
        for (session, flag) in inside.iter_mut().enumerate() {
            let mut at = Some(session);
            for _ in 0..=records.sessions.len() {
                match at {
                    Some(s) if s == root => {
                        *flag = true;
                        break;
                    }
                    Some(s) => at = parent_of[s],
                    None => break,
                }
            }
        }
        inside
    });
    let in_frame = selection.frame.as_deref().and_then(|id| {
        let index = TreeIndex::new(state);
        let mut inside = vec![false; state.len()];
        for frame in index.subtree(state.frame(id)?.id) {
            inside[state.position(frame)?] = true;
        }
        Some(inside)
    });
    let included = |at: usize| {
        let call = &records.calls[at];
        selection.since.is_none_or(|t| call.time >= t)
            && selection.until.is_none_or(|t| call.time < t)
            && in_session.as_ref().is_none_or(|s| s[call.session])
            && in_frame
                .as_ref()
                .is_none_or(|f| attribution.owner[at].is_some_and(|o| f[o]))
    };
    let mut total = Figures::default();
    for at in 0..records.calls.len() {
        if included(at) {
            total.add_call(&records.calls[at]);
        }
    }
    let (rows, unattributed) = match selection.by {
        By::Frame => {
            let (rows, unattributed) =
                frame_rows(records, state, &attribution, &included, selection);
            (rows, Some(FiguresDoc::from(&unattributed)))
        }
        By::Session => (
            session_rows(records, &attribution, state, &parent_of, &included),
            None,
        ),
        By::Model => {
            let mut rows = grouped(records, &included, |c| c.model_key());
            sort_models(&mut rows);
            (rows, None)
        }
        By::Day => (
            grouped(records, &included, |c| rfc3339_ms(c.time)[..10].to_string()),
            None,
        ),
    };
    let max_cost = selection.max_cost.map(|limit| MaxCostDoc {
        limit,
        exceeded: total.cost().is_some_and(|cost| cost > limit),
    });
    SpentDoc {
        version: crate::document::Version,
        by: selection.by.name(),
        sources: records
            .sources
            .iter()
            .map(|s| SourceDoc {
                kind: s.kind,
                path: s.path.clone(),
            })
            .collect(),
        since: selection.since.map(rfc3339_ms),
        until: selection.until.map(rfc3339_ms),
        frame: selection.frame.clone(),
        session: selection.session.map(|s| records.sessions[s].id.clone()),
        total: FiguresDoc::from(&total),
        unattributed,
        rows,
        max_cost,
        problems,
    }
}

/// Each session's parent, loops cut (problems for them are the attribution's).
fn session_parents(records: &Records) -> Vec<Option<usize>> {
    let at: HashMap<&str, usize> = records
        .sessions
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    let parents = records
        .sessions
        .iter()
        .map(|s| s.parent.as_deref().and_then(|p| at.get(p).copied()))
        .collect();
    attribute::break_loops(records, parents, &mut Vec::new())
}

fn frame_rows(
    records: &Records,
    state: &State,
    attribution: &Attribution,
    included: &dyn Fn(usize) -> bool,
    selection: &Selection,
) -> (Vec<RowDoc>, Figures) {
    let (own, total, unattributed) =
        attribute::frame_figures(records, state, attribution, included);
    let index = TreeIndex::new(state);
    let starts: Vec<usize> = match selection.frame.as_deref().and_then(|id| state.position(id)) {
        Some(pos) => vec![pos],
        None => index.root_positions().to_vec(),
    };
    let mut rows = Vec::new();
    let mut stack: Vec<(usize, usize)> = starts.iter().rev().map(|&p| (p, 0)).collect();
    while let Some((pos, depth)) = stack.pop() {
        let frame = state.frame_at(pos);
        rows.push(RowDoc {
            key: frame.id.to_string(),
            parent: frame.parent().map(str::to_string),
            label: Some(frame.goal().to_string()),
            status: Some(frame.status().as_str()),
            depth: Some(depth),
            link: attribution.frame_session[pos].map(|s| records.sessions[s].id.clone()),
            own: Some(FiguresDoc::from(&own[pos])),
            total: FiguresDoc::from(&total[pos]),
        });
        stack.extend(index.children_at(pos).iter().rev().map(|&c| (c, depth + 1)));
    }
    let unattributed = if selection.frame.is_some() {
        Figures::default()
    } else {
        unattributed
    };
    (rows, unattributed)
}

fn session_rows(
    records: &Records,
    attribution: &Attribution,
    state: &State,
    parent_of: &[Option<usize>],
    included: &dyn Fn(usize) -> bool,
) -> Vec<RowDoc> {
    let n = records.sessions.len();
    let mut own = vec![Figures::default(); n];
    let mut owner_frame: Vec<Option<usize>> = vec![None; n];
    for (at, call) in records.calls.iter().enumerate() {
        if included(at) {
            own[call.session].add_call(call);
            if owner_frame[call.session].is_none() {
                owner_frame[call.session] = attribution.owner[at];
            }
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (session, parent) in parent_of.iter().enumerate() {
        match *parent {
            Some(parent) => children[parent].push(session),
            None => roots.push(session),
        }
    }
    let order = |list: &mut Vec<usize>| {
        list.sort_by(|&a, &b| {
            let (a, b) = (&records.sessions[a], &records.sessions[b]);
            (a.created, &a.id).cmp(&(b.created, &b.id))
        })
    };
    order(&mut roots);
    children.iter_mut().for_each(order);
    // Totals, children before parents.
    let mut preorder = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&s| (s, 0)).collect();
    while let Some((session, depth)) = stack.pop() {
        preorder.push((session, depth));
        stack.extend(children[session].iter().rev().map(|&c| (c, depth + 1)));
    }
    let mut total = own.clone();
    for &(session, _) in preorder.iter().rev() {
        if let Some(parent) = parent_of[session] {
            let below = total[session];
            total[parent].add(&below);
        }
    }
    preorder
        .into_iter()
        .filter(|&(session, _)| total[session].calls > 0)
        .map(|(session, depth)| {
            let s = &records.sessions[session];
            RowDoc {
                key: s.id.clone(),
                parent: s.parent.clone(),
                label: Some(s.title.clone()),
                status: None,
                depth: Some(depth),
                link: owner_frame[session].map(|f| state.frame_at(f).id.to_string()),
                own: Some(FiguresDoc::from(&own[session])),
                total: FiguresDoc::from(&total[session]),
            }
        })
        .collect()
}

/// Rows of the calls grouped by `key_of`: models by cost then tokens (descending), days in
/// order.
fn grouped(
    records: &Records,
    included: &dyn Fn(usize) -> bool,
    key_of: impl Fn(&super::record::Call) -> String,
) -> Vec<RowDoc> {
    let mut groups: HashMap<String, Figures> = HashMap::new();
    for (at, call) in records.calls.iter().enumerate() {
        if included(at) {
            groups.entry(key_of(call)).or_default().add_call(call);
        }
    }
    let mut list: Vec<(String, Figures)> = groups.into_iter().collect();
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list.into_iter()
        .map(|(key, figures)| RowDoc {
            key,
            parent: None,
            label: None,
            status: None,
            depth: None,
            link: None,
            own: None,
            total: FiguresDoc::from(&figures),
        })
        .collect()
}

/// Models by cost, then tokens, descending (ties by name).
pub fn sort_models(rows: &mut [RowDoc]) {
    rows.sort_by(|a, b| {
        let cost = |r: &RowDoc| r.total.cost.unwrap_or(0.0);
        cost(b)
            .total_cmp(&cost(a))
            .then(b.total.tokens.total.cmp(&a.total.tokens.total))
            .then(a.key.cmp(&b.key))
    });
}

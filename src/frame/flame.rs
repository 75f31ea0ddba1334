//! The frame tree as a flame graph (`ctx frame tree --format svg`): one box per frame, children
//! below their parent, width by the chosen weight, colour by status.

use super::state::{Frame, State, Status, TreeIndex};
use crate::flamegraph::{Graph, Node, Swatch};
use crate::time::{duration, rfc3339_ms};

/// What a frame's width stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    /// Its span, from creation to its last update (to now while it runs), or its children's
    /// spans when they add up to more (children that ran side by side).
    Time,
    /// The frame and its descendants.
    Frames,
    /// The tokens its summary, decisions and log add to the context, and its descendants'.
    Tokens,
    /// What its own model calls cost (micro-dollars, from the agent's records), and its
    /// descendants'.
    Cost,
}

pub struct Options<'a> {
    /// Draw this frame's subtree only.
    pub from: Option<&'a str>,
    pub weight: Weight,
    /// The clock for running frames.
    pub now: i64,
    pub current: Option<&'a str>,
}

/// The colours of the statuses, in legend order ([`Status::ALL`]).
const FILLS: [&str; 6] = [
    "#f5a623", "#a9bfd6", "#59a14f", "#e15759", "#edc948", "#d8d3cc",
];
const ALL_FRAMES: usize = Status::ALL.len();

fn human(status: Status) -> &'static str {
    match status {
        Status::InProgress => "in progress",
        Status::Planned => "planned",
        Status::Completed => "completed",
        Status::Failed => "failed",
        Status::Blocked => "blocked",
        Status::Invalidated => "invalidated",
    }
}

/// The picture of `state`. `tokens` weighs a frame on its own (used by [`Weight::Tokens`] and
/// [`Weight::Cost`]).
pub fn graph(state: &State, options: &Options<'_>, tokens: &dyn Fn(&Frame<'_>) -> u64) -> Graph {
    let index = TreeIndex::new(state);
    let tops: Vec<usize> = match options.from.and_then(|id| state.position(id)) {
        Some(pos) => vec![pos],
        None => index.root_positions().to_vec(),
    };
    // Frames in pre-order, each with the node index of its parent.
    let mut order: Vec<(usize, Option<usize>)> = Vec::new();
    let mut stack: Vec<(usize, Option<usize>)> = tops.iter().rev().map(|&p| (p, None)).collect();
    while let Some((pos, parent)) = stack.pop() {
        let node = order.len();
        order.push((pos, parent));
        stack.extend(
            index
                .children_at(pos)
                .iter()
                .rev()
                .map(|&c| (c, Some(node))),
        );
    }

    let mut weight = options.weight;
    let mut notes = Vec::new();
    let mut nodes = build(state, options, &order, weight, tokens);
    let total: u64 = nodes
        .iter()
        .zip(&order)
        .filter(|(_, o)| o.1.is_none())
        .map(|(n, _)| n.value)
        .sum();
    if total == 0 && !order.is_empty() && weight != Weight::Frames {
        notes.push(format!(
            "every frame weighs nothing by {}; drawn by frame count instead",
            match weight {
                Weight::Time => "time",
                Weight::Cost => "cost",
                _ => "tokens",
            }
        ));
        weight = Weight::Frames;
        nodes = build(state, options, &order, weight, tokens);
    }

    let mut counts = [0usize; Status::ALL.len()];
    for frame in state.frames() {
        counts[frame.status() as usize] += 1;
    }
    let mut legend: Vec<Swatch> = Status::ALL
        .iter()
        .map(|&status| Swatch {
            label: format!("{} ({})", human(status), counts[status as usize]),
            fill: FILLS[status as usize],
        })
        .collect();
    let mut roots: Vec<usize> = order
        .iter()
        .enumerate()
        .filter(|(_, o)| o.1.is_none())
        .map(|(i, _)| i)
        .collect();
    if roots.len() > 1 {
        // Several trees hang from one box, as a profile's "all".
        legend.push(Swatch {
            label: "all frames".into(),
            fill: "#c9c3b8",
        });
        let value = roots.iter().map(|&r| nodes[r].value).sum();
        nodes.push(Node {
            label: format!("all frames ({})", order.len()),
            details: format!("all frames ({})\n{} trees", order.len(), roots.len()),
            value,
            swatch: ALL_FRAMES,
            children: roots,
            marked: false,
        });
        roots = vec![nodes.len() - 1];
    }
    if order.is_empty() {
        notes.push("no frames yet; start one with: ctx frame push \"<goal>\"".into());
    }

    let from = options
        .from
        .and_then(|id| state.frame(id))
        .map(|f| format!(" from {}", f.goal().lines().next().unwrap_or("")));
    Graph {
        title: format!("Frame tree{}", from.unwrap_or_default()),
        subtitle: format!(
            "width: {} · colour: status · a parent above its children",
            match weight {
                Weight::Time => "time from creation to last update (to now while running)",
                Weight::Frames => "the frame and its descendants",
                Weight::Tokens =>
                    "tokens its summary, decisions and log add, with its descendants'",
                Weight::Cost => "cost of its model calls, with its descendants'",
            }
        ),
        nodes,
        roots,
        legend,
        scale: None,
        marks: Vec::new(),
        notes,
    }
}

/// One node per frame of `order`, values by `weight` (children before parents).
fn build(
    state: &State,
    options: &Options<'_>,
    order: &[(usize, Option<usize>)],
    weight: Weight,
    tokens: &dyn Fn(&Frame<'_>) -> u64,
) -> Vec<Node> {
    let mut nodes: Vec<Node> = order
        .iter()
        .map(|&(pos, _)| {
            let frame = state.frame_at(pos);
            let end = if frame.status() == Status::InProgress {
                options.now.max(frame.updated_at())
            } else {
                frame.updated_at()
            };
            let span = u64::try_from(end.saturating_sub(frame.created_at())).unwrap_or(0);
            let own = match weight {
                Weight::Time => span,
                Weight::Frames => 1,
                Weight::Tokens | Weight::Cost => tokens(&frame),
            };
            let id = frame.id;
            let mut details = format!(
                "{}\n{} · {} · span {}\ncreated {} · updated {}",
                frame.goal(),
                id,
                human(frame.status()),
                duration(span),
                rfc3339_ms(frame.created_at()),
                rfc3339_ms(frame.updated_at())
            );
            if let Some(summary) = frame.summary() {
                details.push_str("\nsummary: ");
                details.push_str(summary);
            }
            Node {
                label: frame.goal().to_string(),
                details,
                value: own,
                swatch: frame.status() as usize,
                children: Vec::new(),
                marked: options.current == Some(id),
            }
        })
        .collect();
    for (node, &(_, parent)) in order.iter().enumerate() {
        if let Some(parent) = parent {
            nodes[parent].children.push(node);
        }
    }
    // Pre-order reversed visits children before their parents.
    for i in (0..nodes.len()).rev() {
        let children: u64 = nodes[i].children.iter().map(|&c| nodes[c].value).sum();
        nodes[i].value = match weight {
            Weight::Time => nodes[i].value.max(children),
            Weight::Frames | Weight::Tokens | Weight::Cost => {
                nodes[i].value.saturating_add(children)
            }
        };
        if weight == Weight::Cost {
            let usd = nodes[i].value as f64 / 1e6;
            nodes[i]
                .details
                .push_str(&format!("\ncost: ${usd:.4} with everything below"));
        }
    }
    nodes
}

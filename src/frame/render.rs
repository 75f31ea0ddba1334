//! Frame output for people: `frame show` and the tree (flame.md §7). The JSON documents are in
//! `doc.rs`.

use unicode_width::UnicodeWidthStr;

use super::id;
use super::state::{Frame, State, Status, TreeIndex};
use crate::output::fit_width;
use crate::time::rfc3339_ms;

/// `frame show`: every field, untruncated, `key: value` per line.
pub fn show_text(frame: &Frame<'_>) -> String {
    let mut out = String::new();
    let mut field = |key: &str, value: &str| {
        out.push_str(key);
        out.push(':');
        let mut lines = value.split('\n');
        if let Some(first) = lines.next() {
            out.push(' ');
            out.push_str(first);
        }
        for line in lines {
            out.push_str("\n  ");
            out.push_str(line);
        }
        out.push('\n');
    };
    let none = "(none)";
    field("id", frame.id);
    field("parent", frame.parent().unwrap_or(none));
    field("status", frame.status().as_str());
    field("goal", frame.goal());
    field("created_at", &rfc3339_ms(frame.created_at()));
    field("updated_at", &rfc3339_ms(frame.updated_at()));
    field("summary", frame.summary().unwrap_or(none));
    field("log_path", frame.log_path().unwrap_or(none));
    if let Some(reason) = frame.invalidation_reason() {
        field("invalidation_reason", reason);
    }
    if let Some(at) = frame.invalidated_at() {
        field("invalidated_at", &rfc3339_ms(at));
    }
    let mut list = |key: &str, items: Vec<&str>| {
        if items.is_empty() {
            out.push_str(&format!("{key}: (none)\n"));
        } else {
            out.push_str(&format!("{key}:\n"));
            for item in items {
                out.push_str("  - ");
                out.push_str(&item.replace('\n', "\n    "));
                out.push('\n');
            }
        }
    };
    list("artifacts", frame.artifacts().collect());
    list("decisions", frame.decisions().collect());
    list("planned_children", frame.planned_children().collect());
    let extra: Vec<_> = frame.extra().collect();
    if !extra.is_empty() {
        out.push_str("extra:\n");
        for (key, value) in extra {
            out.push_str(&format!("  {key}: {}\n", value.to_serde()));
        }
    }
    out
}

/// Glyphs for the tree, Unicode or `--ascii`.
struct Glyphs {
    branch: &'static str,
    last: &'static str,
    pipe: &'static str,
    space: &'static str,
    current: &'static str,
    ellipsis: &'static str,
}

const UNICODE: Glyphs = Glyphs {
    branch: "├── ",
    last: "└── ",
    pipe: "│   ",
    space: "    ",
    current: " ← current",
    ellipsis: "…",
};

const ASCII: Glyphs = Glyphs {
    branch: "|-- ",
    last: "`-- ",
    pipe: "|   ",
    space: "    ",
    current: " <- current",
    ellipsis: "...",
};

pub fn icon(status: Status, ascii: bool) -> &'static str {
    match (status, ascii) {
        (Status::InProgress, false) => "→",
        (Status::Planned, false) => "○",
        (Status::Completed, false) => "✓",
        (Status::Failed, false) => "✗",
        (Status::Blocked, false) => "!",
        (Status::Invalidated, false) => "⊘",
        (Status::InProgress, true) => ">",
        (Status::Planned, true) => "o",
        (Status::Completed, true) => "+",
        (Status::Failed, true) => "x",
        (Status::Blocked, true) => "!",
        (Status::Invalidated, true) => "-",
    }
}

/// Options of `frame tree`.
pub struct TreeOptions<'a> {
    pub from: Option<&'a str>,
    pub details: bool,
    pub ascii: bool,
    pub width: usize,
    pub current: Option<&'a str>,
    /// Colours a whole line by status; never changes the characters.
    pub paint: &'a dyn Fn(Status, &str) -> String,
}

/// The human tree with its legend; empty when there are no frames.
pub fn tree_text(state: &State, options: &TreeOptions<'_>) -> String {
    let index = TreeIndex::new(state);
    let abbrev = id::abbreviations(state.frames().map(|f| f.id));
    let glyphs = if options.ascii { &ASCII } else { &UNICODE };
    let roots: Vec<&str> = match options.from {
        Some(from) => vec![from],
        None => index.roots.clone(),
    };
    let mut out = String::new();
    // Frames of each status, in the order of `Status::ALL` (the order of the enum).
    let mut counts = [0usize; Status::ALL.len()];
    let mut total = 0;
    for (i, root) in roots.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut printer = TreePrinter {
            state,
            index: &index,
            abbrev: &abbrev,
            glyphs,
            options,
            out: &mut out,
            counts: &mut counts,
            total: &mut total,
        };
        printer.frame(root, "", None);
    }
    if total > 0 {
        let legend: Vec<String> = Status::ALL
            .iter()
            .filter(|s| counts[**s as usize] > 0)
            .map(|s| {
                let n = counts[*s as usize];
                format!("{n} {} {}", icon(*s, options.ascii), s.as_str())
            })
            .collect();
        let noun = if total == 1 { "frame" } else { "frames" };
        out.push('\n');
        out.push_str(&wrap_legend(
            &format!("{total} {noun}: "),
            &legend,
            options.width,
        ));
    }
    out
}

struct TreePrinter<'s, 'o> {
    state: &'s State,
    index: &'s TreeIndex<'s>,
    abbrev: &'s id::Abbreviations<'s>,
    glyphs: &'static Glyphs,
    options: &'o TreeOptions<'o>,
    out: &'o mut String,
    counts: &'o mut [usize; Status::ALL.len()],
    total: &'o mut usize,
}

impl TreePrinter<'_, '_> {
    /// Prints `id` and its subtree; `connector` is `None` for a root. Iterative over depth would
    /// read worse; the recursion is bounded by the tree's depth, which validation keeps acyclic.
    fn frame(&mut self, id: &str, prefix: &str, connector: Option<&str>) {
        let Some(frame) = self.state.frame(id) else {
            return;
        };
        let status = frame.status();
        self.counts[status as usize] += 1;
        *self.total += 1;
        let abbrev = self.abbrev.get(id).copied().unwrap_or(id);
        let marker = if self.options.current == Some(id) {
            self.glyphs.current
        } else {
            ""
        };
        let icon = icon(status, self.options.ascii);
        // The line is `{prefix}{connector}{icon} {goal} ({abbrev}){marker}`; the goal gets the room
        // the other pieces leave (none of them combines with its neighbour, so widths add up).
        let lead = connector.unwrap_or("");
        let fixed = [prefix, lead, icon, abbrev, marker]
            .iter()
            .map(|piece| width(piece))
            .sum::<usize>()
            + 4;
        let room = self.options.width.saturating_sub(fixed);
        let goal = frame.goal().lines().next().unwrap_or("");
        let mut line = String::with_capacity(prefix.len() + goal.len() + 64);
        for piece in [prefix, lead, icon, " "] {
            line.push_str(piece);
        }
        if width(goal) <= room {
            line.push_str(goal);
        } else {
            line.push_str(&fit_width(goal, room, self.glyphs.ellipsis));
        }
        for piece in [" (", abbrev, ")", marker] {
            line.push_str(piece);
        }
        self.out.push_str(&(self.options.paint)(status, &line));
        self.out.push('\n');

        let children = self.index.children(id);
        let child_prefix = match connector {
            None => prefix.to_string(),
            Some(c) if c == self.glyphs.last => format!("{prefix}{}", self.glyphs.space),
            Some(_) => format!("{prefix}{}", self.glyphs.pipe),
        };
        if self.options.details {
            self.details(&frame, &child_prefix);
        }
        for (i, child) in children.iter().enumerate() {
            let connector = if i + 1 == children.len() {
                self.glyphs.last
            } else {
                self.glyphs.branch
            };
            self.frame(child, &child_prefix, Some(connector));
        }
    }

    fn details(&mut self, frame: &Frame<'_>, child_prefix: &str) {
        let indent = format!("{child_prefix}    ");
        let mut lines: Vec<String> = Vec::new();
        if let Some(summary) = frame.summary() {
            lines.push(format!("summary: {}", one_line(summary)));
        }
        let artifacts: Vec<&str> = frame.artifacts().collect();
        if !artifacts.is_empty() {
            lines.push(format!("artifacts: {}", one_line(&artifacts.join(", "))));
        }
        let decisions = frame.decisions().count();
        if decisions > 0 {
            lines.push(format!("decisions: {decisions}"));
        }
        if let Some(reason) = frame.invalidation_reason() {
            lines.push(format!("reason: {}", one_line(reason)));
        }
        if let Some(log) = frame.log_path() {
            lines.push(format!("log: {}", one_line(log)));
        }
        for line in lines {
            let room = self
                .options
                .width
                .saturating_sub(unicode_width::UnicodeWidthStr::width(indent.as_str()));
            let text = format!("{indent}{}", fit_width(&line, room, self.glyphs.ellipsis));
            self.out.push_str(text.trim_end());
            self.out.push('\n');
        }
    }
}

/// `head` followed by the items joined with ", ", wrapped after a comma so that no line is wider
/// than `width`; continuation lines are aligned under the first item.
fn wrap_legend(head: &str, items: &[String], width: usize) -> String {
    let indent = " ".repeat(head.width());
    let mut out = head.to_string();
    let mut line_width = head.width();
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item},")
        } else {
            item.clone()
        };
        if i > 0 {
            if line_width + 1 + piece.width() > width {
                out.push('\n');
                out.push_str(&indent);
                line_width = indent.width();
            } else {
                out.push(' ');
                line_width += 1;
            }
        }
        out.push_str(&piece);
        line_width += piece.width();
    }
    out.push('\n');
    out
}

/// The display width of `text`; printable ASCII, the usual case, is one column a byte, without
/// the Unicode tables.
fn width(text: &str) -> usize {
    if text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        text.len()
    } else {
        text.width()
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

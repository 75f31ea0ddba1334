//! Frame output for people: `frame show` and the tree (flame.md §7). The JSON documents are in
//! `doc.rs`.

use unicode_width::UnicodeWidthStr;

use super::state::{Frame, State, Status, TreeIndex};
use super::{id, stale};
use crate::text::{fit_width, visible, visible_line};
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
            out.push_str(&format!("  {key}: {}\n", value.to_compact()));
        }
    }
    // Every value came from the file: nothing in it may act on the terminal.
    visible(&out).into_owned()
}

/// Glyphs for the tree, Unicode or `--ascii`.
struct Glyphs {
    branch: &'static str,
    last: &'static str,
    pipe: &'static str,
    space: &'static str,
    current: &'static str,
    selected: &'static str,
    ellipsis: &'static str,
}

const UNICODE: Glyphs = Glyphs {
    branch: "├── ",
    last: "└── ",
    pipe: "│   ",
    space: "    ",
    current: " ← current",
    selected: " ← selected",
    ellipsis: "…",
};

const ASCII: Glyphs = Glyphs {
    branch: "|-- ",
    last: "`-- ",
    pipe: "|   ",
    space: "    ",
    current: " <- current",
    selected: " <- selected",
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
    /// The frame `--frame` names, marked "selected" unless it is the current frame.
    pub selected: Option<&'a str>,
    /// Levels shown (1: the roots alone); `None` for all.
    pub depth: Option<usize>,
    /// Only frames of these statuses, with their ancestors; empty for all.
    pub statuses: &'a [Status],
    /// Colours a whole line by status; never changes the characters.
    pub paint: &'a dyn Fn(Status, &str) -> String,
    /// When sessions last called the model, to mark a quiet subagent's frame stale.
    pub quiet: Option<&'a stale::Quiet<'a>>,
    /// A column before each frame's line (e.g. its cost), by frame position; all of one width.
    pub column: Option<&'a dyn Fn(usize) -> String>,
}

/// The human tree with its legend; empty when there are no frames.
pub fn tree_text(state: &State, options: &TreeOptions<'_>) -> String {
    let index = TreeIndex::new(state);
    let ids: Vec<&str> = state.frames().map(|f| f.id).collect();
    let glyphs = if options.ascii { &ASCII } else { &UNICODE };
    let keep = kept(state, options.statuses);
    let roots: Vec<usize> = match options.from {
        Some(from) => state.position(from).into_iter().collect(),
        None => index.root_positions().to_vec(),
    }
    .into_iter()
    .filter(|&pos| keep.as_ref().is_none_or(|keep| keep[pos]))
    .collect();
    let mut printer = TreePrinter {
        state,
        index: &index,
        abbrev: id::abbreviations_in_order(&ids),
        glyphs,
        options,
        out: String::new(),
        prefix: String::new(),
        prefix_width: 0,
        line: String::new(),
        counts: [0; Status::ALL.len()],
        total: 0,
        flattened: false,
        keep,
        stale: Vec::new(),
    };
    for (i, root) in roots.into_iter().enumerate() {
        if i > 0 {
            printer.out.push('\n');
        }
        printer.walk(root);
    }
    let TreePrinter {
        mut out,
        counts,
        total,
        flattened,
        stale,
        abbrev,
        ..
    } = printer;
    if flattened {
        out.push_str(&format!(
            "\n(frames deeper than {MAX_INDENT} levels are drawn without further indentation)\n"
        ));
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
    // One line each, saying what ended above the frame (`ctx frame invalidate` ends it).
    for (pos, why) in stale {
        match why {
            stale::Stale::ParentEnded(parent) => {
                // A parent is a frame of the state, so it has a position and an abbreviation.
                let named = state.position(parent.id).map_or(parent.id, |at| abbrev[at]);
                out.push_str(&format!(
                    "{} is stale: its parent {named} is {}\n",
                    abbrev[pos],
                    parent.status()
                ));
            }
            // Short enough for 80 columns with a session id's abbreviation.
            stale::Stale::Quiet(at) => out.push_str(&format!(
                "{} is stale: no model call since {} UTC\n",
                abbrev[pos],
                crate::time::human_utc(at)
            )),
        }
    }
    out
}

/// Prints the tree by frame position, so that no line costs an id lookup.
struct TreePrinter<'s, 'o> {
    state: &'s State,
    index: &'s TreeIndex<'s>,
    /// The abbreviation of the frame at each position.
    abbrev: Vec<&'s str>,
    glyphs: &'static Glyphs,
    options: &'o TreeOptions<'o>,
    out: String,
    /// What goes before the connector of the frames being printed, grown and cut back as the
    /// walk goes down and up, with its display width.
    prefix: String,
    prefix_width: usize,
    /// The line being built, kept to reuse its room.
    line: String,
    /// Frames of each status, in the order of `Status::ALL` (the order of the enum).
    counts: [usize; Status::ALL.len()],
    total: usize,
    /// Whether some frame was deeper than [`MAX_INDENT`].
    flattened: bool,
    /// With `--status`, which frames are drawn, by position.
    keep: Option<Vec<bool>>,
    /// The stale frames drawn, by position, and why ([`stale::stale`]).
    stale: Vec<(usize, stale::Stale<'s>)>,
}

/// With `statuses`, the frames to draw by position: those of the statuses and their ancestors.
fn kept(state: &State, statuses: &[Status]) -> Option<Vec<bool>> {
    if statuses.is_empty() {
        return None;
    }
    let mut keep = vec![false; state.len()];
    for (pos, frame) in state.frames().enumerate() {
        if !statuses.contains(&frame.status()) {
            continue;
        }
        // Up to the first ancestor already kept: each frame is marked once.
        let mut at = Some(pos);
        while let Some(p) = at.filter(|&p| !keep[p]) {
            keep[p] = true;
            at = state.frame_at(p).parent().and_then(|id| state.position(id));
        }
    }
    Some(keep)
}

/// Levels of indentation the tree draws (48 columns; an 80-column line keeps room for the goal);
/// deeper frames are drawn at this level, so that a chain
/// of 100 000 frames prints 100 000 lines of bounded width, not a triangle of gigabytes.
pub const MAX_INDENT: usize = 12;

/// A step of the walk: print a frame, or restore the prefix once a frame's subtree is done.
enum Step<'g> {
    Frame {
        pos: usize,
        connector: Option<&'g str>,
        depth: usize,
    },
    Restore {
        len: usize,
        width: usize,
    },
}

impl TreePrinter<'_, '_> {
    /// Prints the subtree of the frame at position `pos`, depth first, with an explicit stack: a
    /// chain 100 000 frames deep must not overflow the call stack.
    fn walk(&mut self, root: usize) {
        let mut stack = vec![Step::Frame {
            pos: root,
            connector: None,
            depth: 0,
        }];
        while let Some(step) = stack.pop() {
            match step {
                Step::Restore { len, width } => {
                    self.prefix.truncate(len);
                    self.prefix_width = width;
                }
                Step::Frame {
                    pos,
                    connector,
                    depth,
                } => self.frame(pos, connector, depth, &mut stack),
            }
        }
    }

    /// Prints the frame at position `pos` (and its details) under `self.prefix`, and pushes its
    /// children onto `stack`; `connector` is `None` for a root.
    fn frame(
        &mut self,
        pos: usize,
        connector: Option<&'static str>,
        depth: usize,
        stack: &mut Vec<Step<'static>>,
    ) {
        let frame = self.state.frame_at(pos);
        let status = frame.status();
        self.counts[status as usize] += 1;
        self.total += 1;
        let abbrev = self.abbrev[pos];
        let marker = if self.options.current == Some(frame.id) {
            self.glyphs.current
        } else if self.options.selected == Some(frame.id) {
            self.glyphs.selected
        } else {
            ""
        };
        let stale = stale::stale(self.state, &frame, self.options.quiet);
        if let Some(why) = stale {
            self.stale.push((pos, why));
        }
        let stale_mark = if stale.is_some() { " stale" } else { "" };
        // A frame ctx opened by itself (a person's turn, a todo item) is told from one the model
        // pushed.
        let auto_mark = match super::auto::kind(&frame) {
            Some(super::auto::TURN) => " turn",
            Some(super::auto::TODO) => " todo",
            Some(_) => " auto",
            None => "",
        };
        let icon = icon(status, self.options.ascii);
        // The line is `{prefix}{connector}{icon} {goal} ({abbrev}){marker}`; the goal gets the room
        // the other pieces leave (none of them combines with its neighbour, so widths add up).
        let lead = connector.unwrap_or("");
        let column = self.options.column.map(|column| column(pos));
        let fixed = column.as_deref().map_or(0, width)
            + self.prefix_width
            + [lead, icon, abbrev, marker, stale_mark, auto_mark]
                .iter()
                .map(|piece| width(piece))
                .sum::<usize>()
            + 4;
        let room = self.options.width.saturating_sub(fixed);
        let goal = visible_line(frame.goal().lines().next().unwrap_or(""));
        let goal = goal.as_ref();
        let line = &mut self.line;
        line.clear();
        line.push_str(column.as_deref().unwrap_or(""));
        for piece in [self.prefix.as_str(), lead, icon, " "] {
            line.push_str(piece);
        }
        if width(goal) <= room {
            line.push_str(goal);
        } else {
            line.push_str(&fit_width(goal, room, self.glyphs.ellipsis));
        }
        for piece in [" (", abbrev, ")", auto_mark, stale_mark, marker] {
            line.push_str(piece);
        }
        self.out.push_str(&(self.options.paint)(status, line));
        self.out.push('\n');

        let outer = (self.prefix.len(), self.prefix_width);
        let below = match connector {
            None => "",
            Some(c) if c == self.glyphs.last => self.glyphs.space,
            Some(_) => self.glyphs.pipe,
        };
        if depth < MAX_INDENT {
            self.prefix.push_str(below);
            self.prefix_width += width(below);
        } else {
            self.flattened = true;
        }
        if self.options.details {
            let prefix = std::mem::take(&mut self.prefix);
            self.details(&frame, &prefix);
            self.prefix = prefix;
        }
        let children: Vec<usize> = self
            .index
            .children_at(pos)
            .iter()
            .copied()
            .filter(|&child| self.keep.as_ref().is_none_or(|keep| keep[child]))
            .collect();
        let shown = self.options.depth.is_none_or(|levels| depth + 1 < levels);
        if !children.is_empty() && !shown {
            let hidden = self.index.subtree(frame.id).len() - 1;
            let noun = if hidden == 1 { "frame" } else { "frames" };
            self.out.push_str(&format!(
                "{}    … {hidden} {noun} below (--depth)\n",
                self.prefix
            ));
        }
        stack.push(Step::Restore {
            len: outer.0,
            width: outer.1,
        });
        if shown {
            for (i, &child) in children.iter().enumerate().rev() {
                let connector = if i + 1 == children.len() {
                    self.glyphs.last
                } else {
                    self.glyphs.branch
                };
                stack.push(Step::Frame {
                    pos: child,
                    connector: Some(connector),
                    depth: depth + 1,
                });
            }
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

/// A field on one line, with nothing in it that acts on a terminal.
fn one_line(text: &str) -> String {
    visible_line(&text.split_whitespace().collect::<Vec<_>>().join(" ")).into_owned()
}

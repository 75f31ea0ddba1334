//! Flame graphs as one self-contained, interactive SVG: a tree of weighted boxes, depth down the
//! page and width by weight. The frame tree (`ctx frame tree --format svg`) and a token budget
//! (`ctx budget estimate --format svg`) are both drawn by [`svg`] from a [`Graph`].
//!
//! The root is at the top and children hang below it (an icicle): a tree of work is read from its
//! goal down, and a deep tree grows down the page the way a browser scrolls. Boxes too narrow to
//! see and levels past [`MAX_LEVELS`] are left out and counted in a note, as flame graph tools
//! do, so the file stays small whatever the tree. The script inside (`flamegraph.js`) shows a
//! box's details on hover or focus, zooms into a branch on click (or Enter), and highlights
//! matches of a search; it needs nothing from the network. The same graph gives the same bytes.

use std::fmt::Write as _;

use crate::text::xml_escape;

/// One box: its weight includes its children's, which hang below it in order.
#[derive(Debug, Clone)]
pub struct Node {
    /// Drawn in the box, cut to fit; when it is not the details' first line, the SVG carries it
    /// for the script, which redraws labels on zoom.
    pub label: String,
    /// Shown on hover and focus: the label's line first, then details.
    pub details: String,
    /// At least the sum of the children's values.
    pub value: u64,
    /// Index into [`Graph::legend`].
    pub swatch: usize,
    pub children: Vec<usize>,
    /// Drawn with a heavier outline (the current frame).
    pub marked: bool,
}

#[derive(Debug, Clone)]
pub struct Swatch {
    pub label: String,
    pub fill: &'static str,
}

/// A vertical line across the graph at a value (a budget's warn, critical and limit).
#[derive(Debug, Clone)]
pub struct Mark {
    pub value: u64,
    pub label: String,
    pub colour: &'static str,
}

#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub title: String,
    /// What width and colour mean.
    pub subtitle: String,
    pub nodes: Vec<Node>,
    /// The top boxes, left to right.
    pub roots: Vec<usize>,
    pub legend: Vec<Swatch>,
    /// The value of the full width when more than the roots' sum (a budget's limit).
    pub scale: Option<u64>,
    pub marks: Vec<Mark>,
    /// Lines below the legend.
    pub notes: Vec<String>,
    /// Draw every box at least [`MIN_BOX`] pixels wide (widening the picture when a level needs
    /// it), marking those drawn wider than their weight, instead of leaving out the boxes too
    /// narrow to see. A picture of a frame tree must show every frame; a budget's thousands of
    /// tiny files need not.
    pub every_box: bool,
}

const WIDTH: f64 = 1200.0;
const PAD: f64 = 10.0;
const ROW: f64 = 18.0;
const TOP: f64 = 66.0;
/// Levels drawn; deeper boxes are left out with a note.
pub const MAX_LEVELS: usize = 256;
/// Boxes narrower than this many pixels at full view are left out with their subtrees.
const MIN_PIXELS: f64 = 0.5;
/// With [`Graph::every_box`]: the narrowest box drawn, wide enough to see and to hover.
pub const MIN_BOX: f64 = 4.0;
/// With [`Graph::every_box`]: the widest picture, in pixels between the margins; a tree with more
/// boxes side by side than fit is drawn as a budget is, its narrowest boxes left out.
const MAX_INNER: f64 = 64.0 * 1180.0;
/// Characters of a box's details kept for its tooltip.
const MAX_DETAILS: usize = 1000;
/// Approximate width of one character of the 12 px label font.
const CHAR: f64 = 7.0;

const SCRIPT: &str = include_str!("flamegraph.js");

/// Appends `text`, XML-escaped.
fn escape(text: &str, out: &mut String) {
    out.push_str(&xml_escape(text));
}

/// The first `max` characters of `text`, with `..` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(2)).collect();
    out.push_str("..");
    out
}

/// The label that fits a box of `width` pixels, if any does.
fn fitted(label: &str, width: f64) -> Option<String> {
    let chars = ((width - 6.0) / CHAR).floor();
    if chars < 3.0 {
        return None;
    }
    Some(cut(label.lines().next().unwrap_or(""), chars as usize))
}

/// Where the boxes go: in layout units, `scale` of them spanning `inner` pixels.
struct Layout {
    /// (node, left edge, level), tree order.
    placed: Vec<(usize, u64, usize)>,
    /// Each node's width in layout units.
    widths: Vec<u64>,
    scale: f64,
    inner: f64,
    /// Boxes left out for being too narrow, and for being too deep.
    narrow: usize,
    deep: usize,
    /// Nodes drawn wider than their weight (with [`Graph::every_box`]).
    unscaled: Vec<bool>,
}

/// Nodes from the roots in pre-order with their levels, down to [`MAX_LEVELS`]; and how many
/// boxes lie deeper.
fn preorder(graph: &Graph) -> (Vec<(usize, usize)>, usize) {
    let mut order = Vec::with_capacity(graph.nodes.len());
    let mut deep = 0;
    let mut stack: Vec<(usize, usize)> = graph.roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((node, level)) = stack.pop() {
        if level >= MAX_LEVELS {
            deep += subtree_size(graph, node);
            continue;
        }
        order.push((node, level));
        stack.extend(
            graph.nodes[node]
                .children
                .iter()
                .rev()
                .map(|&c| (c, level + 1)),
        );
    }
    (order, deep)
}

/// Widths by value: boxes narrower than [`MIN_PIXELS`] are left out with their subtrees.
fn proportional(graph: &Graph) -> Layout {
    let total: u64 = graph.roots.iter().map(|&r| graph.nodes[r].value).sum();
    let scale = graph.scale.unwrap_or(0).max(total).max(1) as f64;
    let inner = WIDTH - 2.0 * PAD;
    let px = |value: u64| value as f64 / scale * inner;

    let mut placed: Vec<(usize, u64, usize)> = Vec::new();
    let (mut narrow, mut deep) = (0usize, 0usize);
    let mut stack: Vec<(usize, u64, usize)> = Vec::new();
    let mut left = 0;
    for &root in &graph.roots {
        stack.push((root, left, 0));
        left += graph.nodes[root].value;
    }
    stack.reverse();
    while let Some((node, x, level)) = stack.pop() {
        let n = &graph.nodes[node];
        if px(n.value) < MIN_PIXELS || level >= MAX_LEVELS {
            let hidden = subtree_size(graph, node);
            if level >= MAX_LEVELS {
                deep += hidden;
            } else {
                narrow += hidden;
            }
            continue;
        }
        placed.push((node, x, level));
        let mut child_x = x;
        let mut children = Vec::with_capacity(n.children.len());
        for &child in &n.children {
            children.push((child, child_x, level + 1));
            child_x += graph.nodes[child].value;
        }
        stack.extend(children.into_iter().rev());
    }
    Layout {
        placed,
        widths: graph.nodes.iter().map(|n| n.value).collect(),
        scale,
        inner,
        narrow,
        deep,
        unscaled: vec![false; graph.nodes.len()],
    }
}

/// Widths by value, but none under [`MIN_BOX`] pixels, a parent at least as wide as its
/// children: `None` when the boxes side by side need more than [`MAX_INNER`] pixels.
///
/// At `s` pixels per unit of value a box is `max(s × value, MIN_BOX, its children's widths)`
/// wide; the picture's width grows with `s`, and the largest `s` whose picture fits is found by
/// bisection. Boxes not widened keep their proportions exactly.
fn every_box(graph: &Graph) -> Option<Layout> {
    let (order, deep) = preorder(graph);
    let drawn = |level: usize| level < MAX_LEVELS;
    let widths_at = |s: f64| -> (Vec<f64>, f64) {
        let mut w = vec![0.0f64; graph.nodes.len()];
        for &(node, level) in order.iter().rev() {
            let n = &graph.nodes[node];
            let children: f64 = if drawn(level + 1) {
                n.children.iter().map(|&c| w[c]).sum()
            } else {
                0.0
            };
            w[node] = (s * n.value as f64).max(MIN_BOX).max(children);
        }
        let total = graph.roots.iter().map(|&r| w[r]).sum();
        (w, total)
    };
    let (_, least) = widths_at(0.0);
    if least > MAX_INNER {
        return None;
    }
    // Room for the proportions: the default width, or twice what the smallest boxes need.
    let inner = if least <= (WIDTH - 2.0 * PAD) / 2.0 {
        WIDTH - 2.0 * PAD
    } else {
        (2.0 * least).min(MAX_INNER)
    };
    let total_value: u64 = graph.roots.iter().map(|&r| graph.nodes[r].value).sum();
    let (mut lo, mut hi) = (0.0f64, inner / total_value.max(1) as f64);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if widths_at(mid).1 <= inner {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (w, total) = widths_at(lo);
    let stretch = inner / total.max(f64::MIN_POSITIVE);
    // Integer thousandths of a pixel, so that children always fit their parent exactly.
    let mut units = vec![0u64; graph.nodes.len()];
    let mut unscaled = vec![false; graph.nodes.len()];
    for &(node, level) in order.iter().rev() {
        let n = &graph.nodes[node];
        let children: u64 = if drawn(level + 1) {
            n.children.iter().map(|&c| units[c]).sum()
        } else {
            0
        };
        units[node] = ((stretch * w[node] * 1000.0).round() as u64).max(children);
        unscaled[node] = stretch * (w[node] - lo * n.value as f64) > 0.5;
    }
    let mut placed = Vec::with_capacity(order.len());
    let mut lefts = vec![0u64; graph.nodes.len()];
    let mut left = 0;
    for &root in &graph.roots {
        lefts[root] = left;
        left += units[root];
    }
    for &(node, level) in &order {
        placed.push((node, lefts[node], level));
        let mut x = lefts[node];
        for &child in &graph.nodes[node].children {
            lefts[child] = x;
            x += units[child];
        }
    }
    Some(Layout {
        placed,
        widths: units,
        scale: left.max(1) as f64,
        inner,
        narrow: 0,
        deep,
        unscaled,
    })
}

/// Draws `graph`.
pub fn svg(graph: &Graph) -> String {
    let mut notes = graph.notes.clone();
    let layout = match graph.every_box.then(|| every_box(graph)) {
        Some(Some(layout)) => layout,
        Some(None) => {
            notes.push(format!(
                "too many boxes side by side to draw each {MIN_BOX} px wide: widths by weight"
            ));
            proportional(graph)
        }
        None => proportional(graph),
    };
    let Layout {
        placed,
        widths,
        scale,
        inner,
        narrow,
        deep,
        unscaled,
    } = layout;
    let width = inner + 2.0 * PAD;
    let px = |value: u64| value as f64 / scale * inner;
    let levels = placed.iter().map(|p| p.2 + 1).max().unwrap_or(0);

    let widened = placed.iter().filter(|p| unscaled[p.0]).count();
    if widened > 0 {
        notes.push(format!(
            "{widened} {} drawn wider than {} weight, so that every frame shows: dashed, \
             not to scale (its details say its weight)",
            if widened == 1 { "box" } else { "boxes" },
            if widened == 1 { "its" } else { "their" }
        ));
    }
    if narrow > 0 {
        notes.push(format!(
            "{narrow} {} too narrow to draw left out; draw a branch alone to see them",
            if narrow == 1 { "box" } else { "boxes" }
        ));
    }
    if deep > 0 {
        notes.push(format!(
            "{deep} {} below level {MAX_LEVELS} left out; draw a deeper branch alone to see them",
            if deep == 1 { "box" } else { "boxes" }
        ));
    }
    let graph_bottom = TOP + levels as f64 * ROW;
    let legend_y = graph_bottom + 28.0;
    let details_y = legend_y + 26.0;
    let height = details_y + 10.0 + notes.len() as f64 * 16.0 + 8.0;

    let mut out = String::with_capacity(placed.len() * 320 + 8192);
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{width}\" \
         height=\"{height:.0}\" viewBox=\"0 0 {width} {height:.0}\" \
         font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"12\" \
         data-scale=\"{scale}\" data-pad=\"{PAD}\" data-char=\"{CHAR}\">\n"
    );
    out.push_str(
        "<style>\
         .box rect{stroke:#fff;stroke-width:0.5}\
         .box.unscaled rect{stroke:#333;stroke-width:1;stroke-dasharray:3,2}\
         .box.marked rect{stroke:#000;stroke-width:2}\
         .box:hover rect,.box:focus rect{stroke:#000;stroke-width:1.5}\
         .box:focus{outline:none}\
         .box.match rect{fill:#e040fb}\
         .box text{pointer-events:none;fill:#000}\
         .button{cursor:pointer;fill:#335}\
         .hidden{display:none}\
         </style>\n",
    );
    out.push_str("<rect width=\"100%\" height=\"100%\" fill=\"#fdfcf7\"/>\n");
    out.push_str("<text x=\"600\" y=\"22\" text-anchor=\"middle\" font-size=\"17\">");
    escape(&graph.title, &mut out);
    out.push_str("</text>\n<text x=\"600\" y=\"40\" text-anchor=\"middle\" fill=\"#555\">");
    escape(&graph.subtitle, &mut out);
    out.push_str("</text>\n");
    let _ = writeln!(
        out,
        "<text id=\"reset\" class=\"button hidden\" x=\"{PAD}\" y=\"58\" tabindex=\"0\">\
         Reset zoom</text>\n\
         <text id=\"search\" class=\"button\" x=\"{}\" y=\"58\" text-anchor=\"end\" \
         tabindex=\"0\">Search</text>\n\
         <text id=\"matched\" x=\"{}\" y=\"{:.0}\" text-anchor=\"end\"></text>",
        width - PAD,
        width - PAD,
        details_y
    );

    out.push_str("<g id=\"boxes\">\n");
    for &(node, x, level) in &placed {
        let n = &graph.nodes[node];
        let (left, box_width) = (PAD + px(x), px(widths[node]));
        let y = TOP + level as f64 * ROW;
        let _ = write!(
            out,
            "<g class=\"box{}{}\" tabindex=\"0\" data-x=\"{}\" data-w=\"{}\" data-d=\"{level}\"",
            if n.marked { " marked" } else { "" },
            if unscaled[node] { " unscaled" } else { "" },
            x,
            widths[node]
        );
        if graph.every_box {
            // The layout's units are not the weight: the weight itself, for scripts and tests.
            let _ = write!(out, " data-v=\"{}\"", n.value);
        }
        // The script redraws a label from the details' first line, unless it is something else.
        let label = n.label.lines().next().unwrap_or("");
        if n.details.lines().next() != Some(label) {
            out.push_str(" data-label=\"");
            escape(&cut(label, MAX_DETAILS), &mut out);
            out.push('"');
        }
        out.push_str("><title>");
        escape(&cut(&n.details, MAX_DETAILS), &mut out);
        if unscaled[node] {
            out.push_str("\nnot to scale: drawn wider than its weight so that it shows");
        }
        let _ = write!(
            out,
            "</title><rect x=\"{left:.2}\" y=\"{y:.1}\" width=\"{box_width:.2}\" height=\"{:.1}\" \
             rx=\"2\" fill=\"{}\"/><text x=\"{:.2}\" y=\"{:.1}\">",
            ROW - 1.0,
            graph.legend[n.swatch].fill,
            left + 3.0,
            y + ROW - 5.0
        );
        if let Some(label) = fitted(&n.label, box_width) {
            escape(&label, &mut out);
        }
        out.push_str("</text></g>\n");
    }
    out.push_str("</g>\n");

    for mark in &graph.marks {
        let x = PAD + px(mark.value);
        let _ = write!(
            out,
            "<g class=\"mark\"><line x1=\"{x:.2}\" y1=\"{:.0}\" x2=\"{x:.2}\" y2=\"{:.0}\" stroke=\"{}\" \
             stroke-width=\"1.5\" stroke-dasharray=\"5,3\"/>\
             <text x=\"{:.2}\" y=\"{:.0}\" fill=\"{}\" text-anchor=\"end\">",
            TOP - 4.0,
            graph_bottom + 4.0,
            mark.colour,
            x - 3.0,
            graph_bottom + 16.0,
            mark.colour
        );
        escape(&mark.label, &mut out);
        out.push_str("</text></g>\n");
    }

    let mut legend_x = PAD;
    for swatch in &graph.legend {
        let _ = write!(
            out,
            "<rect x=\"{legend_x:.0}\" y=\"{:.0}\" width=\"14\" height=\"14\" rx=\"2\" fill=\"{}\"/>\
             <text x=\"{:.0}\" y=\"{:.0}\">",
            legend_y - 11.0,
            swatch.fill,
            legend_x + 19.0,
            legend_y
        );
        escape(&swatch.label, &mut out);
        out.push_str("</text>\n");
        legend_x += 19.0 + swatch.label.chars().count() as f64 * CHAR + 18.0;
    }
    let _ = writeln!(
        out,
        "<text id=\"details\" x=\"{PAD}\" y=\"{details_y:.0}\" fill=\"#333\">\
         Hover or focus a box for its details; click it to zoom.</text>"
    );
    for (i, note) in notes.iter().enumerate() {
        let _ = write!(
            out,
            "<text class=\"note\" x=\"{PAD}\" y=\"{:.0}\" fill=\"#666\">",
            details_y + 20.0 + i as f64 * 16.0
        );
        escape(note, &mut out);
        out.push_str("</text>\n");
    }
    out.push_str("<script type=\"text/ecmascript\"><![CDATA[\n");
    out.push_str(SCRIPT);
    out.push_str("]]></script>\n</svg>\n");
    out
}

/// `node` and its descendants.
fn subtree_size(graph: &Graph, node: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![node];
    while let Some(next) = stack.pop() {
        count += 1;
        stack.extend(&graph.nodes[next].children);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_cut_to_their_box() {
        assert_eq!(fitted("hello world", 200.0).as_deref(), Some("hello world"));
        assert_eq!(fitted("hello world", 50.0).as_deref(), Some("hell.."));
        assert_eq!(fitted("hello", 20.0), None);
        assert_eq!(fitted("first\nsecond", 500.0).as_deref(), Some("first"));
    }
}

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
}

const WIDTH: f64 = 1200.0;
const PAD: f64 = 10.0;
const ROW: f64 = 18.0;
const TOP: f64 = 66.0;
/// Levels drawn; deeper boxes are left out with a note.
pub const MAX_LEVELS: usize = 256;
/// Boxes narrower than this many pixels at full view are left out with their subtrees.
const MIN_PIXELS: f64 = 0.5;
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

/// Draws `graph`.
pub fn svg(graph: &Graph) -> String {
    let total: u64 = graph.roots.iter().map(|&r| graph.nodes[r].value).sum();
    let scale = graph.scale.unwrap_or(0).max(total).max(1) as f64;
    let inner = WIDTH - 2.0 * PAD;
    let px = |value: u64| value as f64 / scale * inner;

    // Place the boxes: (node, left edge in value units, level), tree order.
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
    let levels = placed.iter().map(|p| p.2 + 1).max().unwrap_or(0);

    let mut notes = graph.notes.clone();
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
         <svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{WIDTH}\" \
         height=\"{height:.0}\" viewBox=\"0 0 {WIDTH} {height:.0}\" \
         font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"12\" \
         data-scale=\"{scale}\" data-pad=\"{PAD}\" data-char=\"{CHAR}\">\n"
    );
    out.push_str(
        "<style>\
         .box rect{stroke:#fff;stroke-width:0.5}\
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
        WIDTH - PAD,
        WIDTH - PAD,
        details_y
    );

    out.push_str("<g id=\"boxes\">\n");
    for &(node, x, level) in &placed {
        let n = &graph.nodes[node];
        let (left, width) = (PAD + px(x), px(n.value));
        let y = TOP + level as f64 * ROW;
        let _ = write!(
            out,
            "<g class=\"box{}\" tabindex=\"0\" data-x=\"{}\" data-w=\"{}\" data-d=\"{level}\"",
            if n.marked { " marked" } else { "" },
            x,
            n.value
        );
        // The script redraws a label from the details' first line, unless it is something else.
        let label = n.label.lines().next().unwrap_or("");
        if n.details.lines().next() != Some(label) {
            out.push_str(" data-label=\"");
            escape(&cut(label, MAX_DETAILS), &mut out);
            out.push('"');
        }
        out.push_str("><title>");
        escape(&cut(&n.details, MAX_DETAILS), &mut out);
        let _ = write!(
            out,
            "</title><rect x=\"{left:.2}\" y=\"{y:.1}\" width=\"{width:.2}\" height=\"{:.1}\" \
             rx=\"2\" fill=\"{}\"/><text x=\"{:.2}\" y=\"{:.1}\">",
            ROW - 1.0,
            graph.legend[n.swatch].fill,
            left + 3.0,
            y + ROW - 5.0
        );
        if let Some(label) = fitted(&n.label, width) {
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

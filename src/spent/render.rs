//! `ctx budget spent` for people: one line per row, the cost and tokens first (aligned), then
//! the frame, session, model or day; a total line; marks for estimated and unknown costs.

use unicode_width::UnicodeWidthStr;

use super::doc::{FiguresDoc, RowDoc, SpentDoc};
use crate::text::{fit_width, visible_line};

/// `$0.0152`, `$0.0000`, `$12.40`; `~` before a cost that holds estimates (of $0 too), `+?`
/// after one that misses unpriced calls; `unknown` when nothing had a price; `-` for no calls.
pub fn cost(f: &FiguresDoc) -> String {
    if f.calls == 0 {
        return "-".to_string();
    }
    let Some(usd) = f.cost else {
        return "unknown".to_string();
    };
    let amount = if usd >= 1.0 {
        format!("${usd:.2}")
    } else {
        format!("${usd:.4}")
    };
    let tilde = if f.estimated_calls > 0 { "~" } else { "" };
    let unknown = if f.unpriced_calls > 0 { "+?" } else { "" };
    format!("{tilde}{amount}{unknown}")
}

/// `950`, `12.3k`, `4.56M`.
pub fn tokens(n: u64) -> String {
    match n {
        0..1000 => n.to_string(),
        1000..999_950 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

const COST_WIDTH: usize = 11;
const TOKENS_WIDTH: usize = 7;

/// The whole report for a terminal of `width` columns.
pub fn text(doc: &SpentDoc, width: usize) -> String {
    let mut out = String::new();
    let heading = match doc.by {
        "frame" => "FRAME (with everything below it)",
        "session" => "SESSION (with its subagents)",
        "model" => "MODEL",
        _ => "DAY (UTC)",
    };
    out.push_str(&format!(
        "{:>COST_WIDTH$} {:>TOKENS_WIDTH$}  {heading}\n",
        "COST", "TOKENS"
    ));
    let room = width.saturating_sub(COST_WIDTH + TOKENS_WIDTH + 3);
    // Ids as the frame tree shows them: the shortest unique prefix (rows have distinct keys).
    let keys: Vec<&str> = doc.rows.iter().map(|r| r.key.as_str()).collect();
    let short = crate::frame::id::abbreviations_in_order(&keys);
    for (row, id) in doc.rows.iter().zip(short) {
        out.push_str(&line(&row.total, &label(row, id, room)));
    }
    if let Some(unattributed) = doc.unattributed.as_ref().filter(|u| u.calls > 0) {
        out.push_str(&line(unattributed, "(in no frame)"));
    }
    if doc.rows.is_empty() && doc.unattributed.as_ref().is_none_or(|u| u.calls == 0) {
        out.push_str("(no model calls)\n");
    }
    let t = &doc.total.tokens;
    out.push_str(&format!(
        "\ntotal: {} · {} tokens · {} calls\n  input {}, output {}, reasoning {}, cache read {}, cache write {}\n",
        cost(&doc.total),
        t.total,
        doc.total.calls,
        t.input,
        t.output,
        t.reasoning,
        t.cache_read,
        t.cache_write,
    ));
    let mut notes = Vec::new();
    if doc.total.estimated_calls > 0 {
        notes.push("~ priced by ctx from OpenCode's models.dev cache (the agent recorded 0)");
    }
    if doc.total.unpriced_calls > 0 {
        notes.push("+? or unknown: calls on models with no recorded cost and no known price");
    }
    for note in notes {
        out.push_str(note);
        out.push('\n');
    }
    out
}

fn line(figures: &FiguresDoc, label: &str) -> String {
    format!(
        "{:>COST_WIDTH$} {:>TOKENS_WIDTH$}  {label}\n",
        cost(figures),
        tokens(figures.tokens.total)
    )
}

/// A row's label: frames and sessions indented by depth, with their short id.
fn label(row: &RowDoc, id: &str, room: usize) -> String {
    let indent = "  ".repeat(row.depth.unwrap_or(0).min(12));
    let Some(text) = row.label.as_deref() else {
        return fit_width(&visible_line(&row.key), room, "…");
    };
    let text = visible_line(text.lines().next().unwrap_or(""));
    let status = row
        .status
        .map(|s| format!("{} ", icon(s)))
        .unwrap_or_default();
    let fixed = indent.len() + status.width() + id.width() + 3;
    let goal = fit_width(&text, room.saturating_sub(fixed), "…");
    format!("{indent}{status}{goal} ({id})")
}

fn icon(status: &str) -> &'static str {
    crate::frame::state::Status::parse(status)
        .map(|s| crate::frame::render::icon(s, false))
        .unwrap_or("?")
}

//! Human output of `ctx budget`: a summary, a usage bar, the largest files and folders.

use std::collections::BTreeMap;

use super::doc::{EstimateDoc, ItemDoc, ModelsDoc};
use crate::text::fit_width;
use crate::text::visible_line;

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Bytes for people: `512 B`, `1.5 KB`, `12.3 MB` (powers of 1000).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1000 {
        return format!("{n} B");
    }
    let mut value = n as f64;
    let mut unit = "B";
    for u in UNITS {
        if value < 1000.0 {
            break;
        }
        value /= 1000.0;
        unit = u;
    }
    format!("{value:.1} {unit}")
}

fn percent(share: f64) -> String {
    if share.is_finite() {
        format!("{:.1}%", share * 100.0)
    } else {
        "∞%".to_string()
    }
}

/// `[#####-----]` of `width` cells inside the brackets, `!` past 100 %.
fn bar(usage: f64, width: usize) -> String {
    let filled = if usage.is_finite() {
        ((usage.clamp(0.0, 1.0) * width as f64).round() as usize).min(width)
    } else {
        width
    };
    let fill = if usage > 1.0 { '!' } else { '#' };
    let mut out = String::from("[");
    out.extend(std::iter::repeat_n(fill, filled));
    out.extend(std::iter::repeat_n('-', width - filled));
    out.push(']');
    out
}

/// What the tokenizer name means, for people.
fn tokenizer_note(doc: &EstimateDoc) -> String {
    let what = super::tokenizer::about_name(&doc.tokenizer);
    let exact = if doc.exact { "exact" } else { "an estimate" };
    format!("{}: {exact} ({what})", doc.tokenizer)
}

/// The whole human report, lines of at most `width` columns (`width` ≥ 40).
pub fn estimate(doc: &EstimateDoc, top: usize, width: usize) -> String {
    let width = width.max(40);
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&fit_width(&text, width, "…"));
        out.push('\n');
    };
    let model = doc.model.as_deref().unwrap_or("no model");
    line(format!(
        "{} tokens, {} of {} context tokens ({model}): {}",
        thousands(doc.total_tokens),
        percent(doc.usage),
        thousands(doc.limit.context),
        doc.level
    ));
    let bar_width = width.saturating_sub(36).clamp(10, 50);
    line(format!(
        "{} warn {} critical {}",
        bar(doc.usage, bar_width),
        percent(doc.thresholds.warn),
        percent(doc.thresholds.critical)
    ));
    line(format!("tokenizer  {}", tokenizer_note(doc)));
    let mut limit = format!("limit      {} context", thousands(doc.limit.context));
    if let Some(input) = doc.limit.input {
        limit.push_str(&format!(", {} input", thousands(input)));
    }
    if let Some(output) = doc.limit.output {
        limit.push_str(&format!(", {} output", thousands(output)));
    }
    limit.push_str(&format!(" ({})", doc.limit.source));
    // OpenCode compacts a model's session; without a model there is nothing to say about it.
    if doc.model.is_some() {
        if doc.limit.usable > 0 {
            limit.push_str(&format!("; compacts at {}", thousands(doc.limit.usable)));
        } else {
            // OpenCode keeps room for a reply (up to 32,000 tokens) below the window; a window
            // no larger than that leaves none for the conversation ("compacts at 0").
            limit.push_str("; compacts after every reply");
        }
    }
    line(limit);
    let mut inputs = format!(
        "inputs     {} {}, {}",
        thousands(doc.files),
        if doc.files == 1 { "file" } else { "files" },
        human_bytes(doc.bytes)
    );
    if !doc.skipped.is_empty() {
        inputs.push_str(&format!("; {} skipped", doc.skipped.len()));
    }
    line(inputs);
    if let Some(session) = &doc.session {
        let recorded = match session.recorded_tokens {
            Some(n) => format!("OpenCode recorded {} on the last reply", thousands(n)),
            None => "no finished reply recorded".to_string(),
        };
        line(format!(
            "session    {}, {} messages",
            session.id,
            thousands(session.messages)
        ));
        line(format!(
            "           {} tokens counted; {recorded}",
            thousands(session.tokens)
        ));
    }

    let number_width = 11;
    let table = |title: &str, rows: &[(String, u64, u64)], out: &mut String| {
        if rows.is_empty() {
            return;
        }
        let path_width = width.saturating_sub(2 + 2 * (number_width + 1));
        out.push('\n');
        out.push_str(&format!(
            "{title:<pw$} {:>nw$} {:>nw$}\n",
            "tokens",
            "bytes",
            pw = path_width + 2,
            nw = number_width
        ));
        for (path, tokens, bytes) in rows.iter().take(top) {
            let path = fit_width(&visible_line(path), path_width, "…");
            let pad =
                path_width.saturating_sub(unicode_width::UnicodeWidthStr::width(path.as_str()));
            out.push_str(&format!(
                "  {path}{} {:>nw$} {:>nw$}\n",
                " ".repeat(pad),
                thousands(*tokens),
                human_bytes(*bytes),
                nw = number_width
            ));
        }
        if rows.len() > top {
            out.push_str(&format!("  … {} more\n", rows.len() - top));
        }
    };
    if top > 0 {
        let files: Vec<_> = doc
            .items
            .iter()
            .map(|i| (i.path.clone(), i.tokens, i.bytes))
            .collect();
        table("largest files", &files, &mut out);
        let folders = folders(&doc.items);
        if folders.len() > 1 {
            table("largest folders", &folders, &mut out);
        }
    }
    if !doc.skipped.is_empty() {
        out.push_str("\nskipped\n");
        for skipped in doc.skipped.iter().take(top.max(1)) {
            let text = format!(
                "  {}: {}",
                visible_line(&skipped.path),
                visible_line(&skipped.reason)
            );
            out.push_str(&fit_width(&text, width, "…"));
            out.push('\n');
        }
        if doc.skipped.len() > top.max(1) {
            out.push_str(&format!("  … {} more\n", doc.skipped.len() - top.max(1)));
        }
    }
    out
}

/// Token and byte totals of every folder holding counted files, largest first. A folder whose
/// files all sit in one subfolder lists that subfolder only by its own name: `src/billing/` with
/// exactly the totals of `src/` says nothing new, and is left out.
fn folders(items: &[ItemDoc]) -> Vec<(String, u64, u64)> {
    let mut totals: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for item in items {
        let mut path = item.path.as_str();
        while let Some(cut) = path.rfind('/') {
            path = &path[..cut];
            if path.is_empty() {
                break;
            }
            let entry = totals.entry(format!("{path}/")).or_default();
            entry.0 += item.tokens;
            entry.1 += item.bytes;
        }
    }
    let parent_totals = |path: &str| {
        let inner = path.trim_end_matches('/');
        inner
            .rfind('/')
            .and_then(|cut| totals.get(&inner[..=cut]))
            .copied()
    };
    let mut rows: Vec<_> = totals
        .iter()
        .filter(|(path, sums)| parent_totals(path) != Some(**sums))
        .map(|(p, (t, b))| (p.clone(), *t, *b))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    rows
}

/// `ctx budget models` for people: one group per provider and source.
pub fn models(doc: &ModelsDoc, width: usize) -> String {
    let width = width.max(60);
    let model_width = width - 2 - 4 * 10;
    let opt = |n: Option<u64>| n.map_or("-".to_string(), thousands);
    let mut out = format!(
        "{:<mw$} {:>9} {:>9} {:>9} {:>9}\n",
        "model",
        "context",
        "input",
        "output",
        "compacts",
        mw = model_width + 2
    );
    let mut group = String::new();
    for row in doc.models.iter().chain([&doc.default]) {
        let (provider, id) = row.model.split_once('/').unwrap_or(("", &row.model));
        let header = if provider.is_empty() {
            format!("({})", row.source)
        } else {
            format!("{provider} ({})", row.source)
        };
        if header != group {
            out.push_str(&header);
            out.push('\n');
            group = header;
        }
        let id = fit_width(id, model_width, "…");
        let pad = model_width.saturating_sub(unicode_width::UnicodeWidthStr::width(id.as_str()));
        out.push_str(&format!(
            "  {id}{} {:>9} {:>9} {:>9} {:>9}\n",
            " ".repeat(pad),
            thousands(row.context),
            opt(row.input),
            opt(row.output),
            thousands(row.usable),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_that_only_repeat_their_parent_are_left_out() {
        let item = |path: &str, tokens| ItemDoc {
            path: path.into(),
            tokens,
            bytes: tokens * 4,
        };
        let items = [
            item("app/src/billing/a.rs", 50),
            item("app/src/billing/webhook/b.rs", 30),
            item("app/src/billing/webhook/c.rs", 20),
            item("app/README.md", 10),
            item("top.md", 5),
        ];
        let names: Vec<(String, u64)> = folders(&items)
            .into_iter()
            .map(|(path, tokens, _)| (path, tokens))
            .collect();
        // app/src/ and app/src/billing/ hold exactly what app/src/ holds: only app/src/ is listed.
        assert_eq!(
            names,
            [
                ("app/".to_string(), 110),
                ("app/src/".to_string(), 100),
                ("app/src/billing/webhook/".to_string(), 50),
            ]
        );
    }

    #[test]
    fn numbers_for_people() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(1500), "1.5 KB");
        assert_eq!(human_bytes(2_000_000_000), "2.0 GB");
        assert_eq!(bar(0.5, 10), "[#####-----]");
        assert_eq!(bar(1.5, 4), "[!!!!]");
    }
}

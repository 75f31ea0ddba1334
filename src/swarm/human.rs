//! `ctx swarm`'s views for people: the tables and lines of `--format human`, made from what was
//! read, for a page of a given width. Text from a file shows nothing that acts on a terminal
//! (`crate::text`), and every line stays within the width (80 columns in pipes). Pure: the
//! adapter (`commands::swarm`) reads, chooses the format and writes.

use comfy_table::{Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};
use serde_json::{Map, Value};
use unicode_width::UnicodeWidthStr;

use super::config::Agent;
use super::doc::{ConfigFileDoc, Counts};
use super::evidence::{self, Bundle};
use super::five::Check;
use super::model::{Phase, PhaseStatus, Plan, TaskStatus};
use super::text;
use crate::output::Style;
use crate::text::visible_line;

/// Where the view goes: its width in columns, and whether it is painted in colour.
pub struct Page {
    pub width: usize,
    pub color: bool,
}

impl Page {
    fn paint(&self, style: Style, text: &str) -> String {
        crate::output::paint(self.color, style, text)
    }

    /// `text` cut with `…` to fit the width once `reserved` columns are taken by the rest of its
    /// line.
    fn fit(&self, text: &str, reserved: usize) -> String {
        let text = visible_line(text);
        crate::text::fit_width(&text, self.width.saturating_sub(reserved), "…")
    }

    fn table(&self, header: &[&str]) -> Table {
        let mut table = Table::new();
        table
            .load_preset(comfy_table::presets::NOTHING)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(u16::try_from(self.width.min(200)).unwrap_or(80))
            .set_header(header.iter().map(|h| Cell::new(self.paint(Style::Bold, h))));
        table
    }
}

/// `ctx swarm status`: the plan's title and `source`, the current phase and task, the whole
/// plan's counts with the roster's size, the phases' table, the blocked tasks, and `plugin`
/// (which version the view assumes, and why) when there is one to say.
pub fn status(
    page: &Page,
    plan: &Plan,
    source: &str,
    agents: usize,
    plugin: Option<&str>,
) -> String {
    let mut out = String::new();
    let title = page.fit(
        plan.title.as_deref().unwrap_or("Swarm plan"),
        2 + source.width(),
    );
    out.push_str(&format!(
        "{}  {}\n",
        page.paint(Style::Bold, &title),
        page.paint(Style::Dim, source)
    ));
    match plan.current_phase() {
        Some(phase) => {
            let counts = Counts::of(phase.tasks.iter());
            let head = format!("Current: phase {} of {}", phase.number, plan.phases.len());
            let tail = format!(
                " ({}): {}/{} tasks done{}",
                status_word(phase.status),
                counts.completed,
                counts.total,
                blocked_suffix(counts.blocked)
            );
            let name = if phase.name.is_empty() {
                String::new()
            } else {
                page.fit(&format!(", {}", phase.name), head.width() + tail.width())
            };
            out.push_str(&format!("{head}{name}{tail}\n"));
        }
        None => out.push_str("Current: no phase in progress\n"),
    }
    if let Some(task) = plan.current_task() {
        let id = task
            .id
            .as_deref()
            .map(|i| format!("{i} "))
            .unwrap_or_default();
        let status = match task.status {
            TaskStatus::InProgress => "in progress",
            _ => "next",
        };
        let tail = format!(" ({status})");
        let text = page.fit(&format!("Task: {id}{}", task.text), tail.width());
        out.push_str(&format!("{text}{tail}\n"));
    }
    let all = Counts::of(plan.tasks());
    out.push_str(&format!(
        "Whole plan: {}/{} tasks done{}; {} agents\n",
        all.completed,
        all.total,
        blocked_suffix(all.blocked),
        agents
    ));
    if !plan.phases.is_empty() {
        out.push('\n');
        out.push_str(&phase_table(page, plan));
        out.push('\n');
    }
    let blocked: Vec<_> = plan
        .tasks()
        .filter(|t| t.status == TaskStatus::Blocked)
        .collect();
    if !blocked.is_empty() {
        out.push_str(&format!("\n{}\n", page.paint(Style::Red, "Blocked:")));
        for task in blocked {
            let id = task
                .id
                .as_deref()
                .map(|i| format!("{i} "))
                .unwrap_or_default();
            out.push_str(&page.fit(&format!("  {id}{}", task.text), 0));
            out.push('\n');
        }
    }
    if let Some(plugin) = plugin {
        out.push_str(&format!(
            "\n{}\n",
            page.paint(Style::Dim, &page.fit(plugin, 0))
        ));
    }
    out
}

fn blocked_suffix(blocked: usize) -> String {
    if blocked == 0 {
        String::new()
    } else {
        format!(", {blocked} blocked")
    }
}

fn phase_title(phase: &Phase) -> String {
    if phase.name.is_empty() {
        format!("Phase {}", phase.number)
    } else {
        format!("Phase {}: {}", phase.number, phase.name)
    }
}

fn status_word(status: PhaseStatus) -> &'static str {
    match status {
        PhaseStatus::Pending => "pending",
        PhaseStatus::InProgress => "in progress",
        PhaseStatus::Complete => "complete",
        PhaseStatus::Blocked => "blocked",
    }
}

/// A ten-cell progress bar; plain characters, so pipes get the same text.
fn bar(done: usize, total: usize) -> String {
    if total == 0 {
        return String::new();
    }
    let filled = (done * 10 + total / 2) / total;
    format!("{}{}", "#".repeat(filled), ".".repeat(10 - filled))
}

/// Cells longer than this are cut, with `…`: comfy-table overflows on a cell 64 K columns wide,
/// and a name that long is unreadable in a table anyway.
const MAX_CELL_CHARS: usize = 256;

/// A cell for text from a file (a phase name, an agent or model name).
fn text_cell(text: &str) -> Cell {
    let text = visible_line(text);
    let text = text.as_ref();
    match text.char_indices().nth(MAX_CELL_CHARS) {
        Some((cut, _)) => Cell::new(format!("{}…", &text[..cut])),
        None => Cell::new(text),
    }
}

/// `ctx swarm history`, and the table of `status`: a row a phase, the current one marked.
pub fn phase_table(page: &Page, plan: &Plan) -> String {
    let mut table = page.table(&["#", "Phase", "Status", "Done", "Progress"]);
    for phase in &plan.phases {
        let counts = Counts::of(phase.tasks.iter());
        let current = plan.current == Some(phase.number);
        let marker = if current { "→ " } else { "" };
        table.add_row(vec![
            Cell::new(format!("{marker}{}", phase.number)).set_alignment(CellAlignment::Right),
            text_cell(if phase.name.is_empty() {
                "-"
            } else {
                &phase.name
            }),
            Cell::new(status_word(phase.status)),
            Cell::new(format!("{}/{}", counts.completed, counts.total))
                .set_alignment(CellAlignment::Right),
            Cell::new(bar(counts.completed, counts.total)),
        ]);
    }
    if let Some(column) = table.column_mut(1) {
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(8)));
    }
    trim_lines(&table.to_string())
}

/// comfy-table pads every cell; trailing spaces are noise in a terminal and in diffs.
fn trim_lines(text: &str) -> String {
    text.lines()
        .map(|l| l.trim_end().strip_prefix(' ').unwrap_or(l.trim_end()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `ctx swarm plan`: each phase's title and counts, then its tasks with their marks, sizes and
/// dependencies.
pub fn plan(page: &Page, phases: &[&Phase]) -> String {
    let mut out = String::new();
    for (i, phase) in phases.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let counts = Counts::of(phase.tasks.iter());
        let tail = format!(
            "  {} {}/{}",
            status_word(phase.status),
            counts.completed,
            counts.total
        );
        let title = page.fit(&phase_title(phase), tail.width());
        out.push_str(&format!("{}{tail}\n", page.paint(Style::Bold, &title)));
        for task in &phase.tasks {
            let (mark, style) = match task.status {
                TaskStatus::Completed => ("[x]", Style::Green),
                TaskStatus::InProgress => ("[>]", Style::Cyan),
                TaskStatus::Blocked => ("[!]", Style::Red),
                TaskStatus::Pending => ("[ ]", Style::Dim),
            };
            let id = task
                .id
                .as_deref()
                .map(|i| format!("{i} "))
                .unwrap_or_default();
            let mut extra = String::new();
            if let Some(size) = &task.size {
                extra.push_str(&format!(" ({size})"));
            }
            if !task.depends.is_empty() {
                extra.push_str(&format!(" after {}", task.depends.join(", ")));
            }
            // The text keeps at least half the room; the size and dependencies get the rest.
            let room = page.width.saturating_sub(6);
            let text = page.fit(
                &format!("{id}{}", task.text),
                6 + extra.width().min(room / 2),
            );
            let extra = page.fit(&extra, 6 + text.width());
            let line = format!(
                "  {} {text}{}",
                page.paint(style, mark),
                page.paint(Style::Dim, &extra)
            );
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// `ctx swarm agents`: a row an agent of `roster` (not empty), with its guardrail limits when
/// the config has `profiles`.
pub fn agents(page: &Page, roster: &[Agent], profiles: Option<&Map<String, Value>>) -> String {
    let mut header = vec!["Agent", "Model", "Temp", "Access"];
    if profiles.is_some() {
        header.push("Limits");
    }
    let mut table = page.table(&header);
    for agent in roster {
        let mut row = vec![
            text_cell(&agent.name),
            text_cell(&agent.model),
            Cell::new(
                agent
                    .temperature
                    .map_or_else(|| "-".to_string(), text::js_number),
            )
            .set_alignment(CellAlignment::Right),
            Cell::new(if agent.read_only {
                "read-only"
            } else {
                "read-write"
            }),
        ];
        if let Some(profiles) = profiles {
            row.push(text_cell(&match profiles.get(&agent.name) {
                Some(profile) => limits_for_people(profile),
                None => String::new(),
            }));
        }
        table.add_row(row);
    }
    // Names and models (up to 32 columns) stay whole; the limits wrap first.
    let widest = |of: fn(&Agent) -> &str| {
        roster
            .iter()
            .map(|a| of(a).width())
            .max()
            .unwrap_or(0)
            .min(32)
    };
    let widths = [widest(|a| &a.name), widest(|a| &a.model)];
    for (column, width) in widths.into_iter().enumerate() {
        if let Some(column) = table.column_mut(column) {
            // The bound counts the cell's padding, one column each side.
            let width = u16::try_from(width + 2).unwrap_or(34);
            column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(width)));
        }
    }
    trim_lines(&table.to_string())
}

/// A guardrail profile's limits, short: `600 tool calls, 60 min`.
fn limits_for_people(profile: &Value) -> String {
    let limits: Vec<String> = [
        ("max_tool_calls", " tool calls"),
        ("max_duration_minutes", " min"),
        ("max_repetitions", " repeats"),
        ("max_consecutive_errors", " errors in a row"),
        ("warning_threshold", " warning share"),
        ("idle_timeout_minutes", " min idle"),
    ]
    .iter()
    .filter_map(|(key, unit)| {
        let value = profile.get(*key)?.as_f64()?;
        Some(format!("{}{unit}", text::js_number(value)))
    })
    .collect();
    if limits.is_empty() {
        "own profile, no limits".to_string()
    } else {
        limits.join(", ")
    }
}

/// `ctx swarm evidence` without a task: a row a bundle of `rows` (not empty).
pub fn evidence_list(page: &Page, rows: &[(String, Bundle)]) -> String {
    let mut table = page.table(&["Task", "Entries", "Failed", "Last", "Updated"]);
    for (id, bundle) in rows {
        let [entries, failed, last, updated] = match bundle {
            Bundle::Valid(b) => {
                let entries = evidence::entries(b);
                let failed = entries
                    .iter()
                    .filter(|e| matches!(evidence::field(e, "verdict"), "fail" | "rejected"))
                    .count();
                let last = entries.last().map_or(String::new(), |e| {
                    format!(
                        "{}: {}",
                        evidence::field(e, "type"),
                        evidence::field(e, "verdict")
                    )
                });
                [
                    entries.len().to_string(),
                    failed.to_string(),
                    last,
                    evidence::field(b, "updated_at").to_string(),
                ]
            }
            Bundle::Absent => [
                "?".into(),
                String::new(),
                String::new(),
                "no evidence.json".into(),
            ],
            Bundle::Unusable(_) => [
                "?".into(),
                String::new(),
                String::new(),
                "unreadable".into(),
            ],
        };
        table.add_row(vec![
            text_cell(id),
            Cell::new(entries).set_alignment(CellAlignment::Right),
            Cell::new(failed).set_alignment(CellAlignment::Right),
            text_cell(&last),
            text_cell(&updated),
        ]);
    }
    trim_lines(&table.to_string())
}

/// `ctx swarm diagnose`: a line a check, then how many passed; `plugin` says which version the
/// view assumes.
pub fn diagnose(page: &Page, checks: &[Check], plugin: &str) -> String {
    let mut out = format!(
        "{}  {}\n",
        page.paint(Style::Bold, "Swarm health"),
        page.paint(Style::Dim, &page.fit(plugin, 14))
    );
    let width = checks.iter().map(|c| c.name.width()).max().unwrap_or(0);
    for check in checks {
        let mark = if check.passed {
            page.paint(Style::Green, "ok  ")
        } else {
            page.paint(Style::Red, "FAIL")
        };
        let name = format!("{:width$}", check.name);
        let detail = page.fit(&check.detail, 9 + width);
        out.push_str(&format!("  {mark} {name}  {detail}\n"));
    }
    let passed = checks.iter().filter(|c| c.passed).count();
    out.push_str(&format!("{passed}/{} checks passed\n", checks.len()));
    out
}

/// `ctx swarm config`: the two config files and what became of each, then the merged config.
pub fn config(page: &Page, files: [ConfigFileDoc; 2], resolved: &Value, plugin: &str) -> String {
    let mut out = format!(
        "{}  {}\n",
        page.paint(Style::Bold, "opencode-swarm config"),
        page.paint(Style::Dim, &page.fit(plugin, 23))
    );
    for (label, doc) in ["User:   ", "Project:"].into_iter().zip(files) {
        out.push_str(&format!(
            "{label} {} ({})\n",
            visible_line(&doc.path),
            doc.state
        ));
    }
    out.push('\n');
    out.push_str(&visible_text(&text::json_stringify_pretty(resolved)));
    out.push('\n');
    out
}

/// Text from a file, each line made safe for a terminal.
pub fn visible_text(text: &str) -> String {
    text.lines()
        .map(|line| visible_line(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `ctx swarm evidence TASK`: the bundle's stamps, a table of its entries, then what reviews
/// and tests found.
pub fn bundle(page: &Page, task: &str, bundle: &Value) -> String {
    let entries = evidence::entries(bundle);
    let mut out = format!(
        "{}  {}\n",
        page.paint(
            Style::Bold,
            &page.fit(&format!("Evidence for task {task}"), 40)
        ),
        page.paint(
            Style::Dim,
            &format!(
                "created {}, updated {}",
                visible_line(evidence::field(bundle, "created_at")),
                visible_line(evidence::field(bundle, "updated_at"))
            )
        )
    );
    if entries.is_empty() {
        out.push_str("No entries.\n");
        return out;
    }
    let mut table = page.table(&["#", "Type", "Verdict", "Agent", "Summary"]);
    for (i, entry) in entries.iter().enumerate() {
        let verdict = evidence::field(entry, "verdict");
        let style = match verdict {
            "pass" | "approved" => Style::Green,
            "fail" | "rejected" => Style::Red,
            _ => Style::Dim,
        };
        table.add_row(vec![
            Cell::new(i + 1).set_alignment(CellAlignment::Right),
            Cell::new(evidence::field(entry, "type")),
            Cell::new(page.paint(style, verdict)),
            text_cell(evidence::field(entry, "agent")),
            text_cell(evidence::field(entry, "summary")),
        ]);
    }
    out.push_str(&trim_lines(&table.to_string()));
    out.push('\n');
    for (i, entry) in entries.iter().enumerate() {
        let kind = evidence::field(entry, "type");
        let mut details = Vec::new();
        match kind {
            "review" => {
                details.push(format!("risk {}", evidence::field(entry, "risk")));
                for issue in entry["issues"].as_array().into_iter().flatten() {
                    let place = match (issue["file"].as_str(), issue["line"].as_f64()) {
                        (Some(file), Some(line)) => format!(" ({file}:{})", text::js_number(line)),
                        (Some(file), None) => format!(" ({file})"),
                        _ => String::new(),
                    };
                    details.push(format!(
                        "{}: {}{place}",
                        evidence::field(issue, "severity"),
                        evidence::field(issue, "message")
                    ));
                }
            }
            "test" => {
                details.push(format!(
                    "{} passed, {} failed",
                    evidence::number(entry, "tests_passed"),
                    evidence::number(entry, "tests_failed")
                ));
                for failure in entry["failures"].as_array().into_iter().flatten() {
                    details.push(format!(
                        "failed: {}: {}",
                        evidence::field(failure, "name"),
                        evidence::field(failure, "message")
                    ));
                }
            }
            "diff" => {
                let files = entry["files_changed"].as_array().map_or(0, Vec::len);
                details.push(format!(
                    "{files} file(s), +{} -{}",
                    evidence::number(entry, "additions"),
                    evidence::number(entry, "deletions")
                ));
            }
            _ => {}
        }
        // The first detail heads the entry's block; the rest (issues, failures) follow indented.
        for (j, detail) in details.iter().enumerate() {
            let line = if j == 0 {
                out.push('\n');
                format!("Entry {} ({kind}): {detail}", i + 1)
            } else {
                format!("  {detail}")
            };
            out.push_str(&page.fit(&line, 0));
            out.push('\n');
        }
    }
    out
}

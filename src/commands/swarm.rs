//! `ctx swarm …`: reads `.swarm/` and opencode-swarm's config, prints markdown, human or JSON.
//! Nothing here opens a file for writing.

use unicode_width::UnicodeWidthStr;

use comfy_table::{Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};

use super::Context;
use crate::cli::swarm::{FormatArg, SwarmCommand, SwarmFormat};
use crate::document::Version;
use crate::error::{ExitCode, Result};
use crate::output::Style;
use crate::swarm::config::Agent;
use crate::swarm::doc::{
    AgentDoc, AgentsDoc, Counts, HistoryDoc, PhaseCounts, PhaseDoc, PlanDoc, StatusDoc,
};
use crate::swarm::files::{self, SwarmFiles};
use crate::swarm::model::{self, Phase, PhaseStatus, Plan, TaskStatus};
use crate::swarm::{markdown, text};
use crate::text::visible_line;

pub fn run(ctx: &mut Context, command: SwarmCommand) -> Result<ExitCode> {
    match command {
        SwarmCommand::Status(format) => status(ctx, format),
        SwarmCommand::Plan { phase, format } => plan(ctx, phase.as_deref(), format),
        SwarmCommand::Agents(format) => agents(ctx, format),
        SwarmCommand::History(format) => history(ctx, format),
    }
}

fn format_of(ctx: &Context, arg: &FormatArg) -> SwarmFormat {
    match arg.format {
        Some(format) => format,
        None if ctx.out.json => SwarmFormat::Json,
        None => SwarmFormat::Human,
    }
}

/// Reads the plan from `.swarm/`, noting on stderr each file there that could not be used.
fn read_files(ctx: &Context) -> SwarmFiles {
    noted(ctx, files::read_plan(&ctx.project.swarm_dir()))
}

/// Reads the plan and context.md from `.swarm/`, noting on stderr each file that could not be
/// used.
pub(super) fn read_files_with_context(ctx: &Context) -> SwarmFiles {
    noted(ctx, files::read_swarm_dir(&ctx.project.swarm_dir()))
}

fn noted(ctx: &Context, files: SwarmFiles) -> SwarmFiles {
    for note in &files.notes {
        ctx.out.note(note);
    }
    files
}

fn roster(ctx: &Context) -> Vec<Agent> {
    crate::swarm::config::roster(&ctx.swarm_config())
}

/// The structured plan behind the human and JSON views.
fn structured(files: &SwarmFiles) -> Option<Plan> {
    let plan = files.plan.as_ref()?;
    Some(match &plan.json {
        Some(json) => model::from_json(json),
        None => model::from_markdown(&plan.text),
    })
}

fn source_name(files: &SwarmFiles) -> Option<&'static str> {
    files.plan.as_ref().map(|p| p.source.file_name())
}

fn plan_text(files: &SwarmFiles) -> Option<&str> {
    files.plan.as_ref().map(|p| p.text.as_str())
}

fn status(ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
    let files = read_files(ctx);
    let roster = roster(ctx);
    match format_of(ctx, &format) {
        SwarmFormat::Markdown => ctx
            .out
            .contract_line(&markdown::status(plan_text(&files), roster.len()))?,
        SwarmFormat::Json => {
            let plan = structured(&files);
            ctx.out.json_doc(&StatusDoc::new(
                source_name(&files),
                plan.as_ref(),
                roster.len(),
            ))?
        }
        SwarmFormat::Human => {
            let Some(plan) = structured(&files) else {
                return no_plan(ctx);
            };
            let mut out = String::new();
            let source = format!("(.swarm/{})", source_name(&files).unwrap_or(""));
            let title = fit(
                ctx,
                plan.title.as_deref().unwrap_or("Swarm plan"),
                2 + source.width(),
            );
            out.push_str(&format!(
                "{}  {}\n",
                ctx.out.paint(Style::Bold, &title),
                ctx.out.paint(Style::Dim, &source)
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
                        fit(
                            ctx,
                            &format!(", {}", phase.name),
                            head.width() + tail.width(),
                        )
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
                let text = fit(ctx, &format!("Task: {id}{}", task.text), tail.width());
                out.push_str(&format!("{text}{tail}\n"));
            }
            let all = Counts::of(plan.tasks());
            out.push_str(&format!(
                "Whole plan: {}/{} tasks done{}; {} agents\n",
                all.completed,
                all.total,
                blocked_suffix(all.blocked),
                roster.len()
            ));
            if !plan.phases.is_empty() {
                out.push('\n');
                out.push_str(&phase_table(ctx, &plan));
                out.push('\n');
            }
            let blocked: Vec<_> = plan
                .tasks()
                .filter(|t| t.status == TaskStatus::Blocked)
                .collect();
            if !blocked.is_empty() {
                out.push_str(&format!("\n{}\n", ctx.out.paint(Style::Red, "Blocked:")));
                for task in blocked {
                    let id = task
                        .id
                        .as_deref()
                        .map(|i| format!("{i} "))
                        .unwrap_or_default();
                    out.push_str(&fit(ctx, &format!("  {id}{}", task.text), 0));
                    out.push('\n');
                }
            }
            ctx.out.write(&out)?;
        }
    }
    Ok(ExitCode::Success)
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

fn no_plan(ctx: &mut Context) -> Result<ExitCode> {
    ctx.out.line(markdown::NO_PLAN)?;
    ctx.out
        .note("opencode-swarm's architect writes .swarm/plan.md once a swarm starts planning");
    Ok(ExitCode::Success)
}

/// A ten-cell progress bar; plain characters, so pipes get the same text.
fn bar(done: usize, total: usize) -> String {
    if total == 0 {
        return String::new();
    }
    let filled = (done * 10 + total / 2) / total;
    format!("{}{}", "#".repeat(filled), ".".repeat(10 - filled))
}

fn new_table(ctx: &Context, header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(ctx.out.width.min(200)).unwrap_or(80))
        .set_header(
            header
                .iter()
                .map(|h| Cell::new(ctx.out.paint(Style::Bold, h))),
        );
    table
}

/// `text` cut with `…` to fit the output width once `reserved` columns are taken by the rest of
/// its line: human output stays within the terminal (80 columns in pipes).
/// Text from a file shows nothing that acts on a terminal (`crate::text`).
fn fit(ctx: &Context, text: &str, reserved: usize) -> String {
    let text = visible_line(text);
    crate::text::fit_width(&text, ctx.out.width.saturating_sub(reserved), "…")
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

fn phase_table(ctx: &Context, plan: &Plan) -> String {
    let mut table = new_table(ctx, &["#", "Phase", "Status", "Done", "Progress"]);
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

fn plan(ctx: &mut Context, phase: Option<&str>, format: FormatArg) -> Result<ExitCode> {
    let files = read_files(ctx);
    let format = format_of(ctx, &format);
    if format == SwarmFormat::Markdown {
        ctx.out
            .contract_line(&markdown::plan(plan_text(&files), phase))?;
        return Ok(ExitCode::Success);
    }
    let wanted = phase.filter(|p| !text::trim(p).is_empty());
    let number = wanted.and_then(text::js_parse_int);
    if let (Some(arg), None) = (wanted, number) {
        return Err(crate::error::Error::usage(format!(
            "`{arg}` is not a phase number"
        )));
    }
    let plan = structured(&files);
    let phases: Vec<&Phase> = plan
        .iter()
        .flat_map(|p| &p.phases)
        .filter(|p| number.is_none_or(|n| p.number == n))
        .collect();
    if let (Some(n), Some(_)) = (number, &plan)
        && phases.is_empty()
    {
        return Err(
            crate::error::Error::failure(format!("phase {n} is not in the plan"))
                .with_hint("`ctx swarm plan` lists every phase"),
        );
    }
    if format == SwarmFormat::Json {
        ctx.out.json_doc(&PlanDoc {
            version: Version,
            source: source_name(&files),
            phases: phases.iter().map(|p| PhaseDoc::new(p)).collect(),
        })?;
        return Ok(ExitCode::Success);
    }
    if plan.is_none() {
        return no_plan(ctx);
    }
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
        let title = fit(ctx, &phase_title(phase), tail.width());
        out.push_str(&format!("{}{tail}\n", ctx.out.paint(Style::Bold, &title)));
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
            let room = ctx.out.width.saturating_sub(6);
            let text = fit(
                ctx,
                &format!("{id}{}", task.text),
                6 + extra.width().min(room / 2),
            );
            let extra = fit(ctx, &extra, 6 + text.width());
            let line = format!(
                "  {} {text}{}",
                ctx.out.paint(style, mark),
                ctx.out.paint(Style::Dim, &extra)
            );
            out.push_str(&line);
            out.push('\n');
        }
    }
    ctx.out.write(&out)?;
    Ok(ExitCode::Success)
}

fn agents(ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
    let roster = roster(ctx);
    match format_of(ctx, &format) {
        SwarmFormat::Markdown => ctx.out.contract_line(&markdown::agents(&roster))?,
        SwarmFormat::Json => ctx.out.json_doc(&AgentsDoc {
            version: Version,
            agents: roster.iter().map(AgentDoc::new).collect(),
        })?,
        SwarmFormat::Human => {
            if roster.is_empty() {
                ctx.out.line("No agents registered.")?;
                return Ok(ExitCode::Success);
            }
            let mut table = new_table(ctx, &["Agent", "Model", "Temp", "Access"]);
            for agent in &roster {
                table.add_row(vec![
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
                ]);
            }
            ctx.out.line(&trim_lines(&table.to_string()))?;
        }
    }
    Ok(ExitCode::Success)
}

fn history(ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
    let files = read_files(ctx);
    match format_of(ctx, &format) {
        SwarmFormat::Markdown => ctx
            .out
            .contract_line(&markdown::history(plan_text(&files)))?,
        SwarmFormat::Json => {
            let plan = structured(&files);
            ctx.out.json_doc(&HistoryDoc {
                version: Version,
                source: source_name(&files),
                phases: plan
                    .iter()
                    .flat_map(|p| &p.phases)
                    .map(PhaseCounts::new)
                    .collect(),
            })?
        }
        SwarmFormat::Human => {
            let Some(plan) = structured(&files) else {
                return no_plan(ctx);
            };
            ctx.out.line(&phase_table(ctx, &plan))?;
        }
    }
    Ok(ExitCode::Success)
}

//! `ctx swarm …`: reads `.swarm/` and opencode-swarm's config, prints markdown, human or JSON.
//! Nothing here opens a file for writing.

use unicode_width::UnicodeWidthStr;

use comfy_table::{Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};

use crate::app::Context;
use crate::cli::swarm::{FormatArg, SwarmArgs, SwarmCommand, SwarmFormat};
use crate::document::Version;
use crate::error::{Error, ExitCode, Result};
use crate::output::Style;
use crate::settings;
use crate::swarm::config::Agent;
use crate::swarm::doc::{
    AgentDoc, AgentsDoc, BundleRow, ConfigFileDoc, Counts, DiagnoseDoc, EvidenceDoc,
    EvidenceListDoc, EvidenceOutput, ExportDoc, HistoryDoc, PhaseCounts, PhaseDoc, PlanDoc,
    PluginDoc, ProfileDoc, StatusDoc, SwarmConfigDoc,
};
use crate::swarm::evidence::{self, Bundle};
use crate::swarm::files::{self, LoadedConfig5, SwarmFiles};
use crate::swarm::five;
use crate::swarm::model::{self, Phase, PhaseStatus, Plan, TaskStatus};
use crate::swarm::version::{self, Assumed, PluginVersion};
use crate::swarm::{markdown, text};
use crate::text::visible_line;

pub fn run(ctx: &mut Context, args: SwarmArgs) -> Result<ExitCode> {
    let flag = args
        .swarm_version
        .map(|v| toml::Value::String(v.setting().to_string()));
    let setting = settings::resolve(ctx.project.config()?, &settings::SWARM_VERSION, flag, None)?;
    let assumed = version::detect(
        &ctx.project.root,
        version::Setting {
            text: setting.text(),
            source: setting.source,
            detail: setting.detail.as_deref(),
        },
    );
    let view = View { assumed };
    match args.command {
        SwarmCommand::Status(format) => view.status(ctx, format),
        SwarmCommand::Plan { phase, format } => view.plan(ctx, phase.as_deref(), format),
        SwarmCommand::Agents(format) => view.agents(ctx, format),
        SwarmCommand::History(format) => view.history(ctx, format),
        SwarmCommand::Evidence { task, format } => view.evidence(ctx, task.as_deref(), format),
        SwarmCommand::Diagnose(format) => view.diagnose(ctx, format),
        SwarmCommand::Export(format) => view.export(ctx, format),
        SwarmCommand::Config(format) => view.config(ctx, format),
    }
}

fn format_of(ctx: &Context, arg: &FormatArg) -> SwarmFormat {
    match arg.format {
        Some(format) => format,
        None if ctx.out.json => SwarmFormat::Json,
        None => SwarmFormat::Human,
    }
}

fn noted(ctx: &Context, files: SwarmFiles) -> SwarmFiles {
    for note in &files.notes {
        ctx.out.note(note);
    }
    files
}

/// What `.swarm/` holds, read as the assumed plugin version reads it.
enum Read {
    V4(SwarmFiles),
    V5(five::State),
}

impl Read {
    /// The plan text opencode-swarm 4.3.0's markdown rules run on (none for 5.1.0, whose
    /// markdown reads the state itself).
    fn plan_text(&self) -> Option<&str> {
        match self {
            Read::V4(files) => files.plan.as_ref().map(|p| p.text.as_str()),
            Read::V5(_) => None,
        }
    }

    /// The structured plan behind the human and JSON views.
    fn structured(&self) -> Option<Plan> {
        match self {
            Read::V4(files) => files.plan.as_ref().map(files::Plan::model),
            Read::V5(state) => match &state.plan {
                Some(loaded) => Some(model::from_json(&loaded.plan)),
                None => state.plan_text().map(model::from_markdown),
            },
        }
    }

    /// The file the plan came from: `plan.json`, `plan.md` (also when migrated from it).
    fn source_name(&self) -> Option<&'static str> {
        match self {
            Read::V4(files) => files.plan.as_ref().map(|p| p.source.file_name()),
            Read::V5(state) => match &state.plan {
                Some(loaded) if !loaded.migrated => Some("plan.json"),
                Some(_) => Some("plan.md"),
                None => state.plan_text().map(|_| "plan.md"),
            },
        }
    }

    /// How the source is named in human output.
    fn source_label(&self) -> String {
        let migrated = matches!(self, Read::V5(five::State { plan: Some(p), .. }) if p.migrated);
        let name = self.source_name().unwrap_or("");
        if migrated {
            format!("(.swarm/{name}, as opencode-swarm 5.1.0 migrates it)")
        } else {
            format!("(.swarm/{name})")
        }
    }
}

/// One run of a `ctx swarm` view, for the plugin version assumed.
struct View {
    assumed: Assumed,
}

impl View {
    fn five(&self) -> bool {
        self.assumed.version == PluginVersion::V5
    }

    fn plugin_doc(&self) -> PluginDoc {
        PluginDoc::new(&self.assumed)
    }

    /// `opencode-swarm 5.1.0 (why)`, for human output.
    fn plugin_line(&self) -> String {
        format!(
            "opencode-swarm {} ({})",
            self.assumed.version.name(),
            self.assumed.reason
        )
    }

    /// Reads `.swarm/`, noting on stderr each file that could not be used.
    fn read(&self, ctx: &Context) -> Read {
        let dir = ctx.project.swarm_dir();
        if self.five() {
            let state = five::read(&dir, true);
            for note in &state.notes {
                ctx.out.note(note);
            }
            Read::V5(state)
        } else {
            Read::V4(noted(ctx, files::read_plan(&dir)))
        }
    }

    /// opencode-swarm 5.1.0's config, each ignored file a warning on stderr.
    fn config_5(&self, ctx: &Context) -> LoadedConfig5 {
        let loaded = files::read_config_5(&ctx.project.root);
        for warning in &loaded.warnings {
            ctx.out.warn(warning);
        }
        loaded
    }

    /// The agent roster, and for 5.x the merged config it came from.
    fn roster(&self, ctx: &Context) -> (Vec<Agent>, Option<LoadedConfig5>) {
        if self.five() {
            let config = self.config_5(ctx);
            (crate::swarm::config::roster(&config.config), Some(config))
        } else {
            (crate::swarm::config::roster(&ctx.swarm_config()), None)
        }
    }
}

impl View {
    fn status(&self, ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
        let read = self.read(ctx);
        let (roster, _) = self.roster(ctx);
        match format_of(ctx, &format) {
            SwarmFormat::Markdown => {
                let text = match &read {
                    Read::V5(state) => five::status(state, roster.len()).map_err(Error::failure)?,
                    Read::V4(_) => markdown::status(read.plan_text(), roster.len()),
                };
                ctx.out.contract_line(&text)?
            }
            SwarmFormat::Json => {
                let plan = read.structured();
                ctx.out.json_doc(&StatusDoc::new(
                    self.plugin_doc(),
                    read.source_name(),
                    plan.as_ref(),
                    roster.len(),
                ))?
            }
            SwarmFormat::Human => {
                let Some(plan) = read.structured() else {
                    return no_plan(ctx);
                };
                let mut out = String::new();
                let source = read.source_label();
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
                        let head =
                            format!("Current: phase {} of {}", phase.number, plan.phases.len());
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
                // Once something names a version, the view says which and why (the 4.3.0
                // fallback is what this view has always meant).
                if !self.assumed.is_fallback() {
                    out.push_str(&format!(
                        "\n{}\n",
                        ctx.out.paint(Style::Dim, &fit(ctx, &self.plugin_line(), 0))
                    ));
                }
                ctx.out.write(&out)?;
            }
        }
        Ok(ExitCode::Success)
    }
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

impl View {
    fn plan(&self, ctx: &mut Context, phase: Option<&str>, format: FormatArg) -> Result<ExitCode> {
        let read = self.read(ctx);
        let format = format_of(ctx, &format);
        if format == SwarmFormat::Markdown {
            let text = match &read {
                Read::V5(state) => five::plan(state, phase),
                Read::V4(_) => markdown::plan(read.plan_text(), phase),
            };
            ctx.out.contract_line(&text)?;
            return Ok(ExitCode::Success);
        }
        let wanted = phase.filter(|p| !text::trim(p).is_empty());
        let number = wanted.and_then(text::js_parse_int);
        if let (Some(arg), None) = (wanted, number) {
            return Err(crate::error::Error::usage(format!(
                "`{arg}` is not a phase number"
            )));
        }
        let plan = read.structured();
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
                plugin: self.plugin_doc(),
                source: read.source_name(),
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

    fn agents(&self, ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
        let (roster, config) = self.roster(ctx);
        let profiles = config.as_ref().and_then(|c| five::profiles(&c.resolved));
        match format_of(ctx, &format) {
            SwarmFormat::Markdown => ctx.out.contract_line(&match &config {
                Some(config) => five::agents(&roster, &config.resolved),
                None => markdown::agents(&roster),
            })?,
            SwarmFormat::Json => ctx.out.json_doc(&AgentsDoc {
                version: Version,
                plugin: self.plugin_doc(),
                agents: roster
                    .iter()
                    .map(|agent| AgentDoc {
                        custom_limits: profiles.is_some_and(|p| p.contains_key(&agent.name)),
                        ..AgentDoc::new(agent)
                    })
                    .collect(),
                guardrail_profiles: profiles
                    .into_iter()
                    .flatten()
                    .map(|(name, profile)| ProfileDoc {
                        name: name.clone(),
                        limits: profile.as_object().cloned().unwrap_or_default(),
                    })
                    .collect(),
            })?,
            SwarmFormat::Human => {
                if roster.is_empty() {
                    ctx.out.line("No agents registered.")?;
                    return Ok(ExitCode::Success);
                }
                let mut header = vec!["Agent", "Model", "Temp", "Access"];
                if profiles.is_some() {
                    header.push("Limits");
                }
                let mut table = new_table(ctx, &header);
                for agent in &roster {
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
                ctx.out.line(&trim_lines(&table.to_string()))?;
            }
        }
        Ok(ExitCode::Success)
    }

    fn history(&self, ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
        let read = self.read(ctx);
        match format_of(ctx, &format) {
            SwarmFormat::Markdown => ctx.out.contract_line(&match &read {
                Read::V5(state) => five::history(state),
                Read::V4(_) => markdown::history(read.plan_text()),
            })?,
            SwarmFormat::Json => {
                let plan = read.structured();
                ctx.out.json_doc(&HistoryDoc {
                    version: Version,
                    plugin: self.plugin_doc(),
                    source: read.source_name(),
                    phases: plan
                        .iter()
                        .flat_map(|p| &p.phases)
                        .map(PhaseCounts::new)
                        .collect(),
                })?
            }
            SwarmFormat::Human => {
                let Some(plan) = read.structured() else {
                    return no_plan(ctx);
                };
                ctx.out.line(&phase_table(ctx, &plan))?;
            }
        }
        Ok(ExitCode::Success)
    }
}

/// Exit code of `ctx swarm diagnose` when a check fails: distinct from 1 (ctx could not run)
/// so that CI can tell an unhealthy swarm from a broken job.
const UNHEALTHY: ExitCode = ExitCode::SwarmUnhealthy;

impl View {
    /// The evidence views read `.swarm/` as 5.x does; on 4.3.0 plan.md is not migrated.
    fn read_5(&self, ctx: &Context) -> (five::State, Option<String>) {
        let dir = ctx.project.swarm_dir();
        let state = five::read(&dir, self.five());
        for note in &state.notes {
            ctx.out.note(note);
        }
        let (context, note) = five::read_context(&dir);
        if let Some(note) = note {
            ctx.out.note(&note);
        }
        (state, context)
    }

    fn evidence(
        &self,
        ctx: &mut Context,
        task: Option<&str>,
        format: FormatArg,
    ) -> Result<ExitCode> {
        let swarm_dir = ctx.project.swarm_dir();
        let format = format_of(ctx, &format);
        let Some(task) = task else {
            let listing = evidence::list(&swarm_dir);
            for note in &listing.notes {
                ctx.out.note(note);
            }
            let rows: Vec<(String, Bundle)> = listing
                .ids
                .into_iter()
                .map(|id| {
                    let bundle = evidence::load(&swarm_dir, &id);
                    (id, bundle)
                })
                .collect();
            for (_, bundle) in &rows {
                if let Bundle::Unusable(why) = bundle {
                    ctx.out.note(why);
                }
            }
            return self.evidence_list(ctx, &rows, format);
        };
        evidence::check_task_id(task).map_err(|why| {
            Error::failure(format!("task id {task:?}: {why}")).with_hint(
                "a task id is a dotted name such as 2.1; `ctx swarm evidence` lists them",
            )
        })?;
        let bundle = evidence::load(&swarm_dir, task);
        let problem = match &bundle {
            Bundle::Unusable(why) => {
                ctx.out.note(why);
                Some(why.clone())
            }
            Bundle::Absent => Some(evidence::absent_problem(&swarm_dir, task)),
            Bundle::Valid(_) => None,
        };
        match format {
            SwarmFormat::Markdown => ctx
                .out
                .contract_line(&evidence::markdown_bundle(task, &bundle))?,
            SwarmFormat::Json => ctx.out.json_doc(&EvidenceOutput::Task(EvidenceDoc {
                version: Version,
                plugin: self.plugin_doc(),
                task: task.to_string(),
                bundle: match &bundle {
                    Bundle::Valid(b) => Some(b.clone()),
                    _ => None,
                },
                problem,
            }))?,
            SwarmFormat::Human => {
                let Bundle::Valid(bundle) = &bundle else {
                    ctx.out
                        .line(&format!("No evidence found for task {task}."))?;
                    return Ok(ExitCode::Success);
                };
                ctx.out.write(&bundle_human(ctx, task, bundle))?;
            }
        }
        Ok(ExitCode::Success)
    }

    fn evidence_list(
        &self,
        ctx: &mut Context,
        rows: &[(String, Bundle)],
        format: SwarmFormat,
    ) -> Result<ExitCode> {
        let swarm_dir = ctx.project.swarm_dir();
        match format {
            SwarmFormat::Markdown => ctx.out.contract_line(&evidence::markdown_list(rows))?,
            SwarmFormat::Json => ctx.out.json_doc(&EvidenceOutput::List(EvidenceListDoc {
                version: Version,
                plugin: self.plugin_doc(),
                bundles: rows
                    .iter()
                    .map(|(id, bundle)| {
                        let valid = match bundle {
                            Bundle::Valid(b) => Some(b),
                            _ => None,
                        };
                        let stamp = |key| valid.map(|b| evidence::field(b, key).to_string());
                        BundleRow {
                            task: id.clone(),
                            entries: valid.map(|b| evidence::entries(b).len()),
                            created_at: stamp("created_at"),
                            updated_at: stamp("updated_at"),
                            problem: match bundle {
                                Bundle::Valid(_) => None,
                                Bundle::Absent => Some(evidence::absent_problem(&swarm_dir, id)),
                                Bundle::Unusable(why) => Some(why.clone()),
                            },
                        }
                    })
                    .collect(),
            }))?,
            SwarmFormat::Human => {
                if rows.is_empty() {
                    ctx.out.line("No evidence bundles found.")?;
                    return Ok(ExitCode::Success);
                }
                let mut table = new_table(ctx, &["Task", "Entries", "Failed", "Last", "Updated"]);
                for (id, bundle) in rows {
                    let [entries, failed, last, updated] = match bundle {
                        Bundle::Valid(b) => {
                            let entries = evidence::entries(b);
                            let failed = entries
                                .iter()
                                .filter(|e| {
                                    matches!(evidence::field(e, "verdict"), "fail" | "rejected")
                                })
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
                ctx.out.line(&trim_lines(&table.to_string()))?;
            }
        }
        Ok(ExitCode::Success)
    }

    fn diagnose(&self, ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
        let (state, context) = self.read_5(ctx);
        let listing = evidence::list(&ctx.project.swarm_dir());
        for note in &listing.notes {
            ctx.out.note(note);
        }
        // The plugin loads its config for this check; ignored files are warnings here too.
        self.config_5(ctx);
        let checks = five::diagnose(&state, context.as_deref(), &listing.ids);
        let passed = checks.iter().filter(|c| c.passed).count();
        let healthy = passed == checks.len();
        match format_of(ctx, &format) {
            SwarmFormat::Markdown => ctx.out.contract_line(&five::diagnose_markdown(&checks))?,
            SwarmFormat::Json => ctx.out.json_doc(&DiagnoseDoc {
                version: Version,
                plugin: self.plugin_doc(),
                healthy,
                passed,
                checks,
            })?,
            SwarmFormat::Human => {
                let mut out = format!(
                    "{}  {}\n",
                    ctx.out.paint(Style::Bold, "Swarm health"),
                    ctx.out
                        .paint(Style::Dim, &fit(ctx, &self.plugin_line(), 14))
                );
                let width = checks.iter().map(|c| c.name.width()).max().unwrap_or(0);
                for check in &checks {
                    let mark = if check.passed {
                        ctx.out.paint(Style::Green, "ok  ")
                    } else {
                        ctx.out.paint(Style::Red, "FAIL")
                    };
                    let name = format!("{:width$}", check.name);
                    let detail = fit(ctx, &check.detail, 9 + width);
                    out.push_str(&format!("  {mark} {name}  {detail}\n"));
                }
                out.push_str(&format!("{passed}/{} checks passed\n", checks.len()));
                ctx.out.write(&out)?;
            }
        }
        Ok(if healthy {
            ExitCode::Success
        } else {
            UNHEALTHY
        })
    }

    fn export(&self, ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
        let (state, context) = self.read_5(ctx);
        let document = five::export(state, context.as_deref(), ctx.now);
        match format_of(ctx, &format) {
            SwarmFormat::Markdown => ctx.out.contract_line(&five::export_markdown(&document))?,
            SwarmFormat::Json => ctx.out.json_doc(&ExportDoc {
                version: Version,
                plugin: self.plugin_doc(),
                export: document,
            })?,
            SwarmFormat::Human => ctx
                .out
                .line(&visible_text(&text::json_stringify_pretty(&document)))?,
        }
        Ok(ExitCode::Success)
    }

    fn config(&self, ctx: &mut Context, format: FormatArg) -> Result<ExitCode> {
        let config = self.config_5(ctx);
        let file = |path: &std::path::Path, used: Option<bool>| ConfigFileDoc {
            path: path.display().to_string(),
            state: match used {
                None => "absent",
                Some(true) => "read",
                Some(false) => "ignored",
            },
        };
        match format_of(ctx, &format) {
            SwarmFormat::Markdown => ctx.out.contract_line(&five::config_markdown(&config))?,
            SwarmFormat::Json => ctx.out.json_doc(&SwarmConfigDoc {
                version: Version,
                plugin: self.plugin_doc(),
                user: file(&config.user_path, config.user_used),
                project: file(&config.project_path, config.project_used),
                resolved: config.resolved.clone(),
            })?,
            SwarmFormat::Human => {
                let mut out = format!(
                    "{}  {}\n",
                    ctx.out.paint(Style::Bold, "opencode-swarm config"),
                    ctx.out
                        .paint(Style::Dim, &fit(ctx, &self.plugin_line(), 23))
                );
                for (label, doc) in [
                    ("User:   ", file(&config.user_path, config.user_used)),
                    ("Project:", file(&config.project_path, config.project_used)),
                ] {
                    out.push_str(&format!(
                        "{label} {} ({})\n",
                        visible_line(&doc.path),
                        doc.state
                    ));
                }
                out.push('\n');
                out.push_str(&visible_text(&text::json_stringify_pretty(
                    &config.resolved,
                )));
                out.push('\n');
                ctx.out.write(&out)?;
            }
        }
        Ok(ExitCode::Success)
    }
}

/// A guardrail profile's limits, short: `600 tool calls, 60 min`.
fn limits_for_people(profile: &serde_json::Value) -> String {
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

/// Text from a file, each line made safe for a terminal.
fn visible_text(text: &str) -> String {
    text.lines()
        .map(|line| visible_line(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One bundle for people: its stamps, a table of entries, then what reviews and tests found.
fn bundle_human(ctx: &Context, task: &str, bundle: &serde_json::Value) -> String {
    let entries = evidence::entries(bundle);
    let mut out = format!(
        "{}  {}\n",
        ctx.out.paint(
            Style::Bold,
            &fit(ctx, &format!("Evidence for task {task}"), 40)
        ),
        ctx.out.paint(
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
    let mut table = new_table(ctx, &["#", "Type", "Verdict", "Agent", "Summary"]);
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
            Cell::new(ctx.out.paint(style, verdict)),
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
            out.push_str(&fit(ctx, &line, 0));
            out.push('\n');
        }
    }
    out
}

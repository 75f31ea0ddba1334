//! `ctx swarm …`: reads `.swarm/` and opencode-swarm's config, prints markdown, human or JSON.
//! Nothing here opens a file for writing.

use crate::app::Context;
use crate::cli::swarm::{FormatArg, SwarmArgs, SwarmCommand, SwarmFormat};
use crate::document::Version;
use crate::error::{Error, ExitCode, Result};
use crate::settings;
use crate::swarm::config::Agent;
use crate::swarm::doc::{
    AgentDoc, AgentsDoc, BundleRow, ConfigFileDoc, DiagnoseDoc, EvidenceDoc, EvidenceListDoc,
    EvidenceOutput, ExportDoc, HistoryDoc, PhaseCounts, PhaseDoc, PlanDoc, PluginDoc, ProfileDoc,
    StatusDoc, SwarmConfigDoc,
};
use crate::swarm::evidence::{self, Bundle};
use crate::swarm::files::{self, LoadedConfig5, SwarmFiles};
use crate::swarm::five;
use crate::swarm::human::{self, Page};
use crate::swarm::model::{self, Phase, Plan};
use crate::swarm::version::{self, Assumed, PluginVersion};
use crate::swarm::{markdown, text};

pub fn run(ctx: &mut Context, args: SwarmArgs) -> Result<ExitCode> {
    let flag = args
        .swarm_version
        .map(|v| toml::Value::String(v.setting().to_string()));
    let setting = ctx.settings()?.with(&settings::SWARM_VERSION, flag, None)?;
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
                // Once something names a version, the view says which and why (the 4.3.0
                // fallback is what this view has always meant).
                let plugin = (!self.assumed.is_fallback()).then(|| self.plugin_line());
                let text = human::status(
                    &page(ctx),
                    &plan,
                    &read.source_label(),
                    roster.len(),
                    plugin.as_deref(),
                );
                ctx.out.write(&text)?;
            }
        }
        Ok(ExitCode::Success)
    }
}

fn no_plan(ctx: &mut Context) -> Result<ExitCode> {
    ctx.out.line(markdown::NO_PLAN)?;
    ctx.out
        .note("opencode-swarm's architect writes .swarm/plan.md once a swarm starts planning");
    Ok(ExitCode::Success)
}

/// The page human output goes to: the output's width and colours.
fn page(ctx: &Context) -> Page {
    Page {
        width: ctx.out.width,
        color: ctx.out.color,
    }
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
        ctx.out.write(&human::plan(&page(ctx), &phases))?;
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
                ctx.out
                    .line(&human::agents(&page(ctx), &roster, profiles))?;
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
                ctx.out.line(&human::phase_table(&page(ctx), &plan))?;
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
                ctx.out.write(&human::bundle(&page(ctx), task, bundle))?;
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
                ctx.out.line(&human::evidence_list(&page(ctx), rows))?;
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
                let text = human::diagnose(&page(ctx), &checks, &self.plugin_line());
                ctx.out.write(&text)?;
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
            SwarmFormat::Human => {
                ctx.out
                    .line(&human::visible_text(&text::json_stringify_pretty(
                        &document,
                    )))?
            }
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
                let files = [
                    file(&config.user_path, config.user_used),
                    file(&config.project_path, config.project_used),
                ];
                let text = human::config(&page(ctx), files, &config.resolved, &self.plugin_line());
                ctx.out.write(&text)?;
            }
        }
        Ok(ExitCode::Success)
    }
}

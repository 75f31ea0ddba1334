//! `ctx budget …`: token counts against model limits (cli.md, "ctx budget").

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

mod spent;

use crate::app::Context;
use crate::budget::doc::{
    EstimateDoc, ItemDoc, LimitDoc, ModelRow, ModelsDoc, SessionDoc, SkippedDoc, ThresholdsDoc,
    TotalsDoc,
};
use crate::budget::models::{self, FALLBACK_CONTEXT, Limits, ModelsDev};
use crate::budget::render;
use crate::budget::session::{self, SessionView};
use crate::budget::tokenize::Method;
use crate::budget::tokenizer::{self, Tokenizer};
use crate::budget::verdict::{self, Level, Thresholds};
use crate::budget::walk::{self, Counted, FileEntry, Progress, Skipped, WalkOptions};
use crate::cli::budget::{BudgetCommand, EstimateArgs, FailOn, Format};
use crate::conversation::Export;
use crate::error::{Error, ExitCode, Result};
use crate::project::{Config, Source, lookup_dotted};
use crate::settings::{self, Settings};
use crate::swarm::config::ContextBudget;
use crate::text::visible;

pub fn run(ctx: &mut Context, command: BudgetCommand) -> Result<ExitCode> {
    match command {
        BudgetCommand::Estimate(args) => estimate(ctx, args),
        BudgetCommand::Models => list_models(ctx),
        BudgetCommand::Spent(args) => spent::run(ctx, args),
    }
}

/// A resolved context limit and where it came from.
struct ResolvedLimit {
    limits: Limits,
    source: &'static str,
}

/// Everything the limit lookup reads, loaded at most once.
struct LimitSources<'a> {
    config: &'a Config,
    settings: &'a Settings,
    swarm: Option<&'a ContextBudget>,
    cache: Option<ModelsDev>,
}

/// The keys a model is looked up under in settings maps: as given, then without its provider.
fn model_keys(model: &str) -> Vec<&str> {
    let mut keys = vec![model];
    if let Some((_, bare)) = models::split_model(model) {
        keys.push(bare);
    }
    keys
}

/// ctx's settings (cli.md "Files"): `CTX_BUDGET_LIMIT`, then in each settings file, project
/// first, `[budget.model_limits]` under the model's key and `budget.limit`. 0 means unset.
fn config_limit(
    config: &Config,
    resolved: &Settings,
    model: Option<&str>,
) -> Result<Option<(u64, &'static str)>> {
    let scalar = resolved.get(&settings::BUDGET_LIMIT)?;
    let scalar_limit = Some(scalar.count()).filter(|n| *n > 0);
    if scalar.source == Source::Env
        && let Some(n) = scalar_limit
    {
        return Ok(Some((n, "env")));
    }
    for (file, source) in [
        (&config.project, Source::Project),
        (&config.user, Source::User),
    ] {
        let Some(file) = file else { continue };
        if let Some(model) = model
            && let Some(map) = lookup_dotted(&file.table, "budget.model_limits")
        {
            let map = map.as_table().ok_or_else(|| {
                Error::failure(format!(
                    "{}: budget.model_limits must be a table of model ids to token counts",
                    file.path.display()
                ))
            })?;
            for key in model_keys(model) {
                if let Some(value) = map.get(key) {
                    let n = value.as_integer().filter(|n| *n > 0).ok_or_else(|| {
                        Error::failure(format!(
                            "{}: budget.model_limits.\"{key}\" must be a positive integer",
                            file.path.display()
                        ))
                    })?;
                    return Ok(Some((n as u64, source.as_str())));
                }
            }
        }
        if scalar.source == source
            && let Some(n) = scalar_limit
        {
            return Ok(Some((n, source.as_str())));
        }
    }
    Ok(None)
}

/// OpenCode's models.dev cache; a missing one is no error, an unusable one is ignored with a
/// warning.
fn load_models_dev(out: &crate::output::Output) -> Option<ModelsDev> {
    let path = crate::project::xdg_cache_home()?
        .join("opencode")
        .join("models.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            out.warn(&format!(
                "{}: ignored: {}",
                path.display(),
                crate::error::describe_io(&e)
            ));
            return None;
        }
    };
    let parsed = serde_json::from_str(&text)
        .map_err(|e| format!("invalid JSON: {e}"))
        .and_then(ModelsDev::from_value);
    match parsed {
        Ok(cache) => Some(cache),
        Err(why) => {
            out.warn(&format!(
                "{}: ignored: not OpenCode's models.dev cache: {why}",
                path.display()
            ));
            None
        }
    }
}

/// cli.md's order: --limit, ctx's settings, opencode-swarm's model_limits (the model's key, then
/// `default`), the models.dev cache, the built-in table, 128000.
fn resolve_limit(
    ctx: &Context,
    sources: &mut LimitSources,
    flag: Option<u64>,
    model: Option<&str>,
) -> Result<ResolvedLimit> {
    if let Some(n) = flag {
        return Ok(ResolvedLimit {
            limits: Limits::context_only(n),
            source: "flag",
        });
    }
    if let Some((n, source)) = config_limit(sources.config, sources.settings, model)? {
        return Ok(ResolvedLimit {
            limits: Limits::context_only(n),
            source,
        });
    }
    let keys = model.map(model_keys).unwrap_or_default();
    if let Some((_, n)) = sources.swarm.and_then(|s| s.written_limit(&keys)) {
        return Ok(ResolvedLimit {
            limits: Limits::context_only(n as u64),
            source: "opencode-swarm",
        });
    }
    if let Some(model) = model {
        if sources.cache.is_none() {
            sources.cache = load_models_dev(&ctx.out);
        }
        if let Some((_, limits)) = sources.cache.as_ref().and_then(|c| c.lookup(model)) {
            return Ok(ResolvedLimit {
                limits,
                source: "models.dev",
            });
        }
        if let Some((_, limits)) = models::builtin(model) {
            return Ok(ResolvedLimit {
                limits,
                source: "built-in",
            });
        }
        ctx.out.warn(&format!(
            "unknown model \"{model}\": not in OpenCode's models.dev cache nor ctx's table; \
             assuming a {}-token context (give --limit to set it)",
            render::thousands(FALLBACK_CONTEXT)
        ));
    }
    Ok(ResolvedLimit {
        limits: Limits::context_only(FALLBACK_CONTEXT),
        source: "default",
    })
}

/// Flag, `CTX_BUDGET_WARN`/`CTX_BUDGET_CRITICAL`, the settings files, opencode-swarm's
/// context_budget, then 0.7 / 0.9.
fn resolve_thresholds(
    args: &EstimateArgs,
    resolved: &Settings,
    swarm: Option<&ContextBudget>,
) -> Result<Thresholds> {
    let share = |def, flag: Option<f64>| {
        resolved
            .with(def, flag.map(toml::Value::Float), swarm)
            .map(|r| r.fraction())
    };
    Ok(Thresholds {
        warn: share(&settings::BUDGET_WARN, args.warn)?,
        critical: share(&settings::BUDGET_CRITICAL, args.critical)?,
    })
}

fn resolve_tokenizer(args: &EstimateArgs, resolved: &Settings) -> Result<Tokenizer> {
    if let Some(t) = args.tokenizer {
        return Ok(t);
    }
    let text = resolved.text(&settings::BUDGET_TOKENIZER)?;
    Tokenizer::parse(text, &tokenizer::BUDGET).map_err(Error::failure)
}

/// Whether counts by `method` are what `model` itself would count.
fn is_exact_for(method: Method, model: Option<&str>) -> bool {
    match method {
        Method::Exact(encoding) => match model {
            None => true,
            Some(model) => tokenizer::openai_encoding(model) == Some(encoding),
        },
        _ => false,
    }
}

/// Exports can be large; anything past this is not a session export.
const MAX_EXPORT_BYTES: u64 = 1 << 30;

fn read_export(path: &Path) -> Result<Export> {
    let (shown, bytes) = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_EXPORT_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(Path::new("<stdin>"), "read", &e))?;
        ("<stdin>".to_string(), bytes)
    } else {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, "read", &e))?;
        (path.display().to_string(), bytes)
    };
    let text = String::from_utf8_lossy(&bytes);
    Export::parse_export_or_list(&text, true).map_err(|why| {
        Error::failure(format!(
            "{shown}: not an OpenCode session export or message list: {why}"
        ))
    })
}

/// Prints files, bytes and tokens so far on stderr while counting takes more than a moment —
/// only when stderr is a terminal and not with -q. The reporter wakes the moment the work ends,
/// so a quick count is not held up by it.
fn with_progress<T>(enabled: bool, progress: &Progress, work: impl FnOnce() -> T) -> T {
    if !enabled {
        return work();
    }
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let start = Instant::now();
            let mut shown = false;
            // Sent or dropped when the work ends; a timeout is a tick.
            while let Err(RecvTimeoutError::Timeout) =
                finished.recv_timeout(Duration::from_millis(100))
            {
                if start.elapsed() < PROGRESS_DELAY {
                    continue;
                }
                let line = format!(
                    "counting: {} files, {}, {} tokens",
                    render::thousands(progress.files.load(Ordering::Relaxed)),
                    render::human_bytes(progress.bytes.load(Ordering::Relaxed)),
                    render::thousands(progress.tokens.load(Ordering::Relaxed))
                );
                eprint!("\r\x1b[2K{line}");
                shown = true;
            }
            if shown {
                eprint!("\r\x1b[2K");
            }
        });
        let result = work();
        drop(done);
        result
    })
}

/// How long a count runs before its progress is shown.
const PROGRESS_DELAY: Duration = Duration::from_millis(500);

/// Everything `budget estimate` decides before it counts: the inputs, how to count, the model's
/// limit and the thresholds, from the flags, the environment, ctx's settings, opencode-swarm's
/// config and OpenCode's models cache.
struct EstimateSettings {
    format: Format,
    model: Option<String>,
    method: Method,
    thresholds: Thresholds,
    limit: ResolvedLimit,
    swarm: Option<ContextBudget>,
    /// `--session`: where it was read from, and what it sends.
    session: Option<(PathBuf, SessionView)>,
    paths: Vec<PathBuf>,
    walk: WalkOptions,
    show_progress: bool,
}

impl EstimateSettings {
    fn resolve(ctx: &Context, args: &EstimateArgs) -> Result<EstimateSettings> {
        let format = match args.format {
            Some(format) => format,
            None if ctx.out.json => Format::Json,
            None => Format::Human,
        };
        check_paths(ctx, args)?;
        let session = match &args.session {
            Some(path) => Some((path.clone(), session::view(&read_export(path)?))),
            None => None,
        };
        let config = ctx.project.config()?;
        let resolved = ctx.settings()?;
        let swarm = swarm_context_budget(ctx);
        let model = match &args.model {
            Some(model) => Some(model.clone()),
            None => Some(resolved.text(&settings::BUDGET_MODEL)?.to_string())
                .filter(|model| !model.is_empty())
                .or_else(|| {
                    session
                        .as_ref()
                        .and_then(|(_, view)| view.recorded.as_ref()?.model.clone())
                }),
        };
        let method = resolve_tokenizer(args, resolved)?.method(model.as_deref());
        let thresholds = resolve_thresholds(args, resolved, swarm.as_ref())?;
        let mut sources = LimitSources {
            config,
            settings: resolved,
            swarm: swarm.as_ref(),
            cache: None,
        };
        let limit = resolve_limit(ctx, &mut sources, args.limit, model.as_deref())?;
        let paths: Vec<PathBuf> = if args.paths.is_empty() && args.session.is_none() {
            // `ctx -C DIR budget estimate` counts DIR, as it is written (paths stay relative).
            vec![
                ctx.project
                    .given_root
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(".")),
            ]
        } else {
            args.paths.clone()
        };
        Ok(EstimateSettings {
            format,
            model,
            method,
            thresholds,
            limit,
            swarm,
            session,
            paths,
            walk: WalkOptions {
                hidden: args.hidden,
                no_ignore: args.no_ignore,
                excludes: args.exclude.clone(),
            },
            show_progress: !ctx.out.quiet && std::io::stderr().is_terminal(),
        })
    }
}

/// Standard input read once at most, and every PATH there (a missing relative one says where it
/// was looked for).
fn check_paths(ctx: &Context, args: &EstimateArgs) -> Result<()> {
    let stdin_uses = args.paths.iter().filter(|p| *p == Path::new("-")).count()
        + usize::from(args.session.as_deref() == Some(Path::new("-")));
    if stdin_uses > 1 {
        return Err(Error::usage(
            "standard input ('-') can be read only once: give it to PATH or --session, not both",
        ));
    }
    for path in &args.paths {
        if path != Path::new("-")
            && let Err(e) = std::fs::symlink_metadata(path)
        {
            let err = Error::io(path, "read", &e);
            // Relative paths are the shell's, resolved against the working directory also with
            // -C (docs/src/budget.md): a missing one says so, since -C is where people look.
            return Err(match &ctx.project.given_root {
                Some(root) if path.is_relative() => err.with_hint(format!(
                    "relative paths are resolved against the working directory {}, not -C {}",
                    std::env::current_dir().unwrap_or_default().display(),
                    root.display()
                )),
                _ => err,
            });
        }
    }
    Ok(())
}

/// What the inputs counted to.
#[derive(Default)]
struct Counts {
    counted: Vec<Counted>,
    skipped: Vec<Skipped>,
    files: u64,
}

/// Reads and counts every input (stdin, files, walked folders) in parallel.
fn count(settings: &EstimateSettings) -> Result<Counts> {
    let method = settings.method;
    let progress = Progress::default();
    let mut counts = Counts::default();
    with_progress(settings.show_progress, &progress, || -> Result<()> {
        let mut files: Vec<FileEntry> = Vec::new();
        let mut dirs: Vec<PathBuf> = Vec::new();
        for path in &settings.paths {
            if path == Path::new("-") {
                let stdin = std::io::stdin();
                match walk::count_stream(stdin.lock(), method, None, &progress) {
                    Ok(walk::Outcome::Counted { tokens, bytes }) => counts.counted.push(Counted {
                        path: "-".into(),
                        tokens,
                        bytes,
                    }),
                    Ok(walk::Outcome::Binary) => counts.skipped.push(Skipped {
                        path: "-".into(),
                        reason: "binary".into(),
                    }),
                    Err(e) => return Err(Error::io(Path::new("<stdin>"), "read", &e)),
                }
            } else if path.is_dir() {
                dirs.push(path.clone());
            } else {
                files.push(FileEntry {
                    path: path.clone(),
                    display: walk::display_path(path),
                });
            }
        }
        let (walked, walk_skipped) = walk::walk(&dirs, &settings.walk).map_err(Error::usage)?;
        files.extend(walked);
        counts.skipped.extend(walk_skipped);
        let (file_counts, file_skipped) = walk::count_files(&files, method, &progress);
        counts.files = file_counts.len() as u64;
        counts.counted.extend(file_counts);
        counts.skipped.extend(file_skipped);
        Ok(())
    })?;
    Ok(counts)
}

/// The report: the session beside the files, everything sorted, totals and the verdict.
fn report(settings: &EstimateSettings, mut counts: Counts) -> EstimateDoc {
    let method = settings.method;
    let session_doc = settings.session.as_ref().map(|(path, view)| {
        let tokens = session_tokens(view, method);
        let bytes: u64 = view.sent.iter().map(|t| t.len() as u64).sum();
        let shown = if path == Path::new("-") {
            "-".to_string()
        } else {
            walk::display_path(path)
        };
        counts.counted.push(Counted {
            path: shown.clone(),
            tokens,
            bytes,
        });
        SessionDoc {
            id: view.id.clone(),
            path: shown,
            messages: view.messages as u64,
            tokens,
            recorded_tokens: view.recorded.as_ref().map(|r| r.context_tokens),
            recorded_model: view.recorded.as_ref().and_then(|r| r.model.clone()),
            totals: TotalsDoc {
                input: view.totals.input,
                output: view.totals.output,
                reasoning: view.totals.reasoning,
                cache_read: view.totals.cache_read,
                cache_write: view.totals.cache_write,
                cost: view.totals.cost,
            },
        }
    });
    let Counts {
        mut counted,
        mut skipped,
        files,
    } = counts;
    counted.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.path.cmp(&b.path)));
    skipped.sort_by(|a, b| a.path.cmp(&b.path).then_with(|| a.reason.cmp(&b.reason)));
    let total_tokens: u64 = counted.iter().map(|c| c.tokens).sum();
    let bytes: u64 = counted.iter().map(|c| c.bytes).sum();
    let limit = &settings.limit;
    let usage = verdict::usage(total_tokens, limit.limits.context);
    let level = Level::of(usage, settings.thresholds);
    EstimateDoc {
        version: crate::document::Version,
        tokenizer: method.name(),
        exact: is_exact_for(method, settings.model.as_deref()),
        model: settings.model.clone(),
        limit: LimitDoc {
            context: limit.limits.context,
            input: limit.limits.input,
            output: limit.limits.output,
            usable: limit.limits.usable(),
            source: limit.source,
        },
        total_tokens,
        bytes,
        files,
        usage,
        level: level.name(),
        thresholds: ThresholdsDoc {
            warn: settings.thresholds.warn,
            critical: settings.thresholds.critical,
        },
        items: counted
            .into_iter()
            .map(|c| ItemDoc {
                path: c.path,
                tokens: c.tokens,
                bytes: c.bytes,
            })
            .collect(),
        skipped: skipped
            .into_iter()
            .map(|s| SkippedDoc {
                path: s.path,
                reason: s.reason,
            })
            .collect(),
        session: session_doc,
    }
}

fn estimate(ctx: &mut Context, args: EstimateArgs) -> Result<ExitCode> {
    let settings = EstimateSettings::resolve(ctx, &args)?;
    let doc = report(&settings, count(&settings)?);
    let level = Level::of(doc.usage, settings.thresholds);
    match settings.format {
        Format::Json => ctx.out.json_doc(&doc)?,
        Format::Human => {
            let text = render::estimate(&doc, args.top, ctx.out.width);
            // Paths, model names and sources come from the tree and the settings.
            ctx.out.write(&visible(&text))?;
        }
        Format::Svg => ctx
            .out
            .write(&crate::flamegraph::svg(&crate::budget::flame::graph(&doc)))?,
        Format::Swarm => {
            let session = settings.session.as_ref().map(|(_, view)| view);
            if crate::budget::session::swarm_would_warn(
                settings.swarm.as_ref().and_then(|s| s.enabled),
                session,
            ) && let Some(line) = verdict::swarm_line(doc.usage, settings.thresholds)
            {
                ctx.out.line(&line)?;
            }
        }
    }
    // opencode-swarm's `context_budget.enabled: false` turns the budget off: no warning line, and
    // no verdict in the exit code either.
    if settings
        .swarm
        .as_ref()
        .is_some_and(|budget| !budget.enabled())
    {
        return Ok(ExitCode::Success);
    }
    Ok(match (args.fail_on, level) {
        (FailOn::Warn, Level::Warn) => ExitCode::BudgetWarn,
        (FailOn::Warn | FailOn::Critical, Level::Critical) => ExitCode::BudgetCritical,
        _ => ExitCode::Success,
    })
}

/// Tokens of a session. opencode-swarm's own count (swarm.md §11.2) is the sum over every
/// non-empty text part of every message, ceiling per part; the other methods count what the
/// model is sent.
fn session_tokens(view: &SessionView, method: Method) -> u64 {
    let texts = match method {
        Method::Swarm => &view.swarm_texts,
        _ => &view.sent,
    };
    texts.iter().map(|text| method.count(text)).sum()
}

/// opencode-swarm's `context_budget` from its merged configuration.
fn swarm_context_budget(ctx: &Context) -> Option<ContextBudget> {
    ctx.swarm_config().context_budget
}

fn list_models(ctx: &mut Context) -> Result<ExitCode> {
    let config = ctx.project.config()?;
    let swarm = swarm_context_budget(ctx);
    let cache = load_models_dev(&ctx.out);
    let mut keys: Vec<String> = models::BUILTIN.iter().map(|(k, _)| k.to_string()).collect();
    if let Some(cache) = &cache {
        keys.extend(cache.all().into_iter().map(|(k, _)| k));
    }
    if let Some(swarm) = &swarm {
        keys.extend(
            swarm
                .model_limits
                .iter()
                .flatten()
                .filter(|(k, _)| k != "default")
                .map(|(k, _)| k.clone()),
        );
    }
    for file in [&config.project, &config.user].into_iter().flatten() {
        if let Some(map) = file
            .table
            .get("budget")
            .and_then(|b| b.get("model_limits"))
            .and_then(toml::Value::as_table)
        {
            keys.extend(map.keys().cloned());
        }
    }
    keys.sort();
    keys.dedup();
    let mut sources = LimitSources {
        config,
        settings: ctx.settings()?,
        swarm: swarm.as_ref(),
        cache,
    };
    let quiet_ctx = Context::new(
        crate::project::Project::at(ctx.project.root.clone()),
        crate::output::Output::new(false, true, crate::output::ColorChoice::Never),
        ctx.now,
        ctx.hook,
    );
    let row = |model: &str, limit: ResolvedLimit| ModelRow {
        model: model.to_string(),
        context: limit.limits.context,
        input: limit.limits.input,
        output: limit.limits.output,
        usable: limit.limits.usable(),
        source: limit.source,
    };
    let mut rows = Vec::with_capacity(keys.len());
    for key in &keys {
        let limit = resolve_limit(&quiet_ctx, &mut sources, None, Some(key))?;
        rows.push(row(key, limit));
    }
    let default = row(
        "(any other model)",
        resolve_limit(&quiet_ctx, &mut sources, None, None)?,
    );
    let doc = ModelsDoc {
        version: crate::document::Version,
        models: rows,
        default,
    };
    if ctx.out.json {
        ctx.out.json_doc(&doc)?;
    } else {
        // Model names come from the user's files and OpenCode's cache.
        let text = render::models(&doc, ctx.out.width);
        ctx.out.write(&visible(&text))?;
    }
    Ok(ExitCode::Success)
}

//! `ctx compact …`: what goes back into the model's context (cli.md), rendered from the frame
//! tree and opencode-swarm's files.

use serde::Serialize;

use crate::app::Context;
use crate::app::frame_context::{frame_settings, read_stdin, swarm_budget_line};
use crate::budget::tokenize::Method;
use crate::cli::compact::{
    CompactCommand, HostArg, NoticeFormat, RenderFormat, RoleArg, SourceArg, SourceArgs,
};
use crate::cli::frame::FrameSelector;
use crate::compact::doc::{CompactingOutput, SystemOutput};
use crate::compact::frame_context;
use crate::compact::id::IdMinter;
use crate::compact::inject::{self, Position};
use crate::compact::notice;
use crate::error::{Error, ExitCode, Result};
use crate::frame::ops;
use crate::frame::state::State;
use crate::frame::store::Store;
use crate::swarm::hooks::{self, Wanted};

pub fn run(ctx: &mut Context, command: CompactCommand) -> Result<ExitCode> {
    match command {
        CompactCommand::Render {
            sources,
            format,
            prompt,
        } => render(ctx, &sources, format, prompt)?,
        CompactCommand::Notice {
            selector,
            format,
            host,
        } => notice(ctx, &selector, format, host)?,
        CompactCommand::Inject {
            at,
            sources,
            budget_warning,
            text,
            text_file,
            role,
        } => {
            let given = given_text(text, text_file)?;
            let role = new_message_role(&at, role)?;
            inject(ctx, &at, &sources, budget_warning, given, role)?
        }
    }
    Ok(ExitCode::Success)
}

/// The entries of each source, in output order.
#[derive(Default)]
struct Entries {
    swarm: Vec<String>,
    system: Vec<String>,
    frame: Option<String>,
}

impl Entries {
    fn all(self) -> Vec<String> {
        let mut all = self.swarm;
        all.extend(self.system);
        all.extend(self.frame);
        all
    }
}

/// The requested sources, deduplicated, in output order; `None` when defaulted.
fn requested(args: &SourceArgs) -> Option<Vec<SourceArg>> {
    if args.sources.is_empty() {
        return None;
    }
    let mut sources = args.sources.clone();
    sources.sort_unstable();
    sources.dedup();
    Some(sources)
}

fn load_state(ctx: &Context) -> Result<State> {
    ctx.read_state(&Store::new(&ctx.project.root))
}

/// Renders the requested (or every existing) source. Each source is read on its own: one that
/// fails (a broken state file, say) is a warning and the others still render; it is the error
/// only when nothing else renders.
fn gather(ctx: &Context, args: &SourceArgs, only_frame: bool) -> Result<Entries> {
    let explicit = requested(args);
    let wants = |source: SourceArg| match &explicit {
        Some(list) => list.contains(&source),
        None => source != SourceArg::System && (!only_frame || source == SourceArg::Frame),
    };
    let mut entries = swarm_entries(
        ctx,
        Wanted {
            compaction: wants(SourceArg::Swarm),
            system: wants(SourceArg::System),
            agent: args.agent.as_deref(),
        },
    );
    if !wants(SourceArg::Frame) {
        return Ok(entries);
    }
    let frame = frame_entry(ctx, args, explicit.is_some() || only_frame, &mut entries);
    match frame {
        Ok(xml) => entries.frame = xml,
        Err(err) if entries.swarm.is_empty() && entries.system.is_empty() => return Err(err),
        Err(err) => ctx
            .out
            .warn(&format!("{}; the frame context is left out", err.message)),
    }
    Ok(entries)
}

/// opencode-swarm's entries, unless OpenCode loads opencode-swarm in this project: the plugin
/// then adds the same entries itself, and twice would only cost the model tokens. OpenCode's
/// configs are looked at only when `.swarm/` gives entries.
fn swarm_entries(ctx: &Context, wanted: Wanted) -> Entries {
    if !wanted.compaction && !wanted.system {
        return Entries::default();
    }
    let root = &ctx.project.root;
    let read = hooks::entries(root, wanted);
    for note in &read.notes {
        ctx.out.note(note);
    }
    for warning in &read.warnings {
        ctx.out.warn(warning);
    }
    if read.compaction.is_empty() && read.system.is_empty() {
        return Entries::default();
    }
    let loaded = hooks::loaded_by_opencode(root);
    for warning in &loaded.warnings {
        ctx.out.warn(warning);
    }
    if let Some(config) = &loaded.by {
        ctx.out.note(&format!(
            "{config} loads opencode-swarm, which adds its own entries: ctx leaves them out"
        ));
        return Entries::default();
    }
    Entries {
        swarm: read.compaction,
        system: read.system,
        frame: None,
    }
}

/// The frame context of the current frame (`None` when there is none and none was required),
/// after the swarm and system entries that fit `--max-tokens` were kept.
fn frame_entry(
    ctx: &Context,
    args: &SourceArgs,
    required: bool,
    entries: &mut Entries,
) -> Result<Option<String>> {
    let settings = frame_settings(ctx);
    // The other entries come first under a cap, whatever becomes of the frame context.
    let left = args.max_tokens.map(|cap| fit_to_cap(ctx, entries, cap));
    let mut settings = settings?;
    if let Some(left) = left {
        settings.budgets.total = left;
    }
    let state = load_state(ctx)?;
    let selector = selector(&args.selector)?;
    let current = if required {
        Some(ops::require_current(&state, &selector)?)
    } else {
        ops::current(&state, &selector)?
    };
    match current {
        Some(current) => Ok(Some(
            frame_context::render(&state, &current, &settings)?.xml,
        )),
        None => Ok(None),
    }
}

/// Keeps the swarm and system entries that fit under `cap` (in order) and returns what is left
/// for the frame context.
fn fit_to_cap(ctx: &Context, entries: &mut Entries, cap: u64) -> u64 {
    let est = |text: &str| Method::Flame.count(text);
    let mut left = cap;
    let mut kept = 0usize;
    for list in [&mut entries.swarm, &mut entries.system] {
        list.retain(|entry| {
            let cost = est(entry) + u64::from(kept > 0);
            if cost <= left {
                left -= cost;
                kept += 1;
                true
            } else {
                let head: String = entry.chars().take(24).collect();
                ctx.out.warn(&format!(
                    "--max-tokens {cap} leaves no room for the entry '{head}…'; left out"
                ));
                false
            }
        });
    }
    left.saturating_sub(u64::from(kept > 0))
}

fn print_json<T: Serialize>(ctx: &mut Context, doc: &T) -> Result<()> {
    let mut text = serde_json::to_string(doc).map_err(|e| Error::failure(e.to_string()))?;
    text.push('\n');
    ctx.out.write(&text)
}

fn render(
    ctx: &mut Context,
    args: &SourceArgs,
    format: Option<RenderFormat>,
    prompt: Option<String>,
) -> Result<()> {
    let format = match format {
        Some(format) => format,
        None if ctx.out.json => RenderFormat::Json,
        None => RenderFormat::Text,
    };
    if prompt.is_some() && format != RenderFormat::Json {
        return Err(Error::usage(
            "--prompt goes into the JSON output only; add --format json",
        ));
    }
    if prompt.as_deref().is_some_and(|p| p.trim().is_empty()) {
        return Err(Error::failure("--prompt must not be empty"));
    }
    let explicit = requested(args);
    if format == RenderFormat::Xml
        && explicit
            .as_ref()
            .is_some_and(|list| list.iter().any(|s| *s != SourceArg::Frame))
    {
        return Err(Error::usage(
            "--format xml prints the frame context only; drop --for swarm and --for system",
        ));
    }
    let entries = gather(ctx, args, format == RenderFormat::Xml)?;
    match format {
        RenderFormat::Xml => {
            let xml = entries.frame.unwrap_or_default();
            ctx.out.contract_line(&xml)
        }
        RenderFormat::Json if explicit.as_deref() == Some(&[SourceArg::System]) => print_json(
            ctx,
            &SystemOutput {
                system: entries.system,
            },
        ),
        RenderFormat::Json => print_json(
            ctx,
            &CompactingOutput {
                context: entries.all(),
                prompt,
            },
        ),
        RenderFormat::Text => {
            let all = entries.all();
            if all.is_empty() {
                Ok(())
            } else {
                ctx.out.contract_line(&all.join("\n\n"))
            }
        }
    }
}

fn notice(
    ctx: &mut Context,
    args: &FrameSelector,
    format: Option<NoticeFormat>,
    host: Option<HostArg>,
) -> Result<()> {
    let state = load_state(ctx)?;
    let selector = selector(args)?;
    let id = match &selector.flag {
        Some(arg) => ops::lookup(&state, arg)?,
        None => {
            let current = ops::current(&state, &selector)?;
            notice::default_target(&state, current.as_deref()).ok_or_else(|| {
                Error::failure("no popped frame to give notice of")
                    .with_hint("pop a frame first, or pass --frame ID")
            })?
        }
    };
    let dev = std::env::var("CTX_DEV").is_ok_and(|v| v == "1" || v == "true")
        || std::env::var("NODE_ENV").is_ok_and(|v| v == "development");
    let host = match host {
        Some(HostArg::Opencode) => notice::Host::OpenCode,
        Some(HostArg::Shell) | None => notice::Host::Shell,
    };
    let notice = notice::notice(&state, &id, dev, host)?;
    match format.unwrap_or(NoticeFormat::Json) {
        NoticeFormat::Json => print_json(ctx, &notice.body()),
        NoticeFormat::Text => ctx
            .out
            .contract_line(&format!("{}\n\n{}", notice.visible, notice.hint)),
    }
}

/// The text of `--text` or `--text-file`, read before anything else.
fn given_text(text: Option<String>, file: Option<std::path::PathBuf>) -> Result<Option<String>> {
    match (text, file) {
        (Some(text), _) => Ok(Some(text)),
        (None, Some(path)) if path == std::path::Path::new("-") => Err(Error::usage(
            "--text-file cannot be '-': standard input carries the message list",
        )),
        (None, Some(path)) => crate::input::read_text(&path, 64 << 20).map(Some),
        (None, None) => Ok(None),
    }
}

/// The role of a new message: `--role` only where a message is made.
fn new_message_role(at: &Position, role: Option<RoleArg>) -> Result<inject::Role> {
    let adds_to_one = matches!(at, Position::LastUser | Position::LastAssistant);
    match role {
        Some(_) if adds_to_one => Err(Error::usage(
            "--role is for new messages (prepend, append, before:, after:); last-user and \
             last-assistant add to a message that has its role",
        )),
        Some(RoleArg::Assistant) => Ok(inject::Role::Assistant),
        Some(RoleArg::User) | None => Ok(inject::Role::User),
    }
}

fn inject(
    ctx: &mut Context,
    at: &Position,
    args: &SourceArgs,
    budget_warning: bool,
    given: Option<String>,
    role: inject::Role,
) -> Result<()> {
    // Errors in the message list name `<stdin>`, as errors in a file name its path.
    let from_stdin = |mut e: Error| {
        e.message = format!("<stdin>: {}", e.message);
        e
    };
    let input = read_stdin().map_err(from_stdin)?;
    let mut list = inject::parse_messages(&input).map_err(from_stdin)?;
    let warned = if budget_warning {
        match swarm_budget_line(ctx, &input)? {
            Some(line) => inject::prepend_to_last_user_text(&list, &line)?,
            None => None,
        }
    } else {
        None
    };
    let input = match &warned {
        Some(text) => {
            list = inject::parse_messages(text)?;
            text.as_str()
        }
        None => input.as_str(),
    };
    // With given text, sources render only when asked for.
    let entries = if given.is_some() && args.sources.is_empty() {
        Ok(Entries::default())
    } else {
        gather(ctx, args, false)
    };
    let entries = match entries {
        Ok(entries) => entries,
        // A budget warning that fired goes in even when a source cannot render (no frame yet).
        Err(err) if warned.is_some() => {
            ctx.out.warn(&format!(
                "{}; only the budget warning is added",
                err.message
            ));
            Entries::default()
        }
        Err(err) => return Err(err),
    };
    // The rendered entries asked for, then the given text, separated by a blank line.
    let mut pieces = entries.all();
    pieces.extend(given);
    let text = pieces.join("\n\n");
    if text.is_empty() {
        return ctx.out.write(input);
    }
    // The whole document exists before its first byte is written.
    let mut out = inject::inject_as(&list, at, &text, role, &mut IdMinter::new(), ctx.now)?;
    out.push('\n');
    ctx.out.write(&out)
}

/// The frame the command acts on, from its `--frame` and `--session`
/// ([`crate::app::selector::selector`]).
fn selector(args: &crate::cli::frame::FrameSelector) -> Result<crate::frame::ops::Selector> {
    crate::app::selector::selector(args.frame.as_deref(), args.session.session.as_deref())
}

//! `ctx frame …`: the frame tree from the shell (flame.md §4–§8).

use crate::app::Context;
use crate::app::pop::{PopInputs, pop, print_pop_doc};
use crate::budget::bpe::Encoding;
use crate::budget::tokenize::Method;
use crate::cli::frame::{
    ActivateArgs, ArtifactArgs, CurrentArgs, DecisionArgs, EditArgs, FrameCommand, ImportArgs,
    InvalidateArgs, LogArgs, PlanArgs, PopArgs, PopStatus, PushArgs, ReopenArgs, ShowArgs,
    SpanArgs, StatusArg, TreeArgs, TreeFormat, WeightArg,
};
use crate::document::{FiguresDoc, Version};
use crate::error::{Error, ExitCode, Result};
use crate::flamegraph;
use crate::frame::doc::{
    AddedDoc, FrameDoc, FrameJson, FramesDoc, ImportDoc, InvalidateDoc, LogDoc, ShowDoc,
    ShownFrame, TreeDoc, TreeNode,
};
use crate::frame::ops::{self, Selector};
use crate::frame::render::{self, TreeOptions};
use crate::frame::state::Frame;
use crate::frame::state::{State, Status, TreeIndex};
use crate::frame::store::{self, Store};
use crate::frame::{flame, import, log, span};
use crate::input::{label, read_text};
use crate::output::Style;

pub fn run(ctx: &mut Context, command: FrameCommand) -> Result<ExitCode> {
    let store = ctx.store()?;
    let stray = crate::app::stray::stray_state(&ctx.project);
    let result = dispatch(ctx, &store, command);
    // The first write of this project's own state: the frames it may have had are still in the
    // home folder, once (from now on the project has a state, and this is not said again).
    if let Some(stray) = &stray
        && store.path().exists()
    {
        crate::app::stray::point_to_stray_state(ctx, stray);
    }
    result
}

fn dispatch(ctx: &mut Context, store: &Store, command: FrameCommand) -> Result<ExitCode> {
    match command {
        FrameCommand::Push(args) => push(ctx, store, &args),
        FrameCommand::Pop(args) => cmd_pop(ctx, store, args),
        FrameCommand::Tree(args) => tree(ctx, store, &args),
        FrameCommand::Show(args) => show(ctx, store, &args),
        FrameCommand::Current(args) => current(ctx, store, &args),
        FrameCommand::Plan(args) => plan(ctx, store, &args),
        FrameCommand::Activate(args) => activate(ctx, store, &args),
        FrameCommand::Invalidate(args) => invalidate(ctx, store, &args),
        FrameCommand::Artifact(args) => artifact(ctx, store, &args),
        FrameCommand::Decision(args) => decision(ctx, store, &args),
        FrameCommand::Reopen(args) => reopen(ctx, store, &args),
        FrameCommand::Edit(args) => edit(ctx, store, args),
        FrameCommand::Import(args) => import(ctx, store, args),
        FrameCommand::Log(args) => show_log(ctx, store, &args),
    }
}

fn status_of(arg: StatusArg) -> Status {
    match arg {
        StatusArg::InProgress => Status::InProgress,
        StatusArg::Planned => Status::Planned,
        StatusArg::Completed => Status::Completed,
        StatusArg::Failed => Status::Failed,
        StatusArg::Blocked => Status::Blocked,
        StatusArg::Invalidated => Status::Invalidated,
    }
}

fn print_frame_doc(ctx: &mut Context, state: &State, id: &str) -> Result<()> {
    let frame = state.frame(id).expect("the id was just resolved");
    if ctx.out.json {
        ctx.out.json_doc(&FrameDoc {
            version: Version,
            frame: FrameJson::new(&frame),
        })
    } else {
        ctx.out.line(id)
    }
}

fn push(ctx: &mut Context, store: &Store, args: &PushArgs) -> Result<ExitCode> {
    let (goal, parent, adopted) = (&args.goal, args.parent.as_deref(), args.id.as_deref());
    let selector = selector(&args.selector)?;
    let now = ctx.now;
    let ((id, note), state) = store.update(now, |state| {
        let (parent, note) = match parent {
            Some(arg) => (Some(ops::named(state, "--parent", arg, &selector)?), None),
            None => ops::push_parent(state, &selector)?,
        };
        let id = ops::push(
            state,
            goal,
            parent.as_deref(),
            adopted,
            selector.place(),
            now,
        )?;
        span::open(state, &id, selector.place(), span_mark(&args.span, now));
        Ok(((id, note), true))
    })?;
    if let Some(note) = note {
        ctx.out.warn(&note);
    }
    print_frame_doc(ctx, &state, &id)?;
    Ok(ExitCode::Success)
}

/// Where in its session a change was made, as `--span-message`/`--span-call` say.
fn span_mark(args: &SpanArgs, now: i64) -> span::Mark {
    span::Mark::new(now, args.span_message.as_deref(), args.span_call.as_deref())
}

/// Pops the target of `selector` (flame.md §6.2) and writes its log, then prints.
fn cmd_pop(ctx: &mut Context, store: &Store, args: PopArgs) -> Result<ExitCode> {
    let mut inputs = PopInputs::read(args.summary, args.summary_file, args.transcript)?;
    inputs.invalidate_planned = args.invalidate_planned;
    let status = match args.status {
        PopStatus::Completed => Status::Completed,
        PopStatus::Failed => Status::Failed,
        PopStatus::Blocked => Status::Blocked,
    };
    let selector = selector(&args.selector)?;
    let at = span_mark(&args.span, ctx.now);
    let (plan, state) = pop(ctx, store, status, inputs, args.force, &selector, at)?;
    print_pop(ctx, store, &plan, &state, &selector)
}

/// A pop's output: the frame now current for the selector's place (JSON: the whole document).
fn print_pop(
    ctx: &mut Context,
    store: &Store,
    plan: &ops::PopPlan,
    state: &State,
    selector: &Selector,
) -> Result<ExitCode> {
    let now_current = ops::running_current(state, selector.place())?;
    if ctx.out.json {
        print_pop_doc(ctx, store, plan, state, now_current)?;
    } else if let Some(current) = &now_current {
        ctx.out.line(current)?;
    }
    Ok(ExitCode::Success)
}

fn tree(ctx: &mut Context, store: &Store, args: &TreeArgs) -> Result<ExitCode> {
    match (args.format, args.weight) {
        (TreeFormat::Svg, _) => {
            if args.details || args.ascii || args.depth.is_some() || !args.status.is_empty() {
                return Err(Error::usage(
                    "--details, --ascii, --depth and --status shape the text tree; \
                     --format svg takes --from and --weight",
                ));
            }
            tree_svg(ctx, store, args)
        }
        (TreeFormat::Text, Some(_)) => Err(Error::usage(
            "--weight sizes the boxes of --format svg; the text tree has no widths",
        )),
        (TreeFormat::Text, None) => tree_text(ctx, store, args),
    }
}

/// What both drawings of the tree start from: the state, `--from`'s frame and the current one.
fn tree_scope(
    ctx: &Context,
    store: &Store,
    args: &TreeArgs,
) -> Result<(State, Option<String>, Option<String>)> {
    let state = ctx.read_state(store)?;
    let from = args
        .from
        .as_deref()
        .map(|arg| ops::lookup(&state, arg))
        .transpose()?;
    let current = ops::current(&state, &selector(&args.selector)?)?;
    Ok((state, from, current))
}

fn tree_text(ctx: &mut Context, store: &Store, args: &TreeArgs) -> Result<ExitCode> {
    let statuses: Vec<Status> = args.status.iter().map(|s| status_of(*s)).collect();
    let (details, ascii, depth) = (args.details, args.ascii, args.depth.map(|d| d as usize));
    let (state, from, current) = tree_scope(ctx, store, args)?;
    // `--frame` picks a frame to look at; the current frame is still the one the other
    // selectors give, and is marked as such.
    let (selected, current) = match &args.selector.frame {
        Some(_) => {
            let mut others = selector(&args.selector)?;
            others.flag = None;
            (current, ops::current(&state, &others)?)
        }
        None => (None, current),
    };
    let (after, seen) = quiet_sessions(ctx, store, &state)?;
    let last_request = |id: &str| seen.get(id).copied();
    let quiet = crate::frame::stale::Quiet {
        now: ctx.now,
        after,
        last_request: &last_request,
    };
    if ctx.out.json {
        let current = selected.clone().or(current);
        let index = TreeIndex::new(&state);
        let mut roots: Vec<TreeNode> = match &from {
            Some(id) => vec![TreeNode::new(&state, &index, id)],
            None => index
                .roots
                .iter()
                .map(|r| TreeNode::new(&state, &index, r))
                .collect(),
        };
        for root in &mut roots {
            root.add_stale(&state, Some(&quiet));
        }
        if args.cost {
            let (own, total) = crate::app::spent::frame_costs(ctx, &state)?;
            let docs = |figures: &[crate::spent::figures::Figures]| -> Vec<FiguresDoc> {
                figures.iter().map(FiguresDoc::from).collect()
            };
            let (own, total) = (docs(&own), docs(&total));
            for root in &mut roots {
                root.add_costs(&state, &own, &total);
            }
        }
        ctx.out.json_doc(&TreeDoc {
            version: Version,
            current,
            roots,
        })?;
        return Ok(ExitCode::Success);
    }
    if state.is_empty() {
        ctx.out
            .note("no frames yet; start one with: ctx frame push \"<goal>\"");
        return Ok(ExitCode::Success);
    }
    let costs = match args.cost {
        true => {
            let (_, total) = crate::app::spent::frame_costs(ctx, &state)?;
            Some(move |pos: usize| {
                let doc = FiguresDoc::from(&total[pos]);
                format!(
                    "{:>10} {:>7}  ",
                    crate::spent::render::cost(&doc),
                    crate::spent::render::tokens(doc.tokens.total)
                )
            })
        }
        false => None,
    };
    let out = &ctx.out;
    let paint = |status: Status, line: &str| match status {
        Status::InProgress => out.paint(Style::Bold, line),
        Status::Completed => out.paint(Style::Green, line),
        Status::Failed => out.paint(Style::Red, line),
        Status::Blocked => out.paint(Style::Yellow, line),
        Status::Invalidated => out.paint(Style::Dim, line),
        Status::Planned => out.paint(Style::Blue, line),
    };
    let text = render::tree_text(
        &state,
        &TreeOptions {
            from: from.as_deref(),
            details,
            ascii,
            width: out.width,
            current: current.as_deref(),
            selected: selected.as_deref(),
            depth,
            statuses: &statuses,
            paint: &paint,
            quiet: Some(&quiet),
            column: costs.as_ref().map(|c| c as &dyn Fn(usize) -> String),
        },
    );
    ctx.out.write(&text)?;
    Ok(ExitCode::Success)
}

/// When the sessions of running frames with a parent (a subagent's own frame, a frame a session
/// pushed), and the sessions they run under, last called the model, by session id, and how long
/// one may go without (`frame.stale_after`, in milliseconds). The setting is read only when
/// there is such a record: a tree with none needs no settings file.
fn quiet_sessions(
    ctx: &Context,
    store: &Store,
    state: &State,
) -> Result<(i64, std::collections::HashMap<String, i64>)> {
    // The session of each running frame with a parent, and the session that one runs under: a
    // subagent is told by its parent session's record.
    let sessions: std::collections::BTreeSet<String> = state
        .frames()
        .filter(|f| f.status() == Status::InProgress && f.parent().is_some())
        .flat_map(|f| {
            let session = crate::frame::stale::session_of(&f);
            let parents = crate::frame::stale::parent_session(state, &session);
            std::iter::once(session).chain(parents)
        })
        .collect();
    let seen: std::collections::HashMap<String, i64> = sessions
        .into_iter()
        .filter_map(|session| {
            // Ids from the state file, checked as any file's are.
            let id = crate::frame::id::SessionId::parse(&session).ok()?;
            let last = crate::compact::session::last_request(store, &id)?;
            Some((session, last))
        })
        .collect();
    if seen.is_empty() {
        return Ok((0, seen));
    }
    // The tree is drawn whatever the settings say: a settings file ctx cannot read costs the
    // quiet marks only, with a warning.
    let setting = ctx
        .settings()
        .and_then(|settings| settings.count(&crate::settings::FRAME_STALE_AFTER));
    let minutes = match setting {
        Ok(minutes) => minutes,
        Err(e) => {
            ctx.out.warn(&format!(
                "{e}; no frame is marked stale for a quiet session"
            ));
            return Ok((0, seen));
        }
    };
    let after = i64::try_from(minutes.saturating_mul(60_000)).unwrap_or(i64::MAX);
    Ok((after, seen))
}

/// `frame tree --format svg`: the flame graph of the tree or of `--from`'s branch.
fn tree_svg(ctx: &mut Context, store: &Store, args: &TreeArgs) -> Result<ExitCode> {
    let (state, from, current) = tree_scope(ctx, store, args)?;
    // The picture's clock: the process's, unless SOURCE_DATE_EPOCH fixes it.
    let now = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .map_or(ctx.now, |s| s.saturating_mul(1000));
    // --weight cost: a frame's own model calls in micro-dollars (recorded or estimated).
    let cost = match args.weight {
        Some(WeightArg::Cost) => {
            let (own, _) = crate::app::spent::frame_costs(ctx, &state)?;
            let state = &state;
            Some(move |frame: &Frame<'_>| -> u64 {
                state
                    .position(frame.id)
                    .and_then(|pos| own.get(pos))
                    .map_or(0, |f| ((f.recorded + f.estimated) * 1e6).round() as u64)
            })
        }
        _ => None,
    };
    let counter = Method::Exact(Encoding::O200k);
    // A frame's own context: its summary and decisions, and its log, read only as
    // `logs/frame-<id>.md` of this store (a frame id names no other file).
    let tokens = |frame: &Frame<'_>| -> u64 {
        let texts = frame.summary().into_iter().chain(frame.decisions());
        let mut total: u64 = texts.map(|text| counter.count(text)).sum();
        if frame.log_path().is_some()
            && let Ok(text) = std::fs::read_to_string(store.log_file(&frame.frame_id()))
        {
            total += counter.count(&text);
        }
        total
    };
    let graph = flame::graph(
        &state,
        &flame::Options {
            from: from.as_deref(),
            weight: match args.weight.unwrap_or(WeightArg::Time) {
                WeightArg::Time => flame::Weight::Time,
                WeightArg::Frames => flame::Weight::Frames,
                WeightArg::Tokens => flame::Weight::Tokens,
                WeightArg::Cost => flame::Weight::Cost,
            },
            now,
            current: current.as_deref(),
        },
        match &cost {
            Some(cost) => cost,
            None => &tokens,
        },
    );
    ctx.out.write(&flamegraph::svg(&graph))?;
    Ok(ExitCode::Success)
}

fn show(ctx: &mut Context, store: &Store, args: &ShowArgs) -> Result<ExitCode> {
    let state = ctx.read_state(store)?;
    let id = ops::target(&state, args.id.as_deref(), &selector(&args.selector)?)?;
    let frame = state.frame(&id).expect("the id was just resolved");
    let cost = match args.cost {
        true => {
            let (own, total) = crate::app::spent::frame_costs(ctx, &state)?;
            let pos = state.position(&id).expect("the id was just resolved");
            Some(crate::frame::doc::FrameCostDoc {
                own: (&own[pos]).into(),
                total: (&total[pos]).into(),
            })
        }
        false => None,
    };
    if ctx.out.json {
        ctx.out.json_doc(&ShowDoc {
            cost,
            version: Version,
            frame: ShownFrame {
                frame: FrameJson::new(&frame),
                extra: {
                    let mut extra = crate::json::Object::new();
                    for (key, value) in frame.extra() {
                        extra.push_new(key.to_string(), value.clone());
                    }
                    extra
                },
            },
        })?;
    } else {
        ctx.out.write(&render::show_text(&frame))?;
        if let Some(cost) = cost {
            use crate::spent::render::{cost as usd, tokens};
            ctx.out.write(&format!(
                "cost: {} own, {} with everything below\ntokens: {} own, {} with everything below\n",
                usd(&cost.own),
                usd(&cost.total),
                tokens(cost.own.tokens.total),
                tokens(cost.total.tokens.total)
            ))?;
        }
    }
    Ok(ExitCode::Success)
}

fn current(ctx: &mut Context, store: &Store, args: &CurrentArgs) -> Result<ExitCode> {
    let state = ctx.read_state(store)?;
    let id = ops::require_current(&state, &selector(&args.selector)?)?;
    print_frame_doc(ctx, &state, &id)?;
    Ok(ExitCode::Success)
}

fn plan(ctx: &mut Context, store: &Store, args: &PlanArgs) -> Result<ExitCode> {
    let (goals, parent) = (&args.goals, args.parent.as_deref());
    let selector = selector(&args.selector)?;
    let now = ctx.now;
    let (ids, state) = store.update(now, |state| {
        let parent = match parent {
            Some(arg) => ops::named(state, "--parent", arg, &selector)?,
            None => ops::current(state, &selector)?
                .ok_or_else(|| Error::failure("no current frame").with_hint("pass --parent ID"))?,
        };
        let ids = ops::plan(state, &parent, goals, now)?;
        Ok((ids, true))
    })?;
    if ctx.out.json {
        let frames: Vec<FrameJson> = ids
            .iter()
            .map(|id| FrameJson::new(&state.frame(id).expect("just planned")))
            .collect();
        ctx.out.json_doc(&FramesDoc {
            version: Version,
            frames,
        })?;
    } else {
        for id in &ids {
            ctx.out.line(id)?;
        }
    }
    Ok(ExitCode::Success)
}

/// Activating names its frame: `--session` says whose place moves, and there is no `--frame`.
fn activate(ctx: &mut Context, store: &Store, args: &ActivateArgs) -> Result<ExitCode> {
    let arg = &args.id;
    let selector = Selector {
        session: (args.session.session.as_deref())
            .map(crate::frame::id::SessionId::parse)
            .transpose()?,
        ..Selector::default()
    };
    let now = ctx.now;
    let (id, state) = store.update(now, |state| {
        let id = ops::lookup(state, arg)?;
        ops::activate(state, &id, selector.place(), now)?;
        span::resume(state, &id, selector.place(), span_mark(&args.span, now));
        Ok((id, true))
    })?;
    print_frame_doc(ctx, &state, &id)?;
    Ok(ExitCode::Success)
}

fn invalidate(ctx: &mut Context, store: &Store, args: &InvalidateArgs) -> Result<ExitCode> {
    let (arg, reason, dry_run) = (args.id.as_deref(), &args.reason, args.dry_run);
    let selector = selector(&args.selector)?;
    let now = ctx.now;
    let change = if dry_run {
        let state = ctx.read_state(store)?;
        let id = ops::target(&state, arg, &selector)?;
        ops::plan_invalidation(&state, &id, reason)?
    } else {
        store
            .update(now, |state| {
                let id = ops::target(state, arg, &selector)?;
                let change = ops::plan_invalidation(state, &id, reason)?;
                ops::apply_invalidation(state, &change, reason, now)?;
                span::close(state, &id, selector.place(), span_mark(&args.span, now));
                Ok((change, true))
            })?
            .0
    };
    if !change.in_progress.is_empty() {
        ctx.out.warn(&format!(
            "{} in_progress descendant(s) left as they are: {}",
            change.in_progress.len(),
            change.in_progress.join(", ")
        ));
    }
    if ctx.out.json {
        ctx.out.json_doc(&InvalidateDoc {
            version: Version,
            invalidated: change.invalidated.clone(),
            in_progress_descendants: change.in_progress.clone(),
            dry_run,
        })?;
    } else {
        for id in &change.invalidated {
            ctx.out.line(id)?;
        }
    }
    Ok(ExitCode::Success)
}

fn artifact(ctx: &mut Context, store: &Store, args: &ArtifactArgs) -> Result<ExitCode> {
    let paths = &args.paths;
    let selector = selector(&args.selector)?;
    let now = ctx.now;
    let ((id, added), state) = store.update(now, |state| {
        let id = ops::require_current(state, &selector)?;
        let added = ops::add_artifacts(state, &id, paths, now)?;
        let changed = !added.is_empty();
        Ok(((id, added), changed))
    })?;
    if ctx.out.json {
        let frame = state.frame(&id).expect("the id was just resolved");
        ctx.out.json_doc(&AddedDoc {
            version: Version,
            frame: FrameJson::new(&frame),
            added,
        })?;
    }
    Ok(ExitCode::Success)
}

fn decision(ctx: &mut Context, store: &Store, args: &DecisionArgs) -> Result<ExitCode> {
    let texts = &args.texts;
    let selector = selector(&args.selector)?;
    let now = ctx.now;
    let ((id, added), state) = store.update(now, |state| {
        let id = ops::require_current(state, &selector)?;
        let added = ops::add_decisions(state, &id, texts, now)?;
        let changed = !added.is_empty();
        Ok(((id, added), changed))
    })?;
    if ctx.out.json {
        let frame = state.frame(&id).expect("the id was just resolved");
        ctx.out.json_doc(&AddedDoc {
            version: Version,
            frame: FrameJson::new(&frame),
            added,
        })?;
    }
    Ok(ExitCode::Success)
}

fn reopen(ctx: &mut Context, store: &Store, args: &ReopenArgs) -> Result<ExitCode> {
    let arg = &args.id;
    let now = ctx.now;
    let (id, state) = store.update(now, |state| {
        let id = ops::lookup(state, arg)?;
        ops::reopen(state, &id, now)?;
        Ok((id, true))
    })?;
    print_frame_doc(ctx, &state, &id)?;
    Ok(ExitCode::Success)
}

fn edit(ctx: &mut Context, store: &Store, args: EditArgs) -> Result<ExitCode> {
    let moved = match (&args.before, &args.after) {
        (Some(sibling), _) => Some((sibling.as_str(), false)),
        (None, Some(sibling)) => Some((sibling.as_str(), true)),
        (None, None) => None,
    };
    let inputs = PopInputs::read(args.summary.clone(), args.summary_file.clone(), None)?;
    let correction = &ops::Correction {
        goal: args.goal.as_deref(),
        summary: inputs.summary.as_deref(),
        remove_artifacts: &args.remove_artifact,
        remove_decisions: &args.remove_decision,
        moved,
    };
    let arg = args.id.as_deref();
    let selector = selector(&args.selector)?;
    let now = ctx.now;
    let ((id, log_note), state) = store.update(now, |state| {
        let id = ops::target(state, arg, &selector)?;
        let before = state.frame(&id).expect("the id was just resolved");
        let (old_goal, old_summary) = (
            before.goal().to_string(),
            before.summary().map(str::to_string),
        );
        let frame_id = before.frame_id();
        let log_file = before.log_path().map(|_| store.log_file(&frame_id));
        ops::edit(state, &id, correction, now)?;
        // A popped frame's log says what the frame was: it follows the correction, or is left
        // alone, with a warning, when it is no longer laid out as ctx wrote it.
        let mut note = None;
        if let Some(log_file) = log_file
            && let Ok(text) = std::fs::read_to_string(&log_file)
        {
            match log::amend(
                &text,
                &old_goal,
                old_summary.as_deref(),
                correction.goal,
                correction.summary,
            ) {
                Some(amended) => store.write_log(&frame_id, &amended)?,
                None => {
                    note = Some(format!(
                        "{} was not brought in step: it is not laid out as ctx wrote it",
                        log_file.display()
                    ))
                }
            }
        }
        Ok(((id, note), true))
    })?;
    if let Some(note) = log_note {
        ctx.out.warn(&note);
    }
    print_frame_doc(ctx, &state, &id)?;
    Ok(ExitCode::Success)
}

fn show_log(ctx: &mut Context, store: &Store, args: &LogArgs) -> Result<ExitCode> {
    let path_only = args.path;
    let state = ctx.read_state(store)?;
    let id = ops::target(&state, args.id.as_deref(), &selector(&args.selector)?)?;
    let frame = state.frame(&id).expect("the id was just resolved");
    let Some(relative) = frame.log_path() else {
        return Err(Error::failure(format!(
            "{id} has no log yet (it is {})",
            frame.status()
        )));
    };
    if !store::is_contained_relative(relative) {
        return Err(Error::failure(format!(
            "{}: /frames/{id}/logPath '{relative}' leaves .opencode/flame/; refusing to read it",
            store.path().display()
        )));
    }
    let path = store.dir().join(relative);
    if path_only {
        if ctx.out.json {
            ctx.out.json_doc(&LogDoc {
                version: Version,
                id,
                path: path.display().to_string(),
                text: None,
            })?;
        } else {
            ctx.out.line(&path.display().to_string())?;
        }
        return Ok(ExitCode::Success);
    }
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, "read the log", &e))?;
    if ctx.out.json {
        ctx.out.json_doc(&LogDoc {
            version: Version,
            id,
            path: path.display().to_string(),
            text: Some(String::from_utf8_lossy(&bytes).into_owned()),
        })?;
    } else {
        // Byte for byte to a pipe; on a terminal, nothing in it may act on the terminal.
        if ctx.out.stdout_is_terminal {
            ctx.out.contract(&String::from_utf8_lossy(&bytes))?;
        } else {
            ctx.out.write_bytes(&bytes)?;
        }
    }
    Ok(ExitCode::Success)
}

fn import(ctx: &mut Context, store: &Store, args: ImportArgs) -> Result<ExitCode> {
    let path = args
        .path
        .unwrap_or_else(|| ctx.project.root.join(".opencode/stack/state.json"));
    let text = read_text(&path, 512 << 20)?;
    let now = ctx.now;
    let (outcome, _) = store.update(now, |state| {
        let (merged, outcome) = import::import(state, &text, now).map_err(|e| Error {
            message: format!("{}: {}", label(&path), e.message),
            ..e
        })?;
        *state = merged;
        let changed = !outcome.imported.is_empty();
        Ok((outcome, changed))
    })?;
    if !outcome.skipped.is_empty() {
        ctx.out.warn(&format!(
            "skipped {} existing frame(s): {}",
            outcome.skipped.len(),
            outcome.skipped.join(", ")
        ));
    }
    if ctx.out.json {
        ctx.out.json_doc(&ImportDoc {
            version: Version,
            imported: outcome.imported.clone(),
            skipped: outcome.skipped.clone(),
        })?;
    } else {
        for id in &outcome.imported {
            ctx.out.line(id)?;
        }
    }
    Ok(ExitCode::Success)
}

/// The frame the command acts on, from its `--frame` and `--session`
/// ([`crate::app::selector::selector`]).
fn selector(args: &crate::cli::frame::FrameSelector) -> Result<crate::frame::ops::Selector> {
    crate::app::selector::selector(args.frame.as_deref(), args.session.session.as_deref())
}

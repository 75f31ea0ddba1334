//! `ctx opencode messages`: the message list an OpenCode session is about to send, as ctx's
//! plugin passes it from `experimental.chat.messages.transform`, with popped frames folded and the
//! frame context anchored (`compact::fold`); with `opencode.fold = off`, the frame context added
//! to the last user message, as before folding existed. `ctx pi messages`: the same for pi's
//! message list (`compact::fold::pi`), with pi's settings (`pi.fold`, `pi.fold_user_messages`).
//! Both fold the session's closed turn frames (`frame.auto`) too (`compact::fold::turns`).

use super::Context;
use super::frame_context::{read_stdin, session_frame_context, swarm_budget_line};
use crate::compact::fold::turns::{Todo, Turn};
use crate::compact::fold::{self, Anchor, OpenCode, Popped, Shape, valve};
use crate::compact::frame_context::Said;
use crate::compact::id::IdMinter;
use crate::compact::inject::{self, MessageList, Position};
use crate::compact::session::{self, Read, Recorded};
use crate::error::{Error, ExitCode, Result};
use crate::frame::id::SessionId;
use crate::frame::state::State;
use crate::frame::store::Store;
use crate::frame::{auto, span};
use crate::settings;

/// `compacts_at`: where the session's model compacts, in tokens, when the plugin knows its
/// limits; the pressure valve keeps each request below it.
pub fn run(
    ctx: &mut Context,
    session: &SessionId,
    budget_warning: bool,
    compacts_at: Option<u64>,
) -> Result<ExitCode> {
    let input = read_stdin().map_err(from_stdin)?;
    let list = inject::parse_messages(&input).map_err(from_stdin)?;
    let (fold_on, keep_user) = fold_settings(
        ctx,
        &settings::OPENCODE_FOLD,
        &settings::OPENCODE_FOLD_USER_MESSAGES,
    )?;
    let store = ctx.store()?;
    let mut state = ctx.read_state(&store)?;
    let auto = ctx.auto_frames()?;
    // The item frames come from the calls this request holds; a failure to keep them costs the
    // request none of its folds.
    if auto.todos {
        match super::todo::sync(ctx, &store, session, &list, &state) {
            Ok(Some(after)) => state = after,
            Ok(None) => {}
            Err(err) => ctx.out.warn(&format!(
                "{}; the todo frames are kept at the next request",
                err.message
            )),
        }
    }
    let mut out = if fold_on {
        let turns = closed_turns(ctx, &state, session);
        let todos = closed_todos(&state, session);
        let left = open_todos(&state, session);
        let how = How {
            keep_user,
            turns: &turns,
            todos: &todos,
            left: &left,
            lists: auto.todos,
            compacts_at,
            fold_after: fold_after(ctx)?,
        };
        folded(ctx, &store, &state, &OpenCode, &list, session, &how)?
    } else {
        let out = unfolded(ctx, &state, &list, session)?;
        record_unfolded(ctx, &store, &state, session)?;
        out
    };
    if budget_warning && let Some(line) = swarm_budget_line(ctx, &out)? {
        let warned = inject::parse_messages(&out)?;
        if let Some(text) = inject::prepend_to_last_user_text(&warned, &line)? {
            out = text;
        }
    }
    out.push('\n');
    ctx.out.write(&out)?;
    Ok(ExitCode::Success)
}

/// `ctx pi messages`: pi's message list with the session's popped frames and closed turns folded.
/// A message ctx does not know passes unchanged, with a warning; with `pi.fold = off` the list passes
/// unchanged (the frame context comes with pi's own before_agent_start message), and the model
/// call is recorded all the same.
pub fn run_pi(
    ctx: &mut Context,
    session: &SessionId,
    compacts_at: Option<u64>,
) -> Result<ExitCode> {
    let input = read_stdin().map_err(from_stdin)?;
    let parsed = fold::pi::parse(&input).map_err(from_stdin)?;
    for warning in &parsed.warnings {
        ctx.out.warn(&format!("<stdin>: {warning}"));
    }
    // pi's own settings: a person may fold in one agent and not in the other.
    let (fold_on, keep_user) =
        fold_settings(ctx, &settings::PI_FOLD, &settings::PI_FOLD_USER_MESSAGES)?;
    let store = ctx.store()?;
    let state = ctx.read_state(&store)?;
    let mut out = if fold_on {
        let turns = closed_turns(ctx, &state, session);
        let how = How {
            keep_user,
            turns: &turns,
            todos: &[],
            left: &[],
            lists: false,
            compacts_at,
            fold_after: fold_after(ctx)?,
        };
        folded(
            ctx,
            &store,
            &state,
            &fold::pi::Pi,
            &parsed.list,
            session,
            &how,
        )?
    } else {
        record_unfolded(ctx, &store, &state, session)?;
        inject::write_unchanged(&parsed.list)
    };
    out.push('\n');
    ctx.out.write(&out)?;
    Ok(ExitCode::Success)
}

/// An error reading or parsing the message list, named as stdin's.
fn from_stdin(mut e: Error) -> Error {
    e.message = format!("<stdin>: {}", e.message);
    e
}

/// An agent's folding settings: whether it folds (`fold`), and whether a person's messages
/// inside a popped frame are kept (`user_messages`).
fn fold_settings(
    ctx: &Context,
    fold: &settings::Def,
    user_messages: &settings::Def,
) -> Result<(bool, bool)> {
    let settings = ctx.settings()?;
    Ok((settings.on(fold)?, settings.text(user_messages)? == "keep"))
}

/// `frame.fold_after`: the person's messages a closed auto-frame waits for before it folds.
fn fold_after(ctx: &Context) -> Result<usize> {
    let after = ctx.settings()?.count(&settings::FRAME_FOLD_AFTER)?;
    Ok(usize::try_from(after).unwrap_or(usize::MAX))
}

/// With folding off, records the model call of a session that has a frame, as folding does:
/// what the model is sent is the agent's setting, but a quiet subagent is told by this record
/// (`frame.stale_after`) whatever it says.
fn record_unfolded(ctx: &Context, store: &Store, state: &State, session: &SessionId) -> Result<()> {
    if state.frame(session).is_some() {
        let recorded = read_session(ctx, store, session)?;
        if recorded
            .as_ref()
            .is_none_or(|seen| seen.doc.records_request(ctx.now))
        {
            record(ctx, store, session, recorded.as_ref(), None, &[])?;
        }
    }
    Ok(())
}

/// `opencode.fold = off`: the frame context at the end of the last user message, re-rendered for
/// every request.
fn unfolded(ctx: &Context, state: &State, list: &MessageList<'_>, session: &str) -> Result<String> {
    let has_user = list.messages().iter().any(|m| m.role() == "user");
    match session_frame_context(ctx, state, session, None)? {
        Some(xml) if has_user => inject::inject(
            list,
            &Position::LastUser,
            &xml,
            &mut IdMinter::new(),
            ctx.now,
        ),
        _ => Ok(inject::write_unchanged(list)),
    }
}

/// The session's popped frames with their fold entries; a span ctx cannot read is reported and
/// left unfolded.
fn popped_frames(ctx: &Context, state: &State, session: &str) -> Vec<Popped> {
    let mut popped = Vec::new();
    for frame in state.frames() {
        // A turn frame folds its own way (`closed_turns`): its messages all stay.
        if auto::kind(&frame).is_some() {
            continue;
        }
        match span::read(&frame) {
            Ok(Some(span)) if span.session == session && fold::folds(&frame, &span) => {
                popped.push(Popped {
                    id: frame.id.to_string(),
                    entry: fold::entry(&frame),
                    by_call: fold::by_call(&frame),
                    span,
                });
            }
            Ok(_) => {}
            Err(why) => ctx.out.warn(&format!("{why}; not folded")),
        }
    }
    popped
}

/// The session's closed turn frames (`frame.auto`), whose outputs fold; a span ctx cannot read
/// is reported and left unfolded.
fn closed_turns(ctx: &Context, state: &State, session: &str) -> Vec<Turn> {
    let mut turns = Vec::new();
    for frame in state.frames().filter(|f| auto::is_turn(f)) {
        match span::read(&frame) {
            Ok(Some(span)) if span.session == session && fold::folds(&frame, &span) => {
                let Some(close) = span.close else {
                    continue;
                };
                turns.push(Turn {
                    id: frame.id.to_string(),
                    start: span.open.message,
                    opened_at: span.open.at,
                    closed_at: close.at,
                });
            }
            Ok(_) => {}
            Err(why) => ctx.out.warn(&format!("{why}; not folded")),
        }
    }
    turns
}

/// The session's todo frames closed by a todo call (`frame.auto`), whose outputs fold; one
/// closed by its turn's end folds with the turn.
fn closed_todos(state: &State, session: &str) -> Vec<Todo> {
    let mut todos = Vec::new();
    for frame in state.frames().filter(|f| auto::is_todo(f)) {
        let Ok(Some(span)) = span::read(&frame) else {
            continue;
        };
        if span.session != session || !fold::folds(&frame, &span) {
            continue;
        }
        let close = span.close.expect("a folding span is closed");
        if let (Some(a), Some(b), Some(c), Some(d)) =
            (span.open.message, span.open.call, close.message, close.call)
        {
            todos.push(Todo {
                id: frame.id.to_string(),
                goal: frame.goal().to_string(),
                open: (a, b),
                close: (c, d),
                closed_at: close.at,
            });
        }
    }
    todos
}

/// Where the session's open todo frames began: the message and call that opened each.
fn open_todos(state: &State, session: &str) -> Vec<(String, String)> {
    auto::open_todos(state, session)
        .iter()
        .filter_map(|id| {
            let open = span::read(&state.frame(id)?).ok()??.open;
            Some((open.message?, open.call?))
        })
        .collect()
}

/// The frame of `session` whose push is message `message`, by its recorded span.
fn pushed_by(state: &State, session: &str, message: &str) -> Option<String> {
    state.frames().find_map(|frame| {
        let span = span::read(&frame).ok()??;
        (span.session == session && span.open.message.as_deref() == Some(message))
            .then(|| frame.id.to_string())
    })
}

/// The frames of `session` whose `flame_push` call is still in the request, holding their goal
/// as it is now.
fn pushes_in_view(state: &State, session: &str, folding: &fold::Folding<'_, '_>) -> Vec<String> {
    state
        .frames()
        .filter(|frame| {
            span::read(frame).ok().flatten().is_some_and(|span| {
                span.session == session
                    && folding.push_goal_in_view(&span.open) == Some(frame.goal())
            })
        })
        .map(|frame| frame.id.to_string())
        .collect()
}

/// What a fold folds besides the session's popped frames.
struct How<'t> {
    /// A person's messages inside a popped frame's span stay.
    keep_user: bool,
    /// The session's closed turn frames.
    turns: &'t [Turn],
    /// The session's closed todo frames (OpenCode's only: pi has no todo tool).
    todos: &'t [Todo],
    /// Where the session's open todo frames began.
    left: &'t [(String, String)],
    /// Todo frames are on: todo lists fold (`Folding::fold_lists`).
    lists: bool,
    /// The count at which the agent compacts, in tokens, when known: the pressure valve's.
    compacts_at: Option<u64>,
    /// The person's messages a closed turn or todo frame waits for before it folds
    /// (`frame.fold_after`).
    fold_after: usize,
}

/// The message list with the session's popped frames and closed turns folded, and its frame
/// context anchored.
fn folded(
    ctx: &Context,
    store: &Store,
    state: &State,
    shape: &dyn Shape,
    list: &MessageList<'_>,
    session: &SessionId,
    how: &How<'_>,
) -> Result<String> {
    let popped = popped_frames(ctx, state, session);
    let mut folding = fold::fold_with(shape, list, &popped, how.keep_user);
    // The closed auto-frames whose wait is over (`frame.fold_after`); the others are sent whole,
    // as if still open.
    let due =
        |closed_at: i64| how.fold_after == 0 || folding.persons_after(closed_at) >= how.fold_after;
    let (todos, waiting): (Vec<Todo>, Vec<Todo>) =
        how.todos.iter().cloned().partition(|t| due(t.closed_at));
    let turns: Vec<Turn> = how
        .turns
        .iter()
        .filter(|t| due(t.closed_at))
        .cloned()
        .collect();
    // The todo calls that stay until their own item folds: those that opened a running item,
    // and those of an item that waits.
    let stay: Vec<(String, String)> = how
        .left
        .iter()
        .cloned()
        .chain(waiting.into_iter().flat_map(|t| [t.open, t.close]))
        .collect();
    folding.fold_todos(&todos, &stay);
    folding.mask_left_items(how.left, &todos);
    if how.lists {
        folding.fold_lists(&todos);
    }
    folding.fold_turns(&turns);
    for warning in &folding.warnings {
        ctx.out.warn(warning);
    }
    let recorded = read_session(ctx, store, session)?;
    // The valve's masks stay from one request to the next, so the prompt cache breaks once each.
    if let Some(seen) = &recorded {
        folding.mask(&seen.doc.masked);
    }
    let mut masked = Vec::new();
    if let Some(compacts_at) = how.compacts_at
        && let Some(opened) = folding.relieve(compacts_at)
    {
        ctx.out.note(&format!(
            "the request's estimate, {} tokens, passed {} % of the {compacts_at} at which the \
             agent compacts: {} more tool output(s) masked",
            opened.estimate,
            (valve::TRIGGER * 100.0) as u32,
            opened.masked.len()
        ));
        masked = opened.masked;
    }
    let mut anchors = recorded
        .as_ref()
        .map(|seen| seen.doc.contexts.clone())
        .unwrap_or_default();
    let mut anchor = None;
    if let Some((at, after)) = folding.needs_context(&anchors) {
        let previous = folding.context_in_view(&anchors, at);
        let pushed = pushed_by(state, session, &after);
        let in_view = pushes_in_view(state, session, &folding);
        let said = Said {
            folded: &folding.entries,
            previous: previous.as_deref(),
            pushed: pushed.as_deref(),
            pushes_in_view: &in_view,
        };
        match session_frame_context(ctx, state, session, Some(&said)) {
            Ok(rendered) => {
                // A context equal to the one already in view is not sent twice.
                let text = rendered.filter(|xml| previous.as_ref() != Some(xml));
                let mut minter = IdMinter::new();
                anchor = Some(Anchor {
                    after,
                    id: minter.mint("msg", ctx.now),
                    part: minter.mint("prt", ctx.now),
                    created: ctx.now,
                    text,
                });
            }
            // A budget too small for the frame context leaves it out of this request, and
            // nothing is recorded: the folds still go out, and the next request tries again.
            Err(err) => ctx
                .out
                .warn(&format!("{}; the frame context is left out", err.message)),
        }
    }
    let records = recorded
        .as_ref()
        .is_none_or(|seen| seen.doc.records_request(ctx.now))
        && state.frame(session).is_some();
    if anchor.is_some() || records || !masked.is_empty() {
        anchors = record(ctx, store, session, recorded.as_ref(), anchor, &masked)?;
    }
    Ok(folding.write(&anchors))
}

/// The session's file as this request reads it, `None` when there is none; a broken one is set
/// aside, and said.
fn read_session(ctx: &Context, store: &Store, session: &SessionId) -> Result<Option<Recorded>> {
    match session::read(store, session)? {
        Read::Missing => Ok(None),
        Read::Found(recorded) => Ok(Some(recorded)),
        Read::Broken { bytes, why } => {
            let stamp = crate::time::rfc3339_ms(ctx.now).replace([':', '.'], "");
            if let Some(aside) = session::set_aside(store, session, &bytes, &stamp)? {
                ctx.out.warn(&format!(
                    "{why}; moved aside to {}, and the session's contexts are recorded anew",
                    aside.display()
                ));
            }
            Ok(None)
        }
    }
}

/// Records in the session's file (`seen`: as this request read it) that it called the model now
/// (to the step of [`session::LAST_REQUEST_STEP_MS`]), with `anchor` when there is one, and the
/// calls the valve `masked`; returns the contexts recorded after.
fn record(
    ctx: &Context,
    store: &Store,
    session: &SessionId,
    seen: Option<&Recorded>,
    anchor: Option<Anchor>,
    masked: &[String],
) -> Result<Vec<Anchor>> {
    let doc = session::update(store, session, seen, |doc| {
        let mut changed = false;
        for call in masked {
            if !doc.masked.contains(call) {
                doc.masked.push(call.clone());
                changed = true;
            }
        }
        // Another request of this session may have recorded a context there first: theirs
        // stands.
        if let Some(anchor) = anchor
            && !doc.contexts.iter().any(|a| a.after == anchor.after)
        {
            doc.contexts.push(anchor);
            changed = true;
        }
        if doc.records_request(ctx.now) {
            doc.last_request = Some(ctx.now);
            changed = true;
        }
        changed
    })?;
    Ok(doc.contexts)
}

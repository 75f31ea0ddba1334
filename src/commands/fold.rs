//! `ctx opencode messages`: the message list an OpenCode session is about to send, as ctx's
//! plugin passes it from `experimental.chat.messages.transform`, with popped frames folded and the
//! frame context anchored (`compact::fold`); with `opencode.fold = off`, the frame context added
//! to the last user message, as before folding existed. `ctx pi messages`: the same for pi's
//! message list (`compact::fold::pi`), with pi's settings (`pi.fold`, `pi.fold_user_messages`).

use super::Context;
use super::compact::{read_stdin, session_frame_context, swarm_budget_line};
use crate::compact::fold::{self, Anchor, OpenCode, Popped, Shape};
use crate::compact::frame_context::Said;
use crate::compact::inject::{self, MessageList, Position};
use crate::error::{Error, ExitCode, Result};
use crate::frame::span;
use crate::frame::state::State;
use crate::frame::store::Store;
use crate::opencode::id::IdMinter;
use crate::settings;

/// The session file's layout version.
const SESSION_FILE_VERSION: u64 = 1;

pub fn run(ctx: &mut Context, session: &str, budget_warning: bool) -> Result<ExitCode> {
    crate::frame::id::validate_id(session)?;
    let from_stdin = |mut e: Error| {
        e.message = format!("<stdin>: {}", e.message);
        e
    };
    let input = read_stdin().map_err(from_stdin)?;
    let list = inject::parse_messages(&input).map_err(from_stdin)?;
    let config = ctx.project.config()?;
    let fold_on = settings::resolve(config, &settings::OPENCODE_FOLD, None, None)?.text() == "on";
    let keep_user = settings::resolve(config, &settings::OPENCODE_FOLD_USER_MESSAGES, None, None)?
        .text()
        == "keep";
    let store = ctx.store()?;
    let state = ctx.read_state(&store)?;
    let mut out = if fold_on {
        folded(ctx, &store, &state, &OpenCode, &list, session, keep_user)?
    } else {
        unfolded(ctx, &state, &list, session)?
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

/// `ctx pi messages`: pi's message list with the session's popped frames folded. A message ctx
/// does not know passes unchanged, with a warning; with `pi.fold = off` the list passes
/// unchanged (the frame context comes with pi's own before_agent_start message).
pub fn run_pi(ctx: &mut Context, session: &str) -> Result<ExitCode> {
    crate::frame::id::validate_id(session)?;
    let from_stdin = |mut e: Error| {
        e.message = format!("<stdin>: {}", e.message);
        e
    };
    let input = read_stdin().map_err(from_stdin)?;
    let parsed = fold::pi::parse(&input).map_err(from_stdin)?;
    for warning in &parsed.warnings {
        ctx.out.warn(&format!("<stdin>: {warning}"));
    }
    // pi's own settings: a person may fold in one agent and not in the other.
    let config = ctx.project.config()?;
    let fold_on = settings::resolve(config, &settings::PI_FOLD, None, None)?.text() == "on";
    let keep_user =
        settings::resolve(config, &settings::PI_FOLD_USER_MESSAGES, None, None)?.text() == "keep";
    let mut out = if fold_on {
        let store = ctx.store()?;
        let state = ctx.read_state(&store)?;
        folded(
            ctx,
            &store,
            &state,
            &fold::pi::Pi,
            &parsed.list,
            session,
            keep_user,
        )?
    } else {
        inject::write_edited(
            &parsed.list,
            &inject::Edits::new(parsed.list.messages().len()),
            0,
        )
    };
    out.push('\n');
    ctx.out.write(&out)?;
    Ok(ExitCode::Success)
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
        _ => Ok(inject::write_edited(
            list,
            &inject::Edits::new(list.messages().len()),
            0,
        )),
    }
}

/// The session's popped frames with their fold entries; a span ctx cannot read is reported and
/// left unfolded.
fn popped_frames(ctx: &Context, state: &State, session: &str) -> Vec<Popped> {
    let mut popped = Vec::new();
    for frame in state.frames() {
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

/// The frame of `session` whose push is message `message`, by its recorded span.
fn pushed_by(state: &State, session: &str, message: &str) -> Option<String> {
    state.frames().find_map(|frame| {
        let span = span::read(&frame).ok()??;
        (span.session == session && span.open.message.as_deref() == Some(message))
            .then(|| frame.id.to_string())
    })
}

fn folded(
    ctx: &Context,
    store: &Store,
    state: &State,
    shape: &dyn Shape,
    list: &MessageList<'_>,
    session: &str,
    keep_user: bool,
) -> Result<String> {
    let popped = popped_frames(ctx, state, session);
    let folding = fold::fold_with(shape, list, &popped, keep_user);
    for warning in &folding.warnings {
        ctx.out.warn(warning);
    }
    let file = store.session_file(session);
    let mut anchors = match store.read_session_file(session)? {
        None => Vec::new(),
        Some(bytes) => match read_anchors(&file, Some(&bytes), session) {
            Ok(anchors) => anchors,
            Err(Unusable::Broken(why)) => {
                set_aside(ctx, store, session, &bytes, &why)?;
                Vec::new()
            }
            Err(Unusable::Refused(err)) => return Err(err),
        },
    };
    if let Some((at, after)) = folding.needs_context(&anchors) {
        let previous = folding.context_in_view(&anchors, at);
        let pushed = pushed_by(state, session, &after);
        let said = Said {
            folded: &folding.entries,
            previous: previous.as_deref(),
            pushed: pushed.as_deref(),
        };
        let rendered = match session_frame_context(ctx, state, session, Some(&said)) {
            Ok(rendered) => rendered,
            // A budget too small for the frame context leaves it out of this request, and
            // nothing is recorded: the folds still go out, and the next request tries again.
            Err(err) => {
                ctx.out
                    .warn(&format!("{}; the frame context is left out", err.message));
                return Ok(folding.write(&anchors));
            }
        };
        // A context equal to the one already in view is not sent twice.
        let text = rendered.filter(|xml| previous.as_ref() != Some(xml));
        let mut minter = IdMinter::new();
        let anchor = Anchor {
            after,
            id: minter.mint("msg", ctx.now),
            part: minter.mint("prt", ctx.now),
            created: ctx.now,
            text,
        };
        let written = store.update_session_file(session, |old| {
            let mut recorded = read_anchors(&file, old, session).map_err(Unusable::into_error)?;
            if recorded.iter().any(|a| a.after == anchor.after) {
                // Another request of this session recorded it first: theirs stands.
                return Ok(None);
            }
            recorded.push(anchor.clone());
            Ok(Some(anchors_text(session, &recorded)))
        })?;
        anchors = read_anchors(&file, written.as_deref(), session).map_err(Unusable::into_error)?;
    }
    Ok(folding.write(&anchors))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct SessionFile {
    version: u64,
    #[serde(rename = "sessionID")]
    session: String,
    contexts: Vec<Anchor>,
}

/// Why a session file's contexts cannot be used.
enum Unusable {
    /// Not a session file of ctx for this session (truncated, garbage, empty, another
    /// session's): ctx's own file, set aside and started anew.
    Broken(String),
    /// A newer ctx's file: left alone, and the request goes unfolded.
    Refused(Error),
}

impl Unusable {
    fn into_error(self) -> Error {
        match self {
            Unusable::Broken(why) => Error::failure(why),
            Unusable::Refused(err) => err,
        }
    }
}

fn read_anchors(
    file: &std::path::Path,
    bytes: Option<&[u8]>,
    session: &str,
) -> std::result::Result<Vec<Anchor>, Unusable> {
    let Some(bytes) = bytes else {
        return Ok(Vec::new());
    };
    let doc: SessionFile = serde_json::from_slice(bytes).map_err(|e| {
        Unusable::Broken(format!(
            "{}: not a session file of ctx: {e}",
            file.display()
        ))
    })?;
    if doc.version > SESSION_FILE_VERSION {
        return Err(Unusable::Refused(Error::failure(format!(
            "{} has version {}; this ctx reads version {SESSION_FILE_VERSION}",
            file.display(),
            doc.version
        ))));
    }
    if doc.session != session {
        return Err(Unusable::Broken(format!(
            "{}: holds the contexts of session {}, not of {session}",
            file.display(),
            doc.session.escape_debug()
        )));
    }
    Ok(doc.contexts)
}

/// Sets a broken session file aside (`<session>.json.broken-<time>`) so that folding goes on
/// with a new one, and says so once: the next request finds no broken file.
fn set_aside(ctx: &Context, store: &Store, session: &str, bytes: &[u8], why: &str) -> Result<()> {
    let stamp = crate::time::rfc3339_ms(ctx.now).replace([':', '.'], "");
    if let Some(aside) = store.set_aside_session_file(session, bytes, &stamp)? {
        ctx.out.warn(&format!(
            "{why}; moved aside to {}, and the session's contexts are recorded anew",
            aside.display()
        ));
    }
    Ok(())
}

fn anchors_text(session: &str, anchors: &[Anchor]) -> String {
    let doc = SessionFile {
        version: SESSION_FILE_VERSION,
        session: session.to_string(),
        contexts: anchors.to_vec(),
    };
    let mut text = serde_json::to_string_pretty(&doc).expect("plain data serializes");
    text.push('\n');
    text
}

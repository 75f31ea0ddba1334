//! `ctx opencode messages`: the message list an OpenCode session is about to send, as ctx's
//! plugin passes it from `experimental.chat.messages.transform`, with popped frames folded and the
//! frame context anchored (`compact::fold`); with `opencode.fold = off`, the frame context added
//! to the last user message, as before folding existed.

use super::Context;
use super::compact::{read_stdin, session_frame_context, swarm_budget_line};
use crate::compact::fold::{self, Anchor, Popped};
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
    let store = Store::new(&ctx.project.root);
    let state = ctx.read_state(&store)?;
    let mut out = if fold_on {
        folded(ctx, &store, &state, &list, session, keep_user)?
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

/// `opencode.fold = off`: the frame context at the end of the last user message, re-rendered for
/// every request.
fn unfolded(ctx: &Context, state: &State, list: &MessageList<'_>, session: &str) -> Result<String> {
    let has_user = list.messages().iter().any(|m| m.role() == "user");
    match session_frame_context(ctx, state, session)? {
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
                    span,
                });
            }
            Ok(_) => {}
            Err(why) => ctx.out.warn(&format!("{why}; not folded")),
        }
    }
    popped
}

fn folded(
    ctx: &Context,
    store: &Store,
    state: &State,
    list: &MessageList<'_>,
    session: &str,
    keep_user: bool,
) -> Result<String> {
    let popped = popped_frames(ctx, state, session);
    let folding = fold::fold(list, &popped, keep_user);
    for warning in &folding.warnings {
        ctx.out.warn(warning);
    }
    let file = store.session_file(session);
    let mut anchors = read_anchors(&file, store.read_session_file(session)?.as_deref())?;
    if let Some((at, after)) = folding.needs_context(&anchors) {
        let rendered = match session_frame_context(ctx, state, session) {
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
        let text =
            rendered.filter(|xml| folding.context_in_view(&anchors, at).as_ref() != Some(xml));
        let mut minter = IdMinter::new();
        let anchor = Anchor {
            after,
            id: minter.mint("msg", ctx.now),
            part: minter.mint("prt", ctx.now),
            created: ctx.now,
            text,
        };
        let written = store.update_session_file(session, |old| {
            let mut recorded = read_anchors(&file, old)?;
            if recorded.iter().any(|a| a.after == anchor.after) {
                // Another request of this session recorded it first: theirs stands.
                return Ok(None);
            }
            recorded.push(anchor.clone());
            Ok(Some(anchors_text(session, &recorded)))
        })?;
        anchors = read_anchors(&file, written.as_deref())?;
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

fn read_anchors(file: &std::path::Path, text: Option<&str>) -> Result<Vec<Anchor>> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    let doc: SessionFile = serde_json::from_str(text).map_err(|e| {
        Error::failure(format!(
            "{}: not a session file of ctx: {e}",
            file.display()
        ))
        .with_hint("move it aside; ctx records the session's contexts anew")
    })?;
    if doc.version > SESSION_FILE_VERSION {
        return Err(Error::failure(format!(
            "{} has version {}; this ctx reads version {SESSION_FILE_VERSION}",
            file.display(),
            doc.version
        )));
    }
    Ok(doc.contexts)
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

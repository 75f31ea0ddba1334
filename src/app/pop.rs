//! A frame's pop with its log (flame.md §6.2), as `ctx frame pop`, `ctx opencode finish` and
//! `ctx pi finish` run it: the summary and transcript read before the lock, the pop, the log
//! written from the transcript or from the span Claude Code's hooks noted, and its JSON document.

use std::path::{Path, PathBuf};

use super::Context;
use crate::conversation::Export;
use crate::document::Version;
use crate::error::{Error, Result};
use crate::frame::doc::{FrameJson, PopDoc};
use crate::frame::ops::{self, Selector};
use crate::frame::state::{State, Status};
use crate::frame::store::{self, Store};
use crate::frame::{log, span};
use crate::input::{label, read_input};

/// Exports can be large; anything past this is not a session export.
const MAX_EXPORT_BYTES: u64 = 1 << 30;

/// The summary and transcript of a pop, read before the lock is taken.
pub(crate) struct PopInputs {
    pub summary: Option<String>,
    pub transcript: Option<Export>,
    /// `--invalidate-planned`: the pop invalidates the frame's planned descendants.
    pub invalidate_planned: bool,
}

impl PopInputs {
    pub(crate) fn read(
        summary: Option<String>,
        summary_file: Option<PathBuf>,
        transcript: Option<PathBuf>,
    ) -> Result<PopInputs> {
        let is_stdin = |p: &Option<PathBuf>| p.as_deref() == Some(Path::new("-"));
        if is_stdin(&summary_file) && is_stdin(&transcript) {
            return Err(Error::usage(
                "--summary-file - and --transcript - cannot both read standard input",
            ));
        }
        let summary = match (summary, summary_file) {
            (Some(text), _) => Some(text),
            (None, Some(path)) => {
                let bytes = read_input(&path, 64 << 20)?;
                let text = String::from_utf8(bytes).map_err(|_| {
                    Error::failure(format!("{}: the summary is not UTF-8 text", label(&path)))
                })?;
                if text.trim().is_empty() {
                    return Err(Error::failure(format!(
                        "{}: the summary must not be empty",
                        label(&path)
                    )));
                }
                Some(text.trim_end_matches(['\n', '\r']).to_string())
            }
            (None, None) => None,
        };
        if let Some(summary) = &summary {
            ops::require_text("the summary", summary)?;
        }
        let transcript = transcript.as_deref().map(read_transcript).transpose()?;
        Ok(PopInputs {
            summary,
            transcript,
            invalidate_planned: false,
        })
    }
}

/// Reads a session's export for a frame's log (`-`: stdin): refused when it cannot be read, is
/// not UTF-8 or is no export.
pub(crate) fn read_transcript(path: &Path) -> Result<Export> {
    let bytes = read_input(path, MAX_EXPORT_BYTES)?;
    // JSON is UTF-8; decoding lossily would put U+FFFD into the log unannounced.
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let (line, column) = store::line_column(&bytes[..e.valid_up_to()]);
        Error::failure(format!(
            "{}: not an OpenCode session export: not UTF-8: invalid byte at line {line}, column \
             {column}",
            label(path)
        ))
    })?;
    Export::parse(text).map_err(|what| {
        Error::failure(format!(
            "{}: not an OpenCode session export: {what}",
            label(path)
        ))
    })
}

/// Pops the target of `selector` with `status` (flame.md §6.2), closes its span at `at` and
/// writes its log, reporting the plan's warnings; the caller prints.
pub(crate) fn pop(
    ctx: &mut Context,
    store: &Store,
    status: Status,
    inputs: PopInputs,
    force: bool,
    selector: &Selector,
    at: span::Mark,
) -> Result<(ops::PopPlan, State)> {
    let now = ctx.now;
    let output_max = ctx
        .settings()?
        .count(&crate::settings::FRAME_LOG_OUTPUT_MAX)? as usize;
    let messages = match inputs.transcript.as_ref() {
        Some(export) => Some(log::Messages::of(export, output_max)),
        None => claude_span(store, selector).map(|export| log::Messages::of(&export, output_max)),
    };
    let (plan, state) = store.update(now, |state| {
        let target = ops::pop_target(state, selector)?;
        let mut plan = ops::check_pop(state, &target, force)?;
        plan.invalidate_planned = inputs.invalidate_planned;
        ops::apply_pop(state, &plan, status, inputs.summary.as_deref(), now)?;
        span::close(state, &target, selector.place(), at.clone());
        store.write_log(
            &plan.id,
            &log::render(state, &target, now, messages.as_ref()),
        )?;
        Ok((plan, true))
    })?;
    for warning in &plan.warnings {
        ctx.out.warn(warning);
    }
    if let Some((warning, hint)) = plan.planned_report(status) {
        ctx.out.warn(&warning);
        if let Some(hint) = hint {
            ctx.out.note(&format!("hint: {hint}"));
        }
    }
    Ok((plan, state))
}

/// The messages of a frame popped through Bash by a Claude Code session's model or a subagent's
/// (no transcript given): its span of their transcript, which the hooks noted (`claude::log`). Read
/// ahead of the lock, as the messages of a given transcript are; whatever is missing or
/// unreadable leaves the log without messages.
fn claude_span(store: &Store, selector: &Selector) -> Option<crate::conversation::Export> {
    let session = selector.session.as_deref()?;
    let state = store.load().ok()?;
    let (path, sidechain) = crate::claude::log::transcript_of(&state, session)?;
    let target = ops::pop_target(&state, selector).ok()?;
    let created = state.frame(&target)?.created_at();
    // Claude Code writes a subagent's transcript lazily: it is read again, for a while, until it
    // holds the call that pops (and so every line before it).
    let started = std::time::Instant::now();
    let lines = loop {
        let bytes =
            crate::safe_file::read_capped(Path::new(&path), crate::claude::log::MAX_TRANSCRIPT)
                .ok()?;
        let lines = crate::spent::jsonl::parse(&String::from_utf8_lossy(&bytes));
        let complete = crate::claude::log::holds_pop_call(&lines.records, created);
        if complete || started.elapsed() >= std::time::Duration::from_secs(1) {
            break lines;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    };
    Some(crate::claude::log::span_export(
        &lines.records,
        created,
        sidechain,
        &target,
        &path,
    ))
}

/// The JSON document of a pop.
pub(crate) fn print_pop_doc(
    ctx: &mut Context,
    store: &Store,
    plan: &ops::PopPlan,
    state: &State,
    current: Option<String>,
) -> Result<()> {
    let frame = state.frame(&plan.id).expect("the popped frame exists");
    let log_path = store.dir().join(log::path_in_store(&plan.id));
    ctx.out.json_doc(&PopDoc {
        version: Version,
        frame: FrameJson::new(&frame),
        current,
        log_path: log_path.display().to_string(),
        invalidated: if plan.invalidate_planned {
            plan.planned.clone()
        } else {
            Vec::new()
        },
    })
}

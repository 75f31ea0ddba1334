//! The frame context and the other texts ctx adds to a model's messages, as `ctx compact …`,
//! `ctx opencode messages`, `ctx pi messages` and the agents' hooks read them: the frame context
//! settings, a session's `<flame-context>`, opencode-swarm's budget line, and a message list on
//! standard input.

use std::io::Read;

use super::Context;
use crate::budget::tokenizer::{self, Tokenizer};
use crate::compact::frame_context::{self, Budgets, Settings};
use crate::error::{Error, Result};
use crate::frame::ops;
use crate::frame::state::State;
use crate::settings;
use crate::swarm::hooks;

/// Message lists larger than this are not what OpenCode sends.
const MAX_MESSAGES_BYTES: u64 = 1 << 30;

/// The message list on standard input, as UTF-8 text.
pub(crate) fn read_stdin() -> Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_MESSAGES_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            Error::failure(format!("cannot be read: {}", crate::error::describe_io(&e)))
        })?;
    if bytes.len() as u64 > MAX_MESSAGES_BYTES {
        return Err(Error::failure(
            "more than 1 GiB; that is not a message list",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        Error::failure(format!(
            "not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The frame context settings (flame.md §9.1), through the settings registry: `CTX_*` variables,
/// ctx.toml, the user config, Flame's `FLAME_TOKEN_BUDGET_*`, defaults.
pub(crate) fn frame_settings(ctx: &Context) -> Result<Settings> {
    let resolved = ctx.settings()?;
    let count = |def| resolved.count(def);
    let budgets = Budgets {
        total: count(&settings::FRAME_CONTEXT_TOTAL)?,
        ancestors: count(&settings::FRAME_CONTEXT_ANCESTORS)?,
        siblings: count(&settings::FRAME_CONTEXT_SIBLINGS)?,
        current: count(&settings::FRAME_CONTEXT_CURRENT)?,
    };
    let tokenizer = resolved.text(&settings::FRAME_CONTEXT_TOKENIZER)?;
    let estimator = Tokenizer::parse(tokenizer, &tokenizer::FRAME_CONTEXT)
        .map_err(Error::failure)?
        .method(None);
    Ok(Settings { budgets, estimator })
}

/// The `<flame-context>` of the current frame of OpenCode session `session`, or `None` when it
/// has none; with `said`, without what the request it goes into already says (`None` when that
/// leaves nothing to say).
pub(crate) fn session_frame_context(
    ctx: &Context,
    state: &State,
    session: &str,
    said: Option<&frame_context::Said<'_>>,
) -> Result<Option<String>> {
    let Some(current) = ops::session_current(state, session)? else {
        return Ok(None);
    };
    let settings = frame_settings(ctx)?;
    let rendered = match said {
        Some(said) => frame_context::render_in_request(state, &current, &settings, said)?,
        None => Some(frame_context::render(state, &current, &settings)?),
    };
    Ok(rendered.map(|r| r.xml))
}

/// opencode-swarm's context-budget warning for a message list (swarm.md §11), or `None` when it
/// would give none or gives it itself (OpenCode loads it here): budget disabled, no last user
/// message with a text part, an agent other than architect, or usage under the warn share.
pub(crate) fn swarm_budget_line(ctx: &Context, list: &str) -> Result<Option<String>> {
    use crate::budget::{session, tokenize::Method, verdict};
    let swarm = ctx.swarm_config().context_budget;
    let export = crate::conversation::Export::parse_export_or_list(list, true)
        .map_err(|why| Error::failure(format!("<stdin>: {why}")))?;
    let view = session::view(&export);
    // OpenCode's own opencode-swarm gives the warning where it belongs; ctx gives it only for
    // projects whose OpenCode does not load the plugin.
    if !session::swarm_would_warn(swarm.as_ref().and_then(|s| s.enabled), Some(&view))
        || hooks::loaded_by_opencode(&ctx.project.root).by.is_some()
    {
        return Ok(None);
    }
    let resolved = ctx.settings()?;
    let share = |def| {
        resolved
            .with(def, None, swarm.as_ref())
            .map(|r| r.fraction())
    };
    let thresholds = verdict::Thresholds {
        warn: share(&settings::BUDGET_WARN)?,
        critical: share(&settings::BUDGET_CRITICAL)?,
    };
    let configured = resolved.count(&settings::BUDGET_LIMIT)?;
    let limit = if configured > 0 {
        configured as f64
    } else {
        swarm.as_ref().and_then(|b| b.written_limit(&[])).map_or(
            crate::swarm::config::ContextBudget::DEFAULT_LIMIT,
            |(_, v)| v,
        )
    };
    let total: u64 = view
        .swarm_texts
        .iter()
        .map(|t| Method::Swarm.count(t))
        .sum();
    Ok(verdict::swarm_line(total as f64 / limit, thresholds))
}

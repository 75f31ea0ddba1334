//! `ctx budget spent`: what the work cost, from the agents' records (src/spent/).

use super::Context;
use crate::cli::budget::{SpentArgs, SpentBy};
use crate::error::{Error, ExitCode, Result};
use crate::frame::store::Store;
use crate::spent::price::PriceList;
use crate::spent::record::Records;
use crate::spent::report::{self, By, Selection};
use crate::spent::{render, sources};

/// Problems printed as warnings before the rest are only counted.
const MAX_WARNINGS: usize = 20;

pub fn run(ctx: &mut Context, args: SpentArgs) -> Result<ExitCode> {
    let point = |flag: &str, text: &Option<String>| -> Result<Option<i64>> {
        text.as_deref()
            .map(|t| {
                crate::time::parse_point(t, ctx.now).ok_or_else(|| {
                    Error::usage(format!(
                        "{flag} {t:?}: expected YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS]Z, or a span such as 12h or 7d"
                    ))
                })
            })
            .transpose()
    };
    let since = point("--since", &args.since)?;
    let until = point("--until", &args.until)?;
    if let (Some(since), Some(until)) = (since, until)
        && since > until
    {
        return Err(Error::failure(format!(
            "--since {:?} is later than --until {:?}: no call can be in between",
            args.since.as_deref().unwrap_or_default(),
            args.until.as_deref().unwrap_or_default()
        )));
    }
    let state = ctx.read_state(&Store::new(&ctx.project.root))?;
    let frame = args
        .frame
        .as_deref()
        .map(|arg| crate::frame::ops::lookup(&state, arg))
        .transpose()?;
    let records = load_records(ctx, &args.source)?;
    let session = args
        .session
        .as_deref()
        .map(|arg| session_position(&records, arg))
        .transpose()?;
    let by = match args.by {
        SpentBy::Frame => By::Frame,
        SpentBy::Session => By::Session,
        SpentBy::Model => By::Model,
        SpentBy::Day => By::Day,
    };
    let doc = report::build(
        &records,
        &state,
        &Selection {
            by,
            since,
            until,
            frame,
            session,
            max_cost: args.max_cost,
        },
    );
    warn_problems(ctx, &doc.problems);
    if by == By::Frame && state.is_empty() {
        ctx.out
            .note("this project has no frames: every call is in no frame; --by session lists the sessions");
    }
    if ctx.out.json {
        ctx.out.json_doc(&doc)?;
    } else {
        ctx.out.write(&render::text(&doc, ctx.out.width))?;
    }
    Ok(match &doc.max_cost {
        Some(max) if max.exceeded => ExitCode::CostOver,
        _ => ExitCode::Success,
    })
}

/// The records of `paths` (default: OpenCode's own, the project's Claude Code transcripts and pi
/// sessions, and Codex's sessions; an error saying where they were looked for when none is
/// there), priced with the models.dev cache.
pub fn load_records(ctx: &Context, paths: &[std::path::PathBuf]) -> Result<Records> {
    let prices = load_prices(ctx);
    if !paths.is_empty() {
        return sources::load(paths, &prices);
    }
    let defaults = default_sources(ctx);
    if defaults.found.is_empty() {
        return Err(Error::failure(format!(
            "no records of model calls: {}",
            defaults.looked_for
        ))
        .with_hint(
            "give --source: an opencode.db, an `opencode export` file, OpenCode's storage/ folder, or a folder or file of session files of Claude Code, pi or Codex",
        ));
    }
    sources::load(&defaults.found, &prices)
}

/// The records read without `--source`, and where they were looked for.
struct DefaultSources {
    found: Vec<std::path::PathBuf>,
    /// Each agent's place, for a message when nothing was found.
    looked_for: String,
}

/// OpenCode's records (all its projects'; `$OPENCODE_DB` or its data directory), Claude Code's
/// transcripts and pi's sessions of this project (in the folders they name after it), and
/// Codex's sessions (all its projects': Codex files them by date), those that exist.
fn default_sources(ctx: &Context) -> DefaultSources {
    let mut found = Vec::new();
    let opencode = match sources::default_source() {
        Ok(path) if path.exists() => {
            found.push(path);
            None
        }
        Ok(path) => Some(format!(
            "OpenCode's database {} does not exist",
            path.display()
        )),
        Err(e) => Some(e.to_string()),
    };
    let claude = match crate::claude::projects_dir(&ctx.project.root) {
        Some(dir) if dir.is_dir() => {
            found.push(dir);
            None
        }
        Some(dir) => Some(format!(
            "Claude Code's transcripts of this project, {}, do not exist",
            dir.display()
        )),
        None => Some(
            "Claude Code's folder is unknown: neither CLAUDE_CONFIG_DIR nor HOME is set"
                .to_string(),
        ),
    };
    let pi = match crate::spent::pi_sessions::project_sessions_dir(&ctx.project.root) {
        Some(dir) if dir.is_dir() => {
            found.push(dir);
            None
        }
        Some(dir) => Some(format!(
            "pi's sessions of this project, {}, do not exist",
            dir.display()
        )),
        None => {
            Some("pi's folder is unknown: neither PI_CODING_AGENT_DIR nor HOME is set".to_string())
        }
    };
    let codex = match crate::spent::codex_rollouts::home().map(|h| h.join("sessions")) {
        Some(dir) if dir.is_dir() => {
            found.push(dir);
            None
        }
        Some(dir) => Some(format!("Codex's sessions, {}, do not exist", dir.display())),
        None => Some("Codex's folder is unknown: neither CODEX_HOME nor HOME is set".to_string()),
    };
    DefaultSources {
        found,
        looked_for: [opencode, claude, pi, codex]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// OpenCode's models.dev cache as a price list; a missing cache prices nothing.
fn load_prices(ctx: &Context) -> PriceList {
    let Some(path) =
        crate::project::xdg_cache_home().map(|d| d.join("opencode").join("models.json"))
    else {
        return PriceList::default();
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(value) => PriceList::from_value(value),
            Err(e) => {
                ctx.out
                    .warn(&format!("{}: ignored: invalid JSON: {e}", path.display()));
                PriceList::default()
            }
        },
        Err(_) => PriceList::default(),
    }
}

/// A session by full id or unique prefix (4 characters at least). A Claude Code session or
/// subagent, a pi session or a Codex thread may also be named by its own id, as the agent shows
/// it (`f822e299…` for `cc_f822e299…`, `01a21b53…` for `pi_01a21b53…` or `cx_01a21b53…`).
fn session_position(records: &Records, arg: &str) -> Result<usize> {
    use crate::claude::ids::{AGENT_PREFIX, SESSION_PREFIX};
    let names = [
        arg.to_string(),
        format!("{SESSION_PREFIX}{arg}"),
        format!("{AGENT_PREFIX}{arg}"),
        format!("{}{arg}", crate::spent::pi_sessions::SESSION_PREFIX),
        format!("{}{arg}", crate::spent::codex_rollouts::SESSION_PREFIX),
    ];
    if let Some(at) = names.iter().find_map(|n| records.session_position(n)) {
        return Ok(at);
    }
    let found: Vec<usize> = if arg.len() >= 4 {
        (0..records.sessions.len())
            .filter(|&at| {
                let id = &records.sessions[at].id;
                names.iter().any(|n| id.starts_with(n.as_str()))
            })
            .collect()
    } else {
        Vec::new()
    };
    match found[..] {
        [at] => Ok(at),
        [] => Err(Error::failure(format!("no session {arg:?} in the records"))),
        _ => Err(Error::failure(format!(
            "{arg:?} names {} sessions; give more of the id",
            found.len()
        ))),
    }
}

fn warn_problems(ctx: &Context, problems: &[String]) {
    for problem in problems.iter().take(MAX_WARNINGS) {
        ctx.out.warn(problem);
    }
    if problems.len() > MAX_WARNINGS {
        ctx.out.warn(&format!(
            "{} more records skipped or doubted (--json lists them all)",
            problems.len() - MAX_WARNINGS
        ));
    }
}

/// Each frame's own and rolled-up figures (by frame position), from the default records
/// ([`default_sources`]: OpenCode's, the project's Claude Code transcripts and pi sessions,
/// Codex's sessions): for
/// `frame tree --cost`, `frame show --cost` and the flame graph's `--weight cost`.
pub fn frame_costs(
    ctx: &Context,
    state: &crate::frame::state::State,
) -> Result<(
    Vec<crate::spent::figures::Figures>,
    Vec<crate::spent::figures::Figures>,
)> {
    let defaults = default_sources(ctx);
    let records = if defaults.found.is_empty() {
        // The tree is drawn with what is known: no call, said once.
        ctx.out.warn(&format!(
            "no records of model calls, so no costs: {}",
            defaults.looked_for
        ));
        Records::default()
    } else {
        sources::load(&defaults.found, &load_prices(ctx))?
    };
    warn_problems(ctx, &records.problems);
    let attribution = crate::spent::attribute::attribute(&records, state);
    let (own, total, _) =
        crate::spent::attribute::frame_figures(&records, state, &attribution, &|_| true);
    Ok((own, total))
}

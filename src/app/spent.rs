//! The records of model calls with their prices, as `ctx budget spent` and the frame tree's costs
//! (`ctx frame tree --cost`, `frame show --cost`, the flame graph's `--weight cost`) read them.

use std::path::{Path, PathBuf};

use super::Context;
use crate::error::{Error, Result};
use crate::spent::price::PriceList;
use crate::spent::record::Records;
use crate::spent::sources;

/// Problems printed as warnings before the rest are only counted.
const MAX_WARNINGS: usize = 20;

/// The records of `paths` (default: OpenCode's and Kilo Code's own, the project's Claude Code
/// transcripts and pi sessions, and Codex's sessions; an error saying where they were looked for
/// when none is there), priced with the models.dev cache.
pub fn load_records(ctx: &Context, paths: &[PathBuf]) -> Result<Records> {
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
            "give --source: an opencode.db or kilo.db, an `opencode export` file, OpenCode's storage/ folder, or a folder or file of session files of Claude Code, pi or Codex",
        ));
    }
    sources::load(&defaults.found, &prices)
}

/// The records read without `--source`, and where they were looked for.
struct DefaultSources {
    found: Vec<PathBuf>,
    /// Each agent's place, for a message when nothing was found.
    looked_for: String,
}

/// OpenCode's records (all its projects'; `$OPENCODE_DB` or its data directory), Kilo Code's (its
/// `kilo.db`, all its projects'), Claude Code's transcripts and pi's sessions of this project (in
/// the folders they name after it), and Codex's sessions (all its projects': Codex files them by
/// date), those that exist.
fn default_sources(ctx: &Context) -> DefaultSources {
    let mut found = Vec::new();
    let database =
        |db: &Path, agent: &str| format!("{agent}'s database {} does not exist", db.display());
    let opencode = match sources::default_source() {
        Ok(db) => look(
            &mut found,
            Some(db),
            Path::exists,
            |db| database(db, "OpenCode"),
            "",
        ),
        Err(e) => Some(e.to_string()),
    };
    let kilo = look(
        &mut found,
        crate::kilo::database(),
        Path::is_file,
        |db| database(db, "Kilo Code"),
        "Kilo Code's data directory is unknown: neither XDG_DATA_HOME nor HOME is set",
    );
    let claude = folder(
        &mut found,
        crate::claude::projects_dir(&ctx.project.root),
        "Claude Code's transcripts of this project",
        "Claude Code's folder is unknown: neither CLAUDE_CONFIG_DIR nor HOME is set",
    );
    let pi = folder(
        &mut found,
        crate::spent::pi_sessions::project_sessions_dir(&ctx.project.root),
        "pi's sessions of this project",
        "pi's folder is unknown: neither PI_CODING_AGENT_DIR nor HOME is set",
    );
    let codex = folder(
        &mut found,
        crate::spent::codex_rollouts::home().map(|h| h.join("sessions")),
        "Codex's sessions",
        "Codex's folder is unknown: neither CODEX_HOME nor HOME is set",
    );
    DefaultSources {
        found,
        looked_for: [opencode, kilo, claude, pi, codex]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// An agent's folder of session files, `dir`: added to `found` when it is one; else why not:
/// `what` does not exist there, or (no `dir`) `unknown`.
fn folder(
    found: &mut Vec<PathBuf>,
    dir: Option<PathBuf>,
    what: &str,
    unknown: &str,
) -> Option<String> {
    let missing = |dir: &Path| format!("{what}, {}, do not exist", dir.display());
    look(found, dir, Path::is_dir, missing, unknown)
}

/// An agent's records at `place`: added to `found` when `there` says they are; else why not:
/// `missing` of the place, or (no place) `unknown`.
fn look(
    found: &mut Vec<PathBuf>,
    place: Option<PathBuf>,
    there: fn(&Path) -> bool,
    missing: impl FnOnce(&Path) -> String,
    unknown: &str,
) -> Option<String> {
    match place {
        Some(place) if there(&place) => {
            found.push(place);
            None
        }
        Some(place) => Some(missing(&place)),
        None => Some(unknown.to_string()),
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

pub fn warn_problems(ctx: &Context, problems: &[String]) {
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
/// ([`default_sources`]: OpenCode's and Kilo Code's, the project's Claude Code transcripts and pi
/// sessions, Codex's sessions): for `frame tree --cost`, `frame show --cost` and the flame graph's
/// `--weight cost`.
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

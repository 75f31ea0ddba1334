//! `ctx budget spent`: what the work cost, from the agents' records (src/spent/).

use crate::app::Context;
use crate::app::spent::{load_records, warn_problems};
use crate::cli::budget::{SpentArgs, SpentBy};
use crate::error::{Error, ExitCode, Result};
use crate::frame::store::Store;
use crate::spent::record::Records;
use crate::spent::render;
use crate::spent::report::{self, By, Selection};

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

/// A session by full id or unique prefix (4 characters at least). A Claude Code session or
/// subagent, a pi session or a Codex thread may also be named by its own id, as the agent shows
/// it (`f822e299…` for `cc_f822e299…`, `01a21b53…` for `pi_01a21b53…` or `cx_01a21b53…`).
fn session_position(records: &Records, arg: &str) -> Result<usize> {
    use crate::claude::ids::{AGENT_PREFIX, SESSION_PREFIX};
    let names = [
        arg.to_string(),
        format!("{SESSION_PREFIX}{arg}"),
        format!("{AGENT_PREFIX}{arg}"),
        format!("{}{arg}", crate::pi::SESSION_PREFIX),
        format!("{}{arg}", crate::codex::THREAD_PREFIX),
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

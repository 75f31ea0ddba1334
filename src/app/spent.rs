//! The records of model calls with their prices, as `ctx budget spent` and the frame tree's costs
//! (`ctx frame tree --cost`, `frame show --cost`, the flame graph's `--weight cost`) read them.

use std::path::{Path, PathBuf};

use super::Context;
use crate::error::{Error, Result};
use crate::spent::price::PriceList;
use crate::spent::record::Records;
use crate::spent::sources::{self, Readers};
use crate::{claude, codex, copilot, gemini, kilo, opencode, pi, qwen};

/// Problems printed as warnings before the rest are only counted.
const MAX_WARNINGS: usize = 20;

/// The agents' records that `--source` may name: the databases with OpenCode's tables, and the
/// JSON Lines files of the other agents (session files, Qwen Code's ledger), in the order a file
/// is matched: Qwen Code's and Gemini CLI's before Claude Code's, whose transcripts' lines also
/// carry `sessionId` (the others' first lines never look alike).
const READERS: Readers<'static> = Readers {
    databases: &[opencode::DATABASE, kilo::DATABASE],
    session_files: &[
        qwen::cost::SESSION_FILES,
        gemini::cost::SESSION_FILES,
        claude::cost::SESSION_FILES,
        pi::cost::SESSION_FILES,
        codex::cost::SESSION_FILES,
        copilot::cost::SESSION_FILES,
    ],
};

/// The records of `paths` (default: OpenCode's and Kilo Code's own, the project's Claude Code
/// transcripts and pi sessions, Codex's sessions, Qwen Code's ledger, GitHub Copilot CLI's
/// and Gemini CLI's sessions; an error saying where
/// they were looked for when none is there), priced with the models.dev cache.
pub fn load_records(ctx: &Context, paths: &[PathBuf]) -> Result<Records> {
    let prices = load_prices(ctx);
    if !paths.is_empty() {
        return sources::load(paths, &READERS, &prices);
    }
    let defaults = default_sources(ctx);
    if defaults.found.is_empty() {
        return Err(Error::failure(format!(
            "no records of model calls: {}",
            defaults.looked_for
        ))
        .with_hint(
            "give --source: an opencode.db or kilo.db, an `opencode export` file, OpenCode's storage/ folder, or a folder or file of session files of Claude Code, pi, Codex, Qwen Code, GitHub Copilot CLI or Gemini CLI",
        ));
    }
    sources::load(&defaults.found, &READERS, &prices)
}

/// The records read without `--source`, and where they were looked for.
struct DefaultSources {
    found: Vec<PathBuf>,
    /// Each agent's place, for a message when nothing was found.
    looked_for: String,
}

/// OpenCode's records (all its projects'; `$OPENCODE_DB` or its data directory), Kilo Code's (its
/// `kilo.db`, all its projects'), Claude Code's transcripts and pi's sessions of this project (in
/// the folders they name after it), Codex's sessions (all its projects': Codex files them by
/// date), Qwen Code's ledger (all its projects'), with the project's Qwen sessions for their
/// titles, GitHub Copilot CLI's sessions and Gemini CLI's (all their projects'); those that exist.
fn default_sources(ctx: &Context) -> DefaultSources {
    let mut found = Vec::new();
    let database =
        |db: &Path, agent: &str| format!("{agent}'s database {} does not exist", db.display());
    let opencode = match opencode::default_source() {
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
        kilo::database(),
        Path::is_file,
        |db| database(db, "Kilo Code"),
        "Kilo Code's data directory is unknown: neither XDG_DATA_HOME nor HOME is set",
    );
    let claude = folder(
        &mut found,
        claude::projects_dir(&ctx.project.root),
        "Claude Code's transcripts of this project",
        "Claude Code's folder is unknown: neither CLAUDE_CONFIG_DIR nor HOME is set",
    );
    let pi = folder(
        &mut found,
        pi::project_sessions_dir(&ctx.project.root),
        "pi's sessions of this project",
        "pi's folder is unknown: neither PI_CODING_AGENT_DIR nor HOME is set",
    );
    let codex = folder(
        &mut found,
        codex::home_dir().map(|h| h.join("sessions")),
        "Codex's sessions",
        "Codex's folder is unknown: neither CODEX_HOME nor HOME is set",
    );
    let qwen = folder(
        &mut found,
        qwen::usage_dir(),
        "Qwen Code's records of model calls",
        "Qwen Code's folder is unknown: neither QWEN_HOME nor HOME is set",
    );
    // The project's Qwen sessions name them (their first prompts); the ledger counts the calls.
    if qwen.is_none()
        && let Some(chats) = qwen::project_chats_dir(&ctx.project.root).filter(|d| d.is_dir())
    {
        found.push(chats);
    }
    let copilot = folder(
        &mut found,
        copilot::sessions_dir(),
        "GitHub Copilot CLI's sessions",
        "GitHub Copilot CLI's folder is unknown: neither COPILOT_HOME nor HOME is set",
    );
    let gemini = folder(
        &mut found,
        gemini::sessions_dir(),
        "Gemini CLI's sessions",
        "Gemini CLI's folder is unknown: neither GEMINI_CLI_HOME nor HOME is set",
    );
    DefaultSources {
        found,
        looked_for: [opencode, kilo, claude, pi, codex, qwen, copilot, gemini]
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
/// sessions, Codex's sessions, Qwen Code's ledger): for `frame tree --cost`, `frame show --cost`
/// and the flame graph's `--weight cost`.
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
        sources::load(&defaults.found, &READERS, &load_prices(ctx))?
    };
    warn_problems(ctx, &records.problems);
    let attribution = crate::spent::attribute::attribute(&records, state);
    let (own, total, _) =
        crate::spent::attribute::frame_figures(&records, state, &attribution, &|_| true);
    Ok((own, total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spent::session_files::{Kind, kind_of};

    #[test]
    fn each_agents_first_line_names_it_whatever_its_spacing_and_key_order() {
        let agent = |line: &str| match kind_of(line.as_bytes(), READERS.session_files) {
            Kind::Agent(format) => Some(format.agent),
            Kind::Empty => Some("empty"),
            Kind::Unknown => None,
        };
        assert_eq!(
            agent(r#"{"type":"session","version":3,"id":"x"}"#),
            Some("pi")
        );
        assert_eq!(
            agent(r#"{"id": "x", "version": 3, "type": "session"}"#),
            Some("pi")
        );
        assert_eq!(
            agent(r#"{"timestamp":"t","ordinal":0,"type":"session_meta","payload":{}}"#),
            Some("Codex CLI")
        );
        assert_eq!(
            agent(r#"{"timestamp": "t", "type": "session_meta", "payload": {}}"#),
            Some("Codex CLI")
        );
        assert_eq!(
            agent(r#"{"timestamp":"t","type":"event_msg","payload":{}}"#),
            Some("Codex CLI")
        );
        assert_eq!(
            agent(r#"{"type":"user","sessionId":"s"}"#),
            Some("Claude Code")
        );
        // Seen in Claude Code 2.1.328: a fork subagent's transcript begins so.
        assert_eq!(
            agent(
                r#"{"type":"fork-context-ref","agentId":"a3b7","parentSessionId":"9997","parentLastUuid":"bcdd","contextLength":16}"#
            ),
            Some("Claude Code")
        );
        assert_eq!(
            agent(r#"{"type":"some-later-kind","uuid":"u","parentUuid":null}"#),
            Some("Claude Code")
        );
        assert_eq!(agent(" \n"), Some("empty"));
        assert_eq!(agent(r#"{"note":"x"}"#), None);
        assert_eq!(agent("not json"), None);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::spent::price::PriceList;
    use crate::spent::record::{MAX_CALL_TOKENS, Records};
    use proptest::prelude::*;
    use serde_json::{Value, json};
    use std::path::Path;

    /// Any JSON value a field may hold in a damaged or foreign file.
    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(|f| json!(f)),
            "[a-z0-9:.T-]{0,24}".prop_map(Value::from),
            Just(json!({})),
            Just(json!([])),
        ]
    }

    /// A line: one of each agent's line shapes, with its fields replaced by any values.
    fn any_line() -> impl Strategy<Value = Value> {
        let shapes = prop_oneof![
            Just(json!({"type": "session", "id": "s", "timestamp": "2026-11-27T04:46:06.770Z"})),
            Just(
                json!({"type": "message", "id": "e", "timestamp": "t", "message": {"role": "assistant", "provider": "p", "model": "m", "timestamp": 1,
                "usage": {"input": 1, "output": 1, "cacheRead": 1, "cacheWrite": 1, "totalTokens": 4, "cost": {"total": 0.1}}}})
            ),
            Just(
                json!({"type": "session_meta", "timestamp": "t", "payload": {"id": "c", "parent_thread_id": "d", "timestamp": "t"}})
            ),
            Just(json!({"type": "turn_context", "payload": {"model": "m"}})),
            Just(
                json!({"type": "token_usage_record", "timestamp": "2026-11-27T04:47:17.522Z", "payload": {"thread_id": "c", "response_id": "r",
                "usage": {"input_tokens": 5, "cached_input_tokens": 9, "output_tokens": 1, "reasoning_output_tokens": 3, "total_tokens": 6}}})
            ),
            Just(
                json!({"type": "event_msg", "timestamp": "t", "payload": {"type": "token_count", "info": {"total_token_usage": {"total_tokens": 1},
                "last_token_usage": {"input_tokens": 1, "output_tokens": 1}}}})
            ),
        ];
        (shapes, prop::collection::vec(any_value(), 0..4)).prop_map(|(mut line, values)| {
            // Replace leaves, depth first, with the values drawn.
            fn replace(v: &mut Value, values: &mut Vec<Value>) {
                match v {
                    Value::Object(map) => map.values_mut().for_each(|v| replace(v, values)),
                    leaf => {
                        if let Some(new) = values.pop() {
                            *leaf = new;
                        }
                    }
                }
            }
            let mut values = values;
            replace(&mut line, &mut values);
            line
        })
    }

    proptest! {
        /// Whatever the lines hold, reading them never panics and no count read passes the
        /// bound of a call.
        #[test]
        fn any_lines_are_read_without_panic(lines in prop::collection::vec(any_line(), 0..12)) {
            let prices = PriceList::default();
            let file = Path::new("f.jsonl");
            let mut records = Records::default();
            pi::cost::read_session(file, &lines, &prices, &mut records);
            codex::cost::read_rollout(file, &lines, &prices, &mut records);
            prop_assert!(records.calls.len() <= 2 * lines.len());
            for call in &records.calls {
                let t = call.tokens;
                for n in [t.input, t.output, t.reasoning, t.cache_read, t.cache_write] {
                    prop_assert!(n <= MAX_CALL_TOKENS);
                }
            }
        }
    }
}

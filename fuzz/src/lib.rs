//! The fuzz targets of ctx's parsers, as plain functions: cargo-fuzz drives them from
//! `fuzz_targets/` (nightly), and the main crate's `tests/fuzz_targets.rs` runs them on stable over
//! the committed corpus and mutations of it. Each one panics only when a property breaks.

use ctxkit::budget::session;
use ctxkit::compact::fold::{self, Anchor, Popped};
use ctxkit::compact::id::IdMinter;
use ctxkit::compact::inject::{self, Position};
use ctxkit::conversation::Export;
use ctxkit::frame::span::{Mark, Span};
use ctxkit::frame::state::{self, State};
use ctxkit::frame::{import as frame_import, log};
use ctxkit::json;
use ctxkit::swarm::doc::{Counts, StatusDoc};
use ctxkit::swarm::{config as swarm_config_file, extract, markdown, model, plan_json};
use ctxkit::text::utf16_len;

/// flame.md §3.3's example state: the tree fuzzed exports and imports are applied to.
const SPEC_STATE: &str = include_str!("../../tests/fixtures/frame/spec-example.json");

fn spec_state() -> State {
    state::parse(SPEC_STATE).expect("the spec example is valid")
}

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// `src/json.rs`: never panics (depth limit included); what it writes it reads back unchanged,
/// and writing is idempotent.
pub fn json(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(value) = json::parse(text) else { return };
    let written = json::to_pretty_string(&value);
    let again = json::parse(&written).expect("ctx reads the JSON it writes");
    assert_eq!(again, value, "a write and a read changed the document");
    assert_eq!(json::to_pretty_string(&again), written);
}

/// `state.json` validation (flame.md §3.4): never panics; a valid state is written exactly as the
/// JSON model writes the whole document (unchanged frames are copied from the text they were read
/// from), and written out it is valid again and writes the same bytes.
pub fn state(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(state) = state::parse(text) else {
        return;
    };
    let written = state.to_text();
    let model = json::parse(text).expect("a valid state is valid JSON");
    assert_eq!(
        written,
        json::to_pretty_string(&model) + "\n",
        "the rewrite differs from the model's"
    );
    // The same document on one line takes the full parser and validation for every frame: the
    // fields the tree reads must be the ones the one-pass read of the original text gave.
    let compact = compact(&model);
    let full = state::parse(&compact).expect("the full path accepts what the quick one does");
    assert_eq!(
        tree_fields(&full),
        tree_fields(&state),
        "the quick read's fields differ"
    );
    let again = state::parse(&written).expect("ctx reads the state it writes");
    assert_eq!(again.to_text(), written, "rewriting a state changed it");
    assert_eq!(again.len(), state.len(), "a rewrite lost frames");
    for frame in state.frames() {
        assert!(
            again.frame(frame.id).is_some(),
            "frame {} lost in a rewrite",
            frame.id
        );
    }
}

/// `value` on one line, numbers as written (serde_json would turn one too large for a float
/// into `null`).
fn compact(value: &json::Json) -> String {
    use json::Json;
    let string = |text: &str| serde_json::to_string(text).expect("a string serialises");
    match value {
        Json::Null => "null".into(),
        Json::Bool(b) => b.to_string(),
        Json::Number(text) => text.to_string(),
        Json::String(text) => string(text),
        Json::Array(items) => format!(
            "[{}]",
            items.iter().map(compact).collect::<Vec<_>>().join(",")
        ),
        Json::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{}:{}", string(k), compact(v)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
    }
}

/// What the tree reads of each frame.
fn tree_fields(state: &State) -> Vec<String> {
    state
        .frames()
        .map(|f| {
            let (parent, goal) = (f.parent(), f.goal());
            format!(
                "{} {parent:?} {} {goal:?} {}",
                f.id,
                f.status(),
                f.created_at()
            )
        })
        .collect()
}

/// OpenCode exports (`--transcript`, `budget estimate --session`): parsing never panics, and
/// neither does writing a log with an accepted export or viewing it as the model's input.
pub fn export(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(export) = Export::parse(text) else {
        return;
    };
    for message in export.messages() {
        let _ = (message.role(), message.created());
    }
    let view = session::view(&export);
    assert!(
        view.messages <= export.messages().count(),
        "no message is invented"
    );
    let messages = log::Messages::of(&export, 256 << 10);
    let log = log::render(
        &spec_state(),
        "fr_46s6jr410dd3",
        1_795_343_600_000,
        Some(&messages),
    );
    assert!(log.starts_with('#'), "a log starts with its title");
}

/// `frame import` sources (flame.md §10): never panics; a merge that succeeds is a valid state
/// that keeps every frame of the target.
pub fn import(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let target = spec_state();
    let Ok((merged, outcome)) = frame_import::import(&target, text, 1_795_343_600_000) else {
        return;
    };
    let written = merged.to_text();
    let again = state::parse(&written).expect("an import writes a valid state");
    for frame in target.frames() {
        let kept = again
            .frame(frame.id)
            .expect("every frame of the target is kept");
        assert_eq!(
            kept.goal(),
            frame.goal(),
            "frame {} of the target changed",
            frame.id
        );
    }
    for id in &outcome.imported {
        assert!(again.frame(id).is_some(), "imported frame {id} missing");
    }
}

/// A `.swarm/` file's text as ctx reads it (swarm.md §1.1): one BOM stripped, invalid UTF-8
/// replaced; `None` when empty, which is the same as absent.
fn swarm_text(data: &[u8]) -> Option<String> {
    let bytes = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
    (!bytes.is_empty()).then(|| String::from_utf8_lossy(bytes).into_owned())
}

/// Every reader of a plan text, markdown (§8) and structured, with the properties the spec
/// fixes: `plan` is the text verbatim, one phase starts with its heading, counts add up, caps
/// hold.
fn check_plan_text(text: &str) {
    assert_eq!(
        markdown::plan(Some(text), None),
        text,
        "plan without an argument is not the text verbatim"
    );
    assert_eq!(
        markdown::plan(Some(text), Some("x")),
        text,
        "plan NaN is the text"
    );
    for arg in ["1", "2", "-0"] {
        let phase = markdown::plan(Some(text), Some(arg));
        assert!(
            phase.starts_with("## Phase ") || phase.ends_with(" not found in plan."),
            "plan {arg}: {phase:?}"
        );
    }
    let status = markdown::status(Some(text), 7);
    assert!(status.starts_with("## Swarm Status\n\n**Current Phase**: "));
    assert!(status.ends_with("\n**Agents**: 7 registered"));
    let (done, open) = markdown::count_checkboxes(text);
    assert!(status.contains(&format!("**Tasks**: {done}/{} complete", done + open)));
    let history = markdown::history(Some(text));
    assert!(history == "No history available." || history.starts_with("## Swarm History\n"));
    if let Some(tasks) = extract::incomplete_tasks(text, 500) {
        assert!(utf16_len(&tasks) <= 503, "E3 over its cap");
    }
    let _ = (extract::current_task(text), extract::current_phase(text));
    let plan = model::from_markdown(text);
    check_plan_model(&plan);
}

fn check_plan_model(plan: &model::Plan) {
    let all = Counts::of(plan.tasks());
    assert!(all.completed <= all.total && all.blocked <= all.total);
    if let Some(current) = plan.current_phase() {
        assert!(plan.phases.iter().any(|p| p.number == current.number));
    }
    let assumed = ctxkit::swarm::version::Assumed {
        version: ctxkit::swarm::version::PluginVersion::V4_3,
        reason: String::new(),
    };
    let plugin = ctxkit::swarm::doc::PluginDoc::new(&assumed);
    let doc = StatusDoc::new(plugin, Some("plan.md"), Some(plan), 7);
    assert_eq!(doc.phases.len(), plan.phases.len());
}

/// `.swarm/plan.md`: every markdown and structured reader, with the properties of
/// [`check_plan_text`].
pub fn plan_md(data: &[u8]) {
    let Some(text) = swarm_text(data) else { return };
    check_plan_text(&text);
    check_migration(&text);
}

/// opencode-swarm 5.1.0's migration of a plan.md: it never panics, every task it keeps has an
/// `N.M` id in a phase it keeps, and a plan it accepts derives a markdown every reader takes.
fn check_migration(text: &str) {
    let Ok(plan) = ctxkit::swarm::migrate::migrate(text) else {
        return;
    };
    assert!(!plan.phases.is_empty());
    for phase in &plan.phases {
        for task in &phase.tasks {
            let (major, minor) = task.id.split_once('.').expect("N.M ids");
            assert!(
                major
                    .bytes()
                    .chain(minor.bytes())
                    .all(|b| b.is_ascii_digit())
            );
            assert!(!task.description.is_empty());
        }
    }
    let ids: Vec<i64> = plan.phases.iter().map(|p| p.id).collect();
    assert!(ids.windows(2).all(|w| w[0] <= w[1]), "phases sorted by id");
    check_plan_text(&ctxkit::swarm::plan_json::derive_markdown(&plan, Some(0)));
}

/// `.swarm/plan.json` (swarm.md §4): validation never panics; a usable plan derives a markdown
/// `D` that every plan.md reader accepts, and the structured plan keeps every phase and task.
pub fn plan_json(data: &[u8]) {
    let Some(text) = swarm_text(data) else { return };
    let Ok(plan) = plan_json::parse(text) else {
        return;
    };
    assert!(!plan.phases.is_empty() && plan.current_phase >= 1);
    let derived = plan_json::derive_markdown(&plan, Some(1_772_443_800_000));
    assert!(
        derived.starts_with("# ") && derived.ends_with('\n'),
        "{derived:?}"
    );
    assert_eq!(
        derived,
        plan_json::derive_markdown(&plan, Some(1_772_443_800_000)),
        "D is not deterministic"
    );
    check_plan_text(&derived);
    let structured = model::from_json(&plan);
    assert_eq!(
        structured.phases.len(),
        plan.phases.len(),
        "a phase was lost"
    );
    for (phase, json) in structured.phases.iter().zip(&plan.phases) {
        assert_eq!(phase.tasks.len(), json.tasks.len(), "a task was lost");
    }
    check_plan_model(&structured);
}

/// `.swarm/context.md` (swarm.md §7.4–7.5, §9–10): the extractors never panic and respect their
/// caps; entries come only from sections that exist.
pub fn context_md(data: &[u8]) {
    let Some(text) = swarm_text(data) else { return };
    for (entry, cap) in [
        (extract::decisions(&text, 500), 500),
        (extract::patterns(&text, 500), 500),
        (extract::decisions(&text, 200), 200),
        (extract::agent_activity(&text, "paid_coder", 300), 300),
        (extract::agent_activity(&text, "reviewer", 50), 50),
        (extract::agent_activity(&text, "x", 2000), 2000),
    ] {
        if let Some(entry) = entry {
            assert!(
                utf16_len(&entry) <= cap + 3,
                "an extract over its cap of {cap}"
            );
        }
    }
    if !text.contains("## Decisions") {
        assert_eq!(extract::decisions(&text, 500), None);
    }
    let config = swarm_config_file::SwarmConfig::default();
    let compaction = markdown::compaction_entries(None, Some(&text), &config);
    assert!(compaction.len() <= 2);
    let system = markdown::system_entries(None, Some(&text), &config, Some("coder"));
    assert!(system.len() <= 2);
}

/// opencode-swarm's config (swarm.md §6): validation never panics; a valid file merged with
/// nothing is itself, and its roster holds at most seven agents per swarm, each within range.
pub fn swarm_config(data: &[u8]) {
    // The plugin does not strip a BOM here (§6.2).
    let text = String::from_utf8_lossy(data);
    let Ok(config) = swarm_config_file::parse(&text) else {
        return;
    };
    assert_eq!(swarm_config_file::merge(None, Some(config.clone())), config);
    assert_eq!(swarm_config_file::merge(Some(config.clone()), None), config);
    let hooks = config.hooks();
    assert!((50.0..=2000.0).contains(&hooks.agent_awareness_max_chars));
    let roster = swarm_config_file::roster(&config);
    let swarms = config.swarms.as_ref().map_or(0, Vec::len).max(1);
    assert!(roster.len() <= 7 * swarms, "{} agents", roster.len());
    for agent in &roster {
        assert!(!agent.name.is_empty() && !agent.model.is_empty());
        if let Some(t) = agent.temperature {
            assert!((0.0..=2.0).contains(&t), "temperature {t}");
        }
    }
    let listed = markdown::agents(&roster);
    assert!(listed == "No agents registered." || listed.starts_with("## Registered Agents\n\n"));
}

/// OpenCode message lists (`compact inject`, opencode.md §8): parsing never panics; an accepted
/// list takes the context at every position that exists, and the result is JSON holding every
/// message of the input, unchanged ones byte for byte, plus the context exactly once.
pub fn messages(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(list) = inject::parse_messages(text) else {
        return;
    };
    // A lone surrogate escape (`"\ud800"`) is JSON to JavaScript and to ctx, which copies it
    // through, but not to serde_json's Value, which checks the properties below.
    let Ok(input) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    let ids: Vec<String> = input["messages"]
        .as_array()
        .expect("accepted input has a messages array")
        .iter()
        .map(|m| {
            m["info"]["id"]
                .as_str()
                .expect("ids are strings")
                .to_string()
        })
        .collect();
    let mut positions = vec![
        Position::Prepend,
        Position::Append,
        Position::LastUser,
        Position::LastAssistant,
    ];
    for id in ids.iter().take(2) {
        positions.push(Position::Before(id.clone()));
        positions.push(Position::After(id.clone()));
    }
    const CONTEXT: &str = "<ctx-fuzz-context/>";
    for at in positions {
        let mut minter = IdMinter::with_tail(|| *b"FUZZFUZZFUZZFZ");
        let Ok(out) = inject::inject(&list, &at, CONTEXT, &mut minter, 1_795_343_600_000) else {
            continue;
        };
        let value: serde_json::Value = serde_json::from_str(&out).expect("the output is JSON");
        let messages = value["messages"]
            .as_array()
            .expect("messages stay an array");
        let added = match at {
            Position::LastUser | Position::LastAssistant => 0,
            _ => 1,
        };
        assert_eq!(
            messages.len(),
            ids.len() + added,
            "{at}: one message added at most"
        );
        assert_eq!(
            occurrences(&value, CONTEXT),
            1 + occurrences(&input, CONTEXT),
            "{at}: the context is added once"
        );
    }
}

/// pi message lists (`ctx pi messages`): parsing never panics; an accepted list folds (a span
/// from its first tool call to its last, one by times, an anchored context) without panicking,
/// and the result is JSON whose messages are the input's, less folded ones, plus at most one
/// entry per span and the context.
pub fn pi_messages(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(parsed) = fold::pi::parse(text) else {
        return;
    };
    let Ok(input) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    let messages = input["messages"]
        .as_array()
        .expect("accepted input has a messages array");
    let calls: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "toolCall")
        .filter_map(|b| b["id"].as_str())
        .collect();
    let span = |open: Mark, close: Mark| Span {
        session: "pi_fuzz".into(),
        open,
        close: Some(close),
    };
    let mut popped = vec![Popped {
        id: "fr_time".into(),
        span: span(
            Mark::new(0, None, None),
            Mark::new(i64::MAX / 2, None, None),
        ),
        entry: "<flame-folded id=\"fr_time\"/>".into(),
        by_call: None,
    }];
    if let (Some(first), Some(last)) = (calls.first(), calls.last()) {
        popped.push(Popped {
            id: "fr_call".into(),
            span: span(
                Mark::new(0, None, Some(first)),
                Mark::new(0, None, Some(last)),
            ),
            entry: "<flame-folded id=\"fr_call\"/>".into(),
            by_call: None,
        });
    }
    let folding = fold::fold_with(&fold::pi::Pi, &parsed.list, &popped, false);
    let anchors: Vec<Anchor> = folding
        .needs_context(&[])
        .map(|(_, after)| Anchor {
            after,
            id: "msg_fuzz".into(),
            part: "prt_fuzz".into(),
            created: 1,
            text: Some("<flame-context/>".into()),
        })
        .into_iter()
        .collect();
    let out = folding.write(&anchors);
    let value: serde_json::Value = serde_json::from_str(&out).expect("the output is JSON");
    let sent = value["messages"]
        .as_array()
        .expect("messages stay an array");
    assert!(
        sent.len() <= messages.len() + popped.len() + anchors.len(),
        "no more than an entry per span and the context are added"
    );
}

/// How often `needle` occurs in the strings of `value`.
fn occurrences(value: &serde_json::Value, needle: &str) -> usize {
    match value {
        serde_json::Value::String(s) => s.matches(needle).count(),
        serde_json::Value::Array(items) => items.iter().map(|v| occurrences(v, needle)).sum(),
        serde_json::Value::Object(map) => map.values().map(|v| occurrences(v, needle)).sum(),
        _ => 0,
    }
}

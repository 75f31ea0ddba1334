//! The fuzz targets of ctx's parsers, as plain functions: cargo-fuzz drives them from
//! `fuzz_targets/` (nightly), and the main crate's `tests/fuzz_targets.rs` runs them on stable over
//! the committed corpus and mutations of it. Each one panics only when a property breaks.

use ctxkit::frame::state::{self, State};
use ctxkit::frame::{import as frame_import, log};
use ctxkit::json;
use ctxkit::opencode::export::Export;

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

/// OpenCode exports (`--transcript`): parsing never panics, and neither does writing a log
/// with an accepted export.
pub fn export(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(export) = Export::parse(text) else {
        return;
    };
    for message in export.messages() {
        let _ = (message.role(), message.created());
    }
    let log = log::render(
        &spec_state(),
        "fr_46s6jr410dd3",
        1_795_343_600_000,
        Some(&export),
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

//! `ctx frame import` (flame.md §10): frames from Flame's later "stack" state, or another Flame v1
//! file, appended to this tree.

use super::id;
use super::state::{self, FrameKey, State};
use crate::error::{Error, Result};
use crate::json::{self, Json, Object};

/// What an import did.
#[derive(Debug, Default, PartialEq)]
pub struct Imported {
    pub imported: Vec<String>,
    pub skipped: Vec<String>,
}

fn non_blank<'a>(frame: &'a Object, key: &str) -> Option<&'a str> {
    frame
        .get(key)
        .and_then(Json::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// `goal` for a stack frame: `<title>: <successCriteriaCompacted>`, else the first non-blank of
/// `title`, `successCriteriaCompacted`, `successCriteria`, else `Frame <id>`.
fn goal_of(frame: &Object, id: &str) -> String {
    let title = non_blank(frame, "title");
    let criteria = non_blank(frame, "successCriteriaCompacted");
    match (title, criteria) {
        (Some(title), Some(criteria)) => format!("{title}: {criteria}"),
        _ => title
            .or(criteria)
            .or_else(|| non_blank(frame, "successCriteria"))
            .map_or_else(|| format!("Frame {id}"), str::to_string),
    }
}

/// Merges the frames of `source_text` into `target`. Validates the merged state before returning
/// it; on any error the target is left as it was.
pub fn import(target: &State, source_text: &str, now: i64) -> Result<(State, Imported)> {
    let source =
        json::parse(source_text.strip_prefix('\u{feff}').unwrap_or(source_text)).map_err(|e| {
            Error::failure(format!(
                "invalid JSON at line {}, column {}: {}",
                e.line, e.column, e.message
            ))
        })?;
    let frames = source
        .as_object()
        .and_then(|doc| doc.get("frames"))
        .and_then(Json::as_object)
        .ok_or_else(|| Error::failure("not a Flame state: /frames must be an object"))?;
    let mut merged = target.clone();
    let mut outcome = Imported::default();
    for (key, frame) in frames.iter() {
        if let Some(why) = id::id_problem(key) {
            return Err(Error::failure(format!(
                "/frames/{}: invalid frame id: {why}",
                key.escape_debug()
            )));
        }
        let Some(frame) = frame.as_object() else {
            return Err(Error::failure(format!("/frames/{key} must be an object")));
        };
        if merged.id_taken(key).is_some() {
            outcome.skipped.push(key.to_string());
            continue;
        }
        let mut frame = frame.clone();
        if !frame
            .get(FrameKey::Goal.name())
            .is_some_and(Json::is_string)
        {
            let goal = goal_of(&frame, key);
            frame.insert(FrameKey::Goal.name(), Json::String(goal));
        }
        if !frame
            .get(FrameKey::Summary.name())
            .is_some_and(Json::is_string)
        {
            let summary =
                non_blank(&frame, "resultsCompacted").or_else(|| non_blank(&frame, "results"));
            if let Some(summary) = summary.map(str::to_string) {
                frame.insert(FrameKey::Summary.name(), Json::String(summary));
            }
        }
        for list in [FrameKey::Artifacts.name(), FrameKey::Decisions.name()] {
            if frame.get(list).is_none_or(Json::is_null) {
                frame.insert(list, Json::Array(Vec::new()));
            }
        }
        let is_root = frame
            .get(FrameKey::Parent.name())
            .and_then(Json::as_str)
            .is_none();
        merged.insert_frame(key, frame);
        if is_root {
            merged.push_root_id(key);
        }
        outcome.imported.push(key.to_string());
    }
    let source_active = source
        .as_object()
        .and_then(|doc| doc.get("activeFrameID"))
        .and_then(Json::as_str);
    if merged.active_frame_id().is_none()
        && let Some(active) = source_active.filter(|a| outcome.imported.iter().any(|i| i == a))
    {
        merged.set_active(Some(active));
    }
    if !outcome.imported.is_empty() {
        merged.set_updated_at(now);
    }
    // Validate the merged document exactly as a later read would.
    let merged = state::parse(&merged.to_text()).map_err(|invalid| {
        Error::failure(format!(
            "the merged state would be invalid: {}",
            invalid.message
        ))
    })?;
    Ok((merged, outcome))
}

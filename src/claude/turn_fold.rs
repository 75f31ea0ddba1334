//! Folding a Claude Code transcript's finished turn frames (`frame.auto = "turns"`), and the
//! finished task frames that ran in no turn frame (`frame.auto = "todos"`: the same, with the
//! task's span and the word "Item"), so that a `--continue` or `--resume` sends each finished
//! turn without its tool outputs, whether or not the model ever pushed a frame. Pure: text in, text out; run after the fold of the model's own
//! frames (`super::fold`), on its result.
//!
//! A turn's span is the main conversation's lines written between the turn frame's opening (at
//! UserPromptSubmit) and its closing (at Stop), by their `timestamp`. In it, every Bash or other
//! tool call whose call line and result line both lie in the span is taken out, but for the
//! first: its result becomes the turn's fold entry, which names the frame and the command that
//! gives its outputs back (`ctx frame log <id>`; the turn's log holds them, written at its Stop).
//! So every kept call still has its result, and the request stays valid. The person's prompts
//! and the model's text lines stay byte for byte; a kept line whose parent was taken out is
//! chained to its nearest kept ancestor.
//!
//! Left unfolded, each with the reason: a turn with a compaction in its span, and a turn whose
//! span holds a `ctx frame` command of the model's (its explicit frames fold as they always do,
//! and take precedence). A turn folded before (its entry carries the turn's id in `ctxFolded`)
//! is not folded again.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::fold::{FOLDED_KEY, is_compaction, lines_and_records, relink};
pub use crate::hooks::turns::{ClosedFrame, TurnsFolded};
use crate::hooks::turns::{refused_for_compaction, refused_for_frames, runs_frame_commands};

/// One tool call of the main conversation: its call line and its result line.
struct ToolPair {
    call: usize,
    result: usize,
    bash_command: Option<String>,
}

/// Folds the finished `turns` of the transcript `text` (see the module's doc). An error says why
/// the whole transcript is left as it is (a line that is not a JSON object).
pub fn fold_turns(text: &str, turns: &[ClosedFrame]) -> Result<TurnsFolded, String> {
    let mut out = TurnsFolded::default();
    if turns.is_empty() {
        return Ok(out);
    }
    let (raw, records) = lines_and_records(text)?;
    let pairs = tool_pairs(&records);
    let mut removed: HashSet<usize> = HashSet::new();
    let mut rewritten: HashMap<usize, Value> = HashMap::new();
    for turn in turns {
        let in_span = |n: usize| {
            records[n]
                .as_ref()
                .filter(|r| !is_sidechain(r))
                .and_then(|r| r.get("timestamp")?.as_str())
                .and_then(crate::time::parse_rfc3339_utc)
                .is_some_and(|at| turn.from <= at && at <= turn.to)
        };
        let span: Vec<usize> = (0..records.len()).filter(|&n| in_span(n)).collect();
        if span.is_empty() {
            continue;
        }
        let already = span.iter().any(|&n| {
            records[n]
                .as_ref()
                .and_then(|r| r.get(FOLDED_KEY))
                .and_then(Value::as_str)
                == Some(turn.id.as_str())
        });
        if already {
            continue;
        }
        if span
            .iter()
            .any(|&n| records[n].as_ref().is_some_and(is_compaction))
        {
            out.refused.push(refused_for_compaction(turn));
            continue;
        }
        let inside: Vec<&ToolPair> = pairs
            .iter()
            .filter(|p| in_span(p.call) && in_span(p.result))
            .collect();
        if inside
            .iter()
            .any(|p| p.bash_command.as_deref().is_some_and(runs_frame_commands))
        {
            out.refused.push(refused_for_frames(turn));
            continue;
        }
        // Results a fold of the model's frames wrote stay with their calls.
        let inside: Vec<&ToolPair> = inside
            .into_iter()
            .filter(|p| {
                records[p.result]
                    .as_ref()
                    .is_some_and(|r| r.get(FOLDED_KEY).is_none())
            })
            .collect();
        let Some((first, rest)) = inside.split_first() else {
            continue;
        };
        for pair in rest {
            removed.insert(pair.call);
            removed.insert(pair.result);
        }
        let entry = format!(
            "[ctx] {} {} ({}) folded: {} tool output{} of this {} left out; `ctx frame log {}` \
             gives them all back.",
            turn.kind.title(),
            turn.id,
            turn.goal,
            inside.len(),
            if inside.len() == 1 { "" } else { "s" },
            turn.kind.word(),
            turn.id
        );
        let mut result = records[first.result].clone().expect("a result is a record");
        let call_id = result
            .pointer("/message/content/0/tool_use_id")
            .cloned()
            .unwrap_or(Value::Null);
        result["message"]["content"] = json!([{
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": entry,
        }]);
        if let Some(object) = result.as_object_mut() {
            object.remove("toolUseResult");
            object.insert(FOLDED_KEY.to_string(), Value::from(turn.id.as_str()));
        }
        rewritten.insert(first.result, result);
        out.turns.push(turn.id.clone());
    }
    if out.turns.is_empty() {
        return Ok(out);
    }
    let parent_of: HashMap<String, Value> = removed
        .iter()
        .filter_map(|&n| {
            let r = records[n].as_ref()?;
            Some((
                r.get("uuid")?.as_str()?.to_string(),
                r.get("parentUuid").cloned().unwrap_or(Value::Null),
            ))
        })
        .collect();
    let mut text_out = String::with_capacity(text.len());
    for (n, line) in raw.iter().enumerate() {
        if removed.contains(&n) {
            continue;
        }
        let mut record = rewritten.remove(&n).or_else(|| records[n].clone());
        let relinked = record.as_mut().is_some_and(|r| relink(r, &parent_of));
        match record {
            Some(r) if relinked || records[n].as_ref() != Some(&r) => {
                text_out.push_str(&serde_json::to_string(&r).expect("a JSON value serializes"));
            }
            // Every line the fold did not change stays byte for byte.
            _ => text_out.push_str(line),
        }
        text_out.push('\n');
    }
    out.text = Some(text_out);
    Ok(out)
}

fn is_sidechain(record: &Value) -> bool {
    record.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

/// The blocks of a line's message when they are all of `kind`: Claude Code writes one line per
/// content block, so a line of tool calls or tool results holds nothing else.
fn only_blocks<'v>(record: &'v Value, kind: &str) -> Option<&'v Vec<Value>> {
    let blocks = record.pointer("/message/content")?.as_array()?;
    (!blocks.is_empty()
        && blocks
            .iter()
            .all(|b| b.get("type").and_then(Value::as_str) == Some(kind)))
    .then_some(blocks)
}

/// Every tool call of the main conversation whose line holds calls only, paired with the line
/// that holds its result and nothing else; a line of several calls pairs only when all its
/// results share one line, so that taking out both lines leaves no call or result alone.
fn tool_pairs(records: &[Option<Value>]) -> Vec<ToolPair> {
    let mut results: HashMap<&str, (usize, usize)> = HashMap::new();
    for (n, record) in records.iter().enumerate() {
        let Some(record) = record.as_ref().filter(|r| !is_sidechain(r)) else {
            continue;
        };
        if record.get("type").and_then(Value::as_str) != Some("user") {
            continue;
        }
        if let Some(blocks) = only_blocks(record, "tool_result") {
            for block in blocks {
                if let Some(id) = block.get("tool_use_id").and_then(Value::as_str) {
                    results.insert(id, (n, blocks.len()));
                }
            }
        }
    }
    let mut pairs = Vec::new();
    for (n, record) in records.iter().enumerate() {
        let Some(record) = record.as_ref().filter(|r| !is_sidechain(r)) else {
            continue;
        };
        if record.get("type").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let Some(blocks) = only_blocks(record, "tool_use") else {
            continue;
        };
        let lines: Vec<Option<&(usize, usize)>> = blocks
            .iter()
            .map(|b| {
                b.get("id")
                    .and_then(Value::as_str)
                    .and_then(|id| results.get(id))
            })
            .collect();
        let Some(&Some(&(result, count))) = lines.first() else {
            continue;
        };
        if count != blocks.len() || lines.iter().any(|l| l.map(|l| l.0) != Some(result)) {
            continue;
        }
        let bash_command = blocks
            .iter()
            .filter(|b| b.get("name").and_then(Value::as_str) == Some("Bash"))
            .filter_map(|b| b.pointer("/input/command")?.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        pairs.push(ToolPair {
            call: n,
            result,
            bash_command: (!bash_command.is_empty()).then_some(bash_command),
        });
    }
    pairs
}

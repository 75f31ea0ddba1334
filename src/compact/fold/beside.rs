//! Folding beside other plugins: whatever another plugin of the session (DCP, oh-my-opencode, a
//! second copy of ctx's own plugin) deleted, rewrote or reordered in the message list before
//! `ctx opencode messages` sees it, the list ctx sends pairs every tool call with its output,
//! holds each of ctx's messages once, and ctx never panics.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use serde_json::{Value, json};

use super::tests::popped;
use super::{Anchor, ByCall, Popped, fold};
use crate::compact::inject::parse_messages;
use crate::frame::span::Mark;

/// What another plugin does to one message of the list.
#[derive(Debug, Clone)]
enum Change {
    /// Drops it (DCP's prune, a compaction).
    Delete(usize),
    /// Moves it elsewhere.
    Move(usize, usize),
    /// Replaces its texts and outputs (DCP's pruned outputs, a plugin rewriting ctx's contexts).
    Rewrite(usize),
    /// Drops its last part.
    DropPart(usize),
    /// Puts a summary message of its own before it, stamped now.
    Summary(usize),
    /// OpenCode's compaction: what came before it goes, its request and summary come first,
    /// stamped when it ran.
    Compact(usize),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (0usize..64).prop_map(Change::Delete),
        (0usize..64, 0usize..64).prop_map(|(a, b)| Change::Move(a, b)),
        (0usize..64).prop_map(Change::Rewrite),
        (0usize..64).prop_map(Change::DropPart),
        (0usize..64).prop_map(Change::Summary),
        (0usize..64).prop_map(Change::Compact),
    ]
}

/// Applies the `k`th change.
fn apply(messages: &mut Vec<Value>, change: &Change, k: usize) {
    if messages.is_empty() {
        return;
    }
    let at = |i: usize| i % messages.len();
    match *change {
        Change::Delete(i) => {
            messages.remove(at(i));
        }
        Change::Move(a, b) => {
            let m = messages.remove(at(a));
            let to = b % (messages.len() + 1);
            messages.insert(to, m);
        }
        Change::Rewrite(i) => {
            let i = at(i);
            for part in messages[i]["parts"].as_array_mut().into_iter().flatten() {
                if part.get("text").is_some() {
                    part["text"] = json!("rewritten by another plugin");
                }
                if part["state"].get("output").is_some() {
                    part["state"]["output"] = json!("[pruned]");
                }
            }
        }
        Change::DropPart(i) => {
            let i = at(i);
            if let Some(parts) = messages[i]["parts"].as_array_mut() {
                parts.pop();
            }
        }
        Change::Compact(i) => {
            let i = at(i);
            let time = messages[i]["info"]["time"]["created"].as_i64().unwrap_or(0);
            messages.drain(..i);
            messages.insert(0, compaction(&format!("c_sum{k}"), time, true));
            messages.insert(0, compaction(&format!("c_req{k}"), time, false));
        }
        Change::Summary(i) => {
            let i = at(i);
            messages.insert(
                i,
                json!({"info": {"id": format!("msg_plugin_{k}"), "sessionID": "s", "role": "user",
                    "time": {"created": 100_000}},
                    "parts": [{"id": format!("prt_plugin_{k}"), "type": "text",
                        "text": "Summary of what came before"}]}),
            );
        }
    }
}

/// A session of `roles` (true: a person's message), each assistant message one completed call
/// (`flame_push`, `flame_pop` or `bash`, id `c<i>`, running from `10 i` to `10 i + 5`), with the
/// frames of `spans` (push and pop message indices) and a context anchored after each message of
/// `anchored`.
fn session(
    roles: &[bool],
    spans: &[(usize, usize)],
    anchored: &[usize],
) -> (Vec<Value>, Vec<Popped>, Vec<Anchor>) {
    let n = roles.len();
    // The session's own records are sound: each push before its pop, spans nested or apart
    // (a broken record is `fold`'s own property test).
    let mut sound: Vec<(usize, usize)> = Vec::new();
    for &(a, b) in spans {
        let (open, close) = (a.min(b), a.max(b));
        let crosses = |&(o, c): &(usize, usize)| {
            (o < open && open <= c && c < close) || (open < o && o <= close && close < c)
        };
        let shares = |&(o, c): &(usize, usize)| [o, c].iter().any(|m| [open, close].contains(m));
        if open < close && close < n && !sound.iter().any(|s| crosses(s) || shares(s)) {
            sound.push((open, close));
        }
    }
    let spans = &sound[..];
    let tool = |i: usize| {
        if spans.iter().any(|s| s.0 == i) {
            "flame_push"
        } else if spans.iter().any(|s| s.1 == i) {
            "flame_pop"
        } else {
            "bash"
        }
    };
    // A pop call holds its frame's summary, as the model's `flame_pop` does.
    let input = |i: usize| match tool(i) {
        "flame_pop" => json!({"summary": format!("summary {i}")}),
        _ => json!({"n": i}),
    };
    let messages = roles
        .iter()
        .enumerate()
        .map(|(i, &user)| {
            let id = format!("m{i:03}");
            let time = 10 * i as i64;
            if user {
                json!({"info": {"id": id, "sessionID": "s", "role": "user", "time": {"created": time}},
                    "parts": [{"id": format!("p{i:03}"), "type": "text", "text": format!("prompt {i}")}]})
            } else {
                json!({"info": {"id": id, "sessionID": "s", "role": "assistant", "time": {"created": time}},
                    "parts": [{"id": format!("p{i:03}"), "type": "tool", "tool": tool(i),
                        "callID": format!("c{i}"),
                        "state": {"status": "completed", "input": input(i), "output": format!("out {i}"),
                            "time": {"start": time, "end": time + 5}}}]})
            }
        })
        .collect();
    let mark = |i: usize| {
        Mark::new(
            10 * i as i64 + 2,
            Some(&format!("m{i:03}")),
            Some(&format!("c{i}")),
        )
    };
    let popped = spans
        .iter()
        .enumerate()
        .map(|(k, &(open, close))| Popped {
            // Every other frame as popped by its call, whose summary the entry then leaves out.
            by_call: (k % 2 == 0).then(|| ByCall {
                summary: format!("summary {close}"),
                entry: format!("<flame-folded id=\"fr_{k}\"/>"),
            }),
            ..popped(
                &format!("fr_{k}"),
                mark(open),
                mark(close),
                &format!("<flame-folded id=\"fr_{k}\">\n</flame-folded>"),
            )
        })
        .collect();
    let anchors = anchored
        .iter()
        .filter(|&&i| i < n)
        .collect::<HashSet<_>>()
        .into_iter()
        .map(|&i| Anchor {
            after: format!("m{i:03}"),
            id: format!("msg_ctx{i:03}"),
            part: format!("prt_ctx{i:03}"),
            created: 10 * i as i64 + 1,
            text: Some(format!("<flame-context n=\"{i}\"></flame-context>")),
        })
        .collect();
    (messages, popped, anchors)
}

/// What ctx sends for `messages`.
fn send(messages: &[Value], popped: &[Popped], anchors: &[Anchor], keep_user: bool) -> Vec<Value> {
    let text = json!({ "messages": messages }).to_string();
    let list = parse_messages(&text).expect("a list of messages");
    let out = fold(&list, popped, keep_user).write(anchors);
    let out: Value = serde_json::from_str(&out).expect("JSON out");
    out["messages"].as_array().expect("messages").clone()
}

/// The tool parts of `messages` by call id.
fn calls(messages: &[Value]) -> Vec<(String, Value)> {
    messages
        .iter()
        .flat_map(|m| m["parts"].as_array().into_iter().flatten())
        .filter(|p| p["type"] == "tool")
        .map(|p| {
            (
                p["callID"].as_str().unwrap_or_default().to_string(),
                p.clone(),
            )
        })
        .collect()
}

/// What must hold of any list ctx sends, given the list it was handed.
fn check(input: &[Value], sent: &[Value], anchors: &[Anchor]) -> Result<(), TestCaseError> {
    let ids: Vec<&str> = sent
        .iter()
        .map(|m| m["info"]["id"].as_str().unwrap_or_default())
        .collect();
    let unique: HashSet<&&str> = ids.iter().collect();
    prop_assert_eq!(unique.len(), ids.len(), "a message sent twice: {:?}", ids);
    let text = serde_json::to_string(sent).unwrap();
    for anchor in anchors {
        let context = serde_json::to_string(anchor.text.as_ref().unwrap()).unwrap();
        prop_assert!(
            text.matches(context.trim_matches('"')).count() <= 1,
            "context after {} sent twice",
            anchor.after
        );
    }
    // Each call goes with its output, whole: a completed call has an output, and is the call it
    // was (the same tool, the same id), once.
    let before: HashMap<String, Value> = calls(input).into_iter().collect();
    let mut seen = HashSet::new();
    for (id, part) in calls(sent) {
        prop_assert!(seen.insert(id.clone()), "call {} sent twice", id);
        prop_assert_eq!(&part["state"]["status"], "completed");
        prop_assert!(
            part["state"]["output"].is_string(),
            "call {} lost its output",
            id
        );
        let was = &before[&id];
        prop_assert_eq!(&part["tool"], &was["tool"]);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Another plugin's changes before ctx's transform, and ctx's transform run again on its own
    /// output (a plugin between, or ctx's plugin installed twice, globally and in the project).
    #[test]
    fn another_plugins_changes_never_unpair_calls_or_repeat_ctxs_messages(
        roles in proptest::collection::vec(any::<bool>(), 1..24),
        spans in proptest::collection::vec((0usize..24, 0usize..24), 0..4),
        anchored in proptest::collection::vec(0usize..24, 0..6),
        changes in proptest::collection::vec(change(), 0..6),
        keep_user in any::<bool>(),
    ) {
        let (mut messages, popped, anchors) = session(&roles, &spans, &anchored);
        let sent = send(&messages, &popped, &anchors, keep_user);
        check(&messages, &sent, &anchors)?;
        // ctx again on what it sent, and on that changed by another plugin.
        let mut again = sent.clone();
        let resent = send(&again, &popped, &anchors, keep_user);
        check(&again, &resent, &anchors)?;
        prop_assert_eq!(&resent, &sent, "a second pass changes nothing");
        for (k, change) in changes.iter().enumerate() {
            apply(&mut again, change, k);
        }
        let resent = send(&again, &popped, &anchors, keep_user);
        check(&again, &resent, &anchors)?;
        // Another plugin first, then ctx.
        for (k, change) in changes.iter().enumerate() {
            apply(&mut messages, change, k);
        }
        let sent = send(&messages, &popped, &anchors, keep_user);
        check(&messages, &sent, &anchors)?;
    }
}

/// A message of OpenCode's compaction, created at `created`: the request (a user message with a
/// `compaction` part) or the summary (an assistant message with `summary: true`).
fn compaction(id: &str, created: i64, summary: bool) -> Value {
    if summary {
        json!({"info": {"id": id, "sessionID": "s", "role": "assistant", "summary": true,
            "agent": "compaction", "mode": "compaction", "time": {"created": created}},
            "parts": [{"id": format!("{id}_p"), "type": "text",
                "text": "## Goal\nBill the customers.\n\n## Accomplished\nThe audit; half of the export."}]})
    } else {
        json!({"info": {"id": id, "sessionID": "s", "role": "user", "time": {"created": created}},
            "parts": [{"id": format!("{id}_p"), "type": "compaction", "auto": true}]})
    }
}

fn ids(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|m| m["info"]["id"].as_str().unwrap())
        .collect()
}

/// m000 a person's prompt, m001..m004 frame fr_0 (push, work, work, pop), m005 a prompt, m006
/// the push of fr_1, m007..m010 its work, m011 its pop, m012 a prompt; contexts after m000, m004
/// and m006.
fn two_frames() -> (Vec<Value>, Vec<Popped>, Vec<Anchor>) {
    let roles = [
        true, false, false, false, false, true, false, false, false, false, false, false, true,
    ];
    session(&roles, &[(1, 4), (6, 11)], &[0, 4, 6])
}

#[test]
fn opencodes_compaction_inside_a_running_frame_keeps_its_summary_when_the_frame_folds() {
    // OpenCode compacted while fr_1 ran (between m008 and m009): what it sends starts at the
    // compaction, whose summary stands for everything before it, inside the frame and out.
    let (messages, popped, anchors) = two_frames();
    let mut compacted = vec![
        compaction("c_req", 85, false),
        compaction("c_sum", 86, true),
    ];
    compacted.extend(messages[9..].iter().cloned());
    let sent = send(&compacted, &popped, &anchors, false);
    check(&compacted, &sent, &anchors).unwrap();
    // fr_0 is wholly gone: no entry, no warning; fr_1 folds what is left of it, and the summary
    // stays: without it the request would lose the session's start, which no entry holds.
    assert_eq!(ids(&sent), ["c_req", "c_sum", "m011", "m012"]);
    let text = serde_json::to_string(&sent).unwrap();
    assert!(text.contains("flame-folded id=\\\"fr_1\\\""), "{text}");
    assert!(!text.contains("fr_0"), "{text}");
    // The contexts after messages that are gone go with them.
    assert!(!text.contains("flame-context"), "{text}");
}

#[test]
fn dcps_compress_after_opencodes_compaction_keeps_both_summaries_and_the_fold() {
    // After OpenCode's compaction inside fr_1, DCP compressed the compaction's summary and m009
    // into its own summary, stamped when it is sent.
    let (messages, popped, anchors) = two_frames();
    let dcp = json!({"info": {"id": "msg_dcp", "sessionID": "s", "role": "user",
        "time": {"created": 10_000}},
        "parts": [{"id": "prt_dcp", "type": "text", "text": "DCP summary of the compaction and m009"}]});
    let mut list = vec![compaction("c_req", 85, false), dcp];
    list.extend(messages[10..].iter().cloned());
    let sent = send(&list, &popped, &anchors, false);
    check(&list, &sent, &anchors).unwrap();
    assert_eq!(ids(&sent), ["c_req", "msg_dcp", "m011", "m012"]);
    // And a compaction after both frames were popped: no span in view, nothing folds, no
    // context of a message that is gone is sent.
    let mut after = vec![
        compaction("c_req", 125, false),
        compaction("c_sum", 126, true),
    ];
    after.extend(messages[12..].iter().cloned());
    let sent = send(&after, &popped, &anchors, false);
    check(&after, &sent, &anchors).unwrap();
    assert_eq!(ids(&sent), ["c_req", "c_sum", "m012"]);
}

/// The warnings of folding `messages`.
fn warnings(messages: &[Value], popped: &[Popped]) -> Vec<String> {
    let text = json!({ "messages": messages }).to_string();
    let list = parse_messages(&text).unwrap();
    fold(&list, popped, false).warnings
}

#[test]
fn a_pop_another_plugin_dropped_or_moved_before_its_push_is_one_warning_and_nothing_folds() {
    let (messages, popped, anchors) = two_frames();
    // DCP pruned fr_1's pop (m011): its span stays as it is, said once.
    let mut pruned = messages.clone();
    pruned.remove(11);
    assert_eq!(
        warnings(&pruned, &popped),
        ["frame fr_1: the message that popped it is not among the messages; not folded"]
    );
    let sent = send(&pruned, &popped, &anchors, false);
    check(&pruned, &sent, &anchors).unwrap();
    assert!(ids(&sent).contains(&"m007") && ids(&sent).contains(&"m010"));
    // A plugin moved fr_1's pop before its push.
    let mut moved = messages.clone();
    let pop = moved.remove(11);
    moved.insert(5, pop);
    assert_eq!(
        warnings(&moved, &popped),
        ["frame fr_1: its pop comes before its push among the messages; not folded"]
    );
    let sent = send(&moved, &popped, &anchors, false);
    check(&moved, &sent, &anchors).unwrap();
    assert!(ids(&sent).contains(&"m007"), "{:?}", ids(&sent));
    // And one that put the push's parts in another order, with a text part before the call:
    // the call is found by its id, and the frame folds.
    let mut reordered = messages;
    reordered[6]["parts"].as_array_mut().unwrap().insert(
        0,
        json!({"id": "p_text", "type": "text", "text": "Pushing"}),
    );
    assert!(warnings(&reordered, &popped).is_empty());
    let sent = send(&reordered, &popped, &anchors, false);
    assert!(!ids(&sent).contains(&"m007"), "{:?}", ids(&sent));
}

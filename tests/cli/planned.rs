//! Planned children of a popped frame: never stuck. Pop leaves them planned (as Flame does) and
//! names the command that drops them, or invalidates them with `--invalidate-planned`; a frame
//! popped as blocked can be resumed, and its planned children started then.

use insta::assert_snapshot;
use serde_json::Value;

use crate::common::TestEnv;

const STATE: &str = ".opencode/flame/state.json";

/// A running parent with two planned children; returns (parent, children).
fn planned_env() -> (TestEnv, String, Vec<String>) {
    let env = TestEnv::new();
    let parent = env.ok(&["frame", "push", "--id", "fr_parent", "Ship it"]);
    let children = env.ok(&["frame", "plan", "Write docs", "Tag release"]);
    let children = children.lines().map(str::to_string).collect();
    (env, parent.trim().to_string(), children)
}

fn status(env: &TestEnv, id: &str) -> Value {
    let state: Value = serde_json::from_str(&env.read(STATE)).unwrap();
    state["frames"][id]["status"].clone()
}

#[test]
fn a_pop_names_the_command_that_drops_planned_children_and_it_works() {
    let (env, parent, children) = planned_env();
    let out = env.run(&["frame", "pop"]);
    let text = env
        .render(&out)
        .replace(&children[0], "[A]")
        .replace(&children[1], "[B]");
    assert_snapshot!(text, @r"
    exit: 0
    --- stdout
    --- stderr
    warning: 2 planned descendant(s) of fr_parent stay planned: [A], [B]
    hint: planned frames cannot start under a finished frame; drop each with: ctx frame invalidate ID --reason TEXT (pop --invalidate-planned drops them at the pop)
    ");
    // Stuck for activate and reopen, as the warning says...
    for args in [
        ["frame", "activate", &children[0]],
        ["frame", "reopen", &children[0]],
    ] {
        assert_eq!(env.run(&args).status.code(), Some(1), "{args:?}");
    }
    // ... and moved on by the command it names.
    env.ok(&[
        "frame",
        "invalidate",
        &children[0],
        "--reason",
        "not needed",
    ]);
    assert_eq!(status(&env, &children[0]), "invalidated");
    assert_eq!(status(&env, &parent), "completed");
}

#[test]
fn invalidate_planned_drops_them_with_the_pop() {
    let (env, _parent, children) = planned_env();
    let out = env.run(&["frame", "pop", "--status", "failed", "--invalidate-planned"]);
    let text = env
        .render(&out)
        .replace(&children[0], "[A]")
        .replace(&children[1], "[B]");
    assert_snapshot!(text, @r"
    exit: 0
    --- stdout
    --- stderr
    warning: invalidated 2 planned descendant(s) of fr_parent: [A], [B]
    ");
    let state: Value = serde_json::from_str(&env.read(STATE)).unwrap();
    // The JSON document names them.
    env.ok(&["frame", "push", "--id", "fr_next", "Next"]);
    let more = env.ok(&["frame", "plan", "Later"]);
    let doc: Value =
        serde_json::from_str(&env.ok(&["frame", "pop", "--invalidate-planned", "--json"])).unwrap();
    assert_eq!(doc["invalidated"], serde_json::json!([more.trim()]));
    env.ok(&["frame", "push", "Plain"]);
    let doc: Value = serde_json::from_str(&env.ok(&["frame", "pop", "--json"])).unwrap();
    assert!(doc.get("invalidated").is_none(), "{doc}");
    for child in &children {
        assert_eq!(state["frames"][child]["status"], "invalidated");
        assert_eq!(
            state["frames"][child]["invalidationReason"],
            "Parent frame popped (failed) before it started"
        );
    }
}

#[test]
fn a_blocked_pop_points_to_resuming_and_then_they_start() {
    let (env, parent, children) = planned_env();
    let out = env.run(&["frame", "pop", "--status", "blocked"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "hint: they can start once fr_parent is resumed: ctx frame activate fr_parent"
        ),
        "{stderr}"
    );
    env.ok(&["frame", "activate", &parent]);
    env.ok(&["frame", "activate", &children[1]]);
    assert_eq!(status(&env, &children[1]), "in_progress");
}

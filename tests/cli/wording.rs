//! What ctx says and keeps, read as a person reads it: numbers with their nouns, no "compacts at
//! 0", a decision recorded twice kept once (as an artifact is), decisions the model can tell apart.

use serde_json::Value;

use crate::common::TestEnv;

#[test]
fn one_input_is_one_file() {
    let env = TestEnv::new();
    env.write("a.txt", "hello world\n");
    env.write("b.txt", "hello world\n");
    let one = env.ok(&["budget", "estimate", "a.txt", "--tokenizer", "o200k"]);
    assert!(one.contains("\ninputs     1 file, 12 B\n"), "{one}");
    let two = env.ok(&[
        "budget",
        "estimate",
        "a.txt",
        "b.txt",
        "--tokenizer",
        "o200k",
    ]);
    assert!(two.contains("\ninputs     2 files, 24 B\n"), "{two}");
}

#[test]
fn a_window_smaller_than_the_reply_reserve_compacts_after_every_reply() {
    let env = TestEnv::new();
    env.write("a.txt", "hello world\n");
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"context_budget": {"model_limits": {"claude-sonnet-4-5": 1500}}}"#,
    );
    let out = env.ok(&[
        "budget",
        "estimate",
        "a.txt",
        "--model",
        "claude-sonnet-4-5",
    ]);
    assert!(
        out.contains("limit      1,500 context (opencode-swarm); compacts after every reply\n"),
        "{out}"
    );
    assert!(!out.contains("compacts at 0"), "{out}");
    // A real window still says where.
    let out = env.ok(&[
        "budget",
        "estimate",
        "a.txt",
        "--model",
        "claude-sonnet-4-5",
        "--limit",
        "200000",
    ]);
    assert!(out.contains("; compacts at 168,000\n"), "{out}");
}

#[test]
fn a_decision_recorded_twice_is_kept_once_as_an_artifact_is() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Pay"]);
    env.ok(&["frame", "decision", "Use cents", "Use cents"]);
    let again: Value =
        serde_json::from_str(&env.ok(&["frame", "decision", "Use cents", "Retry twice", "--json"]))
            .unwrap();
    assert_eq!(again["added"], serde_json::json!(["Retry twice"]));
    assert_eq!(
        again["frame"]["decisions"],
        serde_json::json!(["Use cents", "Retry twice"])
    );
    env.ok(&["frame", "artifact", "a.rs", "a.rs"]);
    let shown: Value = serde_json::from_str(&env.ok(&["frame", "show", "--json"])).unwrap();
    assert_eq!(shown["frame"]["artifacts"], serde_json::json!(["a.rs"]));
}

#[test]
fn decisions_holding_a_semicolon_are_listed_one_a_line() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Pay"]);
    env.ok(&["frame", "decision", "Use cents", "Retry twice"]);
    let xml = env.ok(&["compact", "render", "--for", "frame", "--format", "xml"]);
    assert!(
        xml.contains("<decisions>Use cents; Retry twice</decisions>"),
        "{xml}"
    );
    env.ok(&["frame", "decision", "Refunds: negative items; never edit"]);
    let xml = env.ok(&["compact", "render", "--for", "frame", "--format", "xml"]);
    assert!(
        xml.contains(
            "<decisions>- Use cents\n- Retry twice\n- Refunds: negative items; never edit</decisions>"
        ),
        "{xml}"
    );
}

#[test]
fn activate_says_all_it_does() {
    let env = TestEnv::new();
    let help = env.ok(&["frame", "--help"]);
    assert!(
        help.contains(
            "Start a planned or blocked frame, or return to a running one, and make it current"
        ),
        "{help}"
    );
    assert!(!help.contains("(its parent must be in_progress) and make it current"));
}

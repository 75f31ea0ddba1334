//! What the human output says, read as a person reads it: numbers with their nouns, no "compacts
//! at 0".

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

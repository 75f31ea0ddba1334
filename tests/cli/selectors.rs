//! Two ways of naming the frame to act on (`ID` or `--parent`, and `--frame`): when they agree
//! either may be given, when they disagree the command is refused as a usage error naming both,
//! and nothing is written.

use insta::assert_snapshot;

use crate::common::spec_env;

const STATE: &str = ".opencode/flame/state.json";

#[test]
fn an_id_and_a_different_frame_flag_are_a_usage_error() {
    let env = spec_env();
    let before = env.read(STATE);
    assert_snapshot!(env.snap(&["frame", "show", "--frame", "fr_yb6w", "fr_z05x"]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: the frame 'fr_z05x' (fr_z05xht5gmej1) and --frame 'fr_yb6w' (fr_yb6wk952swa0) name different frames
    hint: give one of them
    ");
    for args in [
        vec!["frame", "log", "fr_z05x", "--frame", "fr_yb6w"],
        vec![
            "frame", "edit", "fr_z05x", "--frame", "fr_yb6w", "--goal", "g",
        ],
        vec![
            "frame",
            "invalidate",
            "fr_yrst",
            "--frame",
            "fr_t78f",
            "--reason",
            "r",
        ],
        vec![
            "frame", "push", "g", "--parent", "fr_432c", "--frame", "fr_46s6",
        ],
        vec![
            "frame", "plan", "g", "--parent", "fr_432c", "--frame", "fr_46s6",
        ],
    ] {
        let out = env.run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("name different frames"),
            "{args:?}: {stderr}"
        );
        assert_eq!(env.read(STATE), before, "{args:?}");
    }
    assert_snapshot!(env.snap(&["frame", "push", "g", "--parent", "fr_432c", "--frame", "fr_46s6"]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: --parent 'fr_432c' (fr_432cf1xmwcej) and --frame 'fr_46s6' (fr_46s6jr410dd3) name different frames
    hint: give one of them
    ");
}

#[test]
fn an_id_and_a_frame_flag_that_agree_are_fine() {
    let env = spec_env();
    let out = env.ok(&["frame", "show", "fr_z05xht5gmej1", "--frame", "fr_z05x"]);
    assert!(out.contains("Verify webhook signatures"), "{out}");
    let id = env.ok(&[
        "frame",
        "push",
        "g",
        "--parent",
        "fr_46s6",
        "--frame",
        "fr_46s6jr410dd3",
    ]);
    let shown: serde_json::Value =
        serde_json::from_str(&env.ok(&["frame", "show", id.trim(), "--json"])).unwrap();
    assert_eq!(shown["frame"]["parent"], "fr_46s6jr410dd3");
}

#[test]
fn tree_marks_the_frame_flag_selected_and_the_current_frame_current() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["frame", "tree", "--frame", "fr_z05x"]), @r"
    exit: 0
    --- stdout
    → Build the billing service (ses_dfd84297)
    ├── ✓ Implement the invoice model (fr_yb6wk)
    └── → Handle Stripe webhooks (fr_432cf)
        ├── ✓ Verify webhook signatures (fr_z05xh) ← selected
        ├── → Handle refund events (fr_46s6j) ← current
        │   └── ○ Partial refunds (fr_t78f6)
        └── ○ Retry failed deliveries (fr_yrst4)

    7 frames: 3 → in_progress, 2 ○ planned, 2 ✓ completed
    --- stderr
    ");
    // The current frame named by --frame is the current frame.
    let out = env.ok(&["frame", "tree", "--frame", "fr_46s6"]);
    assert!(out.contains("(fr_46s6j) ← current"), "{out}");
    assert!(!out.contains("selected"), "{out}");
}

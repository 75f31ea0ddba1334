//! Limits that hold on any tree: a chain 100 000 frames deep, 100 000 siblings, a cycle of
//! parents. Every command finishes with bounded output, exit 0 or a clear error.

use crate::common::TestEnv;

const STATE: &str = ".opencode/flame/state.json";

/// A state of `n` in_progress frames `f000000`…; `parent(i)` names frame i's parent.
fn state_of(n: usize, parent: impl Fn(usize) -> Option<usize>) -> String {
    let mut out = String::from("{\n  \"version\": 1,\n  \"frames\": {\n");
    for i in 0..n {
        let parent = parent(i)
            .map(|p| format!("      \"parentSessionID\": \"f{p:06}\",\n"))
            .unwrap_or_default();
        out.push_str(&format!(
            "    \"f{i:06}\": {{\n      \"sessionID\": \"f{i:06}\",\n{parent}      \"status\": \"in_progress\",\n      \"goal\": \"goal {i}\",\n      \"createdAt\": {},\n      \"updatedAt\": {},\n      \"artifacts\": [],\n      \"decisions\": []\n    }}{}\n",
            1_795_338_000_000u64 + i as u64,
            1_795_338_000_000u64 + i as u64,
            if i + 1 < n { "," } else { "" }
        ));
    }
    let last = n - 1;
    out.push_str(&format!(
        "  }},\n  \"activeFrameID\": \"f{last:06}\",\n  \"rootFrameIDs\": [\"f000000\"],\n  \"updatedAt\": 1795338000000\n}}\n"
    ));
    out
}

fn widest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn a_chain_100_000_deep_draws_in_bounded_width() {
    let env = TestEnv::new();
    env.write(STATE, state_of(100_000, |i| i.checked_sub(1)));
    let tree = env.ok(&["frame", "tree"]);
    assert_eq!(
        tree.lines().count(),
        100_000 + 4,
        "one line a frame, a note, the legend"
    );
    assert!(widest_line(&tree) <= 80, "{}", widest_line(&tree));
    assert!(tree.contains("(frames deeper than 12 levels are drawn without further indentation)"));
    let shallow = env.ok(&["frame", "tree", "--depth", "2"]);
    assert_eq!(
        shallow,
        "→ goal 0 (f000000)\n└── → goal 1 (f000001)\n        … 99998 frames below (--depth)\n\n2 frames: 2 → in_progress\n"
    );
    // The frame context and a notice walk the same chain.
    let xml = env.ok(&["compact", "render", "--for", "frame", "--format", "xml"]);
    assert!(xml.len() < 20_000, "{}", xml.len());
    env.ok(&["frame", "pop", "--frame", "f099998", "--force", "-q"]);
    let notice = env.ok(&[
        "compact", "notice", "--frame", "f099998", "--format", "text",
    ]);
    assert!(
        notice.starts_with("Frame f099998 completed: goal 99998"),
        "{notice}"
    );
    let deep = env.ok(&["frame", "tree", "--from", "f099990", "--details"]);
    assert!(deep.lines().count() < 20, "{deep}");
}

#[test]
fn a_hundred_thousand_siblings_and_a_cycle() {
    let env = TestEnv::new();
    env.write(STATE, state_of(100_000, |i| (i > 0).then_some(0)));
    let tree = env.ok(&["frame", "tree", "--depth", "1"]);
    assert_eq!(
        tree,
        "→ goal 0 (f000000)\n    … 99999 frames below (--depth)\n\n1 frame: 1 → in_progress\n"
    );
    let notice = env.run(&["compact", "notice"]);
    assert_eq!(notice.status.code(), Some(1));
    let xml = env.ok(&["compact", "render", "--for", "frame", "--format", "xml"]);
    assert!(xml.len() < 20_000);
    // Three frames whose parents go round: refused with the place of the cycle, never walked.
    env.write(STATE, state_of(3, |i| Some((i + 1) % 3)));
    for args in [
        vec!["frame", "tree"],
        vec!["compact", "render", "--for", "frame"],
        vec!["frame", "push", "x"],
    ] {
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("error: ") && stderr.contains("state.json"),
            "{stderr}"
        );
    }
}

//! `ctx frame …` (flame.md): every command's success path, every refused transition, bad input.

use std::process::Stdio;

use insta::assert_snapshot;
use serde_json::Value;

use crate::common::{TestEnv, fixture, spec_env};

const STATE: &str = ".opencode/flame/state.json";

fn state(env: &TestEnv) -> Value {
    serde_json::from_str(&env.read(STATE)).unwrap()
}

fn frame<'a>(state: &'a Value, id: &str) -> &'a Value {
    &state["frames"][id]
}

// ---- tree, show, current, log ----

#[test]
fn tree_matches_the_spec_example() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["frame", "tree"]), @"
    exit: 0
    --- stdout
    → Build the billing service (ses_dfd84297)
    ├── ✓ Implement the invoice model (fr_yb6wk)
    └── → Handle Stripe webhooks (fr_432cf)
        ├── ✓ Verify webhook signatures (fr_z05xh)
        ├── → Handle refund events (fr_46s6j) ← current
        │   └── ○ Partial refunds (fr_t78f6)
        └── ○ Retry failed deliveries (fr_yrst4)

    7 frames: 3 → in_progress, 2 ○ planned, 2 ✓ completed
    --- stderr
    ");
}

#[test]
fn tree_ascii_from_a_prefix_with_details() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["frame", "tree", "--ascii", "--details", "--from", "fr_432c"]), @r"
    exit: 0
    --- stdout
    > Handle Stripe webhooks (fr_432cf)
    |-- + Verify webhook signatures (fr_z05xh)
    |       summary: Signatures are checked with the endpoint secret and a 5-minu...
    |       artifacts: src/billing/webhook/verify.rs
    |       log: logs/frame-fr_z05xht5gmej1.md
    |-- > Handle refund events (fr_46s6j) <- current
    |       artifacts: src/billing/webhook/refund.rs
    |       decisions: 2
    |   `-- o Partial refunds (fr_t78f6)
    `-- o Retry failed deliveries (fr_yrst4)

    5 frames: 2 > in_progress, 2 o planned, 1 + completed
    --- stderr
    ");
}

#[test]
fn tree_marks_the_frame_selected_by_ctx_frame() {
    let env = spec_env();
    let out = env
        .ctx()
        .args(["frame", "tree"])
        .env("CTX_FRAME", "fr_yrst")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("○ Retry failed deliveries (fr_yrst4) ← current"),
        "{text}"
    );
    assert!(
        !text.contains("Handle refund events (fr_46s6j) ← current"),
        "{text}"
    );
}

#[test]
fn tree_shortens_long_goals_to_80_columns() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", &"word ".repeat(40), "--id", "fr_long"]);
    let out = env.ok(&["frame", "tree"]);
    let first = out.lines().next().unwrap();
    assert_eq!(first.chars().count(), 80, "{first}");
    assert!(first.ends_with("… (fr_long) ← current"), "{first}");
}

#[test]
fn tree_json_nests_children() {
    let env = spec_env();
    let doc: Value = serde_json::from_str(&env.ok(&["frame", "tree", "--json"])).unwrap();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["current"], "fr_46s6jr410dd3");
    let root = &doc["roots"][0];
    assert_eq!(root["id"], "ses_dfd84297fffeStZsxnTSWsbCBp");
    assert_eq!(root["parent"], Value::Null);
    let webhooks = &root["children"][1];
    let ids: Vec<&str> = webhooks["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["fr_z05xht5gmej1", "fr_46s6jr410dd3", "fr_yrst4chn5kn0"]
    );
    assert_eq!(webhooks["planned_children"][1], "fr_yrst4chn5kn0");
    assert_eq!(webhooks["created_at"], "2026-11-22T09:42:30.007Z");
}

#[test]
fn empty_state_prints_nothing_and_says_how_to_start() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["frame", "tree"]), @r#"
    exit: 0
    --- stdout
    --- stderr
    no frames yet; start one with: ctx frame push "<goal>"
    "#);
    assert_snapshot!(env.snap(&["frame", "tree", "-q"]), @r"
    exit: 0
    --- stdout
    --- stderr
    ");
    assert_eq!(
        env.ok(&["frame", "tree", "--json"]),
        "{\"version\":1,\"current\":null,\"roots\":[]}\n"
    );
    assert!(
        !env.path(".opencode/flame").exists(),
        "reading never creates files"
    );
}

#[test]
fn show_prints_every_field_and_extra_keys() {
    let env = spec_env();
    let mut doc = state(&env);
    doc["frames"]["fr_z05xht5gmej1"]["flameScore"] = serde_json::json!({"x": 1});
    env.write(STATE, serde_json::to_string_pretty(&doc).unwrap());
    assert_snapshot!(env.snap(&["frame", "show", "fr_z05x"]), @r#"
    exit: 0
    --- stdout
    id: fr_z05xht5gmej1
    parent: fr_432cf1xmwcej
    status: completed
    goal: Verify webhook signatures
    created_at: 2026-11-22T09:44:02.950Z
    updated_at: 2026-11-22T10:12:47.502Z
    summary: Signatures are checked with the endpoint secret and a 5-minute tolerance; replays get HTTP 400. The raw body is kept for verification.
    log_path: logs/frame-fr_z05xht5gmej1.md
    artifacts:
      - src/billing/webhook/verify.rs
    decisions: (none)
    planned_children: (none)
    extra:
      flameScore: {"x":1}
    --- stderr
    "#);
    let json: Value =
        serde_json::from_str(&env.ok(&["frame", "show", "fr_z05x", "--json"])).unwrap();
    assert_eq!(json["frame"]["extra"]["flameScore"]["x"], 1);
    assert_eq!(json["frame"]["summary"].as_str().unwrap().len(), 134);
}

#[test]
fn current_resolves_flag_env_then_state() {
    let env = spec_env();
    assert_eq!(env.ok(&["frame", "current"]), "fr_46s6jr410dd3\n");
    assert_eq!(
        env.ok(&["frame", "current", "--frame", "fr_yb6w"]),
        "fr_yb6wk952swa0\n"
    );
    let out = env
        .ctx()
        .args(["frame", "current"])
        .env("CTX_FRAME", "fr_432c")
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"fr_432cf1xmwcej\n");
    let out = env
        .ctx()
        .args(["frame", "current"])
        .env("CTX_FRAME", "fr_nope")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a CTX_FRAME that does not resolve is an error, not a fallback"
    );
}

#[test]
fn current_without_one_is_an_error() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["frame", "current"]), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: no current frame
    hint: pass --frame ID, set CTX_FRAME, or start one with: ctx frame push "<goal>"
    "#);
    let env = spec_env();
    let mut doc = state(&env);
    doc["activeFrameID"] = "fr_gone".into();
    env.write(STATE, serde_json::to_string(&doc).unwrap());
    let out = env.run(&["frame", "current"]);
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(
        "error: no current frame: activeFrameID names fr_gone, which does not exist\n"
    ));
}

#[test]
fn log_prints_the_file_or_its_path() {
    let env = spec_env();
    env.write(
        ".opencode/flame/logs/frame-fr_z05xht5gmej1.md",
        "# Frame: Verify\n",
    );
    assert_eq!(env.ok(&["frame", "log", "fr_z05x"]), "# Frame: Verify\n");
    assert_eq!(
        env.filter(&env.ok(&["frame", "log", "fr_z05x", "--path"])),
        "[ROOT]/.opencode/flame/logs/frame-fr_z05xht5gmej1.md\n"
    );
    assert_snapshot!(env.snap(&["frame", "log"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: fr_46s6jr410dd3 has no log yet (it is in_progress)
    ");
    let mut doc = state(&env);
    doc["frames"]["fr_yb6wk952swa0"]["logPath"] = "../../../etc/passwd".into();
    env.write(STATE, serde_json::to_string(&doc).unwrap());
    let out = env.run(&["frame", "log", "fr_yb6w"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("leaves .opencode/flame/; refusing to read it")
    );
}

// ---- push ----

#[test]
fn push_creates_roots_and_children_and_makes_them_current() {
    let env = TestEnv::new();
    let root = env
        .ok(&["frame", "push", "Build the billing service"])
        .trim()
        .to_string();
    assert!(root.starts_with("fr_") && root.len() == 15);
    assert!(
        root[3..]
            .bytes()
            .all(|b| b"0123456789abcdefghjkmnpqrstvwxyz".contains(&b))
    );
    let child = env.ok(&["frame", "push", "Invoices"]).trim().to_string();
    let doc = state(&env);
    assert_eq!(doc["activeFrameID"], child.as_str());
    assert_eq!(doc["rootFrameIDs"], serde_json::json!([root]));
    let keys: Vec<&str> = frame(&doc, &child)
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "sessionID",
            "parentSessionID",
            "status",
            "goal",
            "createdAt",
            "updatedAt",
            "artifacts",
            "decisions"
        ]
    );
    let top: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        top,
        [
            "version",
            "frames",
            "rootFrameIDs",
            "updatedAt",
            "activeFrameID"
        ]
    );
    assert!(env.read(STATE).ends_with("}\n"));
    assert!(
        env.read(STATE).contains("\n  \"frames\": {\n    \""),
        "2-space JSON.stringify layout"
    );
}

#[test]
fn push_adopts_ids_and_refuses_bad_or_taken_ones() {
    let env = spec_env();
    assert_eq!(
        env.ok(&[
            "frame", "push", "Child", "--id", "ses_abc", "--parent", "fr_432c"
        ]),
        "ses_abc\n"
    );
    assert_snapshot!(env.snap(&["frame", "push", "x", "--id", "SES_ABC"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: a frame with id 'SES_ABC' already exists: it differs from 'ses_abc' only in letter case
    ");
    assert_snapshot!(env.snap(&["frame", "push", "x", "--id", "ses_abc"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: a frame with id 'ses_abc' already exists
    ");
    for bad in ["../evil", "a/b", "has space", "..", ""] {
        let out = env.run(&["frame", "push", "x", "--id", bad]);
        assert_eq!(out.status.code(), Some(1), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("error: invalid frame id '"),
            "{bad}"
        );
    }
    assert!(!env.path(".opencode/flame/logs").exists());
}

#[test]
fn push_under_a_finished_parent_is_refused() {
    let env = spec_env();
    let before = env.read(STATE);
    assert_snapshot!(env.snap(&["frame", "push", "More", "--parent", "fr_yb6w"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot push under fr_yb6wk952swa0: it is completed, not in_progress
    ");
    assert_snapshot!(env.snap(&["frame", "push", "   "]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: the goal must not be empty
    ");
    assert_eq!(env.read(STATE), before, "a refused command changes nothing");
}

#[test]
fn push_json_prints_the_frame() {
    let env = TestEnv::new();
    let doc: Value =
        serde_json::from_str(&env.ok(&["frame", "push", "G", "--id", "fr_x", "--json"])).unwrap();
    let frame = doc["frame"].as_object().unwrap();
    let keys: Vec<&str> = frame.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "parent",
            "status",
            "goal",
            "created_at",
            "updated_at",
            "artifacts",
            "decisions",
            "summary",
            "log_path",
            "invalidation_reason",
            "invalidated_at",
            "planned_children"
        ]
    );
    assert_eq!(doc.as_object().unwrap().keys().next().unwrap(), "version");
    assert_eq!(frame["status"], "in_progress");
}

// ---- pop ----

#[test]
fn pop_refusals() {
    let env = spec_env();
    let before = env.read(STATE);
    assert_snapshot!(env.snap(&["frame", "pop", "--frame", "fr_t78f"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot pop fr_t78f603xzbcw: it is planned
    hint: activate it first, or invalidate it
    ");
    assert_snapshot!(env.snap(&["frame", "pop", "--frame", "fr_yb6w"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot pop fr_yb6wk952swa0: it is already completed
    ");
    assert_snapshot!(env.snap(&["frame", "pop", "--frame", "fr_432c"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot pop fr_432cf1xmwcej: 1 descendant(s) still in_progress: fr_46s6jr410dd3
    hint: pop them first, or pass --force
    ");
    assert_snapshot!(env.snap(&["frame", "pop", "--summary-file", "-", "--transcript", "-"]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: --summary-file - and --transcript - cannot both read standard input
    ");
    assert_eq!(env.read(STATE), before);
    assert!(!env.path(".opencode/flame/logs").exists());
}

#[test]
fn pop_sets_status_summary_log_and_current() {
    let env = spec_env();
    let out = env.run(&[
        "frame",
        "pop",
        "--summary",
        "Refunds are negative line items.",
    ]);
    assert_snapshot!(env.render(&out), @r"
    exit: 0
    --- stdout
    fr_432cf1xmwcej
    --- stderr
    warning: 1 planned descendant(s) of fr_46s6jr410dd3 stay planned: fr_t78f603xzbcw
    hint: planned frames cannot start under a finished frame; drop each with: ctx frame invalidate ID --reason TEXT (pop --invalidate-planned drops them at the pop)
    ");
    let doc = state(&env);
    let popped = frame(&doc, "fr_46s6jr410dd3");
    assert_eq!(popped["status"], "completed");
    assert_eq!(
        popped["compactionSummary"],
        "Refunds are negative line items."
    );
    assert_eq!(popped["logPath"], "logs/frame-fr_46s6jr410dd3.md");
    let keys: Vec<&str> = popped
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        &keys[keys.len() - 3..],
        ["plannedChildren", "compactionSummary", "logPath"]
    );
    assert_eq!(doc["activeFrameID"], "fr_432cf1xmwcej");
    let log = env.read(".opencode/flame/logs/frame-fr_46s6jr410dd3.md");
    let log: Vec<&str> = log.lines().collect();
    assert_eq!(
        log[..5],
        [
            "# Frame: Handle refund events",
            "",
            "- ID: fr_46s6jr410dd3",
            "- Parent: fr_432cf1xmwcej",
            "- Status: completed",
        ]
    );
    assert_eq!(log[5], "- Created: 2026-11-22T10:13:20.664Z");
    assert!(
        log[6].starts_with("- Completed: 20") && log[6].ends_with('Z'),
        "{}",
        log[6]
    );
    assert_eq!(
        log[7..],
        [
            "- Artifacts: src/billing/webhook/refund.rs",
            "- Decisions:",
            "  - Refunds add a negative line item; invoices are never edited",
            "  - Ignore refunds for unknown charges and log them",
            "",
            "## Summary",
            "",
            "Refunds are negative line items.",
            "",
            "## Children",
            "",
            "- [planned] Partial refunds (fr_t78f603xzbcw)",
        ]
    );
}

#[test]
fn pop_with_force_warns_and_root_pop_clears_current() {
    let env = spec_env();
    let out = env.run(&[
        "frame", "pop", "--frame", "fr_432c", "--force", "--status", "failed",
    ]);
    assert_snapshot!(env.render(&out), @r"
    exit: 0
    --- stdout
    ses_dfd84297fffeStZsxnTSWsbCBp
    --- stderr
    warning: 1 descendant(s) of fr_432cf1xmwcej are still in_progress: fr_46s6jr410dd3; `ctx frame tree` shows them as stale
    warning: 2 planned descendant(s) of fr_432cf1xmwcej stay planned: fr_t78f603xzbcw, fr_yrst4chn5kn0
    hint: planned frames cannot start under a finished frame; drop each with: ctx frame invalidate ID --reason TEXT (pop --invalidate-planned drops them at the pop)
    ");
    assert_eq!(
        frame(&state(&env), "fr_46s6jr410dd3")["status"],
        "in_progress"
    );
    // fr_46s6 is no longer current: popping it leaves the current frame where it is.
    assert_eq!(
        env.ok(&["frame", "pop", "--frame", "fr_46s6", "-q"]),
        "ses_dfd84297fffeStZsxnTSWsbCBp\n"
    );
    assert_eq!(
        env.ok(&["frame", "pop", "--frame", "ses_dfd8", "--force", "-q"]),
        ""
    );
    assert!(
        state(&env).get("activeFrameID").is_none(),
        "a root pop removes activeFrameID"
    );
}

#[test]
fn blocked_frames_can_be_popped_again() {
    let env = spec_env();
    env.ok(&["frame", "pop", "--status", "blocked", "-q"]);
    env.ok(&[
        "frame",
        "pop",
        "--frame",
        "fr_46s6",
        "--summary",
        "Done after all",
        "-q",
    ]);
    assert_eq!(
        frame(&state(&env), "fr_46s6jr410dd3")["status"],
        "completed"
    );
}

#[test]
fn pop_reads_summary_files_and_transcripts() {
    let env = spec_env();
    let out = env.run_stdin(
        &[
            "frame",
            "pop",
            "--frame",
            "fr_46s6",
            "--summary-file",
            "-",
            "-q",
            "--transcript",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "--transcript needs a value");
    env.write("summary.txt", "Line one.\nLine two.\n\n\n");
    let transcript = fixture("frame/verify-export.json");
    env.ok(&[
        "frame",
        "pop",
        "-q",
        "--summary-file",
        "summary.txt",
        "--transcript",
        transcript.to_str().unwrap(),
    ]);
    let doc = state(&env);
    assert_eq!(
        frame(&doc, "fr_46s6jr410dd3")["compactionSummary"],
        "Line one.\nLine two."
    );
    let log = env.read(".opencode/flame/logs/frame-fr_46s6jr410dd3.md");
    let messages = &log[log.find("## Messages").unwrap()..];
    assert_eq!(
        messages,
        "## Messages

OpenCode session ses_dfd5bccffffexnyIvr51bJROXM: Verify webhook signatures

### User (2026-11-22 09:44:10)

Verify Stripe webhook signatures before any event is parsed.

### Assistant (2026-11-22 09:44:14)

(reasoning) Look at the handler.

I'll read the current handler first.

[Tool: read] src/billing/webhook/mod.rs

Input:

```json
{
  \"filePath\": \"src/billing/webhook/mod.rs\"
}
```

Output:

```
…
```

[Tool: edit] src/billing/webhook/verify.rs

Input:

```json
{
  \"filePath\": \"src/billing/webhook/verify.rs\"
}
```

Output:

```
ok
```

[Tool: bash] Run webhook tests

Input:

```json
{
  \"command\": \"cargo test webhook\",
  \"description\": \"Run webhook tests\"
}
```

Output:

```
running 9 tests
```

Signature verification is in place; all 9 webhook tests pass.
"
    );
}

#[test]
fn pop_refuses_a_transcript_that_is_not_an_export() {
    let env = spec_env();
    let before = env.read(STATE);
    let out = env.run_stdin(
        &["frame", "pop", "--transcript", "-"],
        b"{\"info\": {\"id\": 3}, \"messages\": []}",
    );
    assert_snapshot!(env.render(&out), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: not an OpenCode session export: "info.id" is not a string
    "#);
    let out = env.run_stdin(&["frame", "pop", "--transcript", "-"], b"\x00\x01binary");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(
        "error: <stdin>: not an OpenCode session export: invalid JSON at line 1, column 1"
    ));
    let out = env.run(&["frame", "pop", "--transcript", "missing.json"]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("error: missing.json: cannot read: No such file or directory")
    );
    assert_eq!(env.read(STATE), before);
}

// ---- plan, activate ----

#[test]
fn plan_appends_planned_children_in_order() {
    let env = spec_env();
    let ids = env.ok(&["frame", "plan", "One", "Two"]);
    let ids: Vec<&str> = ids.lines().collect();
    assert_eq!(ids.len(), 2);
    let doc = state(&env);
    assert_eq!(doc["activeFrameID"], "fr_46s6jr410dd3", "current unchanged");
    let planned: Vec<&str> = frame(&doc, "fr_46s6jr410dd3")["plannedChildren"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(planned, ["fr_t78f603xzbcw", ids[0], ids[1]]);
    assert_eq!(frame(&doc, ids[1])["status"], "planned");
    assert_eq!(
        frame(&doc, ids[1])["plannedChildren"],
        serde_json::json!([])
    );
    assert_eq!(
        frame(&doc, ids[0])["createdAt"],
        frame(&doc, ids[1])["createdAt"]
    );
    // Planned frames may nest.
    env.ok(&["frame", "plan", "Nested", "--parent", ids[0]]);
}

#[test]
fn plan_refusals() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["frame", "plan", "x", "--parent", "fr_yb6w"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot plan under fr_yb6wk952swa0: it is completed
    ");
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["frame", "plan", "x"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: no current frame
    hint: pass --parent ID
    ");
}

#[test]
fn activate_starts_a_planned_frame() {
    let env = spec_env();
    assert_eq!(
        env.ok(&["frame", "activate", "fr_yrst"]),
        "fr_yrst4chn5kn0\n"
    );
    let doc = state(&env);
    assert_eq!(frame(&doc, "fr_yrst4chn5kn0")["status"], "in_progress");
    assert_eq!(doc["activeFrameID"], "fr_yrst4chn5kn0");
    // Activating it again, now running, only makes it current again.
    assert_snapshot!(env.snap(&["frame", "activate", "fr_yrst"]), @"
    exit: 0
    --- stdout
    fr_yrst4chn5kn0
    --- stderr
    ");
}

#[test]
fn activate_needs_an_in_progress_parent() {
    let env = spec_env();
    env.ok(&[
        "frame", "pop", "--frame", "fr_46s6", "--status", "blocked", "-q",
    ]);
    assert_snapshot!(env.snap(&["frame", "activate", "fr_t78f"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot activate fr_t78f603xzbcw: its parent fr_46s6jr410dd3 is blocked, not in_progress
    ");
}

// ---- invalidate ----

#[test]
fn invalidate_cascades_to_planned_descendants() {
    let env = spec_env();
    let before = env.read(STATE);
    let out = env.run(&[
        "frame",
        "invalidate",
        "fr_432c",
        "--reason",
        "Switch to Paddle",
        "--dry-run",
        "--json",
    ]);
    assert_snapshot!(env.render(&out), @r#"
    exit: 0
    --- stdout
    {"version":1,"invalidated":["fr_432cf1xmwcej","fr_t78f603xzbcw","fr_yrst4chn5kn0"],"in_progress_descendants":["fr_46s6jr410dd3"],"dry_run":true}
    --- stderr
    warning: 1 in_progress descendant(s) left as they are: fr_46s6jr410dd3
    "#);
    assert_eq!(env.read(STATE), before, "--dry-run writes nothing");
    assert_eq!(
        env.ok(&[
            "frame",
            "invalidate",
            "fr_432c",
            "--reason",
            "Switch to Paddle",
            "-q"
        ]),
        "fr_432cf1xmwcej\nfr_t78f603xzbcw\nfr_yrst4chn5kn0\n"
    );
    let doc = state(&env);
    assert_eq!(
        frame(&doc, "fr_432cf1xmwcej")["invalidationReason"],
        "Switch to Paddle"
    );
    assert_eq!(
        frame(&doc, "fr_t78f603xzbcw")["invalidationReason"],
        "Parent frame invalidated: Switch to Paddle"
    );
    assert_eq!(frame(&doc, "fr_46s6jr410dd3")["status"], "in_progress");
    assert_eq!(frame(&doc, "fr_z05xht5gmej1")["status"], "completed");
    assert_eq!(
        doc["activeFrameID"], "fr_46s6jr410dd3",
        "the current frame was not invalidated"
    );
}

#[test]
fn invalidating_the_current_frame_moves_to_its_parent() {
    let env = spec_env();
    env.ok(&["frame", "invalidate", "--reason", "Not needed"]);
    let doc = state(&env);
    assert_eq!(frame(&doc, "fr_46s6jr410dd3")["status"], "invalidated");
    assert_eq!(doc["activeFrameID"], "fr_432cf1xmwcej");
    assert_snapshot!(env.snap(&["frame", "invalidate", "fr_46s6", "--reason", "again"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: fr_46s6jr410dd3 is already invalidated
    ");
}

#[test]
fn invalidate_needs_a_reason() {
    let env = spec_env();
    assert_eq!(env.run(&["frame", "invalidate"]).status.code(), Some(2));
    assert_snapshot!(env.snap(&["frame", "invalidate", "--reason", " "]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: --reason must not be empty
    ");
}

// ---- artifact, decision ----

#[test]
fn artifacts_skip_duplicates_and_write_nothing_when_nothing_changes() {
    let env = spec_env();
    env.ok(&["frame", "artifact", "a.rs", "./a.rs", "a.rs"]);
    let doc = state(&env);
    assert_eq!(
        frame(&doc, "fr_46s6jr410dd3")["artifacts"],
        serde_json::json!(["src/billing/webhook/refund.rs", "a.rs", "./a.rs"])
    );
    let before = env.read(STATE);
    let out: Value =
        serde_json::from_str(&env.ok(&["frame", "artifact", "a.rs", "--json"])).unwrap();
    assert_eq!(out["added"], serde_json::json!([]));
    assert_eq!(
        env.read(STATE),
        before,
        "duplicates only: no write, updatedAt untouched"
    );
}

#[test]
fn decisions_append_even_on_finished_frames() {
    let env = spec_env();
    env.ok(&["frame", "decision", "Keep it", "--frame", "fr_yb6w"]);
    env.ok(&["frame", "decision", "Keep it", "--frame", "fr_yb6w"]);
    let doc = state(&env);
    assert_eq!(
        frame(&doc, "fr_yb6wk952swa0")["decisions"],
        // Recorded twice, kept once (as artifacts are).
        serde_json::json!(["Store amounts as integer cents", "Keep it"])
    );
    assert_eq!(env.run(&["frame", "decision", ""]).status.code(), Some(1));
}

// ---- ids ----

#[test]
fn id_lookup_errors() {
    let env = spec_env();
    assert_snapshot!(env.snap(&["frame", "show", "fr_"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: 'fr_' is too short: give at least 4 characters of a frame id
    ");
    assert_snapshot!(env.snap(&["frame", "show", "fr_4"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: 'fr_4' is ambiguous: it matches 2 frames: fr_432cf1xmwcej, fr_46s6jr410dd3
    ");
    assert_snapshot!(env.snap(&["frame", "show", "fr_nothing"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: no frame matches 'fr_nothing'
    hint: list the frames with: ctx frame tree
    ");
    assert_snapshot!(env.snap(&["frame", "show", "../../etc"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: invalid frame id '../../etc': only letters, digits, '_' and '-' are allowed
    ");
}

#[test]
fn a_full_id_that_begins_another_id_names_its_own_frame() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "--id", "fr_abcd", "Short id"]);
    env.ok(&["frame", "push", "--id", "fr_abcdef", "Longer id"]);
    let shown: Value =
        serde_json::from_str(&env.ok(&["frame", "show", "fr_abcd", "--json"])).unwrap();
    assert_eq!(shown["frame"]["id"], "fr_abcd");
    env.ok(&[
        "frame",
        "pop",
        "--frame",
        "fr_abcd",
        "--force",
        "--summary",
        "Done",
    ]);
    let doc = state(&env);
    assert_eq!(frame(&doc, "fr_abcd")["status"], "completed");
    assert_eq!(frame(&doc, "fr_abcdef")["status"], "in_progress");
    // A prefix of both is still ambiguous, and a bad id is still refused before any lookup.
    assert_eq!(env.run(&["frame", "show", "fr_abc"]).status.code(), Some(1));
    let out = env.run(&["frame", "show", "fr_abcd/../x"]);
    assert_eq!(out.status.code(), Some(1));
}

// ---- the store: bad files, preservation, concurrency ----

#[test]
fn invalid_state_files_are_reported_and_never_overwritten() {
    let deep = "[".repeat(10_000);
    let cases: &[(&str, &[u8], &str)] = &[
        (
            "empty",
            b"",
            "error: [ROOT]/.opencode/flame/state.json: the file is empty\nhint: it may be what remains of a failed write; move it aside to start a new tree\n",
        ),
        (
            "truncated",
            b"{\n  \"version\": 1,\n  \"frames\": {",
            "error: [ROOT]/.opencode/flame/state.json: invalid JSON at line 3, column 14: unexpected end of input inside an object\n",
        ),
        (
            "not json",
            b"hello",
            "error: [ROOT]/.opencode/flame/state.json: invalid JSON at line 1, column 1: expected a value\n",
        ),
        (
            "trailing",
            b"{\"version\":1,\"frames\":{},\"rootFrameIDs\":[],\"updatedAt\":0} x",
            "error: [ROOT]/.opencode/flame/state.json: invalid JSON at line 1, column 59: trailing characters after the document\n",
        ),
        (
            "not utf-8",
            b"{\"version\":1,\n\"frames\":{\"\xff\":1}}",
            "error: [ROOT]/.opencode/flame/state.json: not UTF-8: invalid byte at line 2, column 12\n",
        ),
        (
            "array",
            b"[]",
            "error: [ROOT]/.opencode/flame/state.json: the top level must be a JSON object\n",
        ),
        (
            "version",
            b"{\"version\":\"1\",\"frames\":{},\"rootFrameIDs\":[],\"updatedAt\":0}",
            "error: [ROOT]/.opencode/flame/state.json: /version must be an integer of at least 1\n",
        ),
        (
            "frames type",
            b"{\"version\":1,\"frames\":[],\"rootFrameIDs\":[],\"updatedAt\":0}",
            "error: [ROOT]/.opencode/flame/state.json: /frames must be an object\n",
        ),
        (
            "nul id",
            b"{\"version\":1,\"frames\":{\"a\\u0000b\":{}},\"rootFrameIDs\":[],\"updatedAt\":0}",
            // The NUL is shown, not sent to the terminal.
            "error: [ROOT]/.opencode/flame/state.json: /frames/a\\u{0}b: invalid frame id: only letters, digits, '_' and '-' are allowed\n",
        ),
        (
            "slash id",
            b"{\"version\":1,\"frames\":{\"../x\":{}},\"rootFrameIDs\":[],\"updatedAt\":0}",
            "error: [ROOT]/.opencode/flame/state.json: /frames/..~1x: invalid frame id: only letters, digits, '_' and '-' are allowed\n",
        ),
        (
            "deep",
            deep.as_bytes(),
            "error: [ROOT]/.opencode/flame/state.json: invalid JSON at line 1, column 129: nested too deeply\n",
        ),
    ];
    for (name, bytes, expected) in cases {
        let env = TestEnv::new();
        env.write(STATE, bytes);
        for args in [&["frame", "tree"][..], &["frame", "push", "x"][..]] {
            let out = env.run(args);
            assert_eq!(out.status.code(), Some(1), "{name} {args:?}");
            assert_eq!(
                env.filter(&String::from_utf8_lossy(&out.stderr)),
                *expected,
                "{name} {args:?}"
            );
            assert!(out.stdout.is_empty());
        }
        assert_eq!(
            std::fs::read(env.path(STATE)).unwrap(),
            *bytes,
            "{name}: untouched"
        );
    }
}

#[test]
fn newer_versions_are_read_with_a_warning_and_never_written() {
    let env = spec_env();
    let text = env
        .read(STATE)
        .replacen("\"version\": 1", "\"version\": 2", 1);
    env.write(STATE, &text);
    let out = env.run(&["frame", "current"]);
    assert_snapshot!(env.render(&out), @r"
    exit: 0
    --- stdout
    fr_46s6jr410dd3
    --- stderr
    warning: [ROOT]/.opencode/flame/state.json has version 2; showing what this ctx understands
    ");
    assert_snapshot!(env.snap(&["frame", "push", "x"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json has version 2; this ctx writes version 1 only
    hint: upgrade ctx, or move the file aside
    ");
    assert_eq!(env.read(STATE), text);
}

#[test]
fn unknown_keys_and_key_order_survive_a_write() {
    let env = TestEnv::new();
    // As the Flame plugin writes it: no trailing newline, a key ctx does not know, a plan- id.
    let flame = r#"{
  "version": 1,
  "frames": {
    "ses_4a1b2c3d4ffeAbCdEfGhIjKlMn": {
      "sessionID": "ses_4a1b2c3d4ffeAbCdEfGhIjKlMn",
      "status": "in_progress",
      "goal": "Session ses_4a1b",
      "createdAt": 1766600000000,
      "updatedAt": 1766600000000,
      "artifacts": [],
      "decisions": [],
      "tokenBudget": {
        "total": 4000
      }
    },
    "plan-1766600040000-ywc6kr": {
      "sessionID": "plan-1766600040000-ywc6kr",
      "parentSessionID": "ses_4a1b2c3d4ffeAbCdEfGhIjKlMn",
      "status": "planned",
      "goal": "Write the docs",
      "createdAt": 1766600040000,
      "updatedAt": 1766600040000.5,
      "artifacts": [],
      "decisions": [],
      "plannedChildren": []
    }
  },
  "activeFrameID": "ses_4a1b2c3d4ffeAbCdEfGhIjKlMn",
  "rootFrameIDs": [
    "ses_4a1b2c3d4ffeAbCdEfGhIjKlMn"
  ],
  "updatedAt": 1766600040000,
  "flameSettings": {
    "autonomy": "suggest"
  }
}"#;
    env.write(STATE, flame);
    assert_eq!(
        env.ok(&["frame", "activate", "plan-176"]),
        "plan-1766600040000-ywc6kr\n"
    );
    let after = env.read(STATE);
    let expected = flame
        .replace("\"status\": \"planned\"", "\"status\": \"in_progress\"")
        .replace(
            "\"activeFrameID\": \"ses_4a1b2c3d4ffeAbCdEfGhIjKlMn\"",
            "\"activeFrameID\": \"plan-1766600040000-ywc6kr\"",
        );
    // Only the activated frame's updatedAt and the top-level updatedAt differ.
    let normalise = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| {
                if l.contains("\"updatedAt\"") {
                    "updatedAt".to_string()
                } else {
                    l.to_string()
                }
            })
            .collect()
    };
    assert_eq!(normalise(&after), normalise(&expected));
    assert!(after.ends_with("}\n"));
    assert!(
        after.contains("\"updatedAt\": 1766600000000,"),
        "untouched numbers keep their value"
    );
    let doc = state(&env);
    assert_eq!(
        doc["frames"]["ses_4a1b2c3d4ffeAbCdEfGhIjKlMn"]["tokenBudget"]["total"],
        4000
    );
}

#[test]
fn concurrent_pushes_never_lose_a_frame() {
    let env = TestEnv::new();
    let parent = env.ok(&["frame", "push", "Parent"]).trim().to_string();
    let children: Vec<_> = (0..16)
        .map(|i| {
            env.std_command()
                .args(["frame", "push", &format!("child {i}"), "--parent", &parent])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let doc = state(&env);
    let kids = doc["frames"]
        .as_object()
        .unwrap()
        .values()
        .filter(|f| f["parentSessionID"] == parent.as_str())
        .count();
    assert_eq!(kids, 16);
    let leftovers: Vec<_> = std::fs::read_dir(env.path(".opencode/flame"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[cfg(unix)]
#[test]
fn read_only_state_files_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let env = spec_env();
    let path = env.path(STATE);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = env.read(STATE);
    assert_snapshot!(env.snap(&["frame", "push", "x"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json is read-only; refusing to replace it
    hint: make it writable (chmod u+w) if ctx may change it
    ");
    assert_eq!(env.read(STATE), before);
    assert_eq!(
        env.ok(&["frame", "current"]),
        "fr_46s6jr410dd3\n",
        "reads still work"
    );
}

#[cfg(unix)]
#[test]
fn symbolic_links() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".opencode/flame")).unwrap();
    std::os::unix::fs::symlink("missing.json", env.path(STATE)).unwrap();
    assert_eq!(
        env.ok(&["frame", "tree", "-q"]),
        "",
        "a dangling link reads as the empty state"
    );
    assert_snapshot!(env.snap(&["frame", "push", "x"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json is a symbolic link to missing.json, which does not exist; refusing to write through it
    hint: remove the link, or restore the file it points to
    ");
    assert!(
        std::fs::symlink_metadata(env.path(STATE))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // A link inside the project: the target is replaced, the link stays.
    std::fs::remove_file(env.path(STATE)).unwrap();
    env.write(
        "shared/state.json",
        std::fs::read(fixture("frame/spec-example.json")).unwrap(),
    );
    std::os::unix::fs::symlink("../../shared/state.json", env.path(STATE)).unwrap();
    env.ok(&["frame", "decision", "through the link"]);
    assert!(env.read("shared/state.json").contains("through the link"));
    assert!(
        std::fs::symlink_metadata(env.path(STATE))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // A link leaving the project: reads work, writes are refused.
    let outside = env.temp().join("outside.json");
    std::fs::copy(fixture("frame/spec-example.json"), &outside).unwrap();
    std::fs::remove_file(env.path(STATE)).unwrap();
    std::os::unix::fs::symlink(&outside, env.path(STATE)).unwrap();
    assert_eq!(env.ok(&["frame", "current"]), "fr_46s6jr410dd3\n");
    let out = env.run(&["frame", "decision", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("outside the project; refusing to write there")
    );
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let env = TestEnv::new();
    let mut frames = serde_json::Map::new();
    for i in 0..3000 {
        let id = format!("fr_{i:012}");
        frames.insert(id.clone(), serde_json::json!({
            "sessionID": id, "status": "in_progress", "goal": "a goal long enough to fill the pipe quickly",
            "createdAt": i, "updatedAt": i, "artifacts": [], "decisions": []
        }));
    }
    let doc =
        serde_json::json!({"version": 1, "frames": frames, "rootFrameIDs": [], "updatedAt": 0});
    env.write(STATE, doc.to_string());
    let mut child = env
        .std_command()
        .args(["frame", "tree"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn root_discovery_and_explicit_root() {
    let env = spec_env();
    std::fs::create_dir_all(env.path("src/deep")).unwrap();
    let out = env
        .ctx()
        .current_dir(env.path("src/deep"))
        .args(["frame", "current"])
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"fr_46s6jr410dd3\n");
    let out = env
        .ctx()
        .current_dir(env.temp())
        .args(["-C", "project", "frame", "current"])
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"fr_46s6jr410dd3\n");
    let out = env
        .ctx()
        .current_dir(env.temp())
        .args(["frame", "current", "--root", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

// ---- import ----

const STACK: &str = r#"{
  "version": 1,
  "frames": {
    "ses_aaaa1111ffffStackRootAbCdEf": {
      "sessionID": "ses_aaaa1111ffffStackRootAbCdEf",
      "status": "in_progress",
      "title": "Billing service",
      "successCriteria": "Invoices, payments and refunds work end to end",
      "successCriteriaCompacted": "invoices, payments, refunds",
      "createdAt": 1795338000000,
      "updatedAt": 1795338000000
    },
    "ses_bbbb2222ffffStackChildAbCdE": {
      "sessionID": "ses_bbbb2222ffffStackChildAbCdE",
      "parentSessionID": "ses_aaaa1111ffffStackRootAbCdEf",
      "status": "completed",
      "successCriteria": "Webhooks verified",
      "results": "Verified with a 5-minute tolerance.",
      "resultsCompacted": "   ",
      "createdAt": 1795338001000,
      "updatedAt": 1795338002000,
      "artifacts": ["verify.rs"],
      "decisions": []
    },
    "fr_46s6jr410dd3": {
      "sessionID": "fr_46s6jr410dd3",
      "status": "planned",
      "createdAt": 1795338003000,
      "updatedAt": 1795338003000
    },
    "ses_cccc3333ffffNoTitleAbCdEfGh": {
      "sessionID": "ses_cccc3333ffffNoTitleAbCdEfGh",
      "parentSessionID": "ses_aaaa1111ffffStackRootAbCdEf",
      "status": "planned",
      "createdAt": 1795338004000,
      "updatedAt": 1795338004000
    }
  },
  "activeFrameID": "ses_bbbb2222ffffStackChildAbCdE",
  "rootFrameIDs": ["ses_aaaa1111ffffStackRootAbCdEf"],
  "updatedAt": 1795338004000
}"#;

#[test]
fn import_maps_stack_frames_and_skips_existing_ids() {
    let env = spec_env();
    env.write(".opencode/stack/state.json", STACK);
    let out = env.run(&["frame", "import"]);
    assert_snapshot!(env.render(&out), @r"
    exit: 0
    --- stdout
    ses_aaaa1111ffffStackRootAbCdEf
    ses_bbbb2222ffffStackChildAbCdE
    ses_cccc3333ffffNoTitleAbCdEfGh
    --- stderr
    warning: skipped 1 existing frame(s): fr_46s6jr410dd3
    ");
    let doc = state(&env);
    let root = frame(&doc, "ses_aaaa1111ffffStackRootAbCdEf");
    assert_eq!(root["goal"], "Billing service: invoices, payments, refunds");
    assert_eq!(
        root["title"], "Billing service",
        "stack keys stay as unknown keys"
    );
    assert_eq!(root["artifacts"], serde_json::json!([]));
    let child = frame(&doc, "ses_bbbb2222ffffStackChildAbCdE");
    assert_eq!(child["goal"], "Webhooks verified");
    assert_eq!(
        child["compactionSummary"],
        "Verified with a 5-minute tolerance."
    );
    assert_eq!(
        frame(&doc, "ses_cccc3333ffffNoTitleAbCdEfGh")["goal"],
        "Frame ses_cccc3333ffffNoTitleAbCdEfGh"
    );
    assert_eq!(
        frame(&doc, "fr_46s6jr410dd3")["goal"],
        "Handle refund events",
        "existing frame untouched"
    );
    assert_eq!(
        doc["rootFrameIDs"],
        serde_json::json!([
            "ses_dfd84297fffeStZsxnTSWsbCBp",
            "ses_aaaa1111ffffStackRootAbCdEf"
        ])
    );
    assert_eq!(
        doc["activeFrameID"], "fr_46s6jr410dd3",
        "the target's current frame wins"
    );
    assert_eq!(
        env.read(".opencode/stack/state.json"),
        STACK,
        "the source is only read"
    );

    // A second import has nothing new to add.
    let again: Value = serde_json::from_str(&env.ok(&["frame", "import", "-q", "--json"])).unwrap();
    assert_eq!(again["imported"], serde_json::json!([]));
    assert_eq!(again["skipped"].as_array().unwrap().len(), 4);
}

#[test]
fn import_into_an_empty_tree_takes_the_current_frame() {
    let env = TestEnv::new();
    env.write("elsewhere.json", STACK);
    env.ok(&["frame", "import", "elsewhere.json"]);
    assert_eq!(
        env.ok(&["frame", "current"]),
        "ses_bbbb2222ffffStackChildAbCdE\n"
    );
}

#[test]
fn import_refuses_bad_sources_and_writes_nothing() {
    let env = spec_env();
    let before = env.read(STATE);
    env.write(
        "bad.json",
        STACK.replace("\"status\": \"planned\"", "\"status\": \"paused\""),
    );
    let out = env.run(&["frame", "import", "bad.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with(
            "error: bad.json: the merged state would be invalid: /frames/ses_cccc3333ffffNoTitleAbCdEfGh/status must be one of"
        ),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    env.write("evil.json", r#"{"frames": {"../../x": {}}}"#);
    assert_snapshot!(env.snap(&["frame", "import", "evil.json"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: evil.json: /frames/../../x: invalid frame id: only letters, digits, '_' and '-' are allowed
    ");
    assert_snapshot!(env.snap(&["frame", "import"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/stack/state.json: cannot read: No such file or directory
    ");
    assert_eq!(env.read(STATE), before);
}

#[test]
fn colour_follows_the_flag_and_the_environment() {
    let env = spec_env();
    let has_escape = |out: std::process::Output| out.stdout.contains(&0x1b);
    assert!(
        !has_escape(env.run(&["frame", "tree"])),
        "no colour in pipes by default"
    );
    assert!(has_escape(env.run(&["frame", "tree", "--color", "always"])));
    assert!(has_escape(
        env.ctx()
            .args(["frame", "tree"])
            .env("CLICOLOR_FORCE", "1")
            .output()
            .unwrap()
    ));
    assert!(!has_escape(
        env.ctx()
            .args(["frame", "tree"])
            .env("CLICOLOR_FORCE", "1")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    ));
    assert!(!has_escape(
        env.ctx()
            .args(["frame", "tree", "--color", "never"])
            .env("CLICOLOR_FORCE", "1")
            .output()
            .unwrap()
    ));
    // Colour never changes the characters.
    let plain = env.ok(&["frame", "tree"]);
    let coloured =
        String::from_utf8(env.run(&["frame", "tree", "--color", "always"]).stdout).unwrap();
    let mut stripped = String::new();
    let mut in_escape = false;
    for ch in coloured.chars() {
        match (in_escape, ch) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, c) => stripped.push(c),
        }
    }
    assert_eq!(stripped, plain);
}

#[cfg(unix)]
#[test]
fn a_state_file_that_is_a_pipe_or_a_device_is_refused_at_once() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".opencode/flame")).unwrap();
    // Before, a reader waited forever on the pipe and read 512 MiB of /dev/zero.
    let status = std::process::Command::new("mkfifo")
        .arg(env.path(STATE))
        .status()
        .unwrap();
    assert!(status.success());
    assert_snapshot!(env.snap(&["frame", "tree"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json: not a regular file; refusing to read it
    ");
    std::fs::remove_file(env.path(STATE)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", env.path(STATE)).unwrap();
    assert_snapshot!(env.snap(&["frame", "current"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json: not a regular file; refusing to read it
    ");
}

#[test]
fn a_blank_summary_file_is_named_in_the_error() {
    let env = spec_env();
    let before = env.read(STATE);
    env.write("summary.txt", " \n\n");
    assert_snapshot!(env.snap(&["frame", "pop", "--summary-file", "summary.txt"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: summary.txt: the summary must not be empty
    ");
    let out = env.run_stdin(&["frame", "pop", "--summary-file", "-"], b"");
    assert_snapshot!(env.render(&out), @r"
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: the summary must not be empty
    ");
    assert_eq!(env.read(STATE), before);
}

#[test]
fn a_transcript_that_is_not_utf8_is_refused() {
    let env = spec_env();
    let before = env.read(STATE);
    // A valid export whose first message text holds a byte that is not UTF-8.
    let export = std::fs::read(fixture("frame/verify-export.json")).unwrap();
    let at = export
        .windows(9)
        .position(|w| w == b"\"Verify S")
        .expect("the fixture's first text")
        + 1;
    let broken = [&export[..at], b"\xff".as_slice(), &export[at..]].concat();
    env.write("export.json", &broken);
    let out = env.run(&["frame", "pop", "--transcript", "export.json"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "error: export.json: not an OpenCode session export: not UTF-8: invalid byte at line "
        ),
        "{stderr}"
    );
    assert_eq!(env.read(STATE), before);
    assert!(!env.path(".opencode/flame/logs").exists());
}

#[cfg(unix)]
#[test]
fn directories_and_lock_files_linked_out_of_the_project_are_never_written_through() {
    use std::os::unix::fs::symlink;
    // Before, pop wrote its log through a logs/ link, and every write went through a linked
    // .opencode/flame/ or a linked lock file.
    let env = spec_env();
    let outside = env.temp().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    symlink(&outside, env.path(".opencode/flame/logs")).unwrap();
    let before = env.read(STATE);
    let out = env.run(&["frame", "pop", "--summary", "Done"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        env.filter(&String::from_utf8_lossy(&out.stderr))
            .replace(&outside.display().to_string(), "[OUTSIDE]"),
        "error: [ROOT]/.opencode/flame/logs leads to [OUTSIDE], outside the project; refusing to \
         write there\n"
    );
    assert_eq!(env.read(STATE), before);
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);

    // The whole folder linked elsewhere: reads work, writes are refused.
    let env = TestEnv::new();
    let elsewhere = env.temp().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::copy(
        fixture("frame/spec-example.json"),
        elsewhere.join("state.json"),
    )
    .unwrap();
    symlink(&elsewhere, env.path(".opencode/flame")).unwrap();
    assert_eq!(env.ok(&["frame", "current"]), "fr_46s6jr410dd3\n");
    let out = env.run(&["frame", "decision", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside the project"));
    let names: Vec<_> = std::fs::read_dir(&elsewhere)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["state.json"]);

    // A lock file linked to a path that does not exist yet would be created there.
    let env = spec_env();
    let target = env.temp().join("created-by-ctx");
    symlink(&target, env.path(".opencode/flame/state.json.lock")).unwrap();
    assert_snapshot!(env.snap(&["frame", "decision", "nope"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json.lock is a symbolic link; refusing to use it as the lock
    hint: remove the link; ctx creates the lock file itself
    ");
    assert!(!target.exists());
}

// ---- JSON documents ----

/// Runs a command with --json and returns its document (TestEnv checks it against its schema).
fn doc(env: &TestEnv, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.push("--json");
    serde_json::from_str(&env.ok(&args)).unwrap()
}

#[test]
fn every_frame_command_prints_its_documented_json() {
    let env = TestEnv::new();
    let root = doc(&env, &["frame", "push", "Root goal", "--id", "fr_root"]);
    assert_eq!(root["version"], 1);
    assert_eq!(root["frame"]["status"], "in_progress");
    assert_eq!(root["frame"]["parent"], Value::Null);

    let planned = doc(&env, &["frame", "plan", "First", "Second"]);
    let first = planned["frames"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(planned["frames"][1]["goal"], "Second");
    assert_eq!(planned["frames"][0]["parent"], "fr_root");

    let active = doc(&env, &["frame", "activate", &first]);
    assert_eq!(active["frame"]["status"], "in_progress");
    assert_eq!(
        doc(&env, &["frame", "current"])["frame"]["id"],
        first.as_str()
    );

    let added = doc(&env, &["frame", "decision", "Use cents"]);
    assert_eq!(added["added"], serde_json::json!(["Use cents"]));
    let added = doc(&env, &["frame", "artifact", "src/a.rs"]);
    assert_eq!(added["frame"]["artifacts"], serde_json::json!(["src/a.rs"]));

    let popped = doc(&env, &["frame", "pop", "--summary", "Done"]);
    assert_eq!(popped["current"], "fr_root");
    assert_eq!(popped["frame"]["summary"], "Done");
    assert!(
        popped["log_path"]
            .as_str()
            .unwrap()
            .ends_with(&format!("frame-{first}.md"))
    );

    let log = doc(&env, &["frame", "log", &first]);
    assert!(log["text"].as_str().unwrap().contains("Use cents"));
    let path = doc(&env, &["frame", "log", &first, "--path"]);
    assert_eq!(path["path"], log["path"]);
    assert!(path.get("text").is_none());

    let change = doc(
        &env,
        &[
            "frame",
            "invalidate",
            "--reason",
            "Scope cut",
            "--dry-run",
            "fr_root",
        ],
    );
    assert_eq!(change["dry_run"], true);
    assert_eq!(change["invalidated"][0], "fr_root");

    let shown = doc(&env, &["frame", "show", "fr_root"]);
    assert_eq!(shown["frame"]["extra"], serde_json::json!({}));
    let tree = doc(&env, &["frame", "tree"]);
    assert_eq!(tree["current"], "fr_root");
    assert_eq!(tree["roots"][0]["children"][0]["id"], first.as_str());

    env.write("other.json", env.read(STATE));
    let imported = doc(&env, &["frame", "import", "other.json"]);
    assert_eq!(imported["imported"], serde_json::json!([]));
    assert_eq!(imported["skipped"].as_array().unwrap().len(), 3);
}

/// Unknown keys are shown with their numbers spelled as the file spells them: a number ctx
/// cannot represent as f64 (`1e400`) is not `null`, `-0` is not `0`, `1.0` is not `1`.
#[test]
fn show_keeps_the_spelling_of_unknown_numbers() {
    let env = TestEnv::new();
    env.write(
        ".opencode/flame/state.json",
        r#"{"version": 1, "activeFrameID": "f", "rootFrameIDs": ["f"], "updatedAt": 0, "frames": {
  "f": {"sessionID": "f", "status": "in_progress", "goal": "g", "createdAt": 0, "updatedAt": 0,
        "artifacts": [], "decisions": [], "weight": 1e400, "zero": -0, "one": 1.0,
        "nested": {"list": [1.50, 2E-3]}}}}"#,
    );
    let out = env
        .ctx()
        .args(["--json", "frame", "show", "f"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            r#""extra":{"weight":1e400,"zero":-0,"one":1.0,"nested":{"list":[1.50,2E-3]}}"#
        ),
        "{text}"
    );
    let shown = env.ok(&["frame", "show", "f"]);
    assert!(
        shown.contains(
            "  weight: 1e400\n  zero: -0\n  one: 1.0\n  nested: {\"list\":[1.50,2E-3]}\n"
        ),
        "{shown}"
    );
}

/// `frame activate` names its frame; it used to accept `--frame` and ignore it.
#[test]
fn activate_takes_no_frame_flag() {
    let env = TestEnv::new();
    let out = env.run(&["frame", "activate", "abcd", "--frame", "efgh"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument '--frame'"));
}

// ---- stale children ----

/// A parent popped with `--force` (as `ctx opencode finish` pops a subagent's session when it
/// ends) while a child of it still runs: the child can never be popped by its session.
fn stale_env() -> TestEnv {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Audit refunds", "--id", "fr_parent"]);
    env.ok(&["frame", "push", "Scan the ledger", "--id", "fr_child"]);
    env.ok(&["frame", "activate", "fr_parent"]);
    env.ok(&["frame", "pop", "--force", "--summary", "Audited"]);
    env.ok(&["frame", "push", "Report", "--id", "fr_other"]);
    env
}

#[test]
fn tree_marks_a_running_child_of_a_finished_parent_as_stale() {
    let env = stale_env();
    assert_snapshot!(env.snap(&["frame", "tree"]), @"
    exit: 0
    --- stdout
    ✓ Audit refunds (fr_paren)
    └── → Scan the ledger (fr_child) stale

    → Report (fr_other) ← current

    3 frames: 2 → in_progress, 1 ✓ completed
    fr_child is stale: its parent fr_paren is completed
    --- stderr
    ");
    // Kept by --status in_progress, and with the current mark after it.
    env.ok(&["frame", "activate", "fr_child"]);
    assert_snapshot!(env.snap(&["frame", "tree", "--ascii", "--status", "in_progress"]), @"
    exit: 0
    --- stdout
    + Audit refunds (fr_paren)
    `-- > Scan the ledger (fr_child) stale <- current

    > Report (fr_other)

    3 frames: 2 > in_progress, 1 + completed
    fr_child is stale: its parent fr_paren is completed
    --- stderr
    ");
}

#[test]
fn a_child_of_a_running_parent_is_not_stale_and_an_ended_child_no_longer_is() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Audit refunds", "--id", "fr_parent"]);
    env.ok(&["frame", "push", "Scan the ledger", "--id", "fr_child"]);
    assert!(!env.ok(&["frame", "tree"]).contains("stale"));
    let env = stale_env();
    env.ok(&[
        "frame",
        "invalidate",
        "fr_child",
        "--reason",
        "its session ended",
    ]);
    let out = env.ok(&["frame", "tree"]);
    assert!(!out.contains("stale"), "{out}");
}

/// A subagent's frame (its id is its session's) whose session last called the model at `at`
/// (epoch milliseconds), as `ctx opencode messages` records it.
/// A session's frame `fr_parent` (pushed by `ses_parent`, which called the model in 2100) and a
/// subagent's own frame `ses_child` under it, whose session last called the model at `at`.
fn quiet_child_env(at: i64) -> TestEnv {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Audit refunds", "--id", "ses_parent"]);
    env.ok(&[
        "frame",
        "push",
        "--session",
        "ses_parent",
        "--span-message",
        "msg_0",
        "--span-call",
        "call_0",
        "--id",
        "fr_parent",
        "Audit refunds",
    ]);
    env.ok(&[
        "frame",
        "push",
        "Scan the ledger",
        "--id",
        "ses_child",
        "--parent",
        "fr_parent",
    ]);
    env.ok(&["frame", "activate", "fr_parent"]);
    env.write(
        ".opencode/flame/sessions/ses_parent.json",
        r#"{"version": 1, "sessionID": "ses_parent", "contexts": [], "lastRequest": 4102444800000}"#,
    );
    env.write(
        ".opencode/flame/sessions/ses_child.json",
        format!(
            r#"{{"version": 1, "sessionID": "ses_child", "contexts": [], "lastRequest": {at}}}"#
        ),
    );
    env
}

#[test]
fn a_persons_frames_and_a_session_under_them_are_never_stale_for_quiet() {
    // A person's frame, a session started under it (a root OpenCode or pi session), and a frame
    // that session pushed: all wait for a person, however long nobody prompts.
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Audit refunds", "--id", "fr_person"]);
    env.ok(&["frame", "push", "Scan the ledger", "--id", "ses_main"]);
    env.ok(&[
        "frame",
        "push",
        "--session",
        "ses_main",
        "--span-message",
        "msg_1",
        "--span-call",
        "call_1",
        "--id",
        "fr_sub",
        "Read the ledger",
    ]);
    env.write(
        ".opencode/flame/sessions/ses_main.json",
        r#"{"version": 1, "sessionID": "ses_main", "contexts": [], "lastRequest": 1577836800000}"#,
    );
    let out = env.ok(&["frame", "tree"]);
    assert!(!out.contains("stale"), "{out}");
}

#[test]
fn a_broken_settings_file_leaves_the_tree_drawn_without_quiet_marks() {
    let env = quiet_child_env(1_577_836_800_000);
    env.write(".opencode/ctx.toml", "[frame\n");
    let out = env.run(&["frame", "tree"]);
    assert!(out.status.success(), "{}", env.render(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stdout.contains("stale"), "{stdout}");
    assert!(stdout.contains("Scan the ledger"), "{stdout}");
    assert!(
        stderr.starts_with("warning:") && stderr.contains("ctx.toml"),
        "{stderr}"
    );
}

#[test]
fn tree_marks_a_running_child_whose_session_stopped_calling_the_model_as_stale() {
    // 2020-01-01T00:00:00Z: long past any threshold.
    let env = quiet_child_env(1_577_836_800_000);
    assert_snapshot!(env.snap(&["frame", "tree"]), @"
    exit: 0
    --- stdout
    → Audit refunds (ses_parent)
    └── → Audit refunds (fr_paren) ← current
        └── → Scan the ledger (ses_child) stale

    3 frames: 3 → in_progress
    ses_child is stale: no model call since 2020-01-01 00:00:00 UTC
    --- stderr
    ");
    let doc: serde_json::Value =
        serde_json::from_str(&env.ok(&["frame", "tree", "--json"])).unwrap();
    let child = &doc["roots"][0]["children"][0]["children"][0];
    assert_eq!(
        child["stale"],
        serde_json::json!({"last_model_call": "2020-01-01T00:00:00.000Z"})
    );
    assert!(doc["roots"][0].get("stale").is_none(), "{doc}");
    // Off with frame.stale_after = 0.
    env.write(".opencode/ctx.toml", "[frame]\nstale_after = 0\n");
    let out = env.ok(&["frame", "tree"]);
    assert!(!out.contains("stale"), "{out}");
}

#[test]
fn a_child_whose_session_called_the_model_lately_or_never_is_not_stale() {
    // 2100-01-01: later than now, so never longer ago than the threshold.
    let env = quiet_child_env(4_102_444_800_000);
    let out = env.ok(&["frame", "tree"]);
    assert!(!out.contains("stale"), "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&env.ok(&["frame", "tree", "--json"])).unwrap();
    assert!(
        doc["roots"][0]["children"][0].get("stale").is_none(),
        "{doc}"
    );
    // No record of a model call (a session file of an older ctx, or a broken one): no mark.
    env.write(
        ".opencode/flame/sessions/ses_child.json",
        r#"{"version": 1, "sessionID": "ses_child", "contexts": []}"#,
    );
    assert!(!env.ok(&["frame", "tree"]).contains("stale"));
    env.write(".opencode/flame/sessions/ses_child.json", "{oops");
    assert!(!env.ok(&["frame", "tree"]).contains("stale"));
}

#[test]
fn a_parent_that_ended_is_said_before_a_quiet_session() {
    let env = quiet_child_env(1_577_836_800_000);
    env.ok(&["frame", "pop", "--force", "--summary", "Audited"]);
    let out = env.ok(&["frame", "tree"]);
    assert!(
        out.ends_with("ses_child is stale: its parent fr_paren is completed\n"),
        "{out}"
    );
}

#[test]
fn a_quiet_sessions_pushed_frames_are_stale_and_a_session_waiting_for_its_subagent_is_not() {
    let env = quiet_child_env(1_577_836_800_000);
    // The stuck subagent had pushed a frame of its own: it is stale too.
    env.ok(&[
        "frame",
        "push",
        "--session",
        "ses_child",
        "--span-message",
        "msg_1",
        "--span-call",
        "call_1",
        "--id",
        "fr_pushed",
        "Read the ledger",
    ]);
    let out = env.ok(&["frame", "tree"]);
    assert!(
        out.ends_with(
            "ses_child is stale: no model call since 2020-01-01 00:00:00 UTC\n\
             fr_pushe is stale: no model call since 2020-01-01 00:00:00 UTC\n"
        ),
        "{out}"
    );
    // A subagent of its own that works (2100: lately): the session waits for it, not stuck.
    let env = quiet_child_env(1_577_836_800_000);
    env.ok(&[
        "frame",
        "push",
        "Check totals",
        "--id",
        "ses_grand",
        "--parent",
        "ses_child",
    ]);
    env.write(
        ".opencode/flame/sessions/ses_grand.json",
        r#"{"version": 1, "sessionID": "ses_grand", "contexts": [], "lastRequest": 4102444800000}"#,
    );
    let out = env.ok(&["frame", "tree"]);
    assert!(!out.contains("stale"), "{out}");
}

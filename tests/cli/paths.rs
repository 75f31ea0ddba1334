//! ctx writes nowhere but `.opencode/flame/`: no id, argument or file content can send a write
//! elsewhere (flame.md §2, §4.1, §8). Each test records the whole temporary tree (project, HOME
//! and a folder beside the project) and compares it after the commands.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{TestEnv, fixture};
use crate::snapshot::{changes, snapshot, snapshot_except};

const STATE: &str = ".opencode/flame/state.json";

fn spec_env() -> TestEnv {
    let env = crate::common::spec_env();
    // As left by any earlier write: a writer creates it before it looks at its arguments.
    env.write(".opencode/flame/state.json.lock", "");
    env
}

/// Ids that would leave `logs/` if they were joined to a path, or are otherwise not ids.
fn hostile_ids(env: &TestEnv) -> Vec<String> {
    vec![
        "../x".into(),
        "../../../outside/x".into(),
        "..".into(),
        ".".into(),
        "x/y".into(),
        "a\\b".into(),
        env.temp().join("outside/abs").display().to_string(),
        "/etc/passwd".into(),
        "with space".into(),
        " leading".into(),
        "fr_é".into(),
        "x".repeat(129),
        String::new(),
    ]
}

#[test]
fn hostile_ids_in_arguments_are_refused_and_nothing_is_written() {
    let env = spec_env();
    std::fs::create_dir_all(env.temp().join("outside")).unwrap();
    for id in hostile_ids(&env) {
        let id = id.as_str();
        let commands: Vec<Vec<&str>> = vec![
            vec!["frame", "push", "g", "--id", id],
            vec!["frame", "push", "g", "--parent", id],
            vec!["frame", "plan", "g", "--parent", id],
            vec!["frame", "activate", id],
            vec!["frame", "invalidate", id, "--reason", "r"],
            vec!["frame", "show", id],
            vec!["frame", "log", id],
            vec!["frame", "tree", "--from", id],
            vec!["frame", "decision", "--frame", id, "d"],
            vec!["frame", "artifact", "--frame", id, "a"],
            vec!["frame", "pop", "--frame", id],
        ];
        for args in commands {
            let before = snapshot(env.temp());
            let out = env.run(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            assert_eq!(
                changes(&before, &snapshot(env.temp())),
                Vec::<std::path::PathBuf>::new(),
                "{args:?}"
            );
        }
        if !id.is_empty() {
            let before = snapshot(env.temp());
            let out = env
                .ctx()
                .env("CTX_FRAME", id)
                .args(["frame", "pop"])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "CTX_FRAME={id}");
            assert!(changes(&before, &snapshot(env.temp())).is_empty());
        }
    }
    // The ids that look like paths are refused for what they are, not for being unknown.
    for id in ["../x", "x/y", "/etc/passwd", "with space", ".."] {
        let out = env.run(&["frame", "push", "g", "--id", id]);
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .starts_with(&format!("error: invalid frame id '{id}'")),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A valid state whose texts point out of the project everywhere a path could be read from.
fn hostile_state(outside: &Path) -> Value {
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(fixture("frame/spec-example.json")).unwrap())
            .unwrap();
    let absolute = outside.join("absolute.md").display().to_string();
    let frames = doc["frames"].as_object_mut().unwrap();
    // The current frame and its parent, both to be popped, with log paths leaving the folder.
    frames["fr_46s6jr410dd3"]["logPath"] = json!("../../../outside/relative.md");
    frames["fr_432cf1xmwcej"]["logPath"] = json!(absolute);
    frames["fr_yb6wk952swa0"]["logPath"] = json!("logs/../../../../outside/completed.md");
    frames["fr_432cf1xmwcej"]["plannedChildren"] =
        json!(["../../../outside/planned", "fr_46s6jr410dd3"]);
    frames["fr_432cf1xmwcej"]["path"] = json!("../../../outside/extra");
    doc["rootFrameIDs"] = json!(["ses_dfd84297fffeStZsxnTSWsbCBp", "../../../outside/root"]);
    doc
}

#[test]
fn paths_in_the_state_never_decide_where_ctx_writes() {
    let env = TestEnv::new();
    let outside = env.temp().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("completed.md"), "not a log").unwrap();
    env.write(
        STATE,
        serde_json::to_string_pretty(&hostile_state(&outside)).unwrap(),
    );
    let flame = Path::new("project/.opencode/flame");
    let before = snapshot_except(env.temp(), flame);

    // Logs are written at logs/frame-<id>.md, built from the validated id.
    env.ok(&["frame", "pop", "--force", "--summary", "Done"]);
    env.ok(&["frame", "pop", "--frame", "fr_432cf1xmwcej", "--force"]);
    env.ok(&[
        "frame",
        "push",
        "Again",
        "--parent",
        "ses_dfd84297fffeStZsxnTSWsbCBp",
    ]);
    env.ok(&["frame", "plan", "Later"]);
    env.ok(&["frame", "invalidate", "--reason", "r"]);
    env.ok(&[
        "frame",
        "decision",
        "--frame",
        "ses_dfd84297fffeStZsxnTSWsbCBp",
        "d",
    ]);
    env.ok(&[
        "frame",
        "artifact",
        "--frame",
        "ses_dfd84297fffeStZsxnTSWsbCBp",
        "../../x",
    ]);
    let doc: Value = serde_json::from_str(&env.read(STATE)).unwrap();
    for id in ["fr_46s6jr410dd3", "fr_432cf1xmwcej"] {
        let log = format!("logs/frame-{id}.md");
        assert_eq!(doc["frames"][id]["logPath"], log.as_str());
        assert!(env.path(&format!(".opencode/flame/{log}")).is_file());
    }
    // A logPath that leaves the folder is not read either.
    let out = env.run(&["frame", "log", "fr_yb6wk952swa0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to read it"));
    assert_eq!(out.stdout, b"");

    assert_eq!(
        changes(&before, &snapshot_except(env.temp(), flame)),
        Vec::<std::path::PathBuf>::new()
    );
}

#[test]
fn frame_keys_that_are_paths_or_hold_nul_are_refused_everywhere() {
    let env = spec_env();
    std::fs::create_dir_all(env.temp().join("outside")).unwrap();
    let fixture_doc: Value =
        serde_json::from_slice(&std::fs::read(fixture("frame/spec-example.json")).unwrap())
            .unwrap();
    for key in ["../../../outside/x", "a\u{0}b", "/abs", "a b"] {
        let mut doc = fixture_doc.clone();
        let frame = json!({"sessionID": key, "status": "in_progress", "goal": "g",
                           "createdAt": 1, "updatedAt": 1, "artifacts": [], "decisions": []});
        doc["frames"]
            .as_object_mut()
            .unwrap()
            .insert(key.into(), frame);
        let text = serde_json::to_string_pretty(&doc).unwrap();
        // In the state: every command refuses the file.
        env.write(STATE, &text);
        env.write("source.json", &text);
        for args in [
            vec!["frame", "tree"],
            vec!["frame", "pop", "--frame", "fr_46s6jr410dd3"],
            vec!["frame", "push", "g"],
        ] {
            let out = env.run(&args);
            assert_eq!(out.status.code(), Some(1), "{key:?} {args:?}");
            assert!(String::from_utf8_lossy(&out.stderr).contains("invalid frame id"));
        }
        // In an import source: refused before anything is merged.
        env.write(
            STATE,
            std::fs::read(fixture("frame/spec-example.json")).unwrap(),
        );
        let before_import = snapshot(env.temp());
        let out = env.run(&["frame", "import", "source.json"]);
        assert_eq!(out.status.code(), Some(1), "{key:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("invalid frame id"));
        assert!(changes(&before_import, &snapshot(env.temp())).is_empty());
    }
}

#[test]
fn summary_files_transcripts_and_import_sources_are_only_read() {
    let env = spec_env();
    let outside = env.temp().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("summary.txt"), "Done.\n\n").unwrap();
    std::fs::copy(
        fixture("frame/verify-export.json"),
        outside.join("export.json"),
    )
    .unwrap();
    std::fs::copy(
        fixture("frame/stack-state.json"),
        outside.join("stack.json"),
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.join("export.json"), env.path("linked-export.json"))
        .unwrap();
    #[cfg(not(unix))]
    std::fs::copy(outside.join("export.json"), env.path("linked-export.json")).unwrap();
    let flame = Path::new("project/.opencode/flame");
    let before = snapshot_except(env.temp(), flame);

    let summary = outside.join("summary.txt").display().to_string();
    let export = outside.join("export.json").display().to_string();
    let stack = outside.join("stack.json").display().to_string();
    env.ok(&[
        "frame",
        "pop",
        "--summary-file",
        &summary,
        "--transcript",
        &export,
    ]);
    env.ok(&[
        "frame",
        "pop",
        "--force",
        "--transcript",
        "linked-export.json",
    ]);
    env.ok(&["frame", "import", &stack]);

    assert_eq!(
        changes(&before, &snapshot_except(env.temp(), flame)),
        Vec::<std::path::PathBuf>::new()
    );
}

#[test]
fn a_refusal_where_there_is_no_frame_tree_leaves_nothing_behind() {
    let env = TestEnv::new();
    let bare = env.temp().join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    let bare = bare.to_str().unwrap();
    for args in [
        vec!["frame", "pop"],
        vec!["frame", "artifact", "a.rs"],
        vec!["frame", "activate", "fr_nope"],
        vec!["frame", "invalidate", "--reason", "r"],
        vec!["frame", "edit", "--goal", "g"],
        vec!["frame", "decision", "d"],
        vec!["opencode", "finish", "ses_a"],
        vec!["pi", "finish", "--session", "pi_a"],
        vec!["opencode", "deleted", "ses_a"],
    ] {
        for root in [bare, env.root.to_str().unwrap()] {
            let mut full = vec!["-C", root];
            full.extend(&args);
            let out = env.run(&full);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{args:?}: {}",
                env.render(&out)
            );
        }
        assert_eq!(
            std::fs::read_dir(bare).unwrap().count(),
            0,
            "{args:?} created something"
        );
        assert!(
            !env.path(".opencode/flame").exists(),
            "{args:?} created .opencode/flame"
        );
    }
    // A command that changes something creates the tree as before.
    env.ok(&["-C", bare, "frame", "push", "Start"]);
    assert!(
        std::path::Path::new(bare)
            .join(".opencode/flame/state.json")
            .is_file()
    );
}

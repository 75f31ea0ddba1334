//! No lost update, no torn read: 16 processes change one state at once, each on its own branch
//! of the tree, while a reader keeps reading it (DESIGN.md "never lose data", flame.md §3.5).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use serde_json::Value;

use crate::common::TestEnv;
use crate::flame_schema::{check_state, check_state_bytes, strings};

const STATE: &str = ".opencode/flame/state.json";
const WORKERS: usize = 16;
const CYCLES: usize = 6;

/// What one frame must look like once every worker is done.
#[derive(Debug, Default)]
struct Expected {
    parent: String,
    goal: String,
    status: &'static str,
    artifacts: Vec<String>,
    decisions: Vec<String>,
    planned_children: Vec<String>,
    summary: Option<String>,
    invalidation_reason: Option<String>,
    popped: bool,
}

/// Runs one `ctx` command; every command of a worker is valid whatever the others do.
fn run(env: &TestEnv, args: &[&str]) -> String {
    let out = env.std_command().args(args).output().expect("run ctx");
    assert!(
        out.status.success(),
        "ctx {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 stdout")
}

/// Worker `w`: 56 commands (push, artifact, edit, decision, pop, plan, activate, invalidate) on the
/// branch `wNN` under `root`, always naming its frames with --frame/--parent/ids. Returns the
/// frames it expects to find at the end and how many commands it ran.
fn worker(env: &TestEnv, w: usize) -> (BTreeMap<String, Expected>, usize) {
    let mut expected = BTreeMap::new();
    let mut commands = 0;
    let mut ctx = |args: &[&str]| {
        commands += 1;
        run(env, args)
    };
    let branch = format!("w{w:02}");
    let branch_goal = format!("branch {w}");
    ctx(&[
        "frame",
        "push",
        &branch_goal,
        "--parent",
        "root",
        "--id",
        &branch,
    ]);
    let mut branch_frame = Expected {
        parent: "root".into(),
        goal: branch_goal,
        status: "in_progress",
        ..Expected::default()
    };
    for c in 0..CYCLES {
        let child = format!("{branch}-c{c}");
        let goal = format!("child {w}.{c}");
        ctx(&["frame", "push", &goal, "--parent", &branch, "--id", &child]);
        let mut artifacts = vec![format!("src/w{w}/c{c}.rs"), format!("docs/w{w}-{c}.md")];
        ctx(&[
            "frame",
            "artifact",
            "--frame",
            &child,
            &artifacts[0],
            &artifacts[1],
        ]);
        // A correction: the goal sharpened, an artifact recorded by mistake removed.
        let goal = format!("{goal} (edited)");
        ctx(&[
            "frame",
            "edit",
            &child,
            "--goal",
            &goal,
            "--remove-artifact",
            &artifacts[1],
        ]);
        artifacts.truncate(1);
        let decision = format!("decision {w}.{c}");
        ctx(&["frame", "decision", "--frame", &child, &decision]);
        let summary = format!("summary {w}.{c}");
        ctx(&["frame", "pop", "--frame", &child, "--summary", &summary]);
        expected.insert(
            child,
            Expected {
                parent: branch.clone(),
                goal,
                status: "completed",
                artifacts,
                decisions: vec![decision],
                summary: Some(summary),
                popped: true,
                ..Expected::default()
            },
        );

        let goals = [format!("plan {w}.{c} a"), format!("plan {w}.{c} b")];
        let planned = ctx(&["frame", "plan", "--parent", &branch, &goals[0], &goals[1]]);
        let planned: Vec<String> = planned.lines().map(str::to_string).collect();
        assert_eq!(planned.len(), 2, "plan printed {planned:?}");
        ctx(&["frame", "activate", &planned[0]]);
        let reason = format!("dropped {w}.{c}");
        ctx(&["frame", "invalidate", &planned[1], "--reason", &reason]);
        ctx(&["frame", "pop", "--frame", &planned[0], "--status", "failed"]);
        expected.insert(
            planned[0].clone(),
            Expected {
                parent: branch.clone(),
                goal: goals[0].clone(),
                status: "failed",
                popped: true,
                ..Expected::default()
            },
        );
        expected.insert(
            planned[1].clone(),
            Expected {
                parent: branch.clone(),
                goal: goals[1].clone(),
                status: "invalidated",
                invalidation_reason: Some(reason),
                ..Expected::default()
            },
        );
        branch_frame.planned_children.extend(planned);
    }
    let decision = format!("branch {w} done");
    ctx(&["frame", "decision", "--frame", &branch, &decision]);
    branch_frame.decisions.push(decision);
    expected.insert(branch, branch_frame);
    (expected, commands)
}

/// Reads the state file and `ctx frame tree --json` until `done`; every read must be a valid
/// state, and the number of frames never goes down. Returns the number of reads.
fn reader(env: &TestEnv, done: &AtomicBool) -> usize {
    let mut reads = 0;
    let mut last_count = 0;
    while !done.load(Ordering::SeqCst) || reads < 2 {
        let bytes = std::fs::read(env.path(STATE)).expect("state.json exists");
        let doc = check_state_bytes(&bytes).unwrap_or_else(|e| {
            panic!(
                "torn or invalid state.json: {e}\n{}",
                String::from_utf8_lossy(&bytes)
            )
        });
        let count = doc["frames"].as_object().unwrap().len();
        assert!(
            count >= last_count,
            "frames went from {last_count} to {count}"
        );
        last_count = count;

        let out = env
            .std_command()
            .args(["frame", "tree", "--json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tree: Value = serde_json::from_slice(&out.stdout).expect("tree --json is JSON");
        assert_eq!(tree["version"], 1);
        assert!(
            tree_nodes(&tree["roots"]) >= count,
            "tree --json lost frames"
        );
        reads += 1;
    }
    reads
}

fn tree_nodes(nodes: &Value) -> usize {
    nodes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| 1 + tree_nodes(&n["children"]))
        .sum()
}

#[test]
fn sixteen_writers_lose_no_update_and_a_reader_never_sees_a_torn_file() {
    let env = Arc::new(TestEnv::new());
    run(&env, &["frame", "push", "Root", "--id", "root"]);
    let done = Arc::new(AtomicBool::new(false));
    let reader_thread = {
        let (env, done) = (Arc::clone(&env), Arc::clone(&done));
        thread::spawn(move || reader(&env, &done))
    };
    let writers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let env = Arc::clone(&env);
            thread::spawn(move || worker(&env, w))
        })
        .collect();
    let mut expected = BTreeMap::new();
    for writer in writers {
        let (frames, commands) = writer.join().expect("worker");
        assert_eq!(commands, 56);
        expected.extend(frames);
    }
    done.store(true, Ordering::SeqCst);
    let reads = reader_thread.join().expect("reader");
    assert!(reads >= 2);

    let doc: Value = serde_json::from_str(&env.read(STATE)).unwrap();
    check_state(&doc).unwrap();
    let frames = doc["frames"].as_object().unwrap();
    assert_eq!(frames.len(), 1 + WORKERS * (1 + 3 * CYCLES));
    assert_eq!(doc["rootFrameIDs"], serde_json::json!(["root"]));
    for (id, want) in &expected {
        let got = &frames[id];
        let context = format!("frame {id}: {got:#}");
        assert_eq!(got["parentSessionID"], want.parent.as_str(), "{context}");
        assert_eq!(got["goal"], want.goal.as_str(), "{context}");
        assert_eq!(got["status"], want.status, "{context}");
        assert_eq!(strings(got, "artifacts"), want.artifacts, "{context}");
        assert_eq!(strings(got, "decisions"), want.decisions, "{context}");
        assert_eq!(
            strings(got, "plannedChildren"),
            want.planned_children,
            "{context}"
        );
        assert_eq!(
            got["compactionSummary"].as_str(),
            want.summary.as_deref(),
            "{context}"
        );
        assert_eq!(
            got["invalidationReason"].as_str(),
            want.invalidation_reason.as_deref(),
            "{context}"
        );
        if want.popped {
            let log = format!("logs/frame-{id}.md");
            assert_eq!(got["logPath"], log.as_str(), "{context}");
            assert!(env.path(&format!(".opencode/flame/{log}")).is_file());
        }
    }
    let leftovers: Vec<_> = std::fs::read_dir(env.path(".opencode/flame"))
        .unwrap()
        .chain(std::fs::read_dir(env.path(".opencode/flame/logs")).unwrap())
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

//! OpenCode sessions as frames: each session's own current frame (`--session`), the frames of
//! sessions and subagents (`ctx opencode frame|finish|deleted`), correcting a frame (`frame edit`)
//! and resuming a blocked one.

use insta::assert_snapshot;
use serde_json::Value;

use crate::common::TestEnv;

const STATE: &str = ".opencode/flame/state.json";

fn state(env: &TestEnv) -> Value {
    serde_json::from_str(&env.read(STATE)).unwrap()
}

fn frame(env: &TestEnv, id: &str) -> Value {
    state(env)["frames"][id].clone()
}

fn line(text: String) -> String {
    text.trim_end().to_string()
}

/// A root session's frame and a subagent's under it.
fn two_sessions() -> TestEnv {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", "ses_root", "--title", "Build billing"]);
    env.ok(&[
        "opencode",
        "frame",
        "ses_sub",
        "--title",
        "Audit refunds (@general subagent)",
        "--parent-session",
        "ses_root",
    ]);
    env
}

#[test]
fn each_session_keeps_its_own_current_frame() {
    let env = two_sessions();
    let a = line(env.ok(&["frame", "push", "--session", "ses_root", "Root work"]));
    let b = line(env.ok(&["frame", "push", "--session", "ses_sub", "Sub work"]));
    // Neither moved the other's place, nor the shared activeFrameID.
    assert_eq!(
        line(env.ok(&["frame", "current", "--session", "ses_root"])),
        a
    );
    assert_eq!(
        line(env.ok(&["frame", "current", "--session", "ses_sub"])),
        b
    );
    assert!(state(&env).get("activeFrameID").is_none());
    assert_eq!(state(&env)["sessionFrames"]["ses_root"], a.as_str());
    // The session variable works as the flag does.
    let out = env
        .ctx()
        .args(["frame", "current"])
        .env("CTX_SESSION", "ses_sub")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim_end(), b);
    // A pop steps the session back to where it was, and prints that.
    assert_eq!(
        env.ok(&["frame", "pop", "--session", "ses_sub", "--summary", "done"]),
        "ses_sub\n"
    );
    assert_eq!(
        line(env.ok(&["frame", "current", "--session", "ses_sub"])),
        "ses_sub"
    );
    assert_eq!(
        line(env.ok(&["frame", "current", "--session", "ses_root"])),
        a
    );
    // --frame still wins over --session.
    assert_eq!(
        line(env.ok(&[
            "frame",
            "current",
            "--session",
            "ses_root",
            "--frame",
            "ses_sub"
        ])),
        "ses_sub"
    );
}

#[test]
fn a_session_without_a_frame_starts_where_the_person_is() {
    let env = TestEnv::new();
    let mine = line(env.ok(&["frame", "push", "My work"]));
    assert_eq!(
        line(env.ok(&["frame", "current", "--session", "ses_new"])),
        mine
    );
    // Its frame is made under the running frame a person made current...
    env.ok(&["opencode", "frame", "ses_new", "--title", "Help me"]);
    assert_eq!(frame(&env, "ses_new")["parentSessionID"], mine.as_str());
    assert_eq!(state(&env)["activeFrameID"], mine.as_str());
    // ...and as a new root when that frame no longer runs.
    env.ok(&["frame", "pop", "--frame", &mine, "--force"]);
    env.ok(&["opencode", "frame", "ses_later", "--title", "Later"]);
    assert!(frame(&env, "ses_later").get("parentSessionID").is_none());
    assert_eq!(state(&env)["rootFrameIDs"][1], "ses_later");
}

#[test]
fn a_session_frame_is_made_once() {
    let env = TestEnv::new();
    assert_eq!(
        env.ok(&["opencode", "frame", "ses_a", "--title", "First"]),
        "ses_a\n"
    );
    let before = env.read(STATE);
    assert_eq!(
        env.ok(&["opencode", "frame", "ses_a", "--title", "Second"]),
        "ses_a\n"
    );
    assert_eq!(env.read(STATE), before, "the second call changes nothing");
    assert_eq!(frame(&env, "ses_a")["goal"], "First");
}

#[test]
fn subagent_sessions_become_frames_as_the_setting_says() {
    let env = two_sessions();
    let sub = frame(&env, "ses_sub");
    assert_eq!(sub["parentSessionID"], "ses_root");
    assert_eq!(sub["status"], "in_progress");
    // The parent's current frame is where a subagent starts.
    let work = line(env.ok(&["frame", "push", "--session", "ses_root", "Root work"]));
    env.ok(&[
        "opencode",
        "frame",
        "ses_sub2",
        "--title",
        "Check (@explore subagent)",
        "--parent-session",
        "ses_root",
    ]);
    assert_eq!(frame(&env, "ses_sub2")["parentSessionID"], work.as_str());
    // all (the default): a child session is known by its parent, whatever its title says,
    // oh-my-opencode's agents with spaces in their names included. A task's child is the task's
    // description, without the agent's name its title ends with.
    for (session, title, goal) in [
        (
            "ses_metis",
            "Audit refunds (@Metis - Plan Consultant subagent)",
            "Audit refunds",
        ),
        ("ses_side", "Side chat", "Side chat"),
    ] {
        assert_eq!(
            env.ok(&[
                "opencode",
                "frame",
                session,
                "--title",
                title,
                "--parent-session",
                "ses_root"
            ]),
            format!("{session}\n")
        );
        assert_eq!(frame(&env, session)["goal"], goal);
    }
    let with = |value: &str, session: &str, title: &str| {
        env.ctx()
            .args([
                "opencode",
                "frame",
                session,
                "--title",
                title,
                "--parent-session",
                "ses_root",
            ])
            .env("CTX_OPENCODE_SUBAGENT_FRAMES", value)
            .output()
            .unwrap()
    };
    assert!(
        with("none", "ses_y", "A (@general subagent)")
            .stdout
            .is_empty()
    );
    assert!(frame(&env, "ses_y").is_null());
    // heuristic: only the sessions titled as the task tool titles them.
    assert!(with("heuristic", "ses_x", "Side chat").stdout.is_empty());
    assert!(frame(&env, "ses_x").is_null());
    let json = env
        .ctx()
        .args([
            "opencode",
            "frame",
            "ses_x",
            "--title",
            "Side chat",
            "--parent-session",
            "ses_root",
            "--json",
        ])
        .env("CTX_OPENCODE_SUBAGENT_FRAMES", "heuristic")
        .output()
        .unwrap();
    assert_eq!(json.stdout, b"{\"version\":1,\"frame\":null}\n");
    assert_eq!(
        with("heuristic", "ses_m", "Plan (@Momus - Plan Critic subagent)").stdout,
        b"ses_m\n"
    );
}

#[test]
fn a_child_session_needs_its_parent_frame() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["opencode", "frame", "ses_c", "--title", "A (@general subagent)", "--parent-session", "ses_p"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: the parent session ses_p has no frame
    hint: create it first: ctx opencode frame ses_p --title TITLE
    ");
    assert!(!env.path(STATE).exists());
}

#[test]
fn hostile_titles_and_session_ids() {
    let env = TestEnv::new();
    let title = format!(
        "\u{1b}[2J\u{1b}]0;owned\u{7}Fix\r\nit\u{202e} {}",
        "x".repeat(100_000)
    );
    env.ok(&["opencode", "frame", "ses_t", "--title", &title]);
    let goal = frame(&env, "ses_t")["goal"].as_str().unwrap().to_string();
    assert!(
        goal.starts_with("[2J ]0;owned Fix it\u{202e} xxx"),
        "{goal:?}"
    );
    assert_eq!(goal.chars().count(), 200);
    assert!(!goal.chars().any(|c| c.is_control()));
    env.ok(&["opencode", "frame", "ses_blank", "--title", " \t\n"]);
    assert_eq!(
        frame(&env, "ses_blank")["goal"],
        "OpenCode session ses_blank"
    );
    let before = env.read(STATE);
    for bad in ["../escape", "ses/x", "", "ses x"] {
        for args in [
            vec!["opencode", "frame", bad, "--title", "t"],
            vec!["opencode", "finish", bad],
            vec!["opencode", "deleted", bad],
            vec!["frame", "push", "--session", bad, "goal"],
        ] {
            let out = env.run(&args);
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            assert!(
                String::from_utf8_lossy(&out.stderr).starts_with("error: "),
                "{args:?}"
            );
        }
    }
    assert_eq!(env.read(STATE), before, "nothing was written");
}

#[test]
fn a_broken_session_map_is_reported_and_left_alone() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Work"]);
    let text = env
        .read(STATE)
        .replacen("{\n", "{\n  \"sessionFrames\": [1],\n", 1);
    env.write(STATE, &text);
    assert_snapshot!(env.snap(&["frame", "push", "--session", "ses_a", "More"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: .opencode/flame/state.json: /sessionFrames must be an object of frame ids
    hint: fix or remove the key by hand; ctx leaves the file as it is
    ");
    assert_eq!(env.read(STATE), text);
    // Commands that do not act for a session do not need the map...
    env.ok(&["frame", "tree"]);
    // ...except a pop, which moves every place whose frame it finishes.
    let out = env.run(&["frame", "pop"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(env.read(STATE), text);
}

fn export(session: &str, texts: &[(&str, &str)]) -> String {
    let messages: Vec<Value> = texts
        .iter()
        .enumerate()
        .map(|(i, (role, text))| {
            serde_json::json!({
                "info": {"id": format!("msg_{i}"), "sessionID": session, "role": role, "time": {"created": 1_795_338_000_000i64 + i as i64}},
                "parts": [{"id": format!("prt_{i}"), "type": "text", "text": text}]
            })
        })
        .collect();
    serde_json::json!({"info": {"id": session, "title": "Audit refunds (@general subagent)"}, "messages": messages})
        .to_string()
}

#[test]
fn a_subagent_whose_export_cannot_be_read_is_still_popped() {
    let env = two_sessions();
    let out = env.run_stdin(
        &[
            "opencode",
            "finish",
            "ses_sub",
            "--state",
            "aborted",
            "--transcript",
            "-",
        ],
        b"{\"info\": {\"id\": \"ses_sub\"}, \"messages\": [",
    );
    assert_eq!(
        env.render(&out),
        "exit: 0\n--- stdout\nses_sub\n--- stderr\n\
         warning: <stdin>: not an OpenCode session export: invalid JSON at line 1, column 41: \
         EOF while parsing a list; the frame is finished without its messages in the log\n"
    );
    assert_eq!(frame(&env, "ses_sub")["status"], "blocked");
}

#[test]
fn a_finished_subagent_is_popped_with_its_last_answer_and_transcript() {
    let env = two_sessions();
    let left = line(env.ok(&["frame", "push", "--session", "ses_sub", "Left running"]));
    let transcript = export(
        "ses_sub",
        &[
            ("user", "Audit the refund code"),
            ("assistant", "Looking."),
            ("assistant", "3 issues found."),
        ],
    );
    let out = env.run_stdin(
        &["opencode", "finish", "ses_sub", "--transcript", "-"],
        transcript.as_bytes(),
    );
    assert_eq!(
        env.render(&out),
        format!(
            "exit: 0\n--- stdout\nses_sub\n--- stderr\n\
             warning: 1 descendant(s) of ses_sub are still in_progress: {left}; `ctx frame \
             tree` shows them as stale\n"
        )
    );
    // What the session left running can no longer be popped by it: the tree says so.
    let tree = env.ok(&["frame", "tree"]);
    let short = &left[..8];
    assert!(
        tree.contains(&format!("({short}) stale"))
            && tree.ends_with(&format!(
                "{short} is stale: its parent ses_sub is completed\n"
            )),
        "{tree}"
    );
    let sub = frame(&env, "ses_sub");
    assert_eq!(sub["status"], "completed");
    assert_eq!(sub["compactionSummary"], "3 issues found.");
    let log = env.read(".opencode/flame/logs/frame-ses_sub.md");
    assert!(log.contains("Audit the refund code"), "{log}");
    // Once finished, a second signal (session.idle, session.error) changes nothing.
    let before = env.read(STATE);
    assert_eq!(
        env.ok(&["opencode", "finish", "ses_sub", "--state", "error"]),
        ""
    );
    assert_eq!(env.ok(&["opencode", "finish", "ses_unknown"]), "");
    assert_eq!(env.read(STATE), before);
}

#[test]
fn finish_json_prints_one_document_even_when_nothing_is_popped() {
    let env = two_sessions();
    env.ok(&["opencode", "finish", "ses_sub"]);
    assert_eq!(
        env.ok(&["opencode", "finish", "ses_sub", "--json"]),
        "{\"version\":1,\"frame\":null,\"reason\":\"its frame is already completed\"}\n"
    );
    assert_eq!(
        env.ok(&["opencode", "finish", "ses_unknown", "--json"]),
        "{\"version\":1,\"frame\":null,\"reason\":\"the session has no frame\"}\n"
    );
}

#[test]
fn task_states_decide_the_status() {
    for (state_arg, status) in [
        ("completed", "completed"),
        ("error", "failed"),
        ("aborted", "blocked"),
    ] {
        let env = two_sessions();
        env.ok(&[
            "opencode",
            "finish",
            "ses_sub",
            "--state",
            state_arg,
            "--summary",
            "s",
        ]);
        assert_eq!(frame(&env, "ses_sub")["status"], status, "{state_arg}");
    }
    // A cancelled subagent is blocked: it can be resumed, and the notice says so.
    let env = two_sessions();
    env.ok(&["opencode", "finish", "ses_sub", "--state", "aborted"]);
    let notice = env.ok(&[
        "compact",
        "notice",
        "--session",
        "ses_sub",
        "--format",
        "text",
    ]);
    assert!(
        notice.starts_with("Frame ses_sub blocked: Audit refunds\n"),
        "{notice}"
    );
    assert!(
        notice.contains("It can be resumed later: ctx frame activate ses_sub"),
        "{notice}"
    );
    env.ok(&["frame", "activate", "--session", "ses_sub", "ses_sub"]);
    assert_eq!(frame(&env, "ses_sub")["status"], "in_progress");
    assert!(state(&env).get("activeFrameID").is_none());
}

#[test]
fn a_deleted_session_leaves_its_frames_marked_not_removed() {
    let env = two_sessions();
    let done = line(env.ok(&["frame", "push", "--session", "ses_root", "Done part"]));
    env.ok(&["frame", "pop", "--session", "ses_root"]);
    let open = line(env.ok(&["frame", "push", "--session", "ses_root", "Open part"]));
    let planned = line(env.ok(&["frame", "plan", "--session", "ses_root", "Later part"]));
    let out = env.ok(&["opencode", "deleted", "ses_root"]);
    let invalidated: Vec<&str> = out.lines().collect();
    for id in ["ses_root", "ses_sub", open.as_str(), planned.as_str()] {
        assert!(invalidated.contains(&id), "{id} in {out}");
        assert_eq!(frame(&env, id)["status"], "invalidated", "{id}");
        // A planned frame says it went with its parent.
        let reason = frame(&env, id)["invalidationReason"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            reason.ends_with("OpenCode session ses_root was deleted"),
            "{id}: {reason}"
        );
    }
    assert_eq!(frame(&env, &done)["status"], "completed");
    assert!(state(&env)["sessionFrames"].get("ses_root").is_none());
    assert_eq!(state(&env)["frames"].as_object().unwrap().len(), 5);
}

#[test]
fn edit_corrects_goals_and_summaries_and_the_log_follows() {
    let env = TestEnv::new();
    let id = line(env.ok(&["frame", "push", "Fix the invoce totals"]));
    env.ok(&["frame", "edit", "--goal", "Fix the invoice totals"]);
    env.ok(&[
        "frame",
        "edit",
        &id,
        "--summary",
        "Halfway (from a compaction)",
    ]);
    assert_eq!(frame(&env, &id)["goal"], "Fix the invoice totals");
    assert_eq!(frame(&env, &id)["status"], "in_progress");
    assert_eq!(
        frame(&env, &id)["compactionSummary"],
        "Halfway (from a compaction)"
    );
    env.ok(&["frame", "pop"]);
    let log = format!(".opencode/flame/logs/frame-{id}.md");
    let popped = env.read(&log);
    env.run_stdin(
        &["frame", "edit", &id, "--summary-file", "-"],
        b"Totals are computed on read.\n",
    );
    env.ok(&["frame", "edit", &id, "--goal", "Fix invoice totals"]);
    let amended = env.read(&log);
    assert_eq!(
        amended,
        popped
            .replace(
                "# Frame: Fix the invoice totals",
                "# Frame: Fix invoice totals"
            )
            .replace(
                "Halfway (from a compaction)",
                "Totals are computed on read."
            )
    );
    // A log laid out by someone else is left alone, with a warning.
    env.write(&log, "my own notes\n");
    let out = env.run(&["frame", "edit", &id, "--goal", "Again"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("was not brought in step"));
    assert_eq!(env.read(&log), "my own notes\n");
}

#[test]
fn edit_refuses_what_it_cannot_do() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Work"]);
    let before = env.read(STATE);
    assert_snapshot!(env.snap(&["frame", "edit"]), @"
    exit: 2
    --- stdout
    --- stderr
    error: nothing to change: pass --goal, --summary, --summary-file, --remove-artifact, --remove-decision, --before or --after
    ");
    assert_snapshot!(env.snap(&["frame", "edit", "--goal", "  "]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: the goal must not be empty
    ");
    assert_snapshot!(env.snap(&["frame", "edit", "fr_nope", "--goal", "x"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: no frame matches 'fr_nope'
    hint: list the frames with: ctx frame tree
    ");
    let out = env.run(&["frame", "edit", "--summary-file", "missing.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(env.read(STATE), before);
}

#[test]
fn a_notice_defaults_to_the_frame_just_popped() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Parent"]);
    let child = line(env.ok(&["frame", "push", "Child"]));
    env.ok(&["frame", "pop", "--summary", "Child done"]);
    let notice = env.ok(&["compact", "notice", "--format", "text"]);
    assert!(
        notice.starts_with(&format!("Frame {} completed: Child\n", &child[..8])),
        "{notice}"
    );
}

#[test]
fn sessions_writing_at_once_lose_nothing() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", "ses_root", "--title", "Root"]);
    let run = |args: &[&str]| {
        let out = env.std_command().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    std::thread::scope(|scope| {
        for i in 0..8 {
            let run = &run;
            scope.spawn(move || {
                let session = format!("ses_s{i}");
                let title = format!("T{i} (@general subagent)");
                run(&[
                    "opencode",
                    "frame",
                    &session,
                    "--title",
                    &title,
                    "--parent-session",
                    "ses_root",
                ]);
                for n in 0..5 {
                    run(&["frame", "push", "--session", &session, &format!("w{n}")]);
                    run(&["frame", "pop", "--session", &session]);
                }
            });
        }
    });
    let frames = state(&env)["frames"].as_object().unwrap().clone();
    assert_eq!(frames.len(), 1 + 8 + 8 * 5);
    for i in 0..8 {
        let session = format!("ses_s{i}");
        assert_eq!(frames[&session]["status"], "in_progress");
        let popped = frames
            .values()
            .filter(|f| f["parentSessionID"] == session.as_str() && f["status"] == "completed")
            .count();
        assert_eq!(popped, 5, "{session}");
        assert_eq!(
            line(env.ok(&["frame", "current", "--session", &session])),
            session
        );
    }
}

#[test]
fn going_back_to_a_frame_and_correcting_one() {
    let env = TestEnv::new();
    let root = line(env.ok(&["frame", "push", "Root"]));
    let a = line(env.ok(&["frame", "push", "A"]));
    env.ok(&["frame", "pop", "--status", "blocked"]);
    let b = line(env.ok(&["frame", "push", "B"]));
    // Back to a running frame left for another, then resume the blocked one.
    assert_eq!(line(env.ok(&["frame", "activate", &root])), root);
    assert_eq!(line(env.ok(&["frame", "current"])), root);
    assert_eq!(frame(&env, &b)["status"], "in_progress");
    env.ok(&["frame", "activate", &a]);
    assert_eq!(frame(&env, &a)["status"], "in_progress");
    assert_eq!(line(env.ok(&["frame", "current"])), a);
    // An invalidated planned frame planned again, ready to start.
    let later = line(env.ok(&["frame", "plan", "Later"]));
    env.ok(&["frame", "invalidate", &later, "--reason", "not now"]);
    let out = env.run(&["frame", "activate", &later]);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("hint: plan it again first: ctx frame reopen ID")
    );
    env.ok(&["frame", "reopen", &later]);
    let reopened = frame(&env, &later);
    assert_eq!(reopened["status"], "planned");
    assert!(reopened.get("invalidationReason").is_none());
    assert!(reopened.get("invalidatedAt").is_none());
    let out = env.run(&["frame", "reopen", &later]);
    assert_eq!(out.status.code(), Some(1));
    // Several decisions at once; artifacts and decisions recorded by mistake removed.
    env.ok(&["frame", "decision", "one", "two", "one"]);
    env.ok(&["frame", "artifact", "a.rs", "b.rs"]);
    env.ok(&[
        "frame",
        "edit",
        "--remove-decision",
        "one",
        "--remove-artifact",
        "b.rs",
    ]);
    // "one" twice is kept once, and its removal removes it.
    assert_eq!(frame(&env, &a)["decisions"], serde_json::json!(["two"]));
    assert_eq!(frame(&env, &a)["artifacts"], serde_json::json!(["a.rs"]));
    let before = env.read(STATE);
    let out = env.run(&[
        "frame",
        "edit",
        "--remove-artifact",
        "a.rs",
        "--remove-decision",
        "three",
    ]);
    assert_eq!(
        env.render(&out).lines().nth(3),
        Some(format!("error: {a} has no decision 'three'").as_str())
    );
    assert_eq!(
        env.read(STATE),
        before,
        "nothing removed when one removal is refused"
    );
    // The tree by status: those frames and their ancestors.
    let tree = env.ok(&["frame", "tree", "--status", "planned"]);
    assert!(
        tree.contains("Later") && tree.contains("Root") && !tree.contains(" B "),
        "{tree}"
    );
}

#[test]
fn a_planned_frame_changes_its_place_among_its_siblings() {
    let env = TestEnv::new();
    let root = line(env.ok(&["frame", "push", "Root"]));
    let planned = env.ok(&["frame", "plan", "One", "Two", "Three"]);
    let ids: Vec<&str> = planned.lines().collect();
    let order = |env: &TestEnv| -> Vec<String> {
        let tree: Value = serde_json::from_str(&env.ok(&["frame", "tree", "--json"])).unwrap();
        tree["roots"][0]["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["goal"].as_str().unwrap().to_string())
            .collect()
    };
    env.ok(&["frame", "edit", ids[2], "--before", ids[0]]);
    assert_eq!(order(&env), ["Three", "One", "Two"]);
    env.ok(&["frame", "edit", ids[2], "--after", ids[1]]);
    assert_eq!(order(&env), ["One", "Two", "Three"]);
    env.ok(&["frame", "edit", ids[0], "--after", ids[2]]);
    assert_eq!(order(&env), ["Two", "Three", "One"]);
    // The parent's plannedChildren follows; the tree's text does too.
    assert_eq!(
        frame(&env, &root)["plannedChildren"],
        serde_json::json!([ids[1], ids[2], ids[0]])
    );
    // Only a planned frame moves, and only among its siblings.
    let running = line(env.ok(&["frame", "push", "Running"]));
    let out = env.run(&["frame", "edit", &running, "--before", ids[0]]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only a planned frame can change its place")
    );
    let out = env.run(&["frame", "edit", ids[0], "--before", &root]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not one of its siblings"));
    assert_eq!(
        env.run(&[
            "frame", "edit", ids[0], "--before", ids[1], "--after", ids[2]
        ])
        .status
        .code(),
        Some(2)
    );
}

#[test]
fn a_session_whose_frame_was_popped_pushes_again() {
    // A root session: its new frame is a new root, said on stderr.
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", "ses_R", "--title", "M"]);
    env.ok(&["frame", "pop", "--session", "ses_R"]);
    let out = env.run(&["frame", "push", "--session", "ses_R", "B"]);
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "warning: ses_R is completed and no ancestor of it runs: the new frame is a new root\n"
    );
    let b = line(String::from_utf8(out.stdout).unwrap());
    assert!(frame(&env, &b).get("parentSessionID").is_none());
    assert_eq!(state(&env)["rootFrameIDs"][1], b.as_str());
    assert_eq!(line(env.ok(&["frame", "current", "--session", "ses_R"])), b);
    assert_eq!(
        frame(&env, "ses_R")["status"],
        "completed",
        "left as it was"
    );
    // Under a running frame: the new frame goes there.
    let env = TestEnv::new();
    let base = line(env.ok(&["frame", "push", "Base"]));
    env.ok(&["opencode", "frame", "ses_R", "--title", "M"]);
    env.ok(&["frame", "pop", "--session", "ses_R", "--status", "failed"]);
    let out = env.run(&["frame", "push", "--session", "ses_R", "B"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "warning: ses_R is failed: the new frame goes under {base}, its nearest running ancestor\n"
        )
    );
    let b = line(String::from_utf8(out.stdout).unwrap());
    assert_eq!(frame(&env, &b)["parentSessionID"], base.as_str());
    // Without --session nothing changes: a finished frame named as parent is refused.
    assert_snapshot!(env.snap(&["frame", "push", "--parent", "ses_R", "C"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot push under ses_R: it is failed, not in_progress
    ");
}

#[test]
fn an_unframed_child_session_works_in_its_parent_sessions_frame() {
    let env = TestEnv::new();
    let mine = line(env.ok(&["frame", "push", "Mine"]));
    env.ok(&["opencode", "frame", "ses_root", "--title", "Build billing"]);
    let work = line(env.ok(&["frame", "push", "--session", "ses_root", "Root work"]));
    // Not titled by the task tool: no frame of its own (with the heuristic)...
    env.write(
        ".opencode/ctx.toml",
        "[opencode]\nsubagent_frames = \"heuristic\"\n",
    );
    assert_eq!(
        env.ok(&[
            "opencode",
            "frame",
            "ses_chat",
            "--title",
            "Side chat",
            "--parent-session",
            "ses_root"
        ]),
        ""
    );
    assert!(frame(&env, "ses_chat").is_null());
    assert_eq!(state(&env)["sessionParents"]["ses_chat"], "ses_root");
    // ...so its place is its parent session's, never the person's.
    assert_eq!(
        line(env.ok(&["frame", "current", "--session", "ses_chat"])),
        work
    );
    let xml = env.ok(&[
        "compact",
        "render",
        "--for",
        "frame",
        "--session",
        "ses_chat",
        "--format",
        "xml",
    ]);
    assert!(
        xml.starts_with(&format!("<flame-context session=\"{work}\">")),
        "{xml}"
    );
    // Its push lands under that frame and moves only its own place.
    let pushed = line(env.ok(&["frame", "push", "--session", "ses_chat", "Chat work"]));
    assert_eq!(frame(&env, &pushed)["parentSessionID"], work.as_str());
    assert_eq!(state(&env)["activeFrameID"], mine.as_str());
    assert_eq!(
        line(env.ok(&["frame", "current", "--session", "ses_root"])),
        work
    );
    assert_eq!(
        env.ok(&["frame", "pop", "--session", "ses_chat"]),
        format!("{work}\n")
    );
    // It never pops its parent session's frame.
    assert_snapshot!(env.filter(&env.snap(&["frame", "pop", "--session", "ses_chat"]).replace(&work, "[WORK]")), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot pop [WORK] for session ses_chat: it is the frame of its parent session ses_root, and ses_chat has no frame of its own
    hint: push a frame for this session first, or pass --frame ID
    ");
    // With subagent_frames = none, a task subagent is placed the same way.
    let out = env
        .ctx()
        .args([
            "opencode",
            "frame",
            "ses_task",
            "--title",
            "Audit (@general subagent)",
            "--parent-session",
            "ses_root",
        ])
        .env("CTX_OPENCODE_SUBAGENT_FRAMES", "none")
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
    assert_eq!(
        line(env.ok(&["frame", "current", "--session", "ses_task"])),
        work
    );
    // A second signal for the same session changes nothing.
    let before = env.read(STATE);
    env.ok(&[
        "opencode",
        "frame",
        "ses_chat",
        "--title",
        "Side chat",
        "--parent-session",
        "ses_root",
    ]);
    assert_eq!(env.read(STATE), before);
    // The parent session deleted while the child runs: the child carries on from the nearest
    // frame still running, and says so.
    env.ok(&["opencode", "deleted", "ses_root"]);
    let out = env.run(&["frame", "push", "--session", "ses_task", "Go on"]);
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    let go_on = line(String::from_utf8(out.stdout).unwrap());
    assert_eq!(frame(&env, &go_on)["parentSessionID"], mine.as_str());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("warning: ses_root is invalidated: the new frame goes under")
    );
    // A deleted child forgets its parent.
    env.ok(&["opencode", "deleted", "ses_chat"]);
    assert!(state(&env)["sessionParents"].get("ses_chat").is_none());
    assert_eq!(state(&env)["sessionParents"]["ses_task"], "ses_root");
}

#[test]
fn a_broken_session_parents_map_is_reported_and_left_alone() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Work"]);
    let text = env
        .read(STATE)
        .replacen("{\n", "{\n  \"sessionParents\": {\"ses_a\": 7},\n", 1);
    env.write(STATE, &text);
    assert_snapshot!(env.snap(&["frame", "current", "--session", "ses_a"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: .opencode/flame/state.json: /sessionParents/ses_a must be a session id (a string)
    hint: fix or remove the key by hand; ctx leaves the file as it is
    ");
    assert_eq!(env.read(STATE), text);
}

/// Two subagents started in the same millisecond: their ids share the time-based characters.
const SUB_A: &str = "ses_dec6a5f1cffeAbCdEfGhIjKlMn";
const SUB_B: &str = "ses_dec6a5f1dffeZyXwVuTsRqPoNm";

fn parallel_subagents() -> TestEnv {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", "ses_root", "--title", "Build billing"]);
    for (id, title) in [
        (SUB_A, "Audit refunds (@general subagent)"),
        (SUB_B, "Audit invoices (@general subagent)"),
    ] {
        env.ok(&[
            "opencode",
            "frame",
            id,
            "--title",
            title,
            "--parent-session",
            "ses_root",
        ]);
    }
    env
}

#[test]
fn notices_name_subagents_by_unique_short_ids_of_at_least_ses_and_eight() {
    let env = parallel_subagents();
    env.ok(&["opencode", "finish", SUB_A, "--summary", "Refunds fine."]);
    assert_snapshot!(env.snap(&["compact", "notice", "--frame", SUB_A, "--format", "text"]), @r#"
    exit: 0
    --- stdout
    Frame ses_dec6a5f1c completed: Audit refunds

    Frame ses_dec6a5f1c ("Audit refunds") finished with status completed.
    Summary: Refunds fine.
    Sibling frames still in progress: ses_dec6a5f1d ("Audit invoices").
    Wait for them to finish, or continue with other work meanwhile. Do not leave unfinished siblings behind: each must be popped (completed, failed or blocked) before ses_root is popped.
    Finished so far: ses_dec6a5f1c (completed).
    --- stderr
    "#);
    // Each short id given back finds its frame; the tree shows the same ones.
    assert!(
        env.ok(&["frame", "show", "ses_dec6a5f1c", "--json"])
            .contains(SUB_A)
    );
    assert!(env.ok(&["frame", "tree"]).contains("ses_dec6a5f1d"));
}

#[test]
fn inside_opencode_the_notice_names_the_tools_and_the_log_paths() {
    let env = parallel_subagents();
    env.ok(&["opencode", "finish", SUB_A, "--summary", "Refunds fine."]);
    env.ok(&["opencode", "finish", SUB_B, "--state", "aborted"]);
    assert_snapshot!(env.snap(&["compact", "notice", "--frame", SUB_B, "--format", "text", "--host", "opencode"]), @r#"
    exit: 0
    --- stdout
    Frame ses_dec6a5f1d blocked: Audit invoices

    Frame ses_dec6a5f1d ("Audit invoices") finished with status blocked.
    It can be resumed later: call the task tool again with task_id "ses_dec6a5f1dffeZyXwVuTsRqPoNm" (the subagent continues with its earlier messages)
    All sibling frames are done: ses_dec6a5f1c (completed), ses_dec6a5f1d (blocked).
    Read their logs before you go on: .opencode/flame/logs/frame-ses_dec6a5f1cffeAbCdEfGhIjKlMn.md, .opencode/flame/logs/frame-ses_dec6a5f1dffeZyXwVuTsRqPoNm.md
    --- stderr
    "#);
    // From a shell the same notice names ctx's commands, as before.
    let shell = env.ok(&["compact", "notice", "--frame", SUB_B, "--format", "text"]);
    assert!(
        shell.contains("It can be resumed later: ctx frame activate ses_dec6a5f1d\n"),
        "{shell}"
    );
    assert!(
        shell.ends_with("Read their logs before you go on: ctx frame log ID\n"),
        "{shell}"
    );
    assert_snapshot!(env.snap(&["compact", "notice", "--frame", SUB_B, "--host", "claude"]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: invalid value 'claude' for '--host <HOST>'
      [possible values: shell, opencode]

    For more information, try '--help'.
    ");
}

//! `ctx codex hook EVENT`: one Codex hook call (JSON in, an answer or nothing out, never a
//! failure), with the event shapes Codex 0.171.0 sends; and `ctx frame … --session cx_…` as the
//! model's shell runs it.

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::common::{TestEnv, hook_log_lines};

const SESSION: &str = "01a21b53-5da8-7ef0-95e9-bcc9ecf19422";
const FRAME: &str = "cx_01a21b53-5da8-7ef0-95e9-bcc9ecf19422";
const AGENT: &str = "01a21b53-5ffd-75e0-a8f9-a5d32edd2d1e";
const AGENT_FRAME: &str = "cx_01a21b53-5ffd-75e0-a8f9-a5d32edd2d1e";

fn hook(env: &TestEnv, event: &str, input: &Value) -> String {
    hook_raw(env, event, input.to_string().as_bytes())
}

fn hook_raw(env: &TestEnv, event: &str, input: &[u8]) -> String {
    env.hook("codex", event, input)
}

/// An event as Codex sends it: the fields every event has, and `fields`.
fn event(name: &str, fields: Value) -> Value {
    let mut value = json!({
        "session_id": SESSION,
        "turn_id": "01a21b53-5dc0-74b0-82e1-dd826cada10f",
        "transcript_path": null,
        "cwd": "/x",
        "hook_event_name": name,
        "model": "mock-1",
        "permission_mode": "bypassPermissions",
    });
    for (k, v) in fields.as_object().unwrap() {
        value[k] = v.clone();
    }
    value
}

/// The added context of an answer, with the path of the ctx that answered made `ctx`.
fn context_of(answer: &str) -> String {
    let value: Value = serde_json::from_str(answer).unwrap();
    let ctx = assert_cmd::cargo::cargo_bin("ctx").display().to_string();
    value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .replace(&ctx, "ctx")
}

fn frame_json(env: &TestEnv, id: &str) -> Value {
    serde_json::from_str(&env.ok(&["--json", "frame", "show", id])).unwrap()
}

#[test]
fn a_prompt_gets_its_frame_and_the_context_with_the_threads_commands() {
    let env = TestEnv::new();
    let start = event("SessionStart", json!({ "source": "startup" }));
    assert_eq!(hook(&env, "SessionStart", &start), "", "no frame yet");
    let prompt = event(
        "UserPromptSubmit",
        json!({ "prompt": "\nFix the parser\nand more", "unknown_new_field": [1] }),
    );
    let answer = hook(&env, "UserPromptSubmit", &prompt);
    let value: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(
        value["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    assert_snapshot!(context_of(&answer), @r#"
    <flame-context session="cx_01a21b53-5da8-7ef0-95e9-bcc9ecf19422">
      <metadata>
        <budget total="4000" ancestors="1500" siblings="1500" current="800" />
      </metadata>
      <current-frame id="cx_01a21b53-5da8-7ef0-95e9-bcc9ecf19422" status="in_progress">
        <goal>Fix the parser</goal>
      </current-frame>
    </flame-context>
    To give a sub-goal a frame of its own, run `ctx frame push --session "cx_$CODEX_THREAD_ID" -- '<goal>'` in the shell, and when it is done `ctx frame pop --session "cx_$CODEX_THREAD_ID" --summary '<what was achieved>'`. Codex keeps a popped frame's messages in this conversation: a sub-goal whose tool outputs you will not need again goes better to a subagent (spawn_agent), which gets a frame of its own and sends back only its last message.
    "#);
    assert_eq!(hook(&env, "UserPromptSubmit", &prompt), "", "unchanged");
    // The model pushes in its shell, where CODEX_THREAD_ID is the session's id.
    env.ok(&[
        "frame",
        "push",
        "--session",
        &format!("cx_{SESSION}"),
        "--",
        "Tokenizer",
    ]);
    assert!(
        context_of(&hook(&env, "UserPromptSubmit", &prompt)).contains("<goal>Tokenizer</goal>")
    );
    // A new conversation of the same thread (codex exec resume gives its id again) gets it at
    // its start.
    assert!(context_of(&hook(&env, "SessionStart", &start)).contains("<goal>Tokenizer</goal>"));
    assert_eq!(
        hook(
            &env,
            "SessionStart",
            &event("SessionStart", json!({ "source": "resume" }))
        ),
        "",
        "a resumed conversation holds it already"
    );
}

#[test]
fn a_shell_without_a_thread_id_is_refused() {
    let env = TestEnv::new();
    // `--session "cx_$CODEX_THREAD_ID"` in a shell where the variable is unset.
    assert_snapshot!(env.snap(&["frame", "push", "--session", "cx_", "--", "x"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: --session cx_ names no Codex thread: CODEX_THREAD_ID is empty or unset in this shell
    hint: run it in the shell Codex gives the model, where CODEX_THREAD_ID is set, or name the thread in full: --session cx_<thread id>
    ");
    let out = env.run(&["frame", "pop", "--session", "cx_", "--summary", "x"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert!(
        !env.path(".opencode/flame/state.json").exists(),
        "nothing written"
    );
}

#[test]
fn a_spawned_subagent_is_a_child_frame_with_its_own_context_completed_with_its_last_message() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({ "prompt": "Fix the parser" })),
    );
    let call = event(
        "PreToolUse",
        json!({
            "tool_name": "spawn_agent",
            "tool_input": { "message": "Count the files\nin src/" },
            "tool_use_id": "call_1_0",
        }),
    );
    assert_eq!(hook(&env, "PreToolUse", &call), "");
    let start = event(
        "SubagentStart",
        json!({ "agent_id": AGENT, "agent_type": "default" }),
    );
    let context = context_of(&hook(&env, "SubagentStart", &start));
    assert!(
        context.starts_with(&format!("<flame-context session=\"{AGENT_FRAME}\">")),
        "{context}"
    );
    assert!(
        context.contains("<goal>Count the files</goal>"),
        "{context}"
    );
    assert!(
        context.contains("<goal>Fix the parser</goal>"),
        "the parent: {context}"
    );
    assert!(context.contains("cx_$CODEX_THREAD_ID"), "{context}");
    // The subagent's own prompt gets nothing more, nor creates a frame.
    let sub_prompt = event(
        "UserPromptSubmit",
        json!({ "agent_id": AGENT, "agent_type": "default", "prompt": "Count the files" }),
    );
    assert_eq!(hook(&env, "UserPromptSubmit", &sub_prompt), "");
    // In the subagent's shell, CODEX_THREAD_ID is its own thread: a push lands below its frame.
    env.ok(&["frame", "push", "--session", AGENT_FRAME, "--", "List src"]);
    env.ok(&[
        "frame",
        "pop",
        "--session",
        AGENT_FRAME,
        "--summary",
        "listed",
    ]);
    let rollout = env.temp().join("rollout-sub.jsonl");
    std::fs::write(
        &rollout,
        concat!(
            r#"{"timestamp":"2026-11-27T04:46:18.200Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Count the files"}]}}"#,
            "\n",
            r#"{"timestamp":"2026-11-27T04:46:18.300Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls src\"}","call_id":"c1"}}"#,
            "\n",
            r#"{"timestamp":"2026-11-27T04:46:18.400Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a.rs b.rs c.rs"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let stop = event(
        "SubagentStop",
        json!({
            "agent_id": AGENT,
            "agent_type": "default",
            "agent_transcript_path": rollout,
            "last_assistant_message": "Three files.",
            "stop_hook_active": false,
        }),
    );
    assert_eq!(hook(&env, "SubagentStop", &stop), "");
    let frame = frame_json(&env, AGENT_FRAME);
    assert_eq!(frame["frame"]["status"], "completed", "{frame}");
    assert_eq!(frame["frame"]["summary"], "Three files.");
    assert_eq!(frame["frame"]["parent"], FRAME);
    let log =
        std::fs::read_to_string(env.path(&format!(".opencode/flame/logs/frame-{AGENT_FRAME}.md")))
            .unwrap();
    assert!(
        log.contains("ls src") && log.contains("a.rs b.rs c.rs"),
        "{log}"
    );
    assert!(log.contains("Three files."), "{log}");
    // A second stop changes nothing.
    assert_eq!(hook(&env, "SubagentStop", &stop), "");
    let tree = env.ok(&["frame", "tree"]);
    assert!(tree.contains("List src"), "{tree}");
}

#[test]
fn parallel_spawned_subagents_take_their_calls_in_order_and_the_guess_is_logged() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({ "prompt": "Fix the parser" })),
    );
    let threads = [
        (
            "call_1_0",
            "01a21b53-6000-7000-8000-000000000001",
            "Count the files",
        ),
        (
            "call_1_1",
            "01a21b53-6000-7000-8000-000000000002",
            "Read the README",
        ),
    ];
    // Both calls are noted at once, though the first still waits for its subagent.
    for (call, _, task) in threads {
        let pre = event(
            "PreToolUse",
            json!({ "tool_name": "spawn_agent", "tool_input": { "message": task }, "tool_use_id": call }),
        );
        assert_eq!(hook(&env, "PreToolUse", &pre), "");
    }
    for (_, thread, _) in threads {
        let start = event(
            "SubagentStart",
            json!({ "agent_id": thread, "agent_type": "default" }),
        );
        hook(&env, "SubagentStart", &start);
    }
    for (_, thread, task) in threads {
        let frame = frame_json(&env, &format!("cx_{thread}"));
        assert_eq!(frame["frame"]["goal"], task, "{frame}");
    }
    assert_snapshot!(hook_log_lines(&env.path(".opencode/flame/codex-hooks.log")).join("\n"), @r#"SubagentStart session 01a21b53-5da8-7ef0-95e9-bcc9ecf19422: guessed that subagent cx_01a21b53-6000-7000-8000-000000000001 (default) is call call_1_0 "Count the files": the oldest of the 2 calls of its type waiting, and no event names its own"#);
}

#[test]
fn post_compact_records_the_rollouts_summary_and_adds_the_context_again() {
    let env = TestEnv::new();
    let prompt = event("UserPromptSubmit", json!({ "prompt": "Fix the parser" }));
    hook(&env, "UserPromptSubmit", &prompt);
    assert_eq!(hook(&env, "UserPromptSubmit", &prompt), "");
    let rollout = env.temp().join("rollout.jsonl");
    std::fs::write(
        &rollout,
        r#"{"timestamp":"2026-11-27T04:46:19.000Z","type":"compacted","payload":{"message":"The parser is half fixed."}}"#,
    )
    .unwrap();
    let compact = event(
        "PostCompact",
        json!({ "trigger": "auto", "transcript_path": rollout }),
    );
    assert_eq!(hook(&env, "PostCompact", &compact), "");
    assert_eq!(
        frame_json(&env, FRAME)["frame"]["summary"],
        "The parser is half fixed."
    );
    assert!(context_of(&hook(&env, "UserPromptSubmit", &prompt)).contains("Fix the parser"));
    // PreCompact is not ctx's: Codex reads nothing it prints.
    assert_eq!(
        hook(&env, "PreCompact", &event("PreCompact", json!({}))),
        ""
    );
}

#[test]
fn bad_input_is_a_log_line_and_a_silent_exit_0() {
    let env = TestEnv::new();
    let codex_home = env.home.join(".codex");
    let log = codex_home.join("ctx-hooks.log");
    assert_eq!(
        hook_raw(&env, "UserPromptSubmit", b"{\"session_id\": \"01a2"),
        ""
    );
    assert_eq!(hook_raw(&env, "UserPromptSubmit", b"[1]"), "");
    assert_eq!(
        hook(&env, "UserPromptSubmit", &json!({ "prompt": "x" })),
        ""
    );
    assert_eq!(
        hook(
            &env,
            "UserPromptSubmit",
            &json!({ "session_id": "../../x" })
        ),
        ""
    );
    assert_eq!(hook(&env, "SomeFutureEvent", &event("X", json!({}))), "");
    let start = event(
        "SubagentStart",
        json!({ "agent_id": "../up", "agent_type": "default" }),
    );
    assert_eq!(hook(&env, "SubagentStart", &start), "");
    let stop = event(
        "SubagentStop",
        json!({ "agent_id": "a9", "agent_type": "default", "last_assistant_message": "x" }),
    );
    assert_eq!(hook(&env, "SubagentStop", &stop), "");
    assert_snapshot!(hook_log_lines(&log).join("\n"), @r#"
    UserPromptSubmit: the event's JSON is not valid JSON: EOF while parsing a string at line 1 column 20
    UserPromptSubmit: the event's JSON is not an object
    UserPromptSubmit: the event has no "session_id"
    UserPromptSubmit session ../../x: the session id '../../x' cannot name a frame
    SubagentStart session 01a21b53-5da8-7ef0-95e9-bcc9ecf19422: the agent id '../up' cannot name a frame
    SubagentStop session 01a21b53-5da8-7ef0-95e9-bcc9ecf19422: SubagentStop for cx_a9, which has no frame (its SubagentStart was not seen)
    "#);
    assert!(!env.path(".opencode/flame").exists(), "nothing was created");
}

#[test]
fn a_broken_state_file_is_left_alone_and_logged_beside_it() {
    let env = TestEnv::new();
    env.write(
        ".opencode/flame/state.json",
        "{\"version\": 1, \"frames\": ",
    );
    let prompt = event("UserPromptSubmit", json!({ "prompt": "x" }));
    assert_eq!(hook(&env, "UserPromptSubmit", &prompt), "");
    assert_eq!(
        env.read(".opencode/flame/state.json"),
        "{\"version\": 1, \"frames\": "
    );
    let lines = hook_log_lines(&env.path(".opencode/flame/codex-hooks.log"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("UserPromptSubmit session {SESSION}: "))
            && lines[0].contains("state.json"),
        "{lines:?}"
    );
}

/// A rollout record of an exec_command call, and of its output as Codex writes it.
fn shell_call(id: &str, cmd: &str) -> String {
    let arguments = json!({ "cmd": cmd }).to_string();
    json!({"timestamp": "2026-11-27T04:46:18.300Z", "type": "response_item", "payload": {
        "type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": id}})
    .to_string()
        + "\n"
}

fn shell_output(id: &str, printed: &str) -> String {
    let output = format!(
        "Chunk ID: 1\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\n{printed}"
    );
    json!({"timestamp": "2026-11-27T04:46:18.400Z", "type": "response_item", "payload": {
        "type": "function_call_output", "call_id": id, "output": output}})
    .to_string()
        + "\n"
}

#[test]
fn session_end_folds_the_rollout_for_a_resume_and_keeps_the_original() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({ "prompt": "Fix the parser" })),
    );
    let pushed = env.ok(&["frame", "push", "--session", FRAME, "--", "Tokenizer"]);
    let id = pushed.trim();
    env.ok(&[
        "frame",
        "pop",
        "--session",
        FRAME,
        "--summary",
        "Tokens split",
    ]);
    let push = "ctx frame push --session \"cx_$CODEX_THREAD_ID\" -- 'Tokenizer'";
    let pop = "ctx frame pop --session \"cx_$CODEX_THREAD_ID\" --summary 'Tokens split'";
    let text = [
        r#"{"timestamp":"2026-11-27T04:46:18.064Z","type":"session_meta","payload":{"id":"t1"}}"#
            .to_string()
            + "\n",
        shell_call("c1", push),
        shell_output("c1", &format!("{id}\n")),
        shell_call("c2", "cat src/tokens.rs"),
        shell_output("c2", "BULKY_SOURCE_TEXT"),
        shell_call("c3", pop),
        shell_output("c3", &format!("{FRAME}\n")),
    ]
    .concat();
    let dir = env.home.join(".codex/sessions/2026/11/27");
    std::fs::create_dir_all(&dir).unwrap();
    let rollout = dir.join("rollout-2026-11-27T04-46-18-t1.jsonl");
    std::fs::write(&rollout, &text).unwrap();
    let end = event(
        "SessionEnd",
        json!({ "transcript_path": rollout, "reason": "other" }),
    );

    // Off: the rollout stays as it is.
    env.write(".opencode/ctx.toml", "[codex]\nfold = \"off\"\n");
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    assert_eq!(std::fs::read_to_string(&rollout).unwrap(), text);
    std::fs::remove_file(env.path(".opencode/ctx.toml")).unwrap();

    assert_eq!(hook(&env, "SessionEnd", &end), "");
    let folded = std::fs::read_to_string(&rollout).unwrap();
    assert!(!folded.contains("BULKY_SOURCE_TEXT"), "{folded}");
    assert!(folded.contains("frame pop --session"), "{folded}");
    assert!(
        folded.contains(&format!(
            "[ctx] Frame {id} (Tokenizer) completed, folded; its log: "
        )),
        "{folded}"
    );
    assert!(folded.contains("Summary: Tokens split"), "{folded}");
    let kept: Vec<_> = std::fs::read_dir(dir.join("rollout-2026-11-27T04-46-18-t1"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("ctx-fold-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let original = dir.join("rollout-2026-11-27T04-46-18-t1").join(&kept[0]);
    assert_eq!(std::fs::read_to_string(original).unwrap(), text);
    // Folded once: a second end finds nothing to fold.
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    assert_eq!(std::fs::read_to_string(&rollout).unwrap(), folded);

    // A file outside Codex's sessions folder is left alone, and said so.
    let elsewhere = env.temp().join("rollout-elsewhere.jsonl");
    std::fs::write(&elsewhere, &text).unwrap();
    let end = event("SessionEnd", json!({ "transcript_path": elsewhere }));
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), text);
    let lines = hook_log_lines(&env.path(".opencode/flame/codex-hooks.log"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].ends_with("left as it is: it is not below Codex's sessions folder"),
        "{lines:?}"
    );
}

/// A rollout of Codex's sessions folder holding `records` after its first line, and the
/// SessionEnd event that folds it.
fn rollout_of(env: &TestEnv, records: &[String]) -> (std::path::PathBuf, Value) {
    let dir = env.home.join(".codex/sessions/2026/11/28");
    std::fs::create_dir_all(&dir).unwrap();
    let rollout = dir.join("rollout-2026-11-28T04-46-18-t2.jsonl");
    let first =
        r#"{"timestamp":"2026-11-28T04:46:18.064Z","type":"session_meta","payload":{"id":"t2"}}"#;
    std::fs::write(&rollout, format!("{first}\n{}", records.concat())).unwrap();
    let end = event(
        "SessionEnd",
        json!({ "transcript_path": rollout, "reason": "other" }),
    );
    (rollout, end)
}

/// A frame of the thread, pushed and popped with `ctx`: its id.
fn pushed_and_popped(env: &TestEnv, goal: &str) -> String {
    let id = env.ok(&["frame", "push", "--session", FRAME, "--", goal]);
    env.ok(&["frame", "pop", "--session", FRAME, "--summary", "done"]);
    id.trim().to_string()
}

#[test]
fn the_other_commands_of_a_push_or_pop_call_keep_their_output_and_the_frame_folds() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({ "prompt": "Refunds" })),
    );
    let id = pushed_and_popped(&env, "Refunds");
    let session = "--session \"cx_$CODEX_THREAD_ID\"";
    let (rollout, end) = rollout_of(
        &env,
        &[
            shell_call(
                "c1",
                &format!("ctx frame push {session} -- 'Refunds' && printf INSIDE_PUSH"),
            ),
            shell_output("c1", &format!("{id}\nINSIDE_PUSH")),
            shell_call("c2", "cat refunds.csv"),
            shell_output("c2", "BULKY_CSV"),
            shell_call(
                "c3",
                &format!("ctx frame pop {session} --summary done && printf AFTER_POP"),
            ),
            shell_output("c3", &format!("{FRAME}\nAFTER_POP")),
        ],
    );
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    let folded = std::fs::read_to_string(&rollout).unwrap();
    assert!(
        !folded.contains("BULKY_CSV") && !folded.contains("INSIDE_PUSH"),
        "{folded}"
    );
    let output = folded
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find_map(|r| Some(r["payload"]["output"].as_str()?.to_string()))
        .unwrap();
    assert!(
        output.starts_with(&format!("[ctx] Frame {id} (Refunds) completed, folded;")),
        "{output}"
    );
    assert!(output.ends_with("Summary: done\n\nAFTER_POP"), "{output}");
    assert!(!env.path(".opencode/flame/codex-hooks.log").exists());
}

#[test]
fn a_frame_the_fold_leaves_alone_is_a_log_line_and_the_others_fold() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({ "prompt": "Refunds" })),
    );
    let first = pushed_and_popped(&env, "Refunds");
    let second = pushed_and_popped(&env, "Invoices");
    let session = "--session \"cx_$CODEX_THREAD_ID\"";
    let push = |goal: &str| format!("ctx frame push {session} -- '{goal}'");
    let pop = format!("ctx frame pop {session} --summary done");
    let (rollout, end) = rollout_of(
        &env,
        &[
            shell_call("c1", &push("Refunds")),
            shell_output("c1", &format!("{first}\n")),
            shell_call("c2", "sleep 100"),
            shell_call("c3", &pop),
            shell_output("c3", &format!("{FRAME}\n")),
            // Its output comes after the pop: the first frame cannot fold without unpairing it.
            shell_output("c2", "LATE"),
            shell_call("c4", &push("Invoices")),
            shell_output("c4", &format!("{second}\n")),
            shell_call("c5", "cat invoices.csv"),
            shell_output("c5", "BULKY_INVOICES"),
            shell_call("c6", &pop),
            shell_output("c6", &format!("{FRAME}\n")),
        ],
    );
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    let folded = std::fs::read_to_string(&rollout).unwrap();
    assert!(!folded.contains("BULKY_INVOICES"), "{folded}");
    assert!(
        folded.contains("sleep 100") && folded.contains("LATE"),
        "{folded}"
    );
    let lines = hook_log_lines(&env.path(".opencode/flame/codex-hooks.log"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].ends_with(&format!(
            "rollout-2026-11-28T04-46-18-t2.jsonl: frame {first}, pushed at line 2, left \
             unfolded: folding it would leave a call without its output"
        )),
        "{lines:?}"
    );
}

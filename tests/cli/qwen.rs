//! `ctx qwen install` (only ctx's entries in Qwen Code's settings.json, the user's bytes kept) and
//! `ctx qwen hook EVENT` (JSON in, an answer or nothing out, never a failure), with the event
//! shapes Qwen Code 0.24.4 sends; and `ctx frame … --session qw_…` as the model's shell runs it.

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::common::{TestEnv, hook_log_lines};

const SETTINGS: &str = ".qwen/settings.json";
const SESSION: &str = "b1998379-92c2-4e69-aeab-626455d593e2";
const FRAME: &str = "qw_b1998379-92c2-4e69-aeab-626455d593e2";
const AGENT: &str = "general-purpose-call_1_0";
const AGENT_FRAME: &str = "qw_general-purpose-call_1_0";

/// Settings of the user's: a model, a Stop hook of their own, and one that merely mentions ctx.
const USERS: &str = r#"{
  "$version": 4,
  "model": { "name": "qwen3-coder-plus" },
  "hooks": {
    "Stop": [
      { "hooks": [ { "type": "command", "command": "./notify.sh" } ] }
    ],
    "SessionStart": [
      { "hooks": [ { "type": "command", "command": "ctx qwen hook SessionStart" } ] }
    ]
  }
}
"#;

fn hook(env: &TestEnv, event: &str, input: &Value) -> String {
    env.hook("qwen", event, input.to_string().as_bytes())
}

/// An event as Qwen Code sends it: the fields every event has, and `fields`.
fn event(name: &str, fields: Value) -> Value {
    let mut value = json!({
        "session_id": SESSION,
        "transcript_path": "/x/chats/b1998379-92c2-4e69-aeab-626455d593e2.jsonl",
        "cwd": "/x",
        "hook_event_name": name,
        "timestamp": "2026-11-29T07:54:04.033Z",
        "permission_mode": "yolo",
        "prompt_id": "b1998379-92c2-4e69-aeab-626455d593e2########0",
    });
    for (k, v) in fields.as_object().unwrap() {
        value[k] = v.clone();
    }
    value
}

fn context_of(answer: &str) -> String {
    let value: Value = serde_json::from_str(answer).unwrap();
    value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

fn frame_json(env: &TestEnv, id: &str) -> Value {
    serde_json::from_str(&env.ok(&["--json", "frame", "show", id])).unwrap()
}

#[test]
fn install_adds_ctxs_hooks_and_remove_gives_the_file_back_byte_for_byte() {
    let env = TestEnv::new();
    env.write(SETTINGS, USERS);
    assert_snapshot!(env.snap(&["qwen", "install"]), @r"
    exit: 0
    --- stdout
    .qwen/settings.json: 9 hooks added
      + Stop: ctx qwen hook
      + SessionStart: ctx qwen hook
      + UserPromptSubmit: ctx qwen hook
      + PreToolUse: ctx qwen hook
      + SubagentStart: ctx qwen hook
      + SubagentStop: ctx qwen hook
      + PreCompact: ctx qwen hook
      + PostCompact: ctx qwen hook
      + SessionEnd: ctx qwen hook
    --- stderr
    ");
    let installed: Value = serde_json::from_str(&env.read(SETTINGS)).unwrap();
    let hooks = &installed["hooks"];
    assert_eq!(installed["model"]["name"], "qwen3-coder-plus");
    assert_eq!(hooks["Stop"][0]["hooks"][0]["command"], "./notify.sh");
    assert_eq!(
        hooks["SessionStart"][0]["hooks"][0]["command"], "ctx qwen hook SessionStart",
        "the user's own hook that runs ctx stays theirs, first"
    );
    assert_eq!(hooks["PreToolUse"][0]["matcher"], "agent");
    assert_eq!(
        env.ok(&["qwen", "install"]),
        ".qwen/settings.json: ctx's hooks are up to date\n"
    );
    let removed = env.ok(&["qwen", "install", "--remove"]);
    assert!(
        removed.starts_with(".qwen/settings.json: 9 hooks removed\n"),
        "{removed}"
    );
    assert_eq!(env.read(SETTINGS), USERS, "byte for byte");
}

#[test]
fn global_install_goes_to_qwen_home_and_json_says_what_changed() {
    let env = TestEnv::new();
    let qwen_home = env.home.join("q");
    let out = env
        .ctx()
        .env("QWEN_HOME", &qwen_home)
        .args(["--json", "qwen", "install", "--global"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["hooks"],
        qwen_home.join("settings.json").display().to_string()
    );
    assert_eq!(doc["added"].as_array().unwrap().len(), 9);
    assert!(qwen_home.join("settings.json").is_file());
    assert!(!env.path(SETTINGS).exists(), "the project's is untouched");
}

#[test]
fn settings_with_comments_a_read_only_file_and_a_dangling_link_are_refused_with_nothing_written() {
    let env = TestEnv::new();
    let commented = "{\n  // the model\n  \"model\": {\"name\": \"q\"}\n}\n";
    env.write(SETTINGS, commented);
    assert_snapshot!(env.snap(&["qwen", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.qwen/settings.json: it has comments, which ctx would lose by rewriting it; nothing was changed
    hint: remove the comments (Qwen Code reads the file the same without them; ctx edits only plain JSON), then install again
    ");
    assert_eq!(env.read(SETTINGS), commented);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        env.write(SETTINGS, USERS);
        let path = env.path(SETTINGS);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let out = env.run(&["qwen", "install"]);
        assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
        assert_eq!(env.read(SETTINGS), USERS);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(env.path("nowhere.json"), &path).unwrap();
        let out = env.run(&["qwen", "install"]);
        assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
        assert!(
            !env.path("nowhere.json").exists(),
            "nothing written through the link"
        );
    }
}

#[test]
fn a_prompt_gets_its_frame_and_a_context_that_reads_well_once_escaped() {
    let env = TestEnv::new();
    let start = event(
        "SessionStart",
        json!({ "source": "startup", "model": "mock-1" }),
    );
    assert_eq!(hook(&env, "SessionStart", &start), "", "no frame yet");
    let prompt = event(
        "UserPromptSubmit",
        json!({ "prompt": "Fix the refunds\nthen the ledger", "submitted_prompt": "Fix the refunds" }),
    );
    let context = context_of(&hook(&env, "UserPromptSubmit", &prompt));
    assert!(
        context.starts_with(&format!("[flame-context session=\"{FRAME}\"]")),
        "{context}"
    );
    assert!(
        context.contains("[goal]Fix the refunds[/goal]"),
        "{context}"
    );
    assert!(
        !context.contains('<') && !context.contains('>'),
        "{context}"
    );
    assert!(
        context.contains("--session \"qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}\""),
        "{context}"
    );
    assert_eq!(frame_json(&env, FRAME)["frame"]["goal"], "Fix the refunds");
    // Qwen Code's own prompt after a tool batch gets nothing, nor an unchanged context.
    let batch = event("UserPromptSubmit", json!({ "prompt": "" }));
    assert_eq!(hook(&env, "UserPromptSubmit", &batch), "");
    assert_eq!(hook(&env, "UserPromptSubmit", &prompt), "");
    // A resumed or compacted session that has a frame gets it again in its system prompt.
    let compacted = event("SessionStart", json!({ "source": "compact" }));
    assert!(
        context_of(&hook(&env, "SessionStart", &compacted))
            .contains("[goal]Fix the refunds[/goal]")
    );
}

#[test]
fn an_agent_call_is_a_child_frame_completed_with_its_last_message() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({ "prompt": "Delegate" })),
    );
    let call = event(
        "PreToolUse",
        json!({
            "tool_name": "agent",
            "tool_input": {"description": "Audit refunds", "prompt": "Audit the refund code", "subagent_type": "general-purpose", "run_in_background": false},
            "tool_use_id": "toolu_1", "tool_call_id": "call_1_0",
        }),
    );
    assert_eq!(hook(&env, "PreToolUse", &call), "");
    let start = event(
        "SubagentStart",
        json!({ "agent_id": AGENT, "agent_type": "general-purpose" }),
    );
    assert_eq!(
        hook(&env, "SubagentStart", &start),
        "",
        "Qwen does not pass it on"
    );
    let frame = frame_json(&env, AGENT_FRAME);
    assert_eq!(frame["frame"]["goal"], "Audit refunds");
    assert_eq!(frame["frame"]["parent"], FRAME);
    // The subagent's shell pushes below its own frame.
    let pushed = env.ok(&[
        "frame",
        "push",
        "--session",
        AGENT_FRAME,
        "--",
        "Check one refund",
    ]);
    assert_eq!(
        frame_json(&env, pushed.trim())["frame"]["parent"],
        AGENT_FRAME
    );
    env.ok(&[
        "frame",
        "pop",
        "--session",
        AGENT_FRAME,
        "--summary",
        "checked",
    ]);
    let stop = event(
        "SubagentStop",
        json!({ "agent_id": AGENT, "agent_type": "general-purpose", "last_assistant_message": "Audit done: 2 bugs." }),
    );
    assert_eq!(hook(&env, "SubagentStop", &stop), "");
    let frame = frame_json(&env, AGENT_FRAME);
    assert_eq!(frame["frame"]["status"], "completed");
    assert_eq!(frame["frame"]["summary"], "Audit done: 2 bugs.");
}

#[test]
fn a_compaction_gets_the_frame_context_and_its_summary_is_recorded() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({ "prompt": "Refunds" })),
    );
    let pre = event(
        "PreCompact",
        json!({ "trigger": "manual", "custom_instructions": "" }),
    );
    let context = context_of(&hook(&env, "PreCompact", &pre));
    assert!(
        context.contains(&format!("[current-frame id=\"{FRAME}\"")),
        "{context}"
    );
    assert!(
        context.contains("Keep in your summary, verbatim"),
        "{context}"
    );
    let post = event(
        "PostCompact",
        json!({ "trigger": "manual", "compact_summary": "Refunds half done." }),
    );
    assert_eq!(hook(&env, "PostCompact", &post), "");
    assert_eq!(
        frame_json(&env, FRAME)["frame"]["summary"],
        "Refunds half done."
    );
}

#[test]
fn a_shell_without_the_session_variables_is_refused() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["frame", "push", "--session", "qw_", "--", "x"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: --session qw_ names no Qwen Code session: QWEN_CODE_SESSION_ID is empty or unset in this shell
    hint: run it in the shell Qwen Code gives the model, where QWEN_CODE_SESSION_ID is set, or name the session in full: --session qw_<session id>
    ");
    assert!(
        !env.path(".opencode/flame/state.json").exists(),
        "nothing written"
    );
}

#[test]
fn bad_input_is_a_log_line_and_a_silent_exit_0() {
    let env = TestEnv::new();
    let log = env.home.join(".qwen/ctx-hooks.log");
    assert_eq!(
        env.hook("qwen", "UserPromptSubmit", b"{\"session_id\": \"b19"),
        ""
    );
    assert_eq!(env.hook("qwen", "UserPromptSubmit", b"\xff\xfe"), "");
    assert_eq!(
        hook(&env, "UserPromptSubmit", &json!({ "prompt": "x" })),
        ""
    );
    assert_eq!(
        hook(
            &env,
            "UserPromptSubmit",
            &json!({ "session_id": "../../x", "prompt": "x" })
        ),
        ""
    );
    assert_eq!(hook(&env, "SomeFutureEvent", &event("X", json!({}))), "");
    let start = event(
        "SubagentStart",
        json!({ "agent_id": "../up", "agent_type": "general-purpose" }),
    );
    assert_eq!(hook(&env, "SubagentStart", &start), "");
    assert_snapshot!(hook_log_lines(&log).join("\n"), @r#"
    UserPromptSubmit: the event's JSON is not valid JSON: EOF while parsing a string at line 1 column 19
    UserPromptSubmit: the event's JSON is not valid JSON: expected value at line 1 column 1
    UserPromptSubmit: the event has no "session_id"
    UserPromptSubmit session ../../x: the session id '../../x' cannot name a frame
    SubagentStart session b1998379-92c2-4e69-aeab-626455d593e2: the agent id '../up' cannot name a frame
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
    let lines = hook_log_lines(&env.path(".opencode/flame/qwen-hooks.log"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("UserPromptSubmit session {SESSION}: "))
            && lines[0].contains("state.json"),
        "{lines:?}"
    );
}

/// A session file as Qwen Code writes it: each content a record chained to the one before.
fn session_file(contents: &[(&str, Value)]) -> String {
    let mut text = String::new();
    let mut parent = Value::Null;
    for (n, (kind, message)) in contents.iter().enumerate() {
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let record = json!({"uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
            "timestamp": "2026-11-29T07:54:04.033Z", "type": kind, "cwd": "/x",
            "version": "0.24.4", "message": message});
        text.push_str(&record.to_string());
        text.push('\n');
        parent = json!(uuid);
    }
    text
}

fn shell_call(id: &str, command: &str) -> (&'static str, Value) {
    (
        "assistant",
        json!({"role": "model", "parts": [{"functionCall": {"id": id, "name": "run_shell_command", "args": {"command": command}}}]}),
    )
}

fn shell_result(id: &str, printed: &str) -> (&'static str, Value) {
    let output = format!(
        "Command: x\nDirectory: (root)\nOutput: {printed}\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)"
    );
    (
        "tool_result",
        json!({"role": "user", "parts": [{"functionResponse": {"id": id, "name": "run_shell_command", "response": {"output": output}}}]}),
    )
}

#[test]
fn stop_appends_a_compression_record_that_folds_the_popped_frame_and_keeps_every_line() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event("UserPromptSubmit", json!({ "prompt": "Refunds" })),
    );
    let push = r#"ctx frame push --session "qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}" -- 'List the refunds'"#;
    let pop = r#"ctx frame pop --session "qw_${QWEN_CODE_AGENT_ID:-$QWEN_CODE_SESSION_ID}" --summary 'Listed: 12 pending'"#;
    let pushed = env.ok(&[
        "frame",
        "push",
        "--session",
        FRAME,
        "--",
        "List the refunds",
    ]);
    let pushed = pushed.trim();
    env.ok(&[
        "frame",
        "pop",
        "--session",
        FRAME,
        "--summary",
        "Listed: 12 pending",
    ]);
    let text = session_file(&[
        (
            "user",
            json!({"role": "user", "parts": [{"text": "Refunds"}]}),
        ),
        shell_call("c1", push),
        shell_result("c1", pushed),
        shell_call("c2", "printf BULKY_OUTPUT"),
        shell_result("c2", "BULKY_OUTPUT"),
        shell_call("c3", pop),
        shell_result("c3", FRAME),
        (
            "assistant",
            json!({"role": "model", "parts": [{"text": "Listed."}]}),
        ),
    ]);
    let chats = env.home.join(".qwen/projects/-x/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let file = chats.join(format!("{SESSION}.jsonl"));
    std::fs::write(&file, &text).unwrap();
    let stop = event(
        "Stop",
        json!({ "transcript_path": file, "last_assistant_message": "Listed.", "stop_hook_active": false }),
    );
    assert_eq!(hook(&env, "Stop", &stop), "");
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(after.starts_with(&text), "every line Qwen wrote stays");
    let record: Value = serde_json::from_str(after[text.len()..].trim()).unwrap();
    assert_eq!(record["subtype"], "chat_compression");
    assert_eq!(record["parentUuid"], "00000000-0000-4000-8000-000000000007");
    let history = record["systemPayload"]["compressedHistory"].to_string();
    assert!(!history.contains("BULKY_OUTPUT"), "{history}");
    assert!(
        history.contains(&format!(
            "Frame {pushed} (List the refunds) completed, folded"
        )),
        "{history}"
    );
    // What the fold took out is in the frame's log, where its entry sends the model.
    let log = env.read(&format!(".opencode/flame/logs/frame-{pushed}.md"));
    assert!(
        log.contains("BULKY_OUTPUT") && log.contains("## Messages"),
        "{log}"
    );
    // Nothing new to fold: a second Stop appends nothing.
    assert_eq!(hook(&env, "Stop", &stop), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    // A session file outside Qwen's folder is left as it is, and said.
    let elsewhere = env.path("elsewhere.jsonl");
    std::fs::write(&elsewhere, &text).unwrap();
    let stop = event("Stop", json!({ "transcript_path": elsewhere }));
    assert_eq!(hook(&env, "Stop", &stop), "");
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), text);
    let lines = hook_log_lines(&env.path(".opencode/flame/qwen-hooks.log"));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("left as it is: it is not below Qwen Code's projects folder")),
        "{lines:?}"
    );
    // qwen.fold = off: nothing appended.
    env.write(".opencode/ctx.toml", "[qwen]\nfold = \"off\"\n");
    std::fs::write(&file, &text).unwrap();
    let stop = event("Stop", json!({ "transcript_path": file }));
    assert_eq!(hook(&env, "Stop", &stop), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

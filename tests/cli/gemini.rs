//! `ctx gemini install` (ctx's hooks merged into `.gemini/settings.json`) and `ctx gemini hook
//! EVENT` (JSON in, Gemini CLI's `hookSpecificOutput` or nothing out, never a failure), with the
//! event shapes Gemini CLI 0.61.0 sends, and the fold its SessionEnd appends to the session file;
//! `ctx frame … --session gm_…` as the model's shell runs it; and `ctx budget spent` of a real
//! Gemini CLI session.

use std::path::Path;

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::common::{TestEnv, hook_log_lines};

const SETTINGS: &str = ".gemini/settings.json";
const SESSION: &str = "6a7e0ea1-3377-42f3-b0e3-33776c45d15a";
const FRAME: &str = "gm_6a7e0ea1-3377-42f3-b0e3-33776c45d15a";

fn hook(env: &TestEnv, event: &str, input: &Value) -> String {
    env.hook("gemini", event, input.to_string().as_bytes())
}

/// An event as Gemini CLI sends it: the fields every event has, and `fields`.
fn event(name: &str, fields: Value) -> Value {
    let mut value = json!({
        "session_id": SESSION,
        "transcript_path": "/x/session.jsonl",
        "cwd": "/x",
        "hook_event_name": name,
        "timestamp": "2026-11-29T14:20:38.921Z",
    });
    for (k, v) in fields.as_object().unwrap() {
        value[k] = v.clone();
    }
    value
}

/// What an answer adds to the model's request.
fn context_of(answer: &str, event: &str) -> String {
    let value: Value = serde_json::from_str(answer).unwrap();
    assert_eq!(value["hookSpecificOutput"]["hookEventName"], event);
    value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

fn frame_json(env: &TestEnv, id: &str) -> Value {
    serde_json::from_str(&env.ok(&["--json", "frame", "show", id])).unwrap()
}

fn children(env: &TestEnv) -> Vec<String> {
    let tree: Value = serde_json::from_str(&env.ok(&["--json", "frame", "tree"])).unwrap();
    tree["roots"][0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn install_merges_named_hooks_says_how_to_trust_and_remove_gives_the_folder_back() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["gemini", "install"]), @r"
    exit: 0
    --- stdout
    .gemini/settings.json: 5 hooks added
      + BeforeAgent: ctx gemini hook
      + BeforeTool: ctx gemini hook
      + AfterTool: ctx gemini hook
      + AfterAgent: ctx gemini hook
      + SessionEnd: ctx gemini hook
    --- stderr
    note: Gemini CLI runs a project's hooks only in a folder you trust: answer its question on its first start here, or run `gemini --skip-trust` (or set GEMINI_CLI_TRUST_WORKSPACE=true) for a headless run; it lists the hooks once, on their first run. `ctx gemini install --global` installs hooks that run in every folder
    ");
    let file: Value = serde_json::from_str(&env.read(SETTINGS)).unwrap();
    let group = &file["hooks"]["AfterTool"][0];
    assert_eq!(group["matcher"], "invoke_agent");
    let hook = &group["hooks"][0];
    assert_eq!(hook["name"], "ctx");
    assert_eq!(hook["timeout"], 10_000, "milliseconds");
    assert!(
        hook["command"]
            .as_str()
            .unwrap()
            .starts_with("\"${CTX_BIN:-ctx}\" gemini hook AfterTool"),
        "{hook}"
    );
    let out = env.run(&["-q", "gemini", "install"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        ".gemini/settings.json: ctx's hooks are up to date\n"
    );
    env.ok(&["-q", "gemini", "install", "--remove"]);
    assert!(!env.path(".gemini").exists(), "ctx's install made it");
}

#[test]
fn a_users_settings_are_kept_byte_for_byte_their_hook_that_names_ctx_included() {
    let env = TestEnv::new();
    let users = "{\n  \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},\n  \"hooks\": {\"AfterAgent\": [\n    {\"hooks\": [{\"name\": \"mine\", \"type\": \"command\", \"command\": \"ctx gemini hook AfterAgent\"}]}\n  ]}\n}\n";
    env.write(SETTINGS, users);
    env.ok(&["-q", "gemini", "install"]);
    let installed: Value = serde_json::from_str(&env.read(SETTINGS)).unwrap();
    assert_eq!(
        installed["hooks"]["AfterAgent"].as_array().unwrap().len(),
        2
    );
    env.ok(&["-q", "gemini", "install", "--remove"]);
    assert_eq!(env.read(SETTINGS), users);
}

#[test]
fn global_install_goes_below_gemini_cli_home_and_json_says_what_changed() {
    let env = TestEnv::new();
    let gemini_home = env.home.join("g");
    let out = env
        .ctx()
        .env("GEMINI_CLI_HOME", &gemini_home)
        .args(["--json", "gemini", "install", "--global"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    assert!(out.stderr.is_empty(), "no note: these hooks need no trust");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = gemini_home.join(".gemini/settings.json");
    assert_eq!(doc["hooks"], file.display().to_string());
    assert_eq!(doc["added"].as_array().unwrap().len(), 5);
    assert!(!env.path(SETTINGS).exists(), "the project's is untouched");
}

#[test]
fn a_file_with_comments_a_read_only_file_and_a_dangling_link_are_refused_with_nothing_written() {
    let env = TestEnv::new();
    let commented = "{\n  // mine\n  \"general\": {}\n}\n";
    env.write(SETTINGS, commented);
    assert_snapshot!(env.snap(&["gemini", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.gemini/settings.json: it has comments, which ctx would lose by rewriting it; nothing was changed
    hint: remove the comments (Gemini CLI reads the file the same without them; ctx edits only plain JSON), then install again
    ");
    assert_eq!(env.read(SETTINGS), commented);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let users = "{}\n";
        env.write(SETTINGS, users);
        let path = env.path(SETTINGS);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let out = env.run(&["gemini", "install"]);
        assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
        assert_eq!(env.read(SETTINGS), users);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(env.path("nowhere.json"), &path).unwrap();
        let out = env.run(&["gemini", "install"]);
        assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
        assert!(!env.path("nowhere.json").exists());
    }
}

#[test]
fn a_prompt_gets_its_frame_and_a_context_that_reads_well_once_escaped() {
    let env = TestEnv::new();
    // Another hook's SessionStart context comes before the first prompt's text.
    let prompt = event(
        "BeforeAgent",
        json!({ "prompt": "<hook_context>&lt;theirs&gt;</hook_context>\n\nFix the refunds\nthen the ledger" }),
    );
    let context = context_of(&hook(&env, "BeforeAgent", &prompt), "BeforeAgent");
    assert!(
        context.starts_with(&format!("[flame-context session=\"{FRAME}\"]")),
        "{context}"
    );
    assert!(
        !context.contains('<') && !context.contains('>'),
        "{context}"
    );
    assert!(
        context.contains("[goal]Fix the refunds[/goal]"),
        "{context}"
    );
    assert!(
        context.contains(&format!(
            "run `ctx frame push --session {FRAME} -- 'GOAL'` in the shell"
        )),
        "{context}"
    );
    assert_eq!(frame_json(&env, FRAME)["frame"]["goal"], "Fix the refunds");
    // An unchanged context is not sent again; a tool of the model's gets nothing.
    assert_eq!(hook(&env, "BeforeAgent", &prompt), "");
    let tool = event(
        "BeforeTool",
        json!({ "tool_name": "run_shell_command", "tool_input": {"command": "ls"} }),
    );
    assert_eq!(hook(&env, "BeforeTool", &tool), "");
    // The model's shell pushes and pops with the id it was told.
    let pushed = env.ok(&["frame", "push", "--session", FRAME, "--", "Write the fix"]);
    assert_eq!(frame_json(&env, pushed.trim())["frame"]["parent"], FRAME);
}

#[test]
fn an_invoke_agent_call_is_a_child_frame_named_in_its_prompt_and_popped_with_its_result() {
    let env = TestEnv::new();
    hook(
        &env,
        "BeforeAgent",
        &event("BeforeAgent", json!({ "prompt": "Delegate" })),
    );
    let input =
        json!({"agent_name": "generalist", "prompt": "Count the refund rows\nin the ledger"});
    let call = event(
        "BeforeTool",
        json!({ "tool_name": "invoke_agent", "tool_input": input }),
    );
    let answer: Value = serde_json::from_str(&hook(&env, "BeforeTool", &call)).unwrap();
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "BeforeTool");
    assert_eq!(output["tool_input"]["agent_name"], "generalist");
    let prompt = output["tool_input"]["prompt"].as_str().unwrap().to_string();
    let [sub] = children(&env).try_into().unwrap();
    assert!(sub.starts_with("gma_") && sub.len() == 20, "{sub}");
    assert!(
        prompt.starts_with("Count the refund rows\nin the ledger\n\n<flame-context"),
        "the prompt first, then the context, not escaped: {prompt}"
    );
    assert!(
        prompt.contains(&format!("Your frame is {sub}. To give a sub-goal")),
        "{prompt}"
    );
    let frame = frame_json(&env, &sub);
    assert_eq!(frame["frame"]["goal"], "Count the refund rows");
    assert_eq!(frame["frame"]["parent"], FRAME);
    // AfterTool carries the input the call ran with, ctx's words in it.
    let display = json!({"isSubagentProgress": true, "agentName": "generalist", "state": "completed",
        "result": "{\n  \"response\": \"There are 12 rows.\"\n}", "terminateReason": "GOAL"});
    let done = event(
        "AfterTool",
        json!({ "tool_name": "invoke_agent", "tool_input": output["tool_input"],
            "tool_response": {"llmContent": [{"text": "Subagent 'generalist' finished."}], "returnDisplay": display} }),
    );
    assert_eq!(hook(&env, "AfterTool", &done), "");
    let frame = frame_json(&env, &sub);
    assert_eq!(frame["frame"]["status"], "completed");
    assert_eq!(frame["frame"]["summary"], "There are 12 rows.");

    // A subagent stopped short of its goal fails, saying why.
    let answer: Value = serde_json::from_str(&hook(&env, "BeforeTool", &call)).unwrap();
    let ran = answer["hookSpecificOutput"]["tool_input"].clone();
    let stopped = event(
        "AfterTool",
        json!({ "tool_name": "invoke_agent", "tool_input": ran,
            "tool_response": {"returnDisplay": {"state": "error", "terminateReason": "MAX_TURNS"}} }),
    );
    assert_eq!(hook(&env, "AfterTool", &stopped), "");
    let second = children(&env).into_iter().find(|c| *c != sub).unwrap();
    let frame = frame_json(&env, &second);
    assert_eq!(frame["frame"]["status"], "failed");
    assert_eq!(frame["frame"]["summary"], "stopped (MAX_TURNS)");

    // A subagent that threw: Gemini CLI says so by its state, with no reason.
    let answer: Value = serde_json::from_str(&hook(&env, "BeforeTool", &call)).unwrap();
    let ran = answer["hookSpecificOutput"]["tool_input"].clone();
    let third = children(&env)
        .into_iter()
        .find(|c| *c != sub && *c != second)
        .unwrap();
    let threw = event(
        "AfterTool",
        json!({ "tool_name": "invoke_agent", "tool_input": ran,
            "tool_response": {"llmContent": "Subagent 'generalist' failed. Error: boom",
                "returnDisplay": {"isSubagentProgress": true, "state": "ERROR"}} }),
    );
    assert_eq!(hook(&env, "AfterTool", &threw), "");
    let frame = frame_json(&env, &third);
    assert_eq!(frame["frame"]["status"], "failed");
    assert_eq!(
        frame["frame"]["summary"],
        "stopped (ERROR): Subagent 'generalist' failed. Error: boom"
    );
}

#[test]
fn a_subagent_whose_call_never_ended_is_closed_failed_when_the_turn_ends() {
    let env = TestEnv::new();
    hook(
        &env,
        "BeforeAgent",
        &event("BeforeAgent", json!({ "prompt": "Delegate" })),
    );
    // The model's own frame, and a subagent inside it that the person cancels: no AfterTool.
    let own = env.ok(&["frame", "push", "--session", FRAME, "--", "Audit"]);
    let own = own.trim();
    let call = event(
        "BeforeTool",
        json!({ "tool_name": "invoke_agent", "tool_input": {"agent_name": "generalist", "prompt": "Count"}}),
    );
    hook(&env, "BeforeTool", &call);
    let tree: Value = serde_json::from_str(&env.ok(&["--json", "frame", "tree"])).unwrap();
    let sub = tree["roots"][0]["children"][0]["children"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(sub.starts_with("gma_"), "{tree}");
    let stop = event("AfterAgent", json!({ "prompt_response": "Cancelled." }));
    assert_eq!(hook(&env, "AfterAgent", &stop), "");
    let frame = frame_json(&env, &sub);
    assert_eq!(frame["frame"]["status"], "failed");
    assert!(
        frame["frame"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("stopped: Gemini CLI reported no end of its call"),
        "{frame}"
    );
    // The model's frame above it pops as it would have.
    env.ok(&["frame", "pop", "--session", FRAME, "--summary", "Audited"]);
    assert_eq!(frame_json(&env, own)["frame"]["status"], "completed");
}

#[test]
fn with_turn_frames_after_agent_closes_the_turn_with_its_answer() {
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "[frame]\nauto = \"turns\"\n");
    hook(
        &env,
        "BeforeAgent",
        &event("BeforeAgent", json!({ "prompt": "Migrate module m1" })),
    );
    let [turn] = children(&env).try_into().unwrap();
    let stop = event(
        "AfterAgent",
        json!({ "prompt": "Migrate module m1", "prompt_response": "Module m1 migrated.", "stop_hook_active": false }),
    );
    assert_eq!(hook(&env, "AfterAgent", &stop), "");
    let frame = frame_json(&env, &turn);
    assert_eq!(frame["frame"]["status"], "completed");
    assert_eq!(frame["frame"]["summary"], "Module m1 migrated.");
}

#[test]
fn a_compressions_snapshot_from_the_session_file_is_recorded_once_and_the_context_sent_again() {
    let env = TestEnv::new();
    let prompt = event("BeforeAgent", json!({ "prompt": "Start the refunds" }));
    assert!(!hook(&env, "BeforeAgent", &prompt).is_empty());
    // A snapshot quoted in Gemini CLI's own context (a GEMINI.md that shows one) is not one.
    let quoted = json!({"$set": {"messages": [
        {"type": "user", "content": [{"text": "<session_context>\n<state_snapshot>Not a compression.</state_snapshot>"}]},
        {"type": "user", "content": [{"text": "Start the refunds"}]},
    ]}});
    env.write("quoted.jsonl", format!("{quoted}\n"));
    let file = env.path("quoted.jsonl").display().to_string();
    let stop = event("AfterAgent", json!({ "transcript_path": file }));
    assert_eq!(hook(&env, "AfterAgent", &stop), "");
    assert_eq!(frame_json(&env, FRAME)["frame"]["summary"], Value::Null);
    let snapshot = json!({"$set": {"messages": [
        {"type": "user", "content": [{"text": "<session_context>…</session_context>"}]},
        {"type": "user", "content": [{"text": "<state_snapshot>\nRefunds started.\n</state_snapshot>"}]},
        {"type": "gemini", "content": [{"text": "Got it. Thanks for the additional context!"}]},
    ]}});
    env.write(
        "session.jsonl",
        format!(
            "{}\n{snapshot}\n",
            json!({"sessionId": SESSION, "projectHash": "x", "kind": "main"})
        ),
    );
    let file = env.path("session.jsonl").display().to_string();
    let stop = event(
        "AfterAgent",
        json!({ "transcript_path": file, "prompt_response": "Next." }),
    );
    assert_eq!(hook(&env, "AfterAgent", &stop), "");
    assert_eq!(
        frame_json(&env, FRAME)["frame"]["summary"],
        "Refunds started."
    );
    let next = event(
        "BeforeAgent",
        json!({ "transcript_path": file, "prompt": "Next" }),
    );
    assert!(
        context_of(&hook(&env, "BeforeAgent", &next), "BeforeAgent").contains("[flame-context"),
        "the context again"
    );
    // A later look at the same compression records nothing over what the frame says now.
    env.ok(&["frame", "edit", FRAME, "--summary", "Refunds half done."]);
    assert_eq!(hook(&env, "AfterAgent", &stop), "");
    assert_eq!(
        frame_json(&env, FRAME)["frame"]["summary"],
        "Refunds half done."
    );
}

/// A session file as Gemini CLI 0.61.0 writes it: its first line, then `messages`, each model
/// message with shell calls written twice (before and after they ran) and followed by the user
/// message of their results it also records.
fn session_file(turns: &[Value]) -> String {
    let mut text =
        json!({"sessionId": SESSION, "projectHash": "h", "startTime": "t", "kind": "main"})
            .to_string()
            + "\n";
    for (n, turn) in turns.iter().enumerate() {
        let id = format!("m{n}");
        if let Some(prompt) = turn.as_str() {
            text += &format!(
                "{}\n",
                json!({"id": id, "timestamp": "t", "type": "user", "content": [{"text": prompt}]})
            );
            continue;
        }
        let (call, printed) = (turn[0].as_str().unwrap(), turn[1].as_str().unwrap());
        let result = json!({"functionResponse": {"id": format!("c{n}"), "name": "run_shell_command",
            "response": {"output": format!("<untrusted_context>\nOutput: {printed}\nProcess Group PGID: 9\n</untrusted_context>")}}});
        let before = json!({"id": id, "timestamp": "t", "type": "gemini", "content": "", "model": "gemini-2.5-pro"});
        let mut after = before.clone();
        after["toolCalls"] = json!([{"id": format!("c{n}"), "name": "run_shell_command",
            "args": {"command": call}, "result": [result], "status": "success"}]);
        let results =
            json!({"id": format!("r{n}"), "timestamp": "t", "type": "user", "content": [result]});
        text += &format!("{before}\n{after}\n{results}\n");
    }
    text
}

#[test]
fn session_end_sets_the_messages_anew_with_the_popped_frame_folded_and_keeps_every_line() {
    let env = TestEnv::new();
    hook(
        &env,
        "BeforeAgent",
        &event("BeforeAgent", json!({ "prompt": "Refunds" })),
    );
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
        json!("Refunds"),
        json!([
            format!("ctx frame push --session {FRAME} -- 'List the refunds'"),
            pushed
        ]),
        json!(["printf BULKY_OUTPUT", "BULKY_OUTPUT"]),
        json!([
            format!("ctx frame pop --session {FRAME} --summary 'Listed: 12 pending'"),
            FRAME
        ]),
    ]);
    let chats = env.home.join(".gemini/tmp/app/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let file = chats.join("session-2026-11-29T14-20-6a7e0ea1.jsonl");
    std::fs::write(&file, &text).unwrap();
    let end = event(
        "SessionEnd",
        json!({ "transcript_path": file, "reason": "exit" }),
    );
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(
        after.starts_with(&text),
        "every line Gemini CLI wrote stays"
    );
    let line: Value = serde_json::from_str(after[text.len()..].trim()).unwrap();
    let messages = line["$set"]["messages"].as_array().unwrap();
    let list = serde_json::to_string(messages).unwrap();
    assert!(!list.contains("BULKY_OUTPUT"), "{list}");
    assert!(
        list.contains(&format!(
            "Frame {pushed} (List the refunds) completed, folded"
        )),
        "{list}"
    );
    let results = messages
        .iter()
        .filter(|m| m.to_string().contains("functionResponse"))
        .count();
    assert_eq!(results, 1, "the pop's result, once: {list}");
    // What the fold took out is in the frame's log, where its entry sends the model.
    let log = env.read(&format!(".opencode/flame/logs/frame-{pushed}.md"));
    assert!(log.contains("BULKY_OUTPUT"), "{log}");
    // Nothing new to fold: a second end appends nothing.
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    // A session file outside Gemini CLI's folder is left as it is, and said.
    let elsewhere = env.path("elsewhere.jsonl");
    std::fs::write(&elsewhere, &text).unwrap();
    let end = event("SessionEnd", json!({ "transcript_path": elsewhere }));
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), text);
    let lines = hook_log_lines(&env.path(".opencode/flame/gemini-hooks.log"));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("left as it is: it is not below Gemini CLI's sessions folder")),
        "{lines:?}"
    );
    // gemini.fold = off: nothing appended.
    env.write(".opencode/ctx.toml", "[gemini]\nfold = \"off\"\n");
    std::fs::write(&file, &text).unwrap();
    let end = event("SessionEnd", json!({ "transcript_path": file }));
    assert_eq!(hook(&env, "SessionEnd", &end), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn bad_input_is_a_log_line_and_a_silent_exit_0() {
    let env = TestEnv::new();
    let log = env.home.join(".gemini/ctx-hooks.log");
    assert_eq!(
        env.hook("gemini", "BeforeAgent", b"{\"session_id\": \"6a7"),
        ""
    );
    assert_eq!(env.hook("gemini", "BeforeAgent", b"[1, 2]"), "");
    assert_eq!(hook(&env, "BeforeAgent", &json!({ "prompt": "x" })), "");
    assert_eq!(
        hook(
            &env,
            "BeforeAgent",
            &json!({ "session_id": "../../x", "prompt": "x" })
        ),
        ""
    );
    assert_eq!(
        hook(
            &env,
            "BeforeAgent",
            &json!({ "session_id": 42, "prompt": "x" })
        ),
        ""
    );
    assert_eq!(hook(&env, "SomeFutureEvent", &event("x", json!({}))), "");
    let call = event(
        "BeforeTool",
        json!({ "tool_name": "invoke_agent", "tool_input": "Count" }),
    );
    assert_eq!(hook(&env, "BeforeTool", &call), "");
    let done = event(
        "AfterTool",
        json!({ "tool_name": "invoke_agent", "tool_input": {"prompt": "Your frame is gma_../../x. Go"} }),
    );
    assert_eq!(hook(&env, "AfterTool", &done), "");
    assert_snapshot!(hook_log_lines(&log).join("\n"), @r#"
    BeforeAgent: the event's JSON is not valid JSON: EOF while parsing a string at line 1 column 19
    BeforeAgent: the event's JSON is not an object
    BeforeAgent: the event has no "session_id"
    BeforeAgent session ../../x: the session id '../../x' cannot name a frame
    BeforeAgent: the event has no "session_id"
    BeforeTool session 6a7e0ea1-3377-42f3-b0e3-33776c45d15a: invoke_agent without a "tool_input" object
    AfterTool session 6a7e0ea1-3377-42f3-b0e3-33776c45d15a: invoke_agent ended, and its prompt names no frame of ctx's (its BeforeTool was not seen)
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
    let prompt = event("BeforeAgent", json!({ "prompt": "x" }));
    assert_eq!(hook(&env, "BeforeAgent", &prompt), "");
    assert_eq!(
        env.read(".opencode/flame/state.json"),
        "{\"version\": 1, \"frames\": "
    );
    let lines = hook_log_lines(&env.path(".opencode/flame/gemini-hooks.log"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("BeforeAgent session {SESSION}: "))
            && lines[0].contains("state.json"),
        "{lines:?}"
    );
}

/// A real Gemini CLI 0.61.0 session (tests/fixtures/spent-gemini): a turn that ran a subagent.
/// Each call once, the subagent's in a session of its own below the main one; the figures are
/// Gemini CLI's own totals per role, as its `-o json` printed them (`stats.json`).
#[test]
fn a_gemini_session_is_counted_as_gemini_cli_totals_it() {
    let env = TestEnv::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spent-gemini");
    let out = env
        .ctx()
        .args(["budget", "spent", "--json", "--by", "session", "--source"])
        .arg(fixture.join(".gemini"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["problems"], json!([]));
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture.join("stats.json")).unwrap())
            .unwrap();
    let roles = &stats["gemini-2.5-pro"]["roles"];
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{doc}");
    assert_eq!(rows[0]["key"], "gm_5d0e8a34-6c1b-4f0e-9a57-2b8e4c1d7f60");
    assert_eq!(rows[0]["label"], "Delegate the count");
    assert_eq!(rows[1]["parent"], rows[0]["key"]);
    assert_eq!(rows[1]["label"], "Count the refund rows");
    for (row, role) in rows.iter().zip(["main", "subagent"]) {
        let (own, gemini) = (&row["own"], &roles[role]);
        assert_eq!(own["calls"], gemini["totalRequests"], "{role}");
        let tokens = &own["tokens"];
        assert_eq!(tokens["input"], gemini["tokens"]["input"], "{role}");
        assert_eq!(tokens["cache_read"], gemini["tokens"]["cached"], "{role}");
        assert_eq!(tokens["output"], gemini["tokens"]["candidates"], "{role}");
        assert_eq!(tokens["reasoning"], gemini["tokens"]["thoughts"], "{role}");
        assert_eq!(tokens["total"], gemini["tokens"]["total"], "{role}");
    }
}

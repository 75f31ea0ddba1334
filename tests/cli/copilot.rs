//! `ctx copilot install` (ctx's own hooks file, a user's file of that name edited in place) and
//! `ctx copilot hook EVENT` (JSON in, a flat `{"additionalContext"}` or nothing out, never a
//! failure), with the event shapes GitHub Copilot CLI 1.0.102 sends; `ctx frame … --session cp_…`
//! as the model's shell runs it; and `ctx budget spent` of a real Copilot session file.

use std::path::Path;

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::common::{TestEnv, hook_log_lines};

const HOOKS: &str = ".github/hooks/ctx.json";
const SESSION: &str = "48d3db33-1ab4-41dd-a90e-6fc088223979";
const FRAME: &str = "cp_48d3db33-1ab4-41dd-a90e-6fc088223979";
const AGENT: &str = "fbdf8e1e-e9c0-43dd-92f5-d015c71c610e";
const AGENT_FRAME: &str = "cp_fbdf8e1e-e9c0-43dd-92f5-d015c71c610e";

fn hook(env: &TestEnv, event: &str, input: &Value) -> String {
    env.hook("copilot", event, input.to_string().as_bytes())
}

/// An event as Copilot sends it: the fields every event has, and `fields`.
fn event(fields: Value) -> Value {
    let mut value = json!({
        "sessionId": SESSION,
        "timestamp": 1795949752510_i64,
        "cwd": "/x",
    });
    for (k, v) in fields.as_object().unwrap() {
        value[k] = v.clone();
    }
    value
}

/// The text an answer adds: Copilot reads only a top-level `additionalContext`.
fn context_of(answer: &str) -> String {
    let value: Value = serde_json::from_str(answer).unwrap();
    assert_eq!(value.as_object().unwrap().len(), 1, "{answer}");
    value["additionalContext"].as_str().unwrap().to_string()
}

fn frame_json(env: &TestEnv, id: &str) -> Value {
    serde_json::from_str(&env.ok(&["--json", "frame", "show", id])).unwrap()
}

#[test]
fn install_writes_ctxs_hooks_file_says_how_to_trust_and_remove_takes_it_away() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["copilot", "install"]), @r"
    exit: 0
    --- stdout
    .github/hooks/ctx.json: 7 hooks added
      + sessionStart: ctx copilot hook
      + userPromptSubmitted: ctx copilot hook
      + preToolUse: ctx copilot hook
      + subagentStart: ctx copilot hook
      + subagentStop: ctx copilot hook
      + agentStop: ctx copilot hook
      + sessionEnd: ctx copilot hook
    --- stderr
    note: Copilot runs a repository's hooks only in a folder you trust: answer yes when Copilot asks on its start here, or run `copilot --trust-folder -p PROMPT`; `ctx copilot install --global` installs hooks that run in every folder
    ");
    let file: Value = serde_json::from_str(&env.read(HOOKS)).unwrap();
    assert_eq!(file["version"], 1);
    let entry = &file["hooks"]["userPromptSubmitted"][0];
    assert_eq!(entry["type"], "command");
    assert_eq!(entry["timeoutSec"], 10);
    assert!(
        entry["bash"]
            .as_str()
            .unwrap()
            .starts_with("\"${CTX_BIN:-ctx}\" copilot hook userPromptSubmitted"),
        "{entry}"
    );
    assert_snapshot!(env.snap(&["copilot", "install"]), @r"
    exit: 0
    --- stdout
    .github/hooks/ctx.json: ctx's hooks are up to date
    --- stderr
    note: Copilot runs a repository's hooks only in a folder you trust: answer yes when Copilot asks on its start here, or run `copilot --trust-folder -p PROMPT`; `ctx copilot install --global` installs hooks that run in every folder
    ");
    assert_snapshot!(env.snap(&["copilot", "install", "--remove"]), @r"
    exit: 0
    --- stdout
    .github/hooks/ctx.json: 7 hooks removed
      - sessionStart: ctx copilot hook
      - userPromptSubmitted: ctx copilot hook
      - preToolUse: ctx copilot hook
      - subagentStart: ctx copilot hook
      - subagentStop: ctx copilot hook
      - agentStop: ctx copilot hook
      - sessionEnd: ctx copilot hook
    .github/hooks/ctx.json: removed (nothing else was in it)
    .github/hooks/: removed (left empty)
    .github/: removed (left empty)
    --- stderr
    ");
    assert!(!env.path(".github").exists());
    // A .github/ of the project's stays, with what is in it.
    env.write(".github/workflows/ci.yml", "on: push\n");
    env.ok(&["-q", "copilot", "install"]);
    env.ok(&["-q", "copilot", "install", "--remove"]);
    assert!(!env.path(".github/hooks").exists());
    assert_eq!(env.read(".github/workflows/ci.yml"), "on: push\n");
}

#[test]
fn a_users_file_of_that_name_is_kept_byte_for_byte() {
    let env = TestEnv::new();
    // A hook of the user's that mentions ctx is theirs.
    let users = "{\"version\": 1, \"hooks\": {\"agentStop\": [\n  {\"type\": \"command\", \"bash\": \"ctx copilot hook agentStop\", \"timeoutSec\": 5}\n]}}\n";
    env.write(HOOKS, users);
    env.ok(&["-q", "copilot", "install"]);
    let installed: Value = serde_json::from_str(&env.read(HOOKS)).unwrap();
    let stops = installed["hooks"]["agentStop"].as_array().unwrap();
    assert_eq!(stops.len(), 2);
    assert_eq!(stops[0]["bash"], "ctx copilot hook agentStop");
    env.ok(&["-q", "copilot", "install", "--remove"]);
    assert_eq!(env.read(HOOKS), users);
}

#[test]
fn global_install_goes_to_copilot_home_and_json_says_what_changed() {
    let env = TestEnv::new();
    let copilot_home = env.home.join("cp");
    let out = env
        .ctx()
        .env("COPILOT_HOME", &copilot_home)
        .args(["--json", "copilot", "install", "--global"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    assert!(out.stderr.is_empty(), "no note: these hooks need no trust");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = copilot_home.join("hooks/ctx.json");
    assert_eq!(doc["hooks"], file.display().to_string());
    assert_eq!(doc["added"].as_array().unwrap().len(), 7);
    assert!(file.is_file());
    assert!(!env.path(HOOKS).exists(), "the project's is untouched");
}

#[test]
fn a_file_with_comments_a_read_only_file_and_a_dangling_link_are_refused_with_nothing_written() {
    let env = TestEnv::new();
    let commented = "{\n  // mine\n  \"version\": 1\n}\n";
    env.write(HOOKS, commented);
    assert_snapshot!(env.snap(&["copilot", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.github/hooks/ctx.json: it has comments, which ctx would lose by rewriting it; nothing was changed
    hint: remove the comments (ctx edits only plain JSON), then install again
    ");
    assert_eq!(env.read(HOOKS), commented);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let users = "{\"version\": 1}\n";
        env.write(HOOKS, users);
        let path = env.path(HOOKS);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let out = env.run(&["copilot", "install"]);
        assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
        assert_eq!(env.read(HOOKS), users);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(env.path("nowhere.json"), &path).unwrap();
        let out = env.run(&["copilot", "install"]);
        assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
        assert!(
            !env.path("nowhere.json").exists(),
            "nothing written through the link"
        );
    }
}

#[test]
fn a_prompt_gets_its_frame_and_its_context_unescaped_in_copilots_answer_shape() {
    let env = TestEnv::new();
    let start = event(json!({ "source": "new", "initialPrompt": "Fix the refunds" }));
    assert_eq!(hook(&env, "sessionStart", &start), "", "no frame yet");
    let prompt = event(json!({ "prompt": "Fix the refunds\nthen the ledger" }));
    let context = context_of(&hook(&env, "userPromptSubmitted", &prompt));
    assert!(
        context.starts_with(&format!("<flame-context session=\"{FRAME}\">")),
        "{context}"
    );
    assert!(
        context.contains("<goal>Fix the refunds</goal>"),
        "{context}"
    );
    assert!(
        context.contains("--session \"cp_$COPILOT_AGENT_SESSION_ID\""),
        "{context}"
    );
    assert_eq!(frame_json(&env, FRAME)["frame"]["goal"], "Fix the refunds");
    // An unchanged context is not sent again; a tool call gets nothing.
    assert_eq!(hook(&env, "userPromptSubmitted", &prompt), "");
    let tool = event(json!({ "toolName": "bash", "toolArgs": {"command": "ls"} }));
    assert_eq!(hook(&env, "preToolUse", &tool), "");
    // A new process on a session that has a frame gets its context at once.
    let again = event(json!({ "source": "new" }));
    assert!(
        context_of(&hook(&env, "sessionStart", &again)).contains("<goal>Fix the refunds</goal>")
    );
}

#[test]
fn a_task_call_is_a_child_frame_told_its_id_and_completed_with_its_answer() {
    let env = TestEnv::new();
    hook(
        &env,
        "userPromptSubmitted",
        &event(json!({ "prompt": "Delegate" })),
    );
    let call = event(json!({
        "toolName": "task",
        "toolArgs": {"name": "audit", "description": "Audit refunds", "prompt": "Audit the refund code", "agent_type": "general-purpose", "mode": "sync"},
    }));
    assert_eq!(hook(&env, "preToolUse", &call), "");
    let start = event(json!({
        "transcriptPath": "/x/events.jsonl", "agentName": "general-purpose", "agentId": AGENT,
        "agentType": "general-purpose", "parentAgentId": SESSION,
    }));
    let context = context_of(&hook(&env, "subagentStart", &start));
    assert!(
        context.starts_with(&format!("<flame-context session=\"{AGENT_FRAME}\">")),
        "{context}"
    );
    assert!(
        context.contains(&format!(
            "Your frame is {AGENT_FRAME}. To give a sub-goal a frame of its own, run `ctx frame push --session {AGENT_FRAME} -- 'GOAL'`"
        )),
        "{context}"
    );
    let frame = frame_json(&env, AGENT_FRAME);
    assert_eq!(frame["frame"]["goal"], "Audit refunds");
    assert_eq!(frame["frame"]["parent"], FRAME);
    // The subagent's own events carry its id as their session: they open nothing.
    let own = json!({
        "sessionId": AGENT, "timestamp": 1, "cwd": "/x", "prompt": "Audit the refund code",
        "agentId": AGENT, "agentType": "general-purpose", "parentAgentId": SESSION,
    });
    assert_eq!(hook(&env, "userPromptSubmitted", &own), "");
    assert_eq!(hook(&env, "agentStop", &own), "");
    // Its shell pushes below its own frame, with the id it was told.
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
    let stop = event(json!({
        "agentId": AGENT, "agentType": "general-purpose", "agentName": "general-purpose",
        "response": "Audit done: 2 bugs.", "stopReason": "end_turn", "stop_hook_active": false,
    }));
    assert_eq!(hook(&env, "subagentStop", &stop), "");
    let frame = frame_json(&env, AGENT_FRAME);
    assert_eq!(frame["frame"]["status"], "completed");
    assert_eq!(frame["frame"]["summary"], "Audit done: 2 bugs.");
    let tree: Value = serde_json::from_str(&env.ok(&["--json", "frame", "tree"])).unwrap();
    assert_eq!(tree["roots"].as_array().unwrap().len(), 1, "{tree}");
}

/// A session file as Copilot writes it, its events chained by `parentId`.
fn session_file(events: &[(&str, Value)]) -> String {
    let mut text = String::new();
    let mut parent = Value::Null;
    for (n, (kind, data)) in events.iter().enumerate() {
        let id = format!("00000000-0000-4000-8000-{n:012}");
        let event = json!({"type": kind, "data": data, "id": id,
            "timestamp": "2026-11-29T10:55:52.712Z", "parentId": parent});
        text.push_str(&event.to_string());
        text.push('\n');
        parent = json!(id);
    }
    text
}

#[test]
fn with_turn_frames_agent_stop_closes_the_turn_with_its_answer_from_the_session_file() {
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "[frame]\nauto = \"turns\"\n");
    hook(
        &env,
        "userPromptSubmitted",
        &event(json!({ "prompt": "Migrate module m1" })),
    );
    let tree: Value = serde_json::from_str(&env.ok(&["--json", "frame", "tree"])).unwrap();
    let turn = tree["roots"][0]["children"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let file = env.path("events.jsonl");
    let stop = event(json!({
        "transcriptPath": file.display().to_string(), "stopReason": "end_turn", "stop_hook_active": false,
    }));
    env.write(
        "events.jsonl",
        session_file(&[
            ("user.message", json!({"content": "Migrate module m1"})),
            (
                "assistant.message",
                json!({"content": "Module m1 migrated.", "toolRequests": []}),
            ),
            (
                "assistant.message",
                json!({"content": "", "toolRequests": [{"name": "bash"}]}),
            ),
            (
                "hook.start",
                json!({"hookType": "agentStop", "input": {"sessionId": SESSION}}),
            ),
        ]),
    );
    assert_eq!(hook(&env, "agentStop", &stop), "");
    let frame = frame_json(&env, &turn);
    assert_eq!(frame["frame"]["status"], "completed");
    assert_eq!(frame["frame"]["summary"], "Module m1 migrated.");
}

#[test]
fn a_compactions_summary_from_the_session_file_is_recorded_once_and_the_context_sent_again() {
    let env = TestEnv::new();
    let prompt = event(json!({ "prompt": "Start the refunds" }));
    assert!(!hook(&env, "userPromptSubmitted", &prompt).is_empty());
    let compaction = json!({"success": true, "outcome": "applied", "messagesRemoved": 2,
        "summaryContent": "<summary>Refunds started.</summary>",
        "compactionTokensUsed": {"model": "gpt-4.1", "inputTokens": 13528, "outputTokens": 6}});
    env.write(
        "events.jsonl",
        session_file(&[
            ("user.message", json!({"content": "Start the refunds"})),
            ("session.compaction_complete", compaction),
        ]),
    );
    let stop = event(json!({
        "transcriptPath": env.path("events.jsonl").display().to_string(), "stopReason": "end_turn",
    }));
    assert_eq!(hook(&env, "agentStop", &stop), "");
    assert_eq!(
        frame_json(&env, FRAME)["frame"]["summary"],
        "<summary>Refunds started.</summary>"
    );
    // The next prompt gets the frame context again; a later look at the same compaction
    // records nothing over what the frame says now.
    let context = context_of(&hook(
        &env,
        "userPromptSubmitted",
        &event(json!({ "prompt": "Next" })),
    ));
    assert!(context.contains("<flame-context"), "{context}");
    // Its model call is in no usage record: budget spent counts it from the event.
    let spent: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "budget",
        "spent",
        "--by",
        "model",
        "--source",
        "events.jsonl",
    ]))
    .unwrap();
    assert_eq!(spent["total"]["calls"], 1, "{spent}");
    assert_eq!(spent["total"]["tokens"]["input"], 13528, "{spent}");
    env.ok(&["frame", "edit", FRAME, "--summary", "Refunds half done."]);
    assert_eq!(hook(&env, "agentStop", &stop), "");
    assert_eq!(
        frame_json(&env, FRAME)["frame"]["summary"],
        "Refunds half done."
    );
}

#[test]
fn a_compaction_written_after_agent_stop_is_recorded_at_the_next_prompt() {
    // A compaction still running when a -p run ends, Copilot applies at the end, after agentStop:
    // the next prompt, whose event names no session file, finds it through the session's id.
    let env = TestEnv::new();
    assert!(
        !hook(
            &env,
            "userPromptSubmitted",
            &event(json!({ "prompt": "Start the refunds" }))
        )
        .is_empty()
    );
    let dir = env.home.join(".copilot/session-state").join(SESSION);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("events.jsonl");
    std::fs::write(
        &file,
        session_file(&[("user.message", json!({"content": "Start the refunds"}))]),
    )
    .unwrap();
    let stop = event(json!({
        "transcriptPath": file.display().to_string(), "stopReason": "end_turn",
    }));
    assert_eq!(hook(&env, "agentStop", &stop), "");
    assert_eq!(frame_json(&env, FRAME)["frame"]["summary"], Value::Null);
    std::fs::write(
        &file,
        session_file(&[
            ("user.message", json!({"content": "Start the refunds"})),
            (
                "session.compaction_complete",
                json!({"success": true, "outcome": "applied",
                "summaryContent": "<summary>Refunds started.</summary>"}),
            ),
        ]),
    )
    .unwrap();
    let context = context_of(&hook(
        &env,
        "userPromptSubmitted",
        &event(json!({ "prompt": "Next" })),
    ));
    assert_eq!(
        frame_json(&env, FRAME)["frame"]["summary"],
        "<summary>Refunds started.</summary>"
    );
    assert!(context.contains("<flame-context"), "{context}");
}

/// A finished shell call as Copilot writes it: the model's message with the call, then its result
/// (what the command printed, and the line Copilot ends a finished command's output with).
fn shell_call(id: &str, command: &str, printed: &str) -> [(&'static str, Value); 2] {
    [
        (
            "assistant.message",
            json!({"content": "", "model": "gpt-4.1", "toolRequests": [{"toolCallId": id,
                "name": "bash", "arguments": {"command": command, "description": "run"}}]}),
        ),
        (
            "tool.execution_complete",
            json!({"toolCallId": id, "success": true, "result": {"content":
                format!("{printed}\n<shellId: 0 completed with exit code 0>")}}),
        ),
    ]
}

#[test]
fn session_end_appends_a_compaction_of_the_conversation_with_the_popped_frame_folded() {
    let env = TestEnv::new();
    hook(
        &env,
        "userPromptSubmitted",
        &event(json!({ "prompt": "Refunds" })),
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
    let mut events = vec![("user.message", json!({"content": "Refunds"}))];
    events.extend(shell_call(
        "call_1",
        &format!("ctx frame push --session {FRAME} -- 'List the refunds'"),
        pushed,
    ));
    events.extend(shell_call("call_2", "printf BULKY_OUTPUT", "BULKY_OUTPUT"));
    // A subagent's events are its own conversation's, not the main agent's.
    let mut subagent = shell_call("call_9", "printf SUBAGENT_OUTPUT", "SUBAGENT_OUTPUT");
    for (_, data) in &mut subagent {
        data["parentToolCallId"] = json!("call_x");
    }
    events.extend(shell_call(
        "call_3",
        &format!("ctx frame pop --session {FRAME} --summary 'Listed: 12 pending'"),
        FRAME,
    ));
    events.push((
        "assistant.message",
        json!({"content": "Listed them.", "model": "gpt-4.1", "toolRequests": []}),
    ));
    events.push((
        "hook.start",
        json!({"hookType": "sessionEnd", "input": {"sessionId": SESSION}}),
    ));
    let mut text = session_file(&events);
    for (kind, data) in &subagent {
        text.push_str(
            &json!({"type": kind, "data": data, "id": "s", "agentId": AGENT}).to_string(),
        );
        text.push('\n');
    }
    let dir = env.home.join(".copilot/session-state").join(SESSION);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("events.jsonl");
    std::fs::write(&file, &text).unwrap();
    let end = event(json!({ "reason": "complete" }));
    assert_eq!(hook(&env, "sessionEnd", &end), "");
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(after.starts_with(&text), "every line Copilot wrote stays");
    let appended: Vec<Value> = after[text.len()..]
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(appended.len(), 2, "{appended:?}");
    assert_eq!(appended[0]["type"], "session.compaction_start");
    assert_eq!(appended[0]["data"]["model"], "gpt-4.1");
    assert_eq!(appended[1]["type"], "session.compaction_complete");
    assert_eq!(appended[1]["parentId"], appended[0]["id"]);
    let data = &appended[1]["data"];
    assert_eq!(data["success"], true);
    assert_eq!(data["outcome"], "applied");
    assert_eq!(
        data["compactionAttemptId"],
        appended[0]["data"]["compactionAttemptId"]
    );
    let summary = data["summaryContent"].as_str().unwrap();
    assert!(!summary.contains("BULKY_OUTPUT"), "{summary}");
    assert!(!summary.contains("SUBAGENT_OUTPUT"), "{summary}");
    assert!(
        summary.contains(&format!(
            "Frame {pushed} (List the refunds) completed, folded"
        )),
        "{summary}"
    );
    for kept in [
        "<user_message>\nRefunds\n</user_message>",
        "<assistant_message>\nListed them.\n</assistant_message>",
    ] {
        assert!(summary.contains(kept), "{kept} in {summary}");
    }
    // What the fold took out is in the frame's log, where its entry sends the model.
    let log = env.read(&format!(".opencode/flame/logs/frame-{pushed}.md"));
    assert!(log.contains("BULKY_OUTPUT"), "{log}");
    // A resumed conversation holds the person's messages as typed, without the frame context:
    // the next prompt gets it again.
    let context = context_of(&hook(
        &env,
        "userPromptSubmitted",
        &event(json!({ "prompt": "Next" })),
    ));
    assert!(context.contains("<flame-context"), "{context}");
    // ctx's own compaction is no summary of Copilot's to record on the frame.
    assert_eq!(frame_json(&env, FRAME)["frame"]["summary"], Value::Null);
    // Nothing new to fold: a second end appends nothing.
    assert_eq!(hook(&env, "sessionEnd", &end), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), after);
    // copilot.fold = off: nothing appended.
    std::fs::write(&file, &text).unwrap();
    env.write(".opencode/ctx.toml", "[copilot]\nfold = \"off\"\n");
    assert_eq!(hook(&env, "sessionEnd", &end), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn a_session_the_fold_cannot_rebuild_is_left_as_it_is_and_logged() {
    let env = TestEnv::new();
    hook(
        &env,
        "userPromptSubmitted",
        &event(json!({ "prompt": "Refunds" })),
    );
    let pushed = env.ok(&["frame", "push", "--session", FRAME, "--", "Ledger"]);
    env.ok(&["frame", "pop", "--session", FRAME, "--summary", "Done"]);
    let mut popped = vec![("user.message", json!({"content": "Refunds"}))];
    popped.extend(shell_call(
        "call_1",
        &format!("ctx frame push --session {FRAME} -- 'Ledger'"),
        pushed.trim(),
    ));
    popped.extend(shell_call(
        "call_2",
        &format!("ctx frame pop --session {FRAME} --summary 'Done'"),
        FRAME,
    ));
    let dir = env.home.join(".copilot/session-state").join(SESSION);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("events.jsonl");
    let end = event(json!({ "reason": "complete" }));
    let with = |problem: (&'static str, Value)| {
        let mut events = popped.clone();
        events.push(problem);
        events.push((
            "hook.start",
            json!({"hookType": "sessionEnd", "input": {"sessionId": SESSION}}),
        ));
        session_file(&events)
    };
    let cases = [
        (
            with((
                "session.truncation",
                json!({"messagesRemovedDuringTruncation": 3}),
            )),
            "Copilot cut its history (session.truncation)",
        ),
        (
            with((
                "session.compaction_start",
                json!({"compactionAttemptId": "a1", "trigger": "threshold"}),
            )),
            "a compaction Copilot runs is not finished",
        ),
        (
            "{\"type\":\"user.message\"\n".to_string(),
            "line 1 is not a JSON object",
        ),
    ];
    for (text, why) in cases {
        std::fs::write(&file, &text).unwrap();
        assert_eq!(hook(&env, "sessionEnd", &end), "");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        let lines = hook_log_lines(&env.path(".opencode/flame/copilot-hooks.log"));
        assert!(
            lines
                .iter()
                .any(|l| l.contains("left as it is") && l.contains(why)),
            "{why}: {lines:?}"
        );
    }
}

#[test]
fn a_shell_without_the_session_variable_is_refused() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["frame", "push", "--session", "cp_", "--", "x"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: --session cp_ names no GitHub Copilot CLI session: COPILOT_AGENT_SESSION_ID is empty or unset in this shell
    hint: run it in the shell GitHub Copilot CLI gives the model, where COPILOT_AGENT_SESSION_ID is set, or name the session in full: --session cp_<session id>
    ");
    assert!(
        !env.path(".opencode/flame/state.json").exists(),
        "nothing written"
    );
}

#[test]
fn bad_input_is_a_log_line_and_a_silent_exit_0() {
    let env = TestEnv::new();
    let log = env.home.join(".copilot/ctx-hooks.log");
    assert_eq!(
        env.hook("copilot", "userPromptSubmitted", b"{\"sessionId\": \"48d"),
        ""
    );
    assert_eq!(env.hook("copilot", "userPromptSubmitted", b"[1, 2]"), "");
    assert_eq!(
        hook(&env, "userPromptSubmitted", &json!({ "prompt": "x" })),
        ""
    );
    assert_eq!(
        hook(
            &env,
            "userPromptSubmitted",
            &json!({ "sessionId": "../../x", "prompt": "x" })
        ),
        ""
    );
    assert_eq!(
        hook(
            &env,
            "userPromptSubmitted",
            &json!({ "sessionId": 42, "prompt": "x" })
        ),
        ""
    );
    assert_eq!(hook(&env, "someFutureEvent", &event(json!({}))), "");
    let start = event(json!({ "agentId": "../up", "agentType": "general-purpose" }));
    assert_eq!(hook(&env, "subagentStart", &start), "");
    assert_snapshot!(hook_log_lines(&log).join("\n"), @r#"
    userPromptSubmitted: the event's JSON is not valid JSON: EOF while parsing a string at line 1 column 18
    userPromptSubmitted: the event's JSON is not an object
    userPromptSubmitted: the event has no "session_id"
    userPromptSubmitted session ../../x: the session id '../../x' cannot name a frame
    userPromptSubmitted: the event has no "session_id"
    subagentStart session 48d3db33-1ab4-41dd-a90e-6fc088223979: the agent id '../up' cannot name a frame
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
    let prompt = event(json!({ "prompt": "x" }));
    assert_eq!(hook(&env, "userPromptSubmitted", &prompt), "");
    assert_eq!(
        env.read(".opencode/flame/state.json"),
        "{\"version\": 1, \"frames\": "
    );
    let lines = hook_log_lines(&env.path(".opencode/flame/copilot-hooks.log"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("userPromptSubmitted session {SESSION}: "))
            && lines[0].contains("state.json"),
        "{lines:?}"
    );
}

/// A real Copilot 1.0.102 session (tests/fixtures/spent-copilot): a turn that ran a subagent, then
/// a second process (`--resume`). Each call once, the subagent's in a session of its own below the
/// main one; the figures are the totals of Copilot's own last `session.shutdown` event.
#[test]
fn a_copilot_session_is_counted_as_copilot_totals_it() {
    let env = TestEnv::new();
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spent-copilot/.copilot");
    let out = env
        .ctx()
        .args(["budget", "spent", "--json", "--by", "session", "--source"])
        .arg(&home)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["problems"], json!([]));
    let file = std::fs::read_dir(home.join("session-state"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("events.jsonl");
    let text = std::fs::read_to_string(file).unwrap();
    let shutdown: Value = text
        .lines()
        .rev()
        .find(|l| l.contains("\"session.shutdown\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .unwrap();
    let copilot = &shutdown["data"]["modelMetrics"]["gpt-4.1"];
    let total = &doc["total"];
    assert_eq!(total["calls"], copilot["requests"]["count"]);
    let tokens = &total["tokens"];
    let sum = |keys: &[&str]| {
        keys.iter()
            .map(|k| tokens[k].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(
        sum(&["input", "cache_read", "cache_write"]),
        copilot["usage"]["inputTokens"].as_u64().unwrap()
    );
    assert_eq!(
        sum(&["output", "reasoning"]),
        copilot["usage"]["outputTokens"].as_u64().unwrap()
    );
    assert_eq!(tokens["cache_read"], copilot["usage"]["cacheReadTokens"]);
    assert_eq!(tokens["reasoning"], copilot["usage"]["reasoningTokens"]);
    let rows: Vec<(String, Value, String)> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                r["own"]["calls"].clone(),
                r["label"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                "cp_5d01c38e-0e57-4dac-88b5-c83e52a2f967".to_string(),
                json!(3),
                "Delegate the audit".to_string()
            ),
            (
                "cp_789d7ec7-da72-4cf3-b963-b9cda79bd5e0".to_string(),
                json!(2),
                "Audit refunds".to_string()
            ),
        ]
    );
}

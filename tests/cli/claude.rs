//! `ctx claude install` (ctx's hooks merged into Claude Code's settings, taken out again) and
//! `ctx claude hook EVENT` (one hook call: JSON in, an answer or nothing out, never a failure).

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::common::{TestEnv, hook_log_lines};

const SETTINGS: &str = ".claude/settings.json";
const SESSION: &str = "d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b";
const FRAME: &str = "cc_d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b";

fn settings(env: &TestEnv) -> Value {
    serde_json::from_str(&env.read(SETTINGS)).unwrap()
}

#[test]
fn install_adds_every_hook_and_the_slash_commands_once() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["claude", "install"]), @r"
    exit: 0
    --- stdout
    .claude/settings.json: 12 hooks added
      + SessionStart: ctx claude hook
      + UserPromptSubmit: ctx claude hook
      + PreToolUse: ctx claude hook
      + PostToolUse: ctx claude hook
      + PostToolUseFailure: ctx claude hook
      + SubagentStart: ctx claude hook
      + SubagentStop: ctx claude hook
      + PreCompact: ctx claude hook
      + PostCompact: ctx claude hook
      + Stop: ctx claude hook
      + SessionEnd: ctx claude hook
      + UserPromptExpansion: ctx claude hook
    .claude/commands/push.md: written
    .claude/commands/pop.md: written
    .claude/commands/status.md: written
    .claude/commands/plan.md: written
    .claude/commands/frame.md: written
    .claude/agents/ctx-frame.md: written
    --- stderr
    ");
    let hooks = &settings(&env)["hooks"];
    assert_eq!(hooks["PreToolUse"][0]["matcher"], "Agent|Bash");
    assert_eq!(hooks["PostToolUse"][0]["matcher"], "TaskCreate|TaskUpdate");
    assert_eq!(
        hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .split(" 2>")
            .next(),
        Some("\"${CTX_BIN:-ctx}\" claude hook UserPromptSubmit")
    );
    let before = env.read(SETTINGS);
    assert_snapshot!(env.snap(&["claude", "install"]), @r"
    exit: 0
    --- stdout
    .claude/settings.json: ctx's hooks are up to date
    .claude/commands/push.md: up to date
    .claude/commands/pop.md: up to date
    .claude/commands/status.md: up to date
    .claude/commands/plan.md: up to date
    .claude/commands/frame.md: up to date
    .claude/agents/ctx-frame.md: up to date
    --- stderr
    ");
    assert_eq!(env.read(SETTINGS), before);
}

#[test]
fn the_users_keys_and_hooks_survive_install_and_remove() {
    let env = TestEnv::new();
    let user = r#"{
  "model": "opus",
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "./my-hook.sh"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Bash(npm test)"
    ]
  }
}
"#;
    env.write(SETTINGS, user);
    env.ok(&["claude", "install"]);
    let installed = settings(&env);
    assert_eq!(installed["model"], "opus");
    assert_eq!(installed["permissions"]["allow"][0], "Bash(npm test)");
    let prompt_hooks = installed["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(prompt_hooks.len(), 2);
    assert_eq!(prompt_hooks[0]["hooks"][0]["command"], "./my-hook.sh");
    // An edited slash command is the user's now: --remove keeps it.
    env.write(".claude/commands/plan.md", "my own /plan\n");
    let out = env.run(&["claude", "install", "--remove"]);
    assert_snapshot!(env.render(&out), @r"
    exit: 1
    --- stdout
    .claude/settings.json: 12 hooks removed
      - UserPromptSubmit: ctx claude hook
      - SessionStart: ctx claude hook
      - PreToolUse: ctx claude hook
      - PostToolUse: ctx claude hook
      - PostToolUseFailure: ctx claude hook
      - SubagentStart: ctx claude hook
      - SubagentStop: ctx claude hook
      - PreCompact: ctx claude hook
      - PostCompact: ctx claude hook
      - Stop: ctx claude hook
      - SessionEnd: ctx claude hook
      - UserPromptExpansion: ctx claude hook
    .claude/commands/push.md: removed
    .claude/commands/pop.md: removed
    .claude/commands/status.md: removed
    .claude/commands/plan.md: kept: changed since ctx wrote it
    .claude/commands/frame.md: removed
    .claude/agents/ctx-frame.md: removed
    .claude/agents/: removed (left empty)
    --- stderr
    error: some slash commands were changed since ctx wrote them and were kept
    hint: delete them by hand if you no longer want them
    ");
    assert_eq!(env.read(SETTINGS), user, "the user's file, byte for byte");
    assert_eq!(env.read(".claude/commands/plan.md"), "my own /plan\n");
    assert!(!env.path(".claude/commands/push.md").exists());
}

#[test]
fn dry_run_writes_nothing() {
    let env = TestEnv::new();
    let out = env.ok(&["claude", "install", "--dry-run"]);
    assert!(
        out.starts_with(".claude/settings.json: 12 hooks would be added\n"),
        "{out}"
    );
    assert!(out.contains(".claude/commands/push.md: would be written"));
    assert!(!env.path(".claude").exists());
    // The same as one JSON document (checked against schemas/claude-install.schema.json).
    let doc: Value =
        serde_json::from_str(&env.ok(&["--json", "claude", "install", "--dry-run"])).unwrap();
    assert_eq!(doc["settings_changed"], true);
    assert_eq!(doc["dry_run"], true);
    assert_eq!(doc["added"].as_array().unwrap().len(), 12);
    assert_eq!(doc["files"][0]["action"], "written");
    assert!(!env.path(".claude").exists());
}

#[test]
fn global_installs_into_the_users_claude_folder() {
    let env = TestEnv::new();
    env.ok(&["claude", "install", "--global"]);
    let text = std::fs::read_to_string(env.home.join(".claude/settings.json")).unwrap();
    assert!(text.contains("claude hook SubagentStart"));
    assert!(env.home.join(".claude/commands/pop.md").exists());
    assert!(!env.path(".claude").exists());
}

#[test]
fn a_settings_file_that_is_not_json_or_has_comments_is_refused_and_left_alone() {
    let env = TestEnv::new();
    env.write(SETTINGS, "{\"model\": \"opus\",\n");
    assert_snapshot!(env.snap(&["claude", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.claude/settings.json: it is not valid JSON: unexpected end of input inside an object at line 2, column 1; nothing was changed
    hint: fix the file, or move it aside, then install again
    ");
    assert_eq!(env.read(SETTINGS), "{\"model\": \"opus\",\n");
    assert!(!env.path(".claude/commands").exists(), "nothing written");

    let commented = "{\n  // my model\n  \"model\": \"opus\"\n}\n";
    env.write(SETTINGS, commented);
    assert_snapshot!(env.snap(&["claude", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.claude/settings.json: it has comments, which ctx would lose by rewriting it; nothing was changed
    hint: remove the comments (Claude Code reads plain JSON), or add the hooks by hand: `ctx claude install --dry-run` shows them
    ");
    assert_eq!(env.read(SETTINGS), commented);
    env.write(SETTINGS, "[]");
    assert_eq!(
        env.run(&["claude", "install", "--remove"]).status.code(),
        Some(1)
    );
}

#[cfg(unix)]
#[test]
fn a_linked_settings_file_is_written_through_and_stays_a_link() {
    let env = TestEnv::new();
    let dotfiles = env.temp().join("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("claude.json"), "{\"model\": \"opus\"}\n").unwrap();
    std::fs::create_dir_all(env.path(".claude")).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("claude.json"), env.path(SETTINGS)).unwrap();
    env.ok(&["claude", "install"]);
    let meta = std::fs::symlink_metadata(env.path(SETTINGS)).unwrap();
    assert!(meta.file_type().is_symlink(), "the link stays");
    let target = std::fs::read_to_string(dotfiles.join("claude.json")).unwrap();
    assert!(target.contains("\"model\": \"opus\"") && target.contains("claude hook"));
}

// ---- hook mode ----------------------------------------------------------------------------------

/// Runs `ctx claude hook EVENT` with `input` on stdin; returns stdout after checking that the
/// call exited 0 and printed nothing on stderr, whatever happened.
fn hook(env: &TestEnv, event: &str, input: &Value) -> String {
    hook_raw(env, event, input.to_string().as_bytes())
}

fn hook_raw(env: &TestEnv, event: &str, input: &[u8]) -> String {
    env.hook("claude", event, input)
}

fn event(fields: Value) -> Value {
    let mut value = json!({ "session_id": SESSION, "cwd": "/x", "hook_event_name": "E" });
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

#[test]
fn a_prompt_gets_its_frame_and_the_context_only_when_it_changed() {
    let env = TestEnv::new();
    let answer = hook(
        &env,
        "UserPromptSubmit",
        &event(json!({ "prompt": "\n  Fix the login bug\nand more", "unknown_new_field": [1] })),
    );
    let value: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(
        value["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    assert_snapshot!(context_of(&answer), @r#"
    <flame-context session="cc_d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b">
      <metadata>
        <budget total="4000" ancestors="1500" siblings="1500" current="800" />
      </metadata>
      <current-frame id="cc_d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b" status="in_progress">
        <goal>Fix the login bug</goal>
      </current-frame>
    </flame-context>
    When a sub-goal takes many tool calls whose outputs you will not need afterwards, give it a frame of its own as a fork: the Agent tool with subagent_type "fork" and run_in_background false (what /push does); only its report comes back, its outputs stay in the frame's log. A fork cannot fork nor ask the user: for that, use Bash, `ctx frame push -- '<goal>' && <first command>`, then `ctx frame pop --summary '<what was achieved>' && <next command>` (the pop alone when nothing follows, never with a push).
    "#);
    let prompt = event(json!({ "prompt": "go on" }));
    assert_eq!(hook(&env, "UserPromptSubmit", &prompt), "", "unchanged");
    // The model pushes through Bash, with CTX_SESSION from the env file.
    let mut push = env.ctx();
    push.env("CTX_SESSION", FRAME)
        .args(["frame", "push", "--", "Session tokens"])
        .assert()
        .success();
    assert!(
        context_of(&hook(&env, "UserPromptSubmit", &prompt))
            .contains("<goal>Session tokens</goal>")
    );
    assert_eq!(hook(&env, "UserPromptSubmit", &prompt), "");
    // After a compaction it is added again, whatever changed.
    let again = hook(&env, "SessionStart", &event(json!({ "source": "compact" })));
    assert!(context_of(&again).contains("Session tokens"));
}

#[test]
fn session_start_names_the_session_for_the_models_bash_commands_once() {
    let env = TestEnv::new();
    let file = env.temp().join("sessionstart-hook-0.sh");
    std::fs::write(&file, "export OTHER=1").unwrap();
    for _ in 0..2 {
        let out = env
            .ctx()
            .env("CLAUDE_ENV_FILE", &file)
            .args(["claude", "hook", "SessionStart"])
            .write_stdin(event(json!({ "source": "startup" })).to_string())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!("export OTHER=1\nexport CTX_SESSION={FRAME}\n")
    );
}

/// The PreToolUse event of an `Agent` call.
fn agent_call(id: &str, description: &str, agent_type: &str) -> Value {
    event(json!({
        "tool_name": "Agent", "tool_use_id": id,
        "tool_input": { "description": description, "prompt": "p", "subagent_type": agent_type },
    }))
}

/// The SubagentStart event of agent `agent`, in the session whose transcript is `transcript`
/// (its `.meta.json`, when a test writes one, is below it).
fn agent_start(agent: &str, agent_type: &str, transcript: &std::path::Path) -> Value {
    event(json!({
        "agent_id": agent, "agent_type": agent_type,
        "transcript_path": transcript.to_str().unwrap(),
    }))
}

/// The `.meta.json` Claude Code writes beside subagent `agent`'s transcript.
fn write_agent_meta(transcript: &std::path::Path, agent: &str, call: &str, description: &str) {
    let agents = transcript.with_extension("").join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let meta =
        json!({ "agentType": "general-purpose", "description": description, "toolUseId": call });
    std::fs::write(
        agents.join(format!("agent-{agent}.meta.json")),
        meta.to_string(),
    )
    .unwrap();
}

/// `(id, goal, parent)` of frame `id`.
fn goal_and_parent(env: &TestEnv, id: &str) -> (String, String) {
    let frame: Value = serde_json::from_str(&env.ok(&["--json", "frame", "show", id])).unwrap();
    (
        frame["frame"]["goal"].as_str().unwrap().to_string(),
        frame["frame"]["parent"].as_str().unwrap_or("").to_string(),
    )
}

/// The `toolUseId`s of the session's Agent calls still waiting for their subagents.
fn waiting_calls(env: &TestEnv) -> Vec<String> {
    let state: Value = serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap();
    state["claudeSessions"][FRAME]["agentCalls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|c| c["toolUseId"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Rewrites the state's waiting calls with `edit`, as an earlier process would have left them.
fn edit_waiting_calls(env: &TestEnv, edit: impl FnOnce(&mut Vec<Value>)) {
    let mut state: Value = serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap();
    let calls = state["claudeSessions"][FRAME]["agentCalls"]
        .as_array_mut()
        .unwrap();
    edit(calls);
    env.write(
        ".opencode/flame/state.json",
        serde_json::to_string_pretty(&state).unwrap(),
    );
}

#[test]
fn subagents_are_child_frames_paired_with_their_agent_call() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event(json!({ "prompt": "Audit" })),
    );
    let transcript = env.temp().join(format!("{SESSION}.jsonl"));
    let agents = env.temp().join(SESSION).join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    let call = |id, description| agent_call(id, description, "general-purpose");
    let start = |agent| agent_start(agent, "general-purpose", &transcript);
    assert_eq!(
        hook(&env, "PreToolUse", &call("toolu_1", "Audit refunds")),
        ""
    );
    let first = context_of(&hook(&env, "SubagentStart", &start("a1")));
    assert!(
        first.contains(r#"<flame-context session="cca_a1">"#),
        "{first}"
    );
    assert!(first.contains("<goal>Audit refunds</goal>"), "{first}");
    assert_eq!(
        hook(&env, "PreToolUse", &call("toolu_2", "Check invoices")),
        ""
    );
    let second = context_of(&hook(&env, "SubagentStart", &start("a2")));
    assert!(second.contains("<goal>Check invoices</goal>"), "{second}");

    // a1 ends with its result; its transcript (one line cut short) goes into the log.
    let agent_transcript = agents.join("agent-a1.jsonl");
    std::fs::write(
        &agent_transcript,
        concat!(
            r#"{"type":"user","message":{"role":"user","content":"AUDIT_NOW"},"timestamp":"2026-11-25T17:37:47.443Z"}"#,
            "\n{\"type\":\"assistant\",\"mess\n"
        ),
    )
    .unwrap();
    let stop = event(json!({
        "agent_id": "a1", "agent_type": "general-purpose",
        "agent_transcript_path": agent_transcript.to_str().unwrap(),
        "last_assistant_message": "3 issues found.",
    }));
    assert_eq!(hook(&env, "SubagentStop", &stop), "");
    let log = env.read(".opencode/flame/logs/frame-cca_a1.md");
    assert!(log.contains("## Summary\n\n3 issues found."), "{log}");
    assert!(
        log.contains("AUDIT_NOW") && log.contains("### Assistant"),
        "{log}"
    );
    // a2 is interrupted: its Agent call fails.
    let failure = event(json!({
        "tool_name": "Agent", "tool_use_id": "toolu_2", "error": "Interrupted by user", "is_interrupt": true,
    }));
    assert_eq!(hook(&env, "PostToolUseFailure", &failure), "");
    let tree = env.ok(&["frame", "tree", "--details"]);
    assert_snapshot!(tree, @r"
    → Audit (cc_d8b23)
    ├── ✓ Audit refunds (cca_a1)
    │       summary: 3 issues found.
    │       log: logs/frame-cca_a1.md
    └── ! Check invoices (cca_a2)
            summary: The Agent call failed: Interrupted by user
            log: logs/frame-cca_a2.md

    3 frames: 1 → in_progress, 1 ✓ completed, 1 ! blocked
    ");
    // A second stop for the same subagent changes nothing.
    assert_eq!(hook(&env, "SubagentStop", &stop), "");
    assert!(!env.path(".opencode/flame/claude-hooks.log").exists());
}

#[test]
fn parallel_subagents_of_one_type_each_take_the_call_their_meta_file_names() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event(json!({ "prompt": "Audit" })),
    );
    let transcript = env.temp().join(format!("{SESSION}.jsonl"));
    // A subagent starts three more side by side: each call's PreToolUse comes before any of
    // their subagents starts, and they start in another order than their calls.
    hook(
        &env,
        "PreToolUse",
        &agent_call("toolu_0", "Audit billing", "general-purpose"),
    );
    hook(
        &env,
        "SubagentStart",
        &agent_start("a0", "general-purpose", &transcript),
    );
    let calls = [
        ("toolu_1", "a1", "Audit refunds"),
        ("toolu_2", "a2", "Check invoices"),
        ("toolu_3", "a3", "Read the ledger"),
    ];
    for (call, _, description) in calls {
        let mut pre = agent_call(call, description, "general-purpose");
        pre["agent_id"] = json!("a0");
        assert_eq!(hook(&env, "PreToolUse", &pre), "");
    }
    for (call, agent, description) in calls {
        write_agent_meta(&transcript, agent, call, description);
    }
    for agent in ["a3", "a1", "a2"] {
        hook(
            &env,
            "SubagentStart",
            &agent_start(agent, "general-purpose", &transcript),
        );
    }
    for (_, agent, description) in calls {
        assert_eq!(
            goal_and_parent(&env, &format!("cca_{agent}")),
            (description.to_string(), "cca_a0".to_string()),
            "{agent}"
        );
    }
    assert_eq!(waiting_calls(&env), Vec::<String>::new());
    assert!(!env.path(".opencode/flame/claude-hooks.log").exists());
}

#[test]
fn parallel_subagents_without_meta_files_take_their_calls_in_order_and_the_guess_is_logged() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event(json!({ "prompt": "Audit" })),
    );
    let transcript = env.temp().join(format!("{SESSION}.jsonl"));
    let calls = [
        ("toolu_1", "a1", "Audit refunds"),
        ("toolu_2", "a2", "Check invoices"),
        ("toolu_3", "a3", "Read the ledger"),
    ];
    // Each PreToolUse notes its call at once, though calls of its type wait.
    for (call, _, description) in calls {
        assert_eq!(
            hook(
                &env,
                "PreToolUse",
                &agent_call(call, description, "general-purpose")
            ),
            ""
        );
    }
    assert_eq!(waiting_calls(&env), ["toolu_1", "toolu_2", "toolu_3"]);
    for (_, agent, _) in calls {
        hook(
            &env,
            "SubagentStart",
            &agent_start(agent, "general-purpose", &transcript),
        );
    }
    for (_, agent, description) in calls {
        assert_eq!(
            goal_and_parent(&env, &format!("cca_{agent}")),
            (description.to_string(), FRAME.to_string()),
            "{agent}"
        );
    }
    assert_snapshot!(hook_log_lines(&env.path(".opencode/flame/claude-hooks.log")).join("\n"), @r#"
    SubagentStart session d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b: guessed that subagent cca_a1 (general-purpose) is call toolu_1 "Audit refunds": the oldest of the 3 calls of its type waiting, and no event names its own
    SubagentStart session d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b: guessed that subagent cca_a2 (general-purpose) is call toolu_2 "Check invoices": the oldest of the 2 calls of its type waiting, and no event names its own
    "#);
}

#[test]
fn an_agent_call_that_failed_before_its_subagent_started_is_forgotten() {
    let env = TestEnv::new();
    let transcript = env.temp().join(format!("{SESSION}.jsonl"));
    // A permission denied the first call: it fails, and no subagent starts for it.
    hook(
        &env,
        "PreToolUse",
        &agent_call("toolu_1", "Denied work", "general-purpose"),
    );
    let failure = event(json!({
        "tool_name": "Agent", "tool_use_id": "toolu_1", "error": "Permission denied", "is_interrupt": false,
    }));
    assert_eq!(hook(&env, "PostToolUseFailure", &failure), "");
    assert_eq!(waiting_calls(&env), Vec::<String>::new());
    hook(
        &env,
        "PreToolUse",
        &agent_call("toolu_2", "Check invoices", "general-purpose"),
    );
    let context = context_of(&hook(
        &env,
        "SubagentStart",
        &agent_start("a2", "general-purpose", &transcript),
    ));
    assert!(context.contains("<goal>Check invoices</goal>"), "{context}");
    assert!(!env.path(".opencode/flame/claude-hooks.log").exists());
}

#[test]
fn an_agent_call_whose_subagent_never_started_is_dropped_when_old_and_logged() {
    let env = TestEnv::new();
    let transcript = env.temp().join(format!("{SESSION}.jsonl"));
    // A call no event ever ended, noted an hour ago.
    hook(
        &env,
        "PreToolUse",
        &agent_call("toolu_1", "Denied work", "general-purpose"),
    );
    edit_waiting_calls(&env, |calls| {
        let at = calls[0]["at"]
            .as_i64()
            .expect("a call notes when it was made");
        calls[0]["at"] = json!(at - 3_600_000);
    });
    hook(
        &env,
        "PreToolUse",
        &agent_call("toolu_2", "Check invoices", "general-purpose"),
    );
    assert_eq!(waiting_calls(&env), ["toolu_2"]);
    let context = context_of(&hook(
        &env,
        "SubagentStart",
        &agent_start("a2", "general-purpose", &transcript),
    ));
    assert!(context.contains("<goal>Check invoices</goal>"), "{context}");
    assert_snapshot!(hook_log_lines(&env.path(".opencode/flame/claude-hooks.log")).join("\n"), @r#"PreToolUse session d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b: dropped call toolu_1 "Denied work" (general-purpose): no subagent started for it within 10 min"#);
}

#[test]
fn waiting_agent_calls_are_bounded_the_oldest_dropped_and_logged() {
    let env = TestEnv::new();
    hook(
        &env,
        "PreToolUse",
        &agent_call("toolu_0", "Work 0", "general-purpose"),
    );
    // As many calls as are kept wait already.
    edit_waiting_calls(&env, |calls| {
        let first = calls[0].clone();
        for n in 1..64 {
            let mut call = first.clone();
            call["toolUseId"] = json!(format!("toolu_{n}"));
            call["description"] = json!(format!("Work {n}"));
            calls.push(call);
        }
    });
    hook(
        &env,
        "PreToolUse",
        &agent_call("toolu_64", "Work 64", "Explore"),
    );
    let waiting = waiting_calls(&env);
    assert_eq!(
        (waiting.len(), waiting[0].as_str(), waiting[63].as_str()),
        (64, "toolu_1", "toolu_64")
    );
    assert_snapshot!(hook_log_lines(&env.path(".opencode/flame/claude-hooks.log")).join("\n"), @r#"PreToolUse session d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b: dropped call toolu_0 "Work 0" (general-purpose): more than 64 calls wait for their subagents"#);
}

#[test]
fn a_frame_popped_through_bash_logs_its_span_of_the_session_transcript() {
    let env = TestEnv::new();
    let transcript = env.temp().join(format!("{SESSION}.jsonl"));
    let before = r#"{"type":"user","message":{"role":"user","content":"BEFORE_THE_PUSH"},"timestamp":"2000-01-01T00:00:00.000Z"}"#;
    std::fs::write(&transcript, format!("{before}\n")).unwrap();
    let prompt =
        event(json!({ "prompt": "Refunds", "transcript_path": transcript.to_str().unwrap() }));
    hook(&env, "UserPromptSubmit", &prompt);
    let mut push = env.ctx();
    push.env("CTX_SESSION", FRAME)
        .args(["frame", "push", "--", "Refund work"])
        .assert()
        .success();
    // What the model did after the push, as Claude Code writes it (times after the push).
    let span = [
        r#"{"type":"assistant","uuid":"u1","message":{"id":"m1","content":[{"type":"thinking","thinking":"List them first."}]},"timestamp":"2099-01-01T00:00:01.000Z"}"#,
        r#"{"type":"assistant","uuid":"u2","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"printf 'REFUND_%s' LIST"}}]},"timestamp":"2099-01-01T00:00:01.000Z"}"#,
        r#"{"type":"user","uuid":"u3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"REFUND_LIST\u001b[0m0123456789"}]},"timestamp":"2099-01-01T00:00:02.000Z"}"#,
        r#"{"type":"assistant","uuid":"u4","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"false"}}]},"timestamp":"2099-01-01T00:00:03.000Z"}"#,
        r#"{"type":"user","uuid":"u5","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"Exit code 1"}]},"timestamp":"2099-01-01T00:00:04.000Z"}"#,
    ];
    std::fs::write(&transcript, format!("{before}\n{}\n", span.join("\n"))).unwrap();
    let mut pop = env.ctx();
    pop.env("CTX_SESSION", FRAME)
        .env("CTX_FRAME_LOG_OUTPUT_MAX", "16")
        .args(["frame", "pop", "--summary", "Refunds done"])
        .assert()
        .success();
    let tree: Value = serde_json::from_str(&env.ok(&["--json", "frame", "tree"])).unwrap();
    let id = tree["roots"][0]["children"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let log = env.read(&format!(".opencode/flame/logs/frame-{id}.md"));
    assert!(log.contains("(reasoning) List them first."), "{log}");
    assert!(
        log.contains("REFUND_LIST\\x1b[0m0\n```"),
        "the output, escaped: {log}"
    );
    assert!(
        log.contains("[output cut: 9 of 25 bytes left out (frame.log.output_max = 16)]"),
        "{log}"
    );
    assert!(
        log.contains("Error:") && log.contains("Exit code 1"),
        "{log}"
    );
    assert!(!log.contains("BEFORE_THE_PUSH"), "only the span: {log}");
}

#[test]
fn compaction_gets_the_frame_context_and_its_summary_lands_on_the_frame() {
    let env = TestEnv::new();
    assert_eq!(
        hook(&env, "PreCompact", &event(json!({ "trigger": "manual" }))),
        ""
    );
    hook(
        &env,
        "UserPromptSubmit",
        &event(json!({ "prompt": "Refactor billing" })),
    );
    let text = hook(&env, "PreCompact", &event(json!({ "trigger": "manual" })));
    assert!(text.starts_with("<flame-context session=\"cc_"), "{text}");
    assert!(text.contains("Keep in your summary, verbatim, the id of the current frame"));
    let summary = event(json!({ "trigger": "manual", "compact_summary": "Billing split in two." }));
    assert_eq!(hook(&env, "PostCompact", &summary), "");
    let shown = env.ok(&["frame", "show", "--frame", FRAME, "--json"]);
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown["frame"]["summary"], "Billing split in two.");
}

#[test]
fn bad_input_is_a_log_line_and_a_silent_exit_0() {
    let env = TestEnv::new();
    let log = env.home.join(".claude/ctx-hooks.log");
    assert_eq!(
        hook_raw(&env, "UserPromptSubmit", b"{\"session_id\": \"d8b2"),
        ""
    );
    assert_eq!(hook_raw(&env, "UserPromptSubmit", b"not json"), "");
    assert_eq!(hook_raw(&env, "UserPromptSubmit", b"[1, 2]"), "");
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
    assert_eq!(hook(&env, "SomeFutureEvent", &event(json!({}))), "");
    let stop = event(
        json!({ "agent_id": "a9", "agent_type": "general-purpose", "last_assistant_message": "x" }),
    );
    assert_eq!(hook(&env, "SubagentStop", &stop), "");
    assert_snapshot!(hook_log_lines(&log).join("\n"), @r#"
    UserPromptSubmit: the event's JSON is not valid JSON: EOF while parsing a string at line 1 column 20
    UserPromptSubmit: the event's JSON is not valid JSON: expected ident at line 1 column 2
    UserPromptSubmit: the event's JSON is not an object
    UserPromptSubmit: the event has no "session_id"
    UserPromptSubmit session ../../x: the session id '../../x' cannot name a frame
    SubagentStop session d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b: SubagentStop for cca_a9, which has no frame (its SubagentStart was not seen)
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
    assert_eq!(
        hook(&env, "UserPromptSubmit", &event(json!({ "prompt": "x" }))),
        ""
    );
    assert_eq!(
        env.read(".opencode/flame/state.json"),
        "{\"version\": 1, \"frames\": "
    );
    let lines = hook_log_lines(&env.path(".opencode/flame/claude-hooks.log"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("UserPromptSubmit session {SESSION}: "))
            && lines[0].contains("state.json"),
        "{lines:?}"
    );
}

// ---- cost from transcripts ----------------------------------------------------------------------

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claude");

/// A project holding the frames of tests/fixtures/claude (made by make.sh there) and a copy of
/// its transcripts as Claude Code's folder (`HOME/.claude/projects/`).
fn cost_fixture() -> TestEnv {
    let env = TestEnv::new();
    env.write(
        ".opencode/flame/state.json",
        std::fs::read(format!("{FIXTURE}/project/.opencode/flame/state.json")).unwrap(),
    );
    copy_dir(
        std::path::Path::new(&format!("{FIXTURE}/projects")),
        &env.home.join(".claude/projects"),
    );
    env
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn spent_json(env: &TestEnv, extra: &[&str]) -> Value {
    let source = env.home.join(".claude/projects");
    let mut args = vec![
        "--json",
        "budget",
        "spent",
        "--source",
        source.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&env.ok(&args)).unwrap()
}

fn spent_row<'a>(doc: &'a Value, key: &str) -> &'a Value {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == key)
        .unwrap_or_else(|| panic!("no row {key}: {doc:#}"))
}

#[test]
fn transcripts_count_each_response_once_and_roll_subagents_into_their_frames() {
    let env = cost_fixture();
    let doc = spent_json(&env, &["--by", "session"]);
    let sessions: Vec<(&str, Option<&str>)> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["key"].as_str().unwrap(), r["parent"].as_str()))
        .collect();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    let (main, agent) = (sessions[0].0, sessions[1].0);
    assert!(main.starts_with("cc_") && agent.starts_with("cca_"));
    assert_eq!(
        sessions[1].1,
        Some(main),
        "the subagent is under its session"
    );
    // make.sh's script: four main responses and one subagent response.
    let tokens = &spent_row(&doc, main)["total"]["tokens"];
    assert_eq!(tokens["input"], 1200 + 1400 + 500 + 1600 + 1700);
    assert_eq!(tokens["output"], 40 + 30 + 12 + 25 + 8);
    assert_eq!(tokens["cache_read"], 300 + 1500 + 100 + 1800 + 2000);
    assert_eq!(tokens["cache_write"], 50 + 20);
    assert_eq!(spent_row(&doc, main)["total"]["calls"], 5);
    assert_eq!(spent_row(&doc, agent)["own"]["calls"], 1);
    // By frame: the frame the model pushed holds the subagent's frame and its cost.
    let frames = spent_json(&env, &[]);
    let pushed = frames["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"] == "Refund work")
        .unwrap();
    let subagent = spent_row(&frames, agent);
    assert_eq!(subagent["parent"], pushed["key"]);
    assert_eq!(subagent["total"]["tokens"]["total"], 500 + 12 + 100 + 20);
    assert_eq!(
        pushed["total"]["tokens"]["total"],
        (1400 + 30 + 1500) + (1600 + 25 + 1800) + (500 + 12 + 100 + 20)
    );
    // Without --source: the project's transcripts, found by its path, when they are there.
    let dir_name: String = env
        .root
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let projects = env.home.join(".claude/projects");
    let recorded = std::fs::read_dir(&projects)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::rename(recorded, projects.join(dir_name)).unwrap();
    let default: Value =
        serde_json::from_str(&env.ok(&["--json", "budget", "spent", "--by", "session"])).unwrap();
    assert_eq!(default["sources"][0]["kind"], "claude-transcripts");
    assert_eq!(default["total"], doc["total"]);
}

#[test]
fn transcripts_are_priced_from_the_models_cache_and_bad_lines_are_reported() {
    let env = cost_fixture();
    env.write(
        "../home/.cache/opencode/models.json",
        json!({ "anthropic": { "models": { "claude-opus-5-5": { "cost": {
            "input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25 } } } } })
        .to_string(),
    );
    let doc = spent_json(&env, &[]);
    let expected = (6400.0 * 5.0 + 115.0 * 25.0 + 5700.0 * 0.5 + 70.0 * 6.25) / 1e6;
    let cost = doc["total"]["cost"].as_f64().unwrap();
    assert!((cost - expected).abs() < 1e-12, "{cost} {expected}");
    // A line cut short is skipped and said so; the other lines still count.
    let agent = walk_files(&env.home.join(".claude/projects"))
        .into_iter()
        .find(|p| {
            p.to_string_lossy().contains("agent-") && p.extension().is_some_and(|e| e == "jsonl")
        })
        .unwrap();
    // A line cut short, and bytes that are not UTF-8 in a prompt: each said, as for pi's and
    // Codex's files.
    let mut bytes = std::fs::read(&agent).unwrap();
    bytes.extend_from_slice(
        b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}\n",
    );
    bytes.extend_from_slice(b"{\"type\":\"assistant\",\"mess\n");
    std::fs::write(&agent, bytes).unwrap();
    let source = env.home.join(".claude/projects");
    let out = env.run(&["budget", "spent", "--source", source.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 line(s) are not JSON; skipped"),
        "{stderr}"
    );
    assert!(
        stderr.contains("not UTF-8; read with U+FFFD in place of the bad bytes"),
        "{stderr}"
    );
    assert_eq!(spent_json(&env, &[])["total"]["calls"], 5);
}

fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk_files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Per session (subagents included, as ccusage counts them), every token figure equals
/// `ccusage session --json`'s on the same transcripts.
#[test]
fn sessions_match_ccusage_on_claude_transcripts() {
    let Some(ccusage) = crate::common::ccusage() else {
        return;
    };
    let env = cost_fixture();
    let peer = crate::common::ccusage_json(
        &ccusage,
        &["session", "--json", "--offline"],
        &[
            ("CLAUDE_CONFIG_DIR", &env.home.join(".claude")),
            ("HOME", &env.home),
        ],
    );
    let doc = spent_json(&env, &["--by", "session"]);
    let peer_rows = peer["session"].as_array().unwrap();
    assert_eq!(peer_rows.len(), 1, "{peer:#}");
    for theirs in peer_rows {
        let key = format!("cc_{}", theirs["period"].as_str().unwrap());
        let t = &spent_row(&doc, &key)["total"]["tokens"];
        let output = t["output"].as_u64().unwrap() + t["reasoning"].as_u64().unwrap();
        assert_eq!(theirs["inputTokens"], t["input"], "{theirs:#}");
        assert_eq!(theirs["outputTokens"], output, "{theirs:#}");
        assert_eq!(theirs["cacheReadTokens"], t["cache_read"], "{theirs:#}");
        assert_eq!(
            theirs["cacheCreationTokens"], t["cache_write"],
            "{theirs:#}"
        );
        assert_eq!(theirs["totalTokens"], t["total"], "{theirs:#}");
    }
}

#[test]
fn a_subagent_started_by_a_subagent_is_a_child_of_its_frame() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event(json!({ "prompt": "Audit" })),
    );
    let call = |id: &str, description: &str, caller: Option<&str>| {
        let mut value = event(json!({
            "tool_name": "Agent", "tool_use_id": id,
            "tool_input": { "description": description, "prompt": "p", "subagent_type": "general-purpose" },
        }));
        if let Some(caller) = caller {
            value["agent_id"] = json!(caller);
        }
        assert_eq!(hook(&env, "PreToolUse", &value), "");
    };
    let start = |agent: &str| {
        let start = event(json!({ "agent_id": agent, "agent_type": "general-purpose" }));
        context_of(&hook(&env, "SubagentStart", &start))
    };
    call("toolu_1", "Audit refunds", None);
    start("a1");
    call("toolu_2", "Check one refund", Some("a1"));
    let nested = start("a2");
    assert!(nested.contains("<goal>Check one refund</goal>"), "{nested}");
    assert_snapshot!(env.ok(&["frame", "tree"]), @r"
    → Audit (cc_d8b23)
    └── → Audit refunds (cca_a1)
        └── → Check one refund (cca_a2)

    3 frames: 3 → in_progress
    ");
}

#[test]
fn a_subagents_own_ctx_commands_act_on_its_frame() {
    let env = TestEnv::new();
    hook(
        &env,
        "UserPromptSubmit",
        &event(json!({ "prompt": "Audit" })),
    );
    let start = event(json!({ "agent_id": "a1", "agent_type": "general-purpose" }));
    hook(&env, "SubagentStart", &start);
    let bash = |command: &str, agent: Option<&str>| {
        let mut value = event(json!({
            "tool_name": "Bash", "tool_use_id": "toolu_9",
            "tool_input": { "command": command, "description": "push" },
        }));
        if let Some(agent) = agent {
            value["agent_id"] = json!(agent);
        }
        hook(&env, "PreToolUse", &value)
    };
    let answer: Value =
        serde_json::from_str(&bash("ctx frame push -- 'Sub work'", Some("a1"))).unwrap();
    assert_eq!(
        answer,
        json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "updatedInput": {
            "command": "export CTX_SESSION=cca_a1\nctx frame push -- 'Sub work'", "description": "push" } } })
    );
    // The command as rewritten pushes under the subagent's frame.
    let mut push = env.ctx();
    push.env("CTX_SESSION", "cca_a1")
        .args(["frame", "push", "--", "Sub work"])
        .assert()
        .success();
    let tree: Value = serde_json::from_str(&env.ok(&["--json", "frame", "tree"])).unwrap();
    let agent = &tree["roots"][0]["children"][0];
    assert_eq!(agent["id"], "cca_a1");
    assert_eq!(agent["children"][0]["goal"], "Sub work");
    assert_eq!(bash("ls", Some("a1")), "", "not a ctx command");
    assert_eq!(bash("ctx frame tree", None), "", "the session's own Bash");
    assert_eq!(
        bash("ctx frame tree", Some("a9")),
        "",
        "a subagent without a frame"
    );
}

#[test]
fn the_typed_forked_command_names_its_workers_frame() {
    let env = TestEnv::new();
    let expansion = event(json!({
        "expansion_type": "slash_command", "command_name": "frame",
        "command_args": "  Check the invoices\nin detail", "prompt": "/frame Check the invoices",
    }));
    assert_eq!(hook(&env, "UserPromptExpansion", &expansion), "");
    // Another command's expansion notes nothing.
    let other = event(json!({ "command_name": "review", "command_args": "x" }));
    assert_eq!(hook(&env, "UserPromptExpansion", &other), "");
    let start = event(json!({ "agent_id": "a1", "agent_type": "ctx-frame" }));
    let context = context_of(&hook(&env, "SubagentStart", &start));
    assert!(
        context.contains("<goal>Check the invoices</goal>"),
        "{context}"
    );
}

#[test]
fn a_new_conversation_of_a_framed_session_gets_its_context_again() {
    let env = TestEnv::new();
    let startup = event(json!({ "source": "startup" }));
    assert_eq!(hook(&env, "SessionStart", &startup), "", "no frame yet");
    hook(
        &env,
        "UserPromptSubmit",
        &event(json!({ "prompt": "Refactor billing" })),
    );
    // The same session id in a new conversation (/clear, --session-id): nothing was added there.
    let again = hook(&env, "SessionStart", &event(json!({ "source": "clear" })));
    assert!(
        context_of(&again).contains("<goal>Refactor billing</goal>"),
        "{again}"
    );
    let resume = event(json!({ "source": "resume" }));
    assert_eq!(
        hook(&env, "SessionStart", &resume),
        "",
        "a resumed conversation holds it"
    );
}

/// `$CLAUDE_CONFIG_DIR` moves Claude Code's folder: install --global, the hooks' fallback log
/// (ctx's and the shell line's) and `budget spent` all follow it.
#[test]
fn claude_config_dir_is_claude_codes_folder_for_install_hooks_and_cost() {
    let env = cost_fixture();
    let config = env.temp().join("claude-config");
    let run = |args: &[&str], stdin: &[u8]| {
        env.ctx()
            .env("CLAUDE_CONFIG_DIR", &config)
            .args(args)
            .write_stdin(stdin)
            .output()
            .unwrap()
    };
    let out = run(&["claude", "install", "--global"], b"");
    assert!(out.status.success(), "{}", env.render(&out));
    let settings = std::fs::read_to_string(config.join("settings.json")).unwrap();
    assert!(!env.home.join(".claude/settings.json").exists());
    // The shell line that logs when ctx cannot run writes there too.
    assert!(
        settings.contains(r#">>\"${CLAUDE_CONFIG_DIR:-$HOME/.claude}/ctx-hooks.log\""#),
        "{settings}"
    );
    std::fs::remove_dir_all(env.path(".opencode/flame")).unwrap();
    let out = run(&["claude", "hook", "UserPromptSubmit"], b"not json");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        hook_log_lines(&config.join("ctx-hooks.log")),
        ["UserPromptSubmit: the event's JSON is not valid JSON: expected ident at line 1 column 2"]
    );
    // budget spent reads the project's transcripts below it.
    let name = env
        .root
        .to_string_lossy()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    copy_dir(
        &env.home
            .join(".claude/projects")
            .join("-tmp-tmp-8uZDqZg4O3-billing"),
        &config.join("projects").join(name),
    );
    let out = run(&["--json", "budget", "spent", "--by", "session"], b"");
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"]["calls"], 5, "{doc:#}");
}

/// Java's `String.hashCode` of `text`, the hash Claude Code names long project folders with.
fn java_hash(text: &str) -> i32 {
    text.encode_utf16()
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)))
}

/// A project whose path is over 200 characters: Claude Code cuts its folder's name and adds a
/// hash, and ctx finds the folder by that name.
#[test]
fn a_long_project_path_finds_the_transcripts_claude_code_keeps_for_it() {
    let env = cost_fixture();
    let long = env.temp().join("a-long-folder-name-".repeat(12));
    std::fs::create_dir_all(long.join(".opencode")).unwrap();
    let path = long.to_string_lossy().to_string();
    let cut: String = path
        .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
        .chars()
        .take(200)
        .collect();
    let name = format!(
        "{cut}-{}",
        to_base36(i64::from(java_hash(&path)).unsigned_abs())
    );
    let projects = env.home.join(".claude/projects");
    std::fs::rename(
        projects.join("-tmp-tmp-8uZDqZg4O3-billing"),
        projects.join(&name),
    )
    .unwrap();
    let out = env
        .ctx()
        .args(["-C", &path, "--json", "budget", "spent", "--by", "session"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["sources"][0]["path"],
        projects.join(&name).to_string_lossy().as_ref()
    );
    assert_eq!(doc["total"]["calls"], 5, "{doc:#}");
}

fn to_base36(mut n: u64) -> String {
    let mut digits = Vec::new();
    loop {
        digits.push(std::char::from_digit((n % 36) as u32, 36).unwrap());
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}

/// The session id Claude Code shows (`18fc7f49…`) names its session as well as ctx's `cc_…`.
#[test]
fn a_claude_code_session_is_selected_by_its_own_id() {
    let env = cost_fixture();
    let full = "cc_18fc7f49-0da9-4ed1-8bd8-2f291c79f1e6";
    for arg in [
        "18fc7f49",
        "18fc7f49-0da9-4ed1-8bd8-2f291c79f1e6",
        "cc_18fc",
        full,
    ] {
        let doc = spent_json(&env, &["--by", "session", "--session", arg]);
        assert_eq!(doc["session"], full, "{arg}");
        assert_eq!(doc["total"]["calls"], 5, "{arg}");
    }
    let doc = spent_json(&env, &["--by", "session", "--session", "a0f342ad"]);
    assert_eq!(doc["session"], "cca_a0f342ad186009990");
}

/// The original of a folded transcript, kept beside it, repeats its responses: within one source
/// that is how the folder is written, and each is counted once without a word.
#[test]
fn a_kept_original_beside_its_folded_transcript_counts_once_and_quietly() {
    let env = cost_fixture();
    let file = env.home.join(
        ".claude/projects/-tmp-tmp-8uZDqZg4O3-billing/18fc7f49-0da9-4ed1-8bd8-2f291c79f1e6.jsonl",
    );
    let once = spent_json(&env, &["--by", "session"]);
    let kept = file.with_extension("").join("ctx-fold-1764230400000.jsonl");
    std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::fs::copy(&file, &kept).unwrap();
    let with_kept = spent_json(&env, &["--by", "session"]);
    assert_eq!(with_kept["total"], once["total"]);
    assert_eq!(with_kept["problems"], json!([]));
}

/// A folder of transcripts and one of its files: each response counted once, by its message id
/// and request id; a usage count that is not one is named.
#[test]
fn a_transcript_given_twice_counts_each_response_once() {
    let env = cost_fixture();
    let folder = env.home.join(".claude/projects");
    let file =
        folder.join("-tmp-tmp-8uZDqZg4O3-billing/18fc7f49-0da9-4ed1-8bd8-2f291c79f1e6.jsonl");
    let once = spent_json(&env, &["--by", "session"]);
    let twice = spent_json(
        &env,
        &["--by", "session", "--source", file.to_str().unwrap()],
    );
    assert_eq!(twice["total"], once["total"]);
    assert_eq!(
        twice["problems"],
        json!([format!(
            "{}: 4 call(s) were read from another source already; counted once",
            file.display()
        )])
    );
    // On every line of the response: its last line's usage is the one counted.
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"output_tokens\":40", "\"output_tokens\":1e30");
    assert!(text.contains("1e30"));
    std::fs::write(&file, text).unwrap();
    let doc = spent_json(&env, &["--by", "session"]);
    let problems = doc["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p
            .as_str()
            .unwrap()
            .ends_with(": output_tokens 1e+30 is not a token count; taken as 0")),
        "{doc:#}"
    );
}

//! Todo frames in Claude Code and Codex (`frame.auto = "todos"` or `"all"`): the frames the hooks
//! open and close from Claude Code's `TaskCreate`/`TaskUpdate` and Codex's `update_plan`, seen in
//! PostToolUse once each call ran, fed in the order the agents send them (autoframes.md §3.2, §4);
//! and how the SessionEnd folds fold them.

use serde_json::{Value, json};

use crate::common::{TestEnv, hook_log_lines};
use crate::turns::{
    FRAME, SESSION, THREAD_FRAME, assert_whole, call_line, claude, codex, codex_calls_and_outputs,
    codex_rollout, env_with, result_line, rollout_record, session_current, stamped, state,
    text_line, turns,
};

/// The todo frames in the state (`"auto": "todo"`), in the order they opened.
fn items(env: &TestEnv) -> Vec<Value> {
    state(env)["frames"]
        .as_object()
        .unwrap()
        .values()
        .filter(|f| f["auto"] == "todo")
        .cloned()
        .collect()
}

fn id(frame: &Value) -> String {
    frame["sessionID"].as_str().unwrap().to_string()
}

/// A Claude Code session's transcript, written the way Claude Code writes it, line by line, and
/// the hook events that go with it.
struct Claude<'e> {
    env: &'e TestEnv,
    path: std::path::PathBuf,
    text: String,
    /// The uuid of the last line, the parent of the next.
    last: String,
    calls: u32,
}

impl<'e> Claude<'e> {
    fn new(env: &'e TestEnv) -> Claude<'e> {
        let dir = env.home.join(".claude/projects/-x");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{SESSION}.jsonl"));
        std::fs::write(&path, "").unwrap();
        Claude {
            env,
            path,
            text: String::new(),
            last: String::new(),
            calls: 0,
        }
    }

    fn append(&mut self, line: String, uuid: &str) {
        self.text.push_str(&line);
        self.last = uuid.to_string();
        std::fs::write(&self.path, &self.text).unwrap();
    }

    fn event(&self, name: &str, mut fields: Value) -> String {
        fields["transcript_path"] = Value::from(self.path.to_str().unwrap());
        fields["cwd"] = Value::from(self.env.root.to_str().unwrap());
        claude(self.env, name, fields)
    }

    fn prompt(&mut self, n: u32, prompt: &str) {
        let uuid = format!("p{n}");
        let parent = self.last.clone();
        self.append(text_line("user", &uuid, &parent, prompt), &uuid);
        self.event(
            "UserPromptSubmit",
            json!({"prompt": prompt, "prompt_id": format!("id{n}")}),
        );
    }

    /// A Bash call and its result.
    fn bash(&mut self, command: &str, output: &str) {
        self.calls += 1;
        let (call, result, tool) = (
            format!("c{}", self.calls),
            format!("r{}", self.calls),
            format!("t{}", self.calls),
        );
        let parent = self.last.clone();
        self.append(call_line(&call, &parent, &tool, command), &call);
        self.append(result_line(&result, &call, &tool, output), &result);
    }

    /// A task tool call, its result, and its PostToolUse.
    fn task(&mut self, tool: &str, input: Value, response: Value) -> String {
        self.calls += 1;
        let (call, result, tool_id) = (
            format!("c{}", self.calls),
            format!("r{}", self.calls),
            format!("t{}", self.calls),
        );
        let parent = self.last.clone();
        self.append(
            stamped(
                json!({"type": "assistant", "uuid": call, "parentUuid": parent,
                "message": {"id": format!("m_{call}"), "role": "assistant", "content": [
                    {"type": "tool_use", "id": tool_id, "name": tool, "input": input}]}}),
            ),
            &call,
        );
        self.append(
            stamped(json!({"type": "user", "uuid": result, "parentUuid": call,
                "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": tool_id, "content": "Updated"}]}, "toolUseResult": response})),
            &result,
        );
        std::thread::sleep(std::time::Duration::from_millis(3));
        self.event(
            "PostToolUse",
            json!({"tool_name": tool, "tool_input": input, "tool_response": response,
                   "tool_use_id": tool_id}),
        )
    }

    fn create(&mut self, task: &str, subject: &str) {
        self.task(
            "TaskCreate",
            json!({"subject": subject, "description": "…"}),
            json!({"task": {"id": task, "subject": subject}}),
        );
    }

    fn set(&mut self, task: &str, from: &str, to: &str) {
        self.task(
            "TaskUpdate",
            json!({"taskId": task, "status": to}),
            json!({"success": true, "taskId": task, "updatedFields": ["status"],
                   "statusChange": {"from": from, "to": to}}),
        );
    }

    fn say(&mut self, text: &str) {
        self.calls += 1;
        let uuid = format!("a{}", self.calls);
        let parent = self.last.clone();
        self.append(text_line("assistant", &uuid, &parent, text), &uuid);
    }

    fn stop(&self, n: u32, answer: &str) {
        std::thread::sleep(std::time::Duration::from_millis(3));
        self.event(
            "Stop",
            json!({"prompt_id": format!("id{n}"), "last_assistant_message": answer}),
        );
    }

    fn end(&self) -> String {
        self.event("SessionEnd", json!({"reason": "other"}));
        std::fs::read_to_string(&self.path).unwrap()
    }
}

/// A task going in progress opens a frame under the person's turn, named by the task's subject;
/// going completed closes it with a summary made from its span (the last text, the commands) and
/// its outputs in its log; a task still running at the turn's Stop closes as blocked with its own
/// span. At SessionEnd the items fold with their turn, and their logs keep every output.
#[test]
fn claude_tasks_are_frames_in_their_turn_and_fold_with_it() {
    let env = env_with("all");
    let mut session = Claude::new(&env);
    session.prompt(1, "Migrate the modules");
    let turn = id(&turns(&env)[0]);
    session.create("1", "Migrate module m1");
    assert!(
        items(&env).is_empty(),
        "a created task is pending: no frame"
    );
    session.set("1", "pending", "in_progress");
    let [first] = <[Value; 1]>::try_from(items(&env)).unwrap();
    assert_eq!(first["goal"], "Migrate module m1");
    assert_eq!(first["status"], "in_progress");
    assert_eq!(first["parentSessionID"], turn.as_str());
    assert_eq!(first["todo_item"], "1");
    assert_eq!(session_current(&env, FRAME), id(&first).as_str());
    let tree = env.ok(&["frame", "tree", "--ascii"]);
    assert!(
        tree.lines()
            .any(|l| l.contains("Migrate module m1") && l.ends_with(" todo")),
        "{tree}"
    );

    session.bash("cargo build -p m1", &"M1_BUILD_OUTPUT ".repeat(400));
    session.say("Module m1 is migrated.");
    session.set("1", "in_progress", "completed");
    let first = &items(&env)[0];
    assert_eq!(first["status"], "completed");
    let summary = first["compactionSummary"].as_str().unwrap();
    assert!(summary.starts_with("Module m1 is migrated."), "{summary}");
    assert!(
        summary.contains("`cargo build -p m1` (completed)"),
        "{summary}"
    );
    assert!(
        env.ok(&["frame", "log", &id(first)])
            .contains("M1_BUILD_OUTPUT")
    );
    assert_eq!(session_current(&env, FRAME), turn.as_str());

    session.create("2", "Migrate module m2");
    session.set("2", "pending", "in_progress");
    session.bash("cargo build -p m2", &"M2_BUILD_OUTPUT ".repeat(400));
    session.say("Half of m2 done; the rest next time.");
    session.stop(1, "Half of m2 done; the rest next time.");
    let [_, second] = <[Value; 2]>::try_from(items(&env)).unwrap();
    assert_eq!(second["status"], "blocked");
    let summary = second["compactionSummary"].as_str().unwrap();
    assert!(
        summary.starts_with("The turn ended before the item was finished.\n\nHalf of m2 done"),
        "{summary}"
    );
    assert!(
        env.ok(&["frame", "log", &id(&second)])
            .contains("M2_BUILD_OUTPUT")
    );
    assert_eq!(turns(&env)[0]["status"], "completed");

    let before = std::fs::read_to_string(&session.path).unwrap();
    let after = session.end();
    assert!(
        after.len() < before.len() / 2,
        "{} of {}",
        after.len(),
        before.len()
    );
    assert!(!after.contains("M1_BUILD_OUTPUT") && !after.contains("M2_BUILD_OUTPUT"));
    assert!(after.contains(&format!("[ctx] Turn {turn} (Migrate the modules) folded")));
    assert!(
        !after.contains("[ctx] Item "),
        "the items fold with their turn"
    );
    assert!(
        after.contains("Module m1 is migrated."),
        "the model's text stays"
    );
    assert_whole(&after);
    for item in items(&env) {
        let log = env.ok(&["frame", "log", &id(&item)]);
        assert!(log.contains("_BUILD_OUTPUT"), "{log}");
    }
    assert!(env.ok(&["frame", "log", &turn]).contains("M1_BUILD_OUTPUT"));
}

/// With `frame.auto = "todos"` there are no turn frames: a task's frame opens under the session's
/// frame and, once closed, folds at SessionEnd on its own; a task still in progress when the
/// process ends stays open, and its outputs stay in the transcript.
#[test]
fn claude_tasks_alone_fold_each_closed_task_and_leave_a_running_one() {
    let env = env_with("todos");
    let mut session = Claude::new(&env);
    session.prompt(1, "Migrate the modules");
    assert!(turns(&env).is_empty());
    session.create("1", "Migrate module m1");
    session.set("1", "pending", "in_progress");
    let item = id(&items(&env)[0]);
    assert_eq!(items(&env)[0]["parentSessionID"], FRAME);
    session.bash("ls", "LISTING");
    session.bash("cat m1.rs", &"M1_SOURCE ".repeat(400));
    session.set("1", "in_progress", "completed");
    session.create("2", "Migrate module m2");
    session.set("2", "pending", "in_progress");
    session.bash("cat m2.rs", &"M2_SOURCE ".repeat(400));
    session.stop(1, "m1 done, m2 under way");
    let after = session.end();
    assert!(after.contains(&format!(
        "[ctx] Item {item} (Migrate module m1) folded: 3 tool outputs of this item left out; \
         `ctx frame log {item}` gives them all back."
    )));
    assert!(!after.contains("M1_SOURCE"));
    assert!(
        after.contains("M2_SOURCE"),
        "the running task's output stays"
    );
    assert_eq!(items(&env)[1]["status"], "in_progress");
    assert_whole(&after);
    assert!(env.ok(&["frame", "log", &item]).contains("M1_SOURCE"));
}

/// A task call ctx cannot read, a subagent's task calls, and `frame.auto = "off"` change nothing
/// and log nothing; a task whose TaskCreate ctx never saw is named by its id; a deleted task and
/// one set back to pending close as blocked, saying so; a task with a frame pushed in it waits
/// for that frame, and closes at the next update after it was popped.
#[test]
fn claude_task_bad_input_and_edge_cases() {
    let env = TestEnv::new();
    let mut session = Claude::new(&env);
    session.prompt(1, "Work");
    let before = env.read(".opencode/flame/state.json");
    session.create("1", "Migrate module m1");
    session.set("1", "pending", "in_progress");
    assert_eq!(env.read(".opencode/flame/state.json"), before, "off");

    let env = env_with("all");
    let mut session = Claude::new(&env);
    session.prompt(1, "Work");
    for (input, response) in [
        (json!({"taskId": ["1"], "status": "in_progress"}), json!({})),
        (json!("not an object"), json!("Updated task #1")),
        (Value::Null, Value::Null),
    ] {
        assert_eq!(session.task("TaskUpdate", input, response), "");
    }
    assert_eq!(
        session.task("TaskCreate", json!({}), json!({"task": 7})),
        ""
    );
    // A subagent's own task calls are its frame's business.
    session.event(
        "PostToolUse",
        json!({"tool_name": "TaskUpdate", "agent_id": "a1",
               "tool_input": {"taskId": "9", "status": "in_progress"},
               "tool_response": {"statusChange": {"from": "pending", "to": "in_progress"}}}),
    );
    assert!(items(&env).is_empty());
    assert!(!env.path(".opencode/flame/claude-hooks.log").exists());

    // ctx installed mid-session: the task's subject is not known.
    session.set("7", "pending", "in_progress");
    assert_eq!(items(&env)[0]["goal"], "Task #7");
    session.set("7", "in_progress", "deleted");
    assert_eq!(items(&env)[0]["status"], "blocked");
    assert!(
        items(&env)[0]["compactionSummary"]
            .as_str()
            .unwrap()
            .starts_with("The item was deleted.")
    );
    session.create("8", "Check the ledger");
    session.set("8", "pending", "in_progress");
    session.set("8", "in_progress", "pending");
    assert!(
        items(&env)[1]["compactionSummary"]
            .as_str()
            .unwrap()
            .starts_with("The item was set to pending before it was finished.")
    );

    session.set("8", "pending", "in_progress");
    let item = id(&items(&env)[2]);
    let pushed = env
        .ctx()
        .env("CTX_SESSION", FRAME)
        .args(["frame", "push", "--", "Ledger by hand"])
        .output()
        .unwrap();
    assert!(pushed.status.success(), "{}", env.render(&pushed));
    let explicit = String::from_utf8(pushed.stdout).unwrap();
    let explicit = explicit.split_whitespace().next().unwrap();
    assert_eq!(
        state(&env)["frames"][explicit]["parentSessionID"],
        item.as_str(),
        "a push inside an item goes under it"
    );
    session.set("8", "in_progress", "completed");
    assert_eq!(
        items(&env)[2]["status"],
        "in_progress",
        "waits for its frame"
    );
    let log = hook_log_lines(&env.path(".opencode/flame/claude-hooks.log"));
    assert!(
        log.iter()
            .any(|l| l.contains(&format!("item frame {item} waits for {explicit}"))),
        "{log:?}"
    );
    let popped = env
        .ctx()
        .env("CTX_SESSION", FRAME)
        .args(["frame", "pop", "--summary", "Ledger checked"])
        .output()
        .unwrap();
    assert!(popped.status.success(), "{}", env.render(&popped));
    session.create("9", "Next");
    assert_eq!(
        items(&env)[2]["status"],
        "in_progress",
        "a task of its own only"
    );
    session.set("8", "completed", "completed");
    assert_eq!(items(&env)[2]["status"], "completed");
}

/// Appends `records` to the rollout at `path`.
fn append(path: &std::path::Path, records: &[String]) {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(records.concat().as_bytes()).unwrap();
}

/// An `update_plan` call in the rollout, with its PostToolUse.
fn plan(env: &TestEnv, path: &std::path::Path, call: &str, steps: &[(&str, &str)]) {
    let plan: Vec<Value> = steps
        .iter()
        .map(|(step, status)| json!({"step": step, "status": status}))
        .collect();
    let input = json!({"plan": plan});
    append(
        path,
        &[
            rollout_record(
                "response_item",
                json!({"type": "function_call", "name": "update_plan",
                       "arguments": input.to_string(), "call_id": call}),
            ),
            rollout_record(
                "response_item",
                json!({"type": "function_call_output", "call_id": call, "output": "Plan updated"}),
            ),
        ],
    );
    std::thread::sleep(std::time::Duration::from_millis(3));
    codex(
        env,
        "PostToolUse",
        json!({"turn_id": "t1", "tool_name": "update_plan", "tool_input": input,
               "tool_response": "Plan updated", "tool_use_id": call,
               "transcript_path": path, "cwd": env.root}),
    );
}

/// A shell call in the rollout with its output.
fn exec(path: &std::path::Path, call: &str, cmd: &str, output: &str) {
    append(
        path,
        &[
            rollout_record(
                "response_item",
                json!({"type": "function_call", "name": "exec_command",
                       "arguments": json!({"cmd": cmd}).to_string(), "call_id": call}),
            ),
            rollout_record(
                "response_item",
                json!({"type": "function_call_output", "call_id": call, "output": output}),
            ),
        ],
    );
}

/// Codex's plan: each step in progress is a frame under the turn, closed when a later plan marks
/// it completed, or drops it; a step still in progress at the Stop closes as blocked. At
/// SessionEnd the steps fold with their turn, and every call keeps its output.
#[test]
fn codex_plan_steps_are_frames_in_their_turn() {
    let env = env_with("all");
    let rollout = codex_rollout(&env);
    codex(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Migrate the modules", "turn_id": "t1", "transcript_path": rollout,
               "cwd": env.root}),
    );
    let turn = id(&turns(&env)[0]);
    plan(
        &env,
        &rollout,
        "call_a",
        &[("Migrate m1", "in_progress"), ("Migrate m2", "pending")],
    );
    let [m1] = <[Value; 1]>::try_from(items(&env)).unwrap();
    assert_eq!(m1["goal"], "Migrate m1");
    assert_eq!(m1["parentSessionID"], turn.as_str());
    assert!(m1.get("todo_item").is_none(), "a step is its text");
    exec(&rollout, "call_b", "cat m1.rs", &"M1_SOURCE ".repeat(400));
    plan(
        &env,
        &rollout,
        "call_c",
        &[("Migrate m1", "completed"), ("Migrate m2", "in_progress")],
    );
    let [m1, m2] = <[Value; 2]>::try_from(items(&env)).unwrap();
    assert_eq!(m1["status"], "completed");
    assert!(
        m1["compactionSummary"]
            .as_str()
            .unwrap()
            .contains("`cat m1.rs` (completed)")
    );
    assert!(env.ok(&["frame", "log", &id(&m1)]).contains("M1_SOURCE"));
    assert_eq!(m2["status"], "in_progress");
    assert_eq!(m2["parentSessionID"], turn.as_str(), "steps are siblings");
    // A plan without m2: it left the list.
    plan(
        &env,
        &rollout,
        "call_d",
        &[("Migrate m1", "completed"), ("Migrate m3", "in_progress")],
    );
    let [_, m2, m3] = <[Value; 3]>::try_from(items(&env)).unwrap();
    assert_eq!(m3["goal"], "Migrate m3");
    assert_eq!(m2["status"], "blocked");
    assert!(
        m2["compactionSummary"]
            .as_str()
            .unwrap()
            .starts_with("The item left the todo list before it was finished.")
    );
    exec(&rollout, "call_e", "cat m3.rs", &"M3_SOURCE ".repeat(400));
    codex(
        &env,
        "Stop",
        json!({"turn_id": "t1", "last_assistant_message": "m1 done, m3 under way",
               "transcript_path": rollout, "cwd": env.root}),
    );
    let m3 = &items(&env)[2];
    assert_eq!(m3["status"], "blocked");
    assert!(env.ok(&["frame", "log", &id(m3)]).contains("M3_SOURCE"));
    assert_eq!(turns(&env)[0]["status"], "completed");
    codex(
        &env,
        "SessionEnd",
        json!({"reason": "other", "transcript_path": rollout, "cwd": env.root}),
    );
    let after = std::fs::read_to_string(&rollout).unwrap();
    assert!(!after.contains("M1_SOURCE") && !after.contains("M3_SOURCE"));
    assert!(
        after.contains(&format!("`ctx frame log {turn}`")),
        "named by the turn"
    );
    let (calls, outputs) = codex_calls_and_outputs(&after);
    assert_eq!(calls, outputs);
    assert_eq!(calls.len(), 5);
    for item in items(&env) {
        assert_eq!(item["parentSessionID"], turn.as_str());
    }
    assert!(
        env.ok(&["frame", "log", &id(&items(&env)[0])])
            .contains("M1_SOURCE")
    );
}

/// With `frame.auto = "todos"`, a finished step folds on its own at SessionEnd: its outputs become
/// placeholders naming the step's frame.
#[test]
fn codex_plan_steps_alone_fold_each_finished_step() {
    let env = env_with("todos");
    let rollout = codex_rollout(&env);
    codex(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Migrate", "turn_id": "t1", "transcript_path": rollout, "cwd": env.root}),
    );
    plan(&env, &rollout, "call_a", &[("Migrate m1", "in_progress")]);
    let step = id(&items(&env)[0]);
    assert_eq!(items(&env)[0]["parentSessionID"], THREAD_FRAME);
    exec(&rollout, "call_b", "cat m1.rs", &"M1_SOURCE ".repeat(400));
    plan(&env, &rollout, "call_c", &[("Migrate m1", "completed")]);
    exec(&rollout, "call_d", "cat m2.rs", &"AFTER_STEP ".repeat(400));
    codex(
        &env,
        "SessionEnd",
        json!({"reason": "other", "transcript_path": rollout, "cwd": env.root}),
    );
    let after = std::fs::read_to_string(&rollout).unwrap();
    assert!(!after.contains("M1_SOURCE"));
    assert!(after.contains(&format!("`ctx frame log {step}`")));
    assert!(
        after.contains("AFTER_STEP"),
        "outside every closed frame: kept"
    );
    let (calls, outputs) = codex_calls_and_outputs(&after);
    assert_eq!(calls, outputs);
    assert!(env.ok(&["frame", "log", &step]).contains("M1_SOURCE"));
}

/// A turn whose only content is a subagent: the subagent's frame runs under the turn and pops at
/// its SubagentStop with its report; the turn closes at its Stop; at SessionEnd the Agent call's
/// result (the report) is the turn's fold entry, paired with its call, and the turn's log and the
/// subagent's keep the report.
#[test]
fn a_turn_whose_only_content_is_a_subagent_folds_whole() {
    let env = env_with("all");
    let mut session = Claude::new(&env);
    session.prompt(1, "Audit the refunds");
    let turn = id(&turns(&env)[0]);
    let agent = "a1b2c3d4e5f6a7b8";
    session.event(
        "PreToolUse",
        json!({"tool_name": "Agent", "tool_use_id": "toolu_agent",
               "tool_input": {"description": "Audit refunds", "prompt": "p", "subagent_type": "general-purpose"}}),
    );
    session.event(
        "SubagentStart",
        json!({"agent_id": agent, "agent_type": "general-purpose"}),
    );
    let frame = format!("cca_{agent}");
    assert_eq!(
        state(&env)["frames"][&frame]["parentSessionID"],
        turn.as_str()
    );
    let report = format!("REPORT: {}", "two refunds are wrong ".repeat(100));
    session.event(
        "SubagentStop",
        json!({"agent_id": agent, "agent_type": "general-purpose", "last_assistant_message": report}),
    );
    let parent = session.last.clone();
    session.append(
        stamped(
            json!({"type": "assistant", "uuid": "c_agent", "parentUuid": parent,
            "message": {"id": "m_agent", "role": "assistant", "content": [{"type": "tool_use",
            "id": "toolu_agent", "name": "Agent", "input": {"description": "Audit refunds"}}]}}),
        ),
        "c_agent",
    );
    session.append(
        result_line("r_agent", "c_agent", "toolu_agent", &report),
        "r_agent",
    );
    session.say("The audit found two wrong refunds.");
    session.stop(1, "The audit found two wrong refunds.");
    let frames = &state(&env)["frames"];
    assert_eq!(frames[&frame]["status"], "completed");
    assert_eq!(frames[&turn]["status"], "completed");
    let after = session.end();
    assert!(!after.contains("two refunds are wrong"), "the report folds");
    assert!(after.contains(&format!(
        "[ctx] Turn {turn} (Audit the refunds) folded: 1 tool output"
    )));
    assert!(after.contains("The audit found two wrong refunds."));
    assert_whole(&after);
    assert!(
        env.ok(&["frame", "log", &turn])
            .contains("two refunds are wrong")
    );
    assert!(
        env.ok(&["frame", "log", &frame])
            .contains("two refunds are wrong")
    );
}

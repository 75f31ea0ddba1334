//! Turn frames (`frame.auto = "turns"`): the frames Claude Code's and Codex's hooks open at a
//! person's prompt and close at the turn's Stop, without the model's help, fed the events in the
//! order the agents send them.

use serde_json::{Value, json};

use crate::common::{TestEnv, hook_log_lines};

pub(crate) const SESSION: &str = "d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b";
pub(crate) const FRAME: &str = "cc_d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b";
pub(crate) const THREAD: &str = "01a21b53-5da8-7ef0-95e9-bcc9ecf19422";
pub(crate) const THREAD_FRAME: &str = "cx_01a21b53-5da8-7ef0-95e9-bcc9ecf19422";

/// A project whose `ctx.toml` sets `frame.auto`.
pub(crate) fn env_with(auto: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write(
        ".opencode/ctx.toml",
        format!("[frame]\nauto = \"{auto}\"\n"),
    );
    env
}

/// A Claude Code event: the fields every event has, and `fields`.
pub(crate) fn claude(env: &TestEnv, name: &str, fields: Value) -> String {
    let mut value = json!({
        "session_id": SESSION,
        "transcript_path": "/nonexistent/t.jsonl",
        "cwd": "/x",
        "hook_event_name": name,
    });
    for (k, v) in fields.as_object().unwrap() {
        value[k] = v.clone();
    }
    env.hook("claude", name, value.to_string().as_bytes())
}

/// A Codex event, the same way.
pub(crate) fn codex(env: &TestEnv, name: &str, fields: Value) -> String {
    let mut value = json!({
        "session_id": THREAD,
        "transcript_path": null,
        "cwd": "/x",
        "hook_event_name": name,
        "model": "mock-1",
    });
    for (k, v) in fields.as_object().unwrap() {
        value[k] = v.clone();
    }
    env.hook("codex", name, value.to_string().as_bytes())
}

pub(crate) fn state(env: &TestEnv) -> Value {
    serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap()
}

/// The turn frames in the state (`"auto": "turn"`), in file order (the order they opened).
pub(crate) fn turns(env: &TestEnv) -> Vec<Value> {
    state(env)["frames"]
        .as_object()
        .unwrap()
        .values()
        .filter(|f| f["auto"] == "turn")
        .cloned()
        .collect()
}

pub(crate) fn session_current(env: &TestEnv, session: &str) -> Value {
    state(env)["sessionFrames"][session].clone()
}

#[test]
fn a_prompt_opens_a_turn_frame_and_its_stop_closes_it_with_the_last_answer() {
    let env = env_with("turns");
    let first = claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "\n  Fix the   login bug\nand more", "prompt_id": "p1"}),
    );
    assert!(first.contains("<flame-context"), "{first}");
    let open = turns(&env);
    assert_eq!(open.len(), 1);
    assert_eq!(open[0]["goal"], "Fix the login bug");
    assert_eq!(open[0]["status"], "in_progress");
    assert_eq!(open[0]["parentSessionID"], FRAME);
    let turn = open[0]["sessionID"].as_str().unwrap().to_string();
    assert_eq!(session_current(&env, FRAME), turn.as_str());

    claude(
        &env,
        "Stop",
        json!({"prompt_id": "p1", "last_assistant_message": "Fixed: the token expired early."}),
    );
    let closed = &turns(&env)[0];
    assert_eq!(closed["status"], "completed");
    assert_eq!(
        closed["compactionSummary"],
        "Fixed: the token expired early."
    );
    let log = env.read(&format!(".opencode/flame/logs/frame-{turn}.md"));
    assert!(log.contains("Fixed: the token expired early."), "{log}");
    // The session is its own current frame again, and its context did not change: a turn frame
    // adds no new context to the next prompt.
    assert_eq!(
        claude(
            &env,
            "UserPromptSubmit",
            json!({"prompt": "Now the logout", "prompt_id": "p2"})
        ),
        ""
    );
    let both = turns(&env);
    assert_eq!(both.len(), 2);
    assert_eq!(both[1]["goal"], "Now the logout");
    assert_eq!(both[1]["parentSessionID"], FRAME);
}

#[test]
fn the_tree_marks_turn_frames_within_80_columns() {
    let env = env_with("turns");
    let long = "Rewrite the whole billing module so that refunds and credits share one ledger";
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": long, "prompt_id": "p1"}),
    );
    let tree = env.ok(&["frame", "tree", "--ascii"]);
    let turn_line = tree.lines().nth(1).unwrap();
    assert!(turn_line.ends_with(") turn"), "{tree}");
    assert!(tree.lines().all(|l| l.chars().count() <= 80), "{tree}");
}

#[test]
fn frame_auto_off_opens_no_turn_and_stop_changes_nothing() {
    let env = TestEnv::new();
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Fix it", "prompt_id": "p1"}),
    );
    let before = env.read(".opencode/flame/state.json");
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "p1", "last_assistant_message": "Done"}),
    );
    claude(&env, "SessionEnd", json!({"reason": "other"}));
    assert_eq!(env.read(".opencode/flame/state.json"), before);
    assert!(turns(&env).is_empty());
}

#[test]
fn a_push_inside_a_turn_goes_under_it_and_the_turn_stays_open_until_that_frame_pops() {
    let env = env_with("turns");
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Refund work", "prompt_id": "p1"}),
    );
    let turn = turns(&env)[0]["sessionID"].as_str().unwrap().to_string();
    let pushed = env
        .ctx()
        .env("CTX_SESSION", FRAME)
        .args(["frame", "push", "--", "Refund ledger"])
        .output()
        .unwrap();
    assert!(pushed.status.success(), "{}", env.render(&pushed));
    let explicit = String::from_utf8(pushed.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert_eq!(
        state(&env)["frames"][&explicit]["parentSessionID"],
        turn.as_str()
    );
    // The turn ends with the model's frame still running: both stay running, the turn's answer
    // kept as its summary so far.
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "p1", "last_assistant_message": "Ledger half done"}),
    );
    let frames = &state(&env)["frames"];
    assert_eq!(frames[&turn]["status"], "in_progress");
    assert_eq!(frames[&turn]["compactionSummary"], "Ledger half done");
    assert_eq!(frames[&explicit]["status"], "in_progress");
    // The next prompt continues inside the model's frame: no new turn opens under it, so the
    // model can still pop it.
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "go on", "prompt_id": "p2"}),
    );
    assert_eq!(turns(&env).len(), 1);
    let popped = env
        .ctx()
        .env("CTX_SESSION", FRAME)
        .args(["frame", "pop", "--summary", "Ledger done"])
        .output()
        .unwrap();
    assert!(popped.status.success(), "{}", env.render(&popped));
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "p2", "last_assistant_message": "All refunds done"}),
    );
    let frames = &state(&env)["frames"];
    assert_eq!(frames[&turn]["status"], "completed");
    assert_eq!(frames[&turn]["compactionSummary"], "All refunds done");
    assert_ne!(session_current(&env, FRAME), turn.as_str());
}

#[test]
fn a_prompt_whose_previous_turn_had_no_stop_closes_it_and_a_late_stop_gives_its_summary() {
    let env = env_with("turns");
    // Two processes continue the session at once: B's prompt comes before A's Stop.
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "A's work", "prompt_id": "pa"}),
    );
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "B's work", "prompt_id": "pb"}),
    );
    let [a, b] = <[Value; 2]>::try_from(turns(&env)).unwrap();
    assert_eq!(a["status"], "completed");
    assert_eq!(
        a["compactionSummary"],
        "(no Stop was seen for this turn before the next prompt)"
    );
    assert_eq!(b["status"], "in_progress");
    assert_eq!(b["parentSessionID"], FRAME, "not nested in A's turn");
    let log = hook_log_lines(&env.path(".opencode/flame/claude-hooks.log"));
    assert!(
        log.iter()
            .any(|l| l.starts_with("UserPromptSubmit session ")
                && l.contains(&format!(
                    "turn {} had no Stop",
                    a["sessionID"].as_str().unwrap()
                ))),
        "{log:?}"
    );
    // A's Stop comes late: its own turn gets its answer, B's turn is left running.
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "pa", "last_assistant_message": "A done"}),
    );
    let [a, b] = <[Value; 2]>::try_from(turns(&env)).unwrap();
    assert_eq!(a["compactionSummary"], "A done");
    assert_eq!(b["status"], "in_progress");
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "pb", "last_assistant_message": "B done"}),
    );
    let [_, b] = <[Value; 2]>::try_from(turns(&env)).unwrap();
    assert_eq!(b["status"], "completed");
    assert_eq!(b["compactionSummary"], "B done");
}

#[test]
fn session_end_closes_the_turn_its_process_ended_with() {
    let env = env_with("turns");
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Long job", "prompt_id": "p1"}),
    );
    claude(&env, "SessionEnd", json!({"reason": "other"}));
    let turn = &turns(&env)[0];
    assert_eq!(turn["status"], "completed");
    assert_eq!(
        turn["compactionSummary"],
        "(the process ended before the turn's Stop)"
    );
    let log = hook_log_lines(&env.path(".opencode/flame/claude-hooks.log"));
    assert!(
        log.iter()
            .any(|l| l.starts_with("SessionEnd session ") && l.contains("had no Stop")),
        "{log:?}"
    );
}

#[test]
fn a_task_notification_and_a_subagents_events_open_and_close_no_turn() {
    let env = env_with("all");
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Audit refunds", "prompt_id": "p1"}),
    );
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "p1", "last_assistant_message": "Started the audit"}),
    );
    // A background subagent's result comes back as a prompt of its own: no person's turn.
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "<task-notification>\n<task-id>a1</task-id>\n</task-notification>",
               "prompt_id": "p2"}),
    );
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "p2", "last_assistant_message": "The audit found nothing"}),
    );
    let all = turns(&env);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["compactionSummary"], "Started the audit");

    // Codex: a subagent's prompt and Stop carry its agent_id.
    let env = env_with("turns");
    codex(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Migrate m1", "turn_id": "t1"}),
    );
    codex(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Subtask", "turn_id": "t9", "agent_id": "01a21b53-5ffd-75e0-a8f9-a5d32edd2d1e"}),
    );
    codex(
        &env,
        "Stop",
        json!({"turn_id": "t9", "agent_id": "01a21b53-5ffd-75e0-a8f9-a5d32edd2d1e",
               "last_assistant_message": "sub done"}),
    );
    let all = turns(&env);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["status"], "in_progress");
}

#[test]
fn codex_turns_open_at_each_prompt_and_close_at_stop_and_at_session_end() {
    let env = env_with("turns");
    codex(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Migrate module m1", "turn_id": "t1"}),
    );
    codex(
        &env,
        "Stop",
        json!({"turn_id": "t1", "last_assistant_message": "m1 migrated"}),
    );
    codex(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Migrate module m2", "turn_id": "t2"}),
    );
    codex(&env, "SessionEnd", json!({}));
    let [one, two] = <[Value; 2]>::try_from(turns(&env)).unwrap();
    assert_eq!(one["parentSessionID"], THREAD_FRAME);
    assert_eq!(one["goal"], "Migrate module m1");
    assert_eq!(one["compactionSummary"], "m1 migrated");
    assert_eq!(two["parentSessionID"], THREAD_FRAME);
    assert_eq!(two["status"], "completed");
    assert_eq!(
        two["compactionSummary"],
        "(the process ended before the turn's Stop)"
    );
}

#[test]
fn a_closed_turns_log_holds_its_span_of_the_transcript_with_the_tool_outputs() {
    let env = env_with("turns");
    let transcript = env.temp().join("t.jsonl");
    let line = |v: Value| format!("{v}\n");
    // Written after the turn opens (a time to come), as Claude Code writes the turn's lines.
    let text = [
        line(
            json!({"type": "assistant", "uuid": "a1", "timestamp": "2099-01-01T00:00:01.000Z",
            "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
            "name": "Bash", "input": {"command": "cargo build"}}]}}),
        ),
        line(
            json!({"type": "user", "uuid": "u1", "timestamp": "2099-01-01T00:00:02.000Z",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
            "content": "BUILD_OUTPUT_42"}]}}),
        ),
    ]
    .concat();
    std::fs::write(&transcript, text).unwrap();
    let path = transcript.to_str().unwrap();
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Build it", "prompt_id": "p1", "transcript_path": path}),
    );
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "p1", "last_assistant_message": "Built", "transcript_path": path}),
    );
    let turn = turns(&env)[0]["sessionID"].as_str().unwrap().to_string();
    let log = env.ok(&["frame", "log", &turn]);
    assert!(log.contains("cargo build"), "{log}");
    assert!(log.contains("BUILD_OUTPUT_42"), "{log}");
}

/// A transcript line of the main conversation, stamped now.
pub(crate) fn stamped(mut value: Value) -> String {
    std::thread::sleep(std::time::Duration::from_millis(3));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let secs = now.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    value["timestamp"] = Value::from(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        now.subsec_millis()
    ));
    value["sessionId"] = Value::from(SESSION);
    value["version"] = Value::from("2.1.328");
    value.to_string() + "\n"
}

pub(crate) fn call_line(uuid: &str, parent: &str, id: &str, command: &str) -> String {
    stamped(
        json!({"type": "assistant", "uuid": uuid, "parentUuid": parent,
        "message": {"id": format!("m_{uuid}"), "role": "assistant", "content": [{"type": "tool_use",
        "id": id, "name": "Bash", "input": {"command": command}}]}}),
    )
}

pub(crate) fn result_line(uuid: &str, parent: &str, id: &str, output: &str) -> String {
    stamped(json!({"type": "user", "uuid": uuid, "parentUuid": parent,
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
        "content": output}]}, "toolUseResult": {"stdout": output}}))
}

pub(crate) fn text_line(kind: &str, uuid: &str, parent: &str, text: &str) -> String {
    let content = if kind == "user" {
        Value::from(text)
    } else {
        json!([{"type": "text", "text": text}])
    };
    stamped(json!({"type": kind, "uuid": uuid, "parentUuid": parent,
        "message": {"id": format!("m_{uuid}"), "role": kind, "content": content}}))
}

/// Checks that a folded Claude Code transcript stays whole: every kept `parentUuid` names a kept
/// line, every kept call has its result and every result its call. Returns the calls kept.
pub(crate) fn assert_whole(transcript: &str) -> std::collections::BTreeSet<String> {
    let records: Vec<Value> = transcript
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let uuids: std::collections::HashSet<&str> =
        records.iter().filter_map(|r| r["uuid"].as_str()).collect();
    let mut calls = std::collections::BTreeSet::new();
    let mut results = std::collections::BTreeSet::new();
    for r in &records {
        if let Some(parent) = r["parentUuid"].as_str().filter(|p| !p.is_empty()) {
            assert!(
                uuids.contains(parent),
                "{parent}: a kept line's parent is kept"
            );
        }
        for block in r["message"]["content"].as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("tool_use") => calls.insert(block["id"].as_str().unwrap().to_string()),
                Some("tool_result") => {
                    results.insert(block["tool_use_id"].as_str().unwrap().to_string())
                }
                _ => false,
            };
        }
    }
    assert_eq!(
        calls, results,
        "every kept call has its result, and every result its call"
    );
    calls
}

/// Two person turns, the model never calling ctx: at SessionEnd each finished turn keeps its
/// prompt and its answer byte for byte, its first tool call answered by the fold's entry and the
/// others taken out, and the folded transcript stays one valid chain in which every call has its
/// result; `ctx frame log` gives the outputs back, and a second end folds nothing more.
#[test]
fn finished_turns_fold_at_session_end_and_the_folded_transcript_stays_whole() {
    let env = env_with("turns");
    let dir = env.home.join(".claude/projects/-x");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join(format!("{SESSION}.jsonl"));
    let path = transcript.to_str().unwrap().to_string();
    let cwd = env.root.to_str().unwrap().to_string();
    let big = "BIG_OUTPUT ".repeat(500);
    let mut text = String::new();
    let turn = |text: &mut String, n: u32, prompt: &str, parent: &str| -> String {
        text.push_str(&text_line("user", &format!("p{n}"), parent, prompt));
        std::fs::write(&transcript, &*text).unwrap();
        claude(
            &env,
            "UserPromptSubmit",
            json!({"prompt": prompt, "prompt_id": format!("id{n}"), "transcript_path": path, "cwd": cwd}),
        );
        text.push_str(&call_line(
            &format!("c{n}a"),
            &format!("p{n}"),
            &format!("t{n}a"),
            "ls",
        ));
        text.push_str(&result_line(
            &format!("r{n}a"),
            &format!("c{n}a"),
            &format!("t{n}a"),
            &format!("LISTING_{n}"),
        ));
        text.push_str(&call_line(
            &format!("c{n}b"),
            &format!("r{n}a"),
            &format!("t{n}b"),
            "cat big.txt",
        ));
        text.push_str(&result_line(
            &format!("r{n}b"),
            &format!("c{n}b"),
            &format!("t{n}b"),
            &format!("{big}{n}"),
        ));
        let answer = format!("ANSWER_{n}: done.");
        text.push_str(&text_line(
            "assistant",
            &format!("a{n}"),
            &format!("r{n}b"),
            &answer,
        ));
        std::fs::write(&transcript, &*text).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(3));
        claude(
            &env,
            "Stop",
            json!({"prompt_id": format!("id{n}"), "last_assistant_message": answer, "transcript_path": path, "cwd": cwd}),
        );
        format!("a{n}")
    };
    let last = turn(&mut text, 1, "Audit the refunds", "");
    turn(&mut text, 2, "Now the invoices", &last);
    let before = std::fs::read_to_string(&transcript).unwrap();
    let end = json!({"reason": "other", "transcript_path": path, "cwd": cwd});
    claude(&env, "SessionEnd", end.clone());
    let after = std::fs::read_to_string(&transcript).unwrap();
    assert!(
        after.len() < before.len() / 2,
        "folded: {} of {}",
        after.len(),
        before.len()
    );
    for kept in [
        "\"Audit the refunds\"",
        "\"Now the invoices\"",
        "ANSWER_1: done.",
        "ANSWER_2: done.",
    ] {
        assert!(after.contains(kept), "{kept} kept");
    }
    // Lines the fold did not change are byte for byte the originals.
    for line in before
        .lines()
        .filter(|l| l.contains("\"p1\"") && l.contains("Audit"))
    {
        assert!(after.contains(line));
    }
    assert!(!after.contains("BIG_OUTPUT"), "outputs left out");
    let calls = assert_whole(&after);
    assert_eq!(calls.len(), 2, "one call left per turn: {calls:?}");
    let turn_ids: Vec<String> = turns(&env)
        .iter()
        .map(|t| t["sessionID"].as_str().unwrap().to_string())
        .collect();
    for id in &turn_ids {
        assert!(
            after.contains(&format!("ctx frame log {id}")),
            "the entry names the recall"
        );
        let log = env.ok(&["frame", "log", id]);
        assert!(log.contains("BIG_OUTPUT"), "the log keeps the outputs");
    }
    claude(&env, "SessionEnd", end);
    assert_eq!(
        std::fs::read_to_string(&transcript).unwrap(),
        after,
        "folded once"
    );
}

/// Claude Code may write a turn's last lines after its Stop hook read the transcript: the turn's
/// log, which the fold's entry points to, is written again at SessionEnd from the whole
/// transcript, so every output the fold takes out is in it.
#[test]
fn a_turns_lines_written_after_its_stop_are_in_its_log_before_the_fold_takes_them_out() {
    let env = env_with("turns");
    let dir = env.home.join(".claude/projects/-x");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join(format!("{SESSION}.jsonl"));
    let path = transcript.to_str().unwrap().to_string();
    let cwd = env.root.to_str().unwrap().to_string();
    let mut early = text_line("user", "p1", "", "Audit the refunds");
    std::fs::write(&transcript, &early).unwrap();
    claude(
        &env,
        "UserPromptSubmit",
        json!({"prompt": "Audit the refunds", "prompt_id": "id1", "transcript_path": path, "cwd": cwd}),
    );
    early.push_str(&call_line("c1", "p1", "t1", "ls"));
    early.push_str(&result_line("r1", "c1", "t1", "LISTING"));
    // Stamped during the turn, reaching the file only after the Stop hook read it.
    let late = [
        call_line("c2", "r1", "t2", "cat big.txt"),
        result_line("r2", "c2", "t2", "LATE_BIG_OUTPUT"),
        text_line("assistant", "a1", "r2", "ANSWER: done."),
    ]
    .concat();
    std::fs::write(&transcript, &early).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    claude(
        &env,
        "Stop",
        json!({"prompt_id": "id1", "last_assistant_message": "ANSWER: done.", "transcript_path": path, "cwd": cwd}),
    );
    let turn = turns(&env)[0]["sessionID"].as_str().unwrap().to_string();
    assert!(
        !env.ok(&["frame", "log", &turn]).contains("LATE_BIG_OUTPUT"),
        "not yet"
    );
    std::fs::write(&transcript, early + &late).unwrap();
    claude(
        &env,
        "SessionEnd",
        json!({"reason": "other", "transcript_path": path, "cwd": cwd}),
    );
    assert!(
        !std::fs::read_to_string(&transcript)
            .unwrap()
            .contains("LATE_BIG_OUTPUT"),
        "folded out of the transcript"
    );
    assert!(
        env.ok(&["frame", "log", &turn]).contains("LATE_BIG_OUTPUT"),
        "and kept in the log"
    );
}

/// One record of a Codex rollout (0.171.0's shapes), stamped now.
pub(crate) fn rollout_record(kind: &str, payload: Value) -> String {
    let stamped = stamped(json!({"type": kind, "payload": payload}));
    // `stamped` adds Claude Code's keys; a rollout record has only these three.
    let mut value: Value = serde_json::from_str(&stamped).unwrap();
    let object = value.as_object_mut().unwrap();
    object.remove("sessionId");
    object.remove("version");
    value.to_string() + "\n"
}

/// A Codex turn in the rollout at `path`: its prompt (UserPromptSubmit with `turn_id`), a shell
/// call with a large output tagged `BIG_<n>`, a small one, a record of a kind ctx does not know,
/// and the answer; closed by its Stop unless `stop` is false (the process then ends with it).
fn codex_turn(env: &TestEnv, path: &std::path::Path, n: u32, stop: bool) {
    let turn = format!("01a22433-6c35-70c1-948f-b4c246b7b89{n}");
    let cwd = env.root.to_str().unwrap();
    let prompt = format!("Migrate module m{n}");
    let append = |text: String| {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        file.write_all(text.as_bytes()).unwrap();
    };
    append(rollout_record(
        "event_msg",
        json!({"type": "task_started", "turn_attribution": {"turn_id": turn, "turn_trigger": "exec"}}),
    ));
    append(rollout_record(
        "turn_context",
        json!({"turn_id": turn, "cwd": cwd, "model": "mock-1"}),
    ));
    append(rollout_record(
        "response_item",
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}),
    ));
    codex(
        env,
        "UserPromptSubmit",
        json!({"prompt": prompt, "turn_id": turn, "transcript_path": path, "cwd": cwd}),
    );
    let big = format!("BIG_{n} {}", "row ".repeat(2000));
    let records = [
        rollout_record(
            "response_item",
            json!({"type": "function_call", "name": "exec_command",
                   "arguments": json!({"cmd": format!("cat m{n}.rs")}).to_string(),
                   "call_id": format!("call_{n}_0")}),
        ),
        rollout_record(
            "response_item",
            json!({"type": "function_call_output", "call_id": format!("call_{n}_0"),
                   "output": format!("Chunk ID: a\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n{big}")}),
        ),
        rollout_record(
            "event_msg",
            json!({"type": "token_count", "info": {"total_token_usage": {"input_tokens": 10377}}}),
        ),
        rollout_record(
            "future_record",
            json!({"turn_id": turn, "what": "a kind of record ctx does not know"}),
        ),
        rollout_record(
            "response_item",
            json!({"type": "function_call", "name": "exec_command",
                   "arguments": json!({"cmd": "true"}).to_string(),
                   "call_id": format!("call_{n}_1")}),
        ),
        rollout_record(
            "response_item",
            json!({"type": "function_call_output", "call_id": format!("call_{n}_1"), "output": "ok"}),
        ),
        rollout_record(
            "response_item",
            json!({"type": "message", "role": "assistant",
                   "content": [{"type": "output_text", "text": format!("ANSWER_{n}: m{n} migrated.")}]}),
        ),
    ];
    append(records.concat());
    if stop {
        append(rollout_record(
            "event_msg",
            json!({"type": "task_complete", "turn_id": turn, "last_agent_message": format!("ANSWER_{n}")}),
        ));
        codex(
            env,
            "Stop",
            json!({"turn_id": turn, "last_assistant_message": format!("ANSWER_{n}: m{n} migrated."),
                   "transcript_path": path, "cwd": cwd}),
        );
    }
}

/// A Codex rollout below the test's Codex sessions folder, holding its `session_meta`.
pub(crate) fn codex_rollout(env: &TestEnv) -> std::path::PathBuf {
    let dir = env.home.join(".codex/sessions/2026/11/28");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("rollout-2026-11-28T22-07-59-{THREAD}.jsonl"));
    std::fs::write(
        &path,
        rollout_record("session_meta", json!({"id": THREAD, "cwd": "/x"})),
    )
    .unwrap();
    path
}

/// The call ids of a rollout's `function_call` and `function_call_output` records.
pub(crate) fn codex_calls_and_outputs(
    text: &str,
) -> (
    std::collections::BTreeSet<String>,
    std::collections::BTreeSet<String>,
) {
    let mut calls = std::collections::BTreeSet::new();
    let mut outputs = std::collections::BTreeSet::new();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let id = record["payload"]["call_id"].as_str().map(str::to_string);
        match (record["payload"]["type"].as_str(), id) {
            (Some("function_call"), Some(id)) => calls.insert(id),
            (Some("function_call_output"), Some(id)) => outputs.insert(id),
            _ => false,
        };
    }
    (calls, outputs)
}

/// Three Codex turns, the model never calling ctx, the last ended by the process: at SessionEnd
/// each turn's large output becomes a placeholder naming its turn frame, every call keeps its
/// output record, every other record stays byte for byte, the turn logs hold the outputs, and a
/// second end changes nothing.
#[test]
fn codex_finished_turns_fold_at_session_end_with_every_call_paired() {
    let env = env_with("turns");
    let rollout = codex_rollout(&env);
    for n in 1..=3 {
        codex_turn(&env, &rollout, n, n < 3);
    }
    let before = std::fs::read_to_string(&rollout).unwrap();
    let end = json!({"reason": "other", "transcript_path": rollout, "cwd": env.root});
    codex(&env, "SessionEnd", end.clone());
    let after = std::fs::read_to_string(&rollout).unwrap();
    assert!(
        after.len() < before.len() / 4,
        "folded: {} of {}",
        after.len(),
        before.len()
    );
    let log = hook_log_lines(&env.path(".opencode/flame/codex-hooks.log"));
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(log[0].ends_with("had no Stop before its process ended: closed"));
    let (calls, outputs) = codex_calls_and_outputs(&after);
    assert_eq!(calls.len(), 6);
    assert_eq!(
        calls, outputs,
        "every call keeps its output, and no output is alone"
    );
    // Only the large outputs changed; every other line is byte for byte the original.
    let (old, new): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    assert_eq!(old.len(), new.len());
    let changed: Vec<(&&str, &&str)> = old.iter().zip(&new).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 3, "one output per turn");
    for (was, _) in &changed {
        assert!(was.contains("function_call_output") && was.contains("BIG_"));
    }
    for kept in [
        "future_record",
        "turn_context",
        "task_started",
        "ANSWER_3",
        "Migrate module m2",
    ] {
        assert_eq!(
            before.matches(kept).count(),
            after.matches(kept).count(),
            "{kept}"
        );
    }
    let ids: Vec<String> = turns(&env)
        .iter()
        .map(|t| t["sessionID"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 3);
    for (n, id) in ids.iter().enumerate() {
        let tag = format!("BIG_{}", n + 1);
        assert!(!after.contains(&tag), "{tag} folded out");
        let placeholder = after
            .lines()
            .find(|l| l.contains(&format!("call_{}_0\"", n + 1)) && l.contains("output"))
            .unwrap();
        assert!(
            placeholder.contains(&format!("`ctx frame log {id}`")),
            "{placeholder}"
        );
        let turn_log = env.ok(&["frame", "log", id]);
        assert!(turn_log.contains(&tag), "the log of {id} keeps {tag}");
        assert!(turn_log.contains(&format!("cat m{}.rs", n + 1)));
    }
    // The original is kept beside it.
    let kept = rollout.with_extension("");
    assert!(std::fs::read_dir(&kept).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("ctx-fold-")
    }));
    codex(&env, "SessionEnd", end);
    assert_eq!(
        std::fs::read_to_string(&rollout).unwrap(),
        after,
        "folded once"
    );
    for id in &ids {
        assert!(
            env.ok(&["frame", "log", id]).contains("BIG_"),
            "the log stays whole"
        );
    }
}

/// What a case does to a rollout's text.
type Spoil = dyn Fn(&str) -> String;

/// A rollout ctx cannot fold safely stays byte for byte, with the reason in the hook log: a last
/// line still being written, a line that is not JSON, a line that is no Codex record, a rollout
/// outside Codex's sessions folder; and `codex.fold = "off"` switches the fold off. Either way
/// the turn's log, written from the rollout, holds its outputs.
#[test]
fn codex_turns_of_a_rollout_ctx_cannot_fold_stay_as_they_are() {
    let cases: [(&str, &Spoil, &str); 4] = [
        (
            "truncated",
            &|t| format!("{t}{{\"timestamp\":\"x\",\"type\":\"resp"),
            "it changed since ctx read it",
        ),
        ("not json", &|t| format!("{t}not json\n"), "is not JSON"),
        (
            "not a record",
            &|t| format!("{t}[1, 2]\n"),
            "is not a Codex record",
        ),
        (
            "outside",
            &|t| t.to_string(),
            "it is not below Codex's sessions folder",
        ),
    ];
    for (name, spoil, why) in cases {
        let env = env_with("turns");
        let rollout = codex_rollout(&env);
        codex_turn(&env, &rollout, 1, true);
        let path = if name == "outside" {
            let elsewhere = env.temp().join("rollout-elsewhere.jsonl");
            std::fs::copy(&rollout, &elsewhere).unwrap();
            elsewhere
        } else {
            rollout.clone()
        };
        let text = spoil(&std::fs::read_to_string(&path).unwrap());
        std::fs::write(&path, &text).unwrap();
        codex(
            &env,
            "SessionEnd",
            json!({"reason": "other", "transcript_path": path, "cwd": env.root}),
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name}");
        let lines = hook_log_lines(&env.path(".opencode/flame/codex-hooks.log"));
        assert_eq!(lines.len(), 1, "{name}: {lines:?}");
        assert!(
            lines[0].contains("left as it is: ") && lines[0].contains(why),
            "{name}: {lines:?}"
        );
        assert!(
            turn_log_holds(&env, "BIG_1"),
            "{name}: the turn's log holds its output"
        );
    }
    let env = env_with("turns");
    env.write(
        ".opencode/ctx.toml",
        "[frame]\nauto = \"turns\"\n\n[codex]\nfold = \"off\"\n",
    );
    let rollout = codex_rollout(&env);
    codex_turn(&env, &rollout, 1, true);
    let text = std::fs::read_to_string(&rollout).unwrap();
    codex(
        &env,
        "SessionEnd",
        json!({"reason": "other", "transcript_path": rollout, "cwd": env.root}),
    );
    assert_eq!(std::fs::read_to_string(&rollout).unwrap(), text, "off");
    assert!(!env.path(".opencode/flame/codex-hooks.log").exists());
    assert!(turn_log_holds(&env, "BIG_1"));
}

/// Whether the log of the project's one turn frame holds `text`.
fn turn_log_holds(env: &TestEnv, text: &str) -> bool {
    let [turn] = <[Value; 1]>::try_from(turns(env)).unwrap();
    env.ok(&["frame", "log", turn["sessionID"].as_str().unwrap()])
        .contains(text)
}

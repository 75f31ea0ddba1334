//! `ctx opencode messages`: popped frames folded out of what an OpenCode session sends, the
//! frame context anchored so that every request extends the one before it, and the spans that
//! `frame push|pop|invalidate|activate --session` record.
//!
//! A small stand-in for OpenCode's loop builds the message lists: each step appends the messages
//! OpenCode would have stored, and runs the ctx command the plugin would have run.

use std::process::Output;

use serde_json::{Value, json};

use crate::common::TestEnv;

const SESSION: &str = "ses_fold";

/// An OpenCode session as the plugin sees it: its stored messages, in order.
struct Session<'e> {
    env: &'e TestEnv,
    id: String,
    messages: Vec<Value>,
    clock: i64,
    /// Every list `ctx opencode messages` printed, in order.
    sent: Vec<Vec<Value>>,
    /// Where each running frame's messages start.
    pushed_at: Vec<usize>,
}

impl<'e> Session<'e> {
    fn new(env: &'e TestEnv, id: &str) -> Session<'e> {
        Session {
            env,
            id: id.to_string(),
            messages: Vec::new(),
            clock: 1_000,
            sent: Vec::new(),
            pushed_at: Vec::new(),
        }
    }

    fn next_id(&mut self, prefix: &str) -> String {
        self.clock += 1;
        format!("{prefix}_{:06}", self.clock)
    }

    fn user(&mut self, text: &str) {
        let id = self.next_id("msg");
        self.messages.push(json!({
            "info": {"id": id, "sessionID": self.id, "role": "user", "agent": "build",
                     "model": {"providerID": "mock", "modelID": "mock-1"},
                     "time": {"created": self.clock}},
            "parts": [{"id": format!("prt_{id}"), "type": "text", "text": text}],
        }));
    }

    /// An assistant message with one completed tool call; returns (message id, call id).
    fn tool(&mut self, tool: &str, input: Value, output: &str) -> (String, String) {
        let id = self.next_id("msg");
        let call = format!("call_{id}");
        let start = self.clock;
        self.messages.push(json!({
            "info": {"id": id, "sessionID": self.id, "role": "assistant", "time": {"created": start}},
            "parts": [{"id": format!("prt_{id}"), "type": "tool", "tool": tool, "callID": call,
                       "state": {"status": "completed", "input": input, "output": output,
                                 "time": {"start": start, "end": start + 1}}}],
        }));
        (id, call)
    }

    fn text(&mut self, text: &str) {
        let id = self.next_id("msg");
        self.messages.push(json!({
            "info": {"id": id, "sessionID": self.id, "role": "assistant", "time": {"created": self.clock}},
            "parts": [{"id": format!("prt_{id}"), "type": "text", "text": text}],
        }));
    }

    /// The model calls flame_push: ctx pushes with the call's place; returns the new frame's id.
    fn push(&mut self, goal: &str) -> String {
        let (message, call) = self.tool("flame_push", json!({"goal": goal}), "");
        let out = self.env.ok(&[
            "frame",
            "push",
            "--session",
            &self.id.clone(),
            "--span-message",
            &message,
            "--span-call",
            &call,
            goal,
        ]);
        let id = out.trim().to_string();
        self.set_last_output(&format!("Pushed frame {id}"));
        self.pushed_at.push(self.messages.len());
        id
    }

    /// The model calls flame_pop with `summary` (and `status`); the plugin passes the messages
    /// since the push for the log.
    fn pop(&mut self, summary: &str, status: &str) {
        let (message, call) = self.tool("flame_pop", json!({"summary": summary}), "");
        let since = self.pushed_at.pop().unwrap_or(0);
        let export = json!({"info": {"id": self.id}, "messages": self.messages[since..]});
        let out = self.env.run_stdin(
            &[
                "frame",
                "pop",
                "--session",
                &self.id.clone(),
                "--span-message",
                &message,
                "--span-call",
                &call,
                "--status",
                status,
                "--summary",
                summary,
                "--transcript",
                "-",
            ],
            export.to_string().as_bytes(),
        );
        assert!(out.status.success(), "{}", self.env.render(&out));
        self.set_last_output("Popped");
    }

    fn set_last_output(&mut self, text: &str) {
        let last = self.messages.last_mut().unwrap();
        last["parts"][0]["state"]["output"] = json!(text);
    }

    /// `ctx opencode messages` on the stored messages, as the plugin runs it.
    fn send(&self) -> Output {
        let input = json!({ "messages": self.messages }).to_string();
        self.env.run_stdin(
            &["opencode", "messages", "--session", &self.id],
            input.as_bytes(),
        )
    }

    /// One model request: what ctx makes of the stored messages.
    fn request(&mut self) -> Vec<Value> {
        let out = self.send();
        assert!(out.status.success(), "{}", self.env.render(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON out");
        let list = doc["messages"].as_array().unwrap().clone();
        self.sent.push(list.clone());
        list
    }
}

/// The clock ctx reads, in epoch milliseconds.
/// A project whose `.opencode/ctx.toml` is `settings`, with the session's frame made.
fn env_with_settings(settings: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", settings);
    env.ok(&["opencode", "frame", SESSION, "--title", "The session"]);
    env
}

/// A project with `frame.auto = "AUTO"`, with the session's frame made.
fn env_with(auto: &str) -> TestEnv {
    env_with_settings(&format!("frame.auto = \"{auto}\"\n"))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Writes a hand-edited state file.
fn write_state(env: &TestEnv, state: &Value) {
    env.write(
        ".opencode/flame/state.json",
        serde_json::to_string_pretty(state).unwrap(),
    );
}

fn text_of(list: &[Value]) -> String {
    serde_json::to_string(list).unwrap()
}

/// Every string in the messages, one per line: what the model reads, unescaped.
fn strings_of(list: &[Value]) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    list.iter().for_each(|m| walk(m, &mut out));
    out
}

/// A big, recognisable tool output.
fn big(tag: &str) -> String {
    format!("{tag}:{}", "lorem ipsum dolor sit amet ".repeat(800))
}

/// Whether `after` starts with the whole of `before`.
fn extends(before: &[Value], after: &[Value]) -> bool {
    after.len() >= before.len() && after[..before.len()] == *before
}

fn session_file(env: &TestEnv, session: &str) -> Value {
    serde_json::from_str(&env.read(&format!(".opencode/flame/sessions/{session}.json"))).unwrap()
}

#[test]
fn a_popped_frame_leaves_only_its_entry_and_requests_extend_each_other() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Build billing"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Build the billing service");
    s.request();
    let mut frames = Vec::new();
    for n in 0..3 {
        let frame = s.push(&format!("Step {n}"));
        s.request();
        s.tool(
            "bash",
            json!({"command": "make"}),
            &big(&format!("OUT{n}a")),
        );
        s.request();
        s.tool(
            "bash",
            json!({"command": "make test"}),
            &big(&format!("OUT{n}b")),
        );
        s.request();
        s.pop(&format!("Step {n} is done"), "completed");
        let sent = s.request();
        let text = strings_of(&sent);
        // Nothing of any popped span's outputs; each popped frame's entry is there.
        for m in 0..=n {
            assert!(!text.contains(&format!("OUT{m}a")), "step {m} output sent");
            assert!(!text.contains(&format!("OUT{m}b")), "step {m} output sent");
            assert!(
                text.contains(&format!("Step {m} is done")),
                "summary {m} missing"
            );
        }
        // Its log is where every pop writes it, which flame_pop's description says.
        assert!(text.contains(&format!("<flame-folded id=\"{frame}\"/>")));
        assert!(!text.contains("log="));
        frames.push(frame);
    }
    s.text("All done");
    let last = s.request();
    // The stored session keeps everything; what is sent is a small part of it.
    let stored = text_of(&s.messages).len();
    let sent = text_of(&last).len();
    assert!(sent * 10 < stored, "sent {sent} of {stored} characters");
    // Requests change only where a frame is popped: every other request extends the one before.
    let mut breaks = Vec::new();
    for (i, pair) in s.sent.windows(2).enumerate() {
        if !extends(&pair[0], &pair[1]) {
            let at = pair[0]
                .iter()
                .zip(&pair[1])
                .position(|(a, b)| a != b)
                .unwrap_or(pair[0].len().min(pair[1].len()));
            breaks.push((i + 1, at));
        }
    }
    // One break per pop (requests 4, 8, 12 are the ones right after each pop), never at the
    // first message.
    assert_eq!(breaks.len(), 3, "{breaks:?}");
    assert!(breaks.iter().all(|&(_, at)| at > 0), "{breaks:?}");
    assert_eq!(
        breaks.iter().map(|b| b.0).collect::<Vec<_>>(),
        vec![4, 8, 12]
    );
    // Each log holds its frame's tool calls and their outputs in full.
    for (n, frame) in frames.iter().enumerate() {
        let log = env.read(&format!(".opencode/flame/logs/frame-{frame}.md"));
        for tag in ["a", "b"] {
            assert!(
                log.contains(&big(&format!("OUT{n}{tag}"))),
                "{frame}: OUT{n}{tag}"
            );
        }
        assert!(log.contains("[Tool: bash] make test"));
    }
}

#[test]
fn opencodes_pruning_of_old_outputs_leaves_what_ctx_sends_as_it_was() {
    // After a prompt loop OpenCode marks old outputs `time.compacted` and from then on sends each
    // as "[Old tool result content cleared]", whatever it holds: a pop's entry among them.
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Build billing"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Build the billing service");
    for n in 0..2 {
        s.push(&format!("Step {n}"));
        s.tool("bash", json!({"command": "make"}), &big(&format!("OUT{n}")));
        s.pop(&format!("Step {n} is done"), "completed");
    }
    s.user("Now the invoices");
    let before = s.request();
    for message in &mut s.messages {
        for part in message["parts"].as_array_mut().unwrap() {
            if part["type"] == "tool" {
                part["state"]["time"]["compacted"] = json!(9_999);
            }
        }
    }
    let after = s.request();
    assert_eq!(after, before);
    let text = strings_of(&after);
    assert!(text.contains("Step 0 is done") && text.contains("Step 1 is done"));
    assert!(!text.contains("compacted"));
}

#[test]
fn the_context_goes_after_the_latest_boundary_once_and_is_not_repeated() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Build billing"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Build the billing service");
    let first = s.request();
    // The root's context right after the person's message.
    assert_eq!(first.len(), 2);
    assert_eq!(first[1]["info"]["role"], "user");
    assert_eq!(first[1]["parts"][0]["synthetic"], true);
    let context = first[1]["parts"][0]["text"].as_str().unwrap().to_string();
    assert!(context.starts_with(&format!("<flame-context session=\"{SESSION}\">")));
    assert_eq!(first[1]["info"]["agent"], "build");
    assert_eq!(first[1]["info"]["model"]["modelID"], "mock-1");
    s.tool("bash", json!({"command": "ls"}), "a b c");
    let second = s.request();
    assert!(extends(&first, &second));
    // A push adds the new frame's context after the push when it says more than the push
    // (here its decision); the first stays where it was.
    let frame = s.push("Verify signatures");
    env.ok(&[
        "frame",
        "decision",
        "--session",
        SESSION,
        "Keep the raw body",
    ]);
    let third = s.request();
    assert!(extends(&second, &third));
    let pushed = third.last().unwrap();
    let text = pushed["parts"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("<current-frame id=\"{frame}\""))
            && text.contains("<decisions>Keep the raw body</decisions>"),
        "{text}"
    );
    // A person's next message with nothing changed gets no second copy of the same context.
    s.pop("Verified", "completed");
    let fourth = s.request();
    let contexts_before = fourth
        .iter()
        .filter(|m| m["parts"][0]["synthetic"] == true)
        .count();
    s.text("Done.");
    s.user("Thanks, go on");
    let fifth = s.request();
    assert!(extends(&fourth, &fifth));
    let contexts_after = fifth
        .iter()
        .filter(|m| m["parts"][0]["synthetic"] == true)
        .count();
    assert_eq!(contexts_before, contexts_after);
    let recorded = session_file(&env, SESSION);
    let anchors = recorded["contexts"].as_array().unwrap();
    assert_eq!(anchors.last().unwrap()["text"], Value::Null);
}

#[test]
fn nested_frames_fold_inside_their_parent_and_user_messages_fold_unless_kept() {
    for keep in [false, true] {
        let env = TestEnv::new();
        if keep {
            env.write(
                ".opencode/ctx.toml",
                "[opencode]\nfold_user_messages = \"keep\"\n",
            );
        }
        env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
        let mut s = Session::new(&env, SESSION);
        s.user("Start");
        let outer = s.push("Outer");
        s.tool("bash", json!({"command": "a"}), &big("OUTER"));
        let inner = s.push("Inner");
        s.tool("bash", json!({"command": "b"}), &big("INNER"));
        s.user("Also check the refunds");
        s.pop("Inner done", "completed");
        let mid = strings_of(&s.request());
        assert!(
            !mid.contains("INNER:") && mid.contains("OUTER:"),
            "{mid:.3000}"
        );
        // A completed frame's entry has no status: the usual case goes unsaid.
        assert!(mid.contains(&format!("<flame-folded id=\"{inner}\"")));
        s.pop("Outer done", "failed");
        let end = strings_of(&s.request());
        assert!(!end.contains("OUTER:") && !end.contains("INNER:"));
        assert!(end.contains(&format!("<flame-folded id=\"{outer}\" status=\"failed\"")));
        // The inner entry went with the outer span.
        assert!(!end.contains(&format!("<flame-folded id=\"{inner}\"")));
        assert_eq!(end.contains("Also check the refunds"), keep);
    }
}

#[test]
fn a_span_whose_push_was_compacted_away_folds_what_is_left_of_it() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    // Messages stamped by the same clock as ctx's marks, as OpenCode's are.
    let tick = || std::thread::sleep(std::time::Duration::from_millis(5));
    s.clock = now_ms();
    s.user("Start");
    tick();
    s.clock = now_ms();
    let id = s.push("Lost push");
    tick();
    s.clock = now_ms();
    s.tool("bash", json!({"command": "a"}), &big("SPAN"));
    s.clock = now_ms();
    s.pop("Done", "completed");
    // Compacted, or compressed by another plugin: the push is gone from the list.
    s.messages.remove(1);
    let out = s.send();
    let rendered = env.render(&out);
    assert!(out.status.success(), "{rendered:.2000}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("SPAN:"), "what is left of the span folds");
    assert!(stdout.contains(&format!("<flame-folded id=\\\"{id}\\\"")));
    assert!(stdout.contains("Start"));
    assert!(!rendered.contains("warning"), "{rendered:.2000}");
    // With the pop gone too, nothing of the span is in view: nothing to say.
    s.messages.truncate(1);
    let rendered = env.render(&s.send());
    assert!(!rendered.contains("warning"), "{rendered:.2000}");
}

#[test]
fn frames_pushed_from_a_shell_or_by_another_session_do_not_fold() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Start");
    // A person pushes in a shell; the session pops it: there is no span to fold.
    let id = env.ok(&["frame", "push", "--parent", SESSION, "From the shell"]);
    s.tool("bash", json!({"command": "a"}), &big("SHELL"));
    env.ok(&["frame", "pop", "--frame", id.trim(), "--summary", "x"]);
    assert!(text_of(&s.request()).contains("SHELL:"));
    let state: Value = serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap();
    assert!(state["frames"][id.trim()].get("opencodeSpan").is_none());
}

#[test]
fn a_push_run_through_bash_folds_by_the_time_of_its_call() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Start");
    // The model runs `ctx frame push` and `ctx frame pop` through bash, with CTX_SESSION set by
    // the plugin: ctx knows neither message nor call, only the time, which falls within the
    // bash call's own.
    let bash_ctx = |s: &mut Session, args: &[&str]| {
        s.tool(
            "bash",
            json!({"command": format!("ctx {}", args.join(" "))}),
            "",
        );
        let start = now_ms();
        let out = env
            .ctx()
            .args(args)
            .env("CTX_SESSION", SESSION)
            .output()
            .unwrap();
        assert!(out.status.success());
        let end = now_ms();
        let last = s.messages.last_mut().unwrap();
        last["parts"][0]["state"]["time"] = json!({"start": start, "end": end});
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    bash_ctx(&mut s, &["frame", "push", "By bash"]);
    s.clock = now_ms() + 1;
    s.tool("bash", json!({"command": "work"}), &big("BASHWORK"));
    std::thread::sleep(std::time::Duration::from_millis(5));
    bash_ctx(&mut s, &["frame", "pop", "--summary", "Bash frame done"]);
    let text = text_of(&s.request());
    assert!(!text.contains("BASHWORK:"), "not folded");
    // Popped through bash, not by a flame_pop call: the entry carries the summary.
    assert!(text.contains("<summary>Bash frame done</summary>"));
}

#[test]
fn broken_records_send_the_messages_unfolded_and_lose_nothing() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Start");
    let a = s.push("A");
    s.tool("bash", json!({"command": "a"}), &big("AAA"));
    let b = s.push("B");
    s.pop("B done", "completed");
    s.tool("bash", json!({"command": "c"}), &big("CCC"));
    s.pop("A done", "completed");
    // A hand edit makes the two spans cross (A: its push to B's pop; B: its push to A's pop):
    // neither folds.
    let mut state: Value = serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap();
    let a_close = state["frames"][&a]["opencodeSpan"]["close"].clone();
    state["frames"][&a]["opencodeSpan"]["close"] =
        state["frames"][&b]["opencodeSpan"]["close"].clone();
    state["frames"][&b]["opencodeSpan"]["close"] = a_close;
    write_state(&env, &state);
    let out = s.send();
    let rendered = env.render(&out);
    assert!(out.status.success(), "{rendered}");
    assert!(
        rendered.contains(&format!(
            "warning: frame {a}: its span crosses another frame's span"
        )),
        "{rendered}"
    );
    let sent = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(sent.contains("AAA:") && sent.contains("CCC:"));
    // A span key that is not ctx's is reported; the frame stays unfolded.
    state["frames"][&a]["opencodeSpan"] = json!("not a span");
    state["frames"][&b]["opencodeSpan"] = json!({"sessionID": SESSION});
    write_state(&env, &state);
    let out = s.send();
    let rendered = env.render(&out);
    assert!(out.status.success(), "{rendered}");
    assert!(
        rendered.contains(&format!(
            "warning: frame {a}: opencodeSpan: not an object; not folded"
        )),
        "{rendered}"
    );
    assert!(
        rendered.contains(&format!(
            "warning: frame {b}: opencodeSpan: no open mark; not folded"
        )),
        "{rendered}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("AAA:"));
    // A session file that is not ctx's is moved aside, kept as it was, and started anew
    // (tests/cli/hook_mode.rs has every kind of broken file).
    env.write(&format!(".opencode/flame/sessions/{SESSION}.json"), "{oops");
    let out = s.send();
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    assert!(env.render(&out).contains("not a session file of ctx"));
    assert!(
        std::fs::read_dir(env.path(".opencode/flame/sessions"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .any(|p| p.to_string_lossy().contains(".json.broken-")
                && std::fs::read_to_string(&p).unwrap() == "{oops"),
    );
    // A session id that is not an id never becomes a path.
    let input = json!({ "messages": s.messages }).to_string();
    let out = env.run_stdin(
        &["opencode", "messages", "--session", "../x"],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    // Not a message list.
    let out = env.run_stdin(
        &["opencode", "messages", "--session", SESSION],
        b"{\"messages\": 5}",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        env.render(&out)
            .contains("<stdin>: not an OpenCode message list: /messages is not an array")
    );
}

#[test]
fn huge_outputs_and_control_bytes_fold_and_are_logged_cut() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Start");
    let frame = s.push("Huge");
    let huge = format!("\u{1b}[31mred\u{1b}[0m\u{0}{}", "x".repeat(50 << 20));
    s.tool("bash", json!({"command": "cat big"}), &huge);
    let (message, call) = s.tool("flame_pop", json!({"summary": "Read it"}), "Popped");
    // The plugin's pop passes the session's messages since the push, for the log.
    let export = json!({"info": {"id": SESSION, "title": "Root"}, "messages": s.messages[1..]});
    let out = env.run_stdin(
        &[
            "frame",
            "pop",
            "--session",
            SESSION,
            "--span-message",
            &message,
            "--span-call",
            &call,
            "--summary",
            "Read the big file",
            "--transcript",
            "-",
        ],
        export.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{}", env.render(&out));
    let sent = text_of(&s.request());
    assert!(sent.len() < 100_000, "{} bytes sent", sent.len());
    assert!(sent.contains("Read the big file"));
    // The log keeps 256 KiB of the output, says what it cut, and shows control bytes as text.
    let log = env.read(&format!(".opencode/flame/logs/frame-{frame}.md"));
    assert!(log.len() < 300_000, "{} bytes of log", log.len());
    assert!(
        log.contains("\\x1b[31mred\\x1b[0m\\x00xxx"),
        "control bytes"
    );
    let total = huge.len();
    let cut = total - (256 << 10);
    assert!(
        log.contains(&format!(
            "[output cut: {cut} of {total} bytes left out (frame.log.output_max = 262144)]"
        )),
        "no cut marker"
    );
    assert!(log.contains("Input:\n\n```json\n{\n  \"command\": \"cat big\"\n}\n```"));
    // With no limit, everything is kept.
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "[frame.log]\noutput_max = 0\n");
    env.ok(&["frame", "push", "Whole"]);
    let out = env.run_stdin(
        &["frame", "pop", "--transcript", "-"],
        export.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{}", env.render(&out));
    let logs = std::fs::read_dir(env.path(".opencode/flame/logs")).unwrap();
    let log = std::fs::read_to_string(logs.into_iter().next().unwrap().unwrap().path()).unwrap();
    assert!(log.len() > 50 << 20);
}

#[test]
fn fold_off_puts_the_context_into_the_last_user_message_as_before() {
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "[opencode]\nfold = \"off\"\n");
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Start");
    s.push("A");
    s.tool("bash", json!({"command": "a"}), &big("OFF"));
    s.pop("A done", "completed");
    let sent = s.request();
    let text = text_of(&sent);
    assert!(text.contains("OFF:"));
    assert_eq!(sent.len(), s.messages.len());
    let parts = sent[0]["parts"].as_array().unwrap();
    assert!(
        parts.last().unwrap()["text"]
            .as_str()
            .unwrap()
            .starts_with("<flame-context")
    );
    // No context recorded: only the time of the request, which tells a quiet subagent.
    let file = session_file(&env, SESSION);
    assert_eq!(file["contexts"], json!([]));
    assert!(file["lastRequest"].is_i64(), "{file}");
}

#[test]
fn slash_commands_push_and_pop_in_user_messages() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    // `/push` runs ctx before OpenCode stores the command's message, which holds ctx's answer.
    let id = env.ok(&["frame", "push", "--session", SESSION, "By command"]);
    let id = id.trim();
    s.clock = now_ms();
    s.user(&format!(
        "ctx ran /push for this session:\n\nPushed frame {id}"
    ));
    s.tool("bash", json!({"command": "a"}), &big("CMDWORK"));
    std::thread::sleep(std::time::Duration::from_millis(5));
    env.ok(&[
        "frame",
        "pop",
        "--session",
        SESSION,
        "--summary",
        "Done by command",
    ]);
    s.clock = now_ms();
    s.user(&format!(
        "ctx ran /pop for this session:\n\nPopped frame {id}"
    ));
    let text = strings_of(&s.request());
    assert!(!text.contains("CMDWORK:"), "not folded: {text:.2000}");
    assert!(text.contains(&format!(
        "<flame-folded id=\"{id}\">\n<summary>Done by command</summary>"
    )));
    // The /push message folds with the span (it opened it); the /pop message carries the entry.
    assert!(!text.contains("ctx ran /push") && text.contains("ctx ran /pop"));
}

#[test]
fn a_second_pop_or_another_sessions_pop_changes_no_span() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    env.ok(&["opencode", "frame", "ses_other", "--title", "Other"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Start");
    let frame = s.push("Twice");
    s.tool("bash", json!({"command": "a"}), &big("TWICE"));
    s.pop("First pop", "completed");
    let before: Value = serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap();
    // Popped again, by the session or by another: refused, and the span is as it was.
    for session in [SESSION, "ses_other"] {
        let out = env.run(&["frame", "pop", "--frame", &frame, "--session", session]);
        assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    }
    let after: Value = serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap();
    assert_eq!(
        before["frames"][&frame]["opencodeSpan"],
        after["frames"][&frame]["opencodeSpan"]
    );
    assert!(!strings_of(&s.request()).contains("TWICE:"));
    // A frame this session pushed and another session popped keeps its span open: not folded.
    let (message, call) = s.tool("flame_push", json!({"goal": "Handed over"}), "");
    let other = env.ok(&[
        "frame",
        "push",
        "--session",
        SESSION,
        "--span-message",
        &message,
        "--span-call",
        &call,
        "Handed over",
    ]);
    s.tool("bash", json!({"command": "b"}), &big("HANDED"));
    env.ok(&[
        "frame",
        "pop",
        "--frame",
        other.trim(),
        "--session",
        "ses_other",
    ]);
    assert!(strings_of(&s.request()).contains("HANDED:"));
    let state: Value = serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap();
    assert!(
        state["frames"][other.trim()]["opencodeSpan"]
            .get("close")
            .is_none()
    );
}

#[test]
fn sessions_folding_at_once_keep_every_record() {
    let env = TestEnv::new();
    let sessions: Vec<String> = (0..4).map(|n| format!("ses_par{n}")).collect();
    let mut inputs = Vec::new();
    for id in &sessions {
        env.ok(&["opencode", "frame", id, "--title", "Parallel"]);
        let mut s = Session::new(&env, id);
        // Each session has many boundaries, so every request records a new context.
        for n in 0..8 {
            s.user(&format!("prompt {n}"));
            inputs.push((id.clone(), json!({ "messages": s.messages }).to_string()));
        }
    }
    let children: Vec<_> = inputs
        .iter()
        .map(|(id, input)| {
            use std::io::Write;
            let mut child = env
                .std_command()
                .args(["opencode", "messages", "--session", id])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Every session's file holds one record per boundary it was sent with, none lost.
    for id in &sessions {
        let file = session_file(&env, id);
        let mut after: Vec<&str> = file["contexts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["after"].as_str().unwrap())
            .collect();
        after.sort_unstable();
        after.dedup();
        assert_eq!(after.len(), 8, "{id}: {file}");
    }
}

#[test]
fn a_message_that_pops_one_frame_and_pushes_the_next_keeps_the_first_entry() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Start");
    let first = s.push("First");
    s.tool("bash", json!({"command": "a"}), &big("FIRST"));
    // One assistant message with two calls: flame_pop, then flame_push.
    let id = s.next_id("msg");
    let (pop_call, push_call) = (format!("call_pop_{id}"), format!("call_push_{id}"));
    let part = |tool: &str, call: &str, output: &str| {
        json!({"type": "tool", "tool": tool, "callID": call,
               "state": {"status": "completed", "input": {}, "output": output,
                         "time": {"start": 1, "end": 2}}})
    };
    s.messages.push(json!({
        "info": {"id": id, "sessionID": SESSION, "role": "assistant", "time": {"created": s.clock}},
        "parts": [part("flame_pop", &pop_call, "Popped"), part("flame_push", &push_call, "Pushed")],
    }));
    let span = |call: &str| ["--span-message", id.as_str(), "--span-call", call].map(String::from);
    let mut pop = vec![
        "frame",
        "pop",
        "--session",
        SESSION,
        "--summary",
        "First done",
    ];
    let pop_span = span(&pop_call);
    pop.extend(pop_span.iter().map(String::as_str));
    env.ok(&pop);
    let mut push = vec!["frame", "push", "--session", SESSION];
    let push_span = span(&push_call);
    push.extend(push_span.iter().map(String::as_str));
    push.push("Second");
    env.ok(&push);
    s.tool("bash", json!({"command": "b"}), &big("SECOND"));
    s.pop("Second done", "completed");
    let text = strings_of(&s.request());
    assert!(!text.contains("FIRST:") && !text.contains("SECOND:"));
    assert!(
        text.contains(&format!("<flame-folded id=\"{first}\"")),
        "{text:.3000}"
    );
    assert!(text.contains("Second done"));
}

#[test]
fn invalidated_and_blocked_frames_fold_and_a_resumed_one_unfolds() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Root"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Start");
    // flame_invalidate on the session's own running frame closes its span too.
    let dropped = s.push("Dropped plan");
    s.tool("bash", json!({"command": "a"}), &big("DROPPED"));
    let (message, call) = s.tool("flame_invalidate", json!({"reason": "Out of scope"}), "");
    env.ok(&[
        "frame",
        "invalidate",
        "--session",
        SESSION,
        "--span-message",
        &message,
        "--span-call",
        &call,
        "--reason",
        "Out of scope",
    ]);
    let text = strings_of(&s.request());
    assert!(!text.contains("DROPPED:"));
    // Invalidated without a pop, it has no log, and its entry says so.
    assert!(text.contains(&format!(
        "<flame-folded id=\"{dropped}\" status=\"invalidated\" log=\"\">"
    )));
    assert!(text.contains("<reason>Out of scope</reason>"));
    // A blocked frame folds; resumed by the session, its span is open again and it unfolds.
    let waiting = s.push("Wait for credentials");
    s.tool("bash", json!({"command": "b"}), &big("WAITING"));
    s.pop("Waiting for the SMTP credentials", "blocked");
    let text = strings_of(&s.request());
    assert!(!text.contains("WAITING:"));
    assert!(text.contains(&format!(
        "<flame-folded id=\"{waiting}\" status=\"blocked\""
    )));
    let (message, call) = s.tool("flame_activate", json!({"sessionID": waiting}), "");
    env.ok(&[
        "frame",
        "activate",
        "--session",
        SESSION,
        "--span-message",
        &message,
        "--span-call",
        &call,
        &waiting,
    ]);
    let text = strings_of(&s.request());
    assert!(
        text.contains("WAITING:"),
        "a resumed frame's work is sent again"
    );
}

/// The texts of ctx's own synthetic messages (contexts, fold entries put as messages) and of
/// every tool output, in order: what ctx said in the request.
fn said_by_ctx(list: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    for m in list {
        for p in m["parts"].as_array().unwrap() {
            if p["synthetic"] == true {
                out.push(p["text"].as_str().unwrap().to_string());
            } else if p["tool"].as_str().is_some_and(|t| t.starts_with("flame_")) {
                out.push(p["state"]["output"].as_str().unwrap_or("").to_string());
            }
        }
    }
    out
}

#[test]
fn a_context_repeats_nothing_the_entries_or_the_context_before_it_said() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Build billing"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Build the billing service");
    s.request();
    let first = s.push("Verify signatures");
    s.tool("bash", json!({"command": "make"}), "ok");
    s.pop("Signatures are checked", "completed");
    s.request();
    let second = s.push("Handle refunds");
    let sent = s.request();
    let said = said_by_ctx(&sent);
    // The root's context after the person's message; the first frame folded to its entry (no
    // status: completed; no goal: its summary says what came of it; no summary: its flame_pop
    // call, which stays, holds it; the root's context after
    // that pop equals the one in view, and is not sent again); after the
    // second push no context: without the root (said just above), its completed sibling (its
    // entry says it) and the budgets, it would say only the goal, which the push says.
    assert_eq!(
        said,
        [
            format!(
                "<flame-context session=\"{SESSION}\">\n  <current-frame id=\"{SESSION}\" \
                 status=\"in_progress\">\n    <goal>Build billing</goal>\n  </current-frame>\n\
                 </flame-context>"
            ),
            format!("<flame-folded id=\"{first}\"/>"),
            format!("Pushed frame {second}"),
        ]
    );
    // What the frame gains later is said after the next boundary, and only that is new (its
    // goal is in its push call, still in the request).
    env.ok(&["frame", "artifact", "--session", SESSION, "src/refund.rs"]);
    s.user("Go on");
    let said = said_by_ctx(&s.request());
    assert_eq!(
        said.last().unwrap(),
        &format!(
            "<flame-context session=\"{second}\">\n  <current-frame id=\"{second}\" \
             status=\"in_progress\">\n    <artifacts>src/refund.rs</artifacts>\n  \
             </current-frame>\n</flame-context>"
        )
    );
    // `ctx compact render` still gives the whole context, as flame.md has it.
    let full = env.ok(&["compact", "render", "--for", "frame", "--frame", &second]);
    assert!(full.contains("<metadata>") && full.contains("<completed-siblings count=\"1\">"));
}

/// The texts of the frame contexts in `list`, in order.
fn contexts(list: &[Value]) -> Vec<String> {
    said_by_ctx(list)
        .into_iter()
        .filter(|t| t.starts_with("<flame-context"))
        .collect()
}

#[test]
fn a_context_leaves_out_the_goals_of_pushes_still_in_the_request() {
    let env = TestEnv::new();
    let mut s = Session::new(&env, SESSION);
    s.user("Work through the refund backlog");
    // The session has no frame yet (the plugin makes it at the first tool call): no context.
    assert_eq!(contexts(&s.request()), Vec::<String>::new());
    env.ok(&["opencode", "frame", SESSION, "--title", "Refund backlog"]);
    let outer = s.push("Item 4");
    // The first context names the session's frame, which nothing in the request named.
    let first = format!(
        "<flame-context session=\"{outer}\">\n  <ancestors count=\"1\">\n    \
         <frame id=\"{SESSION}\" status=\"in_progress\">\n      \
         <goal>Refund backlog</goal>\n    </frame>\n  </ancestors>\n</flame-context>"
    );
    assert_eq!(contexts(&s.request()), std::slice::from_ref(&first));
    s.tool("bash", json!({"command": "make"}), &big("OUTER"));
    // A nested push: its parent's flame_push call, still in the request, holds the parent's goal
    // and its output the parent's id; the session's frame was shown just above: nothing to say.
    let inner = s.push("Item 4: the rounding detail");
    assert_eq!(contexts(&s.request()), std::slice::from_ref(&first));
    s.tool("bash", json!({"command": "check"}), &big("INNER"));
    s.pop("Rounding is half-even", "completed");
    // Back in the outer frame, whose push is in view: nothing to say either.
    let sent = s.request();
    assert_eq!(contexts(&sent), std::slice::from_ref(&first));
    assert!(strings_of(&sent).contains(&format!("<flame-folded id=\"{inner}\"/>")));
    // What the outer frame gains is said, but not its goal, which its push call holds.
    env.ok(&["frame", "artifact", "--session", SESSION, "src/round.rs"]);
    s.user("Go on");
    assert_eq!(
        contexts(&s.request()).last().unwrap(),
        &format!(
            "<flame-context session=\"{outer}\">\n  <current-frame id=\"{outer}\" \
             status=\"in_progress\">\n    <artifacts>src/round.rs</artifacts>\n  \
             </current-frame>\n</flame-context>"
        )
    );
    // Popped back to the session's own frame, which nothing left in the request names: its
    // context is sent, once.
    s.pop("Item 4 done", "completed");
    let sent = s.request();
    let root = format!(
        "<flame-context session=\"{SESSION}\">\n  <current-frame id=\"{SESSION}\" \
         status=\"in_progress\">\n    <goal>Refund backlog</goal>\n  </current-frame>\n\
         </flame-context>"
    );
    assert_eq!(contexts(&sent), std::slice::from_ref(&root));
    assert!(strings_of(&sent).contains(&format!(
        "<flame-folded id=\"{outer}\">\n<artifact>src/round.rs</artifact>\n</flame-folded>"
    )));
    // It shows the session's frame for the pushes after it: theirs say nothing more.
    s.push("Item 5");
    assert_eq!(contexts(&s.request()), std::slice::from_ref(&root));
}

/// The input and output of each `flame_pop` call in `list`, in order.
fn pop_calls(list: &[Value]) -> Vec<(Value, String)> {
    let mut out = Vec::new();
    for m in list {
        for p in m["parts"].as_array().unwrap() {
            if p["tool"] == "flame_pop" {
                let state = &p["state"];
                out.push((
                    state["input"].clone(),
                    state["output"].as_str().unwrap_or("").to_string(),
                ));
            }
        }
    }
    out
}

#[test]
fn a_pop_call_that_holds_the_summary_keeps_it_and_the_entry_does_not_repeat_it() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Build billing"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Build the billing service");
    // Popped by flame_pop with its summary: the call stays as the model wrote it, and the entry
    // says only which frame folded (its log is where every pop writes it).
    let first = s.push("Verify signatures");
    s.tool("bash", json!({"command": "make"}), &big("FIRSTWORK"));
    s.pop("Signatures are checked", "completed");
    // Failed, with an artifact: the entry keeps the status, the goal and the artifact, which
    // the call does not hold, and leaves out the summary, which it does.
    let second = s.push("Handle refunds");
    env.ok(&["frame", "artifact", "--session", SESSION, "src/refund.rs"]);
    s.pop("The ledger API is down", "failed");
    // Popped by a call whose summary is not the one recorded (a plugin that rewrote it, say):
    // the whole entry, and the call's input is not sent.
    let third = s.push("Round cents");
    let (message, call) = s.tool(
        "flame_pop",
        json!({"summary": "what the model wrote"}),
        "Popped",
    );
    env.ok(&[
        "frame",
        "pop",
        "--session",
        SESSION,
        "--span-message",
        &message,
        "--span-call",
        &call,
        "--summary",
        "Cents are rounded half-even",
    ]);
    assert_eq!(
        pop_calls(&s.request()),
        [
            (
                json!({"summary": "Signatures are checked"}),
                format!("<flame-folded id=\"{first}\"/>"),
            ),
            (
                json!({"summary": "The ledger API is down"}),
                format!(
                    "<flame-folded id=\"{second}\" status=\"failed\">\n\
                     <goal>Handle refunds</goal>\n<artifact>src/refund.rs</artifact>\n\
                     </flame-folded>"
                ),
            ),
            (
                json!({}),
                format!(
                    "<flame-folded id=\"{third}\">\n\
                     <summary>Cents are rounded half-even</summary>\n</flame-folded>"
                ),
            ),
        ]
    );
}

#[test]
fn each_request_records_when_the_session_last_called_the_model_without_a_write_per_call() {
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Build billing"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Build the billing service");
    let before = now_ms();
    s.request();
    let seen = session_file(&env, SESSION)["lastRequest"].as_i64().unwrap();
    assert!(before <= seen && seen <= now_ms(), "{seen}");
    // Recorded lately (here: in the future): a request that anchors nothing leaves the file as
    // it is, byte for byte.
    let path = format!(".opencode/flame/sessions/{SESSION}.json");
    let mut doc = session_file(&env, SESSION);
    doc["lastRequest"] = json!(4_102_444_800_000_i64);
    env.write(&path, doc.to_string());
    s.request();
    assert_eq!(env.read(&path), doc.to_string());
    // Recorded long ago: the request records it anew, and keeps the contexts.
    doc["lastRequest"] = json!(1_577_836_800_000_i64);
    env.write(&path, doc.to_string());
    s.request();
    let after = session_file(&env, SESSION);
    assert!(after["lastRequest"].as_i64().unwrap() >= before);
    assert_eq!(after["contexts"], doc["contexts"]);
    // With folding off too: the record is what makes a quiet subagent's frame stale.
    env.write(".opencode/ctx.toml", "[opencode]\nfold = \"off\"\n");
    env.write(&path, doc.to_string());
    s.request();
    assert!(session_file(&env, SESSION)["lastRequest"].as_i64().unwrap() >= before);
}

#[test]
fn ctxs_transform_run_again_on_what_it_sent_changes_nothing() {
    // ctx's plugin loaded twice (globally and in the project), or a plugin between that hands
    // ctx's messages back: the second run sees ctx's own contexts and fold entries.
    let env = TestEnv::new();
    env.ok(&["opencode", "frame", SESSION, "--title", "Build billing"]);
    let mut s = Session::new(&env, SESSION);
    s.user("Build the billing service");
    s.request();
    s.push("Outer");
    s.request();
    s.push("Inner");
    s.tool("bash", json!({"command": "make"}), &big("INNER"));
    s.pop("Inner done", "completed");
    s.user("Go on");
    s.request();
    s.pop("Outer done", "completed");
    s.tool("bash", json!({"command": "ls"}), "ls");
    let sent = s.request();
    assert!(said_by_ctx(&sent).len() >= 2, "{:?}", said_by_ctx(&sent));
    let input = json!({ "messages": sent }).to_string();
    let out = env.run_stdin(
        &["opencode", "messages", "--session", SESSION],
        input.as_bytes(),
    );
    assert!(out.status.success(), "{}", env.render(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "warning: the messages already hold ctx's contexts or fold entries (is ctx's plugin \
         loaded twice, globally and in the project?); each is sent once\n"
    );
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["messages"], json!(sent));
}

/// Turn frames (`frame.auto = turns`): the plugin opens one at each person's message and
/// closes it at the end of turn; the closed turn's outputs fold, its texts stay.
mod turns {
    use super::*;

    /// A person's message, and the turn the plugin opens for it (its id, or "" for none).
    fn person(s: &mut Session<'_>, text: &str) -> String {
        s.user(text);
        let message = s.messages.last().unwrap()["info"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let out = s.env.ok(&[
            "opencode", "turn", SESSION, "--start", &message, "--goal", text,
        ]);
        out.trim().to_string()
    }

    /// The end of turn, with the session's messages as the plugin passes them.
    fn end(s: &Session<'_>) -> String {
        let export = json!({"info": {"id": SESSION}, "messages": s.messages});
        let out = s.env.run_stdin(
            &["opencode", "turn", SESSION, "--end", "--transcript", "-"],
            export.to_string().as_bytes(),
        );
        assert!(out.status.success(), "{}", s.env.render(&out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    #[test]
    fn a_closed_turns_outputs_fold_and_its_texts_and_first_call_stay() {
        let env = env_with("turns");
        let mut s = Session::new(&env, SESSION);
        let first = person(&mut s, "PERSON0: build it\nwith care");
        assert!(first.starts_with("fr_"), "{first}");
        s.tool("bash", json!({"command": "make"}), &big("OUT0"));
        s.text("ASSIST0: built");
        // While the turn runs, nothing of it folds.
        let open = s.request();
        assert!(strings_of(&open).contains(&big("OUT0")));
        assert_eq!(end(&s), first);
        let second = person(&mut s, "PERSON1: test it");
        assert!(second.starts_with("fr_") && second != first);
        let sent = s.request();
        let text = strings_of(&sent);
        assert!(
            !text.contains("OUT0:"),
            "the first turn's output is sent again"
        );
        assert!(text.contains(&format!("into the log of frame {first}: flame_recall")));
        for kept in [
            "PERSON0: build it\nwith care",
            "ASSIST0: built",
            "PERSON1: test it",
        ] {
            assert!(text.contains(kept), "{kept} is not sent");
        }
        // Every stored message is sent; the turn's one call keeps its id, its input emptied and
        // its output the turn's entry.
        let stored: Vec<&Value> = s.messages.iter().collect();
        let ids = |list: &[&Value]| -> Vec<String> {
            list.iter()
                .map(|m| m["info"]["id"].as_str().unwrap().to_string())
                .collect()
        };
        let sent_ids = ids(&sent
            .iter()
            .filter(|m| m["parts"][0]["synthetic"] != json!(true))
            .collect::<Vec<_>>());
        assert_eq!(sent_ids, ids(&stored));
        let call = &sent
            .iter()
            .find(|m| m["info"]["id"] == s.messages[1]["info"]["id"])
            .unwrap()["parts"][0];
        assert_eq!(call["state"]["input"], json!({}));
        assert_eq!(call["callID"], s.messages[1]["parts"][0]["callID"]);
        // The log gives the output back, and the tree shows the turn closed and marked.
        assert!(env.ok(&["frame", "log", &first]).contains(&big("OUT0")));
        let tree = env.ok(&["frame", "tree"]);
        assert!(
            tree.contains("✓ PERSON0: build it (") && tree.contains(") turn"),
            "{tree}"
        );
        assert!(tree.lines().all(|l| l.chars().count() <= 80));
        let show = env.ok(&["frame", "show", &first]);
        assert!(
            show.contains("summary: ASSIST0: built")
                && show.contains("Commands: `make` (completed)"),
            "{show}"
        );
        // Closed turns are not listed one by one in the frame context.
        let context = env.ok(&["compact", "render", "--for", "frame", "--session", SESSION]);
        assert!(!context.contains(&first), "{context}");
    }

    #[test]
    fn with_fold_after_a_closed_turn_is_sent_whole_until_that_many_person_messages_followed_it() {
        let env = env_with_settings("frame.auto = \"turns\"\nframe.fold_after = 2\n");
        let mut s = Session::new(&env, SESSION);
        // Messages stamped by the same clock as ctx's marks, as OpenCode's are.
        s.clock = now_ms();
        let first = person(&mut s, "PERSON0: build it");
        s.tool("bash", json!({"command": "make"}), &big("OUT0"));
        assert_eq!(end(&s), first);
        // One person's message after it: still whole.
        s.clock = now_ms();
        person(&mut s, "PERSON1: test it");
        s.tool("bash", json!({"command": "make test"}), &big("OUT1"));
        let sent = strings_of(&s.request());
        assert!(sent.contains(&big("OUT0")) && sent.contains(&big("OUT1")));
        end(&s);
        // Two: the first turn folds; the second, one message behind, is still whole.
        s.clock = now_ms();
        person(&mut s, "PERSON2: ship it");
        let sent = strings_of(&s.request());
        assert!(!sent.contains("OUT0:"), "the first turn is sent whole");
        assert!(sent.contains(&format!("into the log of frame {first}: flame_recall")));
        assert!(sent.contains(&big("OUT1")));
        // The setting is shown with the others.
        assert!(env.ok(&["config"]).contains("frame.fold_after = 2"));
    }

    #[test]
    fn a_push_in_a_turn_goes_under_it_and_the_turn_waits_for_it() {
        let env = env_with("all");
        let mut s = Session::new(&env, SESSION);
        let turn = person(&mut s, "PERSON0: do it");
        let pushed = s.push("A part of it");
        let show: Value =
            serde_json::from_str(&env.ok(&["frame", "show", &pushed, "--json"])).unwrap();
        assert_eq!(show["frame"]["parent"], json!(turn));
        // The end of turn leaves it open while the model's frame runs, and the person's next
        // message is the waiting turn's.
        assert_eq!(end(&s), "");
        assert_eq!(person(&mut s, "PERSON1: go on"), "");
        s.pop("Done", "completed");
        assert_eq!(end(&s), turn);
    }

    #[test]
    fn with_frame_auto_off_no_turn_opens_and_nothing_folds() {
        let env = env_with("off");
        let mut s = Session::new(&env, SESSION);
        assert_eq!(person(&mut s, "PERSON0: build it"), "");
        s.tool("bash", json!({"command": "make"}), &big("OUT0"));
        assert_eq!(end(&s), "");
        person(&mut s, "PERSON1");
        assert!(strings_of(&s.request()).contains(&big("OUT0")));
        assert!(!env.read(".opencode/flame/state.json").contains("\"auto\""));
    }

    #[test]
    fn a_turn_whose_end_was_not_seen_is_closed_by_the_next_persons_message() {
        let env = env_with("turns");
        let mut s = Session::new(&env, SESSION);
        let first = person(&mut s, "PERSON0");
        s.tool("bash", json!({"command": "make"}), &big("OUT0"));
        let second = person(&mut s, "PERSON1");
        assert_ne!(first, second);
        let show = env.ok(&["frame", "show", &first]);
        assert!(
            show.contains("completed") && show.contains("end was not seen"),
            "{show}"
        );
        assert!(!strings_of(&s.request()).contains("OUT0:"));
    }
}

/// Todo frames (`frame.auto = todos` or `all`): `ctx opencode messages` opens a frame when a
/// `todowrite` call sets an item in progress and closes it when a later call ends the item; the
/// closed item's outputs fold while its turn still runs.
mod todos {
    use super::*;

    /// A `todowrite` call with `items` as (content, status).
    fn todo(s: &mut Session<'_>, items: &[(&str, &str)]) {
        let todos: Vec<Value> = items
            .iter()
            .map(|(content, status)| json!({"content": content, "status": status, "priority": "high"}))
            .collect();
        s.tool("todowrite", json!({ "todos": todos }), "[the list]");
    }

    fn frames(env: &TestEnv) -> Vec<Value> {
        let state: Value = serde_json::from_str(&env.read(".opencode/flame/state.json")).unwrap();
        let mut frames: Vec<Value> = state["frames"]
            .as_object()
            .unwrap()
            .values()
            .filter(|f| f["auto"] == "todo")
            .cloned()
            .collect();
        frames.sort_by_key(|f| f["createdAt"].as_i64());
        frames
    }

    /// Each todo frame as (goal, status, the first line of its summary).
    fn items(env: &TestEnv) -> Vec<(String, String, String)> {
        frames(env)
            .iter()
            .map(|f| {
                let summary = f["compactionSummary"]
                    .as_str()
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("");
                (
                    f["goal"].as_str().unwrap().to_string(),
                    f["status"].as_str().unwrap().to_string(),
                    summary.to_string(),
                )
            })
            .collect()
    }

    fn item(goal: &str, status: &str, summary: &str) -> (String, String, String) {
        (goal.into(), status.into(), summary.into())
    }

    #[test]
    fn a_finished_items_outputs_fold_while_the_turn_runs_and_its_log_gives_them_back() {
        let env = env_with("all");
        let mut s = Session::new(&env, SESSION);
        s.user("PERSON0: migrate both");
        let turn = env
            .ok(&[
                "opencode",
                "turn",
                SESSION,
                "--start",
                s.messages[0]["info"]["id"].as_str().unwrap(),
            ])
            .trim()
            .to_string();
        todo(
            &mut s,
            &[("Migrate m1", "in_progress"), ("Migrate m2", "pending")],
        );
        s.request();
        s.tool("bash", json!({"command": "migrate m1"}), &big("OUT1A"));
        s.tool("bash", json!({"command": "check m1"}), &big("OUT1B"));
        s.text("ASSIST: m1 is migrated");
        // One call ends the first item and starts the next.
        todo(
            &mut s,
            &[("Migrate m1", "completed"), ("Migrate m2", "in_progress")],
        );
        s.tool("bash", json!({"command": "migrate m2"}), &big("OUT2"));
        let sent = s.request();
        let text = strings_of(&sent);
        let frames = frames(&env);
        assert_eq!(frames.len(), 2);
        let (m1, m2) = (
            frames[0]["sessionID"].as_str().unwrap(),
            frames[1]["sessionID"].as_str().unwrap(),
        );
        assert!(
            !text.contains("OUT1A:") && !text.contains("OUT1B:"),
            "m1's outputs are sent again"
        );
        assert!(text.contains(&format!(
            "into the log of frame {m1}, item \"Migrate m1\": flame_recall"
        )));
        assert!(
            text.contains(&big("OUT2")),
            "the running item's output is folded"
        );
        for kept in [
            "PERSON0: migrate both",
            "ASSIST: m1 is migrated",
            "[the list]",
        ] {
            assert!(text.contains(kept), "{kept} is not sent");
        }
        // m1's first call stays (its input emptied) for the entry; its second goes, and with it
        // the message that held only that call; so does the call that set m1 in progress, which
        // the entry names, and its message. The call that ended m1 holds the last list: it
        // stays. The context is one message more.
        assert!(!text.contains("migrate m1") && !text.contains("check m1"));
        assert_eq!(sent.len(), s.messages.len() - 1, "a message went missing");
        let lists = sent
            .iter()
            .flat_map(|m| m["parts"].as_array().into_iter().flatten())
            .filter(|p| p["tool"] == "todowrite")
            .count();
        assert_eq!(lists, 1, "the call that set m1 in progress is sent");
        // Both items are frames of the turn, side by side; the first is closed with what it ran.
        assert_eq!(frames[0]["parentSessionID"], json!(turn));
        assert_eq!(frames[1]["parentSessionID"], json!(turn));
        assert_eq!(
            items(&env),
            [
                item("Migrate m1", "completed", "ASSIST: m1 is migrated"),
                item("Migrate m2", "in_progress", ""),
            ]
        );
        assert!(
            frames[0]["compactionSummary"]
                .as_str()
                .unwrap()
                .ends_with("Commands: `migrate m1` (completed); `check m1` (completed)")
        );
        let log = env.ok(&["frame", "log", m1]);
        assert!(log.contains(&big("OUT1A")) && log.contains(&big("OUT1B")));
        assert!(!log.contains("OUT2"));
        let tree = env.ok(&["frame", "tree"]);
        assert!(
            tree.contains("✓ Migrate m1 (") && tree.contains(") todo"),
            "{tree}"
        );
        assert_eq!(
            env.ok(&["frame", "current", "--session", SESSION]).trim(),
            m2
        );
        // The same request again (another plugin's retry) takes in nothing twice.
        let again = s.request();
        assert_eq!(again, sent);
        assert_eq!(super::todos::frames(&env).len(), 2);
    }

    #[test]
    fn lists_the_model_rewrites_in_every_way_keep_one_frame_per_item_in_progress() {
        let env = env_with("todos");
        let mut s = Session::new(&env, SESSION);
        s.user("PERSON0");
        // Completed without ever being in progress: no frame.
        todo(
            &mut s,
            &[("Done already", "completed"), ("Twice", "pending")],
        );
        // Two items in progress at once, one of them twice.
        todo(
            &mut s,
            &[
                ("A", "in_progress"),
                ("B", "in_progress"),
                ("B", "in_progress"),
            ],
        );
        // The same list again.
        todo(&mut s, &[("A", "in_progress"), ("B", "in_progress")]);
        s.request();
        assert_eq!(
            items(&env),
            [item("A", "in_progress", ""), item("B", "in_progress", "")]
        );
        // A renamed while in progress; B set to a status OpenCode does not document.
        todo(&mut s, &[("A, renamed", "in_progress"), ("B", "doing")]);
        s.request();
        // C in progress and cancelled; then the list cleared.
        todo(
            &mut s,
            &[("A, renamed", "in_progress"), ("C", "in_progress")],
        );
        todo(&mut s, &[("A, renamed", "in_progress"), ("C", "cancelled")]);
        todo(&mut s, &[]);
        s.request();
        let no_text = "No assistant text was written while the item was in progress.";
        assert_eq!(
            items(&env),
            [
                item(
                    "A",
                    "blocked",
                    "The item left the todo list before it was finished."
                ),
                item(
                    "B",
                    "blocked",
                    "The item was set to doing before it was finished."
                ),
                item(
                    "A, renamed",
                    "blocked",
                    "The item left the todo list before it was finished."
                ),
                item("C", "blocked", "The item was cancelled."),
            ]
        );
        assert!(
            frames(&env)[3]["compactionSummary"]
                .as_str()
                .unwrap()
                .contains(no_text)
        );
        // Without turns, items go under the session's frame.
        assert!(
            frames(&env)
                .iter()
                .all(|f| f["parentSessionID"] == json!(SESSION))
        );
    }

    #[test]
    fn an_item_its_turn_outlives_closes_blocked_and_opens_again_at_its_next_update() {
        let env = env_with("all");
        let mut s = Session::new(&env, SESSION);
        let start = |s: &mut Session<'_>, text: &str| {
            s.user(text);
            let message = s.messages.last().unwrap()["info"]["id"]
                .as_str()
                .unwrap()
                .to_string();
            s.env
                .ok(&["opencode", "turn", SESSION, "--start", &message])
                .trim()
                .to_string()
        };
        let first = start(&mut s, "PERSON0");
        todo(&mut s, &[("Long job", "in_progress")]);
        s.tool("bash", json!({"command": "step 1"}), &big("OUT1"));
        s.request();
        let export = json!({"info": {"id": SESSION}, "messages": s.messages});
        let out = env.run_stdin(
            &["opencode", "turn", SESSION, "--end", "--transcript", "-"],
            export.to_string().as_bytes(),
        );
        assert!(out.status.success(), "{}", env.render(&out));
        assert_eq!(
            items(&env),
            [item(
                "Long job",
                "blocked",
                "The turn ended before the item was finished."
            )]
        );
        let blocked = frames(&env)[0]["sessionID"].as_str().unwrap().to_string();
        assert!(env.ok(&["frame", "log", &blocked]).contains(&big("OUT1")));
        let second = start(&mut s, "PERSON1: go on");
        todo(&mut s, &[("Long job", "in_progress")]);
        let sent = s.request();
        // The first turn's output folds with the turn, whose log holds it.
        assert!(
            strings_of(&sent).contains(&format!("into the log of frame {first}")),
            "{}",
            env.ok(&["frame", "tree"])
        );
        let frames = frames(&env);
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[1]["parentSessionID"], json!(second));
        assert_eq!(frames[1]["status"], "in_progress");
    }

    #[test]
    fn an_item_waits_for_the_frame_pushed_in_it_and_closes_at_the_next_call() {
        let env = env_with("todos");
        let mut s = Session::new(&env, SESSION);
        s.user("PERSON0");
        todo(&mut s, &[("Item", "in_progress")]);
        s.request();
        let item_frame = frames(&env)[0]["sessionID"].as_str().unwrap().to_string();
        let pushed = s.push("A part of the item");
        let show: Value =
            serde_json::from_str(&env.ok(&["frame", "show", &pushed, "--json"])).unwrap();
        assert_eq!(show["frame"]["parent"], json!(item_frame));
        todo(&mut s, &[("Item", "completed")]);
        let input = json!({ "messages": s.messages }).to_string();
        let out = env.run_stdin(
            &["opencode", "messages", "--session", SESSION],
            input.as_bytes(),
        );
        assert!(out.status.success(), "{}", env.render(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("todo frame {item_frame} waits for {pushed}, pushed in it\n")
        );
        assert_eq!(items(&env)[0].1, "in_progress");
        s.pop("Done", "completed");
        todo(&mut s, &[("Item", "completed")]);
        s.request();
        assert_eq!(items(&env)[0].1, "completed");
    }

    #[test]
    fn a_todo_call_id_used_again_by_a_later_call_takes_in_no_call_twice() {
        // Some models and stand-ins number their calls anew in each process (`call_0`, ...): a
        // later todo call may carry an earlier one's id. ctx knows its last call by its message
        // too, so it never goes back to the first call of that id and replays the calls after it.
        let env = env_with("todos");
        let mut s = Session::new(&env, SESSION);
        s.user("PERSON0");
        let todo_as = |s: &mut Session<'_>, call: &str, items: &[(&str, &str)]| {
            todo(s, items);
            let last = s.messages.last_mut().unwrap();
            last["parts"][0]["callID"] = json!(call);
            s.request();
        };
        todo_as(&mut s, "call_0", &[("A", "in_progress")]);
        todo_as(
            &mut s,
            "call_1",
            &[("A", "completed"), ("B", "in_progress")],
        );
        todo_as(&mut s, "call_2", &[("A", "completed"), ("B", "completed")]);
        todo_as(
            &mut s,
            "call_0",
            &[("B", "completed"), ("C", "in_progress")],
        );
        todo_as(&mut s, "call_3", &[("B", "completed"), ("C", "completed")]);
        let done = "No assistant text was written while the item was in progress.";
        assert_eq!(
            items(&env),
            [
                item("A", "completed", done),
                item("B", "completed", done),
                item("C", "completed", done),
            ]
        );
    }

    #[test]
    fn a_todo_call_shared_with_an_item_that_waits_stays_until_that_item_folds() {
        let env = env_with_settings("frame.auto = \"todos\"\nframe.fold_after = 1\n");
        let mut s = Session::new(&env, SESSION);
        s.clock = now_ms();
        s.user("PERSON0: both");
        todo(&mut s, &[("A", "in_progress"), ("B", "pending")]);
        s.tool("bash", json!({"command": "a"}), &big("OUTA"));
        // One call ends A and starts B.
        todo(&mut s, &[("A", "completed"), ("B", "in_progress")]);
        let shared = s.messages.last().unwrap()["parts"][0]["callID"].clone();
        s.tool("bash", json!({"command": "b"}), &big("OUTB"));
        s.request();
        let calls = |sent: &[Value]| -> Vec<Value> {
            sent.iter()
                .flat_map(|m| m["parts"].as_array().into_iter().flatten())
                .map(|p| p["callID"].clone())
                .collect()
        };
        // A person's message: A's wait is over and it folds; the shared call stays, as B runs.
        // (Messages are stamped by the clock of ctx's marks, as OpenCode's are.)
        std::thread::sleep(std::time::Duration::from_millis(5));
        s.clock = now_ms();
        s.user("PERSON1: go on");
        let sent = s.request();
        assert!(!strings_of(&sent).contains("OUTA:"));
        assert!(calls(&sent).contains(&shared));
        // B ends, and waits for a person's message: the shared call still stays, B's output
        // after it is whole.
        todo(&mut s, &[("A", "completed"), ("B", "completed")]);
        let sent = s.request();
        assert!(strings_of(&sent).contains(&big("OUTB")));
        assert!(
            calls(&sent).contains(&shared),
            "the shared call went before B folded"
        );
        // Once B folds, it goes with it.
        std::thread::sleep(std::time::Duration::from_millis(5));
        s.clock = now_ms();
        s.user("PERSON2: thanks");
        let sent = s.request();
        assert!(!strings_of(&sent).contains("OUTB:"));
        assert!(!calls(&sent).contains(&shared));
    }

    #[test]
    fn a_popped_frames_todo_call_is_not_the_list_that_stays() {
        // The model's last list went with a frame it pushed and popped: the list sent whole is
        // the last one still sent, and the calls of a folded item go only beside it.
        let env = env_with("todos");
        let mut s = Session::new(&env, SESSION);
        s.user("PERSON0");
        todo(&mut s, &[("A", "in_progress"), ("B", "pending")]);
        s.tool("bash", json!({"command": "a"}), &big("OUTA"));
        todo(&mut s, &[("A", "completed"), ("B", "pending")]);
        let kept = s.messages.last().unwrap()["parts"][0]["callID"].clone();
        s.request();
        s.push("A side task");
        todo(&mut s, &[("A", "completed"), ("B", "in_progress")]);
        s.tool("bash", json!({"command": "side"}), &big("SIDE"));
        s.pop("The side task is done", "completed");
        let sent = s.request();
        let lists: Vec<&Value> = sent
            .iter()
            .flat_map(|m| m["parts"].as_array().into_iter().flatten())
            .filter(|p| p["tool"] == "todowrite")
            .collect();
        assert_eq!(lists.len(), 1, "{lists:?}");
        assert_eq!(lists[0]["callID"], kept);
        assert_eq!(
            lists[0]["state"]["input"]["todos"]
                .as_array()
                .unwrap()
                .len(),
            2,
            "the list sent is not whole"
        );
    }

    #[test]
    fn with_turns_only_or_off_todo_calls_open_no_frame() {
        for auto in ["turns", "off"] {
            let env = env_with(auto);
            let mut s = Session::new(&env, SESSION);
            s.user("PERSON0");
            todo(&mut s, &[("Item", "in_progress")]);
            s.tool("bash", json!({"command": "x"}), &big("OUT"));
            todo(&mut s, &[("Item", "completed")]);
            assert!(strings_of(&s.request()).contains(&big("OUT")), "{auto}");
            assert!(frames(&env).is_empty(), "{auto}");
        }
    }
}

/// The pressure valve: with the model's limits, a request past 90 % of where OpenCode compacts has
/// its oldest outputs masked, and they stay masked.
mod valve {
    use super::*;

    /// `ctx opencode messages` with a 40 000-token context and 4 000 of output: OpenCode
    /// compacts at 36 000.
    fn send(s: &Session<'_>) -> Output {
        let input = json!({ "messages": s.messages }).to_string();
        s.env.run_stdin(
            &[
                "opencode",
                "messages",
                "--session",
                SESSION,
                "--context-limit",
                "40000",
                "--output-limit",
                "4000",
            ],
            input.as_bytes(),
        )
    }

    /// A framed session of a person's message and six 20 000-character outputs, the last model
    /// call having reported `tokens`.
    fn six_outputs(env: &TestEnv, tokens: Value) -> Session<'_> {
        env.ok(&["opencode", "frame", SESSION, "--title", "The session"]);
        let mut s = Session::new(env, SESSION);
        s.user("PERSON0");
        for i in 0..6 {
            s.tool(
                "bash",
                json!({"command": format!("step {i}")}),
                &"x".repeat(20_000),
            );
        }
        let last = s.messages.last_mut().unwrap();
        last["info"]["time"]["completed"] = json!(1);
        last["info"]["tokens"] = tokens;
        s
    }

    fn outputs(out: &Output) -> Vec<String> {
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["parts"][0]["state"]["output"].as_str())
            .map(|o| o.chars().take(24).collect())
            .collect()
    }

    #[test]
    fn past_ninety_percent_the_oldest_outputs_are_masked_and_stay_masked() {
        let env = TestEnv::new();
        env.write(".opencode/ctx.toml", "frame.auto = \"turns\"\n");
        // The model call that made the last output reported 33 000 tokens: past 90 % of 36 000.
        let tokens = json!({"input": 33_000, "output": 0, "cache": {"read": 0, "write": 0}});
        let mut s = six_outputs(&env, tokens);
        let out = send(&s);
        assert!(out.status.success(), "{}", env.render(&out));
        // The valve names a call by its id and its message's time.
        let calls: Vec<String> = s.messages[1..]
            .iter()
            .map(|m| {
                format!(
                    "{}@{}",
                    m["parts"][0]["callID"].as_str().unwrap(),
                    m["info"]["time"]["created"]
                )
            })
            .collect();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "the request's estimate, 38000 tokens, passed 90 % of the 36000 at which the agent \
             compacts: 3 more tool output(s) masked\n"
        );
        let masked = "[ctx folded this output ";
        assert_eq!(
            outputs(&out),
            [
                masked,
                masked,
                masked,
                &"x".repeat(24),
                &"x".repeat(24),
                &"x".repeat(24)
            ]
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(doc.to_string().contains(&format!(
            "characters): flame_recall with id {} gives it back",
            calls[0]
        )));
        let file: Value =
            serde_json::from_str(&env.read(&format!(".opencode/flame/sessions/{SESSION}.json")))
                .unwrap();
        assert_eq!(file["masked"], json!(calls[..3]));
        // The next request is far under the limit: what was masked stays masked, nothing more is.
        let last = s.messages.last_mut().unwrap();
        last["info"]["tokens"]["input"] = json!(10_000);
        let out = send(&s);
        assert!(out.status.success(), "{}", env.render(&out));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        assert_eq!(
            outputs(&out)[..4],
            [masked, masked, masked, &"x".repeat(24)]
        );
    }

    #[test]
    fn without_limits_or_with_frame_auto_off_the_plugin_gives_none_and_nothing_is_masked() {
        let env = TestEnv::new();
        let s = six_outputs(&env, json!({"total": 39_000}));
        let out = s.send();
        assert!(out.status.success(), "{}", env.render(&out));
        assert!(!String::from_utf8_lossy(&out.stdout).contains("[ctx folded"));
        // A limit without the other is a usage error.
        let out = env.run_stdin(
            &[
                "opencode",
                "messages",
                "--session",
                SESSION,
                "--output-limit",
                "4000",
            ],
            b"{\"messages\": []}",
        );
        assert_eq!(out.status.code(), Some(2));
    }

    #[test]
    fn in_pi_the_valve_opens_past_ninety_percent_of_the_window_less_the_reserve() {
        let env = TestEnv::new();
        let session = "pi_0001";
        env.ok(&[
            "pi",
            "frame",
            "--session",
            session,
            "--title",
            "The session",
        ]);
        let mut messages = vec![json!({"role": "user", "content": "Run it", "timestamp": 100})];
        for i in 0..5 {
            let id = format!("c{i}");
            messages.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": id,
                "name": "bash", "arguments": {"command": "step"}}], "timestamp": 110 + i,
                "stopReason": "toolUse",
                "usage": {"input": 21_000, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}}));
            messages.push(
                json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
                "content": [{"type": "text", "text": "z".repeat(8_000)}], "isError": false,
                "timestamp": 111 + i}),
            );
        }
        let input = json!({ "messages": messages }).to_string();
        let send = |args: &[&str]| {
            let mut all = vec!["pi", "messages", "--session", session];
            all.extend_from_slice(args);
            env.run_stdin(&all, input.as_bytes())
        };
        // 40 000 less pi's default reserve of 16 384: it compacts past 23 616; 21 000 and the
        // last result are past 90 % of that.
        let out = send(&["--context-limit", "40000"]);
        assert!(out.status.success(), "{}", env.render(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("characters): flame_recall with id c0@111 gives it back"));
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("of the 23616 at which the agent compacts")
        );
        // Without a window there is no valve: a reserve alone is a usage error.
        let out = send(&["--reserved", "1000"]);
        assert_eq!(out.status.code(), Some(2));
    }
}

/// Nothing of the conversation is lost with every frame ctx keeps by itself on (turns, items and
/// the pressure valve) and a model that never calls ctx: facts planted in a person's messages and
/// assistant texts are in every later request, byte for byte; a fact planted in a tool output is
/// in the request, or in the log of the frame its placeholder names (or, its call dropped by a
/// closed frame's fold, of a frame an entry of the request names), or, masked by the valve, in
/// the stored output of the call the mask names (what `flame_recall` with that id returns).
mod nothing_lost {
    use super::*;

    const FILLER: usize = 16_000;

    fn output(fact: &str) -> String {
        format!("{fact}\n{}", "y".repeat(FILLER))
    }

    /// One request with the model's limits (40 000 tokens, 4 000 of output: OpenCode compacts
    /// at 36 000), the last call having reported `count` tokens (by default what the stand-in
    /// reports: a quarter of the request before it), then the check of every fact planted so far.
    fn step(s: &mut Session<'_>, count: Option<u64>, said: &[String], outputs: &[String]) {
        let count = count.unwrap_or_else(|| {
            s.sent
                .last()
                .map_or(0, |l| (json!(l).to_string().len() / 4) as u64)
        });
        let sent = request(s, count);
        check(s, &sent, said, outputs);
        s.sent.push(sent);
    }

    fn request(s: &mut Session<'_>, count: u64) -> Vec<Value> {
        let last = s.messages.last_mut().unwrap();
        last["info"]["time"]["completed"] = json!(s.clock);
        last["info"]["tokens"] = json!({"total": count});
        let input = json!({ "messages": s.messages }).to_string();
        let out = s.env.run_stdin(
            &[
                "opencode",
                "messages",
                "--session",
                SESSION,
                "--context-limit",
                "40000",
                "--output-limit",
                "4000",
            ],
            input.as_bytes(),
        );
        assert!(out.status.success(), "{}", s.env.render(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["messages"].as_array().unwrap().clone()
    }

    fn todo(s: &mut Session<'_>, items: &[(&str, &str)]) {
        let todos: Vec<Value> = items
            .iter()
            .map(|(c, st)| json!({"content": c, "status": st, "priority": "high"}))
            .collect();
        s.tool("todowrite", json!({ "todos": todos }), "[list]");
    }

    /// Checks every planted fact against what `sent` holds.
    fn check(s: &Session<'_>, sent: &[Value], said: &[String], outputs: &[String]) {
        let text = strings_of(sent);
        for fact in said {
            assert!(text.contains(fact.as_str()), "{fact} is not sent");
        }
        // Each stored output by the name the valve gives its call: id and message time.
        let stored: Vec<(String, String)> = s
            .messages
            .iter()
            .filter_map(|m| {
                let part = &m["parts"][0];
                let call = format!(
                    "{}@{}",
                    part["callID"].as_str()?,
                    m["info"]["time"]["created"]
                );
                Some((call, part["state"]["output"].as_str()?.to_string()))
            })
            .collect();
        for fact in outputs {
            if text.contains(&output(fact)) {
                continue;
            }
            // Which placeholder stands where the fact's output was.
            let (call, _) = stored
                .iter()
                .find(|(_, o)| o.starts_with(fact.as_str()))
                .unwrap();
            let Some(message) = sent.iter().find(|m| {
                call.starts_with(&format!(
                    "{}@",
                    m["parts"][0]["callID"].as_str().unwrap_or("-")
                ))
            }) else {
                // Dropped with its call by a closed frame's fold: the log of a frame the
                // request's entries name gives it back.
                let named: Vec<&str> = text
                    .split(" into the log of frame ")
                    .skip(1)
                    .filter_map(|rest| rest.split([':', ',']).next())
                    .collect();
                assert!(
                    named
                        .iter()
                        .any(|id| s.env.ok(&["frame", "log", id]).contains(&output(fact))),
                    "{fact} is not sent, nor in the log of a frame an entry names: {named:?}"
                );
                continue;
            };
            let placeholder = message["parts"][0]["state"]["output"].as_str().unwrap();
            let id = placeholder
                .split("flame_recall with id ")
                .nth(1)
                .and_then(|rest| rest.split([' ', ',']).next())
                .unwrap_or_else(|| panic!("{fact}: no recall in {placeholder}"));
            let back = if id.starts_with("fr_") {
                s.env.ok(&["frame", "log", id])
            } else {
                stored.iter().find(|(c, _)| c == id).unwrap().1.clone()
            };
            assert!(
                back.contains(&output(fact)),
                "{fact} does not come back from {id}"
            );
        }
    }

    #[test]
    fn every_fact_is_sent_or_comes_back_from_one_recall() {
        let env = env_with("all");
        let mut s = Session::new(&env, SESSION);
        let (mut said, mut outputs) = (Vec::new(), Vec::new());
        let mut fact = 0;
        let mut next = |kind: &str| {
            fact += 1;
            format!("FACT-{kind}-{fact:02}")
        };
        for turn in 0..2 {
            let person = next("PERSON");
            s.user(&format!("{person}: do the work"));
            said.push(person);
            let message = s.messages.last().unwrap()["info"]["id"]
                .as_str()
                .unwrap()
                .to_string();
            env.ok(&["opencode", "turn", SESSION, "--start", &message]);
            for item in 0..3 {
                let name = format!("Item {turn}.{item}");
                todo(&mut s, &[(&name, "in_progress")]);
                step(&mut s, None, &said, &outputs);
                // The last item runs long: only the pressure valve keeps its requests small.
                let calls = if (turn, item) == (1, 2) { 9 } else { 2 };
                for _ in 0..calls {
                    let f = next("TOOL");
                    s.tool("bash", json!({"command": format!("echo {f}")}), &output(&f));
                    outputs.push(f);
                    step(&mut s, None, &said, &outputs);
                }
                let assist = next("ASSIST");
                s.text(&format!("{assist}: the item is done"));
                said.push(assist);
                todo(&mut s, &[(&name, "completed")]);
                step(&mut s, None, &said, &outputs);
            }
            let export = json!({"info": {"id": SESSION}, "messages": s.messages});
            let out = env.run_stdin(
                &["opencode", "turn", SESSION, "--end", "--transcript", "-"],
                export.to_string().as_bytes(),
            );
            assert!(out.status.success(), "{}", env.render(&out));
        }
        assert_eq!((said.len(), outputs.len()), (8, 19));
        // The valve opened in the long item, and no request passed 90 % of where OpenCode
        // compacts (as the stand-in counts: a quarter of the characters).
        let file: Value =
            serde_json::from_str(&env.read(&format!(".opencode/flame/sessions/{SESSION}.json")))
                .unwrap();
        assert!(!file["masked"].as_array().unwrap().is_empty());
        assert!(
            s.sent
                .iter()
                .all(|l| json!(l).to_string().len() / 4 < 32_400)
        );
        step(&mut s, None, &said, &outputs);
        let last = s.sent.last().unwrap().clone();
        // The folds did fold: none of the twelve outputs is sent whole at the end.
        assert!(
            outputs
                .iter()
                .all(|f| !strings_of(&last).contains(&output(f)))
        );
    }
}

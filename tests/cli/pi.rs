//! `ctx pi install` (ctx's pi extension, written like the OpenCode plugin) and `ctx pi messages`
//! (pi's message list with popped frames folded, through the same core as OpenCode's).

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::common::TestEnv;

const EXTENSION: &str = ".pi/extensions/ctx.ts";
const SESSION: &str = "pi_0b1e-77";

#[test]
fn install_writes_the_extension_and_remove_takes_it_out() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["pi", "install"]), @r"
    exit: 0
    --- stdout
    .pi/extensions/ctx.ts: written
    --- stderr
    ");
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/pi/extensions/ctx.ts"),
    )
    .unwrap();
    let installed = env.read(EXTENSION);
    let (stamp, rest) = installed.split_once('\n').unwrap();
    assert!(
        stamp.starts_with("// Installed by ctx ") && stamp.contains("(ctx pi install)"),
        "{stamp}"
    );
    assert_eq!(rest, source);
    assert_snapshot!(env.snap(&["pi", "install"]), @r"
    exit: 0
    --- stdout
    .pi/extensions/ctx.ts: up to date
    --- stderr
    ");
    assert_snapshot!(env.snap(&["pi", "install", "--remove", "--dry-run"]), @r"
    exit: 0
    --- stdout
    .pi/extensions/ctx.ts: would be removed
    .pi/extensions/: would be removed (left empty)
    .pi/: would be removed (left empty)
    --- stderr
    ");
    assert!(env.path(EXTENSION).is_file());
    assert_snapshot!(env.snap(&["pi", "install", "--remove"]), @r"
    exit: 0
    --- stdout
    .pi/extensions/ctx.ts: removed
    .pi/extensions/: removed (left empty)
    .pi/: removed (left empty)
    --- stderr
    ");
    assert!(!env.path(".pi").exists());
}

#[test]
fn remove_keeps_a_folder_that_holds_anything_else() {
    let env = TestEnv::new();
    env.ok(&["pi", "install"]);
    env.write(".pi/settings.json", "{}\n");
    assert_snapshot!(env.snap(&["pi", "install", "--remove"]), @r"
    exit: 0
    --- stdout
    .pi/extensions/ctx.ts: removed
    .pi/extensions/: removed (left empty)
    --- stderr
    ");
    assert_eq!(env.read(".pi/settings.json"), "{}\n");
    env.ok(&["pi", "install"]);
    env.write(".pi/extensions/mine.ts", "export default () => {};\n");
    std::fs::remove_file(env.path(".pi/settings.json")).unwrap();
    let out = env.ok(&["pi", "install", "--remove", "--json"]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["files"][0]["action"], "removed");
    assert_eq!(doc["folders_removed"], json!([]));
    assert!(env.path(".pi/extensions/mine.ts").is_file());
    // pi's agent folder of a --global install goes too when ctx's extension was all it held.
    env.ok(&["pi", "install", "--global"]);
    let out = env.ok(&["pi", "install", "--global", "--remove", "--json"]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let agent = env.home.join(".pi/agent");
    assert_eq!(
        doc["folders_removed"],
        json!([
            agent.join("extensions").display().to_string(),
            agent.display().to_string()
        ])
    );
    assert!(!agent.exists() && env.home.join(".pi").is_dir());
}

#[test]
fn a_changed_extension_is_kept_unless_forced_and_never_removed() {
    let env = TestEnv::new();
    env.ok(&["pi", "install"]);
    let mine = format!("{}// my change\n", env.read(EXTENSION));
    env.write(EXTENSION, &mine);
    assert_snapshot!(env.snap(&["pi", "install"]), @r"
    exit: 1
    --- stdout
    .pi/extensions/ctx.ts: kept: changed since ctx wrote it
    --- stderr
    error: some files were changed since ctx wrote them and were kept
    hint: compare them with what ctx writes, then pass --force to replace them
    ");
    assert_snapshot!(env.snap(&["pi", "install", "--remove"]), @r"
    exit: 1
    --- stdout
    .pi/extensions/ctx.ts: kept: changed since ctx wrote it
    --- stderr
    error: some files were changed since ctx wrote them and were kept
    hint: delete them yourself if you no longer want them
    ");
    assert_eq!(env.read(EXTENSION), mine);
    let out = env.ok(&["pi", "install", "--force"]);
    assert_eq!(out, ".pi/extensions/ctx.ts: replaced (--force)\n");
    assert!(!env.read(EXTENSION).contains("my change"));
}

#[test]
fn global_installs_go_to_pis_agent_folder() {
    let env = TestEnv::new();
    let out = env.ok(&["pi", "install", "--global", "--json"]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let dir = env.home.join(".pi/agent");
    assert_eq!(doc["dir"], dir.display().to_string());
    assert_eq!(doc["files"][0]["action"], "written");
    assert!(dir.join("extensions/ctx.ts").is_file());
    assert!(!env.path(EXTENSION).exists());
    // PI_CODING_AGENT_DIR, as pi reads it: `~` is the home folder.
    let out = env
        .ctx()
        .env("PI_CODING_AGENT_DIR", "~/elsewhere")
        .args(["pi", "install", "--global"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(env.home.join("elsewhere/extensions/ctx.ts").is_file());
}

#[test]
fn a_dangling_link_and_a_read_only_file_are_refused() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".pi")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.temp().join("nowhere"), env.path(".pi/extensions")).unwrap();
    let out = env.run(&["pi", "install"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("which does not exist; ctx does not create"),
        "{stderr}"
    );
    assert!(!env.temp().join("nowhere").exists());
    std::fs::remove_file(env.path(".pi/extensions")).unwrap();
    env.ok(&["pi", "install"]);
    let path = env.path(EXTENSION);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    let out = env.run(&["pi", "install", "--force"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is read-only"));
}

/// pi's messages of a session: a prompt, then what `steps` add (each an assistant message with
/// tool calls and their results), with timestamps from 100 on.
struct PiSession {
    messages: Vec<Value>,
    clock: i64,
}

impl PiSession {
    fn new(prompt: &str) -> PiSession {
        PiSession {
            messages: vec![json!({"role": "user", "content": prompt, "timestamp": 100})],
            clock: 100,
        }
    }

    fn tick(&mut self) -> i64 {
        self.clock += 10;
        self.clock
    }

    /// One assistant message calling `tool` (call id `call`) and its result `output`.
    fn call(&mut self, call: &str, tool: &str, arguments: Value, output: &str) {
        let at = self.tick();
        self.messages.push(json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": call, "name": tool, "arguments": arguments}],
            "api": "openai-completions", "provider": "mock", "model": "mock-1",
            "stopReason": "toolUse", "timestamp": at}));
        let done = self.tick();
        self.messages.push(
            json!({"role": "toolResult", "toolCallId": call, "toolName": tool,
            "content": [{"type": "text", "text": output}], "isError": false, "timestamp": done}),
        );
    }

    /// A time after every earlier one, on the clock ctx stamps its marks with.
    fn stamp(&mut self) -> i64 {
        loop {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis() as i64;
            if now > self.clock {
                self.clock = now;
                return now;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// One assistant message calling `tool` (call id `call`), whose run is `ctx ARGS` (as ctx's
    /// extension runs a `flame_push` or `flame_pop`), and its result `output`, stamped as pi
    /// stamps them: the message when the response began, the result when the call returned.
    fn call_running(
        &mut self,
        env: &TestEnv,
        call: &str,
        tool: &str,
        arguments: Value,
        output: &str,
        args: &[&str],
    ) -> String {
        let at = self.stamp();
        let out = env.ok(args);
        let done = self.stamp();
        self.messages.push(json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": call, "name": tool, "arguments": arguments}],
            "api": "openai-completions", "provider": "mock", "model": "mock-1",
            "stopReason": "toolUse", "timestamp": at}));
        self.messages.push(
            json!({"role": "toolResult", "toolCallId": call, "toolName": tool,
            "content": [{"type": "text", "text": output}], "isError": false, "timestamp": done}),
        );
        out
    }

    fn list(&self) -> String {
        json!({ "messages": self.messages }).to_string()
    }
}

fn messages(env: &TestEnv, input: &str) -> (Value, String) {
    let out = env.run_stdin(&["pi", "messages", "--session", SESSION], input.as_bytes());
    assert!(out.status.success(), "{}", env.render(&out));
    let doc = serde_json::from_slice(&out.stdout).unwrap();
    (doc, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_popped_frame_folds_to_its_entry_and_the_context_follows_the_pop() {
    let env = TestEnv::new();
    session_frame(&env, SESSION, "Audit the refunds");
    let mut session = PiSession::new("Audit the refunds");
    session.call("c1", "flame_push", json!({"goal": "Audit"}), "Pushed");
    let pushed = env.ok(&[
        "frame",
        "push",
        "--session",
        SESSION,
        "--span-call",
        "c1",
        "--json",
        "--",
        "Audit",
    ]);
    let frame = serde_json::from_str::<Value>(&pushed).unwrap()["frame"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    session.call(
        "c2",
        "bash",
        json!({"command": "cat a"}),
        &"AAA ".repeat(5000),
    );
    session.call(
        "c3",
        "bash",
        json!({"command": "cat b"}),
        &"BBB ".repeat(5000),
    );
    let (before, _) = messages(&env, &session.list());
    let plain = session.list();
    session.call(
        "c4",
        "flame_pop",
        json!({"summary": "Three refunds are wrong"}),
        "Popped",
    );
    env.ok(&[
        "frame",
        "pop",
        "--session",
        SESSION,
        "--span-call",
        "c4",
        "--summary",
        "Three refunds are wrong",
    ]);
    let (after, stderr) = messages(&env, &session.list());
    assert_eq!(stderr, "");
    let sent = after["messages"].as_array().unwrap();
    let shape: Vec<(String, String)> = sent
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap().to_string();
            let what = match role.as_str() {
                "assistant" => m["content"][0]["name"].as_str().unwrap().to_string(),
                "toolResult" => m["content"][0]["text"].as_str().unwrap()[..14].to_string(),
                "custom" => m["content"].as_str().unwrap()[..14].to_string(),
                _ => m["content"].as_str().unwrap().to_string(),
            };
            (role, what)
        })
        .collect();
    let shape: Vec<(&str, &str)> = shape
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        shape,
        [
            ("user", "Audit the refunds"),
            ("assistant", "flame_pop"),
            ("toolResult", "<flame-folded "),
            ("custom", "<flame-context"),
        ]
    );
    let entry = sent[2]["content"][0]["text"].as_str().unwrap();
    assert!(entry.contains(&format!("id=\"{frame}\"")), "{entry}");
    // The pop's call holds the summary, as the model wrote it; the entry does not repeat it.
    assert_eq!(entry, format!("<flame-folded id=\"{frame}\"/>"));
    assert_eq!(
        sent[1]["content"][0]["arguments"],
        json!({"summary": "Three refunds are wrong"})
    );
    assert_eq!(sent[3]["customType"], "ctx");
    let text = after.to_string();
    assert!(!text.contains("AAA") && !text.contains("BBB"));
    assert!(
        text.len() * 10 < plain.len(),
        "{} vs {}",
        text.len(),
        plain.len()
    );
    // Before the pop the outputs went as they were, after the push's context.
    let before_text = before.to_string();
    assert!(before_text.contains("AAA") && before_text.contains("BBB"));
    // The next request starts with this one: the context is sent again, byte for byte.
    session.call("c5", "bash", json!({"command": "echo next"}), "next");
    let (next, _) = messages(&env, &session.list());
    let next = next["messages"].as_array().unwrap();
    assert_eq!(&next[..sent.len()], sent.as_slice());
}

#[test]
fn an_unknown_message_passes_unchanged_with_one_warning() {
    let env = TestEnv::new();
    let input = r#"{"messages":[{"role":"user","content":"hi","timestamp":1},{"role":"hologram","beam":[1,2]},"x",{"role":"hologram"}],"extra":{"k":1}}"#;
    let out = env.run_stdin(&["pi", "messages", "--session", SESSION], input.as_bytes());
    assert_snapshot!(env.render(&out), @r#"
    exit: 0
    --- stdout
    {"messages":[{"role":"user","content":"hi","timestamp":1},{"role":"hologram","beam":[1,2]},"x",{"role":"hologram"}],"extra":{"k":1}}
    --- stderr
    warning: <stdin>: a message ctx does not know (role "hologram") is passed on as it is
    warning: <stdin>: a message ctx does not know (no "role" string) is passed on as it is
    "#);
}

#[test]
fn bad_sessions_and_bad_stdin_are_refused() {
    let env = TestEnv::new();
    let list = br#"{"messages":[]}"#;
    assert_snapshot!(env.render(&env.run_stdin(&["pi", "messages", "--session", "../etc"], list)), @r"
    exit: 1
    --- stdout
    --- stderr
    error: invalid frame id '../etc': only letters, digits, '_' and '-' are allowed
    ");
    assert_snapshot!(env.render(&env.run_stdin(&["pi", "messages", "--session", SESSION], b"")), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: empty
    hint: expected {"messages": [{"role": "user", "content": …, "timestamp": …}, …]}, the messages of pi's context event
    "#);
    assert_snapshot!(env.render(&env.run_stdin(&["pi", "messages", "--session", SESSION], b"{\"messages\": [")), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: not JSON: EOF while parsing a list at line 1, column 14
    hint: expected {"messages": [{"role": "user", "content": …, "timestamp": …}, …]}, the messages of pi's context event
    "#);
    assert_snapshot!(env.render(&env.run_stdin(&["pi", "messages", "--session", SESSION], b"{\"messages\": 3}")), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: <stdin>: not a pi message list: /messages is not an array
    hint: expected {"messages": [{"role": "user", "content": …, "timestamp": …}, …]}, the messages of pi's context event
    "#);
    let (doc, _) = messages(&env, r#"{"messages":[]}"#);
    assert_eq!(doc, json!({"messages": []}));
}

/// A frame of the state file, by id.
/// Creates the frame of pi session `session`, titled `title`, as ctx's extension does.
fn session_frame(env: &TestEnv, session: &str, title: &str) {
    env.ok(&["pi", "frame", "--session", session, "--title", title]);
}

fn frame_of(env: &TestEnv, id: &str) -> Value {
    let out = env.ok(&["frame", "show", "--json", "--", id]);
    serde_json::from_str::<Value>(&out).unwrap()["frame"].clone()
}

#[test]
fn a_sessions_frame_starts_under_the_persons_current_frame() {
    let env = TestEnv::new();
    let mine = env.ok(&["frame", "push", "Ship the refunds"]);
    let mine = mine.trim();
    assert_snapshot!(env.snap(&["pi", "frame", "--session", SESSION, "--title", "Audit the refunds\nnow"]), @r"
    exit: 0
    --- stdout
    pi_0b1e-77
    --- stderr
    ");
    let frame = frame_of(&env, SESSION);
    assert_eq!(frame["parent"], mine);
    assert_eq!(frame["goal"], "Audit the refunds now");
    assert_eq!(frame["status"], "in_progress");
    // The person's current frame stays theirs; a second call finds the frame it made.
    assert_eq!(env.ok(&["frame", "current"]).trim(), mine);
    assert_eq!(
        env.ok(&["pi", "frame", "--session", SESSION, "--title", "Other"]),
        "pi_0b1e-77\n"
    );
    assert_eq!(frame_of(&env, SESSION)["goal"], "Audit the refunds now");
    // Without a title, the session names it; without a running frame of the person's, it is a
    // root.
    env.ok(&["frame", "pop", "--frame", mine, "--force"]);
    let out = env.ok(&["pi", "frame", "--session", "pi_9c", "--json"]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["frame"]["id"], "pi_9c");
    assert_eq!(doc["frame"]["goal"], "pi session 9c");
    assert_eq!(doc["frame"]["parent"], Value::Null);
}

#[test]
fn frame_and_finish_take_the_session_as_an_argument_too() {
    // The form an extension installed by an earlier ctx passes, hidden from help.
    let env = TestEnv::new();
    assert_eq!(
        env.ok(&["pi", "frame", SESSION, "--title", "Audit"]),
        "pi_0b1e-77\n"
    );
    assert_eq!(env.ok(&["pi", "finish", SESSION]), "pi_0b1e-77\n");
    assert_eq!(frame_of(&env, SESSION)["status"], "completed");
    for command in ["frame", "finish"] {
        let help = env.ok(&["pi", command, "--help"]);
        assert!(
            help.contains(&format!(
                "Usage: ctx pi {command} [OPTIONS] --session <ID>\n"
            )),
            "{help}"
        );
        assert!(!help.contains("[SESSION]"), "{help}");
    }
    assert_snapshot!(env.snap(&["pi", "frame"]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: the following required arguments were not provided:
      --session <ID>

    Usage: ctx pi frame [OPTIONS] --session <ID>

    For more information, try '--help'.
    ");
    assert_snapshot!(env.snap(&["pi", "finish", SESSION, "--session", SESSION]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: the argument '[SESSION]' cannot be used with '--session <ID>'

    Usage: ctx pi finish [OPTIONS] --session <ID>

    For more information, try '--help'.
    ");
}

#[test]
fn a_subagents_frame_starts_under_its_parent_sessions_current_frame() {
    let env = TestEnv::new();
    session_frame(&env, SESSION, "Audit");
    let inner = env.ok(&["frame", "push", "--session", SESSION, "Read the ledger"]);
    let inner = inner.trim();
    let out = env.ok(&[
        "pi",
        "frame",
        "--session",
        "pi_child-1",
        "--title",
        "Count the refunds",
        "--parent-session",
        SESSION,
    ]);
    assert_eq!(out, "pi_child-1\n");
    assert_eq!(frame_of(&env, "pi_child-1")["parent"], inner);
    // A parent session without a frame is refused, with the command that makes one.
    assert_snapshot!(env.snap(&["pi", "frame", "--session", "pi_child-2", "--parent-session", "pi_nobody"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: the parent session pi_nobody has no frame
    hint: create it first: ctx pi frame --session pi_nobody --title TITLE
    ");
    assert_snapshot!(env.snap(&["pi", "frame", "--session", "pi_child-2", "--parent-session", "../x"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: invalid frame id '../x': only letters, digits, '_' and '-' are allowed
    ");
}

/// pi's messages of a subagent's run, in the shape ctx's extension passes as a transcript.
fn pi_transcript(session: &str, answer: &str) -> String {
    json!({"info": {"id": session, "title": "Count the refunds", "ctxSource": "pi"}, "messages": [
        {"info": {"id": "e1", "sessionID": session, "role": "user", "time": {"created": 1_795_338_000_000i64}},
         "parts": [{"type": "text", "text": "Count the refunds"}]},
        {"info": {"id": "e2", "sessionID": session, "role": "assistant", "time": {"created": 1_795_338_001_000i64}},
         "parts": [{"type": "tool", "tool": "bash", "callID": "c1", "state": {"status": "completed",
            "input": {"command": "wc -l refunds.csv"}, "output": "41 refunds.csv",
            "time": {"start": 1_795_338_001_000i64, "end": 1_795_338_001_500i64}}}]},
        {"info": {"id": "e3", "sessionID": session, "role": "assistant", "time": {"created": 1_795_338_002_000i64}},
         "parts": [{"type": "text", "text": answer}]}
    ]})
    .to_string()
}

#[test]
fn finish_pops_a_subagents_frame_with_its_transcript() {
    let env = TestEnv::new();
    session_frame(&env, SESSION, "Audit");
    env.ok(&[
        "pi",
        "frame",
        "--session",
        "pi_child-1",
        "--title",
        "Count the refunds",
        "--parent-session",
        SESSION,
    ]);
    let out = env.run_stdin(
        &[
            "pi",
            "finish",
            "--session",
            "pi_child-1",
            "--transcript",
            "-",
        ],
        pi_transcript("pi_child-1", "40 refunds, one header line.").as_bytes(),
    );
    assert_snapshot!(env.render(&out), @r"
    exit: 0
    --- stdout
    pi_child-1
    --- stderr
    ");
    let frame = frame_of(&env, "pi_child-1");
    assert_eq!(frame["status"], "completed");
    assert_eq!(frame["summary"], "40 refunds, one header line.");
    let log = env.read(".opencode/flame/logs/frame-pi_child-1.md");
    assert!(
        log.contains("wc -l refunds.csv") && log.contains("41 refunds.csv"),
        "{log}"
    );
    // The parent session's frame runs on.
    assert_eq!(frame_of(&env, SESSION)["status"], "in_progress");
}

#[test]
fn a_transcript_ctx_cannot_read_still_finishes_the_frame_with_one_warning() {
    // A frame must not run forever because its log could not be written in full: it is
    // finished with the state given, its log without the messages.
    let env = TestEnv::new();
    env.write("notes.txt", "not JSON at all\n");
    std::fs::write(env.path("latin1.json"), b"{\"info\": \"caf\xe9\"}").unwrap();
    std::fs::create_dir_all(env.path("a-folder")).unwrap();
    let cases: [(&str, &[u8]); 5] = [
        ("-", b"{\"messages\": ["),
        ("missing.json", b""),
        ("notes.txt", b""),
        ("latin1.json", b""),
        ("a-folder", b""),
    ];
    let mut warnings = String::new();
    for (n, (transcript, stdin)) in cases.iter().enumerate() {
        let session = format!("pi_child-{n}");
        session_frame(&env, &session, "Count");
        let out = env.run_stdin(
            &[
                "pi",
                "finish",
                "--session",
                &session,
                "--stop-reason",
                "error",
                "--transcript",
                transcript,
            ],
            stdin,
        );
        let rendered = env.render(&out);
        assert_eq!(out.status.code(), Some(0), "{rendered}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{session}\n"));
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(stderr.lines().count(), 1, "{rendered}");
        warnings.push_str(&env.filter(&stderr));
        assert_eq!(frame_of(&env, &session)["status"], "failed");
        let log = env.read(&format!(".opencode/flame/logs/frame-{session}.md"));
        assert!(log.contains("Count"), "{log}");
    }
    assert_snapshot!(warnings, @r"
    warning: <stdin>: not an OpenCode session export: invalid JSON at line 1, column 14: EOF while parsing a list; the frame is finished without its messages in the log
    warning: missing.json: cannot read: No such file or directory; the frame is finished without its messages in the log
    warning: notes.txt: not an OpenCode session export: invalid JSON at line 1, column 2: expected ident; the frame is finished without its messages in the log
    warning: latin1.json: not an OpenCode session export: not UTF-8: invalid byte at line 1, column 14; the frame is finished without its messages in the log
    warning: a-folder: cannot read: is a directory; the frame is finished without its messages in the log
    ");
}

#[test]
fn a_runs_stop_reason_decides_the_status() {
    for (reason, status) in [
        ("stop", "completed"),
        ("toolUse", "completed"),
        ("error", "failed"),
        ("aborted", "blocked"),
    ] {
        let env = TestEnv::new();
        env.ok(&["pi", "frame", "--session", "pi_child-1"]);
        let out = env.ok(&[
            "pi",
            "finish",
            "--session",
            "pi_child-1",
            "--stop-reason",
            reason,
            "--summary",
            "s",
            "--json",
        ]);
        let doc: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(doc["frame"]["status"], status, "{reason}");
        assert_eq!(doc["frame"]["summary"], "s");
    }
}

#[test]
fn finish_with_nothing_to_finish_prints_one_json_document() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["pi", "finish", "--session", "pi_nobody", "--json"]), @r#"
    exit: 0
    --- stdout
    {"version":1,"frame":null,"reason":"the session has no frame"}
    --- stderr
    "#);
    env.ok(&["pi", "frame", "--session", SESSION]);
    env.ok(&["pi", "finish", "--session", SESSION]);
    let before = env.read(".opencode/flame/state.json");
    assert_snapshot!(env.snap(&["pi", "finish", "--session", SESSION, "--stop-reason", "error", "--json"]), @r#"
    exit: 0
    --- stdout
    {"version":1,"frame":null,"reason":"its frame is already completed"}
    --- stderr
    "#);
    assert_eq!(
        env.snap(&["pi", "finish", "--session", SESSION]),
        "exit: 0\n--- stdout\n--- stderr\n"
    );
    assert_eq!(env.read(".opencode/flame/state.json"), before);
}

/// A session that pushed a frame, read a large file, was told something by its person, and
/// popped the frame: its message list.
fn popped_session(env: &TestEnv) -> String {
    session_frame(env, SESSION, "Audit the refunds");
    let mut session = PiSession::new("Audit the refunds");
    session.call("c1", "flame_push", json!({"goal": "Audit"}), "Pushed");
    env.ok(&[
        "frame",
        "push",
        "--session",
        SESSION,
        "--span-call",
        "c1",
        "--",
        "Audit",
    ]);
    session.call(
        "c2",
        "bash",
        json!({"command": "cat a"}),
        &"AAA ".repeat(500),
    );
    let at = session.tick();
    session
        .messages
        .push(json!({"role": "user", "content": "Also check March", "timestamp": at}));
    session.call("c3", "flame_pop", json!({"summary": "Done"}), "Popped");
    env.ok(&[
        "frame",
        "pop",
        "--session",
        SESSION,
        "--span-call",
        "c3",
        "--summary",
        "Done",
    ]);
    session.list()
}

#[test]
fn pis_fold_follows_its_own_settings() {
    // opencode.fold is OpenCode's: pi folds whatever it says.
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "[opencode]\nfold = \"off\"\n");
    let list = popped_session(&env);
    let (doc, _) = messages(&env, &list);
    let text = doc.to_string();
    assert!(!text.contains("AAA") && !text.contains("Also check March"));
    assert!(text.contains("<flame-folded "));
    // pi.fold = off: the list goes as pi made it.
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "[pi]\nfold = \"off\"\n");
    let list = popped_session(&env);
    let (doc, stderr) = messages(&env, &list);
    assert_eq!(stderr, "");
    assert_eq!(doc, serde_json::from_str::<Value>(&list).unwrap());
    // pi.fold_user_messages = keep: what the person wrote inside the frame stays.
    let env = TestEnv::new();
    env.write(
        ".opencode/ctx.toml",
        "[pi]\nfold_user_messages = \"keep\"\n",
    );
    let list = popped_session(&env);
    let (doc, _) = messages(&env, &list);
    let text = doc.to_string();
    assert!(!text.contains("AAA") && text.contains("Also check March"));
    // The same through the environment, as ctx config shows it.
    let env = TestEnv::new();
    let list = popped_session(&env);
    let out = env
        .ctx()
        .env("CTX_PI_FOLD", "off")
        .args(["pi", "messages", "--session", SESSION])
        .write_stdin(list.clone())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        serde_json::from_str::<Value>(&list).unwrap()
    );
}

#[test]
fn pis_settings_are_listed_and_checked() {
    let env = TestEnv::new();
    let config = env.ok(&["config"]);
    let pi: Vec<&str> = config.lines().filter(|l| l.starts_with("pi.")).collect();
    assert_eq!(
        pi,
        [
            "pi.tools = \"on\"                       # default",
            "pi.fold = \"on\"                        # default",
            "pi.fold_user_messages = \"fold\"        # default",
        ]
    );
    env.write(".opencode/ctx.toml", "[pi]\ntools = \"off\"\n");
    assert_eq!(env.ok(&["config", "pi.tools"]), "off\n");
    env.write(".opencode/ctx.toml", "[pi]\nfold = \"no\"\n");
    let out = env.run_stdin(
        &["pi", "messages", "--session", SESSION],
        b"{\"messages\":[]}",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("pi.fold must be one of on, off"),
        "{}",
        env.render(&out)
    );
}

#[test]
fn a_request_records_the_sessions_model_call_with_folding_on_or_off() {
    // The record is what marks a quiet pi subagent's frame stale (frame.stale_after): pi.fold
    // decides what the model is sent, not whether the call is seen.
    let file = format!(".opencode/flame/sessions/{SESSION}.json");
    for setting in ["on", "off"] {
        let env = TestEnv::new();
        env.write(
            ".opencode/ctx.toml",
            format!("[pi]\nfold = \"{setting}\"\n"),
        );
        let list = popped_session(&env);
        let before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        messages(&env, &list);
        let doc: Value = serde_json::from_str(&env.read(&file)).unwrap();
        let seen = doc["lastRequest"].as_i64();
        assert!(
            seen.is_some_and(|t| t >= before),
            "pi.fold = {setting}: {doc}"
        );
    }
}

/// A session that ran `ls` (call `ids[0]`), pushed a frame (`ids[1]`), read a large file
/// (`ids[2]`) and popped the frame (`ids[3]`), each push and pop run by ctx as ctx's extension
/// runs them; and the frame's id.
fn session_with_call_ids(env: &TestEnv, ids: [&str; 4]) -> (PiSession, String) {
    session_frame(env, SESSION, "Audit the refunds");
    let mut session = PiSession::new("Audit the refunds");
    session.call(ids[0], "bash", json!({"command": "ls"}), "EARLY");
    let pushed = session.call_running(
        env,
        ids[1],
        "flame_push",
        json!({"goal": "Audit"}),
        "Pushed",
        &[
            "frame",
            "push",
            "--session",
            SESSION,
            "--span-call",
            ids[1],
            "--json",
            "--",
            "Audit",
        ],
    );
    session.call(
        ids[2],
        "bash",
        json!({"command": "cat a"}),
        &"AAA ".repeat(500),
    );
    session.call_running(
        env,
        ids[3],
        "flame_pop",
        json!({"summary": "Done"}),
        "Popped",
        &[
            "frame",
            "pop",
            "--session",
            SESSION,
            "--span-call",
            ids[3],
            "--summary",
            "Done",
        ],
    );
    let frame = serde_json::from_str::<Value>(&pushed).unwrap()["frame"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    (session, frame)
}

#[test]
fn call_ids_that_repeat_across_turns_fold_the_frame_and_nothing_before_its_push() {
    // Some OpenAI-compatible servers number each response's calls from call_0: every id
    // repeats, or only the push's repeats an earlier call's.
    for ids in [
        ["call_0", "call_0", "call_0", "call_0"],
        ["call_7", "call_7", "call_8", "call_9"],
    ] {
        let env = TestEnv::new();
        let (session, frame) = session_with_call_ids(&env, ids);
        let (doc, stderr) = messages(&env, &session.list());
        assert_eq!(stderr, "", "{ids:?}");
        let sent: Vec<String> = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| match m["role"].as_str().unwrap() {
                "assistant" => format!("call {}", m["content"][0]["name"].as_str().unwrap()),
                "toolResult" => format!("result {}", m["content"][0]["text"].as_str().unwrap()),
                "custom" => format!("custom {}", &m["content"].as_str().unwrap()[..14]),
                role => format!("{role} {}", m["content"].as_str().unwrap()),
            })
            .collect();
        assert_eq!(
            sent,
            [
                "user Audit the refunds".to_string(),
                "call bash".to_string(),
                "result EARLY".to_string(),
                "call flame_pop".to_string(),
                format!("result <flame-folded id=\"{frame}\"/>"),
                "custom <flame-context".to_string(),
            ],
            "{ids:?}"
        );
    }
}

#[test]
fn a_repeated_call_id_the_time_cannot_tell_apart_leaves_the_frame_unfolded_with_a_warning() {
    let env = TestEnv::new();
    let (mut session, frame) =
        session_with_call_ids(&env, ["call_0", "call_0", "call_1", "call_2"]);
    // The earlier call_0 and its result have no time: it may have been the push as well.
    for m in 1..=2 {
        session.messages[m]
            .as_object_mut()
            .unwrap()
            .remove("timestamp");
    }
    let (doc, stderr) = messages(&env, &session.list());
    assert_eq!(
        stderr,
        format!(
            "warning: frame {frame}: its push's call id \"call_0\" repeats among the messages, \
             and its time does not tell which call it is; not folded\n"
        )
    );
    // Every message goes as pi made it; ctx adds only its context.
    let given: Value = serde_json::from_str(&session.list()).unwrap();
    let kept: Vec<&Value> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["customType"] != "ctx")
        .collect();
    assert_eq!(
        kept,
        given["messages"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
    );
}

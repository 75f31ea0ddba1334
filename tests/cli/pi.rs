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
    --- stderr
    ");
    assert!(env.path(EXTENSION).is_file());
    assert_snapshot!(env.snap(&["pi", "install", "--remove"]), @r"
    exit: 0
    --- stdout
    .pi/extensions/ctx.ts: removed
    --- stderr
    ");
    assert!(!env.path(".pi/extensions").exists());
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
    .pi/extensions/ctx.ts: kept: changed since ctx wrote it (--force replaces it)
    --- stderr
    error: some files were changed since ctx wrote them and were kept
    hint: compare them with what ctx writes, then pass --force to replace them
    ");
    assert_snapshot!(env.snap(&["pi", "install", "--remove"]), @r"
    exit: 1
    --- stdout
    .pi/extensions/ctx.ts: kept: changed since ctx wrote it (--force replaces it)
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
    env.ok(&["opencode", "frame", SESSION, "--title", "Audit the refunds"]);
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
    assert!(entry.contains("<summary>Three refunds are wrong</summary>"));
    assert_eq!(sent[1]["content"][0]["arguments"], json!({}));
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

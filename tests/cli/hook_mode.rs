//! Hook mode: ctx called by an agent on its own (`ctx claude hook …`, and every call of ctx's
//! OpenCode plugin, which sets CTX_HOOK) never starts state where nobody chose a project, never
//! stalls the agent, and never stops folding over a file of its own.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{TestEnv, hook_log_lines};

const SESSION: &str = "11111111-0000-0000-0000-000000000000";
/// What a hook is given time for here: far above what any call should take, so that a hook that
/// hangs fails the test instead of stalling it (never a measure of speed).
const HANG: Duration = Duration::from_secs(60);

/// `ctx claude hook EVENT` run in `dir`, with `input`: exit 0, nothing on stderr; its stdout.
fn claude_hook(env: &TestEnv, dir: &Path, event: &str, input: &Value) -> String {
    let out = env
        .ctx()
        .current_dir(dir)
        .args(["claude", "hook", event])
        .write_stdin(input.to_string())
        .timeout(HANG)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    assert!(out.stderr.is_empty(), "{}", env.render(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn prompt() -> Value {
    json!({ "session_id": SESSION, "prompt": "hi", "hook_event_name": "UserPromptSubmit" })
}

/// A home folder as OpenCode's installer leaves it: `.opencode/bin`, no frame state.
fn home_with_opencode(env: &TestEnv) -> &Path {
    std::fs::create_dir_all(env.home.join(".opencode/bin")).unwrap();
    &env.home
}

#[test]
fn hooks_start_no_frame_state_in_the_home_folder() {
    let env = TestEnv::new();
    let home = home_with_opencode(&env);
    assert_eq!(claude_hook(&env, home, "UserPromptSubmit", &prompt()), "");
    assert!(!home.join(".opencode/flame").exists(), "state in $HOME");
    assert_eq!(
        hook_log_lines(&home.join(".claude/ctx-hooks.log")),
        [format!(
            "UserPromptSubmit session {SESSION}: stayed out of the home folder {}: a hook starts \
             no frame state (.opencode/flame/) there; to keep frames there, set \
             hooks.state_in_home = \"on\" or create .opencode/flame/ there",
            home.display()
        )]
    );

    // The OpenCode plugin's calls are hook calls too (CTX_HOOK): refused, nothing made.
    for args in [
        &["opencode", "frame", "ses_1", "--title", "x"][..],
        &["frame", "push", "--session", "ses_1", "A goal"][..],
    ] {
        let out = env
            .ctx()
            .current_dir(home)
            .env("CTX_HOOK", "opencode")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
        assert!(
            env.render(&out)
                .contains("error: stayed out of the home folder [HOME]"),
            "{}",
            env.render(&out)
        );
        assert!(!home.join(".opencode/flame").exists(), "{args:?}");
    }

    // A person who types a command there has chosen it.
    let out = env
        .ctx()
        .current_dir(home)
        .args(["frame", "push", "Home chores"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    assert!(home.join(".opencode/flame/state.json").is_file());
    // From then on the home folder has a frame tree, and hooks use it.
    assert!(!claude_hook(&env, home, "UserPromptSubmit", &prompt()).is_empty());
    let state = std::fs::read_to_string(home.join(".opencode/flame/state.json")).unwrap();
    assert!(state.contains(&format!("cc_{SESSION}")), "{state}");
}

#[test]
fn hooks_start_frame_state_in_the_home_folder_when_a_setting_says_so() {
    let env = TestEnv::new();
    let home = home_with_opencode(&env);
    std::fs::create_dir_all(home.join(".config/ctx")).unwrap();
    std::fs::write(
        home.join(".config/ctx/config.toml"),
        "[hooks]\nstate_in_home = \"on\"\n",
    )
    .unwrap();
    assert_ne!(claude_hook(&env, home, "UserPromptSubmit", &prompt()), "");
    assert!(home.join(".opencode/flame/state.json").is_file());
    assert!(!home.join(".claude/ctx-hooks.log").exists());
}

/// ctx's OpenCode plugin, run by node against a stand-in client with its working directory the
/// home folder: a session's first tool call and its first request make no frame state there,
/// and the plugin logs why.
#[test]
fn the_opencode_plugins_calls_start_no_frame_state_in_the_home_folder() {
    let env = TestEnv::new();
    let home = home_with_opencode(&env);
    let plugin = Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/opencode/plugin/ctx.js");
    let script = r#"
const { pathToFileURL } = await import("node:url");
const { CtxPlugin } = await import(pathToFileURL(process.env.PLUGIN).href);
const logged = [];
const client = {
  app: { log: async ({ body }) => logged.push(body.message) },
  session: {
    get: async () => ({ data: { id: "ses_home", title: "Tidy up" } }),
    messages: async () => ({ data: [] }),
  },
};
const hooks = await CtxPlugin({ client, directory: process.env.DIR });
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_home", callID: "c1" }, { args: {} });
const messages = [{ info: { id: "msg_1", sessionID: "ses_home", role: "user" },
                    parts: [{ id: "prt_1", type: "text", text: "hi" }] }];
await hooks["experimental.chat.messages.transform"]({}, { messages });
console.log(JSON.stringify(logged));
"#;
    let bin = assert_cmd::cargo::cargo_bin("ctx");
    let out = Command::new("node")
        .args(["--input-type=module", "-e", script])
        .env("PLUGIN", &plugin)
        .env("DIR", home)
        .env("CTX_BIN", &bin)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("CTX_HOOK")
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!home.join(".opencode/flame").exists(), "state in $HOME");
    let logged: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        logged
            .iter()
            .any(|l| l.starts_with("ctx opencode frame: error: stayed out of the home folder")),
        "{logged:?}"
    );
}

#[test]
fn the_root_of_the_file_system_is_no_place_for_a_hooks_frames() {
    let env = TestEnv::new();
    assert_eq!(ctxkit::project::unclaimed_root(Path::new("/")), Some("/"));
    assert_eq!(ctxkit::project::unclaimed_root(&env.root), None);
    // A hook with `/` for its root, as Claude Code run from `/` gives it. Only where `/` has no
    // frame folder of its own; one a failure of this test made is removed again.
    let flame = Path::new("/.opencode/flame");
    if flame.symlink_metadata().is_ok() {
        return;
    }
    let had_opencode = Path::new("/.opencode").symlink_metadata().is_ok();
    let out = env
        .ctx()
        .env("CTX_HOOK", "1")
        .args(["-C", "/", "frame", "push", "A goal"])
        .output()
        .unwrap();
    let made = flame.symlink_metadata().is_ok();
    if made {
        let _ = std::fs::remove_dir_all(flame);
        if !had_opencode {
            let _ = std::fs::remove_dir_all("/.opencode");
        }
    }
    assert!(!made, "{}", env.render(&out));
    assert_eq!(
        env.render(&out),
        "exit: 1\n--- stdout\n--- stderr\nerror: stayed out of /: a hook starts no frame state \
         (.opencode/flame/) there; to keep frames there, set hooks.state_in_home = \"on\" or \
         create .opencode/flame/ there\n"
    );
}

/// Takes the state's lock as another writer would, and holds it until the file is dropped.
fn hold_lock(env: &TestEnv) -> std::fs::File {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.path(".opencode/flame/state.json.lock"))
        .unwrap();
    file.lock().unwrap();
    file
}

#[test]
fn a_hook_gives_up_on_a_held_lock_well_inside_its_timeout_and_logs_it() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root"]);
    let before = env.read(".opencode/flame/state.json");
    let _holder = hold_lock(&env);
    assert_eq!(
        claude_hook(&env, &env.root, "UserPromptSubmit", &prompt()),
        ""
    );
    assert_eq!(
        hook_log_lines(&env.path(".opencode/flame/claude-hooks.log")),
        [format!(
            "UserPromptSubmit session {SESSION}: {root}/.opencode/flame/state.json is locked by \
             another ctx process (hint: waited 3 s for the lock on \
             {root}/.opencode/flame/state.json.lock, which another process still holds)",
            root = env.root.display()
        )]
    );
    // The plugin's calls wait as long.
    let out = env
        .ctx()
        .env("CTX_HOOK", "opencode")
        .args(["opencode", "frame", "ses_1", "--title", "x"])
        .timeout(HANG)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        env.render(&out)
            .contains("hint: waited 3 s for the lock on [ROOT]/.opencode/flame/state.json.lock"),
        "{}",
        env.render(&out)
    );
    assert_eq!(env.read(".opencode/flame/state.json"), before);
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

#[test]
fn pipes_named_by_hook_input_never_stall_a_hook() {
    let env = TestEnv::new();
    let pipe = env.temp().join("pipe.jsonl");
    mkfifo(&pipe);
    // A pipe where the subagent's `.meta.json` would be, beside a transcript.
    let transcript = env.temp().join("t/session.jsonl");
    mkfifo(&env.temp().join("t/session/subagents/agent-a1.meta.json"));
    let base = |fields: Value| {
        let mut value = json!({
            "session_id": SESSION,
            "transcript_path": transcript,
            "agent_id": "a1",
            "agent_type": "general-purpose",
        });
        for (k, v) in fields.as_object().unwrap() {
            value[k] = v.clone();
        }
        value
    };
    claude_hook(&env, &env.root, "UserPromptSubmit", &prompt());
    let started = claude_hook(&env, &env.root, "SubagentStart", &base(json!({})));
    assert!(started.contains("additionalContext"), "{started}");
    let stop = base(json!({
        "agent_transcript_path": pipe,
        "last_assistant_message": "Found 3 issues.",
    }));
    assert_eq!(claude_hook(&env, &env.root, "SubagentStop", &stop), "");
    let shown: Value =
        serde_json::from_str(&env.ok(&["frame", "show", "cca_a1", "--json"])).unwrap();
    assert_eq!(shown["frame"]["status"], "completed");
    assert_eq!(shown["frame"]["summary"], "Found 3 issues.");

    // The file Claude Code's SessionStart names for `export` lines.
    let env_file = env.temp().join("env-pipe");
    mkfifo(&env_file);
    let out = env
        .ctx()
        .args(["claude", "hook", "SessionStart"])
        .env("CLAUDE_ENV_FILE", &env_file)
        .write_stdin(json!({ "session_id": SESSION, "source": "startup" }).to_string())
        .timeout(HANG)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    let lines = hook_log_lines(&env.path(".opencode/flame/claude-hooks.log"));
    assert_eq!(
        lines.last().map(String::as_str),
        Some(
            format!(
                "SessionStart session {SESSION}: {}: cannot read: not a regular file",
                env_file.display()
            )
            .as_str()
        ),
        "{lines:?}"
    );
}

// ---- the session files of folding ----------------------------------------------------------

const OC_SESSION: &str = "ses_fold";

/// A session whose frame `A` was pushed and popped by the model: its messages, for
/// `ctx opencode messages`.
fn folded_session(env: &TestEnv) -> Value {
    env.ok(&["opencode", "frame", OC_SESSION, "--title", "Root"]);
    let message = |id: &str, role: &str, part: Value| {
        json!({ "info": { "id": id, "sessionID": OC_SESSION, "role": role,
                          "time": { "created": 1 } },
                "parts": [part] })
    };
    let tool = |id: &str, name: &str, output: &str| {
        message(
            id,
            "assistant",
            json!({ "id": format!("prt_{id}"), "type": "tool", "tool": name,
                    "callID": format!("call_{id}"),
                    "state": { "status": "completed", "input": {}, "output": output,
                               "time": { "start": 1, "end": 2 } } }),
        )
    };
    let span = |id: &str| ["--span-message", id, "--span-call"].map(str::to_string);
    let mut push = vec!["frame", "push", "--session", OC_SESSION]
        .into_iter()
        .map(str::to_string)
        .collect::<Vec<_>>();
    push.extend(span("msg_2"));
    push.extend(["call_msg_2".to_string(), "A".to_string()]);
    env.ok(&push.iter().map(String::as_str).collect::<Vec<_>>());
    let mut pop = vec![
        "frame",
        "pop",
        "--session",
        OC_SESSION,
        "--summary",
        "A done",
    ]
    .into_iter()
    .map(str::to_string)
    .collect::<Vec<_>>();
    pop.extend(span("msg_4"));
    pop.push("call_msg_4".to_string());
    env.ok(&pop.iter().map(String::as_str).collect::<Vec<_>>());
    json!({ "messages": [
        message("msg_1", "user", json!({ "id": "prt_msg_1", "type": "text", "text": "Start" })),
        tool("msg_2", "flame_push", "Pushed"),
        tool("msg_3", "bash", "INSIDE THE FRAME"),
        tool("msg_4", "flame_pop", "Popped"),
    ] })
}

#[test]
fn a_broken_session_file_is_set_aside_once_and_folding_goes_on() {
    let other = "{\"version\": 1, \"sessionID\": \"ses_other\", \"contexts\": []}\n".to_string();
    for (name, content) in [
        (
            "truncated",
            "{\"version\": 1, \"sessionID\": \"ses_fo".to_string(),
        ),
        ("garbage", "\u{1}\u{2}not json at all".to_string()),
        ("empty", String::new()),
        ("another session's", other),
    ] {
        let env = TestEnv::new();
        let messages = folded_session(&env).to_string();
        let file = format!(".opencode/flame/sessions/{OC_SESSION}.json");
        env.write(&file, &content);
        let send = || {
            env.run_stdin(
                &["opencode", "messages", "--session", OC_SESSION],
                messages.as_bytes(),
            )
        };
        let out = send();
        let rendered = env.render(&out);
        assert_eq!(out.status.code(), Some(0), "{name}: {rendered}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            !stdout.contains("INSIDE THE FRAME"),
            "{name}: not folded: {stdout}"
        );
        let warnings: Vec<&str> = rendered
            .lines()
            .filter(|l| l.starts_with("warning:"))
            .collect();
        assert_eq!(warnings.len(), 1, "{name}: {rendered}");
        assert!(
            warnings[0].contains(&format!("[ROOT]/{file}"))
                && warnings[0].contains(&format!("moved aside to [ROOT]/{file}.broken-")),
            "{name}: {rendered}"
        );
        let aside: Vec<_> = std::fs::read_dir(env.path(".opencode/flame/sessions"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&format!("{OC_SESSION}.json.broken-")))
            .collect();
        assert_eq!(aside.len(), 1, "{name}: {aside:?}");
        assert_eq!(
            std::fs::read_to_string(env.path(&format!(".opencode/flame/sessions/{}", aside[0])))
                .unwrap(),
            content,
            "{name}: kept as it was"
        );
        // Started anew: ctx's own file for this session, and no warning from then on.
        let recorded: Value = serde_json::from_str(&env.read(&file)).unwrap();
        assert_eq!(recorded["sessionID"], OC_SESSION, "{name}");
        let again = send();
        assert!(again.status.success());
        assert!(again.stderr.is_empty(), "{name}: {}", env.render(&again));
        assert_eq!(again.stdout, out.stdout, "{name}: the same request");
    }
}

#[test]
fn an_empty_message_list_warns_of_nothing() {
    let env = TestEnv::new();
    folded_session(&env);
    let out = env.run_stdin(
        &["opencode", "messages", "--session", OC_SESSION],
        b"{\"messages\": []}",
    );
    assert_eq!(
        env.render(&out),
        "exit: 0\n--- stdout\n{\"messages\":[]}\n--- stderr\n"
    );
}

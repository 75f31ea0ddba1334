//! Turn frames in pi (`frame.auto = "turns"`): `ctx pi turn` called as ctx's extension calls it
//! (`--start` when a person's prompt starts the agent, `--end` with pi's `agent_end` messages),
//! and `ctx pi messages` folding the outputs of closed turns, with pi's messages stamped on the
//! clock ctx reads, as pi stamps them.

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::common::TestEnv;

const SESSION: &str = "pi_0b1e-77";

/// A project whose `ctx.toml` sets `frame.auto`, with the session's own frame.
fn env_with(auto: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", format!("frame.auto = \"{auto}\"\n"));
    env.ok(&[
        "pi",
        "frame",
        "--session",
        SESSION,
        "--title",
        "The session",
    ]);
    env
}

/// About 20 000 characters of a tool's output, each word marked `mark`.
fn big(mark: &str) -> String {
    (0..2000)
        .map(|i| format!("{mark}-{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the results of a closed turn of `calls` calls, `chars` characters of output in all, come
/// to: the first one's content, its entry (the others go, calls and results).
fn entry(id: &str, calls: usize, chars: usize) -> Value {
    if calls == 1 {
        return placeholder(id, chars);
    }
    json!([{"type": "text", "text": format!(
        "[ctx folded this output and the {} other tool calls after it ({chars} characters of \
         output) into the log of frame {id}: flame_recall with id {id} gives them back]",
        calls - 1
    )}])
}

/// What ctx folds an output of `chars` characters into, in turn `id`'s log.
fn placeholder(id: &str, chars: usize) -> Value {
    json!([{"type": "text", "text": format!(
        "[ctx folded this output ({chars} characters) into the log of frame {id}: flame_recall \
         with id {id} gives it back]"
    )}])
}

/// A pi session as ctx's extension sees it: its messages, stamped as pi stamps them, and the
/// messages of the runs since the open turn began (what the extension gives at `--end`).
struct Pi<'e> {
    env: &'e TestEnv,
    messages: Vec<Value>,
    run: Vec<Value>,
    clock: i64,
}

impl<'e> Pi<'e> {
    fn new(env: &'e TestEnv) -> Pi<'e> {
        Pi {
            env,
            messages: Vec::new(),
            run: Vec::new(),
            clock: 0,
        }
    }

    /// A time after every earlier one, and after any ctx run before it: ctx stamps its marks
    /// with the same clock.
    fn stamp(&mut self) -> i64 {
        std::thread::sleep(std::time::Duration::from_millis(2));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        self.clock = now.max(self.clock + 1);
        self.clock
    }

    fn add(&mut self, mut message: Value) {
        message["timestamp"] = json!(self.stamp());
        self.messages.push(message.clone());
        self.run.push(message);
    }

    /// A person's prompt starting the agent: pi writes it, then the extension opens its turn.
    /// The id printed (none: no turn opened) and what ctx said on stderr.
    fn person(&mut self, text: &str) -> (String, String) {
        self.add(json!({"role": "user", "content": [{"type": "text", "text": text}]}));
        let out = self.env.run(&[
            "pi",
            "turn",
            "--session",
            SESSION,
            "--start",
            "--goal",
            text,
        ]);
        assert!(out.status.success(), "{}", self.env.render(&out));
        let id = String::from_utf8(out.stdout).unwrap().trim().to_string();
        if !id.is_empty() {
            self.run = self.run.split_off(self.run.len() - 1);
        }
        (id, String::from_utf8(out.stderr).unwrap())
    }

    /// An assistant message calling `tool`, and its result (`error`: pi's `isError`).
    fn call(&mut self, id: &str, tool: &str, arguments: Value, output: &str, error: bool) {
        self.add(json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": id, "name": tool, "arguments": arguments}],
            "api": "openai-completions", "provider": "mock", "model": "mock-1",
            "stopReason": "toolUse"}));
        self.add(
            json!({"role": "toolResult", "toolCallId": id, "toolName": tool,
            "content": [{"type": "text", "text": output}], "isError": error}),
        );
    }

    /// The model's answer, ending the run with `stop`.
    fn answer(&mut self, text: &str, stop: &str) {
        self.add(
            json!({"role": "assistant", "content": [{"type": "text", "text": text}],
            "api": "openai-completions", "provider": "mock", "model": "mock-1",
            "stopReason": stop}),
        );
    }

    /// pi's agent_end: the extension closes the turn with the runs' messages. The id printed
    /// (none: nothing closed) and what ctx said on stderr.
    fn end(&mut self) -> (String, String) {
        let input = json!({ "messages": self.run }).to_string();
        let out = self.env.run_stdin(
            &[
                "pi",
                "turn",
                "--session",
                SESSION,
                "--end",
                "--messages",
                "-",
            ],
            input.as_bytes(),
        );
        assert!(out.status.success(), "{}", self.env.render(&out));
        let id = String::from_utf8(out.stdout).unwrap().trim().to_string();
        if !id.is_empty() {
            self.run.clear();
        }
        (id, String::from_utf8(out.stderr).unwrap())
    }

    /// What `ctx pi messages` sends of the session's messages now.
    fn request(&self) -> Vec<Value> {
        let input = json!({ "messages": self.messages }).to_string();
        let out = self
            .env
            .run_stdin(&["pi", "messages", "--session", SESSION], input.as_bytes());
        assert!(out.status.success(), "{}", self.env.render(&out));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
        sent["messages"].as_array().unwrap().clone()
    }
}

fn show(env: &TestEnv, id: &str) -> Value {
    let out = env.ok(&["frame", "show", "--json", "--", id]);
    serde_json::from_str::<Value>(&out).unwrap()["frame"].clone()
}

#[test]
fn a_person_turn_is_a_frame_closed_with_its_digest_and_its_outputs_fold_once_closed() {
    let env = env_with("turns");
    let mut pi = Pi::new(&env);
    let (first, said) = pi.person("PERSON0: build it\nwith care");
    assert!(first.starts_with("fr_"), "{first}");
    assert_eq!(said, "");
    pi.call(
        "c1",
        "bash",
        json!({"command": "make"}),
        &big("OUT0"),
        false,
    );
    pi.call(
        "c2",
        "edit",
        json!({"path": "src/a.rs", "edits": []}),
        "Edited src/a.rs",
        false,
    );
    pi.answer("ASSIST0: built", "stop");
    // While the turn runs, nothing of it folds.
    assert_eq!(pi.request(), pi.messages);
    assert_eq!(pi.end(), (first.clone(), String::new()));

    let frame = show(&env, &first);
    assert_eq!(frame["status"], "completed");
    assert_eq!(frame["parent"], SESSION);
    assert_eq!(frame["goal"], "PERSON0: build it");
    assert_eq!(
        frame["summary"],
        "ASSIST0: built\n\nCommands: `make` (exit 0)"
    );
    assert_eq!(frame["artifacts"], json!(["src/a.rs"]));
    let tree = env.ok(&["frame", "tree", "--ascii"]);
    assert!(
        tree.lines()
            .any(|l| l.contains("PERSON0: build it (") && l.ends_with(") turn")),
        "{tree}"
    );
    let log = env.ok(&["frame", "log", &first]);
    assert!(log.contains(&big("OUT0")), "{log}");
    assert!(log.starts_with("# Frame: PERSON0: build it\n"), "{log}");
    assert!(log.contains("pi session pi_0b1e-77: PERSON0: build it\n"));

    let (second, _) = pi.person("PERSON1: test it");
    assert!(second.starts_with("fr_") && second != first);
    pi.call(
        "c3",
        "bash",
        json!({"command": "make test"}),
        &big("OUT1"),
        false,
    );
    // The closed turn sends its first call, its input emptied, with the turn's entry as its
    // result; its other call goes with its result; every other message, the texts among them,
    // goes as pi made it.
    let mut expected = pi.messages.clone();
    expected[1]["content"][0]["arguments"] = json!({});
    let chars = big("OUT0").chars().count() + "Edited src/a.rs".len();
    expected[2]["content"] = entry(&first, 2, chars);
    expected.drain(3..5);
    assert_eq!(pi.request(), expected);
    // Closed too, the second turn folds its own output.
    pi.answer("ASSIST1: tested", "stop");
    assert_eq!(pi.end().0, second);
    expected[5]["content"][0]["arguments"] = json!({});
    expected[6]["content"] = placeholder(&second, big("OUT1").chars().count());
    expected.push(pi.messages[9].clone());
    assert_eq!(pi.request(), expected);
}

#[test]
fn with_fold_after_a_closed_turn_waits_for_that_many_person_messages() {
    let env = env_with("turns");
    env.write(
        ".opencode/ctx.toml",
        "frame.auto = \"turns\"\nframe.fold_after = 2\n",
    );
    let mut pi = Pi::new(&env);
    let (first, _) = pi.person("PERSON0: build it");
    pi.call(
        "c1",
        "bash",
        json!({"command": "make"}),
        &big("OUT0"),
        false,
    );
    pi.answer("ASSIST0: built", "stop");
    assert_eq!(pi.end().0, first);
    pi.person("PERSON1: test it");
    assert_eq!(
        pi.request(),
        pi.messages,
        "one person's message after it: whole"
    );
    pi.answer("ASSIST1: tested", "stop");
    pi.end();
    pi.person("PERSON2: ship it");
    let sent = pi.request();
    assert_eq!(
        sent[2]["content"],
        placeholder(&first, big("OUT0").chars().count())
    );
    assert_eq!(
        sent[3..],
        pi.messages[3..],
        "the second turn is still whole"
    );
}

#[test]
fn flame_outputs_stay_and_a_turn_waits_for_the_frame_pushed_in_it() {
    let env = env_with("all");
    let mut pi = Pi::new(&env);
    let (turn, _) = pi.person("PERSON0: audit");
    // The model pushes a frame (flame_push, as the extension runs it) and works in it.
    let pushed = env.ok(&[
        "frame",
        "push",
        "--session",
        SESSION,
        "--span-call",
        "c1",
        "--",
        "Audit the ledger",
    ]);
    let pushed = pushed.trim().to_string();
    assert_eq!(show(&env, &pushed)["parent"], turn.as_str());
    pi.call(
        "c1",
        "flame_push",
        json!({"goal": "Audit the ledger"}),
        "Pushed",
        false,
    );
    pi.call(
        "c2",
        "bash",
        json!({"command": "cat ledger"}),
        &big("LED"),
        false,
    );
    pi.answer("ASSIST0: half way", "stop");
    // The end of turn leaves it open while the model's frame runs, and the person's next prompt
    // is the waiting turn's.
    let (closed, said) = pi.end();
    assert_eq!(closed, "");
    assert_eq!(
        said,
        format!("turn {turn} waits for {pushed}, pushed in it\n")
    );
    let (opened, said) = pi.person("PERSON1: go on");
    assert_eq!(opened, "");
    assert_eq!(
        said,
        format!("turn {turn} waits for {pushed}: this message is its\n")
    );
    env.ok(&[
        "frame",
        "pop",
        "--session",
        SESSION,
        "--span-call",
        "c3",
        "--summary",
        "Two entries are wrong",
    ]);
    pi.call(
        "c3",
        "flame_pop",
        json!({"summary": "Two entries are wrong"}),
        "Popped",
        false,
    );
    pi.call(
        "c4",
        "bash",
        json!({"command": "echo fixed"}),
        "fixed",
        false,
    );
    pi.answer("ASSIST1: fixed", "stop");
    assert_eq!(pi.end().0, turn);
    // The log holds both prompts' runs.
    let log = env.ok(&["frame", "log", &turn]);
    assert!(log.contains("PERSON0: audit") && log.contains("PERSON1: go on"));
    assert!(log.contains("ASSIST1: fixed"));
    // The pushed frame folds to its entry, the pop's call and entry are never a placeholder, and
    // the turn's other outputs are.
    // (What the person wrote inside the pushed frame folds with it: pi.fold_user_messages.)
    let sent = pi.request();
    let roles: Vec<&str> = sent.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "custom",
            "assistant",
            "toolResult",
            "assistant"
        ],
        "{sent:#?}"
    );
    assert_eq!(sent[0], pi.messages[0]);
    assert_eq!(sent[1], pi.messages[7]);
    assert_eq!(
        sent[2]["content"][0]["text"],
        format!("<flame-folded id=\"{pushed}\"/>")
    );
    assert!(
        sent[3]["content"]
            .as_str()
            .unwrap()
            .starts_with("<flame-context")
    );
    assert_eq!(sent[4], pi.messages[9]);
    // The turn's own output is shorter than an entry would be: it stays.
    assert_eq!(sent[5], pi.messages[10]);
    assert_eq!(sent[6], pi.messages[11]);
    assert!(!json!(sent).to_string().contains("LED-1"));
}

#[test]
fn frame_auto_off_opens_no_turn_and_folds_nothing() {
    let env = env_with("off");
    let mut pi = Pi::new(&env);
    let state = env.read(".opencode/flame/state.json");
    assert_eq!(
        pi.person("PERSON0: build it"),
        (String::new(), String::new())
    );
    pi.call(
        "c1",
        "bash",
        json!({"command": "make"}),
        &big("OUT0"),
        false,
    );
    pi.answer("ASSIST0: built", "stop");
    assert_eq!(pi.end(), (String::new(), String::new()));
    pi.person("PERSON1: test it");
    assert_eq!(env.read(".opencode/flame/state.json"), state);
    assert_eq!(pi.request(), pi.messages);
}

#[test]
fn pi_fold_off_sends_a_closed_turn_whole() {
    let env = env_with("turns");
    env.write(
        ".opencode/ctx.toml",
        "frame.auto = \"turns\"\n[pi]\nfold = \"off\"\n",
    );
    let mut pi = Pi::new(&env);
    let (turn, _) = pi.person("PERSON0: build it");
    pi.call(
        "c1",
        "bash",
        json!({"command": "make"}),
        &big("OUT0"),
        false,
    );
    pi.answer("ASSIST0: built", "stop");
    assert_eq!(pi.end().0, turn);
    pi.person("PERSON1: test it");
    assert_eq!(pi.request(), pi.messages);
}

#[test]
fn a_turn_without_assistant_text_and_an_interrupted_one_say_so() {
    let env = env_with("turns");
    let mut pi = Pi::new(&env);
    let (quiet, _) = pi.person("PERSON0: list");
    pi.call("c1", "bash", json!({"command": "ls"}), "a b", false);
    let fail = format!("FAIL {}\n\nCommand exited with code 2", "x".repeat(300));
    pi.call(
        "c2",
        "bash",
        json!({"command": "make   check"}),
        &fail,
        true,
    );
    pi.answer("", "stop");
    assert_eq!(pi.end().0, quiet);
    assert_eq!(
        show(&env, &quiet)["summary"],
        "The turn ended without assistant text.\n\nCommands: `ls` (exit 0); `make check` (exit 2)"
    );
    let (stopped, _) = pi.person("PERSON1: rebuild");
    pi.answer("Rebuilding now", "toolUse");
    let aborted = format!("{}\n\nCommand aborted", "y".repeat(300));
    pi.call("c3", "bash", json!({"command": "sleep 60"}), &aborted, true);
    // pi's message for a run the person stopped: empty, stopReason aborted.
    pi.add(
        json!({"role": "assistant", "content": [{"type": "text", "text": ""}],
        "stopReason": "aborted", "errorMessage": "Request was aborted"}),
    );
    assert_eq!(pi.end().0, stopped);
    assert_eq!(
        show(&env, &stopped)["summary"],
        "Rebuilding now\n\nThe person interrupted the turn.\n\nCommands: `sleep 60` (error)"
    );
    // Both fold: an error's output too (a failing command's is often the longest).
    pi.person("PERSON2: again");
    let sent = pi.request();
    let chars = |s: &str| s.chars().count();
    let result = |call: &str| {
        sent.iter()
            .find(|m| m["toolCallId"] == call)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(result("c1")["content"], entry(&quiet, 2, 3 + chars(&fail)));
    assert_eq!(
        result("c2"),
        Value::Null,
        "the failing call goes with its output"
    );
    assert_eq!(
        result("c3")["content"],
        placeholder(&stopped, chars(&aborted))
    );
    assert_eq!(result("c3")["isError"], true);
}

#[test]
fn a_broken_state_file_is_refused_and_left_as_it_was() {
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "frame.auto = \"turns\"\n");
    env.write(".opencode/flame/state.json", "{\"frames\": {");
    let start = env.run(&[
        "pi",
        "turn",
        "--session",
        SESSION,
        "--start",
        "--goal",
        "Go",
    ]);
    assert_snapshot!(env.render(&start), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json: invalid JSON at line 1, column 13: unexpected end of input inside an object
    ");
    let end = env.run_stdin(
        &[
            "pi",
            "turn",
            "--session",
            SESSION,
            "--end",
            "--messages",
            "-",
        ],
        br#"{"messages": []}"#,
    );
    assert_snapshot!(env.render(&end), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json: invalid JSON at line 1, column 13: unexpected end of input inside an object
    ");
    assert_eq!(env.read(".opencode/flame/state.json"), "{\"frames\": {");
}

#[test]
fn unknown_and_invalid_sessions_open_and_close_nothing() {
    let env = env_with("turns");
    let state = env.read(".opencode/flame/state.json");
    // A session with no frame of its own (ctx's extension makes it first): no turn.
    assert_snapshot!(env.snap(&["pi", "turn", "--session", "pi_unknown", "--start", "--json"]), @r#"
    exit: 0
    --- stdout
    {"version":1,"frame":null}
    --- stderr
    "#);
    assert_snapshot!(env.snap(&["pi", "turn", "--session", "pi_unknown", "--end", "--json"]), @r#"
    exit: 0
    --- stdout
    {"version":1,"frame":null,"reason":"the session has no open turn"}
    --- stderr
    "#);
    assert_eq!(env.read(".opencode/flame/state.json"), state);
    assert_snapshot!(env.snap(&["pi", "turn", "--session", "../etc", "--start"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: invalid frame id '../etc': only letters, digits, '_' and '-' are allowed
    ");
    assert_snapshot!(env.snap(&["pi", "turn", "--session", SESSION]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: the following required arguments were not provided:
      <--start|--end>

    Usage: ctx pi turn [OPTIONS] --session <ID> <--start|--end>

    For more information, try '--help'.
    ");
}

#[test]
fn messages_ctx_cannot_read_close_the_turn_without_them() {
    let env = env_with("turns");
    let end = |input: &[u8]| {
        let (turn, _) = Pi::new(&env).person("PERSON0: go");
        let out = env.run_stdin(
            &[
                "pi",
                "turn",
                "--session",
                SESSION,
                "--end",
                "--messages",
                "-",
            ],
            input,
        );
        let said = env.render(&out).replace(&turn, "[TURN]");
        (turn, said)
    };
    let (turn, said) = end(br#"{"messages": 3}"#);
    assert_snapshot!(said, @r"
    exit: 0
    --- stdout
    [TURN]
    --- stderr
    warning: <stdin>: not a pi message list: /messages is not an array; the turn is closed without its messages in the log
    ");
    assert_eq!(show(&env, &turn)["status"], "completed");
    assert_eq!(
        show(&env, &turn)["summary"],
        "The turn ended; its messages could not be read."
    );
    let (_, said) = end(b"PERSON0 said go");
    assert_snapshot!(said, @r"
    exit: 0
    --- stdout
    [TURN]
    --- stderr
    warning: <stdin>: not JSON: expected value at line 1, column 1; the turn is closed without its messages in the log
    ");
    // Messages of the wrong JSON types are read as far as they go: the turn closes with them.
    let (turn, said) = end(
        br#"{"messages": [{"role": "user", "content": 5, "timestamp": "soon"}, 7,
            {"role": "assistant", "content": {"type": "text"}, "stopReason": 9},
            {"role": "assistant", "content": [{"type": "toolCall", "id": 1, "name": "bash",
              "arguments": "ls"}, {"type": "text", "text": null}, 4]},
            {"role": "toolResult", "toolCallId": ["c1"], "content": [{"type": 2}], "isError": "yes"}]}"#,
    );
    assert_snapshot!(said, @r"
    exit: 0
    --- stdout
    [TURN]
    --- stderr
    ");
    assert_eq!(
        show(&env, &turn)["summary"],
        "The turn ended without assistant text."
    );
}

#[test]
fn an_end_with_no_open_turn_changes_nothing() {
    let env = env_with("turns");
    let mut pi = Pi::new(&env);
    let (turn, _) = pi.person("PERSON0: go");
    pi.answer("Done", "stop");
    assert_eq!(pi.end().0, turn);
    let state = env.read(".opencode/flame/state.json");
    let log = env.ok(&["frame", "log", &turn]);
    let out = env.run_stdin(
        &[
            "pi",
            "turn",
            "--session",
            SESSION,
            "--end",
            "--messages",
            "-",
            "--json",
        ],
        br#"{"messages": []}"#,
    );
    assert_snapshot!(env.render(&out), @r#"
    exit: 0
    --- stdout
    {"version":1,"frame":null,"reason":"the session has no open turn"}
    --- stderr
    "#);
    assert_eq!(env.read(".opencode/flame/state.json"), state);
    assert_eq!(env.ok(&["frame", "log", &turn]), log);
}

#[test]
fn a_turn_whose_end_never_came_is_closed_by_the_next_prompt() {
    let env = env_with("turns");
    let mut pi = Pi::new(&env);
    let (first, _) = pi.person("PERSON0: go");
    pi.call(
        "c1",
        "bash",
        json!({"command": "make"}),
        &big("OUT0"),
        false,
    );
    // pi was killed: no agent_end. The next process's prompt opens the next turn.
    let (second, said) = pi.person("PERSON1: again");
    assert_eq!(said, "");
    assert!(second.starts_with("fr_") && second != first);
    let frame = show(&env, &first);
    assert_eq!(frame["status"], "completed");
    assert_eq!(
        frame["summary"],
        "The turn's end was not seen; the next person's message closed it."
    );
    assert_eq!(show(&env, &second)["parent"], SESSION);
    // Its outputs fold all the same, by the times it ran.
    assert_eq!(
        pi.request()[2]["content"],
        placeholder(&first, big("OUT0").chars().count())
    );
}

#[test]
fn the_sessions_whole_message_list_is_cut_to_the_turn() {
    let env = env_with("turns");
    let mut pi = Pi::new(&env);
    let (first, _) = pi.person("PERSON0: go");
    pi.call(
        "c1",
        "bash",
        json!({"command": "make"}),
        &big("OUT0"),
        false,
    );
    pi.answer("ASSIST0: made", "stop");
    pi.end();
    let (second, _) = pi.person("PERSON1: again");
    pi.call(
        "c2",
        "bash",
        json!({"command": "make test"}),
        "tested",
        false,
    );
    pi.answer("ASSIST1: tested", "stop");
    // The extension gives the session's messages rather than the run's.
    pi.run = pi.messages.clone();
    assert_eq!(pi.end().0, second);
    let log = env.ok(&["frame", "log", &second]);
    assert!(log.contains("PERSON1: again") && log.contains("ASSIST1: tested"));
    assert!(!log.contains("PERSON0") && !log.contains("OUT0"), "{log}");
    assert_eq!(
        show(&env, &second)["summary"],
        "ASSIST1: tested\n\nCommands: `make test` (exit 0)"
    );
    assert!(env.ok(&["frame", "log", &first]).contains(&big("OUT0")));
}

//! What files and arguments say never takes over the terminal: every human view, run on a real
//! terminal (script(1) gives it one), shows hostile text with its control characters made
//! visible, and so do the byte-exact outputs when a person reads them there.

use std::process::Command;

use crate::common::TestEnv;

/// Clears the screen, retitles the window, rings, returns the carriage, reverses the line, a C1
/// CSI, and writes the clipboard.
const HOSTILE: &str =
    "A\u{1b}[2J\u{1b}]0;owned\u{7}B\rC\u{202e}D\u{9b}31mE\u{1b}]52;c;aGVsbG8=\u{7}F\u{2066}G";

/// `ctx ARGS` with stdout and stderr on a terminal; what the terminal received.
fn on_a_terminal(env: &TestEnv, args: &[&str]) -> Vec<u8> {
    let ctx = assert_cmd::cargo::cargo_bin("ctx");
    // The arguments reach ctx through the environment, so that the shell never sees them.
    let mut inner = format!("'{}' --color never", ctx.display());
    let mut command = Command::new("script");
    for (i, arg) in args.iter().enumerate() {
        inner.push_str(&format!(" \"$A{i}\""));
        command.env(format!("A{i}"), arg);
    }
    let out = command
        .args(["-qec", &inner, "/dev/null"])
        .current_dir(&env.root)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.home.join(".config"))
        .env("LANG", "C.UTF-8")
        .env("COLUMNS", "100")
        .output()
        .expect("script(1) from util-linux");
    out.stdout
}

/// The terminal got no byte that acts on it: no ESC, no C1, no carriage return but the one the
/// terminal puts before each newline, no bidi control, no BEL, no NUL.
fn assert_inert(args: &[&str], shown: &[u8]) {
    let text = String::from_utf8_lossy(shown);
    let lines = text.replace("\r\n", "\n");
    let acting: Vec<char> = lines
        .chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    assert!(
        acting.is_empty(),
        "ctx {args:?} sent {acting:?} to the terminal:\n{lines}"
    );
}

fn hostile_project() -> (TestEnv, String) {
    let env = TestEnv::new();
    env.ok(&["frame", "push", HOSTILE]);
    let child = env.ok(&["frame", "push", &format!("child {HOSTILE}")]);
    let child = child.trim_end().to_string();
    env.ok(&["frame", "artifact", HOSTILE]);
    env.ok(&["frame", "decision", HOSTILE]);
    env.ok(&["frame", "pop", "--summary", HOSTILE]);
    env.ok(&["frame", "plan", HOSTILE]);
    env.write(
        ".swarm/plan.md",
        format!(
            "# {HOSTILE}\n\n## Phase 1: {HOSTILE} [IN PROGRESS]\n\n- [ ] 1.1: {HOSTILE}\n- [x] 1.2: done\n- [BLOCKED] 1.3: {HOSTILE}\n"
        ),
    );
    env.write(
        ".opencode/opencode-swarm.json",
        serde_json::json!({"agents": {"coder": {"model": HOSTILE}}}).to_string(),
    );
    env.write(
        &format!("src/{}.rs", HOSTILE.replace('/', "_")),
        "fn main() {}\n",
    );
    env.write(
        ".opencode/ctx.toml",
        format!(
            "[budget]\nmodel = {}\n",
            toml::Value::String(HOSTILE.to_string())
        ),
    );
    (env, child)
}

#[test]
fn no_human_view_sends_control_characters_to_the_terminal() {
    let (env, child) = hostile_project();
    let views: Vec<Vec<&str>> = vec![
        vec!["frame", "tree"],
        vec!["frame", "tree", "--details"],
        vec!["frame", "show"],
        vec!["frame", "show", &child],
        vec!["frame", "log", &child],
        vec!["swarm", "status"],
        vec!["swarm", "plan"],
        vec!["swarm", "agents"],
        vec!["swarm", "history"],
        vec!["budget", "estimate", "src"],
        vec!["config"],
        vec!["config", "budget.model"],
    ];
    for args in &views {
        let shown = on_a_terminal(&env, args);
        assert!(!shown.is_empty(), "ctx {args:?} showed nothing");
        assert_inert(args, &shown);
    }
    // What was escaped is still there to read.
    let tree = String::from_utf8(on_a_terminal(&env, &["frame", "tree"])).unwrap();
    assert!(
        tree.contains("A\\e[2J\\e]0;owned\\u{7}B\\rC\\u{202e}D\\u{9b}31mE"),
        "{tree}"
    );
}

#[test]
fn byte_exact_outputs_are_escaped_on_a_terminal_only() {
    let (env, child) = hostile_project();
    // (opencode-swarm's status line reads the phase heading its own way; the rest quotes it.)
    assert_inert(
        &["swarm", "status"],
        &on_a_terminal(&env, &["swarm", "status", "--format", "markdown"]),
    );
    for args in [
        vec!["swarm", "plan", "--format", "markdown"],
        vec!["swarm", "agents", "--format", "markdown"],
        vec!["compact", "notice", "--frame", &child, "--format", "text"],
        vec!["compact", "render", "--for", "swarm", "--format", "text"],
        vec!["frame", "log", &child],
    ] {
        assert_inert(&args, &on_a_terminal(&env, &args));
        // In a pipe the bytes are the contract: the hostile text goes through unchanged.
        let piped = env.run(&args);
        assert!(piped.status.success(), "{}", env.render(&piped));
        assert!(
            String::from_utf8_lossy(&piped.stdout).contains('\u{1b}'),
            "ctx {args:?} changed its bytes in a pipe"
        );
    }
}

#[test]
fn errors_and_warnings_quote_arguments_and_files_harmlessly() {
    let (env, _) = hostile_project();
    for args in [
        vec!["frame", "show", HOSTILE],
        vec!["frame", "push", "--parent", HOSTILE, "x"],
        vec!["swarm", "plan", HOSTILE],
    ] {
        let shown = on_a_terminal(&env, &args);
        assert!(
            String::from_utf8_lossy(&shown).contains("error: "),
            "{args:?}"
        );
        assert_inert(&args, &shown);
    }
}

//! What the environment says: empty `CTX_*` variables, `TERM`, and the exit codes `--help` names.

use std::process::Command;

use serde_json::{Value, json};

use crate::common::TestEnv;

#[test]
fn empty_ctx_variables_are_unset() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root", "--id", "root"]);
    for var in [
        "CTX_SESSION",
        "CTX_ROOT",
        "CTX_FRAME",
        "CTX_HOOK",
        "CTX_OPENCODE_FOLD",
    ] {
        let out = env
            .ctx()
            .env(var, "")
            .args(["frame", "tree"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{var}=: {}", env.render(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("root"),
            "{var}="
        );
    }
}

#[test]
fn help_names_every_exit_code() {
    let env = TestEnv::new();
    let help = env.ok(&["--help"]);
    let codes = help
        .split("Exit codes:")
        .nth(1)
        .expect("an exit code paragraph")
        .split("\n\n")
        .next()
        .unwrap()
        .replace('\n', " ");
    for code in [
        "0 success",
        "1 failure",
        "2 usage",
        "3 and 4",
        "5 a failed health check",
        "6 a cost",
    ] {
        assert!(codes.contains(code), "{code}: {codes}");
    }
}

/// `ctx frame tree` with stdout on a terminal (script(1)) whose TERM is `term`.
fn tree_on_a_terminal(env: &TestEnv, term: &str) -> String {
    let ctx = assert_cmd::cargo::cargo_bin("ctx");
    let out = Command::new("script")
        .args([
            "-qec",
            &format!("'{}' frame tree", ctx.display()),
            "/dev/null",
        ])
        .current_dir(&env.root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.home.join(".config"))
        .env("LANG", "C.UTF-8")
        .env("TERM", term)
        .output()
        .expect("script(1) from util-linux");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_dumb_terminal_gets_no_colour() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root"]);
    assert!(
        tree_on_a_terminal(&env, "xterm").contains('\u{1b}'),
        "colour on a terminal"
    );
    let dumb = tree_on_a_terminal(&env, "dumb");
    assert!(dumb.contains("Root"), "{dumb}");
    assert!(!dumb.contains('\u{1b}'), "{dumb:?}");
    let config: Value = serde_json::from_slice(
        &env.ctx()
            .env("TERM", "dumb")
            .args(["config", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(
        config["color"],
        json!({ "value": "never", "source": "env", "detail": "TERM=dumb" })
    );
}

/// Each agent's folder variable read as that agent reads it (each seen in the real agent):
/// Claude Code and Codex take a `~` as a folder of that name below the working folder, pi as the
/// home folder; an empty `CLAUDE_CONFIG_DIR` is the working folder, an empty `CODEX_HOME` unset.
#[test]
fn agent_folder_variables_are_read_as_each_agent_reads_them() {
    let env = TestEnv::new();
    let global = |var: &str, value: &str, agent: &str| {
        env.ctx()
            .env(var, value)
            .args([agent, "install", "--global"])
            .output()
            .unwrap()
    };
    assert!(
        global("CLAUDE_CONFIG_DIR", "~/cc", "claude")
            .status
            .success()
    );
    assert!(
        env.path("~/cc/settings.json").is_file(),
        "Claude Code: ./~/cc"
    );
    assert!(!env.home.join("cc").exists());
    assert!(global("CLAUDE_CONFIG_DIR", "", "claude").status.success());
    assert!(
        env.path("settings.json").is_file(),
        "Claude Code: the working folder"
    );

    // Codex refuses a CODEX_HOME that is not a folder, and so does ctx.
    let out = global("CODEX_HOME", "~/cx", "codex");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().next(),
        Some(
            "error: CODEX_HOME points to ~/cx, which is not a folder; Codex refuses such a \
             CODEX_HOME, so ctx installs nothing there"
        )
    );
    std::fs::create_dir_all(env.path("~/cx")).unwrap();
    assert!(global("CODEX_HOME", "~/cx", "codex").status.success());
    assert!(env.path("~/cx/hooks.json").is_file(), "Codex: ./~/cx");
    assert!(global("CODEX_HOME", "", "codex").status.success());
    assert!(
        env.home.join(".codex/hooks.json").is_file(),
        "Codex: ~/.codex"
    );

    assert!(global("PI_CODING_AGENT_DIR", "~/pi", "pi").status.success());
    assert!(
        env.home.join("pi/extensions/ctx.ts").is_file(),
        "pi: $HOME/pi"
    );
}

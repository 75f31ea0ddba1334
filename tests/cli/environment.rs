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

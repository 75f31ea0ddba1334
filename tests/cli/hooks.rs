//! The git hooks under integrations/git-hooks/, run by git in a temporary repository.

use std::path::Path;
use std::process::Command;

use crate::common::TestEnv;

fn git(env: &TestEnv, args: &[&str]) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("ctx");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("git")
        .args(args)
        .current_dir(&env.root)
        .env("PATH", path)
        .env("HOME", &env.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env_remove("CTX_FRAME")
        .output()
        .expect("git runs")
}

fn install_hook(env: &TestEnv, name: &str) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("integrations/git-hooks")
        .join(name);
    let target = env.path(&format!(".git/hooks/{name}"));
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::copy(source, &target).unwrap();
}

#[test]
fn post_commit_records_committed_files_as_artifacts() {
    let env = TestEnv::new();
    assert!(git(&env, &["init", "-q"]).status.success());
    install_hook(&env, "post-commit");

    // Without a frame tree the hook stays silent and the commit goes through.
    env.write("README.md", "hello\n");
    git(&env, &["add", "README.md"]);
    let out = git(&env, &["commit", "-q", "-m", "first"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");

    let id = env
        .ok(&["frame", "push", "Write the parser"])
        .trim()
        .to_string();
    env.write("src/parser.rs", "fn parse() {}\n");
    env.write("src/with space.rs", "\n");
    // opencode-swarm's and the frame tree's own bookkeeping are nobody's work output.
    env.write(".swarm/plan.md", "# Plan\n");
    std::fs::remove_file(env.path("README.md")).unwrap();
    git(&env, &["add", "-A"]);
    let out = git(&env, &["commit", "-q", "-m", "second"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&env.ok(&["frame", "show", &id, "--json"])).unwrap();
    assert_eq!(
        doc["frame"]["artifacts"],
        serde_json::json!(["src/parser.rs", "src/with space.rs"])
    );
}

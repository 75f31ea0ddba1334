//! A temporary project and helpers to run `ctx` in it and snapshot what it printed.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// A temporary project root (with `.opencode/`) and a private HOME/XDG tree, so that no user
/// setting of the machine leaks into a test.
pub struct TestEnv {
    dir: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(root.join(".opencode")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        TestEnv { dir, root, home }
    }

    /// `ctx` with the project as working directory and a clean environment.
    pub fn ctx(&self) -> Command {
        Command::from_std(self.std_command())
    }

    /// The same, as a plain `std::process::Command` (for spawning processes that run at once).
    pub fn std_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctx"));
        cmd.current_dir(&self.root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("LANG", "C.UTF-8");
        cmd
    }

    /// Runs `ctx ARGS` and returns its output (a JSON document is checked against its schema).
    pub fn run(&self, args: &[&str]) -> Output {
        let out = self.ctx().args(args).output().expect("run ctx");
        crate::schema::check_output(args, &out);
        out
    }

    /// Runs `ctx ARGS` with `stdin` on standard input.
    pub fn run_stdin(&self, args: &[&str], stdin: &[u8]) -> Output {
        let out = self
            .ctx()
            .args(args)
            .write_stdin(stdin)
            .output()
            .expect("run ctx");
        crate::schema::check_output(args, &out);
        out
    }

    /// Runs `ctx ARGS`, requires exit 0, and returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "ctx {args:?} failed:\n{}",
            self.render(&out)
        );
        String::from_utf8(out.stdout).expect("UTF-8 stdout")
    }

    /// Exit code, stdout and stderr in one text for snapshots, with temp paths replaced by `[ROOT]`
    /// and `[HOME]`.
    pub fn render(&self, out: &Output) -> String {
        let text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            out.status
                .code()
                .map_or("signal".to_string(), |c| c.to_string()),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        self.filter(&text)
    }

    /// Runs and renders.
    pub fn snap(&self, args: &[&str]) -> String {
        let out = self.run(args);
        self.render(&out)
    }

    pub fn filter(&self, text: &str) -> String {
        let root = self.root.display().to_string();
        let home = self.home.display().to_string();
        text.replace(&root, "[ROOT]").replace(&home, "[HOME]")
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    pub fn write(&self, relative: &str, contents: impl AsRef<[u8]>) {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.root.join(relative)).unwrap()
    }

    pub fn temp(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `ctx AGENT hook EVENT` with `input` on stdin; returns stdout after checking that the
    /// call exited 0 and printed nothing on stderr, whatever happened.
    pub fn hook(&self, agent: &str, event: &str, input: &[u8]) -> String {
        let out = self.run_stdin(&[agent, "hook", event], input);
        assert_eq!(out.status.code(), Some(0), "{}", self.render(&out));
        assert!(out.stderr.is_empty(), "{}", self.render(&out));
        String::from_utf8(out.stdout).unwrap()
    }
}

/// The lines of an agent's hook log (`ctx-hooks.log`) without their time stamps.
pub fn hook_log_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split_once(' ').map_or(l, |(_, rest)| rest).to_string())
        .collect()
}

/// A project holding flame.md §3.3's example state.
pub fn spec_env() -> TestEnv {
    let env = TestEnv::new();
    env.write(
        ".opencode/flame/state.json",
        std::fs::read(fixture("frame/spec-example.json")).unwrap(),
    );
    env
}

/// The fixture directory of the repository.
pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative)
}

/// ccusage 20.0.24 (npm), installed by `.ci/run` into `$CCUSAGE_DIR` (else
/// `~/.cache/ctx-ccusage`); without it the comparison says SKIPPED, unless
/// `CTX_REQUIRE_CCUSAGE` is set (CI), where it must run.
pub fn ccusage() -> Option<PathBuf> {
    let dir = std::env::var_os("CCUSAGE_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/ctx-ccusage"))
        })?;
    let bin = dir.join("node_modules/.bin/ccusage");
    let version = dir.join("node_modules/ccusage/package.json");
    let found =
        std::fs::read_to_string(version).is_ok_and(|p| p.contains("\"version\": \"20.0.24\""));
    if bin.exists() && found {
        return Some(bin);
    }
    assert!(
        std::env::var_os("CTX_REQUIRE_CCUSAGE").is_none(),
        "CTX_REQUIRE_CCUSAGE is set but there is no ccusage 20.0.24 in {}",
        dir.display()
    );
    eprintln!(
        "SKIPPED: no ccusage 20.0.24 in {} to compare with",
        dir.display()
    );
    None
}

/// Runs `ccusage ARGS` (the path [`ccusage`] found) with the environment `env` added, requires
/// it to succeed, and returns its JSON.
pub fn ccusage_json(ccusage: &Path, args: &[&str], env: &[(&str, &Path)]) -> serde_json::Value {
    let out = std::process::Command::new(ccusage)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

//! Where a command without `-C` works: the project root (cli.md, `-C`). A user's home folder holds
//! `.opencode/` for OpenCode's own binary; a git project below it is its own project, and nothing
//! ctx writes for it lands in the home folder.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::snapshot::{changes, snapshot};

/// A fake home folder as OpenCode's installer leaves it, with a git project below it.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(home.home().join(".opencode/bin")).unwrap();
        std::fs::write(home.home().join(".opencode/bin/opencode"), "#!/bin/sh\n").unwrap();
        std::fs::create_dir_all(home.path("p/src")).unwrap();
        git(&home.path("p"), &["init", "-q"]);
        home
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("h")
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.home().join(relative)
    }

    /// `ctx ARGS` in `cwd` (relative to the home folder), HOME the fake one.
    fn command(&self, cwd: &Path, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctx"));
        cmd.args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("LANG", "C.UTF-8");
        cmd
    }

    fn run(&self, cwd: &str, args: &[&str]) -> Output {
        let out = self.command(&self.path(cwd), args).output().unwrap();
        crate::schema::check_output(args, &out);
        out
    }

    fn render(&self, out: &Output) -> String {
        let text = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let home = std::fs::canonicalize(self.home()).unwrap();
        text.replace(&home.display().to_string(), "[HOME]")
            .replace(&self.home().display().to_string(), "[HOME]")
    }

    fn config(&self, cwd: &str) -> Value {
        let out = self.run(cwd, &["config", "--json"]);
        assert!(out.status.success(), "{}", self.render(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// Runs a writing command in the project (and in a folder of it) and returns the paths it
/// changed, relative to the home folder.
fn written(home: &Home, cwd: &str, args: &[&str]) -> Vec<PathBuf> {
    let before = snapshot(&home.home());
    let out = home.run(cwd, args);
    assert!(out.status.success(), "{args:?}: {}", home.render(&out));
    changes(&before, &snapshot(&home.home()))
}

#[test]
fn a_git_project_below_a_home_with_opencode_is_its_own_root() {
    let home = Home::new();
    let doc = home.config("p/src");
    let root = std::fs::canonicalize(home.path("p")).unwrap();
    assert_eq!(doc["root"]["value"], root.display().to_string());
    assert_eq!(doc["root"]["marker"], ".git");
    assert_eq!(
        doc["root"]["detail"],
        "discovered: git worktree root (.git)"
    );

    let frame = written(&home, "p/src", &["frame", "push", "x"]);
    assert!(
        frame.iter().all(|p| p.starts_with("p/.opencode")),
        "{frame:?}"
    );
    assert!(frame.contains(&PathBuf::from("p/.opencode/flame/state.json")));

    // The plugin's own writes: a session's frame.
    let session = written(
        &home,
        "p/src",
        &["opencode", "frame", "ses_abc", "--title", "Fix it"],
    );
    assert!(
        session.iter().all(|p| p.starts_with("p/.opencode/flame")),
        "{session:?}"
    );
    assert!(!session.is_empty());

    let plugin = written(&home, "p/src", &["opencode", "install"]);
    assert!(
        plugin.iter().all(|p| p.starts_with("p/.opencode/")),
        "{plugin:?}"
    );
    assert!(plugin.contains(&PathBuf::from("p/.opencode/plugin/ctx.js")));

    let hooks = written(&home, "p/src", &["hooks", "install"]);
    assert!(
        hooks.iter().all(|p| p.starts_with("p/.git/hooks")),
        "{hooks:?}"
    );
    assert!(hooks.contains(&PathBuf::from("p/.git/hooks/pre-commit")));

    assert_eq!(written(&home, "p/src", &["config"]), Vec::<PathBuf>::new());
    // Now the project holds .opencode/: the root stays where it was, by the nearer marker.
    assert_eq!(home.config("p/src")["root"]["marker"], ".opencode");
    assert_eq!(
        home.config("p/src")["root"]["value"],
        root.display().to_string()
    );
}

#[test]
fn the_home_folder_is_a_project_only_from_itself_or_by_name() {
    let home = Home::new();
    std::fs::create_dir_all(home.path("loose/deeper")).unwrap();
    // Below the home folder, outside any git project: the working directory.
    let doc = home.config("loose/deeper");
    assert_eq!(doc["root"]["marker"], "cwd");
    assert_eq!(
        doc["root"]["value"],
        std::fs::canonicalize(home.path("loose/deeper"))
            .unwrap()
            .display()
            .to_string()
    );
    // In the home folder itself, it is the project its .opencode/ says.
    let doc = home.config("");
    assert_eq!(doc["root"]["marker"], ".opencode");
    // And with -C.
    let out = home
        .command(&home.path("p"), &["-C", "..", "config", "root"])
        .output()
        .unwrap();
    assert_eq!(
        home.render(&out),
        "exit: 0\n--- stdout\n[HOME]/p/..\n--- stderr\n"
    );
}

#[test]
fn stray_state_in_the_home_folder_is_pointed_out_once_and_never_moved() {
    let home = Home::new();
    let stray = home.path(".opencode/flame/state.json");
    std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
    std::fs::copy(crate::common::fixture("frame/spec-example.json"), &stray).unwrap();
    let before = snapshot(&home.path(".opencode"));

    insta::assert_snapshot!(home.render(&home.run("p/src", &["config", "root"])), @r"
    exit: 0
    --- stdout
    [HOME]/p
    --- stderr
    warning: [HOME]/.opencode/flame holds frame state that this project no longer uses: its root is [HOME]/p, not the home folder
    hint: to move it into this project, run: mkdir -p [HOME]/p/.opencode && mv [HOME]/.opencode/flame [HOME]/p/.opencode/flame
    ");
    let doc = home.config("p");
    assert_eq!(
        doc["stray_state"]["path"],
        std::fs::canonicalize(home.home())
            .unwrap()
            .join(".opencode/flame")
            .display()
            .to_string()
    );
    // A read of the (absent) state says nothing; the first write says it, once.
    let out = home.run("p", &["frame", "tree"]);
    assert!(
        !home.render(&out).contains("warning"),
        "{}",
        home.render(&out)
    );
    let out = home.run("p", &["frame", "push", "first"]);
    assert!(
        home.render(&out)
            .contains("hint: to move it into this project, run: mkdir -p [HOME]/p/.opencode && mv"),
        "{}",
        home.render(&out)
    );
    let out = home.run("p", &["frame", "push", "second"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let out = home.run("p", &["config", "root"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(home.config("p").get("stray_state").is_none());
    // The home folder's state is as it was.
    assert_eq!(
        changes(&before, &snapshot(&home.path(".opencode"))),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn a_dot_git_file_naming_a_missing_gitdir_still_marks_the_worktree() {
    let home = Home::new();
    std::fs::create_dir_all(home.path("wt/src")).unwrap();
    std::fs::write(
        home.path("wt/.git"),
        "gitdir: /nonexistent/.git/worktrees/wt\n",
    )
    .unwrap();
    let doc = home.config("wt/src");
    assert_eq!(doc["root"]["marker"], ".git");
    let changed = written(&home, "wt/src", &["frame", "push", "x"]);
    assert!(
        changed.iter().all(|p| p.starts_with("wt/.opencode")),
        "{changed:?}"
    );
}

#[test]
fn a_submodule_is_its_own_project() {
    let home = Home::new();
    // A submodule's worktree holds a .git file, inside the superproject's worktree.
    std::fs::create_dir_all(home.path("p/vendor/lib/src")).unwrap();
    std::fs::write(
        home.path("p/vendor/lib/.git"),
        "gitdir: ../../.git/modules/lib\n",
    )
    .unwrap();
    let doc = home.config("p/vendor/lib/src");
    assert_eq!(doc["root"]["marker"], ".git");
    assert!(
        doc["root"]["value"]
            .as_str()
            .unwrap()
            .ends_with("/p/vendor/lib"),
        "{doc}"
    );
    // A linked worktree inside the submodule: the nearest .git again.
    std::fs::create_dir_all(home.path("p/vendor/lib/wt")).unwrap();
    std::fs::write(home.path("p/vendor/lib/wt/.git"), "gitdir: elsewhere\n").unwrap();
    let doc = home.config("p/vendor/lib/wt");
    assert!(
        doc["root"]["value"].as_str().unwrap().ends_with("/lib/wt"),
        "{doc}"
    );
}

#[test]
fn a_project_reached_through_a_symlink_into_home_is_found_where_it_is() {
    let home = Home::new();
    std::fs::create_dir_all(home.path("work/plain")).unwrap();
    let link = home.dir.path().join("link");
    std::os::unix::fs::symlink(home.path("work/plain"), &link).unwrap();
    // No marker in the project: the working directory, never the home folder above it.
    let before = snapshot(&home.path(".opencode"));
    let out = home
        .command(&link, &["frame", "push", "x"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", home.render(&out));
    assert!(home.path("work/plain/.opencode/flame/state.json").is_file());
    assert_eq!(
        changes(&before, &snapshot(&home.path(".opencode"))),
        Vec::<PathBuf>::new()
    );
    // The home folder itself reached through a symlink is still the home folder.
    let home_link = home.dir.path().join("home-link");
    std::os::unix::fs::symlink(home.home(), &home_link).unwrap();
    std::fs::create_dir_all(home.path("loose")).unwrap();
    let out = home
        .command(&home.path("loose"), &["config", "--json"])
        .env("HOME", &home_link)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["root"]["marker"], "cwd", "{doc}");
}

#[test]
fn without_a_usable_home_the_rule_still_chooses() {
    let home = Home::new();
    for value in [None, Some(""), Some("relative/home"), Some(".")] {
        let mut cmd = home.command(&home.path("p/src"), &["config", "--json"]);
        match value {
            None => cmd.env_remove("HOME"),
            Some(v) => cmd.env("HOME", v),
        };
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{value:?}: {}", home.render(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["root"]["marker"], ".git", "{value:?}");
        // No user settings file is looked for relative to the working directory.
        assert!(
            doc["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| Path::new(f["path"].as_str().unwrap()).is_absolute()),
            "{value:?}: {doc}"
        );
    }
    // `opencode install --global` cannot choose a folder: it says so and writes nothing.
    let before = snapshot(home.dir.path());
    let out = home
        .command(&home.path("p"), &["opencode", "install", "--global"])
        .env("HOME", "relative")
        .output()
        .unwrap();
    insta::assert_snapshot!(home.render(&out), @r"
    exit: 1
    --- stdout
    --- stderr
    error: cannot find the user's OpenCode folder: XDG_CONFIG_HOME is not set, and HOME is not an absolute path
    ");
    assert_eq!(
        changes(&before, &snapshot(home.dir.path())),
        Vec::<PathBuf>::new()
    );
}

/// Kilo Code's project folder marks a root as OpenCode's does: ctx run from below a Kilo project
/// that is not a git repository finds its frames at the top.
#[test]
fn a_folder_holding_kilos_folder_is_the_root() {
    let home = Home::new();
    std::fs::create_dir_all(home.path("k/.kilo")).unwrap();
    std::fs::create_dir_all(home.path("k/src/deep")).unwrap();
    let doc = home.config("k/src/deep");
    assert_eq!(doc["root"]["marker"], ".kilo");
    assert_eq!(
        doc["root"]["value"],
        std::fs::canonicalize(home.path("k"))
            .unwrap()
            .display()
            .to_string()
    );
}

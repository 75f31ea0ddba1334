//! `ctx opencode install` and `ctx hooks install`: the files built into ctx, written idempotently,
//! never over a file someone changed unless forced, never through a link.

use insta::assert_snapshot;

use crate::common::TestEnv;

const PLUGIN: &str = ".opencode/plugin/ctx.js";
const FILES: [&str; 7] = [
    ".opencode/plugin/ctx.js",
    ".opencode/command/push.md",
    ".opencode/command/pop.md",
    ".opencode/command/status.md",
    ".opencode/command/plan.md",
    ".opencode/command/tree.md",
    ".opencode/command/swarm-status.md",
];

/// The installed text less its stamp line is the repository's file, byte for byte.
fn unstamped(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains("Installed by ctx"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn a_fresh_install_writes_every_file_and_a_second_changes_nothing() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["opencode", "install"]), @r"
    exit: 0
    --- stdout
    .opencode/plugin/ctx.js: written
    .opencode/command/push.md: written
    .opencode/command/pop.md: written
    .opencode/command/status.md: written
    .opencode/command/plan.md: written
    .opencode/command/tree.md: written
    .opencode/command/swarm-status.md: written
    --- stderr
    ");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/opencode");
    for file in FILES {
        let installed = env.read(file);
        let source =
            std::fs::read_to_string(repo.join(file.trim_start_matches(".opencode/"))).unwrap();
        assert_eq!(unstamped(&installed), source, "{file}");
    }
    let before: Vec<_> = FILES
        .iter()
        .map(|f| std::fs::metadata(env.path(f)).unwrap().modified().unwrap())
        .collect();
    let out = env.ok(&["opencode", "install"]);
    assert_eq!(out.matches(": up to date\n").count(), 7, "{out}");
    let after: Vec<_> = FILES
        .iter()
        .map(|f| std::fs::metadata(env.path(f)).unwrap().modified().unwrap())
        .collect();
    assert_eq!(before, after, "nothing was rewritten");
}

#[test]
fn remove_takes_out_ctxs_files_and_the_folders_they_alone_filled() {
    let env = TestEnv::new();
    env.ok(&["opencode", "install"]);
    env.write(".opencode/command/mine.md", "my command\n");
    let planned = env.snap(&["opencode", "install", "--remove", "--dry-run"]);
    assert_snapshot!(planned, @r"
    exit: 0
    --- stdout
    .opencode/plugin/ctx.js: would be removed
    .opencode/command/push.md: would be removed
    .opencode/command/pop.md: would be removed
    .opencode/command/status.md: would be removed
    .opencode/command/plan.md: would be removed
    .opencode/command/tree.md: would be removed
    .opencode/command/swarm-status.md: would be removed
    .opencode/plugin/: would be removed (left empty)
    --- stderr
    ");
    assert!(FILES.iter().all(|f| env.path(f).is_file()));
    // The same lines, done.
    assert_eq!(
        env.snap(&["opencode", "install", "--remove"]),
        planned
            .replace("would be removed", "removed")
            .replace("is in it", "was in it")
    );
    assert!(FILES.iter().all(|f| !env.path(f).exists()));
    assert_eq!(env.read(".opencode/command/mine.md"), "my command\n");

    // The frame tree keeps .opencode/; without it, .opencode/ goes with ctx's files.
    std::fs::remove_file(env.path(".opencode/command/mine.md")).unwrap();
    env.ok(&["frame", "push", "Ship"]);
    env.ok(&["opencode", "install"]);
    let out = env.ok(&["opencode", "install", "--remove"]);
    assert!(
        out.ends_with(
            "\n.opencode/command/: removed (left empty)\n.opencode/plugin/: removed (left empty)\n"
        ),
        "{out}"
    );
    assert!(env.path(".opencode/flame/state.json").is_file());
    std::fs::remove_dir_all(env.path(".opencode")).unwrap();
    env.ok(&["opencode", "install"]);
    let out = env.ok(&["opencode", "install", "--remove"]);
    assert!(
        out.ends_with("\n.opencode/: removed (left empty)\n"),
        "{out}"
    );
    assert!(!env.path(".opencode").exists());

    // A file someone changed is kept, with its folder: exit 1, as for pi's extension.
    env.ok(&["opencode", "install"]);
    env.write(PLUGIN, "// mine\n");
    let out = env.run(&["opencode", "install", "--remove"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert_eq!(env.read(PLUGIN), "// mine\n");
}

#[test]
fn a_changed_file_is_kept_unless_forced() {
    let env = TestEnv::new();
    env.ok(&["opencode", "install"]);
    let mine = format!("{}// my change\n", env.read(PLUGIN));
    env.write(PLUGIN, &mine);
    let out = env.run(&["opencode", "install"]);
    let text = env.render(&out);
    assert!(text.starts_with("exit: 1\n"), "{text}");
    assert!(text.contains(".opencode/plugin/ctx.js: kept: changed since ctx wrote it\n"));
    assert!(text.contains("error: some files were changed since ctx wrote them and were kept\n"));
    assert_eq!(env.read(PLUGIN), mine);
    // A file that was never ctx's is kept too.
    env.write(".opencode/command/push.md", "my own /push\n");
    assert_eq!(env.run(&["opencode", "install"]).status.code(), Some(1));
    assert_eq!(env.read(".opencode/command/push.md"), "my own /push\n");
    // --dry-run says what --force would do and does nothing.
    let out = env.ok(&["opencode", "install", "--force", "--dry-run"]);
    assert!(
        out.contains(".opencode/plugin/ctx.js: would be replaced (--force)\n"),
        "{out}"
    );
    assert_eq!(env.read(PLUGIN), mine);
    let out = env.ok(&["opencode", "install", "--force"]);
    assert!(
        out.contains(".opencode/plugin/ctx.js: replaced (--force)\n"),
        "{out}"
    );
    assert!(!env.read(PLUGIN).contains("my change"));
}

#[test]
fn an_untouched_file_of_an_earlier_ctx_is_updated() {
    let env = TestEnv::new();
    // What an earlier ctx wrote: its own text under a stamp that matches it.
    env.ok(&["opencode", "install"]);
    let current = env.read(".opencode/command/tree.md");
    let body = unstamped(&current).replace("Show the Flame frame tree", "Show the frame tree");
    let older = stamp_like(&body);
    env.write(".opencode/command/tree.md", &older);
    let out = env.ok(&["opencode", "install"]);
    assert!(
        out.contains(".opencode/command/tree.md: updated\n"),
        "{out}"
    );
    assert_eq!(env.read(".opencode/command/tree.md"), current);
}

/// A markdown file as ctx stamps it (FNV-1a 64 of the text without the stamp line).
fn stamp_like(body: &str) -> String {
    let hash = body.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let rest = body.strip_prefix("---\n").unwrap();
    format!(
        "---\n# Installed by ctx 0.0.1 (ctx opencode install); edit freely. fnv1a:{hash:016x}\n{rest}"
    )
}

#[test]
fn global_installs_go_to_the_users_opencode_folder() {
    let env = TestEnv::new();
    let out = env.ok(&["opencode", "install", "--global", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dir = env.home.join(".config/opencode");
    assert_eq!(doc["dir"], dir.display().to_string());
    assert_eq!(doc["files"].as_array().unwrap().len(), 7);
    assert_eq!(doc["files"][0]["action"], "written");
    assert!(dir.join("plugin/ctx.js").is_file());
    assert!(!env.path(PLUGIN).exists());
}

#[test]
fn links_and_folders_in_the_way_are_refused() {
    let env = TestEnv::new();
    let outside = env.temp().join("outside.js");
    std::fs::write(&outside, "theirs\n").unwrap();
    std::fs::create_dir_all(env.path(".opencode/plugin")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, env.path(PLUGIN)).unwrap();
    let out = env.run(&["opencode", "install"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("is a symbolic link; ctx does not write through it")
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "theirs\n");
    std::fs::remove_file(env.path(PLUGIN)).unwrap();
    std::fs::create_dir_all(env.path(PLUGIN)).unwrap();
    let out = env.run(&["opencode", "install"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a regular file"));
}

fn git(env: &TestEnv, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(args)
        .current_dir(&env.root)
        .env("HOME", &env.home)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn hooks_go_where_git_looks_for_them() {
    let env = TestEnv::new();
    let out = env.run(&["hooks", "install"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not in a git repository"));
    git(&env, &["init", "-q"]);
    assert_snapshot!(env.snap(&["hooks", "install"]), @r"
    exit: 0
    --- stdout
    .git/hooks/pre-commit: written
    .git/hooks/post-commit: written
    --- stderr
    ");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(env.path(".git/hooks/pre-commit"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    assert!(
        env.read(".git/hooks/post-commit")
            .starts_with("#!/bin/sh\n# Installed by ctx ")
    );
    // core.hooksPath is honoured.
    git(&env, &["config", "core.hooksPath", "githooks"]);
    env.ok(&["hooks", "install"]);
    assert!(env.path("githooks/pre-commit").is_file());
}

#[test]
fn a_dry_run_says_what_would_be_written_and_writes_nothing() {
    let env = TestEnv::new();
    let out = env.ok(&["opencode", "install", "--dry-run"]);
    assert!(
        out.contains(".opencode/plugin/ctx.js: would be written\n"),
        "{out}"
    );
    assert!(!out.contains("written (dry run"), "{out}");
    assert!(!env.path(".opencode/plugin").exists());
}

#[test]
fn remove_refuses_force_which_has_nothing_to_replace() {
    let env = TestEnv::new();
    env.ok(&["opencode", "install"]);
    assert_snapshot!(env.snap(&["opencode", "install", "--remove", "--force"]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: the argument '--remove' cannot be used with '--force'

    Usage: ctx opencode install --remove

    For more information, try '--help'.
    ");
    for agent in ["pi", "claude"] {
        let out = env.run(&[agent, "install", "--force", "--remove", "--dry-run"]);
        assert_eq!(out.status.code(), Some(2), "{}", env.render(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: the argument '--force' cannot be used with '--remove'\n"),
            "{err}"
        );
    }
    assert!(env.path(PLUGIN).is_file(), "nothing removed");
}

/// `--remove` takes out only the folders ctx's install made: pi's own agent folder and an empty
/// `.claude/` that were there before stay, the ones the install made go.
#[test]
fn remove_keeps_the_folders_that_were_there_before() {
    let env = TestEnv::new();
    let agent = env.home.join(".pi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(env.path(".claude")).unwrap();
    env.ok(&["pi", "install", "--global"]);
    env.ok(&["claude", "install"]);
    let out = env.ok(&["pi", "install", "--global", "--remove"]);
    assert!(out.contains("extensions/: removed (left empty)"), "{out}");
    assert!(!out.contains(".pi/agent/: removed"), "{out}");
    assert!(agent.is_dir() && !agent.join("extensions").exists());
    let out = env.ok(&["claude", "install", "--remove"]);
    assert!(
        out.contains(".claude/commands/: removed (left empty)"),
        "{out}"
    );
    assert!(!out.contains(".claude/: removed"), "{out}");
    assert!(env.path(".claude").is_dir(), "the user's .claude/ stays");
    assert_eq!(std::fs::read_dir(env.path(".claude")).unwrap().count(), 0);
}

/// `ctx kilo install` writes OpenCode's plugin and commands where Kilo Code loads them: the same
/// texts under `.kilo/` (or the user's Kilo folder), stamped with its own command; the user's other
/// files there (Kilo's own config, their plugins) are never touched, and `--remove` gives the
/// folder back as it was.
#[test]
fn kilo_gets_the_opencode_plugin_and_commands_in_its_own_folders() {
    let env = TestEnv::new();
    let config = "// mine, with comments\n{ \"plugin\": [\"their-plugin\"] }\n";
    env.write(".kilo/kilo.jsonc", config);
    env.write(
        ".kilo/plugin/theirs.js",
        "export const Theirs = async () => ({});\n",
    );
    let out = env.snap(&["kilo", "install"]);
    assert_snapshot!(out, @r"
    exit: 0
    --- stdout
    .kilo/plugin/ctx.js: written
    .kilo/command/push.md: written
    .kilo/command/pop.md: written
    .kilo/command/status.md: written
    .kilo/command/plan.md: written
    .kilo/command/tree.md: written
    .kilo/command/swarm-status.md: written
    --- stderr
    ");
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/opencode");
    for file in FILES {
        let installed = env.read(&file.replace(".opencode/", ".kilo/"));
        assert!(installed.contains("(ctx kilo install)"), "{file}");
        let source =
            std::fs::read_to_string(repo.join(file.trim_start_matches(".opencode/"))).unwrap();
        assert_eq!(unstamped(&installed), source, "{file}");
    }
    assert!(
        !env.path(PLUGIN).exists(),
        "OpenCode's folder is not Kilo's"
    );
    assert_eq!(
        env.ok(&["kilo", "install"])
            .matches(": up to date\n")
            .count(),
        7
    );
    let out = env.ok(&["kilo", "install", "--remove"]);
    assert!(
        out.ends_with(
            ".kilo/command/swarm-status.md: removed\n.kilo/command/: removed (left empty)\n"
        ),
        "{out}"
    );
    assert_eq!(env.read(".kilo/kilo.jsonc"), config);
    assert_eq!(
        env.read(".kilo/plugin/theirs.js"),
        "export const Theirs = async () => ({});\n"
    );
    assert!(!env.path(".kilo/plugin/ctx.js").exists());
    assert!(!env.path(".kilo/command").exists());

    // --global: $XDG_CONFIG_HOME/kilo, else ~/.config/kilo.
    let out = env.ok(&["kilo", "install", "--global", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dir = env.home.join(".config/kilo");
    assert_eq!(doc["dir"], dir.display().to_string());
    assert!(dir.join("plugin/ctx.js").is_file());
    let elsewhere = env.temp().join("xdg");
    let out = env
        .ctx()
        .env("XDG_CONFIG_HOME", &elsewhere)
        .args(["kilo", "install", "--global", "--dry-run"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("xdg/kilo/plugin/ctx.js: would be written"),
        "{}",
        env.render(&out)
    );
    assert!(!elsewhere.exists(), "a dry run writes nothing");
}

#[test]
fn kilo_install_refuses_a_dangling_link_and_a_read_only_file() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".kilo")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.temp().join("nowhere"), env.path(".kilo/plugin")).unwrap();
    let out = env.run(&["kilo", "install"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("which does not exist; ctx does not create"),
        "{}",
        env.render(&out)
    );
    assert!(!env.temp().join("nowhere").exists());
    assert!(!env.path(".kilo/command").exists(), "nothing written");
    std::fs::remove_file(env.path(".kilo/plugin")).unwrap();
    env.ok(&["kilo", "install"]);
    let path = env.path(".kilo/plugin/ctx.js");
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    let before = std::fs::read(&path).unwrap();
    let out = env.run(&["kilo", "install", "--force"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is read-only"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

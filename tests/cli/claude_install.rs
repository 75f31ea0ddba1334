//! What `ctx claude install` (and `ctx opencode install`) may and may not touch: only the entries
//! ctx itself wrote, never through a dangling link, never over a read-only file, and the user's
//! bytes outside ctx's entries as they were.

use insta::assert_snapshot;

use crate::common::TestEnv;

const SETTINGS: &str = ".claude/settings.json";

/// A settings file of the user's with a Stop hook whose command merely mentions ctx's.
const MENTIONS_CTX: &str = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"logger 'ctx claude hook finished'"}]}]}}
"#;

#[test]
fn a_users_hook_that_mentions_ctx_is_never_taken_for_ctxs() {
    let env = TestEnv::new();
    env.write(SETTINGS, MENTIONS_CTX);
    let out = env.ok(&["claude", "install"]);
    assert!(
        out.starts_with(".claude/settings.json: 12 hooks added\n"),
        "nothing of the user's replaced: {out}"
    );
    assert!(
        env.read(SETTINGS)
            .contains("logger 'ctx claude hook finished'")
    );
    assert_eq!(
        env.ok(&["claude", "install"]).lines().next(),
        Some(".claude/settings.json: ctx's hooks are up to date")
    );
    env.ok(&["claude", "install", "--remove"]);
    assert_eq!(env.read(SETTINGS), MENTIONS_CTX, "byte for byte");
}

#[test]
fn hand_written_hooks_that_run_ctx_are_the_users() {
    let env = TestEnv::new();
    let user = r#"{
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          { "type": "command", "command": "ctx claude hook SessionStart" },
          { "type": "command", "command": "echo 'ctx claude hook is great' >> log" },
          { "type": "command", "command": "my-ctx claude hook Foo" }
        ]
      }
    ]
  }
}
"#;
    env.write(SETTINGS, user);
    env.ok(&["claude", "install"]);
    let installed = env.read(SETTINGS);
    for mine in [
        "\"ctx claude hook SessionStart\"",
        "ctx claude hook is great",
        "my-ctx claude hook Foo",
    ] {
        assert!(installed.contains(mine), "{mine} kept:\n{installed}");
    }
    let out = env.ok(&["claude", "install", "--remove"]);
    assert!(
        out.starts_with(".claude/settings.json: 12 hooks removed\n"),
        "{out}"
    );
    assert_eq!(env.read(SETTINGS), user, "byte for byte");
}

#[test]
fn an_earlier_install_of_one_event_is_replaced_and_counted_in_the_singular() {
    let env = TestEnv::new();
    env.ok(&["claude", "install"]);
    let full = env.read(SETTINGS);
    // Keep only ctx's SessionStart entry, as a partial install would leave it.
    let doc: serde_json::Value = serde_json::from_str(&full).unwrap();
    let only = serde_json::json!({"hooks": {"SessionStart": doc["hooks"]["SessionStart"]}});
    env.write(
        SETTINGS,
        serde_json::to_string_pretty(&only).unwrap() + "\n",
    );
    let out = env.ok(&["claude", "install"]);
    assert!(
        out.starts_with(".claude/settings.json: 12 hooks added, 1 earlier one replaced\n"),
        "{out}"
    );
    assert_eq!(env.read(SETTINGS), full);
}

#[test]
fn the_users_layout_and_escapes_survive_install_and_remove() {
    let env = TestEnv::new();
    let user =
        "{\"model\":\"opus\",\"lone\":\"\\ud800\",\"smile\":\"\\ud83d\\ude00\",\"n\":1.50e3}";
    env.write(SETTINGS, user);
    env.ok(&["claude", "install"]);
    let installed = env.read(SETTINGS);
    assert!(
        !installed.contains('\n'),
        "a compact file stays compact: {installed}"
    );
    assert!(installed.starts_with("{\"model\":\"opus\",\"lone\":\"\\ud800\",\"smile\":\"\\ud83d\\ude00\",\"n\":1.50e3,\"hooks\":{"));
    env.ok(&["claude", "install", "--remove"]);
    assert_eq!(env.read(SETTINGS), user, "byte for byte");
}

#[cfg(unix)]
#[test]
fn a_dangling_settings_link_is_refused_and_nothing_is_created() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".claude")).unwrap();
    std::os::unix::fs::symlink("../newdir/x/s.json", env.path(SETTINGS)).unwrap();
    assert_snapshot!(env.snap(&["claude", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.claude/settings.json: is a symbolic link to ../newdir/x/s.json, which does not exist; ctx does not create files through it, and nothing was changed
    hint: remove the link, or create what it points to, then install again
    ");
    assert!(!env.path("newdir").exists());
    assert!(
        !env.path(".claude/commands").exists(),
        "no slash command written either"
    );
    assert_eq!(
        env.run(&["claude", "install", "--remove"]).status.code(),
        Some(1)
    );
    assert!(!env.path("newdir").exists());
}

#[cfg(unix)]
#[test]
fn a_dangling_folder_link_is_refused_for_claude_and_opencode() {
    let env = TestEnv::new();
    std::os::unix::fs::symlink("elsewhere/claude", env.path(".claude")).unwrap();
    let out = env.run(&["claude", "install"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        env.render(&out).contains(
            "error: [ROOT]/.claude: is a symbolic link to elsewhere/claude, which does not exist; \
             ctx does not create folders and files through it"
        ),
        "{}",
        env.render(&out)
    );
    assert!(!env.path("elsewhere").exists());

    std::fs::remove_dir(env.path(".opencode")).unwrap();
    std::os::unix::fs::symlink("../gone/opencode", env.path(".opencode")).unwrap();
    let out = env.run(&["opencode", "install"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert!(
        env.render(&out)
            .contains("error: [ROOT]/.opencode: is a symbolic link to ../gone/opencode"),
        "{}",
        env.render(&out)
    );
    assert!(!env.temp().join("gone").exists());
}

#[cfg(unix)]
#[test]
fn a_read_only_settings_file_is_refused_and_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.write(SETTINGS, "{\"model\": \"opus\"}\n");
    std::fs::set_permissions(env.path(SETTINGS), std::fs::Permissions::from_mode(0o444)).unwrap();
    assert_snapshot!(env.snap(&["claude", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.claude/settings.json: is read-only; ctx does not write over it, and nothing was changed
    hint: make it writable (chmod u+w), then run the command again
    ");
    assert_eq!(env.read(SETTINGS), "{\"model\": \"opus\"}\n");
    let mode = std::fs::metadata(env.path(SETTINGS))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o444);
    assert!(!env.path(".claude/commands").exists());
}

#[cfg(unix)]
#[test]
fn a_read_only_command_file_is_refused_before_anything_is_written() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.ok(&["claude", "install", "--remove"]);
    env.write(".claude/commands/pop.md", "mine\n");
    let pop = env.path(".claude/commands/pop.md");
    std::fs::set_permissions(&pop, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = env.run(&["claude", "install", "--force"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(env.render(&out).contains("pop.md: is read-only"));
    assert!(
        !env.path(SETTINGS).exists(),
        "the settings are not written either"
    );
    assert!(!env.path(".claude/commands/push.md").exists());
    assert_eq!(std::fs::read_to_string(&pop).unwrap(), "mine\n");
}

#[test]
fn remove_leaves_nothing_behind_where_ctx_was_all_there_was() {
    let env = TestEnv::new();
    env.ok(&["claude", "install"]);
    let planned = env.snap(&["claude", "install", "--remove", "--dry-run"]);
    assert_snapshot!(planned, @r"
    exit: 0
    --- stdout
    .claude/settings.json: 12 hooks would be removed
      - SessionStart: ctx claude hook
      - UserPromptSubmit: ctx claude hook
      - PreToolUse: ctx claude hook
      - PostToolUse: ctx claude hook
      - PostToolUseFailure: ctx claude hook
      - SubagentStart: ctx claude hook
      - SubagentStop: ctx claude hook
      - PreCompact: ctx claude hook
      - PostCompact: ctx claude hook
      - Stop: ctx claude hook
      - SessionEnd: ctx claude hook
      - UserPromptExpansion: ctx claude hook
    .claude/settings.json: would be removed (nothing else is in it)
    .claude/commands/push.md: would be removed
    .claude/commands/pop.md: would be removed
    .claude/commands/status.md: would be removed
    .claude/commands/plan.md: would be removed
    .claude/commands/frame.md: would be removed
    .claude/agents/ctx-frame.md: would be removed
    .claude/agents/: would be removed (left empty)
    .claude/commands/: would be removed (left empty)
    .claude/: would be removed (left empty)
    --- stderr
    ");
    assert!(env.path(SETTINGS).is_file() && env.path(".claude/agents").is_dir());
    let out = env.ok(&["claude", "install", "--remove", "--dry-run", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["settings_removed"], true);
    assert_eq!(
        doc["folders_removed"],
        serde_json::json!(["agents", "commands", ""].map(|f| {
            env.path(".claude")
                .join(f)
                .display()
                .to_string()
                .trim_end_matches('/')
                .to_string()
        }))
    );
    // The same lines, done.
    assert_eq!(
        env.snap(&["claude", "install", "--remove"]),
        planned
            .replace("would be removed", "removed")
            .replace("is in it", "was in it")
    );
    assert!(!env.path(".claude").exists());
}

#[test]
fn remove_keeps_a_folder_with_the_users_files_and_a_settings_file_with_anything_else() {
    let env = TestEnv::new();
    env.ok(&["claude", "install"]);
    env.write(".claude/commands/mine.md", "my command\n");
    env.write(".claude/settings.local.json", "{}\n");
    let out = env.ok(&["claude", "install", "--remove"]);
    assert!(
        out.ends_with(
            ".claude/settings.json: removed (nothing else was in it)\n\
             .claude/commands/push.md: removed\n\
             .claude/commands/pop.md: removed\n\
             .claude/commands/status.md: removed\n\
             .claude/commands/plan.md: removed\n\
             .claude/commands/frame.md: removed\n\
             .claude/agents/ctx-frame.md: removed\n\
             .claude/agents/: removed (left empty)\n"
        ),
        "{out}"
    );
    assert_eq!(env.read(".claude/commands/mine.md"), "my command\n");
    assert_eq!(env.read(".claude/settings.local.json"), "{}\n");

    // An empty object ctx did not write goes too: ctx cannot tell it from one its install
    // created, and it holds nothing to lose.
    env.write(SETTINGS, "{ }\n");
    env.ok(&["claude", "install"]);
    env.ok(&["claude", "install", "--remove"]);
    assert!(!env.path(SETTINGS).exists());
    // Nothing of ctx's to take out: an empty file stays as it is.
    env.write(SETTINGS, "{}");
    assert_snapshot!(env.snap(&["claude", "install", "--remove"]), @r"
    exit: 0
    --- stdout
    .claude/settings.json: no hooks of ctx's
    .claude/commands/push.md: not there
    .claude/commands/pop.md: not there
    .claude/commands/status.md: not there
    .claude/commands/plan.md: not there
    .claude/commands/frame.md: not there
    .claude/agents/ctx-frame.md: not there
    --- stderr
    ");
    assert_eq!(env.read(SETTINGS), "{}");
}

#[test]
fn remove_takes_the_emptied_folders_when_the_settings_hold_no_hooks_of_ctxs() {
    let env = TestEnv::new();
    env.ok(&["claude", "install"]);
    env.write(SETTINGS, MENTIONS_CTX);
    let planned = env.snap(&["claude", "install", "--remove", "--dry-run"]);
    assert_snapshot!(planned, @r"
    exit: 0
    --- stdout
    .claude/settings.json: no hooks of ctx's
    .claude/commands/push.md: would be removed
    .claude/commands/pop.md: would be removed
    .claude/commands/status.md: would be removed
    .claude/commands/plan.md: would be removed
    .claude/commands/frame.md: would be removed
    .claude/agents/ctx-frame.md: would be removed
    .claude/agents/: would be removed (left empty)
    .claude/commands/: would be removed (left empty)
    --- stderr
    ");
    assert!(env.path(".claude/agents/ctx-frame.md").is_file());
    let out = env.ok(&["claude", "install", "--remove", "--dry-run", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["settings_changed"], false);
    assert_eq!(
        doc["folders_removed"],
        serde_json::json!(
            ["agents", "commands"].map(|f| { env.path(".claude").join(f).display().to_string() })
        )
    );
    assert_eq!(
        env.snap(&["claude", "install", "--remove"]),
        planned.replace("would be removed", "removed")
    );
    assert_eq!(env.read(SETTINGS), MENTIONS_CTX);
    assert!(!env.path(".claude/commands").exists() && !env.path(".claude/agents").exists());
}

#[test]
fn remove_takes_the_emptied_folders_when_there_is_no_settings_file() {
    let env = TestEnv::new();
    env.ok(&["claude", "install"]);
    std::fs::remove_file(env.path(SETTINGS)).unwrap();
    assert_snapshot!(env.snap(&["claude", "install", "--remove"]), @r"
    exit: 0
    --- stdout
    .claude/settings.json: not there
    .claude/commands/push.md: removed
    .claude/commands/pop.md: removed
    .claude/commands/status.md: removed
    .claude/commands/plan.md: removed
    .claude/commands/frame.md: removed
    .claude/agents/ctx-frame.md: removed
    .claude/agents/: removed (left empty)
    .claude/commands/: removed (left empty)
    .claude/: removed (left empty)
    --- stderr
    ");
    assert!(!env.path(".claude").exists());
}

#[cfg(unix)]
#[test]
fn a_named_pipe_where_a_command_file_goes_is_refused_without_waiting() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".claude/commands")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(env.path(".claude/commands/push.md"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = env.run(&["claude", "install"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert!(env.render(&out).contains("push.md: is not a regular file"));
    assert!(!env.path(SETTINGS).exists());
}

/// A settings file that is a link to a link to the real file: the real file gets ctx's hooks, and
/// both links stay links, through install and `--remove`.
#[cfg(unix)]
#[test]
fn a_chain_of_links_is_followed_to_its_end_and_every_link_stays() {
    let env = TestEnv::new();
    env.write("dotfiles/claude/settings.json", MENTIONS_CTX);
    std::fs::create_dir_all(env.path(".claude")).unwrap();
    std::os::unix::fs::symlink(
        env.path("dotfiles/claude/settings.json"),
        env.path("dotfiles/current.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../dotfiles/current.json", env.path(SETTINGS)).unwrap();
    env.ok(&["claude", "install"]);
    let is_link = |p: &str| {
        std::fs::symlink_metadata(env.path(p))
            .unwrap()
            .file_type()
            .is_symlink()
    };
    assert!(
        is_link(SETTINGS) && is_link("dotfiles/current.json"),
        "links kept"
    );
    assert!(
        env.read("dotfiles/claude/settings.json")
            .contains("ctx claude hook"),
        "the real file has ctx's hooks"
    );
    env.ok(&["claude", "install", "--remove"]);
    assert!(is_link(SETTINGS) && is_link("dotfiles/current.json"));
    assert_eq!(env.read("dotfiles/claude/settings.json"), MENTIONS_CTX);
}

/// A settings file of 4 GiB (sparse: no disk used) is refused without being read.
#[test]
fn a_huge_settings_file_is_refused_unread() {
    let env = TestEnv::new();
    env.write(SETTINGS, "{}");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(env.path(SETTINGS))
        .unwrap();
    file.set_len(4 << 30).unwrap();
    for args in [
        &["claude", "install"][..],
        &["claude", "install", "--remove"],
    ] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).lines().next(),
            Some(
                format!(
                    "error: {}: larger than 16 MiB, more than any agent's settings; nothing was \
                     changed",
                    env.path(SETTINGS).display()
                )
                .as_str()
            )
        );
    }
    assert_eq!(
        std::fs::metadata(env.path(SETTINGS)).unwrap().len(),
        4 << 30
    );
}

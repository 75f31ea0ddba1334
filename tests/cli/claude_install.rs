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
        out.starts_with(".claude/settings.json: 10 hooks added\n"),
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
        out.starts_with(".claude/settings.json: 10 hooks removed\n"),
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
        out.starts_with(".claude/settings.json: 10 hooks added, 1 earlier one replaced\n"),
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
fn remove_takes_out_the_commands_folder_it_emptied_and_keeps_one_with_the_users_files() {
    let env = TestEnv::new();
    env.ok(&["claude", "install"]);
    env.ok(&["claude", "install", "--remove"]);
    assert!(!env.path(".claude/commands").exists());
    assert!(
        env.path(".claude").exists(),
        "the folder of settings.json stays"
    );

    env.ok(&["claude", "install"]);
    env.write(".claude/commands/mine.md", "my command\n");
    env.ok(&["claude", "install", "--remove"]);
    assert_eq!(env.read(".claude/commands/mine.md"), "my command\n");
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

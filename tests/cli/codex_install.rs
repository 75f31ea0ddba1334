//! What `ctx codex install` may and may not touch in Codex's hooks.json: only the entries ctx
//! itself wrote, never through a dangling link, never over a read-only or invalid file, and the
//! user's bytes outside ctx's entries as they were.

use insta::assert_snapshot;

use crate::common::TestEnv;

const HOOKS: &str = ".codex/hooks.json";

/// A hooks file of the user's: a Stop hook of their own, and one that merely mentions ctx.
const USERS: &str = r#"{
  "hooks": {
    "Stop": [
      { "hooks": [ { "type": "command", "command": "./notify.sh" } ] }
    ],
    "SessionStart": [
      { "hooks": [ { "type": "command", "command": "ctx codex hook SessionStart" } ] }
    ]
  }
}
"#;

#[test]
fn install_adds_ctxs_hooks_and_remove_gives_the_file_back_byte_for_byte() {
    let env = TestEnv::new();
    env.write(HOOKS, USERS);
    assert_snapshot!(env.snap(&["codex", "install"]), @r"
    exit: 0
    --- stdout
    .codex/hooks.json: 9 hooks added
      + Stop: ctx codex hook
      + SessionStart: ctx codex hook
      + UserPromptSubmit: ctx codex hook
      + PreToolUse: ctx codex hook
      + PostToolUse: ctx codex hook
      + SubagentStart: ctx codex hook
      + SubagentStop: ctx codex hook
      + PostCompact: ctx codex hook
      + SessionEnd: ctx codex hook
    --- stderr
    ");
    let installed: serde_json::Value = serde_json::from_str(&env.read(HOOKS)).unwrap();
    let hooks = &installed["hooks"];
    assert_eq!(hooks["Stop"][0]["hooks"][0]["command"], "./notify.sh");
    assert_eq!(
        hooks["SessionStart"][0]["hooks"][0]["command"], "ctx codex hook SessionStart",
        "the user's own hook that runs ctx stays theirs, first"
    );
    let ours = &hooks["SessionStart"][1]["hooks"][0];
    assert!(
        ours["command"]
            .as_str()
            .unwrap()
            .starts_with("\"${CTX_BIN:-ctx}\" codex hook SessionStart 2>/dev/null ||"),
        "{ours}"
    );
    assert_eq!(ours["timeout"], 10);
    assert_eq!(hooks["PreToolUse"][0]["matcher"], "spawn_agent");
    assert_eq!(hooks["PostToolUse"][0]["matcher"], "update_plan");
    assert_eq!(
        env.ok(&["codex", "install"]),
        ".codex/hooks.json: ctx's hooks are up to date\n"
    );
    let removed = env.ok(&["codex", "install", "--remove"]);
    assert!(
        removed.starts_with(".codex/hooks.json: 9 hooks removed\n"),
        "{removed}"
    );
    assert_eq!(env.read(HOOKS), USERS, "byte for byte");
    assert_eq!(
        env.ok(&["codex", "install", "--remove"]),
        ".codex/hooks.json: no hooks of ctx's\n"
    );
}

#[test]
fn a_new_file_is_written_whole_and_dry_run_writes_nothing() {
    let env = TestEnv::new();
    let out = env.ok(&["codex", "install", "--dry-run"]);
    assert!(
        out.starts_with(".codex/hooks.json: 9 hooks would be added\n"),
        "{out}"
    );
    assert!(!env.path(".codex").exists(), "nothing written");
    env.ok(&["codex", "install"]);
    let text = env.read(HOOKS);
    assert!(
        text.starts_with("{\n  \"hooks\": {\n    \"SessionStart\": ["),
        "{text}"
    );
    let out = env.ok(&["codex", "install", "--remove", "--dry-run"]);
    assert!(
        out.starts_with(".codex/hooks.json: 9 hooks would be removed\n"),
        "{out}"
    );
    assert_eq!(env.read(HOOKS), text, "a dry run changes nothing");
}

#[test]
fn remove_leaves_no_empty_file_nor_folder_behind() {
    let env = TestEnv::new();
    env.ok(&["codex", "install"]);
    let planned = env.snap(&["codex", "install", "--remove", "--dry-run"]);
    assert_snapshot!(planned, @r"
    exit: 0
    --- stdout
    .codex/hooks.json: 9 hooks would be removed
      - SessionStart: ctx codex hook
      - UserPromptSubmit: ctx codex hook
      - PreToolUse: ctx codex hook
      - PostToolUse: ctx codex hook
      - SubagentStart: ctx codex hook
      - SubagentStop: ctx codex hook
      - PostCompact: ctx codex hook
      - Stop: ctx codex hook
      - SessionEnd: ctx codex hook
    .codex/hooks.json: would be removed (nothing else is in it)
    .codex/: would be removed (left empty)
    --- stderr
    ");
    assert!(env.path(HOOKS).is_file());
    // The same lines, done.
    assert_eq!(
        env.snap(&["codex", "install", "--remove"]),
        planned
            .replace("would be removed", "removed")
            .replace("is in it", "was in it")
    );
    assert!(!env.path(".codex").exists());

    // Codex's own files keep the folder; the hooks file goes all the same.
    env.ok(&["codex", "install"]);
    env.write(".codex/config.toml", "model = \"o3\"\n");
    let out = env.ok(&["codex", "install", "--remove", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["hooks_removed"], true);
    assert_eq!(doc["folders_removed"], serde_json::json!([]));
    assert!(!env.path(HOOKS).exists());
    assert_eq!(env.read(".codex/config.toml"), "model = \"o3\"\n");
}

/// The round trip's two exceptions, as the help states them: an empty `"hooks": {}` or event
/// list ctx filled goes with ctx's entries, and a file left holding nothing at all is deleted,
/// whoever wrote it.
#[test]
fn the_round_trip_drops_what_ctx_filled_and_emptied_and_a_file_left_empty() {
    let env = TestEnv::new();
    for (before, after) in [
        ("{\"hooks\": {}, \"x\": 1}\n", Some("{\"x\": 1}\n")),
        (
            "{\"hooks\": {\"SessionStart\": [], \"PreCompact\": []}}\n",
            Some("{\"hooks\": {\"PreCompact\": []}}\n"),
        ),
        (
            "{\"hooks\": {\"PreCompact\": []}}\n",
            Some("{\"hooks\": {\"PreCompact\": []}}\n"),
        ),
        ("{ }\n", None),
        ("{\"hooks\": {}}\n", None),
    ] {
        env.write(HOOKS, before);
        env.ok(&["codex", "install"]);
        env.ok(&["codex", "install", "--remove"]);
        let left = std::fs::read_to_string(env.path(HOOKS)).ok();
        assert_eq!(left.as_deref(), after, "{before}");
    }
}

#[test]
fn global_installs_into_codex_home() {
    let env = TestEnv::new();
    let codex_home = env.temp().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    let out = env
        .ctx()
        .env("CODEX_HOME", &codex_home)
        .args(["codex", "install", "--global"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    let text = std::fs::read_to_string(codex_home.join("hooks.json")).unwrap();
    assert!(text.contains("codex hook SubagentStart"), "{text}");
    assert!(!env.path(".codex").exists());
    // Without CODEX_HOME: ~/.codex.
    env.ok(&["codex", "install", "--global"]);
    assert!(env.home.join(".codex/hooks.json").is_file());
}

#[test]
fn json_output_names_the_file_and_the_events() {
    let env = TestEnv::new();
    let out = env.ok(&["--json", "codex", "install"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["hooks_changed"], true);
    assert_eq!(doc["remove"], false);
    assert_eq!(doc["added"].as_array().unwrap().len(), 9);
    assert!(
        doc["hooks"]
            .as_str()
            .unwrap()
            .ends_with(".codex/hooks.json")
    );
}

#[test]
fn an_invalid_hooks_file_is_refused_and_left_alone() {
    let env = TestEnv::new();
    env.write(HOOKS, "{\"hooks\": {\n");
    assert_snapshot!(env.snap(&["codex", "install"]), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.codex/hooks.json: it is not valid JSON: unexpected end of input inside an object at line 2, column 1; nothing was changed
    hint: fix the file, or move it aside, then install again
    "#);
    assert_eq!(env.read(HOOKS), "{\"hooks\": {\n");
    env.write(HOOKS, "{\"hooks\": []}");
    let out = env.run(&["codex", "install", "--remove"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(env.render(&out).contains("its \"hooks\" is not an object"));
    assert_eq!(env.read(HOOKS), "{\"hooks\": []}");
}

#[cfg(unix)]
#[test]
fn a_dangling_link_is_refused_and_a_link_to_a_file_is_written_through() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".codex")).unwrap();
    std::os::unix::fs::symlink("../dotfiles/hooks.json", env.path(HOOKS)).unwrap();
    assert_snapshot!(env.snap(&["codex", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.codex/hooks.json: is a symbolic link to ../dotfiles/hooks.json, which does not exist; ctx does not create files through it, and nothing was changed
    hint: remove the link, or create what it points to, then install again
    ");
    assert!(!env.path("dotfiles").exists());

    env.write("dotfiles/hooks.json", USERS);
    env.ok(&["codex", "install"]);
    assert!(
        std::fs::symlink_metadata(env.path(HOOKS))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays"
    );
    assert!(
        env.read("dotfiles/hooks.json")
            .contains("codex hook PostCompact")
    );
    env.ok(&["codex", "install", "--remove"]);
    assert_eq!(env.read("dotfiles/hooks.json"), USERS);
    // A link is never deleted, even when --remove leaves nothing in what it points to.
    env.write("dotfiles/hooks.json", "{}\n");
    env.ok(&["codex", "install"]);
    let out = env.ok(&["codex", "install", "--remove"]);
    assert!(!out.contains("nothing else"), "{out}");
    assert_eq!(env.read("dotfiles/hooks.json"), "{}\n");
    assert!(env.path(HOOKS).is_symlink());
}

#[cfg(unix)]
#[test]
fn a_read_only_hooks_file_is_refused_and_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.write(HOOKS, USERS);
    std::fs::set_permissions(env.path(HOOKS), std::fs::Permissions::from_mode(0o444)).unwrap();
    assert_snapshot!(env.snap(&["codex", "install"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.codex/hooks.json: is read-only; ctx does not write over it, and nothing was changed
    hint: make it writable (chmod u+w), then run the command again
    ");
    assert_eq!(env.read(HOOKS), USERS);
}

/// A hook group with the key "hooks" twice: ctx's reader would take the first list and Codex runs
/// the last, so an install that dropped the group for the first list's ctx command would drop the
/// user's working hook with it, and `--remove` would then delete `.codex/`. Refused, untouched.
#[test]
fn a_group_with_hooks_twice_is_refused_and_the_users_hook_kept() {
    let env = TestEnv::new();
    env.ok(&["codex", "install"]);
    let installed: serde_json::Value = serde_json::from_str(&env.read(HOOKS)).unwrap();
    let ctxs = &installed["hooks"]["SessionEnd"][0]["hooks"][0]["command"];
    assert!(ctxs.is_string(), "{installed}");
    let doubled = format!(
        "{{\"hooks\": {{\"SessionEnd\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": {ctxs}}}], \
         \"hooks\": [{{\"type\": \"command\", \"command\": \"./backup.sh\"}}]}}]}}}}\n"
    );
    env.write(HOOKS, &doubled);
    for args in [&["codex", "install"][..], &["codex", "install", "--remove"]] {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(
                "its \"hooks\"\"SessionEnd\"[0] has the key \"hooks\" twice, and readers differ"
            ),
            "{stderr}"
        );
        assert_eq!(env.read(HOOKS), doubled, "untouched: {args:?}");
    }
}

/// A hooks file written with CRLF line ends gets ctx's entries with CRLF too.
#[test]
fn a_crlf_file_gets_crlf_lines_and_remove_gives_it_back() {
    let env = TestEnv::new();
    let users = USERS.replace('\n', "\r\n");
    env.write(HOOKS, &users);
    env.ok(&["codex", "install"]);
    let installed = env.read(HOOKS);
    let bare_lf = installed
        .match_indices('\n')
        .filter(|(at, _)| !installed[..*at].ends_with('\r'))
        .count();
    assert_eq!(bare_lf, 0, "every line ends in CRLF:\n{installed:?}");
    env.ok(&["codex", "install", "--remove"]);
    assert_eq!(env.read(HOOKS), users, "byte for byte");
}

//! Completions that read the project: the bash script `ctx completions bash` prints, run in a
//! real bash, calls back into ctx, which offers the project's frame ids (most recent first),
//! swarm phases, models and settings keys. (zsh and fish run the same callback; they are not
//! installed where these tests run.)

use std::process::Command;

use crate::common::TestEnv;

/// What bash offers for the words `line` (the last one being completed), in `env`'s project.
fn offered(env: &TestEnv, line: &[&str]) -> (Vec<String>, String) {
    let script = env.ok(&["completions", "bash"]);
    let bin_dir = assert_cmd::cargo::cargo_bin("ctx")
        .parent()
        .unwrap()
        .to_path_buf();
    let words = line
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let driver = format!(
        "{script}\nCOMP_WORDS=({words}); COMP_CWORD={}; COMP_TYPE=9\n\
         _clap_complete_ctx ctx '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        line.len() - 1,
        line[line.len() - 1],
        line[line.len() - 2]
    );
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-c", &driver])
        .current_dir(&env.root)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.home.join(".config"))
        .env("XDG_CACHE_HOME", env.home.join(".cache"))
        .output()
        .expect("bash");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let offered = stdout
        .lines()
        .map(|l| l.trim_end().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    (offered, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn ids(offered: &[String]) -> Vec<&str> {
    offered
        .iter()
        .map(String::as_str)
        .filter(|o| o.starts_with("fr_") || o.starts_with("ses_"))
        .collect()
}

#[test]
fn frame_ids_are_offered_where_ids_go() {
    let env = TestEnv::new();
    let root = env.ok(&["frame", "push", "Root"]).trim().to_string();
    let planned = env.ok(&["frame", "plan", "Later"]).trim().to_string();
    let done = env.ok(&["frame", "push", "Done"]).trim().to_string();
    env.ok(&["frame", "pop"]);
    let (all, stderr) = offered(&env, &["ctx", "frame", "show", ""]);
    assert_eq!(stderr, "");
    // Most recently updated first: the popped frame, then its parent (updated by the plan).
    assert_eq!(ids(&all), [done.as_str(), root.as_str(), planned.as_str()]);
    let (activatable, _) = offered(&env, &["ctx", "frame", "activate", ""]);
    assert_eq!(ids(&activatable), [root.as_str(), planned.as_str()]);
    let (parents, _) = offered(&env, &["ctx", "frame", "push", "--parent", ""]);
    assert_eq!(ids(&parents), [root.as_str()]);
    // --frame offers frames, not file names.
    env.write("fr_file.txt", "x");
    let (frames, _) = offered(&env, &["ctx", "frame", "tree", "--frame", ""]);
    assert!(frames.iter().all(|f| !f.contains("file")), "{frames:?}");
    assert_eq!(ids(&frames).len(), 3);
    // A prefix narrows them.
    let (narrowed, _) = offered(&env, &["ctx", "frame", "log", &done[..6]]);
    assert_eq!(narrowed.as_slice(), std::slice::from_ref(&done));
    // reopen offers what reopen accepts: an invalidated frame, while its parent has not finished.
    env.ok(&["frame", "invalidate", &planned, "--reason", "not now"]);
    let (reopenable, _) = offered(&env, &["ctx", "frame", "reopen", ""]);
    assert_eq!(ids(&reopenable), [planned.as_str()]);
    env.ok(&["frame", "pop", "--frame", &root]);
    let (reopenable, _) = offered(&env, &["ctx", "frame", "reopen", ""]);
    assert!(ids(&reopenable).is_empty(), "{reopenable:?}");
}

#[test]
fn commands_phases_and_settings_keys() {
    let env = TestEnv::new();
    let (commands, _) = offered(&env, &["ctx", ""]);
    assert!(commands.iter().any(|c| c == "frame") && commands.iter().any(|c| c == "opencode"));
    assert!(
        !commands.iter().any(|c| c == "generate-artifacts"),
        "hidden: {commands:?}"
    );
    env.write(
        ".swarm/plan.md",
        "# Plan\n\n## Phase 1: Ledger [COMPLETE]\n\n- [x] 1.1: a\n\n## Phase 2: Webhooks [IN PROGRESS]\n\n- [ ] 2.1: b\n",
    );
    let (phases, _) = offered(&env, &["ctx", "swarm", "plan", ""]);
    assert_eq!(&phases[..2], ["1", "2"]);
    let (keys, _) = offered(&env, &["ctx", "config", "budget."]);
    assert!(keys.contains(&"budget.model".to_string()), "{keys:?}");
    let (models, _) = offered(
        &env,
        &[
            "ctx",
            "budget",
            "estimate",
            "--model",
            "anthropic/claude-sonnet-4",
        ],
    );
    assert!(
        models.contains(&"anthropic/claude-sonnet-4-5".to_string()),
        "{models:?}"
    );
}

#[test]
fn a_broken_state_completes_no_frame_and_prints_nothing() {
    let env = TestEnv::new();
    env.write(".opencode/flame/state.json", "{ broken");
    let (offered, stderr) = offered(&env, &["ctx", "frame", "show", ""]);
    assert!(ids(&offered).is_empty(), "{offered:?}");
    assert_eq!(stderr, "");
}

#[test]
fn evidence_tasks_and_swarm_versions() {
    let env = TestEnv::new();
    let bundle = std::fs::read(crate::common::fixture(
        "swarm5/cases/evidence-entry-types/.swarm/evidence/1.1/evidence.json",
    ))
    .unwrap();
    env.write(".swarm/evidence/1.1/evidence.json", &bundle);
    env.write(".swarm/evidence/2.1/evidence.json", "not JSON");
    std::fs::create_dir_all(env.path(".swarm/evidence/bad id")).unwrap();
    let (tasks, _) = offered(&env, &["ctx", "swarm", "evidence", ""]);
    assert_eq!(&tasks[..2], ["1.1", "2.1"]);
    assert!(!tasks.iter().any(|t| t == "bad id"), "{tasks:?}");
    let (versions, _) = offered(&env, &["ctx", "swarm", "status", "--swarm-version", ""]);
    assert_eq!(versions, ["auto", "4.3", "5"]);
}

/// `--model` takes a bare model id as well as `provider/model`; completion offers both.
#[test]
fn a_bare_model_id_completes_as_model_takes_it() {
    let env = TestEnv::new();
    let line = |typed: &str| offered(&env, &["ctx", "budget", "estimate", "--model", typed]).0;
    let bare = line("claude-sonnet-4");
    assert!(bare.contains(&"claude-sonnet-4-5".to_string()), "{bare:?}");
    assert!(
        bare.iter().all(|m| m.starts_with("claude-sonnet-4")),
        "{bare:?}"
    );
    // Each is accepted as typed.
    env.write("a.txt", "hello");
    for model in &bare {
        env.ok(&["budget", "estimate", "a.txt", "--model", model]);
    }
    let full = line("anthropic/claude-sonnet-4");
    assert!(
        full.contains(&"anthropic/claude-sonnet-4-5".to_string()),
        "{full:?}"
    );
    // Nothing typed: the full names alone, not each twice.
    let all = line("");
    assert!(all.iter().all(|m| m.contains('/')), "{all:?}");
}

//! `ctx swarm` for opencode-swarm 5.x projects: which version a project runs and why, the new
//! views in their human and JSON forms, diagnose's exit code, and bad input (task ids, links out
//! of `.swarm/`, oversized bundles, mistyped and huge plans), never writing a byte.
//! The markdown of every view is compared with the plugin itself in `swarm_plugin.rs`.

use std::path::Path;

use insta::assert_snapshot;
use serde_json::Value;

use crate::common::{TestEnv, fixture};
use crate::snapshot::snapshot;

/// A project holding one of the comparison cases (tests/fixtures/swarm5/cases).
fn env_with_case(name: &str) -> TestEnv {
    let env = TestEnv::new();
    copy_dir(&fixture(&format!("swarm5/cases/{name}")), &env.root);
    env
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "views" || name == "user-config.json" || name == "symlinks" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn write_home(env: &TestEnv, relative: &str, text: &str) {
    let path = env.home.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The version and reason `ctx swarm status --json` reports.
fn assumed(env: &TestEnv, extra: &[&str]) -> (String, String) {
    let mut args = vec!["swarm", "status", "--json"];
    args.extend(extra);
    let doc: Value = serde_json::from_str(&env.ok(&args)).unwrap();
    (
        doc["swarm_version"].as_str().unwrap().to_string(),
        env.filter(doc["swarm_version_reason"].as_str().unwrap()),
    )
}

const PLAN_MD: &str = "# P\n## Phase 1: A [IN PROGRESS]\n- [ ] 1.1: x\n";

#[test]
fn the_version_a_project_runs_and_why() {
    type Setup = fn(&TestEnv);
    let cases: &[(&str, Setup, &str, &str)] = &[
        (
            "nothing",
            |_| {},
            "4.3.0",
            "nothing names a version: the 4.3.0 contract",
        ),
        (
            "declared in opencode.json",
            |env| {
                env.write(
                    "opencode.json",
                    r#"{"plugin": ["other", "opencode-swarm@5.1.0"]}"#,
                )
            },
            "5.1.0",
            "opencode.json declares opencode-swarm@5.1.0",
        ),
        (
            "declared in .opencode/opencode.jsonc, with comments",
            |env| {
                env.write(
                    ".opencode/opencode.jsonc",
                    "{\n  // pinned\n  \"plugin\": [\"opencode-swarm@~4.3.0\",],\n}\n",
                )
            },
            "4.3.0",
            ".opencode/opencode.jsonc declares opencode-swarm@~4.3.0",
        ),
        (
            "declared in the user's config",
            |env| {
                write_home(
                    env,
                    ".config/opencode/opencode.json",
                    r#"{"plugin": ["opencode-swarm@^5"]}"#,
                )
            },
            "5.1.0",
            "[HOME]/.config/opencode/opencode.json declares opencode-swarm@^5",
        ),
        (
            "the project's declaration beats the user's",
            |env| {
                env.write("opencode.json", r#"{"plugin": ["opencode-swarm@4.3.0"]}"#);
                write_home(
                    env,
                    ".config/opencode/opencode.json",
                    r#"{"plugin": ["opencode-swarm@5.1.0"]}"#,
                );
            },
            "4.3.0",
            "opencode.json declares opencode-swarm@4.3.0",
        ),
        (
            "declared without a version, installed in the project",
            |env| {
                env.write("opencode.json", r#"{"plugin": ["opencode-swarm"]}"#);
                env.write(
                    ".opencode/node_modules/opencode-swarm/package.json",
                    r#"{"name": "opencode-swarm", "version": "4.3.0"}"#,
                );
            },
            "4.3.0",
            "opencode-swarm 4.3.0 is installed at .opencode/node_modules/opencode-swarm/package.json",
        ),
        (
            "installed in OpenCode's plugin cache",
            |env| {
                write_home(
                    env,
                    ".cache/opencode/node_modules/opencode-swarm/package.json",
                    r#"{"version": "5.1.0"}"#,
                )
            },
            "5.1.0",
            "opencode-swarm 5.1.0 is installed at [HOME]/.cache/opencode/node_modules/opencode-swarm/package.json",
        ),
        (
            "declared without a version, installed nowhere",
            |env| env.write("opencode.json", r#"{"plugin": ["opencode-swarm@latest"]}"#),
            "5.1.0",
            "opencode.json declares opencode-swarm without a version, and OpenCode installs the newest (5.x)",
        ),
        (
            "a version ctx does not know yet",
            |env| env.write("opencode.json", r#"{"plugin": ["opencode-swarm@7.0.2"]}"#),
            "5.1.0",
            "opencode.json declares opencode-swarm@7.0.2 (newer than ctx knows: read as 5.1.0)",
        ),
        (
            "a plan.json",
            |env| env.write(".swarm/plan.json", r#"{"schema_version": "9"}"#),
            "5.1.0",
            ".swarm/plan.json has a schema_version, which only opencode-swarm 5.x writes",
        ),
        (
            "an evidence folder",
            |env| std::fs::create_dir_all(env.path(".swarm/evidence")).unwrap(),
            "5.1.0",
            ".swarm/evidence/ exists, which only opencode-swarm 5.x writes",
        ),
        (
            "a declaration beats the files",
            |env| {
                env.write("opencode.json", r#"{"plugin": ["opencode-swarm@4.3.0"]}"#);
                env.write(".swarm/plan.json", r#"{"schema_version": "1.0.0"}"#);
            },
            "4.3.0",
            "opencode.json declares opencode-swarm@4.3.0",
        ),
        (
            "the project's ctx settings beat everything found",
            |env| {
                env.write(".opencode/ctx.toml", "[swarm]\nversion = \"5\"\n");
                env.write("opencode.json", r#"{"plugin": ["opencode-swarm@4.3.0"]}"#);
            },
            "5.1.0",
            "swarm.version in [ROOT]/.opencode/ctx.toml",
        ),
        (
            "a config that is not JSON says nothing",
            |env| env.write("opencode.json", "{\"plugin\": [\"opencode-swarm@5"),
            "4.3.0",
            "nothing names a version: the 4.3.0 contract",
        ),
    ];
    for (what, setup, version, reason) in cases {
        let env = TestEnv::new();
        env.write(".swarm/plan.md", PLAN_MD);
        setup(&env);
        let before = snapshot(&env.root);
        assert_eq!(
            assumed(&env, &[]),
            (version.to_string(), reason.to_string()),
            "{what}"
        );
        assert_eq!(before, snapshot(&env.root), "{what}: nothing written");
    }
}

#[test]
fn the_flag_and_the_variable_beat_what_the_project_says() {
    let env = TestEnv::new();
    env.write(".swarm/plan.md", PLAN_MD);
    env.write("opencode.json", r#"{"plugin": ["opencode-swarm@5.1.0"]}"#);
    assert_eq!(
        assumed(&env, &["--swarm-version", "4.3"]),
        ("4.3.0".into(), "--swarm-version 4.3".into())
    );
    let out = env
        .ctx()
        .args(["swarm", "status", "--json"])
        .env("CTX_SWARM_VERSION", "4.3")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["swarm_version_reason"], "CTX_SWARM_VERSION=4.3");
    // `auto` on the command line looks at the project even when a setting names a version.
    env.write(".opencode/ctx.toml", "[swarm]\nversion = \"4.3\"\n");
    assert_eq!(
        assumed(&env, &["--swarm-version", "auto"]).0,
        "5.1.0".to_string()
    );
    // Human status says which version it shows once something names one.
    let human = env.ok(&["swarm", "status"]);
    let human = env.filter(&human);
    // (Cut to the 80 columns of a pipe: the temporary root is long.)
    assert!(
        human.contains("\n\nopencode-swarm 4.3.0 (swarm.version in [ROOT]/.opencode/ctx"),
        "{human}"
    );
}

#[test]
fn a_version_ctx_does_not_know_is_refused() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["swarm", "status", "--swarm-version", "6"]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: invalid value '6' for '--swarm-version <VERSION>'
      [possible values: auto, 4.3, 5]

    For more information, try '--help'.
    ");
    let out = env
        .ctx()
        .args(["swarm", "status"])
        .env("CTX_SWARM_VERSION", "6")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("error: CTX_SWARM_VERSION"),
        "{}",
        env.render(&out)
    );
}

fn five(env: &TestEnv, args: &[&str]) -> String {
    let mut args = args.to_vec();
    args.extend(["--swarm-version", "5"]);
    env.snap(&args)
}

#[test]
fn evidence_for_people() {
    let env = env_with_case("evidence-entry-types");
    assert_snapshot!(five(&env, &["swarm", "evidence"]));
    assert_snapshot!(five(&env, &["swarm", "evidence", "1.1"]));
    assert_snapshot!(five(&env, &["swarm", "evidence", "1.2"]));
    assert_snapshot!(five(&env, &["swarm", "evidence", "9.9"]));
}

#[test]
fn evidence_as_json() {
    let env = env_with_case("evidence-entry-types");
    let list: Value =
        serde_json::from_str(&env.ok(&["swarm", "evidence", "--json", "--swarm-version", "5"]))
            .unwrap();
    let tasks: Vec<&str> = list["bundles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["task"].as_str().unwrap())
        .collect();
    assert_eq!(tasks, ["1.1", "1.2"]);
    let one: Value = serde_json::from_str(&env.ok(&[
        "swarm",
        "evidence",
        "1.1",
        "--json",
        "--swarm-version",
        "5",
    ]))
    .unwrap();
    assert_eq!(one["task"], "1.1");
    assert_eq!(one["problem"], Value::Null);
    // The bundle as the plugin validates it: defaults filled in (a review's issues).
    let entries = one["bundle"]["entries"].as_array().unwrap();
    assert!(
        entries
            .iter()
            .all(|e| e["type"] != "review" || e["issues"].is_array())
    );
}

#[test]
fn a_task_folder_without_a_bundle_has_the_same_problem_listed_or_alone() {
    let env = env_with_case("evidence-entry-types");
    std::fs::create_dir_all(env.path(".swarm/evidence/2.1")).unwrap();
    let json = |args: &[&str]| -> Value {
        let mut args = args.to_vec();
        args.extend(["--json", "--swarm-version", "5"]);
        serde_json::from_str(&env.ok(&args)).unwrap()
    };
    let expected = format!(
        "{}: no such file",
        env.path(".swarm/evidence/2.1/evidence.json").display()
    );
    let list = json(&["swarm", "evidence"]);
    let row = &list["bundles"][2];
    assert_eq!(
        (row["task"].as_str(), row["entries"].as_u64()),
        (Some("2.1"), None)
    );
    assert_eq!(row["problem"], expected.as_str());
    let one = json(&["swarm", "evidence", "2.1"]);
    assert_eq!(one["problem"], expected.as_str());
    assert_eq!(one["bundle"], Value::Null);
}

#[test]
fn diagnose_exits_5_when_a_check_fails() {
    let env = env_with_case("evidence-entry-types");
    let out = env.run(&["swarm", "diagnose", "--swarm-version", "5"]);
    assert_eq!(out.status.code(), Some(5), "{}", env.render(&out));
    assert_snapshot!(env.render(&out));
    let out = env.run(&["swarm", "diagnose", "--json", "--swarm-version", "5"]);
    assert_eq!(out.status.code(), Some(5));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["healthy"], false);
    assert!(doc["passed"].as_u64().unwrap() < doc["checks"].as_array().unwrap().len() as u64);
    // The same report in markdown, still exit 5.
    let out = env.run(&[
        "swarm",
        "diagnose",
        "--format",
        "markdown",
        "--swarm-version",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(5));

    let healthy = env_with_case("diagnose-all-pass");
    let out = healthy.run(&["swarm", "diagnose", "--json", "--swarm-version", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", healthy.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["healthy"], true);
}

#[test]
fn config_and_export_for_people() {
    let env = env_with_case("config-sections");
    assert_snapshot!(five(&env, &["swarm", "config"]));
    let doc: Value =
        serde_json::from_str(&env.ok(&["swarm", "config", "--json", "--swarm-version", "5"]))
            .unwrap();
    assert_eq!(doc["project"]["state"], "read");
    assert_eq!(doc["user"]["state"], "absent");
    // Every default of the plugin's schema filled in.
    assert!(doc["resolved"]["max_iterations"].is_number());

    let env = env_with_case("md-spec-example");
    let doc: Value =
        serde_json::from_str(&env.ok(&["swarm", "export", "--json", "--swarm-version", "5"]))
            .unwrap();
    assert_eq!(doc["export"]["version"], "4.5.0");
    assert_eq!(doc["export"]["plan"]["migration_status"], "migrated");
}

#[test]
fn migrated_plans_in_human_views() {
    // The plugin's migration cuts a task's text at its first " - " and names a nameless phase.
    let env = TestEnv::new();
    env.write(
        ".swarm/plan.md",
        "# Billing\nPhase: 2\n## Phase 1: Ledger [COMPLETE]\n- [x] 1.1: Schema [SMALL]\n\
         ## Phase 2 [IN PROGRESS]\n- [ ] 2.1: Add request-id middleware [MEDIUM]\n",
    );
    assert_snapshot!(five(&env, &["swarm", "status"]));
    assert_snapshot!(five(&env, &["swarm", "plan"]));
}

#[test]
fn a_migration_the_plugins_schema_refuses_is_an_error_for_status_only() {
    let env = TestEnv::new();
    env.write(".swarm/plan.md", "## Phase 0 [IN PROGRESS]\n- [ ] 0.1: x\n");
    let before = snapshot(&env.root);
    assert_snapshot!(five(&env, &["swarm", "status", "--format", "markdown"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: opencode-swarm 5.1.0 migrates plan.md into a plan its own schema refuses: phases[0].id must be an integer of at least 1
    ");
    // The views that read plan.md as text show it, as the plugin's do.
    assert_snapshot!(five(&env, &["swarm", "history", "--format", "markdown"]), @"
    exit: 0
    --- stdout
    ## Swarm History

    | Phase | Name | Status | Tasks |
    |-------|------|--------|-------|
    | 0 | [IN PROGRESS] | ⏳ PENDING | 0/1 |
    --- stderr
    ");
    assert_eq!(before, snapshot(&env.root));
}

#[test]
fn task_ids_that_name_a_path_are_refused() {
    let env = env_with_case("evidence-entry-types");
    std::fs::create_dir_all(env.temp().join("x")).unwrap();
    let before = snapshot(&env.root);
    for (id, why) in [
        ("../x", "path traversal detected"),
        ("1.1/../../x", "path traversal detected"),
        ("/etc/passwd", "must match pattern"),
        ("a\tb", "contains control characters"),
        ("", "empty string"),
        ("1.1/evidence.json", "must match pattern"),
    ] {
        let out = env.run(&["swarm", "evidence", id, "--swarm-version", "5"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{id:?}: {stderr}");
        assert!(out.stdout.is_empty());
        assert!(
            stderr.starts_with(&format!("error: task id {id:?}: Invalid task ID: "))
                && stderr.contains(why),
            "{id:?}: {stderr}"
        );
    }
    assert_eq!(before, snapshot(&env.root));
}

#[cfg(unix)]
#[test]
fn evidence_behind_a_link_out_of_swarm_is_not_read() {
    let bundle = std::fs::read(fixture(
        "swarm5/cases/evidence-entry-types/.swarm/evidence/1.1/evidence.json",
    ))
    .unwrap();
    // The whole evidence folder is a link to a folder outside .swarm/.
    let env = TestEnv::new();
    env.write(".swarm/plan.md", PLAN_MD);
    env.write("elsewhere/1.1/evidence.json", &bundle);
    std::os::unix::fs::symlink(env.path("elsewhere"), env.path(".swarm/evidence")).unwrap();
    let before = snapshot(&env.root);
    assert_snapshot!(five(&env, &["swarm", "evidence", "--format", "markdown"]), @r"
    exit: 0
    --- stdout
    No evidence bundles found.
    --- stderr
    [ROOT]/.swarm/evidence: leads outside .swarm/ (to [ROOT]/elsewhere); not read
    ");
    assert_eq!(before, snapshot(&env.root));

    // One bundle file is a link out of .swarm/: listed, marked, not read.
    let env = TestEnv::new();
    env.write(".swarm/plan.md", PLAN_MD);
    env.write("secret.json", &bundle);
    std::fs::create_dir_all(env.path(".swarm/evidence/1.1")).unwrap();
    std::os::unix::fs::symlink(
        env.path("secret.json"),
        env.path(".swarm/evidence/1.1/evidence.json"),
    )
    .unwrap();
    assert_snapshot!(five(&env, &["swarm", "evidence", "--format", "markdown"]), @r"
    exit: 0
    --- stdout
    ## Evidence Bundles

    | Task | Entries | Last Updated |
    |------|---------|-------------|
    | 1.1 | ? | unknown |
    --- stderr
    [ROOT]/.swarm/evidence/1.1/evidence.json: leads outside .swarm/ (to [ROOT]/secret.json); not read
    ");
    let out = env.run(&["swarm", "evidence", "1.1", "--json", "--swarm-version", "5"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["bundle"], Value::Null);
    assert!(
        doc["problem"]
            .as_str()
            .unwrap()
            .contains("leads outside .swarm/")
    );
}

#[test]
fn a_bundle_over_500_kb_is_marked_not_read() {
    let env = TestEnv::new();
    env.write(".swarm/plan.md", PLAN_MD);
    let summary = "x".repeat(600 * 1024);
    env.write(
        ".swarm/evidence/1.1/evidence.json",
        format!(
            r#"{{"schema_version": "1.0.0", "task_id": "1.1", "created_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:00:00Z", "entries": [{{"task_id": "1.1", "type": "note",
                "timestamp": "2026-01-01T00:00:00Z", "agent": "a", "verdict": "info", "summary": "{summary}"}}]}}"#
        ),
    );
    assert_snapshot!(five(&env, &["swarm", "evidence", "1.1", "--format", "markdown"]), @r"
    exit: 0
    --- stdout
    No evidence found for task 1.1.
    --- stderr
    [ROOT]/.swarm/evidence/1.1/evidence.json: larger than 500 KB; not read
    ");
}

#[test]
fn mistyped_and_huge_plans() {
    let env = TestEnv::new();
    env.write(".swarm/plan.md", PLAN_MD);
    env.write(
        ".swarm/plan.json",
        r#"{"schema_version": "1.0.0", "title": "T", "swarm": "s", "current_phase": 1,
            "phases": [{"id": 1, "name": "P", "tasks": [{"id": 7, "phase": 1, "description": "d"}]}]}"#,
    );
    // plan.json is ignored, as the plugin ignores it, and plan.md is migrated in its place.
    assert_snapshot!(five(&env, &["swarm", "status", "--format", "markdown"]), @r"
    exit: 0
    --- stdout
    ## Swarm Status

    **Current Phase**: Phase 1: A [IN PROGRESS]
    **Tasks**: 0/1 complete
    **Agents**: 7 registered
    --- stderr
    [ROOT]/.swarm/plan.json: phases[0].tasks[0].id must be a string; ignored, as opencode-swarm 5.1.0 ignores it
    ");

    // 200 000 tasks in one phase.
    let tasks: Vec<String> = (0..200_000)
        .map(|i| {
            format!(
                r#"{{"id": "1.{i}", "phase": 1, "status": "{}", "description": "task {i}"}}"#,
                if i % 2 == 0 { "completed" } else { "pending" }
            )
        })
        .collect();
    env.write(
        ".swarm/plan.json",
        format!(
            r#"{{"schema_version": "1.0.0", "title": "Big", "swarm": "s", "current_phase": 1,
                "phases": [{{"id": 1, "name": "All", "status": "in_progress", "tasks": [{}]}}]}}"#,
            tasks.join(",")
        ),
    );
    let before = snapshot(&env.root);
    let text = env.ok(&[
        "swarm",
        "status",
        "--format",
        "markdown",
        "--swarm-version",
        "5",
    ]);
    assert!(text.contains("**Tasks**: 100000/200000 complete"), "{text}");
    let out = env.run(&["swarm", "diagnose", "--json", "--swarm-version", "5"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "plan.json",
            "Task DAG",
            "context.md",
            "Plugin config",
            "Evidence"
        ]
    );
    assert_eq!(before, snapshot(&env.root));
}

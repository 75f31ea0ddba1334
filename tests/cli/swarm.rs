//! `ctx swarm …` (swarm.md): opencode-swarm's exact markdown, ctx's human and JSON views, bad
//! input, and the promise that no swarm command changes a byte.

use std::collections::BTreeMap;
use std::path::Path;

use insta::assert_snapshot;
use serde_json::Value;

use crate::common::{TestEnv, fixture};

const PLAN_MD: &str = ".swarm/plan.md";
const PLAN_JSON: &str = ".swarm/plan.json";

fn env_with_plan(text: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write(PLAN_MD, text);
    env
}

fn example_1() -> String {
    std::fs::read_to_string(fixture("swarm/example-1.plan.md")).unwrap()
}

/// Sets plan.json's modification time, which `D(plan)` stamps (swarm.md §4.3). A plan.json
/// alone says the project runs opencode-swarm 5.x; these tests are of the 4.3.0 contract's
/// reading of it (swarm.md §4, §14), so the project names that contract in its settings.
fn write_plan_json(env: &TestEnv, text: &str, mtime_secs: u64) {
    env.write(".opencode/ctx.toml", "[swarm]\nversion = \"4.3\"\n");
    env.write(PLAN_JSON, text);
    let file = std::fs::File::options()
        .write(true)
        .open(env.path(PLAN_JSON))
        .unwrap();
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime_secs))
        .unwrap();
}

fn markdown(env: &TestEnv, args: &[&str]) -> String {
    let mut args = args.to_vec();
    args.extend(["--format", "markdown"]);
    env.ok(&args)
}

// ---- markdown: byte-identical to the plugin ----

#[test]
fn status_and_history_of_the_spec_example() {
    let env = env_with_plan(&example_1());
    assert_eq!(
        markdown(&env, &["swarm", "status"]),
        "## Swarm Status\n\n**Current Phase**: Phase 2:  [IN PROGRESS]\n**Tasks**: 2/3 complete\n**Agents**: 7 registered\n"
    );
    assert_eq!(
        markdown(&env, &["swarm", "history"]),
        "## Swarm History\n\n| Phase | Name | Status | Tasks |\n|-------|------|--------|-------|\n| 1 | Inventory | ✅ COMPLETE | 1/1 |\n| 2 | [IN PROGRESS] | ⏳ PENDING | 1/2 |\n"
    );
}

#[test]
fn plan_prints_the_file_verbatim_or_one_phase() {
    let text = example_1();
    let env = env_with_plan(&text);
    assert_eq!(markdown(&env, &["swarm", "plan"]), format!("{text}\n"));
    assert_eq!(
        markdown(&env, &["swarm", "plan", "nope"]),
        format!("{text}\n")
    );
    assert_eq!(
        markdown(&env, &["swarm", "plan", "1"]),
        "## Phase 1: Inventory [COMPLETE]\n- [x] 1.1: List legacy pages [SMALL]\n"
    );
    assert_eq!(
        markdown(&env, &["swarm", "plan", "-0"]),
        "Phase 0 not found in plan.\n"
    );
    assert_eq!(
        markdown(&env, &["swarm", "plan", "2nd"]),
        "## Phase 2 [IN PROGRESS]\n- [x] 2.1: Port navigation [MEDIUM]\n- [ ] 2.2: Port search (depends: 2.1) ← CURRENT\n- [BLOCKED] 2.3: Redirect map - needs DNS access\n"
    );
}

#[test]
fn plan_json_wins_and_is_rendered_as_the_plugin_derives_it() {
    let env = env_with_plan(&example_1());
    let json = std::fs::read_to_string(fixture("swarm/example-2.plan.json")).unwrap();
    // 2026-03-02 09:30:00 UTC
    write_plan_json(&env, &json, 1_772_443_800);
    assert_eq!(
        markdown(&env, &["swarm", "plan"]),
        "# CLI docs\nSwarm: local\nPhase: 2 [IN PROGRESS] | Updated: 2026-03-02T09:30:00.000Z\n\n---\n## Phase 1: Skeleton [COMPLETE]\n- [x] 1.1: Create mdBook layout [SMALL]\n\n---\n## Phase 2: Reference pages [IN PROGRESS]\n- [ ] 2.1: Document swarm subcommands [MEDIUM] (depends: 1.1) ← CURRENT\n- [BLOCKED] 2.2: Screenshots - needs release build [SMALL]\n\n---\n## Phase 3: Publish [PENDING]\n\n"
    );
    assert!(markdown(&env, &["swarm", "status"]).contains(
        "**Current Phase**: Phase 2: Reference pages [IN PROGRESS]\n**Tasks**: 1/2 complete\n"
    ));
    assert_eq!(
        markdown(&env, &["swarm", "plan", "3"]),
        "## Phase 3: Publish [PENDING]\n"
    );
    let doc: Value = serde_json::from_str(&env.ok(&["swarm", "status", "--json"])).unwrap();
    assert_eq!(doc["source"], "plan.json");
}

#[test]
fn a_plan_json_that_is_not_usable_falls_back_to_plan_md_with_a_note() {
    let env = env_with_plan(&example_1());
    let json = std::fs::read_to_string(fixture("swarm/example-2.plan.json")).unwrap();
    for (bad, why) in [
        (
            json.replace("\"1.0.0\"", "\"2.0.0\""),
            "schema_version \"2.0.0\" is not supported",
        ),
        (
            json.replace("\"current_phase\":2", "\"current_phase\":\"2\""),
            "current_phase must be an integer",
        ),
        (
            json.replace("\"size\":\"medium\"", "\"size\":7"),
            "phases[1].tasks[0].size must be a string",
        ),
        ("{\"schema_version\": ".to_string(), "not JSON"),
    ] {
        write_plan_json(&env, &bad, 0);
        let out = env.run(&["swarm", "status", "--format", "markdown"]);
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&out.stdout).contains("Phase 2:  [IN PROGRESS]"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(why) && stderr.contains("reading plan.md instead"),
            "{stderr}"
        );
        let quiet = env.run(&["swarm", "status", "--format", "markdown", "-q"]);
        assert!(quiet.stderr.is_empty());
    }
}

#[test]
fn agents_merge_user_and_project_config_with_swarm_prefixes() {
    let env = TestEnv::new();
    let user = env.home.join(".config/opencode/opencode-swarm.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(
        &user,
        r#"{"agents": {"coder": {"model": "openai/gpt-5", "temperature": 0.30000000000000004}}}"#,
    )
    .unwrap();
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"agents": {"coder": {"temperature": 1e-7}, "critic": {"disabled": true}}}"#,
    );
    let text = markdown(&env, &["swarm", "agents"]);
    assert!(text.contains("- **coder** | model: `openai/gpt-5` | temp: 1e-7 | ✏\u{fe0f} read-write\n  Production-quality"), "{text}");
    assert!(!text.contains("**critic**"));
    assert!(markdown(&env, &["swarm", "status"]).starts_with("No active swarm plan found.\n"));

    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"swarms": {"cloud": {"name": "Cloud"}, "default": {"agents": {"sme": {"disabled": true}}}}}"#,
    );
    let doc: Value = serde_json::from_str(&env.ok(&["swarm", "agents", "--json"])).unwrap();
    let names: Vec<&str> = doc["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 13);
    assert_eq!(names[0], "cloud_architect");
    assert!(!names.contains(&"sme") && names.contains(&"cloud_sme"));
    assert_eq!(
        doc["agents"][0]["description"].as_str().unwrap()[..8],
        *"[Cloud] "
    );
    assert_eq!(doc["agents"][0]["mode"], "primary");
}

#[test]
fn an_invalid_config_is_reported_and_ignored() {
    let env = TestEnv::new();
    let big = format!(
        r#"{{"agents": {{"coder": {{"model": "m/{}"}}}}}}"#,
        "x".repeat(150_000)
    );
    for (config, reason) in [
        ("{\"agents\": [] }".to_string(), "agents must be an object"),
        (
            "{\"max_iterations\": \"5\"}".to_string(),
            "max_iterations must be a number",
        ),
        ("not json".to_string(), "not JSON"),
        ("\u{feff}{}".to_string(), "not JSON"),
    ] {
        env.write(".opencode/opencode-swarm.json", &config);
        let out = env.run(&["swarm", "agents", "--format", "markdown"]);
        assert_eq!(out.status.code(), Some(0));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("warning: ")
                && stderr.contains(reason)
                && stderr.contains("ignored"),
            "{stderr}"
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("**test_engineer**"));
    }
    // Over 100 KB is fine: opencode-swarm 4.3.0 reads it whole.
    env.write(".opencode/opencode-swarm.json", &big);
    let out = env.run(&["swarm", "agents", "--format", "markdown"]);
    assert!(out.stderr.is_empty());
    assert!(String::from_utf8_lossy(&out.stdout).contains("model: `m/xxx"));
}

// ---- human and JSON ----

#[test]
fn human_status_names_the_current_phase_and_blocked_tasks() {
    let env = env_with_plan(&example_1());
    assert_snapshot!(env.snap(&["swarm", "status"]), @"
    exit: 0
    --- stdout
    Docs site migration  (.swarm/plan.md)
    Current: phase 2 of 2 (in progress): 1/3 tasks done, 1 blocked
    Task: 2.2 Port search (in progress)
    Whole plan: 2/4 tasks done, 1 blocked; 7 agents

    #    Phase      Status       Done  Progress
      1  Inventory  complete      1/1  ##########
    → 2  -          in progress   1/3  ###.......

    Blocked:
      2.3 Redirect map - needs DNS access
    --- stderr
    ");
}

#[test]
fn json_documents_carry_the_plan_as_data() {
    let env = env_with_plan(&example_1());
    let status: Value = serde_json::from_str(&env.ok(&["swarm", "status", "--json"])).unwrap();
    assert_eq!(status["source"], "plan.md");
    assert_eq!(status["title"], "Docs site migration");
    assert_eq!(
        status["current_phase"],
        serde_json::json!({"number": 2, "name": "", "status": "in_progress"})
    );
    assert_eq!(
        status["tasks"],
        serde_json::json!({"completed": 2, "total": 4, "blocked": 1})
    );
    assert_eq!(status["agents"], 7);
    let plan: Value =
        serde_json::from_str(&env.ok(&["swarm", "plan", "2", "--format", "json"])).unwrap();
    assert_eq!(
        plan["phases"][0]["tasks"][1],
        serde_json::json!({"id": "2.2", "text": "Port search", "status": "in_progress", "size": null, "depends": ["2.1"]})
    );
    let history: Value = serde_json::from_str(&env.ok(&["swarm", "history", "--json"])).unwrap();
    assert_eq!(history["phases"][0]["tasks"]["completed"], 1);
    assert_eq!(history["phases"][1]["tasks"]["total"], 3);
    assert_eq!(history["phases"].as_array().unwrap().len(), 2);
    assert_snapshot!(env.snap(&["swarm", "plan", "9"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: phase 9 is not in the plan
    hint: `ctx swarm plan` lists every phase
    ");
    let empty = TestEnv::new();
    let status: Value = serde_json::from_str(&empty.ok(&["swarm", "status", "--json"])).unwrap();
    assert_eq!(status["source"], Value::Null);
    assert_eq!(status["current_phase"], Value::Null);
}

// ---- bad input ----

#[test]
fn missing_empty_binary_and_non_utf8_plans() {
    let env = TestEnv::new();
    assert_eq!(
        markdown(&env, &["swarm", "status"]),
        "No active swarm plan found.\n"
    );
    assert_eq!(
        markdown(&env, &["swarm", "history"]),
        "No history available.\n"
    );
    env.write(PLAN_MD, "");
    assert_eq!(
        markdown(&env, &["swarm", "plan"]),
        "No active swarm plan found.\n"
    );
    env.write(PLAN_MD, b"\xef\xbb\xbf");
    assert_eq!(
        markdown(&env, &["swarm", "plan"]),
        "No active swarm plan found.\n"
    );
    std::fs::remove_file(env.path(PLAN_MD)).unwrap();
    std::fs::create_dir_all(env.path(PLAN_MD)).unwrap();
    assert_eq!(
        markdown(&env, &["swarm", "status"]),
        "No active swarm plan found.\n"
    );
    std::fs::remove_dir(env.path(PLAN_MD)).unwrap();

    env.write(
        PLAN_MD,
        b"## Phase 1: Caf\xe9 [IN PROGRESS]\n- [x] a\n\x00\x01\xff- [ ] b\n",
    );
    let status = markdown(&env, &["swarm", "status"]);
    assert_eq!(
        status,
        "## Swarm Status\n\n**Current Phase**: Phase 1: Caf\u{fffd} [IN PROGRESS]\n**Tasks**: 1/1 complete\n**Agents**: 7 registered\n"
    );
    let binary: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    env.write(PLAN_MD, &binary);
    for command in ["status", "plan", "history", "agents"] {
        let out = env.run(&["swarm", command, "--format", "markdown"]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        let out = env.run(&["swarm", command]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

#[test]
fn a_huge_plan_is_read_whole() {
    let env = TestEnv::new();
    let mut text = String::from("# Huge\n## Phase 1: Many [IN PROGRESS]\n");
    while text.len() < 50 << 20 {
        text.push_str(
            "- [x] 1.1: a task line that is long enough to fill fifty megabytes quickly\n",
        );
    }
    text.push_str("- [ ] 1.2: last\n");
    let lines = text.matches("- [x]").count();
    env.write(PLAN_MD, &text);
    assert_eq!(
        markdown(&env, &["swarm", "status"]),
        format!(
            "## Swarm Status\n\n**Current Phase**: Phase 1: Many [IN PROGRESS]\n**Tasks**: {lines}/{} complete\n**Agents**: 7 registered\n",
            lines + 1
        )
    );
    let status: Value = serde_json::from_str(&env.ok(&["swarm", "status", "--json"])).unwrap();
    assert_eq!(status["tasks"]["completed"], lines);
    assert!(markdown(&env, &["swarm", "history"]).ends_with(&format!(
        "| 1 | Many | 🔄 IN PROGRESS | {lines}/{} |\n",
        lines + 1
    )));
}

/// A phase name 70 000 characters long once made comfy-table overflow (a panic in debug builds):
/// human tables cut such cells at 256 characters.
#[test]
fn a_phase_name_too_long_for_a_table_is_cut() {
    let name = "a".repeat(70_000);
    let env = env_with_plan(&format!("## Phase 1: {name} [IN PROGRESS]\n- [ ] 1.1: x\n"));
    for command in ["status", "history"] {
        let out = env.run(&["swarm", command]);
        assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        // The table's lines: from its header on.
        let cell: String = stdout
            .lines()
            .skip_while(|l| !l.starts_with('#'))
            .filter(|l| l.contains('a'))
            .map(|l| {
                l.split_whitespace()
                    .find(|w| w.starts_with('a'))
                    .unwrap_or("")
            })
            .collect();
        assert!(cell.ends_with("a…"), "{command}: {stdout}");
        assert_eq!(cell.chars().count(), 257, "{command}");
    }
}

#[test]
fn odd_headings_and_task_lines() {
    let plan = "Phase: 3 [COMPLETE] | Updated: x\n##  Phase 1 [IN PROGRESS]\n## phase 2: lower [in progress]\n  - [ ] indented\n- [X] capital\n- [x]no space\n- [ ]\n---\n## Phase 2: again [IN PROGRESS]\n- [ ] later\n";
    let env = env_with_plan(plan);
    assert_eq!(
        markdown(&env, &["swarm", "status"]),
        "## Swarm Status\n\n**Current Phase**: Phase 2: lower [IN PROGRESS]\n**Tasks**: 1/3 complete\n**Agents**: 7 registered\n"
    );
    let env = env_with_plan("# T\nPhase: 4 [COMPLETE] | x\n## Phase 4: Done [COMPLETE]\n");
    assert!(
        markdown(&env, &["swarm", "status"]).contains("**Current Phase**: Phase 4 [PENDING]\n")
    );
    let env = env_with_plan("# T\n### 1.1: sub-heading task\n");
    assert!(
        markdown(&env, &["swarm", "status"])
            .contains("**Current Phase**: Unknown\n**Tasks**: 0/0 complete\n")
    );
}

// ---- never a write ----

fn snapshot_files(dirs: &[&Path]) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
    let mut files = BTreeMap::new();
    for dir in dirs {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(path) = stack.pop() {
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                for entry in std::fs::read_dir(&path).unwrap() {
                    stack.push(entry.unwrap().path());
                }
            } else {
                files.insert(
                    path.display().to_string(),
                    (
                        std::fs::read(&path).unwrap_or_default(),
                        meta.modified().unwrap(),
                    ),
                );
            }
        }
    }
    files
}

#[test]
fn no_swarm_command_changes_a_byte() {
    let env = env_with_plan(&example_1());
    let json = std::fs::read_to_string(fixture("swarm/example-2.plan.json")).unwrap();
    write_plan_json(
        &env,
        &json.replace("\"local\"", "\"local\",\"migration_status\":\"native\""),
        1_000,
    );
    env.write(".swarm/context.md", "# Context\n\n## Decisions\n- a: b\n");
    // Later plugin versions keep more under .swarm/; ctx neither reads nor touches it.
    env.write(".swarm/evidence/1.1.json", "{}");
    env.write(
        ".opencode/opencode-swarm.json",
        "{\"agents\": {\"coder\": {\"model\": \"x/y\"}}}",
    );
    let user = env.home.join(".config/opencode/opencode-swarm.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "not json").unwrap();
    let dirs = [
        env.path(".swarm"),
        env.path(".opencode"),
        env.home.join(".config"),
    ];
    let dirs: Vec<&Path> = dirs.iter().map(|d| d.as_path()).collect();
    let before = snapshot_files(&dirs);
    for command in ["status", "plan", "agents", "history"] {
        for format in ["human", "markdown", "json"] {
            env.run(&["swarm", command, "--format", format]);
        }
    }
    for format in ["human", "markdown", "json"] {
        env.run(&["swarm", "plan", "2", "--format", format]);
        env.run(&["swarm", "plan", "9", "--format", format]);
    }
    assert_eq!(
        snapshot_files(&dirs),
        before,
        "a swarm command changed a file"
    );
    std::fs::remove_file(env.path(PLAN_JSON)).unwrap();
    let before_md = snapshot_files(&dirs);
    for command in ["status", "plan", "history"] {
        env.run(&["swarm", command, "--format", "markdown"]);
        env.run(&["swarm", command]);
    }
    assert_eq!(
        snapshot_files(&dirs),
        before_md,
        "a swarm command changed a file"
    );
    assert!(before.len() > before_md.len());
}

// ---- behaviours an earlier implementation's suite checked ----

/// Every heading and task form swarm.md lists, in one plan. The history table was compared
/// with opencode-swarm 4.4.0's own heading regex run under Node on this file.
#[test]
fn odd_plan_in_markdown_and_json() {
    let env = env_with_plan(&std::fs::read_to_string(fixture("swarm/odd-plan.md")).unwrap());
    assert_eq!(
        markdown(&env, &["swarm", "status"]),
        "## Swarm Status\n\n**Current Phase**: Phase 1: lower-case heading [IN PROGRESS]\n**Tasks**: 3/9 complete\n**Agents**: 7 registered\n"
    );
    assert_eq!(
        markdown(&env, &["swarm", "history"]),
        "## Swarm History\n\n| Phase | Name | Status | Tasks |\n|-------|------|--------|-------|\n| 2 | Rate limits | 🔄 IN PROGRESS | 0/1 |\n| 3 | Cleanup | ⏳ PENDING | 0/1 |\n| 4 | [PENDING] | ⏳ PENDING | 0/1 |\n| 5 | zero-padded | ✅ COMPLETE | 1/1 |\n| 6 | tag on the next line | ✅ COMPLETE | - |\n| 7 | ## Phase 8: swallowed | ⏳ PENDING | - |\n| 9 | blocked tag [BLOCKED] | ⏳ PENDING | - |\n"
    );
    assert_eq!(
        markdown(&env, &["swarm", "plan", "2"]),
        "## Phase 2: Rate limits [IN PROGRESS]  \n### 2.1: sub-heading instead of a checkbox\n- [ ] 2.2: open (depends: 2.1, 1.3) ← CURRENT\n- [BLOCKED] 2.3: blocked - waiting\n"
    );
    assert_eq!(
        markdown(&env, &["swarm", "plan", "5"]),
        "## Phase 05: zero-padded [COMPLETE]\n- [x] 5.1: done [LARGE]\n"
    );
    // The structured view sees every phase, capital X and indented tasks included.
    let plan: Value = serde_json::from_str(&env.ok(&["swarm", "plan", "--json"])).unwrap();
    let phases = plan["phases"].as_array().unwrap();
    let numbers: Vec<u64> = phases
        .iter()
        .map(|p| p["number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(phases[0]["tasks"].as_array().unwrap().len(), 3);
    assert_eq!(phases[1]["status"], "in_progress");
    assert_eq!(
        phases[1]["tasks"][0],
        serde_json::json!({"id": "2.2", "text": "open", "status": "in_progress", "size": null,
            "depends": ["2.1", "1.3"]})
    );
    assert_eq!(phases[8]["status"], "blocked");
}

#[test]
fn plan_arguments_that_parse_partly_or_not_at_all() {
    let text = example_1();
    let env = env_with_plan(&text);
    assert_eq!(
        markdown(&env, &["swarm", "plan", "x1"]),
        format!("{text}\n")
    );
    assert_eq!(
        markdown(&env, &["swarm", "plan", "7th"]),
        "Phase 7 not found in plan.\n"
    );
    assert_eq!(
        env.ok(&["swarm", "plan", "--format", "markdown", "--", "-0"]),
        "Phase 0 not found in plan.\n"
    );
}

#[test]
fn plan_json_is_the_source_in_every_view_until_it_is_gone() {
    let env = env_with_plan(&example_1());
    let json = std::fs::read_to_string(fixture("swarm/example-2.plan.json")).unwrap();
    write_plan_json(&env, &json, 1_772_443_800);
    assert_eq!(
        markdown(&env, &["swarm", "status"]),
        "## Swarm Status\n\n**Current Phase**: Phase 2: Reference pages [IN PROGRESS]\n**Tasks**: 1/2 complete\n**Agents**: 7 registered\n"
    );
    assert_eq!(
        markdown(&env, &["swarm", "plan", "9"]),
        "Phase 9 not found in plan.\n"
    );
    for command in ["status", "plan", "history"] {
        let doc: Value = serde_json::from_str(&env.ok(&["swarm", command, "--json"])).unwrap();
        assert_eq!(doc["source"], "plan.json", "{command}");
    }
    assert!(
        env.ok(&["swarm", "status"])
            .starts_with("CLI docs  (.swarm/plan.json)\n")
    );
    std::fs::remove_file(env.path(PLAN_JSON)).unwrap();
    let doc: Value = serde_json::from_str(&env.ok(&["swarm", "status", "--json"])).unwrap();
    assert_eq!(doc["source"], "plan.md");
}

#[test]
fn no_plan_in_every_mode() {
    let env = TestEnv::new();
    assert_eq!(
        markdown(&env, &["swarm", "plan", "2"]),
        "No active swarm plan found.\n"
    );
    for command in ["status", "plan", "history"] {
        let doc: Value = serde_json::from_str(&env.ok(&["swarm", command, "--json"])).unwrap();
        assert_eq!(doc["source"], Value::Null, "{command}");
    }
    let status: Value = serde_json::from_str(&env.ok(&["swarm", "status", "--json"])).unwrap();
    assert_eq!(status["agents"], 7);
    assert_eq!(status["phases"], serde_json::json!([]));
    // Human views: the plugin's sentence, and how a plan comes to exist.
    assert_snapshot!(env.snap(&["swarm", "plan", "2"]), @"
    exit: 0
    --- stdout
    No active swarm plan found.
    --- stderr
    opencode-swarm's architect writes .swarm/plan.md once a swarm starts planning
    ");
    env.write(PLAN_MD, "\u{feff}");
    assert_eq!(
        markdown(&env, &["swarm", "history"]),
        "No history available.\n"
    );
    let history: Value = serde_json::from_str(&env.ok(&["swarm", "history", "--json"])).unwrap();
    assert_eq!(history["source"], Value::Null);
}

#[test]
fn human_output_fits_80_columns_without_escape_codes() {
    let env = TestEnv::new();
    let long = "word ".repeat(60);
    env.write(
        PLAN_MD,
        format!("# {long}\n## Phase 1: {long} [IN PROGRESS]\n- [ ] 1.1: {long} (depends: 1.0, 0.9) [LARGE]\n- [BLOCKED] 1.2: {long}\n"),
    );
    env.write(
        ".opencode/opencode-swarm.json",
        format!(
            r#"{{"agents": {{"coder": {{"model": "{}"}}}}}}"#,
            "m".repeat(200)
        ),
    );
    for command in ["status", "plan", "history", "agents"] {
        let out = env.ok(&["swarm", command, "--color", "never"]);
        for line in out.lines() {
            assert!(line.chars().count() <= 80, "{command}: {line:?}");
        }
        assert!(!out.contains('\x1b'), "{command}");
    }
    // The counts survive the cut.
    let status = env.ok(&["swarm", "status"]);
    assert!(
        status.contains("… (in progress): 0/2 tasks done, 1 blocked\n"),
        "{status}"
    );
}

#[test]
fn agents_markdown_default_roster() {
    let out = markdown(&TestEnv::new(), &["swarm", "agents"]);
    assert!(out.starts_with("## Registered Agents\n\n- **architect** | model: `anthropic/claude-sonnet-4-5` | temp: 0.1 | ✏️ read-write\n  Central orchestrator of the development pipeline. Analyzes requests, coordinates SME consultation, manages code generation, and triages QA feedback.\n- **explorer** | model: `google/gemini-2.0-flash` | temp: 0.1 | 🔒 read-only\n"));
    assert!(out.ends_with("- **test_engineer** | model: `google/gemini-2.0-flash` | temp: 0.2 | ✏️ read-write\n  Testing and validation specialist. Generates test cases, runs them, and reports structured PASS/FAIL verdicts.\n"));
    assert_eq!(out.matches("\n- **").count(), 7);
}

/// swarm.md §6.4: a project file without `swarms` leaves the user's swarms alone, and its
/// top-level `agents` do not reach a roster built from swarms.
#[test]
fn user_swarms_survive_a_project_file_that_only_has_agents() {
    let env = TestEnv::new();
    let user = env.home.join(".config/opencode/opencode-swarm.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(
        &user,
        r#"{"agents": {"coder": {"model": "openai/gpt-5"}},
            "swarms": {"local": {"name": "Local", "agents": {"coder": {"model": "ollama/qwen", "temperature": 1e-7}, "sme": {"disabled": true}}}}}"#,
    )
    .unwrap();
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"agents": {"critic": {"disabled": true}}}"#,
    );
    let out = markdown(&env, &["swarm", "agents"]);
    assert!(out.contains("- **local_architect** | model: `anthropic/claude-sonnet-4-5` | temp: 0.1 | ✏️ read-write\n  [Local] Central orchestrator"));
    assert!(
        out.contains("- **local_coder** | model: `ollama/qwen` | temp: 1e-7 | ✏️ read-write\n")
    );
    assert!(!out.contains("local_sme"));
    assert_eq!(out.matches("\n- **").count(), 6);
    let doc: Value = serde_json::from_str(&env.ok(&["swarm", "agents", "--json"])).unwrap();
    assert_eq!(doc["agents"][0]["name"], "local_architect");
    assert_eq!(doc["agents"][0]["read_only"], false);
    assert_eq!(doc["agents"][1]["read_only"], true);
    let status: Value = serde_json::from_str(&env.ok(&["swarm", "status", "--json"])).unwrap();
    assert_eq!(status["agents"], 6);
}

#[test]
fn every_agent_disabled() {
    let env = TestEnv::new();
    let all = [
        "architect",
        "explorer",
        "sme",
        "coder",
        "reviewer",
        "critic",
        "test_engineer",
    ]
    .map(|a| format!("\"{a}\": {{\"disabled\": true}}"))
    .join(", ");
    env.write(
        ".opencode/opencode-swarm.json",
        format!("{{\"agents\": {{{all}}}}}"),
    );
    assert_eq!(
        markdown(&env, &["swarm", "agents"]),
        "No agents registered.\n"
    );
    assert_eq!(env.ok(&["swarm", "agents"]), "No agents registered.\n");
    let doc: Value = serde_json::from_str(&env.ok(&["swarm", "agents", "--json"])).unwrap();
    assert_eq!(doc["agents"], serde_json::json!([]));
    env.write(PLAN_MD, example_1());
    assert!(markdown(&env, &["swarm", "status"]).ends_with("**Agents**: 0 registered\n"));
}

#[test]
fn both_config_files_invalid_give_two_warnings_and_the_default_roster() {
    let env = TestEnv::new();
    let user = env.home.join(".config/opencode/opencode-swarm.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "{\"agents\": {\"coder\": {\"disabled\": true}},}").unwrap();
    env.write(".opencode/opencode-swarm.json", "\u{feff}{}");
    let out = env.run(&["swarm", "agents", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_snapshot!(env.filter(&String::from_utf8_lossy(&out.stderr)), @"
    warning: [HOME]/.config/opencode/opencode-swarm.json: not JSON: trailing comma at line 1 column 42; ignored, as opencode-swarm ignores it
    warning: [ROOT]/.opencode/opencode-swarm.json: not JSON: expected value at line 1 column 1; ignored, as opencode-swarm ignores it
    ");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["agents"].as_array().unwrap().len(), 7);
}

#[test]
fn nul_bytes_and_invalid_utf8_in_a_plan() {
    let env = env_with_plan("## Phase 1 [IN PROGRESS]\n- [x] a\0\x01\x02\n");
    assert_eq!(
        markdown(&env, &["swarm", "status"]),
        "## Swarm Status\n\n**Current Phase**: Phase 1:  [IN PROGRESS]\n**Tasks**: 1/1 complete\n**Agents**: 7 registered\n"
    );
    env.write(
        PLAN_MD,
        b"## Phase 1: caf\xe9 [IN PROGRESS]\n- [ ] 1.1: \xff\xfe\n",
    );
    let plan: Value = serde_json::from_str(&env.ok(&["swarm", "plan", "--json"])).unwrap();
    assert_eq!(plan["phases"][0]["tasks"][0]["text"], "\u{fffd}\u{fffd}");
    assert_eq!(plan["phases"][0]["name"], "caf\u{fffd}");
}

#[test]
fn an_unusable_plan_json_falls_back_in_human_and_json_views_too() {
    let env = env_with_plan(&example_1());
    write_plan_json(
        &env,
        r#"{"schema_version":"1.0.0","title":"t","swarm":"s","current_phase":"2","phases":[]}"#,
        0,
    );
    for format in ["human", "json"] {
        let out = env.run(&["swarm", "status", "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{format}");
        assert_eq!(
            env.filter(&String::from_utf8_lossy(&out.stderr)),
            "[ROOT]/.swarm/plan.json: current_phase must be an integer of at least 1; reading plan.md instead\n"
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("Docs site migration"));
    }
}

//! `ctx config`: every setting with its value and source, in cli.md's precedence.

use insta::assert_snapshot;
use serde_json::Value;

use crate::common::TestEnv;

#[test]
fn defaults_when_nothing_is_configured() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["config"]), @r#"
    exit: 0
    --- stdout
    # root: [ROOT] (default: discovered: holds .opencode/)
    # color: auto (default)
    # project settings: [ROOT]/.opencode/ctx.toml (not present)
    # user settings: [HOME]/.config/ctx/config.toml (not present)
    frame.context.total = 4000            # default
    frame.context.ancestors = 1500        # default
    frame.context.siblings = 1500         # default
    frame.context.current = 800           # default
    frame.context.tokenizer = "flame"     # default
    frame.log.output_max = 262144         # default
    frame.stale_after = 60                # default
    frame.auto = "off"                    # default
    frame.fold_after = 0                  # default
    budget.model = ""                     # default
    budget.tokenizer = "auto"             # default
    budget.limit = 0                      # default
    budget.warn = 0.7                     # default
    budget.critical = 0.9                 # default
    opencode.tools = "on"                 # default
    opencode.subagent_frames = "all"      # default
    opencode.fold = "on"                  # default
    opencode.fold_user_messages = "fold"  # default
    hooks.state_in_home = "off"           # default
    claude.fold = "on"                    # default
    codex.fold = "on"                     # default
    qwen.fold = "on"                      # default
    gemini.fold = "on"                    # default
    copilot.fold = "on"                   # default
    pi.tools = "on"                       # default
    pi.fold = "on"                        # default
    pi.fold_user_messages = "fold"        # default
    swarm.version = "auto"                # default
    --- stderr
    "#);
}

#[test]
fn env_beats_project_beats_user_beats_flame_beats_default() {
    let env = TestEnv::new();
    env.write(
        ".opencode/ctx.toml",
        "[frame.context]\ntotal = 3000\nancestors = 900\n",
    );
    std::fs::create_dir_all(env.home.join(".config/ctx")).unwrap();
    std::fs::write(
        env.home.join(".config/ctx/config.toml"),
        "[frame.context]\ntotal = 1\nancestors = 2\nsiblings = 700\n",
    )
    .unwrap();
    let out = env
        .ctx()
        .args(["config", "--json"])
        .env("CTX_FRAME_CONTEXT_TOTAL", "5000")
        .env("FLAME_TOKEN_BUDGET_SIBLINGS", "1")
        .env("FLAME_TOKEN_BUDGET_CURRENT", "600")
        .output()
        .unwrap();
    crate::schema::check_output(&["config", "--json"], &out);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = |key: &str| {
        let s = doc["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .unwrap()
            .clone();
        (
            s["value"].clone(),
            s["source"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(found("frame.context.total"), (5000.into(), "env".into()));
    assert_eq!(
        found("frame.context.ancestors"),
        (900.into(), "project".into())
    );
    assert_eq!(found("frame.context.siblings"), (700.into(), "user".into()));
    assert_eq!(found("frame.context.current"), (600.into(), "env".into()));
    assert_eq!(
        found("frame.context.tokenizer"),
        ("flame".into(), "default".into())
    );
    assert_eq!(doc["files"][0]["exists"], true);
}

#[test]
fn frame_auto_is_off_by_default_and_takes_its_four_values_from_files_and_env() {
    let env = TestEnv::new();
    assert_eq!(env.ok(&["config", "frame.auto"]), "off\n");
    env.write(".opencode/ctx.toml", "[frame]\nauto = \"turns\"\n");
    assert_eq!(env.ok(&["config", "frame.auto"]), "turns\n");
    for value in ["off", "turns", "todos", "all"] {
        let out = env
            .ctx()
            .args(["config", "frame.auto"])
            .env("CTX_FRAME_AUTO", value)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{value}\n"));
    }
    env.write(".opencode/ctx.toml", "[frame]\nauto = \"on\"\n");
    let out = env.run(&["config", "frame.auto"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("frame.auto must be one of off, turns, todos, all"),
        "{}",
        env.render(&out)
    );
}

#[test]
fn one_key_prints_its_bare_value() {
    let env = TestEnv::new();
    env.write(
        ".opencode/ctx.toml",
        "[frame.context]\ntokenizer = \"o200k\"\n",
    );
    assert_eq!(env.ok(&["config", "frame.context.tokenizer"]), "o200k\n");
    assert_eq!(env.ok(&["config", "frame.context.current"]), "800\n");
    let root = env.ok(&["config", "root"]);
    assert_eq!(env.filter(&root), "[ROOT]\n");
    assert_snapshot!(env.snap(&["config", "frame.context.totl"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: unknown setting `frame.context.totl`
    hint: `ctx config` lists every setting
    ");
}

#[test]
fn root_and_color_say_whether_a_flag_or_the_environment_set_them() {
    let env = TestEnv::new();
    let doc: Value =
        serde_json::from_str(&env.ok(&["-C", ".", "config", "--json", "--color", "never"]))
            .unwrap();
    assert_eq!(doc["root"]["source"], "flag");
    assert_eq!(
        doc["color"],
        serde_json::json!({"value": "never", "source": "flag", "detail": null})
    );
    let out = env
        .ctx()
        .args(["config", "--json"])
        .env("CTX_ROOT", ".")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["root"]["source"], "env");
    assert_eq!(doc["root"]["detail"], "CTX_ROOT");
    assert_eq!(doc["color"]["value"], "never");
    assert_eq!(doc["color"]["detail"], "NO_COLOR");
}

#[test]
fn a_value_of_the_wrong_kind_is_an_error_after_the_listing() {
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "[frame.context]\ntotal = -5\n");
    assert_snapshot!(env.snap(&["config"]), @r#"
    exit: 1
    --- stdout
    # root: [ROOT] (default: discovered: holds .opencode/)
    # color: auto (default)
    # project settings: [ROOT]/.opencode/ctx.toml
    # user settings: [HOME]/.config/ctx/config.toml (not present)
    frame.context.total = <invalid>       # see the error below
    frame.context.ancestors = 1500        # default
    frame.context.siblings = 1500         # default
    frame.context.current = 800           # default
    frame.context.tokenizer = "flame"     # default
    frame.log.output_max = 262144         # default
    frame.stale_after = 60                # default
    frame.auto = "off"                    # default
    frame.fold_after = 0                  # default
    budget.model = ""                     # default
    budget.tokenizer = "auto"             # default
    budget.limit = 0                      # default
    budget.warn = 0.7                     # default
    budget.critical = 0.9                 # default
    opencode.tools = "on"                 # default
    opencode.subagent_frames = "all"      # default
    opencode.fold = "on"                  # default
    opencode.fold_user_messages = "fold"  # default
    hooks.state_in_home = "off"           # default
    claude.fold = "on"                    # default
    codex.fold = "on"                     # default
    qwen.fold = "on"                      # default
    gemini.fold = "on"                    # default
    copilot.fold = "on"                   # default
    pi.tools = "on"                       # default
    pi.fold = "on"                        # default
    pi.fold_user_messages = "fold"        # default
    swarm.version = "auto"                # default
    --- stderr
    error: [ROOT]/.opencode/ctx.toml: frame.context.total must be a non-negative integer
    "#);
    let out = env
        .ctx()
        .args(["config"])
        .env("CTX_FRAME_CONTEXT_TOKENIZER", "gpt2")
        .env_remove("CTX_FRAME_CONTEXT_TOTAL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn unknown_keys_and_broken_files_are_reported() {
    let env = TestEnv::new();
    env.write(".opencode/ctx.toml", "[frame.context]\ntotl = 5\n");
    assert_snapshot!(env.snap(&["config", "frame.context.total"]), @r"
    exit: 0
    --- stdout
    4000
    --- stderr
    warning: [ROOT]/.opencode/ctx.toml: `frame.context.totl` is not a ctx setting (project settings file); ignored
    ");
    env.write(".opencode/ctx.toml", "[frame.context\n");
    let out = env.run(&["config"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
    env.write(".opencode/ctx.toml", b"\xff\xfe");
    assert_snapshot!(env.snap(&["config"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/ctx.toml: not UTF-8 text
    ");
}

#[test]
fn budget_thresholds_fall_back_to_opencode_swarm_below_ctx_files() {
    let env = TestEnv::new();
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"context_budget": {"warn_threshold": 0.5, "critical_threshold": 0.8}}"#,
    );
    env.write(".opencode/ctx.toml", "[budget]\ncritical = 0.95\n");
    let out = env.run(&["config", "--json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let setting = |key: &str| {
        let found = doc["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .unwrap()
            .clone();
        (
            found["value"].clone(),
            found["source"].clone(),
            found["detail"].clone(),
        )
    };
    assert_eq!(
        setting("budget.warn"),
        (
            0.5.into(),
            "opencode-swarm".into(),
            "context_budget.warn_threshold".into()
        )
    );
    assert_eq!(setting("budget.critical").1, "project");
    assert_eq!(setting("budget.critical").0, 0.95);
    // `[budget.model_limits]` is a known table, not a typo.
    env.write(
        ".opencode/ctx.toml",
        "[budget]\nwarn = 0.6\n[budget.model_limits]\n\"my/model\" = 64000\n",
    );
    let out = env.run(&["config", "budget.warn"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0.6\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

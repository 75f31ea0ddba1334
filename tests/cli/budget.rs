//! `ctx budget …`: counts, limits, verdicts, output formats, and every kind of bad input.

use std::path::Path;
use std::process::Command;

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::common::{TestEnv, fixture};

fn json_of(env: &TestEnv, args: &[&str]) -> Value {
    let out = env.run(args);
    assert!(
        out.status.code() == Some(0),
        "ctx {args:?}:\n{}",
        env.render(&out)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

/// opencode-swarm's estimate, written independently of ctx's: ceil(len16 × 0.33).
fn swarm_tokens(text: &str) -> u64 {
    let units = text.encode_utf16().count() as u64;
    (33 * units).div_ceil(100)
}

fn paths_of(doc: &Value, key: &str) -> Vec<String> {
    doc[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap().to_string())
        .collect()
}

// ---- counting and the JSON document ----

#[test]
fn json_document_has_the_contract_shape() {
    let env = TestEnv::new();
    env.write("src/a.rs", "fn main() {}\n");
    env.write("docs/b.md", "hello world\n");
    let out = env.run(&[
        "budget",
        "estimate",
        "src",
        "docs",
        "--tokenizer",
        "o200k",
        "--model",
        "gpt-4o",
        "--json",
    ]);
    assert_snapshot!(env.render(&out), @r#"
    exit: 0
    --- stdout
    {"version":1,"tokenizer":"o200k","exact":true,"model":"gpt-4o","limit":{"context":128000,"input":null,"output":16384,"usable":111616,"source":"built-in"},"total_tokens":7,"bytes":25,"files":2,"usage":0.0000546875,"level":"ok","thresholds":{"warn":0.7,"critical":0.9},"items":[{"path":"src/a.rs","tokens":4,"bytes":13},{"path":"docs/b.md","tokens":3,"bytes":12}],"skipped":[]}
    --- stderr
    "#);
}

#[test]
fn exact_counts_match_the_fixture_for_both_encodings() {
    // Three fixture strings counted as files, totals compared with js-tiktoken's counts.
    let env = TestEnv::new();
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("budget/tokens.json")).unwrap())
            .unwrap();
    let cases = doc["cases"].as_array().unwrap();
    let mut expected = (0, 0);
    for (i, case) in cases.iter().enumerate().skip(100).take(60) {
        env.write(&format!("in/{i:03}.txt"), case["text"].as_str().unwrap());
        expected.0 += case["o200k"].as_u64().unwrap();
        expected.1 += case["cl100k"].as_u64().unwrap();
    }
    let o200k = json_of(
        &env,
        &["budget", "estimate", "in", "--tokenizer", "o200k", "--json"],
    );
    let cl100k = json_of(
        &env,
        &[
            "budget",
            "estimate",
            "in",
            "--tokenizer",
            "cl100k",
            "--json",
        ],
    );
    assert_eq!(o200k["total_tokens"], expected.0);
    assert_eq!(cl100k["total_tokens"], expected.1);
    assert_eq!(o200k["exact"], true);
}

#[test]
fn swarm_and_opencode_tokenizers_use_utf16_length() {
    let env = TestEnv::new();
    let text = "héllo 🦀 wörld\n".repeat(7); // 15 UTF-16 units a line
    env.write("t.txt", &text);
    let swarm = json_of(
        &env,
        &[
            "budget",
            "estimate",
            "t.txt",
            "--tokenizer",
            "swarm",
            "--json",
        ],
    );
    assert_eq!(swarm["total_tokens"], swarm_tokens(&text));
    assert_eq!(swarm["tokenizer"], "swarm");
    assert_eq!(swarm["exact"], false);
    let opencode = json_of(
        &env,
        &[
            "budget",
            "estimate",
            "t.txt",
            "--tokenizer",
            "opencode",
            "--json",
        ],
    );
    // 105 units / 4 = 26.25 → 26.
    assert_eq!(opencode["total_tokens"], 26);
}

#[test]
fn auto_uses_an_estimate_for_claude_and_says_so() {
    let env = TestEnv::new();
    env.write(
        "a.md",
        "The quick brown fox jumps over the lazy dog.\n".repeat(50),
    );
    let doc = json_of(
        &env,
        &[
            "budget",
            "estimate",
            "a.md",
            "--model",
            "anthropic/claude-sonnet-4-5",
            "--json",
        ],
    );
    assert_eq!(doc["tokenizer"], "estimate:claude");
    assert_eq!(doc["exact"], false);
    assert_eq!(
        doc["limit"],
        json!({"context": 200000, "input": null, "output": 64000, "usable": 168000, "source": "built-in"})
    );
    let tokens = doc["total_tokens"].as_u64().unwrap();
    // o200k gives 10 tokens a line; the Claude estimate is some 20 % above.
    assert!((500..=700).contains(&tokens), "{tokens}");
    let exact = json_of(
        &env,
        &["budget", "estimate", "a.md", "--model", "gpt-5", "--json"],
    );
    assert_eq!(exact["tokenizer"], "o200k");
    assert_eq!(exact["exact"], true);
    assert_eq!(exact["total_tokens"], 500);
    assert_eq!(exact["limit"]["usable"], 252000);
    let old = json_of(
        &env,
        &["budget", "estimate", "a.md", "--model", "gpt-4", "--json"],
    );
    assert_eq!(old["tokenizer"], "cl100k");
}

#[test]
fn human_output_fits_80_columns() {
    let env = TestEnv::new();
    env.write(
        "src/main.rs",
        "fn main() {\n    println!(\"hi\");\n}\n".repeat(20),
    );
    env.write(
        "src/deep/very/long/directory/name/that/keeps/going/and/going/file.rs",
        "x\n",
    );
    env.write("README.md", "hello world\n");
    env.write(
        "src/deep/very/long/directory/name/that/keeps/going/and/going/and/going/file.rs",
        "x\n",
    );
    let out = env.run(&["budget", "estimate", "--tokenizer", "o200k", "--top", "3"]);
    let text = env.render(&out);
    for line in text.lines() {
        assert!(unicode_width::UnicodeWidthStr::width(line) <= 80, "{line}");
    }
    assert_snapshot!(text, @"
    exit: 0
    --- stdout
    207 tokens, 0.2% of 128,000 context tokens (no model): ok
    [--------------------------------------------] warn 70.0% critical 90.0%
    tokenizer  o200k: exact (OpenAI BPE, as tiktoken)
    limit      128,000 context (default)
    inputs     4 files, 696 B

    largest files                                                 tokens       bytes
      src/main.rs                                                    200       680 B
      README.md                                                        3        12 B
      src/deep/very/long/directory/name/that/keeps/going/an…           2         2 B
      … 1 more

    largest folders                                               tokens       bytes
      src/                                                           204       684 B
      src/deep/                                                        4         4 B
      src/deep/very/long/directory/name/that/keeps/going/an…           2         2 B
    --- stderr
    ");
}

// ---- verdicts ----

#[test]
fn levels_thresholds_and_fail_on_exit_codes() {
    let env = TestEnv::new();
    // 100 units → swarm 33 tokens; limits chosen around 33/0.7 and 33/0.9.
    env.write("t.txt", "a".repeat(100));
    let run = |limit: &str, fail_on: &str| {
        let out = env.run(&[
            "budget",
            "estimate",
            "t.txt",
            "--tokenizer",
            "swarm",
            "--limit",
            limit,
            "--fail-on",
            fail_on,
            "--json",
        ]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            out.status.code().unwrap(),
            doc["level"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(run("30", "never"), (0, "critical".into()));
    assert_eq!(run("30", "warn"), (4, "critical".into()));
    assert_eq!(run("30", "critical"), (4, "critical".into()));
    assert_eq!(run("40", "warn"), (3, "warn".into())); // 0.825
    assert_eq!(run("40", "critical"), (0, "warn".into()));
    assert_eq!(run("1000", "warn"), (0, "ok".into()));
    // Strict comparisons: 33/55 = 0.6 is not above --warn 0.6.
    let out = env.run(&[
        "budget",
        "estimate",
        "t.txt",
        "--tokenizer",
        "swarm",
        "--limit",
        "55",
        "--warn",
        "0.6",
        "--fail-on",
        "warn",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["usage"], 0.6);
    assert_eq!(doc["thresholds"], json!({"warn": 0.6, "critical": 0.9}));
}

#[test]
fn swarm_format_prints_the_plugin_line_or_nothing() {
    let env = TestEnv::new();
    env.write("t.txt", "a".repeat(100)); // 33 tokens
    let snap = |limit: &str| {
        env.snap(&[
            "budget",
            "estimate",
            "t.txt",
            "--tokenizer",
            "swarm",
            "--limit",
            limit,
            "--format",
            "swarm",
        ])
    };
    assert_snapshot!(snap("40"), @r"
    exit: 0
    --- stdout
    [CONTEXT WARNING: ~83% of context budget used. Consider summarizing to .swarm/context.md]
    --- stderr
    ");
    assert_snapshot!(snap("30"), @r"
    exit: 0
    --- stdout
    [CONTEXT CRITICAL: ~110% of context budget used. Offload details to .swarm/context.md immediately]
    --- stderr
    ");
    assert_snapshot!(snap("1000"), @r"
    exit: 0
    --- stdout
    --- stderr
    ");
    // context_budget.enabled = false: the plugin adds nothing.
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"context_budget": {"enabled": false}}"#,
    );
    assert_snapshot!(snap("30"), @r"
    exit: 0
    --- stdout
    --- stderr
    ");
}

// ---- limits ----

#[test]
fn limit_sources_in_order() {
    let env = TestEnv::new();
    env.write("t.txt", "x");
    let limit = |extra: &[&str]| {
        let mut args = vec!["budget", "estimate", "t.txt", "--json"];
        args.extend_from_slice(extra);
        let doc = json_of(&env, &args);
        (
            doc["limit"]["context"].as_u64().unwrap(),
            doc["limit"]["source"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(
        limit(&["--model", "claude-sonnet-4-5"]),
        (200_000, "built-in".into())
    );
    assert_eq!(limit(&[]), (128_000, "default".into()));

    // The models.dev cache comes before the built-in table.
    env.write(
        "../home/.cache/opencode/models.json",
        r#"{"anthropic": {"id": "anthropic", "models": {"claude-sonnet-4-5": {"id": "claude-sonnet-4-5",
            "limit": {"context": 210000, "output": 64000}}}}}"#,
    );
    assert_eq!(
        limit(&["--model", "claude-sonnet-4-5"]),
        (210_000, "models.dev".into())
    );

    // opencode-swarm's model_limits: the exact key, then default.
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"context_budget": {"model_limits": {"anthropic/claude-sonnet-4-5": 150000, "default": 90000}}}"#,
    );
    assert_eq!(
        limit(&["--model", "anthropic/claude-sonnet-4-5"]),
        (150_000, "opencode-swarm".into())
    );
    assert_eq!(
        limit(&["--model", "gpt-5"]),
        (90_000, "opencode-swarm".into())
    );

    // ctx's settings come before opencode-swarm's.
    env.write(
        ".opencode/ctx.toml",
        "[budget]\nlimit = 50000\n[budget.model_limits]\n\"gpt-5\" = 300000\n",
    );
    assert_eq!(
        limit(&["--model", "openai/gpt-5"]),
        (300_000, "project".into())
    );
    assert_eq!(limit(&["--model", "o3"]), (50_000, "project".into()));
    let doc = json_of(&env, &["budget", "estimate", "t.txt", "--json"]);
    assert_eq!(doc["limit"]["usable"], 18_000);

    // The environment, then the flag.
    let out = env
        .ctx()
        .env("CTX_BUDGET_LIMIT", "70000")
        .args(["budget", "estimate", "t.txt", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["limit"]["source"], "env");
    assert_eq!(doc["limit"]["context"], 70_000);
    assert_eq!(limit(&["--limit", "1234"]), (1234, "flag".into()));
}

#[test]
fn thresholds_from_settings_and_opencode_swarm() {
    let env = TestEnv::new();
    env.write("t.txt", "x");
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"context_budget": {"warn_threshold": 0.5, "critical_threshold": 0.6}}"#,
    );
    let doc = json_of(&env, &["budget", "estimate", "t.txt", "--json"]);
    assert_eq!(doc["thresholds"], json!({"warn": 0.5, "critical": 0.6}));
    env.write(".opencode/ctx.toml", "[budget]\nwarn = 0.25\n");
    let doc = json_of(
        &env,
        &[
            "budget",
            "estimate",
            "t.txt",
            "--json",
            "--critical",
            "0.95",
        ],
    );
    assert_eq!(doc["thresholds"], json!({"warn": 0.25, "critical": 0.95}));
}

#[test]
fn an_unknown_model_falls_back_and_says_so() {
    let env = TestEnv::new();
    env.write("t.txt", "hello");
    let out = env.run(&[
        "budget",
        "estimate",
        "t.txt",
        "--model",
        "acme/rocket-9",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["limit"]["source"], "default");
    assert_eq!(doc["limit"]["context"], 128_000);
    assert_eq!(doc["tokenizer"], "estimate:generic");
    assert_snapshot!(String::from_utf8_lossy(&out.stderr), @r#"warning: unknown model "acme/rocket-9": not in OpenCode's models.dev cache nor ctx's table; assuming a 128,000-token context (give --limit to set it)"#);
}

#[test]
fn unusable_configuration_files_are_ignored_with_a_warning() {
    let env = TestEnv::new();
    env.write("t.txt", "x");
    env.write("../home/.cache/opencode/models.json", "[1, 2]");
    env.write(
        ".opencode/opencode-swarm.json",
        "{\"context_budget\": {\"warn_threshold\": 7}}",
    );
    let out = env.run(&[
        "budget", "estimate", "t.txt", "--model", "gpt-5", "--format", "json",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["limit"]["source"], "built-in");
    assert_eq!(doc["thresholds"]["warn"], 0.7);
    assert_snapshot!(env.filter(&String::from_utf8_lossy(&out.stderr)), @"
    warning: [ROOT]/.opencode/opencode-swarm.json: context_budget.warn_threshold must be a number from 0 to 1; ignored, as opencode-swarm ignores it
    warning: [HOME]/.cache/opencode/models.json: ignored: not OpenCode's models.dev cache: the top level is not an object
    ");
}

#[test]
fn models_lists_limits_with_their_sources() {
    let env = TestEnv::new();
    env.write(
        "../home/.cache/opencode/models.json",
        r#"{"acme": {"models": {"rocket-9": {"limit": {"context": 50000, "input": 40000, "output": 8000}}}}}"#,
    );
    env.write(
        ".opencode/ctx.toml",
        "[budget.model_limits]\n\"acme/tiny\" = 4000\n",
    );
    let doc = json_of(&env, &["budget", "models", "--json"]);
    let rows = doc["models"].as_array().unwrap();
    let row = |id: &str| rows.iter().find(|r| r["model"] == id).unwrap().clone();
    assert_eq!(
        row("acme/rocket-9"),
        json!({"model": "acme/rocket-9", "context": 50000, "input": 40000, "output": 8000, "usable": 32000, "source": "models.dev"})
    );
    assert_eq!(row("acme/tiny")["source"], "project");
    assert_eq!(row("openai/gpt-5")["usable"], 252000);
    assert_eq!(doc["default"]["context"], 128000);
    let text = env.ok(&["budget", "models"]);
    assert!(text.contains("acme (models.dev)\n  rocket-9"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80));
}

// ---- walking ----

#[test]
fn ignore_rules_hidden_files_and_excludes() {
    let env = TestEnv::new();
    env.write("w/.gitignore", "target/\n*.log\n");
    env.write("w/.ignore", "secret.txt\n");
    env.write("w/src/a.rs", "a");
    env.write("w/target/big.rs", "b");
    env.write("w/x.log", "c");
    env.write("w/secret.txt", "d");
    env.write("w/.hidden/h.rs", "e");
    env.write("w/vendor/v.rs", "f");
    let items = |extra: &[&str]| {
        let mut args = vec!["budget", "estimate", "w", "--tokenizer", "swarm", "--json"];
        args.extend_from_slice(extra);
        let mut paths = paths_of(&json_of(&env, &args), "items");
        paths.sort();
        paths
    };
    assert_eq!(items(&[]), ["w/src/a.rs", "w/vendor/v.rs"]);
    assert_eq!(
        items(&["--exclude", "vendor", "--exclude", "*.md"]),
        ["w/src/a.rs"]
    );
    assert_eq!(
        items(&["--hidden"]),
        [
            "w/.gitignore",
            "w/.hidden/h.rs",
            "w/.ignore",
            "w/src/a.rs",
            "w/vendor/v.rs"
        ]
    );
    assert_eq!(
        items(&["--no-ignore"]),
        [
            "w/secret.txt",
            "w/src/a.rs",
            "w/target/big.rs",
            "w/vendor/v.rs",
            "w/x.log"
        ]
    );
    // A file named on the command line is counted even when ignored.
    let doc = json_of(&env, &["budget", "estimate", "w/x.log", "--json"]);
    assert_eq!(paths_of(&doc, "items"), ["w/x.log"]);
}

#[test]
fn stdin_is_counted_once() {
    let env = TestEnv::new();
    let out = env.run_stdin(
        &["budget", "estimate", "-", "--tokenizer", "o200k", "--json"],
        b"hello world",
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["items"],
        json!([{"path": "-", "tokens": 2, "bytes": 11}])
    );
    assert_eq!(doc["files"], 0);
    assert_snapshot!(env.snap(&["budget", "estimate", "-", "--session", "-"]), @r"
    exit: 2
    --- stdout
    --- stderr
    error: standard input ('-') can be read only once: give it to PATH or --session, not both
    ");
}

#[test]
fn without_a_path_the_given_root_or_else_the_working_directory_is_counted() {
    let env = TestEnv::new();
    env.write("here.txt", "hello world\n");
    env.write("sub/there.txt", "hello\n");
    let counted = |args: &[&str]| {
        let mut all = vec!["budget", "estimate", "--tokenizer", "o200k", "--json"];
        all.extend_from_slice(args);
        paths_of(&json_of(&env, &all), "items")
    };
    assert_eq!(counted(&[]), ["here.txt", "sub/there.txt"]);
    assert_eq!(counted(&["-C", "sub"]), ["sub/there.txt"]);
    let out = env
        .ctx()
        .args(["budget", "estimate", "--tokenizer", "o200k", "--json"])
        .env("CTX_ROOT", "sub")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(paths_of(&doc, "items"), ["sub/there.txt"]);
}

/// `ctx budget estimate ARGS` with stdin a pipe that stays open for 3 s (well past the progress
/// line's 0.5 s delay, even on a loaded machine) and stderr a terminal
/// (script(1) gives it one); what the terminal showed.
fn on_a_terminal(env: &TestEnv, args: &str) -> String {
    let ctx = assert_cmd::cargo::cargo_bin("ctx");
    let inner = format!(
        "(printf hello; sleep 3) | '{}' budget estimate - --tokenizer o200k {args}",
        ctx.display()
    );
    let out = Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .current_dir(&env.root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("LANG", "C.UTF-8")
        .output()
        .expect("script(1) from util-linux");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn progress_shows_on_a_terminal_only_and_not_with_quiet() {
    let env = TestEnv::new();
    let shown = on_a_terminal(&env, "");
    assert!(shown.contains("counting: 0 files, 5 B, "), "{shown:?}");
    // The progress line is erased before the report.
    assert!(shown.contains("\r\x1b[2K1 tokens"), "{shown:?}");
    let quiet = on_a_terminal(&env, "-q");
    assert!(!quiet.contains("counting"), "{quiet:?}");
    // In a pipe: never.
    let out = env.run_stdin(&["budget", "estimate", "-"], b"hello");
    assert!(out.stderr.is_empty(), "{out:?}");
}

// ---- bad input ----

/// A tokenizer name from the settings is checked like the flag's: `flame` costs
/// `<flame-context>`, not budgets, and no name falls back to a default.
#[test]
fn an_unknown_tokenizer_in_the_settings_is_an_error() {
    let env = TestEnv::new();
    env.write("a.txt", "hello");
    env.write(".opencode/ctx.toml", "[budget]\ntokenizer = \"flame\"\n");
    assert_snapshot!(env.snap(&["budget", "estimate", "a.txt"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/ctx.toml: budget.tokenizer must be one of auto, o200k, cl100k, swarm, opencode
    ");
    let out = env
        .ctx()
        .args(["budget", "estimate", "a.txt", "--tokenizer", "gpt2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn binary_files_are_skipped_and_non_utf8_is_counted_lossily() {
    let env = TestEnv::new();
    env.write("d/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    let latin1 = b"caf\xe9 cr\xe8me br\xfbl\xe9e\n";
    env.write("d/latin1.txt", latin1);
    let doc = json_of(
        &env,
        &["budget", "estimate", "d", "--tokenizer", "swarm", "--json"],
    );
    assert_eq!(
        doc["skipped"],
        json!([{"path": "d/logo.png", "reason": "binary"}])
    );
    let lossy = String::from_utf8_lossy(latin1);
    assert_eq!(
        doc["items"],
        json!([{"path": "d/latin1.txt", "tokens": swarm_tokens(&lossy), "bytes": latin1.len()}])
    );
}

#[test]
fn unreadable_files_and_folders_are_skipped_and_the_rest_counted() {
    let env = TestEnv::new();
    env.write("d/ok.txt", "a".repeat(100));
    // Reading /proc/self/mem at offset 0 fails even for root.
    std::os::unix::fs::symlink("/proc/self/mem", env.path("d/mem")).unwrap();
    // A folder whose path is longer than PATH_MAX cannot be listed, whoever asks.
    let segment = "n".repeat(250);
    let script = format!(
        "cd d && for i in $(seq 18); do mkdir {segment} && cd {segment}; done; echo deep > f.txt"
    );
    assert!(
        Command::new("sh")
            .arg("-c")
            .arg(&script)
            .current_dir(&env.root)
            .status()
            .unwrap()
            .success()
    );
    // And a folder without permissions, which only a non-root user cannot read.
    env.write("d/locked/l.txt", "locked");
    let locked = env.path("d/locked");
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let privileged = std::fs::read_dir(&locked).is_ok();

    let out = env.run(&["budget", "estimate", "d", "--tokenizer", "swarm", "--json"]);
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped = doc["skipped"].as_array().unwrap();
    let reason = |pred: &dyn Fn(&str) -> bool| {
        skipped
            .iter()
            .find(|s| pred(s["path"].as_str().unwrap()))
            .map(|s| s["reason"].as_str().unwrap().to_string())
    };
    assert_eq!(
        reason(&|p| p == "d/mem").as_deref(),
        Some("input/output error")
    );
    assert!(
        reason(&|p| p.ends_with(&segment)).is_some_and(|r| r.contains("too long")),
        "{skipped:?}"
    );
    if !privileged {
        assert_eq!(
            reason(&|p| p == "d/locked").as_deref(),
            Some("permission denied")
        );
    }
    let items = paths_of(&doc, "items");
    assert!(items.contains(&"d/ok.txt".to_string()), "{items:?}");
}

#[test]
fn symlink_loops_are_reported_and_the_rest_counted() {
    let env = TestEnv::new();
    env.write("d/a/file.txt", "abc");
    std::os::unix::fs::symlink("..", env.path("d/a/up")).unwrap();
    std::os::unix::fs::symlink("self", env.path("d/self")).unwrap();
    let out = env.run(&["budget", "estimate", "d", "--tokenizer", "swarm", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(paths_of(&doc, "items"), ["d/a/file.txt"]);
    let skipped = doc["skipped"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|s| s["path"] == "d/a/up" && s["reason"] == "symlink loop"),
        "{skipped:?}"
    );
    assert!(skipped.iter().any(|s| s["path"] == "d/self"), "{skipped:?}");
}

#[test]
fn a_missing_path_is_an_error() {
    let env = TestEnv::new();
    assert_snapshot!(env.snap(&["budget", "estimate", "nope.txt"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: nope.txt: cannot read: No such file or directory
    ");
}

#[test]
fn a_2_gb_file_is_streamed_in_bounded_memory() {
    let env = TestEnv::new();
    // Text first (so it is not binary), then a sparse 2 GiB tail of NUL characters.
    let path = env.path("big.txt");
    std::fs::write(&path, "hello world\n".repeat(1000)).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(2 << 30).unwrap();
    drop(file);
    let bin = assert_cmd::cargo::cargo_bin("ctx");
    let out = Command::new("/usr/bin/time")
        .args(["-f", "maxrss_kb=%M"])
        .arg(&bin)
        .args([
            "budget",
            "estimate",
            "big.txt",
            "--tokenizer",
            "swarm",
            "--json",
        ])
        .current_dir(&env.root)
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.home.join(".config"))
        .env("XDG_CACHE_HOME", env.home.join(".cache"))
        .output()
        .expect("/usr/bin/time runs");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["bytes"], 2u64 << 30);
    assert_eq!(doc["total_tokens"], (33 * (2u64 << 30)).div_ceil(100));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss: u64 = stderr
        .lines()
        .find_map(|l| l.strip_prefix("maxrss_kb="))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no maxrss in {stderr}"));
    assert!(rss < 100 * 1024, "peak RSS {rss} KiB");
}

// ---- sessions ----

#[test]
fn a_session_counts_what_is_sent_beside_what_opencode_recorded() {
    let env = TestEnv::new();
    let export = fixture("budget/session.json");
    let export = export.to_str().unwrap();
    let doc = json_of(
        &env,
        &[
            "budget",
            "estimate",
            "--session",
            export,
            "--tokenizer",
            "opencode",
            "--json",
        ],
    );
    // The model comes from the session.
    assert_eq!(doc["model"], "anthropic/claude-sonnet-4-5");
    assert_eq!(doc["limit"]["usable"], 168000);
    let sent = [
        "Verify Stripe webhook signatures before any event is parsed.",
        "bash",
        r#"{"command":"cargo test webhook","description":"Run webhook tests"}"#,
        "running 9 tests\n.........\ntest result: ok. 9 passed; 0 failed",
        "Signatures are now verified with the endpoint secret.",
    ];
    let expected: u64 = sent
        .iter()
        .map(|t| ((t.len() as f64 / 4.0) + 0.5).floor() as u64)
        .sum();
    assert_eq!(doc["total_tokens"], expected);
    let session = &doc["session"];
    assert_eq!(session["id"], "ses_dfd5bccffffexnyIvr51bJROXM");
    assert_eq!(session["recorded_tokens"], 21834);
    assert_eq!(session["recorded_model"], "anthropic/claude-sonnet-4-5");
    assert_eq!(session["totals"]["cache_read"], 18840);
    assert_eq!(session["messages"], 2);
    assert_eq!(doc["files"], 0);
    let human = env.ok(&["budget", "estimate", "--session", export, "--top", "0"]);
    assert!(
        human.contains(
            "session    ses_dfd5bccffffexnyIvr51bJROXM, 2 messages\n           \
             70 tokens counted; OpenCode recorded 21,834 on the last reply\n"
        ),
        "{human}"
    );

    // With the swarm tokenizer a session counts as opencode-swarm counts it: every non-empty
    // text part, ignored ones included.
    let stdin = std::fs::read(fixture("budget/session.json")).unwrap();
    let out = env.run_stdin(
        &[
            "budget",
            "estimate",
            "--session",
            "-",
            "--tokenizer",
            "swarm",
            "--json",
        ],
        &stdin,
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected =
        swarm_tokens(sent[0]) + swarm_tokens("(shown to the user only)") + swarm_tokens(sent[4]);
    assert_eq!(doc["total_tokens"], expected);
    assert_eq!(doc["items"][0]["path"], "-");
}

#[test]
fn an_export_that_is_not_json_or_not_an_export_is_refused() {
    let env = TestEnv::new();
    env.write("bad.json", "{ not json");
    env.write("other.json", r#"{"info": {"id": "ses_1"}}"#);
    assert_snapshot!(env.snap(&["budget", "estimate", "--session", "bad.json"]), @"
    exit: 1
    --- stdout
    --- stderr
    error: bad.json: not an OpenCode session export or message list: invalid JSON at line 1, column 3: key must be a string
    ");
    assert_snapshot!(env.snap(&["budget", "estimate", "--session", "other.json"]), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: other.json: not an OpenCode session export or message list: no "messages" array
    "#);
}

#[test]
fn the_message_list_of_opencodes_hook_counts_as_its_session() {
    let env = TestEnv::new();
    let list = r#"{"messages": [
      {"info": {"id": "msg_1", "sessionID": "ses_1", "role": "user", "agent": "architect"},
       "parts": [{"type": "text", "text": "Plan the billing service"}]},
      {"info": {"id": "msg_2", "sessionID": "ses_1", "role": "assistant"},
       "parts": [{"type": "text", "text": "Here is the plan."}]}]}"#;
    let export = format!(r#"{{"info": {{"id": "ses_1"}}, {}"#, &list[1..]);
    let count = |stdin: &str| {
        let out = env.run_stdin(
            &[
                "budget",
                "estimate",
                "--session",
                "-",
                "--tokenizer",
                "o200k",
                "--json",
            ],
            stdin.as_bytes(),
        );
        assert!(out.status.success(), "{}", env.render(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["total_tokens"].clone()
    };
    assert_eq!(count(list), count(&export));
    assert!(count(list).as_u64().unwrap() > 0);
}

#[test]
fn bad_flag_values_are_usage_errors() {
    let env = TestEnv::new();
    let out = env.run(&["budget", "estimate", "--warn", "1.5"]);
    assert_eq!(out.status.code(), Some(2));
    let out = env.run(&["budget", "estimate", "--limit", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let out = env.run(&["budget", "estimate", "--tokenizer", "bpe"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_closed_stdout_is_a_quiet_success() {
    let env = TestEnv::new();
    for i in 0..50 {
        env.write(&format!("f{i}.txt"), "x");
    }
    let mut child = env
        .std_command()
        .args(["budget", "estimate", "--tokenizer", "swarm", "--top", "50"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

// ---- the pre-commit hook ----

fn git(env: &TestEnv, args: &[&str], extra_env: &[(&str, &str)]) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("ctx");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(&env.root)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &env.home)
        .env("XDG_CONFIG_HOME", env.home.join(".config"))
        .env("XDG_CACHE_HOME", env.home.join(".cache"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com");
    for (key, value) in extra_env {
        cmd.env(key, value);
    }
    cmd.output().expect("git runs")
}

#[test]
fn pre_commit_hook_refuses_staged_files_over_the_budget() {
    let env = TestEnv::new();
    assert!(git(&env, &["init", "-q"], &[]).status.success());
    let hook = Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/git-hooks/pre-commit");
    std::fs::copy(hook, env.path(".git/hooks/pre-commit")).unwrap();
    // Critical above 90 % of 200 tokens.
    let limit = [("CTX_PRECOMMIT_LIMIT", "200")];

    env.write("small.txt", "hello world\n");
    git(&env, &["add", "small.txt"], &[]);
    let out = git(&env, &["commit", "-q", "-m", "small"], &limit);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");

    // The staged content counts, not the working tree's.
    env.write("big.txt", "hello world ".repeat(100)); // 201 tokens
    git(&env, &["add", "big.txt"], &[]);
    env.write("big.txt", "");
    let out = git(&env, &["commit", "-q", "-m", "big"], &limit);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("201 tokens, 100.5% of 200 context tokens"),
        "{stderr}"
    );
    assert!(stderr.contains("  big.txt "), "{stderr}");
    assert!(
        stderr.ends_with(
            "ctx pre-commit: the staged files are over the token budget; commit refused.\n  \
             Split the commit, or raise the limit (CTX_PRECOMMIT_LIMIT=N git commit ..., or [budget] limit\n  \
             in .opencode/ctx.toml), or skip this check once with git commit --no-verify.\n"
        ),
        "{stderr}"
    );

    // Raising the limit lets it through; so does --no-verify.
    let out = git(
        &env,
        &["commit", "-q", "-m", "big"],
        &[("CTX_PRECOMMIT_LIMIT", "1000")],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    env.write("big2.txt", "hello world ".repeat(100));
    git(&env, &["add", "big2.txt"], &[]);
    let out = git(&env, &["commit", "-q", "--no-verify", "-m", "big2"], &limit);
    assert!(out.status.success());
}

#[test]
fn a_disabled_budget_and_a_limit_without_a_model() {
    let env = TestEnv::new();
    env.write("a.txt", "word ".repeat(400));
    // No model: nothing is said about when OpenCode would compact.
    let out = env.ok(&["budget", "estimate", "a.txt", "--limit", "100"]);
    let limit_line = out.lines().find(|l| l.starts_with("limit")).unwrap();
    assert_eq!(limit_line, "limit      100 context (flag)");
    // opencode-swarm's context_budget.enabled: false gives no verdict exit code.
    let critical = env.run(&[
        "budget",
        "estimate",
        "a.txt",
        "--limit",
        "100",
        "--fail-on",
        "warn",
    ]);
    assert_eq!(critical.status.code(), Some(4));
    env.write(
        ".opencode/opencode-swarm.json",
        r#"{"context_budget": {"enabled": false}}"#,
    );
    let off = env.run(&[
        "budget",
        "estimate",
        "a.txt",
        "--limit",
        "100",
        "--fail-on",
        "warn",
    ]);
    assert_eq!(off.status.code(), Some(0), "{}", env.render(&off));
}

#[test]
fn relative_paths_with_a_root_are_the_shells_and_a_missing_one_says_so() {
    let env = TestEnv::new();
    env.write("sub/notes.md", "hello\n");
    let out = env.run(&["-C", "sub", "budget", "estimate", "notes.md"]);
    assert_snapshot!(env.render(&out), @"
    exit: 1
    --- stdout
    --- stderr
    error: notes.md: cannot read: No such file or directory
    hint: relative paths are resolved against the working directory [ROOT], not -C sub
    ");
    // From the working directory, as the shell gives it, the file is found.
    env.ok(&["-C", "sub", "budget", "estimate", "sub/notes.md"]);
}

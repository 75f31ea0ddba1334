//! Generated files committed to the repository (completions/, man/, schemas/, the package
//! manifests, the plugins' flame_* tool tables) match what the binary generates now. When this
//! fails, refresh them with: cargo run -q -- generate-artifacts .

use std::path::Path;

use crate::common::TestEnv;

fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().into_string().unwrap(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn completions_man_pages_and_schemas_are_fresh() {
    let env = TestEnv::new();
    let out = env.temp().join("generated");
    env.ok(&["generate-artifacts", out.to_str().unwrap()]);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["completions", "man", "schemas"] {
        let committed = files_under(&repo.join(dir));
        let fresh = files_under(&out.join(dir));
        let names =
            |files: &[(String, Vec<u8>)]| files.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&committed),
            names(&fresh),
            "{dir}/ is stale: run `cargo run -q -- generate-artifacts .`"
        );
        for ((name, old), (_, new)) in committed.iter().zip(&fresh) {
            assert!(
                old == new,
                "{dir}/{name} is stale: run `cargo run -q -- generate-artifacts .`"
            );
        }
    }
}

#[test]
fn completions_print_for_every_shell() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = env.ok(&["completions", shell]);
        // Each script calls back into ctx, which completes from its definitions and the project.
        assert!(
            script.contains("COMPLETE") && script.contains("ctx"),
            "{shell}"
        );
    }
    assert_eq!(env.run(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn the_bash_completion_loads_and_completes_subcommands() {
    if std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_err()
    {
        return; // no bash on this machine: nothing to check against
    }
    let env = TestEnv::new();
    let script = env.temp().join("ctx.bash");
    std::fs::write(&script, env.ok(&["completions", "bash"])).unwrap();
    let probe = format!(
        "source '{}'; COMP_WORDS=(ctx frame p); COMP_CWORD=2; _clap_complete_ctx ctx p frame; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let bin_dir = assert_cmd::cargo::cargo_bin("ctx")
        .parent()
        .unwrap()
        .to_path_buf();
    let out = std::process::Command::new("bash")
        .args(["-c", &probe])
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .output()
        .unwrap();
    let words = String::from_utf8_lossy(&out.stdout);
    assert!(
        words.lines().any(|w| w == "push") && words.lines().any(|w| w == "pop"),
        "{words}"
    );
}

/// The package manifests (npm/…) are the ones generate-artifacts writes now.
#[test]
fn package_manifests_are_fresh() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, text) in ctxkit::package::manifests() {
        let committed = std::fs::read_to_string(repo.join(&path)).unwrap_or_default();
        assert!(
            committed == text,
            "{path} is stale: run `cargo run -q -- generate-artifacts .`"
        );
    }
}

/// The flame_* tools of the OpenCode plugin and the pi extension are src/tools.rs's table: each
/// file's generated region is the one generate-artifacts writes now (an edited description there
/// fails), and outside it the file defines one handler per tool of the table, in its order.
#[test]
fn the_plugins_tool_tables_are_fresh() {
    use ctxkit::tools::{BEGIN, END, PLUGINS, TOOLS, refresh};
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let table: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    for plugin in PLUGINS {
        let path = plugin.path;
        let committed = std::fs::read_to_string(repo.join(path)).unwrap();
        let fresh = refresh(&committed, plugin.flavor)
            .unwrap_or_else(|| panic!("{path} has no generated region ({BEGIN} … {END})"));
        assert!(
            committed == fresh,
            "{path}: its flame_* tool table is stale (the table is src/tools.rs): run `cargo run -q -- generate-artifacts .`"
        );
        let (before, rest) = committed.split_at(committed.find(BEGIN).unwrap());
        let handwritten = format!("{before}{}", &rest[rest.find(END).unwrap()..]);
        let defined: Vec<&str> = handwritten
            .match_indices("define(\"")
            .map(|(at, call)| {
                let name = &handwritten[at + call.len()..];
                &name[..name.find('"').unwrap()]
            })
            .collect();
        assert_eq!(
            defined, table,
            "{path}: one define(\"flame_…\", …) per tool of src/tools.rs, in its order"
        );
    }
}

/// One version everywhere: every committed manifest, every dependency between ctx's packages and
/// `ctx --version` say Cargo.toml's version; the release script builds the packages' targets.
#[test]
fn every_package_carries_the_crates_version() {
    let version = env!("CARGO_PKG_VERSION");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut manifests = vec![repo.join("npm/ctxkit/package.json")];
    for entry in std::fs::read_dir(repo.join("npm/platforms")).unwrap() {
        manifests.push(entry.unwrap().path().join("package.json"));
    }
    for path in &manifests {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut versions = Vec::new();
        collect_versions(&json, &mut versions);
        assert!(!versions.is_empty(), "{path:?}: no version");
        for (key, found) in versions {
            assert_eq!(found, version, "{path:?}: {key}");
        }
    }
    manifests.push(repo.join(".claude-plugin/marketplace.json"));
    manifests.push(repo.join("integrations/claude/.claude-plugin/plugin.json"));
    // The install lines of the README and of the book's install page name the version too.
    for doc in ["README.md", "docs/src/install.md"] {
        let text = std::fs::read_to_string(repo.join(doc)).unwrap();
        let named: Vec<&str> = text
            .split("ctxkit@")
            .skip(1)
            .map(|rest| {
                rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
                    .next()
                    .unwrap()
            })
            .collect();
        assert!(!named.is_empty(), "{doc} names no ctxkit@VERSION");
        for found in named {
            assert_eq!(
                found.trim_end_matches('.'),
                version,
                "{doc}: ctxkit@{found}"
            );
        }
    }
    let env = TestEnv::new();
    let shown = env.ok(&["--version"]);
    assert_eq!(shown.split(' ').nth(1), Some(version), "{shown}");

    let script = std::fs::read_to_string(repo.join("scripts/release.sh")).unwrap();
    for platform in &ctxkit::package::PLATFORMS {
        assert!(
            script.contains(&format!("\n  {}\n", platform.target)),
            "scripts/release.sh does not build {}",
            platform.target
        );
    }
}

/// Every `version` key, and every dependency on one of ctx's packages, with where it is.
fn collect_versions(json: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match json {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("version", serde_json::Value::String(v)) => {
                        out.push((key.clone(), v.clone()));
                    }
                    (dependencies, serde_json::Value::Object(packages))
                        if dependencies.ends_with("ependencies") =>
                    {
                        for (name, v) in packages {
                            if name == "ctxkit" || name.starts_with("@ctxkit/") {
                                out.push((name.clone(), v.as_str().unwrap_or("").to_string()));
                            }
                        }
                    }
                    _ => collect_versions(value, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_versions(v, out)),
        _ => {}
    }
}

/// The Claude Code plugin's commands and agents are the files `ctx claude install` writes: every
/// file of its commands/ and agents/ folders is one of them, and each of them is there.
#[test]
fn the_claude_plugins_commands_are_the_installed_ones() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin = repo.join(ctxkit::package::CLAUDE_PLUGIN_DIR);
    let mut in_plugin: Vec<(String, String)> = ["commands", "agents"]
        .into_iter()
        .flat_map(|folder| {
            files_under(&plugin.join(folder))
                .into_iter()
                .map(move |(name, bytes)| {
                    (
                        format!("{folder}/{name}"),
                        String::from_utf8(bytes).unwrap(),
                    )
                })
        })
        .collect();
    in_plugin.sort();
    let mut installed: Vec<(String, String)> = ctxkit::install::CLAUDE_FILES
        .iter()
        .map(|file| (file.path.to_string(), file.text.to_string()))
        .collect();
    installed.sort();
    assert_eq!(in_plugin, installed);
}

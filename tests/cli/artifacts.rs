//! Generated files committed to the repository (completions/, man/, schemas/) match what the binary
//! generates now. When this fails, refresh them with: cargo run -q -- generate-artifacts .

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

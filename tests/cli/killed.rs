//! Nothing of the user's lost or exposed when ctx is killed: an install or a SessionEnd fold cut
//! off at any instant (agents kill a hook at their time limit, Codex's SessionEnd after 3 s)
//! leaves no copy of a private file that others can read, and the next run sweeps what it left
//! and does the whole job.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::claude_fold::{end, folded_result, session};
use crate::common::TestEnv;

const SETTINGS: &str = ".claude/settings.json";
const SECRET: &str = "{\n  \"env\": { \"API_TOKEN\": \"secret-token\" }\n}\n";

/// Every file below `dir`, links not followed.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => found.extend(files_below(&path)),
            Ok(_) => found.push(path),
            Err(_) => {}
        }
    }
    found
}

fn temps_below(dir: &Path) -> Vec<PathBuf> {
    files_below(dir)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A private settings file (0600, a token in it).
fn private_settings(env: &TestEnv) {
    env.write(SETTINGS, SECRET);
    std::fs::set_permissions(env.path(SETTINGS), std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn an_install_sweeps_the_temp_files_killed_installs_left_and_remove_still_empties_the_folder() {
    let env = TestEnv::new();
    private_settings(&env);
    // What a kill between the temp's creation and its rename left: a partial copy.
    let dead = env.path(".claude/.settings.json.0123456789abcdef.tmp");
    std::fs::write(&dead, &SECRET[..12]).unwrap();
    let dead_command = env.path(".claude/commands/.push.md.fedcba9876543210.tmp");
    env.write(".claude/commands/.push.md.fedcba9876543210.tmp", "partial");
    // A file of the user's that only looks alike is not ctx's to sweep.
    env.write(".claude/.settings.json.mine.tmp", "mine");
    env.ok(&["claude", "install"]);
    assert!(!dead.exists() && !dead_command.exists(), "swept");
    assert_eq!(env.read(".claude/.settings.json.mine.tmp"), "mine");
    assert_eq!(
        mode(&env.path(SETTINGS)),
        0o600,
        "the settings keep their mode"
    );
    std::fs::remove_file(env.path(".claude/.settings.json.mine.tmp")).unwrap();
    std::fs::write(&dead, "partial").unwrap();
    env.ok(&["claude", "install", "--remove"]);
    assert_eq!(env.read(SETTINGS), SECRET, "byte for byte");
    // A .claude/ that ctx's install made goes with --remove, a dead temp in it or not.
    let env = TestEnv::new();
    env.ok(&["claude", "install"]);
    let dead = env.path(".claude/.settings.json.0123456789abcdef.tmp");
    std::fs::write(&dead, "partial").unwrap();
    env.ok(&["claude", "install", "--remove"]);
    assert!(
        !env.path(".claude").exists(),
        "a dead temp keeps no folder: {:?}",
        files_below(&env.path(".claude"))
    );
}

#[test]
fn a_fold_killed_before_its_rename_does_not_stop_the_next_one() {
    let env = TestEnv::new();
    let (transcript, _) = session(&env);
    let name = transcript
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let dir = transcript.parent().unwrap();
    let session_dir = transcript.with_extension("");
    // What a fold killed between keeping the original and its rename left: the kept link, and
    // its temp file, under the name of earlier ctx versions and under today's.
    std::fs::create_dir_all(&session_dir).unwrap();
    std::fs::hard_link(&transcript, session_dir.join("ctx-fold-1.jsonl")).unwrap();
    std::fs::write(dir.join(format!(".{name}.ctx-fold.tmp")), "{\"partial\":").unwrap();
    std::fs::write(
        dir.join(format!(".{name}.ctx-fold.0123456789abcdef.tmp")),
        "{\"partial\":",
    )
    .unwrap();
    let original = std::fs::read(&transcript).unwrap();
    end(&env, &transcript, &[]);
    assert!(
        folded_result(&transcript)
            .as_str()
            .unwrap()
            .contains("Summary: Refunds done"),
        "folded"
    );
    assert_eq!(temps_below(dir), Vec::<PathBuf>::new(), "no temp file left");
    let kept = files_below(&session_dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("ctx-fold-")
        })
        .collect::<Vec<_>>();
    assert_eq!(
        kept.len(),
        1,
        "one original kept, not one per attempt: {kept:?}"
    );
    assert_eq!(std::fs::read(&kept[0]).unwrap(), original);
}

/// A small xorshift: the kills' instants, the same on every run.
struct Instants(u64);

impl Instants {
    fn next_below(&mut self, bound: Duration) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        bound.mul_f64((self.0 % 10_000) as f64 / 10_000.0)
    }
}

/// How long `run` takes uncut, the median of five.
fn uncut(mut run: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[2]
}

/// Starts `cmd`, kills it with SIGKILL after `after`, and waits for it.
fn kill_after(mut cmd: std::process::Command, stdin: Option<&str>, after: Duration) {
    use std::io::Write as _;
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let _ = pipe.write_all(text.as_bytes());
    }
    std::thread::sleep(after);
    let _ = child.kill();
    child.wait().unwrap();
}

#[test]
fn installs_killed_at_random_instants_expose_nothing_and_the_next_one_finishes() {
    let env = TestEnv::new();
    private_settings(&env);
    let install = |remove: bool| {
        let mut cmd = env.std_command();
        cmd.args(["claude", "install"]);
        if remove {
            cmd.arg("--remove");
        }
        cmd
    };
    let took = uncut(|| {
        assert!(install(false).output().unwrap().status.success());
        assert!(install(true).output().unwrap().status.success());
    }) / 2;
    let mut instants = Instants(0x9e37_79b9_7f4a_7c15);
    for n in 0..60 {
        kill_after(install(n % 2 == 1), None, instants.next_below(took));
        let settings = env.read(SETTINGS);
        serde_json::from_str::<serde_json::Value>(&settings)
            .unwrap_or_else(|e| panic!("kill {n}: a torn settings file ({e}):\n{settings}"));
        assert_eq!(mode(&env.path(SETTINGS)), 0o600, "kill {n}");
        // ctx's slash commands are public text; a copy of the settings must be as private as
        // they are.
        let settings_temps = temps_below(&env.path(".claude"))
            .into_iter()
            .filter(|t| t.to_string_lossy().contains(".settings.json."));
        for temp in settings_temps {
            assert_eq!(
                mode(&temp) & 0o077,
                0,
                "kill {n}: {} is readable by others",
                temp.display()
            );
        }
    }
    env.ok(&["claude", "install"]);
    assert_eq!(temps_below(&env.path(".claude")), Vec::<PathBuf>::new());
    env.ok(&["claude", "install", "--remove"]);
    assert_eq!(env.read(SETTINGS), SECRET, "the user's file, byte for byte");
}

#[test]
fn folds_killed_at_random_instants_tear_nothing_and_the_next_one_folds() {
    let env = TestEnv::new();
    let (transcript, _) = session(&env);
    let original = std::fs::read_to_string(&transcript).unwrap();
    let dir = transcript.parent().unwrap().to_path_buf();
    let input = serde_json::json!({
        "session_id": transcript.file_stem().unwrap().to_str().unwrap(),
        "transcript_path": transcript, "reason": "other", "cwd": env.root,
    })
    .to_string();
    let fold = || {
        let mut cmd = env.std_command();
        cmd.args(["claude", "hook", "SessionEnd"]);
        cmd
    };
    let restore = || {
        let fresh = dir.join("fresh");
        std::fs::write(&fresh, &original).unwrap();
        std::fs::rename(&fresh, &transcript).unwrap();
    };
    let took = uncut(|| {
        restore();
        let out = assert_cmd::Command::from_std(fold())
            .write_stdin(input.as_bytes())
            .output()
            .unwrap();
        assert!(out.status.success());
    });
    let mut instants = Instants(0x2545_f491_4f6c_dd1d);
    for n in 0..40 {
        restore();
        kill_after(fold(), Some(&input), instants.next_below(took));
        let now = std::fs::read_to_string(&transcript).unwrap();
        assert!(
            now == original || now.contains("\"ctxFolded\""),
            "kill {n}: the transcript is the original or folded, never torn"
        );
        for temp in temps_below(&dir) {
            assert_eq!(mode(&temp) & 0o077, 0, "kill {n}: {}", temp.display());
        }
    }
    restore();
    end(&env, &transcript, &[]);
    assert!(
        folded_result(&transcript)
            .as_str()
            .unwrap()
            .contains("Summary: Refunds done")
    );
    assert_eq!(
        temps_below(&dir),
        Vec::<PathBuf>::new(),
        "no temp file left"
    );
}

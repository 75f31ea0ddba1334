//! Stray temp files of killed writers are removed by a later writer once stale (flame.md §3.5).

#![cfg(unix)]

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::common::TestEnv;

/// Sets a file's modification time `age` into the past.
fn age_file(path: &Path, age: Duration) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - age)
        .unwrap();
}

#[test]
fn a_later_writer_removes_stale_temp_files_of_the_state_and_of_logs() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root", "--id", "root"]);
    let state_temp = ".opencode/flame/.state.json.00112233aabbccdd.tmp";
    let log_temp = ".opencode/flame/logs/.frame-root.md.00112233aabbccdd.tmp";
    let unrelated = ".opencode/flame/logs/notes.tmp";
    for file in [state_temp, log_temp, unrelated] {
        env.write(file, "partial");
    }
    // Younger than an hour: perhaps a writer still at work, so they stay.
    env.ok(&["frame", "decision", "--frame", "root", "one"]);
    for file in [state_temp, log_temp, unrelated] {
        assert!(env.path(file).exists(), "{file} removed while recent");
    }
    for file in [state_temp, log_temp, unrelated] {
        age_file(&env.path(file), Duration::from_secs(7200));
    }
    env.ok(&["frame", "decision", "--frame", "root", "two"]);
    assert!(!env.path(state_temp).exists());
    assert!(!env.path(log_temp).exists());
    // Only ctx's own temp names are removed.
    assert!(env.path(unrelated).exists());
}

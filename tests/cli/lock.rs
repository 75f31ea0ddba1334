//! The lock on `state.json.lock` (flame.md §3.5): writers waiting for it are all served, in the
//! order they came, before the timeout; a lock that is never released times out naming the file;
//! a lock left by a killed process stops no one; a file system that cannot lock is refused.
//!
//! Linux only: which process waits for a lock is read from `/proc/locks`, and the file system
//! without locks is a preloaded `flock` that fails.

#![cfg(target_os = "linux")]

use std::fs::{File, OpenOptions};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::TestEnv;

const STATE: &str = ".opencode/flame/state.json";
const LOCK: &str = ".opencode/flame/state.json.lock";

/// Takes the lock as another writer would, and holds it until the file is dropped.
fn hold_lock(env: &TestEnv) -> File {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.path(LOCK))
        .unwrap();
    file.lock().unwrap();
    file
}

/// `/proc/locks` lines of flock locks held (`->` marks a waiter instead) by the processes `pids`.
fn flock_lines(pids: &[u32], waiting: bool) -> usize {
    let locks = std::fs::read_to_string("/proc/locks").expect("/proc/locks");
    locks
        .lines()
        .filter(|line| {
            let mut fields = line.split_whitespace().skip(1).peekable();
            let waits = fields.next_if_eq(&"->").is_some();
            let mut fields = fields.skip(3);
            waits == waiting
                && line.contains(" FLOCK ")
                && fields
                    .next()
                    .and_then(|pid| pid.parse::<u32>().ok())
                    .is_some_and(|pid| pids.contains(&pid))
        })
        .count()
}

/// Waits (up to 10 s) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(
            Instant::now() < deadline,
            "waited 10 s for {what}; /proc/locks:\n{}",
            std::fs::read_to_string("/proc/locks").unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn spawn(env: &TestEnv, args: &[&str]) -> Child {
    env.std_command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx")
}

fn frame_ids(env: &TestEnv) -> Vec<String> {
    let doc: Value = serde_json::from_str(&env.read(STATE)).unwrap();
    doc["frames"].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn fifty_waiting_writers_are_all_served_in_the_order_they_came() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root", "--id", "root"]);
    let holder = hold_lock(&env);
    // One writer at a time, each once the one before it waits for the lock: the order of arrival.
    let mut writers = Vec::new();
    let mut pids = Vec::new();
    for i in 0..50 {
        let (goal, id) = (format!("writer {i}"), format!("w{i:02}"));
        let child = spawn(
            &env,
            &["frame", "push", &goal, "--parent", "root", "--id", &id],
        );
        pids.push(child.id());
        writers.push(child);
        wait_until(&format!("writer {i} to wait for the lock"), || {
            flock_lines(&pids, true) == i + 1
        });
    }
    drop(holder);
    for (i, writer) in writers.into_iter().enumerate() {
        let out = writer.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "writer {i}: {}",
            env.filter(&String::from_utf8_lossy(&out.stderr))
        );
    }
    let served: Vec<String> = frame_ids(&env).into_iter().skip(1).collect();
    let arrived: Vec<String> = (0..50).map(|i| format!("w{i:02}")).collect();
    assert_eq!(
        served, arrived,
        "new frames are appended in the order of service"
    );
}

#[test]
fn a_lock_never_released_times_out_after_ten_seconds_naming_the_file() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root", "--id", "root"]);
    let before = env.read(STATE);
    let _holder = hold_lock(&env);
    let start = Instant::now();
    let out = env.run(&["frame", "push", "Never served"]);
    let waited = start.elapsed();
    insta::assert_snapshot!(env.render(&out), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json is locked by another ctx process
    hint: waited 10 s for the lock on [ROOT]/.opencode/flame/state.json.lock, which another process still holds
    ");
    assert!(
        waited >= Duration::from_secs(10),
        "gave up after {waited:?}"
    );
    assert_eq!(env.read(STATE), before);
}

#[test]
fn a_lock_left_by_a_killed_process_stops_no_one() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root", "--id", "root"]);
    // Whatever a crashed process left in the lock file does not matter: only the lock does.
    env.write(LOCK, "4242\n");
    // flock(1) takes the lock and becomes `sleep`, which is killed while holding it.
    let mut holder = Command::new("flock")
        .args(["--no-fork", LOCK, "sleep", "60"])
        .current_dir(&env.root)
        .spawn()
        .expect("flock(1), from util-linux");
    wait_until("flock(1) to hold the lock", || {
        flock_lines(&[holder.id()], false) == 1
    });
    // A writer that was waiting for the lock is killed too.
    let mut waiter = spawn(&env, &["frame", "push", "Killed while waiting"]);
    wait_until("the writer to wait for the lock", || {
        flock_lines(&[waiter.id()], true) == 1
    });
    waiter.kill().unwrap(); // SIGKILL
    waiter.wait().unwrap();
    holder.kill().unwrap();
    holder.wait().unwrap();

    env.ok(&["frame", "push", "After the crash", "--id", "after"]);
    assert_eq!(frame_ids(&env), ["root", "after"]);
    assert_eq!(
        env.read(LOCK),
        "4242\n",
        "the lock file is used, never rewritten"
    );
}

/// A shared library that makes every `flock` call fail with the error number in `$FLOCK_ERRNO`,
/// as on a file system without locks; preloaded into ctx.
fn failing_flock(env: &TestEnv) -> std::path::PathBuf {
    let source = env.temp().join("flock.c");
    let library = env.temp().join("flock.so");
    std::fs::write(
        &source,
        "#include <errno.h>\n#include <stdlib.h>\n\
         int flock(int fd, int operation) {\n\
         (void)fd; (void)operation; errno = atoi(getenv(\"FLOCK_ERRNO\")); return -1;\n}\n",
    )
    .unwrap();
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&library)
        .arg(&source)
        .status()
        .expect("a C compiler (cc), which Rust links with");
    assert!(status.success());
    library
}

#[test]
fn a_file_system_without_locks_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root", "--id", "root"]);
    let before = env.read(STATE);
    let library = failing_flock(&env);
    let run = |errno: &str, args: &[&str]| {
        let out = env
            .ctx()
            .env("LD_PRELOAD", &library)
            .env("FLOCK_ERRNO", errno)
            .args(args)
            .output()
            .unwrap();
        env.render(&out)
    };
    // ENOLCK: NFS without its lock service.
    insta::assert_snapshot!(run("37", &["frame", "push", "Unlocked"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json.lock: cannot lock: No locks available; this file system does not support locks, and ctx does not write state.json without one
    hint: keep the project on a file system with locks (NFS needs its lock service running)
    ");
    // EOPNOTSUPP: a file system without flock.
    insta::assert_snapshot!(run("95", &["frame", "pop", "--frame", "root"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json.lock: cannot lock: Operation not supported; this file system does not support locks, and ctx does not write state.json without one
    hint: keep the project on a file system with locks (NFS needs its lock service running)
    ");
    // Any other failure is reported as it is.
    insta::assert_snapshot!(run("5", &["frame", "decision", "--frame", "root", "D"]), @r"
    exit: 1
    --- stdout
    --- stderr
    error: [ROOT]/.opencode/flame/state.json.lock: cannot lock: Input/output error
    ");
    assert_eq!(env.read(STATE), before);
    assert!(!env.path(".opencode/flame/logs").exists());
    // Readers take no lock.
    insta::assert_snapshot!(run("37", &["frame", "current"]), @r"
    exit: 0
    --- stdout
    root
    --- stderr
    ");
}

//! No torn file: writers killed with SIGKILL at random instants leave the state as it was before
//! or after their command, never a mix; stray temp files are removed by a later writer once stale
//! (flame.md §3.5).

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::flame_schema::check_state_bytes;

const STATE: &str = ".opencode/flame/state.json";
const KILLS: usize = 200;

/// A small xorshift generator: the kill instants only need to be spread, not unpredictable.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// A state of a few hundred frames with long texts, so that a write takes long enough to be
/// interrupted in the middle.
fn large_state() -> Value {
    let mut frames = serde_json::Map::new();
    frames.insert(
        "root".into(),
        json!({"sessionID": "root", "status": "in_progress", "goal": "Root", "createdAt": 1,
               "updatedAt": 1, "artifacts": [], "decisions": []}),
    );
    for i in 0..200 {
        let id = format!("old{i:04}");
        frames.insert(
            id.clone(),
            json!({"sessionID": id, "parentSessionID": "root", "status": "completed",
                   "goal": format!("Finished work item {i} ").repeat(4), "createdAt": 2 + i,
                   "updatedAt": 2 + i, "artifacts": [format!("src/item{i}.rs")],
                   "decisions": ["Keep it"], "compactionSummary": "Done. ".repeat(100),
                   "x-unknown": {"kept": [i, "verbatim"]}}),
        );
    }
    json!({"version": 1, "frames": frames, "activeFrameID": "root", "rootFrameIDs": ["root"],
           "updatedAt": 5, "x-top": true})
}

/// The state with every timestamp a command sets replaced by 0, so that the same command run
/// twice gives the same document.
fn masked(bytes: &[u8]) -> Value {
    let mut doc: Value = serde_json::from_slice(bytes).expect("valid JSON");
    doc["updatedAt"] = json!(0);
    for frame in doc["frames"].as_object_mut().unwrap().values_mut() {
        for key in ["createdAt", "updatedAt", "invalidatedAt"] {
            if frame.get(key).is_some() {
                frame[key] = json!(0);
            }
        }
    }
    doc
}

/// The next command: always valid on `state` (pop only targets a frame that is in_progress).
fn next_command(step: usize, state: &Value) -> Vec<String> {
    let open_frame = state["frames"]
        .as_object()
        .into_iter()
        .flatten()
        .find(|(id, f)| id.starts_with('k') && f["status"] == "in_progress")
        .map(|(id, _)| id.clone());
    let args: Vec<String> = match (step % 4, open_frame) {
        (1, _) => vec![
            "decision".into(),
            "--frame".into(),
            "root".into(),
            format!("decision {step}"),
        ],
        (2, Some(open)) => vec![
            "pop".into(),
            "--frame".into(),
            open,
            "--summary".into(),
            format!("summary {step}"),
        ],
        (3, _) => vec![
            "artifact".into(),
            "--frame".into(),
            "root".into(),
            format!("out/{step}.txt"),
        ],
        _ => vec![
            "push".into(),
            format!("goal {step}"),
            "--parent".into(),
            "root".into(),
            "--id".into(),
            format!("k{step:04}"),
        ],
    };
    std::iter::once("frame".to_string()).chain(args).collect()
}

/// `.tmp` files in `dir`.
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "tmp"))
                .collect()
        })
        .unwrap_or_default()
}

fn all_temp_files(env: &TestEnv) -> Vec<PathBuf> {
    let mut files = temp_files(&env.path(".opencode/flame"));
    files.extend(temp_files(&env.path(".opencode/flame/logs")));
    files
}

fn run_to_end(env: &TestEnv, args: &[String]) -> Duration {
    let started = Instant::now();
    let out = env.std_command().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    started.elapsed()
}

#[test]
fn writers_killed_at_random_instants_leave_the_old_or_the_new_state() {
    let env = TestEnv::new();
    env.write(
        STATE,
        serde_json::to_string_pretty(&large_state()).unwrap() + "\n",
    );
    // A second project where the same command runs to its end: what "after" looks like.
    let shadow = TestEnv::new();
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut rng = Rng(seed);
    // How long a whole command takes here, measured on the shadow; kills land anywhere in it.
    shadow.write(STATE, std::fs::read(env.path(STATE)).unwrap());
    let mut duration = run_to_end(&shadow, &next_command(0, &Value::Null));
    let (mut completed, mut unchanged, mut changed, mut temps_seen) = (0, 0, 0, 0);

    let mut before = std::fs::read(env.path(STATE)).unwrap();
    let mut before_doc: Value = serde_json::from_slice(&before).unwrap();
    for step in 0..KILLS {
        let args = next_command(step, &before_doc);

        let delay = Duration::from_micros(rng.below(duration.as_micros() as u64 * 3 / 2 + 1));
        let mut child = env
            .std_command()
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        child.kill().unwrap(); // SIGKILL; a no-op error-free call if it already exited
        let status = child.wait().unwrap();
        if status.success() {
            completed += 1;
        }
        temps_seen += all_temp_files(&env).len();

        let after = std::fs::read(env.path(STATE)).unwrap();
        let context = format!("seed {seed}, step {step}, {args:?} killed after {delay:?}");
        let after_doc =
            check_state_bytes(&after).unwrap_or_else(|e| panic!("{context}: torn state: {e}"));
        if after == before {
            unchanged += 1;
            continue;
        }
        changed += 1;
        shadow.write(STATE, &before);
        duration = run_to_end(&shadow, &args);
        let expected = std::fs::read(shadow.path(STATE)).unwrap();
        assert_eq!(
            masked(&after),
            masked(&expected),
            "{context}: neither the state before nor the one after the command"
        );
        (before, before_doc) = (after, after_doc);
    }
    eprintln!(
        "{KILLS} kills (seed {seed}): {completed} commands had finished, {changed} changed the \
         state, {unchanged} left it as it was; {temps_seen} temp files seen right after a kill"
    );
    assert!(
        unchanged > 0 && changed > 0,
        "the kills never interrupted a command, or always did: the test proves nothing"
    );

    // Whatever the kills left behind, plus one temp file of each kind for certain.
    env.write(".opencode/flame/.state.json.0123456789abcdef.tmp", "{\"ver");
    env.write(
        ".opencode/flame/logs/.frame-root.md.0123456789abcdef.tmp",
        "# Fra",
    );
    assert!(!all_temp_files(&env).is_empty());
    // Only writers holding the lock write these files: the next writer of the state and the next
    // writer of a log (a pop) remove them at once.
    run_to_end(&env, &next_command(KILLS + 4, &Value::Null));
    let doc: Value = serde_json::from_slice(&std::fs::read(env.path(STATE)).unwrap()).unwrap();
    let pop = next_command(KILLS + 6, &doc);
    assert_eq!(pop[1], "pop");
    run_to_end(&env, &pop);
    assert_eq!(all_temp_files(&env), Vec::<PathBuf>::new());
    check_state_bytes(&std::fs::read(env.path(STATE)).unwrap()).unwrap();
}

#[test]
fn later_writers_remove_temp_files_of_the_state_and_of_logs_at_once() {
    let env = TestEnv::new();
    env.ok(&["frame", "push", "Root", "--id", "root"]);
    env.ok(&["frame", "push", "Child", "--id", "child"]);
    let state_temp = ".opencode/flame/.state.json.00112233aabbccdd.tmp";
    let log_temp = ".opencode/flame/logs/.frame-root.md.00112233aabbccdd.tmp";
    let unrelated = ".opencode/flame/logs/notes.tmp";
    for file in [state_temp, log_temp, unrelated] {
        env.write(file, "partial");
    }
    // Only writers holding the lock write these files: the next writer knows their writers died.
    // Every writer removes the state's; the log folder, which grows with every pop, is read by
    // the next writer of a log.
    env.ok(&["frame", "decision", "--frame", "root", "one"]);
    assert!(!env.path(state_temp).exists());
    assert!(env.path(log_temp).exists());
    env.ok(&["frame", "pop", "--frame", "child", "--summary", "Done"]);
    assert!(!env.path(log_temp).exists());
    // Only ctx's own temp names are removed.
    assert!(env.path(unrelated).exists());
}

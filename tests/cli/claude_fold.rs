//! `ctx claude hook SessionEnd`: the session's transcript folded for `--continue` / `--resume`.

use serde_json::{Value, json};

use crate::common::TestEnv;

const SESSION: &str = "d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b";
const FRAME: &str = "cc_d8b237b6-eaf2-4cf3-b16a-9202c9ddbd2b";

fn hook(env: &TestEnv, event: &str, input: &Value, extra_env: &[(&str, &str)]) {
    let mut cmd = env.ctx();
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd
        .args(["claude", "hook", event])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
}

fn call(uuid: &str, parent: &str, message: &str, id: &str, command: &str, time: &str) -> String {
    json!({
        "type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
        "version": "2.1.328", "timestamp": time, "requestId": format!("req_{message}"),
        "message": { "id": message, "role": "assistant", "model": "claude-opus-5-5",
            "usage": { "input_tokens": 1000, "output_tokens": 10, "cache_read_input_tokens": 50, "cache_creation_input_tokens": 5 },
            "content": [{ "type": "tool_use", "id": id, "name": "Bash", "input": { "command": command } }] },
    })
    .to_string()
}

fn result(uuid: &str, parent: &str, id: &str, text: &str, time: &str) -> String {
    json!({
        "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": SESSION,
        "version": "2.1.328", "timestamp": time,
        "message": { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": id, "content": text }] },
        "toolUseResult": { "stdout": text, "stderr": "" },
    })
    .to_string()
}

/// A session whose model pushed a frame through Bash, ran a command with a large output and
/// popped it, as Claude Code writes it; the frames in state.json as ctx made them.
pub(crate) fn session(env: &TestEnv) -> (std::path::PathBuf, String) {
    session_with(env, SESSION)
}

/// `session`, for the Claude Code session `id`.
fn session_with(env: &TestEnv, id: &str) -> (std::path::PathBuf, String) {
    let dir = env.home.join(".claude/projects/-x-billing");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join(format!("{id}.jsonl"));
    hook(
        env,
        "UserPromptSubmit",
        &json!({ "session_id": id, "prompt": "Refunds", "transcript_path": transcript }),
        &[],
    );
    let session_frame = format!("cc_{id}");
    let push = env
        .ctx()
        .env("CTX_SESSION", &session_frame)
        .args(["frame", "push", "--", "Refund work"])
        .output()
        .unwrap();
    let frame = String::from_utf8(push.stdout).unwrap().trim().to_string();
    env.ctx()
        .env("CTX_SESSION", &session_frame)
        .args(["frame", "pop", "--summary", "Refunds done"])
        .assert()
        .success();
    let big = "BIG_OUTPUT ".repeat(2000);
    let lines = [
        json!({ "type": "user", "uuid": "a", "parentUuid": null, "sessionId": SESSION, "version": "2.1.328",
                "timestamp": "2026-11-25T10:00:00.000Z", "message": { "role": "user", "content": "Refunds" } })
        .to_string(),
        call("b", "a", "m1", "p1", "ctx frame push -- 'Refund work'", "2026-11-25T10:00:01.000Z"),
        result("c", "b", "p1", &format!("{frame}\n"), "2026-11-25T10:00:02.000Z"),
        call("d", "c", "m2", "t1", "cat big.txt", "2026-11-25T10:00:03.000Z"),
        result("e", "d", "t1", &big, "2026-11-25T10:00:04.000Z"),
        call("f", "e", "m3", "q1", "ctx frame pop --summary 'Refunds done'", "2026-11-25T10:00:05.000Z"),
        result("g", "f", "q1", &format!("{FRAME}\n"), "2026-11-25T10:00:06.000Z"),
        json!({ "type": "assistant", "uuid": "h", "parentUuid": "g", "sessionId": SESSION, "version": "2.1.328",
                "timestamp": "2026-11-25T10:00:07.000Z", "requestId": "req_m4",
                "message": { "id": "m4", "role": "assistant", "model": "claude-opus-5-5",
                    "usage": { "input_tokens": 9000, "output_tokens": 3 },
                    "content": [{ "type": "text", "text": "Done." }] } })
        .to_string(),
    ];
    std::fs::write(&transcript, (lines.join("\n") + "\n").replace(SESSION, id)).unwrap();
    (transcript, frame)
}

pub(crate) fn end(env: &TestEnv, transcript: &std::path::Path, extra_env: &[(&str, &str)]) {
    hook(
        env,
        "SessionEnd",
        &json!({ "session_id": transcript.file_stem().unwrap().to_str().unwrap(),
                 "transcript_path": transcript, "reason": "other", "cwd": env.root }),
        extra_env,
    );
}

/// The folded pop's result: what `--continue` sends in place of the frame's span.
pub(crate) fn folded_result(transcript: &std::path::Path) -> Value {
    std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r.get("ctxFolded").is_some())
        .unwrap()["message"]["content"][0]["content"]
        .clone()
}

fn spent_by_session(env: &TestEnv, source: &std::path::Path) -> Value {
    let doc: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "budget",
        "spent",
        "--by",
        "session",
        "--source",
        source.to_str().unwrap(),
    ]))
    .unwrap();
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["key"], r["total"]["tokens"]]))
        .collect()
}

fn kept_originals(transcript: &std::path::Path) -> Vec<std::path::PathBuf> {
    let dir = transcript.with_extension("");
    let mut kept: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    kept.sort();
    kept
}

#[test]
fn a_session_end_folds_each_popped_frame_and_keeps_the_original() {
    let env = TestEnv::new();
    let (transcript, frame) = session(&env);
    let original = std::fs::read_to_string(&transcript).unwrap();
    let projects = env.home.join(".claude/projects");
    let before = spent_by_session(&env, &projects);
    end(&env, &transcript, &[]);
    let folded = std::fs::read_to_string(&transcript).unwrap();
    assert!(!folded.contains("BIG_OUTPUT"), "{folded}");
    // Short, as it is in every later request: the log's path from the session's folder.
    assert_eq!(
        folded_result(&transcript),
        format!(
            "[ctx] Frame {frame} (Refund work) completed, folded; its log: \
             .opencode/flame/logs/frame-{frame}.md\nSummary: Refunds done"
        )
    );
    let uuids: Vec<String> = folded
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["uuid"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(uuids, ["a", "f", "g", "h"]);
    let kept = kept_originals(&transcript);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read_to_string(&kept[0]).unwrap(), original);
    // Cost stays right: the responses folded away are counted once, from the original.
    assert_eq!(spent_by_session(&env, &projects), before);
    // One session in Claude Code's list: one transcript at the top of the project's folder.
    let top: Vec<_> = std::fs::read_dir(transcript.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(top.len(), 1);
    // A second end changes nothing.
    end(&env, &transcript, &[]);
    assert_eq!(std::fs::read_to_string(&transcript).unwrap(), folded);
    assert_eq!(kept_originals(&transcript).len(), 1);
    assert!(!env.path(".opencode/flame/claude-hooks.log").exists());
}

#[test]
fn sessions_match_ccusage_after_a_fold() {
    let Some(ccusage) = crate::common::ccusage() else {
        return;
    };
    let env = TestEnv::new();
    let (transcript, _) = session(&env);
    let run = || {
        crate::common::ccusage_json(
            &ccusage,
            &["session", "--json", "--offline"],
            &[
                ("CLAUDE_CONFIG_DIR", &env.home.join(".claude")),
                ("HOME", &env.home),
            ],
        )["session"]
            .clone()
    };
    let before = run();
    end(&env, &transcript, &[]);
    assert_eq!(kept_originals(&transcript).len(), 1);
    let after = run();
    let totals = |rows: &Value| -> Vec<Value> {
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                json!([
                    r["period"],
                    r["inputTokens"],
                    r["outputTokens"],
                    r["cacheReadTokens"],
                    r["cacheCreationTokens"]
                ])
            })
            .collect()
    };
    assert_eq!(totals(&after), totals(&before));
}

#[test]
fn what_cannot_be_folded_safely_is_left_alone_with_a_log_line() {
    let env = TestEnv::new();
    let (transcript, _) = session(&env);
    let original = std::fs::read_to_string(&transcript).unwrap();
    let log = env.path(".opencode/flame/claude-hooks.log");
    let last_log = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .last()
            .unwrap_or("")
            .to_string()
    };
    let unchanged = |why: &str| {
        assert_eq!(
            std::fs::read_to_string(&transcript).unwrap(),
            original,
            "{why}"
        );
        assert!(kept_originals(&transcript).is_empty(), "{why}");
    };
    // Turned off.
    end(&env, &transcript, &[("CTX_CLAUDE_FOLD", "off")]);
    unchanged("claude.fold = off");
    // A line that is not JSON (a write cut short).
    std::fs::write(&transcript, format!("{original}{{\"type\":\"assis\n")).unwrap();
    end(&env, &transcript, &[]);
    assert!(
        last_log().contains("is not a JSON object"),
        "{}",
        last_log()
    );
    // A transcript refused makes nothing in Claude Code's folder.
    assert!(!transcript.with_extension("").exists());
    assert!(
        std::fs::read_to_string(&transcript)
            .unwrap()
            .ends_with("{\"type\":\"assis\n")
    );
    std::fs::write(&transcript, &original).unwrap();
    // A pop with no push.
    let no_push: Vec<&str> = original
        .lines()
        .enumerate()
        .filter(|(n, _)| !matches!(n, 1 | 2))
        .map(|(_, l)| l)
        .collect();
    std::fs::write(&transcript, no_push.join("\n") + "\n").unwrap();
    end(&env, &transcript, &[]);
    assert!(last_log().contains("has no push"), "{}", last_log());
    std::fs::write(&transcript, &original).unwrap();
    // A link, and a file outside Claude Code's folder.
    let outside = env.temp().join(format!("{SESSION}.jsonl"));
    std::fs::write(&outside, &original).unwrap();
    end(&env, &outside, &[]);
    assert!(
        last_log().contains("not below Claude Code's projects folder"),
        "{}",
        last_log()
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), original);
    let link = transcript.with_file_name("link.jsonl");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    end(&env, &link, &[]);
    assert!(last_log().contains("symbolic link"), "{}", last_log());
    std::fs::remove_file(&link).unwrap();
    // A version ctx does not know.
    std::fs::write(&transcript, original.replace("2.1.328", "3.0.0")).unwrap();
    end(&env, &transcript, &[]);
    assert!(
        last_log().contains("a version ctx does not know"),
        "{}",
        last_log()
    );
    std::fs::write(&transcript, &original).unwrap();
    // A broken state file.
    let state = env.path(".opencode/flame/state.json");
    let good_state = std::fs::read_to_string(&state).unwrap();
    std::fs::write(&state, "{\"version\": 1, \"frames\": ").unwrap();
    end(&env, &transcript, &[]);
    assert!(last_log().contains("state.json"), "{}", last_log());
    unchanged("a broken state file");
    std::fs::write(&state, good_state).unwrap();
    // Another fold of the same transcript running.
    let lock = transcript.with_extension("").join("ctx-fold.lock");
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .unwrap();
    held.lock().unwrap();
    end(&env, &transcript, &[]);
    assert!(
        last_log().contains("another fold of it is running"),
        "{}",
        last_log()
    );
    unchanged("a fold running");
    drop(held);
    // A span that holds a compaction.
    let compacted: Vec<String> = original
        .lines()
        .enumerate()
        .flat_map(|(n, l)| {
            let mut out = vec![l.to_string()];
            if n == 4 {
                out.push(
                    json!({ "type": "system", "subtype": "compact_boundary", "uuid": "k",
                            "parentUuid": "e", "version": "2.1.328" })
                    .to_string(),
                );
            }
            out
        })
        .collect();
    let compacted = compacted.join("\n") + "\n";
    std::fs::write(&transcript, &compacted).unwrap();
    end(&env, &transcript, &[]);
    assert!(last_log().contains("holds a compaction"), "{}", last_log());
    assert_eq!(std::fs::read_to_string(&transcript).unwrap(), compacted);
    assert!(kept_originals(&transcript).is_empty());
    std::fs::write(&transcript, &original).unwrap();
    // The project's folder a link to a folder outside Claude Code's.
    let elsewhere = env.temp().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join(format!("{SESSION}.jsonl")), &original).unwrap();
    let linked = env.home.join(".claude/projects/-x-linked");
    std::os::unix::fs::symlink(&elsewhere, &linked).unwrap();
    end(&env, &linked.join(format!("{SESSION}.jsonl")), &[]);
    assert!(
        last_log().contains("not below Claude Code's projects folder"),
        "{}",
        last_log()
    );
    assert_eq!(
        std::fs::read_to_string(elsewhere.join(format!("{SESSION}.jsonl"))).unwrap(),
        original
    );
    // A transcript of 100 MB (here a sparse one: refused by its size, before a byte is read).
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&transcript)
        .unwrap();
    file.set_len(100 << 20).unwrap();
    end(&env, &transcript, &[]);
    assert!(last_log().contains("larger than 64 MiB"), "{}", last_log());
    assert_eq!(std::fs::metadata(&transcript).unwrap().len(), 100 << 20);
    assert!(
        std::fs::read(&transcript)
            .unwrap()
            .starts_with(original.as_bytes())
    );
    assert!(kept_originals(&transcript).is_empty());
}

/// Two sessions of one project ending at once each fold their own transcript; one session's end
/// run twice at once folds it once.
#[test]
fn sessions_ending_at_once_each_fold_once() {
    let env = TestEnv::new();
    let other = "0b6c5a1e-7f3d-4c2a-9e8b-1d2c3b4a5f60";
    let (first, _) = session(&env);
    let (second, _) = session_with(&env, other);
    let ends: Vec<_> = [&first, &second, &first]
        .iter()
        .map(|transcript| {
            let input = json!({ "session_id": transcript.file_stem().unwrap().to_str().unwrap(),
                                "transcript_path": transcript, "reason": "other", "cwd": env.root });
            let mut child = env
                .std_command()
                .args(["claude", "hook", "SessionEnd"])
                .stdin(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write as _;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.to_string().as_bytes())
                .unwrap();
            child
        })
        .collect();
    for mut child in ends {
        assert!(child.wait().unwrap().success());
    }
    for transcript in [&first, &second] {
        let folded = std::fs::read_to_string(transcript).unwrap();
        assert!(!folded.contains("BIG_OUTPUT"), "{folded}");
        assert!(folded.contains("Summary: Refunds done"), "{folded}");
        assert_eq!(kept_originals(transcript).len(), 1, "{transcript:?}");
    }
    // The second end of the first session found it folded, or being folded: nothing else.
    let log =
        std::fs::read_to_string(env.path(".opencode/flame/claude-hooks.log")).unwrap_or_default();
    assert!(
        log.lines()
            .all(|l| l.contains("another fold of it is running")
                || l.contains("still being written to")),
        "{log}"
    );
}

/// A session that ran in a folder below the project's root (or says nowhere) gets the log's whole
/// path: a path from the root would not lead there from where the model works.
#[test]
fn the_log_path_is_whole_when_the_session_ran_below_the_root() {
    for cwd in [Some("src"), None] {
        let env = TestEnv::new();
        let (transcript, frame) = session(&env);
        let mut input =
            json!({ "session_id": SESSION, "transcript_path": transcript, "reason": "other" });
        if let Some(cwd) = cwd {
            std::fs::create_dir_all(env.path(cwd)).unwrap();
            input["cwd"] = json!(env.path(cwd));
        }
        hook(&env, "SessionEnd", &input, &[]);
        let log = env
            .root
            .canonicalize()
            .unwrap()
            .join(format!(".opencode/flame/logs/frame-{frame}.md"));
        assert_eq!(
            folded_result(&transcript),
            format!(
                "[ctx] Frame {frame} (Refund work) completed, folded; its log: {}\nSummary: Refunds done",
                log.display()
            ),
            "{cwd:?}"
        );
    }
}

/// Claude Code (or a second process on the same session) appending while the session ends: every
/// line appended is afterwards in the transcript or in the kept original, the transcript is whole
/// lines, and a fold refused for it says why. Which of the two happens depends on the timing; what
/// is kept does not.
#[test]
fn lines_appended_while_the_session_ends_are_never_lost() {
    use std::io::Write as _;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let env = TestEnv::new();
    let (transcript, _) = session(&env);
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicUsize::new(0));
    let appender = {
        let (stop, written, path) = (stop.clone(), written.clone(), transcript.clone());
        std::thread::spawn(move || {
            // As Claude Code writes: the file opened by its path for each line (a bounded
            // number of them, which keeps the transcript small).
            while !stop.load(Ordering::SeqCst) && written.load(Ordering::SeqCst) < 5000 {
                let n = written.load(Ordering::SeqCst);
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                file.write_all(format!("{{\"type\":\"progress\",\"n\":{n}}}\n").as_bytes())
                    .unwrap();
                written.store(n + 1, Ordering::SeqCst);
            }
        })
    };
    while written.load(Ordering::SeqCst) == 0 {
        std::thread::yield_now();
    }
    end(&env, &transcript, &[]);
    stop.store(true, Ordering::SeqCst);
    appender.join().unwrap();
    let now = std::fs::read_to_string(&transcript).unwrap();
    for line in now.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    let mut everything = now.clone();
    for kept in kept_originals(&transcript) {
        everything.push_str(&std::fs::read_to_string(kept).unwrap());
    }
    for n in 0..written.load(Ordering::SeqCst) {
        assert!(
            everything.contains(&format!("{{\"type\":\"progress\",\"n\":{n}}}\n")),
            "line {n} lost"
        );
    }
    let log =
        std::fs::read_to_string(env.path(".opencode/flame/claude-hooks.log")).unwrap_or_default();
    if now.contains("BIG_OUTPUT") {
        assert!(log.contains("still being written to"), "{log}");
        assert!(kept_originals(&transcript).is_empty());
    } else {
        assert_eq!(kept_originals(&transcript).len(), 1);
    }
}

/// A transcript of two frames, pushed and popped through Bash with `first` and `second` as their
/// push and pop commands (`{}` is where the pop's output goes when a command names it), and a
/// command in each that prints a large output; the frames in state.json as ctx made them.
fn two_frames(
    env: &TestEnv,
    first: (&str, &str),
    second: (&str, &str),
) -> (std::path::PathBuf, [String; 2]) {
    let dir = env.home.join(".claude/projects/-x-billing");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join(format!("{SESSION}.jsonl"));
    hook(
        env,
        "UserPromptSubmit",
        &json!({ "session_id": SESSION, "prompt": "Refunds", "transcript_path": transcript }),
        &[],
    );
    let frames = ["Refund work", "Invoice work"].map(|goal| {
        let push = env
            .ctx()
            .env("CTX_SESSION", FRAME)
            .args(["frame", "push", "--", goal])
            .output()
            .unwrap();
        env.ctx()
            .env("CTX_SESSION", FRAME)
            .args(["frame", "pop", "--summary", "done"])
            .assert()
            .success();
        String::from_utf8(push.stdout).unwrap().trim().to_string()
    });
    let t = |s: u32| format!("2026-11-25T10:00:{s:02}.000Z");
    let mut lines = vec![
        json!({ "type": "user", "uuid": "a", "parentUuid": null, "sessionId": SESSION, "version": "2.1.328",
                "timestamp": t(0), "message": { "role": "user", "content": "Refunds" } })
        .to_string(),
    ];
    let mut parent = "a".to_string();
    for (n, ((push, pop), frame)) in [first, second].into_iter().zip(&frames).enumerate() {
        let at = 10 * n as u32;
        let u = |k: usize| format!("u{n}{k}");
        let pop_output = pop
            .split_once(" #=> ")
            .map_or(format!("{FRAME}\n"), |(_, out)| {
                out.replace("{frame}", frame)
            });
        let pop = pop.split_once(" #=> ").map_or(pop, |(pop, _)| pop);
        lines.extend([
            call(
                &u(1),
                &parent,
                &format!("m{n}1"),
                &format!("p{n}"),
                push,
                &t(at + 1),
            ),
            result(
                &u(2),
                &u(1),
                &format!("p{n}"),
                &format!("{frame}\n"),
                &t(at + 2),
            ),
            call(
                &u(3),
                &u(2),
                &format!("m{n}2"),
                &format!("t{n}"),
                "cat big.txt",
                &t(at + 3),
            ),
            result(
                &u(4),
                &u(3),
                &format!("t{n}"),
                &format!("BIG_OUTPUT_{n}"),
                &t(at + 4),
            ),
            call(
                &u(5),
                &u(4),
                &format!("m{n}3"),
                &format!("q{n}"),
                pop,
                &t(at + 5),
            ),
            result(&u(6), &u(5), &format!("q{n}"), &pop_output, &t(at + 6)),
        ]);
        parent = u(6);
    }
    std::fs::write(&transcript, lines.join("\n") + "\n").unwrap();
    (transcript, frames)
}

#[test]
fn a_frame_that_cannot_fold_is_a_log_line_and_the_others_still_fold() {
    let env = TestEnv::new();
    let (transcript, frames) = two_frames(
        &env,
        // Its pop names its frame by a variable: only that frame is left as it is.
        (
            "ctx frame push -- 'Refund work'",
            "ctx frame pop --frame \"$F\" --summary done",
        ),
        (
            "ctx frame push -- 'Invoice work'",
            "ctx frame pop --summary done",
        ),
    );
    end(&env, &transcript, &[]);
    let folded = std::fs::read_to_string(&transcript).unwrap();
    assert!(folded.contains("BIG_OUTPUT_0"), "the first frame stays");
    assert!(
        !folded.contains("BIG_OUTPUT_1"),
        "the second folds: {folded}"
    );
    assert_eq!(kept_originals(&transcript).len(), 1);
    let log = crate::common::hook_log_lines(&env.path(".opencode/flame/claude-hooks.log"));
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].ends_with(&format!(
            "{SESSION}.jsonl: frame {}, pushed at line 2, left unfolded: the pop at line 6 names \
             its frame by what only a shell can read",
            frames[0]
        )),
        "{log:?}"
    );
}

#[test]
fn a_push_ended_by_a_separator_or_a_parenthesis_folds() {
    for (first, second) in [
        (
            "ctx frame push -- 'Refund work'; ls",
            "(ctx frame push -- 'Invoice work')",
        ),
        (
            "ctx frame push -- 'Refund work'&&ls",
            "ctx frame push -- 'Invoice work'|cat",
        ),
    ] {
        let env = TestEnv::new();
        let (transcript, _) = two_frames(
            &env,
            (first, "ctx frame pop --summary done"),
            (second, "ctx frame pop --summary done"),
        );
        end(&env, &transcript, &[]);
        let folded = std::fs::read_to_string(&transcript).unwrap();
        assert!(
            !folded.contains("BIG_OUTPUT_0") && !folded.contains("BIG_OUTPUT_1"),
            "{first} / {second}: {folded}"
        );
        assert!(!env.path(".opencode/flame/claude-hooks.log").exists());
    }
}

#[test]
fn a_json_pop_and_an_echo_of_frame_pop_are_read_for_what_they_are() {
    let env = TestEnv::new();
    let doc = r#"{"version":1,"frame":{"id":"{frame}","status":"completed"},"current":"cc_x"}"#;
    let (transcript, _) = two_frames(
        &env,
        (
            "ctx frame push -- 'Refund work'",
            &format!("ctx --json frame pop --summary done #=> {doc}"),
        ),
        (
            "ctx frame push -- 'Invoice work'",
            &format!(
                "echo frame pop is next && ctx frame pop --summary done #=> frame pop is next\n{FRAME}"
            ),
        ),
    );
    end(&env, &transcript, &[]);
    let folded = std::fs::read_to_string(&transcript).unwrap();
    assert!(
        !folded.contains("BIG_OUTPUT_0") && !folded.contains("BIG_OUTPUT_1"),
        "{folded}"
    );
    assert!(!env.path(".opencode/flame/claude-hooks.log").exists());
}

//! `ctx budget spent`: what each frame cost, from databases a real OpenCode 1.18.33 wrote
//! (tests/fixtures/spent/make.sh), read without ever writing to them.

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use serde_json::Value;

use crate::common::TestEnv;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/spent");
const ROOT: &str = "ses_dec359d7dffe9FALhO6N5ohifT";
const SUB_A: &str = "ses_dec35872effer3ynrE7c0iDpg1";
const SUB_B: &str = "ses_dec357306ffeyv2P8AzV5dwMkQ";
const OTHER: &str = "ses_dec354f5cffeWC01zpKgsKZxg1";
const REFUND_WORK: &str = "fr_80gej0r7p67h";
const CHECK_SIGNATURES: &str = "fr_ppzmefzfhmbv";

/// A project holding the fixture's frames, and a copy of its database in `data/opencode/`.
fn fixture() -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    env.write(
        ".opencode/flame/state.json",
        std::fs::read(format!("{FIXTURE}/project/.opencode/flame/state.json")).unwrap(),
    );
    let data = env.home.join("data/opencode");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("opencode.db");
    std::fs::copy(format!("{FIXTURE}/opencode-1.18.33.db"), &db).unwrap();
    (env, db)
}

fn spent(env: &TestEnv, db: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["budget", "spent", "--source", db.to_str().unwrap()];
    args.extend_from_slice(extra);
    env.run(&args)
}

fn json(env: &TestEnv, db: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    let out = spent(env, db, &args);
    assert!(
        matches!(out.status.code(), Some(0 | 6)),
        "{}",
        env.render(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn row<'a>(doc: &'a Value, key: &str) -> &'a Value {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == key)
        .unwrap_or_else(|| panic!("no row {key} in {doc:#}"))
}

fn close(a: &Value, b: f64) -> bool {
    (a.as_f64().unwrap() - b).abs() < 1e-9
}

/// The files of a folder with their bytes, to prove a read left them alone.
fn snapshot_dir(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().to_string(), bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn frames_own_their_sessions_and_spans_and_roll_up_subagents() {
    let (env, db) = fixture();
    let out = spent(&env, &db, &[]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  FRAME (with everything below it)
      $0.2486+?  104.7k  → Done. The change is in place and the test… (ses_dec359d7)
        $0.1444   55.1k    ✓ Refund work (fr_80gej)
        $0.0870   36.0k      ✓ Audit refunds (@general subagent) (ses_dec35872)
        $0.0392   20.1k        ✓ Check signatures (fr_ppzme)
        unknown    7.9k    ✓ Audit invoices (@cheap subagent) (ses_dec35730)
        $0.0231    7.7k  (in no frame)

    total: $0.2717+? · 112371 tokens · 12 calls
      input 96255, output 76, reasoning 40, cache read 16000, cache write 0
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    ");

    let doc = json(&env, &db, &[]);
    // Check signatures: the two calls of subagent A made between its push and its pop.
    let check = row(&doc, CHECK_SIGNATURES);
    assert!(
        close(&check["own"]["cost"], 0.01515 + 0.024021),
        "{check:#}"
    );
    assert_eq!(check["own"]["calls"], 2);
    assert_eq!(check["own"]["tokens"]["reasoning"], 20);
    assert_eq!(check["own"]["tokens"]["cache_read"], 8000);
    assert_eq!(check["link"], SUB_A);
    // Subagent A's frame: its other two calls, and Check signatures below.
    let sub_a = row(&doc, SUB_A);
    assert!(close(&sub_a["own"]["cost"], 0.02346 + 0.024321));
    assert!(close(&sub_a["total"]["cost"], 0.086952));
    // Refund work: the root session's two calls inside its span, and subagent A.
    let refund = row(&doc, REFUND_WORK);
    assert!(close(&refund["own"]["cost"], 0.028581 + 0.02889));
    assert!(close(&refund["total"]["cost"], 0.144423));
    // Subagent B ran on a model without a price: unknown, never $0.
    let sub_b = row(&doc, SUB_B);
    assert_eq!(sub_b["total"]["cost"], Value::Null);
    assert_eq!(sub_b["total"]["unpriced_calls"], 1);
    assert_eq!(sub_b["total"]["tokens"]["total"], 7858);
    // The root: everything of the run; the other project's session is in no frame.
    let root = row(&doc, ROOT);
    assert!(close(&root["total"]["cost"], 0.161691 + 0.086952));
    assert_eq!(root["total"]["unpriced_calls"], 1);
    assert!(close(&doc["unattributed"]["cost"], 0.023064));
    assert!(close(&doc["total"]["cost"], 0.161691 + 0.086952 + 0.023064));
    assert_eq!(doc["total"]["tokens"]["total"], 112_371);
    assert_eq!(doc["problems"], serde_json::json!([]));
}

#[test]
fn a_database_is_read_without_a_byte_or_a_file_written_beside_it() {
    let (env, db) = fixture();
    let before = snapshot_dir(db.parent().unwrap());
    spent(&env, &db, &[]);
    spent(&env, &db, &["--by", "session"]);
    assert_eq!(snapshot_dir(db.parent().unwrap()), before);
}

#[test]
fn the_default_source_is_opencodes_data_directory() {
    let (env, db) = fixture();
    let out = env
        .ctx()
        .env("XDG_DATA_HOME", db.parent().unwrap().parent().unwrap())
        .args(["budget", "spent", "--json", "--by", "session"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["rows"].as_array().unwrap().len(), 4);
    // $OPENCODE_DB, relative to the data directory, wins.
    let out = env
        .ctx()
        .env("XDG_DATA_HOME", db.parent().unwrap().parent().unwrap())
        .env("OPENCODE_DB", "elsewhere.db")
        .args(["budget", "spent"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("elsewhere.db"),
        "{}",
        env.render(&out)
    );
}

/// Kilo Code, an OpenCode fork, keeps OpenCode's tables in its own `kilo.db`: read by default
/// beside OpenCode's, and as a `--source` file or folder.
#[test]
fn kilo_codes_database_is_read_by_default_and_as_a_source() {
    let (env, db) = fixture();
    let data = db.parent().unwrap().parent().unwrap();
    std::fs::create_dir_all(data.join("kilo")).unwrap();
    let kilo = data.join("kilo/kilo.db");
    std::fs::rename(&db, &kilo).unwrap();
    let rows = |out: std::process::Output| {
        assert!(out.status.success(), "{}", env.render(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            doc["rows"].as_array().unwrap().len(),
            doc["sources"].clone(),
        )
    };
    let by_default = || {
        env.ctx()
            .env("XDG_DATA_HOME", data)
            .args(["budget", "spent", "--json", "--by", "session"])
            .output()
            .unwrap()
    };
    let (count, sources) = rows(by_default());
    assert_eq!(count, 4);
    assert_eq!(sources[0]["path"], kilo.display().to_string());
    assert_eq!(sources[0]["kind"], "opencode-db");
    for source in [kilo.clone(), data.join("kilo")] {
        let out = spent(&env, &source, &["--json", "--by", "session"]);
        assert_eq!(rows(out).0, 4, "{}", source.display());
    }
    // Beside OpenCode's, each is read; the same calls twice are counted once.
    std::fs::copy(&kilo, &db).unwrap();
    let (count, sources) = rows(by_default());
    assert_eq!(count, 4);
    assert_eq!(sources.as_array().unwrap().len(), 2);
}

#[test]
fn sessions_models_and_days() {
    let (env, db) = fixture();
    let out = spent(&env, &db, &["--by", "session"]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  SESSION (with its subagents)
      $0.2486+?  104.7k  Done. The change is in place and the tests … (ses_dec359d7)
        $0.0870   36.0k    Audit refunds (@general subagent) (ses_dec35872)
        unknown    7.9k    Audit invoices (@cheap subagent) (ses_dec35730)
        $0.0231    7.7k  Hello. (ses_dec354f5)

    total: $0.2717+? · 112371 tokens · 12 calls
      input 96255, output 76, reasoning 40, cache read 16000, cache write 0
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    ");
    let doc = json(&env, &db, &["--by", "session"]);
    let root = row(&doc, ROOT);
    assert!(close(&root["own"]["cost"], 0.161691));
    assert_eq!(root["link"], ROOT);
    assert_eq!(row(&doc, OTHER)["link"], Value::Null);
    assert_eq!(row(&doc, SUB_A)["parent"], ROOT);

    let doc = json(&env, &db, &["--by", "model"]);
    let keys: Vec<&str> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["mock/mock-1", "free/free-1"]);
    let doc = json(&env, &db, &["--by", "day"]);
    assert_eq!(doc["rows"][0]["key"], "2026-11-25");
}

#[test]
fn frame_session_and_time_selections() {
    let (env, db) = fixture();
    let doc = json(&env, &db, &["--frame", REFUND_WORK]);
    let keys: Vec<&str> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, [REFUND_WORK, SUB_A, CHECK_SIGNATURES]);
    assert!(close(&doc["total"]["cost"], 0.144423));
    assert_eq!(doc["unattributed"]["calls"], 0);

    let doc = json(&env, &db, &["--by", "session", "--session", &SUB_A[..10]]);
    assert_eq!(doc["session"], SUB_A);
    assert!(close(&doc["total"]["cost"], 0.086952));

    // Calls from 1795628366614 (Check signatures' push) to its pop at 1795628368075.
    let doc = json(
        &env,
        &db,
        &[
            "--since",
            "2026-11-25T17:39:26.614Z",
            "--until",
            "2026-11-25T17:39:28.075Z",
        ],
    );
    assert_eq!(doc["total"]["calls"], 2, "{doc:#}");
    assert!(close(&doc["total"]["cost"], 0.039171));
    let out = spent(&env, &db, &["--since", "last tuesday"]);
    assert_snapshot!(env.render(&out), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: --since "last tuesday": expected YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS]Z, or a span such as 12h or 7d
    "#);
}

#[test]
fn max_cost_is_an_exit_code_for_ci() {
    let (env, db) = fixture();
    let doc = json(&env, &db, &["--max-cost", "0.25"]);
    assert_eq!(
        doc["max_cost"],
        serde_json::json!({"limit": 0.25, "exceeded": true})
    );
    assert_eq!(
        spent(&env, &db, &["--max-cost", "0.25"]).status.code(),
        Some(6)
    );
    assert_eq!(
        spent(&env, &db, &["--max-cost", "$0.30"]).status.code(),
        Some(0)
    );
    assert_eq!(
        spent(
            &env,
            &db,
            &["--frame", CHECK_SIGNATURES, "--max-cost", "0.04"]
        )
        .status
        .code(),
        Some(0)
    );
    assert_eq!(
        spent(&env, &db, &["--max-cost", "-1"]).status.code(),
        Some(2)
    );
}

#[test]
fn a_call_recorded_at_zero_is_priced_from_the_models_dev_cache_and_marked() {
    let (env, db) = fixture();
    env.write(
        "../home/.cache/opencode/models.json",
        r#"{"free": {"models": {"free-1": {"limit": {"context": 1000, "output": 10},
            "cost": {"input": 1, "output": 2}}}}}"#,
    );
    let doc = json(&env, &db, &[]);
    let sub_b = row(&doc, SUB_B);
    // 7856 input at $1 and 2 output at $2 per million.
    assert!(
        close(&sub_b["total"]["cost"], (7856.0 + 4.0) / 1e6),
        "{sub_b:#}"
    );
    assert!(close(
        &sub_b["total"]["cost_estimated"],
        (7856.0 + 4.0) / 1e6
    ));
    assert_eq!(sub_b["total"]["unpriced_calls"], 0);
    let out = spent(&env, &db, &["--frame", SUB_B]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  FRAME (with everything below it)
       ~$0.0079    7.9k  ✓ Audit invoices (@cheap subagent) (ses_dec35730)

    total: ~$0.0079 · 7858 tokens · 1 calls
      input 7856, output 2, reasoning 0, cache read 0, cache write 0
    ~ priced by ctx from OpenCode's models.dev cache (the agent recorded 0)
    --- stderr
    ");
}

#[test]
fn a_span_recorded_on_the_frame_wins_over_times() {
    let (env, db) = fixture();
    // Check signatures' span: after the message holding the push call (msg_213ca79760…) up to
    // and including the one holding the bash call, not the pop: one call instead of two.
    let state = env.read(".opencode/flame/state.json");
    let mut state: Value = serde_json::from_str(&state).unwrap();
    state["frames"][CHECK_SIGNATURES]["opencodeSpan"] = serde_json::json!({
        "sessionID": SUB_A,
        "open": {"messageID": "msg_213ca79760013H33Lk0EgMB26A", "callID": "c1"},
        "close": {"messageID": "msg_213ca7b5e001ImKkk5z6jKDVdB", "callID": "c2"},
    });
    env.write(".opencode/flame/state.json", state.to_string());
    let doc = json(&env, &db, &[]);
    let check = row(&doc, CHECK_SIGNATURES);
    assert_eq!(check["own"]["calls"], 1);
    assert!(close(&check["own"]["cost"], 0.01515));
    // The rest stays with the subagent's frame: the roll-up is unchanged.
    assert!(close(&row(&doc, SUB_A)["total"]["cost"], 0.086952));
    // A running frame's span has no close yet: it runs to the session's last call.
    state["frames"][CHECK_SIGNATURES]["opencodeSpan"]
        .as_object_mut()
        .unwrap()
        .remove("close");
    env.write(".opencode/flame/state.json", state.to_string());
    let doc = json(&env, &db, &[]);
    assert_eq!(row(&doc, CHECK_SIGNATURES)["own"]["calls"], 3);
}

#[test]
fn a_subagent_without_a_frame_rolls_into_the_frame_that_ran_it() {
    let (env, db) = fixture();
    let state = env.read(".opencode/flame/state.json");
    let mut state: Value = serde_json::from_str(&state).unwrap();
    // As with `opencode.subagent_frames = "none"`: no frame for subagent A (nor its push).
    let frames = state["frames"].as_object_mut().unwrap();
    frames.remove(SUB_A);
    frames.remove(CHECK_SIGNATURES);
    env.write(".opencode/flame/state.json", state.to_string());
    let doc = json(&env, &db, &[]);
    // Subagent A was created while Refund work ran in the root session.
    let refund = row(&doc, REFUND_WORK);
    assert!(close(&refund["own"]["cost"], 0.144423), "{refund:#}");
}

/// Runs SQL on a copy of the fixture (the test's own file, never the fixture).
fn edit(db: &Path, sql: &str) {
    let connection = rusqlite::Connection::open(db).unwrap();
    connection.execute_batch(sql).unwrap();
    connection
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
}

#[test]
fn bad_records_are_named_and_the_rest_is_reported() {
    let (env, db) = fixture();
    edit(
        &db,
        &format!(
            "UPDATE message SET data = '{{not json' WHERE id = 'msg_213ca9623001277IW1sKBKsSTC';
             UPDATE message SET data = json_set(data, '$.cost', -1) WHERE id = 'msg_213ca8f00001I6uTuodDcDVOmi';
             UPDATE message SET data = json_set(data, '$.cost', json('null')) WHERE id = 'msg_213ca8bf00018umagvWvyDtTKn';
             UPDATE session SET parent_id = 'ses_gone' WHERE id = '{OTHER}';
             UPDATE session SET parent_id = '{SUB_B}' WHERE id = '{ROOT}';"
        ),
    );
    let out = spent(&env, &db, &["--by", "session"]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  SESSION (with its subagents)
      $0.1596+?   94.7k  Audit invoices (@cheap subagent) (ses_dec35730)
      $0.1596+?   86.8k    Done. The change is in place and the test… (ses_dec359d7)
        $0.0870   36.0k      Audit refunds (@general subagent) (ses_dec35872)
        $0.0231    7.7k  Hello. (ses_dec354f5)

    total: $0.1826+? · 102376 tokens · 11 calls
      input 86261, output 75, reasoning 40, cache read 16000, cache write 0
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    warning: message msg_213ca8bf00018umagvWvyDtTKn: cost null is not a price; counted as not recorded
    warning: message msg_213ca8f00001I6uTuodDcDVOmi: cost -1 is not a price; counted as not recorded
    warning: message msg_213ca9623001277IW1sKBKsSTC: its data is not a message's JSON (key must be a string at line 1 column 2); skipped
    warning: session ses_dec354f5cffeWC01zpKgsKZxg1: its parent session ses_gone is not in the records; counted as a root
    warning: session ses_dec357306ffeyv2P8AzV5dwMkQ: its parent sessions loop back to it; counted as a root
    ");
}

#[test]
fn a_database_from_a_newer_opencode_with_more_columns_and_tables_is_read() {
    let (env, db) = fixture();
    edit(
        &db,
        "ALTER TABLE message ADD COLUMN seq integer;
         ALTER TABLE session ADD COLUMN workspace_v3 text;
         CREATE TABLE session_v3 (id text PRIMARY KEY, body blob);",
    );
    let doc = json(&env, &db, &[]);
    assert!(close(&doc["total"]["cost"], 0.271707));
    // A table it needs that is gone is an error naming the file.
    edit(&db, "DROP TABLE message;");
    let out = spent(&env, &db, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = env
        .filter(&String::from_utf8_lossy(&out.stderr))
        .replace(env.home.to_str().unwrap(), "[HOME]");
    assert!(err.starts_with("error: [HOME]/data/opencode/opencode.db: not an OpenCode database: it has no table \"message\""), "{err}");
}

#[test]
fn files_that_are_not_records_are_refused() {
    let (env, _) = fixture();
    env.write("notes.txt", "hello");
    let out = env.run(&["budget", "spent", "--source", "notes.txt"]);
    assert_snapshot!(env.render(&out), @r"
    exit: 1
    --- stdout
    --- stderr
    error: notes.txt: neither an OpenCode database nor an export: expected value at line 1 column 1
    ");
    env.write(
        "broken.db",
        b"SQLite format 3\0and then nothing useful at all".repeat(40),
    );
    let out = env.run(&["budget", "spent", "--source", "broken.db"]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: broken.db: "));
    let out = env.run(&["budget", "spent", "--source", "missing.db"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A connection that holds `db` open in WAL mode, as a running OpenCode does, having set one
/// message's cost to `cost` in a page not yet checkpointed.
fn running_opencode(db: &std::path::Path, cost: f64) -> rusqlite::Connection {
    let writer = rusqlite::Connection::open(db).unwrap();
    writer
        .execute_batch(&format!(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
             UPDATE message SET data = json_set(data, '$.cost', {cost:?}) WHERE id = 'msg_213cabe17001UEG5A3U8LtnWjG';"
        ))
        .unwrap();
    writer
}

/// A writer holding the database open in WAL mode with pages not yet checkpointed, as a running
/// OpenCode does: ctx sees them, writes nothing, and the writer goes on writing.
#[test]
fn a_running_opencode_is_read_through_its_wal_and_never_blocked() {
    let (env, db) = fixture();
    let writer = running_opencode(&db, 1.0);
    let dir = db.parent().unwrap();
    assert!(dir.join("opencode.db-wal").exists() && dir.join("opencode.db-shm").exists());
    let main_file = std::fs::read(&db).unwrap();
    let doc = json(&env, &db, &["--by", "session"]);
    assert!(close(&row(&doc, OTHER)["own"]["cost"], 1.0), "{doc:#}");
    assert_eq!(std::fs::read(&db).unwrap(), main_file);
    // A read transaction held open by ctx's kind of reader never stops a write.
    writer
        .execute_batch("UPDATE session SET title = 'still writing' WHERE id = 'ses_dec354f5cffeWC01zpKgsKZxg1';")
        .unwrap();
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
}

/// A `-wal` left without its `-shm` (OpenCode killed), with a torn frame at its end: read from a
/// temporary copy, the committed part counted, nothing written beside the original.
#[test]
fn a_half_written_wal_without_its_index_is_read_from_a_copy() {
    let (env, db) = fixture();
    let dir = db.parent().unwrap();
    {
        let _writer = running_opencode(&db, 2.0);
        // Keep the WAL as a crash would: copy it before the connection checkpoints on close.
        std::fs::copy(dir.join("opencode.db-wal"), dir.join("saved-wal")).unwrap();
        std::fs::copy(&db, dir.join("saved-db")).unwrap();
    }
    std::fs::rename(dir.join("saved-db"), &db).unwrap();
    let mut wal = std::fs::read(dir.join("saved-wal")).unwrap();
    wal.extend_from_slice(&[0xAB; 3000]);
    std::fs::write(dir.join("opencode.db-wal"), &wal).unwrap();
    std::fs::remove_file(dir.join("saved-wal")).unwrap();
    let _ = std::fs::remove_file(dir.join("opencode.db-shm"));
    let before = snapshot_dir(dir);
    let doc = json(&env, &db, &["--by", "session"]);
    assert!(close(&row(&doc, OTHER)["own"]["cost"], 2.0), "{doc:#}");
    assert_eq!(snapshot_dir(dir), before);
}

/// A database in rollback-journal mode whose writer holds its lock: ctx waits 2 s, then says so.
#[test]
fn a_locked_database_is_an_error_that_says_so() {
    let (env, db) = fixture();
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer
        .execute_batch(
            "PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE; UPDATE session SET title = 'x';",
        )
        .unwrap();
    let out = spent(&env, &db, &[]);
    let text = env
        .render(&out)
        .replace(env.home.to_str().unwrap(), "[HOME]");
    assert_snapshot!(text, @r"
    exit: 1
    --- stdout
    --- stderr
    error: [HOME]/data/opencode/opencode.db: database is locked
    hint: a running OpenCode holds a lock on it; try again in a moment (ctx never waits longer than 2 s, and never writes)
    ");
    writer.execute_batch("ROLLBACK;").unwrap();
}

/// Per session, every token figure of ctx's own figures equals ccusage's and the cost is within
/// 1e-9; a frame's total is the sum of ccusage's rows for its sessions.
#[test]
fn sessions_match_ccusage() {
    let Some(ccusage) = crate::common::ccusage() else {
        return;
    };
    let (env, db) = fixture();
    // ccusage opens the database for writing (it leaves -wal and -shm beside it): a copy.
    let theirs = env.temp().join("ccusage-data");
    std::fs::create_dir_all(theirs.join("opencode")).unwrap();
    std::fs::copy(&db, theirs.join("opencode/opencode.db")).unwrap();
    let peer = crate::common::ccusage_json(
        &ccusage,
        &["opencode", "session", "--json", "--offline"],
        &[("XDG_DATA_HOME", &theirs), ("HOME", &env.home)],
    );
    let doc = json(&env, &db, &["--by", "session"]);
    let peer_rows = peer["sessions"].as_array().unwrap();
    assert_eq!(peer_rows.len(), doc["rows"].as_array().unwrap().len());
    for theirs in peer_rows {
        let ours = &row(&doc, theirs["sessionId"].as_str().unwrap())["own"];
        let t = &ours["tokens"];
        let pairs = [
            ("inputTokens", &t["input"]),
            ("outputTokens", &t["output"]),
            ("cacheReadTokens", &t["cache_read"]),
            ("cacheCreationTokens", &t["cache_write"]),
            ("totalTokens", &t["total"]),
        ];
        for (key, value) in pairs {
            assert_eq!(&theirs[key], value, "{key} of {}", theirs["sessionId"]);
        }
        let cost = ours["cost"].as_f64().unwrap_or(0.0);
        assert!(
            (theirs["totalCost"].as_f64().unwrap() - cost).abs() < 1e-9,
            "{theirs:#} {ours:#}"
        );
    }
    // The root frame's total is the sum of ccusage's rows for the run's three sessions.
    let frames = json(&env, &db, &[]);
    let sum: f64 = peer_rows
        .iter()
        .filter(|r| [ROOT, SUB_A, SUB_B].contains(&r["sessionId"].as_str().unwrap()))
        .map(|r| r["totalCost"].as_f64().unwrap())
        .sum();
    assert!(close(&row(&frames, ROOT)["total"]["cost"], sum));
    let tokens: u64 = peer_rows
        .iter()
        .filter(|r| [ROOT, SUB_A, SUB_B].contains(&r["sessionId"].as_str().unwrap()))
        .map(|r| r["totalTokens"].as_u64().unwrap())
        .sum();
    assert_eq!(row(&frames, ROOT)["total"]["tokens"]["total"], tokens);
}

/// `ctx ARGS` reading the fixture's database as OpenCode's own (`$OPENCODE_DB`).
fn with_db(env: &TestEnv, db: &Path, args: &[&str]) -> std::process::Output {
    let out = env
        .ctx()
        .env("OPENCODE_DB", db)
        .args(args)
        .output()
        .unwrap();
    crate::schema::check_output(args, &out);
    out
}

#[test]
fn the_tree_show_and_flame_graph_carry_the_cost() {
    let (env, db) = fixture();
    let out = with_db(&env, &db, &["frame", "tree", "--cost"]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
     $0.2486+?  104.7k  → Done. The change is in place and the tests… (ses_dec359d7)
       $0.1444   55.1k  ├── ✓ Refund work (fr_80gej)
       $0.0870   36.0k  │   └── ✓ Audit refunds (@general subagent) (ses_dec35872)
       $0.0392   20.1k  │       └── ✓ Check signatures (fr_ppzme)
       unknown    7.9k  └── ✓ Audit invoices (@cheap subagent) (ses_dec35730)

    5 frames: 1 → in_progress, 4 ✓ completed
    --- stderr
    ");
    let out = with_db(&env, &db, &["frame", "tree", "--cost", "--json"]);
    let tree: Value = serde_json::from_slice(&out.stdout).unwrap();
    let refund = &tree["roots"][0]["children"][0];
    assert_eq!(refund["id"], REFUND_WORK);
    assert!(
        close(&refund["cost"]["total"]["cost"], 0.144423),
        "{refund:#}"
    );
    let plain: Value = serde_json::from_str(&env.ok(&["frame", "tree", "--json"])).unwrap();
    assert!(plain["roots"][0].get("cost").is_none());
    let out = with_db(
        &env,
        &db,
        &["frame", "show", REFUND_WORK, "--cost", "--json"],
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        close(&doc["cost"]["own"]["cost"], 0.028581 + 0.02889),
        "{doc:#}"
    );
    assert!(close(&doc["cost"]["total"]["cost"], 0.144423));
    let out = with_db(&env, &db, &["frame", "show", REFUND_WORK, "--cost"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("cost: $0.0575 own, $0.1444 with everything below\ntokens: 19.1k own, 55.1k with everything below\n"),
        "{text}"
    );
    let out = with_db(
        &env,
        &db,
        &["frame", "tree", "--format", "svg", "--weight", "cost"],
    );
    let svg = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", env.render(&out));
    assert!(svg.contains("cost of its model calls"), "{svg}");
    assert!(svg.contains("cost: $0.1444 with everything below"), "{svg}");
}

/// The session rows of a report, as (id, own figures).
fn session_figures(doc: &Value) -> Vec<(String, Value)> {
    let mut rows: Vec<(String, Value)> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["key"].as_str().unwrap().to_string(), r["own"].clone()))
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[test]
fn the_json_files_of_opencode_1_1_give_the_same_figures() {
    let (env, db) = fixture();
    let storage = format!("{FIXTURE}/storage");
    let from_db = json(&env, &db, &["--by", "session"]);
    let out = env.run(&[
        "budget", "spent", "--json", "--by", "session", "--source", &storage,
    ]);
    assert!(out.status.success(), "{}", env.render(&out));
    let from_files: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(from_files["sources"][0]["kind"], "opencode-storage");
    assert_eq!(session_figures(&from_files), session_figures(&from_db));
    // The data folder holding storage/ (and no opencode.db) is found as OpenCode 1.1's.
    let data = env.temp().join("old-data/opencode");
    std::fs::create_dir_all(&data).unwrap();
    let copy = std::process::Command::new("cp")
        .args(["-r", &storage, data.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(copy.success());
    std::fs::write(
        data.join("storage/message/ses_dec354f5cffeWC01zpKgsKZxg1/msg_bad.json"),
        "{",
    )
    .unwrap();
    let out = env
        .ctx()
        .env("XDG_DATA_HOME", data.parent().unwrap())
        .args(["budget", "spent", "--json", "--by", "session"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(session_figures(&doc), session_figures(&from_db));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("msg_bad.json: not JSON: EOF while parsing"),
        "{err}"
    );
}

#[test]
fn an_opencode_export_file_is_a_source() {
    let (env, db) = fixture();
    let export = format!("{FIXTURE}/export-audit-refunds.json");
    let out = env.run(&[
        "budget", "spent", "--json", "--by", "session", "--source", &export,
    ]);
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Its parent is not in the file: a root, and said so.
    assert_eq!(doc["problems"].as_array().unwrap().len(), 1, "{doc:#}");
    let from_db = json(&env, &db, &["--by", "session"]);
    assert_eq!(row(&doc, SUB_A)["own"], row(&from_db, SUB_A)["own"]);
    // Beside the database that holds the same session, it counts once.
    let both = json(&env, &db, &["--source", &export]);
    assert_eq!(both["total"], from_db["total"]);
    assert_eq!(both["problems"].as_array().unwrap().len(), 1, "{both:#}");
}

#[test]
fn a_project_without_frames_says_where_to_look() {
    let (env, db) = fixture();
    std::fs::remove_file(env.path(".opencode/flame/state.json")).unwrap();
    let out = spent(&env, &db, &[]);
    assert_snapshot!(env.render(&out), @r"
    exit: 0
    --- stdout
           COST  TOKENS  FRAME (with everything below it)
      $0.2717+?  112.4k  (in no frame)

    total: $0.2717+? · 112371 tokens · 12 calls
      input 96255, output 76, reasoning 40, cache read 16000, cache write 0
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    this project has no frames: every call is in no frame; --by session lists the sessions
    ");
}

/// The same database twice, and an export given before the database that holds its session:
/// each call is counted once, by its message id, and the repeat is said.
#[test]
fn overlapping_sources_count_each_call_once() {
    let (env, db) = fixture();
    let once = json(&env, &db, &["--by", "session"]);
    let db_path = db.to_str().unwrap();
    let twice = json(&env, &db, &["--by", "session", "--source", db_path]);
    assert_eq!(twice["total"], once["total"]);
    assert_eq!(twice["rows"], once["rows"]);
    assert_eq!(
        twice["problems"],
        serde_json::json!([format!(
            "{db_path}: 12 call(s) were read from another source already; counted once"
        )])
    );
    let export = format!("{FIXTURE}/export-audit-refunds.json");
    let out = env.run(&[
        "--json", "budget", "spent", "--by", "session", "--source", &export, "--source", db_path,
    ]);
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"], once["total"]);
    assert_eq!(row(&doc, SUB_A)["total"], row(&once, SUB_A)["total"]);
    // The export's session is the database's, with its parent: one row each, as from the database.
    assert_eq!(row(&doc, SUB_A)["parent"], ROOT);
    assert_eq!(doc["rows"].as_array().unwrap().len(), 4);
}

/// `opencode.db` as a symbolic link to a database that a running OpenCode writes: its `-wal` and
/// `-shm` lie beside the target, and are read there.
#[test]
fn a_linked_database_is_read_through_the_wal_beside_its_target() {
    let (env, db) = fixture();
    let writer = running_opencode(&db, 1.0);
    let linked = env.home.join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    let link = linked.join("opencode.db");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let doc = json(&env, &link, &["--by", "session"]);
    assert!(close(&row(&doc, OTHER)["own"]["cost"], 1.0), "{doc:#}");
    assert_eq!(doc["total"]["calls"], 12);
    assert_eq!(std::fs::read_dir(&linked).unwrap().count(), 1);
    drop(writer);
}

#[test]
fn a_session_title_that_is_not_utf8_is_a_warning_and_the_rest_is_reported() {
    let (env, db) = fixture();
    edit(
        &db,
        &format!("UPDATE session SET title = CAST(X'C328' AS TEXT) WHERE id = '{OTHER}';"),
    );
    let out = spent(&env, &db, &["--by", "session"]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  SESSION (with its subagents)
      $0.2486+?  104.7k  Done. The change is in place and the tests … (ses_dec359d7)
        $0.0870   36.0k    Audit refunds (@general subagent) (ses_dec35872)
        unknown    7.9k    Audit invoices (@cheap subagent) (ses_dec35730)
        $0.0231    7.7k  �( (ses_dec354f5)

    total: $0.2717+? · 112371 tokens · 12 calls
      input 96255, output 76, reasoning 40, cache read 16000, cache write 0
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    warning: session ses_dec354f5cffeWC01zpKgsKZxg1: its title is not UTF-8; read with U+FFFD in place of the bad bytes
    ");
}

/// Prices and counts no model call has: refused, named, and the text and the JSON agree.
#[test]
fn prices_and_token_counts_out_of_range_are_refused_and_said() {
    let (env, db) = fixture();
    // An absurd price: its calls are unpriced, in the text ("unknown") as in the JSON (null).
    env.write(
        "../home/.cache/opencode/models.json",
        r#"{"free": {"models": {"free-1": {"cost": {"input": 1e300, "output": 1e300}}}}}"#,
    );
    let out = spent(&env, &db, &["--by", "model", "--session", SUB_B]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  MODEL
        unknown    7.9k  free/free-1

    total: unknown · 7858 tokens · 1 calls
      input 7856, output 2, reasoning 0, cache read 0, cache write 0
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    warning: OpenCode's models.dev cache: free/free-1: input 1e+300 is not a price (0 to 1000000 USD per million tokens); its calls are counted as unpriced
    ");
    let doc = json(&env, &db, &["--session", SUB_B]);
    assert_eq!(doc["total"]["cost"], Value::Null);
    assert_eq!(doc["total"]["unpriced_calls"], 1);
    // A price of 0: an estimate like any other, marked so, in the same format.
    env.write(
        "../home/.cache/opencode/models.json",
        r#"{"free": {"models": {"free-1": {"cost": {"input": 0, "output": 0}}}}}"#,
    );
    let out = spent(&env, &db, &["--by", "model", "--session", SUB_B]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  MODEL
       ~$0.0000    7.9k  free/free-1

    total: ~$0.0000 · 7858 tokens · 1 calls
      input 7856, output 2, reasoning 0, cache read 0, cache write 0
    ~ priced by ctx from OpenCode's models.dev cache (the agent recorded 0)
    --- stderr
    ");
    let doc = json(&env, &db, &["--session", SUB_B]);
    assert_eq!(doc["total"]["estimated_calls"], 1);
    // A float count too large for any call, and counts whose sum would not fit: named, never
    // wrapped round.
    edit(
        &db,
        // json('1e30') puts the number's own text in: with the SQL literal 1e30 (a REAL), the
        // count read back was 1e30 in one run and the double just below it in another.
        "UPDATE message SET data = json_set(data, '$.tokens.input', json('1e30')) WHERE id = 'msg_213cabe17001UEG5A3U8LtnWjG';
         UPDATE message SET data = json_set(data, '$.tokens.output', 18446744073709551615) WHERE id = 'msg_213ca8f00001I6uTuodDcDVOmi';",
    );
    let doc = json(&env, &db, &[]);
    let problems: Vec<&str> = doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        problems,
        [
            "message msg_213ca8f00001I6uTuodDcDVOmi: output tokens 18446744073709600000 is not a count; taken as 0",
            "message msg_213cabe17001UEG5A3U8LtnWjG: input tokens 1000000000000000000000000000000 is not a count; taken as 0",
        ]
    );
    assert!(
        doc["total"]["tokens"]["total"].as_u64().unwrap() < 200_000,
        "{doc:#}"
    );
}

#[test]
fn since_after_until_is_refused() {
    let (env, db) = fixture();
    let out = spent(
        &env,
        &db,
        &["--since", "2026-11-26", "--until", "2026-11-25"],
    );
    assert_snapshot!(env.render(&out), @r#"
    exit: 1
    --- stdout
    --- stderr
    error: --since "2026-11-26" is later than --until "2026-11-25": no call can be in between
    "#);
}

/// Without OpenCode's database, the project's Claude Code transcripts and pi sessions, nor
/// Codex's sessions: the error says what was looked for, and where; `frame tree --cost` still
/// draws the tree.
#[test]
fn without_records_the_error_says_where_each_agent_was_looked_for() {
    let (env, _db) = fixture();
    let out = env.run(&["budget", "spent"]);
    let text = env.render(&out);
    let name = env
        .root
        .to_string_lossy()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    // pi's name for the project's folder: its path without the leading /, each / as -.
    let pi_name = env.root.to_string_lossy()[1..].replace('/', "-");
    let names = |text: String| {
        text.replace(&pi_name, "[PI-NAME]")
            .replace(&name, "[ROOT-NAME]")
    };
    assert_snapshot!(names(text), @"
    exit: 1
    --- stdout
    --- stderr
    error: no records of model calls: OpenCode's database [HOME]/.local/share/opencode/opencode.db does not exist; Kilo Code's database [HOME]/.local/share/kilo/kilo.db does not exist; Claude Code's transcripts of this project, [HOME]/.claude/projects/[ROOT-NAME], do not exist; pi's sessions of this project, [HOME]/.pi/agent/sessions/--[PI-NAME]--, do not exist; Codex's sessions, [HOME]/.codex/sessions, do not exist; Qwen Code's records of model calls, [HOME]/.qwen/usage, do not exist; GitHub Copilot CLI's sessions, [HOME]/.copilot/session-state, do not exist; Gemini CLI's sessions, [HOME]/.gemini/tmp, do not exist
    hint: give --source: an opencode.db or kilo.db, an `opencode export` file, OpenCode's storage/ folder, or a folder or file of session files of Claude Code, pi, Codex, Qwen Code, GitHub Copilot CLI or Gemini CLI
    ");
    let out = env.run(&["frame", "tree", "--cost"]);
    let text = env.render(&out);
    assert_snapshot!(names(text), @"
    exit: 0
    --- stdout
             -       0  → Done. The change is in place and the tests… (ses_dec359d7)
             -       0  ├── ✓ Refund work (fr_80gej)
             -       0  │   └── ✓ Audit refunds (@general subagent) (ses_dec35872)
             -       0  │       └── ✓ Check signatures (fr_ppzme)
             -       0  └── ✓ Audit invoices (@cheap subagent) (ses_dec35730)

    5 frames: 1 → in_progress, 4 ✓ completed
    --- stderr
    warning: no records of model calls, so no costs: OpenCode's database [HOME]/.local/share/opencode/opencode.db does not exist; Kilo Code's database [HOME]/.local/share/kilo/kilo.db does not exist; Claude Code's transcripts of this project, [HOME]/.claude/projects/[ROOT-NAME], do not exist; pi's sessions of this project, [HOME]/.pi/agent/sessions/--[PI-NAME]--, do not exist; Codex's sessions, [HOME]/.codex/sessions, do not exist; Qwen Code's records of model calls, [HOME]/.qwen/usage, do not exist; GitHub Copilot CLI's sessions, [HOME]/.copilot/session-state, do not exist; Gemini CLI's sessions, [HOME]/.gemini/tmp, do not exist
    ");
}

const PI_FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/spent-pi");
const PI_AUDIT: &str = "pi_01a21b53-31b2-72a8-9f32-bda350814c2a";
const PI_HELLO: &str = "pi_01a21b53-3f67-7127-8c5a-53138dee81e1";
const PI_REFUND_WORK: &str = "fr_2dttee621rd7";
const CODEX_FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/spent-codex");
const CX_AUDIT: &str = "cx_01a21b54-45ac-7a03-9aad-85a3672622b1";
const CX_SUBAGENT: &str = "cx_01a21b54-46a5-7443-8c8d-477211acd08f";
const CX_HELLO: &str = "cx_01a21b54-500b-7a02-953d-22368e4204dd";
const CX_REFUND_WORK: &str = "fr_xdcanmgsa9tv";

/// A real Codex thread resumed once and forked once (tests/fixtures/spent-codex-fork): each call
/// once, with the thread that made it; the six are the `tokens used` Codex printed at the end.
#[test]
fn a_resumed_and_forked_codex_thread_counts_each_call_once_with_its_own_thread() {
    let env = TestEnv::new();
    let sessions =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spent-codex-fork/sessions");
    let doc = json(&env, &sessions, &["--by", "session"]);
    let rows: Vec<(String, u64, u64)> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                r["total"]["calls"].as_u64().unwrap(),
                r["total"]["tokens"]["total"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "cx_01a22613-4e2d-7f02-af7f-bca0da6efe0a".to_string(),
                4,
                4340
            ),
            (
                "cx_01a22613-7b42-7e92-83dc-d451b3934d05".to_string(),
                2,
                2170
            ),
        ]
    );
    assert_eq!(doc["total"]["tokens"]["total"], 6510);
    assert_eq!(doc["problems"], serde_json::json!([]));
}

/// A real Qwen Code 0.24.4 session (tests/fixtures/spent-qwen): a turn that ran a subagent, then a
/// second process (`--continue`) whose turn Qwen followed with a call of its own (its memory
/// extractor), which only its ledger holds. Each call once, priced by nothing here; the figures
/// are the session's totals in Qwen's own `usage_record.jsonl`.
#[test]
fn a_qwen_code_session_is_counted_from_its_ledger_as_qwen_totals_it() {
    let env = TestEnv::new();
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spent-qwen/.qwen");
    let session = "qw_b1998379-92c2-4e69-aeab-626455d593e2";
    let totals: Value = serde_json::from_str(
        std::fs::read_to_string(home.join("usage_record.jsonl"))
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    let qwen = &totals["models"]["mock-1"];
    for source in [home.clone(), home.join("usage")] {
        let doc = json(&env, &source, &["--by", "session"]);
        assert_eq!(
            doc["problems"],
            serde_json::json!([]),
            "{}",
            source.display()
        );
        let row = row(&doc, session);
        assert_eq!(row["total"]["calls"], qwen["requests"]);
        let tokens = &row["total"]["tokens"];
        assert_eq!(tokens["total"], qwen["totalTokens"]);
        assert_eq!(
            tokens["input"].as_u64().unwrap() + tokens["cache_read"].as_u64().unwrap(),
            qwen["inputTokens"].as_u64().unwrap()
        );
        assert_eq!(tokens["cache_read"], qwen["cachedTokens"]);
        assert_eq!(tokens["reasoning"], qwen["thoughtsTokens"]);
        assert_eq!(
            tokens["output"].as_u64().unwrap() + tokens["reasoning"].as_u64().unwrap(),
            qwen["outputTokens"].as_u64().unwrap()
        );
    }
    // The whole folder holds the session's transcript: its first prompt names it.
    let doc = json(&env, &home, &["--by", "session"]);
    assert_eq!(row(&doc, session)["label"], "Delegate the audit");
    assert_eq!(doc["total"]["calls"], 6);
}

/// Qwen Code's ledger is read by default (`$QWEN_HOME`, else `~/.qwen`), with the project's
/// sessions for their titles; a ledger line that is damaged is said, and the rest counted.
#[test]
fn qwen_codes_ledger_is_read_by_default_and_a_damaged_line_is_said() {
    let env = TestEnv::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spent-qwen/.qwen");
    let qwen_home = env.home.join("elsewhere");
    copy_dir(&fixture.join("usage"), &qwen_home.join("usage"));
    let project_name: String = env
        .root
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    copy_dir(
        &fixture.join("projects/-home-user-app/chats"),
        &qwen_home.join("projects").join(project_name).join("chats"),
    );
    let by_default = || {
        let out = env
            .ctx()
            .env("QWEN_HOME", &qwen_home)
            .args(["budget", "spent", "--json", "--by", "session"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", env.render(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let doc = by_default();
    let row = row(&doc, "qw_b1998379-92c2-4e69-aeab-626455d593e2");
    assert_eq!(
        (row["total"]["calls"].as_u64(), row["label"].as_str()),
        (Some(6), Some("Delegate the audit"))
    );
    let kinds: Vec<&str> = doc["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["qwen", "qwen"]);
    // A line cut short, and a count of the wrong type: said, and the other calls counted.
    let ledger = qwen_home.join("usage/token-usage-2026-11.jsonl");
    let text = std::fs::read_to_string(&ledger).unwrap();
    let text = text.replacen("\"outputTokens\":50", "\"outputTokens\":\"50\"", 1);
    std::fs::write(
        &ledger,
        format!("{text}{{\"schemaVersion\":1,\"id\":\"x\",\"sess\n"),
    )
    .unwrap();
    let doc = by_default();
    let problems = doc["problems"].to_string();
    assert!(
        problems.contains("outputTokens \\\"50\\\" is not a token count"),
        "{problems}"
    );
    assert!(problems.contains("1 line(s) are not JSON"), "{problems}");
    assert_eq!(doc["total"]["calls"], 6);
}

/// Copies the folder `from` to `to` (files and folders only).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// A project holding an agent fixture's frames, and a copy of its session files (returned).
fn agent_fixture(fixture: &str) -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    env.write(
        ".opencode/flame/state.json",
        std::fs::read(format!("{fixture}/project/.opencode/flame/state.json")).unwrap(),
    );
    let sessions = env.home.join("sessions");
    copy_dir(Path::new(&format!("{fixture}/sessions")), &sessions);
    (env, sessions)
}

/// The single session file of `dir` (below it) whose name holds `id`.
fn session_file(dir: &Path, id: &str) -> PathBuf {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().contains(id) {
                return path;
            }
        }
    }
    panic!("no file for {id} below {}", dir.display())
}

/// pi records each call's usage and cost: the report is pi's figures, each session on its frame
/// (`pi_<session id>`) and the calls between a push and its pop on the pushed frame.
#[test]
fn pi_sessions_are_read_and_attributed_to_their_frames() {
    let (env, sessions) = agent_fixture(PI_FIXTURE);
    let out = spent(&env, &sessions, &[]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  FRAME (with everything below it)
        $0.0103    6.4k  → pi session (pi_01a21b53-31)
        $0.0046    3.3k    ✓ Refund work (fr_2dtte)
        $0.0024     803  → pi session (pi_01a21b53-3f)

    total: $0.0128 · 7206 tokens · 5 calls
      input 3100, output 106, reasoning 0, cache read 3800, cache write 200
    --- stderr
    ");
    let doc = json(&env, &sessions, &[]);
    assert_eq!(doc["sources"][0]["kind"], "pi-sessions");
    // The push's call is before the push; the pop's call is inside the span.
    let refund = row(&doc, PI_REFUND_WORK);
    assert_eq!(refund["own"]["calls"], 2);
    assert_eq!(
        refund["own"]["tokens"],
        serde_json::json!({"input": 800, "output": 55, "reasoning": 0, "cache_read": 2200, "cache_write": 200, "total": 3255})
    );
    assert!(close(&refund["own"]["cost"], 0.00225 + 0.002385));
    let audit = row(&doc, PI_AUDIT);
    assert_eq!(audit["own"]["calls"], 2);
    assert_eq!(audit["total"]["tokens"]["total"], 6403);
    assert!(close(&audit["total"]["cost"], 0.010335));
    assert!(close(&audit["total"]["cost_recorded"], 0.010335));
    assert!(close(&row(&doc, PI_HELLO)["total"]["cost"], 0.002445));
    assert_eq!(doc["total"]["tokens"]["total"], 7206);
    assert_eq!(doc["unattributed"]["calls"], 0);
    assert_eq!(doc["problems"], serde_json::json!([]));

    let by_session = json(&env, &sessions, &["--by", "session"]);
    assert_eq!(
        row(&by_session, PI_AUDIT)["label"],
        "Audit the billing code"
    );
    assert_eq!(row(&by_session, PI_HELLO)["link"], PI_HELLO);
    // A session named by pi's own id, a prefix of it; and a time range: the two calls of the span.
    let one = json(&env, &sessions, &["--session", "01a21b53-3f"]);
    assert_eq!(one["session"], PI_HELLO);
    assert_eq!(one["total"]["calls"], 1);
    let span = json(
        &env,
        &sessions,
        &[
            "--since",
            "2026-11-27T04:46:07.000Z",
            "--until",
            "2026-11-27T04:46:08.100Z",
        ],
    );
    assert_eq!(span["total"]["calls"], 2, "{span:#}");
    assert_eq!(span["total"]["tokens"]["total"], 3255);
}

/// Codex records the usage of each response and no cost: tokens as OpenAI reports them (cached
/// input and reasoning output split out), a subagent under the thread that spawned it, rolled
/// into the frame that ran it.
#[test]
fn codex_sessions_are_read_and_attributed_to_their_frames() {
    let (env, sessions) = agent_fixture(CODEX_FIXTURE);
    let out = spent(&env, &sessions, &[]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  FRAME (with everything below it)
        unknown    8.7k  → Audit the billing code (cx_01a21)
        unknown    5.6k    ✓ Refund work (fr_xdcan)
        unknown     803  (in no frame)

    total: unknown · 9548 tokens · 7 calls
      input 3500, output 128, reasoning 20, cache read 5900, cache write 0
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    ");
    let doc = json(&env, &sessions, &[]);
    assert_eq!(doc["sources"][0]["kind"], "codex-sessions");
    let refund = row(&doc, CX_REFUND_WORK);
    // resp_2, resp_3 and resp_5 (the pop's), and the subagent's resp_4: it has no frame of its
    // own and started inside the span.
    assert_eq!(refund["own"]["calls"], 4);
    assert_eq!(
        refund["own"]["tokens"],
        serde_json::json!({"input": 1300, "output": 77, "reasoning": 20, "cache_read": 4200, "cache_write": 0, "total": 5597})
    );
    assert_eq!(refund["total"], refund["own"]);
    assert_eq!(refund["total"]["cost"], Value::Null);
    assert_eq!(refund["total"]["unpriced_calls"], 4);
    let audit = row(&doc, CX_AUDIT);
    assert_eq!(audit["own"]["tokens"]["total"], 1240 + 1908);
    assert_eq!(audit["total"]["tokens"]["total"], 8745);
    assert_eq!(doc["unattributed"]["tokens"]["total"], 803);
    assert_eq!(
        doc["total"]["tokens"],
        serde_json::json!({"input": 3500, "output": 128, "reasoning": 20, "cache_read": 5900, "cache_write": 0, "total": 9548})
    );
    assert_eq!(doc["problems"], serde_json::json!([]));

    let by_session = json(&env, &sessions, &["--by", "session"]);
    let sub = row(&by_session, CX_SUBAGENT);
    assert_eq!(sub["parent"], CX_AUDIT);
    assert_eq!(sub["label"], "Audit refunds alpha");
    assert_eq!(sub["link"], CX_REFUND_WORK);
    assert_eq!(row(&by_session, CX_HELLO)["link"], Value::Null);
    // What `codex exec` printed at the end of each run, "tokens used": input without the cached
    // part, plus output (tests/fixtures/spent-codex/README.md).
    let used = |key: &str| {
        let t = &row(&by_session, key)["own"]["tokens"];
        ["input", "output", "reasoning"]
            .iter()
            .map(|k| t[k].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!((used(CX_AUDIT), used(CX_HELLO)), (2433, 803));
    let thread = json(&env, &sessions, &["--session", "01a21b54-45ac"]);
    assert_eq!(thread["session"], CX_AUDIT);
    assert_eq!(thread["total"]["calls"], 6);
    // resp_3 and the subagent's resp_4.
    let window = json(
        &env,
        &sessions,
        &[
            "--since",
            "2026-11-27T04:47:17.700Z",
            "--until",
            "2026-11-27T04:47:17.760Z",
        ],
    );
    assert_eq!(window["total"]["tokens"]["total"], 1710 + 512, "{window:#}");
    // Priced from the models.dev cache by the provider and model Codex recorded, marked estimated.
    env.write(
        "../home/.cache/opencode/models.json",
        r#"{"mock": {"models": {"mock-1": {"cost": {"input": 1.25, "output": 10, "cache_read": 0.125}}}}}"#,
    );
    let priced = json(&env, &sessions, &["--session", CX_SUBAGENT]);
    assert!(
        close(
            &priced["total"]["cost_estimated"],
            (400.0 * 1.25 + 12.0 * 10.0 + 100.0 * 0.125) / 1e6
        ),
        "{priced:#}"
    );
    assert_eq!(priced["total"]["estimated_calls"], 1);
}

/// Without --source: the project's pi sessions (named after its path, as pi names them) and
/// Codex's sessions, beside OpenCode's and Claude Code's.
#[test]
fn pi_and_codex_sessions_are_read_by_default() {
    let env = TestEnv::new();
    let root = env.root.to_string_lossy().to_string();
    let folder = format!("--{}--", root.trim_start_matches('/').replace('/', "-"));
    let pi_dir = env.temp().join("pi-agent");
    copy_dir(
        Path::new(&format!("{PI_FIXTURE}/sessions/--home-user-billing--")),
        &pi_dir.join("sessions").join(&folder),
    );
    let codex_home = env.temp().join("codex-home");
    copy_dir(
        Path::new(&format!("{CODEX_FIXTURE}/sessions")),
        &codex_home.join("sessions"),
    );
    let out = env
        .ctx()
        .env("PI_CODING_AGENT_DIR", &pi_dir)
        .env("CODEX_HOME", &codex_home)
        .args(["budget", "spent", "--json", "--by", "session"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", env.render(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = doc["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["pi-sessions", "codex-sessions"]);
    assert_eq!(doc["total"]["calls"], 5 + 7);
    // The tree's costs read the same records.
    env.write(
        ".opencode/flame/state.json",
        std::fs::read(format!("{PI_FIXTURE}/project/.opencode/flame/state.json")).unwrap(),
    );
    let out = env
        .ctx()
        .env("PI_CODING_AGENT_DIR", &pi_dir)
        .env("CODEX_HOME", &codex_home)
        .args(["frame", "tree", "--cost"])
        .output()
        .unwrap();
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
       $0.0103    6.4k  → pi session (pi_01a21b53-31)
       $0.0046    3.3k  └── ✓ Refund work (fr_2dtte)

       $0.0024     803  → pi session (pi_01a21b53-3f)

    3 frames: 2 → in_progress, 1 ✓ completed
    --- stderr
    ");
    // Another project's pi sessions are not this one's.
    std::fs::rename(
        pi_dir.join("sessions").join(&folder),
        pi_dir.join("sessions/--elsewhere--"),
    )
    .unwrap();
    let out = env
        .ctx()
        .env("PI_CODING_AGENT_DIR", &pi_dir)
        .env("CODEX_HOME", &codex_home)
        .args(["budget", "spent", "--json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"]["calls"], 7, "{}", env.render(&out));
}

/// The same session files twice, and a copy of a rollout under another name (as a forked
/// history repeats lines): every call is counted once, and the repeat is said.
#[test]
fn pi_and_codex_calls_are_counted_once() {
    let (env, sessions) = agent_fixture(CODEX_FIXTURE);
    let once = json(&env, &sessions, &[]);
    let twice = json(&env, &sessions, &["--source", sessions.to_str().unwrap()]);
    assert_eq!(twice["total"], once["total"]);
    assert_eq!(
        twice["problems"],
        serde_json::json!([format!(
            "{}: 7 call(s) were read from another source already; counted once",
            sessions.display()
        )])
    );
    let sub = session_file(&sessions, &CX_SUBAGENT[3..]);
    std::fs::copy(&sub, sub.with_file_name("rollout-copy.jsonl")).unwrap();
    let copied = json(&env, &sessions, &[]);
    assert_eq!(copied["total"], once["total"]);

    let (env, sessions) = agent_fixture(PI_FIXTURE);
    let once = json(&env, &sessions, &[]);
    // A fork: pi copies the entries, ids and times, into a new session file.
    let audit = session_file(&sessions, &PI_AUDIT[3..]);
    let text = std::fs::read_to_string(&audit).unwrap().replace(
        "01a21b53-31b2-72a8-9f32-bda350814c2a",
        "01a21b53-ffff-72a8-9f32-bda350814c2a",
    );
    std::fs::write(
        audit.with_file_name("2026-11-27T05-00-00-000Z_01a21b53-ffff-72a8-9f32-bda350814c2a.jsonl"),
        text,
    )
    .unwrap();
    let forked = json(&env, &sessions, &[]);
    assert_eq!(forked["total"], once["total"]);
}

/// Per pi session, every token figure and the cost equal `ccusage pi session`'s on the same files
/// (both read pi's own usage and cost fields).
#[test]
fn pi_sessions_match_ccusage() {
    let Some(ccusage) = crate::common::ccusage() else {
        return;
    };
    let (env, sessions) = agent_fixture(PI_FIXTURE);
    let peer = crate::common::ccusage_json(
        &ccusage,
        &[
            "pi",
            "session",
            "--json",
            "--offline",
            "--pi-path",
            sessions.to_str().unwrap(),
        ],
        &[("HOME", &env.home)],
    );
    let doc = json(&env, &sessions, &["--by", "session"]);
    let peer_rows = peer["sessions"].as_array().unwrap();
    assert_eq!(
        peer_rows.len(),
        doc["rows"].as_array().unwrap().len(),
        "{peer:#}"
    );
    for theirs in peer_rows {
        let key = format!("pi_{}", theirs["sessionId"].as_str().unwrap());
        let ours = &row(&doc, &key)["own"];
        let t = &ours["tokens"];
        let pairs = [
            ("inputTokens", &t["input"]),
            ("outputTokens", &t["output"]),
            ("cacheReadTokens", &t["cache_read"]),
            ("cacheCreationTokens", &t["cache_write"]),
            ("totalTokens", &t["total"]),
        ];
        for (name, value) in pairs {
            assert_eq!(&theirs[name], value, "{name} of {key}");
        }
        assert!(
            close(&ours["cost"], theirs["totalCost"].as_f64().unwrap()),
            "{theirs:#} {ours:#}"
        );
    }
}

/// Per Codex thread, every token figure equals `ccusage codex session`'s on the same files;
/// neither knows a price for the stand-in's model (ccusage says 0 and `missingPricing`, ctx
/// unknown).
#[test]
fn codex_sessions_match_ccusage() {
    let Some(ccusage) = crate::common::ccusage() else {
        return;
    };
    let (env, sessions) = agent_fixture(CODEX_FIXTURE);
    let codex_home = env.temp().join("codex-home");
    copy_dir(&sessions, &codex_home.join("sessions"));
    let peer = crate::common::ccusage_json(
        &ccusage,
        &["codex", "session", "--json", "--offline"],
        &[("CODEX_HOME", &codex_home), ("HOME", &env.home)],
    );
    let doc = json(&env, &sessions, &["--by", "session"]);
    let peer_rows = peer["sessions"].as_array().unwrap();
    assert_eq!(
        peer_rows.len(),
        doc["rows"].as_array().unwrap().len(),
        "{peer:#}"
    );
    for theirs in peer_rows {
        // ccusage names a session by its file: …/rollout-<time>-<thread id>.
        let file = theirs["sessionId"].as_str().unwrap();
        let key = format!("cx_{}", &file[file.len() - 36..]);
        let ours = &row(&doc, &key)["own"];
        let t = &ours["tokens"];
        let output = t["output"].as_u64().unwrap() + t["reasoning"].as_u64().unwrap();
        assert_eq!(theirs["inputTokens"], t["input"], "{key}");
        assert_eq!(theirs["outputTokens"], output, "{key}");
        assert_eq!(theirs["reasoningOutputTokens"], t["reasoning"], "{key}");
        assert_eq!(theirs["cacheReadTokens"], t["cache_read"], "{key}");
        assert_eq!(theirs["cacheCreationTokens"], t["cache_write"], "{key}");
        assert_eq!(theirs["totalTokens"], t["total"], "{key}");
        assert_eq!(theirs["models"]["mock-1"]["missingPricing"], true);
        assert_eq!(ours["cost"], Value::Null);
    }
}

/// Lines cut short, lines that are not JSON, counts and costs of the wrong type, bytes that are
/// not UTF-8, an empty file: each named in a warning, the rest reported.
#[test]
fn bad_lines_in_pi_and_codex_files_are_named_and_the_rest_is_reported() {
    use std::io::Write;
    let (env, sessions) = agent_fixture(PI_FIXTURE);
    let hello = session_file(&sessions, &PI_HELLO[3..]);
    let text = std::fs::read_to_string(&hello)
        .unwrap()
        .replace(r#""input":800"#, r#""input":"800""#)
        .replace(r#""total":0.002445"#, r#""total":-1"#);
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(b"not json\n{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}\n");
    bytes.extend_from_slice(br#"{"type":"message","id":"cut","message":{"role":"assist"#);
    std::fs::write(&hello, bytes).unwrap();
    std::fs::write(hello.with_file_name("empty.jsonl"), "").unwrap();
    let out = spent(&env, &sessions, &["--by", "session"]);
    assert_snapshot!(env.render(&out), @r#"
    exit: 0
    --- stdout
           COST  TOKENS  SESSION (with its subagents)
        $0.0103    6.4k  Audit the billing code (pi_01a21b53-31)
        unknown     803  Say hello (pi_01a21b53-3f)

    total: $0.0103+? · 7206 tokens · 5 calls
      input 2300, output 106, reasoning 0, cache read 3800, cache write 200
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    warning: [HOME]/sessions/--home-user-billing--/empty.jsonl: empty; skipped
    warning: [HOME]/sessions/--home-user-billing--/2026-11-27T04-46-10-280Z_01a21b53-3f67-7127-8c5a-53138dee81e1.jsonl: not UTF-8; read with U+FFFD in place of the bad bytes
    warning: [HOME]/sessions/--home-user-billing--/2026-11-27T04-46-10-280Z_01a21b53-3f67-7127-8c5a-53138dee81e1.jsonl: 2 line(s) are not JSON; skipped
    warning: [HOME]/sessions/--home-user-billing--/2026-11-27T04-46-10-280Z_01a21b53-3f67-7127-8c5a-53138dee81e1.jsonl: entry 6594d8fd: input "800" is not a token count; taken as 0
    warning: [HOME]/sessions/--home-user-billing--/2026-11-27T04-46-10-280Z_01a21b53-3f67-7127-8c5a-53138dee81e1.jsonl: entry 6594d8fd: cost -1 is not a price; counted as not recorded
    "#);

    let (env, sessions) = agent_fixture(CODEX_FIXTURE);
    let hello = session_file(&sessions, &CX_HELLO[3..]);
    let text = std::fs::read_to_string(&hello)
        .unwrap()
        .replace(r#""output_tokens":3,"#, r#""output_tokens":3.5,"#);
    std::fs::write(&hello, text).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&hello)
        .unwrap();
    file.write_all(
        b"\xff\xfe\n{\"timestamp\":\"2026-11-27T04:47:21.000Z\",\"type\":\"token_usage_rec",
    )
    .unwrap();
    let out = spent(&env, &sessions, &["--by", "session"]);
    assert_snapshot!(env.render(&out), @"
    exit: 0
    --- stdout
           COST  TOKENS  SESSION (with its subagents)
        unknown    8.7k  Audit the billing code (cx_01a21b54-45)
        unknown     512    Audit refunds alpha (cx_01a21b54-46)
        unknown     803  Say hello (cx_01a21b54-5)

    total: unknown · 9548 tokens · 7 calls
      input 3500, output 125, reasoning 20, cache read 5900, cache write 0
    +? or unknown: calls on models with no recorded cost and no known price
    --- stderr
    warning: [HOME]/sessions/2026/11/27/rollout-2026-11-27T04-47-20-01a21b54-500b-7a02-953d-22368e4204dd.jsonl: not UTF-8; read with U+FFFD in place of the bad bytes
    warning: [HOME]/sessions/2026/11/27/rollout-2026-11-27T04-47-20-01a21b54-500b-7a02-953d-22368e4204dd.jsonl: 2 line(s) are not JSON; skipped
    warning: [HOME]/sessions/2026/11/27/rollout-2026-11-27T04-47-20-01a21b54-500b-7a02-953d-22368e4204dd.jsonl: response resp_7: output_tokens 3.5 is not a token count; taken as 0
    ");
}

/// A file too large to be a session, a link that loops, a folder that is not there: each an
/// `error:` naming it, exit 1; a folder holding a looping link is read without following it.
#[test]
fn unreadable_pi_and_codex_sources_are_errors() {
    let (env, sessions) = agent_fixture(CODEX_FIXTURE);
    let temp = env.temp().to_str().unwrap().to_string();
    let render = |out: &std::process::Output| env.render(out).replace(&temp, "[TEMP]");
    // A pi and a Codex file, sparse past their first line: larger than the 1 GiB a session file
    // may be, without a gigabyte written.
    for (name, first) in [
        (
            "huge-pi.jsonl",
            r#"{"type":"session","version":3,"id":"x"}"#,
        ),
        (
            "huge-codex.jsonl",
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}"#,
        ),
    ] {
        let huge = env.temp().join(name);
        std::fs::write(&huge, format!("{first}\n")).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&huge)
            .unwrap()
            .set_len((1 << 30) + 1)
            .unwrap();
        let out = env.run(&["budget", "spent", "--source", huge.to_str().unwrap()]);
        assert_eq!(
            render(&out),
            format!(
                "exit: 1\n--- stdout\n--- stderr\nerror: [TEMP]/{name}: larger than 1024 MiB\n"
            )
        );
    }
    let looped = env.temp().join("loop.jsonl");
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let out = env.run(&["budget", "spent", "--source", looped.to_str().unwrap()]);
    assert_snapshot!(render(&out), @"
    exit: 1
    --- stdout
    --- stderr
    error: [TEMP]/loop.jsonl: cannot read: Too many levels of symbolic links
    ");
    let out = env.run(&["budget", "spent", "--source", "no/such/folder"]);
    assert_snapshot!(render(&out), @"
    exit: 1
    --- stdout
    --- stderr
    error: no/such/folder: cannot read: No such file or directory
    ");
    std::os::unix::fs::symlink(&sessions, sessions.join("2026/again")).unwrap();
    let doc = json(&env, &sessions, &[]);
    assert_eq!(doc["total"]["calls"], 7);
}

/// A rollout without `token_usage_record` lines (as older Codex versions wrote them) is read from
/// its `token_count` events: the same calls, a repeated event (its cumulative total unchanged)
/// counted once.
#[test]
fn codex_token_count_events_serve_when_there_are_no_usage_records() {
    let (env, sessions) = agent_fixture(CODEX_FIXTURE);
    let records = json(&env, &sessions, &["--by", "session"]);
    let mut stack = vec![sessions.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mut kept: Vec<&str> = text
                .lines()
                .filter(|l| !l.contains(r#""type":"token_usage_record""#))
                .collect();
            let repeat = kept
                .iter()
                .position(|l| l.contains(r#""type":"token_count""#))
                .unwrap();
            // Codex repeats the event later (a rate-limit update) with the same totals.
            let again = kept[repeat].replace(
                r#""timestamp":"2026-11-27T04:47:"#,
                r#""timestamp":"2026-11-27T04:48:"#,
            );
            assert_ne!(again, kept[repeat]);
            kept.insert(repeat + 1, &again);
            std::fs::write(&path, kept.join("\n") + "\n").unwrap();
        }
    }
    let counts = json(&env, &sessions, &["--by", "session"]);
    assert_eq!(counts["total"], records["total"], "{counts:#}");
    for key in [CX_AUDIT, CX_SUBAGENT, CX_HELLO] {
        assert_eq!(row(&counts, key)["own"], row(&records, key)["own"], "{key}");
    }
}

/// pi 0.73.1 as installed for the end-to-end tests (`$PI_DIR`, else `~/.cache/ctx-pi`), when it is.
fn pi_bin() -> Option<PathBuf> {
    let dir = std::env::var_os("PI_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/ctx-pi")))?;
    let bin = dir.join("node_modules/.bin/pi");
    if bin.exists() {
        return Some(bin);
    }
    eprintln!("SKIPPED: no pi in {} to compare with", dir.display());
    None
}

/// Per session, ctx's figures equal what pi itself reports (`get_session_stats` of its RPC mode,
/// the figures of its /session), pi opening the same files offline.
#[test]
fn pi_sessions_match_pis_own_statistics() {
    let Some(pi) = pi_bin() else {
        return;
    };
    let (env, sessions) = agent_fixture(PI_FIXTURE);
    let doc = json(&env, &sessions, &["--by", "session"]);
    // pi opens a session only in a folder that exists: the files' folder is the project's.
    let agent = env.temp().join("pi-agent");
    copy_dir(&sessions, &agent.join("sessions"));
    std::fs::write(
        agent.join("models.json"),
        r#"{"providers": {"mock": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "x",
            "models": [{"id": "mock-1", "contextWindow": 200000, "maxTokens": 32000}]}}}"#,
    )
    .unwrap();
    for id in [PI_AUDIT, PI_HELLO] {
        let file = session_file(&agent, &id[3..]);
        let text = std::fs::read_to_string(&file)
            .unwrap()
            .replace("/home/user/billing", env.root.to_str().unwrap());
        std::fs::write(&file, text).unwrap();
        let mut child = std::process::Command::new(&pi)
            .args([
                "--mode",
                "rpc",
                "--provider",
                "mock",
                "--model",
                "mock-1",
                "--session",
            ])
            .arg(&file)
            .current_dir(&env.root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &env.home)
            .env("PI_OFFLINE", "1")
            .env("PI_CODING_AGENT_DIR", &agent)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(
            child.stdin.as_mut().unwrap(),
            b"{\"type\":\"get_session_stats\"}\n",
        )
        .unwrap();
        let out = child.wait_with_output().unwrap();
        let stats: Value = String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| {
                serde_json::from_str::<Value>(l)
                    .ok()
                    .filter(|v| v["command"] == "get_session_stats")
            })
            .unwrap_or_else(|| {
                panic!(
                    "no statistics from pi: {}",
                    String::from_utf8_lossy(&out.stdout)
                )
            });
        let (theirs, ours) = (&stats["data"], &row(&doc, id)["own"]);
        let t = &ours["tokens"];
        assert_eq!(theirs["assistantMessages"], ours["calls"], "{id}");
        assert_eq!(theirs["tokens"]["input"], t["input"], "{id}");
        assert_eq!(theirs["tokens"]["output"], t["output"], "{id}");
        assert_eq!(theirs["tokens"]["cacheRead"], t["cache_read"], "{id}");
        assert_eq!(theirs["tokens"]["cacheWrite"], t["cache_write"], "{id}");
        assert_eq!(theirs["tokens"]["total"], t["total"], "{id}");
        assert!(
            close(&ours["cost"], theirs["cost"].as_f64().unwrap()),
            "{theirs:#} {ours:#}"
        );
    }
}

const SHAPES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/spent-shapes");
const CC_MAIN: &str = "cc_7b1e2c44-3f0a-4d5e-9c61-2a8f0b9d4e13";
const CC_AGENT: &str = "cca_a1b2c3d4e5f6a7b8c";
const CC_DEEP_AGENT: &str = "cca_a9f8e7d6c5b4a3921";
const CX_PARENT: &str = "cx_019ba759-3500-7aaa-8bbb-cccdddeeefff";
const CX_FORK: &str = "cx_019ba790-2380-7111-8222-333444555666";

/// A copy of the folder `name` of tests/fixtures/spent-shapes in a new project's temp folder.
fn shapes(name: &str) -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    let dir = env.temp().join("shapes").join(name);
    copy_dir(&Path::new(SHAPES).join(name), &dir);
    (env, dir)
}

/// `--json budget spent --by session --source SOURCE…`, which must succeed.
fn by_session(env: &TestEnv, sources: &[&Path]) -> Value {
    let mut args = vec!["--json", "budget", "spent", "--by", "session"];
    for source in sources {
        args.extend(["--source", source.to_str().unwrap()]);
    }
    serde_json::from_str(&env.ok(&args)).unwrap()
}

/// Claude Code writes a response one line per content block, all with its message and request
/// id; the early lines carry partial usage (`output_tokens` 1, then 273). The response's usage is
/// its last line's, as ccusage counts it.
#[test]
fn a_claude_response_streamed_over_several_lines_counts_its_last_lines_usage() {
    let (env, projects) = shapes("claude/projects");
    let doc = by_session(&env, &[&projects]);
    let own = |key: &str| row(&doc, key)["own"].clone();
    assert_eq!(own(CC_MAIN)["tokens"]["output"], 273 + 108 + 50, "{doc:#}");
    assert_eq!(own(CC_MAIN)["calls"], 3);
    assert_eq!(own(CC_MAIN)["tokens"]["input"], 4 + 6 + 3);
    assert_eq!(own(CC_MAIN)["tokens"]["cache_write"], 1200 + 300);
    assert_eq!(own(CC_AGENT)["tokens"]["output"], 60);
    let Some(ccusage) = crate::common::ccusage() else {
        return;
    };
    let home = env.temp().join("ccusage-home");
    copy_dir(&projects, &home.join(".claude/projects"));
    let peer = crate::common::ccusage_json(
        &ccusage,
        &["session", "--json", "--offline"],
        &[
            ("CLAUDE_CONFIG_DIR", &home.join(".claude")),
            ("HOME", &home),
        ],
    );
    // ccusage puts the subagents/ folder's transcripts in their session's row.
    let theirs = peer["session"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| format!("cc_{}", s["period"].as_str().unwrap()) == CC_MAIN)
        .unwrap();
    let ours = |field: &str| {
        own(CC_MAIN)["tokens"][field].as_u64().unwrap()
            + own(CC_AGENT)["tokens"][field].as_u64().unwrap()
    };
    assert_eq!(theirs["outputTokens"], ours("output") + ours("reasoning"));
    assert_eq!(theirs["inputTokens"], ours("input"));
    assert_eq!(theirs["cacheCreationTokens"], ours("cache_write"));
}

/// A main transcript holding a sidechain line with a subagent's id is still its session's: what
/// a file is comes from its place (`…/subagents/agent-*.jsonl`) or its first lines.
#[test]
fn a_main_transcript_with_a_sidechain_line_is_its_sessions_own() {
    let (env, projects) = shapes("claude/projects");
    let doc = by_session(&env, &[&projects]);
    assert_eq!(row(&doc, CC_MAIN)["parent"], Value::Null, "{doc:#}");
    assert_eq!(row(&doc, CC_MAIN)["own"]["calls"], 3);
    assert_eq!(row(&doc, CC_AGENT)["parent"], CC_MAIN);
    assert_eq!(row(&doc, CC_AGENT)["own"]["calls"], 1);
    assert_eq!(doc["problems"], serde_json::json!([]));
    // A subagent's transcript kept outside a subagents/ folder
    // (`<project>/agent-<id>.jsonl`) is known by its first line.
    let agent = projects.join(
        "-home-user-app/7b1e2c44-3f0a-4d5e-9c61-2a8f0b9d4e13/subagents/agent-a1b2c3d4e5f6a7b8c.jsonl",
    );
    let loose = projects.join("-home-user-app/agent-a1b2c3d4e5f6a7b8c.jsonl");
    std::fs::rename(&agent, &loose).unwrap();
    let doc = by_session(&env, &[&projects]);
    assert_eq!(row(&doc, CC_AGENT)["parent"], CC_MAIN);
    assert_eq!(row(&doc, CC_MAIN)["own"]["calls"], 3);
}

/// Claude Code writes a workflow's subagents below `<session>/subagents/workflows/<id>/`: found
/// however deep, under their session.
#[test]
fn subagents_in_deeper_folders_are_read() {
    let (env, projects) = shapes("claude/projects");
    let doc = by_session(&env, &[&projects]);
    let deep = row(&doc, CC_DEEP_AGENT);
    assert_eq!(deep["parent"], CC_MAIN, "{doc:#}");
    assert_eq!(deep["own"]["tokens"]["output"], 40);
    assert_eq!(doc["total"]["tokens"]["output"], 273 + 108 + 50 + 60 + 40);
    // From a home folder too: `.claude/projects/…` is six folders below it.
    let home = env.temp().join("home");
    copy_dir(&projects, &home.join(".claude/projects"));
    let doc = by_session(&env, &[&home]);
    assert_eq!(row(&doc, CC_DEEP_AGENT)["own"]["calls"], 1);
}

/// A forked Codex thread (`forked_from_id`) begins by replaying its parent's last turn, token
/// counts included, and an archived copy repeats the fork's file: the replayed usage is the
/// parent's, counted once, with the parent, wherever the copies are.
#[test]
fn a_forked_codex_thread_counts_its_parents_replayed_turn_once() {
    let (env, codex) = shapes("codex");
    // Parent: 1050 + 1280 + 1560 tokens; the fork's own turn: 1740.
    let check = |doc: &Value| {
        assert_eq!(row(doc, CX_PARENT)["own"]["calls"], 3, "{doc:#}");
        assert_eq!(row(doc, CX_PARENT)["own"]["tokens"]["total"], 3890);
        assert_eq!(row(doc, CX_FORK)["own"]["calls"], 1);
        assert_eq!(row(doc, CX_FORK)["own"]["tokens"]["total"], 1740);
        assert_eq!(doc["total"]["tokens"]["total"], 3890 + 1740);
    };
    check(&by_session(&env, &[&codex]));
    let sessions = codex.join("sessions");
    let archived = codex.join("archived_sessions");
    check(&by_session(&env, &[&sessions]));
    check(&by_session(&env, &[&archived, &sessions]));
    // The fork alone: its replayed turn is still the parent's.
    let doc = by_session(&env, &[&archived]);
    assert_eq!(row(&doc, CX_PARENT)["own"]["calls"], 1, "{doc:#}");
    assert_eq!(row(&doc, CX_PARENT)["own"]["tokens"]["total"], 1560);
    assert_eq!(row(&doc, CX_FORK)["own"]["tokens"]["total"], 1740);
}

/// What agent wrote a file is read from its first line as JSON, not from its exact bytes or its
/// name: a rollout re-serialized with spaces, a pi header with its keys in another order, a
/// rollout without `session_meta`, a file given through a pipe. A file of no known agent is
/// said to be so; a named pipe with no writer is refused at once.
#[test]
fn a_session_files_agent_is_read_from_its_first_line_as_json() {
    let (env, dir) = shapes("reserialized");
    let hello = dir.join("rollout-2026-11-27T04-47-20-01a21b54-500b-7a02-953d-22368e4204dd.jsonl");
    let doc = by_session(&env, &[&hello]);
    assert_eq!(row(&doc, CX_HELLO)["own"]["calls"], 1, "{doc:#}");
    assert_eq!(row(&doc, CX_HELLO)["own"]["tokens"]["total"], 803);
    assert_eq!(doc["problems"], serde_json::json!([]));
    // Through a pipe (`--source <(cat FILE)`): /dev/stdin is one.
    let out = env.run_stdin(
        &[
            "--json",
            "budget",
            "spent",
            "--by",
            "session",
            "--source",
            "/dev/stdin",
        ],
        &std::fs::read(&hello).unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", env.render(&out));
    let piped: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(piped["total"], doc["total"]);
    // Without its session_meta line: the thread is the one its file name ends with.
    let text = std::fs::read_to_string(&hello).unwrap();
    std::fs::write(&hello, text.split_once('\n').unwrap().1).unwrap();
    let doc = by_session(&env, &[&hello]);
    assert_eq!(
        row(&doc, CX_HELLO)["own"]["tokens"]["total"],
        803,
        "{doc:#}"
    );
    // A pi header with its keys in another order.
    let (env, sessions) = agent_fixture(PI_FIXTURE);
    let once = by_session(&env, &[&sessions]);
    let file = session_file(&sessions, &PI_HELLO[3..]);
    let text = std::fs::read_to_string(&file).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let header: serde_json::Map<String, Value> = serde_json::from_str(header).unwrap();
    let reordered: serde_json::Map<String, Value> = header.into_iter().rev().collect();
    assert!(
        !Value::Object(reordered.clone())
            .to_string()
            .starts_with(r#"{"type""#)
    );
    std::fs::write(&file, format!("{}\n{rest}", Value::Object(reordered))).unwrap();
    let doc = by_session(&env, &[&sessions]);
    assert_eq!(doc["total"], once["total"], "{doc:#}");
    // A file no agent wrote: a word in a folder, an error when it is the source.
    let other = sessions.join("notes.jsonl");
    std::fs::write(&other, "{\"note\":\"not a session\"}\n").unwrap();
    let doc = by_session(&env, &[&sessions]);
    assert_eq!(
        doc["problems"],
        serde_json::json!([format!(
            "{}: not a session file of any agent ctx knows; skipped",
            other.display()
        )])
    );
    let out = env.run(&["budget", "spent", "--source", other.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", env.render(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {}: not a session file of any agent ctx knows (Qwen Code, Gemini CLI, Claude Code, pi, Codex CLI, GitHub Copilot CLI)\n",
            other.display()
        )
    );
}

/// A named pipe with no writer is refused at once rather than waited on.
#[cfg(unix)]
#[test]
fn a_named_pipe_with_no_writer_is_refused_at_once() {
    let env = TestEnv::new();
    let fifo = env.temp().join("session.jsonl");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let mut child = env
        .std_command()
        .args(["budget", "spent", "--source", fifo.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("ctx waited on a named pipe with no writer");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {}: a named pipe with no writer; refusing to wait for one\n",
            fifo.display()
        )
    );
}

/// A first prompt written as a content array (a text and an image part): its text is the title.
#[test]
fn a_claude_sessions_title_is_its_first_prompts_text_even_in_a_content_array() {
    let (env, projects) = shapes("claude/projects");
    let doc = by_session(&env, &[&projects]);
    assert_eq!(row(&doc, CC_MAIN)["label"], "Fix the login bug", "{doc:#}");
}

/// Sessions whose ids are not UUIDs may differ only past a separator: their short ids never end
/// at one, so that `cc_session_` and `cc_session-` do not stand for two sessions.
#[test]
fn short_ids_never_end_at_a_separator() {
    let (env, projects) = shapes("claude/projects");
    let main = projects.join("-home-user-app/7b1e2c44-3f0a-4d5e-9c61-2a8f0b9d4e13.jsonl");
    let text = std::fs::read_to_string(&main).unwrap();
    let dir = env.temp().join("named");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, prompt) in [("session_alpha", "Alpha"), ("session-beta", "Beta")] {
        let renamed = text
            .replace("7b1e2c44-3f0a-4d5e-9c61-2a8f0b9d4e13", name)
            .replace("msg_01", &format!("msg_{name}_"))
            .replace("Fix the login bug", prompt);
        std::fs::write(dir.join(format!("{name}.jsonl")), renamed).unwrap();
    }
    let out = env.ok(&[
        "budget",
        "spent",
        "--by",
        "session",
        "--source",
        dir.to_str().unwrap(),
    ]);
    assert!(out.contains("Alpha (cc_session_a)"), "{out}");
    assert!(out.contains("Beta (cc_session-b)"), "{out}");
}

/// A call whose model is not recorded is grouped under a name that says so, never an empty one.
#[test]
fn calls_without_a_model_are_grouped_under_unknown_model() {
    let (env, projects) = shapes("claude/projects");
    let main = projects.join("-home-user-app/7b1e2c44-3f0a-4d5e-9c61-2a8f0b9d4e13.jsonl");
    let text = std::fs::read_to_string(&main)
        .unwrap()
        .replace(r#""model":"claude-sonnet-4-5-20250929","#, "");
    std::fs::write(&main, text).unwrap();
    let mut args = vec!["--json", "budget", "spent", "--by", "model"];
    args.extend(["--source", projects.to_str().unwrap()]);
    let doc: Value = serde_json::from_str(&env.ok(&args)).unwrap();
    let keys: Vec<&str> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "anthropic/(unknown model)",
            "anthropic/claude-sonnet-4-5-20250929"
        ],
        "{doc:#}"
    );
}

/// A subagent none of whose calls are left once repeats are counted once has nothing to place:
/// its missing parent is not worth a warning.
#[test]
fn a_subagent_with_no_call_left_does_not_warn_of_its_missing_parent() {
    let (env, projects) = shapes("claude/projects");
    let agent = projects.join(
        "-home-user-app/7b1e2c44-3f0a-4d5e-9c61-2a8f0b9d4e13/subagents/agent-a1b2c3d4e5f6a7b8c.jsonl",
    );
    // The same responses in another session's main transcript, read first.
    let other = env.temp().join("other.jsonl");
    let text = std::fs::read_to_string(&agent)
        .unwrap()
        .replace(
            r#""isSidechain":true,"agentId":"a1b2c3d4e5f6a7b8c","#,
            r#""isSidechain":false,"#,
        )
        .replace(
            "7b1e2c44-3f0a-4d5e-9c61-2a8f0b9d4e13",
            "5d0e9a1b-0000-4000-8000-000000000000",
        );
    std::fs::write(&other, text).unwrap();
    let doc = by_session(&env, &[&other, &agent]);
    assert_eq!(
        doc["problems"],
        serde_json::json!([format!(
            "{}: 1 call(s) were read from another source already; counted once",
            agent.display()
        )])
    );
}

/// Codex's and pi's totals that disagree with their parts, and a cached count above the input
/// it is part of, are named: the parts are what is priced, so the total is their sum.
#[test]
fn totals_that_disagree_with_their_parts_are_named() {
    let (env, dir) = shapes("reserialized");
    let hello = dir.join("rollout-2026-11-27T04-47-20-01a21b54-500b-7a02-953d-22368e4204dd.jsonl");
    let text = std::fs::read_to_string(&hello).unwrap();
    let (before, after) = text.split_once(r#""type": "token_usage_record""#).unwrap();
    let after = after
        .replacen(r#""total_tokens": 803"#, r#""total_tokens": 900"#, 1)
        .replacen(
            r#""cached_input_tokens": 0"#,
            r#""cached_input_tokens": 1000"#,
            1,
        );
    std::fs::write(
        &hello,
        format!("{before}\"type\": \"token_usage_record\"{after}"),
    )
    .unwrap();
    let doc = by_session(&env, &[&hello]);
    let name = format!("{}: response resp_7", hello.display());
    assert_eq!(
        doc["problems"],
        serde_json::json!([
            format!("{name}: cached_input_tokens 1000 is more than input_tokens 800; taken as 800"),
            format!(
                "{name}: total_tokens 900 is not input_tokens + output_tokens (803); counted as 803"
            ),
        ]),
        "{doc:#}"
    );
    assert_eq!(row(&doc, CX_HELLO)["own"]["tokens"]["total"], 803);
    let (env, sessions) = agent_fixture(PI_FIXTURE);
    let file = session_file(&sessions, &PI_HELLO[3..]);
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace(r#""totalTokens":803"#, r#""totalTokens":900"#);
    std::fs::write(&file, text).unwrap();
    let doc = by_session(&env, &[&sessions]);
    let problems = doc["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{doc:#}");
    assert!(
        problems[0].as_str().unwrap().ends_with(
            ": totalTokens 900 is not input + output + cacheRead + cacheWrite (803); counted as 803"
        ),
        "{doc:#}"
    );
    assert_eq!(row(&doc, PI_HELLO)["own"]["tokens"]["total"], 803);
}

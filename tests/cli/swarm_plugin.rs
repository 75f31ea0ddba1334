//! `ctx swarm VIEW --format markdown --swarm-version 5` against the real opencode-swarm 5.1.0
//! plugin: for every case under tests/fixtures/swarm5/cases, ctx's output must be the plugin's
//! `/swarm VIEW` text plus one newline, byte for byte.
//!
//! The plugin runs under bun from a peers directory (`PEERS_DIR`, else `~/.cache/ctx-peers`),
//! installed there with npm when it is missing. Without bun or the plugin the test says so on
//! stderr and stops; with `CTX_REQUIRE_SWARM_PLUGIN` set (where the comparison must run, as in CI)
//! a missing plugin fails it instead.
//!
//! A case directory holds the project's files (`.swarm/…`, `.opencode/…`) and
//! - `views`: one view per line (`status`, `plan 2`, `evidence 1.1`, …), `#` lines are comments;
//! - `user-config.json` (optional): the user's config, put in the private XDG config directory;
//! - `symlinks` (optional): `LINK -> TARGET` lines, made after copying (git holds no links).
//!
//! ctx must never write, so it runs first, and the temporary tree is compared before and after;
//! only then does the plugin run, whose first `/swarm status` migrates a legacy plan.md (ctx is
//! expected to show what the plugin shows after that migration).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use crate::common::fixture;

const PLUGIN_VERSION: &str = "5.1.0";

/// Files of a case directory that are instructions to the test, not project files.
const CASE_FILES: [&str; 3] = ["views", "user-config.json", "symlinks"];

struct Peers {
    dir: PathBuf,
    bun: PathBuf,
}

impl Peers {
    fn at(dir: PathBuf) -> Peers {
        let bun = dir.join("node_modules/.bin/bun");
        Peers { dir, bun }
    }

    fn plugin_version(&self) -> Option<String> {
        let text =
            std::fs::read_to_string(self.dir.join("node_modules/opencode-swarm/package.json"))
                .ok()?;
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        Some(json["version"].as_str()?.to_string())
    }

    fn ready(&self) -> bool {
        self.bun.is_file() && self.plugin_version().as_deref() == Some(PLUGIN_VERSION)
    }
}

/// The peers directory with bun and opencode-swarm 5.1.0, installing them with npm if need be;
/// `None` (after saying why) when they are not to be had.
fn peers() -> Option<Peers> {
    let dir = match std::env::var_os("PEERS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/ctx-peers")
        }
    };
    let peers = Peers::at(dir);
    if !peers.ready() && on_path("npm") {
        let spec = format!("opencode-swarm@{PLUGIN_VERSION}");
        let out = Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(&peers.dir)
            .args(["--no-audit", "--no-fund", "bun@1", &spec])
            .output();
        if let Ok(out) = out
            && !out.status.success()
        {
            eprintln!(
                "npm install failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    if peers.ready() {
        return Some(peers);
    }
    let why = format!(
        "no bun and opencode-swarm {PLUGIN_VERSION} in {} (npm install --prefix \"$PEERS_DIR\" \
         --no-audit --no-fund bun@1 opencode-swarm@{PLUGIN_VERSION})",
        peers.dir.display()
    );
    assert!(
        std::env::var_os("CTX_REQUIRE_SWARM_PLUGIN").is_none(),
        "CTX_REQUIRE_SWARM_PLUGIN is set but there is {why}"
    );
    eprintln!("SKIPPED: {why} to compare ctx swarm with the plugin");
    None
}

fn on_path(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

struct Case {
    name: String,
    dir: PathBuf,
    views: Vec<String>,
}

fn cases() -> Vec<Case> {
    let root = fixture("swarm5/cases");
    let mut cases: Vec<Case> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| {
            let dir = entry.unwrap().path();
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let views = std::fs::read_to_string(dir.join("views"))
                .unwrap_or_else(|e| panic!("{name}/views: {e}"))
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty() && !line.starts_with('#'))
                .map(str::to_string)
                .collect();
            Case { name, dir, views }
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    // The example projects the book shows, every view.
    for example in ["examples/demo", "examples/swarm5"] {
        cases.push(Case {
            name: example.to_string(),
            dir: Path::new(env!("CARGO_MANIFEST_DIR")).join(example),
            views: [
                "status",
                "plan",
                "plan 2",
                "agents",
                "history",
                "evidence",
                "evidence 1.2",
                "diagnose",
                "export",
                "config",
            ]
            .map(str::to_string)
            .to_vec(),
        });
    }
    cases
}

/// What one case found: the differences, how many views were compared, the plugin's run time.
#[derive(Default)]
struct Outcome {
    case: String,
    failures: Vec<String>,
    compared: usize,
    plugin_time: Duration,
}

#[test]
fn markdown_views_match_the_opencode_swarm_plugin() {
    let Some(peers) = peers() else { return };
    let cases = cases();
    assert!(cases.len() >= 40, "only {} swarm5 cases", cases.len());

    // The cases are independent processes on their own temporary trees: a few threads at once.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(case) = cases.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let outcome = run_case(case, &peers);
                    outcomes.lock().unwrap().push(outcome);
                }
            });
        }
    });
    let wall = started.elapsed();

    // In case order, and each case's views in the order of its `views` file.
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by(|a, b| a.case.cmp(&b.case));
    let compared: usize = outcomes.iter().map(|o| o.compared).sum();
    let plugin_time: Duration = outcomes.iter().map(|o| o.plugin_time).sum();
    let failures: Vec<String> = outcomes.into_iter().flat_map(|o| o.failures).collect();
    eprintln!(
        "swarm_plugin: compared {compared} (case, view) pairs in {} cases; the plugin ran for \
         {:.2}s in all, the whole comparison took {:.2}s on {threads} threads",
        cases.len(),
        plugin_time.as_secs_f64(),
        wall.as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} difference(s) between ctx and opencode-swarm {PLUGIN_VERSION} \
         (- plugin, + ctx):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn run_case(case: &Case, peers: &Peers) -> Outcome {
    let mut outcome = Outcome {
        case: case.name.clone(),
        ..Outcome::default()
    };
    let temp = tempfile::tempdir().unwrap();
    // Both sides print the project's path (`config`): give them one without symlinks in it, as
    // ctx might resolve them.
    let root = temp.path().canonicalize().unwrap();
    let project = root.join("project");
    let home = root.join("home");
    let config_home = home.join(".config");
    copy_tree(&case.dir, &project, true);
    std::fs::create_dir_all(&config_home).unwrap();
    let user_config = case.dir.join("user-config.json");
    if user_config.is_file() {
        let target = config_home.join("opencode/opencode-swarm.json");
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&user_config, target).unwrap();
    }
    if !make_symlinks(&case.dir.join("symlinks"), &project) {
        eprintln!(
            "{}: no symbolic links on this platform, case left out",
            case.name
        );
        return outcome;
    }

    // ctx first, on the untouched tree: it must leave every byte and time stamp as it was (under
    // HOME too, which holds the user config). A snapshot after each view names the one that wrote.
    let mut before = snapshot(&root);
    let mut ctx: Vec<Output> = Vec::new();
    for view in &case.views {
        let out = Command::new(assert_cmd::cargo::cargo_bin("ctx"))
            .current_dir(&root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &config_home)
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("LANG", "C.UTF-8")
            .arg("-C")
            .arg(&project)
            .arg("swarm")
            .args(view.split_whitespace())
            .args(["--format", "markdown", "--swarm-version", "5"])
            .output()
            .expect("run ctx");
        ctx.push(out);
        let after = snapshot(&root);
        let changed = changes(&before, &after);
        if !changed.is_empty() {
            outcome.failures.push(format!(
                "{} / `{view}`: ctx changed files:\n{}",
                case.name,
                changed.join("\n")
            ));
        }
        before = after;
    }

    // Then the plugin, once for all views (after its own first `status`).
    let started = Instant::now();
    let plugin = Command::new(&peers.bun)
        .arg(fixture("swarm5/run-plugin.mjs"))
        .arg(&project)
        .args(&case.views)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", &config_home)
        .env("PEERS_DIR", &peers.dir)
        .env("LANG", "C.UTF-8")
        .output()
        .expect("run bun");
    outcome.plugin_time = started.elapsed();
    let stdout = String::from_utf8(plugin.stdout).expect("the plugin prints UTF-8");
    let mut records: Vec<&str> = stdout.split('\0').collect();
    // Every record ends with a NUL, so the last piece is empty.
    let complete = records.pop() == Some("");
    if !plugin.status.success() || !complete || records.len() != case.views.len() {
        outcome.failures.push(format!(
            "{}: the plugin runner failed ({}, {} of {} views):\n{}",
            case.name,
            plugin.status,
            records.len(),
            case.views.len(),
            String::from_utf8_lossy(&plugin.stderr)
        ));
        return outcome;
    }

    for ((view, expected), out) in case.views.iter().zip(records).zip(&ctx) {
        outcome.compared += 1;
        if let Some(problem) = compare(view, expected, out) {
            outcome
                .failures
                .push(format!("{} / `{view}`: {problem}", case.name));
        }
    }
    outcome
}

/// What is wrong with ctx's output for `view` given the plugin's text, if anything.
fn compare(view: &str, plugin: &str, out: &Output) -> Option<String> {
    // Lossy decoding would turn invalid bytes into the U+FFFD the plugin prints: check first.
    if let Err(e) = std::str::from_utf8(&out.stdout) {
        return Some(format!(
            "ctx printed invalid UTF-8 ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    let mut status = match code {
        Some(code) => format!("exit {code}"),
        None => "killed by a signal".to_string(),
    };
    if !stderr.is_empty() {
        status.push_str(&format!(", stderr: {:?}", stderr.trim_end()));
    }
    if plugin.is_empty() {
        // The plugin's handler threw and its hook swallowed the error: ctx reports an error
        // (after any notes about the files it read).
        let error_line = stderr.lines().any(|line| line.starts_with("error:"));
        return (code != Some(1) || !error_line || !stdout.is_empty()).then(
            || {
                format!(
                    "the plugin prints nothing, so ctx should exit 1 with an `error: …` line on stderr and \
                     nothing on stdout; got {status}, stdout:\n{stdout}"
                )
            },
        );
    }
    let expected = normalize(&format!("{plugin}\n"));
    let actual = normalize(&stdout);
    if expected != actual {
        return Some(format!("{status}\n{}", diff(&expected, &actual)));
    }
    // diagnose exits non-zero when a check fails; every other view succeeds.
    (!view.starts_with("diagnose") && code != Some(0)).then(|| format!("same text but {status}"))
}

/// Replaces the times the plugin takes when it runs (`new Date().toISOString()`) by `<NOW>`: the
/// `Updated:` of a derived plan and export's `"exported"`.
fn normalize(text: &str) -> String {
    const MARKERS: [&str; 2] = ["Updated: ", "\"exported\": \""];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((at, marker)) = MARKERS
        .iter()
        .filter_map(|m| rest.find(m).map(|at| (at, m)))
        .min()
    {
        let end = at + marker.len();
        out.push_str(&rest[..end]);
        rest = &rest[end..];
        if is_iso_now(rest) {
            out.push_str("<NOW>");
            rest = &rest[24..];
        }
    }
    out.push_str(rest);
    out
}

/// Whether `text` starts like `2025-01-02T03:04:05.678Z`, the only form toISOString gives for
/// years 0 to 9999.
fn is_iso_now(text: &str) -> bool {
    const SHAPE: &[u8; 24] = b"dddd-dd-ddTdd:dd:dd.dddZ";
    let bytes = text.as_bytes();
    bytes.len() >= SHAPE.len()
        && SHAPE.iter().zip(bytes).all(|(&shape, &byte)| match shape {
            b'd' => byte.is_ascii_digit(),
            _ => shape == byte,
        })
}

/// A line diff (longest common subsequence) with two lines of context around each change;
/// changed lines are quoted so that stray spaces, tabs and CRs show.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.split('\n').collect();
    let b: Vec<&str> = actual.split('\n').collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // (tag, line): ' ' both, '-' plugin only, '+' ctx only.
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        let from = k.saturating_sub(2);
        let to = (k + 3).min(ops.len());
        ops[from..to].iter().any(|(tag, _)| *tag != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (tag, line)) in ops.iter().enumerate() {
        if !near_change(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("   …\n");
            skipped = false;
        }
        match tag {
            ' ' => out.push_str(&format!("   {line}\n")),
            _ => out.push_str(&format!(" {tag} {line:?}\n")),
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path, top: bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if top && CASE_FILES.iter().any(|f| name == *f) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target, false);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Makes the links listed in `list` (if it exists) under `project`; false where links cannot be
/// made and the case needs some.
fn make_symlinks(list: &Path, project: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(list) else {
        return true;
    };
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let (link, target) = line
            .split_once(" -> ")
            .unwrap_or_else(|| panic!("{}: `{line}` is not LINK -> TARGET", list.display()));
        #[cfg(unix)]
        std::os::unix::fs::symlink(target.trim(), project.join(link.trim())).unwrap();
        #[cfg(not(unix))]
        {
            let _ = (link, target, project);
            return false;
        }
    }
    true
}

/// What a path was: a file's bytes, a link's target, and every modification time.
#[derive(PartialEq, Debug)]
enum Entry {
    File(Vec<u8>, SystemTime),
    Dir(SystemTime),
    Link(PathBuf),
}

fn snapshot(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut entries = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let entry = if meta.is_symlink() {
            Entry::Link(std::fs::read_link(&path).unwrap())
        } else if meta.is_dir() {
            for child in std::fs::read_dir(&path).unwrap() {
                stack.push(child.unwrap().path());
            }
            Entry::Dir(meta.modified().unwrap())
        } else {
            Entry::File(std::fs::read(&path).unwrap(), meta.modified().unwrap())
        };
        entries.insert(path.strip_prefix(root).unwrap().to_path_buf(), entry);
    }
    entries
}

fn changes(before: &BTreeMap<PathBuf, Entry>, after: &BTreeMap<PathBuf, Entry>) -> Vec<String> {
    let mut changed = Vec::new();
    for (path, entry) in before {
        match after.get(path) {
            None => changed.push(format!("  removed {}", path.display())),
            Some(now) if now != entry => changed.push(format!("  modified {}", path.display())),
            Some(_) => {}
        }
    }
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        changed.push(format!("  created {}", path.display()));
    }
    changed
}

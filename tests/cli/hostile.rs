//! No panic, no write on hostile input: every file a command reads, corrupted in every way listed
//! in `CORRUPTIONS`, against every command that reads it. Each case must end with exit 1 and an
//! `error:` line naming the file, print no panic, and leave every file as it was (bytes and
//! modification time).
//!
//! Files that are only advisory, opencode-swarm's `.swarm/` files and config (swarm.md §1.1, §4.2,
//! §6.2), are never an error: each such row states the exact outcome of every case instead (exit
//! 0, and the note or warning on stderr, or none).
//!
//! The table is meant to grow: a command group that reads a new file adds a `ReadFile` row to
//! `files()`; a new command reading a known file goes into that row's `readers`.

#![cfg(unix)]

use std::path::PathBuf;
use std::process::Output;

use crate::common::{TestEnv, fixture};
use crate::snapshot::{Entry, changes, modified_changes, modified_times, snapshot};

/// How ctx parses a file, which decides which corruptions make sense for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Json,
    Toml,
    /// Free text (a summary): only its encoding and size can be wrong.
    Text,
    /// Line-based markdown (`.swarm/plan.md`): free text whose lines matter.
    Markdown,
}

/// A command run against the file under test.
pub struct Reader {
    pub args: &'static [&'static str],
    /// Changes project files when it succeeds.
    pub writes: bool,
    /// Reads the file from standard input (`args` hold `-`): the corrupted bytes are piped in.
    pub stdin: bool,
}

const fn reads(args: &'static [&'static str]) -> Reader {
    Reader {
        args,
        writes: false,
        stdin: false,
    }
}

const fn writes(args: &'static [&'static str]) -> Reader {
    Reader {
        args,
        writes: true,
        stdin: false,
    }
}

const fn from_stdin(args: &'static [&'static str]) -> Reader {
    Reader {
        args,
        writes: true,
        stdin: true,
    }
}

const fn reads_stdin(args: &'static [&'static str]) -> Reader {
    Reader {
        args,
        writes: false,
        stdin: true,
    }
}

/// Commands of the `budget` and `compact` groups that read ctx's settings.
fn settings_readers() -> Vec<Reader> {
    vec![
        reads(&["budget", "estimate", "summary.txt"]),
        reads(&["budget", "models"]),
        reads(&["compact", "render", "--for", "frame"]),
    ]
}

/// A file that some command reads.
pub struct ReadFile {
    /// Relative to the project root, or to HOME when it starts with `~/`.
    pub path: &'static str,
    pub kind: Kind,
    /// Content with which every reader and bystander succeeds (checked by a test of its own).
    pub valid: fn() -> Vec<u8>,
    /// Commands that read the file: each must refuse every corruption.
    pub readers: Vec<Reader>,
    /// Commands that do not read the file: each must succeed whatever the file holds.
    pub bystanders: Vec<Reader>,
    /// `state.json`: reading through a link that leaves the project is allowed, writing is
    /// refused, and a dangling link reads as the empty state (flame.md §3.5).
    pub store: bool,
    /// Files of the valid project removed for this row (a valid plan.json hides plan.md).
    pub absent: &'static [&'static str],
    /// The "wrong types" content, when the generic one would be valid for this file.
    pub wrong_types: Option<&'static str>,
    /// For an advisory file: the exact outcome of a corruption (by name) for a reader. Such a
    /// file is also fed pipes and devices, since nothing names it on the command line.
    pub advisory: Option<fn(&str, &Reader) -> Outcome>,
}

/// The exact outcome of a case on an advisory file: an exit code and the stderr lines, with
/// `[ROOT]` and `[HOME]` for the temporary paths and `…` matching any text.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub code: i32,
    pub stderr: Vec<String>,
}

/// The files of the `frame` group, each with the commands that read it.
pub fn files() -> Vec<ReadFile> {
    vec![
        ReadFile {
            path: ".opencode/flame/state.json",
            kind: Kind::Json,
            valid: || std::fs::read(fixture("frame/spec-example.json")).unwrap(),
            readers: vec![
                reads(&["frame", "tree"]),
                reads(&["frame", "tree", "--json"]),
                reads(&["frame", "show"]),
                reads(&["frame", "current"]),
                reads(&["frame", "log", "fr_yb6wk952swa0"]),
                reads(&[
                    "frame",
                    "invalidate",
                    "fr_yrst4chn5kn0",
                    "--reason",
                    "r",
                    "--dry-run",
                ]),
                writes(&["frame", "push", "New goal"]),
                writes(&["frame", "pop", "--summary", "Done"]),
                writes(&["frame", "plan", "Later"]),
                writes(&["frame", "activate", "fr_t78f603xzbcw"]),
                writes(&["frame", "invalidate", "fr_yrst4chn5kn0", "--reason", "r"]),
                writes(&["frame", "artifact", "a.rs"]),
                writes(&["frame", "decision", "Keep it"]),
                writes(&["frame", "import", "stack.json"]),
            ],
            bystanders: vec![],
            store: true,
            absent: &[],
            wrong_types: None,
            advisory: None,
        },
        ReadFile {
            path: "export.json",
            kind: Kind::Json,
            valid: || std::fs::read(fixture("frame/verify-export.json")).unwrap(),
            readers: vec![
                writes(&["frame", "pop", "--transcript", "export.json"]),
                from_stdin(&["frame", "pop", "--transcript", "-"]),
                reads(&["budget", "estimate", "--session", "export.json"]),
                reads_stdin(&["budget", "estimate", "--session", "-"]),
            ],
            bystanders: vec![],
            store: false,
            absent: &[],
            wrong_types: None,
            advisory: None,
        },
        ReadFile {
            path: ".opencode/stack/state.json",
            kind: Kind::Json,
            valid: || std::fs::read(fixture("frame/stack-state.json")).unwrap(),
            readers: vec![
                writes(&["frame", "import"]),
                writes(&["frame", "import", ".opencode/stack/state.json"]),
            ],
            bystanders: vec![],
            store: false,
            absent: &[],
            wrong_types: None,
            advisory: None,
        },
        ReadFile {
            path: "summary.txt",
            kind: Kind::Text,
            valid: || b"Done.\n".to_vec(),
            readers: vec![
                writes(&["frame", "pop", "--summary-file", "summary.txt"]),
                from_stdin(&["frame", "pop", "--summary-file", "-"]),
                writes(&["frame", "edit", "--summary-file", "summary.txt"]),
                from_stdin(&["frame", "edit", "--summary-file", "-"]),
            ],
            bystanders: vec![],
            store: false,
            absent: &[],
            wrong_types: None,
            advisory: None,
        },
        // An OpenCode message list (pi's too), only ever read from standard input.
        ReadFile {
            path: "messages.json",
            kind: Kind::Json,
            valid: || std::fs::read(fixture("compact/messages.json")).unwrap(),
            readers: vec![
                reads_stdin(&["compact", "inject", "--at", "last-user"]),
                reads_stdin(&[
                    "compact",
                    "inject",
                    "--at",
                    "after:msg_203018619001aaaaaaaaaaaaaa",
                ]),
                reads_stdin(&["opencode", "messages", "--session", "ses_hostile"]),
                // pi's shape differs; its refusals of what is no message list are the same.
                reads_stdin(&["pi", "messages", "--session", "pi_hostile"]),
            ],
            bystanders: vec![],
            store: false,
            absent: &[],
            wrong_types: None,
            advisory: None,
        },
        // No `frame` command reads ctx's settings: whatever they hold, frame commands work.
        ReadFile {
            path: ".opencode/ctx.toml",
            kind: Kind::Toml,
            valid: || b"[frame.context]\ntotal = 4000\n".to_vec(),
            readers: settings_readers(),
            bystanders: vec![reads(&["frame", "tree"]), writes(&["frame", "push", "x"])],
            store: false,
            absent: &[],
            wrong_types: Some(SETTINGS_WRONG_TYPES),
            advisory: None,
        },
        ReadFile {
            path: "~/.config/ctx/config.toml",
            kind: Kind::Toml,
            valid: || b"[frame.context]\ntotal = 4000\n".to_vec(),
            readers: settings_readers(),
            bystanders: vec![reads(&["frame", "tree"]), writes(&["frame", "push", "x"])],
            store: false,
            absent: &[],
            wrong_types: Some(SETTINGS_WRONG_TYPES),
            advisory: None,
        },
        // opencode-swarm's files: advisory, read by `ctx swarm`, never written.
        ReadFile {
            path: ".swarm/plan.md",
            kind: Kind::Markdown,
            valid: || std::fs::read(fixture("swarm/example-1.plan.md")).unwrap(),
            readers: swarm_file_readers(),
            bystanders: vec![],
            store: false,
            absent: &[".swarm/plan.json"],
            wrong_types: None,
            advisory: Some(plan_md_outcome),
        },
        ReadFile {
            path: ".swarm/plan.json",
            kind: Kind::Json,
            valid: || std::fs::read(fixture("swarm/example-2.plan.json")).unwrap(),
            readers: swarm_file_readers(),
            bystanders: vec![],
            store: false,
            absent: &[],
            wrong_types: Some(
                r#"{"schema_version": "1.0.0", "title": "T", "swarm": "default",
                    "current_phase": "2", "phases": [{"id": 1, "name": "P", "tasks": {}}]}"#,
            ),
            advisory: Some(plan_json_outcome),
        },
        ReadFile {
            path: ".swarm/context.md",
            kind: Kind::Markdown,
            valid: || std::fs::read(demo("examples/demo/.swarm/context.md")).unwrap(),
            readers: swarm_file_readers(),
            bystanders: vec![],
            store: false,
            absent: &[],
            wrong_types: None,
            advisory: Some(context_md_outcome),
        },
        ReadFile {
            path: ".opencode/opencode-swarm.json",
            kind: Kind::Json,
            valid: || SWARM_CONFIG.to_vec(),
            readers: swarm_config_readers(),
            bystanders: vec![],
            store: false,
            absent: &[],
            wrong_types: Some(CONFIG_WRONG_TYPES),
            advisory: Some(|corruption, reader| {
                config_outcome("[ROOT]/.opencode/opencode-swarm.json", corruption, reader)
            }),
        },
        ReadFile {
            path: "~/.config/opencode/opencode-swarm.json",
            kind: Kind::Json,
            valid: || SWARM_CONFIG.to_vec(),
            readers: swarm_config_readers(),
            bystanders: vec![],
            store: false,
            absent: &[],
            wrong_types: Some(CONFIG_WRONG_TYPES),
            advisory: Some(|corruption, reader| {
                config_outcome(
                    "[HOME]/.config/opencode/opencode-swarm.json",
                    corruption,
                    reader,
                )
            }),
        },
    ]
}

/// A value of the wrong kind for a setting each settings reader reads.
const SETTINGS_WRONG_TYPES: &str = "[budget]\nwarn = \"high\"\n[budget.model_limits]\n\"gpt-5\" = \"big\"\n\
                                    [frame.context]\ntotal = \"many\"\nsiblings = \"many\"\n";

fn demo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

const SWARM_CONFIG: &[u8] =
    br#"{"agents": {"coder": {"model": "openai/gpt-5"}}, "hooks": {"compaction": true}}"#;

const CONFIG_WRONG_TYPES: &str = r#"{"agents": {"coder": {"temperature": "hot"}}}"#;

/// `ctx swarm VIEW… --swarm-version VERSION --format FORMAT` (its arguments live for the run).
fn swarm_view(view: &[&'static str], version: &'static str, format: &'static str) -> Reader {
    let mut args = vec!["swarm"];
    args.extend_from_slice(view);
    args.extend(["--swarm-version", version, "--format", format]);
    reads(args.leak())
}

/// Every `ctx swarm` command; each reads the plan, the config, or both. First the 4.3.0
/// contract (swarm.md), which a plan.json alone would switch to 5.1.0's, in every format; then
/// 5.1.0's views, the new ones included, in the formats that read the most.
fn swarm_commands() -> Vec<Reader> {
    const ALL: &[&str] = &["human", "markdown", "json"];
    let views_4_3: &[(&[&'static str], &[&'static str])] = &[
        (&["status"], ALL),
        (&["plan"], ALL),
        (&["plan", "2"], &["markdown"]),
        (&["agents"], ALL),
        (&["history"], ALL),
    ];
    let views_5: &[(&[&'static str], &[&'static str])] = &[
        (&["status"], ALL),
        (&["plan"], &["json"]),
        (&["plan", "2"], &["markdown"]),
        (&["agents"], &["markdown", "json"]),
        (&["history"], &["markdown"]),
        (&["evidence"], &["markdown"]),
        (&["diagnose"], &["human", "json"]),
        (&["export"], &["markdown"]),
        (&["config"], &["json"]),
    ];
    let mut readers = Vec::new();
    for (version, views) in [("4.3", views_4_3), ("5", views_5)] {
        for (view, formats) in views {
            for format in *formats {
                readers.push(swarm_view(view, version, format));
            }
        }
    }
    readers
}

fn is_swarm_5(reader: &Reader) -> bool {
    reader
        .args
        .windows(2)
        .any(|w| w == ["--swarm-version", "5"])
}

/// `swarm` commands, and the `compact` renders that read `.swarm/`.
fn swarm_file_readers() -> Vec<Reader> {
    let mut readers = swarm_commands();
    readers.push(reads(&["compact", "render", "--for", "swarm"]));
    readers.push(reads(&["compact", "render", "--for", "system", "--json"]));
    readers
}

/// `swarm` commands, and `budget estimate`, which reads the thresholds of `context_budget`.
fn swarm_config_readers() -> Vec<Reader> {
    let mut readers = swarm_commands();
    readers.push(reads(&["budget", "estimate", "summary.txt"]));
    readers
}

fn quiet() -> Outcome {
    Outcome {
        code: 0,
        stderr: Vec::new(),
    }
}

fn succeeds_with(lines: impl IntoIterator<Item = String>) -> Outcome {
    Outcome {
        code: 0,
        stderr: lines.into_iter().collect(),
    }
}

/// Why a present `.swarm/` or config file cannot be read at all, whatever it holds.
fn unreadable(corruption: &str, cap: &str) -> Option<String> {
    match corruption {
        "a directory" | "a symbolic link to a directory" => Some("is a directory".into()),
        "a symbolic link to /dev/zero" | "a named pipe" => Some("not a regular file".into()),
        "larger than any cap (sparse 2 GiB)" => Some(format!("larger than {cap}")),
        _ => None,
    }
}

/// Human views say how a plan comes to exist when there is none.
const NO_PLAN_NOTE: &str =
    "opencode-swarm's architect writes .swarm/plan.md once a swarm starts planning";

/// plan.md (no plan.json): any text is a plan, whatever it holds; a file that cannot be read is
/// absent, with a note (swarm.md §1.1). `agents` never reads it.
fn plan_md_outcome(corruption: &str, reader: &Reader) -> Outcome {
    if reader.args[1] == "agents" {
        return quiet();
    }
    let problem = unreadable(corruption, "512 MiB");
    let absent = problem.is_some() || matches!(corruption, "empty" | "a dangling symbolic link");
    let human = reader.args.last() == Some(&"human");
    succeeds_with(
        problem
            .map(|why| {
                format!("[ROOT]/.swarm/plan.md: {why}; read as absent, as opencode-swarm does")
            })
            .into_iter()
            .chain((absent && human).then(|| NO_PLAN_NOTE.to_string())),
    )
}

/// plan.json (plan.md valid): unusable means plan.md, with a note saying why (swarm.md §4.2);
/// empty or missing means plan.md without one. `agents` never reads it.
fn plan_json_outcome(corruption: &str, reader: &Reader) -> Outcome {
    if reader.args[1] == "agents" {
        return quiet();
    }
    let why = match corruption {
        "empty" | "a dangling symbolic link" | "a symbolic link out of the project" => {
            return quiet();
        }
        "wrong types" => "current_phase must be an integer of at least 1".to_string(),
        "a scalar at the top" => "the top level is not an object".to_string(),
        // The splice renames the first key, so schema_version is missing.
        "a 50 MB string" | "not UTF-8" => "schema_version must be the string \"1.0.0\"".to_string(),
        other => unreadable(other, "512 MiB").unwrap_or_else(|| "not JSON: …".to_string()),
    };
    succeeds_with([format!(
        "[ROOT]/.swarm/plan.json: {why}; reading plan.md instead"
    )])
}

/// context.md: only `compact render` reads it; any text is context, and a file that cannot be
/// read is absent, with a note (swarm.md §1.1).
fn context_md_outcome(corruption: &str, reader: &Reader) -> Outcome {
    if reader.args[0] != "compact" {
        return quiet();
    }
    succeeds_with(unreadable(corruption, "512 MiB").map(|why| {
        format!("[ROOT]/.swarm/context.md: {why}; read as absent, as opencode-swarm does")
    }))
}

/// A config file: invalid means ignored as a whole, with a warning (swarm.md §6.2); `plan` and
/// `history` never read it.
fn config_outcome(path: &str, corruption: &str, reader: &Reader) -> Outcome {
    if matches!(reader.args[1], "plan" | "history") {
        return quiet();
    }
    let why = match corruption {
        // The splice renames the first key, `agents`, which is then unknown and dropped.
        "not UTF-8" | "a dangling symbolic link" | "a symbolic link out of the project" => {
            return quiet();
        }
        "wrong types" => "agents.coder.temperature must be a number from 0 to 2".to_string(),
        "a scalar at the top" => "the top level is not an object".to_string(),
        "a 50 MB string" => "larger than 16 MiB".to_string(),
        other => unreadable(other, "16 MiB").unwrap_or_else(|| "not JSON: …".to_string()),
    };
    succeeds_with([format!(
        "warning: {path}: {why}; ignored, as opencode-swarm ignores it"
    )])
}

/// `line` matches `pattern`, in which `…` stands for any text.
fn matches_pattern(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split('…');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// What a corruption puts where the file was.
pub enum Content {
    Bytes(Vec<u8>),
    /// A sparse file of this many bytes: larger than any cap, yet free to create.
    Sparse(u64),
    Directory,
    Fifo,
    LinkToDirectory,
    LinkDangling,
    /// A link to a valid copy of the file outside the project.
    LinkOutside,
    LinkToDevZero,
}

pub struct Corruption {
    pub name: &'static str,
    pub make: fn(&ReadFile) -> Option<Content>,
    /// Slow to read in a debug build: run against the first reader only.
    pub costly: bool,
}

fn bytes(content: impl Into<Vec<u8>>) -> Option<Content> {
    Some(Content::Bytes(content.into()))
}

/// `valid` with `insert` put after its first `"` (inside the first string), or at the start.
fn spliced(valid: &[u8], insert: &[u8]) -> Vec<u8> {
    let at = valid.iter().position(|&b| b == b'"').map_or(0, |i| i + 1);
    [&valid[..at], insert, &valid[at..]].concat()
}

fn nested(open: &str, inner: &str, close: &str, depth: usize) -> Vec<u8> {
    format!("{}{inner}{}", open.repeat(depth), close.repeat(depth)).into_bytes()
}

/// Noise from a fixed xorshift sequence, starting with a byte that is never UTF-8.
fn binary() -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out = vec![0xFF];
    out.extend((0..4096).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    }));
    out
}

pub const CORRUPTIONS: &[Corruption] = &[
    Corruption {
        name: "empty",
        make: |f| (f.kind != Kind::Toml).then(|| Content::Bytes(Vec::new())),
        costly: false,
    },
    Corruption {
        name: "truncated",
        make: |f| {
            let valid = (f.valid)();
            (f.kind != Kind::Text).then(|| Content::Bytes(valid[..valid.len() / 2].to_vec()))
        },
        costly: false,
    },
    Corruption {
        name: "wrong types",
        make: |f| match (f.kind, f.wrong_types) {
            (_, Some(content)) => bytes(content),
            (Kind::Json, None) => bytes(
                r#"{"version": "1", "frames": [], "rootFrameIDs": {}, "updatedAt": "x",
                    "info": 1, "messages": "x"}"#,
            ),
            (Kind::Toml, None) => bytes("frame = \"context\"\n"),
            (Kind::Text | Kind::Markdown, None) => None,
        },
        costly: false,
    },
    Corruption {
        name: "a scalar at the top",
        make: |f| (f.kind == Kind::Json).then(|| Content::Bytes(b"42".to_vec())),
        costly: false,
    },
    Corruption {
        name: "10 000 nested arrays",
        make: |f| match f.kind {
            Kind::Json => bytes(nested("[", "", "]", 10_000)),
            Kind::Toml => bytes([b"a = ".as_slice(), &nested("[", "", "]", 10_000)].concat()),
            Kind::Markdown => bytes(nested("> ", "- [ ] 1.1: deep\n", "", 10_000)),
            Kind::Text => None,
        },
        costly: false,
    },
    Corruption {
        name: "10 000 nested objects",
        make: |f| match f.kind {
            Kind::Json => bytes(nested("{\"a\":", "1", "}", 10_000)),
            Kind::Toml => bytes([b"a = ".as_slice(), &nested("{b = ", "1", "}", 10_000)].concat()),
            Kind::Markdown => bytes(
                (0..10_000)
                    .map(|depth| format!("{}- [x] {depth}\n", " ".repeat(depth % 64)))
                    .collect::<String>()
                    .replace("- [x] 0\n", "## Phase 1 [IN PROGRESS]\n"),
            ),
            Kind::Text => None,
        },
        costly: false,
    },
    Corruption {
        name: "200 MB of whitespace",
        // 14 s for one command in a debug build: the state only, which every command reads.
        make: |f| f.store.then(|| Content::Bytes(vec![b' '; 200_000_000])),
        costly: true,
    },
    Corruption {
        name: "a 50 MB string",
        make: |f| match f.kind {
            Kind::Json => bytes(format!("{{\"frames\": \"{}\"}}", "a".repeat(50_000_000))),
            Kind::Toml => bytes(format!("a = \"{}\"\n", "a".repeat(50_000_000))),
            Kind::Markdown => bytes(format!(
                "## Phase 1: {} [IN PROGRESS]\n",
                "a".repeat(50_000_000)
            )),
            Kind::Text => None,
        },
        costly: true,
    },
    Corruption {
        name: "larger than any cap (sparse 2 GiB)",
        make: |_| Some(Content::Sparse(2 << 30)),
        costly: false,
    },
    Corruption {
        name: "binary",
        make: |_| bytes(binary()),
        costly: false,
    },
    Corruption {
        name: "not UTF-8",
        make: |f| bytes(spliced(&(f.valid)(), b"\xC3\x28")),
        costly: false,
    },
    Corruption {
        name: "NUL bytes",
        make: |f| {
            (f.kind != Kind::Text)
                .then(|| Content::Bytes([b"\0".as_slice(), &(f.valid)()].concat()))
        },
        costly: false,
    },
    Corruption {
        name: "NUL inside a string",
        make: |f| (f.kind != Kind::Text).then(|| Content::Bytes(spliced(&(f.valid)(), b"\0"))),
        costly: false,
    },
    Corruption {
        name: "a directory",
        make: |_| Some(Content::Directory),
        costly: false,
    },
    Corruption {
        name: "a symbolic link to a directory",
        make: |_| Some(Content::LinkToDirectory),
        costly: false,
    },
    Corruption {
        name: "a dangling symbolic link",
        make: |_| Some(Content::LinkDangling),
        costly: false,
    },
    Corruption {
        name: "a symbolic link out of the project",
        make: |_| Some(Content::LinkOutside),
        costly: false,
    },
    // Pipes and devices are legitimate for files named on the command line (`<(opencode export
    // …)`), not for the state or opencode-swarm's files, which sit at fixed places.
    Corruption {
        name: "a symbolic link to /dev/zero",
        make: |f| (f.store || f.advisory.is_some()).then_some(Content::LinkToDevZero),
        costly: false,
    },
    Corruption {
        name: "a named pipe",
        make: |f| (f.store || f.advisory.is_some()).then_some(Content::Fifo),
        costly: false,
    },
];

/// What a command must do.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// Exit 1, an `error:` line naming the file, nothing written.
    Refused,
    /// Exit 0; only the state folder may change.
    Works,
    /// Exit 0 or 1 (an empty state has no current frame), nothing written.
    NoWrite,
    /// An advisory file: exactly this exit code and these stderr lines, nothing written.
    Exactly(Outcome),
    /// An advisory file read by opencode-swarm 5.1.0's views: exit 0, 1 (a plan.md whose
    /// migration the plugin's own schema refuses, which makes it throw) or 5 (`diagnose` found a
    /// failing check); nothing but notes, warnings and errors on stderr; nothing written.
    Swarm5,
}

fn expectation(
    file: &ReadFile,
    corruption: &str,
    content: &Content,
    reader: &Reader,
    bystander: bool,
) -> Expect {
    if bystander {
        return Expect::Works;
    }
    if file.advisory.is_some() && is_swarm_5(reader) {
        return Expect::Swarm5;
    }
    if let Some(outcome) = file.advisory {
        return Expect::Exactly(outcome(corruption, reader));
    }
    match content {
        Content::LinkOutside if file.store && reader.writes => Expect::Refused,
        Content::LinkOutside if file.store => Expect::Works,
        Content::LinkOutside => Expect::Works,
        Content::LinkDangling if file.store && !reader.writes => Expect::NoWrite,
        // A settings file that is a dangling link is a settings file that is not there.
        Content::LinkDangling if file.kind == Kind::Toml => Expect::Works,
        _ => Expect::Refused,
    }
}

fn location(env: &TestEnv, path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => env.home.join(rest),
        None => env.root.join(path),
    }
}

/// A project where every file of the table holds valid content, except those `row` wants absent,
/// plus `outside/` next to it.
fn valid_env(row: &ReadFile) -> TestEnv {
    let env = TestEnv::new();
    for file in files() {
        if row.absent.contains(&file.path) {
            continue;
        }
        let path = location(&env, file.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, (file.valid)()).unwrap();
    }
    env.write(
        "stack.json",
        std::fs::read(fixture("frame/stack-state.json")).unwrap(),
    );
    env.write(
        ".opencode/flame/logs/frame-fr_yb6wk952swa0.md",
        "# Frame fr_yb6wk952swa0\n",
    );
    env
}

fn place(env: &TestEnv, file: &ReadFile, content: &Content) {
    let path = location(env, file.path);
    let outside = env.temp().join("outside");
    std::fs::create_dir_all(outside.join("dir")).unwrap();
    std::fs::remove_file(&path).unwrap();
    match content {
        Content::Bytes(bytes) => std::fs::write(&path, bytes).unwrap(),
        Content::Sparse(len) => std::fs::File::create(&path).unwrap().set_len(*len).unwrap(),
        Content::Directory => std::fs::create_dir(&path).unwrap(),
        Content::Fifo => {
            let status = std::process::Command::new("mkfifo")
                .arg(&path)
                .status()
                .unwrap();
            assert!(status.success());
        }
        Content::LinkToDirectory => std::os::unix::fs::symlink(outside.join("dir"), &path).unwrap(),
        Content::LinkDangling => {
            std::os::unix::fs::symlink(outside.join("nothing"), &path).unwrap()
        }
        Content::LinkOutside => {
            let target = outside.join("valid");
            std::fs::write(&target, (file.valid)()).unwrap();
            std::os::unix::fs::symlink(&target, &path).unwrap();
        }
        Content::LinkToDevZero => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
    }
}

/// Runs `reader`, piping `stdin` when it reads standard input; a command still running after
/// 120 s (blocked on a pipe, say) is killed, and reported by its missing exit code.
fn run(env: &TestEnv, reader: &Reader, stdin: &[u8]) -> Output {
    use std::io::{Read, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let mut child = env
        .std_command()
        .args(reader.args)
        .stdin(if reader.stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    if let Some(mut pipe) = child.stdin.take() {
        // ctx may stop reading early (a size cap): a broken pipe here is fine.
        let _ = pipe.write_all(stdin);
    }
    // Generous: the 200 MB case takes 14 s in a debug build on an idle machine, and CI machines
    // are not idle. Only a hung command waits this long.
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Runs every corruption of `file` against its readers and bystanders; returns the failures.
fn check_file(file: &ReadFile) -> Vec<String> {
    let mut failures = Vec::new();
    let mut cases = 0;
    for corruption in CORRUPTIONS {
        let Some(content) = (corruption.make)(file) else {
            continue;
        };
        let env = valid_env(file);
        place(&env, file, &content);
        let commands = file
            .readers
            .iter()
            .map(|r| (r, false))
            .chain(file.bystanders.iter().map(|r| (r, true)));
        for (index, (reader, bystander)) in commands.enumerate() {
            if corruption.costly && index > 0 && !bystander {
                continue;
            }
            let stdin = match (&content, reader.stdin) {
                (Content::Bytes(bytes), true) => bytes.as_slice(),
                (_, true) => continue,
                (_, false) => &[],
            };
            cases += 1;
            let expect = expectation(file, corruption.name, &content, reader, bystander);
            let before = snapshot(env.temp());
            let times = modified_times(env.temp());
            let out = run(&env, reader, stdin);
            let after = snapshot(env.temp());
            let mut touched = changes(&before, &after);
            touched.extend(modified_changes(&times, &modified_times(env.temp())));
            touched.sort();
            touched.dedup();
            let case = format!(
                "{} / {} / ctx {}",
                file.path,
                corruption.name,
                reader.args.join(" ")
            );
            let stderr = env.filter(&String::from_utf8_lossy(&out.stderr));
            if let Err(why) = judge(
                file, reader, expect, &out, &stderr, touched, &before, &after,
            ) {
                failures.push(format!("{case}: {why}\n{}", env.render(&out)));
            }
        }
    }
    eprintln!("{}: {cases} cases", file.path);
    failures
}

type Snapshot = std::collections::BTreeMap<PathBuf, crate::snapshot::Entry>;

/// `changed`: the paths whose entry or modification time differs between `before` and `after`;
/// `stderr` has the temporary paths replaced.
#[allow(clippy::too_many_arguments)]
fn judge(
    file: &ReadFile,
    reader: &Reader,
    expect: Expect,
    out: &Output,
    stderr: &str,
    mut changed: Vec<PathBuf>,
    before: &Snapshot,
    after: &Snapshot,
) -> Result<(), String> {
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        return Err("panicked".into());
    }
    if stderr.len() > 4096 {
        return Err(format!("{} bytes on stderr", stderr.len()));
    }
    let code = out.status.code();
    match &expect {
        Expect::Refused => {
            if code != Some(1) {
                return Err(format!("exit {code:?}, expected 1"));
            }
            let first = stderr.lines().next().unwrap_or("");
            let name = if reader.stdin {
                "<stdin>"
            } else {
                file.path.trim_start_matches("~/")
            };
            if !first.starts_with("error: ") || !first.contains(name) {
                return Err(format!("the first stderr line does not name {name}"));
            }
        }
        Expect::Works if code != Some(0) => return Err(format!("exit {code:?}, expected 0")),
        Expect::NoWrite if !matches!(code, Some(0 | 1)) => {
            return Err(format!("exit {code:?}, expected 0 or 1"));
        }
        Expect::Swarm5 => {
            if !matches!(code, Some(0 | 1 | 5)) {
                return Err(format!("exit {code:?}, expected 0, 1 or 5"));
            }
            let said = |line: &str| {
                [
                    "error: ",
                    "warning: ",
                    "hint: ",
                    "[ROOT]/",
                    "[HOME]/",
                    "opencode-swarm's",
                ]
                .iter()
                .any(|start| line.starts_with(start))
            };
            if let Some(line) = stderr.lines().find(|line| !said(line)) {
                return Err(format!("unexpected stderr line {line:?}"));
            }
        }
        Expect::Exactly(outcome) => {
            if code != Some(outcome.code) {
                return Err(format!("exit {code:?}, expected {}", outcome.code));
            }
            let lines: Vec<&str> = stderr.lines().collect();
            if lines.len() != outcome.stderr.len()
                || !lines
                    .iter()
                    .zip(&outcome.stderr)
                    .all(|(line, pattern)| matches_pattern(pattern, line))
            {
                return Err(format!("stderr is not {:?}", outcome.stderr));
            }
        }
        _ => {}
    }
    // A writer creates the empty lock file before it reads the state (flame.md §2, §3.5 step 1).
    let lock = PathBuf::from("project/.opencode/flame/state.json.lock");
    if !before.contains_key(&lock) && after.get(&lock) == Some(&Entry::File(Vec::new())) {
        changed.retain(|p| *p != lock);
    }
    if expect == Expect::Works && reader.writes {
        // A command that may write changes the state folder, and nothing else.
        changed.retain(|p| !p.starts_with("project/.opencode/flame"));
    }
    if changed.is_empty() {
        Ok(())
    } else {
        Err(format!("changed {changed:?}"))
    }
}

#[test]
fn every_command_of_the_table_works_on_valid_files() {
    for file in files() {
        for reader in file.readers.iter().chain(&file.bystanders) {
            let env = valid_env(&file);
            let stdin = if reader.stdin {
                (file.valid)()
            } else {
                Vec::new()
            };
            let out = run(&env, reader, &stdin);
            // Valid advisory files leave nothing to say; 5.1.0's diagnose finds completed tasks
            // without evidence in them.
            let quiet = file.advisory.is_none() || out.stderr.is_empty();
            let healthy = out.status.success()
                || (is_swarm_5(reader)
                    && reader.args[1] == "diagnose"
                    && out.status.code() == Some(5));
            assert!(
                healthy && quiet,
                "{}: ctx {}\n{}",
                file.path,
                reader.args.join(" "),
                env.render(&out)
            );
        }
    }
}

fn assert_file_survives_hostile_input(path: &str) {
    let file = files().into_iter().find(|f| f.path == path).unwrap();
    let failures = check_file(&file);
    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn hostile_state_files() {
    assert_file_survives_hostile_input(".opencode/flame/state.json");
}

#[test]
fn hostile_transcripts() {
    assert_file_survives_hostile_input("export.json");
}

#[test]
fn hostile_message_lists() {
    assert_file_survives_hostile_input("messages.json");
}

#[test]
fn hostile_import_sources() {
    assert_file_survives_hostile_input(".opencode/stack/state.json");
}

#[test]
fn hostile_summary_files() {
    assert_file_survives_hostile_input("summary.txt");
}

#[test]
fn hostile_project_settings() {
    assert_file_survives_hostile_input(".opencode/ctx.toml");
}

#[test]
fn hostile_user_settings() {
    assert_file_survives_hostile_input("~/.config/ctx/config.toml");
}

#[test]
fn hostile_swarm_plans() {
    assert_file_survives_hostile_input(".swarm/plan.md");
}

#[test]
fn hostile_swarm_plan_json() {
    assert_file_survives_hostile_input(".swarm/plan.json");
}

#[test]
fn hostile_swarm_context() {
    assert_file_survives_hostile_input(".swarm/context.md");
}

#[test]
fn hostile_swarm_project_config() {
    assert_file_survives_hostile_input(".opencode/opencode-swarm.json");
}

#[test]
fn hostile_swarm_user_config() {
    assert_file_survives_hostile_input("~/.config/opencode/opencode-swarm.json");
}

#[test]
fn stderr_patterns() {
    assert!(matches_pattern(
        "a: not JSON: …; b",
        "a: not JSON: EOF at 1; b"
    ));
    assert!(matches_pattern("exact", "exact"));
    assert!(!matches_pattern("exact", "exact and more"));
    assert!(!matches_pattern("a…b", "a"));
    assert!(!matches_pattern("a…b…c", "a c b"));
}

/// Every row of the table has a test above.
#[test]
fn every_file_of_the_table_is_tested() {
    let tested = [
        ".opencode/flame/state.json",
        "export.json",
        "messages.json",
        ".opencode/stack/state.json",
        "summary.txt",
        ".opencode/ctx.toml",
        "~/.config/ctx/config.toml",
        ".swarm/plan.md",
        ".swarm/plan.json",
        ".swarm/context.md",
        ".opencode/opencode-swarm.json",
        "~/.config/opencode/opencode-swarm.json",
    ];
    for file in files() {
        assert!(tested.contains(&file.path), "{} has no test", file.path);
    }
}

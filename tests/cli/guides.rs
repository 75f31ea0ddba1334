//! The commands the README and the book show in fenced ```` ```sh ```` blocks run, so that a renamed
//! command or flag fails here, naming the file and line of the command. Each file's blocks run in
//! order, in one copy of `examples/demo` (a git repository, as a project is) with the `ctx` under
//! test first on `PATH` and a private HOME. A block fenced ```` ```sh,args ```` is a catalogue of
//! commands whose inputs the page does not make: each `ctx` command in it is only parsed (run with
//! `--help` appended, which clap answers once every argument before it is valid). A block that
//! needs an agent, the network or a build is fenced ```` ```sh,ignore ```` and not run.

use std::path::{Path, PathBuf};

use crate::common::TestEnv;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown whose shell blocks are runnable: the README, CONTRIBUTING.md and the book.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md"), repo().join("CONTRIBUTING.md")];
    let mut book: Vec<PathBuf> = std::fs::read_dir(repo().join("docs/src"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    book.sort();
    files.extend(book);
    files
}

/// A fenced block: the line of its opening fence (1-based), its info string and its text.
struct Block {
    fence: usize,
    info: String,
    text: String,
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some(Block {
                        fence: n + 1,
                        info: info.trim().to_string(),
                        text: String::new(),
                    });
                }
            }
            Some(block) => {
                if trimmed.starts_with("```") {
                    found.push(open.take().unwrap());
                } else {
                    block.text.push_str(line);
                    block.text.push('\n');
                }
            }
        }
    }
    found
}

/// How a block is checked.
#[derive(Debug, PartialEq)]
enum Mode {
    Run,
    Args,
    Skip,
}

fn mode(info: &str) -> Mode {
    let mut words = info.split([',', ' ']).filter(|w| !w.is_empty());
    if words.next() != Some("sh") {
        return Mode::Skip;
    }
    let attributes: Vec<&str> = words.collect();
    if attributes.contains(&"ignore") {
        Mode::Skip
    } else if attributes.contains(&"args") {
        Mode::Args
    } else {
        Mode::Run
    }
}

fn runnable(info: &str) -> bool {
    mode(info) != Mode::Skip
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs the runnable blocks of one document; the failures as `file:line: …`, the file as `shown`.
fn run_document(file: &Path, shown: &str) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let env = TestEnv::new();
    copy_dir(&repo().join("examples/demo"), &env.root);
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&env.root)
        .status()
        .expect("run git");
    assert!(git.success());
    let bin = assert_cmd::cargo::cargo_bin("ctx");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for block in blocks(&text).into_iter().filter(|b| runnable(&b.info)) {
        // The prelude is one line, so the block's line N is the script's line N + 1, and the ERR
        // trap names the command that failed.
        let parse_only = if mode(&block.info) == Mode::Args {
            "ctx() { command ctx \"$@\" --help >/dev/null || return; }; "
        } else {
            ""
        };
        let script = format!(
            "set -eE -o pipefail; {parse_only}trap 'echo \"@line $LINENO\" >&2' ERR\n{}",
            block.text
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(&env.root)
            .env_clear()
            .env("PATH", &path)
            .env("HOME", &env.home)
            .env("XDG_CONFIG_HOME", env.home.join(".config"))
            .env("XDG_CACHE_HOME", env.home.join(".cache"))
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .output()
            .expect("run bash");
        if out.status.success() {
            continue;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let line = stderr
            .lines()
            .rev()
            .filter_map(|l| l.strip_prefix("@line "))
            .find_map(|n| n.trim().parse::<usize>().ok())
            .map_or(block.fence, |n| block.fence + n - 1);
        let command = text.lines().nth(line - 1).unwrap_or("").trim();
        let said: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with("@line "))
            .collect();
        failures.push(format!(
            "{shown}:{line}: `{command}` failed ({}):\n    {}",
            out.status,
            said.join("\n    ")
        ));
    }
    failures
}

#[test]
fn the_shell_blocks_of_the_readme_and_the_book_run() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).unwrap();
        ran += blocks(&text).iter().filter(|b| runnable(&b.info)).count();
        let shown = file.strip_prefix(repo()).unwrap().display().to_string();
        failures.extend(run_document(&file, &shown));
    }
    assert!(ran > 0, "no runnable shell block found");
    assert!(
        failures.is_empty(),
        "shell blocks that fail:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_readmes_demo_output_is_what_ctx_prints() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let try_it = &readme[readme.find("## Try it").expect("README: no Try it")..];
    let found = blocks(try_it);
    let command = found[0]
        .text
        .lines()
        .next()
        .unwrap()
        .split('#')
        .next()
        .unwrap();
    let args: Vec<&str> = command
        .strip_prefix("cargo run -q -- ")
        .expect("Try it: the first command runs ctx through cargo run")
        .split_whitespace()
        .collect();
    assert_eq!(args, ["-C", "examples/demo", "frame", "tree"]);
    let shown = found.iter().find(|b| b.info.is_empty()).unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctx"))
        .args(&args)
        .current_dir(repo())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", repo().join("target/no-home"))
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shown.text);
}

#[test]
fn a_broken_command_is_reported_with_its_file_and_line() {
    let env = TestEnv::new();
    let doc = env.path("guide.md");
    std::fs::write(
        &doc,
        "# Guide\n\n```sh,ignore\nopencode\n```\n\n```sh\nctx frame tree\nctx frame tree --no-such-flag\nctx frame tree\n```\n\n```sh,args\nctx frame pop --transcript missing.json   # only parsed\nctx frame pop --status done\n```\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(&doc).unwrap();
    let runnable_blocks: Vec<usize> = blocks(&text)
        .iter()
        .filter(|b| runnable(&b.info))
        .map(|b| b.fence)
        .collect();
    assert_eq!(runnable_blocks, [7, 13]);
    let failures = run_document(&doc, "guide.md");
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(
        failures[0].starts_with("guide.md:9: `ctx frame tree --no-such-flag` failed"),
        "{}",
        failures[0]
    );
    assert!(failures[0].contains("--no-such-flag"), "{}", failures[0]);
    assert!(
        failures[1].starts_with("guide.md:15: `ctx frame pop --status done` failed"),
        "{}",
        failures[1]
    );
    assert!(
        failures[1].contains("invalid value 'done'"),
        "{}",
        failures[1]
    );
}

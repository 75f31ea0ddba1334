//! The cargo-fuzz targets of `fuzz/` on stable Rust: each target runs over its committed corpus
//! (`fuzz/corpus/<target>/`) and then over mutations of it (bit flips, JSON tokens, cuts, copies,
//! splices and deep nesting) from a fixed seed, within a count and a time limit, so that CI finds
//! the regressions that the real fuzzer (nightly, `cargo fuzz run <target>`) would.
//!
//! `CTX_FUZZ_ITERATIONS` and `CTX_FUZZ_SECONDS` raise the limits, `CTX_FUZZ_SEED` changes the
//! seed.

#[path = "../fuzz/src/lib.rs"]
mod targets;

use std::path::Path;
use std::time::{Duration, Instant};

const DEFAULT_ITERATIONS: usize = 10_000;
/// A debug build is slow; past this many seconds a target stops early and says so.
const DEFAULT_SECONDS: u64 = 15;

/// Bytes that matter to the parsers: JSON tokens and keys, markdown line starts.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"\\udc00",
    b"null",
    b"true",
    b"-",
    b"0",
    b"1e999",
    b".5",
    b"\xef\xbb\xbf",
    b"\0",
    b"\xff",
    b"\xc3",
    b" ",
    b"\n",
    b"\"version\"",
    b"\"frames\"",
    b"\"sessionID\"",
    b"\"parentSessionID\"",
    b"\"status\"",
    b"\"planned\"",
    b"\"messages\"",
    b"\"parts\"",
    b"\"info\"",
    b"\"role\"",
    b"\"type\"",
    b"\"text\"",
    b"\"tool\"",
    b"\"title\"",
    b"\"results\"",
    // opencode-swarm's files: plan.md and context.md lines, plan.json and config keys.
    b"## Phase ",
    b"- [x] ",
    b"- [ ] ",
    b"- [BLOCKED] ",
    b" [IN PROGRESS]",
    b" [COMPLETE]",
    b"\n---\n",
    b"\r",
    b"\xe2\x80\xa8",
    b"## Decisions\n",
    b"## Agent Activity\n",
    b"\"schema_version\"",
    b"\"current_phase\"",
    b"\"phases\"",
    b"\"tasks\"",
    b"\"agents\"",
    b"\"swarms\"",
    b"\"hooks\"",
    b"\"temperature\"",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One to four random edits of `input`, sometimes splicing in part of `other`.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(data.len() + 1);
        match rng.below(8) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                data.splice(at..at, token.iter().copied());
            }
            2 if !data.is_empty() => {
                let end = (at + 1 + rng.below(64)).min(data.len());
                data.drain(at.min(end)..end);
            }
            3 => data.truncate(at),
            4 if !data.is_empty() => {
                let start = rng.below(data.len());
                let end = (start + 1 + rng.below(256)).min(data.len());
                let copy = data[start..end].to_vec();
                data.splice(at..at, copy);
            }
            5 if !other.is_empty() => {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(512)).min(other.len());
                data.splice(at..at, other[start..end].iter().copied());
            }
            6 => {
                let depth = 1 + rng.below(300);
                let mut nested = b"[".repeat(depth);
                nested.extend_from_slice(&data);
                nested.extend(b"]".repeat(depth));
                data = nested;
            }
            _ => {
                let byte = rng.next() as u8;
                data.insert(at, byte);
            }
        }
    }
    data
}

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let inputs: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    assert!(!inputs.is_empty(), "{}: empty corpus", dir.display());
    inputs
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Runs `target` over its corpus, then mutations; a panic names the input that caused it.
fn run(name: &str, target: fn(&[u8])) {
    let corpus = corpus(name);
    for input in &corpus {
        check(name, target, input);
    }
    let iterations = env_number("CTX_FUZZ_ITERATIONS").map_or(DEFAULT_ITERATIONS, |n| n as usize);
    let seed = env_number("CTX_FUZZ_SEED").unwrap_or(0x5DEE_CE66_D1CE_F00D) | 1;
    let mut rng = Rng(seed);
    let limit = Duration::from_secs(env_number("CTX_FUZZ_SECONDS").unwrap_or(DEFAULT_SECONDS));
    let started = Instant::now();
    let mut done = 0;
    while done < iterations && started.elapsed() < limit {
        let base = &corpus[rng.below(corpus.len())];
        let other = &corpus[rng.below(corpus.len())];
        let input = mutate(&mut rng, base, other);
        check(name, target, &input);
        done += 1;
    }
    eprintln!(
        "{name}: {} corpus inputs and {done} mutations (seed {seed}) in {:.1?}",
        corpus.len(),
        started.elapsed()
    );
}

fn check(name: &str, target: fn(&[u8]), input: &[u8]) {
    let result = std::panic::catch_unwind(|| target(input));
    if result.is_err() {
        let path = std::env::temp_dir().join(format!("ctx-fuzz-{name}-crash"));
        let _ = std::fs::write(&path, input);
        panic!(
            "fuzz target {name} failed on an input saved to {} ({} bytes): {:?}",
            path.display(),
            input.len(),
            String::from_utf8_lossy(&input[..input.len().min(300)])
        );
    }
}

#[test]
fn fuzz_json() {
    run("json", targets::json);
}

#[test]
fn fuzz_state() {
    run("state", targets::state);
}

#[test]
fn fuzz_export() {
    run("export", targets::export);
}

#[test]
fn fuzz_messages() {
    run("messages", targets::messages);
}

#[test]
fn fuzz_pi_messages() {
    run("pi_messages", targets::pi_messages);
}

#[test]
fn fuzz_import() {
    run("import", targets::import);
}

#[test]
fn fuzz_plan_md() {
    run("plan_md", targets::plan_md);
}

#[test]
fn fuzz_plan_json() {
    run("plan_json", targets::plan_json);
}

#[test]
fn fuzz_context_md() {
    run("context_md", targets::context_md);
}

#[test]
fn fuzz_swarm_config() {
    run("swarm_config", targets::swarm_config);
}

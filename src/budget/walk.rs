//! The I/O side of an estimate: walking directories (`.gitignore`/`.ignore` aware, in parallel)
//! and counting files and streams in bounded memory, in parallel.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::estimate::ContentClass;
use super::tokenize::{Counter, Method, Utf8Stream};

/// Which files a directory walk includes.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Include hidden files and directories (`.git` is never included).
    pub hidden: bool,
    /// Do not apply `.gitignore`, `.ignore` and git's exclude files.
    pub no_ignore: bool,
    /// Globs (gitignore syntax) of paths to leave out.
    pub excludes: Vec<String>,
}

/// A file to count: its path and how to show it.
#[derive(Debug, Clone)]
pub struct FileEntry {
    pub path: PathBuf,
    pub display: String,
}

/// A counted input.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    pub path: String,
    pub tokens: u64,
    pub bytes: u64,
}

/// An input left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// Running totals, read by the progress line while counting goes on.
#[derive(Default)]
pub struct Progress {
    pub files: AtomicU64,
    pub bytes: AtomicU64,
    pub tokens: AtomicU64,
}

/// Files are read in chunks of this size; with one chunk per counting thread, memory stays small
/// whatever the file sizes.
const CHUNK: usize = 1 << 20;
/// Content with a NUL byte in its first 8000 bytes is binary (git's rule).
const SNIFF: usize = 8000;

/// How a path is shown: as given, without a leading `./`.
pub fn display_path(path: &Path) -> String {
    let text = path.display().to_string();
    match text.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => text,
    }
}

/// The files under `dirs` that the walk includes, with what it could not read. Sorted by path.
pub fn walk(
    dirs: &[PathBuf],
    options: &WalkOptions,
) -> Result<(Vec<FileEntry>, Vec<Skipped>), String> {
    let Some((first, rest)) = dirs.split_first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut builder = ignore::WalkBuilder::new(first);
    for dir in rest {
        builder.add(dir);
    }
    builder
        .hidden(!options.hidden)
        .standard_filters(!options.no_ignore)
        .hidden(!options.hidden)
        .follow_links(true)
        .filter_entry(|entry| entry.file_name() != ".git");
    if !options.no_ignore {
        // `.ignore` and `.gitignore` apply even outside a git repository.
        builder.require_git(false);
    }
    if !options.excludes.is_empty() {
        let mut overrides = ignore::overrides::OverrideBuilder::new(".");
        for glob in &options.excludes {
            overrides
                .add(&format!("!{glob}"))
                .map_err(|e| format!("--exclude {glob}: {e}"))?;
        }
        builder.overrides(overrides.build().map_err(|e| e.to_string())?);
    }
    let files = Mutex::new(Vec::new());
    let skipped = Mutex::new(Vec::new());
    builder.build_parallel().run(|| {
        Box::new(|result| {
            match result {
                Ok(entry) => {
                    let is_file = entry.file_type().is_some_and(|t| t.is_file());
                    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                    if is_file {
                        let path = entry.into_path();
                        let display = display_path(&path);
                        files.lock().unwrap().push(FileEntry { path, display });
                    } else if !is_dir && entry.depth() > 0 {
                        let display = display_path(entry.path());
                        skipped.lock().unwrap().push(Skipped {
                            path: display,
                            reason: "not a regular file".into(),
                        });
                    }
                }
                Err(err) => skipped.lock().unwrap().push(describe_walk_error(&err)),
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = files.into_inner().unwrap();
    let mut skipped = skipped.into_inner().unwrap();
    files.sort_by(|a, b| a.display.cmp(&b.display));
    files.dedup_by(|a, b| a.path == b.path);
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((files, skipped))
}

fn describe_walk_error(err: &ignore::Error) -> Skipped {
    use ignore::Error;
    match err {
        Error::WithPath { path, err } => {
            let reason = match err.as_ref() {
                Error::Io(io) => crate::error::describe_io(io).to_lowercase(),
                other => describe_walk_error(other).reason,
            };
            Skipped {
                path: display_path(path),
                reason,
            }
        }
        Error::WithDepth { err, .. } | Error::WithLineNumber { err, .. } => {
            describe_walk_error(err)
        }
        Error::Loop { child, .. } => Skipped {
            path: display_path(child),
            reason: "symlink loop".into(),
        },
        Error::Io(io) => Skipped {
            path: String::new(),
            reason: crate::error::describe_io(io).to_lowercase(),
        },
        other => Skipped {
            path: String::new(),
            reason: other.to_string(),
        },
    }
}

/// What reading one input gave.
pub enum Outcome {
    Counted { tokens: u64, bytes: u64 },
    Binary,
}

/// Counts a byte stream: binary (a NUL in the first 8000 bytes) or text, decoded lossily.
pub fn count_stream(
    mut reader: impl Read,
    method: Method,
    class: Option<ContentClass>,
    progress: &Progress,
) -> io::Result<Outcome> {
    // One buffer per thread, reused: a fresh 1 MiB buffer per small file would cost more than
    // counting it.
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        if buffer.len() < CHUNK {
            buffer.resize(CHUNK, 0);
        }
        count_with_buffer(&mut reader, buffer, method, class, progress)
    })
}

fn count_with_buffer(
    reader: &mut impl Read,
    buffer: &mut [u8],
    method: Method,
    class: Option<ContentClass>,
    progress: &Progress,
) -> io::Result<Outcome> {
    let mut counter = Counter::new(method, class);
    let mut stream = Utf8Stream::default();
    let mut bytes = 0u64;
    let mut first = true;
    loop {
        let n = read_full(reader, buffer, &progress.bytes)?;
        if n == 0 {
            break;
        }
        let chunk = &buffer[..n];
        if first {
            first = false;
            if chunk[..n.min(SNIFF)].contains(&0) {
                return Ok(Outcome::Binary);
            }
        }
        bytes += n as u64;
        stream.push(chunk, &mut |text| counter.feed(text));
    }
    stream.finish(&mut |text| counter.feed(text));
    let tokens = counter.finish();
    progress.tokens.fetch_add(tokens, Ordering::Relaxed);
    progress.files.fetch_add(1, Ordering::Relaxed);
    Ok(Outcome::Counted { tokens, bytes })
}

/// Fills `buffer` as far as the reader allows (pipes return short reads), adding what arrives to
/// `read` at once, so that a slow pipe's progress shows while the buffer fills.
fn read_full(reader: &mut impl Read, buffer: &mut [u8], read: &AtomicU64) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => {
                filled += n;
                read.fetch_add(n as u64, Ordering::Relaxed);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Counts files in parallel. Unreadable and binary files are returned as skipped.
pub fn count_files(
    files: &[FileEntry],
    method: Method,
    progress: &Progress,
) -> (Vec<Counted>, Vec<Skipped>) {
    let results: Vec<Result<Counted, Skipped>> = files
        .par_iter()
        .map(|file| count_file(file, method, progress))
        .collect();
    let mut counted = Vec::new();
    let mut skipped = Vec::new();
    for result in results {
        match result {
            Ok(c) => counted.push(c),
            Err(s) => skipped.push(s),
        }
    }
    (counted, skipped)
}

fn count_file(file: &FileEntry, method: Method, progress: &Progress) -> Result<Counted, Skipped> {
    let skip = |reason: String| Skipped {
        path: file.display.clone(),
        reason,
    };
    let handle = std::fs::File::open(&file.path)
        .map_err(|e| skip(crate::error::describe_io(&e).to_lowercase()))?;
    let class = ContentClass::from_path(&file.path);
    match count_stream(handle, method, class, progress) {
        Ok(Outcome::Counted { tokens, bytes }) => Ok(Counted {
            path: file.display.clone(),
            tokens,
            bytes,
        }),
        Ok(Outcome::Binary) => Err(skip("binary".into())),
        Err(e) => Err(skip(crate::error::describe_io(&e).to_lowercase())),
    }
}

//! A record of everything under a directory, to prove that a command changed nothing (or nothing
//! outside one folder).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a path is. Small files are kept whole; large ones by size, inode and modification time,
/// which any rewrite (in place or by rename) changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir,
    File(Vec<u8>),
    LargeFile {
        len: u64,
        inode: u64,
        modified: std::time::SystemTime,
    },
    Link(PathBuf),
    Other,
}

const WHOLE_UP_TO: u64 = 1 << 20;

/// Every path under `dir` (not following symbolic links), relative to it.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Like [`snapshot`], leaving out everything under `skip` (relative to `dir`).
pub fn snapshot_except(dir: &Path, skip: &Path) -> BTreeMap<PathBuf, Entry> {
    snapshot(dir)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(skip))
        .collect()
}

fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Entry>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path.strip_prefix(base).unwrap().to_path_buf();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let kind = if meta.file_type().is_symlink() {
            Entry::Link(std::fs::read_link(&path).unwrap())
        } else if meta.is_dir() {
            walk(base, &path, out);
            Entry::Dir
        } else if meta.is_file() && meta.len() <= WHOLE_UP_TO {
            Entry::File(std::fs::read(&path).unwrap())
        } else if meta.is_file() {
            Entry::LargeFile {
                len: meta.len(),
                inode: inode(&meta),
                modified: meta.modified().unwrap(),
            }
        } else {
            Entry::Other
        };
        out.insert(relative, kind);
    }
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

/// The modification time of every regular file under `dir` (not following symbolic links): a
/// rewrite with the same bytes shows here, not in [`snapshot`].
pub fn modified_times(dir: &Path) -> BTreeMap<PathBuf, std::time::SystemTime> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.flatten().map(|e| e.path()));
            }
        } else if meta.is_file() {
            let relative = path.strip_prefix(dir).unwrap().to_path_buf();
            out.insert(relative, meta.modified().unwrap());
        }
    }
    out
}

/// The files whose modification time differs (or that are gone) between two records.
pub fn modified_changes(
    before: &BTreeMap<PathBuf, std::time::SystemTime>,
    after: &BTreeMap<PathBuf, std::time::SystemTime>,
) -> Vec<PathBuf> {
    before
        .iter()
        .filter(|(p, t)| after.get(*p) != Some(t))
        .map(|(p, _)| p.clone())
        .collect()
}

/// The paths whose entry differs between two snapshots.
pub fn changes(
    before: &BTreeMap<PathBuf, Entry>,
    after: &BTreeMap<PathBuf, Entry>,
) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = before
        .iter()
        .filter(|(p, e)| after.get(*p) != Some(e))
        .map(|(p, _)| p.clone())
        .collect();
    paths.extend(after.keys().filter(|p| !before.contains_key(*p)).cloned());
    paths.sort();
    paths
}

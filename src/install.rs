//! The files ctx installs into other programs' folders — its OpenCode plugin and commands, its git
//! hooks — built into the binary, so that `cargo install` is all a user needs.
//!
//! Every written file carries a stamp: one comment line naming ctx and a hash of the rest of the
//! file. A file whose stamp matches its text is ctx's and untouched, so a newer ctx may replace it;
//! any other file at that path (changed by its owner, or never ctx's) is kept unless forced.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::document::Version;
use crate::error::{Error, Result};
use crate::frame::store;

/// How a file's comments start, which decides where its stamp goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// JavaScript: the stamp is the first line.
    Js,
    /// Markdown with YAML front matter: the stamp is the front matter's first line.
    Markdown,
    /// A shell script: the stamp follows the `#!` line.
    Shell,
}

/// One file ctx installs: its path below the target folder, its text, its kind and mode.
#[derive(Debug, Clone, Copy)]
pub struct Embedded {
    pub path: &'static str,
    pub text: &'static str,
    pub syntax: Syntax,
    pub executable: bool,
}

/// What `ctx opencode install` writes below `.opencode/` (or the user's OpenCode folder).
pub const OPENCODE_FILES: &[Embedded] = &[
    Embedded {
        path: "plugin/ctx.js",
        text: include_str!("../integrations/opencode/plugin/ctx.js"),
        syntax: Syntax::Js,
        executable: false,
    },
    command(
        "command/push.md",
        include_str!("../integrations/opencode/command/push.md"),
    ),
    command(
        "command/pop.md",
        include_str!("../integrations/opencode/command/pop.md"),
    ),
    command(
        "command/status.md",
        include_str!("../integrations/opencode/command/status.md"),
    ),
    command(
        "command/plan.md",
        include_str!("../integrations/opencode/command/plan.md"),
    ),
    command(
        "command/tree.md",
        include_str!("../integrations/opencode/command/tree.md"),
    ),
    command(
        "command/swarm-status.md",
        include_str!("../integrations/opencode/command/swarm-status.md"),
    ),
];

/// What `ctx pi install` writes below `.pi/` (or pi's agent folder).
pub const PI_FILES: &[Embedded] = &[Embedded {
    path: "extensions/ctx.ts",
    text: include_str!("../integrations/pi/extensions/ctx.ts"),
    syntax: Syntax::Js,
    executable: false,
}];

/// What `ctx claude install` writes below `.claude/` (or `~/.claude/`), beside the hooks it merges
/// into `settings.json`.
pub const CLAUDE_FILES: &[Embedded] = &[
    command(
        "commands/push.md",
        include_str!("../integrations/claude/commands/push.md"),
    ),
    command(
        "commands/pop.md",
        include_str!("../integrations/claude/commands/pop.md"),
    ),
    command(
        "commands/status.md",
        include_str!("../integrations/claude/commands/status.md"),
    ),
    command(
        "commands/plan.md",
        include_str!("../integrations/claude/commands/plan.md"),
    ),
    command(
        "commands/frame.md",
        include_str!("../integrations/claude/commands/frame.md"),
    ),
    command(
        "agents/ctx-frame.md",
        include_str!("../integrations/claude/agents/ctx-frame.md"),
    ),
];

/// What `ctx hooks install` writes into the repository's hooks folder.
pub const GIT_HOOKS: &[Embedded] = &[
    hook(
        "pre-commit",
        include_str!("../integrations/git-hooks/pre-commit"),
    ),
    hook(
        "post-commit",
        include_str!("../integrations/git-hooks/post-commit"),
    ),
];

const fn command(path: &'static str, text: &'static str) -> Embedded {
    Embedded {
        path,
        text,
        syntax: Syntax::Markdown,
        executable: false,
    }
}

const fn hook(path: &'static str, text: &'static str) -> Embedded {
    Embedded {
        path,
        text,
        syntax: Syntax::Shell,
        executable: true,
    }
}

/// The words every stamp starts with (after the comment marker).
const STAMP: &str = "Installed by ctx";

/// 64-bit FNV-1a: enough to tell an edited file from ctx's own, and dependency-free.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn stamp_line(syntax: Syntax, command: &str, body: &str) -> String {
    let marker = match syntax {
        Syntax::Js => "//",
        Syntax::Markdown | Syntax::Shell => "#",
    };
    format!(
        "{marker} {STAMP} {} ({command}); edit freely, ctx then leaves this file alone. fnv1a:{:016x}",
        env!("CARGO_PKG_VERSION"),
        fnv1a(body)
    )
}

/// Where the stamp line goes: the byte offset of the line it precedes.
fn stamp_at(syntax: Syntax, text: &str) -> usize {
    let after_first_line = text.find('\n').map_or(text.len(), |i| i + 1);
    match syntax {
        Syntax::Js => 0,
        Syntax::Markdown if text.starts_with("---\n") => after_first_line,
        Syntax::Markdown => 0,
        Syntax::Shell if text.starts_with("#!") => after_first_line,
        Syntax::Shell => 0,
    }
}

/// The file's text as ctx writes it: the embedded text with its stamp.
pub fn stamped(file: &Embedded, command: &str) -> String {
    let at = stamp_at(file.syntax, file.text);
    let mut out = String::with_capacity(file.text.len() + 120);
    out.push_str(&file.text[..at]);
    out.push_str(&stamp_line(file.syntax, command, file.text));
    out.push('\n');
    out.push_str(&file.text[at..]);
    out
}

/// Whether `text` is a file ctx wrote and nobody changed since: its stamp's hash is the hash of
/// the rest of it.
fn is_untouched(text: &str) -> bool {
    let Some(start) = text.find(STAMP) else {
        return false;
    };
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..]
        .find('\n')
        .map_or(text.len(), |i| start + i + 1);
    let line = &text[line_start..line_end];
    let Some(hash) = line
        .trim_end()
        .rsplit_once("fnv1a:")
        .and_then(|(_, hex)| u64::from_str_radix(hex, 16).ok())
    else {
        return false;
    };
    let body = format!("{}{}", &text[..line_start], &text[line_end..]);
    fnv1a(&body) == hash
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// It did not exist and was written.
    Written,
    /// An earlier, untouched copy by ctx was replaced.
    Updated,
    /// It already holds what ctx would write.
    UpToDate,
    /// Someone changed it (or it is not ctx's): kept; `--force` replaces it.
    Kept,
    /// It was replaced although it had been changed (`--force`).
    Replaced,
    /// An untouched copy by ctx was deleted (`--remove`).
    Removed,
    /// There was nothing to delete (`--remove`).
    Absent,
}

impl Action {
    pub fn describe(self) -> &'static str {
        match self {
            Action::Written => "written",
            Action::Updated => "updated",
            Action::UpToDate => "up to date",
            Action::Kept => "kept: changed since ctx wrote it",
            Action::Replaced => "replaced (--force)",
            Action::Removed => "removed",
            Action::Absent => "not there",
        }
    }

    /// What `--dry-run` says instead: what would be done.
    pub fn describe_planned(self) -> &'static str {
        match self {
            Action::Written => "would be written",
            Action::Updated => "would be updated",
            Action::UpToDate => "up to date",
            Action::Kept => "would be kept: changed since ctx wrote it",
            Action::Replaced => "would be replaced (--force)",
            Action::Removed => "would be removed",
            Action::Absent => "not there",
        }
    }
}

/// One file's outcome.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub path: PathBuf,
    pub action: Action,
}

/// How long an install waits for another ctx install into the same folder to finish.
const FOLDER_LOCK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The lock of an install into the folder `dir` (held until dropped), with the temp files that
/// killed installs left there swept: for each of `files` (paths below or beside `dir`), the
/// temp files of its name in its folder. Every ctx install writes only while holding this lock,
/// so a temp file found under it is a dead writer's: left, it could be a readable copy of a
/// private file, and it would keep `--remove` from removing a folder it emptied. No lock where
/// `dir` does not exist yet: nothing was written there, so there is nothing to sweep.
pub fn lock_and_sweep<'p>(
    dir: &Path,
    files: impl IntoIterator<Item = &'p Path>,
) -> Result<Option<std::fs::File>> {
    let Some(lock) = store::lock_folder(dir, FOLDER_LOCK_TIMEOUT)? else {
        return Ok(None);
    };
    for file in files {
        if let (Some(folder), Some(name)) =
            (file.parent(), file.file_name().and_then(|n| n.to_str()))
        {
            crate::safe_file::remove_dead_temps_of(folder, name);
        }
    }
    Ok(Some(lock))
}

/// Refuses a destination that a dangling symbolic link would send elsewhere: writing
/// `.claude/settings.json` through a link to `../../x/s.json` would create folders and a file
/// wherever the link says, and a cloned repository can ship such a link. The path itself and
/// every folder above it that does not exist yet are checked; a link to something that exists is
/// the user's choice (a dotfiles folder) and is followed.
pub fn check_destination(path: &Path) -> Result<()> {
    for at in path.ancestors().filter(|a| !a.as_os_str().is_empty()) {
        if std::fs::metadata(at).is_ok() {
            return Ok(());
        }
        let Ok(meta) = std::fs::symlink_metadata(at) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(at).unwrap_or_default();
            let what = if at == path {
                "files"
            } else {
                "folders and files"
            };
            return Err(Error::failure(format!(
                "{}: is a symbolic link to {}, which does not exist; ctx does not create {what} \
                 through it, and nothing was changed",
                at.display(),
                target.display()
            ))
            .with_hint("remove the link, or create what it points to, then install again"));
        }
    }
    Ok(())
}

/// Refuses to replace or delete a file its owner made read-only, as an editor would: renaming a
/// new file over it would go around its mode. As root, where every file opens for writing, a
/// file with no write permission for anyone counts as read-only too.
pub fn check_writable(path: &Path) -> Result<()> {
    // Only a regular file is opened: opening a named pipe to write would wait for a reader.
    let Some(meta) = std::fs::metadata(path).ok().filter(|m| m.is_file()) else {
        return Ok(());
    };
    let denied = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .is_err_and(|e| e.kind() == std::io::ErrorKind::PermissionDenied);
    if meta.permissions().readonly() || denied {
        return Err(Error::failure(format!(
            "{}: is read-only; ctx does not write over it, and nothing was changed",
            path.display()
        ))
        .with_hint("make it writable (chmod u+w), then run the command again"));
    }
    Ok(())
}

/// Where an agent's settings or hooks file that ctx merges its hooks into is written: the file itself, or the file a symbolic link points to
/// (the link stays, as an editor saving through it would keep it). A dangling link and a
/// read-only file are refused.
pub fn settings_target(path: &Path) -> Result<PathBuf> {
    check_destination(path)?;
    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            // The end of the whole chain (a link to a link to the file): writing at the first
            // link's target would replace the middle link with a file, and the real file would
            // never change. The link was checked to lead to something that exists.
            let target = std::fs::canonicalize(path).map_err(|e| Error::io(path, "read", &e))?;
            match std::fs::metadata(&target) {
                Ok(meta) if !meta.is_file() => {
                    return Err(Error::failure(format!(
                        "{}: links to {}, which is not a regular file",
                        path.display(),
                        target.display()
                    )));
                }
                _ => target,
            }
        }
        Ok(meta) if !meta.is_file() => {
            return Err(Error::failure(format!(
                "{}: is not a regular file",
                path.display()
            )));
        }
        _ => path.to_path_buf(),
    };
    check_writable(&target)?;
    Ok(target)
}

/// The text of the settings file at `path` (read at `target`, where a link leads), `None` when
/// there is none yet; a file that is not UTF-8 is refused.
pub fn read_settings(path: &Path, target: &Path) -> Result<Option<String>> {
    match read_settings_bytes(target) {
        Ok(bytes) => Ok(Some(String::from_utf8(bytes).map_err(|_| {
            Error::failure(format!(
                "{}: not UTF-8 text; nothing was changed",
                path.display()
            ))
        })?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => Err(Error::failure(format!(
            "{}: larger than {} MiB, more than any agent's settings; nothing was changed",
            path.display(),
            MAX_SETTINGS >> 20
        ))),
        Err(e) => Err(Error::io(target, "read", &e)),
    }
}

/// An agent's settings or hooks file larger than this is refused unread: the agents' own are a
/// few kilobytes.
const MAX_SETTINGS: u64 = 16 << 20;

/// The bytes of a settings file: a regular file of at most [`MAX_SETTINGS`] bytes, refused
/// (`FileTooLarge`) without reading it whole.
fn read_settings_bytes(target: &Path) -> std::io::Result<Vec<u8>> {
    crate::safe_file::read_regular_capped(target, MAX_SETTINGS)
}

/// Refuses when the settings file at `path` (read at `target`, where a link leads) no longer
/// holds `read`, the text the merge started from (`None`: there was no file): another program
/// wrote it meanwhile, and writing or deleting it now would lose that write. This narrows the
/// window to the instant between this read and the rename or removal; only a lock every writer
/// takes would close it, and the agents and editors that write these files take none.
pub fn check_unchanged(path: &Path, target: &Path, read: Option<&str>) -> Result<()> {
    let now = match read_settings_bytes(target) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(target, "read", &e)),
    };
    if now.as_deref() == read.map(str::as_bytes) {
        return Ok(());
    }
    Err(Error::failure(format!(
        "{}: changed by another program since ctx read it; ctx left it as it is now",
        path.display()
    ))
    .with_hint("run the command again: it starts from the new text"))
}

/// Replaces the settings file `target` atomically, keeping its mode.
pub fn write_settings(target: &Path, text: &str) -> Result<()> {
    let parent = target.parent().unwrap_or(Path::new("."));
    create_folders(parent)?;
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("settings.json")
        .to_string();
    let mode = crate::safe_file::existing_mode(target);
    crate::safe_file::write_atomically(parent, target, mode, &name, |out| {
        out.write_all(text.as_bytes())
    })
}

/// Installs `files` below `dir`: writes what is missing or ctx's own and out of date, keeps what
/// someone changed unless `force`, and with `dry_run` only says what it would do. Nothing is
/// written unless every file can be: a dangling link or a read-only file refuses the lot.
pub fn install(
    dir: &Path,
    files: &[Embedded],
    command: &str,
    force: bool,
    dry_run: bool,
) -> Result<Vec<Outcome>> {
    let mut outcomes = Vec::with_capacity(files.len());
    for file in files {
        let path = dir.join(file.path);
        check_destination(&path)?;
        check_writable(&path)?;
    }
    for file in files {
        let path = dir.join(file.path);
        let wanted = stamped(file, command);
        let action = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Action::Written,
            Err(e) => return Err(Error::io(&path, "read", &e)),
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Error::failure(format!(
                    "{}: is a symbolic link; ctx does not write through it",
                    path.display()
                ))
                .with_hint("remove the link, then install again"));
            }
            Ok(meta) if !meta.is_file() => {
                return Err(Error::failure(format!(
                    "{}: is not a regular file",
                    path.display()
                )));
            }
            Ok(_) => {
                let existing = std::fs::read(&path).map_err(|e| Error::io(&path, "read", &e))?;
                match std::str::from_utf8(&existing) {
                    Ok(text) if text == wanted => Action::UpToDate,
                    Ok(text) if is_untouched(text) => Action::Updated,
                    _ if force => Action::Replaced,
                    _ => Action::Kept,
                }
            }
        };
        let writes = matches!(action, Action::Written | Action::Updated | Action::Replaced);
        if writes && !dry_run {
            write(&path, &wanted, file.executable)?;
        }
        outcomes.push(Outcome { path, action });
    }
    Ok(outcomes)
}

/// Deletes the files of `files` below `dir` that ctx wrote and nobody changed since; keeps the
/// others (reported as kept). The folders they leave empty are [`remove_emptied_folders`]'s.
pub fn uninstall(dir: &Path, files: &[Embedded], dry_run: bool) -> Result<Vec<Outcome>> {
    let mut outcomes = Vec::with_capacity(files.len());
    for file in files {
        check_writable(&dir.join(file.path))?;
    }
    for file in files {
        let path = dir.join(file.path);
        let action = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Action::Absent,
            Err(e) => return Err(Error::io(&path, "read", &e)),
            Ok(meta) if !meta.is_file() => Action::Kept,
            Ok(_) => {
                let existing = std::fs::read(&path).map_err(|e| Error::io(&path, "read", &e))?;
                match std::str::from_utf8(&existing) {
                    Ok(text) if is_untouched(text) => Action::Removed,
                    _ => Action::Kept,
                }
            }
        };
        if action == Action::Removed && !dry_run {
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, "remove", &e))?;
        }
        outcomes.push(Outcome { path, action });
    }
    Ok(outcomes)
}

/// The paths of the outcomes that removed (or, with `--dry-run`, would remove) a file.
pub fn removed_paths(outcomes: &[Outcome]) -> impl Iterator<Item = &Path> {
    outcomes
        .iter()
        .filter(|o| o.action == Action::Removed)
        .map(|o| o.path.as_path())
}

/// Removes the folders `--remove` left empty, deepest first, and returns them: each folder that
/// held one of the `removed` files (deleted already, or, with `dry_run`, to be deleted), from
/// the file's own up to `dir` (the folder the install wrote into, which it may have created)
/// and never above it, when nothing else is in it and an install made it ([`was_made`]). With `dry_run`, only says which would go. A
/// symbolic link to a folder is never a folder to remove.
pub fn remove_emptied_folders<'p>(
    dir: &Path,
    removed: impl IntoIterator<Item = &'p Path>,
    dry_run: bool,
) -> Vec<PathBuf> {
    let mut gone: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut folders: Vec<PathBuf> = Vec::new();
    for path in removed {
        gone.insert(path.to_path_buf());
        for folder in path.ancestors().skip(1) {
            if !folder.starts_with(dir) {
                break;
            }
            folders.push(folder.to_path_buf());
        }
    }
    folders.sort_unstable_by(|a, b| {
        let depth = |p: &PathBuf| p.components().count();
        depth(b).cmp(&depth(a)).then_with(|| a.cmp(b))
    });
    folders.dedup();
    let mut emptied = Vec::new();
    for folder in folders {
        let is_folder = std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir());
        let Ok(entries) = std::fs::read_dir(&folder).map(|e| e.collect::<Vec<_>>()) else {
            continue;
        };
        let empty = entries
            .iter()
            .all(|e| e.as_ref().is_ok_and(|e| gone.contains(&e.path())));
        // `remove_dir` removes only an empty folder: a file that came meanwhile keeps it.
        if is_folder
            && empty
            && was_made(&folder)
            && (dry_run || std::fs::remove_dir(&folder).is_ok())
        {
            gone.insert(folder.clone());
            emptied.push(folder);
        }
    }
    emptied
}

/// What became of an agent's hooks file once saved, and of the folders around it.
#[derive(Debug, Default)]
pub struct Saved {
    /// The file was (with `dry_run`: would be) deleted: `--remove` left nothing else in it.
    pub deleted: bool,
    /// The folders `--remove` left empty and removed (with `dry_run`: would), deepest first.
    pub folders: Vec<PathBuf>,
}

/// Saves an agent's hooks file `path` (written at `target`, where a link leads) after the merge
/// of `read`, its text then (`None`: there was none), unless another program changed it since
/// ([`check_unchanged`]): writes its new text, or, when `--remove` left it holding nothing at all, deletes it rather
/// than leave `{}` behind (a symbolic link is written through as ever, never deleted with what
/// it points to); a file the merge left as it was is not touched. Then the folders below `dir`
/// that it and the `files` removed beside it leave empty go too ([`remove_emptied_folders`]).
pub fn save_settings(
    dir: &Path,
    path: &Path,
    target: &Path,
    read: Option<&str>,
    merged: &crate::hooks::settings::Merged,
    files: &[Outcome],
    dry_run: bool,
) -> Result<Saved> {
    // A file without ctx's hooks (or no file at all) stays as it is, but the files removed
    // beside it may still leave their folders empty, so those are looked at all the same.
    let deleted = merged.text.is_some() && merged.emptied && target == path;
    if !dry_run && deleted {
        check_unchanged(path, target, read)?;
        std::fs::remove_file(path).map_err(|e| Error::io(path, "remove", &e))?;
    } else if let (false, Some(text)) = (dry_run, merged.text.as_deref()) {
        check_unchanged(path, target, read)?;
        write_settings(target, text)?;
    }
    let settings = deleted.then_some(path);
    let folders = remove_emptied_folders(dir, removed_paths(files).chain(settings), dry_run);
    Ok(Saved { deleted, folders })
}

fn write(path: &Path, text: &str, executable: bool) -> Result<()> {
    let parent = path.parent().expect("installed files are below a folder");
    create_folders(parent)?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .expect("installed file names are UTF-8");
    let mode = if executable { Some(0o755) } else { None };
    crate::safe_file::write_atomically(parent, path, mode, name, |out| {
        out.write_all(text.as_bytes())
    })
}

/// Creates `folder` and the folders above it that are missing, each marked as made by ctx
/// ([`mark_made`]), so that `--remove` takes out only folders ctx made, never one that was there
/// before (pi's `~/.pi/agent/`, an empty `.claude/`).
fn create_folders(folder: &Path) -> Result<()> {
    let missing: Vec<&Path> = folder
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .take_while(|a| std::fs::symlink_metadata(a).is_err())
        .collect();
    std::fs::create_dir_all(folder).map_err(|e| Error::io(folder, "create the directory", &e))?;
    for made in missing {
        mark_made(made);
    }
    Ok(())
}

/// The extended attribute that says ctx made a folder. A folder carries it, not a file beside
/// it, so that nothing is added that an agent would list, and a copy of the folder by other means
/// does not claim it.
#[cfg(any(target_os = "linux", target_os = "macos"))]
const MADE_BY_CTX: &std::ffi::CStr = c"user.ctx.made";

/// Marks `folder` as made by ctx. Where the file system keeps no extended attributes, nothing is
/// marked and `--remove` leaves the folder: keeping a folder ctx made costs an empty folder,
/// removing one it did not could cost the user's.
fn mark_made(folder: &Path) {
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    if let Some(path) = c_path(folder) {
        let value = b"1";
        // SAFETY: both names are NUL-terminated C strings that outlive the call, and the value
        // is a live buffer of the length given.
        #[cfg(target_os = "linux")]
        let _ = unsafe {
            libc::lsetxattr(
                path.as_ptr(),
                MADE_BY_CTX.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
            )
        };
        #[cfg(target_os = "macos")]
        let _ = unsafe {
            libc::setxattr(
                path.as_ptr(),
                MADE_BY_CTX.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
                libc::XATTR_NOFOLLOW,
            )
        };
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    let _ = folder;
}

/// Whether `folder` carries ctx's mark ([`mark_made`]).
pub fn was_made(folder: &Path) -> bool {
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    if let Some(path) = c_path(folder) {
        let mut value = [0u8; 4];
        // SAFETY: as in `mark_made`; the buffer is live and its length is given.
        #[cfg(target_os = "linux")]
        let len = unsafe {
            libc::lgetxattr(
                path.as_ptr(),
                MADE_BY_CTX.as_ptr(),
                value.as_mut_ptr().cast(),
                value.len(),
            )
        };
        #[cfg(target_os = "macos")]
        let len = unsafe {
            libc::getxattr(
                path.as_ptr(),
                MADE_BY_CTX.as_ptr(),
                value.as_mut_ptr().cast(),
                value.len(),
                0,
                libc::XATTR_NOFOLLOW,
            )
        };
        return len == 1 && value[0] == b'1';
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    let _ = folder;
    false
}

#[cfg(any(target_os = "linux", target_os = "macos"))]
fn c_path(path: &Path) -> Option<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt as _;
    std::ffi::CString::new(path.as_os_str().as_bytes()).ok()
}

/// The one-line report of an outcome, with `path` shown relative to `base` where it is below it.
pub fn report_line(outcome: &Outcome, base: &Path, dry_run: bool) -> String {
    let shown = outcome.path.strip_prefix(base).unwrap_or(&outcome.path);
    let action = if dry_run {
        outcome.action.describe_planned()
    } else {
        outcome.action.describe()
    };
    let mut line = String::new();
    let _ = write!(line, "{}: {action}", shown.display());
    line
}

/// The one-line report of a folder `--remove` left empty and removed.
pub fn folder_line(folder: &Path, base: &Path, dry_run: bool) -> String {
    let shown = folder.strip_prefix(base).unwrap_or(folder);
    let what = if dry_run {
        "would be removed (left empty)"
    } else {
        "removed (left empty)"
    };
    format!("{}/: {what}", shown.display())
}

/// What `ctx opencode install --json`, `ctx pi install --json` and `ctx hooks install --json`
/// print.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct InstallDoc {
    pub version: Version,
    /// The folder the files were written into.
    pub dir: String,
    pub dry_run: bool,
    pub files: Vec<InstalledFile>,
    /// The folders `--remove` left empty and removed (with `dry_run`: would), deepest first.
    pub folders_removed: Vec<String>,
}

/// What `ctx claude install --json` prints.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct ClaudeInstallDoc {
    pub version: Version,
    /// The settings file ctx's hooks are merged into (or taken out of).
    pub settings: String,
    pub dry_run: bool,
    /// Whether ctx's hooks and commands were taken out (`--remove`).
    pub remove: bool,
    /// Whether the settings file changed (with `dry_run`: would change).
    pub settings_changed: bool,
    /// Whether the settings file was removed (with `dry_run`: would be), since `--remove` left
    /// nothing else in it.
    pub settings_removed: bool,
    /// The events of the hook entries added, in order.
    pub added: Vec<String>,
    /// The events of ctx's earlier hook entries taken out (replaced on an install).
    pub removed: Vec<String>,
    /// The slash command files.
    pub files: Vec<InstalledFile>,
    /// The folders `--remove` left empty and removed (with `dry_run`: would), deepest first.
    pub folders_removed: Vec<String>,
}

/// What `ctx codex install --json` (and `ctx qwen`, `ctx copilot` and `ctx gemini install --json`) print.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct CodexInstallDoc {
    pub version: Version,
    /// The hooks file ctx's hooks are merged into (or taken out of).
    pub hooks: String,
    pub dry_run: bool,
    /// Whether ctx's hooks were taken out (`--remove`).
    pub remove: bool,
    /// Whether the hooks file changed (with `dry_run`: would change).
    pub hooks_changed: bool,
    /// Whether the hooks file was removed (with `dry_run`: would be), since `--remove` left
    /// nothing else in it.
    pub hooks_removed: bool,
    /// The events of the hook entries added, in order.
    pub added: Vec<String>,
    /// The events of ctx's earlier hook entries taken out (replaced on an install).
    pub removed: Vec<String>,
    /// The folders `--remove` left empty and removed (with `dry_run`: would), deepest first.
    pub folders_removed: Vec<String>,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct InstalledFile {
    pub path: String,
    pub action: Action,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_go_where_each_syntax_allows_comments() {
        let js = stamped(&OPENCODE_FILES[0], "ctx opencode install");
        assert!(js.starts_with("// Installed by ctx "), "{js}");
        let md = stamped(&OPENCODE_FILES[1], "ctx opencode install");
        assert!(md.starts_with("---\n# Installed by ctx "), "{md}");
        let sh = stamped(&GIT_HOOKS[0], "ctx hooks install");
        assert!(sh.starts_with("#!/bin/sh\n# Installed by ctx "), "{sh}");
    }

    #[test]
    fn a_stamped_file_is_untouched_until_someone_edits_it() {
        for file in OPENCODE_FILES
            .iter()
            .chain(GIT_HOOKS)
            .chain(CLAUDE_FILES)
            .chain(PI_FILES)
        {
            let text = stamped(file, "ctx x");
            assert!(is_untouched(&text), "{}", file.path);
            assert!(!is_untouched(&text.replacen('e', "E", 1)), "{}", file.path);
            assert!(!is_untouched(file.text), "{}: no stamp", file.path);
        }
    }

    #[test]
    fn a_settings_file_written_since_it_was_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{}\n").unwrap();
        assert!(check_unchanged(&path, &path, Some("{}\n")).is_ok());
        std::fs::write(&path, "{\"model\": \"opus\"}\n").unwrap();
        let err = check_unchanged(&path, &path, Some("{}\n")).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: changed by another program since ctx read it; ctx left it as it is now",
                path.display()
            )
        );
        // Created meanwhile, or deleted meanwhile: changed too.
        assert!(check_unchanged(&path, &path, None).is_err());
        std::fs::remove_file(&path).unwrap();
        assert!(check_unchanged(&path, &path, Some("{}\n")).is_err());
        assert!(check_unchanged(&path, &path, None).is_ok());
        // Compared byte for byte, whatever the bytes: no UTF-8 error hides a change.
        std::fs::write(&path, b"\xff").unwrap();
        assert!(check_unchanged(&path, &path, Some("{}")).is_err());
    }

    #[test]
    fn every_command_file_has_its_own_path() {
        let mut paths: Vec<&str> = OPENCODE_FILES.iter().map(|f| f.path).collect();
        paths.sort_unstable();
        paths.dedup();
        assert_eq!(paths.len(), OPENCODE_FILES.len());
    }
}

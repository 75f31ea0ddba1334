//! The project's own Markdown: every relative link names a file that exists, and every `#anchor`
//! a heading of the file it points into (as GitHub makes anchors of headings), so that a renamed
//! heading or a moved file fails here, naming the file and line of the link.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files people read: the top level (README, CONTRIBUTING, …), the integrations' own
/// and the book's chapters.
fn markdown_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        ".",
        "integrations/opencode",
        "integrations/claude",
        "docs",
        "docs/src",
    ] {
        let Ok(entries) = std::fs::read_dir(repo().join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` dropped, spaces
/// as `-`; a repeated heading gets `-1`, `-2`, ….
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut unique = slug.clone();
        let mut n = 0;
        while seen.contains(&unique) {
            n += 1;
            unique = format!("{slug}-{n}");
        }
        seen.insert(unique);
    }
    seen
}

/// The targets of the inline links `[text](target)` outside code, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_code = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Inline code spans are not links.
        let line: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            found.push((n + 1, target.to_string()));
            rest = &after[end..];
        }
    }
    found
}

#[test]
fn every_relative_link_and_anchor_of_the_markdown_resolves() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file
            .strip_prefix(repo())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line, target) in links(&text) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            if !linked.exists() {
                broken.push(format!("{shown}:{line}: {target}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor {
                let text = std::fs::read_to_string(&linked).unwrap_or_default();
                if !anchors(&text).contains(anchor) {
                    broken.push(format!("{shown}:{line}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let made = anchors(
        "# Hook mode — ctx called by an agent, not by you\n## `ctx compact` — what goes back\n## Install\n## Install\n",
    );
    for anchor in [
        "hook-mode--ctx-called-by-an-agent-not-by-you",
        "ctx-compact--what-goes-back",
        "install",
        "install-1",
    ] {
        assert!(made.contains(anchor), "{anchor}: {made:?}");
    }
    let found = links("see [a](#x) and `[b](#not)`, [c](docs/a.md#y)\n```\n[d](#code)\n```\n");
    assert_eq!(
        found,
        [(1, "#x".to_string()), (1, "docs/a.md#y".to_string())]
    );
}

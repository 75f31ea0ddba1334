//! The extractors E1–E6 (swarm.md §7): what opencode-swarm pulls out of the plan text and
//! `context.md` for status lines, compaction and system-prompt entries.

use super::text::{cap, cut16, find_ignore_case, lines, starts_with_ignore_case, trim};
use crate::text::utf16_len;

/// E1: the current phase, `Phase N: desc [IN PROGRESS]` or `Phase N [PENDING]` (§7.1).
pub fn current_phase(plan: &str) -> Option<String> {
    let first: Vec<&str> = lines(plan).take(20).collect();
    for line in &first {
        if let Some(found) = in_progress_heading(trim(line)) {
            return Some(found);
        }
    }
    first
        .iter()
        .take(3)
        .find_map(|line| header_phase(trim(line)))
        .map(|n| format!("Phase {n} [PENDING]"))
}

fn in_progress_heading(t: &str) -> Option<String> {
    let rest = t.strip_prefix("## ")?;
    if !starts_with_ignore_case(rest, "phase ") {
        return None;
    }
    let rest = &rest["phase ".len()..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number = &rest[..digits];
    let rest = &rest[digits..];
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let tag = find_ignore_case(rest, "[IN PROGRESS]")?;
    let desc = trim(&rest[..tag]);
    if desc.contains(['\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    Some(format!("Phase {number}: {desc} [IN PROGRESS]"))
}

/// The header fallback: the leftmost `Phase:` (any case) followed by optional whitespace and digits.
fn header_phase(t: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(at) = find_ignore_case(&t[from..], "phase:") {
        let after = &t[from + at + "phase:".len()..];
        let after = super::text::trim_start(after);
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            return Some(&after[..digits]);
        }
        from += at + 1;
    }
    None
}

/// The open tasks of the in-progress region(s), trimmed, in order (the scan of §7.2–7.3).
fn open_tasks_in_progress(plan: &str) -> impl Iterator<Item = &str> {
    let mut inside = false;
    let mut ended = false;
    lines(plan).filter_map(move |line| {
        if ended {
            return None;
        }
        if line.starts_with("## ") && find_ignore_case(line, "[IN PROGRESS]").is_some() {
            inside = true;
            return None;
        }
        if !inside {
            return None;
        }
        let t = trim(line);
        if line.starts_with("## ") || t == "---" {
            ended = true;
            return None;
        }
        t.starts_with("- [ ]").then_some(t)
    })
}

/// E2: the current task, the first open task line of the in-progress region, trimmed (§7.2).
pub fn current_task(plan: &str) -> Option<String> {
    open_tasks_in_progress(plan).next().map(str::to_string)
}

/// E3: the open tasks of the in-progress region, capped at `n` UTF-16 units (§7.3).
pub fn incomplete_tasks(plan: &str, n: usize) -> Option<String> {
    let collected: Vec<&str> = open_tasks_in_progress(plan).collect();
    if collected.is_empty() {
        return None;
    }
    Some(cap(trim(&collected.join("\n")), n))
}

/// E4 (`## Decisions`) and E5 (`## Patterns`): the section's column-0 `- ` lines, capped (§7.4).
pub fn section_bullets(context: &str, title: &str, n: usize) -> Option<String> {
    let mut all = lines(context);
    all.by_ref().find(|line| trim(line) == title)?;
    let collected: Vec<&str> = all
        .take_while(|line| !line.starts_with("## ") || trim(line) == title)
        .filter(|line| line.starts_with("- "))
        .collect();
    if collected.is_empty() {
        return None;
    }
    Some(cap(trim(&collected.join("\n")), n))
}

pub fn decisions(context: &str, n: usize) -> Option<String> {
    section_bullets(context, "## Decisions", n)
}

pub fn patterns(context: &str, n: usize) -> Option<String> {
    section_bullets(context, "## Patterns", n)
}

/// E6: the agent activity summary for agent `agent`, at most `m` UTF-16 units (§7.5).
pub fn agent_activity(context: &str, agent: &str, m: usize) -> Option<String> {
    const HEADING: &str = "## Agent Activity\n";
    let start = context.find(HEADING)? + HEADING.len();
    let rest = &context[start..];
    let body = trim(rest.find("\n## ").map_or(rest, |end| &rest[..end]));
    if body.is_empty() || body == "No tool activity recorded yet." {
        return None;
    }
    let role = ["paid_", "local_", "mega_", "default_"]
        .iter()
        .find_map(|prefix| agent.strip_prefix(prefix))
        .unwrap_or(agent);
    let label = match role {
        "coder" => "Recent tool activity for review context:\n",
        "reviewer" => "Tool usage to review:\n",
        "test_engineer" => "Tool activity for test context:\n",
        _ => "Agent activity summary:\n",
    };
    let s = format!("{label}{body}");
    if utf16_len(&s) > m {
        Some(cut16(&s, m.saturating_sub(3)) + "...")
    } else {
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE_1: &str = "# Docs site migration\nSwarm: default\nPhase: 2 | Updated: 2026-03-01\n\n## Phase 1: Inventory [COMPLETE]\n- [x] 1.1: List legacy pages [SMALL]\n\n---\n\n## Phase 2 [IN PROGRESS]\n- [x] 2.1: Port navigation [MEDIUM]\n- [ ] 2.2: Port search (depends: 2.1) ← CURRENT\n- [BLOCKED] 2.3: Redirect map - needs DNS access\n";

    #[test]
    fn current_phase_forms() {
        assert_eq!(current_phase(EXAMPLE_1).unwrap(), "Phase 2:  [IN PROGRESS]");
        assert_eq!(
            current_phase("## Phase 3 Cleanup [in progress]").unwrap(),
            "Phase 3: Cleanup [IN PROGRESS]"
        );
        assert_eq!(
            current_phase("## PHASE 04: Named  [IN PROGRESS] trailing").unwrap(),
            "Phase 04: Named [IN PROGRESS]"
        );
        assert_eq!(
            current_phase("# T\nPhase: 5 [COMPLETE] | x\n## Phase 5 [COMPLETE]").unwrap(),
            "Phase 5 [PENDING]"
        );
        assert_eq!(
            current_phase("Current phase:\t7\n").unwrap(),
            "Phase 7 [PENDING]"
        );
        let late = format!("{}## Phase 9 [IN PROGRESS]\n", "x\n".repeat(20));
        assert_eq!(current_phase(&late), None);
        assert_eq!(current_phase("## Phase 2: a\rb [IN PROGRESS]"), None);
    }

    #[test]
    fn tasks_of_the_in_progress_region() {
        assert_eq!(
            current_task(EXAMPLE_1).unwrap(),
            "- [ ] 2.2: Port search (depends: 2.1) ← CURRENT"
        );
        let plan = "## A [IN PROGRESS]\n  - [ ] one\n## B [in progress]\n- [ ] two\n---\n## C [IN PROGRESS]\n- [ ] three\n";
        assert_eq!(incomplete_tasks(plan, 500).unwrap(), "- [ ] one\n- [ ] two");
        assert_eq!(incomplete_tasks(plan, 5).unwrap(), "- [ ]...");
        assert_eq!(
            incomplete_tasks("## Phase 1 [COMPLETE]\n- [ ] x", 500),
            None
        );
    }

    #[test]
    fn decisions_and_patterns() {
        let context = "# Context\n\n## Decisions\n- **Static export**: no server to run\n  - nested note\n### Later\n- **Keep old URLs**: inbound links\n\n## Patterns\n- One page per command\n";
        assert_eq!(
            decisions(context, 500).unwrap(),
            "- **Static export**: no server to run\n- **Keep old URLs**: inbound links"
        );
        assert_eq!(patterns(context, 500).unwrap(), "- One page per command");
        assert_eq!(decisions("## Decisions\r\n- a\r\n", 500).unwrap(), "- a");
        assert_eq!(decisions("## Decisions\n* a\n", 500), None);
    }

    #[test]
    fn agent_activity_labels_and_cuts() {
        let context = "x\n## Agent Activity\n\n| Tool | Calls |\n## Next\n";
        assert_eq!(
            agent_activity(context, "local_coder", 300).unwrap(),
            "Recent tool activity for review context:\n| Tool | Calls |"
        );
        assert_eq!(
            agent_activity(context, "architect", 10).unwrap(),
            "Agent a..."
        );
        let empty = "## Agent Activity\n\nNo tool activity recorded yet.\n";
        assert_eq!(agent_activity(empty, "coder", 300), None);
        assert_eq!(agent_activity("## Agent Activity\r\nx", "coder", 300), None);
    }
}

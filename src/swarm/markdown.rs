//! Markdown mode: byte for byte what opencode-swarm's `/swarm status`, `plan`, `agents` (4.3.0)
//! and `history` (4.4.0) return (swarm.md §8), and its compaction and system-prompt entries
//! (§9–10). Every function returns the plugin's string, without ctx's final newline.

use super::config::{Agent, SwarmConfig};
use super::extract;
use super::text::{is_t, is_w, js_number, js_parse_int, line_starts, lines, trim};

pub const NO_PLAN: &str = "No active swarm plan found.";

/// `/swarm status` (§8.2).
pub fn status(plan: Option<&str>, agents: usize) -> String {
    let Some(plan) = plan else {
        return NO_PLAN.to_string();
    };
    let phase = extract::current_phase(plan).unwrap_or_else(|| "Unknown".to_string());
    let (done, open) = count_checkboxes(plan);
    format!(
        "## Swarm Status\n\n**Current Phase**: {phase}\n**Tasks**: {done}/{} complete\n**Agents**: {agents} registered",
        done + open
    )
}

/// `- [x]` and `- [ ]` right at JavaScript line starts, over the whole text.
pub fn count_checkboxes(plan: &str) -> (usize, usize) {
    let mut done = 0;
    let mut open = 0;
    for start in line_starts(plan) {
        let rest = &plan[start..];
        if rest.starts_with("- [x]") {
            done += 1;
        } else if rest.starts_with("- [ ]") {
            open += 1;
        }
    }
    (done, open)
}

/// `/swarm plan [N]` (§8.3). `arg` is the first positional argument, if any.
pub fn plan(plan: Option<&str>, arg: Option<&str>) -> String {
    let Some(plan) = plan else {
        return NO_PLAN.to_string();
    };
    let Some(k) = arg.filter(|a| !trim(a).is_empty()).and_then(js_parse_int) else {
        return plan.to_string();
    };
    let mut inside = false;
    let mut out: Vec<&str> = Vec::new();
    for line in lines(plan) {
        if let Some(number) = phase_heading_number(line) {
            if number == k {
                inside = true;
                out.push(line);
                continue;
            }
            if inside {
                break;
            }
            continue;
        }
        if inside {
            if trim(line) == "---" && out.len() >= 2 {
                break;
            }
            out.push(line);
        }
    }
    if out.is_empty() {
        return format!("Phase {k} not found in plan.");
    }
    trim(&out.join("\n")).to_string()
}

/// The number of a column-0 `## Phase <digits>` line (case-sensitive).
fn phase_heading_number(line: &str) -> Option<i64> {
    let rest = line.strip_prefix("## Phase ")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| js_parse_int(&rest[..digits]).unwrap_or(0))
}

/// `/swarm agents` (§8.4).
pub fn agents(roster: &[Agent]) -> String {
    if roster.is_empty() {
        return "No agents registered.".to_string();
    }
    let mut out = vec!["## Registered Agents".to_string(), String::new()];
    out.extend(agent_entries(roster, |_| ""));
    out.join("\n")
}

/// The lines of each agent in `/swarm agents`; `suffix` adds to an agent's first line
/// (opencode-swarm 5.x marks agents with guardrail limits of their own).
pub fn agent_entries<'a>(roster: &'a [Agent], suffix: impl Fn(&Agent) -> &'a str) -> Vec<String> {
    let mut out = Vec::new();
    for agent in roster {
        let model = if agent.model.is_empty() {
            "default"
        } else {
            &agent.model
        };
        let temp = agent
            .temperature
            .map_or_else(|| "default".to_string(), js_number);
        let access = if agent.read_only {
            "\u{1f512} read-only"
        } else {
            "\u{270f}\u{fe0f} read-write"
        };
        out.push(format!(
            "- **{}** | model: `{model}` | temp: {temp} | {access}{}",
            agent.name,
            suffix(agent)
        ));
        if !agent.description.is_empty() {
            out.push(format!("  {}", agent.description));
        }
    }
    out
}

/// One row of `/swarm history`.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryRow {
    pub number: i64,
    pub name: String,
    pub status: &'static str,
    /// `(done, total)`, or `None` for `-`.
    pub tasks: Option<(usize, usize)>,
}

/// `/swarm history` (opencode-swarm 4.4.0, §8.5).
pub fn history(plan: Option<&str>) -> String {
    const NONE: &str = "No history available.";
    let Some(plan) = plan else {
        return NONE.to_string();
    };
    let rows = history_rows(plan);
    if rows.is_empty() {
        return NONE.to_string();
    }
    let mut out = vec![
        "## Swarm History".to_string(),
        String::new(),
        "| Phase | Name | Status | Tasks |".to_string(),
        "|-------|------|--------|-------|".to_string(),
    ];
    for row in rows {
        let icon = match row.status {
            "COMPLETE" => "\u{2705}",
            "IN PROGRESS" => "\u{1f504}",
            _ => "\u{23f3}",
        };
        let tasks = match row.tasks {
            Some((done, total)) if total > 0 => format!("{done}/{total}"),
            _ => "-".to_string(),
        };
        out.push(format!(
            "| {} | {} | {icon} {} | {tasks} |",
            row.number, row.name, row.status
        ));
    }
    out.join("\n")
}

const TAGS: [(&str, &str); 3] = [
    ("[COMPLETE]", "COMPLETE"),
    ("[IN PROGRESS]", "IN PROGRESS"),
    ("[PENDING]", "PENDING"),
];

/// The rows of the history table: the heading scan, line lookup and counting of §8.5.
pub fn history_rows(plan: &str) -> Vec<HistoryRow> {
    let all_lines: Vec<&str> = lines(plan).collect();
    let mut rows = Vec::new();
    let mut from = 0;
    let starts: Vec<usize> = line_starts(plan).collect();
    for start in starts {
        if start < from {
            continue;
        }
        let Some((row_parts, end)) = match_heading(plan, start) else {
            continue;
        };
        let (number, name, status, degenerate) = row_parts;
        let tasks = if degenerate {
            None
        } else {
            let matched = &plan[start..end];
            all_lines
                .iter()
                .position(|line| *line == matched)
                .map(|at| count_phase_tasks(&all_lines[at + 1..]))
        };
        rows.push(HistoryRow {
            number,
            name,
            status,
            tasks,
        });
        from = end.max(start + 1);
    }
    rows
}

type HeadingParts = (i64, String, &'static str, bool);

/// Matches a history heading at `start`: its parts and the end of the match.
fn match_heading(text: &str, start: usize) -> Option<(HeadingParts, usize)> {
    let rest = text[start..].strip_prefix("## Phase ")?;
    let digits_at = start + "## Phase ".len();
    let digit_count = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digit_count == 0 {
        return None;
    }
    let mut num = &text[digits_at..digits_at + digit_count];
    let mut pos = digits_at + digit_count;
    let colon = text[pos..].starts_with(':');
    if colon {
        pos += 1;
    }
    let after_colon = pos;
    let skipped = text[pos..].len() - text[pos..].trim_start_matches(is_w).len();
    pos += skipped;
    if pos == text.len() {
        // Only whitespace is left: the regex backtracks to find a one-character name.
        let space = &text[after_colon..];
        let name = if space.chars().any(|c| !is_t(c)) {
            String::new()
        } else if colon {
            ":".to_string()
        } else if num.len() >= 2 {
            let last = num[num.len() - 1..].to_string();
            num = &num[..num.len() - 1];
            last
        } else {
            return None;
        };
        let number = js_parse_int(num).unwrap_or(0);
        return Some(((number, name, "PENDING", true), text.len()));
    }
    let (name_len, status, after_name) = shortest_name(&text[pos..]);
    let name = trim(&text[pos..pos + name_len]).to_string();
    // R: the whitespace run after the name and tag, across line breaks.
    let r_start = pos + after_name;
    let r_len = text[r_start..].len() - text[r_start..].trim_start_matches(is_w).len();
    let r_end = r_start + r_len;
    let end = if r_end == text.len() {
        text.len()
    } else {
        text[r_start..r_end]
            .char_indices()
            .rfind(|(_, c)| is_t(*c))
            .map_or(r_end, |(i, _)| r_start + i)
    };
    let number = js_parse_int(num).unwrap_or(0);
    Some(((number, name, status, false), end))
}

/// The shortest non-empty name at the start of `text` (within its first line) after which come
/// whitespace, a status tag and whitespace up to a line end, or whitespace up to a line end. The
/// whitespace before the tag may span lines (the plugin's `\s*`), and for one name the tag is
/// tried first. Returns the name's length, the status, and where the name (and tag) end.
fn shortest_name(text: &str) -> (usize, &'static str, usize) {
    let line_len = text.find(is_t).unwrap_or(text.len());
    // `\s*$`: only whitespace up to the next line break or the end of the text.
    let ends_line = |s: &str| s.chars().take_while(|c| !is_t(*c)).all(is_w);
    for (i, c) in text[..line_len].char_indices() {
        let name_end = i + c.len_utf8();
        let rest = &text[name_end..];
        let after_space = rest.trim_start_matches(is_w);
        for (tag, status) in TAGS {
            if let Some(after_tag) = after_space.strip_prefix(tag)
                && ends_line(after_tag)
            {
                return (name_end, status, text.len() - after_tag.len());
            }
        }
        if ends_line(rest) {
            return (name_end, "PENDING", name_end);
        }
    }
    (line_len, "PENDING", line_len)
}

/// Counts the column-0 checkboxes under a heading (§8.5 step 4).
fn count_phase_tasks(following: &[&str]) -> (usize, usize) {
    let (mut done, mut total) = (0, 0);
    for line in following {
        if line
            .strip_prefix("## Phase ")
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        {
            break;
        }
        if total > 0 && trim(line) == "---" {
            break;
        }
        if line.starts_with("- [x]") {
            done += 1;
            total += 1;
        } else if line.starts_with("- [ ]") {
            total += 1;
        }
    }
    (done, total)
}

/// opencode-swarm's compaction entries (§9), in order.
pub fn compaction_entries(
    plan: Option<&str>,
    context: Option<&str>,
    config: &SwarmConfig,
) -> Vec<String> {
    if !config.hooks().compaction {
        return Vec::new();
    }
    let mut entries = Vec::new();
    if let Some(phase) = plan.and_then(extract::current_phase) {
        entries.push(format!("[SWARM PLAN] {phase}"));
    }
    if let Some(decisions) = context.and_then(|c| extract::decisions(c, 500)) {
        entries.push(format!("[SWARM DECISIONS] {decisions}"));
    }
    if let Some(tasks) = plan.and_then(|p| extract::incomplete_tasks(p, 500)) {
        entries.push(format!("[SWARM TASKS] {tasks}"));
    }
    if let Some(patterns) = context.and_then(|c| extract::patterns(c, 500)) {
        entries.push(format!("[SWARM PATTERNS] {patterns}"));
    }
    entries
}

/// opencode-swarm's system-enhancer entries (§10), in order. `agent` is the active agent, when
/// the caller names one.
pub fn system_entries(
    plan: Option<&str>,
    context: Option<&str>,
    config: &SwarmConfig,
    agent: Option<&str>,
) -> Vec<String> {
    let hooks = config.hooks();
    if !hooks.system_enhancer {
        return Vec::new();
    }
    let mut entries = Vec::new();
    if let Some(phase) = plan.and_then(extract::current_phase) {
        entries.push(format!("[SWARM CONTEXT] Current phase: {phase}"));
    }
    if let Some(task) = plan.and_then(extract::current_task) {
        entries.push(format!("[SWARM CONTEXT] Current task: {task}"));
    }
    if let Some(decisions) = context.and_then(|c| extract::decisions(c, 200)) {
        entries.push(format!("[SWARM CONTEXT] Key decisions: {decisions}"));
    }
    if hooks.agent_activity
        && let (Some(context), Some(agent)) = (context, agent)
    {
        let max = hooks.agent_awareness_max_chars as usize;
        if let Some(activity) = extract::agent_activity(context, agent, max) {
            entries.push(format!("[SWARM AGENT CONTEXT] {activity}"));
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swarm::config;

    const EXAMPLE_1: &str = "# Docs site migration\nSwarm: default\nPhase: 2 | Updated: 2026-03-01\n\n## Phase 1: Inventory [COMPLETE]\n- [x] 1.1: List legacy pages [SMALL]\n\n---\n\n## Phase 2 [IN PROGRESS]\n- [x] 2.1: Port navigation [MEDIUM]\n- [ ] 2.2: Port search (depends: 2.1) ← CURRENT\n- [BLOCKED] 2.3: Redirect map - needs DNS access\n";

    #[test]
    fn status_of_example_1() {
        assert_eq!(
            status(Some(EXAMPLE_1), 7),
            "## Swarm Status\n\n**Current Phase**: Phase 2:  [IN PROGRESS]\n**Tasks**: 2/3 complete\n**Agents**: 7 registered"
        );
        assert_eq!(status(None, 7), NO_PLAN);
        assert!(status(Some("### 1.1: sub-heading task"), 0).contains("0/0 complete"));
        assert!(status(Some("x\r- [x] a\u{2028}- [ ] b\n  - [ ] c\n- [X] d"), 0).contains("1/2"));
    }

    #[test]
    fn history_of_example_1() {
        assert_eq!(
            history(Some(EXAMPLE_1)),
            "## Swarm History\n\n| Phase | Name | Status | Tasks |\n|-------|------|--------|-------|\n| 1 | Inventory | \u{2705} COMPLETE | 1/1 |\n| 2 | [IN PROGRESS] | \u{23f3} PENDING | 1/2 |"
        );
    }

    #[test]
    fn history_edge_cases() {
        let rows = history_rows("## Phase 7:\n## Phase 8: X [PENDING]\n- [x] a\n");
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].number, rows[0].name.as_str()),
            (7, "## Phase 8: X")
        );
        assert_eq!(rows[0].tasks, None);
        let rows = history_rows("## Phase 4 [PENDING]\n- [ ] a\n");
        assert_eq!(
            (rows[0].name.as_str(), rows[0].status),
            ("[PENDING]", "PENDING")
        );
        // A blank line after the heading hides its tasks.
        let rows = history_rows("## Phase 1: A [COMPLETE]\n\n- [x] a\n");
        assert_eq!(rows[0].tasks, None);
        // CRLF headings are found.
        let rows = history_rows("## Phase 1: A [COMPLETE]\r\n- [x] a\r\n");
        assert_eq!(rows[0].tasks, Some((1, 1)));
        assert_eq!(rows[0].status, "COMPLETE");
        // Degenerate endings.
        assert_eq!(history_rows("## Phase 12")[0].name, "2");
        assert_eq!(history_rows("## Phase 12")[0].number, 1);
        assert!(history_rows("## Phase 1").is_empty());
        assert_eq!(history_rows("## Phase 1:\n")[0].name, ":");
        assert_eq!(history_rows("## Phase 1 \n")[0].name, "");
        assert_eq!(
            history_rows("## Phase 007: Z [in progress]\n- [ ] x")[0].number,
            7
        );
        assert_eq!(
            history_rows("## Phase 007: Z [in progress]\n- [ ] x")[0].name,
            "Z [in progress]"
        );
    }

    /// The plugin's `\s*` before the tag spans lines: a tag alone on a later line is the
    /// heading's status, and the match (two lines) is then no line of the text, so its tasks
    /// show `-`. Checked against the plugin's regex run under Node.
    #[test]
    fn history_tags_on_a_later_line() {
        let rows = history_rows("## Phase 6: tag below\n[COMPLETE]\n- [x] 6.1: done\n");
        assert_eq!(
            (rows[0].name.as_str(), rows[0].status, rows[0].tasks),
            ("tag below", "COMPLETE", None)
        );
        let rows = history_rows("## Phase 2: a\n\n\t[IN PROGRESS]  \n## Phase 3: b\n- [ ] x\n");
        assert_eq!(
            (rows[0].name.as_str(), rows[0].status),
            ("a", "IN PROGRESS")
        );
        assert_eq!((rows[1].name.as_str(), rows[1].tasks), ("b", Some((0, 1))));
        // Not the last token of its line: no tag, and the heading keeps its tasks.
        let rows = history_rows("## Phase 4: c\n[COMPLETE] later\n- [x] a\n");
        assert_eq!((rows[0].status, rows[0].tasks), ("PENDING", Some((1, 1))));
    }

    #[test]
    fn plan_sections() {
        assert_eq!(plan(Some(EXAMPLE_1), None), EXAMPLE_1);
        assert_eq!(plan(Some(EXAMPLE_1), Some("  ")), EXAMPLE_1);
        assert_eq!(plan(Some(EXAMPLE_1), Some("x1")), EXAMPLE_1);
        assert_eq!(
            plan(Some(EXAMPLE_1), Some("1")),
            "## Phase 1: Inventory [COMPLETE]\n- [x] 1.1: List legacy pages [SMALL]"
        );
        assert_eq!(
            plan(Some(EXAMPLE_1), Some("-0")),
            "Phase 0 not found in plan."
        );
        assert_eq!(
            plan(Some("## Phase 1\n---\nbody\n---\n"), Some("1")),
            "## Phase 1\n---\nbody"
        );
        assert_eq!(
            plan(Some("## Phase 10\nx\n## Phase 1\ny"), Some("1")),
            "## Phase 1\ny"
        );
    }

    #[test]
    fn agents_markdown() {
        let roster = config::roster(&config::SwarmConfig::default());
        let text = agents(&roster);
        assert!(text.starts_with("## Registered Agents\n\n- **architect** | model: `anthropic/claude-sonnet-4-5` | temp: 0.1 | \u{270f}\u{fe0f} read-write\n  Central orchestrator"));
        assert!(text.contains(
            "- **explorer** | model: `google/gemini-2.0-flash` | temp: 0.1 | \u{1f512} read-only\n"
        ));
        assert_eq!(agents(&[]), "No agents registered.");
    }

    #[test]
    fn compaction_entries_of_example_3() {
        let context = "# Context\n\n## Decisions\n- **Static export**: no server to run\n  - nested note\n### Later\n- **Keep old URLs**: inbound links\n\n## Patterns\n- One page per command\n";
        let config = config::SwarmConfig::default();
        assert_eq!(
            compaction_entries(Some(EXAMPLE_1), Some(context), &config).join("\n\n"),
            "[SWARM PLAN] Phase 2:  [IN PROGRESS]\n\n[SWARM DECISIONS] - **Static export**: no server to run\n- **Keep old URLs**: inbound links\n\n[SWARM TASKS] - [ ] 2.2: Port search (depends: 2.1) ← CURRENT\n\n[SWARM PATTERNS] - One page per command"
        );
        let system = system_entries(Some(EXAMPLE_1), Some(context), &config, None);
        assert_eq!(
            system[0],
            "[SWARM CONTEXT] Current phase: Phase 2:  [IN PROGRESS]"
        );
        assert_eq!(
            system[1],
            "[SWARM CONTEXT] Current task: - [ ] 2.2: Port search (depends: 2.1) ← CURRENT"
        );
        assert_eq!(system.len(), 3);
        let off =
            config::parse(r#"{"hooks": {"compaction": false, "system_enhancer": false}}"#).unwrap();
        assert!(compaction_entries(Some(EXAMPLE_1), Some(context), &off).is_empty());
        assert!(system_entries(Some(EXAMPLE_1), Some(context), &off, None).is_empty());
    }
}

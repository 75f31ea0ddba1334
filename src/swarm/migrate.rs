//! How opencode-swarm 5.1.0 turns a legacy `.swarm/plan.md` into a `plan.json` the first time it
//! loads the plan (`migrateLegacyPlan`). ctx runs it in memory only, so that a 5.x project whose
//! `.swarm/` still holds only plan.md shows what the plugin shows once it has read the plan; the
//! files are never touched.
//!
//! The migration is lossy, and ctx reproduces it exactly: it reads line by line with the plugin's
//! regular expressions (written out by hand below, backtracking included), so a task's text stops
//! at its first ` - ` (`Add request-id middleware` becomes `Add request`), a phase heading without
//! a name is named `Phase N`, and a plan without any phase becomes the plugin's
//! "Migration Failed" placeholder.

use serde_json::{Map, Value, json};

use super::plan_json::{self, PlanJson};
use super::text::{is_t, is_w, trim};

/// The plan 5.1.0 derives from `text`, validated as it validates it before writing; `Err` when
/// its own schema refuses the result (the plugin then throws and writes nothing).
pub fn migrate(text: &str) -> Result<PlanJson, String> {
    plan_json::from_value(migrated_value(text)).map_err(|reason| {
        format!(
            "opencode-swarm 5.1.0 migrates plan.md into a plan its own schema refuses: {reason}"
        )
    })
}

/// The plan object `migrateLegacyPlan` builds, before validation.
fn migrated_value(text: &str) -> Value {
    const UNTITLED: &str = "Untitled Plan";
    let mut title = UNTITLED.to_string();
    let mut swarm = "default-swarm".to_string();
    let mut current_phase = 1.0;
    let mut phases: Vec<(f64, Map<String, Value>)> = Vec::new();
    let mut phase: Option<(f64, Map<String, Value>)> = None;
    for line in text.split('\n') {
        let trimmed = trim(line);
        if trimmed.starts_with("# ") && title == UNTITLED {
            title = trim(&trimmed[2..]).to_string();
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("Swarm:") {
            swarm = trim(rest).to_string();
            continue;
        }
        if trimmed.starts_with("Phase:") {
            if let Some(n) = header_phase(trimmed) {
                current_phase = n;
            }
            continue;
        }
        if let Some(heading) = phase_heading(trimmed) {
            phases.extend(phase.take());
            let name = heading.name.map(trim).filter(|n| !n.is_empty());
            let status = match heading.status.map(str::to_lowercase).as_deref() {
                Some("complete" | "completed") => "complete",
                Some("in progress" | "in_progress" | "inprogress") => "in_progress",
                Some("blocked") => "blocked",
                _ => "pending",
            };
            let mut object = Map::new();
            object.insert("id".into(), number(heading.id));
            object.insert(
                "name".into(),
                Value::from(name.map_or_else(
                    || format!("Phase {}", super::text::js_number(heading.id)),
                    str::to_string,
                )),
            );
            object.insert("status".into(), Value::from(status));
            object.insert("tasks".into(), Value::Array(Vec::new()));
            phase = Some((heading.id, object));
            continue;
        }
        if let (Some(task), Some((id, object))) = (task_line(trimmed), phase.as_mut()) {
            let tasks = object["tasks"].as_array_mut().expect("built above");
            tasks.push(task_value(&task, *id));
        }
    }
    phases.extend(phase.take());
    let mut status = "migrated";
    if phases.is_empty() {
        status = "migration_failed";
        let placeholder = json!({
            "id": 1, "name": "Migration Failed", "status": "blocked",
            "tasks": [{
                "id": "1.1", "phase": 1, "status": "blocked", "size": "large",
                "description": "Review and restructure plan manually", "depends": [],
                "files_touched": [], "blocked_reason": "Legacy plan could not be parsed automatically"
            }]
        });
        let Value::Object(placeholder) = placeholder else {
            unreachable!("an object literal")
        };
        phases.push((1.0, placeholder));
    }
    // Array.prototype.sort is stable, as is sort_by.
    phases.sort_by(|a, b| a.0.total_cmp(&b.0));
    json!({
        "schema_version": "1.0.0",
        "title": title,
        "swarm": swarm,
        "current_phase": number(current_phase),
        "phases": phases.into_iter().map(|(_, p)| Value::Object(p)).collect::<Vec<_>>(),
        "migration_status": status,
    })
}

/// A JavaScript number as JSON: integral values as integers.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

/// `parseInt` of a run of ASCII digits (which never fails).
fn digits_value(digits: &str) -> f64 {
    digits.parse().unwrap_or(f64::INFINITY)
}

fn skip_ws(s: &str) -> &str {
    s.trim_start_matches(is_w)
}

fn ascii_digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// `/Phase:\s*(\d+)/i`: the first match anywhere in the line.
fn header_phase(line: &str) -> Option<f64> {
    line.char_indices().find_map(|(i, _)| {
        let rest = line.get(i..)?;
        let after = rest.get(..6).filter(|p| p.eq_ignore_ascii_case("phase:"))?;
        let after = skip_ws(&rest[after.len()..]);
        let n = ascii_digits(after);
        (n > 0).then(|| digits_value(&after[..n]))
    })
}

struct Heading<'a> {
    id: f64,
    name: Option<&'a str>,
    status: Option<&'a str>,
}

/// `/^##\s*Phase\s+(\d+)(?::\s*([^[]+))?\s*(?:\[([^\]]+)\])?/i` (no end anchor).
fn phase_heading(line: &str) -> Option<Heading<'_>> {
    let rest = skip_ws(line.strip_prefix("##")?);
    let word = rest.get(..5).filter(|w| w.eq_ignore_ascii_case("phase"))?;
    let after_word = &rest[word.len()..];
    let rest = skip_ws(after_word);
    if rest.len() == after_word.len() {
        return None;
    }
    let n = ascii_digits(rest);
    if n == 0 {
        return None;
    }
    let id = digits_value(&rest[..n]);
    let mut rest = &rest[n..];
    let mut name = None;
    if let Some(after_colon) = rest.strip_prefix(':') {
        let body_start = skip_ws(after_colon);
        let body_len = body_start.find('[').unwrap_or(body_start.len());
        if body_len > 0 {
            name = Some(&body_start[..body_len]);
            rest = &body_start[body_len..];
        } else if body_start.len() < after_colon.len() {
            // `[^[]+` takes back the last whitespace character `\s*` took: the name is blank.
            name = Some("");
            rest = body_start;
        }
    }
    let rest = skip_ws(rest);
    let status = rest.strip_prefix('[').and_then(|inner| {
        let end = inner.find(']')?;
        (end > 0).then(|| &inner[..end])
    });
    Some(Heading { id, name, status })
}

struct TaskLine<'a> {
    checkbox: &'a str,
    id: &'a str,
    description: &'a str,
    size: Option<&'a str>,
    reason: Option<&'a str>,
}

/// `/^-\s*\[([^\]]+)\]\s+(\d+\.\d+):\s*(.+?)(?:\s*\[(\w+)\])?(?:\s*-\s*(.+))?$/i`.
fn task_line(line: &str) -> Option<TaskLine<'_>> {
    let rest = skip_ws(line.strip_prefix('-')?).strip_prefix('[')?;
    let close = rest.find(']')?;
    if close == 0 {
        return None;
    }
    let checkbox = &rest[..close];
    let after = &rest[close + 1..];
    let rest = skip_ws(after);
    if rest.len() == after.len() {
        return None;
    }
    let major = ascii_digits(rest);
    let dot = rest[major..].strip_prefix('.')?;
    let minor = ascii_digits(dot);
    if major == 0 || minor == 0 || !dot[minor..].starts_with(':') {
        return None;
    }
    let id = &rest[..major + 1 + minor];
    let text = skip_ws(&dot[minor + 1..]);
    // `(.+?)` is lazy: the description is the shortest prefix after which the rest matches.
    // `.` stops at a line terminator, and so does every description after it.
    for (i, c) in text.char_indices() {
        if is_t(c) {
            return None;
        }
        let end = i + c.len_utf8();
        if let Some((size, reason)) = task_tail(&text[end..]) {
            return Some(TaskLine {
                checkbox,
                id,
                description: &text[..end],
                size,
                reason,
            });
        }
    }
    None
}

/// `(?:\s*\[(\w+)\])?(?:\s*-\s*(.+))?$` at the start of `rest`: the size and the reason when
/// it matches, the size tag tried first.
#[allow(clippy::type_complexity)]
fn task_tail(rest: &str) -> Option<(Option<&str>, Option<&str>)> {
    let sized = skip_ws(rest).strip_prefix('[').and_then(|inner| {
        let word = inner
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        (word > 0 && inner[word..].starts_with(']')).then(|| (&inner[..word], &inner[word + 1..]))
    });
    if let Some((size, after)) = sized
        && let Some(reason) = reason_tail(after)
    {
        return Some((Some(size), reason));
    }
    reason_tail(rest).map(|reason| (None, reason))
}

/// `(?:\s*-\s*(.+))?$`: `Some(None)` at the end of the text, `Some(Some(reason))` for a dash
/// and a reason that reaches the end without a line terminator.
fn reason_tail(rest: &str) -> Option<Option<&str>> {
    if rest.is_empty() {
        return Some(None);
    }
    let after = skip_ws(rest).strip_prefix('-')?;
    // `\s*` takes all the whitespace it can, giving characters back until `(.+)` can reach the
    // end: the reason starts as late as possible.
    let ws = after.len() - skip_ws(after).len();
    let last_break = after.rfind(is_t).map_or(0, |i| {
        i + after[i..].chars().next().map_or(1, char::len_utf8)
    });
    let mut starts = after[..ws].char_indices().map(|(i, _)| i).chain([ws]);
    let start = starts.rfind(|&i| i >= last_break && i < after.len())?;
    Some(Some(&after[start..]))
}

fn task_value(task: &TaskLine<'_>, phase: f64) -> Value {
    let mut description = trim(task.description);
    let mut depends = Vec::new();
    if let Some((start, list)) = depends_suffix(description) {
        depends = list.split(',').map(|d| Value::from(trim(d))).collect();
        description = trim(&description[..start]);
    }
    let checkbox = task.checkbox.to_lowercase();
    let status = match checkbox.as_str() {
        "x" => "completed",
        "blocked" => "blocked",
        _ => "pending",
    };
    let size = match task.size.map(str::to_ascii_lowercase).as_deref() {
        Some("medium") => "medium",
        Some("large") => "large",
        _ => "small",
    };
    let mut object = Map::new();
    object.insert("id".into(), Value::from(task.id));
    object.insert("phase".into(), number(phase));
    object.insert("status".into(), Value::from(status));
    object.insert("size".into(), Value::from(size));
    object.insert("description".into(), Value::from(description));
    object.insert("depends".into(), Value::Array(depends));
    object.insert("files_touched".into(), Value::Array(Vec::new()));
    if status == "blocked"
        && let Some(reason) = task.reason
    {
        object.insert("blocked_reason".into(), Value::from(trim(reason)));
    }
    Value::Object(object)
}

/// `/\s*\(depends:\s*([^)]+)\)$/i` searched in the description: where the match starts and the
/// list it captured.
fn depends_suffix(description: &str) -> Option<(usize, &str)> {
    let mut run_start = None;
    for (i, c) in description.char_indices() {
        if is_w(c) {
            run_start.get_or_insert(i);
            continue;
        }
        let start = run_start.take().unwrap_or(i);
        if c != '(' {
            continue;
        }
        let Some(word) = description
            .get(i + 1..i + 9)
            .filter(|w| w.eq_ignore_ascii_case("depends:"))
        else {
            continue;
        };
        let after = &description[i + 1 + word.len()..];
        let body = skip_ws(after);
        let Some(close) = body.find(')') else {
            continue;
        };
        if close + 1 != body.len() {
            continue;
        }
        if close > 0 {
            return Some((start, &body[..close]));
        }
        if body.len() < after.len() {
            // `[^)]+` takes back one whitespace character from `\s*`.
            return Some((start, &after[after.len() - body.len() - 1..after.len() - 1]));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(plan: &PlanJson) -> Vec<(String, String, String, String)> {
        plan.phases
            .iter()
            .flat_map(|p| &p.tasks)
            .map(|t| {
                (
                    t.id.clone(),
                    t.status.clone(),
                    t.description.clone(),
                    t.blocked_reason.clone().unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn migrates_as_the_plugin_does() {
        let plan = migrate(
            "# Billing\nSwarm: local\nPhase: 2 | Updated: x\n\n## Phase 2 [IN PROGRESS]\n\
             - [ ] 2.1: Add request-id middleware [MEDIUM] (depends: 1.1) ← CURRENT\n\
             - [BLOCKED] 2.2: Dunning - waiting for SMTP [LARGE]\n\
             - [X] 2.3: Done (depends: 1.1, 2.1)\n\
             ## Phase 1: Setup [COMPLETE]\n- [x] 1.1: Scaffold [SMALL]\n",
        )
        .unwrap();
        assert_eq!(plan.title, "Billing");
        assert_eq!(plan.swarm, "local");
        assert_eq!(plan.current_phase, 2);
        let names: Vec<_> = plan
            .phases
            .iter()
            .map(|p| (p.id, p.name.as_str()))
            .collect();
        assert_eq!(names, [(1, "Setup"), (2, "Phase 2")]);
        assert_eq!(
            tasks(&plan),
            [
                (
                    "1.1".into(),
                    "completed".into(),
                    "Scaffold".into(),
                    "".into()
                ),
                (
                    "2.1".into(),
                    "pending".into(),
                    "Add request".into(),
                    "".into()
                ),
                (
                    "2.2".into(),
                    "blocked".into(),
                    "Dunning".into(),
                    "waiting for SMTP [LARGE]".into()
                ),
                ("2.3".into(), "completed".into(), "Done".into(), "".into()),
            ]
        );
        assert_eq!(plan.phases[1].tasks[2].depends, ["1.1", "2.1"]);
        assert_eq!(plan.phases[1].tasks[1].size, "small");
    }

    #[test]
    fn a_plan_without_phases_becomes_the_placeholder() {
        let plan = migrate("# Notes\n- [ ] 1.1: orphan\n").unwrap();
        assert!(plan.migration_failed());
        assert_eq!(plan.title, "Notes");
        assert_eq!(plan.phases[0].name, "Migration Failed");
        assert!(migrate("").unwrap().migration_failed());
    }

    #[test]
    fn refused_results_say_why() {
        let err = migrate("## Phase 0 [PENDING]\n").unwrap_err();
        assert!(
            err.ends_with("phases[0].id must be an integer of at least 1"),
            "{err}"
        );
        assert!(
            migrate("Swarm:\n## Phase 1\n")
                .unwrap_err()
                .contains("swarm")
        );
        assert!(
            migrate("## Phase 1\n- [ ] 1.1: (depends: 1.0)\n")
                .unwrap_err()
                .contains("description")
        );
    }

    #[test]
    fn headings_and_tails_follow_the_regular_expressions() {
        let h = phase_heading("## Phase 2: [IN PROGRESS]").unwrap();
        assert_eq!((h.name, h.status), (Some(""), Some("IN PROGRESS")));
        let h = phase_heading("##phase  7:Ship it  [done]").unwrap();
        assert_eq!(
            (h.id, h.name, h.status),
            (7.0, Some("Ship it  "), Some("done"))
        );
        assert!(phase_heading("## Phase2").is_none());
        assert!(phase_heading("## Phase x").is_none());
        let h = phase_heading("## Phase 3:[] x").unwrap();
        assert_eq!((h.name, h.status), (None, None));
        assert_eq!(reason_tail(" - why "), Some(Some("why ")));
        assert_eq!(reason_tail(" -  "), Some(Some(" ")));
        assert_eq!(reason_tail(" -"), None);
        assert_eq!(reason_tail("x"), None);
        assert_eq!(reason_tail(" - a\rb"), None);
        assert_eq!(depends_suffix("a (depends: 1.1)"), Some((1, "1.1")));
        assert_eq!(
            depends_suffix("a (depends: x (Depends: y)"),
            Some((1, "x (Depends: y"))
        );
        assert_eq!(depends_suffix("(depends: )"), Some((0, " ")));
        assert_eq!(depends_suffix("a (depends: 1) b"), None);
        assert_eq!(header_phase("Phase: x phase:3"), Some(3.0));
    }
}

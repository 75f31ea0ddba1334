//! The plan as data, for ctx's own human and JSON views. These do not inherit the plugin's quirks
//! (swarm.md §14.3): every phase heading and task line is recognised, indented or not, and blocked
//! tasks are reported.

use super::plan_json::PlanJson;
use super::text::{js_parse_int, trim};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseStatus {
    Pending,
    InProgress,
    Complete,
    Blocked,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Pending,
    InProgress,
    Completed,
    Blocked,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// `2.1`, when the line has one.
    pub id: Option<String>,
    pub text: String,
    pub status: TaskStatus,
    /// `small`, `medium` or `large`, when tagged.
    pub size: Option<String>,
    pub depends: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub number: i64,
    pub name: String,
    pub status: PhaseStatus,
    pub tasks: Vec<Task>,
}

impl Phase {
    pub fn count(&self, status: TaskStatus) -> usize {
        self.tasks.iter().filter(|t| t.status == status).count()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub title: Option<String>,
    pub phases: Vec<Phase>,
    /// The phase the plan says is current.
    pub current: Option<i64>,
}

impl Plan {
    pub fn current_phase(&self) -> Option<&Phase> {
        self.current
            .and_then(|n| self.phases.iter().find(|p| p.number == n))
    }

    /// The task being worked on: the current phase's first task in progress, else its first
    /// pending one.
    pub fn current_task(&self) -> Option<&Task> {
        let tasks = &self.current_phase()?.tasks;
        tasks
            .iter()
            .find(|t| t.status == TaskStatus::InProgress)
            .or_else(|| tasks.iter().find(|t| t.status == TaskStatus::Pending))
    }

    pub fn tasks(&self) -> impl Iterator<Item = &Task> {
        self.phases.iter().flat_map(|p| &p.tasks)
    }
}

pub fn from_json(plan: &PlanJson) -> Plan {
    let phases = plan
        .phases
        .iter()
        .map(|p| Phase {
            number: p.id,
            name: p.name.clone(),
            status: match p.status.as_str() {
                "in_progress" => PhaseStatus::InProgress,
                "complete" => PhaseStatus::Complete,
                "blocked" => PhaseStatus::Blocked,
                _ => PhaseStatus::Pending,
            },
            tasks: p
                .tasks
                .iter()
                .map(|t| Task {
                    id: Some(t.id.clone()),
                    text: match t.blocked_reason.as_deref().filter(|r| !r.is_empty()) {
                        Some(reason) if t.status == "blocked" => {
                            format!("{} - {reason}", t.description)
                        }
                        _ => t.description.clone(),
                    },
                    status: match t.status.as_str() {
                        "in_progress" => TaskStatus::InProgress,
                        "completed" => TaskStatus::Completed,
                        "blocked" => TaskStatus::Blocked,
                        _ => TaskStatus::Pending,
                    },
                    size: Some(t.size.clone()),
                    depends: t.depends.clone(),
                })
                .collect(),
        })
        .collect();
    Plan {
        title: Some(plan.title.clone()),
        phases,
        current: Some(plan.current_phase),
    }
}

/// A lenient reading of a model-written plan.md.
pub fn from_markdown(text: &str) -> Plan {
    let mut title = None;
    let mut header_phase = None;
    let mut phases: Vec<Phase> = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let line = trim(raw);
        if title.is_none()
            && let Some(t) = line.strip_prefix("# ")
        {
            title = Some(trim(t).to_string());
            continue;
        }
        if i < 5
            && header_phase.is_none()
            && let Some(rest) = strip_prefix_ignore_case(line, "phase:")
        {
            header_phase = js_parse_int(rest);
            continue;
        }
        if let Some(phase) = phase_heading(line) {
            phases.push(phase);
            continue;
        }
        if let Some(task) = task_line(line)
            && let Some(phase) = phases.last_mut()
        {
            phase.tasks.push(task);
        }
    }
    let current = phases
        .iter()
        .find(|p| p.status == PhaseStatus::InProgress)
        .map(|p| p.number)
        .or(header_phase);
    Plan {
        title,
        phases,
        current,
    }
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    super::text::starts_with_ignore_case(s, prefix).then(|| &s[prefix.len()..])
}

/// `## Phase N: name [STATUS]`, `### Phase N …`, `## phase N - name`: any case, any level.
fn phase_heading(line: &str) -> Option<Phase> {
    let rest = line.trim_start_matches('#');
    if rest.len() == line.len() {
        return None;
    }
    let rest = strip_prefix_ignore_case(trim(rest), "phase")?;
    let rest = trim(rest);
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number = js_parse_int(&rest[..digits])?;
    let mut name = trim(&rest[digits..]);
    name = trim(name.strip_prefix([':', '-', '.']).unwrap_or(name));
    let mut status = PhaseStatus::Pending;
    if let Some(open) = name.rfind('[')
        && name.ends_with(']')
    {
        let tag = name[open + 1..name.len() - 1].to_ascii_uppercase();
        let found = match tag.as_str() {
            "COMPLETE" | "COMPLETED" | "DONE" => Some(PhaseStatus::Complete),
            "IN PROGRESS" | "IN_PROGRESS" => Some(PhaseStatus::InProgress),
            "PENDING" => Some(PhaseStatus::Pending),
            "BLOCKED" => Some(PhaseStatus::Blocked),
            _ => None,
        };
        if let Some(found) = found {
            status = found;
            name = trim(&name[..open]);
        }
    }
    Some(Phase {
        number,
        name: name.to_string(),
        status,
        tasks: Vec::new(),
    })
}

/// `- [x] 1.1: text [SIZE] (depends: 1.0) ← CURRENT`, `- [ ] …`, `- [BLOCKED] … - reason`.
fn task_line(line: &str) -> Option<Task> {
    let rest = line
        .strip_prefix("- [")
        .or_else(|| line.strip_prefix("* ["))?;
    let close = rest.find(']')?;
    let mut status = match rest[..close].to_ascii_lowercase().as_str() {
        "x" => TaskStatus::Completed,
        " " | "" => TaskStatus::Pending,
        "blocked" => TaskStatus::Blocked,
        _ => return None,
    };
    let mut text = trim(&rest[close + 1..]).to_string();
    if let Some(stripped) = text.strip_suffix("← CURRENT") {
        text = trim(stripped).to_string();
        if status == TaskStatus::Pending {
            status = TaskStatus::InProgress;
        }
    }
    let mut size = None;
    for tag in ["SMALL", "MEDIUM", "LARGE"] {
        let bracketed = format!("[{tag}]");
        if let Some(at) = text.rfind(&bracketed) {
            size = Some(tag.to_ascii_lowercase());
            text = format!("{}{}", trim(&text[..at]), &text[at + bracketed.len()..]);
            text = trim(&text).to_string();
            break;
        }
    }
    let mut depends = Vec::new();
    if text.ends_with(')')
        && let Some(open) = text.rfind("(depends:")
    {
        depends = text[open + "(depends:".len()..text.len() - 1]
            .split(',')
            .map(|d| trim(d).to_string())
            .filter(|d| !d.is_empty())
            .collect();
        text = trim(&text[..open]).to_string();
    }
    let mut id = None;
    if let Some((head, tail)) = text.split_once(':') {
        let head = trim(head);
        if !head.is_empty() && head.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            id = Some(head.to_string());
            text = trim(tail).to_string();
        }
    }
    Some(Task {
        id,
        text,
        status,
        size,
        depends,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_template_and_its_drift() {
        let plan = from_markdown(
            "# Billing\nSwarm: default\nPhase: 2 | Updated: x\n\n## Phase 1: Models [COMPLETE]\n- [x] 1.1: Invoice model [SMALL]\n---\n## Phase 2 [IN PROGRESS]  \n- [x] 2.1: Webhooks [MEDIUM]\n  - [ ] 2.2: Refunds (depends: 2.1, 1.1) ← CURRENT\n- [BLOCKED] 2.3: Payouts - needs keys\n### Phase 3: Later\n",
        );
        assert_eq!(plan.title.as_deref(), Some("Billing"));
        assert_eq!(plan.current, Some(2));
        assert_eq!(plan.phases.len(), 3);
        let p2 = &plan.phases[1];
        assert_eq!((p2.name.as_str(), p2.status), ("", PhaseStatus::InProgress));
        assert_eq!(
            p2.tasks[1],
            Task {
                id: Some("2.2".into()),
                text: "Refunds".into(),
                status: TaskStatus::InProgress,
                size: None,
                depends: vec!["2.1".into(), "1.1".into()],
            }
        );
        assert_eq!(p2.tasks[2].status, TaskStatus::Blocked);
        assert_eq!(p2.tasks[2].text, "Payouts - needs keys");
        assert_eq!(plan.phases[0].tasks[0].size.as_deref(), Some("small"));
        assert_eq!(plan.phases[2].status, PhaseStatus::Pending);
    }
}

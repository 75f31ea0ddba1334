//! The JSON documents of `ctx swarm … --json` (cli.md "JSON").

use schemars::JsonSchema;
use serde::Serialize;

use super::config::Agent;
use super::model::{Phase, PhaseStatus, Plan, Task, TaskStatus};
use crate::document::Version;

/// Task counts: done, all, and blocked (blocked tasks are in `total`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Counts {
    pub completed: usize,
    pub total: usize,
    pub blocked: usize,
}

impl Counts {
    pub fn of<'a>(tasks: impl Iterator<Item = &'a Task>) -> Counts {
        let mut counts = Counts {
            completed: 0,
            total: 0,
            blocked: 0,
        };
        for task in tasks {
            counts.total += 1;
            match task.status {
                TaskStatus::Completed => counts.completed += 1,
                TaskStatus::Blocked => counts.blocked += 1,
                _ => {}
            }
        }
        counts
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PhaseRef {
    pub number: i64,
    pub name: String,
    pub status: PhaseStatus,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PhaseCounts {
    pub number: i64,
    pub name: String,
    pub status: PhaseStatus,
    pub tasks: Counts,
}

impl PhaseCounts {
    pub fn new(phase: &Phase) -> PhaseCounts {
        PhaseCounts {
            number: phase.number,
            name: phase.name.clone(),
            status: phase.status,
            tasks: Counts::of(phase.tasks.iter()),
        }
    }
}

/// Which file the plan came from: `plan.md`, `plan.json`, or null without a plan.
pub type SourceName = Option<&'static str>;

/// What `ctx swarm status --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StatusDoc {
    pub version: Version,
    pub source: SourceName,
    pub title: Option<String>,
    pub current_phase: Option<PhaseRef>,
    /// The current phase's first task in progress, else its first pending one.
    pub current_task: Option<TaskDoc>,
    /// Over the whole plan.
    pub tasks: Counts,
    pub phases: Vec<PhaseCounts>,
    /// The number of agents in the roster.
    pub agents: usize,
}

impl StatusDoc {
    pub fn new(source: SourceName, plan: Option<&Plan>, agents: usize) -> StatusDoc {
        StatusDoc {
            version: Version,
            source,
            title: plan.and_then(|p| p.title.clone()),
            current_phase: plan.and_then(Plan::current_phase).map(|p| PhaseRef {
                number: p.number,
                name: p.name.clone(),
                status: p.status,
            }),
            current_task: plan.and_then(Plan::current_task).map(TaskDoc::new),
            tasks: Counts::of(plan.into_iter().flat_map(Plan::tasks)),
            phases: plan
                .map(|p| p.phases.iter().map(PhaseCounts::new).collect())
                .unwrap_or_default(),
            agents,
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskDoc {
    /// `2.1`, when the plan gives one.
    pub id: Option<String>,
    pub text: String,
    pub status: TaskStatus,
    /// `small`, `medium` or `large`, when tagged.
    pub size: Option<String>,
    pub depends: Vec<String>,
}

impl TaskDoc {
    pub fn new(task: &crate::swarm::model::Task) -> TaskDoc {
        TaskDoc {
            id: task.id.clone(),
            text: task.text.clone(),
            status: task.status,
            size: task.size.clone(),
            depends: task.depends.clone(),
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PhaseDoc {
    pub number: i64,
    pub name: String,
    pub status: PhaseStatus,
    pub tasks: Vec<TaskDoc>,
}

/// What `ctx swarm plan --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PlanDoc {
    pub version: Version,
    pub source: SourceName,
    /// Every phase, or the one asked for.
    pub phases: Vec<PhaseDoc>,
}

impl PhaseDoc {
    pub fn new(phase: &Phase) -> PhaseDoc {
        PhaseDoc {
            number: phase.number,
            name: phase.name.clone(),
            status: phase.status,
            tasks: phase.tasks.iter().map(TaskDoc::new).collect(),
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentDoc {
    pub name: String,
    pub model: String,
    pub temperature: Option<f64>,
    /// The plugin disables write, edit and patch for this agent.
    pub read_only: bool,
    pub description: String,
    /// `primary` (architects) or `subagent`.
    pub mode: &'static str,
}

/// What `ctx swarm agents --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentsDoc {
    pub version: Version,
    pub agents: Vec<AgentDoc>,
}

impl AgentDoc {
    pub fn new(agent: &Agent) -> AgentDoc {
        AgentDoc {
            name: agent.name.clone(),
            model: agent.model.clone(),
            temperature: agent.temperature,
            read_only: agent.read_only,
            description: agent.description.clone(),
            mode: if agent.primary { "primary" } else { "subagent" },
        }
    }
}

/// What `ctx swarm history --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryDoc {
    pub version: Version,
    pub source: SourceName,
    pub phases: Vec<PhaseCounts>,
}

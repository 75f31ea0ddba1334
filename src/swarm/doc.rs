//! The JSON documents of `ctx swarm … --json` (cli.md "JSON").

use schemars::JsonSchema;
use serde::Serialize;

use super::config::Agent;
use super::five::Check;
use super::model::{Phase, PhaseStatus, Plan, Task, TaskStatus};
use super::version::{Assumed, PluginVersion};
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
    #[serde(flatten)]
    pub plugin: PluginDoc,
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
    pub fn new(
        plugin: PluginDoc,
        source: SourceName,
        plan: Option<&Plan>,
        agents: usize,
    ) -> StatusDoc {
        StatusDoc {
            version: Version,
            plugin,
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
    #[serde(flatten)]
    pub plugin: PluginDoc,
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
    /// A guardrail profile of opencode-swarm 5.x's config names this agent.
    pub custom_limits: bool,
}

/// What `ctx swarm agents --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentsDoc {
    pub version: Version,
    #[serde(flatten)]
    pub plugin: PluginDoc,
    pub agents: Vec<AgentDoc>,
    /// opencode-swarm 5.x's `guardrails.profiles`, in the config's order (empty for 4.3.0).
    pub guardrail_profiles: Vec<ProfileDoc>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ProfileDoc {
    /// The agent (or any name) the profile is for.
    pub name: String,
    /// The limits it sets, by name.
    pub limits: serde_json::Map<String, serde_json::Value>,
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
            custom_limits: false,
        }
    }
}

/// What `ctx swarm history --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryDoc {
    pub version: Version,
    #[serde(flatten)]
    pub plugin: PluginDoc,
    pub source: SourceName,
    pub phases: Vec<PhaseCounts>,
}

/// Which opencode-swarm ctx reproduced, and why (every `ctx swarm` document carries it).
#[derive(Debug, Serialize, JsonSchema)]
pub struct PluginDoc {
    /// `4.3.0` or `5.1.0`.
    pub swarm_version: PluginVersion,
    /// What decided it, e.g. `opencode.json declares opencode-swarm@5.1.0`.
    pub swarm_version_reason: String,
}

impl PluginDoc {
    pub fn new(assumed: &Assumed) -> PluginDoc {
        PluginDoc {
            swarm_version: assumed.version,
            swarm_version_reason: assumed.reason.clone(),
        }
    }
}

/// One bundle of `ctx swarm evidence --json`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BundleRow {
    pub task: String,
    /// The number of entries; null when the bundle could not be read.
    pub entries: Option<usize>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    /// Why the bundle could not be read (`<path>: no such file`, not JSON, outside the schema,
    /// too large, a link out of .swarm/); null for a valid one.
    pub problem: Option<String>,
}

/// What `ctx swarm evidence --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EvidenceListDoc {
    pub version: Version,
    #[serde(flatten)]
    pub plugin: PluginDoc,
    pub bundles: Vec<BundleRow>,
}

/// What `ctx swarm evidence TASK --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EvidenceDoc {
    pub version: Version,
    #[serde(flatten)]
    pub plugin: PluginDoc,
    pub task: String,
    /// The bundle as opencode-swarm validates it (its schema's key order, defaults filled in);
    /// null when there is none or it could not be read.
    pub bundle: Option<serde_json::Value>,
    /// Why there is no bundle, as in the list (`<path>: no such file`, not JSON, outside the
    /// schema, too large, a link out of .swarm/); null for a valid one.
    pub problem: Option<String>,
}

/// What `ctx swarm evidence [TASK] --json` prints: the list of bundles, or one task's bundle.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum EvidenceOutput {
    List(EvidenceListDoc),
    Task(EvidenceDoc),
}

/// What `ctx swarm diagnose --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DiagnoseDoc {
    pub version: Version,
    #[serde(flatten)]
    pub plugin: PluginDoc,
    /// Every check passed (exit 0); otherwise ctx exits with 5.
    pub healthy: bool,
    pub passed: usize,
    pub checks: Vec<Check>,
}

/// What `ctx swarm export --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ExportDoc {
    pub version: Version,
    #[serde(flatten)]
    pub plugin: PluginDoc,
    /// opencode-swarm's export: `version` (the 4.5.0 it hard-codes), `exported`, `plan` (the
    /// structured plan, else plan.md's text, else null), `context` (context.md or null).
    pub export: serde_json::Value,
}

/// One config file of `ctx swarm config --json`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ConfigFileDoc {
    pub path: String,
    /// `absent`, `read`, or `ignored` (too large, not JSON, outside the schema: see stderr).
    pub state: &'static str,
}

/// What `ctx swarm config --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SwarmConfigDoc {
    pub version: Version,
    #[serde(flatten)]
    pub plugin: PluginDoc,
    pub user: ConfigFileDoc,
    pub project: ConfigFileDoc,
    /// The merged config as opencode-swarm 5.1.0 holds it, defaults filled in.
    pub resolved: serde_json::Value,
}

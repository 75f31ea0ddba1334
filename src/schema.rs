//! The published shapes of ctx's JSON documents. Each `--json` document is a Rust type in its
//! domain module; this registry names them, so `schemas/` is generated from the same types that
//! print the output, and a test keeps the committed files in step.

use schemars::{JsonSchema, Schema};

use crate::budget::doc as budget;
use crate::compact::doc as compact;
use crate::frame::doc as frame;
use crate::swarm::doc as swarm;

/// Every published document: its file stem under `schemas/` (the command that prints it, e.g.
/// `frame-push` for `ctx frame push --json`) and its schema.
pub fn documents() -> Vec<(&'static str, Schema)> {
    vec![
        document::<frame::FrameDoc>("frame-push"),
        document::<frame::PopDoc>("frame-pop"),
        document::<frame::TreeDoc>("frame-tree"),
        document::<frame::ShowDoc>("frame-show"),
        document::<frame::FrameDoc>("frame-current"),
        document::<frame::FramesDoc>("frame-plan"),
        document::<frame::FrameDoc>("frame-activate"),
        document::<frame::InvalidateDoc>("frame-invalidate"),
        document::<frame::AddedDoc>("frame-artifact"),
        document::<frame::AddedDoc>("frame-decision"),
        document::<frame::LogDoc>("frame-log"),
        document::<frame::ImportDoc>("frame-import"),
        document::<frame::FrameDoc>("frame-edit"),
        document::<frame::FrameDoc>("frame-reopen"),
        document::<frame::SessionFrameDoc>("opencode-frame"),
        document::<frame::FinishDoc>("opencode-finish"),
        document::<frame::TurnDoc>("opencode-turn"),
        document::<frame::InvalidateDoc>("opencode-deleted"),
        document::<crate::install::InstallDoc>("opencode-install"),
        document::<frame::SessionFrameDoc>("pi-frame"),
        document::<frame::FinishDoc>("pi-finish"),
        document::<frame::TurnDoc>("pi-turn"),
        document::<crate::install::InstallDoc>("pi-install"),
        document::<crate::install::InstallDoc>("hooks-install"),
        document::<crate::install::ClaudeInstallDoc>("claude-install"),
        document::<crate::install::CodexInstallDoc>("codex-install"),
        document::<crate::install::CodexInstallDoc>("qwen-install"),
        document::<crate::install::CodexInstallDoc>("copilot-install"),
        document::<crate::install::CodexInstallDoc>("gemini-install"),
        document::<swarm::StatusDoc>("swarm-status"),
        document::<swarm::PlanDoc>("swarm-plan"),
        document::<swarm::AgentsDoc>("swarm-agents"),
        document::<swarm::HistoryDoc>("swarm-history"),
        document::<swarm::EvidenceOutput>("swarm-evidence"),
        document::<swarm::DiagnoseDoc>("swarm-diagnose"),
        document::<swarm::ExportDoc>("swarm-export"),
        document::<swarm::SwarmConfigDoc>("swarm-config"),
        document::<budget::EstimateDoc>("budget-estimate"),
        document::<budget::ModelsDoc>("budget-models"),
        document::<crate::spent::doc::SpentDoc>("budget-spent"),
        document::<compact::RenderOutput>("compact-render"),
        document::<compact::PromptBody>("compact-notice"),
        document::<crate::settings::ConfigDoc>("config"),
    ]
}

fn document<T: JsonSchema>(name: &'static str) -> (&'static str, Schema) {
    // The serialize contract: a field is required unless it may be skipped, so `null` fields
    // (always printed) are required and `LogDoc::text` is not.
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let title = format!("ctx {} --json", name.replace('-', " "));
    schema.insert("title".into(), title.into());
    (name, schema)
}

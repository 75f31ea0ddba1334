//! What the shell completions offer, computed by ctx itself when the shell asks (clap_complete's
//! dynamic engine: `COMPLETE=bash ctx -- ctx frame show <TAB>`): the project's frame ids with
//! their goal and status, swarm phases, model names and settings keys.
//!
//! A completion runs inside the user's prompt: it reads only what it needs, never prints an error,
//! and offers nothing when something cannot be read (a broken state file completes nothing).

use clap_complete::engine::CompletionCandidate;

use crate::frame::ops;
use crate::frame::state::{Frame, State, Status};
use crate::frame::store::Store;
use crate::project::Project;

/// The project the completion is for: `$CTX_ROOT`, else the one around the working directory
/// (the shell does not pass `-C` to the completer).
fn project() -> Option<Project> {
    let root = std::env::var_os("CTX_ROOT").filter(|r| !r.is_empty());
    Project::locate(root.as_deref().map(std::path::Path::new)).ok()
}

fn state() -> Option<State> {
    Store::new(&project()?.root).load().ok()
}

/// Frames for which `wanted` holds, most recently updated first, each with its goal and status.
fn frames(wanted: impl Fn(&State, &Frame<'_>) -> bool) -> Vec<CompletionCandidate> {
    let Some(state) = state() else {
        return Vec::new();
    };
    let mut frames: Vec<_> = state.frames().filter(|f| wanted(&state, f)).collect();
    frames.sort_by_key(|f| std::cmp::Reverse(f.updated_at()));
    frames
        .into_iter()
        .map(|f| {
            let goal: String = f
                .goal()
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(60)
                .collect();
            let goal = crate::text::visible_line(&goal).into_owned();
            CompletionCandidate::new(f.id).help(Some(format!("{goal} ({})", f.status()).into()))
        })
        .collect()
}

/// Every frame (`show`, `log`, `invalidate`, `edit`, `tree --from`, `--frame`).
pub fn any_frame() -> Vec<CompletionCandidate> {
    frames(|_, _| true)
}

/// What `frame activate` takes (its own check): planned frames whose parent runs, blocked frames
/// to resume, running frames to return to.
pub fn activatable_frame() -> Vec<CompletionCandidate> {
    frames(|state, f| ops::check_activate(state, f.id).is_ok())
}

/// What can take a child (`push --parent`): running frames.
pub fn running_frame() -> Vec<CompletionCandidate> {
    frames(|_, f| f.status() == Status::InProgress)
}

/// What `pop --frame` can finish: running and blocked frames.
pub fn poppable_frame() -> Vec<CompletionCandidate> {
    frames(|_, f| matches!(f.status(), Status::InProgress | Status::Blocked))
}

/// What `frame reopen` takes (its own check): invalidated frames under a parent that has not
/// finished.
pub fn invalidated_frame() -> Vec<CompletionCandidate> {
    frames(|state, f| ops::check_reopen(state, f.id).is_ok())
}

/// The phases of the swarm plan, with their names.
pub fn phase() -> Vec<CompletionCandidate> {
    let Some(project) = project() else {
        return Vec::new();
    };
    let files = crate::swarm::files::read_plan(&project.swarm_dir());
    let Some(plan) = files.plan.as_ref().map(crate::swarm::files::Plan::model) else {
        return Vec::new();
    };
    plan.phases
        .iter()
        .map(|p| {
            let name = crate::text::visible_line(&p.name).into_owned();
            CompletionCandidate::new(p.number.to_string()).help(Some(name.into()))
        })
        .collect()
}

/// The tasks with an evidence bundle (opencode-swarm 5.x), with their entry counts.
pub fn evidence_task() -> Vec<CompletionCandidate> {
    let Some(project) = project() else {
        return Vec::new();
    };
    let swarm_dir = project.swarm_dir();
    crate::swarm::evidence::list(&swarm_dir)
        .ids
        .into_iter()
        .map(|id| {
            let help = match crate::swarm::evidence::load(&swarm_dir, &id) {
                crate::swarm::evidence::Bundle::Valid(bundle) => {
                    format!("{} entries", crate::swarm::evidence::entries(&bundle).len())
                }
                _ => "no readable bundle".to_string(),
            };
            CompletionCandidate::new(id).help(Some(help.into()))
        })
        .collect()
}

/// Models ctx knows that start with the typed text: `provider/model`, and the bare model id when
/// the text matches one without its provider (`--model` takes both).
pub fn model(typed: &std::ffi::OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = typed.to_str() else {
        return Vec::new();
    };
    let names = model_names();
    let mut offered: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|name| name.starts_with(typed))
        .collect();
    if !typed.is_empty() {
        offered.extend(
            names
                .iter()
                .filter_map(|name| crate::budget::models::split_model(name))
                .map(|(_, bare)| bare)
                .filter(|bare| bare.starts_with(typed)),
        );
    }
    offered.sort_unstable();
    offered.dedup();
    offered.into_iter().map(CompletionCandidate::new).collect()
}

/// Models ctx knows: its own table and the user's models.dev cache, as `provider/model`.
fn model_names() -> Vec<String> {
    let mut names: Vec<String> = crate::budget::models::BUILTIN
        .iter()
        .map(|(name, _)| name.to_string())
        .collect();
    let cache = crate::project::xdg_cache_home()
        .map(|dir| dir.join("opencode").join("models.json"))
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .and_then(|value| crate::budget::models::ModelsDev::from_value(value).ok());
    if let Some(cache) = cache {
        names.extend(cache.all().into_iter().map(|(name, _)| name));
    }
    names.sort();
    names.dedup();
    names
}

/// The settings `ctx config` shows, with what each does.
pub fn config_key() -> Vec<CompletionCandidate> {
    crate::settings::ALL
        .iter()
        .map(|def| CompletionCandidate::new(def.key).help(Some(def.about.into())))
        .chain(["root", "color"].into_iter().map(CompletionCandidate::new))
        .collect()
}

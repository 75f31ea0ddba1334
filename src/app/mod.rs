//! The floor between the command adapters (`crate::commands`) and the cores: what more than one
//! command runs, with the run's context (the project, the output, the clock). Adapters call down
//! here and never each other; they hand down what they parsed, and nothing here dispatches on a
//! command or reads the command line.

pub mod agent_calls;
pub mod fold;
pub mod frame_context;
pub mod hooks;
pub mod install;
pub mod pop;
pub mod selector;
pub mod session;
pub mod spent;
pub mod stray;
pub mod todo;
pub mod turn;

use std::cell::OnceCell;

use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::settings::{self, Settings};

/// What every command gets: the project, the output, the one clock reading of this run, and
/// its settings, resolved once.
pub struct Context {
    pub project: Project,
    pub out: Output,
    pub now: i64,
    /// Hook mode: ctx was called by an agent on its own, not typed by a person (see
    /// [`crate::project::hook_mode`]).
    pub hook: bool,
    settings: OnceCell<Settings>,
}

/// Which frames `frame.auto` has ctx open and close by itself.
#[derive(Debug, Clone, Copy)]
pub struct AutoFrames {
    /// A frame per person's turn (`turns`, `all`).
    pub turns: bool,
    /// A frame per todo item in progress (`todos`, `all`).
    pub todos: bool,
}

impl Context {
    /// A run's context; its settings are resolved at their first read ([`Context::settings`]).
    pub fn new(project: Project, out: Output, now: i64, hook: bool) -> Context {
        Context {
            project,
            out,
            now,
            hook,
            settings: OnceCell::new(),
        }
    }

    /// The run's settings, resolved at the first call from the environment and the project's
    /// and user's settings files; each command reads its settings here.
    pub fn settings(&self) -> Result<&Settings> {
        if let Some(settings) = self.settings.get() {
            return Ok(settings);
        }
        let resolved = Settings::resolve(self.project.config()?);
        Ok(self.settings.get_or_init(|| resolved))
    }

    /// `frame.auto`, read once for every agent and every kind of frame.
    pub fn auto_frames(&self) -> crate::error::Result<AutoFrames> {
        let value = self.settings()?.text(&settings::FRAME_AUTO)?;
        Ok(AutoFrames {
            turns: matches!(value, "turns" | "all"),
            todos: matches!(value, "todos" | "all"),
        })
    }

    /// The project's frame store; in hook mode with the shorter lock wait, and refusing to start
    /// `.opencode/flame/` in the home folder or `/`, which no one chose for a project when a hook
    /// fires there on its own, unless `hooks.state_in_home` is on.
    pub fn store(&self) -> Result<crate::frame::store::Store> {
        let store = crate::frame::store::Store::new(&self.project.root);
        if !self.hook {
            return Ok(store);
        }
        let Some(place) = crate::project::unclaimed_root(&self.project.root) else {
            return Ok(store.for_hook(None));
        };
        let allowed = self.settings()?.on(&settings::HOOKS_STATE_IN_HOME)?;
        let refusal = (!allowed).then(|| {
            let at = match place {
                "/" => "/".to_string(),
                _ => format!("{place} {}", self.project.root.display()),
            };
            format!(
                "stayed out of {at}: a hook starts no frame state (.opencode/flame/) there; to \
                 keep frames there, set hooks.state_in_home = \"on\" or create .opencode/flame/ \
                 there"
            )
        });
        Ok(store.for_hook(refusal))
    }

    /// The frame state for a command that only reads it, with a warning when it is of a newer
    /// schema than this ctx knows.
    pub fn read_state(
        &self,
        store: &crate::frame::store::Store,
    ) -> Result<crate::frame::state::State> {
        let state = store.load()?;
        if state.version() > crate::frame::state::SCHEMA_VERSION {
            self.out.warn(&format!(
                "{} has version {}; showing what this ctx understands",
                store.path().display(),
                state.version()
            ));
        }
        Ok(state)
    }

    /// opencode-swarm's merged config; each ignored file is a warning on stderr.
    pub fn swarm_config(&self) -> crate::swarm::config::SwarmConfig {
        let loaded = crate::swarm::files::read_config(&self.project.root);
        for warning in &loaded.warnings {
            self.out.warn(warning);
        }
        loaded.config
    }
}

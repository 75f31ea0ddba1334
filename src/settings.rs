//! Every setting ctx reads from its settings files and environment, in one registry: commands
//! resolve their settings through it, and `ctx config` shows each with its value and source.
//!
//! Precedence, highest first (cli.md "Files"): a command-line flag, the `CTX_*` variable, the
//! project's `.opencode/ctx.toml`, the user's `$XDG_CONFIG_HOME/ctx/config.toml`, a fallback the
//! setting names (another tool's variable or file), then the built-in default.

use schemars::JsonSchema;
use serde::Serialize;

use crate::budget::tokenizer;
use crate::document::Version;
use crate::error::{Error, Result};
use crate::project::{Config, Source, lookup_dotted};
use crate::swarm::config::ContextBudget;

/// The values a setting accepts.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A non-negative integer.
    Count,
    /// A number from 0 to 1.
    Fraction,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// Any text.
    Text,
}

impl Kind {
    fn expected(self) -> String {
        match self {
            Kind::Count => "a non-negative integer".to_string(),
            Kind::Fraction => "a number from 0 to 1".to_string(),
            Kind::Choice(words) => format!("one of {}", words.join(", ")),
            Kind::Text => "a string".to_string(),
        }
    }

    /// The value in canonical form, or `None` when it is not of this kind.
    fn check(self, value: &toml::Value) -> Option<toml::Value> {
        match (self, value) {
            (Kind::Count, toml::Value::Integer(n)) if *n >= 0 => Some(value.clone()),
            (Kind::Fraction, toml::Value::Float(f)) if (0.0..=1.0).contains(f) => {
                Some(value.clone())
            }
            (Kind::Fraction, toml::Value::Integer(n)) if (0..=1).contains(n) => {
                Some(toml::Value::Float(*n as f64))
            }
            (Kind::Choice(words), toml::Value::String(s)) if words.contains(&s.as_str()) => {
                Some(value.clone())
            }
            (Kind::Text, toml::Value::String(_)) => Some(value.clone()),
            _ => None,
        }
    }
}

/// One setting: its key in the settings files, its variable, its kind and default.
#[derive(Debug)]
pub struct Def {
    /// Dotted key in `ctx.toml` / `config.toml` (`[frame.context] total` is `frame.context.total`).
    pub key: &'static str,
    /// The `CTX_*` variable.
    pub env: &'static str,
    pub kind: Kind,
    /// The built-in default, as a TOML value's text.
    pub default: &'static str,
    /// Another tool's variable honoured just above the default (Flame's budgets).
    pub fallback_env: Option<&'static str>,
    /// The value of opencode-swarm's `context_budget` honoured just above the default.
    pub swarm_key: Option<SwarmKey>,
    /// What the setting does, one line.
    pub about: &'static str,
}

/// A value of opencode-swarm's `context_budget` that stands in for a ctx setting.
#[derive(Debug, Clone, Copy)]
pub enum SwarmKey {
    WarnThreshold,
    CriticalThreshold,
}

impl SwarmKey {
    fn name(self) -> &'static str {
        match self {
            SwarmKey::WarnThreshold => "warn_threshold",
            SwarmKey::CriticalThreshold => "critical_threshold",
        }
    }

    fn read(self, budget: &ContextBudget) -> Option<f64> {
        match self {
            SwarmKey::WarnThreshold => budget.warn_threshold,
            SwarmKey::CriticalThreshold => budget.critical_threshold,
        }
    }
}

pub const FRAME_CONTEXT_TOTAL: Def = Def {
    key: "frame.context.total",
    env: "CTX_FRAME_CONTEXT_TOTAL",
    kind: Kind::Count,
    default: "4000",
    swarm_key: None,
    fallback_env: Some("FLAME_TOKEN_BUDGET_TOTAL"),
    about: "token budget of the whole <flame-context> (ctx compact render --for frame)",
};

pub const FRAME_CONTEXT_ANCESTORS: Def = Def {
    key: "frame.context.ancestors",
    env: "CTX_FRAME_CONTEXT_ANCESTORS",
    kind: Kind::Count,
    default: "1500",
    swarm_key: None,
    fallback_env: Some("FLAME_TOKEN_BUDGET_ANCESTORS"),
    about: "token budget of the ancestors section of <flame-context>",
};

pub const FRAME_CONTEXT_SIBLINGS: Def = Def {
    key: "frame.context.siblings",
    env: "CTX_FRAME_CONTEXT_SIBLINGS",
    kind: Kind::Count,
    default: "1500",
    swarm_key: None,
    fallback_env: Some("FLAME_TOKEN_BUDGET_SIBLINGS"),
    about: "token budget of the siblings and related frames in <flame-context>",
};

pub const FRAME_CONTEXT_CURRENT: Def = Def {
    key: "frame.context.current",
    env: "CTX_FRAME_CONTEXT_CURRENT",
    kind: Kind::Count,
    default: "800",
    swarm_key: None,
    fallback_env: Some("FLAME_TOKEN_BUDGET_CURRENT"),
    about: "token budget of the current frame in <flame-context>",
};

pub const FRAME_CONTEXT_TOKENIZER: Def = Def {
    key: "frame.context.tokenizer",
    env: "CTX_FRAME_CONTEXT_TOKENIZER",
    kind: Kind::Choice(&tokenizer::names(tokenizer::FRAME_CONTEXT)),
    default: "\"flame\"",
    fallback_env: None,
    swarm_key: None,
    about: "how <flame-context> budgets count tokens (flame = ceil(UTF-16 units / 4))",
};

pub const BUDGET_MODEL: Def = Def {
    key: "budget.model",
    env: "CTX_BUDGET_MODEL",
    kind: Kind::Text,
    default: "\"\"",
    fallback_env: None,
    swarm_key: None,
    about: "model budget estimate counts for without --model (empty: a session's own, else none)",
};

pub const BUDGET_TOKENIZER: Def = Def {
    key: "budget.tokenizer",
    env: "CTX_BUDGET_TOKENIZER",
    kind: Kind::Choice(&tokenizer::names(tokenizer::BUDGET)),
    default: "\"auto\"",
    fallback_env: None,
    swarm_key: None,
    about: "how budget estimate counts tokens without --tokenizer",
};

pub const BUDGET_LIMIT: Def = Def {
    key: "budget.limit",
    env: "CTX_BUDGET_LIMIT",
    kind: Kind::Count,
    default: "0",
    fallback_env: None,
    swarm_key: None,
    about: "context limit of any model [budget.model_limits] does not name (0: none)",
};

pub const BUDGET_WARN: Def = Def {
    key: "budget.warn",
    env: "CTX_BUDGET_WARN",
    kind: Kind::Fraction,
    default: "0.7",
    fallback_env: None,
    swarm_key: Some(SwarmKey::WarnThreshold),
    about: "share of the usable context at which budget estimate warns",
};

pub const BUDGET_CRITICAL: Def = Def {
    key: "budget.critical",
    env: "CTX_BUDGET_CRITICAL",
    kind: Kind::Fraction,
    default: "0.9",
    fallback_env: None,
    swarm_key: Some(SwarmKey::CriticalThreshold),
    about: "share of the usable context at which budget estimate is critical",
};

pub const OPENCODE_TOOLS: Def = Def {
    key: "opencode.tools",
    env: "CTX_OPENCODE_TOOLS",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether ctx's OpenCode plugin offers the model the flame_* tools",
};

pub const OPENCODE_SUBAGENT_FRAMES: Def = Def {
    key: "opencode.subagent_frames",
    env: "CTX_OPENCODE_SUBAGENT_FRAMES",
    kind: Kind::Choice(&["all", "heuristic", "none"]),
    default: "\"all\"",
    fallback_env: None,
    swarm_key: None,
    about: "which OpenCode child sessions become frames (all: every session made under another; \
            heuristic: those titled as the task tool titles its subagents; none)",
};

pub const OPENCODE_FOLD: Def = Def {
    key: "opencode.fold",
    env: "CTX_OPENCODE_FOLD",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether a popped frame's messages are sent to the model as its summary alone",
};

pub const CLAUDE_FOLD: Def = Def {
    key: "claude.fold",
    env: "CTX_CLAUDE_FOLD",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether a Claude Code session's transcript is folded when it ends, so that \
            --continue and --resume send each popped frame as its summary",
};

pub const CODEX_FOLD: Def = Def {
    key: "codex.fold",
    env: "CTX_CODEX_FOLD",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether a Codex session's rollout is folded when it ends, so that codex exec resume \
            sends each popped frame as its summary, and each finished turn or plan step frame \
            (frame.auto) with its tool outputs as placeholders",
};

pub const QWEN_FOLD: Def = Def {
    key: "qwen.fold",
    env: "CTX_QWEN_FOLD",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether a Qwen Code session is folded at the end of each turn (a chat_compression \
            record appended to its session file), so that --continue and --resume send each \
            popped frame as its summary",
};

pub const GEMINI_FOLD: Def = Def {
    key: "gemini.fold",
    env: "CTX_GEMINI_FOLD",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether a Gemini CLI session is folded when it ends (its message list set anew in its \
            session file), so that --resume sends each popped frame as its summary",
};

pub const COPILOT_FOLD: Def = Def {
    key: "copilot.fold",
    env: "CTX_COPILOT_FOLD",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether a GitHub Copilot CLI session is folded when it ends (a compaction appended to \
            its events.jsonl), so that --resume sends each popped frame as its summary",
};

pub const OPENCODE_FOLD_USER_MESSAGES: Def = Def {
    key: "opencode.fold_user_messages",
    env: "CTX_OPENCODE_FOLD_USER_MESSAGES",
    kind: Kind::Choice(&["fold", "keep"]),
    default: "\"fold\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether what a person wrote inside a popped frame folds with it or is kept",
};

pub const PI_TOOLS: Def = Def {
    key: "pi.tools",
    env: "CTX_PI_TOOLS",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether ctx's pi extension offers the model the flame_* tools",
};

pub const PI_FOLD: Def = Def {
    key: "pi.fold",
    env: "CTX_PI_FOLD",
    kind: Kind::Choice(&["on", "off"]),
    default: "\"on\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether a popped frame's messages are sent to pi's model as its summary alone",
};

pub const PI_FOLD_USER_MESSAGES: Def = Def {
    key: "pi.fold_user_messages",
    env: "CTX_PI_FOLD_USER_MESSAGES",
    kind: Kind::Choice(&["fold", "keep"]),
    default: "\"fold\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether what a person wrote in pi inside a popped frame folds with it or is kept",
};

pub const FRAME_LOG_OUTPUT_MAX: Def = Def {
    key: "frame.log.output_max",
    env: "CTX_FRAME_LOG_OUTPUT_MAX",
    kind: Kind::Count,
    default: "262144",
    fallback_env: None,
    swarm_key: None,
    about: "bytes of one tool output a frame's log keeps (0: no limit); the rest is cut, marked",
};

pub const FRAME_STALE_AFTER: Def = Def {
    key: "frame.stale_after",
    env: "CTX_FRAME_STALE_AFTER",
    kind: Kind::Count,
    default: "60",
    fallback_env: None,
    swarm_key: None,
    about: "minutes after its session's last model call that a running subagent's frame is \
            marked stale (0: never)",
};

pub const FRAME_AUTO: Def = Def {
    key: "frame.auto",
    env: "CTX_FRAME_AUTO",
    kind: Kind::Choice(&["off", "turns", "todos", "all"]),
    default: "\"off\"",
    fallback_env: None,
    swarm_key: None,
    about: "which frames ctx opens by itself, without the model: turns (one per person's \
            message), todos (one per todo item in progress: OpenCode's todowrite, Claude Code's \
            tasks, Codex's update_plan), all (both), off",
};

pub const FRAME_FOLD_AFTER: Def = Def {
    key: "frame.fold_after",
    env: "CTX_FRAME_FOLD_AFTER",
    kind: Kind::Count,
    default: "0",
    fallback_env: None,
    swarm_key: None,
    about: "person's messages a closed turn or todo frame waits for before its outputs fold \
            (0: it folds at once, when it closes)",
};

pub const HOOKS_STATE_IN_HOME: Def = Def {
    key: "hooks.state_in_home",
    env: "CTX_HOOKS_STATE_IN_HOME",
    kind: Kind::Choice(&["off", "on"]),
    default: "\"off\"",
    fallback_env: None,
    swarm_key: None,
    about: "whether hooks (Claude Code's, ctx's OpenCode plugin) may start frames in $HOME or /",
};

pub const SWARM_VERSION: Def = Def {
    key: "swarm.version",
    env: "CTX_SWARM_VERSION",
    kind: Kind::Choice(&["auto", "4.3", "5"]),
    default: "\"auto\"",
    fallback_env: None,
    swarm_key: None,
    about: "which opencode-swarm `ctx swarm` reproduces (auto: the one the project runs)",
};

/// Tables of free-form keys that are settings too (model ids to token counts), read by their
/// command rather than through a `Def`.
pub const TABLES: &[&str] = &["budget.model_limits"];

/// Every file-backed setting, in the order `ctx config` lists them.
pub const ALL: &[&Def] = &[
    &FRAME_CONTEXT_TOTAL,
    &FRAME_CONTEXT_ANCESTORS,
    &FRAME_CONTEXT_SIBLINGS,
    &FRAME_CONTEXT_CURRENT,
    &FRAME_CONTEXT_TOKENIZER,
    &FRAME_LOG_OUTPUT_MAX,
    &FRAME_STALE_AFTER,
    &FRAME_AUTO,
    &FRAME_FOLD_AFTER,
    &BUDGET_MODEL,
    &BUDGET_TOKENIZER,
    &BUDGET_LIMIT,
    &BUDGET_WARN,
    &BUDGET_CRITICAL,
    &OPENCODE_TOOLS,
    &OPENCODE_SUBAGENT_FRAMES,
    &OPENCODE_FOLD,
    &OPENCODE_FOLD_USER_MESSAGES,
    &HOOKS_STATE_IN_HOME,
    &CLAUDE_FOLD,
    &CODEX_FOLD,
    &QWEN_FOLD,
    &GEMINI_FOLD,
    &COPILOT_FOLD,
    &PI_TOOLS,
    &PI_FOLD,
    &PI_FOLD_USER_MESSAGES,
    &SWARM_VERSION,
];

/// A setting's value and where it came from (`detail`: the file or variable).
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub value: toml::Value,
    pub source: Source,
    pub detail: Option<String>,
}

impl Resolved {
    /// The value of a `Kind::Count` setting.
    pub fn count(&self) -> u64 {
        self.value
            .as_integer()
            .and_then(|n| u64::try_from(n).ok())
            .expect("Count settings are checked non-negative integers")
    }

    /// The value of a `Kind::Fraction` setting.
    pub fn fraction(&self) -> f64 {
        self.value
            .as_float()
            .expect("Fraction settings are checked numbers")
    }

    /// The value of a `Kind::Choice` or `Kind::Text` setting.
    pub fn text(&self) -> &str {
        self.value
            .as_str()
            .expect("Choice and Text settings are checked strings")
    }
}

/// Every setting of the registry, resolved once for a command from the environment, the settings
/// files, the fallbacks and the defaults, as uv resolves its settings once and hands them down:
/// a command reads them from its context ([`crate::app::Context::settings`]) and never resolves
/// one again. A flag and opencode-swarm's budget are layered on by the commands that have them
/// ([`Settings::with`]). A value of the wrong kind is an error where the setting is read, so that
/// no command is refused for a setting it does not read.
pub struct Settings {
    /// Each setting of [`ALL`], in its order.
    resolved: Vec<Result<Resolved>>,
}

impl Settings {
    /// Every setting, as `config` and the environment say.
    pub fn resolve(config: &Config) -> Settings {
        Settings {
            resolved: ALL.iter().map(|def| resolve(config, def)).collect(),
        }
    }

    /// `def`'s value and where it came from.
    pub fn get(&self, def: &Def) -> Result<&Resolved> {
        let at = ALL
            .iter()
            .position(|known| known.key == def.key)
            .expect("every setting read is in the registry");
        self.resolved[at].as_ref().map_err(Error::clone)
    }

    /// Whether an `on`/`off` setting is on.
    pub fn on(&self, def: &Def) -> Result<bool> {
        Ok(self.get(def)?.text() == "on")
    }

    /// The value of a `Kind::Count` setting.
    pub fn count(&self, def: &Def) -> Result<u64> {
        Ok(self.get(def)?.count())
    }

    /// The value of a `Kind::Choice` or `Kind::Text` setting.
    pub fn text(&self, def: &Def) -> Result<&str> {
        Ok(self.get(def)?.text())
    }

    /// `def` with a command's `flag` over it, and opencode-swarm's `context_budget` (`swarm`, for
    /// settings that name a key of it) under the files and over the fallback and the default.
    pub fn with(
        &self,
        def: &Def,
        flag: Option<toml::Value>,
        swarm: Option<&ContextBudget>,
    ) -> Result<Resolved> {
        if let Some(value) = flag {
            let value = def.kind.check(&value).ok_or_else(|| {
                Error::usage(format!("{}: expected {}", def.key, def.kind.expected()))
            })?;
            return Ok(Resolved {
                value,
                source: Source::Flag,
                detail: None,
            });
        }
        let resolved = self.get(def)?;
        let below_files = resolved.source == Source::Default
            || (resolved.source == Source::Env && resolved.detail.as_deref() == def.fallback_env);
        if below_files
            && let (Some(key), Some(budget)) = (def.swarm_key, swarm)
            && let Some(value) = key.read(budget)
        {
            return Ok(Resolved {
                value: toml::Value::Float(value),
                source: Source::Swarm,
                detail: Some(format!("context_budget.{}", key.name())),
            });
        }
        Ok(resolved.clone())
    }
}

/// Resolves `def` without a flag or opencode-swarm's budget: the environment, the files, the
/// fallback variable, the default. A value of the wrong kind is an error naming where it came
/// from.
fn resolve(config: &Config, def: &Def) -> Result<Resolved> {
    if let Some(found) = from_env(def, def.env)? {
        return Ok(found);
    }
    for (file, source) in [
        (&config.project, Source::Project),
        (&config.user, Source::User),
    ] {
        let Some(file) = file else { continue };
        let Some(raw) = lookup_dotted(&file.table, def.key) else {
            continue;
        };
        let value = def.kind.check(raw).ok_or_else(|| {
            Error::failure(format!(
                "{}: {} must be {}",
                file.path.display(),
                def.key,
                def.kind.expected()
            ))
        })?;
        return Ok(Resolved {
            value,
            source,
            detail: Some(file.path.display().to_string()),
        });
    }
    if let Some(var) = def.fallback_env
        && let Some(found) = from_env(def, var)?
    {
        return Ok(found);
    }
    Ok(Resolved {
        value: default_value(def),
        source: Source::Default,
        detail: None,
    })
}

/// The built-in default of `def` as a value.
pub fn default_value(def: &Def) -> toml::Value {
    let parsed: toml::Table = format!("v = {}", def.default)
        .parse()
        .expect("built-in defaults are TOML values");
    parsed["v"].clone()
}

fn from_env(def: &Def, var: &str) -> Result<Option<Resolved>> {
    let Some(raw) = std::env::var_os(var).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let raw = raw.to_string_lossy().into_owned();
    let value = env_value(def.kind, &raw)
        .ok_or_else(|| Error::failure(format!("{var}={raw}: expected {}", def.kind.expected())))?;
    Ok(Some(Resolved {
        value,
        source: Source::Env,
        detail: Some(var.to_string()),
    }))
}

/// An environment value read as the setting's kind.
fn env_value(kind: Kind, raw: &str) -> Option<toml::Value> {
    let trimmed = raw.trim();
    let value = match kind {
        Kind::Count => toml::Value::Integer(trimmed.parse().ok()?),
        Kind::Fraction => toml::Value::Float(trimmed.parse().ok()?),
        Kind::Choice(_) | Kind::Text => toml::Value::String(raw.to_string()),
    };
    kind.check(&value)
}

/// Keys in a settings table that no setting reads, as dotted paths (typos, mostly).
pub fn unknown_keys(table: &toml::Table) -> Vec<String> {
    let mut unknown = Vec::new();
    collect_unknown(table, "", &mut unknown);
    unknown
}

fn collect_unknown(table: &toml::Table, prefix: &str, unknown: &mut Vec<String>) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        let keys = || ALL.iter().map(|def| def.key).chain(TABLES.iter().copied());
        let is_setting = keys().any(|key| key == path);
        let is_section =
            keys().any(|key| key.starts_with(&path) && key[path.len()..].starts_with('.'));
        match value {
            toml::Value::Table(inner) if is_section && !is_setting => {
                collect_unknown(inner, &path, unknown)
            }
            _ if is_setting => {}
            _ => unknown.push(path),
        }
    }
}

/// What `ctx config --json` prints.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ConfigDoc {
    pub version: Version,
    /// The project root every command works on.
    pub root: Global,
    /// The effective `--color` choice.
    pub color: Global,
    /// ctx's settings files, whether or not they exist.
    pub files: Vec<SettingsFile>,
    /// The file-backed settings (all of them, or the one asked for).
    pub settings: Vec<SettingDoc>,
    /// Frame state left in the home folder's `.opencode/flame/` by an earlier ctx, while this
    /// project has none of its own (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stray_state: Option<StrayState>,
}

/// Frame state ctx no longer uses, and how to move it into the project.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StrayState {
    /// The folder, `~/.opencode/flame`.
    pub path: String,
    /// A shell command that moves it to this project's `.opencode/flame`.
    pub move_command: String,
}

/// A global option's value and origin.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Global {
    pub value: String,
    pub source: Source,
    /// The variable it came from, or how a default was found.
    pub detail: Option<String>,
    /// For the root: what chose it: `.opencode`, `.kilo`, `.swarm` or `.git` (the folder holds it),
    /// `cwd` (none was found: the working directory), or `given` (`-C`, `CTX_ROOT`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker: Option<&'static str>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SettingsFile {
    /// `project` or `user`.
    pub scope: &'static str,
    pub path: String,
    pub exists: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SettingDoc {
    /// Dotted key in the settings files.
    pub key: &'static str,
    /// The value in effect; null when the configured value is invalid.
    pub value: serde_json::Value,
    pub source: Source,
    /// The file or variable the value came from.
    pub detail: Option<String>,
    /// The `CTX_*` variable that sets it.
    pub env: &'static str,
    pub default: serde_json::Value,
    pub about: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_is_a_value_of_its_kind() {
        for def in ALL {
            let value = default_value(def);
            assert!(def.kind.check(&value).is_some(), "{}", def.key);
            assert!(def.env.starts_with("CTX_"), "{}", def.key);
        }
    }

    #[test]
    fn kinds_accept_and_refuse() {
        assert!(Kind::Count.check(&toml::Value::Integer(-1)).is_none());
        assert_eq!(
            Kind::Fraction.check(&toml::Value::Integer(1)),
            Some(toml::Value::Float(1.0))
        );
        assert!(Kind::Fraction.check(&toml::Value::Float(1.5)).is_none());
        assert!(env_value(Kind::Count, " 12 ").is_some());
        assert!(env_value(Kind::Count, "twelve").is_none());
    }

    #[test]
    fn unknown_keys_are_found_at_any_depth() {
        let table: toml::Table =
            "[frame.context]\ntotal = 1\ntotl = 2\n[budget]\nx = 1\n[budget.model_limits]\nm = 9\n"
                .parse()
                .unwrap();
        assert_eq!(unknown_keys(&table), ["budget.x", "frame.context.totl"]);
    }
}

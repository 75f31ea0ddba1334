//! opencode-swarm's configuration as opencode-swarm 4.3.0 reads it (swarm.md §6): the user and
//! project files, validated as a whole (an invalid file is ignored), merged, and turned into the
//! agent roster. ctx only reads these files.

use serde_json::{Map, Value};

/// One agent's overrides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentOverride {
    pub model: Option<String>,
    pub temperature: Option<f64>,
    pub disabled: Option<bool>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SwarmDef {
    pub name: Option<String>,
    pub agents: Option<Vec<(String, AgentOverride)>>,
}

/// `hooks`, defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Hooks {
    pub system_enhancer: bool,
    pub compaction: bool,
    pub agent_activity: bool,
    pub agent_awareness_max_chars: f64,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            system_enhancer: true,
            compaction: true,
            agent_activity: true,
            agent_awareness_max_chars: 300.0,
        }
    }
}

/// `context_budget` as written: an absent key is `None` (the plugin then uses its default,
/// given by the accessors).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContextBudget {
    pub enabled: Option<bool>,
    pub warn_threshold: Option<f64>,
    pub critical_threshold: Option<f64>,
    /// `model_limits` in file order.
    pub model_limits: Option<Vec<(String, f64)>>,
}

impl ContextBudget {
    pub const DEFAULT_WARN: f64 = 0.7;
    pub const DEFAULT_CRITICAL: f64 = 0.9;
    pub const DEFAULT_LIMIT: f64 = 128_000.0;

    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    /// The written limit for the first of `keys` present, then for `default`: the key and limit.
    pub fn written_limit(&self, keys: &[&str]) -> Option<(&str, f64)> {
        let limits = self.model_limits.as_deref()?;
        keys.iter().copied().chain(["default"]).find_map(|key| {
            limits
                .iter()
                .find(|(k, _)| k == key)
                .map(|(k, v)| (k.as_str(), *v))
        })
    }
}

/// A validated config file, or the merge of both.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SwarmConfig {
    pub agents: Option<Vec<(String, AgentOverride)>>,
    pub swarms: Option<Vec<(String, SwarmDef)>>,
    pub hooks: Option<Hooks>,
    pub context_budget: Option<ContextBudget>,
}

impl SwarmConfig {
    pub fn hooks(&self) -> Hooks {
        self.hooks.clone().unwrap_or_default()
    }
}

/// Parses and validates one file's text (§6.2–6.3). `Err` says why the file is ignored.
pub fn parse(text: &str) -> Result<SwarmConfig, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    from_value(&value)
}

/// Validates a parsed config file (§6.2–6.3).
pub fn from_value(value: &Value) -> Result<SwarmConfig, String> {
    let root = value.as_object().ok_or("the top level is not an object")?;
    for key in ["max_iterations", "qa_retry_limit"] {
        optional_number(root, key, 1.0, 10.0)?;
    }
    optional_bool(root, "inject_phase_reminders")?;
    let agents = match root.get("agents") {
        None => None,
        Some(v) => Some(agent_map(v, "agents")?),
    };
    let swarms = match root.get("swarms") {
        None => None,
        Some(Value::Object(map)) => Some(
            js_key_order(map)
                .into_iter()
                .map(|(id, def)| swarm_def(def, &format!("swarms.{id}")).map(|d| (id.clone(), d)))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err("swarms must be an object".into()),
    };
    let hooks = match root.get("hooks") {
        None => None,
        Some(Value::Object(h)) => {
            let defaults = Hooks::default();
            let flag = |key: &str, default: bool| -> Result<bool, String> {
                Ok(optional_bool(h, key)?.unwrap_or(default))
            };
            flag("delegation_tracker", false)?;
            Some(Hooks {
                system_enhancer: flag("system_enhancer", defaults.system_enhancer)?,
                compaction: flag("compaction", defaults.compaction)?,
                agent_activity: flag("agent_activity", defaults.agent_activity)?,
                agent_awareness_max_chars: optional_number(
                    h,
                    "agent_awareness_max_chars",
                    50.0,
                    2000.0,
                )
                .map_err(|e| format!("hooks.{e}"))?
                .unwrap_or(defaults.agent_awareness_max_chars),
            })
        }
        Some(_) => return Err("hooks must be an object".into()),
    };
    let context_budget = match root.get("context_budget") {
        None => None,
        Some(Value::Object(b)) => {
            let in_budget = |e: String| format!("context_budget.{e}");
            let model_limits = match b.get("model_limits") {
                None => None,
                Some(Value::Object(limits)) => Some(
                    limits
                        .iter()
                        .map(|(k, v)| match v.as_f64() {
                            Some(n) if n >= 1000.0 && v.is_number() => Ok((k.clone(), n)),
                            _ => Err(format!(
                                "context_budget.model_limits.{k} must be a number of at least 1000"
                            )),
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                Some(_) => return Err("context_budget.model_limits must be an object".into()),
            };
            Some(ContextBudget {
                enabled: optional_bool(b, "enabled").map_err(in_budget)?,
                warn_threshold: optional_number(b, "warn_threshold", 0.0, 1.0)
                    .map_err(in_budget)?,
                critical_threshold: optional_number(b, "critical_threshold", 0.0, 1.0)
                    .map_err(in_budget)?,
                model_limits,
            })
        }
        Some(_) => return Err("context_budget must be an object".into()),
    };
    Ok(SwarmConfig {
        agents,
        swarms,
        hooks,
        context_budget,
    })
}

fn agent_map(value: &Value, at: &str) -> Result<Vec<(String, AgentOverride)>, String> {
    let map = value
        .as_object()
        .ok_or_else(|| format!("{at} must be an object"))?;
    map.iter()
        .map(|(name, o)| {
            let at = format!("{at}.{name}");
            let o = o
                .as_object()
                .ok_or_else(|| format!("{at} must be an object"))?;
            let model = match o.get("model") {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return Err(format!("{at}.model must be a string")),
            };
            Ok((
                name.clone(),
                AgentOverride {
                    model,
                    temperature: optional_number(o, "temperature", 0.0, 2.0)
                        .map_err(|e| format!("{at}.{e}"))?,
                    disabled: optional_bool(o, "disabled").map_err(|e| format!("{at}.{e}"))?,
                },
            ))
        })
        .collect()
}

fn swarm_def(value: &Value, at: &str) -> Result<SwarmDef, String> {
    let o = value
        .as_object()
        .ok_or_else(|| format!("{at} must be an object"))?;
    Ok(SwarmDef {
        name: match o.get("name") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(format!("{at}.name must be a string")),
        },
        agents: match o.get("agents") {
            None => None,
            Some(v) => Some(agent_map(v, &format!("{at}.agents"))?),
        },
    })
}

fn optional_number(
    object: &Map<String, Value>,
    key: &str,
    min: f64,
    max: f64,
) -> Result<Option<f64>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if (min..=max).contains(&x) => Ok(Some(x)),
            _ => Err(format!("{key} must be a number from {min} to {max}")),
        },
        Some(_) => Err(format!("{key} must be a number from {min} to {max}")),
    }
}

fn optional_bool(object: &Map<String, Value>, key: &str) -> Result<Option<bool>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(format!("{key} must be true or false")),
    }
}

/// JavaScript's own-key order: canonical array indices ascending, then the rest in file order.
pub fn js_key_order(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let index = |key: &str| -> Option<u32> {
        let n: u32 = key.parse().ok()?;
        (n.to_string() == key && n != u32::MAX).then_some(n)
    };
    let mut indexed: Vec<(u32, (&String, &Value))> = map
        .iter()
        .filter_map(|(k, v)| index(k).map(|i| (i, (k, v))))
        .collect();
    indexed.sort_by_key(|(i, _)| *i);
    let mut ordered: Vec<(&String, &Value)> = indexed.into_iter().map(|(_, kv)| kv).collect();
    ordered.extend(map.iter().filter(|(k, _)| index(k).is_none()));
    ordered
}

/// §6.4: the user file (or the bare defaults), with the project file's top-level keys written
/// over it and `agents` deep-merged.
pub fn merge(user: Option<SwarmConfig>, project: Option<SwarmConfig>) -> SwarmConfig {
    let base = user.unwrap_or_default();
    let Some(project) = project else {
        return base;
    };
    let agents = match (base.agents, project.agents) {
        (None, b) => b,
        (a, None) => a,
        (Some(mut a), Some(b)) => {
            for (name, over) in b {
                match a.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, existing)) => {
                        existing.model = over.model.or(existing.model.take());
                        existing.temperature = over.temperature.or(existing.temperature);
                        existing.disabled = over.disabled.or(existing.disabled);
                    }
                    None => a.push((name, over)),
                }
            }
            Some(a)
        }
    };
    SwarmConfig {
        agents,
        swarms: project.swarms.or(base.swarms),
        hooks: project.hooks.or(base.hooks),
        context_budget: project.context_budget.or(base.context_budget),
    }
}

/// One agent of the roster.
#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    pub name: String,
    pub model: String,
    pub temperature: Option<f64>,
    pub read_only: bool,
    pub primary: bool,
    pub description: String,
}

struct Base {
    name: &'static str,
    model: &'static str,
    temperature: f64,
    read_only: bool,
    description: &'static str,
}

const FALLBACK_MODEL: &str = "google/gemini-2.0-flash";

/// The default roster of opencode-swarm 4.3.0, in order (§6.5).
const BASES: [Base; 7] = [
    Base {
        name: "architect",
        model: "anthropic/claude-sonnet-4-5",
        temperature: 0.1,
        read_only: false,
        description: "Central orchestrator of the development pipeline. Analyzes requests, coordinates SME consultation, manages code generation, and triages QA feedback.",
    },
    Base {
        name: "explorer",
        model: FALLBACK_MODEL,
        temperature: 0.1,
        read_only: true,
        description: "Fast codebase discovery and analysis. Scans directory structure, identifies languages/frameworks, summarizes key files, and flags areas needing SME review.",
    },
    Base {
        name: "sme",
        model: FALLBACK_MODEL,
        temperature: 0.2,
        read_only: true,
        description: "Open-domain subject matter expert. Provides deep technical guidance on any domain the Architect requests \u{2014} from security to iOS to Kubernetes.",
    },
    Base {
        name: "coder",
        model: "anthropic/claude-sonnet-4-5",
        temperature: 0.2,
        read_only: false,
        description: "Production-quality code implementation specialist. Receives unified specifications and writes complete, working code.",
    },
    Base {
        name: "reviewer",
        model: FALLBACK_MODEL,
        temperature: 0.1,
        read_only: true,
        description: "Code reviewer. Verifies correctness, finds vulnerabilities, and checks quality across architect-specified dimensions.",
    },
    Base {
        name: "critic",
        model: FALLBACK_MODEL,
        temperature: 0.1,
        read_only: true,
        description: "Plan critic. Reviews the architect's plan before implementation begins \u{2014} checks completeness, feasibility, scope, dependencies, and flags AI-slop.",
    },
    Base {
        name: "test_engineer",
        model: FALLBACK_MODEL,
        temperature: 0.2,
        read_only: false,
        description: "Testing and validation specialist. Generates test cases, runs them, and reports structured PASS/FAIL verdicts.",
    },
];

/// The roster (§6.6): every swarm's agents, prefixed, overridden and filtered.
pub fn roster(config: &SwarmConfig) -> Vec<Agent> {
    let mut agents = Vec::new();
    match &config.swarms {
        Some(swarms) if !swarms.is_empty() => {
            for (id, def) in swarms {
                build(
                    &mut agents,
                    id,
                    def.name.as_deref(),
                    def.agents.as_deref(),
                    id == "default",
                );
            }
        }
        _ => build(
            &mut agents,
            "default",
            Some("Default"),
            config.agents.as_deref(),
            true,
        ),
    }
    agents
}

fn build(
    out: &mut Vec<Agent>,
    id: &str,
    display: Option<&str>,
    overrides: Option<&[(String, AgentOverride)]>,
    is_default: bool,
) {
    let prefix = if is_default {
        String::new()
    } else {
        format!("{id}_")
    };
    let lookup =
        |key: &str| overrides.and_then(|o| o.iter().find(|(n, _)| n == key).map(|(_, v)| v));
    for base in &BASES {
        // The plugin's quirk: a base name that starts with the swarm's prefix is looked up
        // without it for the model and `disabled` (swarm `test` → `engineer`).
        let key = if !is_default {
            base.name.strip_prefix(prefix.as_str()).unwrap_or(base.name)
        } else {
            base.name
        };
        let over = lookup(key);
        if over.and_then(|o| o.disabled) == Some(true) {
            continue;
        }
        let model = match over.and_then(|o| o.model.as_deref()) {
            Some(m) if !m.is_empty() => m.to_string(),
            _ => BASES
                .iter()
                .find(|b| b.name == key)
                .map_or(FALLBACK_MODEL, |b| b.model)
                .to_string(),
        };
        let temperature = lookup(base.name)
            .and_then(|o| o.temperature)
            .unwrap_or(base.temperature);
        let description = if base.name == "architect" && !is_default {
            let label = display.filter(|d| !d.is_empty()).unwrap_or(id);
            format!("[{label}] {}", base.description)
        } else {
            base.description.to_string()
        };
        out.push(Agent {
            name: format!("{prefix}{}", base.name),
            model,
            temperature: Some(temperature),
            read_only: base.read_only,
            primary: base.name == "architect",
            description,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_roster_has_seven_agents() {
        let roster = roster(&SwarmConfig::default());
        let names: Vec<&str> = roster.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "architect",
                "explorer",
                "sme",
                "coder",
                "reviewer",
                "critic",
                "test_engineer"
            ]
        );
    }

    #[test]
    fn swarms_are_prefixed_and_ordered_like_javascript_objects() {
        let config = parse(
            r#"{"agents": {"coder": {"model": "ignored"}},
                "swarms": {"local": {"name": "Local", "agents": {"coder": {"model": "ollama/qwen"}, "sme": {"disabled": true}}},
                           "2": {}, "default": {}, "test": {"agents": {"engineer": {"model": "m/x"}, "test_engineer": {"temperature": 1.5}}}}}"#,
        )
        .unwrap();
        let roster = roster(&config);
        let names: Vec<&str> = roster.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(&names[..2], ["2_architect", "2_explorer"]);
        assert_eq!(names[7], "local_architect");
        assert!(!names.contains(&"local_sme"));
        let local_coder = roster.iter().find(|a| a.name == "local_coder").unwrap();
        assert_eq!(local_coder.model, "ollama/qwen");
        let architect = roster.iter().find(|a| a.name == "local_architect").unwrap();
        assert!(architect.description.starts_with("[Local] Central"));
        assert!(names.contains(&"architect"));
        let tester = roster
            .iter()
            .find(|a| a.name == "test_test_engineer")
            .unwrap();
        assert_eq!(tester.model, "m/x");
        assert_eq!(tester.temperature, Some(1.5));
    }

    #[test]
    fn invalid_files_say_why() {
        assert!(parse("\u{feff}{}").unwrap_err().starts_with("not JSON"));
        assert!(parse("[]").is_err());
        assert!(
            parse(r#"{"max_iterations": 11}"#)
                .unwrap_err()
                .contains("max_iterations")
        );
        assert!(parse(r#"{"agents": {"coder": {"temperature": null}}}"#).is_err());
        assert!(parse(r#"{"context_budget": {"model_limits": {"default": 999}}}"#).is_err());
        assert!(parse(r#"{"preset": "x", "max_iterations": 2.5}"#).is_ok());
    }

    #[test]
    fn only_agents_are_deep_merged() {
        let user = parse(r#"{"agents": {"coder": {"model": "a", "temperature": 0.5}}, "hooks": {"compaction": false}}"#).unwrap();
        let project = parse(r#"{"agents": {"coder": {"model": "b"}}, "hooks": {}}"#).unwrap();
        let merged = merge(Some(user), Some(project));
        let coder = &merged.agents.as_ref().unwrap()[0].1;
        assert_eq!(coder.model.as_deref(), Some("b"));
        assert_eq!(coder.temperature, Some(0.5));
        assert!(merged.hooks().compaction);
    }
}

//! Model limits: the built-in table, OpenCode's models.dev cache, and where OpenCode compacts
//! (opencode.md §6.1, §7).

use serde_json::Value;

/// A model's token limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The whole context window.
    pub context: u64,
    /// The input limit, when the model declares one apart from the context.
    pub input: Option<u64>,
    /// The output limit; `None` when unknown.
    pub output: Option<u64>,
}

impl Limits {
    pub fn context_only(context: u64) -> Limits {
        Limits {
            context,
            input: None,
            output: None,
        }
    }

    /// The count at which OpenCode 1.x compacts a session on this model, with OpenCode's default
    /// settings (no `compaction.reserved`, no `OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX`):
    /// `maxOut = min(output, 32000)` (32000 when 0), `reserved = min(20000, maxOut)`, and
    /// `input − reserved` when the model declares an input limit, else `context − maxOut`,
    /// clamped at 0.
    pub fn usable(&self) -> u64 {
        self.usable_with(None)
    }

    /// [`Limits::usable`] with OpenCode's `compaction.reserved` when it is set, which replaces
    /// `min(20000, maxOut)`.
    pub fn usable_with(&self, reserved: Option<u64>) -> u64 {
        const OUTPUT_TOKEN_MAX: u64 = 32_000;
        let max_out = match self.output.unwrap_or(0) {
            0 => OUTPUT_TOKEN_MAX,
            output => output.min(OUTPUT_TOKEN_MAX),
        };
        match self.input.filter(|&input| input > 0) {
            Some(input) => input.saturating_sub(reserved.unwrap_or(max_out.min(20_000))),
            None => self.context.saturating_sub(max_out),
        }
    }
}

/// ctx's built-in limits: models.dev at commit f3fc692 (2026-07-02) for the rows opencode.md §7.3
/// lists, and models.dev's published limits for the other common models.
pub const BUILTIN: &[(&str, Limits)] = &[
    ("anthropic/claude-sonnet-4-5", lim(200_000, None, 64_000)),
    ("anthropic/claude-haiku-4-5", lim(200_000, None, 64_000)),
    ("anthropic/claude-sonnet-4-6", lim(1_000_000, None, 64_000)),
    ("anthropic/claude-opus-4-7", lim(1_000_000, None, 128_000)),
    ("anthropic/claude-opus-4-5", lim(200_000, None, 64_000)),
    ("anthropic/claude-opus-4-1", lim(200_000, None, 32_000)),
    ("anthropic/claude-sonnet-4-0", lim(200_000, None, 64_000)),
    (
        "anthropic/claude-3-7-sonnet-latest",
        lim(200_000, None, 64_000),
    ),
    (
        "anthropic/claude-3-5-haiku-latest",
        lim(200_000, None, 8_192),
    ),
    ("openai/gpt-5", lim(400_000, Some(272_000), 128_000)),
    ("openai/gpt-5-mini", lim(400_000, Some(272_000), 128_000)),
    ("openai/gpt-5-nano", lim(400_000, Some(272_000), 128_000)),
    ("openai/gpt-5.5", lim(1_050_000, Some(922_000), 128_000)),
    ("openai/gpt-4.1", lim(1_047_576, None, 32_768)),
    ("openai/gpt-4.1-mini", lim(1_047_576, None, 32_768)),
    ("openai/gpt-4o", lim(128_000, None, 16_384)),
    ("openai/gpt-4o-mini", lim(128_000, None, 16_384)),
    ("openai/gpt-4-turbo", lim(128_000, None, 4_096)),
    ("openai/gpt-4", lim(8_192, None, 8_192)),
    ("openai/gpt-3.5-turbo", lim(16_385, None, 4_096)),
    ("openai/o3", lim(200_000, None, 100_000)),
    ("openai/o3-mini", lim(200_000, None, 100_000)),
    ("openai/o4-mini", lim(200_000, None, 100_000)),
    ("openai/o1", lim(200_000, None, 100_000)),
    ("google/gemini-2.5-pro", lim(1_048_576, None, 65_536)),
    ("google/gemini-2.5-flash", lim(1_048_576, None, 65_536)),
    ("google/gemini-2.0-flash", lim(1_048_576, None, 8_192)),
    ("deepseek/deepseek-chat", lim(1_000_000, None, 384_000)),
    ("moonshotai/kimi-k2.6", lim(262_144, None, 262_144)),
    ("alibaba/qwen3-coder-plus", lim(1_048_576, None, 65_536)),
    ("xai/grok-4.3", lim(1_000_000, None, 30_000)),
    ("mistral/codestral-latest", lim(256_000, None, 4_096)),
    ("groq/llama-3.3-70b-versatile", lim(131_072, None, 32_768)),
];

const fn lim(context: u64, input: Option<u64>, output: u64) -> Limits {
    Limits {
        context,
        input,
        output: Some(output),
    }
}

/// The context limit when nothing else is known (opencode-swarm's default too).
pub const FALLBACK_CONTEXT: u64 = 128_000;

/// Provider preference when a bare model id exists under several providers (opencode.md §7.2).
const PROVIDER_ORDER: [&str; 9] = [
    "anthropic",
    "openai",
    "google",
    "deepseek",
    "xai",
    "mistral",
    "moonshotai",
    "alibaba",
    "zai",
];

pub fn provider_rank(provider: &str) -> (usize, String) {
    let rank = PROVIDER_ORDER
        .iter()
        .position(|p| *p == provider)
        .unwrap_or(PROVIDER_ORDER.len());
    (rank, provider.to_string())
}

/// `provider/model` split at the first `/` (model ids may contain `/` themselves).
pub fn split_model(arg: &str) -> Option<(&str, &str)> {
    arg.split_once('/')
}

/// Looks `arg` up in the built-in table: `provider/model` exactly, else the bare id under any
/// provider. Returns the table's key.
pub fn builtin(arg: &str) -> Option<(&'static str, Limits)> {
    if let Some(&(key, limits)) = BUILTIN.iter().find(|(key, _)| *key == arg) {
        return Some((key, limits));
    }
    let bare = match split_model(arg) {
        Some((_, model)) => model,
        None => arg,
    };
    BUILTIN
        .iter()
        .filter(|(key, _)| split_model(key).is_some_and(|(_, m)| m == bare || m == arg))
        .min_by_key(|(key, _)| provider_rank(split_model(key).map_or("", |(p, _)| p)))
        .map(|&(key, limits)| (key, limits))
}

/// OpenCode's models.dev cache, checked for shape.
pub struct ModelsDev {
    root: serde_json::Map<String, Value>,
}

impl ModelsDev {
    /// Checks the shape of opencode.md §7.1: an object of providers, each with a `models` object
    /// whose entries have a `limit` object with a numeric `context`.
    pub fn from_value(value: Value) -> Result<ModelsDev, String> {
        let Value::Object(root) = value else {
            return Err("the top level is not an object".into());
        };
        for (provider, entry) in &root {
            let models = entry
                .get("models")
                .and_then(Value::as_object)
                .ok_or_else(|| format!("provider {provider:?} has no \"models\" object"))?;
            for (model, info) in models {
                let context = info.get("limit").and_then(|l| l.get("context"));
                if !context.is_some_and(Value::is_number) {
                    return Err(format!(
                        "{provider}/{model} has no numeric \"limit.context\""
                    ));
                }
            }
        }
        Ok(ModelsDev { root })
    }

    fn limits_of(info: &Value) -> Option<Limits> {
        let limit = info.get("limit")?;
        let number = |key: &str| {
            limit
                .get(key)
                .and_then(Value::as_f64)
                .filter(|n| *n >= 0.0)
                .map(|n| n as u64)
        };
        Some(Limits {
            context: number("context")?,
            input: number("input").filter(|&n| n > 0),
            output: number("output"),
        })
    }

    /// opencode.md §7.2: `P/M` when `P` is a provider with model `M`; else the whole argument as a
    /// bare id under every provider, by provider preference. Returns `provider/model`.
    pub fn lookup(&self, arg: &str) -> Option<(String, Limits)> {
        if let Some((provider, model)) = split_model(arg)
            && let Some(info) = self.root.get(provider).and_then(|p| p["models"].get(model))
        {
            return Some((arg.to_string(), Self::limits_of(info)?));
        }
        self.root
            .iter()
            .filter_map(|(provider, entry)| {
                let info = entry["models"].get(arg)?;
                Some((provider, Self::limits_of(info)?))
            })
            .min_by_key(|(provider, _)| provider_rank(provider))
            .map(|(provider, limits)| (format!("{provider}/{arg}"), limits))
    }

    /// Every `provider/model` with its limits, sorted.
    pub fn all(&self) -> Vec<(String, Limits)> {
        let mut rows: Vec<(String, Limits)> = self
            .root
            .iter()
            .flat_map(|(provider, entry)| {
                entry["models"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter_map(move |(model, info)| {
                        Some((format!("{provider}/{model}"), Self::limits_of(info)?))
                    })
            })
            .collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usable_matches_opencode_reference_rows() {
        // opencode.md §6.1 and §7.3 "compacts at".
        let at = |key: &str| builtin(key).unwrap().1.usable();
        assert_eq!(at("anthropic/claude-sonnet-4-5"), 168_000);
        assert_eq!(at("openai/gpt-5"), 252_000);
        assert_eq!(at("openai/gpt-5.5"), 902_000);
        assert_eq!(at("openai/gpt-4.1"), 1_015_576);
        assert_eq!(at("anthropic/claude-opus-4-7"), 968_000);
        assert_eq!(at("google/gemini-2.5-pro"), 1_016_576);
        assert_eq!(at("moonshotai/kimi-k2.6"), 230_144);
        assert_eq!(at("xai/grok-4.3"), 970_000);
        assert_eq!(Limits::context_only(128_000).usable(), 96_000);
        assert_eq!(Limits::context_only(10_000).usable(), 0);
        let with_input = Limits {
            context: 400_000,
            input: Some(272_000),
            output: Some(128_000),
        };
        assert_eq!(with_input.usable_with(None), 252_000);
        assert_eq!(with_input.usable_with(Some(50_000)), 222_000);
        assert_eq!(Limits::context_only(64_000).usable_with(Some(1)), 32_000);
    }

    #[test]
    fn builtin_finds_bare_ids() {
        assert_eq!(builtin("gpt-5").unwrap().0, "openai/gpt-5");
        assert_eq!(
            builtin("claude-sonnet-4-5").unwrap().0,
            "anthropic/claude-sonnet-4-5"
        );
        assert_eq!(
            builtin("openrouter/claude-sonnet-4-5").unwrap().0,
            "anthropic/claude-sonnet-4-5"
        );
        assert!(builtin("mock/mock-1").is_none());
    }

    #[test]
    fn models_dev_lookup_prefers_provider_order() {
        let value: Value = serde_json::from_str(
            r#"{"zed": {"models": {"m": {"limit": {"context": 1000, "output": 10}}}},
                "openai": {"models": {"m": {"limit": {"context": 2000, "input": 1500, "output": 20}}}},
                "openrouter": {"models": {"anthropic/claude-x": {"limit": {"context": 3000, "output": 0}}}}}"#,
        )
        .unwrap();
        let cache = ModelsDev::from_value(value).unwrap();
        let (key, limits) = cache.lookup("m").unwrap();
        assert_eq!(key, "openai/m");
        assert_eq!(limits.input, Some(1500));
        assert_eq!(cache.lookup("zed/m").unwrap().1.context, 1000);
        assert_eq!(
            cache
                .lookup("openrouter/anthropic/claude-x")
                .unwrap()
                .1
                .context,
            3000
        );
        assert!(cache.lookup("nope").is_none());
        assert_eq!(cache.all().len(), 3);
        assert!(ModelsDev::from_value(serde_json::json!([])).is_err());
        assert!(ModelsDev::from_value(serde_json::json!({"p": {"models": {"m": {}}}})).is_err());
    }
}

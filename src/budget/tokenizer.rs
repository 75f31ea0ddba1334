//! The tokenizers a person can name, on the command line (`--tokenizer`) and in the settings
//! (`budget.tokenizer`, `frame.context.tokenizer`): the one place their names, what they mean,
//! which settings take them, and the counting method each stands for are written down.

use super::bpe::Encoding;
use super::estimate::Family;
use super::tokenize::Method;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenizer {
    Auto,
    O200k,
    Cl100k,
    Swarm,
    OpenCode,
    Flame,
}

/// What `ctx budget estimate` counts with (`--tokenizer`, `budget.tokenizer`).
pub const BUDGET: [Tokenizer; 5] = [
    Tokenizer::Auto,
    Tokenizer::O200k,
    Tokenizer::Cl100k,
    Tokenizer::Swarm,
    Tokenizer::OpenCode,
];

/// What the budgets of `<flame-context>` count with (`frame.context.tokenizer`).
pub const FRAME_CONTEXT: [Tokenizer; 5] = [
    Tokenizer::Flame,
    Tokenizer::O200k,
    Tokenizer::Cl100k,
    Tokenizer::OpenCode,
    Tokenizer::Swarm,
];

const ALL: [Tokenizer; 6] = [
    Tokenizer::Auto,
    Tokenizer::O200k,
    Tokenizer::Cl100k,
    Tokenizer::Swarm,
    Tokenizer::OpenCode,
    Tokenizer::Flame,
];

/// The names of `list`, for the settings' choices.
pub const fn names<const N: usize>(list: [Tokenizer; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = list[i].name();
        i += 1;
    }
    out
}

impl Tokenizer {
    pub const fn name(self) -> &'static str {
        match self {
            Tokenizer::Auto => "auto",
            Tokenizer::O200k => Encoding::O200k.name(),
            Tokenizer::Cl100k => Encoding::Cl100k.name(),
            Tokenizer::Swarm => "swarm",
            Tokenizer::OpenCode => "opencode",
            Tokenizer::Flame => "flame",
        }
    }

    /// What the name means, for people (help, human output).
    pub const fn about(self) -> &'static str {
        match self {
            Tokenizer::Auto => {
                "the exact encoding of an OpenAI model (o200k without a model), else ctx's \
                 calibrated estimate for the model's family"
            }
            Tokenizer::O200k | Tokenizer::Cl100k => "OpenAI BPE, as tiktoken",
            Tokenizer::Swarm => "opencode-swarm's ceil(utf16 x 0.33)",
            Tokenizer::OpenCode => "OpenCode's round(utf16 / 4)",
            Tokenizer::Flame => "Flame's ceil(utf16 / 4)",
        }
    }

    /// The tokenizer of that name among `among`; any other name is an error, never a default.
    pub fn parse(name: &str, among: &[Tokenizer]) -> Result<Tokenizer, String> {
        among
            .iter()
            .copied()
            .find(|t| t.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = among.iter().map(|t| t.name()).collect();
                format!("unknown tokenizer {name:?}; expected {}", names.join(", "))
            })
    }

    /// How this tokenizer counts; `auto` decides by `model`: the exact encoding of an OpenAI
    /// model, ctx's estimate for the family of any other, and `o200k` when no model is named.
    pub fn method(self, model: Option<&str>) -> Method {
        match self {
            Tokenizer::Auto => match model {
                None => Method::Exact(Encoding::O200k),
                Some(model) => match openai_encoding(model) {
                    Some(encoding) => Method::Exact(encoding),
                    None => Method::Estimate(Family::of_model(model)),
                },
            },
            Tokenizer::O200k => Method::Exact(Encoding::O200k),
            Tokenizer::Cl100k => Method::Exact(Encoding::Cl100k),
            Tokenizer::Swarm => Method::Swarm,
            Tokenizer::OpenCode => Method::OpenCode,
            Tokenizer::Flame => Method::Flame,
        }
    }
}

impl Method {
    /// The name reported in output (`tokenizer` in JSON): the tokenizer's, or
    /// `estimate:<family>`.
    pub fn name(self) -> String {
        match self {
            Method::Exact(Encoding::O200k) => Tokenizer::O200k.name().to_string(),
            Method::Exact(Encoding::Cl100k) => Tokenizer::Cl100k.name().to_string(),
            Method::Swarm => Tokenizer::Swarm.name().to_string(),
            Method::OpenCode => Tokenizer::OpenCode.name().to_string(),
            Method::Flame => Tokenizer::Flame.name().to_string(),
            Method::Estimate(family) => format!("estimate:{}", family.name()),
        }
    }
}

/// What a reported tokenizer name (a [`Method::name`]) means, for people.
pub fn about_name(name: &str) -> String {
    match Tokenizer::parse(name, &ALL) {
        Ok(tokenizer) => tokenizer.about().to_string(),
        Err(_) => format!(
            "calibrated for {} models",
            name.strip_prefix("estimate:").unwrap_or(name)
        ),
    }
}

/// The encoding of an OpenAI model (opencode.md §7.4): o200k_base for GPT-4o, GPT-4.1, GPT-4.5,
/// GPT-5, gpt-oss and the o-series; cl100k_base for GPT-4 and GPT-3.5.
pub fn openai_encoding(model: &str) -> Option<Encoding> {
    let id = model.to_ascii_lowercase();
    let name = id.rsplit('/').next().unwrap_or(&id);
    let o_series = name.len() >= 2
        && name.starts_with('o')
        && name[1..].starts_with(|c: char| c.is_ascii_digit());
    if o_series
        || [
            "gpt-4o",
            "chatgpt-4o",
            "gpt-4.1",
            "gpt-4.5",
            "gpt-5",
            "gpt-oss",
            "codex-",
        ]
        .iter()
        .any(|prefix| name.starts_with(prefix))
    {
        Some(Encoding::O200k)
    } else if [
        "gpt-4",
        "gpt-3.5",
        "gpt-35",
        "text-embedding-3",
        "text-embedding-ada",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
    {
        Some(Encoding::Cl100k)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_picks_exact_encodings_for_openai_models() {
        let auto = |model| Tokenizer::Auto.method(model);
        let o200k = Method::Exact(Encoding::O200k);
        let cl100k = Method::Exact(Encoding::Cl100k);
        assert_eq!(auto(None), o200k);
        for model in [
            "openai/gpt-5",
            "gpt-4o-mini",
            "gpt-4.1",
            "o3",
            "openai/o4-mini",
            "gpt-5.5",
        ] {
            assert_eq!(auto(Some(model)), o200k, "{model}");
        }
        for model in ["gpt-4", "openai/gpt-4-turbo", "gpt-3.5-turbo"] {
            assert_eq!(auto(Some(model)), cl100k, "{model}");
        }
        assert_eq!(
            auto(Some("anthropic/claude-sonnet-4-5")),
            Method::Estimate(Family::Claude)
        );
        assert_eq!(auto(Some("ollama/olmo")), Method::Estimate(Family::Other));
    }

    #[test]
    fn names_parse_back_and_strangers_are_errors() {
        for tokenizer in ALL {
            assert_eq!(Tokenizer::parse(tokenizer.name(), &ALL), Ok(tokenizer));
        }
        for list in [BUDGET, FRAME_CONTEXT] {
            for tokenizer in list {
                let method = tokenizer.method(Some("openai/gpt-4o"));
                if tokenizer != Tokenizer::Auto {
                    assert_eq!(method.name(), tokenizer.name());
                }
            }
        }
        assert_eq!(
            Tokenizer::parse("flame", &BUDGET),
            Err(
                "unknown tokenizer \"flame\"; expected auto, o200k, cl100k, swarm, opencode".into()
            )
        );
        assert!(Tokenizer::parse("", &ALL).is_err());
        assert!(Tokenizer::parse("O200K", &ALL).is_err());
        assert_eq!(
            about_name("estimate:claude"),
            "calibrated for claude models"
        );
    }
}

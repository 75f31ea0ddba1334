//! Token budgets: tokenizers, model limits, what a session sends, verdicts and their rendering.
//! Everything here is pure; the directory walk and file reading live in `walk`.

pub mod doc;
pub mod estimate;
pub mod models;
pub mod render;
pub mod session;
pub mod tokenize;
pub mod verdict;
pub mod vocab;
pub mod walk;

use estimate::Family;
use tokenize::{Encoding, Method};

/// `--tokenizer auto`: the exact encoding of an OpenAI model, ctx's estimate for the family of
/// any other model, and `o200k` when no model is named.
pub fn auto_method(model: Option<&str>) -> Method {
    let Some(model) = model else {
        return Method::Exact(Encoding::O200k);
    };
    match openai_encoding(model) {
        Some(encoding) => Method::Exact(encoding),
        None => Method::Estimate(Family::of_model(model)),
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
        let o200k = Method::Exact(Encoding::O200k);
        let cl100k = Method::Exact(Encoding::Cl100k);
        assert_eq!(auto_method(None), o200k);
        for model in [
            "openai/gpt-5",
            "gpt-4o-mini",
            "gpt-4.1",
            "o3",
            "openai/o4-mini",
            "gpt-5.5",
        ] {
            assert_eq!(auto_method(Some(model)), o200k, "{model}");
        }
        for model in ["gpt-4", "openai/gpt-4-turbo", "gpt-3.5-turbo"] {
            assert_eq!(auto_method(Some(model)), cl100k, "{model}");
        }
        assert_eq!(
            auto_method(Some("anthropic/claude-sonnet-4-5")),
            Method::Estimate(Family::Claude)
        );
        assert_eq!(
            auto_method(Some("ollama/olmo")),
            Method::Estimate(Family::Other)
        );
    }
}

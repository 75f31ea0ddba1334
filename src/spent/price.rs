//! What a call cost: the cost the agent recorded wins; a call recorded at 0 on a model that
//! OpenCode's models.dev cache prices is priced from there and marked estimated; anything else
//! with tokens is unknown, never $0 (opencode.md §3.4, §7.1).

use serde_json::Value;

use super::record::{Cost, Tokens};

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// The tier OpenCode applies when `input + cache_read` exceeds 200 000 tokens.
    pub over_200k: Option<(f64, f64, f64, f64)>,
}

/// More than any model is priced at, USD per million tokens ($1 a token): a price above it is
/// an error in the cache, not a price.
pub const MAX_PRICE: f64 = 1_000_000.0;

impl Price {
    /// The price in a model's `cost` object; `Ok(None)` without an input and output price, an
    /// error naming the first figure that is not a price (negative, not a number, above
    /// [`MAX_PRICE`]).
    fn from_cost(cost: &Value) -> Result<Option<Price>, String> {
        let number = |v: &Value, key: &str| -> Result<Option<f64>, String> {
            match v.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(n) => match n.as_f64() {
                    Some(usd) if usd.is_finite() && (0.0..=MAX_PRICE).contains(&usd) => {
                        Ok(Some(usd))
                    }
                    _ => Err(format!("{key} {n}")),
                },
            }
        };
        let (Some(input), Some(output)) = (number(cost, "input")?, number(cost, "output")?) else {
            return Ok(None);
        };
        let tier = match cost.get("context_over_200k") {
            Some(t) => match (number(t, "input")?, number(t, "output")?) {
                (Some(input), Some(output)) => Some((
                    input,
                    output,
                    number(t, "cache_read")?.unwrap_or(0.0),
                    number(t, "cache_write")?.unwrap_or(0.0),
                )),
                _ => None,
            },
            None => None,
        };
        Ok(Some(Price {
            input,
            output,
            cache_read: number(cost, "cache_read")?.unwrap_or(0.0),
            cache_write: number(cost, "cache_write")?.unwrap_or(0.0),
            over_200k: tier,
        }))
    }

    /// OpenCode's formula: reasoning is billed at the output price.
    pub fn of(&self, tokens: &Tokens) -> f64 {
        let (input, output, cache_read, cache_write) = match self.over_200k {
            Some(tier) if tokens.input + tokens.cache_read > 200_000 => tier,
            _ => (self.input, self.output, self.cache_read, self.cache_write),
        };
        (tokens.input as f64 * input
            + (tokens.output + tokens.reasoning) as f64 * output
            + tokens.cache_read as f64 * cache_read
            + tokens.cache_write as f64 * cache_write)
            / 1_000_000.0
    }
}

/// The prices of the models.dev cache, by provider and model.
#[derive(Debug, Default)]
pub struct PriceList {
    root: serde_json::Map<String, Value>,
    /// The models whose price was refused and said so, to say it once.
    refused: std::cell::RefCell<std::collections::HashSet<String>>,
}

impl PriceList {
    /// The cache as OpenCode wrote it; anything else prices nothing.
    pub fn from_value(value: Value) -> PriceList {
        match value {
            Value::Object(root) => PriceList {
                root,
                ..PriceList::default()
            },
            _ => PriceList::default(),
        }
    }

    /// The price of `provider`'s `model`: that exact entry, else the model id under the
    /// provider that opencode.md §7.2 prefers; an error naming the entry and the figure when
    /// the entry found holds one that is not a price.
    pub fn lookup(&self, provider: &str, model: &str) -> Result<Option<Price>, String> {
        let price_of = |provider: &str| -> Option<Result<Price, String>> {
            let info = self.root.get(provider)?.get("models")?.get(model)?;
            Price::from_cost(info.get("cost")?)
                .map_err(|why| format!("{provider}/{model}: {why}"))
                .transpose()
        };
        if let Some(price) = price_of(provider) {
            return price.map(Some);
        }
        let mut providers: Vec<&String> = self.root.keys().collect();
        providers.sort_by_key(|p| crate::budget::models::provider_rank(p));
        providers.into_iter().find_map(|p| price_of(p)).transpose()
    }

    /// A call's cost: `recorded` when above 0, else priced here, else unknown (free without
    /// tokens). A price that is not one is unknown, and said once per model in `problems`.
    pub fn cost(
        &self,
        recorded: f64,
        tokens: &Tokens,
        provider: &str,
        model: &str,
        problems: &mut Vec<String>,
    ) -> Cost {
        if recorded > 0.0 {
            return Cost::Recorded(recorded);
        }
        if tokens.is_empty() {
            return Cost::Free;
        }
        match self.lookup(provider, model) {
            Ok(Some(price)) => match price.of(tokens) {
                usd if usd.is_finite() => Cost::Estimated(usd),
                _ => Cost::Unknown,
            },
            Ok(None) => Cost::Unknown,
            Err(why) => {
                if self.refused.borrow_mut().insert(why.clone()) {
                    problems.push(format!(
                        "OpenCode's models.dev cache: {why} is not a price (0 to {MAX_PRICE} USD per million tokens); its calls are counted as unpriced"
                    ));
                }
                Cost::Unknown
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_observed_example_costs_what_opencode_recorded() {
        // opencode.md §12: input 4000, cache read 8000, output 30, reasoning 20 at 3/15/0.3.
        let prices = PriceList::from_value(serde_json::json!({
            "mock": {"models": {"mock-1": {"cost": {"input": 3, "output": 15, "cache_read": 0.3}}}}
        }));
        let tokens = Tokens {
            input: 4000,
            output: 30,
            reasoning: 20,
            cache_read: 8000,
            cache_write: 0,
            total: 12050,
        };
        let p = &mut Vec::new();
        let Cost::Estimated(usd) = prices.cost(0.0, &tokens, "mock", "mock-1", p) else {
            panic!("not estimated");
        };
        assert!((usd - 0.01515).abs() < 1e-12, "{usd}");
        assert_eq!(
            prices.cost(0.5, &tokens, "mock", "mock-1", p),
            Cost::Recorded(0.5)
        );
        assert_eq!(prices.cost(0.0, &tokens, "mock", "other", p), Cost::Unknown);
        assert_eq!(
            prices.cost(0.0, &Tokens::default(), "x", "y", p),
            Cost::Free
        );
        // A bare model id found under another provider.
        assert!(matches!(
            prices.cost(0.0, &tokens, "proxy", "mock-1", p),
            Cost::Estimated(_)
        ));
    }

    #[test]
    fn the_tier_above_200k_applies_to_large_prompts() {
        let prices = PriceList::from_value(serde_json::json!({
            "a": {"models": {"m": {"cost": {"input": 3, "output": 15,
                "context_over_200k": {"input": 6, "output": 22.5}}}}}
        }));
        let big = Tokens {
            input: 250_000,
            total: 250_000,
            ..Tokens::default()
        };
        assert_eq!(prices.lookup("a", "m").unwrap().unwrap().of(&big), 1.5);
    }
}

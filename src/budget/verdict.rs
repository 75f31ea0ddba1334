//! Usage against the thresholds, and opencode-swarm's warning line (swarm.md §11.2–§11.3).

/// The level of a usage, compared strictly with the thresholds, critical first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Ok,
    Warn,
    Critical,
}

impl Level {
    pub fn of(usage: f64, thresholds: Thresholds) -> Level {
        if usage > thresholds.critical {
            Level::Critical
        } else if usage > thresholds.warn {
            Level::Warn
        } else {
            Level::Ok
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Warn => "warn",
            Level::Critical => "critical",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    pub warn: f64,
    pub critical: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            warn: 0.7,
            critical: 0.9,
        }
    }
}

/// `tokens / context`; a context of 0 gives infinite usage for any token (so it is critical),
/// and 0 for none.
pub fn usage(tokens: u64, context: u64) -> f64 {
    if tokens == 0 {
        0.0
    } else {
        tokens as f64 / context as f64
    }
}

/// opencode-swarm's warning string for this usage, or `None` when it would add none.
pub fn swarm_line(usage: f64, thresholds: Thresholds) -> Option<String> {
    // `Math.round` rounds halves up; for the non-negative values here that is f64::round.
    let pct = (usage * 100.0).round();
    match Level::of(usage, thresholds) {
        Level::Critical => Some(format!(
            "[CONTEXT CRITICAL: ~{pct}% of context budget used. Offload details to .swarm/context.md immediately]"
        )),
        Level::Warn => Some(format!(
            "[CONTEXT WARNING: ~{pct}% of context budget used. Consider summarizing to .swarm/context.md]"
        )),
        Level::Ok => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_strict() {
        let t = Thresholds::default();
        assert_eq!(Level::of(0.7, t), Level::Ok);
        assert_eq!(Level::of(0.70004, t), Level::Warn);
        assert_eq!(Level::of(0.9, t), Level::Warn);
        assert_eq!(Level::of(0.9000001, t), Level::Critical);
        // warn above critical: only critical fires.
        let odd = Thresholds {
            warn: 0.95,
            critical: 0.8,
        };
        assert_eq!(Level::of(0.85, odd), Level::Critical);
        assert_eq!(Level::of(0.5, odd), Level::Ok);
    }

    #[test]
    fn swarm_lines_are_exact() {
        let t = Thresholds::default();
        assert_eq!(
            swarm_line(0.70004, t).unwrap(),
            "[CONTEXT WARNING: ~70% of context budget used. Consider summarizing to .swarm/context.md]"
        );
        assert_eq!(
            swarm_line(1.234, t).unwrap(),
            "[CONTEXT CRITICAL: ~123% of context budget used. Offload details to .swarm/context.md immediately]"
        );
        assert_eq!(
            swarm_line(0.905, t).unwrap(),
            "[CONTEXT CRITICAL: ~91% of context budget used. Offload details to .swarm/context.md immediately]"
        );
        assert_eq!(swarm_line(0.7, t), None);
        assert_eq!(usage(0, 0), 0.0);
        assert!(usage(1, 0).is_infinite());
    }
}

//! Sums of calls: tokens, cost split by where it came from, and how many calls had no price.

use super::record::{Call, Cost, Tokens};

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    /// Model calls (assistant messages).
    pub calls: u64,
    pub tokens: Tokens,
    /// Cost the agent recorded, USD.
    pub recorded: f64,
    /// Cost ctx priced from the models.dev cache, USD.
    pub estimated: f64,
    /// Calls priced by ctx (an estimate of $0 included: a free model's price is still ctx's).
    pub estimated_calls: u64,
    /// Calls with tokens whose cost is unknown.
    pub unpriced: u64,
}

impl Figures {
    pub fn add_call(&mut self, call: &Call) {
        self.calls += 1;
        self.tokens += call.tokens;
        match call.cost {
            Cost::Recorded(usd) => self.recorded += usd,
            Cost::Estimated(usd) => {
                self.estimated += usd;
                self.estimated_calls += 1;
            }
            Cost::Unknown => self.unpriced += 1,
            Cost::Free => {}
        }
    }

    pub fn add(&mut self, other: &Figures) {
        self.calls += other.calls;
        self.tokens += other.tokens;
        self.recorded += other.recorded;
        self.estimated += other.estimated;
        self.estimated_calls += other.estimated_calls;
        self.unpriced += other.unpriced;
    }

    /// The known cost, USD; `None` when calls had tokens and none of them a price: unknown is
    /// never shown as $0.
    pub fn cost(&self) -> Option<f64> {
        let known = self.recorded + self.estimated;
        if self.unpriced > 0 && known == 0.0 {
            None
        } else {
            Some(known)
        }
    }

    /// Whether every call with tokens had a price (recorded or estimated).
    pub fn complete(&self) -> bool {
        self.unpriced == 0
    }
}

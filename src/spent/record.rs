//! What every source of usage records gives the report: sessions (with their parent session, for
//! subagents) and model calls (one per assistant message), each with its tokens and cost. A
//! source (OpenCode's database, its older `storage/` files, `opencode export` files, Claude
//! Code's transcripts) turns its own records into these and nothing else; attribution, roll-up
//! and rendering never look at where a record came from.

use std::ops::AddAssign;

/// Token counts of one call or a sum of calls, as OpenCode records them (opencode.md §3.4):
/// `input` excludes cached tokens, `output` excludes reasoning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub reasoning: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// The provider's total when it reported one, else the sum of the others.
    pub total: u64,
}

impl Tokens {
    /// Whether the call used any tokens at all (an aborted call may have none).
    pub fn is_empty(&self) -> bool {
        self.total == 0
            && self.input == 0
            && self.output == 0
            && self.reasoning == 0
            && self.cache_read == 0
            && self.cache_write == 0
    }

    /// The sum of the parts, for a record that carries no total.
    pub fn sum_of_parts(&self) -> u64 {
        self.input + self.output + self.reasoning + self.cache_read + self.cache_write
    }
}

impl AddAssign for Tokens {
    fn add_assign(&mut self, other: Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.reasoning += other.reasoning;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.total += other.total;
    }
}

/// The cost of one call in US dollars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cost {
    /// What the agent recorded (above 0).
    Recorded(f64),
    /// Priced by ctx from the models.dev cache, the agent having recorded 0.
    Estimated(f64),
    /// Neither recorded nor priceable (a call with tokens); never shown as $0.
    Unknown,
    /// A call without tokens: nothing to pay.
    Free,
}

/// One session (an OpenCode session, or a Claude Code session or subagent).
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    /// The session that started it (a subagent's parent), when any.
    pub parent: Option<String>,
    pub title: String,
    /// Creation time, epoch milliseconds.
    pub created: i64,
}

/// One model call: an assistant message.
#[derive(Debug, Clone)]
pub struct Call {
    /// Position of its session in [`Records::sessions`].
    pub session: usize,
    /// The message id (`msg_…`), which orders calls created in the same millisecond.
    pub message: String,
    /// Creation time, epoch milliseconds.
    pub time: i64,
    /// The agent that made the call (`build`, `general`, …), empty when not recorded.
    pub agent: String,
    pub provider: String,
    pub model: String,
    pub tokens: Tokens,
    pub cost: Cost,
}

impl Call {
    /// `provider/model`, or the model alone when the provider is not known.
    pub fn model_key(&self) -> String {
        if self.provider.is_empty() {
            self.model.clone()
        } else {
            format!("{}/{}", self.provider, self.model)
        }
    }
}

/// Everything read from the sources, with what could not be read.
#[derive(Debug, Default)]
pub struct Records {
    pub sessions: Vec<Session>,
    pub calls: Vec<Call>,
    /// One line per record that was skipped or doubted, naming it (`message msg_…: …`).
    pub problems: Vec<String>,
    /// The sources read, for the report's header.
    pub sources: Vec<SourceInfo>,
}

/// A source that was read.
#[derive(Debug, Clone)]
pub struct SourceInfo {
    /// `opencode-db`, `opencode-storage`, `opencode-export`.
    pub kind: &'static str,
    pub path: String,
}

impl Records {
    /// Adds a session unless one with its id is there already; returns its position.
    pub fn session_position(&self, id: &str) -> Option<usize> {
        self.sessions.iter().position(|s| s.id == id)
    }

    /// Puts the calls of each session together in creation order (time, then message id), the
    /// order that span attribution reads them in.
    pub fn sort_calls(&mut self) {
        self.calls.sort_unstable_by(|a, b| {
            (a.session, a.time, a.message.as_str()).cmp(&(b.session, b.time, b.message.as_str()))
        });
    }
}

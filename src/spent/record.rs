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
        [
            self.output,
            self.reasoning,
            self.cache_read,
            self.cache_write,
        ]
        .into_iter()
        .fold(self.input, u64::saturating_add)
    }
}

/// Sums saturate: counts are checked as they are read, but a sum of many must still never wrap.
impl AddAssign for Tokens {
    fn add_assign(&mut self, other: Tokens) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.reasoning = self.reasoning.saturating_add(other.reasoning);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.total = self.total.saturating_add(other.total);
    }
}

/// More tokens than one model call uses (a trillion): a count above it is not a count.
pub const MAX_CALL_TOKENS: u64 = 1_000_000_000_000;

/// More than one model call costs, USD: a recorded cost above it is not a price.
pub const MAX_CALL_COST: f64 = 1_000_000.0;

/// `tokens` with each count above [`MAX_CALL_TOKENS`] taken as 0, named in `problems` (the
/// total then the sum of the parts).
pub fn checked(mut tokens: Tokens, id: &str, problems: &mut Vec<String>) -> Tokens {
    let mut check = |n: &mut u64, what: &str| {
        if *n > MAX_CALL_TOKENS {
            problems.push(format!(
                "message {id}: {what} tokens {n} is not a count; taken as 0"
            ));
            *n = 0;
        }
    };
    check(&mut tokens.input, "input");
    check(&mut tokens.output, "output");
    check(&mut tokens.reasoning, "reasoning");
    check(&mut tokens.cache_read, "cache read");
    check(&mut tokens.cache_write, "cache write");
    if tokens.total > MAX_CALL_TOKENS {
        tokens.total = tokens.sum_of_parts();
    }
    tokens
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
    /// `provider/model`, or the model alone when the provider is not known; a model the agent
    /// did not record is `(unknown model)`, so that no row of `--by model` is nameless.
    pub fn model_key(&self) -> String {
        let model = if self.model.is_empty() {
            "(unknown model)"
        } else {
            &self.model
        };
        if self.provider.is_empty() {
            model.to_string()
        } else {
            format!("{}/{model}", self.provider)
        }
    }
}

/// Everything read from the sources, with what could not be read.
///
/// Sources may overlap (the same database given twice, a database and an export of one of its
/// sessions, a transcript folder and one of its files): a session is kept once by its id, a call
/// once by its key ([`Records::add_call`]), whichever source comes first.
#[derive(Debug, Default)]
pub struct Records {
    /// Add through [`Records::add_session`], which keeps each id once.
    pub sessions: Vec<Session>,
    /// Add through [`Records::add_call`], which keeps each call once.
    pub calls: Vec<Call>,
    /// One line per record that was skipped or doubted, naming it (`message msg_…: …`).
    pub problems: Vec<String>,
    /// The sources read, for the report's header.
    pub sources: Vec<SourceInfo>,
    /// Ids and keys come from files: foldhash, seeded per process, and quicker than SipHash on
    /// the thousands of calls of a folder of transcripts.
    positions: foldhash::HashMap<String, usize>,
    /// Each call's key, with the source it was read from ([`Records::take_repeated`]).
    seen_calls: foldhash::HashMap<String, u64>,
    /// Calls left out since [`Records::take_repeated`] was last called, as an earlier source
    /// held them already.
    repeated: u64,
    /// How many times [`Records::take_repeated`] was called: the source being read.
    source: u64,
}

/// A source that was read.
#[derive(Debug, Clone)]
pub struct SourceInfo {
    /// `opencode-db`, `opencode-storage`, `opencode-export`, `claude-transcripts`,
    /// `pi-sessions`, `codex-sessions`.
    pub kind: &'static str,
    pub path: String,
}

impl Records {
    /// The position of the session with the id `id`.
    pub fn session_position(&self, id: &str) -> Option<usize> {
        self.positions.get(id).copied()
    }

    /// Adds a session unless one with its id is there already (whose missing parent and title
    /// the newcomer then fills in, and whose creation it moves earlier: a session first met
    /// through a copy of its calls, as a Codex fork holds, was made before them); returns its
    /// position.
    pub fn add_session(&mut self, session: Session) -> usize {
        if let Some(&at) = self.positions.get(&session.id) {
            let known = &mut self.sessions[at];
            if session.created > 0 && (known.created == 0 || session.created < known.created) {
                known.created = session.created;
            }
            if known.parent.is_none() {
                known.parent = session.parent;
            }
            if known.title.is_empty() {
                known.title = session.title;
            }
            return at;
        }
        self.positions
            .insert(session.id.clone(), self.sessions.len());
        self.sessions.push(session);
        self.sessions.len() - 1
    }

    /// Adds a call unless one with the same `key` was added already (from this source or
    /// another): OpenCode's message id, or Claude Code's message id and request id, as ccusage
    /// keys them. Returns whether it was added.
    pub fn add_call(&mut self, key: &str, call: Call) -> bool {
        if let Some(&source) = self.seen_calls.get(key) {
            // Within one source a repeat is how the agent writes (a resumed or forked Claude
            // Code session, a transcript and the original ctx kept when it folded it); across
            // sources it is worth a word.
            if source != self.source {
                self.repeated += 1;
            }
            return false;
        }
        self.seen_calls.insert(key.to_string(), self.source);
        self.calls.push(call);
        true
    }

    /// How many calls were left out since the last call of this function because an earlier
    /// source held them; what is read next is another source.
    pub fn take_repeated(&mut self) -> u64 {
        self.source += 1;
        std::mem::take(&mut self.repeated)
    }

    /// Puts the calls of each session together in creation order (time, then message id), the
    /// order that span attribution reads them in.
    pub fn sort_calls(&mut self) {
        self.calls.sort_unstable_by(|a, b| {
            (a.session, a.time, a.message.as_str()).cmp(&(b.session, b.time, b.message.as_str()))
        });
    }
}

//! The subagent calls a session's record remembers until their subagents start (`agentCalls`): a
//! queue, oldest first, bounded in length and in age, from which a starting subagent takes its
//! own call. Pure: the hook core reads and writes it under the state's lock, so noting a call
//! never waits for anything but that lock.
//!
//! Why a queue and a guess: SubagentStart names only the new agent's id and type. Claude Code's
//! `.meta.json`, which ties the id to its call, names the call exactly when it is there, but
//! Claude Code 2.1.328 wrote it only after the SubagentStart hooks returned. Without it, a
//! subagent takes the oldest waiting call of its type. That rests on an assumption: the agent runs
//! a call's PreToolUse hooks before it starts the call's subagent (claude-code.md §2 observed
//! PreToolUse(Agent) → SubagentStart), so a subagent's own call is always in the queue when it
//! starts; and subagents of calls made side by side start in the order their calls were noted
//! (not observed: their hooks run as parallel processes that may take the lock in another
//! order). When more than one call of the type waits, the match is therefore a guess, and says so
//! in the hook log.

use crate::json::{Json, Object};

/// The key of the queue in a session's record.
const KEY: &str = "agentCalls";
/// Calls kept waiting per session: more than ever run side by side (a simulation ran 50 at once),
/// few enough that the record stays small when calls are noted whose subagents never start.
pub const MAX_WAITING: usize = 64;
/// How long a call waits for its subagent. A subagent starts once its call's hooks have run and
/// its permission is granted, which may wait for a person; a call older than this was denied or
/// abandoned, and would otherwise be taken, by order, by a later subagent of its type.
pub const MAX_AGE_MS: i64 = 10 * 60 * 1000;

/// A subagent call, as the tool call that started it (or the agent's own record of it) told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCall {
    pub description: String,
    /// The agent's id of the tool call (Claude Code's `tool_use_id`), when it has one.
    pub tool_use_id: Option<String>,
    /// The subagent type the call asked for.
    pub agent_type: String,
    /// The subagent that made the call, when a subagent started another.
    pub caller: Option<String>,
}

/// What the agent itself recorded of the call that started a subagent (Claude Code's
/// `.meta.json`), which names the call better than the order of the calls does.
#[derive(Debug, Default)]
pub struct CallMeta {
    pub description: Option<String>,
    pub tool_use_id: Option<String>,
}

/// The waiting calls of one session, oldest first, as their JSON entries (an entry ctx cannot
/// read is kept as it is until it ages out).
#[derive(Debug, Default)]
pub struct Queue {
    calls: Vec<Json>,
}

impl Queue {
    /// Takes the queue out of a session's record (put it back with [`Queue::put_into`]).
    pub fn take_from(record: &mut Object) -> Queue {
        match record.remove(KEY) {
            Some(Json::Array(calls)) => Queue { calls },
            _ => Queue::default(),
        }
    }

    /// Puts the queue back into the record; an empty queue leaves no key.
    pub fn put_into(self, record: &mut Object) {
        if !self.calls.is_empty() {
            record.insert(KEY, Json::Array(self.calls));
        }
    }

    /// Drops the calls noted more than [`MAX_AGE_MS`] before `now`, and those whose time is
    /// unknown (noted by an earlier ctx); one log line for each.
    pub fn drop_stale(&mut self, now: i64) -> Vec<String> {
        let mut notes = Vec::new();
        self.calls.retain(|call| {
            let at = call.as_object().and_then(|c| c.get("at")?.as_i64());
            let fresh = at.is_some_and(|at| now - at <= MAX_AGE_MS);
            if !fresh {
                notes.push(format!(
                    "dropped {}: no subagent started for it within {} min",
                    describe(call),
                    MAX_AGE_MS / 60_000
                ));
            }
            fresh
        });
        notes
    }

    /// Appends `call`, noted at `now`; past [`MAX_WAITING`] the oldest calls are dropped, one
    /// log line for each.
    pub fn push(&mut self, call: &AgentCall, now: i64) -> Vec<String> {
        let mut entry = Object::new();
        if let Some(id) = &call.tool_use_id {
            entry.insert("toolUseId", Json::str(id));
        }
        entry.insert("description", Json::str(&call.description));
        entry.insert("agentType", Json::str(&call.agent_type));
        if let Some(caller) = &call.caller {
            entry.insert("callerAgentId", Json::str(caller));
        }
        entry.insert("at", Json::int(now));
        self.calls.push(Json::Object(entry));
        let over = self.calls.len().saturating_sub(MAX_WAITING);
        self.calls
            .drain(..over)
            .map(|call| {
                format!(
                    "dropped {}: more than {MAX_WAITING} calls wait for their subagents",
                    describe(&call)
                )
            })
            .collect()
    }

    /// Forgets the call `tool_use_id` (it ended without a subagent); whether it was waiting.
    pub fn forget(&mut self, tool_use_id: &str) -> bool {
        let before = self.calls.len();
        self.calls
            .retain(|c| text(c, "toolUseId").as_deref() != Some(tool_use_id));
        self.calls.len() != before
    }

    /// The call that started subagent `frame` of `agent_type`, taken out of the queue: the one
    /// `meta` names, else the oldest of its type, else the oldest. The second value is the log
    /// line of a guess: the call was chosen by order among several it could have been.
    pub fn take(
        &mut self,
        meta: Option<&CallMeta>,
        frame: &str,
        agent_type: &str,
    ) -> (Option<AgentCall>, Option<String>) {
        let meta_id = meta.and_then(|m| m.tool_use_id.as_deref());
        let meta_description = meta
            .and_then(|m| m.description.as_deref())
            .filter(|d| !d.trim().is_empty());
        let of_type = |c: &Json| text(c, "agentType").as_deref() == Some(agent_type);
        let same_type = self.calls.iter().filter(|c| of_type(c)).count();
        let (at, guess) = match meta_id {
            Some(id) => (
                self.calls
                    .iter()
                    .position(|c| text(c, "toolUseId").as_deref() == Some(id)),
                None,
            ),
            None => match self.calls.iter().position(of_type) {
                Some(at) => {
                    let guess = (same_type > 1 && meta_description.is_none()).then(|| {
                        format!(
                            "guessed that subagent {frame} ({agent_type}) is {}: the oldest of \
                             the {same_type} calls of its type waiting, and no event names its own",
                            name(&self.calls[at])
                        )
                    });
                    (Some(at), guess)
                }
                None if self.calls.is_empty() => (None, None),
                None => {
                    let guess = meta_description.is_none().then(|| {
                        format!(
                            "guessed that subagent {frame} ({agent_type}) is {}: the oldest of \
                             the {} calls waiting, none of its type",
                            describe(&self.calls[0]),
                            self.calls.len()
                        )
                    });
                    (Some(0), guess)
                }
            },
        };
        let taken = at.map(|at| self.calls.remove(at));
        let call = match (meta_description, taken) {
            (Some(description), taken) => Some(AgentCall {
                description: description.to_string(),
                tool_use_id: meta_id
                    .map(str::to_string)
                    .or_else(|| taken.as_ref().and_then(|c| text(c, "toolUseId"))),
                agent_type: agent_type.to_string(),
                caller: taken.as_ref().and_then(|c| text(c, "callerAgentId")),
            }),
            (None, Some(call)) => text(&call, "description").map(|description| AgentCall {
                description,
                tool_use_id: text(&call, "toolUseId"),
                agent_type: text(&call, "agentType").unwrap_or_else(|| agent_type.to_string()),
                caller: text(&call, "callerAgentId"),
            }),
            (None, None) => None,
        };
        (call, guess)
    }
}

/// A text field of a call's entry.
fn text(call: &Json, key: &str) -> Option<String> {
    call.as_object()?.get(key)?.as_str().map(str::to_string)
}

/// A call as a log line names it: `call toolu_1 "Audit refunds"`.
fn name(call: &Json) -> String {
    let id = text(call, "toolUseId").map_or(String::new(), |id| format!("{id} "));
    let description = text(call, "description").unwrap_or_default();
    format!("call {id}{description:?}")
}

/// The same with the call's type: `call toolu_1 "Audit refunds" (general-purpose)`.
fn describe(call: &Json) -> String {
    let agent_type = text(call, "agentType").unwrap_or_default();
    format!("{} ({agent_type})", name(call))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, agent_type: &str) -> AgentCall {
        AgentCall {
            description: format!("Work {id}"),
            tool_use_id: Some(id.to_string()),
            agent_type: agent_type.to_string(),
            caller: None,
        }
    }

    fn queue(calls: &[(&str, &str, i64)]) -> Queue {
        let mut queue = Queue::default();
        for (id, agent_type, at) in calls {
            assert!(queue.push(&call(id, agent_type), *at).is_empty());
        }
        queue
    }

    fn ids(queue: &Queue) -> Vec<String> {
        queue
            .calls
            .iter()
            .filter_map(|c| text(c, "toolUseId"))
            .collect()
    }

    #[test]
    fn calls_of_one_type_are_taken_oldest_first_and_each_guess_says_so() {
        let mut q = queue(&[("t1", "gp", 0), ("x1", "Explore", 1), ("t2", "gp", 2)]);
        let (first, guess) = q.take(None, "cca_a1", "gp");
        assert_eq!(first, Some(call("t1", "gp")));
        assert_eq!(
            guess.as_deref(),
            Some(
                "guessed that subagent cca_a1 (gp) is call t1 \"Work t1\": the oldest of the 2 \
                 calls of its type waiting, and no event names its own"
            )
        );
        // The last of its type is no guess.
        assert_eq!(q.take(None, "cca_a2", "gp"), (Some(call("t2", "gp")), None));
        assert_eq!(ids(&q), ["x1"]);
    }

    #[test]
    fn the_call_the_meta_file_names_is_taken_whatever_its_place() {
        let mut q = queue(&[("t1", "gp", 0), ("t2", "gp", 1), ("t3", "gp", 2)]);
        let meta = CallMeta {
            description: Some("Named".into()),
            tool_use_id: Some("t2".into()),
        };
        let (taken, guess) = q.take(Some(&meta), "cca_a2", "gp");
        assert_eq!(guess, None);
        let taken = taken.unwrap();
        assert_eq!(
            (taken.description.as_str(), taken.tool_use_id.as_deref()),
            ("Named", Some("t2"))
        );
        assert_eq!(ids(&q), ["t1", "t3"]);
    }

    #[test]
    fn a_subagent_with_no_call_of_its_type_takes_the_oldest_as_a_guess() {
        let mut q = queue(&[("t1", "gp", 0), ("t2", "gp", 1)]);
        let (taken, guess) = q.take(None, "cca_a9", "Explore");
        assert_eq!(taken, Some(call("t1", "gp")));
        assert!(guess.unwrap().contains("none of its type"));
        assert_eq!(Queue::default().take(None, "cca_a9", "gp"), (None, None));
    }

    #[test]
    fn old_and_untimed_calls_are_dropped_and_the_queue_is_bounded() {
        let q = queue(&[("t1", "gp", 0), ("t2", "gp", MAX_AGE_MS)]);
        let mut record = Object::new();
        q.put_into(&mut record);
        // A call noted by an earlier ctx has no time.
        if let Some(Json::Array(calls)) = record.get_mut(KEY) {
            let mut untimed = calls[1].clone();
            if let Some(entry) = untimed.as_object_mut() {
                entry.remove("at");
                entry.insert("toolUseId", Json::str("t0"));
            }
            calls.push(untimed);
        }
        let mut q = Queue::take_from(&mut record);
        assert_eq!(q.drop_stale(MAX_AGE_MS + 1).len(), 2);
        assert_eq!(ids(&q), ["t2"]);
        for n in 0..MAX_WAITING - 1 {
            assert!(q.push(&call(&format!("n{n}"), "gp"), 0).is_empty());
        }
        let notes = q.push(&call("last", "gp"), 0);
        assert_eq!(
            notes,
            [format!(
                "dropped call t2 \"Work t2\" (gp): more than {MAX_WAITING} calls wait for their \
                 subagents"
            )]
        );
        assert_eq!(q.calls.len(), MAX_WAITING);
        assert!(q.forget("last") && !q.forget("last"));
        let mut record = Object::new();
        Queue::default().put_into(&mut record);
        assert!(record.is_empty(), "an empty queue leaves no key");
    }
}

//! Claude Code's task tools as todo frames (`frame.auto = todos` or `all`; autoframes.md §3.1,
//! §3.2). Claude Code offers `TaskCreate` and `TaskUpdate` only to older models or when a user
//! turns them on (`CLAUDE_CODE_ENABLE_TODO_TOOLS=1`); ctx never turns them on.
//!
//! A task is known by its id (`"1"`), and only `TaskCreate` gives its subject: ctx remembers each
//! task's subject and status on the session's frame (`claude_tasks`), read from the PostToolUse
//! of each call. A `TaskUpdate` names one task, so an update's items are that task alone
//! ([`crate::frame::todo::Update::whole`] is false): the task going `in_progress` opens its frame,
//! going `completed` closes it completed, and going back to `pending` or `deleted` closes it as
//! blocked. A subject changed while the task runs keeps the frame and its first goal. A task
//! whose `TaskCreate` ctx did not see (ctx installed in the middle of a session) is named by its
//! id.
//!
//! ```json
//! "claude_tasks": {"1": {"subject": "Migrate module m1", "status": "in_progress"}}
//! ```

use serde_json::Value;

use crate::frame::state::State;
use crate::frame::todo::Item;
use crate::json::{Json, Object};

/// The tool that creates a task.
pub const CREATE: &str = "TaskCreate";
/// The tool that changes a task.
pub const UPDATE: &str = "TaskUpdate";

/// The session frame's key where ctx remembers the tasks.
const TASKS_KEY: &str = "claude_tasks";

/// Most tasks remembered for one session: a model looping on `TaskCreate` must not grow the
/// state file without bound. The oldest are forgotten first.
const MAX_TASKS: usize = 500;

/// A task id as Claude Code writes it: a string, or a number in a hand-written call.
fn task_id(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(id) if !id.trim().is_empty() => Some(id.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The items the PostToolUse of task tool `tool` sets, with its `tool_input` and
/// `tool_response`; the tasks remembered on session frame `session` are updated on the way. A
/// call ctx cannot read (no task id) sets nothing.
pub fn items(
    state: &mut State,
    session: &str,
    tool: &str,
    input: &Value,
    response: &Value,
) -> Vec<Item> {
    let mut tasks = state
        .frame(session)
        .and_then(|f| f.field(TASKS_KEY).and_then(Json::as_object).cloned())
        .unwrap_or_default();
    let text = |value: &Value, key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    };
    let out = match tool {
        CREATE => {
            let task = response.get("task").unwrap_or(&Value::Null);
            let Some(id) = task_id(task.get("id")) else {
                return Vec::new();
            };
            let subject = text(task, "subject").or_else(|| text(input, "subject"));
            remember(&mut tasks, &id, subject.as_deref(), Some("pending"));
            Vec::new()
        }
        UPDATE => {
            let Some(id) = task_id(input.get("taskId")) else {
                return Vec::new();
            };
            // The status the call left: Claude Code reports a change; a call that changed other
            // fields leaves the one ctx knows.
            let status = response
                .pointer("/statusChange/to")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| text(input, "status"));
            remember(
                &mut tasks,
                &id,
                text(input, "subject").as_deref(),
                status.as_deref(),
            );
            let task = tasks.get(&id).and_then(Json::as_object);
            let field = |key: &str| task.and_then(|t| t.get(key)).and_then(Json::as_str);
            let item = Item {
                key: id.clone(),
                goal: field("subject")
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("Task #{id}")),
                status: field("status").unwrap_or("").to_string(),
            };
            if item.status == "deleted" {
                tasks.remove(&id);
            }
            vec![item]
        }
        _ => return Vec::new(),
    };
    while tasks.len() > MAX_TASKS {
        let oldest = tasks.keys().next().map(str::to_string);
        if let Some(oldest) = oldest {
            tasks.remove(&oldest);
        }
    }
    state.set_field(session, TASKS_KEY, Json::Object(tasks));
    out
}

/// Records what a call said of task `id`: its subject and status, each when given.
fn remember(tasks: &mut Object, id: &str, subject: Option<&str>, status: Option<&str>) {
    let mut task = tasks
        .get(id)
        .and_then(Json::as_object)
        .cloned()
        .unwrap_or_default();
    if let Some(subject) = subject {
        task.insert("subject", Json::str(subject));
    }
    if let Some(status) = status {
        task.insert("status", Json::str(status));
    }
    tasks.insert(id, Json::Object(task));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::frame::ops::{self, Place};

    fn session() -> State {
        let mut state = State::empty();
        ops::push(
            &mut state,
            "s",
            None,
            Some("cc_s"),
            Place::Session("cc_s"),
            1,
        )
        .unwrap();
        state
    }

    #[test]
    fn a_task_is_named_by_its_create_and_changed_by_its_updates() {
        let mut state = session();
        let created = items(
            &mut state,
            "cc_s",
            CREATE,
            &json!({"subject": "Migrate m1", "description": "…"}),
            &json!({"task": {"id": "1", "subject": "Migrate m1"}}),
        );
        assert!(created.is_empty());
        let started = items(
            &mut state,
            "cc_s",
            UPDATE,
            &json!({"taskId": "1", "status": "in_progress"}),
            &json!({"success": true, "statusChange": {"from": "pending", "to": "in_progress"}}),
        );
        assert_eq!(
            started,
            [Item {
                key: "1".into(),
                goal: "Migrate m1".into(),
                status: "in_progress".into()
            }]
        );
        // A change of the description alone keeps the task running.
        let described = items(
            &mut state,
            "cc_s",
            UPDATE,
            &json!({"taskId": "1", "description": "more"}),
            &json!({"success": true, "updatedFields": ["description"]}),
        );
        assert_eq!(described[0].status, "in_progress");
        let deleted = items(
            &mut state,
            "cc_s",
            UPDATE,
            &json!({"taskId": 1, "status": "deleted"}),
            &json!({"success": true}),
        );
        assert_eq!(deleted[0].status, "deleted");
        // Forgotten once deleted; an unknown task is named by its id.
        let unknown = items(
            &mut state,
            "cc_s",
            UPDATE,
            &json!({"taskId": "1", "status": "in_progress"}),
            &json!({}),
        );
        assert_eq!(unknown[0].goal, "Task #1");
        assert!(
            items(
                &mut state,
                "cc_s",
                UPDATE,
                &json!({"taskId": []}),
                &json!({})
            )
            .is_empty()
        );
    }

    #[test]
    fn the_tasks_remembered_are_bounded() {
        let mut state = session();
        for n in 0..MAX_TASKS + 3 {
            items(
                &mut state,
                "cc_s",
                CREATE,
                &json!({}),
                &json!({"task": {"id": n.to_string(), "subject": "s"}}),
            );
        }
        let tasks = state
            .frame("cc_s")
            .unwrap()
            .field(TASKS_KEY)
            .cloned()
            .unwrap();
        let tasks = tasks.as_object().unwrap();
        assert_eq!(tasks.len(), MAX_TASKS);
        assert_eq!(tasks.keys().next(), Some("3"));
    }
}

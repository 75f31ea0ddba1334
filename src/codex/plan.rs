//! Codex's plan tool as todo frames (`frame.auto = todos` or `all`; autoframes.md §4). `codex
//! exec` offers `update_plan` only when a user turns it on (`[tools.update_plan] enabled = true`
//! in `.codex/config.toml`, or `-c tools.update_plan.enabled=true`); ctx never turns it on.
//!
//! Each call carries the whole plan, `{plan: [{step, status}]}` with `status` one of `pending`,
//! `in_progress` and `completed`; PostToolUse sees it once it ran. Steps have no ids: a step is
//! its text, as an OpenCode todo item is.

use serde_json::Value;

use crate::frame::todo::Item;

/// The tool's name in Codex.
pub const TOOL: &str = "update_plan";

/// The plan an `update_plan` call's `tool_input` sets: its steps with a text, in order. `None`
/// when the input holds no plan (a call ctx cannot read changes nothing).
pub fn items(input: &Value) -> Option<Vec<Item>> {
    let plan = input.get("plan")?.as_array()?;
    Some(
        plan.iter()
            .filter_map(|step| {
                let text = step.get("step")?.as_str()?.trim();
                let status = step.get("status").and_then(Value::as_str).unwrap_or("");
                (!text.is_empty()).then(|| Item::of_text(text, status.trim()))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_plan_is_its_steps_with_text() {
        let input = json!({"explanation": "tracking", "plan": [
            {"step": " Migrate m1 ", "status": "in_progress"},
            {"step": "", "status": "pending"},
            {"status": "pending"},
            {"step": "Migrate m2", "status": 3},
            "not a step"]});
        assert_eq!(
            items(&input),
            Some(vec![
                Item::of_text("Migrate m1", "in_progress"),
                Item::of_text("Migrate m2", ""),
            ])
        );
        assert_eq!(items(&json!({"plan": "wrong"})), None);
        assert_eq!(items(&json!([])), None);
    }
}

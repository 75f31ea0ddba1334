//! A conversation, as ctx reads every agent's for frame logs, summaries and estimates: the shape
//! of the JSON `opencode export <sessionID>` prints (opencode.md §3), which Claude Code's
//! transcripts and Codex's rollouts are read into too ([`Export::of_conversation`]). Shape checks
//! and typed access: unknown keys, roles and part types are ignored; a part whose known fields
//! have the wrong type reads as unknown.

use serde_json::Value;

/// A validated export.
pub struct Export {
    root: Value,
}

/// A message of the export.
#[derive(Clone, Copy)]
pub struct Message<'a> {
    pub info: &'a serde_json::Map<String, Value>,
    pub parts: &'a [Value],
}

impl Export {
    /// The export of another agent's conversation (Claude Code's transcript, Codex's rollout),
    /// its `messages` already in this shape: `final_reply`, the agent's last message as the agent
    /// reported it, ends the conversation when the last assistant text does not already say it.
    /// `source` names the agent (`info.ctxSource`).
    pub fn of_conversation(
        id: &str,
        title: &str,
        source: &str,
        mut messages: Vec<Value>,
        final_reply: Option<&str>,
    ) -> Export {
        if let Some(reply) = final_reply.filter(|r| !r.trim().is_empty()) {
            let last_text = messages
                .iter()
                .rev()
                .find(|m| m["info"]["role"] == "assistant")
                .and_then(|m| m["parts"].as_array())
                .and_then(|parts| parts.iter().rev().find_map(|p| p.get("text")?.as_str()));
            if last_text.map(str::trim) != Some(reply.trim()) {
                messages.push(serde_json::json!({
                    "info": { "role": "assistant" },
                    "parts": [{ "type": "text", "text": reply }],
                }));
            }
        }
        let root = serde_json::json!({
            "info": { "id": id, "title": title, "ctxSource": source },
            "messages": messages,
        });
        Export::from_value(root).expect("the export is built in its own shape")
    }

    /// Checks the shape of a parsed export; the error says what is missing.
    pub fn from_value(root: Value) -> Result<Export, String> {
        let info = root
            .get("info")
            .and_then(Value::as_object)
            .ok_or("no \"info\" object")?;
        if !info.get("id").is_some_and(Value::is_string) {
            return Err("\"info.id\" is not a string".into());
        }
        let messages = root
            .get("messages")
            .and_then(Value::as_array)
            .ok_or("no \"messages\" array")?;
        for (i, message) in messages.iter().enumerate() {
            let role = message
                .get("info")
                .and_then(Value::as_object)
                .and_then(|info| info.get("role"))
                .and_then(Value::as_str);
            if role.is_none() {
                return Err(format!(
                    "messages[{i}] has no \"info\" object with a string \"role\""
                ));
            }
            if !message.get("parts").is_some_and(Value::is_array) {
                return Err(format!("messages[{i}] has no \"parts\" array"));
            }
        }
        Ok(Export { root })
    }

    /// Parses export text (a leading BOM is ignored), or, with `lists`, also the
    /// `{"messages": [...]}` list that OpenCode's `experimental.chat.messages.transform` hook holds:
    /// a session without its `info`, whose id is taken from its messages.
    pub fn parse_export_or_list(text: &str, lists: bool) -> Result<Export, String> {
        let export = Export::parse(text);
        if !lists || export.is_ok() {
            return export;
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(mut root))
                // Exactly the hook's shape: an export that lost its `info` stays an error.
                if root.len() == 1 && root.contains_key("messages") =>
            {
                let session = root
                    .get("messages")
                    .and_then(Value::as_array)
                    .and_then(|messages| {
                        messages
                            .iter()
                            .find_map(|m| m.get("info")?.get("sessionID")?.as_str())
                    })
                    .unwrap_or("")
                    .to_string();
                root.insert("info".into(), serde_json::json!({ "id": session }));
                Export::from_value(Value::Object(root))
            }
            _ => export,
        }
    }

    /// Parses export text (a leading BOM is ignored).
    pub fn parse(text: &str) -> Result<Export, String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let value: Value = serde_json::from_str(text).map_err(|e| {
            let full = e.to_string();
            let message = full
                .rfind(" at line ")
                .map_or(full.as_str(), |cut| &full[..cut])
                .to_string();
            format!(
                "invalid JSON at line {}, column {}: {message}",
                e.line(),
                e.column()
            )
        })?;
        Export::from_value(value)
    }

    pub fn session_id(&self) -> &str {
        self.root["info"]["id"].as_str().unwrap_or("")
    }

    pub fn title(&self) -> Option<&str> {
        self.root["info"].get("title").and_then(Value::as_str)
    }

    /// The agent the export came from, when it is not OpenCode (`info.ctxSource`, set by ctx for
    /// the transcripts of other agents, e.g. "Claude Code").
    pub fn source(&self) -> Option<&str> {
        self.root["info"].get("ctxSource").and_then(Value::as_str)
    }

    /// The text of the last assistant message that has some (its text parts that are not
    /// synthetic, joined by blank lines): what OpenCode's task tool returns, and the answer of a
    /// Claude Code subagent.
    pub fn last_assistant_text(&self) -> Option<String> {
        self.messages()
            .filter(|m| m.role() == "assistant")
            .filter_map(|m| {
                let texts: Vec<&str> = m
                    .parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                    .filter(|p| p.get("synthetic").and_then(Value::as_bool) != Some(true))
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .filter(|t| !t.trim().is_empty())
                    .collect();
                (!texts.is_empty()).then(|| texts.join("\n\n"))
            })
            .last()
    }

    /// The export cut to its messages from the first whose id is `start` (from the first message,
    /// when none is) up to, not including, the first message after it for which `ends` holds.
    pub fn cut(&self, start: &str, ends: impl Fn(&Message<'_>) -> bool) -> Export {
        let messages: Vec<Message<'_>> = self.messages().collect();
        let from = messages
            .iter()
            .position(|m| m.info.get("id").and_then(Value::as_str) == Some(start))
            .unwrap_or(0);
        let to = (from + 1..messages.len())
            .find(|&i| ends(&messages[i]))
            .unwrap_or(messages.len());
        let kept: Vec<Value> = messages[from.min(to)..to]
            .iter()
            .map(|m| {
                serde_json::json!({
                    "info": Value::Object(m.info.clone()),
                    "parts": Value::Array(m.parts.to_vec()),
                })
            })
            .collect();
        Export::from_value(serde_json::json!({
            "info": { "id": self.session_id(), "title": self.title() },
            "messages": kept,
        }))
        .expect("messages of a checked export keep its shape")
    }

    pub fn messages(&self) -> impl Iterator<Item = Message<'_>> {
        self.root["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| {
                Some(Message {
                    info: m.get("info")?.as_object()?,
                    parts: m.get("parts")?.as_array()?.as_slice(),
                })
            })
    }
}

impl Message<'_> {
    pub fn role(&self) -> &str {
        self.info.get("role").and_then(Value::as_str).unwrap_or("")
    }

    /// `time.created`, when it is a number.
    pub fn created(&self) -> Option<i64> {
        let created = self.info.get("time")?.get("created")?;
        created
            .as_i64()
            .or_else(|| created.as_f64().map(|f| f as i64))
    }
}

/// A field as a non-blank string.
pub fn non_blank<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// What OpenCode sends in place of a pruned tool output (opencode.md §6.2).
pub const CLEARED_TOOL_RESULT: &str = "[Old tool result content cleared]";

/// Whether OpenCode pruned the output of the tool part whose `state` this is: it marks it
/// `time.compacted`, keeps it stored whole, and sends [`CLEARED_TOOL_RESULT`] in its place.
pub fn is_pruned(state: &Value) -> bool {
    state
        .get("time")
        .and_then(|t| t.get("compacted"))
        .is_some_and(|c| !c.is_null())
}

/// The state of the tool part at `index` of the OpenCode message `message`, when its call
/// completed: the only state whose output OpenCode sends.
pub fn completed_tool_state(
    message: &mut Value,
    index: usize,
) -> Option<&mut serde_json::Map<String, Value>> {
    message
        .get_mut("parts")
        .and_then(|p| p.get_mut(index))
        .and_then(|p| p.get_mut("state"))
        .and_then(Value::as_object_mut)
        .filter(|s| s.get("status").and_then(Value::as_str) == Some("completed"))
}

/// Puts `output` in a completed tool part's `state`, and takes off the mark of an OpenCode prune
/// ([`is_pruned`]), which would send [`CLEARED_TOOL_RESULT`] in its place.
pub fn set_tool_output(state: &mut serde_json::Map<String, Value>, output: String) {
    state.insert("output".into(), Value::String(output));
    if let Some(time) = state.get_mut("time").and_then(Value::as_object_mut) {
        time.remove("compacted");
    }
}

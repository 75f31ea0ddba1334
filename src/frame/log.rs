//! The log file a pop writes (flame.md §8), with an optional OpenCode transcript.

use serde_json::Value;

use super::id::FrameId;
use super::state::{State, TreeIndex};
use crate::conversation::{Export, non_blank};
use crate::time::{human_utc, rfc3339_ms};

/// The folder of the logs, under the store's directory.
pub const DIR: &str = "logs";

/// The log's file name: the one place it is spelled.
pub fn file_name(id: &FrameId) -> String {
    format!("frame-{id}.md")
}

/// The log's path relative to the store's directory, as `logPath` records it.
pub fn path_in_store(id: &FrameId) -> String {
    format!("{DIR}/{}", file_name(id))
}

/// The `## Messages` section of a log, made from a transcript before the state's lock is taken:
/// it does not depend on the state, and can be large. A tool output longer than `output_max`
/// bytes (0: no limit) is cut, and says so.
pub struct Messages(String);

impl Messages {
    pub fn of(transcript: &Export, output_max: usize) -> Messages {
        Messages(transcript_text(transcript, output_max))
    }
}

/// The full text of `logs/frame-<id>.md` for a frame whose pop has just been applied at `now`.
pub fn render(state: &State, id: &str, now: i64, messages: Option<&Messages>) -> String {
    let frame = state.frame(id).expect("the popped frame exists");
    let mut out = String::new();
    out.push_str(&format!("# Frame: {}\n\n", single_line(frame.goal())));
    out.push_str(&format!("- ID: {id}\n"));
    out.push_str(&format!(
        "- Parent: {}\n",
        frame.parent().unwrap_or("(none)")
    ));
    out.push_str(&format!("- Status: {}\n", frame.status()));
    out.push_str(&format!("- Created: {}\n", rfc3339_ms(frame.created_at())));
    out.push_str(&format!("- Completed: {}\n", rfc3339_ms(now)));
    let artifacts: Vec<&str> = frame.artifacts().collect();
    if artifacts.is_empty() {
        out.push_str("- Artifacts: (none)\n");
    } else {
        out.push_str(&format!("- Artifacts: {}\n", artifacts.join(", ")));
    }
    let decisions: Vec<&str> = frame.decisions().collect();
    if decisions.is_empty() {
        out.push_str("- Decisions: (none)\n");
    } else {
        out.push_str("- Decisions:\n");
        for decision in decisions {
            out.push_str(&format!("  - {decision}\n"));
        }
    }
    out.push_str("\n## Summary\n\n");
    out.push_str(frame.summary().unwrap_or("(no summary)"));
    out.push_str("\n\n## Children\n\n");
    let index = TreeIndex::new(state);
    let children = index.children(id);
    if children.is_empty() {
        out.push_str("(none)\n");
    }
    for child in children {
        let child = state.frame(child).expect("ids come from the index");
        let goal = child.goal().lines().next().unwrap_or("");
        out.push_str(&format!("- [{}] {goal} ({})\n", child.status(), child.id));
    }
    if let Some(Messages(messages)) = messages {
        out.push_str("\n## Messages\n\n");
        out.push_str(messages);
    }
    let mut text = out.trim_end_matches(['\n', '\r']).to_string();
    text.push('\n');
    text
}

/// The log `text` of a frame whose goal or summary was corrected, brought in step: the
/// `# Frame:` line and the `## Summary` section are rewritten, everything else (the times, the
/// transcript) is kept. `None` when the text is not laid out as [`render`] wrote it for the old
/// values, which ctx then leaves alone.
pub fn amend(
    text: &str,
    old_goal: &str,
    old_summary: Option<&str>,
    goal: Option<&str>,
    summary: Option<&str>,
) -> Option<String> {
    let mut text = text.to_string();
    if let Some(goal) = goal {
        let old_line = format!("# Frame: {}\n", single_line(old_goal));
        let rest = text.strip_prefix(&old_line)?;
        text = format!("# Frame: {}\n{rest}", single_line(goal));
    }
    if let Some(summary) = summary {
        let section = |summary: &str| format!("\n## Summary\n\n{summary}\n\n## Children\n");
        let old_section = section(old_summary.unwrap_or("(no summary)"));
        let at = text.find(&old_section)?;
        text.replace_range(at..at + old_section.len(), &section(summary));
    }
    Some(text)
}

fn single_line(text: &str) -> String {
    text.replace("\r\n", " ").replace(['\n', '\r'], " ")
}

/// `## Messages` body (flame.md §8.3).
fn transcript_text(export: &Export, output_max: usize) -> String {
    let mut out = format!(
        "{} session {}: {}\n",
        export.source().unwrap_or("OpenCode"),
        export.session_id(),
        export.title().unwrap_or("")
    );
    for message in export.messages() {
        let time = message
            .created()
            .map_or("unknown time".to_string(), human_utc);
        out.push_str(&format!(
            "\n### {} ({time})\n",
            role_heading(message.role())
        ));
        let mut blocks: Vec<String> = Vec::new();
        let mut run: Vec<String> = Vec::new();
        for part in message.parts {
            match render_part(part, output_max) {
                Some(Rendered::Block(text)) => {
                    if !run.is_empty() {
                        blocks.push(run.join("\n"));
                        run.clear();
                    }
                    blocks.push(text);
                }
                Some(Rendered::Line(line)) => run.push(line),
                None => {}
            }
        }
        if !run.is_empty() {
            blocks.push(run.join("\n"));
        }
        for block in blocks {
            out.push('\n');
            out.push_str(&block);
            out.push('\n');
        }
    }
    out
}

fn role_heading(role: &str) -> String {
    let mut chars = role.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Message".to_string(),
    }
}

enum Rendered {
    Block(String),
    Line(String),
}

fn render_part(part: &Value, output_max: usize) -> Option<Rendered> {
    match part.get("type")?.as_str()? {
        "text" => {
            if part.get("ignored").and_then(Value::as_bool) == Some(true) {
                return None;
            }
            let text = part.get("text")?.as_str()?.trim_end();
            if text.trim().is_empty() {
                return None;
            }
            if part.get("synthetic").and_then(Value::as_bool) == Some(true) {
                Some(Rendered::Block(format!("(synthetic) {text}")))
            } else {
                Some(Rendered::Block(text.to_string()))
            }
        }
        "tool" => {
            let tool = part.get("tool")?.as_str()?;
            let state = part.get("state").filter(|s| s.is_object());
            let title = state.and_then(tool_title);
            let mut line = match title {
                Some(title) => format!("[Tool: {tool}] {title}"),
                None => format!("[Tool: {tool}]"),
            };
            match state.and_then(|s| s.get("status")).and_then(Value::as_str) {
                Some("error") => line.push_str(" (error)"),
                Some("pending") => line.push_str(" (pending)"),
                Some("running") => line.push_str(" (running)"),
                _ => {}
            }
            Some(Rendered::Block(tool_block(line, state, output_max)))
        }
        "reasoning" => {
            let text = part.get("text")?.as_str()?.trim_end();
            if text.trim().is_empty() {
                return None;
            }
            Some(Rendered::Block(format!("(reasoning) {}", printable(text))))
        }
        "file" => {
            let name = non_blank(part, "filename")
                .or_else(|| part.get("source").and_then(|s| non_blank(s, "path")))
                .unwrap_or("attachment");
            Some(Rendered::Line(format!("[File: {name}]")))
        }
        "subtask" => {
            let agent = part.get("agent")?.as_str()?;
            let description = part
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("");
            Some(Rendered::Line(
                format!("[Subtask: {agent}] {description}")
                    .trim_end()
                    .to_string(),
            ))
        }
        "patch" => {
            let files = part.get("files")?.as_array()?.len();
            Some(Rendered::Line(format!("[Patch: {files} files]")))
        }
        "compaction" => Some(Rendered::Line("[Compaction]".into())),
        _ => None,
    }
}

/// A tool call: its line, then its input (JSON) and its output or error, each fenced.
fn tool_block(line: String, state: Option<&Value>, output_max: usize) -> String {
    let mut out = line;
    let Some(state) = state else {
        return out;
    };
    if let Some(input) = state.get("input").filter(|i| !is_empty_input(i)) {
        let json = serde_json::to_string_pretty(input).unwrap_or_default();
        out.push_str("\n\nInput:\n\n");
        out.push_str(&fenced("json", &printable(&json)));
    }
    let (label, text) = match state.get("status").and_then(Value::as_str) {
        Some("error") => ("Error", state.get("error").and_then(Value::as_str)),
        _ => ("Output", state.get("output").and_then(Value::as_str)),
    };
    if let Some(text) = text {
        let (kept, cut) = cut_bytes(text, output_max);
        out.push_str(&format!("\n\n{label}:\n\n"));
        out.push_str(&fenced("", &printable(kept)));
        if cut > 0 {
            out.push_str(&format!(
                "\n\n[output cut: {cut} of {} bytes left out (frame.log.output_max = {output_max})]",
                text.len()
            ));
        }
    }
    out
}

fn is_empty_input(input: &Value) -> bool {
    input.is_null() || input.as_object().is_some_and(|o| o.is_empty())
}

/// The first `max` bytes of `text` (0: all), never splitting a character, and how many bytes
/// were left out.
fn cut_bytes(text: &str, max: usize) -> (&str, usize) {
    if max == 0 || text.len() <= max {
        return (text, 0);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], text.len() - end)
}

/// `text` with control characters a terminal or editor would act on shown as `\xNN` (tabs and
/// line breaks kept; a `\r\n` becomes `\n`).
fn printable(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if c.is_control() && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` in a fenced code block whose fence no run of backticks inside it can close.
fn fenced(info: &str, text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest.max(2) + 1);
    let body = text.trim_end_matches('\n');
    format!("{fence}{info}\n{body}\n{fence}")
}

/// `state.title` if non-blank, else the first string among the input fields that name the call.
fn tool_title(state: &Value) -> Option<String> {
    let from_input = || {
        let input = state.get("input")?;
        [
            "description",
            "filePath",
            "path",
            "command",
            "pattern",
            "url",
            "query",
        ]
        .iter()
        .find_map(|key| non_blank(input, key))
    };
    let title = non_blank(state, "title").or_else(from_input)?;
    Some(cut_utf16(&single_line(title), 200))
}

/// Cuts `text` to at most `limit` UTF-16 units (never inside a character), adding `…` when cut.
fn cut_utf16(text: &str, limit: usize) -> String {
    if text.encode_utf16().count() <= limit {
        return text.to_string();
    }
    let mut used = 0;
    let mut out = String::new();
    for ch in text.chars() {
        used += ch.len_utf16();
        if used > limit {
            break;
        }
        out.push(ch);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_fenced_cut_and_printable() {
        assert_eq!(fenced("", "a ``` b\n"), "````\na ``` b\n````");
        assert_eq!(fenced("json", "{}"), "```json\n{}\n```");
        assert_eq!(cut_bytes("héllo", 2), ("h", 5));
        assert_eq!(cut_bytes("héllo", 0), ("héllo", 0));
        assert_eq!(
            printable("a\x1b[31mb\r\nc\rd\te"),
            "a\\x1b[31mb\nc\\x0dd\te"
        );
    }

    #[test]
    fn cut_never_splits_a_surrogate_pair() {
        assert_eq!(cut_utf16("abc", 3), "abc");
        assert_eq!(cut_utf16("abcd", 3), "abc…");
        assert_eq!(cut_utf16("a😀b", 2), "a…");
    }
}

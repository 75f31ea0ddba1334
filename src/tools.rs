//! The `flame_*` tools ctx's plugins offer the model: one table of their names, descriptions and
//! parameters (the text the model reads), generated into each plugin in the form its agent
//! takes: the OpenCode plugin's zod arguments (`tool.schema`), the pi extension's TypeBox
//! parameters. Each plugin keeps a marked region ([`BEGIN`] … [`END`]) that `ctx
//! generate-artifacts` rewrites from this table, and a test fails while a committed plugin's
//! region differs from it. What each tool does (the ctx command it runs, with the agent's own
//! ids and transcript) stays in the plugin, one `define("flame_…", …)` per tool. Pure: text in,
//! text out.

/// The longest context preview, in characters, when the model does not ask for another length:
/// the default `flame_context_preview`'s `maxLength` description names, and the plugins use.
pub const PREVIEW_CHARS: usize = 2000;

/// One tool as the model sees it.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static [Param],
}

/// One parameter of a tool.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
    pub description: &'static str,
}

/// What a parameter's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    String,
    Boolean,
    /// An integer of at least 1.
    PositiveInteger,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// A list of strings with at least one.
    NonEmptyStrings,
}

const fn required(name: &'static str, kind: Kind, description: &'static str) -> Param {
    Param {
        name,
        kind,
        required: true,
        description,
    }
}

const fn optional(name: &'static str, kind: Kind, description: &'static str) -> Param {
    Param {
        name,
        kind,
        required: false,
        description,
    }
}

/// Every tool, in the order the plugins define them. `flame_recall` is offered only while
/// `frame.auto` is not off (the plugins decide).
pub const TOOLS: &[Tool] = &[
    Tool {
        name: "flame_push",
        description: "Start a child frame of this session's current frame for a subtask with its own goal, and make it this session's current frame. Use it when you begin a distinct piece of work (a feature, a fix, an investigation) whose result should be summarised on its own; call flame_pop when it is done.",
        params: &[required(
            "goal",
            Kind::String,
            "What the new frame is for, in one sentence (required, not blank)",
        )],
    },
    Tool {
        name: "flame_pop",
        description: "Finish this session's current frame: record its status and summary, write its log (with this session's messages since the frame began), and make its parent the current frame. Use it when the frame's goal is reached (completed), cannot be reached (failed), or waits on something outside your control (blocked; it can be resumed with flame_activate). A frame with running child frames is refused: pop those first. After the pop, the frame's messages (from its flame_push on) are folded out of the conversation: what stays is this call, with its summary, and as its result a <flame-folded> entry with the frame's status (none: completed), goal (none when completed with a summary), artifacts and decisions, the summary only when the call does not hold it, and a log attribute only when the frame's log is not .opencode/flame/logs/frame-<id>.md, where a pop writes it (log=\"\": no log). So write a summary that carries what later work needs; the log holds every message and tool output in full.",
        params: &[
            optional(
                "status",
                Kind::OneOf(&["completed", "failed", "blocked"]),
                "How the frame ended (default: completed)",
            ),
            optional(
                "summary",
                Kind::String,
                "What was achieved or learned, for later frames and the log (default: none)",
            ),
        ],
    },
    Tool {
        name: "flame_recall",
        description: "Give back what ctx folded out of the conversation. With a frame's id: what its log keeps, every message and tool output of the frame (an output over frame.log.output_max bytes cut, marked). With a tool call's id: that call's whole output, from this session. Use it when an output replaced by \"[ctx folded this output … flame_recall with id <id> …]\" is needed again.",
        params: &[required(
            "id",
            Kind::String,
            "The id the folded output names: a frame's (or a unique prefix of at least 4 characters), or a tool call's",
        )],
    },
    Tool {
        name: "flame_status",
        description: "Show this session's current frame in full and the whole frame tree (its current frame marked). Use it to see where you are before you push, pop or plan.",
        params: &[],
    },
    Tool {
        name: "flame_tree",
        description: "Show the frame tree: frames in creation order with their status, this session's current frame marked.",
        params: &[
            optional(
                "showFull",
                Kind::Boolean,
                "The whole tree (default: true); false shows only this session's current frame and what is below it",
            ),
            optional(
                "rootID",
                Kind::String,
                "Show only this frame's subtree (default: all roots)",
            ),
            optional(
                "showDetails",
                Kind::Boolean,
                "Add summaries, artifacts, decisions and log paths (default: false)",
            ),
        ],
    },
    Tool {
        name: "flame_plan",
        description: "Plan one child frame (status planned) for work to do later, without starting it. Use it to lay out the next steps; start a planned frame with flame_activate.",
        params: &[
            required(
                "goal",
                Kind::String,
                "What the planned frame is for (required)",
            ),
            optional(
                "parentSessionID",
                Kind::String,
                "The parent frame (default: this session's current frame)",
            ),
        ],
    },
    Tool {
        name: "flame_plan_children",
        description: "Plan several child frames at once, in the order given, without starting them.",
        params: &[
            required(
                "children",
                Kind::NonEmptyStrings,
                "The goals of the planned frames, in order (at least one)",
            ),
            optional(
                "parentSessionID",
                Kind::String,
                "The parent frame (default: this session's current frame)",
            ),
        ],
    },
    Tool {
        name: "flame_activate",
        description: "Start a planned frame, or resume a blocked one, and make it this session's current frame. Its parent must be in progress.",
        params: &[required(
            "sessionID",
            Kind::String,
            "The frame to start: a full frame id or a unique prefix of at least 4 characters",
        )],
    },
    Tool {
        name: "flame_invalidate",
        description: "Mark a frame as no longer needed (invalidated), with its planned descendants; running descendants are reported and left as they are. Use it when a plan changed and a frame's goal no longer applies.",
        params: &[
            required(
                "reason",
                Kind::String,
                "Why the frame no longer applies (required)",
            ),
            optional(
                "sessionID",
                Kind::String,
                "The frame (default: this session's current frame)",
            ),
        ],
    },
    Tool {
        name: "flame_set_goal",
        description: "Correct the goal of this session's current frame (a typo, a sharper wording).",
        params: &[required(
            "goal",
            Kind::String,
            "The new goal (required, not blank)",
        )],
    },
    Tool {
        name: "flame_add_artifact",
        description: "Record a file or other output that this session's current frame produced (exact duplicates are skipped).",
        params: &[required(
            "artifact",
            Kind::String,
            "A path or name, recorded exactly as given",
        )],
    },
    Tool {
        name: "flame_add_decision",
        description: "Record a decision taken in this session's current frame, so later frames see it.",
        params: &[required(
            "decision",
            Kind::String,
            "The decision, in one sentence (required)",
        )],
    },
    Tool {
        name: "flame_get_summary",
        description: "Show every field of a frame: goal, status, times, summary, artifacts, decisions, log.",
        params: &[optional(
            "sessionID",
            Kind::String,
            "The frame (default: this session's current frame)",
        )],
    },
    Tool {
        name: "flame_context_preview",
        description: "Show the <flame-context> XML that is added to this session's messages: the current frame, its ancestors and finished siblings.",
        params: &[optional(
            "maxLength",
            Kind::PositiveInteger,
            "Longest preview in characters (default: 2000)",
        )],
    },
];

/// The line that opens a plugin's generated region.
pub const BEGIN: &str = "// ---- BEGIN GENERATED from src/tools.rs by `ctx generate-artifacts .`: edit the table there ----";
/// The line that closes it.
pub const END: &str = "// ---- END GENERATED ----";

/// The form a plugin's agent takes its tools in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// OpenCode's plugin kit: `tool({description, args})`, `args` zod schemas from `tool.schema`.
    OpenCode,
    /// pi's `registerTool({description, parameters})`, `parameters` a TypeBox object.
    Pi,
}

/// A plugin the table is generated into: its path in the repository and its flavour.
#[derive(Debug, Clone, Copy)]
pub struct Plugin {
    pub path: &'static str,
    pub flavor: Flavor,
}

/// Every plugin with a generated region (the files `ctx opencode install` and `ctx pi install`
/// write, embedded as they are committed).
pub const PLUGINS: [Plugin; 2] = [
    Plugin {
        path: "integrations/opencode/plugin/ctx.js",
        flavor: Flavor::OpenCode,
    },
    Plugin {
        path: "integrations/pi/extensions/ctx.ts",
        flavor: Flavor::Pi,
    },
];

/// A JavaScript string literal: JSON's, which JavaScript reads the same.
fn js_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string always serializes")
}

/// A parameter's schema in OpenCode's zod (`z` is the kit's `tool.schema`).
fn zod(param: &Param) -> String {
    let mut schema = match param.kind {
        Kind::String => "z.string()".to_string(),
        Kind::Boolean => "z.boolean()".to_string(),
        Kind::PositiveInteger => "z.number().int().positive()".to_string(),
        Kind::OneOf(values) => {
            let values: Vec<String> = values.iter().map(|v| js_string(v)).collect();
            format!("z.enum([{}])", values.join(", "))
        }
        Kind::NonEmptyStrings => "z.array(z.string()).min(1)".to_string(),
    };
    if !param.required {
        schema.push_str(".optional()");
    }
    format!("{schema}.describe({})", js_string(param.description))
}

/// A parameter's schema in TypeBox (pi).
fn typebox(param: &Param) -> String {
    let description = format!("description: {}", js_string(param.description));
    let schema = match param.kind {
        Kind::String => format!("Type.String({{ {description} }})"),
        Kind::Boolean => format!("Type.Boolean({{ {description} }})"),
        Kind::PositiveInteger => format!("Type.Integer({{ minimum: 1, {description} }})"),
        Kind::OneOf(values) => {
            let literals: Vec<String> = values
                .iter()
                .map(|v| format!("Type.Literal({})", js_string(v)))
                .collect();
            format!("Type.Union([{}], {{ {description} }})", literals.join(", "))
        }
        Kind::NonEmptyStrings => {
            format!("Type.Array(Type.String(), {{ minItems: 1, {description} }})")
        }
    };
    if param.required {
        schema
    } else {
        format!("Type.Optional({schema})")
    }
}

/// The generated region of a plugin of `flavor`, from [`BEGIN`] to [`END`] (each on its own
/// line, the text ending in a newline).
pub fn region(flavor: Flavor) -> String {
    let mut out = String::new();
    out.push_str(BEGIN);
    out.push('\n');
    let (what, opening, closing, key) = match flavor {
        Flavor::OpenCode => (
            "in OpenCode's plugin kit (`z` is its `tool.schema`)",
            "const flameTools = (z) => ({",
            "});",
            "args",
        ),
        Flavor::Pi => (
            "in pi's TypeBox schemas",
            "const flameTools = {",
            "};",
            "parameters",
        ),
    };
    out.push_str("// The longest context preview, in characters, when the model does not ask for another length.\n");
    out.push_str(&format!("const PREVIEW_CHARS = {PREVIEW_CHARS};\n"));
    out.push_str(&format!(
        "// The flame_* tools as the model reads them: each one's description and {key}, {what}.\n"
    ));
    out.push_str(opening);
    out.push('\n');
    for tool in TOOLS {
        out.push_str(&format!("  {}: {{\n", tool.name));
        out.push_str(&format!(
            "    description: {},\n",
            js_string(tool.description)
        ));
        let params: Vec<String> = tool
            .params
            .iter()
            .map(|p| {
                let schema = match flavor {
                    Flavor::OpenCode => zod(p),
                    Flavor::Pi => typebox(p),
                };
                format!("      {}: {schema},\n", p.name)
            })
            .collect();
        let (open, close) = match flavor {
            Flavor::OpenCode => ("{", "}"),
            Flavor::Pi => ("Type.Object({", "})"),
        };
        if params.is_empty() {
            out.push_str(&format!("    {key}: {open}{close},\n"));
        } else {
            out.push_str(&format!(
                "    {key}: {open}\n{}    {close},\n",
                params.concat()
            ));
        }
        out.push_str("  },\n");
    }
    out.push_str(closing);
    out.push('\n');
    out.push_str(END);
    out.push('\n');
    out
}

/// A plugin's text with its generated region replaced by the table's; `None` when the text has
/// no region (no [`BEGIN`] line followed by an [`END`] line).
pub fn refresh(text: &str, flavor: Flavor) -> Option<String> {
    let start = line_at(text, BEGIN, 0)?;
    let end = line_at(text, END, start)?;
    let after = text[end..].find('\n').map_or(text.len(), |n| end + n + 1);
    Some(format!(
        "{}{}{}",
        &text[..start],
        region(flavor),
        &text[after..]
    ))
}

/// Where the first line of `text` from `from` on that is exactly `line` starts.
fn line_at(text: &str, line: &str, from: usize) -> Option<usize> {
    let mut at = from;
    for each in text[from..].split_inclusive('\n') {
        if each.trim_end_matches(['\n', '\r']) == line {
            return Some(at);
        }
        at += each.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_flame_tools_and_unique() {
        let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        assert!(names.iter().all(|n| n.starts_with("flame_")));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len());
    }

    #[test]
    fn the_preview_description_names_the_default() {
        let preview = TOOLS
            .iter()
            .find(|t| t.name == "flame_context_preview")
            .unwrap();
        assert!(
            preview.params[0]
                .description
                .contains(&format!("(default: {PREVIEW_CHARS})"))
        );
    }

    #[test]
    fn refresh_replaces_only_the_region() {
        let text = format!("before\n{BEGIN}\nold\n{END}\nafter\n");
        let fresh = refresh(&text, Flavor::Pi).unwrap();
        assert!(fresh.starts_with("before\n"));
        assert!(fresh.ends_with(&format!("{END}\nafter\n")));
        assert!(!fresh.contains("\nold\n"));
        assert_eq!(refresh(&fresh, Flavor::Pi).unwrap(), fresh);
        assert_eq!(refresh("no region\n", Flavor::Pi), None);
        assert_eq!(refresh(&format!("{END}\n{BEGIN}\n"), Flavor::Pi), None);
    }

    #[test]
    fn each_flavor_says_each_kind() {
        let status = &TOOLS[1].params[0];
        assert_eq!(
            zod(status),
            r#"z.enum(["completed", "failed", "blocked"]).optional().describe("How the frame ended (default: completed)")"#
        );
        assert_eq!(
            typebox(status),
            r#"Type.Optional(Type.Union([Type.Literal("completed"), Type.Literal("failed"), Type.Literal("blocked")], { description: "How the frame ended (default: completed)" }))"#
        );
    }
}

//! Property tests of how the transcript folds read an agent's shell call (src/hooks/frame_calls.rs):
//! whatever separators, parentheses, redirections and global options surround a `ctx frame push`
//! or `ctx frame pop`, and however its goal or `--frame` is quoted, the split finds the one frame
//! command with the same goal and frame; and the same text as an argument of another command is
//! no frame command at all.

use ctxkit::hooks::frame_calls::frame_commands;
use proptest::prelude::*;

/// `text` as one shell word, in one of three quotings: single quotes, double quotes, or
/// backslashes before every character that is not a letter or a digit.
fn quoted(text: &str, style: u8) -> String {
    match style % 3 {
        0 => format!("'{}'", text.replace('\'', "'\\''")),
        1 => {
            let mut out = String::from("\"");
            for c in text.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
            out
        }
        // A backslash before a newline joins lines, and an empty word needs quotes.
        _ if text.is_empty() || text.contains('\n') => quoted(text, 0),
        _ => text
            .chars()
            .flat_map(|c| {
                let escape = (!c.is_ascii_alphanumeric()).then_some('\\');
                escape.into_iter().chain([c])
            })
            .collect(),
    }
}

/// What may come before ctx's program: nothing, a variable, a keyword, another command and a
/// separator, an opening parenthesis or brace.
fn arb_before() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "",
        "CTX_SESSION=cc_x ",
        "if ",
        "! ",
        "ls; ",
        "ls;",
        "make && ",
        "make&&",
        "false || ",
        "cat x | ",
        "ls\n",
        "(",
        "( ",
        "{ ",
        "sleep 1 & ",
    ])
    .prop_map(str::to_string)
}

/// What may come after the frame command: nothing, a separator and another command, a closing
/// parenthesis or brace, a redirection.
fn arb_after() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "",
        "; make",
        ";make",
        " && make",
        "&&make",
        "||true",
        " | tee log",
        "|cat",
        "\nmake",
        ")",
        " )",
        "; }",
        " 2>&1",
        ">/dev/null",
        " >> log 2>&1 && echo 'frame pop'",
        " &",
    ])
    .prop_map(str::to_string)
}

/// ctx's program and global options.
fn arb_program() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["ctx", "/usr/local/bin/ctx", "./target/debug/ctx"]),
        prop::sample::select(vec![
            "",
            " --json",
            " -q",
            " --quiet",
            " -C /x",
            " -C/x",
            " -qC /x",
            " --root=/x --color never",
        ]),
    )
        .prop_map(|(program, options)| format!("{program}{options}"))
}

proptest! {
    /// A push's goal is found whole, whatever surrounds the push and however it is quoted.
    #[test]
    fn a_pushs_goal_is_the_same_through_any_separators_parentheses_and_quoting(
        goal in "(?s).{0,24}",
        style in 0u8..3,
        dashes in any::<bool>(),
        options in prop::sample::select(vec!["", " --parent fr_a", " --session=cc_x", " --id fr_new"]),
        program in arb_program(),
        before in arb_before(),
        after in arb_after(),
    ) {
        // Without `--`, a goal that starts with a dash would be an option.
        let dashes = dashes || goal.starts_with('-');
        let command = format!(
            "{before}{program} frame push{options}{} {}{after}",
            if dashes { " --" } else { "" },
            quoted(&goal, style),
        );
        let found = frame_commands(&command);
        prop_assert_eq!(found.len(), 1, "{:?}: {:?}", command, found);
        prop_assert!(found[0].push);
        prop_assert_eq!(found[0].goal(), Some(goal), "{:?}", command);
        prop_assert_eq!(found[0].json, program.contains("--json"));
    }

    /// A pop's `--frame` is found, and its summary (any text) is never taken for it nor for
    /// another frame command.
    #[test]
    fn a_pops_frame_is_the_same_through_any_separators_parentheses_and_quoting(
        frame in "[a-z]{2}_[a-z0-9]{1,12}",
        summary in "(?s).{0,24}",
        styles in (0u8..3, 0u8..3),
        frame_first in any::<bool>(),
        equals in any::<bool>(),
        program in arb_program(),
        before in arb_before(),
        after in arb_after(),
    ) {
        let frame_option = if equals {
            format!("--frame={}", quoted(&frame, styles.0))
        } else {
            format!("--frame {}", quoted(&frame, styles.0))
        };
        let summary_option = format!("--summary {}", quoted(&summary, styles.1));
        let (first, second) = if frame_first {
            (frame_option, summary_option)
        } else {
            (summary_option, frame_option)
        };
        let command = format!("{before}{program} frame pop {first} {second}{after}");
        let found = frame_commands(&command);
        prop_assert_eq!(found.len(), 1, "{:?}: {:?}", command, found);
        prop_assert!(!found[0].push);
        prop_assert_eq!(found[0].names(), Some(Some(frame)), "{:?}", command);
    }

    /// The same push or pop as another command's arguments, quoted whole or word by word, is
    /// text.
    #[test]
    fn a_frame_command_as_another_commands_arguments_is_text(
        goal in "(?s).{0,24}",
        style in 0u8..3,
        whole in any::<bool>(),
        program in arb_program(),
        pop in any::<bool>(),
        speaker in prop::sample::select(vec!["echo", "printf", "git commit -m", "grep -n"]),
    ) {
        let inner = if pop {
            format!("{program} frame pop --summary {}", quoted(&goal, style))
        } else {
            format!("{program} frame push -- {}", quoted(&goal, style))
        };
        let arguments = if whole { quoted(&inner, style) } else { inner };
        let command = format!("{speaker} {arguments}");
        prop_assert!(frame_commands(&command).is_empty(), "{:?}", command);
    }
}

//! Help that reads first-things-first: each command's own options, then the global ones under
//! their own heading; `-h` one line per option, `--help` the details and value lists.

use clap::CommandFactory;
use insta::assert_snapshot;

use crate::common::TestEnv;

/// Every visible subcommand path, e.g. ["frame", "push"].
fn commands() -> Vec<Vec<String>> {
    fn walk(command: &clap::Command, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        // build() adds a `help` subcommand to every group; its help is the group's own.
        let visible = |s: &&clap::Command| !s.is_hide_set() && s.get_name() != "help";
        for sub in command.get_subcommands().filter(visible) {
            path.push(sub.get_name().to_string());
            if sub.has_subcommands() {
                walk(sub, path, out);
            } else {
                out.push(path.clone());
            }
            path.pop();
        }
    }
    // Groups are defined lazily (`Deferred`); build() defines the whole tree, as help does.
    let mut cli = ctxkit::cli::Cli::command();
    cli.build();
    let mut out = Vec::new();
    walk(&cli, &mut Vec::new(), &mut out);
    out
}

#[test]
fn short_help_is_one_line_per_option_with_the_global_options_last() {
    let env = TestEnv::new();
    let all = commands();
    assert!(all.len() > 25, "{all:?}");
    for path in all {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let help = env.ok(&args);
        let sections: Vec<&str> = help.split("\n\n").collect();
        let global = sections
            .iter()
            .position(|s| s.starts_with("Global options:"))
            .unwrap_or_else(|| panic!("{path:?}: no Global options heading:\n{help}"));
        if let Some(own) = sections.iter().position(|s| s.starts_with("Options:")) {
            assert!(
                own < global,
                "{path:?}: the command's own options come first"
            );
        }
        for section in &sections {
            if !(section.starts_with("Options:")
                || section.starts_with("Global options:")
                || section.starts_with("Arguments:"))
            {
                continue;
            }
            for line in section.lines().skip(1) {
                // An option's line is indented by at most 6 columns; a wrapped help's by more.
                let indent = line.len() - line.trim_start().len();
                assert!(
                    indent <= 6,
                    "{path:?}: an option's help takes more than one line in -h:\n{section}"
                );
            }
        }
    }
}

#[test]
fn help_of_three_commands() {
    let env = TestEnv::new();
    assert_snapshot!(env.ok(&["frame", "pop", "-h"]), @"
    Finish the current frame, write its log, and make its parent current

    Usage: ctx frame pop [OPTIONS]

    Options:
          --status <STATUS>      Final status: completed, failed or blocked [default: completed]
          --summary <TEXT>       What the frame achieved
          --summary-file <PATH>  Read the summary from a file, or '-' for stdin
          --transcript <PATH>    An OpenCode session export whose messages go into the log
          --force                Pop even when descendants are still in_progress
          --invalidate-planned   Invalidate the frame's planned descendants
          --frame <ID>           The frame to act on [default: the current frame]
          --session <ID>         Act for this OpenCode session [env: CTX_SESSION]
          --span-message <ID>    The OpenCode message of the tool call making this change
          --span-call <ID>       The OpenCode tool call making this change
      -h, --help                 Print help (see more with '--help')

    Global options:
      -C, --root <DIR>    Project root [default: discovered from the working directory] [env: CTX_ROOT]
          --json          Print exactly one JSON document on stdout
          --color <WHEN>  When to colour output [default: auto]
      -q, --quiet         Print nothing on stderr but errors
    ");
    assert_snapshot!(env.ok(&["frame", "pop", "--help"]), @"
    Finish a frame (default: the current one), write its log to
    .opencode/flame/logs/frame-<id>.md, and make its parent current.

    Only in_progress and blocked frames can be popped. A frame with in_progress
    descendants is refused unless --force. Planned descendants stay planned, named
    in a warning with the command that drops them, unless --invalidate-planned.
    Prints the id of the frame that is now current, or nothing when the popped frame
    was a root.

    Usage: ctx frame pop [OPTIONS]

    Options:
          --status <STATUS>
              Final status: completed, failed or blocked [default: completed]
              
              completed: the goal was reached; failed: it was not; blocked: waiting on something (a
              blocked frame can be popped again, or resumed with `ctx frame activate`).

          --summary <TEXT>
              What the frame achieved
              
              Stored as compactionSummary and shown to later frames.

          --summary-file <PATH>
              Read the summary from a file, or '-' for stdin
              
              Trailing line breaks are removed.

          --transcript <PATH>
              An OpenCode session export whose messages go into the log
              
              The JSON `opencode export <sessionID>` prints, from a file or '-' for stdin.

          --force
              Pop even when descendants are still in_progress
              
              They stay as they are, and a warning names them.

          --invalidate-planned
              Invalidate the frame's planned descendants
              
              A planned frame cannot start under a finished frame: without this flag they stay planned
              (as Flame leaves them), and a warning names them with the command that drops them (`ctx
              frame invalidate ID --reason TEXT`). Their reason is 'Parent frame popped (<status>)
              before it started'. A frame popped as blocked can be resumed with `ctx frame activate`,
              and its planned children started then.

          --frame <ID>
              The frame to act on [default: the current frame]
              
              A full id or a unique prefix of at least 4 characters. The default is the current frame of
              --session, else $CTX_FRAME, else activeFrameID in state.json.

          --session <ID>
              Act for this OpenCode session
              
              Below --frame, above $CTX_FRAME. The session's current frame is the last one it pushed or
              activated and has not finished, else its own frame (the id equal to the session id), else
              activeFrameID. Commands that make a frame current move the session's current frame, never
              activeFrameID.
              
              [env: CTX_SESSION]

          --span-message <ID>
              The OpenCode message of the tool call making this change
              
              Set by ctx's plugin. With --session, recorded on the frame (opencodeSpan), so that the
              messages of a popped frame can be folded out of what the session sends to the model.

          --span-call <ID>
              The OpenCode tool call making this change
              
              Set by ctx's plugin, with --span-message.

      -h, --help
              Print help (see a summary with '-h')

    Global options:
      -C, --root <DIR>
              Project root [default: discovered from the working directory]
              
              The default: walking up from the working directory (itself included), the first folder
              holding .opencode/, .kilo/ or .swarm/, or holding .git (a folder or a file: the git
              worktree root, where the walk stops); else the working directory. The walk never climbs
              into the home folder, whose .opencode/ is OpenCode's own: $HOME is the root only when it
              is the working directory or -C says so. `ctx config` shows which marker chose the root.
              
              [env: CTX_ROOT]

          --json
              Print exactly one JSON document on stdout
              
              The same as --format json where a command has --format.

          --color <WHEN>
              When to colour output [default: auto]
              
              auto colours only on a terminal, and honours NO_COLOR, CLICOLOR_FORCE and TERM=dumb (no
              colour); always; never.

      -q, --quiet
              Print nothing on stderr but errors
              
              stdout keeps only the primary output.
    ");
    assert_snapshot!(env.ok(&["budget", "estimate", "-h"]), @"
    Count the tokens of files, directories, stdin or a session against a model's context limit

    Usage: ctx budget estimate [OPTIONS] [PATH]...

    Arguments:
      [PATH]...  Files and directories to count, '-' for standard input

    Options:
          --session <PATH>    Also count an OpenCode session ('-' for stdin)
          --model <ID>        Model as provider/model or model [default: from the settings or session]
          --limit <N>         Context window in tokens, overriding every other source of limits
          --tokenizer <NAME>  How to count: auto, o200k, cl100k, swarm, opencode [default: auto]
          --warn <F>          Warn threshold, a share of the context window [default: 0.7]
          --critical <F>      Critical threshold, a share of the context window [default: 0.9]
          --fail-on <LEVEL>   The verdict as exit code: never, warn, critical [default: never]
          --top <N>           How many of the largest files and folders human output lists [default: 10]
          --hidden            Include hidden files and directories
          --no-ignore         Do not apply .gitignore, .ignore and git's exclude files
          --exclude <GLOB>    Leave out paths matching GLOB (gitignore syntax; repeatable)
          --format <FORMAT>   Output: human, json, swarm, svg [default: human; json with --json]
      -h, --help              Print help (see more with '--help')

    Global options:
      -C, --root <DIR>    Project root [default: discovered from the working directory] [env: CTX_ROOT]
          --json          Print exactly one JSON document on stdout
          --color <WHEN>  When to colour output [default: auto]
      -q, --quiet         Print nothing on stderr but errors
    ");
    assert_snapshot!(env.ok(&["budget", "estimate", "--help"]), @r#"
    Count the tokens of files, directories (walked with .gitignore/.ignore rules),
    standard input ('-') and/or an OpenCode session export (--session), and compare
    the total with a model's context window.

    With no PATH and no --session, the project root given with -C/--root (or
    CTX_ROOT) is counted, else the working directory. Binary files
    (a NUL byte in the first 8000 bytes) and unreadable files are skipped and listed;
    files that are not UTF-8 are counted as lossily decoded text.

    usage = tokens / context window; the level is critical when usage > --critical,
    warn when usage > --warn (strict comparisons), else ok.

    Limits come from, in order: --limit; ctx's settings ($CTX_BUDGET_LIMIT,
    [budget] model_limits / limit in .opencode/ctx.toml, then the user config.toml);
    opencode-swarm's context_budget.model_limits (exact model key, then "default");
    OpenCode's models.dev cache ($XDG_CACHE_HOME/opencode/models.json); ctx's
    built-in table; 128000.

    Exit codes: 0, or with --fail-on: 3 when the level is warn, 4 when critical.

    Usage: ctx budget estimate [OPTIONS] [PATH]...

    Arguments:
      [PATH]...
              Files and directories to count, '-' for standard input
              
              Without --session, the default is the -C/--root directory when given, else the working
              directory.

    Options:
          --session <PATH>
              Also count an OpenCode session ('-' for stdin)
              
              The JSON `opencode export <sessionID>` prints, or the {"messages": [...]} list of
              OpenCode's messages.transform hook: what the model is sent, beside the tokens OpenCode
              recorded. Its model is the default --model.

          --model <ID>
              Model as provider/model or model [default: from the settings or session]
              
              The default is $CTX_BUDGET_MODEL, else `[budget] model` in the settings, else the
              session's model.

          --limit <N>
              Context window in tokens, overriding every other source of limits

          --tokenizer <NAME>
              How to count: auto, o200k, cl100k, swarm, opencode [default: auto]
              
              auto: the exact encoding of an OpenAI model (o200k without a model), else ctx's calibrated
              estimate for the model's family.
              o200k: OpenAI BPE, as tiktoken.
              cl100k: OpenAI BPE, as tiktoken.
              swarm: opencode-swarm's ceil(utf16 x 0.33).
              opencode: OpenCode's round(utf16 / 4).
              
              The default is $CTX_BUDGET_TOKENIZER, else `[budget] tokenizer`, else auto.

          --warn <F>
              Warn threshold, a share of the context window [default: 0.7]
              
              The default is the settings, else opencode-swarm's context_budget.warn_threshold, else
              0.7.

          --critical <F>
              Critical threshold, a share of the context window [default: 0.9]
              
              The default is the settings, else opencode-swarm's context_budget.critical_threshold, else
              0.9.

          --fail-on <LEVEL>
              The verdict as exit code: never, warn, critical [default: never]
              
              warn: exit 3 when the level is warn and 4 when critical; critical: exit 4 when critical
              only; never: exit 0 whatever the level. A budget opencode-swarm's config turns off
              (context_budget.enabled: false) gives no verdict: exit 0.

          --top <N>
              How many of the largest files and folders human output lists
              
              [default: 10]

          --hidden
              Include hidden files and directories
              
              .git is never included.

          --no-ignore
              Do not apply .gitignore, .ignore and git's exclude files

          --exclude <GLOB>
              Leave out paths matching GLOB (gitignore syntax; repeatable)

          --format <FORMAT>
              Output: human, json, swarm, svg [default: human; json with --json]
              
              human: tables and a usage bar; json: one document; swarm: opencode-swarm's warning line
              for the level, or nothing when ok; svg: an interactive flame graph of the inputs, folders
              above their files, width by tokens, against the context window with the warn, critical and
              limit lines.

      -h, --help
              Print help (see a summary with '-h')

    Global options:
      -C, --root <DIR>
              Project root [default: discovered from the working directory]
              
              The default: walking up from the working directory (itself included), the first folder
              holding .opencode/, .kilo/ or .swarm/, or holding .git (a folder or a file: the git
              worktree root, where the walk stops); else the working directory. The walk never climbs
              into the home folder, whose .opencode/ is OpenCode's own: $HOME is the root only when it
              is the working directory or -C says so. `ctx config` shows which marker chose the root.
              
              [env: CTX_ROOT]

          --json
              Print exactly one JSON document on stdout
              
              The same as --format json where a command has --format.

          --color <WHEN>
              When to colour output [default: auto]
              
              auto colours only on a terminal, and honours NO_COLOR, CLICOLOR_FORCE and TERM=dumb (no
              colour); always; never.

      -q, --quiet
              Print nothing on stderr but errors
              
              stdout keeps only the primary output.
    "#);
    assert_snapshot!(env.ok(&["compact", "inject", "-h"]), @"
    Insert rendered context into an OpenCode message list read from stdin

    Usage: ctx compact inject [OPTIONS] --at <WHERE>

    Options:
          --at <WHERE>        Where the context goes (see the list above)
          --for <SOURCE>      A source: swarm, system, frame; repeatable [default: those that exist]
          --frame <ID>        The frame to act on [default: the current frame]
          --session <ID>      Act for this OpenCode session [env: CTX_SESSION]
          --max-tokens <N>    Cap on the whole render, in tokens [default: no cap]
          --agent <NAME>      The active opencode-swarm agent [default: none]
          --budget-warning    Also add opencode-swarm's context-budget warning, as the plugin does
          --text <TEXT>       Insert this text, after the entries of any --for
          --text-file <PATH>  Insert the text of this file, after the entries of any --for
          --role <ROLE>       Who a new message is from: user or assistant [default: user]
      -h, --help              Print help (see more with '--help')

    Global options:
      -C, --root <DIR>    Project root [default: discovered from the working directory] [env: CTX_ROOT]
          --json          Print exactly one JSON document on stdout
          --color <WHEN>  When to colour output [default: auto]
      -q, --quiet         Print nothing on stderr but errors
    ");
    assert_snapshot!(env.ok(&["compact", "inject", "--help"]), @r#"
    Read {"messages": [{"info": {...}, "parts": [...]}, ...]} (the output of
    OpenCode's experimental.chat.messages.transform hook) on standard input, insert
    the rendered context (the entries of `ctx compact render`, separated by a blank
    line) and print the same shape. Messages that do not change are copied byte for
    byte; the others are written as compact JSON.

    WHERE:
      prepend, append     a new synthetic user message first or last
      last-user           a synthetic text part appended to the last user message
      last-assistant      the same on the last assistant message
      before:MSGID        a new synthetic user message just before message MSGID
      after:MSGID         ... just after it

    New messages copy sessionID, agent and model from the nearest user message;
    new ids follow OpenCode's format (msg_/prt_ + time-based hex + random tail).
    Unknown keys and key order are kept. When nothing renders, the input is
    printed unchanged. Bad input or a missing target prints nothing and exits 1.

    Usage: ctx compact inject [OPTIONS] --at <WHERE>

    Options:
          --at <WHERE>
              Where the context goes (see the list above)
              
              prepend, append, last-user, last-assistant, before:MSGID, after:MSGID.

          --for <SOURCE>
              A source: swarm, system, frame; repeatable [default: those that exist]
              
              swarm: opencode-swarm's compaction entries ([SWARM PLAN], [SWARM DECISIONS], [SWARM
              TASKS], [SWARM PATTERNS]) from .swarm/; system: its system-enhancer entries ([SWARM
              CONTEXT] …); frame: the <flame-context> XML of the current frame. Entries always come in
              the order swarm, system, frame. The default is swarm when .swarm/ holds a plan or
              context.md, and frame when there is a current frame; system only when asked for.

          --frame <ID>
              The frame to act on [default: the current frame]
              
              A full id or a unique prefix of at least 4 characters. The default is the current frame of
              --session, else $CTX_FRAME, else activeFrameID in state.json.

          --session <ID>
              Act for this OpenCode session
              
              Below --frame, above $CTX_FRAME. The session's current frame is the last one it pushed or
              activated and has not finished, else its own frame (the id equal to the session id), else
              activeFrameID. Commands that make a frame current move the session's current frame, never
              activeFrameID.
              
              [env: CTX_SESSION]

          --max-tokens <N>
              Cap on the whole render, in tokens [default: no cap]
              
              Tokens are estimated as ceil(UTF-16 code units / 4) per entry plus one per separating
              blank line. Swarm and system entries are kept, in order, while they fit; the frame context
              gets the rest as its total budget, and is left out with a warning when that is too little,
              unless it is the only source. Without a cap, the frame context's own total applies (4000
              unless configured).

          --agent <NAME>
              The active opencode-swarm agent [default: none]
              
              It adds its [SWARM AGENT CONTEXT] system entry.

          --budget-warning
              Also add opencode-swarm's context-budget warning, as the plugin does
              
              The warning goes before the last user message's text when the list's texts pass the warn
              or critical share of the limit (budget.limit, else opencode-swarm's model_limits.default,
              else 128000; thresholds budget.warn and budget.critical) and that message's agent is none
              or architect, and never when an OpenCode config loads opencode-swarm (which gives it
              itself). When it goes in, a source that cannot render is left out with a warning.

          --text <TEXT>
              Insert this text, after the entries of any --for

          --text-file <PATH>
              Insert the text of this file, after the entries of any --for
              
              Not '-': standard input carries the message list.

          --role <ROLE>
              Who a new message is from: user or assistant [default: user]
              
              For prepend, append, before:MSGID and after:MSGID; last-user and last-assistant add to a
              message whose role is already given.

      -h, --help
              Print help (see a summary with '-h')

    Global options:
      -C, --root <DIR>
              Project root [default: discovered from the working directory]
              
              The default: walking up from the working directory (itself included), the first folder
              holding .opencode/, .kilo/ or .swarm/, or holding .git (a folder or a file: the git
              worktree root, where the walk stops); else the working directory. The walk never climbs
              into the home folder, whose .opencode/ is OpenCode's own: $HOME is the root only when it
              is the working directory or -C says so. `ctx config` shows which marker chose the root.
              
              [env: CTX_ROOT]

          --json
              Print exactly one JSON document on stdout
              
              The same as --format json where a command has --format.

          --color <WHEN>
              When to colour output [default: auto]
              
              auto colours only on a terminal, and honours NO_COLOR, CLICOLOR_FORCE and TERM=dumb (no
              colour); always; never.

      -q, --quiet
              Print nothing on stderr but errors
              
              stdout keeps only the primary output.
    "#);
}

/// `--version` says which binary ran: the crate's version, then the target it was built for.
/// The second word stays the bare version, which is what scripts read.
#[test]
fn version_names_the_version_and_the_target() {
    let env = TestEnv::new();
    let target = env!("CTX_TARGET");
    let expected = format!("ctx {} ({target})\n", env!("CARGO_PKG_VERSION"));
    assert_eq!(env.ok(&["--version"]), expected);
    assert_eq!(env.ok(&["-V"]), expected);
    // The triple is this machine's kind: its architecture first, its OS named.
    assert!(
        target.starts_with(std::env::consts::ARCH),
        "{target} vs {}",
        std::env::consts::ARCH
    );
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    assert!(target.contains(os), "{target} vs {os}");
}

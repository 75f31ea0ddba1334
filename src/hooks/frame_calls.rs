//! The `ctx frame push` and `ctx frame pop` an agent's shell call runs, read from its command as a
//! shell splits it, and what the call's output tells of them: which frame a push made, whether a
//! pop ended the frame it should have. Both transcript folds (Claude Code's Bash calls, Codex's
//! shell calls) pair pushes and pops with these. Pure.
//!
//! What counts as a ctx frame command, exactly:
//! - The command text is split as a shell would, outside quotes, into simple commands at `;`,
//!   `&`, `&&`, `|`, `||`, newlines and parentheses (so `(ctx frame push -- 'A')` and
//!   `ctx frame push -- 'A'; make` are a push whose goal is `A`); quotes are taken off, a
//!   backslash keeps the next character, and a redirection (`2>&1`, `>log`) is no word of the
//!   command. Text inside quotes is text: `--summary 'a; b'` is one word.
//! - A simple command is a frame command when its words are, in order: any of the shell's
//!   `if`, `then`, `else`, `elif`, `do`, `while`, `until`, `!`, `{`, `time` and variable
//!   assignments (`CTX_SESSION=cc_x`); the program `ctx`, or a path ending in `/ctx`, as plain
//!   text (`"$CTX_BIN"` is not, since only a shell can read it); ctx's global options (`--json`,
//!   `-q`/`--quiet`, `-C DIR`/`--root DIR`, `--color WHEN`, in any of clap's spellings); then
//!   `frame` and `push` or `pop`. The words after are the frame command's, to the simple
//!   command's end. So `echo frame pop is next` and `grep 'frame push' x` are not frame commands,
//!   and neither is one inside backquotes (`` `ctx frame pop` ``).
//!
//! A word is plain when no `$` or backquote stands outside single quotes in it: only a shell
//! could read the others (`"$GOAL"`), so a goal or a `--frame` given so is not known.

use std::collections::HashSet;

use serde_json::Value;

/// A word of a shell command, its quotes taken off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// No `$` or backquote outside single quotes: the text is what the program gets.
    pub plain: bool,
}

/// One `ctx frame push` or `ctx frame pop` of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameCommand {
    /// A push (else a pop).
    pub push: bool,
    /// `--json` was given: the output is a JSON document, one line.
    pub json: bool,
    /// The words after `frame push` / `frame pop`, to the simple command's end.
    pub args: Vec<Word>,
}

/// What ctx knows of a frame a transcript pushed and popped.
pub struct Finished {
    /// The frame's parent: what the pop printed as the frame now current.
    pub parent: Option<String>,
    /// The pop's result as the model will see it after the fold: the summary and the log path.
    pub text: String,
}

/// A shell call of a transcript that runs frame commands.
pub struct Call {
    /// Its line (0-based), where a span starts or ends.
    pub line: usize,
    /// Its frame commands, in order: more than one makes its spans unfoldable.
    pub commands: Vec<FrameCommand>,
    /// Its result, when the transcript holds one.
    pub answer: Option<Answer>,
}

/// A shell call's result.
pub struct Answer {
    /// Its line (0-based).
    pub line: usize,
    /// What the call printed.
    pub text: String,
    /// The call failed (a command of it did): a pop may still have ended its frame.
    pub failed: bool,
    /// A fold already replaced it: its push went with its span.
    pub folded: bool,
}

/// A frame's span: its push's call, its pop's call and the pop's result (lines), the frame.
pub struct Span {
    pub push: usize,
    pub pop: usize,
    pub answer: usize,
    pub frame: String,
    /// What the pop's call printed besides the line that shows the pop (its other commands').
    pub others: Option<String>,
}

/// A frame pushed and not yet popped, as the stack of pushes holds it.
#[derive(Clone)]
struct Open {
    line: usize,
    frame: String,
    /// Its push's call runs other frame commands too.
    shared: bool,
}

/// Why a frame stays unfolded; `frame` is `None` for a pop whose frame ctx cannot tell.
pub struct Refusal {
    pub frame: Option<String>,
    /// The line it is about: the push's, or the pop's when there is no push.
    pub line: usize,
    pub why: String,
}

/// Options of `ctx frame push` and `ctx frame pop`, global ones included, that take a value.
const WITH_VALUE: [&str; 13] = [
    "--parent",
    "--id",
    "--frame",
    "--session",
    "--span-message",
    "--span-call",
    "--status",
    "--summary",
    "--summary-file",
    "--transcript",
    "-C",
    "--root",
    "--color",
];

/// Shell words that may come before a command's program.
const BEFORE_PROGRAM: [&str; 10] = [
    "if", "then", "else", "elif", "do", "while", "until", "!", "{", "time",
];

/// What the split of a command text gives.
#[derive(Debug, PartialEq)]
enum Token {
    Word(Word),
    /// The end of a simple command: `;`, `&`, `|`, a newline, a parenthesis.
    End,
    /// A redirection: the next word is its target, not the command's.
    Redirect,
}

/// `text` split into shell words and the ends of its simple commands.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let (mut word, mut plain, mut started) = (String::new(), true, false);
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    let flush = |out: &mut Vec<Token>, word: &mut String, plain: &mut bool, started: &mut bool| {
        if *started || !word.is_empty() {
            out.push(Token::Word(Word {
                text: std::mem::take(word),
                plain: *plain,
            }));
        }
        (*plain, *started) = (true, false);
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.push(c),
            (_, '$' | '`') => {
                plain = false;
                word.push(c);
            }
            (_, '\\') => {
                // A backslash before a newline joins the lines.
                match chars.next() {
                    Some('\n') if quote.is_none() => {}
                    Some(next) => word.push(next),
                    None => {}
                }
                started = true;
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, ';' | '&' | '|' | '(' | ')' | '\n') => {
                flush(&mut out, &mut word, &mut plain, &mut started);
                out.push(Token::End);
            }
            (None, '<' | '>') => {
                // A file descriptor's number before it (`2>`) is the redirection's.
                let fd = !started && !word.is_empty() && word.chars().all(|c| c.is_ascii_digit());
                if fd {
                    word.clear();
                    (plain, started) = (true, false);
                } else {
                    flush(&mut out, &mut word, &mut plain, &mut started);
                }
                while chars
                    .next_if(|c| matches!(c, '<' | '>' | '&' | '|'))
                    .is_some()
                {}
                out.push(Token::Redirect);
            }
            (None, c) if c.is_whitespace() => flush(&mut out, &mut word, &mut plain, &mut started),
            (None, c) => word.push(c),
        }
    }
    flush(&mut out, &mut word, &mut plain, &mut started);
    out
}

/// The simple commands of `text`, each as its words (redirections left out).
fn simple_commands(text: &str) -> Vec<Vec<Word>> {
    let mut commands = vec![Vec::new()];
    let mut redirected = false;
    for token in tokens(text) {
        match token {
            Token::Word(_) if redirected => redirected = false,
            Token::Word(word) => commands.last_mut().expect("one at least").push(word),
            Token::Redirect => redirected = true,
            Token::End => {
                redirected = false;
                if !commands.last().expect("one at least").is_empty() {
                    commands.push(Vec::new());
                }
            }
        }
    }
    commands.retain(|c| !c.is_empty());
    commands
}

/// The frame commands `command` runs, in order (module doc: what counts as one).
pub fn frame_commands(command: &str) -> Vec<FrameCommand> {
    simple_commands(command)
        .into_iter()
        .filter_map(frame_command)
        .collect()
}

/// `words` as a frame command, when they are one.
fn frame_command(words: Vec<Word>) -> Option<FrameCommand> {
    let mut words = words.into_iter().peekable();
    while words
        .next_if(|w| w.plain && is_before_program(&w.text))
        .is_some()
    {}
    let program = words.next()?;
    if !(program.plain && (program.text == "ctx" || program.text.ends_with("/ctx"))) {
        return None;
    }
    let mut json = false;
    loop {
        let word = words.next()?;
        if !word.plain {
            return None;
        }
        match word.text.as_str() {
            "frame" => break,
            "--json" => json = true,
            "--quiet" => {}
            "--root" | "--color" => {
                words.next()?;
            }
            long if long.starts_with("--root=") || long.starts_with("--color=") => {}
            short if short.starts_with('-') && short.len() > 1 && !short.starts_with("--") => {
                // Clap's short flags, clustered: `-q`, `-C DIR`, `-CDIR`, `-qC DIR`.
                let flags = &short[1..];
                match flags.find(|c| c != 'q') {
                    None => {}
                    // `C` last: its value is the next word.
                    Some(at) if at + 1 == flags.len() && flags.ends_with('C') => {
                        words.next()?;
                    }
                    Some(at) if flags[at..].starts_with('C') => {}
                    Some(_) => return None,
                }
            }
            _ => return None,
        }
    }
    let push = match words.next() {
        Some(w) if w.plain && w.text == "push" => true,
        Some(w) if w.plain && w.text == "pop" => false,
        _ => return None,
    };
    let args: Vec<Word> = words.collect();
    let json = json || options(&args).any(|w| w.plain && w.text == "--json");
    Some(FrameCommand { push, json, args })
}

/// A shell keyword or a variable assignment, which may come before a command's program.
fn is_before_program(word: &str) -> bool {
    if BEFORE_PROGRAM.contains(&word) {
        return true;
    }
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The words of `args` before `--`: where options are.
fn options(args: &[Word]) -> impl Iterator<Item = &Word> {
    args.iter().take_while(|w| !(w.plain && w.text == "--"))
}

impl FrameCommand {
    /// A push's goal, when it is plain text: the word after `--`, else the first word that is
    /// neither an option nor an option's value.
    pub fn goal(&self) -> Option<String> {
        if !self.push {
            return None;
        }
        let mut words = self.args.iter();
        while let Some(word) = words.next() {
            let goal = match word.text.as_str() {
                "--" => words.next()?,
                option if WITH_VALUE.contains(&option) => {
                    words.next();
                    continue;
                }
                option if option.starts_with('-') && option.len() > 1 => continue,
                _ => word,
            };
            return goal.plain.then(|| goal.text.clone());
        }
        None
    }

    /// A pop's `--frame`: `None` when it has none, `Some(None)` when it is not a value ctx can
    /// read without running a shell (a variable, a substitution).
    pub fn names(&self) -> Option<Option<String>> {
        if self.push {
            return None;
        }
        let mut words = self.args.iter();
        while let Some(word) = words.next() {
            let value = if let Some(value) = word.text.strip_prefix("--frame=") {
                Some(Word {
                    text: value.to_string(),
                    plain: word.plain,
                })
            } else if word.text == "--frame" {
                Some(words.next().cloned().unwrap_or(Word {
                    text: String::new(),
                    plain: false,
                }))
            } else if word.text == "--" {
                break;
            } else {
                if WITH_VALUE.contains(&word.text.as_str()) {
                    words.next();
                }
                None
            };
            if let Some(value) = value {
                return Some(value.plain.then_some(value.text).filter(|v| is_frame_id(v)));
            }
        }
        None
    }
}

/// Whether `text` can be a frame id or a prefix of one.
pub fn is_frame_id(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The frame id an output line shows: the line itself (what `ctx frame push` prints), or the
/// `frame.id` of the JSON document `--json` prints.
fn frame_of_line(line: &str) -> Option<String> {
    let line = line.trim();
    if is_frame_id(line) {
        return Some(line.to_string());
    }
    if !line.starts_with('{') {
        return None;
    }
    let doc: Value = serde_json::from_str(line).ok()?;
    Some(doc.pointer("/frame/id")?.as_str()?.to_string())
}

/// The frame a push's call made, read from the call's output. `ctx frame push` prints the id on a
/// line of its own (or its JSON document, with `--json`): the output's first line when the push
/// is the call's first command, after the output of the commands before it otherwise (which may
/// print ids too: `ctx frame plan … && ctx frame push …`), and an agent may put a line of its own
/// first (Claude Code's `Exit code N` when a command failed). So the frame is the line naming a
/// frame ctx knows (`goal_of`) with the push's goal, or, when the goal is not plain text, the
/// first line naming a frame ctx knows. None does when the push failed.
pub fn pushed_frame(
    output: &str,
    goal: Option<&str>,
    goal_of: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let mut known = output
        .lines()
        .filter_map(frame_of_line)
        .filter_map(|id| Some((goal_of(&id)?, id)));
    let frame = match goal {
        Some(goal) => known.find(|(known, _)| known == goal),
        None => known.next(),
    };
    frame.map(|(_, id)| id)
}

/// The line of a pop's output that shows it ended `frame`, whose parent is `parent`: the parent's
/// id, which `ctx frame pop` prints as the frame now current, or (`json`) the pop's document,
/// which names the frame popped. `None` when no line does.
pub fn pop_line(output: &str, json: bool, frame: &str, parent: Option<&str>) -> Option<usize> {
    output.lines().position(|line| {
        if json {
            line.trim().starts_with('{') && frame_of_line(line).as_deref() == Some(frame)
        } else {
            parent.is_some_and(|parent| line.trim() == parent)
        }
    })
}

/// Pairs the pushes and pops of `calls` (in the transcript's order) as a stack: the spans of the
/// frames whose pop shows it ended them, and why each other frame (or pop) cannot fold. A pop
/// that does not show it ended the frame on top (it ended one ctx did not see pushed, or failed)
/// leaves the stack as it is.
pub fn pair(
    calls: &[Call],
    goal_of: &dyn Fn(&str) -> Option<String>,
    finished: &dyn Fn(&str) -> Option<Finished>,
) -> (Vec<Span>, Vec<Refusal>) {
    let mut stack: Vec<Open> = Vec::new();
    let mut spans: Vec<Span> = Vec::new();
    let mut refusals: Vec<Refusal> = Vec::new();
    for call in calls {
        let Some(answer) = &call.answer else {
            continue;
        };
        let shared = call.commands.len() > 1;
        for command in &call.commands {
            if command.push {
                // A push may share its call with other commands (`ctx frame push -- 'Build' &&
                // cargo build`), whose failure makes the whole call an error: what tells is the
                // frame's id in the output.
                let goal = command.goal();
                if let Some(frame) = pushed_frame(&answer.text, goal.as_deref(), goal_of) {
                    stack.push(Open {
                        line: call.line,
                        frame,
                        shared,
                    });
                }
                continue;
            }
            // One folded before lost its push with its span.
            if answer.folded {
                continue;
            }
            // A pop that failed ends nothing, and the call is an error. So is a call whose
            // later command failed (`ctx frame pop … && cargo test`), where the pop did end its
            // frame: its output shows it, as checked below. So what refuses a frame for a call
            // that did not fail only passes over one that did.
            let failed = answer.failed;
            let mut refuse = |frame: Option<&Open>, line: usize, why: String| {
                if !failed {
                    refusals.push(Refusal {
                        frame: frame.map(|open| open.frame.clone()),
                        line: frame.map_or(line, |open| open.line),
                        why,
                    });
                }
            };
            let pop = call.line + 1;
            let named = command.names();
            if let Some(Some(named)) = &named {
                // A pop names a frame by its id or a prefix of it; the innermost frame pushed
                // here that it names is the one it ends.
                match stack.iter().rposition(|open| open.frame.starts_with(named)) {
                    Some(at) if at + 1 == stack.len() => {}
                    Some(at) => {
                        let (outer, inner) = (&stack[at], stack.last().expect("above the named"));
                        let why = format!(
                            "spans cross: the pop at line {pop} ends it while frame {}, pushed at \
                             line {}, runs",
                            inner.frame,
                            inner.line + 1
                        );
                        let ended = finished(&outer.frame).is_some_and(|done| {
                            pop_line(
                                &answer.text,
                                command.json,
                                &outer.frame,
                                done.parent.as_deref(),
                            )
                            .is_some()
                        });
                        refuse(Some(outer), call.line, why);
                        if ended {
                            stack.remove(at);
                        }
                        continue;
                    }
                    // A frame pushed elsewhere (another session, a person): it ends no span of
                    // this transcript, and is an ordinary call, folded with the span it is in.
                    None => continue,
                }
            }
            let Some(top) = stack.last().cloned() else {
                refuse(
                    None,
                    call.line,
                    format!("the pop at line {pop} has no push in the transcript"),
                );
                continue;
            };
            let Some(done) = finished(&top.frame) else {
                refuse(
                    Some(&top),
                    call.line,
                    format!(
                        "the pop at line {pop} would end it, and ctx does not know it as finished"
                    ),
                );
                continue;
            };
            // The pop shows the frame it ended, among what the other commands of its call print.
            let shown = pop_line(
                &answer.text,
                command.json,
                &top.frame,
                done.parent.as_deref(),
            );
            let Some(shown) = shown else {
                let what = if command.json {
                    "its document".to_string()
                } else {
                    match &done.parent {
                        Some(parent) => format!("its parent {parent} as the frame now current"),
                        None => "a frame now current (it has no parent)".to_string(),
                    }
                };
                refuse(
                    Some(&top),
                    call.line,
                    format!(
                        "the pop at line {pop} does not show it ended it: its output does not \
                         name {what}"
                    ),
                );
                continue;
            };
            stack.pop();
            if matches!(named, Some(None)) {
                refuse(
                    Some(&top),
                    call.line,
                    format!("the pop at line {pop} names its frame by what only a shell can read"),
                );
                continue;
            }
            if shared || top.shared {
                let line = if shared { call.line } else { top.line } + 1;
                refuse(
                    Some(&top),
                    call.line,
                    format!(
                        "the call at line {line} runs two frame commands; ctx folds a call that \
                         pushes or pops one frame"
                    ),
                );
                continue;
            }
            // What the call's other commands printed stays, after the summary: the model saw it.
            let others: Vec<&str> = answer
                .text
                .lines()
                .enumerate()
                .filter(|(n, _)| *n != shown)
                .map(|(_, l)| l)
                .collect();
            let others = others.join("\n");
            spans.push(Span {
                push: top.line,
                pop: call.line,
                answer: answer.line,
                frame: top.frame,
                others: (!others.trim().is_empty()).then_some(others),
            });
        }
    }
    (spans, refusals)
}

/// The outermost of `spans`, in order: an inner span goes with its outer one.
pub fn outermost(spans: &[Span]) -> Vec<&Span> {
    let mut outer: Vec<&Span> = spans
        .iter()
        .filter(|s| !spans.iter().any(|o| o.push < s.push && s.pop < o.pop))
        .collect();
    outer.sort_by_key(|s| s.push);
    outer
}

/// The hook log's sentences for `refusals`, in the transcript's order: the last word on each
/// frame, none for a frame that folded (`foldable`) or went with a span that did (`folded`).
pub fn refused(refusals: &[Refusal], foldable: &[Span], folded: &[&Span]) -> Vec<String> {
    let inside_folded = |line: usize| folded.iter().any(|s| s.push <= line && line <= s.answer);
    let mut said: HashSet<&str> = HashSet::new();
    let mut out: Vec<(usize, String)> = Vec::new();
    for refusal in refusals.iter().rev() {
        if inside_folded(refusal.line) {
            continue;
        }
        let sentence = match &refusal.frame {
            Some(frame) => {
                if foldable.iter().any(|s| &s.frame == frame) || !said.insert(frame) {
                    continue;
                }
                format!(
                    "frame {frame}, pushed at line {}, left unfolded: {}",
                    refusal.line + 1,
                    refusal.why
                )
            }
            None => format!("{}; left as it is", refusal.why),
        };
        out.push((refusal.line, sentence));
    }
    out.sort();
    out.into_iter().map(|(_, sentence)| sentence).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(command: &str) -> FrameCommand {
        let mut found = frame_commands(command);
        assert_eq!(found.len(), 1, "{command}: {found:?}");
        found.remove(0)
    }

    fn goal(command: &str) -> Option<String> {
        let found = only(command);
        assert!(found.push, "{command}");
        found.goal()
    }

    #[test]
    fn a_pushs_goal_is_read_past_its_options() {
        assert_eq!(
            goal("ctx frame push -- 'Build it' && make").as_deref(),
            Some("Build it")
        );
        assert_eq!(goal("ctx frame push 'Build'").as_deref(), Some("Build"));
        assert_eq!(
            goal("ctx frame push --parent fr_a --session=cc_s \"Build\"").as_deref(),
            Some("Build")
        );
        assert_eq!(goal("ctx frame push -- \"$GOAL\""), None);
        assert_eq!(goal("ctx frame push --parent fr_a && make"), None);
    }

    #[test]
    fn separators_and_parentheses_outside_quotes_end_the_goal() {
        for command in [
            "ctx frame push -- 'A'; cmd",
            "ctx frame push -- 'A';cmd",
            "ctx frame push -- 'A'&&cmd",
            "ctx frame push -- 'A'||cmd",
            "ctx frame push -- 'A'|cmd",
            "ctx frame push -- 'A'&",
            "(ctx frame push -- 'A')",
            "{ ctx frame push -- 'A'; }",
            "ctx frame push -- 'A'\nmake",
            "ctx frame push -- 'A' 2>&1",
            "ctx frame push -- 'A'>/dev/null",
            "if ctx frame push -- 'A'; then make; fi",
            "CTX_SESSION=cc_x ctx frame push -- A",
        ] {
            assert_eq!(goal(command).as_deref(), Some("A"), "{command}");
        }
        // Inside quotes they are the goal's text.
        assert_eq!(
            goal("ctx frame push -- 'A; (b) && c|d'").as_deref(),
            Some("A; (b) && c|d")
        );
    }

    #[test]
    fn global_options_before_frame_are_read_and_json_is_noted() {
        for command in [
            "ctx --json frame pop",
            "ctx -q frame pop",
            "ctx --quiet --color=never frame pop",
            "ctx -C /x frame pop",
            "ctx -C/x frame pop",
            "ctx -qC /x frame pop",
            "ctx --root /x --color never frame pop",
            "/usr/local/bin/ctx frame pop --json",
        ] {
            let found = only(command);
            assert!(!found.push, "{command}");
            assert_eq!(found.json, command.contains("--json"), "{command}");
        }
        assert!(frame_commands("ctx --version frame pop").is_empty());
        assert!(
            frame_commands("ctx frame pop -- --json")
                .iter()
                .all(|f| !f.json)
        );
    }

    #[test]
    fn frame_words_that_are_not_ctxs_command_are_text() {
        for text in [
            "echo frame pop is next",
            "echo 'ctx frame pop'",
            "grep -n \"frame push\" src/x.rs",
            "git commit -m 'ctx frame push'",
            "\"$CTX_BIN\" frame pop",
            "`ctx frame pop`",
            "ctxx frame pop",
            "ctx frame plan 'A'",
            "ctx frame",
        ] {
            assert!(frame_commands(text).is_empty(), "{text}");
        }
        assert_eq!(
            frame_commands("ctx frame pop --summary 'done' && ctx frame push -- 'Next' && make")
                .iter()
                .map(|f| f.push)
                .collect::<Vec<_>>(),
            [false, true]
        );
    }

    #[test]
    fn a_pops_frame_is_read_only_from_its_own_option() {
        let names = |command: &str| only(command).names();
        assert_eq!(
            names("ctx frame pop --frame fr_x"),
            Some(Some("fr_x".into()))
        );
        assert_eq!(
            names("ctx frame pop --frame=fr_x"),
            Some(Some("fr_x".into()))
        );
        assert_eq!(names("ctx frame pop --frame \"$F\""), Some(None));
        assert_eq!(names("ctx frame pop"), None);
        assert_eq!(
            names("ctx frame pop --summary 'done; see --frame x' && echo \"--frame=$Y\""),
            None
        );
        assert_eq!(names("ctx frame pop --summary --frame"), None);
        assert_eq!(
            names("ctx frame pop --frame fr_x; echo --frame y"),
            Some(Some("fr_x".into()))
        );
    }

    #[test]
    fn a_pushed_frame_is_read_from_its_line_or_its_json_document() {
        let goal_of = |id: &str| (id == "fr_x").then(|| "A".to_string());
        assert_eq!(
            pushed_frame("fr_x\n", Some("A"), &goal_of).as_deref(),
            Some("fr_x")
        );
        assert_eq!(
            pushed_frame("README\nfr_x\nOUT", Some("A"), &goal_of).as_deref(),
            Some("fr_x")
        );
        let doc = r#"{"version":1,"frame":{"id":"fr_x","goal":"A"}}"#;
        assert_eq!(
            pushed_frame(doc, Some("A"), &goal_of).as_deref(),
            Some("fr_x")
        );
        assert_eq!(pushed_frame("fr_x\n", Some("B"), &goal_of), None);
        assert_eq!(pushed_frame("INSIDE\n", Some("A"), &goal_of), None);
    }

    #[test]
    fn a_pop_is_shown_by_its_parent_or_its_json_document() {
        assert_eq!(pop_line("X\ncc_s\n", false, "fr_x", Some("cc_s")), Some(1));
        assert_eq!(pop_line("fr_y\n", false, "fr_x", Some("cc_s")), None);
        let doc = r#"{"version":1,"frame":{"id":"fr_x"},"current":"cc_s"}"#;
        assert_eq!(pop_line(doc, true, "fr_x", Some("cc_s")), Some(0));
        assert_eq!(pop_line(doc, true, "fr_y", Some("cc_s")), None);
    }
}

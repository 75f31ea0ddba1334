//! The one place that writes to stdout and stderr: primary output, JSON documents, warnings,
//! errors, colour and width decisions.

use std::io::{self, IsTerminal, Write};

use crate::error::{Error, Result};
use crate::text::{visible, visible_line};

/// `--color` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` forces it).
    Auto,
    /// Always colour, even in pipes.
    Always,
    /// Never colour.
    Never,
}

/// Resolves `--color` with the `NO_COLOR` and `CLICOLOR_FORCE` conventions, and `TERM=dumb` (a
/// terminal that shows escape codes as text) as no colour.
pub fn use_color(choice: ColorChoice, is_terminal: bool) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set("NO_COLOR") => false,
        ColorChoice::Auto if set("CLICOLOR_FORCE") => true,
        ColorChoice::Auto if dumb_terminal() => false,
        ColorChoice::Auto => is_terminal,
    }
}

/// Whether `TERM` is `dumb`.
pub fn dumb_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

/// A few ANSI styles; used only when colour is on, and never changing the characters printed.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    Bold,
    Dim,
    Red,
    Green,
    Yellow,
    Blue,
    Cyan,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::Bold => "1",
            Style::Dim => "2",
            Style::Red => "31",
            Style::Green => "32",
            Style::Yellow => "33",
            Style::Blue => "34",
            Style::Cyan => "36",
        }
    }
}

/// Output settings and sinks for one command.
pub struct Output {
    stdout: io::BufWriter<io::Stdout>,
    pub json: bool,
    pub quiet: bool,
    pub color: bool,
    stderr_color: bool,
    /// Width for human output: the terminal's when stdout is one, else 80.
    pub width: usize,
    pub stdout_is_terminal: bool,
}

/// `text` in `style` when `color` is on, else as it is.
pub fn paint(color: bool, style: Style, text: &str) -> String {
    if color {
        format!("\x1b[{}m{text}\x1b[0m", style.code())
    } else {
        text.to_string()
    }
}

impl Output {
    pub fn new(json: bool, quiet: bool, color: ColorChoice) -> Self {
        let stdout_is_terminal = io::stdout().is_terminal();
        let width = if stdout_is_terminal {
            terminal_size::terminal_size()
                .map(|(w, _)| usize::from(w.0))
                .filter(|w| *w >= 20)
                .unwrap_or(80)
        } else {
            80
        };
        Output {
            stdout: io::BufWriter::new(io::stdout()),
            json,
            quiet,
            color: use_color(color, stdout_is_terminal),
            stderr_color: use_color(color, io::stderr().is_terminal()),
            width,
            stdout_is_terminal,
        }
    }

    /// Wraps `text` in `style` when colour is on.
    pub fn paint(&self, style: Style, text: &str) -> String {
        paint(self.color, style, text)
    }

    /// Writes raw text to stdout.
    pub fn write(&mut self, text: &str) -> Result<()> {
        self.write_bytes(text.as_bytes())
    }

    /// Writes raw bytes to stdout (a file printed byte for byte).
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        self.stdout.write_all(bytes).map_err(|e| Error::output(&e))
    }

    /// Output whose bytes are a contract (opencode-swarm's markdown, compact's text and XML, a
    /// log file): written as it is to a pipe or file; on a terminal, with what would act on it
    /// made visible (a person reads it there, and a file must not take over their terminal).
    pub fn contract(&mut self, text: &str) -> Result<()> {
        if self.stdout_is_terminal {
            self.write(&visible(text))
        } else {
            self.write(text)
        }
    }

    /// [`Output::contract`] of `text` and a newline.
    pub fn contract_line(&mut self, text: &str) -> Result<()> {
        self.contract(text)?;
        self.write("\n")
    }

    /// Writes one line of primary output.
    pub fn line(&mut self, text: &str) -> Result<()> {
        self.write(text)?;
        self.write("\n")
    }

    /// Writes a JSON document (compact, one line) to stdout.
    pub fn json_doc(&mut self, value: &impl serde::Serialize) -> Result<()> {
        serde_json::to_writer(&mut self.stdout, value)
            .map_err(|e| Error::output(&io::Error::from(e)))?;
        self.write("\n")
    }

    pub fn flush(&mut self) -> Result<()> {
        self.stdout.flush().map_err(|e| Error::output(&e))
    }

    /// `warning: …` on stderr, unless `-q`.
    pub fn warn(&self, message: &str) {
        if !self.quiet {
            let label = self.paint_err(Style::Yellow, "warning:");
            let _ = writeln!(io::stderr(), "{label} {}", visible_line(message));
        }
    }

    /// An informational line on stderr (e.g. "no frames yet"), unless `-q`.
    pub fn note(&self, message: &str) {
        if !self.quiet {
            let _ = writeln!(io::stderr(), "{}", visible(message));
        }
    }

    /// The `error:` line and its `hint:` lines. Errors are printed even with `-q`.
    pub fn error(&self, err: &Error) {
        let mut stderr = io::stderr().lock();
        let label = self.paint_err(Style::Red, "error:");
        // Messages quote file content and arguments: one line each, nothing that acts on a
        // terminal.
        let _ = writeln!(stderr, "{label} {}", visible_line(&err.message));
        for hint in &err.hints {
            let label = self.paint_err(Style::Cyan, "hint:");
            let _ = writeln!(stderr, "{label} {}", visible_line(hint));
        }
    }

    fn paint_err(&self, style: Style, text: &str) -> String {
        if self.stderr_color {
            format!("\x1b[1;{}m{text}\x1b[0m", style.code())
        } else {
            text.to_string()
        }
    }
}

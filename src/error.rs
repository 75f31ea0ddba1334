//! Error kinds and the exit codes they map to (cli.md, "Streams and exit codes").

use std::fmt;
use std::io;
use std::path::Path;

/// The process exit codes of the command-line contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    Success = 0,
    /// A file could not be read or written, an input is malformed, a frame was not found,
    /// a state transition was refused.
    Failure = 1,
    /// Unknown flag, missing argument, conflicting options.
    Usage = 2,
    /// `budget estimate --fail-on warn`: usage above the warn threshold.
    BudgetWarn = 3,
    /// `budget estimate --fail-on warn|critical`: usage above the critical threshold.
    BudgetCritical = 4,
    /// `swarm diagnose`: a health check failed.
    SwarmUnhealthy = 5,
    /// `budget spent --max-cost`: the cost is above the limit.
    CostOver = 6,
}

impl ExitCode {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// What went wrong, which decides the exit code and whether anything is said. (Budget verdicts
/// are not errors: the report was printed, and its command returns their [`ExitCode`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Bad input, a refused operation, a file that could not be read or written: exit 1.
    Failure,
    /// A command line clap could not refuse itself: exit 2.
    Usage,
    /// Whoever read stdout has gone (`ctx … | head`): nothing more to say, exit 0.
    BrokenPipe,
}

impl Kind {
    pub fn exit(self) -> ExitCode {
        match self {
            Kind::Failure => ExitCode::Failure,
            Kind::Usage => ExitCode::Usage,
            Kind::BrokenPipe => ExitCode::Success,
        }
    }
}

/// An error a command reports to the user: one `error:` line, optional `hint:` lines, an exit code.
#[derive(Debug, Clone)]
pub struct Error {
    pub message: String,
    pub hints: Vec<String>,
    pub kind: Kind,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A refused operation or bad input: exit 1.
    pub fn failure(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
            hints: Vec::new(),
            kind: Kind::Failure,
        }
    }

    /// A usage error that clap cannot detect (e.g. two options reading stdin): exit 2.
    pub fn usage(message: impl Into<String>) -> Self {
        Error {
            kind: Kind::Usage,
            ..Error::failure(message)
        }
    }

    /// An I/O error on `path`, phrased for people.
    pub fn io(path: &Path, action: &str, err: &io::Error) -> Self {
        Error::failure(format!(
            "{}: cannot {action}: {}",
            path.display(),
            describe_io(err)
        ))
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }
}

/// `io::Error`'s text without the " (os error N)" suffix people do not need.
pub fn describe_io(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl Error {
    /// A failed write to stdout. Every other I/O error names its file through [`Error::io`];
    /// there is deliberately no `From<io::Error>`, so a `?` cannot drop a path.
    pub fn output(err: &io::Error) -> Self {
        if err.kind() == io::ErrorKind::BrokenPipe {
            Error {
                kind: Kind::BrokenPipe,
                ..Error::failure("broken pipe")
            }
        } else {
            Error::failure(format!("cannot write output: {}", describe_io(err)))
        }
    }
}

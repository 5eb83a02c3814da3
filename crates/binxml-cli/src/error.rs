//! The command's errors and what each does to the exit status.

use std::io;

/// Why a subcommand stopped.
#[derive(Debug)]
pub struct CliError {
    kind: Kind,
    message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The reader of our output went away: stop at once, say nothing (as `cat` does).
    ClosedPipe,
    /// A write failed; [`CliError::writing`] names what was being written.
    Write,
    /// The input could not be read or converted: status 1.
    Failure,
    /// The command line asks for something impossible: status 2.
    Usage,
}

impl CliError {
    /// An input that could not be read or converted (status 1).
    pub fn failure(message: impl Into<String>) -> Self {
        CliError {
            kind: Kind::Failure,
            message: message.into(),
        }
    }

    /// A command line that cannot be carried out (status 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            kind: Kind::Usage,
            message: message.into(),
        }
    }

    /// An I/O error while doing `what` (not a write to our output: see [`CliError::from_write`]).
    pub fn io(what: impl std::fmt::Display, e: io::Error) -> Self {
        CliError::failure(format!("{what}: {}", describe(&e)))
    }

    /// A failed write to the output: a closed pipe is a quiet stop, anything else a failure
    /// that [`CliError::writing`] names.
    pub fn from_write(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CliError {
                kind: Kind::ClosedPipe,
                message: String::new(),
            }
        } else {
            CliError {
                kind: Kind::Write,
                message: describe(&e),
            }
        }
    }

    /// Names the output a write error happened on.
    pub fn writing(self, target: &str) -> Self {
        match self.kind {
            Kind::Write => CliError::failure(format!("cannot write {target}: {}", self.message)),
            _ => self,
        }
    }

    /// Prefixes the message with the input it is about (`FILE: ...`).
    pub fn about(self, input: &str) -> Self {
        match self.kind {
            Kind::Failure | Kind::Write => CliError {
                kind: self.kind,
                message: format!("{input}: {}", self.message),
            },
            _ => self,
        }
    }

    /// Whether the reader of our output went away.
    pub fn is_closed_pipe(&self) -> bool {
        self.kind == Kind::ClosedPipe
    }

    /// The exit status this error ends the command with.
    pub fn status(&self) -> i32 {
        match self.kind {
            Kind::ClosedPipe => 0,
            Kind::Write | Kind::Failure => 1,
            Kind::Usage => 2,
        }
    }

    /// The one line printed on standard error (none for a closed pipe).
    pub fn line(&self) -> Option<String> {
        (self.kind != Kind::ClosedPipe).then(|| format!("binxml: error: {}", self.message))
    }
}

/// An I/O error as a user reads it: the system's text without Rust's "(os error N)".
pub fn describe(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

//! `DatatypeError`: what was wrong with a lexical form, a value or a facet.

use std::fmt;

/// What kind of mistake a [`DatatypeError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The string is not in the type's lexical space.
    Lexical,
    /// The string is lexically fine but its value is outside the built-in type's range
    /// (an `xs:byte` of 300), or outside what this module represents (a year of 40 digits).
    Range,
    /// The value does not satisfy one of the type's facets.
    Facet,
    /// The schema is wrong: a facet that does not apply, an inconsistent restriction.
    Schema,
    /// A pattern is not an XSD regular expression, or is too large to compile.
    Pattern,
}

/// An error from parsing, facet checking, facet derivation or pattern compilation.
///
/// It names what was checked (a type such as `xs:int`, or a facet such as `maxLength`), quotes
/// the offending value shortened to [`DatatypeError::MAX_QUOTE`] characters (documents are
/// hostile: an error message must not copy a megabyte of text) and says what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatatypeError {
    kind: ErrorKind,
    subject: String,
    value: String,
    message: String,
}

impl DatatypeError {
    /// The number of characters of the offending value an error keeps.
    pub const MAX_QUOTE: usize = 64;

    /// An error of `kind` about `subject` (a type or facet name), quoting `value`.
    pub fn new(kind: ErrorKind, subject: &str, value: &str, message: impl Into<String>) -> Self {
        DatatypeError {
            kind,
            subject: subject.to_string(),
            value: shorten(value),
            message: message.into(),
        }
    }

    /// The kind of mistake.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The type (`xs:int`) or facet (`maxLength`) the error is about.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The offending value, shortened to at most [`Self::MAX_QUOTE`] characters plus `...`.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// What was wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The first `MAX_QUOTE` characters of `s`, with `...` when some were cut.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(DatatypeError::MAX_QUOTE) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_string(),
    }
}

impl fmt::Display for DatatypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Debug-quoting shows control characters and white space, which is what most
        // lexical mistakes are about.
        write!(f, "{} {:?}: {}", self.subject, self.value, self.message)
    }
}

impl std::error::Error for DatatypeError {}

/// Shorthand for the many lexical errors of the parsers.
pub(crate) fn lexical(subject: &str, value: &str, message: impl Into<String>) -> DatatypeError {
    DatatypeError::new(ErrorKind::Lexical, subject, value, message)
}
